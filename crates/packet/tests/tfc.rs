//! TFC on a fabric (Zhang et al., EuroSys 2016): the claims of §4 and §6.1 that a test can
//! check in well under a second each.

mod common;

use common::{check_invariants, long_flow, run_with, star};
use dctc_core::units::{Delta, SimTime};
use dctc_packet::queue::TfcParams;
use dctc_packet::transport::TcpConfig;
use dctc_packet::{schemes, PacketScheme, RunOptions, Workload};

fn tfc(params: TfcParams) -> PacketScheme {
    schemes::tfc::scheme(TcpConfig::linux_like(), params)
}

#[test]
fn n_long_flows_fill_one_port_with_a_queue_under_three_packets_and_share_it_fairly() {
    for n in [1usize, 4, 16] {
        // TFC's testbed: one switch, 1 Gb/s ports, 256 KB buffers; n senders to host 0.
        let t = star(n + 1, 1.0, 256_000, 10.0, 5.0);
        let flows = (0..n)
            .map(|i| long_flow(&t, i as u32, i + 1, 0, 0, 30_000))
            .collect();
        let wl = Workload {
            flows,
            incasts: vec![],
        };
        let mut opts = RunOptions::new(1, SimTime::from_delta(Delta::from_ms(30)));
        opts.throughput_bin = Some(Delta::from_ms(5));
        opts.queue_sample = Some(Delta::from_us(10));
        let r = run_with(&t, &tfc(TfcParams::default()), &wl, opts);
        let (li, port) = r
            .ports
            .iter()
            .enumerate()
            .find(|(_, p)| p.switch && p.to == "h0")
            .unwrap();
        // Steady state: the last 20 ms (the first rounds start from rtt_b = 160 us, twice
        // this fabric's round trip, and the token takes a few ms to come down).
        let steady = |t_ps: u64| t_ps >= 10_000_000_000;
        let rates: Vec<f64> = r
            .throughput
            .iter()
            .map(|(_, bins)| bins[2..6].iter().sum::<u64>() as f64 * 8.0 / 20e-3 / 1e9)
            .collect();
        let q: Vec<&_> = r
            .queue_samples
            .iter()
            .filter(|s| s.link as usize == li && steady(s.time_ps))
            .collect();
        let mean_q = q.iter().map(|s| s.bytes as f64).sum::<f64>() / q.len() as f64;
        let wire = (q.last().unwrap().sent_bytes - q[0].sent_bytes) as f64;
        let util = wire * 8.0 / ((q.last().unwrap().time_ps - q[0].time_ps) as f64 * 1e-12) / 1e9;
        let total: f64 = rates.iter().sum();
        let (lo, hi) = rates
            .iter()
            .fold((f64::MAX, 0.0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        eprintln!(
            "n={n} util={util:.3} goodput={total:.3} mean_q={mean_q:.0} max_q={} drops={} lo={lo:.4} hi={hi:.4}",
            port.max_queue_bytes, port.drops
        );
        assert!(util >= 0.9 * 0.97, "n={n}: utilization {util}");
        assert!(mean_q < 3.0 * 1500.0, "n={n}: mean queue {mean_q}");
        assert_eq!(port.drops, 0, "n={n}");
        assert!(hi <= 1.1 * lo, "n={n}: per-flow goodput {rates:?}");
        check_invariants(&r);
    }
}

/// One incast of `senders` x 256 KB blocks over TFC's testbed port (1 Gb/s, 256 KB buffer):
/// (goodput Gb/s, drops, timeouts).
fn incast(params: TfcParams, senders: usize, rounds: usize) -> (f64, u64, u64) {
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
    let r = run_with(
        &t,
        &tfc(params),
        &wl,
        RunOptions::new(1, SimTime::from_delta(Delta::from_ms(60_000))),
    );
    let inc = &r.incasts[0];
    assert_eq!(inc.rounds_completed, rounds, "{inc:?}");
    (inc.goodput_gbps, r.counters.dropped_packets, inc.timeouts)
}

#[test]
fn incast_of_256_senders_drops_nothing_and_keeps_goodput_and_the_delay_arbiter_is_why() {
    let (goodput, drops, timeouts) = incast(TfcParams::default(), 256, 3);
    eprintln!("with arbiter: goodput {goodput:.3} drops {drops} timeouts {timeouts}");
    let off = TfcParams {
        delay_arbiter: false,
        ..TfcParams::default()
    };
    let (g_off, d_off, t_off) = incast(off, 256, 3);
    eprintln!("without: goodput {g_off:.3} drops {d_off} timeouts {t_off}");
    assert_eq!(drops, 0);
    assert!(goodput >= 0.8, "goodput {goodput}");
    assert!(
        d_off > 0,
        "without the delay arbiter 256 one-packet windows overflow 256 KB"
    );
}

#[test]
fn a_flow_joining_three_others_gets_its_share_within_three_rounds() {
    // Three long flows share the port toward h0; a fourth joins at 20 ms.
    let t = star(5, 1.0, 256_000, 10.0, 5.0);
    let mut flows: Vec<_> = (0..3)
        .map(|i| long_flow(&t, i as u32, i + 1, 0, 0, 30_000))
        .collect();
    flows.push(long_flow(&t, 3, 4, 0, 20_000, 30_000));
    let wl = Workload {
        flows,
        incasts: vec![],
    };
    let bin_us = 100;
    let mut opts = RunOptions::new(1, SimTime::from_delta(Delta::from_ms(30)));
    opts.throughput_bin = Some(Delta::from_us(bin_us));
    let r = run_with(&t, &tfc(TfcParams::default()), &wl, opts);
    let gbps = |bytes: u64| bytes as f64 * 8.0 / (bin_us as f64 * 1e-6) / 1e9;
    let joined = 20_000 / bin_us as usize;
    let share = 0.97 * 1460.0 / 1500.0 / 4.0;
    let newcomer = &r.throughput.iter().find(|(id, _)| *id == 3).unwrap().1;
    // The round trip here is about 75 us: the two probes take two, so the bins from 3 rounds
    // (300 us) after the join on hold the newcomer at its share.
    let after: Vec<f64> = newcomer[joined + 3..joined + 13]
        .iter()
        .map(|&b| gbps(b))
        .collect();
    let mean = after.iter().sum::<f64>() / after.len() as f64;
    eprintln!("newcomer {after:.3?} mean {mean:.3} share {share:.3}");
    assert!(
        mean >= 0.85 * share && mean <= 1.15 * share,
        "mean {mean} vs share {share}"
    );
    let before: f64 = newcomer[..joined].iter().sum::<u64>() as f64;
    assert_eq!(before, 0.0);
}

#[test]
fn with_delayed_acks_every_round_still_brings_its_window_back() {
    // §5.3: the ACK of the RM packet is its RMA. With delayed ACKs (pFabric's tuned TCP: one
    // ACK per two segments or 6 us) that ACK also covers the next packet; echoing the later,
    // unmarked packet's fields left most rounds without a window (with an even window, every
    // round), so a lone flow kept whatever window it last got: 70% of a 10 Gb/s link.
    let t = star(3, 10.0, 225_000, 1.5, 2.0);
    let wl = Workload {
        flows: vec![common::sized_flow(&t, 0, 1, 2, 0, 10_000_000)],
        incasts: vec![],
    };
    let scheme = schemes::tfc::scheme(common::tuned(&t), TfcParams::default());
    assert!(scheme.tcp.delayed_ack.is_some());
    let r = run_with(
        &t,
        &scheme,
        &wl,
        RunOptions::new(1, SimTime::from_delta(Delta::from_ms(20))),
    );
    let slowdown = r.records[0].slowdown.expect("the flow finishes");
    eprintln!("slowdown {slowdown:.3}");
    // rho0 = 0.97 of the link, a few rounds of startup (rtt_b starts at 160 us).
    assert!(slowdown < 1.1, "slowdown {slowdown}");
}

/// The switch port's rtt_b and its delimiter's round trips rtt_m, as `port_state_sample`
/// reads them at the port toward h0 from 5 ms on: (rtt_b, median rtt_m), us, for two long
/// flows from h1 and h2 on TFC's testbed port (Fig. 6), each host packet sent up to
/// `jitter_us` late.
fn rtt_b_and_median_round(jitter_us: u64) -> (f64, f64) {
    let t = star(3, 1.0, 256_000, 10.0, 5.0);
    let flows = (0..2)
        .map(|i| long_flow(&t, i, i as usize + 1, 0, 0, 30_000))
        .collect();
    let wl = Workload {
        flows,
        incasts: vec![],
    };
    let mut scheme = tfc(TfcParams::default());
    scheme.send_jitter = Delta::from_us(jitter_us);
    let mut opts = RunOptions::new(1, SimTime::from_delta(Delta::from_ms(30)));
    opts.port_state_sample = Some(Delta::from_us(100));
    let r = run_with(&t, &scheme, &wl, opts);
    let li = (r.ports.iter())
        .position(|p| p.switch && p.to == "h0")
        .unwrap() as u32;
    let samples: Vec<_> = (r.port_state.iter())
        .filter(|s| s.link == li && s.time_ps >= 5_000_000_000)
        .collect();
    assert!(samples.len() >= 250, "{} samples", samples.len());
    let rtt_b = samples.last().unwrap().get("rtt_b_us").unwrap();
    let mut rtt_m: Vec<f64> = samples.iter().map(|s| s.get("rtt_m_us").unwrap()).collect();
    rtt_m.sort_by(f64::total_cmp);
    (rtt_b, rtt_m[rtt_m.len() / 2])
}

/// Fig. 6's gap (rtt_b about 59 us, the reference round trip about 65 us) comes from "random
/// processing time at end hosts" (§6.1.2). Our hosts add a constant delay, so the port's rtt_b
/// is the path's empty-network round trip and most delimiter rounds last exactly that: the
/// median round trip equals rtt_b, the modelling difference `scenarios/tfc/rttb.toml` misses
/// its row by (README.md, "rtt_b and N_e"). A send jitter, random delay at the sending host,
/// opens the gap.
#[test]
fn with_constant_host_delays_the_median_round_equals_rtt_b_and_a_send_jitter_opens_a_gap() {
    let (rtt_b, median) = rtt_b_and_median_round(0);
    // A 1500 B frame serialized at the sender's NIC and the switch port (2 x 12 us), the 40 B
    // ACK likewise (2 x 0.32 us), four 10 us links and two 5 us host delays.
    assert!((rtt_b - 74.64).abs() < 1e-6, "rtt_b {rtt_b} us");
    assert_eq!(median, rtt_b);
    let (rtt_b, median) = rtt_b_and_median_round(10);
    assert!((74.64..80.0).contains(&rtt_b), "rtt_b {rtt_b} us");
    assert!(
        median > rtt_b + 3.0,
        "median round {median} us, rtt_b {rtt_b} us"
    );
}
