//! Scenario keys of the packet engine and their resolution into engine values.
//!
//! ```toml
//! [packet]                       # defaults for every scheme
//! tcp = { preset = "pfabric-tuned", delayed_ack_us = 6, timestamps = false, limited_transmit = false, pacing_gbps = 2.5 }
//! load_balancer = "ecmp"         # or "spray", "drill", "holnet-percentage" (lb::LOAD_BALANCERS)
//! drill = { samples = 2 }        # a balancer's keys (lb/<name>.rs)
//! nic_buffer_bytes = 1500000
//! send_jitter_us = 0             # each host packet leaves up to this much later (seeded; 0: off)
//! drain_ms = 0                   # run on after arrivals stop, so flows can finish
//! warm_start_ms = 0              # start Poisson workloads in progress (0: from an empty fabric)
//!
//! [[schemes]]
//! name = "dctcp"                 # a registered scheme (see schemes::SCHEMES)
//! label = "DCTCP"                # how outputs name it (default: the name)
//! ecn_k_bytes = 97500            # a key of its switch queue (`queue/<name>.rs`; `[packet]` may set it for all)
//! dctcp_g = 0.0625               # keys of the scheme's own module (`schemes/<name>.rs`)
//! transport = "dctcp"            # replace the scheme's controller (see transport::TRANSPORTS)
//! queue = "ecn"                  # replace its switch queue (see queue::QUEUES)
//! tcp = { initial_cwnd_packets = 10 }   # per-scheme overrides of [packet].tcp
//! buffer_packets = 100           # every switch port's buffer, 1500 B packets (default: the fabric's)
//! nic_queue = "switch"           # host NICs run the switch discipline (default "droptail")
//!
//! [[workload]]
//! kind = "poisson"               # or "incast", "flows", "csv", "incast-sweep"
//! cdf = "websearch"
//! load = 0.6
//!
//! [output]
//! queue_sample_us = 100          # switch-port backlog samples (0: none)
//! throughput_bin_us = 100        # per-flow throughput bins of long-lived flows (0: none)
//! objective_sample_us = 100      # the objective report's interval (absent: no report)
//! objective_utility = "log"      # its optimum: "log" (default), "alpha-fair", "max-min"
//! objective_alpha = 2            # the alpha of "alpha-fair" (positive, not 1)
//! ```
//!
//! The objective report (`dctc_num::objective`; README "The objective report") compares,
//! every `objective_sample_us`, the rates the open-loop flows got with the NUM optimum for the
//! same flows: `objective.csv`, `schemes.<label>.objective` and `objective_difference` in
//! `summary.json`, a report section. It does not follow incast blocks (refused with an incast
//! workload) and changes no other output.
//!
//! `incast-sweep` (`senders = [4, 8, ...]`, `block_bytes`, `rounds`, `receiver`) runs one
//! simulation per sender count and must be the only workload; the other kinds combine, and
//! every scheme of a scenario runs on the identical flows.

use crate::keys::{refuse_unowned, At, ParseTable, Range};
use crate::lb::{LbKeys, LbKind, LbParams};
use crate::queue::{QueueKeys, QueueSpec};
use crate::sim::Workload;
use crate::transport::TcpConfig;
use dctc_core::config::WorkloadSpec;
use dctc_core::error::KeyError;
use dctc_core::rng::{component_rng, mix64, streams};
use dctc_core::topology::Topology;
use dctc_core::units::checked::{self, SpanRule};
use dctc_core::units::{Delta, SimTime};
use dctc_core::workload::list::{explicit_flows, read_csv};
use dctc_core::workload::{Cdf, PoissonSpec, WorkloadError};
use serde::{Deserialize, Serialize};
use std::path::Path;

pub use dctc_core::workload::IncastSweep;

fn err(key: impl Into<String>, reason: impl Into<String>) -> KeyError {
    KeyError::new(key, reason)
}

