//! An incast round opens with a real request packet from the receiver to each sender.

mod common;

use common::{run, star};
use dctc_core::workload::IncastSpec;
use dctc_packet::queue::TfcParams;
use dctc_packet::transport::TcpConfig;
use dctc_packet::{schemes, PacketScheme, Workload};

fn one_segment_incast(scheme: &PacketScheme, senders: usize) -> dctc_packet::metrics::PacketRun {
    let t = star(senders + 1, 1.0, 256_000, 10.0, 5.0);
    let wl = Workload {
        flows: vec![],
        incasts: vec![IncastSpec {
            receiver: 0,
            senders,
            block_bytes: 1460,
            rounds: 2,
        }],
    };
    run(&t, scheme, &wl, 1_000_000)
}

#[test]
fn each_round_sends_one_request_packet_per_sender() {
    let tcp = TcpConfig::linux_like();
    let r = one_segment_incast(&PacketScheme::newreno(tcp.clone()), 3);
    assert_eq!(r.incasts[0].rounds_completed, 2);
    // Per sender and round: the request, one data segment, its ACK (the run ends when the
    // last block is delivered, with the last round's ACKs on the wire).
    assert_eq!(r.counters.sent_packets, 2 * 3 * 3);
    assert_eq!(r.counters.in_flight_packets, 3);
    // TFC adds its two probes and their answers, once per connection.
    let r = one_segment_incast(&schemes::tfc::scheme(tcp, TfcParams::default()), 3);
    assert_eq!(r.incasts[0].rounds_completed, 2);
    assert_eq!(r.counters.sent_packets, 2 * 3 * 3 + 3 * 4);
}

#[test]
fn requests_queue_at_the_receivers_nic_so_later_senders_start_later() {
    let tcp = TcpConfig::linux_like();
    let r = one_segment_incast(&PacketScheme::newreno(tcp), 50);
    // Round 0's blocks start when their requests arrive: 40 B each at 1 Gb/s leave the
    // receiver's NIC 0.32 us apart, so the 50 start times spread over ~16 us.
    let starts: Vec<f64> = r
        .records
        .iter()
        .filter(|x| x.id < 50)
        .map(|x| x.start_us)
        .collect();
    let first = starts.iter().cloned().fold(f64::MAX, f64::min);
    let last = starts.iter().cloned().fold(0.0, f64::max);
    assert!(first > 0.0, "the first request takes its one-way trip");
    assert!(
        (last - first - 49.0 * 0.32).abs() < 0.5,
        "spread {}",
        last - first
    );
}
