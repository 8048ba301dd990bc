//! CUBIC (RFC 9438) with HyStart++ (RFC 9406), Linux's defaults.
//!
//! Congestion avoidance follows the cubic curve of the time since the last reduction,
//! `W_cubic(t) = C (t - K)^3 + W_max` (RFC 9438 eq. (1)), with
//! `K = cbrt((W_max - cwnd_epoch) / C)` (eq. (2)), in segments and seconds. Each ACK moves
//! cwnd toward `target = W_cubic(t + RTT)` clamped to `[cwnd, 1.5 cwnd]` by
//! `(target - cwnd) / cwnd` segments per acknowledged segment (§4.4). The Reno-friendly
//! estimate `W_est` grows by `alpha_cubic = 3 (1 - beta) / (1 + beta)` segments per window
//! (eq. (4); alpha = 1 once `W_est >= W_max`), and when `W_cubic(t) < W_est` cwnd follows
//! `W_est` (§4.3). On loss `ssthresh = max(beta cwnd, 2 SMSS)` (eq. (5)), `W_max = cwnd`, or
//! `cwnd (1 + beta) / 2` with fast convergence when below the previous `W_max` (§4.7). A
//! timeout sets the loss window of one segment, and the first congestion avoidance after it
//! follows a curve with `K = 0` and `W_max` = the window at its start (§4.8); it sets
//! ssthresh as a loss does, but only when it is a new congestion event: one that ends a failed fast recovery keeps the fast
//! retransmit's ssthresh (cwnd is then inflated by the duplicate ACKs, RFC 6582 step 4), and
//! one that fires again before any new data was acknowledged holds it (RFC 5681 §3.1: the
//! segment was already resent by the timer), as Linux's `tcp_enter_loss` does. Defaults:
//! beta = 0.7, C = 0.4, fast convergence on.
//!
//! Slow start is NewReno's, with HyStart++ (on by default, as in Linux): per round of data,
//! after 8 RTT samples, a round whose minimum RTT exceeds the previous round's by
//! `eta = clamp(lastRoundMinRTT / 8, 4 ms, 16 ms)` starts Conservative Slow Start (growth
//! divided by 4, RFC 9406 §4.2); a later round with a smaller minimum than CSS's baseline
//! returns to slow start, and 5 CSS rounds end slow start (`ssthresh = cwnd`). With
//! datacenter RTTs of tens of microseconds the 4 ms floor is never reached, so HyStart++ only
//! acts on WAN-scale paths, as in Linux.

use super::{AckEvent, CongestionControl, LossEvent, NewReno, RttEstimator, Window};
use dctc_core::units::{Delta, SimTime};

/// CUBIC's parameters and per-flow state.
#[derive(Clone, Debug, PartialEq)]
pub struct Cubic {
    /// Multiplicative decrease factor beta_cubic.
    pub beta: f64,
    /// Scaling constant C (segments / s^3).
    pub c: f64,
    /// Fast convergence (RFC 9438 §4.7).
    pub fast_convergence: bool,
    /// HyStart++ in slow start (RFC 9406).
    pub hystart: bool,
    /// W_max, segments.
    w_max: f64,
    /// K, seconds.
    k: f64,
    /// Start of the current congestion-avoidance epoch.
    epoch_start: Option<SimTime>,
    /// cwnd in segments, with fractions (the Window holds whole bytes).
    cwnd_seg: f64,
    /// The Window's cwnd when `cwnd_seg` was last written.
    cwnd_bytes: u64,
    /// W_est, segments.
    w_est: f64,
    /// A timeout fired and no new data has been acknowledged since.
    timed_out: bool,
    reno: NewReno,
    hs: HyStart,
}

/// HyStart++ round state (RFC 9406 §4.2).
#[derive(Clone, Debug, PartialEq, Default)]
struct HyStart {
    window_end: u64,
    last_round_min: Option<Delta>,
    current_round_min: Option<Delta>,
    samples: u32,
    /// `Some(baseline)` while in Conservative Slow Start.
    css_baseline: Option<Delta>,
    css_rounds: u32,
    done: bool,
}

/// RFC 9406 constants.
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: u64 = 4;
const CSS_ROUNDS: u32 = 5;

