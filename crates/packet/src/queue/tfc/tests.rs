use super::*;
use crate::packet::Packet;
use dctc_core::ids::NodeId;

const MSS: u64 = 1460;
const WIRE: u32 = 1500;

fn params(rho0: f64, rtt_b_us: u64) -> TfcParams {
    TfcParams {
        rho0,
        alpha: 7.0 / 8.0,
        initial_rtt_b: Delta::from_us(rtt_b_us),
        mss: MSS,
        header: 40,
        allocate: true,
        delay_arbiter: true,
    }
}

fn port(p: TfcParams, gbps: u64) -> Tfc {
    Tfc::new(256_000, p, Rate::gbps(gbps)).unwrap()
}

/// A full data packet of `flow`, RM-marked if `rm`, window field at the sender's maximum.
fn data(pool: &mut PacketPool, flow: u32, rm: bool) -> PacketId {
    let mut p = Packet::new(flow, PacketKind::Data, NodeId(0), NodeId(1));
    p.wire_bytes = WIRE;
    p.payload = MSS as u32;
    let id = pool.alloc(p);
    let ext = pool.ext(id);
    *ext = Default::default();
    ext.window = u64::MAX;
    ext.flags = if rm { RM } else { 0 };
    id
}

fn rma_ack(pool: &mut PacketPool, flow: u32, window: u64) -> PacketId {
    let mut p = Packet::new(flow, PacketKind::Ack, NodeId(1), NodeId(0));
    p.wire_bytes = 40;
    let id = pool.alloc(p);
    let ext = pool.ext(id);
    *ext = Default::default();
    ext.window = window;
    ext.flags = RMA;
    id
}

fn offer(q: &mut Tfc, pool: &mut PacketPool, id: PacketId, us: f64) {
    let at = SimTime::ZERO + Delta::from_us_f64(us);
    assert_eq!(q.enqueue(id, pool, at), Enqueued::Queued { marked: false });
    // Serialize at once: these tests are about the port's state, not its backlog.
    while q.dequeue(pool, at).is_some() {}
}

/// One time slot of the paper's Fig. 1 starting at `t0` us: f1 (the delimiter, rtt1 = 72 us)
/// sends one window of 2 packets, f2 (rtt2 = 36 us) two windows of 2, each window's first
/// packet RM-marked. Returns the window stamped on f2's last packet.
fn fig1_slot(q: &mut Tfc, pool: &mut PacketPool, t0: f64) -> u64 {
    send(q, pool, 1, true, t0);
    send(q, pool, 1, false, t0 + 12.0);
    for w in [0.0, 36.0] {
        send(q, pool, 2, true, t0 + w + 1.0);
        let last = data(pool, 2, false);
        offer(q, pool, last, t0 + w + 13.0);
        if w > 0.0 {
            return pool.ext(last).window;
        }
    }
    unreachable!()
}

#[test]
fn figure_1_two_flows_rtt1_twice_rtt2_six_packets_of_tokens_give_e_3_and_w_2() {
    // 1 Gb/s x 72 us = 9000 B = 6 packets of 1500 B; rho0 = 1 so the token is the pipe.
    let mut pool = PacketPool::default();
    let mut q = port(params(1.0, 72), 1);
    assert!((q.token_bytes() - 9000.0).abs() < 1e-6);
    fig1_slot(&mut q, &mut pool, 0.0);
    assert_eq!(q.delimiter(), Some(1));
    assert_eq!(q.slots(), 0, "the first mark only starts the slot");
    let stamped = fig1_slot(&mut q, &mut pool, 72.0);
    let slot = q.last_slot().expect("f1's second mark ends a slot");
    assert_eq!(slot.effective_flows, 3, "E = t/rtt1 + t/rtt2 = 1 + 2");
    assert_eq!(slot.rtt_m, Delta::from_us(72));
    assert!(
        (slot.rho - 1.0).abs() < 1e-9,
        "A = 6 packets in 72 us: rho {}",
        slot.rho
    );
    assert!((slot.token_bytes - 9000.0).abs() < 1e-6);
    // W = T / E = 2 packets, in payload bytes.
    assert!(slot.window.abs_diff(2 * MSS) <= 1, "W = {}", slot.window);
    assert_eq!(
        stamped, slot.window,
        "packets after the slot carry the new W"
    );
    // The third slot measures the same: E is recounted from 1 every slot, not accumulated.
    fig1_slot(&mut q, &mut pool, 144.0);
    assert_eq!(q.last_slot().unwrap().effective_flows, 3);
    assert_eq!(q.slots(), 2);
}

