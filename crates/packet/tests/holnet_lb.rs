//! DRILL and HOLNET's percentage balancer on small leaf-spine fabrics: DRILL evens out a
//! leaf's uplink queues better than ECMP (and reorders, which is counted); the percentage
//! balancer moves traffic off a spine whose port toward the destination leaf congests and
//! back once the other spine's path congests instead.

mod common;
use common::*;
use dctc_core::fabric::{leaf_spine, LeafSpineSpec};
use dctc_core::ids::{LinkId, NodeId};
use dctc_core::rng::{component_rng, streams};
use dctc_core::topology::{NodeKind, Topology};
use dctc_core::units::{Delta, Rate, SimTime};
use dctc_core::workload::{Cdf, PairMode, PoissonSpec};
use dctc_packet::lb::LbKind;
use dctc_packet::metrics::PacketRun as RunResult;
use dctc_packet::queue::FqCodelParams;
use dctc_packet::queue::QueueSpec;
use dctc_packet::{PacketScheme, RunOptions, Workload};

fn fabric() -> Topology {
    leaf_spine(&LeafSpineSpec {
        racks: 4,
        hosts_per_rack: 8,
        spines: 4,
        host_rate_gbps: 10.0,
        fabric_rate_gbps: 10.0,
        oversubscription: None,
        host_link_delay_us: 1.0,
        fabric_link_delay_us: 1.0,
        host_delay_us: 1.0,
        buffer_bytes: 150_000,
        spine_buffer_bytes: None,
    })
    .unwrap()
}

fn poisson_run(t: &Topology, lb: LbKind) -> RunResult {
    let scheme = PacketScheme {
        lb,
        ..PacketScheme::dctcp(tuned(t), 97_500)
    };
    poisson_run_of(t, &scheme)
}

fn poisson_run_of(t: &Topology, scheme: &PacketScheme) -> RunResult {
    let until = SimTime::from_delta(Delta::from_ms(3));
    let spec = PoissonSpec {
        cdf: "websearch".into(),
        load: 0.6,
        pairs: PairMode::InterRack,
        max_flows: None,
    };
    let flows = spec
        .generate(
            t,
            &Cdf::builtin("websearch").unwrap(),
            until,
            0,
            &mut component_rng(4, streams::WORKLOAD),
        )
        .unwrap();
    let mut opts = RunOptions::new(4, until);
    opts.queue_sample = Some(Delta::from_us(10));
    run_with(
        t,
        scheme,
        &Workload {
            flows,
            incasts: vec![],
        },
        opts,
    )
}

/// Mean over samples and leaves of (longest - shortest) uplink backlog, bytes.
fn uplink_imbalance(t: &Topology, r: &RunResult) -> f64 {
    let leaves: Vec<NodeId> =
        t.hosts()
            .iter()
            .filter_map(|&h| t.edge_switch(h))
            .fold(Vec::new(), |mut v, l| {
                if !v.contains(&l) {
                    v.push(l);
                }
                v
            });
    let mut sum = 0.0;
    let mut n = 0.0;
    for leaf in leaves {
        let ups: Vec<u32> = t
            .out_links(leaf)
            .iter()
            .filter(|&&l| !t.is_host(t.link(l).to))
            .map(|l| l.0)
            .collect();
        let mut times: Vec<u64> = r.queue_samples.iter().map(|s| s.time_ps).collect();
        times.dedup();
        for time in times {
            let q: Vec<u64> = r
                .queue_samples
                .iter()
                .filter(|s| s.time_ps == time && ups.contains(&s.link))
                .map(|s| s.bytes)
                .collect();
            sum += (q.iter().max().unwrap() - q.iter().min().unwrap()) as f64;
            n += 1.0;
        }
    }
    sum / n
}

#[test]
fn drill_evens_the_uplink_queues_better_than_ecmp_and_its_reordering_is_counted() {
    let t = fabric();
    let ecmp = poisson_run(&t, LbKind::Ecmp);
    let drill = poisson_run(&t, LbKind::Drill);
    let (ie, id) = (uplink_imbalance(&t, &ecmp), uplink_imbalance(&t, &drill));
    assert!(
        id < 0.5 * ie,
        "DRILL imbalance {id:.0} B vs ECMP {ie:.0} B (per-sample max - min over a leaf's uplinks)"
    );
    // ECMP keeps a flow on one path: nothing overtakes; DRILL sprays packets over queues of
    // different lengths.
    assert_eq!(ecmp.counters.reordered_packets, 0);
    assert!(drill.counters.reordered_packets > 0, "{:?}", drill.counters);
    assert!(drill.records.iter().filter(|x| x.fct_us.is_some()).count() > 20);
}

#[test]
fn drill_over_fq_codel_ports_reads_their_settled_backlogs_and_still_evens_the_uplinks() {
    // FQ-CoDel ports decide a departure when next looked at: DRILL's per-packet reads and the
    // queue samples must see them settled (in debug builds the engine asserts it at every
    // backlog read), and with the backlogs right DRILL still evens the uplinks.
    let t = fabric();
    let over_fq_codel = |lb| PacketScheme {
        lb,
        switch_queue: QueueSpec::FqCodel(FqCodelParams::default()),
        ..PacketScheme::dctcp(tuned(&t), 97_500)
    };
    let ecmp = poisson_run_of(&t, &over_fq_codel(LbKind::Ecmp));
    let drill = poisson_run_of(&t, &over_fq_codel(LbKind::Drill));
    let (ie, id) = (uplink_imbalance(&t, &ecmp), uplink_imbalance(&t, &drill));
    assert!(
        id < 0.5 * ie,
        "DRILL imbalance {id:.0} B vs ECMP {ie:.0} B over FQ-CoDel ports"
    );
    assert!(drill.counters.reordered_packets > 0, "{:?}", drill.counters);
    assert!(drill.records.iter().filter(|x| x.fct_us.is_some()).count() > 20);
}

