//! The behaviours the papers rely on: a flow fills an idle path, DCTCP shares a bottleneck
//! fairly and holds its queue near K, NewReno fills the buffer, incast collapses NewReno
//! before DCTCP.

mod common;
use common::*;
use dctc_core::stats::jain_fairness;
use dctc_core::units::{Delta, SimTime};
use dctc_packet::transport::TcpConfig;
use dctc_packet::{PacketScheme, RunOptions, Workload};

#[test]
fn one_flow_on_an_idle_10g_path_reaches_95_percent_goodput() {
    let t = bell(1, 1, 10.0, 225_000);
    for scheme in [
        PacketScheme::newreno(tuned(&t)),
        PacketScheme::dctcp(tuned(&t), 97_500),
    ] {
        let wl = Workload {
            flows: vec![long_flow(&t, 0, 0, 1, 0, 10_000)],
            incasts: vec![],
        };
        let r = run(&t, &scheme, &wl, 10_000);
        let gbps = r.counters.goodput_bytes as f64 * 8.0 / 10e-3 / 1e9;
        eprintln!(
            "{}: one flow, idle 10 Gb/s path: {gbps:.3} Gb/s goodput",
            scheme.label
        );
        assert!(gbps >= 9.5, "{}: {gbps} Gb/s", scheme.label);
        assert_eq!(r.counters.dropped_packets, 0, "{}", scheme.label);
        assert_eq!(r.counters.timeouts, 0, "{}", scheme.label);
        assert_eq!(r.counters.retransmitted_bytes, 0, "{}", scheme.label);
    }
}

fn long_flows(
    n: usize,
    scheme: &PacketScheme,
    ms: u64,
    bin_us: u64,
) -> (dctc_packet::metrics::PacketRun, Vec<f64>) {
    let t = bell(n, 1, 10.0, 225_000);
    let flows = (0..n)
        .map(|i| long_flow(&t, i as u32, i, n, 0, ms * 1000))
        .collect();
    let wl = Workload {
        flows,
        incasts: vec![],
    };
    let mut opts = RunOptions::new(1, SimTime::from_delta(Delta::from_ms(ms)));
    opts.throughput_bin = Some(Delta::from_us(bin_us));
    opts.queue_sample = Some(Delta::from_us(50));
    let r = run_with(&t, scheme, &wl, opts);
    let rates: Vec<f64> = r
        .throughput
        .iter()
        .map(|(_, bins)| bins.iter().sum::<u64>() as f64 * 8.0 / (ms as f64 * 1e-3))
        .collect();
    assert_eq!(rates.len(), n);
    (r, rates)
}

fn dctcp_fairness(n: usize) {
    let t = bell(n, 1, 10.0, 225_000);
    let scheme = PacketScheme::dctcp(tuned(&t), 97_500);
    let (r, rates) = long_flows(n, &scheme, 100, 1000);
    let j = jain_fairness(&rates);
    let total: f64 = rates.iter().sum();
    assert!(j >= 0.95, "N = {n}: Jain {j}, rates {rates:?}");
    assert!(total > 9.0e9, "N = {n}: total {total}");
    eprintln!(
        "N = {n}: Jain {j:.4}, total {:.3} Gb/s, drops {}",
        total / 1e9,
        r.counters.dropped_packets
    );
}

#[test]
fn dctcp_shares_a_bottleneck_fairly_among_2_flows() {
    dctcp_fairness(2);
}

#[test]
fn dctcp_shares_a_bottleneck_fairly_among_8_flows() {
    dctcp_fairness(8);
}

#[test]
fn dctcp_shares_a_bottleneck_fairly_among_32_flows() {
    dctcp_fairness(32);
}

/// Index of the bottleneck port (left switch -> right switch) of a dumbbell.
fn bottleneck(r: &dctc_packet::metrics::PacketRun) -> usize {
    r.ports
        .iter()
        .position(|p| p.from == "left" && p.to == "right")
        .unwrap()
}

#[test]
fn dctcp_holds_the_queue_near_k_while_newreno_fills_the_buffer() {
    let t = bell(2, 1, 10.0, 225_000);
    let k = 97_500u64;
    let (r, _) = long_flows(2, &PacketScheme::dctcp(tuned(&t), k), 50, 1000);
    let b = &r.ports[bottleneck(&r)];
    assert!(
        b.mean_queue_bytes >= 0.5 * k as f64 && b.mean_queue_bytes <= 2.0 * k as f64,
        "DCTCP mean queue {} vs K {k}",
        b.mean_queue_bytes
    );
    assert_eq!(b.drops, 0);
    assert_eq!(r.counters.timeouts, 0);
    assert!(b.ecn_marks > 0);
    let dctcp_mean = b.mean_queue_bytes;
    eprintln!(
        "DCTCP bottleneck mean queue {dctcp_mean:.0} B (K = {k}), max {}",
        b.max_queue_bytes
    );
    let (r, _) = long_flows(2, &PacketScheme::newreno(tuned(&t)), 50, 1000);
    let b = &r.ports[bottleneck(&r)];
    assert!(
        b.max_queue_bytes as f64 >= 0.95 * b.buffer_bytes as f64,
        "{b:?}"
    );
    assert!(b.drops > 0, "{b:?}");
    assert!(b.mean_queue_bytes > 1.5 * dctcp_mean, "{b:?}");
    assert!(b.mean_queue_bytes > 0.5 * b.buffer_bytes as f64, "{b:?}");
    eprintln!(
        "NewReno bottleneck mean queue {:.0} B, max {}, drops {}",
        b.mean_queue_bytes, b.max_queue_bytes, b.drops
    );
}

#[test]
fn incast_collapses_newreno_past_ten_senders_while_dctcp_holds() {
    let newreno = PacketScheme::newreno(TcpConfig::linux_like());
    let dctcp = PacketScheme::dctcp(TcpConfig::linux_like(), 32_000);
    let rounds = 20;
    // Goodput at few senders: the best of 4 and 8 (one 200 ms timeout in 20 rounds is enough
    // to halve a single point).
    let nr_few = incast_goodput(&newreno, 4, rounds)
        .0
        .max(incast_goodput(&newreno, 8, rounds).0);
    let nr_many = incast_goodput(&newreno, 32, rounds).0;
    let dc_few = incast_goodput(&dctcp, 4, rounds)
        .0
        .max(incast_goodput(&dctcp, 8, rounds).0);
    let dc_many = incast_goodput(&dctcp, 32, rounds).0;
    eprintln!(
        "newreno few: {nr_few:.3}, 32: {nr_many:.3}; dctcp few: {dc_few:.3}, 32: {dc_many:.3}"
    );
    assert!(nr_few > 0.8, "NewReno with few senders: {nr_few} Gb/s");
    assert!(
        nr_many < 0.5 * nr_few,
        "NewReno should collapse: {nr_many} vs {nr_few}"
    );
    assert!(
        dc_many > 0.75 * dc_few,
        "DCTCP should hold: {dc_many} vs {dc_few}"
    );
    assert!(dc_many > 2.0 * nr_many);
}
