//! Helpers shared by the integration tests.
#![allow(dead_code, unreachable_pub)]

pub mod toml_table;

use dctc_core::fabric::{dumbbell, DumbbellSpec};
use dctc_core::ids::FlowId;
use dctc_core::routing::Routing;
use dctc_core::spec::FlowSpec;
use dctc_core::topology::Topology;
use dctc_core::units::{Delta, SimTime};
use dctc_packet::metrics::PacketRun;
use dctc_packet::transport::TcpConfig;
use dctc_packet::{PacketScheme, RunOptions, Simulation, Workload};

/// `senders` hosts on the left, `receivers` on the right; every link at `gbps`.
pub fn bell(senders: usize, receivers: usize, gbps: f64, buffer: u64) -> Topology {
    dumbbell(&DumbbellSpec {
        senders,
        receivers,
        host_rate_gbps: gbps,
        bottleneck_rate_gbps: gbps,
        link_delay_us: 1.5,
        host_delay_us: 2.0,
        buffer_bytes: buffer,
    })
    .unwrap()
}

pub fn long_flow(
    topo: &Topology,
    id: u32,
    src: usize,
    dst: usize,
    start_us: u64,
    stop_us: u64,
) -> FlowSpec {
    let at = |us| SimTime::from_delta(Delta::from_us(us));
    let h = topo.hosts();
    FlowSpec::long_lived(FlowId(id), h[src], h[dst], at(start_us), at(stop_us))
}

pub fn sized_flow(
    topo: &Topology,
    id: u32,
    src: usize,
    dst: usize,
    start_us: u64,
    size: u64,
) -> FlowSpec {
    let start = SimTime::from_delta(Delta::from_us(start_us));
    let h = topo.hosts();
    FlowSpec::sized(FlowId(id), h[src], h[dst], start, size)
}

pub fn tuned(topo: &Topology) -> TcpConfig {
    TcpConfig::pfabric_tuned(dctc_packet::config::smallest_switch_buffer(topo))
}

pub fn run_with(
    topo: &Topology,
    scheme: &PacketScheme,
    wl: &Workload,
    opts: RunOptions,
) -> PacketRun {
    let routing = Routing::new(topo).unwrap();
    let r = Simulation::new(topo, &routing, scheme, wl, opts)
        .unwrap()
        .run(&mut |_| {});
    check_invariants(&r);
    r
}

pub fn run(topo: &Topology, scheme: &PacketScheme, wl: &Workload, until_us: u64) -> PacketRun {
    run_with(
        topo,
        scheme,
        wl,
        RunOptions::new(1, SimTime::from_delta(Delta::from_us(until_us))),
    )
}

/// The invariants every simulation must keep.
pub fn check_invariants(r: &PacketRun) {
    let c = &r.counters;
    assert_eq!(
        c.sent_bytes,
        c.delivered_bytes + c.dropped_bytes + c.in_flight_bytes,
        "bytes sent = delivered + dropped + in flight: {c:?}"
    );
    assert_eq!(
        c.sent_packets,
        c.delivered_packets + c.dropped_packets + c.in_flight_packets,
        "packets sent = delivered + dropped + in flight: {c:?}"
    );
    // The engine's own per-flow checks (debug builds already stop at the first violation).
    assert_eq!(c.stalled_flows, 0, "stalled flows: {c:?}");
    assert_eq!(c.unbalanced_flows, 0, "unbalanced flows: {c:?}");
    for p in &r.ports {
        assert!(
            p.max_queue_bytes <= p.buffer_bytes,
            "queue above buffer: {p:?}"
        );
    }
    for rec in &r.records {
        if let Some(fct) = rec.fct_us {
            assert!(fct + 1e-6 >= rec.ideal_fct_us, "FCT below ideal: {rec:?}");
        }
    }
}

/// One switch with `hosts` hosts at `gbps` (TFC's testbed: NetFPGA ports of 1 Gb/s, 256 KB).
pub fn star(
    hosts: usize,
    gbps: f64,
    buffer: u64,
    link_delay_us: f64,
    host_delay_us: f64,
) -> Topology {
    use dctc_core::topology::NodeKind;
    use dctc_core::units::Rate;
    let mut t = Topology::new("star", Delta::from_us_f64(host_delay_us));
    let hs: Vec<_> = (0..hosts)
        .map(|i| t.add_node(NodeKind::Host, format!("h{i}")))
        .collect();
    let sw = t.add_node(NodeKind::Switch { tier: 1 }, "sw");
    for h in hs {
        t.add_cable(
            h,
            sw,
            Rate((gbps * 1e9) as u64),
            Delta::from_us_f64(link_delay_us),
            buffer,
            buffer,
        );
    }
    t
}

/// Goodput of an incast with `senders` senders under `scheme` (TFC §6.1: 1 Gb/s, 256 KB
/// buffers, 256 KB blocks).
pub fn incast_goodput(scheme: &PacketScheme, senders: usize, rounds: usize) -> (f64, u64) {
    use dctc_core::workload::IncastSpec;
    let t = star(senders + 1, 1.0, 256_000, 10.0, 5.0);
    let wl = Workload {
        flows: vec![],
        incasts: vec![IncastSpec {
            receiver: 0,
            senders,
            block_bytes: 256_000,
            rounds,
        }],
    };
    let r = run(&t, scheme, &wl, 600_000_000);
    let inc = &r.incasts[0];
    assert_eq!(inc.rounds_completed, rounds, "{inc:?}");
    (inc.goodput_gbps, inc.timeouts)
}
