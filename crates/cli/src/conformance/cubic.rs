//! CUBIC's window follows W(t) = C (t - K)^3 + W_max between losses (RFC 9438 §4.2), checked
//! on the whole sender (loss detection, recovery, the controller) over a lossless path of
//! fixed round trip with one loss made on purpose.

use super::{Case, Measured};
use dctc_core::units::{Delta, SimTime};
use dctc_packet::transport::{AckOut, Cc, Cubic, Segment, TcpConfig, TcpReceiver, TcpSender};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const WHY: &str = "RFC 9438 §4.2-4.4: after a loss at window W_max the window follows \
    W_cubic(t) = C (t - K)^3 + W_max, t from the first ACK after recovery, K = cbrt((W_max - \
    cwnd_epoch) / C) = cbrt(W_max (1 - beta) / C) with beta = 0.7, C = 0.4; each ACK moves \
    cwnd a 1/cwnd step toward W_cubic(t + RTT), so cwnd is never ahead of that and lags the \
    curve by at most the round whose ACKs are still to come: it stays within [W_cubic(t - RTT), \
    W_cubic(t + RTT)], one segment either side for whole segments; where the Reno-friendly \
    estimate W_est (alpha_cubic = 3 (1 - beta) / (1 + beta) a round, 1 past W_max; §4.3) is \
    larger, it takes the curve's place. Long round trips keep the cubic curve in charge for most \
    of the epoch. Measured: K, and the largest excursion of cwnd outside that band over \
    [0, 2K], segments";

pub(crate) fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for (w_max, rtt_us, quick) in [
        (50, 200_000, false),
        (100, 100_000, true),
        (1000, 100_000, false),
        (400, 50_000, false),
        // A datacenter round trip: the Reno-friendly estimate governs.
        (100, 100, true),
    ] {
        let rtt = Delta::from_us(rtt_us);
        v.push(Case::new(
            "cubic",
            "window follows the cubic curve",
            "cubic",
            format!("W_max {w_max} segments, RTT {}", fmt_delta(rtt)),
            "K within 5% of the RFC's; cwnd within [W(t - RTT) - 1, W(t + RTT) + 1], W = max(W_cubic, W_est), over [0, min(2K, 500 RTT)]",
            WHY,
            quick,
            move || trace(w_max, rtt),
        ));
    }
    v
}

/// `d` in ms, or us below a millisecond.
fn fmt_delta(d: Delta) -> String {
    if d >= Delta::from_ms(1) {
        format!("{} ms", d.as_us_f64() / 1e3)
    } else {
        format!("{} us", d.as_us_f64())
    }
}

/// What travels between the two ends: a data segment to the receiver, an ACK to the sender.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Msg {
    Data { seq: u64, len: u64, ts: u64 },
    Ack { ack: u64, ts: u64 },
}

