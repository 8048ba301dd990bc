//! HOLNET's end-to-end controllers (§IV) and MPTCP on the paper's small topologies: each test
//! compares time-averaged rates with the NUM optimum or the behaviour the paper/RFC states.

mod common;

use dctc_core::ids::{FlowId, NodeId};
use dctc_core::routing::Routing;
use dctc_core::spec::FlowSpec;
use dctc_core::topology::{NodeKind, Topology};
use dctc_core::units::{Delta, Rate, SimTime};
use dctc_packet::config::{ConfigError, PacketSettings};
use dctc_packet::metrics::PacketRun;
use dctc_packet::schemes::{resolve_scheme, ParseTable};
use dctc_packet::transport::TcpConfig;
use dctc_packet::{PacketScheme, RunOptions, Simulation, Workload};

struct Toml(toml::Value);

impl ParseTable for Toml {
    fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, ConfigError> {
        self.0
            .clone()
            .try_into()
            .map_err(|e: toml::de::Error| ConfigError::new("schemes[0]", e.to_string()))
    }
}

const MBPS: f64 = 1e6;
/// Bin width of the throughput series: 10 ms.
const BIN_US: u64 = 10_000;

/// A fabric from `(a, b, Mb/s, delay us)` cables; names starting with `h` are hosts. Every
/// port buffers `buffer` bytes.
fn fabric(cables: &[(&str, &str, f64, u64)], buffer: u64) -> Topology {
    let mut t = Topology::new("holnet-test", Delta::ZERO);
    let id = |t: &mut Topology, n: &str| -> NodeId {
        t.node_by_name(n).unwrap_or_else(|| {
            let kind = if n.starts_with('h') {
                NodeKind::Host
            } else {
                NodeKind::Switch { tier: 1 }
            };
            t.add_node(kind, n)
        })
    };
    for &(a, b, mbps, us) in cables {
        let (a, b) = (id(&mut t, a), id(&mut t, b));
        t.add_cable(
            a,
            b,
            Rate((mbps * MBPS) as u64),
            Delta::from_us(us),
            buffer,
            buffer,
        );
    }
    t
}

fn host(t: &Topology, name: &str) -> NodeId {
    t.node_by_name(name).unwrap()
}

fn flow(t: &Topology, id: u32, src: &str, dst: &str, start_ms: u64) -> FlowSpec {
    FlowSpec {
        id: FlowId(id),
        src: host(t, src),
        dst: host(t, dst),
        size_bytes: None,
        start: SimTime::from_delta(Delta::from_ms(start_ms)),
        stop: None,
        coflow: None,
    }
}

/// A stock TCP for 100 Mb/s links with RTTs of a few ms: Linux-like timers, no window cap.
fn tcp() -> TcpConfig {
    TcpConfig::linux_like()
}

fn scheme(t: &Topology, src: &str) -> PacketScheme {
    let table = Toml(toml::from_str(src).unwrap());
    let mut s = resolve_scheme(&table, &PacketSettings::default(), t, "schemes[0]").unwrap();
    s.tcp = TcpConfig {
        ecn: s.tcp.ecn,
        ..tcp()
    };
    s
}

fn run(t: &Topology, s: &PacketScheme, flows: Vec<FlowSpec>, secs: u64) -> PacketRun {
    let routing = Routing::new(t).unwrap();
    let wl = Workload {
        flows,
        incasts: Vec::new(),
    };
    let mut opts = RunOptions::new(1, SimTime::from_delta(Delta::from_ms(secs * 1000)));
    opts.throughput_bin = Some(Delta::from_us(BIN_US));
    let r = Simulation::new(t, &routing, s, &wl, opts)
        .unwrap()
        .run(&mut |_| {});
    common::check_invariants(&r);
    r
}

/// Mean rate in Mb/s of `bins` over the second half of a `secs`-second run.
fn mean_mbps(bins: &[u64], secs: u64) -> f64 {
    let n = (secs * 1_000_000 / BIN_US) as usize;
    let from = n / 2;
    let sum: u64 = bins.iter().skip(from).take(n - from).sum();
    sum as f64 * 8.0 / ((n - from) as f64 * BIN_US as f64 * 1e-6) / MBPS
}

fn rate(r: &PacketRun, id: u32, secs: u64) -> f64 {
    let (_, bins) = r.throughput.iter().find(|x| x.0 == id).unwrap();
    mean_mbps(bins, secs)
}

fn subflow_rate(r: &PacketRun, id: u32, k: u32, secs: u64) -> f64 {
    let (_, _, bins) = r
        .subflow_throughput
        .iter()
        .find(|x| x.0 == id && x.1 == k)
        .unwrap();
    mean_mbps(bins, secs)
}

/// Two equal disjoint 100 Mb/s paths from h0 to h1 (through `sa` and `sb`), and a third
/// host h2 whose path to h1 crosses `sa` only.
fn disjoint() -> Topology {
    fabric(
        &[
            ("h0", "sa", 1000.0, 1000),
            ("h0", "sb", 1000.0, 1000),
            ("sa", "h1", 100.0, 2000),
            ("sb", "h1", 100.0, 2000),
        ],
        100_000,
    )
}

