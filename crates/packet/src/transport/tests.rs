use super::*;
use crate::packet::HeaderExt;
use dctc_core::units::Rate;
use dctc_core::units::{Delta, SimTime};

fn cfg() -> TcpConfig {
    let mut c = TcpConfig::pfabric_tuned(1_000_000);
    c.delayed_ack = None;
    c
}

fn t(us: u64) -> SimTime {
    SimTime::from_delta(Delta::from_us(us))
}

fn ack(a: u64, ece: bool, ts: SimTime) -> AckOut {
    AckOut {
        ack: a,
        ece,
        ts_echo: ts,
    }
}

#[test]
fn initial_window_then_slow_start_grows_per_ack() {
    let c = cfg();
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(100 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    assert_eq!(out.len(), 12);
    out.clear();
    s.on_ack(&c, t(10), &ack(c.mss, false, t(0)), &mut out);
    // One MSS acknowledged: cwnd 13, flight 11 -> two new segments.
    assert_eq!(s.window().cwnd, 13 * c.mss);
    assert_eq!(out.len(), 2);
}

#[test]
fn three_dupacks_trigger_fast_retransmit_and_partial_acks_retransmit_the_next_hole() {
    let c = cfg();
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(12 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    out.clear();
    // Segments 0 and 2 lost: dupacks at 0.
    for _ in 0..2 {
        s.on_ack(&c, t(10), &ack(0, false, t(0)), &mut out);
    }
    assert!(out.is_empty());
    s.on_ack(&c, t(10), &ack(0, false, t(0)), &mut out);
    assert_eq!(
        out,
        vec![Segment {
            seq: 0,
            len: c.mss,
            retransmit: true
        }]
    );
    // ssthresh = flight / 2 = 6 MSS, cwnd = ssthresh + 3.
    assert_eq!(s.window().ssthresh, 6 * c.mss);
    assert_eq!(s.window().cwnd, 9 * c.mss);
    out.clear();
    // Partial ACK up to segment 2: retransmit segment 2 at once.
    s.on_ack(&c, t(20), &ack(2 * c.mss, false, t(10)), &mut out);
    assert_eq!(
        out[0],
        Segment {
            seq: 2 * c.mss,
            len: c.mss,
            retransmit: true
        }
    );
    out.clear();
    // Full ACK: leave recovery with cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS); with
    // nothing left in flight that is 2 SMSS (RFC 6582 §3.2 step 3, option (1)).
    s.on_ack(&c, t(30), &ack(12 * c.mss, false, t(20)), &mut out);
    assert_eq!(s.window().cwnd, 2 * c.mss);
    assert!(s.is_idle());
    assert_eq!(s.retransmitted_bytes, 2 * c.mss);
}

#[test]
fn rto_fires_goes_back_n_and_backs_off_exponentially() {
    let c = cfg();
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(4 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    assert_eq!(s.poll_at(), t(45));
    out.clear();
    s.on_timer(&c, t(45), &mut out);
    assert_eq!(
        out,
        vec![Segment {
            seq: 0,
            len: c.mss,
            retransmit: true
        }]
    );
    assert_eq!(s.window().cwnd, c.mss);
    assert_eq!(s.timeouts, 1);
    assert_eq!(s.poll_at(), t(45 + 90));
    out.clear();
    s.on_timer(&c, t(135), &mut out);
    assert_eq!(s.poll_at(), t(135 + 180));
    // The ACK of a retransmitted segment gives no RTT sample (Karn's rule), so the backed-off
    // RTO stays (RFC 6298 §5: it collapses only on a new measurement) and the timer restarts
    // with it (5.3).
    out.clear();
    s.on_ack(&c, t(140), &ack(c.mss, false, t(135)), &mut out);
    assert_eq!(s.current_rto(&c), Delta::from_us(180));
    assert_eq!(s.poll_at(), t(140 + 180));
}

#[test]
fn karn_no_rtt_sample_from_retransmitted_data_and_backoff_ends_on_a_valid_sample() {
    let mut c = cfg();
    c.min_rto = Delta::from_us(1);
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(2 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    // First sample R = 10 us: SRTT 10, RTTVAR 5, RTO = 10 + 4 * 5 = 30 us.
    s.on_ack(&c, t(10), &ack(c.mss, false, t(0)), &mut out);
    assert_eq!(s.current_rto(&c), Delta::from_us(30));
    // Segment 1 times out at 40 us and is sent again; backoff doubles the RTO.
    s.on_timer(&c, t(40), &mut out);
    assert_eq!(s.current_rto(&c), Delta::from_us(60));
    // Its ACK arrives 500 us later echoing the original send time (or any time): no sample
    // may be taken from it, so SRTT stays 10 and the backed-off RTO stays 60 us.
    s.on_ack(&c, t(540), &ack(2 * c.mss, false, t(0)), &mut out);
    assert_eq!(s.current_rto(&c), Delta::from_us(60));
    // New data, never retransmitted, acknowledged after 10 us: a valid sample. SRTT stays 10,
    // RTTVAR = 3/4 * 5 = 3.75, RTO = 10 + 15 = 25 us, and the backoff is gone.
    s.supply(c.mss);
    out.clear();
    s.send(&c, t(600), &mut out);
    assert_eq!(out.len(), 1);
    assert!(!out[0].retransmit);
    s.on_ack(&c, t(610), &ack(3 * c.mss, false, t(600)), &mut out);
    assert_eq!(s.current_rto(&c), Delta::from_us(25));
}

#[test]
fn no_rtt_sample_from_an_ack_covering_a_fast_retransmission() {
    let mut c = cfg();
    c.min_rto = Delta::from_us(1);
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(12 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    // Segment 0 lost; the first sample comes only once data is acknowledged, so none yet.
    for _ in 0..3 {
        s.on_ack(&c, t(10), &ack(0, false, t(1)), &mut out);
    }
    // The full ACK covers the retransmitted segment 0: no sample; the RTO is still the initial
    // 45 us rather than 10 us + 4 * 5 us from a 10 us "sample".
    s.on_ack(&c, t(20), &ack(12 * c.mss, false, t(10)), &mut out);
    assert_eq!(s.current_rto(&c), Delta::from_us(45));
}

#[test]
fn rto_follows_rfc6298_and_is_clamped() {
    let mut c = cfg();
    c.min_rto = Delta::from_us(1);
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(3 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    // First sample R = 100 us: SRTT 100, RTTVAR 50, RTO = 100 + 4 * 50 = 300 us.
    s.on_ack(&c, t(100), &ack(c.mss, false, t(0)), &mut out);
    assert_eq!(s.current_rto(&c), Delta::from_us(300));
    c.max_rto = Delta::from_us(200);
    let mut s2 = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s2.supply(3 * c.mss);
    s2.send(&c, t(0), &mut out);
    s2.on_ack(&c, t(100), &ack(c.mss, false, t(0)), &mut out);
    assert_eq!(s2.current_rto(&c), Delta::from_us(200));
}

#[test]
fn dctcp_alpha_updates_once_per_window_and_cuts_once() {
    let mut c = cfg();
    c.ecn = true;
    let mut s = TcpSender::new(&c, Cc::Dctcp(Dctcp::default()));
    s.supply(1000 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    let cw = s.window().cwnd;
    // First ACK with ECE: alpha = 1 -> cwnd halves.
    s.on_ack(&c, t(10), &ack(c.mss, true, t(0)), &mut out);
    assert_eq!(s.window().cwnd, cw / 2);
    let after = s.window().cwnd;
    // A second ECE in the same window does not cut again (the window grows by nothing).
    s.on_ack(&c, t(11), &ack(2 * c.mss, true, t(0)), &mut out);
    assert!(s.window().cwnd >= after);
    let Cc::Dctcp(d) = s.cc() else { unreachable!() };
    // The first ACK closed the initial observation window (it ends at SND.NXT = 0 when the
    // connection starts, RFC 8257 §3.3): F = 1, alpha = 1. The next window ends at the 12
    // segments sent before that ACK.
    assert_eq!(d.alpha, 1.0);
    // Acknowledge the rest of that window without marks: 11 segments, 1 marked.
    s.on_ack(&c, t(20), &ack(12 * c.mss, false, t(10)), &mut out);
    let Cc::Dctcp(d) = s.cc() else { unreachable!() };
    let f = 1.0 / 11.0;
    assert!(
        (d.alpha - (15.0 / 16.0 + f / 16.0)).abs() < 1e-9,
        "{}",
        d.alpha
    );
}

#[test]
fn receiver_delays_acks_and_echoes_ce_changes_at_once() {
    let mut c = cfg();
    c.delayed_ack = Some(Delta::from_us(6));
    c.ecn = true;
    let mss = c.mss;
    let mut r = TcpReceiver::default();
    let mut out = Vec::new();
    r.on_data(&c, t(0), 0, mss, false, t(0), &mut out);
    assert!(out.is_empty());
    assert_eq!(r.poll_at(), t(6));
    r.on_data(&c, t(1), mss, mss, false, t(1), &mut out);
    assert_eq!(
        out,
        vec![AckOut {
            ack: 2 * mss,
            ece: false,
            ts_echo: t(0)
        }]
    );
    out.clear();
    r.on_data(&c, t(2), 2 * mss, mss, false, t(2), &mut out);
    // CE flips with one segment pending: flush an ACK with the old state first.
    r.on_data(&c, t(3), 3 * mss, mss, true, t(3), &mut out);
    assert_eq!(
        out,
        vec![AckOut {
            ack: 3 * mss,
            ece: false,
            ts_echo: t(2)
        }]
    );
    out.clear();
    r.on_timer(t(9), &mut out);
    assert_eq!(
        out,
        vec![AckOut {
            ack: 4 * mss,
            ece: true,
            ts_echo: t(3)
        }]
    );
    out.clear();
    // Out of order: immediate duplicate ACK; the hole's fill acknowledges everything.
    r.on_data(&c, t(10), 5 * mss, mss, true, t(10), &mut out);
    assert_eq!(out.last().unwrap().ack, 4 * mss);
    r.on_data(&c, t(11), 4 * mss, mss, true, t(11), &mut out);
    assert_eq!(out.last().unwrap().ack, 6 * mss);
    assert_eq!(r.delivered(), 6 * mss);
}

#[test]
fn slow_start_grows_by_at_most_one_smss_per_ack_as_rfc5681_eq2() {
    // RFC 5681 eq. (2): cwnd += min(N, SMSS). A delayed ACK covering two segments adds one
    // SMSS, not two (RFC 3465's L = 2 is experimental and not what RFC 5681 specifies).
    let c = cfg();
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(100 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    s.on_ack(&c, t(10), &ack(2 * c.mss, false, t(0)), &mut out);
    assert_eq!(s.window().cwnd, 13 * c.mss);
    s.on_ack(&c, t(11), &ack(6 * c.mss, false, t(0)), &mut out);
    assert_eq!(s.window().cwnd, 14 * c.mss);
    // A partial-segment ACK adds only the bytes acknowledged.
    s.on_ack(&c, t(12), &ack(6 * c.mss + 100, false, t(0)), &mut out);
    assert_eq!(s.window().cwnd, 14 * c.mss + 100);
}

#[test]
fn a_loss_right_after_recovery_ends_gets_fast_retransmit_again() {
    // RFC 6582 step 2: a third duplicate ACK starts a new recovery when its ACK "covers more
    // than recover" (the highest sequence number sent when the last recovery began). An ACK
    // equal to the old snd_max covers every byte up to and including recover.
    let c = cfg();
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(100 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    let recover = s.snd_max();
    assert_eq!(recover, 12 * c.mss);
    for _ in 0..3 {
        s.on_ack(&c, t(10), &ack(0, false, t(0)), &mut out);
    }
    // Each further duplicate inflates the window and sends a segment beyond `recover`.
    for _ in 0..8 {
        s.on_ack(&c, t(11), &ack(0, false, t(0)), &mut out);
    }
    assert!(s.snd_max() > recover);
    // Full ACK of everything up to recover: recovery ends.
    s.on_ack(&c, t(20), &ack(recover, false, t(11)), &mut out);
    out.clear();
    // The first segment sent after recovery began (seq = recover) is lost: three duplicates.
    for _ in 0..3 {
        s.on_ack(&c, t(30), &ack(recover, false, t(11)), &mut out);
    }
    assert_eq!(
        out.first(),
        Some(&Segment {
            seq: recover,
            len: c.mss,
            retransmit: true
        }),
        "{out:?}"
    );
    assert_eq!(s.timeouts, 0);
}

#[test]
fn duplicate_acks_below_recover_after_a_timeout_do_not_start_recovery() {
    // RFC 6582 §4: after an RTO, recover = highest sequence sent; duplicates that do not
    // cover it (caused by go-back-N resending data the receiver holds) must not halve again.
    let c = cfg();
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(100 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    s.on_timer(&c, t(45), &mut out);
    let ssthresh = s.window().ssthresh;
    s.on_ack(&c, t(50), &ack(2 * c.mss, false, t(45)), &mut out);
    out.clear();
    for _ in 0..3 {
        s.on_ack(&c, t(51), &ack(2 * c.mss, false, t(45)), &mut out);
    }
    assert!(out.iter().all(|x| x.seq != 2 * c.mss || !x.retransmit));
    assert_eq!(s.window().ssthresh, ssthresh);
}

#[test]
fn full_ack_with_data_still_in_flight_exits_at_min_of_ssthresh_and_flight_plus_one() {
    let c = cfg();
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(100 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    for _ in 0..3 {
        s.on_ack(&c, t(10), &ack(0, false, t(0)), &mut out);
    }
    assert_eq!(s.window().ssthresh, 6 * c.mss);
    // Nine more duplicates: cwnd 9 + 9 = 18 MSS, flight 12 -> six new segments beyond recover.
    for _ in 0..9 {
        s.on_ack(&c, t(11), &ack(0, false, t(0)), &mut out);
    }
    assert_eq!(s.snd_max(), 18 * c.mss);
    s.on_ack(&c, t(20), &ack(12 * c.mss, false, t(11)), &mut out);
    // FlightSize = 6 MSS: min(6, 6 + 1) = 6 MSS = ssthresh.
    assert_eq!(s.window().cwnd, 6 * c.mss);
}

#[test]
fn with_timestamps_a_retransmission_is_timed_by_its_own_send_time() {
    // RFC 6298 §3's exception (RFC 7323 RTTM): each transmission echoes its own send time, so
    // the ACK of a retransmission is a valid sample and ends the backoff.
    let mut c = cfg();
    c.min_rto = Delta::from_us(1);
    c.timestamps = true;
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(2 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    s.on_ack(&c, t(10), &ack(c.mss, false, t(0)), &mut out);
    s.on_timer(&c, t(40), &mut out);
    assert_eq!(s.current_rto(&c), Delta::from_us(60));
    // The retransmission sent at 40 us is acknowledged at 50 us: R = 10, RTO back to 25 us.
    s.on_ack(&c, t(50), &ack(2 * c.mss, false, t(40)), &mut out);
    assert_eq!(s.current_rto(&c), Delta::from_us(25));
}

#[test]
fn dctcp_alpha_first_updates_on_the_first_ack() {
    // RFC 8257 §3.3: DCTCP.WindowEnd starts at SND.NXT when the connection starts, so the
    // first ACK of data ends the first observation window: unmarked, alpha = (1 - g) * 1.
    let mut c = cfg();
    c.ecn = true;
    let mut s = TcpSender::new(&c, Cc::Dctcp(Dctcp::default()));
    s.supply(100 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    s.on_ack(&c, t(10), &ack(c.mss, false, t(0)), &mut out);
    let Cc::Dctcp(d) = s.cc() else { unreachable!() };
    assert_eq!(d.alpha, 15.0 / 16.0);
    // The next window ends at the 12 segments sent before that ACK: ACKs below it do not
    // update alpha, the one reaching it does (F = 5 of 11 segments marked).
    s.on_ack(&c, t(11), &ack(6 * c.mss, true, t(1)), &mut out);
    let Cc::Dctcp(d) = s.cc() else { unreachable!() };
    assert_eq!(d.alpha, 15.0 / 16.0);
    s.on_ack(&c, t(12), &ack(12 * c.mss, false, t(2)), &mut out);
    let Cc::Dctcp(d) = s.cc() else { unreachable!() };
    let want = 15.0 / 16.0 * (15.0 / 16.0) + (5.0 / 11.0) / 16.0;
    assert!((d.alpha - want).abs() < 1e-12, "{} vs {want}", d.alpha);
}

#[test]
fn receiver_reassembles_several_holes_and_overlaps() {
    let c = cfg();
    let m = c.mss;
    let mut r = TcpReceiver::default();
    let mut out = Vec::new();
    // Arrival order 0, 3, 5, 2 (partly overlapping 3), 4, 1.
    assert_eq!(r.on_data(&c, t(0), 0, m, false, t(0), &mut out), m);
    assert_eq!(r.on_data(&c, t(1), 3 * m, m, false, t(1), &mut out), 0);
    assert_eq!(r.on_data(&c, t(2), 5 * m, m, false, t(2), &mut out), 0);
    assert_eq!(
        r.on_data(&c, t(3), 2 * m, m + 100, false, t(3), &mut out),
        0
    );
    assert_eq!(r.on_data(&c, t(4), 4 * m, m, false, t(4), &mut out), 0);
    // Every out-of-order arrival was acknowledged at once with the cumulative point.
    assert_eq!(out.len(), 5);
    assert!(out.iter().all(|a| a.ack == m));
    // Filling the last hole delivers everything held.
    assert_eq!(r.on_data(&c, t(5), m, m, false, t(5), &mut out), 5 * m);
    assert_eq!(out.last().unwrap().ack, 6 * m);
    // A duplicate is acknowledged at once and delivers nothing.
    assert_eq!(r.on_data(&c, t(6), 2 * m, m, false, t(6), &mut out), 0);
    assert_eq!(out.last().unwrap().ack, 6 * m);
    assert_eq!(r.delivered(), 6 * m);
}

#[test]
fn rto_timer_restarts_on_new_data_acked_and_stops_when_nothing_is_outstanding() {
    let c = cfg();
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(2 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    assert_eq!(s.poll_at(), t(45));
    // RFC 6298 (5.3): an ACK of new data with data outstanding restarts the timer. One sample
    // of 20 us: RTO = max(45, 20 + 4 * 10) = 60 us.
    s.on_ack(&c, t(20), &ack(c.mss, false, t(0)), &mut out);
    assert_eq!(s.poll_at(), t(20 + 60));
    // A duplicate ACK does not touch it.
    s.on_ack(&c, t(25), &ack(c.mss, false, t(0)), &mut out);
    assert_eq!(s.poll_at(), t(80));
    // (5.2): everything acknowledged, the timer stops.
    s.on_ack(&c, t(30), &ack(2 * c.mss, false, t(10)), &mut out);
    assert_eq!(s.poll_at(), SimTime::NEVER);
    // A late tick does nothing.
    out.clear();
    s.on_timer(&c, t(100), &mut out);
    assert!(out.is_empty());
    assert_eq!(s.timeouts, 0);
}

#[test]
fn timeout_sets_ssthresh_from_flight_and_a_loss_window_of_one_segment() {
    let c = cfg();
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(100 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    s.on_ack(&c, t(10), &ack(2 * c.mss, false, t(0)), &mut out);
    // 13 MSS cwnd, snd_una 2, snd_max 15: FlightSize 13 MSS.
    assert_eq!(s.snd_max(), 15 * c.mss);
    out.clear();
    s.on_timer(&c, t(100), &mut out);
    // RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2 SMSS); cwnd = LW = 1 SMSS; go back N
    // from snd_una.
    assert_eq!(s.window().ssthresh, 13 * c.mss / 2);
    assert_eq!(s.window().cwnd, c.mss);
    assert_eq!(
        out,
        vec![Segment {
            seq: 2 * c.mss,
            len: c.mss,
            retransmit: true
        }]
    );
    // The next ACK slides on from where the receiver is: go-back-N resends 3 and 4.
    out.clear();
    s.on_ack(&c, t(110), &ack(3 * c.mss, false, t(100)), &mut out);
    assert_eq!(s.window().cwnd, 2 * c.mss);
    assert_eq!(
        out.iter().map(|x| x.seq / c.mss).collect::<Vec<_>>(),
        [3, 4]
    );
    assert!(out.iter().all(|x| x.retransmit));
}

#[test]
fn dctcp_receiver_with_nothing_pending_sends_no_extra_ack_on_a_ce_change() {
    let mut c = cfg();
    c.delayed_ack = Some(Delta::from_us(6));
    c.ecn = true;
    let m = c.mss;
    let mut r = TcpReceiver::default();
    let mut out = Vec::new();
    r.on_data(&c, t(0), 0, m, false, t(0), &mut out);
    r.on_data(&c, t(1), m, m, false, t(1), &mut out);
    assert_eq!(out.len(), 1);
    // CE flips with nothing pending: no flush, the new state rides the next ACK.
    r.on_data(&c, t(2), 2 * m, m, true, t(2), &mut out);
    assert_eq!(out.len(), 1);
    r.on_data(&c, t(3), 3 * m, m, true, t(3), &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(
        out[1],
        AckOut {
            ack: 4 * m,
            ece: true,
            ts_echo: t(2)
        }
    );
}

#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_duplicates() {
    // RFC 5681 §3.2 step 1 (RFC 3042).
    let mut c = cfg();
    c.limited_transmit = true;
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(100 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    out.clear();
    s.on_ack(&c, t(10), &ack(0, false, t(0)), &mut out);
    assert_eq!(
        out,
        vec![Segment {
            seq: 12 * c.mss,
            len: c.mss,
            retransmit: false
        }]
    );
    s.on_ack(&c, t(10), &ack(0, false, t(0)), &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(out[1].seq, 13 * c.mss);
    // cwnd does not change.
    assert_eq!(s.window().cwnd, 12 * c.mss);
    out.clear();
    // Third duplicate: fast retransmit; ssthresh from the FlightSize without the two
    // limited-transmit segments, max(12 / 2, 2) = 6 MSS.
    s.on_ack(&c, t(10), &ack(0, false, t(0)), &mut out);
    assert_eq!(out[0].seq, 0);
    assert!(out[0].retransmit);
    assert_eq!(s.window().ssthresh, 6 * c.mss);
    assert_eq!(s.window().cwnd, 9 * c.mss);
}

#[test]
fn limited_transmit_lets_a_small_window_reach_three_duplicates() {
    // Three segments in flight and the first lost: only two duplicates can come back, so
    // without limited transmit the loss waits for the RTO; with it, each duplicate releases
    // a new segment and the first of those brings the third duplicate.
    let mut c = cfg();
    c.limited_transmit = true;
    c.initial_cwnd_packets = 3;
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(10 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    assert_eq!(out.len(), 3);
    out.clear();
    // Segment 0 lost: segments 1 and 2 give two duplicates, each releasing a new segment,
    // whose arrivals give the third.
    s.on_ack(&c, t(10), &ack(0, false, t(0)), &mut out);
    s.on_ack(&c, t(10), &ack(0, false, t(0)), &mut out);
    assert_eq!(out.len(), 2);
    s.on_ack(&c, t(20), &ack(0, false, t(0)), &mut out);
    assert_eq!(out[2].seq, 0);
    assert!(out[2].retransmit);
    assert_eq!(s.timeouts, 0);
}

#[test]
fn limited_transmit_sends_only_previously_unsent_data() {
    let mut c = cfg();
    c.limited_transmit = true;
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    // Only the initial window's worth of data: no new data, nothing to send on duplicates.
    s.supply(12 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    out.clear();
    s.on_ack(&c, t(10), &ack(0, false, t(0)), &mut out);
    s.on_ack(&c, t(10), &ack(0, false, t(0)), &mut out);
    assert!(out.is_empty());
}

#[test]
fn a_flow_paced_at_a_quarter_of_the_link_rate_sends_four_transmission_times_apart() {
    let link = dctc_core::units::Rate::gbps(10);
    let mut c = cfg();
    c.pacing = Some(dctc_core::units::Rate(2_500_000_000));
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(6 * c.mss);
    let mut out = Vec::new();
    let mut sent_at = Vec::new();
    let mut now = t(0);
    s.send(&c, now, &mut out);
    // The window allows 12 segments, pacing only one now.
    assert_eq!(out.len(), 1);
    sent_at.push(now);
    while sent_at.len() < 6 {
        out.clear();
        now = s.poll_at();
        s.on_timer(&c, now, &mut out);
        assert_eq!(out.len(), 1, "one segment per paced tick");
        sent_at.push(now);
    }
    // 1500 B on the wire: 1.2 us at 10 Gb/s, 4.8 us at 2.5 Gb/s.
    let tx = link.tx_time(c.mss + c.header);
    for pair in sent_at.windows(2) {
        assert_eq!(pair[1].saturating_since(pair[0]), Delta(4 * tx.0));
    }
    // Everything sent: no paced tick left, only the RTO.
    assert_eq!(s.poll_at(), t(0) + s.current_rto(&c));
    assert!(!s.is_idle());
}

#[test]
fn probe_mode_sends_one_header_only_probe_per_rto_until_an_ack_arrives() {
    let mut c = cfg();
    c.probe_after_timeouts = Some(2);
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(4 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    assert_eq!(out.len(), 4);
    out.clear();
    // First timeout: go back N with one segment, as without probing.
    let at = s.poll_at();
    s.on_timer(&c, at, &mut out);
    assert_eq!((out.len(), out[0].len, s.is_probing()), (1, c.mss, false));
    out.clear();
    // Second consecutive timeout: a probe (no payload) at snd_una, then one per RTO.
    for _ in 0..3 {
        let at = s.poll_at();
        s.on_timer(&c, at, &mut out);
        assert!(s.is_probing());
        assert_eq!(
            out,
            vec![Segment {
                seq: 0,
                len: 0,
                retransmit: true
            }]
        );
        assert!(s.poll_at() > at);
        out.clear();
    }
    // The receiver held segment 0 all along: the probe's ACK acknowledges it, probe mode
    // ends and the sender resumes from the new snd_una.
    let now = s.poll_at();
    s.on_ack(&c, now, &ack(c.mss, false, now), &mut out);
    assert!(!s.is_probing());
    assert_eq!(out.first().map(|x| (x.seq, x.len)), Some((c.mss, c.mss)));
    // An ACK resets the count: the next timeout goes back N again, not straight to a probe.
    out.clear();
    let at = s.poll_at();
    s.on_timer(&c, at, &mut out);
    assert_eq!((out[0].len, s.is_probing()), (c.mss, false));
}

#[test]
fn a_probing_controller_sends_one_probe_holds_data_until_answered_and_reprobes_on_timeout() {
    let c = cfg();
    let mut s = TcpSender::new(&c, Cc::TestFeedback(Default::default()));
    s.supply(10 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].len, 0, "a probe is an empty segment");
    out.clear();
    // Nothing more goes out while the probe is unanswered.
    s.send(&c, t(1), &mut out);
    assert!(out.is_empty());
    // The probe is lost: the RTO sends it again, with backoff.
    let rto = s.poll_at();
    assert_eq!(rto, t(0) + c.initial_rto);
    s.on_timer(&c, rto, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].len, 0);
    assert_eq!(s.poll_at(), rto + c.initial_rto + c.initial_rto);
    out.clear();
    // The answer releases data, paced at the rate the controller set (2.5 Gb/s): one segment
    // now, the next one wire time at 2.5 Gb/s later.
    let now = t(200);
    s.on_feedback(now, &HeaderExt::default(), FeedbackSource::Ack, None);
    s.send(&c, now, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].len, c.mss);
    let gap = Rate::mbps(2_500).tx_time(c.mss + c.header);
    assert_eq!(s.window().pacing, Some(Rate::mbps(2_500)));
    assert_eq!(
        s.poll_at(),
        now + gap,
        "the sender wakes for the next paced segment"
    );
    out.clear();
    s.on_timer(&c, now + gap, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].seq, c.mss);
}

/// Issue 25: a TFC flow whose handshake probe was resent took the late answer of its first
/// transmission as the SYN's and the retransmission's answer as the window fetch's, then the
/// fetch's own answer as a second round: two marked packets within a round trip, which ports
/// time as a round and keep as rtt_b. An answer echoing a time before the probe now out was
/// first sent is not its answer.
#[test]
fn a_late_answer_to_an_earlier_probe_does_not_answer_the_probe_now_out() {
    use crate::queue::tfc::{RM, RMA};
    let c = cfg();
    let mut s = TcpSender::new(&c, Cc::Tfc(Tfc::default()));
    s.supply(10 * c.mss);
    let mut out = Vec::new();
    let mut ext = HeaderExt::default();
    let rma = HeaderExt {
        flags: RM | RMA,
        window: 2 * c.mss,
        ..Default::default()
    };
    // The SYN stand-in, sent again by the retransmission timer.
    s.send(&c, t(0), &mut out);
    s.stamp(t(0), &out[0], &mut ext);
    out.clear();
    let rto = s.poll_at();
    s.on_timer(&c, rto, &mut out);
    assert_eq!(out[0].len, 0);
    s.stamp(rto, &out[0], &mut ext);
    out.clear();
    // The first transmission's answer: the window fetch goes out.
    let fetch = rto + Delta::from_us(1);
    s.on_feedback(fetch, &rma, FeedbackSource::Ack, Some(ack(0, false, t(0))));
    s.send(&c, fetch, &mut out);
    assert_eq!((out.len(), out[0].len), (1, 0), "the window fetch");
    s.stamp(fetch, &out[0], &mut ext);
    out.clear();
    // The retransmission's answer: the SYN's again, not the fetch's.
    let late = fetch + Delta::from_us(1);
    s.on_feedback(late, &rma, FeedbackSource::Ack, Some(ack(0, false, rto)));
    s.send(&c, late, &mut out);
    assert!(out.is_empty(), "data waits for the fetch's own answer");
    // The fetch's answer: its window, one round, one mark.
    let answer = late + Delta::from_us(1);
    s.on_feedback(
        answer,
        &rma,
        FeedbackSource::Ack,
        Some(ack(0, false, fetch)),
    );
    s.send(&c, answer, &mut out);
    assert_eq!(out.len(), 2, "the fetched window: two segments");
    let marks: Vec<u32> = out
        .iter()
        .map(|seg| {
            let mut e = HeaderExt::default();
            s.stamp(answer, seg, &mut e);
            e.flags & RM
        })
        .collect();
    assert_eq!(marks, [RM, 0]);
}

#[test]
fn stamping_sees_the_remaining_size_and_a_receiver_answers_a_probe_at_once() {
    let c = cfg();
    let mut s = TcpSender::new(&c, Cc::TestFeedback(Default::default()));
    s.supply(5_000);
    let seg = Segment {
        seq: 1_460,
        len: 1_460,
        retransmit: false,
    };
    let mut ext = HeaderExt::default();
    s.stamp(t(3), &seg, &mut ext);
    assert_eq!(ext.priority, 5_000 - 1_460);
    assert_eq!(ext.aux, test_feedback::MARK);
    let mut r = TcpReceiver::default();
    let mut acks = Vec::new();
    r.on_probe(t(7), &mut acks);
    assert_eq!(acks, vec![ack(0, false, t(7))]);
}

#[test]
fn small_queues_hold_new_data_until_the_flows_packets_leave_the_nic() {
    let mut c = cfg();
    let wire = c.mss + c.header;
    c.small_queue_bytes = Some(3 * wire);
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(100 * c.mss);
    let mut out = Vec::new();
    // A window of 12, but only three packets may sit in the NIC.
    s.send(&c, t(0), &mut out);
    assert_eq!(out.len(), 3);
    assert!(s.nic_waiting());
    assert_eq!(s.nic_queued(), 3 * wire);
    out.clear();
    // Nothing left the NIC: still nothing to send.
    s.send(&c, t(1), &mut out);
    assert!(out.is_empty());
    // Two left: two more go.
    s.nic_departed(2 * wire);
    s.send(&c, t(2), &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].seq, 3 * c.mss);
    assert!(s.nic_waiting());
    // Without the limit the whole window goes at once.
    let mut s = TcpSender::new(&cfg(), Cc::NewReno(NewReno::default()));
    s.supply(100 * c.mss);
    out.clear();
    s.send(&cfg(), t(0), &mut out);
    assert_eq!(out.len(), 12);
    assert!(!s.nic_waiting());
    assert_eq!(s.nic_queued(), 0, "nothing is counted without the limit");
}

#[test]
fn window_validation_grows_only_a_window_the_sender_filled() {
    let mut c = cfg();
    let wire = c.mss + c.header;
    c.small_queue_bytes = Some(3 * wire);
    c.cwnd_validation = true;
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(100 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    s.nic_departed(3 * wire);
    // Held by the NIC limit, not the window: an ACK does not grow cwnd (slow start would).
    s.on_ack(&c, t(10), &ack(c.mss, false, t(0)), &mut out);
    assert_eq!(s.window().cwnd, 12 * c.mss);
    // Application-limited likewise.
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(2 * c.mss);
    out.clear();
    s.send(&c, t(0), &mut out);
    s.nic_departed(2 * wire);
    s.on_ack(&c, t(10), &ack(c.mss, false, t(0)), &mut out);
    assert_eq!(s.window().cwnd, 12 * c.mss);
    // A sender that filled its window grows it as before.
    let mut c = cfg();
    c.cwnd_validation = true;
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(100 * c.mss);
    out.clear();
    s.send(&c, t(0), &mut out);
    s.on_ack(&c, t(10), &ack(c.mss, false, t(0)), &mut out);
    assert_eq!(s.window().cwnd, 13 * c.mss);
    // A cut still applies to a window the sender did not fill (DCTCP's marks).
    let mut c = cfg();
    c.cwnd_validation = true;
    let mut s = TcpSender::new(&c, Cc::Dctcp(Dctcp::default()));
    s.supply(2 * c.mss);
    out.clear();
    s.send(&c, t(0), &mut out);
    s.on_ack(&c, t(10), &ack(c.mss, true, t(0)), &mut out);
    assert_eq!(
        s.window().cwnd,
        6 * c.mss,
        "alpha 1 halves the window of 12"
    );
}

#[test]
fn a_sender_is_stalled_only_with_data_no_legitimate_wait_and_silence_past_its_rto() {
    let c = cfg();
    let rto = |s: &TcpSender| s.current_rto(&c);
    // Nothing supplied: never stalled.
    let s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    assert!(!s.stalled(&c, t(1_000_000)));
    // Data sent at 0 and never acknowledged: stalled only once its RTO passed unserved.
    let mut s = TcpSender::new(&c, Cc::NewReno(NewReno::default()));
    s.supply(5 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    assert!(!s.stalled(&c, SimTime::ZERO + rto(&s)));
    assert!(s.stalled(&c, SimTime::ZERO + rto(&s) + Delta(1)));
    // An ACK is activity: the clock restarts.
    s.on_ack(&c, t(30), &ack(c.mss, false, t(0)), &mut out);
    assert!(!s.stalled(&c, t(30) + rto(&s)));
    // All acknowledged: nothing left to deliver, never stalled.
    s.on_ack(&c, t(40), &ack(5 * c.mss, false, t(30)), &mut out);
    assert!(!s.stalled(&c, t(10_000_000)));
    // A paced sender waiting for its next send time is not stalled before it.
    let mut c2 = cfg();
    c2.pacing = Some(Rate(1_000_000)); // 1 Mb/s: 12 ms per packet, far past the RTO
    let mut s = TcpSender::new(&c2, Cc::NewReno(NewReno::default()));
    s.supply(5 * c.mss);
    out.clear();
    s.send(&c2, t(0), &mut out);
    assert_eq!(out.len(), 1);
    s.on_ack(&c2, t(20), &ack(c.mss, false, t(0)), &mut out);
    assert!(
        !s.stalled(&c2, t(11_000)),
        "paced, the next send is due at 12 ms"
    );
}

/// Drives a sender of `cc` into fast recovery and then a timeout: 12 segments out, the first
/// acknowledged (an RTT sample), segment 1 lost, three duplicates (fast retransmit), eight
/// more (each inflating cwnd by one SMSS, RFC 6582 step 4), then the retransmission's RTO.
/// Returns ssthresh after the fast retransmit and (cwnd, ssthresh) after the timeout.
fn timeout_after_a_failed_recovery(cc: Cc) -> (u64, (u64, u64)) {
    let c = cfg();
    let mut s = TcpSender::new(&c, cc);
    s.supply(1000 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    s.on_ack(&c, t(10), &ack(c.mss, false, t(0)), &mut out);
    for _ in 0..3 {
        s.on_ack(&c, t(11), &ack(c.mss, false, t(1)), &mut out);
    }
    let after_fr = s.window().ssthresh;
    assert!(
        s.window().cwnd > after_fr,
        "fast recovery inflates by 3 SMSS"
    );
    for _ in 0..8 {
        s.on_ack(&c, t(12), &ack(c.mss, false, t(1)), &mut out);
    }
    assert!(s.window().cwnd >= after_fr + 11 * c.mss);
    let before = s.timeouts;
    s.on_timer(&c, t(100_000), &mut out);
    assert_eq!(s.timeouts, before + 1);
    (after_fr, (s.window().cwnd, s.window().ssthresh))
}

#[test]
fn holnet_timeout_ending_a_failed_recovery_keeps_the_fast_retransmits_window() {
    // HOLNET CC and MCC cut once per congestion event (eq. 19, 20: one RTT of cg = 1). A
    // timeout that ends the recovery is that event; cutting again from cwnd, which the
    // duplicates inflated past the window before the loss, raised the window instead (the
    // suite's `fair` family: 8 MCC flows at 1 Gb/s split into four at 0.23 Gb/s and four at
    // 0.005, each timeout resending a burst of that window into the full queue).
    for cc in [
        Cc::HolnetMcc(HolnetMcc::default()),
        Cc::HolnetCc(HolnetCc::default()),
    ] {
        let (after_fr, (cwnd, ssthresh)) = timeout_after_a_failed_recovery(cc.clone());
        assert!(after_fr < 13 * cfg().mss, "{cc:?}: the fast retransmit cut");
        assert_eq!((cwnd, ssthresh), (after_fr, after_fr), "{cc:?}");
    }
}

#[test]
fn cubic_timeout_ending_a_failed_recovery_keeps_the_fast_retransmits_ssthresh() {
    // RFC 9438 §4.6-4.8 with RFC 6582: one reduction per congestion event. The fast
    // retransmit set ssthresh = 0.7 cwnd; the timeout that ends the failed recovery keeps it
    // and sets the one-segment loss window. Cutting again from cwnd, which eleven duplicates
    // had inflated past the pre-loss window, raised ssthresh to 0.7 (ssthresh + 11 SMSS).
    let mss = cfg().mss;
    let (after_fr, (cwnd, ssthresh)) = timeout_after_a_failed_recovery(Cc::Cubic(Cubic::default()));
    assert_eq!(
        after_fr,
        ((13 * mss) as f64 * 0.7) as u64,
        "0.7 x 13 segments"
    );
    assert_eq!((cwnd, ssthresh), (mss, after_fr));
}

#[test]
fn cubic_repeated_timeout_holds_ssthresh() {
    // RFC 5681 §3.1: a timeout of a segment the timer already resent holds ssthresh; cutting
    // again from the one-segment loss window would leave ssthresh at 2 SMSS.
    let c = cfg();
    let mut s = TcpSender::new(&c, Cc::Cubic(Cubic::default()));
    s.supply(1000 * c.mss);
    let mut out = Vec::new();
    s.send(&c, t(0), &mut out);
    s.on_ack(&c, t(10), &ack(c.mss, false, t(0)), &mut out);
    s.on_timer(&c, t(100_000), &mut out);
    assert_eq!(s.timeouts, 1);
    let first = s.window().ssthresh;
    assert_eq!(
        first,
        ((13 * c.mss) as f64 * 0.7) as u64,
        "0.7 x 13 segments"
    );
    s.on_timer(&c, t(10_000_000), &mut out);
    assert_eq!(s.timeouts, 2);
    assert_eq!((s.window().cwnd, s.window().ssthresh), (c.mss, first));
    // New data acknowledged ends the episode: the next timeout is a new event and cuts.
    // The go-back-N resend of segment 1 (the first was acknowledged before the timeouts).
    s.on_ack(
        &c,
        t(10_000_100),
        &ack(2 * c.mss, false, t(10_000_000)),
        &mut out,
    );
    s.on_timer(&c, t(100_000_000), &mut out);
    assert_eq!(s.timeouts, 3);
    assert_eq!(
        s.window().ssthresh,
        2 * c.mss,
        "0.7 x 2 segments, at least 2"
    );
}

/// One multipath connection of two coupled subflows and one single-path flow of the same
/// controller on one bottleneck, in round-trip steps through the controllers' own `on_ack`,
/// `on_loss` and `couple`: every window has the same RTT (1 ms) and every packet the same
/// loss probability `p` (a window of `w` segments meets `p w` loss events a round, spread
/// deterministically by a credit per window; an event halves once and the window leaves
/// recovery at ssthresh, as the single-path halving of both controllers). Returns the
/// connection's mean window over the single-path flow's, over the second half of `rounds`.
fn connection_over_single_path(cc: Cc, p: f64, rounds: usize) -> f64 {
    let cfg = TcpConfig::linux_like();
    let mut rtt = RttEstimator::new(&cfg);
    let r = Delta::from_ms(1);
    rtt.sample(&cfg, r);
    let mss = 1000u64;
    // Windows 0 and 1: the connection's subflows; 2: the single-path flow.
    let mut c = [cc.clone(), cc.clone(), cc];
    let mut w = [Window::new(10 * mss, 10 * mss, mss); 3];
    let (mut credit, mut sum) = ([0.0f64; 3], [0.0f64; 2]);
    let secs = r.as_secs_f64();
    for round in 0..rounds {
        let conn = Coupling {
            subflows: 2,
            sampled: 2,
            total_cwnd: w[0].cwnd + w[1].cwnd,
            sum_rate: (w[0].cwnd + w[1].cwnd) as f64 / secs,
            max_cwnd_over_rtt2: w[0].cwnd.max(w[1].cwnd) as f64 / (secs * secs),
        };
        let single = Coupling {
            subflows: 1,
            sampled: 1,
            total_cwnd: w[2].cwnd,
            sum_rate: w[2].cwnd as f64 / secs,
            max_cwnd_over_rtt2: w[2].cwnd as f64 / (secs * secs),
        };
        for i in 0..3 {
            c[i].couple(if i < 2 { &conn } else { &single });
            credit[i] += p * (w[i].cwnd / mss) as f64;
            if credit[i] >= 1.0 {
                credit[i] -= 1.0;
                let ev = LossEvent {
                    now: SimTime::ZERO,
                    flight: w[i].cwnd,
                    in_recovery: false,
                };
                c[i].on_loss(&mut w[i], &ev);
                w[i].cwnd = w[i].ssthresh;
            } else {
                for _ in 0..w[i].cwnd / mss {
                    c[i].on_ack(&mut w[i], &AckEvent::acking(mss), &rtt);
                }
            }
        }
        if round >= rounds / 2 {
            sum[0] += (w[0].cwnd + w[1].cwnd) as f64;
            sum[1] += w[2].cwnd as f64;
        }
    }
    sum[0] / sum[1]
}

#[test]
fn at_equal_loss_rates_lia_takes_one_tcp_and_mcc_the_square_root_of_its_subflows() {
    // RFC 6356 §2 goal 2, §4: with the same loss rate on every path, LIA's alpha makes the
    // connection's equilibrium window one TCP's, whatever the number of subflows. The
    // conformance suite's shared-bottleneck case finds MPTCP at 1.3x a TCP at 40 and
    // 100 Gb/s only where its subflows' loss rates differ from the TCP flow's (drop-tail
    // phase effects, counted per flow in pcap captures: scenarios/holnet/README.md).
    let lia = connection_over_single_path(Cc::Mptcp(Mptcp::default()), 1e-3, 40_000);
    assert!((lia - 1.0).abs() < 0.1, "LIA / TCP {lia}");
    // HOLNET eq. (20) with each subflow inferring its own path's congestion from its own
    // losses: a subflow grows gamma eps x_l / x a round (one segment for the whole
    // connection, as one TCP) but a loss halves only the subflow that lost, so at loss rate p
    // each of n equal subflows settles where 1 - e^(-eps/x) = p x / n: x = sqrt(n eps / p),
    // sqrt(n) times the single path's sqrt(eps / p). The fluid model's cg_l, one indicator
    // for every path through the congested link, would halve them together instead.
    let mcc = connection_over_single_path(Cc::HolnetMcc(HolnetMcc::default()), 1e-3, 40_000);
    let root2 = 2f64.sqrt();
    assert!((mcc - root2).abs() < 0.1 * root2, "MCC / single path {mcc}");
}