#[test]
fn a_smaller_window_from_an_earlier_hop_survives_the_stamp() {
    let mut pool = PacketPool::default();
    let mut q = port(params(0.97, 160), 1);
    let w = q.window();
    let a = data(&mut pool, 1, true);
    pool.ext(a).window = 100;
    offer(&mut q, &mut pool, a, 0.0);
    assert_eq!(pool.ext(a).window, 100);
    let b = data(&mut pool, 1, false);
    offer(&mut q, &mut pool, b, 1.0);
    assert_eq!(pool.ext(b).window, w);
    assert!(
        w < u64::MAX && w > MSS,
        "1 Gb/s x 160 us x 0.97 is ~13 packets: {w}"
    );
}

#[test]
fn token_adjustment_raises_the_token_when_the_link_is_underused() {
    // One flow using half the pipe: eq. (7) doubles the sample, eq. (8) moves 1/8 toward it.
    let mut pool = PacketPool::default();
    let mut q = port(params(1.0, 72), 1);
    send(&mut q, &mut pool, 1, true, 0.0);
    send(&mut q, &mut pool, 1, false, 10.0);
    send(&mut q, &mut pool, 1, false, 20.0);
    send(&mut q, &mut pool, 1, true, 72.0);
    let s = q.last_slot().unwrap();
    assert!((s.rho - 0.5).abs() < 1e-9);
    // T = 7/8 x 9000 + 1/8 x (9000 x 1 / 0.5) = 10125.
    assert!((s.token_bytes - 10_125.0).abs() < 1e-6, "{}", s.token_bytes);
    assert_eq!(s.effective_flows, 1);
}

#[test]
fn rtt_b_is_the_minimum_over_full_frames_only() {
    let mut pool = PacketPool::default();
    let mut q = port(params(0.97, 160), 1);
    send(&mut q, &mut pool, 1, true, 0.0);
    // A short (empty) marked packet 30 us later ends the slot but does not measure rtt_b.
    let mut empty = Packet::new(1, PacketKind::Control, NodeId(0), NodeId(1));
    empty.wire_bytes = 40;
    let e = pool.alloc(empty);
    *pool.ext(e) = crate::packet::HeaderExt {
        flags: RM,
        window: u64::MAX,
        ..Default::default()
    };
    offer(&mut q, &mut pool, e, 30.0);
    assert_eq!(q.slots(), 1);
    assert_eq!(q.rtt_b(), Delta::from_us(160));
    // Nor does the round from the empty packet to the next full one.
    send(&mut q, &mut pool, 1, true, 130.0);
    assert_eq!(q.rtt_b(), Delta::from_us(160));
    assert!(
        q.last_slot().unwrap().rho.is_nan(),
        "nor rho: the token is kept"
    );
    send(&mut q, &mut pool, 1, true, 230.0);
    assert_eq!(q.rtt_b(), Delta::from_us(100));
    send(&mut q, &mut pool, 1, true, 350.0);
    assert_eq!(
        q.rtt_b(),
        Delta::from_us(100),
        "a longer round does not raise rtt_b"
    );
    assert_eq!(q.last_slot().unwrap().rtt_m, Delta::from_us(120));
}

