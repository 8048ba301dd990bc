//! HOLNET-UTA's congestion controller (HOLNET §V, eq. 21-25), the CC-LB member with r = 1
//! (no minimum rate, theta = 0) and w = 1: the TCP-Reno utility (eq. 21 in slow start, eq. 22
//! in congestion avoidance) and its z-function (eq. 23) in HOLNET's control law (eq. 12),
//! driven by per-hop congestion feedback rather than by loss.
//!
//! The laws are in rate per unit time; with the RTT as the time unit the rate is the window,
//! and an ACK for `acked` bytes is `acked / cwnd` of an RTT, so each ACK moves the window by
//! `xdot * acked / cwnd` (Reno's own per-ACK reading: slow start +acked, avoidance
//! +MSS x acked / cwnd). With Reno's parameters (ref. \[60\]) rho = 1 (slow start doubles per
//! RTT), beta = 1/2 and mu = 1 MSS per RTT:
//!
//! - slow start (SSP), eq. (24): `xdot = (r r_out - (1 + rho/beta)^-w)(rho + beta) x` when the
//!   host's own link is not congested (`cg = 0`), `-2^(1-w) beta x` when it is;
//! - congestion avoidance (CAP), eq. (25): `xdot = [-(beta x / (mu + beta x))^w + r r_out]
//!   (mu + beta x)` when `cg = 0`, `-(beta x / (mu + beta x))^w (mu + beta x)` when `cg = 1`.
//!
//! `r_out` comes from the first-hop node (Table II): `r_min` (0.1) when it reports congestion,
//! else 1. Table II makes a node's congestion its local port's or its next hop's, so the
//! first-hop node (the source leaf) reports its own output port and its next hop's (the
//! spine's) port on the path; the controller listens to the hops in `hop_mask` (bits 0 and 1,
//! the first-hop node's report, by default). How the report travels is `via`: by default
//! (the paper's "per-flow-based single-hop signaling") the source leaf signals the source
//! directly, one host-link delay after it forwards a data packet ([`crate::signal`]);
//! [`UtaFeedback::Echo`] carries per-hop bits set by the `holnet` queue (a queue past 80% of
//! its buffer) in the data packet to the receiver, which echoes them in its ACK, one RTT
//! later. The host's own link (`cg`) is its NIC, which a window-limited sender never fills
//! here, so `cg = 0`. Slow start ends at the first congestion report (`ssthresh` = the
//! window then). §V: no fast retransmit (the sender relies on the timeout), and a timeout
//! retransmits from the lost packet on (go-back-N, the sender's RTO recovery) without any
//! congestion response: the window stays as it was.

use super::{
    AckEvent, CongestionControl, FeedbackEvent, FeedbackSource, LossEvent, RttEstimator, Window,
};
use crate::queue::holnet::CONGESTED_PERCENT;
use crate::signal::{HopSignal, LOCAL, NEXT_HOP};

/// How the first-hop node's report reaches the source.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum UtaFeedback {
    /// The first-hop switch signals the source directly (HOLNET eq. 12's single-hop
    /// signaling): one switch-to-host delay after it judges the path.
    #[default]
    Signal,
    /// Per-hop bits in the data packet, echoed by the receiver in its ACK: one RTT later.
    Echo,
}

/// HOLNET-UTA's controller.
#[derive(Clone, Debug, PartialEq)]
pub struct HolnetUta {
    /// Multiplicative increase rate rho (Reno: 1 per RTT).
    pub rho: f64,
    /// Multiplicative decrease rate beta (Reno: 1/2).
    pub beta: f64,
    /// Table II's r_min (§V: 0.1).
    pub r_min: f64,
    /// Which switch hops' congestion bits count as the first-hop node's report (bit k: the
    /// k-th switch on the path; default 0b11, the first-hop node's port and its next hop's).
    pub hop_mask: u32,
    /// How the report arrives (default: the single-hop signal).
    pub via: UtaFeedback,
    /// With the signal: the first-hop node's next hop counts as congested when any port
    /// from it to the destination is (Table II at every node, composed), not only its own
    /// ([`HopSignal::downstream`]).
    pub downstream: bool,
    /// The latest report: the first-hop node congested.
    congested: bool,
    /// The window in fractional bytes (the sender's is whole bytes).
    cwnd: f64,
    /// Slow start ended (at the first congestion report); avoidance from then on.
    in_cap: bool,
}

