//! HOLNET's end-to-end CC / CC-CoS controllers (HOLNET §IV-A, eq. (19)) as a window protocol.
//!
//! The fluid law, with base utility `w U_alpha(x)` and `z = gamma x^alpha`:
//!
//! ```text
//! dx/dt = gamma x^alpha (r - exp(-w x^-alpha))   if cg = 0      HOLNET eq. (19)
//! dx/dt = -gamma x^alpha exp(-w x^-alpha)         if cg = 1
//! ```
//!
//! with `r` from the class of service (eq. (14)): `r_max^CoS` below the minimum rate theta,
//! `r_min^CoS` at or above the maximum Theta, else 1. The paper turns it into a window
//! protocol without showing how; ours (documented in the scenario notes):
//! - the window `W` (in segments, the rate in segments per round trip) is the controlled
//!   quantity and one round trip is the time step, so `z = gamma W^alpha` segments per RTT;
//! - the marginal utility `U'(x) = w x^-alpha` is evaluated at the measured rate
//!   `x = cwnd / SRTT` in the utility's rate unit (b/s over `rate_unit_bps`);
//! - an acknowledged segment is `1 / W` of a round trip of cg = 0, adding
//!   `gamma W^alpha (r - e^-U') / W` segments;
//! - a congestion event the source infers (§IV-A: three duplicate ACKs or a timeout, the same
//!   adjustment for both) is one round trip of cg = 1: `W -= gamma W^alpha e^-U'` once, the
//!   further holes of the same recovery adding nothing (as Reno halves once per window). The
//!   timeout leaves the window there instead of resetting it to one segment; the sender still
//!   goes back N.
//!
//! This is §IV-B's translation of MCC (gamma = 1/2 makes eq. (20) Reno's AIMD: a loss event
//! halves, one RTT of cg = 1), and the one §IV-A's own explanation of its 3.61 (against 4)
//! assumes: "flow x1, which has higher flow rate than flow x2, generally senses more
//! congestions". At equilibrium a flow's loss events per RTT equal `f(x) = 1 - e^-U'`
//! (eq. 13), about 12% of RTTs at §IV-A's optimum. Equal marginals (eq. 7), and so the NUM
//! optimum, need every flow to see the same events per RTT, which drops that hit every flow
//! of an overflow give; when each overflow drops a packet of one flow picked by its share of
//! the arrivals, events per RTT follow the rate and the flows settle where `f(x_i) / x_i` is
//! equal (ratio about 1.6 in §IV-A's example instead of 4). (A cut per lost packet instead
//! would need a per-packet loss rate of `f(x)`, 12%, which NewReno's recovery, holding the
//! window at what the pipe carries, never lets the flows reach.)
//!
//! Convergence: near the equilibrium eq. (19) relaxes at about `gamma alpha U' W^(alpha-1)`
//! per RTT (0.004 at §IV-A's flow 1: a time constant of some 250 RTTs, 2-4 s here); gamma
//! and the scale of U' (set by the rate unit and x_0^c) trade that speed against the loss
//! events per RTT at equilibrium.
//!
//! `gamma = 1/2` is the value that makes MCC (eq. (20), the same translation) TCP's AIMD on
//! one path (§IV-B); the rate unit is the paper's Mb/s.

use super::{AckEvent, CongestionControl, LossEvent, RttEstimator, Window};
use dctc_core::units::Delta;
use dctc_num::utility::Utility;
use std::sync::Arc;

/// Class-of-service bounds of one flow (HOLNET eq. (11), (14)).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CosBounds {
    /// Minimum rate theta, b/s (0: NRE, no minimum).
    pub theta_bps: f64,
    /// Maximum rate Theta, b/s (`f64::INFINITY`: none).
    pub max_bps: f64,
    /// `r_max^CoS` (> 1), applied below theta (eq. (14)); the paper uses 3.
    pub r_max: f64,
    /// `r_min^CoS` (< 1), applied at or above Theta.
    pub r_min: f64,
}

