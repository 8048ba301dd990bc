//! MPTCP's Linked Increases Algorithm (RFC 6356), per subflow `i`:
//! - slow start, fast retransmit, fast recovery and the loss response are TCP's (RFC 6356
//!   §3: the decrease is unchanged; NewReno's halving here);
//! - in congestion avoidance each ACK of `bytes_acked` grows the window by
//!   `min(alpha bytes_acked MSS_i / cwnd_total, bytes_acked MSS_i / cwnd_i)` (RFC 6356 §3),
//!   with `alpha = cwnd_total max_i(cwnd_i / rtt_i^2) / (sum_i cwnd_i / rtt_i)^2` (eq. (2)).
//!
//! `cwnd_total` and the sums come from the engine's [`Coupling`]; an uncoupled flow (one
//! subflow) has `alpha = 1`: TCP.

use super::{AckEvent, CongestionControl, Coupling, LossEvent, NewReno, RttEstimator, Window};

/// One subflow's LIA state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mptcp {
    coupling: Coupling,
    /// Bytes of window growth not yet added (fractions of a byte count).
    carry: f64,
    reno: NewReno,
}

impl Mptcp {
    /// RFC 6356 eq. (2); 1 when uncoupled or before the RTTs are known.
    pub fn alpha(&self) -> f64 {
        let c = &self.coupling;
        if c.subflows < 2 || c.sum_rate <= 0.0 {
            return 1.0;
        }
        c.total_cwnd as f64 * c.max_cwnd_over_rtt2 / (c.sum_rate * c.sum_rate)
    }
}

impl CongestionControl for Mptcp {
    fn on_ack(&mut self, w: &mut Window, ev: &AckEvent, _rtt: &RttEstimator) {
        if ev.in_recovery {
            return;
        }
        if w.cwnd < w.ssthresh {
            self.reno.grow(w, ev.acked);
            return;
        }
        let acked = ev.acked as f64;
        let mss = w.mss as f64;
        let total = (self.coupling.total_cwnd.max(w.cwnd)) as f64;
        // RFC 6356 §3: min(alpha bytes_acked MSS / cwnd_total, bytes_acked MSS / cwnd_i).
        let add = (self.alpha() * acked * mss / total).min(acked * mss / w.cwnd as f64)
            + self.carry;
        let whole = add.floor();
        self.carry = add - whole;
        w.cwnd = w.cwnd.saturating_add(whole as u64);
    }

    fn on_timeout(&mut self, w: &mut Window, ev: &LossEvent) {
        self.carry = 0.0;
        self.reno.on_timeout(w, ev);
    }

    fn couple(&mut self, c: &Coupling) {
        self.coupling = *c;
    }
}
