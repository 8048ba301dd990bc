//! RED with ECN on a dumbbell: long ECN-capable (DCTCP) flows through a RED bottleneck are
//! held by marks alone, the queue standing between RED's thresholds; the same flows without
//! ECN are held by RED's early drops instead.

mod common;
use common::toml_table::scheme;
use common::*;
use dctc_packet::metrics::PortStats;
use dctc_packet::queue::QueueSpec;
use dctc_packet::Workload;

/// The bottleneck of a 4-to-1 dumbbell at 10 Gb/s: the port from the senders' switch to the
/// receiver's.
fn bottleneck(ports: &[PortStats]) -> &PortStats {
    let p = ports
        .iter()
        .find(|p| (p.from.as_str(), p.to.as_str()) == ("left", "right"));
    p.expect("the dumbbell's bottleneck")
}

fn run_four_long_flows(src: &str) -> (PortStats, dctc_packet::metrics::PacketRun) {
    // 1 MB buffers: only RED can hold the queue down.
    let t = bell(4, 1, 10.0, 1_000_000);
    let s = scheme(src, &t).unwrap();
    let QueueSpec::Red(p) = s.switch_queue else {
        panic!("{:?}", s.switch_queue)
    };
    assert_eq!((p.min_th, p.max_th), (30_000, 90_000));
    let flows = (0..4)
        .map(|i| long_flow(&t, i, i as usize, 4, 0, 20_000))
        .collect();
    let wl = Workload {
        flows,
        incasts: vec![],
    };
    let r = run(&t, &s, &wl, 20_000);
    (bottleneck(&r.ports).clone(), r)
}

#[test]
fn dctcp_over_red_holds_the_average_queue_between_the_thresholds_by_marks_alone() {
    let (port, _) = run_four_long_flows("name = \"dctcp\"\nqueue = \"red\"");
    eprintln!("{port:?}");
    assert!(
        (30_000.0..90_000.0).contains(&port.mean_queue_bytes),
        "mean queue {} B",
        port.mean_queue_bytes
    );
    assert!(port.ecn_marks > 0);
    assert_eq!(port.drops, 0, "ECN-capable flows are marked, never dropped");
    assert!(port.utilization > 0.95, "{}", port.utilization);
}

#[test]
fn without_ecn_red_drops_where_it_would_mark() {
    let (port, r) = run_four_long_flows("name = \"newreno\"\nqueue = \"red\"");
    eprintln!("{port:?}");
    assert_eq!(port.ecn_marks, 0);
    assert!(port.drops > 0);
    // Early drops, not overflow: the queue never came near the 1 MB buffer.
    assert!(port.max_queue_bytes < 500_000, "{}", port.max_queue_bytes);
    assert!(r.counters.dropped_packets > 0);
}
