use super::*;
use crate::packet::Packet;
use dctc_core::ids::NodeId;

const US: u64 = 1_000_000;

/// A flow's congestion header: H_cwnd bytes and H_rtt microseconds.
#[derive(Copy, Clone)]
struct Flow {
    cwnd: u64,
    rtt_us: u64,
}

fn data(pool: &mut PacketPool, flow: u32, f: Flow, feedback: f64) -> PacketId {
    let mut p = Packet::new(flow, PacketKind::Data, NodeId(0), NodeId(1));
    p.wire_bytes = 1500;
    let id = pool.alloc(p);
    *pool.ext(id) = HeaderExt {
        window: f.cwnd,
        aux: (f.rtt_us * 1000) as u32,
        feedback,
        ..HeaderExt::default()
    };
    id
}

/// A 10 Gb/s router (1250 B/us) whose first control interval is 40 us.
fn router() -> XcpRouter {
    XcpRouter::new(
        1_000_000,
        Rate::gbps(10),
        XcpParams {
            initial_interval: Delta::from_us(40),
            ..XcpParams::default()
        },
    )
}

/// Flow A: RTT 20 us; flow B: RTT 60 us; each sends `pkts` 1500 B packets per 40 us
/// interval, i.e. cwnd = pkts x 1500 x rtt / 40 us. Both have the same throughput, and the
/// flows' mean RTT is 40 us = the interval, so XCP's per-interval identities hold exactly.
fn flows(pkts: u64) -> [Flow; 2] {
    [
        Flow {
            cwnd: pkts * 1500 / 2,
            rtt_us: 20,
        },
        Flow {
            cwnd: pkts * 1500 * 3 / 2,
            rtt_us: 60,
        },
    ]
}

/// Runs one 40 us interval from `start`: `pkts` packets of each flow, interleaved evenly,
/// each dequeued at once (no queue). Returns the feedback each flow's packets left with.
fn interval(q: &mut XcpRouter, pool: &mut PacketPool, start: u64, pkts: u64) -> [f64; 2] {
    let fl = flows(pkts);
    let mut got = [0.0; 2];
    for k in 0..pkts {
        for (i, f) in fl.iter().enumerate() {
            let t = SimTime(start + (2 * k + i as u64) * 40 * US / (2 * pkts));
            let id = data(pool, i as u32, *f, 1e12);
            assert_eq!(q.enqueue(id, pool, t), Enqueued::Queued { marked: false });
            let out = q.dequeue(pool, t).unwrap();
            got[i] += pool.ext(out).feedback;
            pool.free(out);
        }
    }
    got
}

#[test]
fn spare_bandwidth_is_handed_out_as_equal_throughput_increases() {
    // 10 packets per flow per 40 us: y = 750 B/us on a 1250 B/us link, S = 500 B/us.
    let mut pool = PacketPool::default();
    let mut q = router();
    interval(&mut q, &mut pool, 0, 10);
    assert_eq!(q.poll_at(), SimTime(40 * US));
    q.on_timer(&mut pool, SimTime(40 * US));
    // φ = α d S - β Q = 0.4 x 40 us x 500 B/us - 0 = 8000 B; h = max(0, 0.1 x 30000 - 8000) = 0.
    assert!(
        (q.aggregate_feedback() - 8000.0).abs() < 1e-6,
        "{}",
        q.aggregate_feedback()
    );
    // d = the flows' mean RTT: (20 + 60) / 2.
    assert_eq!(q.interval(), Delta::from_us(40));
    let fb = interval(&mut q, &mut pool, 40 * US, 10);
    // The pool is handed out in full over the next interval...
    assert!((fb[0] + fb[1] - 8000.0).abs() < 1e-6, "{fb:?}");
    // ...as equal throughput increases: Δcwnd / rtt equal (B's window grows 3x A's).
    let (da, db) = (fb[0] / 20.0, fb[1] / 60.0);
    assert!((da - db).abs() < 1e-9 * da, "{da} vs {db}");
    assert!(fb.iter().all(|&x| x > 0.0));
}

#[test]
fn over_subscription_takes_back_proportionally_to_throughput_and_shuffles() {
    // 20 packets per flow per 40 us: y = 1500 B/us on 1250 B/us, S = -250 B/us.
    let mut pool = PacketPool::default();
    let mut q = router();
    interval(&mut q, &mut pool, 0, 20);
    q.on_timer(&mut pool, SimTime(40 * US));
    // φ = 0.4 x 40 x (-250) = -4000 B; h = max(0, 0.1 x 60000 - 4000) = 2000 B.
    assert!((q.aggregate_feedback() + 4000.0).abs() < 1e-6);
    let fb = interval(&mut q, &mut pool, 40 * US, 20);
    // Net: positive pool h = 2000 minus negative pool h + |φ| = 6000, i.e. φ.
    assert!((fb[0] + fb[1] + 4000.0).abs() < 1e-6, "{fb:?}");
    // Equal throughputs: equal throughput decreases (Δcwnd / rtt).
    let (da, db) = (fb[0] / 20.0, fb[1] / 60.0);
    assert!((da - db).abs() < 1e-9 * da.abs(), "{da} vs {db}");
}