#[test]
fn mptcp_two_subflows_on_disjoint_paths_get_twice_one_tcp_flow() {
    let secs = 10;
    // Disjoint equal paths: twice one TCP flow (RFC 6356's goal 1, "improve throughput").
    let t = disjoint();
    let tcp_alone = run(
        &t,
        &scheme(&t, "name = \"newreno\""),
        vec![flow(&t, 0, "h0", "h1", 0)],
        secs,
    );
    let one = rate(&tcp_alone, 0, secs);
    let mp = scheme(
        &t,
        r#"
        name = "mptcp"
        subflows = [ { flow = 0, paths = [["h0", "sa", "h1"], ["h0", "sb", "h1"]] } ]
        "#,
    );
    let r = run(&t, &mp, vec![flow(&t, 0, "h0", "h1", 0)], secs);
    let two = rate(&r, 0, secs);
    let (a, b) = (subflow_rate(&r, 0, 0, secs), subflow_rate(&r, 0, 1, secs));
    eprintln!("mptcp disjoint: {two:.1} Mb/s ({a:.1} + {b:.1}) vs one TCP {one:.1}");
    assert!(
        (two - 2.0 * one).abs() <= 0.1 * 2.0 * one,
        "{two} vs 2 x {one}"
    );
    assert!(
        (a + b - two).abs() < 1e-6 * two,
        "the subflows add up to the flow"
    );
    assert!(
        a > 0.8 * one && b > 0.8 * one,
        "each path carries a TCP flow's share"
    );
}

#[test]
fn subflow_paths_that_miss_the_flow_or_its_endpoints_are_refused() {
    let t = disjoint();
    let routing = Routing::new(&t).unwrap();
    let opts = RunOptions::new(1, SimTime::from_delta(Delta::from_ms(10)));
    let start = |s: &PacketScheme, flows: Vec<FlowSpec>| {
        let wl = Workload {
            flows,
            incasts: Vec::new(),
        };
        Simulation::new(&t, &routing, s, &wl, opts.clone()).err()
    };
    let s = scheme(
        &t,
        r#"
        name = "mptcp"
        subflows = [ { flow = 0, paths = [["h0", "sa", "h1"], ["h1", "sb", "h0"]] } ]
        "#,
    );
    let e = start(&s, vec![flow(&t, 0, "h0", "h1", 0)])
        .unwrap()
        .to_string();
    assert!(
        e.contains("subflows[0].paths[1]") && e.contains("does not connect"),
        "{e}"
    );
    let mut sized = flow(&t, 0, "h0", "h1", 0);
    sized.size_bytes = Some(1000);
    let e = start(&s, vec![sized]).unwrap().to_string();
    assert!(e.contains("long-lived"), "{e}");
    let e = start(&s, vec![flow(&t, 7, "h0", "h1", 0)])
        .unwrap()
        .to_string();
    assert!(e.contains("no workload flow has id 0"), "{e}");
}

/// Two paths from h0 that meet at `s2` before one shared 100 Mb/s link to h1; h2 sends a
/// TCP flow over the same link. Equal one-way delays (3 ms).
fn shared() -> Topology {
    fabric(
        &[
            ("h0", "sa", 1000.0, 1000),
            ("h0", "sb", 1000.0, 1000),
            ("sa", "s2", 1000.0, 500),
            ("sb", "s2", 1000.0, 500),
            ("h2", "s2", 1000.0, 1500),
            ("s2", "h1", 100.0, 1500),
        ],
        100_000,
    )
}

#[test]
fn mptcp_takes_no_more_than_one_tcp_flow_at_a_shared_bottleneck() {
    // RFC 6356 goal 2 ("do no harm"): MPTCP's two subflows through one bottleneck take no
    // more than a TCP flow would; uncoupled subflows take two shares. The bottleneck runs
    // CoDel with RFC 8289's 5 ms / 100 ms: with DropTail this deterministic fabric
    // phase-locks (two NewReno flows here split 48.7 / 48.7 Mb/s, but 9.7 / 87.7 when one
    // path is 0.23 ms longer), which would measure phase, not the controller.
    let secs = 20;
    let t = shared();
    let codel = "queue = \"codel\"\ncodel_target_us = 5000.0\ncodel_interval_us = 100000.0";
    let paths = r#"subflows = [ { flow = 0, paths = [["h0", "sa", "s2", "h1"], ["h0", "sb", "s2", "h1"]] } ]"#;
    let flows = || vec![flow(&t, 0, "h0", "h1", 0), flow(&t, 1, "h2", "h1", 0)];
    let pair = |name: &str, subflows: &str| {
        let s = scheme(&t, &format!("name = \"{name}\"\n{codel}\n{subflows}"));
        let r = run(&t, &s, flows(), secs);
        (rate(&r, 0, secs), rate(&r, 1, secs))
    };
    let (tcp0, tcp1) = pair("newreno", "");
    let (mp, tcp) = pair("mptcp", paths);
    let (un, tcp_un) = pair("newreno", paths);
    eprintln!(
        "shared: tcp {tcp0:.1} vs tcp {tcp1:.1}; mptcp {mp:.1} vs tcp {tcp:.1}; uncoupled {un:.1} vs tcp {tcp_un:.1}"
    );
    assert!(
        mp <= 1.1 * tcp0,
        "mptcp {mp} vs one TCP flow from h0 {tcp0}"
    );
    assert!(
        mp <= 1.1 * tcp,
        "mptcp {mp} vs the competing TCP flow {tcp}"
    );
    assert!(
        un > 1.5 * tcp_un,
        "uncoupled subflows take two shares: {un} vs {tcp_un}"
    );
}
