//! The packet cases' test bench: small fabrics, schemes by their registered names, runs and
//! the measurements the cases read off them (per-flow rates, queue quantiles, utilization).

use dctc_core::error::KeyError;
use dctc_core::ids::FlowId;
use dctc_core::routing::Routing;
use dctc_core::spec::FlowSpec;
pub(crate) use dctc_core::stats::{HEADER_BYTES, MSS_BYTES};
use dctc_core::topology::{NodeKind, Topology};
use dctc_core::units::{Delta, Rate, SimTime};
use dctc_packet::config::PacketSettings;
use dctc_packet::keys::ParseTable;
use dctc_packet::metrics::PacketRun;
use dctc_packet::schemes::resolve_scheme;
use dctc_packet::{PacketScheme, RunOptions, Simulation, Workload};

/// Wire bytes of a full packet.
pub(crate) const PACKET: u64 = MSS_BYTES + HEADER_BYTES;

/// A `[[schemes]]` table (or `[packet]` table) written in TOML.
struct Toml(toml::Value);

impl ParseTable for Toml {
    fn keys(&self) -> Vec<String> {
        let table = self.0.as_table().into_iter().flatten();
        table.map(|(k, _)| k.clone()).collect()
    }

    fn parse_keys<T: serde::de::DeserializeOwned>(&self, names: &[&str]) -> Result<T, KeyError> {
        let part: toml::Table = (self.0.as_table().into_iter().flatten())
            .filter(|(k, _)| names.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        toml::Value::Table(part)
            .try_into()
            .map_err(|e: toml::de::Error| KeyError::new("conformance", e.to_string()))
    }
}

/// Scheme `name` with the extra `[[schemes]]` keys `keys` and the `[packet]` table `packet`
/// (both TOML text), resolved on `topo`; Flowtune's allocator joins `topo` when the scheme
/// needs it. Panics on keys the scheme refuses: the suite's own tables are fixed.
pub(crate) fn scheme(name: &str, keys: &str, packet: &str, topo: &mut Topology) -> PacketScheme {
    let table: toml::Table = toml::from_str(&format!("name = \"{name}\"\n{keys}"))
        .expect("the suite's scheme tables are valid TOML");
    let packet = Toml(toml::Value::Table(
        toml::from_str(packet).expect("the suite's [packet] tables are valid TOML"),
    ));
    let settings = PacketSettings::read(&packet, topo)
        .unwrap_or_else(|e| panic!("conformance [packet]: {}: {}", e.path, e.reason));
    let s = resolve_scheme(
        &Toml(toml::Value::Table(table)),
        &settings,
        topo,
        "schemes[0]",
    )
    .unwrap_or_else(|e| panic!("conformance scheme `{name}`: {}: {}", e.path, e.reason));
    if let Some(spec) = s.cc.allocator_spec() {
        if topo
            .node_by_name(dctc_core::fabric::ALLOCATOR_NODE)
            .is_none()
        {
            dctc_core::fabric::attach_allocator(topo, spec.link_gbps)
                .expect("an allocator attaches to any fabric");
        }
    }
    s
}

/// `g` Gb/s.
pub(crate) fn gbps(g: f64) -> Rate {
    Rate((g * 1e9).round() as u64)
}

/// A dumbbell: `senders` hosts (h0..) on switch `left`, `receivers` on `right`, the
/// `left -> right` cable at `rate_gbps` and host links `host_factor` times faster (1: the
/// classic ToR, where a lone flow's own NIC is its bottleneck), `delay_us` of propagation per
/// link, `buffer` bytes per port.
pub(crate) fn dumbbell(
    senders: usize,
    receivers: usize,
    rate_gbps: f64,
    host_factor: f64,
    delay_us: f64,
    buffer: u64,
) -> Topology {
    dctc_core::fabric::dumbbell(&dctc_core::fabric::DumbbellSpec {
        senders,
        receivers,
        host_rate_gbps: rate_gbps * host_factor,
        bottleneck_rate_gbps: rate_gbps,
        link_delay_us: delay_us,
        host_delay_us: HOST_DELAY_US,
        buffer_bytes: buffer,
    })
    .expect("the suite's dumbbells are valid")
}

/// Host delay of the suite's fabrics, us per one-way trip.
pub(crate) const HOST_DELAY_US: f64 = 1.0;

/// One switch `sw` with `hosts` hosts (h0..), every link at `rate_gbps` (TFC's testbed).
pub(crate) fn star(hosts: usize, rate_gbps: f64, delay_us: f64, buffer: u64) -> Topology {
    let mut t = Topology::new("star", Delta::from_us_f64(HOST_DELAY_US));
    let hs: Vec<_> = (0..hosts)
        .map(|i| t.add_node(NodeKind::Host, format!("h{i}")))
        .collect();
    let sw = t.add_node(NodeKind::Switch { tier: 1 }, "sw");
    for h in hs {
        t.add_cable(
            h,
            sw,
            gbps(rate_gbps),
            Delta::from_us_f64(delay_us),
            buffer,
            buffer,
        );
    }
    t
}

/// The empty-network round trip of a host-to-host path of `links` links of `delay_us` each:
/// the two host links at `host_factor` times `rate_gbps`, the others at `rate_gbps`; a full
/// packet out (store and forward at each hop), a 40 B ACK back, the host delay each way.
pub(crate) fn base_rtt(links: usize, rate_gbps: f64, host_factor: f64, delay_us: f64) -> Delta {
    let (r, h) = (gbps(rate_gbps), gbps(rate_gbps * host_factor));
    let inner = links.saturating_sub(2) as u64;
    let one_way = Delta::from_us_f64(delay_us) * links as u64;
    let host = Delta::from_us_f64(HOST_DELAY_US);
    let tx = |bytes: u64| h.tx_time(bytes) * 2 + r.tx_time(bytes) * inner;
    one_way + one_way + host + host + tx(PACKET) + tx(HEADER_BYTES)
}

/// Bytes a link of `rate_gbps` carries in `d`.
pub(crate) fn bytes_in(rate_gbps: f64, d: Delta) -> u64 {
    gbps(rate_gbps).bytes_in(d)
}

/// A long-lived flow `id` from host `src` to host `dst` over `[start_us, stop_us)`.
pub(crate) fn long_flow(
    topo: &Topology,
    id: u32,
    src: usize,
    dst: usize,
    start_us: f64,
    stop_us: f64,
) -> FlowSpec {
    let at = |us| SimTime::from_delta(Delta::from_us_f64(us));
    let h = topo.hosts();
    FlowSpec::long_lived(FlowId(id), h[src], h[dst], at(start_us), at(stop_us))
}

/// A flow `id` of `size` bytes from host `src` to host `dst` starting at `start_us`.
pub(crate) fn sized_flow(
    topo: &Topology,
    id: u32,
    src: usize,
    dst: usize,
    start_us: f64,
    size: u64,
) -> FlowSpec {
    let start = SimTime::from_delta(Delta::from_us_f64(start_us));
    let h = topo.hosts();
    FlowSpec::sized(FlowId(id), h[src], h[dst], start, size)
}

/// What to record besides the flow records.
#[derive(Clone, Debug, Default)]
pub(crate) struct Record {
    /// Throughput bin width (per-flow arrival rates).
    pub(crate) bin: Option<Delta>,
    /// Queue sample interval, and the ports to sample (empty: every switch port).
    pub(crate) sample: Option<Delta>,
    pub(crate) links: Vec<u32>,
}

/// Runs `scheme` on `flows` over `topo` until `until` (seed 1), recording `rec`.
pub(crate) fn simulate(
    topo: &Topology,
    scheme: &PacketScheme,
    flows: Vec<FlowSpec>,
    until: Delta,
    rec: &Record,
) -> PacketRun {
    let routing = Routing::new(topo).expect("the suite's fabrics route");
    let mut opts = RunOptions::new(1, SimTime::from_delta(until));
    opts.throughput_bin = rec.bin;
    opts.queue_sample = rec.sample;
    opts.sample_links = rec.links.clone();
    let wl = Workload {
        flows,
        incasts: Vec::new(),
    };
    Simulation::new(topo, &routing, scheme, &wl, opts)
        .expect("the suite's workloads fit their fabrics")
        .run(&mut |_| {})
}

/// The link index of the port from node `from` to node `to`.
pub(crate) fn link(topo: &Topology, from: &str, to: &str) -> u32 {
    let (a, b) = (
        topo.node_by_name(from).expect("a named node"),
        topo.node_by_name(to).expect("a named node"),
    );
    topo.links()
        .iter()
        .position(|l| l.from == a && l.to == b)
        .expect("the nodes are linked") as u32
}

/// Each long-lived flow's arrival rate over `[from, to)` (whole bins), b/s, in flow order.
pub(crate) fn rates(r: &PacketRun, from: Delta, to: Delta) -> Vec<f64> {
    let bin = r.throughput_bin.expect("throughput bins were recorded");
    let (a, b) = ((from.0 / bin.0) as usize, (to.0 / bin.0) as usize);
    let secs = (b - a) as f64 * bin.as_secs_f64();
    let mut v: Vec<(u32, f64)> = r
        .throughput
        .iter()
        .map(|(id, bins)| {
            let bytes: u64 = bins.iter().skip(a).take(b - a).sum();
            (*id, bytes as f64 * 8.0 / secs)
        })
        .collect();
    v.sort_by_key(|x| x.0);
    v.into_iter().map(|x| x.1).collect()
}

/// The backlog samples of link `l` in `[from, to)`, bytes.
pub(crate) fn queue(r: &PacketRun, l: u32, from: Delta, to: Delta) -> Vec<f64> {
    r.queue_samples
        .iter()
        .filter(|s| s.link == l && s.time_ps >= from.0 && s.time_ps < to.0)
        .map(|s| s.bytes as f64)
        .collect()
}

/// Link `l`'s utilization over `[from, to)` (from the samples' bytes sent), 0..1.
pub(crate) fn utilization(r: &PacketRun, l: u32, rate: Rate, from: Delta, to: Delta) -> f64 {
    let s: Vec<_> = r
        .queue_samples
        .iter()
        .filter(|s| s.link == l && s.time_ps >= from.0 && s.time_ps <= to.0)
        .collect();
    let (Some(a), Some(b)) = (s.first(), s.last()) else {
        return 0.0;
    };
    if b.time_ps <= a.time_ps {
        return 0.0;
    }
    (b.sent_bytes - a.sent_bytes) as f64 * 8.0
        / rate.bps_f64()
        / ((b.time_ps - a.time_ps) as f64 * 1e-12)
}

/// The `q` quantile (nearest rank) of `v`.
pub(crate) fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let i = ((q * s.len() as f64).ceil() as usize).clamp(1, s.len()) - 1;
    s[i]
}

/// Jain's fairness index of `x`.
pub(crate) fn jain(x: &[f64]) -> f64 {
    dctc_core::stats::jain_fairness(x)
}

/// The largest share over the smallest.
pub(crate) fn max_over_min(x: &[f64]) -> f64 {
    let (lo, hi) = x
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    if lo <= 0.0 {
        f64::INFINITY
    } else {
        hi / lo
    }
}

/// Link rates every rate-sweeping family runs at, Gb/s, and whether each is in the quick set.
pub(crate) const RATES: &[(f64, bool)] = &[(1.0, true), (10.0, true), (40.0, false), (100.0, true)];