/// TCP knobs; every key is optional and overrides the preset.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpKnobs {
    /// `pfabric-tuned` (default) or `linux-like`.
    #[serde(default)]
    pub preset: Option<String>,
    /// Minimum RTO, us.
    #[serde(default)]
    pub min_rto_us: Option<f64>,
    /// Maximum RTO, us.
    #[serde(default)]
    pub max_rto_us: Option<f64>,
    /// RTO before the first RTT sample, us.
    #[serde(default)]
    pub initial_rto_us: Option<f64>,
    /// Timer granularity, us.
    #[serde(default)]
    pub clock_us: Option<f64>,
    /// Delayed-ACK timeout, us; 0 acknowledges every segment.
    #[serde(default)]
    pub delayed_ack_us: Option<f64>,
    /// Payload bytes per full segment (default 1460); the preset's window cap keeps its
    /// packet count.
    #[serde(default)]
    pub mss_bytes: Option<u64>,
    /// Initial congestion window, packets.
    #[serde(default)]
    pub initial_cwnd_packets: Option<u64>,
    /// Largest congestion window, packets.
    #[serde(default)]
    pub max_cwnd_packets: Option<u64>,
    /// Receive window, bytes.
    #[serde(default)]
    pub rwnd_bytes: Option<u64>,
    /// Duplicate ACKs that trigger fast retransmit.
    #[serde(default)]
    pub dupack_threshold: Option<u32>,
    /// RTT samples from echoed timestamps, retransmissions included (RFC 7323); `false`:
    /// Karn's rule. Default: off for `pfabric-tuned`, on for `linux-like`.
    #[serde(default)]
    pub timestamps: Option<bool>,
    /// Limited transmit on the first two duplicate ACKs (RFC 5681 §3.2, RFC 3042); default off.
    #[serde(default)]
    pub limited_transmit: Option<bool>,
    /// Pace new data at this rate, Gb/s (default: no pacing, window-limited only).
    #[serde(default)]
    pub pacing_gbps: Option<f64>,
    /// Consecutive timeouts after which the sender probes with one header-only packet per
    /// RTO until an ACK arrives (pFabric's probe mode; default: never).
    #[serde(default)]
    pub probe_after_timeouts: Option<u32>,
    /// TCP small queues: bytes of a flow's packets its host's NIC queue may hold before the
    /// sender waits for them to leave (0: no limit). Default: 131072 for `linux-like`
    /// (Linux 3.6's `tcp_limit_output_bytes`), no limit for `pfabric-tuned`.
    #[serde(default)]
    pub small_queue_bytes: Option<u64>,
    /// Window validation: the window grows only while the sender fills it (Linux's
    /// `tcp_is_cwnd_limited`). Default: on for `linux-like`, off for `pfabric-tuned`.
    #[serde(default)]
    pub cwnd_validation: Option<bool>,
}

/// Shortest retransmission timeout `min_rto_us`, `max_rto_us` and `initial_rto_us` accept:
/// 1 us, below any datacenter round trip (pFabric's tuned RTO is 45 us). Every timeout is an
/// event of its flow, so this bounds a run's timer events by flows x duration / 1 us; an RTO
/// of a picosecond would fire a billion times per simulated millisecond.
pub const MIN_RTO: Delta = Delta::from_us(1);

/// Largest window `initial_cwnd_packets` and `max_cwnd_packets` accept: 10^9 packets (9 TB
/// of the largest segments), far above any buffer; windows are computed in bytes in `u64`.
pub const MAX_WINDOW_PACKETS: u64 = 1_000_000_000;

/// Smallest segment size `mss_bytes` accepts (RFC 879's IPv4 minimum datagram less headers).
pub const MIN_MSS_BYTES: u64 = 536;
/// Largest segment size `mss_bytes` accepts (a 9000-byte jumbo frame less headers).
pub const MAX_MSS_BYTES: u64 = 8960;

/// TCP presets: name, description.
pub const TCP_PRESETS: &[(&str, &str)] = &[
    (
        "pfabric-tuned",
        "minRTO 45 us, maxRTO 2 s, init RTO 45 us, 1 us clock, delayed ACK 6 us, rwnd 1e6, IW 12, max cwnd = switch buffer - 1 packet, Karn's rule",
    ),
    (
        "linux-like",
        "minRTO 200 ms, init RTO 1 s, max RTO 60 s, 1 ms clock, no delayed ACK, IW 10, RTT from timestamps, TCP small queues of 128 KB, window validation",
    ),
];

impl TcpKnobs {
    /// `self` with every key `over` sets replaced.
    pub fn overridden_by(&self, over: &TcpKnobs) -> TcpKnobs {
        macro_rules! pick {
            ($($f:ident),*) => { TcpKnobs { $($f: over.$f.clone().or_else(|| self.$f.clone())),* } };
        }
        pick!(
            preset,
            min_rto_us,
            max_rto_us,
            initial_rto_us,
            clock_us,
            delayed_ack_us,
            mss_bytes,
            initial_cwnd_packets,
            max_cwnd_packets,
            rwnd_bytes,
            dupack_threshold,
            timestamps,
            limited_transmit,
            pacing_gbps,
            probe_after_timeouts,
            small_queue_bytes,
            cwnd_validation
        )
    }