/// Leaf L0 (4 hosts) reaches leaf L1 (4 hosts) over spines S0 and S1; leaf L2 (2 hosts) has
/// one uplink, to S0, so its traffic to L1 loads S0's port toward L1 and nothing else. Returns
/// the fabric, L0's uplinks (to S0, to S1) and S0's port toward L1.
fn two_spines() -> (Topology, LinkId, LinkId, LinkId) {
    let mut t = Topology::new("pct", Delta::from_us(1));
    let g = |x: f64| Rate((x * 1e9) as u64);
    let d = Delta::from_us(1);
    let buf = 150_000;
    let leaves: Vec<NodeId> = (0..3)
        .map(|i| t.add_node(NodeKind::Switch { tier: 1 }, format!("L{i}")))
        .collect();
    let spines: Vec<NodeId> = (0..2)
        .map(|i| t.add_node(NodeKind::Switch { tier: 2 }, format!("S{i}")))
        .collect();
    for (leaf, n) in [(0, 4), (1, 4), (2, 2)] {
        for k in 0..n {
            let h = t.add_node(NodeKind::Host, format!("h{leaf}-{k}"));
            t.add_cable(h, leaves[leaf], g(10.0), d, buf, buf);
        }
    }
    let (up0, _) = t.add_cable(leaves[0], spines[0], g(20.0), d, buf, buf);
    let (up1, _) = t.add_cable(leaves[0], spines[1], g(20.0), d, buf, buf);
    let (_, s0_l1) = t.add_cable(leaves[1], spines[0], g(20.0), d, buf, buf);
    t.add_cable(leaves[1], spines[1], g(20.0), d, buf, buf);
    t.add_cable(leaves[2], spines[0], g(20.0), d, buf, buf);
    (t, up0, up1, s0_l1)
}

/// S0's share of L0's uplink bytes sent in [from_us, to_us).
fn s0_share(r: &RunResult, up0: LinkId, up1: LinkId, from_us: u64, to_us: u64) -> f64 {
    let at = |l: LinkId, us: u64| {
        r.queue_samples
            .iter()
            .find(|s| s.link == l.0 && s.time_ps >= us * 1_000_000)
            .map(|s| s.sent_bytes)
            .unwrap()
    };
    let a = (at(up0, to_us) - at(up0, from_us)) as f64;
    let b = (at(up1, to_us) - at(up1, from_us)) as f64;
    a / (a + b)
}

#[test]
fn percentage_balancer_leaves_a_congested_spine_and_returns_when_the_other_path_congests() {
    let (t, up0, up1, s0_l1) = two_spines();
    let routing = dctc_core::routing::Routing::new(&t).unwrap();
    let period = dctc_packet::lb::Percentage::new(&t, &routing, Default::default())
        .unwrap()
        .period();
    // RTT/4 of this fabric: 6 links of 1 us each way, 1 us host delay at each end, plus
    // serialization.
    assert!(
        period > Delta::from_us(3) && period < Delta::from_us(4),
        "{period:?}"
    );
    // Hosts 0-3 under L0, 4-7 under L1, 8-9 under L2.
    let flows = vec![
        long_flow(&t, 0, 0, 4, 0, 6_000),
        // Cross traffic: 20 Gb/s from L2 into S0's 20 Gb/s port toward L1, 0.5-2.5 ms.
        long_flow(&t, 1, 8, 5, 500, 2_500),
        long_flow(&t, 2, 9, 6, 500, 2_500),
        // From 3.5 ms L0 offers 30 Gb/s to L1, more than S1's path alone carries.
        long_flow(&t, 3, 1, 7, 3_500, 6_000),
        long_flow(&t, 4, 2, 5, 3_500, 6_000),
    ];
    let mut opts = RunOptions::new(1, SimTime::from_delta(Delta::from_ms(6)));
    opts.queue_sample = Some(Delta::from_us(10));
    opts.sample_links = vec![up0.0, up1.0, s0_l1.0];
    let scheme = PacketScheme {
        lb: LbKind::HolnetPercentage,
        ..PacketScheme::newreno(tuned(&t))
    };
    let r = run_with(
        &t,
        &scheme,
        &Workload {
            flows,
            incasts: vec![],
        },
        opts,
    );
    // Equal uplinks: the capacity share is 1/2, and with nothing congested it holds.
    let before = s0_share(&r, up0, up1, 100, 500);
    assert!((before - 0.5).abs() < 0.02, "before: {before}");
    // S0's port toward L1 congests (its queue passes 80% of the buffer once the cross
    // flows have grown): within a few updates the share falls well below 1/2, and it stays
    // there while the cross traffic lasts.
    let congested_us = r
        .queue_samples
        .iter()
        .find(|s| s.link == s0_l1.0 && s.bytes >= 120_000)
        .map(|s| s.time_ps / 1_000_000)
        .expect("S0's port toward L1 congests");
    assert!((500..1_000).contains(&congested_us), "{congested_us}");
    let soon = congested_us + 10 * period.0 / 1_000_000;
    let early = s0_share(&r, up0, up1, soon, soon + 50);
    let during = s0_share(&r, up0, up1, soon + 100, 2_500);
    assert!(
        early < 0.25,
        "10 updates after congestion at {congested_us} us: {early}"
    );
    assert!(during < 0.1, "during: {during}");
    // Once S0 is clear and S1's path congests under L0's own 30 Gb/s, S0 takes traffic again.
    let after = s0_share(&r, up0, up1, 4_500, 6_000);
    assert!(after > 0.3, "after: {after}");
}
