//! The path choices of DBA's Fig. 9 routings at flow level, on cases whose answer is known.

mod common;
use dctc_core::units::{Delta, SimTime};
use dctc_flow::{
    make_policy, CoflowInput, FlowInput, Net, PolicyConfig, RoutingMode, SimConfig, Simulator,
};

/// Two racks of 8 hosts at 10 Gb/s under 3 spines at 40 Gb/s.
fn two_racks() -> Net {
    racks_of(8, 10.0)
}

/// Two racks of `hosts_per_rack` hosts at `host_rate_gbps` under 3 spines at 40 Gb/s.
fn racks_of(hosts_per_rack: usize, host_rate_gbps: f64) -> Net {
    common::leaf_spine_net(2, hosts_per_rack, 3, host_rate_gbps, 40.0)
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

/// DBA's rates, one sample per base RTT for `iters` RTTs, under `routing`.
fn dba_rates(net: &Net, w: Vec<CoflowInput>, routing: RoutingMode, iters: u64) -> Vec<Vec<f64>> {
    let p = make_policy(&PolicyConfig::named("dba"), net, &[]).unwrap();
    let cfg = SimConfig {
        routing,
        ..SimConfig::default()
    };
    let mut sim = Simulator::new(net, w, p, cfg);
    let rtt = net.rtt.ps();
    (0..=iters)
        .map(|k| {
            sim.advance(SimTime(k * rtt + rtt / 2), &mut |_| {});
            sim.flows.rate.clone()
        })
        .collect()
}

#[test]
fn a_sprayed_flow_splits_its_deviation_over_one_paths_links() {
    // Two flows from host 0 to the other rack, of coflows of different sizes, share host 0's
    // 10 Gb/s uplink, their only bottleneck (the 40 Gb/s spine links and the receivers' links
    // carry at most 10 Gb/s). WFQ splits the uplink by the flows' weights, which follow the
    // prices (eq. 10); only the uplink's price is positive. Sprayed (DRILL) or on one path
    // (ECMP), each flow crosses 4 links per packet and sees the same path price, so eq. (11)'s
    // deviation, and every rate from it, must be the same RTT by RTT. (Divided by the 8 links
    // a sprayed flow touches, the uplink's price moved half as fast and the rates differed.)
    let net = two_racks();
    let w = vec![
        CoflowInput {
            id: 0,
            arrival: SimTime::ZERO,
            flows: vec![FlowInput {
                src: 0,
                dst: 8,
                bytes: 2e9,
            }],
        },
        CoflowInput {
            id: 1,
            arrival: SimTime::ZERO,
            flows: vec![FlowInput {
                src: 0,
                dst: 9,
                bytes: 8e9,
            }],
        },
    ];
    let ecmp = dba_rates(&net, w.clone(), RoutingMode::Ecmp, 40);
    let drill = dba_rates(&net, w, RoutingMode::Drill, 40);
    // The weights do act: the smaller coflow gets the larger share.
    let last = ecmp.last().unwrap();
    assert!(
        last[0] > 1.2 * last[1],
        "WFQ did not favour the smaller coflow: {last:?}"
    );
    for (k, (e, d)) in ecmp.iter().zip(&drill).enumerate() {
        for f in 0..2 {
            assert!(
                (e[f] - d[f]).abs() <= 1e-9 * e[f].max(1.0),
                "RTT {k}, flow {f}: ECMP {} b/s, DRILL {} b/s",
                e[f],
                d[f]
            );
        }
    }
}

#[test]
fn ecmp_loses_less_to_spraying_the_more_flows_share_the_uplinks() {
    // Fig. 9's ECMP loss is hash collisions on the rack uplinks, which weigh less the more
    // flows share them (scenarios/dba/README.md, "Miss: ECMP's average-CCT gap": the short
    // window caps a coflow at 16 x 16 flows). Two racks of 16 hosts at 40 Gb/s under 3 spines
    // at 40 Gb/s: n equal flows from rack 0 to rack 1 share 120 Gb/s of uplinks. Spraying
    // gives each 120 / n; ECMP gives the flows on the fullest spine 40 / k_max, so the slowest
    // flow, which sets the makespan, runs at n / (3 k_max) of the sprayed rate.
    let net = racks_of(16, 40.0);
    let slowest = |n: u32, routing: RoutingMode| {
        let w = vec![CoflowInput {
            id: 0,
            arrival: SimTime::ZERO,
            flows: (0..n)
                .map(|i| FlowInput {
                    src: i % 16,
                    dst: 16 + (i * 7 + i / 16) % 16,
                    bytes: 1e12,
                })
                .collect(),
        }];
        let p = make_policy(&PolicyConfig::named("maxmin"), &net, &[]).unwrap();
        let cfg = SimConfig {
            routing,
            ..SimConfig::default()
        };
        let mut sim = Simulator::new(&net, w, p, cfg);
        sim.advance(SimTime::from_delta(Delta::from_ms(1)), &mut |_| {});
        sim.flows.rate.iter().copied().fold(f64::INFINITY, f64::min)
    };
    let ratio = |n: u32| {
        let drill = slowest(n, RoutingMode::Drill);
        assert!(
            (drill - 120e9 / n as f64).abs() <= 1e-6 * drill,
            "{n} sprayed flows: {drill} b/s each"
        );
        slowest(n, RoutingMode::Ecmp) / drill
    };
    let (few, many) = (ratio(12), ratio(768));
    assert!(
        few < 0.9,
        "12 flows: ECMP's slowest at {few} of the sprayed rate"
    );
    assert!(
        many > 0.9,
        "768 flows: ECMP's slowest at {many} of the sprayed rate"
    );
    assert!(
        few < many,
        "ECMP lost no less with more flows: {few} vs {many}"
    );
}

#[test]
fn the_p99_of_a_hundred_coflows_is_the_second_slowest() {
    // The short DBA windows replay 100 coflows: their p99 CCT is one coflow, the second
    // slowest, moved a hundredth of the way to the slowest (scenarios/dba/README.md, "Miss:
    // p99 on 100 coflows").
    let mut cct: Vec<f64> = (1..=98).map(f64::from).collect();
    cct.extend([1000.0, 2000.0]);
    let p = dctc_core::stats::percentile_sorted(&cct, 0.99);
    assert!((p - 1010.0).abs() < 1e-9, "p99 {p}");
}