/// One CUBIC flow over a path of round trip `rtt` (half each way, no queue, no loss but the
/// first segment sent once cwnd reaches `w_max` segments); the worst excursion of cwnd outside
/// the band over the epoch that follows.
fn trace(w_max: u64, rtt: Delta) -> Measured {
    let cfg = TcpConfig {
        initial_cwnd_packets: 10,
        max_cwnd_bytes: u64::MAX / 4,
        rwnd_bytes: u64::MAX / 4,
        min_rto: rtt * 4,
        initial_rto: rtt * 4,
        delayed_ack: None,
        ..TcpConfig::pfabric_tuned(1_000_000)
    };
    let cubic = Cubic::default();
    let (c, beta) = (cubic.c, cubic.beta);
    let mut s = TcpSender::new(&cfg, Cc::Cubic(cubic));
    let mut r = TcpReceiver::default();
    s.supply(u64::MAX / 4);
    let half = Delta(rtt.0 / 2);
    let mut wire: BinaryHeap<Reverse<(u64, u64, Msg)>> = BinaryHeap::new();
    let mut seq_no = 0u64;
    let mut segs: Vec<Segment> = Vec::new();
    let mut acks: Vec<AckOut> = Vec::new();
    let mss = cfg.mss as f64;
    let mut drop_seq: Option<u64> = None;
    // W_max: the window when the loss is found (three duplicate ACKs).
    let mut loss_window: Option<f64> = None;
    // The window the sender leaves recovery with, then the epoch: its start and K.
    let mut cwnd_epoch: Option<f64> = None;
    let mut epoch: Option<(SimTime, f64)> = None;
    let mut worst = 0.0f64;
    let mut samples = 0;
    s.send(&cfg, SimTime::ZERO, &mut segs);
    let mut now = SimTime::ZERO;
    loop {
        for g in segs.drain(..) {
            if drop_seq.is_none() && s.window().cwnd as f64 >= w_max as f64 * mss / 2.0 {
                // The loss: this segment never arrives. Slow start doubles the window in the
                // round before the loss is found, so the window is about `w_max` then.
                drop_seq = Some(g.seq);
                continue;
            }
            seq_no += 1;
            let m = Msg::Data {
                seq: g.seq,
                len: g.len,
                ts: now.0,
            };
            wire.push(Reverse(((now + half).0, seq_no, m)));
        }
        for a in acks.drain(..) {
            seq_no += 1;
            let m = Msg::Ack {
                ack: a.ack,
                ts: a.ts_echo.0,
            };
            wire.push(Reverse(((now + half).0, seq_no, m)));
        }
        let Some(Reverse((t, _, m))) = wire.pop() else {
            return Measured::new("the path went idle", false);
        };
        now = SimTime(t);
        match m {
            Msg::Data { seq, len, ts } => {
                r.on_data(&cfg, now, seq, len, false, SimTime(ts), &mut acks);
            }
            Msg::Ack { ack, ts } => {
                let a = AckOut {
                    ack,
                    ece: false,
                    ts_echo: SimTime(ts),
                };
                let before = s.window();
                s.on_ack(&cfg, now, &a, &mut segs);
                let Some(lost) = drop_seq else { continue };
                let Some(w_max) = loss_window else {
                    if s.window().ssthresh < before.ssthresh {
                        loss_window = Some(before.cwnd as f64 / mss);
                    }
                    continue;
                };
                let cwnd = s.window().cwnd as f64 / mss;
                let Some(start) = cwnd_epoch else {
                    if s.acked() > lost {
                        // The full ACK of the retransmission ends recovery.
                        cwnd_epoch = Some(cwnd);
                    }
                    continue;
                };
                let (t0, k) = *epoch.get_or_insert_with(|| {
                    // The epoch starts at the first ACK after recovery: RFC 9438 eq. (2),
                    // K = cbrt((W_max - cwnd_epoch) / C). This ACK already moved cwnd from
                    // cwnd_epoch by (W_cubic(RTT) - cwnd) / cwnd; the band allows that.
                    (now, ((w_max - start) / c).cbrt())
                });
                let t = now.saturating_since(t0).as_secs_f64();
                let rtt_s = rtt.as_secs_f64();
                if t > (2.0 * k).min(500.0 * rtt.as_secs_f64()) {
                    break;
                }
                // RFC 9438 §4.3: the Reno-friendly estimate grows alpha_cubic =
                // 3 (1 - beta) / (1 + beta) a round from cwnd_epoch, 1 a round past W_max;
                // cwnd follows whichever of the two is larger.
                let alpha = 3.0 * (1.0 - beta) / (1.0 + beta);
                let w_est = |t: f64| {
                    let rounds = (t / rtt_s).max(0.0);
                    let reach = (w_max - start) / alpha;
                    if rounds <= reach {
                        start + alpha * rounds
                    } else {
                        w_max + (rounds - reach)
                    }
                };
                let w = |t: f64| (c * (t - k).powi(3) + w_max).max(w_est(t));
                let (lo, hi) = (w(t - rtt_s) - 1.0, w(t + rtt_s) + 1.0);
                worst = worst.max(lo - cwnd).max(cwnd - hi);
                samples += 1;
            }
        }
    }
    let k = epoch.map_or(0.0, |e| e.1);
    let w_max = loss_window.unwrap_or(0.0);
    // With cwnd_epoch = beta W_max (RFC 9438 eq. (5) and NewReno's exit), K is the RFC's.
    let expected_k = (w_max * (1.0 - beta) / c).cbrt();
    Measured::new(
        format!(
            "W_max {w_max:.0}, K {k:.2} s (cbrt(W_max (1 - beta) / C) {expected_k:.2}), {samples} ACKs, worst excursion {:.2} segments",
            worst.max(0.0)
        ),
        samples > 0 && worst <= 0.0 && (k - expected_k).abs() <= 0.05 * expected_k,
    )
}
