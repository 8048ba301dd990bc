//! What the report's numbers mean: the simulated span, link utilization, throughput over
//! time, retransmission and spurious-timeout counters.

mod common;
use common::*;
use dctc_core::units::{Delta, SimTime};
use dctc_packet::{PacketScheme, RunOptions, Workload};

#[test]
fn a_run_with_no_event_left_ends_when_its_last_event_ran() {
    let t = bell(1, 1, 10.0, 225_000);
    let wl = Workload {
        // A long-lived flow that stops sending at 1 ms: nothing happens after it drains.
        flows: vec![long_flow(&t, 0, 0, 1, 0, 1_000)],
        incasts: vec![],
    };
    let scheme = PacketScheme::newreno(tuned(&t));
    let r = run(&t, &scheme, &wl, 10_000);
    let ms = r.simulated_ps as f64 * 1e-9;
    assert!(
        (1.0..2.0).contains(&ms),
        "the run ends when its last event ran, not at the 10 ms horizon: {ms} ms"
    );
    // Utilization is over the span that ran, so the busy link reads near 1, not near 0.1.
    let busiest = r.ports.iter().map(|p| p.utilization).fold(0.0, f64::max);
    assert!(busiest > 0.8 && busiest <= 1.0, "{busiest}");
}

#[test]
fn utilization_counts_only_bytes_sent_by_the_end_of_the_run() {
    // Four NewReno senders into one 10 Gb/s port with a 1 MB buffer: the run ends with
    // hundreds of microseconds of backlog scheduled past its end.
    let t = bell(4, 1, 10.0, 1_000_000);
    let wl = Workload {
        flows: (0..4)
            .map(|i| long_flow(&t, i, i as usize, 4, 0, 10_000))
            .collect(),
        incasts: vec![],
    };
    let mut cfg = tuned(&t);
    cfg.max_cwnd_bytes = 1_000_000;
    let mut opts = RunOptions::new(1, SimTime::from_delta(Delta::from_ms(3)));
    opts.queue_sample = Some(Delta::from_us(20));
    let r = run_with(&t, &PacketScheme::newreno(cfg), &wl, opts);
    let bottleneck = r
        .ports
        .iter()
        .max_by(|a, b| a.max_queue_bytes.cmp(&b.max_queue_bytes))
        .unwrap();
    assert!(
        bottleneck.max_queue_bytes > 300_000,
        "the test needs a deep backlog: {bottleneck:?}"
    );
    for p in &r.ports {
        assert!(p.utilization <= 1.0 + 1e-9, "utilization above 1: {p:?}");
    }
    assert!(bottleneck.utilization > 0.9, "{bottleneck:?}");
    // Sampled bytes sent never run ahead of the link rate either.
    let link = r
        .ports
        .iter()
        .position(|p| std::ptr::eq(p, bottleneck))
        .unwrap() as u32;
    let s: Vec<_> = r.queue_samples.iter().filter(|x| x.link == link).collect();
    assert!(s.len() > 100);
    for w in s.windows(2) {
        let dt = (w[1].time_ps - w[0].time_ps) as f64 * 1e-12;
        let bits = (w[1].sent_bytes - w[0].sent_bytes) as f64 * 8.0;
        assert!(bits <= bottleneck.rate_bps * dt * (1.0 + 1e-9), "{w:?}");
    }
}

#[test]
fn throughput_bins_count_arrivals_and_stay_within_the_link_rate() {
    // A small buffer: losses, recoveries, and bursts of in-order release at the receiver.
    let t = bell(4, 1, 10.0, 30_000);
    let wl = Workload {
        flows: (0..4)
            .map(|i| long_flow(&t, i, i as usize, 4, 0, 5_000))
            .collect(),
        incasts: vec![],
    };
    let mut opts = RunOptions::new(1, SimTime::from_delta(Delta::from_ms(5)));
    let bin = Delta::from_us(50);
    opts.throughput_bin = Some(bin);
    let r = run_with(&t, &PacketScheme::newreno(tuned(&t)), &wl, opts);
    let c = &r.counters;
    assert!(
        c.dropped_packets > 0 && c.retransmitted_packets > 0,
        "{c:?}"
    );
    assert!(
        c.retransmitted_packets * 1460 >= c.retransmitted_bytes / 2,
        "retransmitted packets carry the retransmitted bytes: {c:?}"
    );
    assert!(
        c.delivered_data_packets * 1460 >= c.goodput_bytes,
        "every delivered byte came in a delivered data packet: {c:?}"
    );
    let cap = 10e9 / 8.0 * bin.as_secs_f64();
    let bins = r.throughput.iter().map(|(_, b)| b.len()).max().unwrap();
    for k in 0..bins {
        let total: u64 = r
            .throughput
            .iter()
            .map(|(_, b)| b.get(k).copied().unwrap_or(0))
            .sum();
        assert!(
            total as f64 <= cap,
            "bin {k}: {total} B arrived in {bin:?}, more than the link carries ({cap} B)"
        );
    }
}

#[test]
fn timeouts_whose_bytes_had_arrived_are_counted_as_spurious() {
    // No loss is possible (10 MB buffers). 40 Gb/s hosts behind a 10 Gb/s bottleneck: one
    // flow builds a queue of about 800 us there; seven more then start with the 45 us
    // initial RTO, time out while their first packets wait in that queue, and retransmit
    // bytes that arrive anyway.
    let t = dctc_core::fabric::dumbbell(&dctc_core::fabric::DumbbellSpec {
        senders: 8,
        receivers: 1,
        host_rate_gbps: 40.0,
        bottleneck_rate_gbps: 10.0,
        link_delay_us: 1.5,
        host_delay_us: 2.0,
        buffer_bytes: 10_000_000,
    })
    .unwrap();
    let mut flows = vec![long_flow(&t, 0, 0, 8, 0, 3_000)];
    flows.extend((1..8).map(|i| sized_flow(&t, i, i as usize, 8, 500, 200_000)));
    let wl = Workload {
        flows,
        incasts: vec![],
    };
    let mut cfg = tuned(&t);
    cfg.max_cwnd_bytes = 1_000_000;
    let r = run(&t, &PacketScheme::newreno(cfg.clone()), &wl, 3_000);
    let c = &r.counters;
    eprintln!("{c:?}");
    assert_eq!(c.dropped_packets, 0, "{c:?}");
    assert!(c.timeouts > 0, "the test needs timeouts: {c:?}");
    assert!(c.spurious_timeouts > 0, "{c:?}");
    assert!(c.spurious_timeouts <= c.timeouts, "{c:?}");

    // With a minimum RTO far above the queueing delay there are none.
    cfg.min_rto = Delta::from_ms(10);
    cfg.initial_rto = Delta::from_ms(10);
    let r = run(&t, &PacketScheme::newreno(cfg), &wl, 3_000);
    assert_eq!(r.counters.timeouts, 0, "{:?}", r.counters);
    assert_eq!(r.counters.spurious_timeouts, 0);
}
