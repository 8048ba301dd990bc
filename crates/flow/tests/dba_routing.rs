//! The path choices of DBA's Fig. 9 routings at flow level, on cases whose answer is known.

use dctc_core::fabric::{leaf_spine, LeafSpineSpec};
use dctc_core::units::{Delta, SimTime};
use dctc_flow::{
    make_policy, CoflowInput, FlowInput, Net, PolicyConfig, RoutingMode, SimConfig, Simulator,
};

/// Two racks of 8 hosts at 10 Gb/s under 3 spines at 40 Gb/s.
fn two_racks() -> Net {
    let t = leaf_spine(&LeafSpineSpec {
        racks: 2,
        hosts_per_rack: 8,
        spines: 3,
        host_rate_gbps: 10.0,
        fabric_rate_gbps: 40.0,
        oversubscription: None,
        host_link_delay_us: 1.0,
        fabric_link_delay_us: 1.0,
        host_delay_us: 0.0,
        buffer_bytes: 100_000,
        spine_buffer_bytes: None,
    })
    .unwrap();
    Net::new(t).unwrap()
}

#[test]
fn conga_places_the_flows_of_one_arrival_in_turn() {
    // Flow 0 (host 0 -> host 8) runs alone from t = 0 at 10 Gb/s on one spine, a quarter of
    // its uplink. At 1 ms six flows of one coflow (hosts 1..6 -> 9..14, 10 Gb/s each) arrive.
    // Each path's utilization is its rack uplink's: the measured load alone shows two idle
    // spines and one at 0.25, so all six would go to the two idle ones (flow 0's spine gets
    // none). Placed in turn, each counted at its 10 Gb/s host share, the first two take the
    // idle spines, which brings all three to 0.25, and the rest spread: flow 0's spine takes
    // at least one, and no uplink carries more than 3 of the 7 flows.
    let net = two_racks();
    let mut w = vec![CoflowInput {
        id: 0,
        arrival: SimTime::ZERO,
        flows: vec![FlowInput {
            src: 0,
            dst: 8,
            bytes: 1e9,
        }],
    }];
    w.push(CoflowInput {
        id: 1,
        arrival: SimTime::from_delta(Delta::from_ms(1)),
        flows: (1..7)
            .map(|h| FlowInput {
                src: h,
                dst: h + 8,
                bytes: 1e9,
            })
            .collect(),
    });
    let p = make_policy(&PolicyConfig::named("maxmin"), &net, &[]).unwrap();
    let cfg = SimConfig {
        routing: RoutingMode::Conga,
        ..SimConfig::default()
    };
    let mut sim = Simulator::new(&net, w, p, cfg);
    sim.advance(SimTime::from_delta(Delta::from_ms(2)), &mut |_| {});
    // The rack uplink (leaf -> spine) is each path's second hop.
    let uplink = |f: usize| sim.flows.hops(f)[1].link;
    let first = uplink(0);
    let mut per_uplink = std::collections::HashMap::new();
    for f in 0..7 {
        *per_uplink.entry(uplink(f)).or_insert(0) += 1;
    }
    let with_first = (1..7).filter(|&f| uplink(f) == first).count();
    assert!(
        with_first >= 1,
        "no flow of the arrival joined flow 0's spine: {per_uplink:?}"
    );
    assert!(
        per_uplink.values().all(|&n| n <= 3),
        "an uplink carries more than 3 of 7 flows: {per_uplink:?}"
    );
}
