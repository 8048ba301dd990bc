//! Single-hop signaling (HOLNET eq. 12): the first-hop switch's report reaches the source one
//! switch-to-host delay after the switch's port congests, where the echoed report takes a
//! round trip.

use crate::queue::{DropTailParams, HolnetParams};

use super::*;
use crate::queue::holnet::CONGESTED_PERCENT;
use crate::queue::QueueSpec;
use crate::transport::{Cc, HolnetUta, TcpConfig, UtaFeedback};
use dctc_core::fabric::{leaf_spine, LeafSpineSpec};
use dctc_core::ids::FlowId;

const BUFFER: u64 = 60_000;

/// One host per rack behind a 1 Gb/s uplink: a 10 Gb/s sender's slow start fills the source
/// leaf's uplink. The host links take 1 us, the fabric links 50 us (an RTT above 200 us).
fn fabric() -> Topology {
    one_host_racks(2, 1.0)
}

/// `racks` racks of one 10 Gb/s host each (1 us links) under one spine over fabric links of
/// `fabric_gbps` (50 us).
fn one_host_racks(racks: usize, fabric_gbps: f64) -> Topology {
    leaf_spine(&LeafSpineSpec {
        racks,
        hosts_per_rack: 1,
        spines: 1,
        host_rate_gbps: 10.0,
        fabric_rate_gbps: fabric_gbps,
        oversubscription: None,
        host_link_delay_us: 1.0,
        fabric_link_delay_us: 50.0,
        host_delay_us: 0.0,
        buffer_bytes: BUFFER,
        spine_buffer_bytes: None,
    })
    .unwrap()
}

fn scheme(via: UtaFeedback) -> PacketScheme {
    let tcp = TcpConfig {
        max_cwnd_bytes: u64::MAX / 4,
        min_rto: Delta::from_ms(5),
        initial_rto: Delta::from_ms(5),
        ..TcpConfig::pfabric_tuned(BUFFER)
    };
    let queue = match via {
        UtaFeedback::Signal => QueueSpec::DropTail(DropTailParams),
        UtaFeedback::Echo => QueueSpec::Holnet(HolnetParams),
    };
    let mut cc = HolnetUta::default();
    cc.via = via;
    PacketScheme::assemble("holnet-uta", tcp, Cc::HolnetUta(cc), queue)
}

/// At `until`: the source leaf uplink's largest backlog so far, whether the source's
/// controller has heard of congestion (slow start ended), and the signals sent.
fn state_at(t: &Topology, r: &Routing, s: &PacketScheme, until: SimTime) -> (u64, bool, u64) {
    let wl = Workload {
        flows: vec![FlowSpec {
            id: FlowId(0),
            src: t.hosts()[0],
            dst: t.hosts()[1],
            size_bytes: None,
            start: SimTime::ZERO,
            stop: Some(SimTime::from_delta(Delta::from_ms(3))),
            coflow: None,
        }],
        incasts: vec![],
    };
    let mut sim = Simulation::new(t, r, s, &wl, RunOptions::new(1, until)).unwrap();
    sim.schedule_start();
    sim.run_events(&mut |_| {});
    let heard = sim.hosts.flows[0].sender.window().ssthresh != u64::MAX;
    let signals = sim.counters.hop_signals;
    let leaf = t.edge_switch(t.hosts()[0]).unwrap();
    let up = t
        .out_links(leaf)
        .iter()
        .find(|&&l| !t.is_host(t.link(l).to))
        .unwrap()
        .index();
    let (_, _, ports) = sim
        .fabric
        .finish(t, until, &mut sim.events, &mut sim.counters);
    (ports[up].max_queue_bytes, heard, signals)
}