impl Default for Cubic {
    fn default() -> Self {
        Cubic::new(0.7, 0.4)
    }
}

impl Cubic {
    /// CUBIC with `beta` and `c`, fast convergence and HyStart++ on.
    pub fn new(beta: f64, c: f64) -> Self {
        Cubic {
            beta,
            c,
            fast_convergence: true,
            hystart: true,
            w_max: 0.0,
            k: 0.0,
            epoch_start: None,
            cwnd_seg: 0.0,
            cwnd_bytes: 0,
            w_est: 0.0,
            timed_out: false,
            reno: NewReno::default(),
            hs: HyStart::default(),
        }
    }

    /// W_max, segments.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// K, seconds.
    pub fn k(&self) -> f64 {
        self.k
    }

    /// RFC 9438 eq. (1): W_cubic(t) = C (t - K)^3 + W_max, segments.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.c * (t - self.k).powi(3) + self.w_max
    }

    /// Sets `cwnd` from the fractional count.
    fn store(&mut self, w: &mut Window) {
        w.cwnd = ((self.cwnd_seg * w.mss as f64) as u64).max(w.mss);
        self.cwnd_bytes = w.cwnd;
    }

    fn reduce(&mut self, w: &Window) -> u64 {
        let cwnd = w.cwnd as f64 / w.mss as f64;
        // RFC 9438 §4.7 fast convergence.
        self.w_max = if self.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.beta) / 2.0
        } else {
            cwnd
        };
        self.epoch_start = None;
        // RFC 9438 eq. (5): ssthresh = cwnd * beta_cubic, at least 2 SMSS.
        ((w.cwnd as f64 * self.beta) as u64).max(2 * w.mss)
    }

    fn slow_start(&mut self, w: &mut Window, ev: &AckEvent, rtt: &RttEstimator) {
        if !self.hystart || self.hs.done {
            self.reno.grow(w, ev.acked);
            return;
        }
        let hs = &mut self.hs;
        if let Some(r) = rtt.latest() {
            hs.current_round_min = Some(hs.current_round_min.map_or(r, |m| m.min(r)));
            hs.samples += 1;
        }
        // RFC 9406 §4.2: growth is divided by CSS_GROWTH_DIVISOR in CSS.
        let inc = ev.acked.min(w.mss);
        w.cwnd += if hs.css_baseline.is_some() {
            inc / CSS_GROWTH_DIVISOR
        } else {
            inc
        };
        match (hs.css_baseline, hs.last_round_min, hs.current_round_min) {
            (None, Some(last), Some(cur)) if hs.samples >= N_RTT_SAMPLE => {
                // eta = clamp(lastRoundMinRTT / 8, MIN_RTT_THRESH 4 ms, MAX_RTT_THRESH 16 ms).
                let eta = Delta((last.0 / 8).clamp(Delta::from_ms(4).0, Delta::from_ms(16).0));
                if cur.0 >= last.0 + eta.0 {
                    hs.css_baseline = Some(cur);
                    hs.css_rounds = 0;
                }
            }
            (Some(base), _, Some(cur)) if hs.samples >= N_RTT_SAMPLE && cur < base => {
                // Spurious exit: back to slow start.
                hs.css_baseline = None;
            }
            _ => {}
        }
        if ev.snd_una >= hs.window_end {
            // A round ends.
            hs.window_end = ev.snd_max;
            if hs.css_baseline.is_some() {
                hs.css_rounds += 1;
                if hs.css_rounds >= CSS_ROUNDS {
                    w.ssthresh = w.cwnd;
                    hs.done = true;
                }
            }
            hs.last_round_min = hs.current_round_min.or(hs.last_round_min);
            hs.current_round_min = None;
            hs.samples = 0;
        }
    }

    fn avoid(&mut self, w: &mut Window, ev: &AckEvent, rtt: &RttEstimator) {
        let mss = w.mss as f64;
        if w.cwnd != self.cwnd_bytes {
            // The sender changed the window (recovery exit): start from its value.
            self.cwnd_seg = w.cwnd as f64 / mss;
        }
        let cwnd = self.cwnd_seg;
        if self.epoch_start.is_none() {
            self.epoch_start = Some(ev.now);
            // A new epoch: RFC 9438 eq. (2), K = cbrt((W_max - cwnd_epoch) / C).
            if cwnd < self.w_max {
                self.k = ((self.w_max - cwnd) / self.c).cbrt();
            } else {
                self.k = 0.0;
                self.w_max = cwnd;
            }
            self.w_est = cwnd;
        }
        let start = self.epoch_start.unwrap_or(ev.now);
        let t = ev.now.saturating_since(start).as_secs_f64();
        let rtt_s = rtt.srtt().map_or(0.0, |d| d.as_secs_f64());
        let acked = ev.acked as f64 / mss;
        // RFC 9438 eq. (4): alpha_cubic = 3 (1 - beta) / (1 + beta); 1 once W_est >= W_max.
        let alpha = if self.w_est >= self.w_max {
            1.0
        } else {
            3.0 * (1.0 - self.beta) / (1.0 + self.beta)
        };
        self.w_est += alpha * acked / cwnd;
        if self.w_cubic(t) < self.w_est {
            // Reno-friendly region (§4.3).
            self.cwnd_seg = self.w_est.max(cwnd);
        } else {
            // Concave and convex regions (§4.4-4.5).
            let target = self.w_cubic(t + rtt_s).clamp(cwnd, 1.5 * cwnd);
            self.cwnd_seg = cwnd + (target - cwnd) / cwnd * acked;
        }
        self.store(w);
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, w: &mut Window, ev: &AckEvent, rtt: &RttEstimator) {
        self.timed_out = false;
        if ev.in_recovery {
            return;
        }
        if w.cwnd < w.ssthresh {
            self.slow_start(w, ev, rtt);
        } else {
            self.avoid(w, ev, rtt);
        }
    }

    fn on_loss(&mut self, w: &mut Window, _ev: &LossEvent) {
        w.ssthresh = self.reduce(w);
        self.hs.done = true;
    }

    fn on_timeout(&mut self, w: &mut Window, ev: &LossEvent) {
        // RFC 9438 §4.8: ssthresh as on loss, cwnd = 1 SMSS (RFC 5681's loss window). Not
        // for a timeout ending a failed fast recovery, whose event the fast retransmit already
        // answered (cutting from cwnd there, which the duplicates inflated past the pre-loss
        // window, raised ssthresh), nor for a repeated timeout (RFC 5681 §3.1: ssthresh held
        // constant; cutting from the one-segment loss window would leave 2 SMSS).
        if !ev.in_recovery && !self.timed_out {
            w.ssthresh = self.reduce(w);
        }
        // §4.8: the first congestion avoidance after a timeout takes K = 0 and W_max = its
        // starting window (W_max = 0 makes `avoid` start the epoch so), not the window the
        // timeout cut from.
        self.w_max = 0.0;
        self.epoch_start = None;
        self.timed_out = true;
        w.cwnd = w.mss;
        self.reno.reset();
        self.hs.done = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::TcpConfig;

    const MSS: u64 = 1000;

    /// Feeds one round of one-segment ACKs (as many as cwnd has segments) spread over `rtt`,
    /// starting at `t0`; returns the time after the round.
    fn round(c: &mut Cubic, w: &mut Window, est: &RttEstimator, t0: SimTime, rtt: Delta) -> SimTime {
        let n = w.cwnd / MSS;
        for j in 0..n {
            let ev = AckEvent {
                now: t0 + Delta(rtt.0 * j / n),
                acked: MSS,
                ece: false,
                snd_una: 0,
                snd_max: 0,
                in_recovery: false,
            };
            c.on_ack(w, &ev, est);
        }
        t0 + rtt
    }

    fn after_loss(w_max_pkts: u64, rtt: Delta) -> (Cubic, Window, RttEstimator) {
        let cfg = TcpConfig::linux_like();
        let mut est = RttEstimator::new(&cfg);
        est.sample(&cfg, rtt);
        let mut w = Window::new(w_max_pkts * MSS, u64::MAX, MSS);
        let mut c = Cubic::default();
        let loss = LossEvent {
            now: SimTime::ZERO,
            flight: w.cwnd,
            in_recovery: false,
        };
        c.on_loss(&mut w, &loss);
        assert_eq!(w.ssthresh, w_max_pkts * MSS * 7 / 10);
        // Recovery ends with cwnd = ssthresh.
        w.cwnd = w.ssthresh;
        (c, w, est)
    }

    #[test]
    fn growth_after_a_loss_follows_the_cubic_curve_within_a_packet() {
        // 1000 segments at 100 ms: the cubic curve lies far above the Reno-friendly estimate.
        let rtt = Delta::from_ms(100);
        let (mut c, mut w, est) = after_loss(1000, rtt);
        let (beta, cc, w_max) = (0.7, 0.4, 1000.0);
        // K = cbrt(W_max (1 - beta) / C), RFC 9438 eq. (2) with cwnd_epoch = beta W_max.
        let k = f64::cbrt(w_max * (1.0 - beta) / cc);
        let mut t = SimTime::ZERO;
        let mut worst: f64 = 0.0;
        // Concave region, plateau and convex region, to 2K.
        while t.as_secs_f64() < 2.0 * k {
            let secs = t.as_secs_f64();
            // RFC 9438 eq. (1).
            let expect = cc * (secs - k).powi(3) + w_max;
            let got = w.cwnd as f64 / MSS as f64;
            worst = worst.max((got - expect).abs());
            assert!(
                (got - expect).abs() <= 1.0,
                "t = {secs:.2} s: cwnd {got:.2} segments vs W(t) {expect:.2}"
            );
            t = round(&mut c, &mut w, &est, t, rtt);
        }
        assert!((c.k() - k).abs() < 1e-9);
        assert!(w.cwnd > 1250 * MSS, "convex growth past W_max: {}", w.cwnd);
        eprintln!("worst |cwnd - W(t)| = {worst:.3} segments");
    }

    #[test]
    fn at_short_rtts_the_reno_friendly_estimate_sets_the_window() {
        // 100 segments at 1 ms: K = 4.2 s, so over 0.1 s W_cubic stays near 72 segments while
        // W_est grows by alpha_cubic = 3 (0.3) / 1.7 per RTT up to W_max, then 1 per RTT.
        let rtt = Delta::from_ms(1);
        let (mut c, mut w, est) = after_loss(100, rtt);
        let mut t = SimTime::ZERO;
        for _ in 0..100 {
            t = round(&mut c, &mut w, &est, t, rtt);
        }
        let alpha = 3.0 * 0.3 / 1.7;
        let to_wmax = 30.0 / alpha;
        let expect = 100.0 + (100.0 - to_wmax);
        let got = w.cwnd as f64 / MSS as f64;
        assert!((got - expect).abs() <= 3.0, "cwnd {got:.2} vs W_est {expect:.2}");
        assert!(got > c.w_cubic(0.1) + 30.0);
    }

    #[test]
    fn fast_convergence_lowers_w_max_on_a_loss_below_the_last_one() {
        let mut c = Cubic::default();
        let mut w = Window::new(100 * MSS, u64::MAX, MSS);
        let loss = LossEvent {
            now: SimTime::ZERO,
            flight: 0,
            in_recovery: false,
        };
        c.on_loss(&mut w, &loss);
        assert_eq!(c.w_max(), 100.0);
        w.cwnd = 80 * MSS;
        c.on_loss(&mut w, &loss);
        // W_max = cwnd (1 + beta) / 2 = 68.
        assert!((c.w_max() - 68.0).abs() < 1e-9);
        c.fast_convergence = false;
        w.cwnd = 50 * MSS;
        c.on_loss(&mut w, &loss);
        assert_eq!(c.w_max(), 50.0);
        // A timeout: ssthresh by beta, one-segment loss window.
        w.cwnd = 40 * MSS;
        c.on_timeout(&mut w, &loss);
        assert_eq!((w.cwnd, w.ssthresh), (MSS, 28 * MSS));
    }

    #[test]
    fn after_a_timeout_the_first_epoch_starts_at_its_own_window_with_k_zero() {
        // RFC 9438 §4.8: after a timeout at 100 segments, slow start regrows to ssthresh = 70
        // and congestion avoidance then follows W(t) = C t^3 + 70 (K = 0, W_max = the window
        // at its start), not a concave approach to the 100 the timeout cut from (K = 4.2 s).
        let rtt = Delta::from_ms(100);
        let cfg = TcpConfig::linux_like();
        let mut est = RttEstimator::new(&cfg);
        est.sample(&cfg, rtt);
        let mut c = Cubic::default();
        let mut w = Window::new(100 * MSS, u64::MAX, MSS);
        let loss = LossEvent {
            now: SimTime::ZERO,
            flight: w.cwnd,
            in_recovery: false,
        };
        c.on_timeout(&mut w, &loss);
        assert_eq!((w.cwnd, w.ssthresh), (MSS, 70 * MSS));
        let mut t = SimTime::ZERO;
        // Slow start: 1, 2, 4, ..., 64, then 70 six ACKs into the next round, whose other
        // ACKs start the epoch.
        while w.cwnd <= w.ssthresh {
            t = round(&mut c, &mut w, &est, t, rtt);
        }
        assert_eq!(c.k(), 0.0);
        assert_eq!(c.w_max(), 70.0);
        // From 70, W_est >= W_max at once, so the Reno-friendly estimate grows one segment a
        // round (eq. (4), alpha = 1), above C t^3 + 70 for the first 5 s at this RTT: cwnd is
        // 70 + 57/70 after the crossing round, then one more a round. (From W_max = 100 the
        // concave curve would reach 86.6 by round 10.)
        for r in 1..=30 {
            t = round(&mut c, &mut w, &est, t, rtt);
            let expect = 70.0 + 57.0 / 70.0 + r as f64;
            let got = w.cwnd as f64 / MSS as f64;
            assert!(
                (got - expect).abs() <= 0.5,
                "round {r}: cwnd {got:.2} vs {expect:.2}"
            );
        }
    }

    #[test]
    fn hystart_leaves_slow_start_for_css_when_the_round_rtt_rises() {
        let cfg = TcpConfig::linux_like();
        let mut est = RttEstimator::new(&cfg);
        let mut c = Cubic::default();
        let mut w = Window::new(10 * MSS, u64::MAX, MSS);
        let mut una = 0;
        let mut ack_round = |c: &mut Cubic, w: &mut Window, est: &mut RttEstimator, r: Delta| {
            let n = w.cwnd / MSS;
            let before = w.cwnd;
            for _ in 0..n {
                est.sample(&cfg, r);
                una += MSS;
                let ev = AckEvent {
                    now: SimTime::ZERO,
                    acked: MSS,
                    ece: false,
                    snd_una: una,
                    // The sender keeps a window in flight past what this ACK covers.
                    snd_max: una + w.cwnd + MSS,
                    in_recovery: false,
                };
                c.on_ack(w, &ev, est);
            }
            w.cwnd - before
        };
        // Two rounds at 20 ms: slow start doubles.
        assert_eq!(ack_round(&mut c, &mut w, &mut est, Delta::from_ms(20)), 10 * MSS);
        let g = ack_round(&mut c, &mut w, &mut est, Delta::from_ms(20));
        assert_eq!(g, 20 * MSS);
        // The RTT rises by 10 ms > eta = max(20 / 8, 4) ms: CSS after 8 samples, growth / 4.
        let n = w.cwnd / MSS;
        let g = ack_round(&mut c, &mut w, &mut est, Delta::from_ms(30));
        assert!(g < n * MSS / 2, "CSS grows a quarter as fast: {g} for {n} ACKs");
        assert_eq!(w.ssthresh, u64::MAX);
        // Five CSS rounds (the one that entered CSS counts) end slow start: ssthresh = cwnd
        // at that ACK (the rest of the batch then grows in congestion avoidance).
        let mut batches = 0;
        while w.ssthresh == u64::MAX && batches < 10 {
            ack_round(&mut c, &mut w, &mut est, Delta::from_ms(30));
            batches += 1;
        }
        assert!(batches >= 4, "CSS lasts 5 rounds, ended after {batches} more");
        assert!(w.ssthresh < u64::MAX && w.ssthresh <= w.cwnd);
    }
}
