//! Helpers shared by the integration tests.
#![allow(dead_code, unreachable_pub)]

use dctc_core::fabric::{dumbbell, DumbbellSpec};
use dctc_core::ids::FlowId;
use dctc_core::routing::Routing;
use dctc_core::spec::FlowSpec;
use dctc_core::topology::Topology;
use dctc_core::units::{Delta, SimTime};
use dctc_packet::metrics::RunResult;
use dctc_packet::transport::TcpConfig;
use dctc_packet::{RunOptions, Scheme, Simulation, Workload};

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

pub fn long_flow(topo: &Topology, id: u32, src: usize, dst: usize, start_us: u64, stop_us: u64) -> FlowSpec {
    FlowSpec {
        id: FlowId(id),
        src: topo.hosts()[src],
        dst: topo.hosts()[dst],
        size_bytes: None,
        start: SimTime::from_delta(Delta::from_us(start_us)),
        stop: Some(SimTime::from_delta(Delta::from_us(stop_us))),
        coflow: None,
    }
}

pub fn sized_flow(topo: &Topology, id: u32, src: usize, dst: usize, start_us: u64, size: u64) -> FlowSpec {
    FlowSpec {
        id: FlowId(id),
        src: topo.hosts()[src],
        dst: topo.hosts()[dst],
        size_bytes: Some(size),
        start: SimTime::from_delta(Delta::from_us(start_us)),
        stop: None,
        coflow: None,
    }
}

pub fn tuned(topo: &Topology) -> TcpConfig {
    TcpConfig::pfabric_tuned(dctc_packet::config::smallest_switch_buffer(topo))
}

pub fn run_with(topo: &Topology, scheme: &Scheme, wl: &Workload, opts: RunOptions) -> RunResult {
    let routing = Routing::new(topo).unwrap();
    let r = Simulation::new(topo, &routing, scheme, wl, opts)
        .unwrap()
        .run(&mut |_| {});
    check_invariants(&r);
    r
}

pub fn run(topo: &Topology, scheme: &Scheme, wl: &Workload, until_us: u64) -> RunResult {
    run_with(topo, scheme, wl, RunOptions::new(1, SimTime::from_delta(Delta::from_us(until_us))))
}

/// The invariants every simulation must keep.
pub fn check_invariants(r: &RunResult) {
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
    for p in &r.ports {
        assert!(p.max_queue_bytes <= p.buffer_bytes, "queue above buffer: {p:?}");
    }
    for rec in &r.records {
        if let Some(fct) = rec.fct_us {
            assert!(fct + 1e-6 >= rec.ideal_fct_us, "FCT below ideal: {rec:?}");
        }
    }
}
