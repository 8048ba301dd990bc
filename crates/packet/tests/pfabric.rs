//! pFabric end to end, and the FQ-CoDel paper's ordering on a short run: a short flow behind
//! a long one finishes near its ideal FCT, and on the paper's fabric and workload the mean
//! single-packet slowdown orders pFabric < FQ-CoDel < DCTCP.

mod common;
use common::*;
use dctc_core::fabric::preset;
use dctc_core::rng::component_rng;
use dctc_core::routing::Routing;
use dctc_core::stats::SizeBucket;
use dctc_core::topology::Topology;
use dctc_core::units::SimTime;
use dctc_core::workload::cdf::Cdf;
use dctc_core::workload::PoissonSpec;
use dctc_packet::config::PacketSettings;
use dctc_packet::metrics::PacketRun;
use dctc_packet::schemes::resolve_scheme;
use dctc_packet::{PacketScheme, RunOptions, Workload};

/// The registered scheme a TOML table names, on `t`.
fn scheme(t: &Topology, src: &str) -> PacketScheme {
    let table = common::toml_table::TomlTable::new(src, "schemes[0]");
    resolve_scheme(&table, &PacketSettings::default(), t, "schemes[0]").unwrap()
}

fn slowdown_of(r: &PacketRun, id: u32) -> f64 {
    let rec = r.records.iter().find(|x| x.id == id).unwrap();
    rec.slowdown.expect("the flow finishes")
}

#[test]
fn a_short_flow_behind_a_long_one_finishes_near_its_ideal_fct() {
    // Two senders into one receiver through a 10 Gb/s bottleneck with pFabric's small
    // buffer: two 3 MB flows fill the bottleneck's queue, a 3-packet flow from the second
    // sender starts 300 us later.
    let t = bell(2, 1, 10.0, 36_000);
    let wl = Workload {
        flows: vec![
            sized_flow(&t, 0, 0, 2, 0, 3_000_000),
            sized_flow(&t, 1, 1, 2, 0, 3_000_000),
            sized_flow(&t, 2, 1, 2, 300, 3 * 1460),
        ],
        incasts: vec![],
    };
    let opts = || RunOptions::new(1, SimTime::from_delta(dctc_core::units::Delta::from_ms(10)));
    // Host NICs run pFabric's queue too, so the short flow also passes its own host's long
    // flow (TCP keeps FIFO NICs: the long flow's window waits there as well).
    let pf = run_with(
        &t,
        &scheme(&t, "name = \"pfabric\"\nnic_queue = \"switch\""),
        &wl,
        opts(),
    );
    let tcp = run_with(&t, &scheme(&t, "name = \"newreno\""), &wl, opts());
    let (short_pf, short_tcp) = (slowdown_of(&pf, 2), slowdown_of(&tcp, 2));
    eprintln!("short flow slowdown: pFabric {short_pf:.3}, TCP over DropTail {short_tcp:.3}");
    // pFabric: the short flow's packets overtake the long flow's queued packets at every hop
    // and wait at most for the packet being sent.
    assert!(short_pf < 1.3, "pFabric short-flow slowdown {short_pf}");
    // The setup does queue: behind a FIFO the same flow waits for the long flow's window.
    assert!(short_tcp > 1.8, "TCP short-flow slowdown {short_tcp}");
    // The long flow still finishes, and the run keeps the invariants (run_with checks them).
    assert!(
        slowdown_of(&pf, 0) < 1.5,
        "long flow {}",
        slowdown_of(&pf, 0)
    );
}

/// The FQ-CoDel paper's setup, short: fq-codel-32, load 0.6, its tweaked data-mining
/// workload with single-packet flows carrying 10% of the bytes (enough single-packet flows to
/// compare means: about 1,600 per ms of arrivals; in the original workload they are 0.01% of
/// the bytes), host NICs running the scheme's discipline, `arrivals_ms` of arrivals from
/// `seed`'s workload stream and 5 ms to drain.
fn paper_run(src: &str, seed: u64, arrivals_ms: u64) -> PacketRun {
    let t = preset("fq-codel-32")
        .unwrap()
        .build(std::path::Path::new("."))
        .unwrap();
    let cdf = Cdf::builtin("datamining")
        .unwrap()
        .with_single_packet_share(1e5 * 1460.0, 0.1)
        .unwrap();
    let spec = PoissonSpec {
        cdf: "tweaked".into(),
        load: 0.6,
        pairs: Default::default(),
        max_flows: None,
    };
    let until = SimTime::from_delta(dctc_core::units::Delta::from_ms(arrivals_ms));
    let mut rng = component_rng(seed, dctc_core::rng::streams::WORKLOAD);
    let flows = spec.generate(&t, &cdf, until, 0, &mut rng).unwrap();
    let wl = Workload {
        flows,
        incasts: vec![],
    };
    let s = scheme(&t, &format!("{src}\nnic_queue = \"switch\""));
    let routing = Routing::new(&t).unwrap();
    let end = dctc_core::units::Delta::from_ms(arrivals_ms + 5);
    let opts = RunOptions::new(seed, SimTime::from_delta(end));
    let r = dctc_packet::Simulation::new(&t, &routing, &s, &wl, opts)
        .unwrap()
        .run(&mut |_| {});
    check_invariants(&r);
    r
}

fn mean_one_packet_slowdown(r: &PacketRun) -> f64 {
    let s: Vec<f64> = r
        .records
        .iter()
        .filter(|x| x.size > 0 && SizeBucket::of(x.size) == SizeBucket::One)
        .map(|x| x.slowdown.expect("single-packet flows finish"))
        .collect();
    assert!(s.len() >= 10_000, "{} single-packet flows", s.len());
    s.iter().sum::<f64>() / s.len() as f64
}