impl Default for HolnetUta {
    fn default() -> Self {
        HolnetUta {
            rho: 1.0,
            beta: 0.5,
            r_min: 0.1,
            hop_mask: 0b11,
            via: UtaFeedback::Signal,
            downstream: false,
            congested: false,
            cwnd: 0.0,
            in_cap: false,
        }
    }
}

impl HolnetUta {
    /// The window change per RTT (HOLNET eq. 24-25 with r = 1, w = 1, cg = 0), bytes, for a
    /// window of `x` bytes in slow start (`ssp`) or avoidance, with `r_out` from Table II.
    pub fn xdot(&self, x: f64, mss: f64, ssp: bool, r_out: f64) -> f64 {
        let (rho, beta) = (self.rho, self.beta);
        if ssp {
            // HOLNET eq. (24), cg = 0, w = 1: (r r_out - (1 + rho/beta)^-1)(rho + beta) x.
            (r_out - 1.0 / (1.0 + rho / beta)) * (rho + beta) * x
        } else {
            // HOLNET eq. (25), cg = 0, w = 1, mu = 1 MSS per RTT:
            // [-(beta x / (mu + beta x)) + r r_out](mu + beta x).
            let mu = mss;
            (-(beta * x) / (mu + beta * x) + r_out) * (mu + beta * x)
        }
    }
}

impl CongestionControl for HolnetUta {
    fn on_ack(&mut self, w: &mut Window, ev: &AckEvent, _rtt: &RttEstimator) {
        if (self.cwnd as u64) != w.cwnd {
            self.cwnd = w.cwnd as f64;
        }
        let x = self.cwnd.max(1.0);
        let mss = w.mss as f64;
        let ssp = !self.in_cap && w.cwnd < w.ssthresh;
        let r_out = if self.congested { self.r_min } else { 1.0 };
        // One ACK is acked / cwnd of an RTT.
        let dx = self.xdot(x, mss, ssp, r_out) * ev.acked as f64 / x;
        self.cwnd = (x + dx).max(mss);
        w.cwnd = self.cwnd as u64;
    }

    /// Fast retransmit is off (§V); nothing to do should a sender still report one.
    fn on_loss(&mut self, _w: &mut Window, _ev: &LossEvent) {}

    /// §V: a timeout triggers no congestion response; the sender goes back to the lost packet.
    fn on_timeout(&mut self, _w: &mut Window, _ev: &LossEvent) {}

    /// The echoed report needs the per-hop bits in every packet; the signal needs none.
    fn uses_header(&self) -> bool {
        self.via == UtaFeedback::Echo
    }

    fn hop_signal(&self) -> Option<HopSignal> {
        (self.via == UtaFeedback::Signal).then_some(HopSignal {
            hops: self.hop_mask & (LOCAL | NEXT_HOP),
            congested_percent: CONGESTED_PERCENT,
            downstream: self.downstream,
        })
    }

    fn fast_retransmit(&self) -> bool {
        false
    }

