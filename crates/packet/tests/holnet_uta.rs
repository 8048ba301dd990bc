//! HOLNET-UTA on a small leaf-spine whose first-hop node (the source leaf) is the bottleneck:
//! the first-hop congestion bit holds the queue below the 80% mark and below what the same
//! controller deaf to it builds, with fewer than half its drops and more goodput. (It still
//! drops: slow start overshoots the 20% of buffer above the mark before the report arrives, and
//! a timeout resends the whole window without a cut, as §V prescribes.)

mod common;
use common::*;
use dctc_core::fabric::{leaf_spine, LeafSpineSpec};
use dctc_core::topology::Topology;
use dctc_core::units::{Delta, SimTime};
use dctc_packet::lb::LbKind;
use dctc_packet::metrics::PacketRun as RunResult;
use dctc_packet::queue::HolnetParams;
use dctc_packet::queue::QueueSpec;
use dctc_packet::transport::{Cc, HolnetUta};
use dctc_packet::{PacketScheme, RunOptions, Workload};

fn fabric() -> Topology {
    // Four 10 Gb/s senders per leaf over two 10 Gb/s uplinks: the source leaf is the
    // bottleneck.
    leaf_spine(&LeafSpineSpec {
        racks: 2,
        hosts_per_rack: 4,
        spines: 2,
        host_rate_gbps: 10.0,
        fabric_rate_gbps: 10.0,
        oversubscription: None,
        host_link_delay_us: 1.0,
        fabric_link_delay_us: 3.0,
        host_delay_us: 1.0,
        buffer_bytes: 150_000,
        spine_buffer_bytes: None,
    })
    .unwrap()
}

fn run_scheme(t: &Topology, scheme: &PacketScheme) -> RunResult {
    let flows = (0..4)
        .map(|i| long_flow(t, i, i as usize, 4 + i as usize, 500 * i as u64, 4_000))
        .collect();
    let opts = RunOptions::new(1, SimTime::from_delta(Delta::from_ms(4)));
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

fn uplink_utilization(t: &Topology, r: &RunResult) -> f64 {
    let leaf = t.edge_switch(t.hosts()[0]).unwrap();
    let ups: Vec<usize> = t
        .out_links(leaf)
        .iter()
        .filter(|&&l| !t.is_host(t.link(l).to))
        .map(|l| l.index())
        .collect();
    ups.iter().map(|&i| r.ports[i].utilization).sum::<f64>() / ups.len() as f64
}

fn busiest_uplink_mean_queue(t: &Topology, r: &RunResult) -> f64 {
    let leaf = t.edge_switch(t.hosts()[0]).unwrap();
    t.out_links(leaf)
        .iter()
        .filter(|&&l| !t.is_host(t.link(l).to))
        .map(|l| r.ports[l.index()].mean_queue_bytes)
        .fold(0.0, f64::max)
}

#[test]
fn the_first_hop_congestion_bit_holds_the_queue_down() {
    let t = fabric();
    let uta = |hop_mask| {
        let mut s = PacketScheme::assemble(
            "holnet-uta",
            tuned(&t),
            Cc::HolnetUta({
                let mut c = HolnetUta::default();
                c.hop_mask = hop_mask;
                c
            }),
            QueueSpec::Holnet(HolnetParams),
        );
        s.lb = LbKind::HolnetPercentage;
        s
    };
    // The paper's controller, and the same controller deaf to the first-hop node (no bit
    // counts): only the feedback loop differs.
    let heard = run_scheme(&t, &uta(1));
    let deaf = run_scheme(&t, &uta(0));
    let (qh, qd) = (
        busiest_uplink_mean_queue(&t, &heard),
        busiest_uplink_mean_queue(&t, &deaf),
    );
    assert!(
        qh < 0.95 * qd,
        "mean queue {qh:.0} B with feedback vs {qd:.0} B without"
    );
    assert!(qh < 0.8 * 150_000.0, "{qh}");
    assert!(
        2 * heard.counters.dropped_packets < deaf.counters.dropped_packets,
        "drops {} vs {}",
        heard.counters.dropped_packets,
        deaf.counters.dropped_packets
    );
    assert!(heard.counters.goodput_bytes > deaf.counters.goodput_bytes);
    // The uplinks stay busy (flows start 0.5 ms apart, so the first ms is under-loaded).
    let util = uplink_utilization(&t, &heard);
    assert!(util > 0.7, "uplinks busy: {util}");
}
