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
//! §IV-B asks for. `x` comes from the engine's [`Coupling`] (the subflows' window sum).

use super::{AckEvent, CongestionControl, Coupling, LossEvent, RttEstimator, Window};

/// One subflow's MCC state.
#[derive(Clone, Debug, PartialEq)]
pub struct HolnetMcc {
    /// gamma of `z = gamma x_l`.
    pub gamma: f64,
    /// eps of the base utility `eps log x`, segments per RTT.
    pub eps: f64,
    /// The connection's window sum, bytes (this subflow's own window when not coupled).
    total_cwnd: u64,
    /// Fraction of a segment not yet added to the window.
    carry: f64,
}

impl Default for HolnetMcc {
    fn default() -> Self {
        HolnetMcc {
            gamma: 0.5,
            eps: 2.0,
            total_cwnd: 0,
            carry: 0.0,
        }
    }
}

impl HolnetMcc {
    /// `x` in segments: the coupled window sum, at least this subflow's window.
    fn x_segments(&self, w: &Window) -> f64 {
        self.total_cwnd.max(w.cwnd) as f64 / w.mss as f64
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
    fn on_ack(&mut self, w: &mut Window, ev: &AckEvent, _rtt: &RttEstimator) {
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

    fn on_timeout(&mut self, w: &mut Window, _ev: &LossEvent) {
        // The same adjustment as for three duplicate ACKs (as CC, §IV-A).
        self.congested(w);
    }

    fn couple(&mut self, c: &Coupling) {
        self.total_cwnd = c.total_cwnd;
    }
}