    fn on_feedback(&mut self, w: &mut Window, ev: &FeedbackEvent, _rtt: &RttEstimator) {
        let heard = match self.via {
            UtaFeedback::Signal => FeedbackSource::Switch,
            UtaFeedback::Echo => FeedbackSource::Ack,
        };
        if ev.source != heard {
            return;
        }
        self.congested = ev.ext.flags & self.hop_mask != 0;
        if self.congested && !self.in_cap {
            // The first report of congestion ends slow start for good (a cut below ssthresh
            // does not restart it).
            self.in_cap = true;
            w.ssthresh = w.cwnd;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::HeaderExt;
    use dctc_core::units::SimTime;

    fn feedback_from(flags: u32, source: FeedbackSource) -> FeedbackEvent {
        FeedbackEvent {
            now: SimTime::ZERO,
            ext: HeaderExt {
                flags,
                ..Default::default()
            },
            source,
            ack: None,
        }
    }

    fn feedback(flags: u32) -> FeedbackEvent {
        feedback_from(flags, FeedbackSource::Switch)
    }

    #[test]
    fn it_hears_the_switch_signal_by_default_and_the_echo_only_when_asked() {
        let rtt = RttEstimator::new(&crate::transport::TcpConfig::pfabric_tuned(1_000_000));
        let mut w = Window::new(14_600, u64::MAX, 1460);
        let mut c = HolnetUta::default();
        assert!(!c.uses_header());
        assert_eq!(
            c.hop_signal(),
            Some(HopSignal {
                hops: LOCAL | NEXT_HOP,
                congested_percent: 80,
                downstream: false,
            })
        );
        // An echoed bit is not the paper's path: ignored.
        c.on_feedback(&mut w, &feedback_from(1, FeedbackSource::Ack), &rtt);
        assert_eq!(w.ssthresh, u64::MAX);
        c.on_feedback(&mut w, &feedback_from(1, FeedbackSource::Switch), &rtt);
        assert_eq!(w.ssthresh, 14_600);
        // The echo variant: header bits in packets, no switch signal.
        let mut e = HolnetUta {
            via: UtaFeedback::Echo,
            ..Default::default()
        };
        let mut w = Window::new(14_600, u64::MAX, 1460);
        assert!(e.uses_header());
        assert_eq!(e.hop_signal(), None);
        e.on_feedback(&mut w, &feedback_from(1, FeedbackSource::Switch), &rtt);
        assert_eq!(w.ssthresh, u64::MAX);
        e.on_feedback(&mut w, &feedback_from(2, FeedbackSource::Ack), &rtt);
        assert_eq!(w.ssthresh, 14_600);
    }

    #[test]
    fn uncongested_it_is_reno_slow_start_and_additive_increase() {
        let c = HolnetUta::default();
        // Eq. (24) with r_out = 1: rho x (doubling per RTT); eq. (25): mu (1 MSS per RTT).
        assert!((c.xdot(10_000.0, 1460.0, true, 1.0) - 10_000.0).abs() < 1e-9);
        assert!((c.xdot(10_000.0, 1460.0, false, 1.0) - 1460.0).abs() < 1e-9);
        // Congested first hop (r_out = 0.1): slow start shrinks by 0.35 x per RTT, avoidance
        // by beta x - r_min (mu + beta x) = 0.45 x - 146.
        assert!((c.xdot(10_000.0, 1460.0, true, 0.1) + 3_500.0).abs() < 1e-9);
        assert!((c.xdot(10_000.0, 1460.0, false, 0.1) + 4_354.0).abs() < 1e-9);
    }

    #[test]
    fn the_first_hop_report_cuts_the_window_and_timeouts_do_not() {
        let rtt = RttEstimator::new(&crate::transport::TcpConfig::pfabric_tuned(1_000_000));
        let mut c = HolnetUta::default();
        let mut w = Window {
            cwnd: 14_600,
            ssthresh: u64::MAX,
            mss: 1460,
            pacing: None,
        };
        // A window of ACKs without congestion doubles the window (slow start).
        for _ in 0..10 {
            c.on_feedback(&mut w, &feedback(0), &rtt);
            c.on_ack(&mut w, &AckEvent::acking(1460), &rtt);
        }
        assert_eq!(w.cwnd, 29_200);
        // A report from a later hop only is ignored by default.
        c.on_feedback(&mut w, &feedback(0b100), &rtt);
        assert_eq!(w.ssthresh, u64::MAX);
        // The first-hop node congested: slow start ends and each ACK shrinks the window.
        c.on_feedback(&mut w, &feedback(1), &rtt);
        assert_eq!(w.ssthresh, 29_200);
        let before = w.cwnd;
        c.on_ack(&mut w, &AckEvent::acking(1460), &rtt);
        assert!(w.cwnd < before, "{} -> {}", before, w.cwnd);
        // A timeout leaves the window alone (§V); so does a reported loss.
        let cw = w.cwnd;
        let loss = LossEvent {
            now: SimTime::ZERO,
            flight: cw,
            in_recovery: false,
        };
        c.on_timeout(&mut w, &loss);
        c.on_loss(&mut w, &loss);
        assert_eq!((w.cwnd, w.ssthresh), (cw, 29_200));
        assert!(!c.fast_retransmit());
        // Never below one segment.
        for _ in 0..1000 {
            c.on_ack(&mut w, &AckEvent::acking(1460), &rtt);
        }
        assert_eq!(w.cwnd, 1460);
    }
}