    /// Resolves the knobs on a fabric whose smallest switch buffer is `switch_buffer`;
    /// `key` prefixes error paths.
    pub fn resolve(&self, switch_buffer: u64, key: &str) -> Result<TcpConfig, KeyError> {
        let mut c = match self.preset.as_deref().unwrap_or("pfabric-tuned") {
            "pfabric-tuned" => TcpConfig::pfabric_tuned(switch_buffer),
            "linux-like" => TcpConfig::linux_like(),
            other => {
                let names: Vec<&str> = TCP_PRESETS.iter().map(|p| p.0).collect();
                return Err(err(
                    format!("{key}.preset"),
                    format!(
                        "unknown TCP preset `{other}`; presets: {}",
                        names.join(", ")
                    ),
                ));
            }
        };
        let us = |name: &str, v: Option<f64>, rule: SpanRule| -> Result<Option<Delta>, KeyError> {
            v.map(|x| checked::span_us(&format!("{key}.{name}"), x, rule))
                .transpose()
        };
        // Each timeout is an event per flow: an RTO of at least 1 us (below any datacenter
        // round trip) keeps a run's timer events within flows x duration / 1 us.
        let rto = SpanRule::positive(Delta::MAX_SCENARIO).at_least(MIN_RTO);
        let timer = SpanRule::positive(Delta::MAX_SCENARIO);
        if let Some(d) = us("min_rto_us", self.min_rto_us, rto)? {
            c.min_rto = d;
        }
        if let Some(d) = us("max_rto_us", self.max_rto_us, rto)? {
            c.max_rto = d;
        }
        if let Some(d) = us("initial_rto_us", self.initial_rto_us, rto)? {
            c.initial_rto = d;
        }
        if let Some(d) = us("clock_us", self.clock_us, timer)? {
            c.clock = d;
        }
        if let Some(d) = us(
            "delayed_ack_us",
            self.delayed_ack_us,
            SpanRule::zero_or_more(Delta::MAX_SCENARIO),
        )? {
            c.delayed_ack = (d.0 > 0).then_some(d);
        }
        if c.min_rto > c.max_rto {
            return Err(err(
                format!("{key}.min_rto_us"),
                format!("min RTO {} exceeds max RTO {}", c.min_rto, c.max_rto),
            ));
        }
        let pos = |name: &str, v: Option<u64>| -> Result<Option<u64>, KeyError> {
            match v {
                Some(0) => Err(err(format!("{key}.{name}"), "must be at least 1")),
                Some(n) if n > MAX_WINDOW_PACKETS => Err(err(
                    format!("{key}.{name}"),
                    format!("{n} is more than the {MAX_WINDOW_PACKETS} packets a window may hold"),
                )),
                v => Ok(v),
            }
        };
        if let Some(m) = self.mss_bytes {
            if !(MIN_MSS_BYTES..=MAX_MSS_BYTES).contains(&m) {
                return Err(err(
                    format!("{key}.mss_bytes"),
                    format!("must lie in {MIN_MSS_BYTES}..={MAX_MSS_BYTES} bytes, got {m}"),
                ));
            }
            c.max_cwnd_bytes = c.max_cwnd_bytes / c.mss * m;
            c.mss = m;
        }
        if let Some(n) = pos("initial_cwnd_packets", self.initial_cwnd_packets)? {
            c.initial_cwnd_packets = n;
        }
        if let Some(n) = pos("max_cwnd_packets", self.max_cwnd_packets)? {
            c.max_cwnd_bytes = n * c.mss;
        }
        if self.rwnd_bytes == Some(0) {
            return Err(err(format!("{key}.rwnd_bytes"), "must be at least 1"));
        }
        if let Some(n) = self.rwnd_bytes {
            c.rwnd_bytes = n.max(c.mss);
        }
        if let Some(n) = self.dupack_threshold {
            if n == 0 {
                return Err(err(format!("{key}.dupack_threshold"), "must be at least 1"));
            }
            c.dupack_threshold = n;
        }
        if let Some(t) = self.timestamps {
            c.timestamps = t;
        }
        if let Some(l) = self.limited_transmit {
            c.limited_transmit = l;
        }
        if let Some(g) = self.pacing_gbps {
            c.pacing = Some(checked::rate_gbps(&format!("{key}.pacing_gbps"), g)?);
        }
        if let Some(n) = self.probe_after_timeouts {
            if n == 0 {
                return Err(err(
                    format!("{key}.probe_after_timeouts"),
                    "must be at least 1",
                ));
            }
            c.probe_after_timeouts = Some(n);
        }
        if let Some(b) = self.small_queue_bytes {
            c.small_queue_bytes = (b > 0).then_some(b);
        }
        if let Some(v) = self.cwnd_validation {
            c.cwnd_validation = v;
        }
        Ok(c)
    }
}

