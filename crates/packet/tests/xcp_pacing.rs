//! Pacing on the wire, and XCP end to end: the engine's invariants and determinism.

mod common;
use common::*;
use dctc_core::units::{Delta, Rate, SimTime};
use dctc_packet::metrics::PacketRun;
use dctc_packet::queue::DropTailParams;
use dctc_packet::queue::QueueSpec;
use dctc_packet::transport::{Cc, NewReno, TcpConfig, Xcp};
use dctc_packet::{PacketScheme, RunOptions, Workload};

/// One 100-packet flow across a 10 Gb/s dumbbell with a 100-packet first window, paced at
/// `pacing`; returns the bottleneck's (time, wire bytes sent) samples every 48 us.
fn paced_run(pacing: Option<Rate>) -> Vec<(u64, u64)> {
    let t = bell(1, 1, 10.0, 225_000);
    let tcp = TcpConfig {
        initial_cwnd_packets: 100,
        pacing,
        ..tuned(&t)
    };
    let s = PacketScheme::assemble(
        "paced",
        tcp,
        Cc::NewReno(NewReno::default()),
        QueueSpec::DropTail(DropTailParams),
    );
    let wl = Workload {
        flows: vec![sized_flow(&t, 0, 0, 1, 0, 100 * 1460)],
        incasts: vec![],
    };
    let mut opts = RunOptions::new(1, SimTime::from_delta(Delta::from_us(600)));
    opts.queue_sample = Some(Delta::from_us(48));
    let r = run_with(&t, &s, &wl, opts);
    // The switch port toward the receiver.
    let link = r
        .ports
        .iter()
        .position(|p| p.switch && p.to == "right")
        .unwrap() as u32;
    r.queue_samples
        .iter()
        .filter(|q| q.link == link)
        .map(|q| (q.time_ps, q.sent_bytes))
        .collect()
}

#[test]
fn a_flow_paced_at_2_5_gbps_on_a_10_gbps_link_is_spaced_four_transmission_times_apart() {
    // 1500 B take 1.2 us at 10 Gb/s; paced at 2.5 Gb/s one leaves every 4.8 us, so every
    // 48 us window of the bottleneck carries exactly 10 packets while the flow lasts
    // (100 packets: 480 us), where an unpaced 100-packet window goes back to back (40 per
    // 48 us).
    let paced = paced_run(Some(Rate::mbps(2_500)));
    let per_window: Vec<u64> = paced.windows(2).map(|w| w[1].1 - w[0].1).collect();
    let full: Vec<u64> = per_window.iter().copied().filter(|&b| b > 0).collect();
    assert!(full.len() >= 9, "{per_window:?}");
    // Every window inside the flow's span holds 10 packets (the first and last may be cut).
    for &b in &full[1..full.len() - 1] {
        assert_eq!(b, 10 * 1500, "{per_window:?}");
    }
    assert_eq!(full.iter().sum::<u64>(), 100 * 1500);
    let unpaced = paced_run(None);
    let most = unpaced.windows(2).map(|w| w[1].1 - w[0].1).max().unwrap();
    assert_eq!(most, 40 * 1500, "unpaced data leaves back to back");
}

fn xcp_scheme(t: &dctc_core::topology::Topology) -> PacketScheme {
    let p = dctc_packet::queue::XcpParams::default();
    let mut s = PacketScheme::assemble(
        "xcp",
        tuned(t),
        Cc::Xcp(Xcp::new(Some(Rate::gbps(10)))),
        QueueSpec::Xcp(p),
    );
    s.host_queue = QueueSpec::Xcp(p);
    s
}

fn xcp_run() -> PacketRun {
    // Two long flows and 30 short ones into one receiver.
    let t = bell(3, 1, 10.0, 225_000);
    let mut flows = vec![
        long_flow(&t, 0, 0, 3, 0, 2_000),
        long_flow(&t, 1, 1, 3, 300, 2_000),
    ];
    for i in 0..30u32 {
        flows.push(sized_flow(&t, 2 + i, 2, 3, 100 + 50 * i as u64, 20_000));
    }
    let wl = Workload {
        flows,
        incasts: vec![],
    };
    run(&t, &xcp_scheme(&t), &wl, 3_000)
}

#[test]
fn xcp_keeps_the_engine_invariants_and_is_deterministic() {
    let a = xcp_run();
    let b = xcp_run();
    assert_eq!(a.records, b.records);
    assert_eq!(a.counters, b.counters);
    // Every short flow finishes, none faster than on an empty network.
    let short: Vec<_> = a.records.iter().filter(|r| r.size == 20_000).collect();
    assert_eq!(short.len(), 30);
    for r in &short {
        let fct = r.fct_us.unwrap_or_else(|| panic!("unfinished: {r:?}"));
        assert!(fct >= r.ideal_fct_us * (1.0 - 1e-9), "{r:?}");
    }
    assert_eq!(a.counters.dropped_packets, 0);
}
