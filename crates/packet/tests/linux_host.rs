//! The `linux-like` host stack's limits on a sender's own queue: TCP small queues and window
//! validation (`TcpConfig::small_queue_bytes`, `TcpConfig::cwnd_validation`).

mod common;

use common::{long_flow, run_with, star};
use dctc_core::units::{Delta, SimTime};
use dctc_packet::transport::TcpConfig;
use dctc_packet::{PacketScheme, RunOptions, Workload};

const K: u64 = 32_000;
const PACKET: u64 = 1500;

/// `scenarios/tfc/convergence.toml` under DCTCP: TFC's testbed port (1 Gb/s, 256 KB, K =
/// 32 KB), five long flows joining 10 ms apart and leaving in reverse order. A lone flow's
/// NIC is its bottleneck; before small queues its window (no cap in `linux-like`) piled up
/// about 1.2 MB there, unmarked, and when the second flow joined that backlog held the shared
/// port at its 256 KB buffer for 28 ms, with drops that left three flows waiting out a 200 ms
/// RTO and delivering nothing.
#[test]
fn dctcp_flows_joining_one_gigabit_port_keep_its_queue_near_k_and_all_deliver() {
    let t = star(6, 1.0, 256_000, 10.0, 5.0);
    let flows = (0..5u32)
        .map(|i| {
            long_flow(
                &t,
                i,
                i as usize + 1,
                0,
                i as u64 * 10_000,
                90_000 - i as u64 * 10_000,
            )
        })
        .collect();
    let wl = Workload {
        flows,
        incasts: vec![],
    };
    let mut opts = RunOptions::new(1, SimTime::from_delta(Delta::from_ms(90)));
    opts.queue_sample = Some(Delta::from_us(100));
    opts.throughput_bin = Some(Delta::from_ms(1));
    opts.sample_links = (0..t.links().len() as u32).collect();
    let r = run_with(
        &t,
        &PacketScheme::dctcp(TcpConfig::linux_like(), K),
        &wl,
        opts,
    );
    let port = |from: &str, to: &str| {
        r.ports
            .iter()
            .position(|p| p.from == from && p.to == to)
            .unwrap()
    };
    let (bottleneck, nic) = (port("sw", "h0"), port("h1", "sw"));
    assert_eq!(r.counters.dropped_packets, 0, "{:?}", r.counters);
    // Flow 0's own NIC holds at most the small-queue limit and one packet.
    let nic_max = r.ports[nic].max_queue_bytes;
    assert!(
        nic_max <= TcpConfig::linux_like().small_queue_bytes.unwrap() + PACKET,
        "{nic_max}"
    );
    // In steady state, the last 3 ms of each 10 ms phase (DCTCP's estimator averages over
    // 1/g = 16 rounds, about 5 ms here, and the first join also drains flow 0's small-queue
    // backlog), the queue stays within DCTCP's band: at most K plus one packet per flow (each
    // adds a packet per round before its marks return, DCTCP §3.3) and the one in service.
    let mut checked = 0;
    for s in r
        .queue_samples
        .iter()
        .filter(|s| s.link as usize == bottleneck)
    {
        let ms = s.time_ps / 1_000_000_000;
        if ms % 10 >= 7 && (10..80).contains(&ms) {
            let phase = ms / 10;
            let n = if phase < 5 { phase + 1 } else { 9 - phase };
            assert!(
                s.bytes <= K + (n + 1) * PACKET,
                "{ms} ms, {n} flows: {} B",
                s.bytes
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 7 * 30);
    // No flow goes a millisecond without delivering, from 2 ms after it joins until it leaves.
    for (f, bins) in &r.throughput {
        let (start, stop) = (*f as usize * 10, 90 - *f as usize * 10);
        for ms in start + 2..stop {
            assert!(
                bins.get(ms).copied().unwrap_or(0) > 0,
                "flow {f} starved in ms {ms}"
            );
        }
    }
}