impl Default for CosBounds {
    fn default() -> Self {
        CosBounds {
            theta_bps: 0.0,
            max_bps: f64::INFINITY,
            r_max: 3.0,
            r_min: 0.5,
        }
    }
}

impl CosBounds {
    /// `r` for rate `x_bps` (HOLNET eq. (14)).
    #[inline]
    pub fn r(&self, x_bps: f64) -> f64 {
        if x_bps < self.theta_bps {
            self.r_max
        } else if x_bps >= self.max_bps {
            self.r_min
        } else {
            1.0
        }
    }
}

/// One flow's utility and class of service, from the scheme's per-flow table.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FlowParams {
    /// Base utility `w U_alpha` with this flow's weight.
    pub utility: Utility,
    /// Class-of-service bounds.
    pub cos: CosBounds,
}

/// One flow's CC / CC-CoS controller.
#[derive(Clone, Debug, PartialEq)]
pub struct HolnetCc {
    /// Base utility `w U_alpha` (crates/num's HOLNET utility: its weight and alpha).
    pub utility: Utility,
    /// Rates are in this many b/s when the marginal is evaluated (the utility's unit).
    pub rate_unit_bps: f64,
    /// gamma of `z = gamma W^alpha`, segments per RTT.
    pub gamma: f64,
    /// Class-of-service bounds.
    pub cos: CosBounds,
    /// Per-flow parameters by workload flow id, sorted by id: a flow found here runs with
    /// them instead of `utility` and `cos` (shared by every flow's clone).
    pub per_flow: Arc<Vec<(u32, FlowParams)>>,
    /// Fraction of a segment not yet added to the window.
    carry: f64,
    /// The smoothed RTT at the last ACK (loss events carry none).
    last_srtt: Option<Delta>,
}

impl Default for HolnetCc {
    /// `log x` (alpha = 1, w = 1) in Mb/s, gamma = 1/2, no class-of-service bounds.
    fn default() -> Self {
        HolnetCc::new(Utility::Log { weight: 1.0 }, 1e6, 0.5, CosBounds::default())
    }
}

impl HolnetCc {
    /// A controller for base utility `utility` evaluated with rates in `rate_unit_bps`.
    pub fn new(utility: Utility, rate_unit_bps: f64, gamma: f64, cos: CosBounds) -> Self {
        HolnetCc {
            utility,
            rate_unit_bps,
            gamma,
            cos,
            per_flow: Arc::new(Vec::new()),
            carry: 0.0,
            last_srtt: None,
        }
    }

    /// The base utility's alpha (1 for a log utility).
    pub fn alpha(&self) -> f64 {
        match self.utility.canonical() {
            Utility::Alpha { alpha, .. } => alpha,
            _ => 1.0,
        }
    }

    /// The measured rate of window `cwnd` bytes over the smoothed RTT, b/s (`None` before
    /// the first RTT sample: see [`HolnetCc::terms`]).
    fn rate_bps(cwnd: u64, rtt: Option<Delta>) -> Option<f64> {
        rtt.filter(|d| d.0 > 0)
            .map(|d| cwnd as f64 * 8.0 / d.as_secs_f64())
    }

    /// `(z, e^-U', r)` at the current window: z in segments per RTT. Before the first RTT
    /// sample the rate, and so `U'`, is unknown: the terms are those of a flow well above its
    /// optimum (`e^-U'` = 1, r = 1), which holds the window and cuts the full `z` on a loss.
    /// (Taking `U'` as large instead, no congestion term, let a flow whose first timeout
    /// fired before its first ACK, under a standing queue longer than the initial RTO, grow
    /// by half a window a round and never cut: Karn's rule withholds samples from the ACKs of
    /// its go-back-N resends, so the backoff never ended and the flow starved.)
    fn terms(&self, w: &Window, srtt: Option<Delta>) -> (f64, f64, f64) {
        let segs = w.cwnd as f64 / w.mss as f64;
        let z = self.gamma * segs.powf(self.alpha()); // HOLNET eq. (19): z = gamma x^alpha
        match Self::rate_bps(w.cwnd, srtt) {
            Some(x) => {
                let marginal = self.utility.marginal(x / self.rate_unit_bps);
                (z, (-marginal).exp(), self.cos.r(x))
            }
            None => (z, 1.0, 1.0),
        }
    }