#[test]
fn a_delimiter_that_stops_without_fin_is_replaced_after_2_to_the_k_rtt_last() {
    let mut pool = PacketPool::default();
    let mut q = port(params(0.97, 160), 1);
    // Flow 1 is the delimiter with a 50 us round; flow 2 marks every 50 us too.
    for r in 0..3 {
        let t = 50.0 * r as f64;
        send(&mut q, &mut pool, 1, true, t);
        send(&mut q, &mut pool, 2, true, t + 5.0);
    }
    assert_eq!(q.slots(), 2);
    assert_eq!(q.last_slot().unwrap().effective_flows, 2);
    let w_before = q.window();
    // Flow 1 falls silent after its mark at 100 us; the deadline is 2 x 50 us later.
    assert_eq!(q.poll_at(), SimTime::ZERO + Delta::from_us(200));
    send(&mut q, &mut pool, 2, true, 155.0);
    assert_eq!(
        q.slots(),
        2,
        "flow 2's marks only count E while flow 1 is the delimiter"
    );
    q.on_timer(&mut pool, SimTime::ZERO + Delta::from_us(200));
    assert_eq!(q.delimiter(), None, "the missed delimiter is dropped");
    // Flow 2's next mark is caught as the delimiter, and its next one ends a slot with E = 1.
    send(&mut q, &mut pool, 2, true, 205.0);
    assert_eq!(q.delimiter(), Some(2));
    send(&mut q, &mut pool, 2, true, 255.0);
    assert_eq!(q.slots(), 3, "the window is updated again");
    assert_eq!(q.last_slot().unwrap().effective_flows, 1);
    assert!(
        q.window() > w_before,
        "one flow left: W grows from T/2 toward T"
    );
}

#[test]
fn consecutive_misses_back_off_2_4_8_rounds_up_to_2_to_the_7() {
    let mut pool = PacketPool::default();
    let mut q = port(params(0.97, 160), 1);
    send(&mut q, &mut pool, 1, true, 0.0);
    send(&mut q, &mut pool, 1, true, 10.0);
    // rtt_last = 10 us; first miss after 2 x 10 us.
    let mut t = 10.0;
    for k in 1..=9u32 {
        let expect = t + 10.0 * f64::from(1u32 << k.min(MAX_MISSES));
        assert_eq!(
            q.poll_at(),
            SimTime::ZERO + Delta::from_us_f64(expect),
            "miss {k}"
        );
        q.on_timer(&mut pool, q.poll_at());
        assert_eq!(q.delimiter(), None);
        // Another flow's mark is caught at once; it then falls silent too.
        t = expect + 1.0;
        send(&mut q, &mut pool, 10 + k, true, t);
        assert_eq!(q.delimiter(), Some(10 + k));
    }
}

#[test]
fn the_delimiters_last_packet_hands_the_role_to_the_next_rm_packet() {
    let mut pool = PacketPool::default();
    let mut q = port(params(0.97, 160), 1);
    send(&mut q, &mut pool, 1, true, 0.0);
    let fin = data(&mut pool, 1, false);
    pool.ext(fin).flags = LAST;
    offer(&mut q, &mut pool, fin, 3.0);
    assert_eq!(q.delimiter(), None);
    assert_eq!(q.poll_at(), SimTime::NEVER);
    send(&mut q, &mut pool, 4, true, 4.0);
    assert_eq!(q.delimiter(), Some(4));
}

#[test]
fn the_delay_arbiter_paces_sub_packet_windows_at_rho0_c() {
    let mut pool = PacketPool::default();
    let mut q = port(params(0.97, 160), 1);
    // The counter starts full at one token: 0.97 x 125e6 B/s x 160 us = 19400 B, 12 packets.
    let mut passed = 0;
    let mut acks = Vec::new();
    for f in 0..20 {
        let a = rma_ack(&mut pool, f, 300);
        assert_eq!(
            q.enqueue(a, &mut pool, SimTime::ZERO),
            Enqueued::Queued { marked: false }
        );
        acks.push(a);
    }
    while let Some(a) = q.dequeue(&mut pool, SimTime::ZERO) {
        assert_eq!(pool.ext(a).window, MSS, "rewritten to one packet");
        passed += 1;
    }
    assert_eq!(passed, 12);
    assert_eq!(q.held(), 8);
    assert_eq!(
        q.len(),
        8,
        "held ACKs count as waiting so the engine keeps polling"
    );
    // The next one is due when the counter has grown back to one packet at 0.97 Gb/s.
    let per_packet_s = 1500.0 / (0.97 * 125e6);
    let first_due = q.poll_at();
    let expect = (1500.0 - (19_400.0 - 12.0 * 1500.0)) / (0.97 * 125e6);
    assert!((first_due.as_secs_f64() - expect).abs() < 1e-11);
    q.on_timer(&mut pool, first_due);
    let a = q.dequeue(&mut pool, first_due).expect("released");
    assert_eq!(a, acks[12], "held ACKs leave in arrival order");
    assert_eq!(pool.ext(a).window, MSS);
    let second = q.poll_at();
    assert!(((second.as_secs_f64() - first_due.as_secs_f64()) - per_packet_s).abs() < 1e-11);
    // While ACKs wait, a larger window waits too (its turn) and leaves as one packet.
    let big = rma_ack(&mut pool, 99, 4 * MSS);
    q.enqueue(big, &mut pool, first_due);
    assert_eq!(q.dequeue(&mut pool, first_due), None);
    assert_eq!(q.held(), 8);
}