#[test]
fn persistent_queue_is_drained_at_beta_per_interval() {
    // Interval 1 leaves 20 packets queued; in interval 2 one packet leaves and one arrives
    // every packet time (1.2 us at 10 Gb/s), so every arrival finds 19 packets: Q = 28500 B
    // and the input rate is about the link rate. φ = α d S - β Q.
    let mut pool = PacketPool::default();
    let mut q = router();
    let f = Flow {
        cwnd: 60_000,
        rtt_us: 40,
    };
    for _ in 0..20 {
        let id = data(&mut pool, 0, f, 0.0);
        q.enqueue(id, &mut pool, SimTime(0));
    }
    q.on_timer(&mut pool, SimTime(40 * US));
    assert_eq!(q.interval(), Delta::from_us(40));
    let mut arrived = 0u64;
    let mut t = 40 * US;
    while t < 80 * US {
        let out = q.dequeue(&mut pool, SimTime(t)).unwrap();
        pool.free(out);
        let id = data(&mut pool, 0, f, 0.0);
        q.enqueue(id, &mut pool, SimTime(t));
        arrived += 1500;
        t += 1_200_000;
    }
    q.on_timer(&mut pool, SimTime(80 * US));
    let q_min = 19.0 * 1500.0;
    let spare = 1250.0 - arrived as f64 / 40.0;
    let want = 0.4 * 40.0 * spare - 0.226 * q_min;
    assert!(
        (q.aggregate_feedback() - want).abs() < 1e-6,
        "{} vs {want}",
        q.aggregate_feedback()
    );
    // The queue term dominates: the aggregate asks for the queue to shrink.
    assert!(q.aggregate_feedback() < -0.2 * q_min);
}

#[test]
fn feedback_is_the_minimum_along_the_path_and_acks_are_left_alone() {
    let mut pool = PacketPool::default();
    let mut q = router();
    interval(&mut q, &mut pool, 0, 10);
    q.on_timer(&mut pool, SimTime(40 * US));
    let f = flows(10)[0];
    let mine = q.feedback_for(1500.0, f.cwnd as f64, 20e-6);
    assert!(mine > 0.0);
    // An upstream router allowed less: the packet keeps the smaller value.
    let id = data(&mut pool, 0, f, mine / 2.0);
    q.enqueue(id, &mut pool, SimTime(41 * US));
    let out = q.dequeue(&mut pool, SimTime(41 * US)).unwrap();
    assert_eq!(pool.ext(out).feedback, mine / 2.0);
    // It asked for more: lowered to this router's feedback.
    let id = data(&mut pool, 0, f, 1e12);
    q.enqueue(id, &mut pool, SimTime(41 * US));
    let out = q.dequeue(&mut pool, SimTime(41 * US)).unwrap();
    assert_eq!(pool.ext(out).feedback, mine);
    // An ACK echoing a header goes through unchanged.
    let mut p = Packet::new(0, PacketKind::Ack, NodeId(1), NodeId(0));
    p.wire_bytes = 40;
    let id = pool.alloc(p);
    *pool.ext(id) = HeaderExt {
        window: f.cwnd,
        aux: 20_000,
        feedback: 1e12,
        ..HeaderExt::default()
    };
    q.enqueue(id, &mut pool, SimTime(42 * US));
    let out = q.dequeue(&mut pool, SimTime(42 * US)).unwrap();
    assert_eq!(pool.ext(out).feedback, 1e12);
}

#[test]
fn an_idle_port_stops_its_timer_and_restarts_on_arrival() {
    let mut pool = PacketPool::default();
    let mut q = router();
    assert_eq!(q.poll_at(), SimTime::NEVER);
    interval(&mut q, &mut pool, 0, 10);
    q.on_timer(&mut pool, SimTime(40 * US));
    assert_eq!(q.poll_at(), SimTime(80 * US));
    // Nothing arrives in the next interval: the timer stops, no feedback is pending.
    q.on_timer(&mut pool, SimTime(80 * US));
    assert_eq!(q.poll_at(), SimTime::NEVER);
    // An empty interval hands out nothing (no flows to give it to).
    assert_eq!(q.feedback_for(1500.0, 7500.0, 20e-6), 0.0);
    let id = data(&mut pool, 0, flows(10)[0], 1e12);
    q.enqueue(id, &mut pool, SimTime(500 * US));
    assert_eq!(q.poll_at(), SimTime(540 * US));
}