    /// One congestion event (cg = 1 for one round trip): `W -= gamma W^alpha e^-U'`
    /// segments, at least 2 segments left.
    fn congestion_event(&self, w: &Window, from: u64) -> u64 {
        let at = Window { cwnd: from, ..*w };
        let (z, e, _) = self.terms(&at, self.last_srtt);
        let cut = z * e * w.mss as f64; // HOLNET eq. (19), cg = 1, one round trip
        (from as f64 - cut).max(2.0 * w.mss as f64) as u64
    }
}

impl CongestionControl for HolnetCc {
    fn for_flow(&mut self, flow: u32) {
        if let Ok(i) = self.per_flow.binary_search_by_key(&flow, |e| e.0) {
            let p = self.per_flow[i].1;
            self.utility = p.utility;
            self.cos = p.cos;
        }
    }

    fn on_ack(&mut self, w: &mut Window, ev: &AckEvent, rtt: &RttEstimator) {
        self.last_srtt = rtt.srtt();
        if ev.in_recovery {
            return;
        }
        let (z, e, r) = self.terms(w, self.last_srtt);
        // HOLNET eq. (19), cg = 0: 1 / W of a round trip per acknowledged segment.
        let segs = ev.acked as f64 / w.mss as f64;
        let cwnd_segs = w.cwnd.max(1) as f64 / w.mss as f64;
        let add = z * (r - e) * segs / cwnd_segs * w.mss as f64 + self.carry;
        let whole = add.floor();
        self.carry = add - whole;
        w.cwnd = if whole >= 0.0 {
            w.cwnd.saturating_add(whole as u64)
        } else {
            w.cwnd.saturating_sub((-whole) as u64).max(2 * w.mss)
        };
    }

    fn on_loss(&mut self, w: &mut Window, _ev: &LossEvent) {
        w.ssthresh = self.congestion_event(w, w.cwnd);
        self.carry = 0.0;
    }