#[test]
fn larger_windows_pass_and_draw_the_counter_down_and_are_cut_to_what_it_holds() {
    let mut pool = PacketPool::default();
    let mut q = port(params(0.97, 160), 1);
    // The counter starts at 19400 B: a 4-packet window (6000 B on the wire) passes whole.
    let a = rma_ack(&mut pool, 1, 4 * MSS);
    q.enqueue(a, &mut pool, SimTime::ZERO);
    assert_eq!(q.dequeue(&mut pool, SimTime::ZERO), Some(a));
    assert_eq!(pool.ext(a).window, 4 * MSS);
    // 13400 B left: a second 4-packet window passes, a third too (1400 B left)...
    for f in 2..4 {
        let b = rma_ack(&mut pool, f, 4 * MSS);
        q.enqueue(b, &mut pool, SimTime::ZERO);
        assert_eq!(q.dequeue(&mut pool, SimTime::ZERO), Some(b));
        assert_eq!(pool.ext(b).window, 4 * MSS);
    }
    // ...and with less than a packet left the next one waits, then leaves as one packet.
    let c = rma_ack(&mut pool, 4, 4 * MSS);
    q.enqueue(c, &mut pool, SimTime::ZERO);
    assert_eq!(q.dequeue(&mut pool, SimTime::ZERO), None);
    let due = q.poll_at();
    q.on_timer(&mut pool, due);
    assert_eq!(q.dequeue(&mut pool, due), Some(c));
    assert_eq!(pool.ext(c).window, MSS);
    // After 40 us idle the counter holds 0.97 x 125e6 x 40e-6 = 4850 B, 3.2 packets: a
    // 4-packet window is cut to what it holds.
    let later = due + Delta::from_us(40);
    let d = rma_ack(&mut pool, 5, 4 * MSS);
    q.enqueue(d, &mut pool, later);
    assert_eq!(q.dequeue(&mut pool, later), Some(d));
    let w = pool.ext(d).window;
    assert!(w > 3 * MSS && w < 4 * MSS, "cut to the counter: {w}");
}

#[test]
fn without_the_delay_arbiter_sub_packet_windows_pass_unchanged() {
    let mut pool = PacketPool::default();
    let mut q = port(
        TfcParams {
            delay_arbiter: false,
            ..params(0.97, 160)
        },
        1,
    );
    for f in 0..20 {
        let a = rma_ack(&mut pool, f, 300);
        q.enqueue(a, &mut pool, SimTime::ZERO);
        assert_eq!(q.dequeue(&mut pool, SimTime::ZERO), Some(a));
        assert_eq!(pool.ext(a).window, 300);
    }
    assert_eq!(q.held(), 0);
}

#[test]
fn host_nics_run_the_arbiter_but_do_not_allocate() {
    let mut pool = PacketPool::default();
    let mut q = port(params(0.97, 160).host_nic(), 1);
    let a = data(&mut pool, 1, true);
    offer(&mut q, &mut pool, a, 0.0);
    assert_eq!(pool.ext(a).window, u64::MAX);
    assert_eq!(q.delimiter(), None);
}