/// The `[packet]` table, checked: defaults for every scheme.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PacketSettings {
    /// TCP defaults for every scheme.
    pub tcp: TcpKnobs,
    /// Load balancer for every scheme (default `ecmp`).
    pub load_balancer: Option<LbKind>,
    /// Host NIC queue, bytes (default 1.5 MB), at least one 1500 B packet.
    pub nic_buffer_bytes: Option<u64>,
    /// Per-host send jitter (`send_jitter_us`): every packet a host puts on its link
    /// reaches the first switch up to this much later (uniform, seeded, order kept), which
    /// breaks the phase lock of deterministic long-lived flows on DropTail. Zero: off.
    pub send_jitter: Delta,
    /// Extra simulated time after the workload's duration (`drain_ms`; arrivals stop at the
    /// duration).
    pub drain: Delta,
    /// Warm start of the Poisson workloads (`warm_start_ms`; zero: off): the run begins with
    /// the flows that this much of earlier arrivals would leave in progress, each at its
    /// share of a processor-sharing sender NIC (`PoissonSpec::warm_start`). They load the
    /// fabric and are left out of the flow figures.
    pub warm_start: Delta,
    /// Queue discipline keys set for every scheme whose switch queue uses them (e.g.
    /// `ecn_k_bytes`, DCTCP's K for every DCTCP scheme); a scheme table's own replace them.
    pub queues: QueueKeys,
    /// Every load balancer's parameters (`drill = { ... }`, `percentage_lb = { ... }`),
    /// checked on the fabric.
    pub lb_params: LbParams,
}

/// The `[packet]` keys of the table itself (the rest belong to the queue disciplines and
/// the load balancers).
#[derive(Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct OwnKeys {
    /// TCP defaults for every scheme (a scheme's own `tcp` replaces them key by key).
    #[serde(default)]
    tcp: TcpKnobs,
    /// Load balancer of every scheme that names none (default `ecmp`).
    #[serde(default)]
    load_balancer: Option<LbKind>,
    /// Host NIC queue, bytes, at least one 1500 B packet, at most 10^12 (default 1500000).
    #[serde(default)]
    nic_buffer_bytes: Option<u64>,
    /// Each packet a host sends reaches the first switch up to this much later (uniform,
    /// seeded, order kept), us, in [0, 1000000] (default 0: off).
    #[serde(default)]
    send_jitter_us: Option<f64>,
    /// Simulated time after the workload's duration (arrivals stop at the duration), so
    /// flows can finish, ms, >= 0 (default 0).
    #[serde(default)]
    drain_ms: Option<f64>,
    /// Start every Poisson workload warm: the flows that its arrivals over this many ms
    /// before the run would leave unfinished, each having sent at `(1 - load)` of its host's
    /// line rate (a processor-sharing NIC's mean), start at 0 with the bytes left, loading
    /// the fabric as a run long past its ramp would; they count in the link and queue
    /// figures but not in the flow figures. Set it to the largest flow's time at that rate
    /// for the steady state. Needs a Poisson workload. ms, >= 0 (default 0: from an empty
    /// fabric).
    #[serde(default)]
    warm_start_ms: Option<f64>,
}

const OWN_KEYS: &[&str] = &[
    "tcp",
    "load_balancer",
    "nic_buffer_bytes",
    "send_jitter_us",
    "drain_ms",
    "warm_start_ms",
];