#[test]
fn a_floor_under_the_interval_holds_it_above_the_mean_rtt_and_scales_the_pool_down() {
    // The flows' mean RTT is 40 us; a 400 us floor (ns-2's XCP floors d at 1 ms) holds the
    // interval there, and the router hands out per RTT a tenth (rtt / d) of what the
    // unfloored one does: XCP closes its spare bandwidth d / rtt times more slowly.
    let mut pool = PacketPool::default();
    let mut q = XcpRouter::new(
        1_000_000,
        Rate::gbps(10),
        XcpParams {
            initial_interval: Delta::from_us(40),
            min_interval: Delta::from_us(400),
            ..XcpParams::default()
        },
    );
    interval(&mut q, &mut pool, 0, 10);
    q.on_timer(&mut pool, SimTime(40 * US));
    assert_eq!(q.interval(), Delta::from_us(400), "floored, not the 40 us mean RTT");
    assert_eq!(q.poll_at(), SimTime(440 * US));
    // Without the floor the same interval ends at the mean RTT.
    let mut free = router();
    interval(&mut free, &mut pool, 0, 10);
    free.on_timer(&mut pool, SimTime(40 * US));
    assert_eq!(free.interval(), Delta::from_us(40));
    // Ten 40 us rounds at the same throughput fill the 400 us interval: φ = α d S =
    // 0.4 x 400 us x 500 B/us = 80,000 B.
    for k in 0..10 {
        interval(&mut q, &mut pool, (40 + 40 * k) * US, 10);
    }
    q.on_timer(&mut pool, SimTime(440 * US));
    assert!((q.aggregate_feedback() - 80_000.0).abs() < 1e-3, "{}", q.aggregate_feedback());
    let fb = interval(&mut q, &mut pool, 440 * US, 10);
    // But p_i = ξ_p rtt_i² s_i / cwnd_i with ξ_p = φ / (d Σ rtt_i s_i / cwnd_i) sums over an
    // interval to φ rtt / d (each flow's Σ s rtt / cwnd is d, its Σ s rtt² / cwnd is d rtt):
    // one 40 us round gets 800 B, a tenth of the 8,000 B the unfloored router gives it
    // (`spare_bandwidth_is_handed_out_as_equal_throughput_increases`).
    assert!((fb[0] + fb[1] - 800.0).abs() < 1e-3, "{fb:?}");
}

#[test]
fn stability_bounds_are_checked() {
    assert!(XcpParams::default().validate().is_ok());
    let bad = |p: XcpParams| p.validate().unwrap_err().0;
    let d = XcpParams::default();
    assert_eq!(bad(XcpParams { alpha: 0.6, ..d }), "alpha");
    assert_eq!(bad(XcpParams { alpha: 0.0, ..d }), "alpha");
    assert_eq!(bad(XcpParams { beta: 1.0, ..d }), "beta");
    assert_eq!(
        bad(XcpParams {
            beta: f64::NAN,
            ..d
        }),
        "beta"
    );
    assert_eq!(bad(XcpParams { gamma: 0.0, ..d }), "gamma");
}

#[test]
fn ack_bytes_use_the_link_but_do_not_dilute_the_feedback() {
    // The over-subscription case plus 30 ACKs of 40 B in the interval: they count in the
    // spare bandwidth (φ = 0.4 x 40 x (1250 - 61200 / 40) = -4480 B) but neither in h nor in
    // ξ_n, so the data packets still receive all of φ over the next interval.
    let mut pool = PacketPool::default();
    let mut q = router();
    let ack = |pool: &mut PacketPool| {
        let mut p = Packet::new(0, PacketKind::Ack, NodeId(1), NodeId(0));
        p.wire_bytes = 40;
        pool.alloc(p)
    };
    // The interval starts with a data packet; the ACKs arrive inside it.
    let fb0 = interval(&mut q, &mut pool, 0, 20);
    assert!(
        fb0.iter().all(|&x| x == 0.0),
        "no feedback before the first interval ends"
    );
    for k in 0..30u64 {
        let id = ack(&mut pool);
        q.enqueue(id, &mut pool, SimTime(k * US));
        let out = q.dequeue(&mut pool, SimTime(k * US)).unwrap();
        pool.free(out);
    }
    q.on_timer(&mut pool, SimTime(40 * US));
    let want = 0.4 * 40.0 * (1250.0 - 61_200.0 / 40.0);
    assert!((q.aggregate_feedback() - want).abs() < 1e-6);
    let fb = interval(&mut q, &mut pool, 40 * US, 20);
    assert!((fb[0] + fb[1] - want).abs() < 1e-6, "{fb:?} vs {want}");
}

#[test]
fn a_port_carrying_only_acks_runs_no_timer() {
    let mut pool = PacketPool::default();
    let mut q = router();
    let mut p = Packet::new(0, PacketKind::Ack, NodeId(1), NodeId(0));
    p.wire_bytes = 40;
    let id = pool.alloc(p);
    q.enqueue(id, &mut pool, SimTime(0));
    assert_eq!(q.poll_at(), SimTime::NEVER);
    assert_eq!(q.dequeue(&mut pool, SimTime(0)), Some(id));
}