#[test]
fn parameters_out_of_range_are_refused_naming_the_key() {
    let ok = params(0.97, 160);
    for (p, key) in [
        (TfcParams { rho0: 0.0, ..ok }, "rho0"),
        (TfcParams { rho0: 1.21, ..ok }, "rho0"),
        (
            TfcParams {
                rho0: f64::NAN,
                ..ok
            },
            "rho0",
        ),
        (TfcParams { alpha: 1.0, ..ok }, "alpha"),
        (TfcParams { alpha: -0.1, ..ok }, "alpha"),
        (
            TfcParams {
                initial_rtt_b: Delta(0),
                ..ok
            },
            "initial_rtt_b_us",
        ),
    ] {
        assert_eq!(Tfc::new(1500, p, Rate::gbps(1)).unwrap_err().param, key);
    }
    assert!(Tfc::new(1500, TfcParams { rho0: 1.2, ..ok }, Rate::gbps(1)).is_ok());
    assert!(Tfc::new(1500, TfcParams { alpha: 0.0, ..ok }, Rate::gbps(1)).is_ok());
}

#[test]
fn a_full_buffer_drops_the_arrival() {
    let mut pool = PacketPool::default();
    let mut q = Tfc::new(3000, params(0.97, 160), Rate::gbps(1)).unwrap();
    let a = data(&mut pool, 1, false);
    let b = data(&mut pool, 1, false);
    let c = data(&mut pool, 1, false);
    q.enqueue(a, &mut pool, SimTime::ZERO);
    q.enqueue(b, &mut pool, SimTime::ZERO);
    assert_eq!(q.enqueue(c, &mut pool, SimTime::ZERO), Enqueued::Dropped(c));
    assert_eq!(q.bytes(), 3000);
}

/// Offers a full data packet of `flow` at `us` microseconds.
fn send(q: &mut Tfc, pool: &mut PacketPool, flow: u32, rm: bool, us: f64) {
    let id = data(pool, flow, rm);
    offer(q, pool, id, us);
}

/// Issue 25: the arbiter on the ACK direction metered windows at rho0 x c, while the data
/// port's eq. (7) raises its token above rho0 c rtt_b whenever the link is underused; every
/// round then found the counter a little short and cut the window the port had allocated (one
/// flow on 10 Gb/s at a 10 us round trip: 92% of the link where the token asked for more).
/// Paired with the data port, the counter grows at that port's token rate T / rtt_b.
#[test]
fn the_arbiter_meters_the_paired_data_ports_adjusted_token_and_leaves_its_windows_whole() {
    let mut pool = PacketPool::default();
    let run = |paired: bool, pool: &mut PacketPool| {
        // 10 Gb/s, rtt_b 10 us: the pipe is 12,500 B, the first token 0.97 of it.
        let mut data = port(params(0.97, 10), 10);
        let mut acks = port(params(0.97, 10), 10);
        if paired {
            acks.meter(data.token_feed());
        }
        // One slot at 60% use: eq. (7) asks 0.97 / 0.6 of the pipe, eq. (8) moves 1/8 there.
        send(&mut data, pool, 1, true, 0.0);
        for k in 1..=3 {
            send(&mut data, pool, 1, false, 2.0 * k as f64);
        }
        send(&mut data, pool, 1, true, 10.0);
        let t = data.token_bytes();
        assert!(t > 0.97 * 12_500.0 * 1.05, "the token rises above rho0 c rtt_b: {t}");
        // The flow's RMA ACK comes back once a round with the window the port wrote.
        let w = data.window();
        let mut cut = 0;
        for r in 0..20 {
            let ack = rma_ack(pool, 1, w);
            offer(&mut acks, pool, ack, 10.0 + 10.0 * r as f64);
            if acks.held() > 0 || pool.ext(ack).window < w {
                cut += 1;
            }
        }
        cut
    };
    assert_eq!(run(true, &mut pool), 0, "one token per rtt_b covers every round");
    assert!(
        run(false, &mut pool) > 5,
        "unpaired, the counter grows at rho0 c and falls behind the adjusted token"
    );
}
