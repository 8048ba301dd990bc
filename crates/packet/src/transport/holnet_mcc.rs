//! HOLNET's multipath end-to-end controller MCC (HOLNET §IV-B, eq. (20)), per subflow `l`
//! of a connection whose subflows run on source-pinned paths:
//!
//! ```text
//! dx_l/dt =  gamma x_l (1 - exp(-eps / x))   if cg = 0       HOLNET eq. (20)
//! dx_l/dt = -gamma x_l exp(-eps / x)          if cg = 1
//! ```
//!
//! with `x = sum_l x_l` the connection's rate and base utility `eps log x` (all flows alike,
//! weight 1). As a window protocol (the same translation as `holnet_cc`): windows in segments
//! are the rates per round trip, one round trip is the time step, cg = 1 is a loss
//! (three duplicate ACKs or a timeout, same adjustment) standing for one round trip of
//! congestion. gamma = 1/2 and eps = 2 segments make a single-path flow TCP's AIMD: one
//! segment per RTT up (`gamma eps x_l / x`), halving on loss (`gamma x_l`), the calibration
//! §IV-B asks for. `x` is the connection's rate in the subflow's own unit (segments per its
//! RTT): the engine's [`Coupling`] sum of `cwnd_j / rtt_j` over the subflows times this
//! subflow's smoothed RTT (the window sum before every subflow has an RTT sample). Subflows
//! whose paths queue differently have different RTTs, and a plain window sum would count a
//! long-RTT subflow's window as more rate than it carries.

use super::{AckEvent, CongestionControl, Coupling, LossEvent, RttEstimator, Window};
use dctc_core::units::Delta;

/// One subflow's MCC state.
#[derive(Clone, Debug, PartialEq)]
pub struct HolnetMcc {
    /// gamma of `z = gamma x_l`.
    pub gamma: f64,
    /// eps of the base utility `eps log x`, segments per RTT.
    pub eps: f64,
    /// The connection's window sum, bytes (this subflow's own window when not coupled).
    total_cwnd: u64,
    /// The connection's rate, sum of `cwnd_j / rtt_j`, bytes per second (0: not every
    /// subflow has an RTT sample yet, or not coupled).
    sum_rate: f64,
    /// Every subflow had an RTT sample when the rate was summed.
    all_sampled: bool,
    /// This subflow's smoothed RTT at its last ACK.
    srtt: Option<Delta>,
    /// Fraction of a segment not yet added to the window.
    carry: f64,
}

impl Default for HolnetMcc {
    fn default() -> Self {
        HolnetMcc {
            gamma: 0.5,
            eps: 2.0,
            total_cwnd: 0,
            sum_rate: 0.0,
            all_sampled: false,
            srtt: None,
            carry: 0.0,
        }
    }
}

impl HolnetMcc {
    /// `x` in segments per this subflow's RTT: the connection's rate times the RTT (the
    /// window sum before RTT samples), at least this subflow's window.
    fn x_segments(&self, w: &Window) -> f64 {
        let bytes = match self.srtt {
            Some(rtt) if self.all_sampled && self.sum_rate > 0.0 => {
                self.sum_rate * rtt.as_secs_f64()
            }
            _ => self.total_cwnd as f64,
        };
        bytes.max(w.cwnd as f64) / w.mss as f64
    }

    fn congested(&mut self, w: &mut Window) {
        let x = self.x_segments(w);
        let xl = w.cwnd as f64 / w.mss as f64;
        let cut = self.gamma * xl * (-self.eps / x).exp(); // HOLNET eq. (20), cg = 1
        let next = ((xl - cut) * w.mss as f64).max(w.mss as f64) as u64;
        w.ssthresh = next;
        w.cwnd = next;
        self.carry = 0.0;
    }
}

impl CongestionControl for HolnetMcc {
    fn on_ack(&mut self, w: &mut Window, ev: &AckEvent, rtt: &RttEstimator) {
        self.srtt = rtt.srtt().filter(|d| d.0 > 0);
        if ev.in_recovery {
            return;
        }
        let x = self.x_segments(w);
        // HOLNET eq. (20), cg = 0: gamma x_l (1 - e^(-eps/x)) per RTT, spread over the
        // subflow's window of ACKs: gamma (1 - e^(-eps/x)) per acknowledged segment.
        let add = self.gamma * (1.0 - (-self.eps / x).exp()) * ev.acked as f64 / w.mss as f64
            + self.carry;
        let whole = add.floor();
        self.carry = add - whole;
        w.cwnd = w.cwnd.saturating_add(whole as u64 * w.mss);
    }

    fn on_loss(&mut self, w: &mut Window, _ev: &LossEvent) {
        self.congested(w);
    }

    fn on_timeout(&mut self, w: &mut Window, ev: &LossEvent) {
        if ev.in_recovery {
            // The recovery this timeout ends answered the congestion event already (one cut
            // per event, the fast retransmit's); the window is the one it set, not `cwnd`,
            // which the duplicate ACKs inflated (RFC 6582 step 4).
            w.cwnd = w.ssthresh;
            self.carry = 0.0;
            return;
        }
        // The same adjustment as for three duplicate ACKs (as CC, §IV-A).
        self.congested(w);
    }

    fn couple(&mut self, c: &Coupling) {
        self.total_cwnd = c.total_cwnd;
        self.sum_rate = c.sum_rate;
        self.all_sampled = c.sampled == c.subflows;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::TcpConfig;
    use dctc_core::units::SimTime;

    #[test]
    fn x_is_the_connection_rate_in_this_subflows_rtt() {
        let cfg = TcpConfig::linux_like();
        let mut rtt = RttEstimator::new(&cfg);
        rtt.sample(&cfg, Delta::from_ms(10));
        let mut c = HolnetMcc::default();
        let mut w = Window {
            cwnd: 20_000,
            ssthresh: u64::MAX,
            mss: 1000,
            pacing: None,
        };
        // This subflow: 20 segments per 10 ms; the other: 60 segments per 30 ms. Together
        // 4 MB/s, 40 segments per this subflow's RTT (the window sum would say 80).
        let both = Coupling {
            subflows: 2,
            sampled: 2,
            total_cwnd: 80_000,
            sum_rate: 4e6,
            max_cwnd_over_rtt2: 0.0,
        };
        c.couple(&both);
        let ack = AckEvent {
            now: SimTime::ZERO,
            acked: 0,
            ece: false,
            snd_una: 0,
            snd_max: 0,
            in_recovery: false,
        };
        c.on_ack(&mut w, &ack, &rtt);
        assert!((c.x_segments(&w) - 40.0).abs() < 1e-9, "{}", c.x_segments(&w));
        // A loss: x_l -= gamma x_l e^(-eps/x) (eq. 20, one RTT of cg = 1).
        c.on_loss(
            &mut w,
            &LossEvent {
                now: SimTime::ZERO,
                flight: 20_000,
                in_recovery: false,
            },
        );
        let want = 20.0 - 0.5 * 20.0 * (-2.0f64 / 40.0).exp();
        assert!((w.cwnd as f64 / 1000.0 - want).abs() < 1e-3, "{}", w.cwnd);
        // Until every subflow has an RTT sample, the window sum stands in.
        c.couple(&Coupling { sampled: 1, ..both });
        assert!((c.x_segments(&w) - 80.0).abs() < 1e-9);
    }
}