/// The paper's ordering, pFabric < FQ-CoDel < DCTCP on the mean single-packet slowdown, at
/// each of the first four workload seeds, on the same arrivals for the three schemes.
///
/// FQ-CoDel's penalty against pFabric (a single packet finding other new flows ahead of it in
/// FQ-CoDel's new-flows list, where pFabric would have served it first) grows as the long
/// flows of the data-mining workload build up at the ports, so the run has to be long enough
/// for it to stand clear of the sample noise: with 10 ms of arrivals the gap was +0.08% on
/// average over seeds 1-16 of the shipped tweaked-10 scenario and reversed at one of them
/// (-0.01%), a coin flip per seed; with 40 ms this run gives +0.19%, +0.17%, +0.60% and
/// +0.49% at seeds 1-4, and seeds 5-8 (run once to check, not tested for time) +0.42%,
/// +0.07%, +0.16% and +0.10%: positive at every seed tried. The full 200 ms run gives +1.3%.
/// DCTCP's single-packet flows wait in FIFO queues behind long flows' packets: an order of
/// magnitude more excess delay than either.
#[test]
fn mean_single_packet_slowdown_orders_pfabric_fq_codel_dctcp() {
    for seed in 1..=4 {
        let run = |src: &str| mean_one_packet_slowdown(&paper_run(src, seed, 40));
        let pf = run("name = \"pfabric\"\nbuffer_packets = 24");
        let fq = run("name = \"fq-codel\"");
        let dctcp = run("name = \"dctcp\"\nbuffer_packets = 100");
        eprintln!(
            "seed {seed}: mean 1-packet slowdown: pFabric {pf:.5}, FQ-CoDel {fq:.5} ({:+.3}%), DCTCP-100 {dctcp:.5}",
            100.0 * (fq / pf - 1.0)
        );
        assert!(pf < fq, "seed {seed}: pFabric {pf} vs FQ-CoDel {fq}");
        assert!(fq < dctcp, "seed {seed}: FQ-CoDel {fq} vs DCTCP {dctcp}");
        assert!(
            dctcp - 1.0 > 10.0 * (fq - 1.0),
            "seed {seed}: excess delay: DCTCP {dctcp}, FQ-CoDel {fq}"
        );
    }
}

/// The long flow's slowdown and the run's timeouts with pFabric's ACK rule `rule`: a 3 MB
/// flow left to right while two 1 MB flows from the right converge on its sender's port,
/// which its ACKs share with their data.
fn long_flow_beside_reverse_traffic(rule: &str) -> (f64, u64) {
    let t = bell(1, 2, 10.0, 36_000);
    let wl = Workload {
        flows: vec![
            sized_flow(&t, 0, 0, 1, 0, 3_000_000),
            sized_flow(&t, 1, 1, 0, 0, 1_000_000),
            sized_flow(&t, 2, 2, 0, 0, 1_000_000),
        ],
        incasts: vec![],
    };
    let s = scheme(
        &t,
        &format!("name = \"pfabric\"\npfabric_ack_priority = \"{rule}\""),
    );
    let r = run_with(
        &t,
        &s,
        &wl,
        RunOptions::new(1, SimTime::from_delta(dctc_core::units::Delta::from_ms(20))),
    );
    (slowdown_of(&r, 0), r.counters.timeouts)
}

#[test]
fn acks_rank_highest_so_a_long_flow_is_not_starved_by_reverse_data() {
    // pFabric's reference code gives every ACK the highest priority: the long flow's ACKs
    // pass the shorter flows' data at its sender's port and its window keeps clocking, so it
    // finishes near its ideal FCT (its own path is otherwise idle).
    let (highest, timeouts_highest) = long_flow_beside_reverse_traffic("highest");
    // Ranked as the data they answer (3 MB remaining, behind 1 MB flows), its ACKs are the
    // lowest-priority packets of that full port: dropped first, so the flow times out.
    let (data, timeouts_data) = long_flow_beside_reverse_traffic("data");
    eprintln!(
        "long flow slowdown: ACKs highest {highest:.3} ({timeouts_highest} timeouts), \
         as data {data:.3} ({timeouts_data} timeouts)"
    );
    assert!(highest < 1.3, "ACKs highest: long-flow slowdown {highest}");
    assert_eq!(timeouts_highest, 0, "no ACK is lost, so nothing times out");
    assert!(
        timeouts_data > 0 && data > highest,
        "ranked as data the ACKs should be dropped behind the reverse flows: {data} vs {highest}"
    );
}

#[test]
fn pfabric_nics_run_pfabric_by_default_and_a_bad_ack_rule_is_named() {
    let t = bell(1, 1, 10.0, 36_000);
    let s = scheme(&t, "name = \"pfabric\"");
    assert_eq!(
        s.host_queue, s.switch_queue,
        "pFabric's NICs prioritize too"
    );
    assert_eq!(s.nic_buffer_bytes, 36_000, "with the switches' buffer");
    let fifo = scheme(&t, "name = \"pfabric\"\nnic_queue = \"droptail\"");
    assert_ne!(fifo.host_queue, fifo.switch_queue);
    let table = common::toml_table::TomlTable::new(
        "name = \"pfabric\"\npfabric_ack_priority = \"first\"",
        "schemes[0]",
    );
    let e = resolve_scheme(&table, &PacketSettings::default(), &t, "schemes[0]").unwrap_err();
    assert_eq!(e.path, "schemes[0].pfabric_ack_priority");
    assert!(e.reason.contains("highest"), "{}", e.reason);
}
