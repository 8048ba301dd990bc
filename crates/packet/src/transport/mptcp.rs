//! MPTCP's Linked Increases Algorithm (RFC 6356), per subflow `i`:
//! - slow start, fast retransmit, fast recovery and the loss response are TCP's (RFC 6356
//!   §3: the decrease is unchanged; NewReno's halving here);
//! - in congestion avoidance each ACK of `bytes_acked` grows the window by
//!   `min(alpha bytes_acked MSS_i / cwnd_total, bytes_acked MSS_i / cwnd_i)` (RFC 6356 §3),
//!   with `alpha = cwnd_total max_i(cwnd_i / rtt_i^2) / (sum_i cwnd_i / rtt_i)^2` (eq. (2)).
//!
//! `cwnd_total` and the sums come from the engine's [`Coupling`]; an uncoupled flow (one
//! subflow) has `alpha = 1`: TCP.
//!
//! LIA matches one TCP (RFC 6356 §2 goals 1-2) at a loss equilibrium: with n equal subflows
//! alpha = 1/n, so the aggregate grows by 1/n segment a round trip, and a loss halves one
//! subflow, 1/(2n) of the aggregate. Before its first losses it grows n times slower than a TCP
//! beside it (issue 25's conformance suite: 0.65x after 400 ms at 1 Gb/s with no drop; its
//! shared-bottleneck case now runs 80 sawteeth, 0.99x). Where the paths' loss rates differ it
//! takes what one TCP would on the best of them (§2 goal 1), more than a TCP that loses more.

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::TcpConfig;
    use dctc_core::units::Delta;

    /// Window growth (segments) of subflow `w` when one full window of it is acknowledged in
    /// congestion avoidance, one segment an ACK.
    fn one_window(c: &mut Mptcp, w: &mut Window) -> f64 {
        let cfg = TcpConfig::linux_like();
        let mut rtt = RttEstimator::new(&cfg);
        rtt.sample(&cfg, Delta::from_ms(1));
        let before = w.cwnd;
        for _ in 0..w.cwnd / w.mss {
            c.on_ack(w, &AckEvent::acking(w.mss), &rtt);
        }
        (w.cwnd - before) as f64 / w.mss as f64
    }

    #[test]
    fn lia_alpha_is_rfc_6356_eq_2_and_two_equal_subflows_grow_half_as_fast_as_one_tcp() {
        let mss = 1000u64;
        let window = || Window::new(100 * mss, 10 * mss, mss);
        // Two subflows of 100 segments over 1 ms each: alpha = cwnd_total max(cwnd_i /
        // rtt_i^2) / (sum cwnd_i / rtt_i)^2 = 200 (100 / 1) / 200^2 = 1/2 (RFC 6356 eq. 2).
        let both = Coupling {
            subflows: 2,
            sampled: 2,
            total_cwnd: 200 * mss,
            sum_rate: 2.0 * 100.0 * mss as f64 / 1e-3,
            max_cwnd_over_rtt2: 100.0 * mss as f64 / 1e-6,
        };
        let mut c = Mptcp::default();
        c.couple(&both);
        assert!((c.alpha() - 0.5).abs() < 1e-12, "{}", c.alpha());
        // Each subflow's window of ACKs adds alpha cwnd_i / cwnd_total = 1/4 segment, so the
        // connection grows by alpha = 1/2 segment a round trip where one TCP grows by 1 (the
        // RFC's loss equilibrium evens that out: a loss halves one subflow, a quarter of the
        // aggregate). Before any loss, then, LIA falls behind a TCP on its bottleneck by
        // design (why the conformance case runs to the loss equilibrium).
        let grown = one_window(&mut c, &mut window());
        assert!((grown - 0.25).abs() < 0.01, "{grown}");
        // One subflow: alpha = 1 and the increase is TCP's, one segment a window.
        let mut single = Mptcp::default();
        single.couple(&Coupling {
            subflows: 1,
            sampled: 1,
            total_cwnd: 100 * mss,
            sum_rate: 100.0 * mss as f64 / 1e-3,
            max_cwnd_over_rtt2: 100.0 * mss as f64 / 1e-6,
        });
        assert_eq!(single.alpha(), 1.0);
        let grown = one_window(&mut single, &mut window());
        assert!((grown - 1.0).abs() < 0.02, "{grown}");
        // Unequal RTTs: 100 segments over 1 ms and 100 over 2 ms: alpha = 200 (100 / 1) /
        // (100 + 50)^2 = 8/9; the min() caps a subflow's increase at TCP's (RFC 6356 §3).
        let mut uneven = Mptcp::default();
        uneven.couple(&Coupling {
            sum_rate: 150.0 * mss as f64 / 1e-3,
            ..both
        });
        assert!((uneven.alpha() - 8.0 / 9.0).abs() < 1e-12);
    }
}