impl PacketSettings {
    /// The JSON Schema of the `[packet]` table: its own keys, every load balancer's and
    /// every queue discipline's (as defaults for every scheme whose queue uses them), each
    /// from the type that parses it.
    pub fn schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut s = generator.subschema_for::<OwnKeys>();
        let mut extra = Vec::new();
        for part in crate::lb::LbKeys::schemas(generator) {
            extra.push(part);
        }
        for (_, part) in QueueSpec::schemas(generator) {
            extra.push(part);
        }
        if let Some(props) = s.get_mut("properties").and_then(|p| p.as_object_mut()) {
            for part in extra {
                if let Some(p) = part.get("properties").and_then(|p| p.as_object()) {
                    for (k, v) in p {
                        props.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
            }
        }
        s
    }

    /// Reads and checks the `[packet]` table on `topo`: its own keys, every load balancer's
    /// (checked whichever the schemes run), and any queue discipline's key as a default.
    /// Error paths are `packet.<key>`.
    pub fn read(table: &impl ParseTable, topo: &Topology) -> Result<PacketSettings, KeyError> {
        let at = At("packet");
        let mut valid: Vec<&str> = OWN_KEYS.to_vec();
        valid.extend(LbKeys::names());
        for (_, keys) in QueueSpec::keys() {
            valid.extend(
                keys.into_iter()
                    .filter(|k| !valid.contains(k))
                    .collect::<Vec<_>>(),
            );
        }
        refuse_unowned(at, &table.keys(), &valid, "[packet]", &[])?;
        let own: OwnKeys = table.parse_keys(OWN_KEYS)?;
        let send_jitter = at.micros(
            "send_jitter_us",
            own.send_jitter_us,
            Range::closed(0.0, 1e6),
        )?;
        let drain = match own.drain_ms {
            None => Delta::ZERO,
            Some(ms) => checked::span_ms(
                "packet.drain_ms",
                ms,
                SpanRule::zero_or_more(Delta::MAX_SCENARIO),
            )?,
        };
        let warm_start = match own.warm_start_ms {
            None => Delta::ZERO,
            Some(ms) => checked::span_ms(
                "packet.warm_start_ms",
                ms,
                SpanRule::zero_or_more(Delta::MAX_SCENARIO),
            )?,
        };
        if own.nic_buffer_bytes.is_some_and(|b| b < 1500) {
            return Err(at.error("nic_buffer_bytes", "must hold at least one 1500 B packet"));
        }
        let max = dctc_core::fabric::MAX_BUFFER_BYTES;
        if let Some(b) = own.nic_buffer_bytes.filter(|&b| b > max) {
            return Err(at.error(
                "nic_buffer_bytes",
                format!("{b} bytes is more than the {max} (1 TB) a buffer may hold"),
            ));
        }
        Ok(PacketSettings {
            tcp: own.tcp,
            load_balancer: own.load_balancer,
            nic_buffer_bytes: own.nic_buffer_bytes,
            send_jitter: send_jitter.unwrap_or(Delta::ZERO),
            drain,
            warm_start,
            queues: QueueKeys::read(table)?,
            lb_params: LbParams::resolve(&LbKeys::read(table)?, topo)?,
        })
    }
}

/// Workload kinds the packet engine runs, in the order its errors list them.
pub const WORKLOAD_KINDS: &[&str] = &["poisson", "incast", "flows", "csv", "incast-sweep"];

/// The packet engine's workload, checked against a fabric.
#[derive(Clone, Debug, Default)]
pub struct WorkloadPlan {
    /// Flows (drawn or listed) and incasts every scheme runs; empty for a sweep.
    pub workload: Workload,
    /// The incast sweep, when that is the scenario's (only) workload.
    pub sweep: Option<IncastSweep>,
    /// Poisson arrivals counted but not drawn (`generate = false`).
    pub expected_flows: u64,
    /// Ids of the flows of a warm start (in progress at 0, `PacketSettings::warm_start`):
    /// they load the fabric, and the flow figures leave them out.
    pub warm_ids: std::collections::BTreeSet<u32>,
    /// The Poisson workloads, by index among the specs, with their CDFs (read once, for
    /// [`Self::add_warm_start`]).
    poisson: Vec<(usize, PoissonSpec, Cdf)>,
}

/// Poisson arrivals a check draws rather than only counts: with at most this many expected,
/// drawing costs next to nothing, and it makes the check for a workload that draws no flow
/// exact (the run draws the same flows from the same seed); with more, the chance that none
/// arrives is below e^-10000.
pub const DRAW_TO_CHECK: u64 = 10_000;

impl WorkloadPlan {
    /// Checks the `[[workload]]` tables `specs` on `topo` and, when `generate`, draws their
    /// Poisson arrivals in `[0, until)` from `seed` (workload `i` from `mix64(seed ^ i)`);
    /// without, arrivals are only counted (drawn only when at most [`DRAW_TO_CHECK`] are
    /// expected), so checking never generates a large workload, and every check the run
    /// makes is made either way. `end` is when the run stops (after its drain): an explicit
    /// flow starting then or later would never start and is refused. Files are read relative
    /// to `base_dir`. Error paths are the scenario's (`workload[1].load`).
    pub fn new(
        specs: &[WorkloadSpec],
        topo: &Topology,
        base_dir: &Path,
        until: SimTime,
        end: SimTime,
        seed: u64,
        generate: bool,
    ) -> Result<WorkloadPlan, KeyError> {
        if specs.is_empty() {
            return Err(err("workload", "list at least one [[workload]] table"));
        }
        let mut plan = WorkloadPlan::default();
        let mut next_id = 0u32;
        let n_hosts = topo.hosts().len();
        for (i, spec) in specs.iter().enumerate() {
            let key = format!("workload[{i}]");
            let at = |e: WorkloadError| match e {
                WorkloadError::Invalid(e) => e.at(&key),
                other => err(key.clone(), other.to_string()),
            };
            let flows = match spec {
                WorkloadSpec::Poisson(p) => {
                    p.validate().map_err(at)?;
                    let cdf = Cdf::load(&p.cdf, base_dir)
                        .map_err(|e| err(format!("{key}.cdf"), e.to_string()))?;
                    let count = p.check_size(topo, &cdf, until).map_err(at)?;
                    plan.expected_flows = plan.expected_flows.saturating_add(count);
                    let flows = if generate || count <= DRAW_TO_CHECK {
                        let mut rng = component_rng(mix64(seed ^ i as u64), streams::WORKLOAD);
                        p.generate(topo, &cdf, until, next_id, &mut rng)
                            .map_err(at)?
                    } else {
                        Vec::new()
                    };
                    plan.poisson.push((i, p.clone(), cdf));
                    flows
                }
                WorkloadSpec::Incast(inc) => {
                    inc.validate(n_hosts).map_err(at)?;
                    plan.workload.incasts.push(inc.clone());
                    Vec::new()
                }
                WorkloadSpec::Flows { flows } => {
                    explicit_flows(topo, flows, next_id, end).map_err(at)?
                }
                WorkloadSpec::Csv { path } => read_csv(topo, &base_dir.join(path), next_id, end)
                    .map_err(|e| err(format!("{key}.path"), e.to_string()))?,
                WorkloadSpec::IncastSweep(sw) => {
                    if specs.len() > 1 {
                        return Err(err(
                            format!("{key}.kind"),
                            "an incast-sweep must be the scenario's only workload",
                        ));
                    }
                    sw.validate(n_hosts).map_err(|e| e.at(&key))?;
                    plan.sweep = Some(sw.clone());
                    Vec::new()
                }
                other => return Err(other.unsupported(WORKLOAD_KINDS).at(&key)),
            };
            next_id += flows.len() as u32;
            plan.workload.flows.extend(flows);
        }
        if plan.workload.flows.is_empty()
            && plan.workload.incasts.is_empty()
            && plan.sweep.is_none()
            && (generate || plan.expected_flows <= DRAW_TO_CHECK)
        {
            return Err(err(
                "workload",
                "the workloads produce no flows within duration_ms (raise the load or the duration)",
            ));
        }
        Ok(plan)
    }
}

impl WorkloadPlan {
    /// Adds the warm start of every Poisson workload (`[packet] warm_start_ms`,
    /// [`PoissonSpec::warm_start`](dctc_core::workload::PoissonSpec::warm_start)) over
    /// `window`: workload `i`'s from `mix64(seed ^ i)` on its own stream, numbered after the
    /// flows already drawn, their ids kept in `warm_ids`. Nothing when `window` is zero;
    /// checked but not drawn when the arrivals were only counted (`generate = false`, none
    /// drawn). A window on a scenario without a Poisson workload is refused
    /// (`packet.warm_start_ms`): it would start nothing.
    pub fn add_warm_start(
        &mut self,
        topo: &Topology,
        seed: u64,
        window: Delta,
    ) -> Result<(), KeyError> {
        if window == Delta::ZERO {
            return Ok(());
        }
        if self.poisson.is_empty() {
            return Err(err(
                "packet.warm_start_ms",
                "a warm start begins Poisson workloads in progress, and this scenario has none \
                 (its flows, incasts and CSV lists start as they say); remove the key",
            ));
        }
        let draw = !self.workload.flows.is_empty();
        for (i, p, cdf) in &self.poisson {
            let key = format!("workload[{i}]");
            let at = |e: WorkloadError| match e {
                WorkloadError::Invalid(e) => e.at(&key),
                other => err(key.clone(), other.to_string()),
            };
            if !draw {
                p.check_warm_start(topo, cdf, window).map_err(at)?;
                continue;
            }
            let first = self.workload.flows.len() as u32;
            let mut rng = component_rng(mix64(seed ^ *i as u64), streams::WARM_START);
            let warm = p
                .warm_start(topo, cdf, window, first, &mut rng)
                .map_err(at)?;
            self.warm_ids.extend(warm.iter().map(|f| f.id.0));
            self.workload.flows.extend(warm);
        }
        Ok(())
    }
}

/// The smallest switch-port buffer of a fabric (sets pFabric-tuned's max cwnd).
pub fn smallest_switch_buffer(topo: &Topology) -> u64 {
    topo.links()
        .iter()
        .filter(|l| !topo.is_host(l.from))
        .map(|l| l.buffer_bytes)
        .min()
        .unwrap_or(u64::MAX / 4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dctc_core::units::Rate;

    #[test]
    fn mss_override_sets_the_segment_size_keeps_the_cap_in_packets_and_refuses_bad_sizes() {
        let tuned = TcpKnobs::default().resolve(225_000, "tcp").unwrap();
        let small = TcpKnobs {
            mss_bytes: Some(536),
            ..TcpKnobs::default()
        }
        .resolve(225_000, "tcp")
        .unwrap();
        assert_eq!(small.mss, 536);
        assert_eq!(
            small.max_cwnd_bytes / small.mss,
            tuned.max_cwnd_bytes / tuned.mss
        );
        for bad in [0, 535, 9000] {
            let e = TcpKnobs {
                mss_bytes: Some(bad),
                ..TcpKnobs::default()
            }
            .resolve(225_000, "x.tcp")
            .unwrap_err();
            assert_eq!(e.path, "x.tcp.mss_bytes", "{bad}");
            assert!(e.reason.contains("536..=8960"), "{}", e.reason);
        }
    }

    #[test]
    fn tcp_presets_and_overrides_resolve() {
        let linux = TcpKnobs {
            preset: Some("linux-like".into()),
            ..TcpKnobs::default()
        };
        assert!(linux.resolve(225_000, "tcp").unwrap().timestamps);
        let off = TcpKnobs {
            timestamps: Some(false),
            ..linux
        };
        assert!(!off.resolve(225_000, "tcp").unwrap().timestamps);
        let lt = TcpKnobs {
            limited_transmit: Some(true),
            ..TcpKnobs::default()
        };
        assert!(lt.resolve(225_000, "tcp").unwrap().limited_transmit);
        let bad = TcpKnobs {
            preset: Some("bsd".into()),
            ..TcpKnobs::default()
        };
        assert_eq!(
            bad.resolve(225_000, "x.tcp").unwrap_err().path,
            "x.tcp.preset"
        );
        assert_eq!(
            TcpKnobs::default().resolve(225_000, "tcp").unwrap().pacing,
            None
        );
        let paced = TcpKnobs {
            pacing_gbps: Some(2.5),
            ..TcpKnobs::default()
        };
        assert_eq!(
            paced.resolve(225_000, "tcp").unwrap().pacing,
            Some(Rate(2_500_000_000))
        );
        let bad = TcpKnobs {
            pacing_gbps: Some(0.0),
            ..TcpKnobs::default()
        };
        assert_eq!(
            bad.resolve(225_000, "x.tcp").unwrap_err().path,
            "x.tcp.pacing_gbps"
        );
    }

    fn specs(src: &str) -> Vec<WorkloadSpec> {
        #[derive(serde::Deserialize)]
        struct W {
            workload: Vec<WorkloadSpec>,
        }
        toml::from_str::<W>(src).unwrap().workload
    }

    #[test]
    fn workload_plan_names_each_refusal_by_its_key() {
        let topo = dctc_core::fabric::preset("flowtune-144")
            .unwrap()
            .build(std::path::Path::new("."))
            .unwrap();
        let plan = |src: &str, generate: bool| {
            WorkloadPlan::new(
                &specs(src),
                &topo,
                std::path::Path::new("."),
                SimTime::from_delta(Delta::from_ms(2)),
                SimTime::from_delta(Delta::from_ms(3)),
                1,
                generate,
            )
        };
        let poisson = "[[workload]]\nkind = \"poisson\"\ncdf = \"websearch\"\nload = 0.3\n";
        // About 65 arrivals: a check draws them as the run does.
        let checked = plan(poisson, false).unwrap();
        assert!(checked.expected_flows > 0);
        let drawn = plan(poisson, true).unwrap();
        assert!(!drawn.workload.flows.is_empty());
        assert_eq!(checked.workload.flows, drawn.workload.flows);
        // Many more (about 3 million over 100 s): counted, not drawn.
        let long = SimTime::from_delta(Delta::from_ms(100_000));
        let counted = WorkloadPlan::new(
            &specs(poisson),
            &topo,
            std::path::Path::new("."),
            long,
            long,
            1,
            false,
        )
        .unwrap();
        assert!(counted.workload.flows.is_empty());
        assert!(counted.expected_flows > DRAW_TO_CHECK);
        // A load the run refuses is refused by the check too, beside another workload.
        let flows =
            "[[workload]]\nkind = \"flows\"\nflows = [{ src = 0, dst = 1, size_bytes = 1000 }]\n";
        for bad in ["nan", "-inf", "1.51", "0.0"] {
            let e = plan(&format!("{flows}{}", poisson.replace("0.3", bad)), false).unwrap_err();
            assert_eq!(e.path, "workload[1].load", "{bad}");
        }
        // Alone, a load of 0 is refused as a load, not as a workload without flows.
        assert_eq!(
            plan(&poisson.replace("0.3", "0.0"), false)
                .unwrap_err()
                .path,
            "workload[0].load"
        );
        // A flow that would start after the run ends (3 ms) never would.
        let late = flows.replace("size_bytes = 1000", "size_bytes = 1000, start_us = 1e20");
        let e = plan(&late, false).unwrap_err();
        assert_eq!(e.path, "workload[0].flows[0].start_us");
        assert!(e.reason.contains("would never start"), "{e}");
        let e = plan(
            &format!("{poisson}[[workload]]\nkind = \"coflow-trace\"\npath = \"t\"\n"),
            false,
        )
        .unwrap_err();
        assert_eq!(e.path, "workload[1].kind");
        assert!(e.reason.contains("`coflow-trace`"), "{e}");
        let sweep = "[[workload]]\nkind = \"incast-sweep\"\nsenders = [4]\nblock_bytes = 1000\nrounds = 1\n";
        assert!(plan(sweep, false).unwrap().sweep.is_some());
        let e = plan(&format!("{poisson}{sweep}"), false).unwrap_err();
        assert_eq!(e.path, "workload[1].kind");
        let e = plan(&sweep.replace("[4]", "[4, 400]"), false).unwrap_err();
        assert_eq!(e.path, "workload[0].senders");
        let e = plan(&poisson.replace("0.3", "-1.0"), true).unwrap_err();
        assert_eq!(e.path, "workload[0].load");
        let e = plan(&poisson.replace("websearch", "nope"), false).unwrap_err();
        assert_eq!(e.path, "workload[0].cdf");
        assert_eq!(
            WorkloadPlan::new(
                &[],
                &topo,
                std::path::Path::new("."),
                SimTime::ZERO,
                SimTime::ZERO,
                1,
                true
            )
            .unwrap_err()
            .path,
            "workload"
        );
    }

    /// `[packet] warm_start_ms` starts Poisson workloads warm: without one it is refused, not
    /// ignored, and when a check only counts the arrivals (none drawn) it still refuses what
    /// the run's draw would (a load of 1 or more has no steady state to start from).
    #[test]
    fn a_warm_start_is_refused_without_a_poisson_workload_and_checked_when_only_counted() {
        let topo = dctc_core::fabric::preset("flowtune-144")
            .unwrap()
            .build(std::path::Path::new("."))
            .unwrap();
        let plan = |src: &str, ms: u64, generate: bool| {
            let until = SimTime::from_delta(Delta::from_ms(ms));
            let mut p = WorkloadPlan::new(
                &specs(src),
                &topo,
                Path::new("."),
                until,
                until,
                1,
                generate,
            )?;
            p.add_warm_start(&topo, 1, Delta::from_ms(1))?;
            Ok::<_, KeyError>(p)
        };
        let flows =
            "[[workload]]\nkind = \"flows\"\nflows = [{ src = 0, dst = 1, size_bytes = 1000 }]\n";
        let e = plan(flows, 2, true).unwrap_err();
        assert_eq!(e.path, "packet.warm_start_ms");
        assert!(e.reason.contains("has none"), "{e}");
        let poisson = "[[workload]]\nkind = \"poisson\"\ncdf = \"websearch\"\nload = 0.3\n";
        let warm = plan(&format!("{flows}{poisson}"), 2, true).unwrap();
        assert!(!warm.warm_ids.is_empty());
        assert!(warm
            .warm_ids
            .iter()
            .all(|&id| id as usize >= warm.workload.flows.len() - warm.warm_ids.len()));
        let heavy = poisson.replace("0.3", "1.2");
        // About 1.3 million arrivals over 10 s: counted, not drawn, and still refused.
        let e = plan(&heavy, 10_000, false).unwrap_err();
        assert_eq!(e.path, "workload[0].load");
        assert!(e.reason.contains("warm start"), "{e}");
        assert_eq!(plan(&heavy, 2, true).unwrap_err().path, "workload[0].load");
    }
}