    fn on_timeout(&mut self, w: &mut Window, ev: &LossEvent) {
        // §IV-A: the same adjustment as for three duplicate ACKs. A timeout that ends a failed
        // fast recovery belongs to the event the fast retransmit answered (one cut per event):
        // the window is the one that cut set, not `cwnd`, which the duplicate ACKs inflated
        // (RFC 6582 step 4).
        let next = if ev.in_recovery {
            w.ssthresh
        } else {
            self.congestion_event(w, w.cwnd)
        };
        w.ssthresh = next;
        w.cwnd = next;
        self.carry = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::TcpConfig;
    use dctc_core::units::SimTime;

    #[test]
    fn grows_by_eq_19_per_window_and_cuts_one_rtt_of_it_per_loss_event() {
        let cfg = TcpConfig::linux_like();
        let mut rtt = RttEstimator::new(&cfg);
        // 10 ms RTT, 100 segments of 1000 B: 80 Mb/s.
        rtt.sample(&cfg, Delta::from_ms(10));
        let utility = Utility::Alpha {
            weight: 1.0,
            alpha: 0.5,
        };
        let mut c = HolnetCc::new(utility, 1e6, 0.5, CosBounds::default());
        let mut w = Window {
            cwnd: 100_000,
            ssthresh: u64::MAX,
            mss: 1000,
            pacing: None,
        };
        for _ in 0..100 {
            c.on_ack(&mut w, &AckEvent::acking(1000), &rtt);
        }
        // z = 0.5 sqrt(W) at W = 100 segments, U' = 80^-0.5: about 5 (1 - 0.894) = 0.53 segment
        // per window (the window grows inside the loop, so slightly more).
        let e = (-(80f64).powf(-0.5)).exp();
        let expect = 5.0 * (1.0 - e);
        let grown = (w.cwnd - 100_000) as f64 / 1000.0 + c.carry / 1000.0;
        assert!((grown - expect).abs() < 0.02, "{grown} vs {expect}");
        // A loss event (three duplicate ACKs): one RTT of cg = 1, W -= z e^-U' (about 4.5
        // segments at W = 100), applied to ssthresh, where the sender leaves recovery.
        w.cwnd = 100_000;
        c.on_loss(
            &mut w,
            &LossEvent {
                now: SimTime::ZERO,
                flight: 100_000,
                in_recovery: false,
            },
        );
        let cut = (100_000 - w.ssthresh) as f64 / 1000.0;
        assert!((cut - 5.0 * e).abs() < 0.002, "{cut}");
        // Further holes of the same recovery are the same event: no further cut.
        let mut rec = AckEvent::acking(1000);
        rec.in_recovery = true;
        let after_one = w.ssthresh;
        c.on_ack(&mut w, &rec, &rtt);
        c.on_ack(&mut w, &rec, &rtt);
        assert_eq!(w.ssthresh, after_one);
        // A timeout is the same cut, and leaves cwnd there (no reset to one segment).
        w.cwnd = 100_000;
        c.on_timeout(
            &mut w,
            &LossEvent {
                now: SimTime::ZERO,
                flight: 100_000,
                in_recovery: false,
            },
        );
        assert_eq!(w.cwnd, 100_000 - (100_000 - after_one));
        assert_eq!(w.ssthresh, w.cwnd);
    }

    #[test]
    fn before_the_first_rtt_sample_the_window_holds_and_a_loss_cuts_the_full_z() {
        // Without an RTT the rate, and U', are unknown: the terms of a flow far above its
        // optimum (e^-U' = 1). Taking U' as large instead (no congestion term) let a flow
        // whose ACKs all covered go-back-N resends (Karn's rule: no sample) grow by half a
        // window a round and never cut (the suite's `fair` family, 8 flows at 1 Gb/s: one
        // flow held 102 segments and starved in backoff).
        let cfg = TcpConfig::linux_like();
        let rtt = RttEstimator::new(&cfg);
        assert!(rtt.srtt().is_none());
        let mut c = HolnetCc::default();
        let mut w = Window {
            cwnd: 40_000,
            ssthresh: u64::MAX,
            mss: 1000,
            pacing: None,
        };
        for _ in 0..40 {
            c.on_ack(&mut w, &AckEvent::acking(1000), &rtt);
        }
        assert_eq!(w.cwnd, 40_000);
        let loss = LossEvent {
            now: SimTime::ZERO,
            flight: 40_000,
            in_recovery: false,
        };
        // log utility: z = gamma W = 20 segments, all of it.
        c.on_timeout(&mut w, &loss);
        assert_eq!((w.cwnd, w.ssthresh), (20_000, 20_000));
    }

    /// Which flows a congestion interval reaches, in [`two_flows_on_one_link`].
    #[derive(Copy, Clone)]
    enum Hears {
        /// Every flow on the link (eq. (19)'s cg, the link's indicator).
        Every,
        /// One flow, picked by its share of the link's rate (a DropTail overflow that drops
        /// one packet).
        OneByShare,
    }

    /// §IV-A's Fig. 2(a) as a fluid link in round-trip steps, through the controller's own
    /// `on_ack` / `on_loss`: two NRE flows with user utilities `2 sqrt(x)`, `R_s` 400 and 100
    /// Mb/s (weights from crates/num, eq. 4 and 9), one 100 Mb/s link, a 10 ms RTT, 1000-byte
    /// segments. A step whose offered rate exceeds the link is one RTT of cg = 1 for the flows
    /// `hears` names (one loss event each, the window leaving recovery at ssthresh); the
    /// others get a window of ACKs (cg = 0). Returns the mean rates (Mb/s) over the second
    /// half of `steps`.
    fn two_flows_on_one_link(hears: Hears, steps: usize) -> (f64, f64) {
        let cfg = TcpConfig::linux_like();
        let mut rtt = RttEstimator::new(&cfg);
        let r = Delta::from_ms(10);
        rtt.sample(&cfg, r);
        let user = |x: f64| 2.0 * x.sqrt();
        let mut c: Vec<HolnetCc> = [4e8, 1e8]
            .iter()
            .map(|&rs| {
                let u = dctc_num::utility::holnet_utility(&user, rs, 0.5, 1e8).unwrap();
                HolnetCc::new(u, 1e6, 0.5, CosBounds::default())
            })
            .collect();
        let mss = 1000u64;
        let mut w = [Window::new(10 * mss, u64::MAX, mss); 2];
        let mbps = |w: &Window| w.cwnd as f64 * 8.0 / r.as_secs_f64() / 1e6;
        let (mut credit, mut sum, mut n) = ([0.0f64; 2], [0.0f64; 2], 0.0);
        let loss = LossEvent {
            now: SimTime::ZERO,
            flight: 0,
            in_recovery: false,
        };
        for step in 0..steps {
            let x = [mbps(&w[0]), mbps(&w[1])];
            let total = x[0] + x[1];
            let hit = match hears {
                _ if total <= 100.0 => [false, false],
                Hears::Every => [true, true],
                Hears::OneByShare => {
                    // Smooth weighted round robin over the shares: deterministic, and over
                    // many overflows each flow is hit in proportion to its rate.
                    credit[0] += x[0] / total;
                    credit[1] += x[1] / total;
                    let k = usize::from(credit[1] > credit[0]);
                    credit[k] -= 1.0;
                    [k == 0, k == 1]
                }
            };
            for i in 0..2 {
                if hit[i] {
                    c[i].on_loss(&mut w[i], &loss);
                    w[i].cwnd = w[i].ssthresh;
                } else {
                    for _ in 0..w[i].cwnd / mss {
                        c[i].on_ack(&mut w[i], &AckEvent::acking(mss), &rtt);
                    }
                }
            }
            if step >= steps / 2 {
                sum[0] += x[0];
                sum[1] += x[1];
                n += 1.0;
            }
        }
        (sum[0] / n, sum[1] / n)
    }

    #[test]
    fn eq_19_reaches_the_num_optimum_when_every_flow_hears_the_link_and_not_when_one_does() {
        // HOLNET §IV-A: the optimum is 80 / 20 Mb/s (ratio 4). When cg is the link's, as in
        // eq. (19), each flow is congested a fraction f(x) = 1 - e^-U'(x) of the time (eq.
        // 13) and the marginals meet at the optimum: the window translation keeps that.
        let (x1, x2) = two_flows_on_one_link(Hears::Every, 20_000);
        assert!((x1 - 80.0).abs() < 4.0 && (x2 - 20.0).abs() < 2.0, "{x1} / {x2}");
        assert!((x1 / x2 - 4.0).abs() < 0.4, "ratio {}", x1 / x2);
        // When an overflow reaches one flow picked by its share, a flow's congestion per RTT
        // follows its rate, and the flows settle where f(x_i) / x_i is equal: ratio about
        // 1.56 (solved below), the bias §IV-A names for its 3.61 and scenarios/holnet's
        // iv-a-cc (2.48 on its DropTail port) lies between.
        let (y1, y2) = two_flows_on_one_link(Hears::OneByShare, 20_000);
        let f = |wt: f64, x: f64| 1.0 - (-wt * x.powf(-0.5)).exp();
        let (w1, w2) = ((400.0f64 / 300.0).sqrt(), (100.0f64 / 300.0).sqrt());
        // f(x1) / x1 = f(100 - x1) / (100 - x1), by bisection on x1 in (50, 99).
        let (mut lo, mut hi) = (50.0, 99.0);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if f(w1, mid) / mid > f(w2, 100.0 - mid) / (100.0 - mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let biased = lo / (100.0 - lo);
        assert!((biased - 1.56).abs() < 0.01, "{biased}");
        assert!((y1 / y2 - biased).abs() < 0.1 * biased, "{y1} / {y2} vs {biased}");
    }
}