/// The first instant (ps) at which `pred` holds, given that it holds at `hi` and, once true,
/// stays true.
fn first(hi: u64, pred: impl Fn(SimTime) -> bool) -> u64 {
    let (mut lo, mut hi) = (0u64, hi);
    assert!(pred(SimTime(hi)));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(SimTime(mid)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    hi
}

/// (When the uplink first reached 80% of its buffer, when the source first heard of it.)
fn congested_and_heard(via: UtaFeedback) -> (u64, u64) {
    let t = fabric();
    let r = Routing::new(&t).unwrap();
    let s = scheme(via);
    let end = Delta::from_ms(3).0;
    let congested = first(end, |u| {
        state_at(&t, &r, &s, u).0 * 100 >= CONGESTED_PERCENT * BUFFER
    });
    let heard = first(end, |u| state_at(&t, &r, &s, u).1);
    (congested, heard)
}

#[test]
fn the_first_hop_report_reaches_the_source_one_host_link_later_not_one_rtt() {
    // The source leaf judges the flow's path as it forwards each data packet: the packet
    // that brings its uplink to 80% makes it signal, and the source hears it exactly one
    // leaf-to-host propagation delay (1 us) later and ends slow start.
    let (congested, heard) = congested_and_heard(UtaFeedback::Signal);
    assert!(congested > 0);
    assert_eq!(
        heard - congested,
        Delta::from_us(1).0,
        "uplink at 80% at {congested} ps, source heard at {heard} ps"
    );
    // The same controller on the echoed bit hears it only after the marked packet has
    // crossed its queue and the fabric and its ACK has come back: more than one empty-path
    // round trip (204 us) later.
    let (congested_e, heard_e) = congested_and_heard(UtaFeedback::Echo);
    assert_eq!(congested_e, congested, "same trajectory until the report");
    assert!(
        heard_e - congested_e > Delta::from_us(204).0,
        "echo heard {} us after the uplink congested",
        (heard_e - congested_e) as f64 / 1e6
    );
}

#[test]
fn a_steady_judgment_is_signaled_once_and_echo_runs_send_no_signals() {
    let t = fabric();
    let r = Routing::new(&t).unwrap();
    let until = SimTime::from_delta(Delta::from_ms(3));
    let (_, heard, signals) = state_at(&t, &r, &scheme(UtaFeedback::Signal), until);
    assert!(heard);
    // Signals are changes: far fewer than the flow's data packets (about 250 in 3 ms at
    // 1 Gb/s), and at least the first report.
    assert!((1..50).contains(&signals), "{signals} signals");
    let (_, heard, signals) = state_at(&t, &r, &scheme(UtaFeedback::Echo), until);
    assert!(heard);
    assert_eq!(signals, 0);
}

/// Two senders in their own racks into one receiver in a third, over fabric links twice the
/// host rate: only the destination leaf's downlink congests. After 30 ms: per flow, whether
/// its source heard of congestion, and the drops at that downlink.
fn incast_behind_the_next_hop(downstream: bool) -> (Vec<bool>, u64) {
    let t = one_host_racks(3, 20.0);
    let r = Routing::new(&t).unwrap();
    let mut s = scheme(UtaFeedback::Signal);
    if let Cc::HolnetUta(c) = &mut s.cc {
        c.downstream = downstream;
    }
    let h = t.hosts();
    let until = SimTime::from_delta(Delta::from_ms(30));
    let flows = (0..2)
        .map(|i| FlowSpec {
            id: FlowId(i),
            src: h[i as usize],
            dst: h[2],
            size_bytes: None,
            start: SimTime::ZERO,
            stop: Some(until),
            coflow: None,
        })
        .collect();
    let wl = Workload {
        flows,
        incasts: vec![],
    };
    let mut sim = Simulation::new(&t, &r, &s, &wl, RunOptions::new(1, until)).unwrap();
    sim.schedule_start();
    sim.run_events(&mut |_| {});
    let heard = (0..2)
        .map(|i| sim.hosts.flows[i].sender.window().ssthresh != u64::MAX)
        .collect();
    let leaf = t.edge_switch(h[2]).unwrap();
    let down = t.link_between(leaf, h[2]).unwrap().index();
    let (_, _, ports) = sim
        .fabric
        .finish(&t, until, &mut sim.events, &mut sim.counters);
    (heard, ports[down].drops)
}

#[test]
fn the_chained_report_hears_the_destination_downlink_the_single_one_does_not() {
    // Table II read at the first-hop node alone: its uplink and the spine's port toward the
    // destination leaf never fill, so the sources never hear of the downlink they overrun.
    let (heard, drops) = incast_behind_the_next_hop(false);
    assert_eq!(heard, vec![false, false]);
    assert!(drops > 0, "the downlink overflows unreported");
    // Composed at every node, the spine's next hop (the destination leaf's downlink) makes
    // the spine congested in the first-hop report: both sources hear it and slow down.
    let (heard_c, drops_c) = incast_behind_the_next_hop(true);
    assert_eq!(heard_c, vec![true, true]);
    assert!(drops_c < drops, "{drops_c} drops chained, {drops} single");
}
