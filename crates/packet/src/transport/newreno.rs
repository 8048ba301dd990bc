//! NewReno's window control, TCP's default and the growth rule other controllers reuse:
//! - slow start (RFC 5681 §3.1): `cwnd += min(N, SMSS)` per ACK of N new bytes (RFC 5681
//!   eq. (2), not RFC 3465's experimental L = 2 SMSS, which would double the growth per
//!   delayed ACK);
//! - congestion avoidance: byte counting, one SMSS per cwnd of acknowledged bytes (RFC 5681
//!   §3.1, the recommended form of eq. (3));
//! - on loss `ssthresh = max(FlightSize / 2, 2 SMSS)` (eq. (4)), on timeout also
//!   `cwnd = 1 SMSS` (the trait's default responses).
//!
//! It ignores ECN and header feedback.

use super::{AckEvent, CongestionControl, LossEvent, RttEstimator, Window};

/// NewReno: its only state is the congestion-avoidance byte counter.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NewReno {
    /// Bytes acknowledged toward the next one-SMSS increase in congestion avoidance.
    ca_acked: u64,
}

impl NewReno {
    /// Grows `w` for `acked` newly acknowledged bytes: slow start below ssthresh, else
    /// congestion avoidance.
    #[inline]
    pub fn grow(&mut self, w: &mut Window, acked: u64) {
        if w.cwnd < w.ssthresh {
            // RFC 5681 eq. (2): cwnd += min(N, SMSS).
            w.cwnd += acked.min(w.mss);
        } else {
            // RFC 5681 §3.1 byte counting: one SMSS per cwnd of bytes acked.
            self.ca_acked += acked;
            if self.ca_acked >= w.cwnd {
                self.ca_acked -= w.cwnd;
                w.cwnd += w.mss;
            }
        }
    }

    /// Forgets partial congestion-avoidance progress (after a timeout).
    pub fn reset(&mut self) {
        self.ca_acked = 0;
    }
}

impl CongestionControl for NewReno {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, ev: &AckEvent, _rtt: &RttEstimator) {
        if !ev.in_recovery {
            self.grow(w, ev.acked);
        }
    }

    fn on_timeout(&mut self, w: &mut Window, ev: &LossEvent) {
        // RFC 5681 eq. (4) and §3.1: ssthresh = max(FlightSize / 2, 2 SMSS), cwnd = 1 SMSS.
        w.ssthresh = (ev.flight / 2).max(2 * w.mss);
        w.cwnd = w.mss;
        self.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::TcpConfig;
    use dctc_core::units::SimTime;

    fn ev(acked: u64, in_recovery: bool) -> AckEvent {
        AckEvent {
            now: SimTime::ZERO,
            acked,
            ece: false,
            snd_una: 0,
            snd_max: 0,
            in_recovery,
        }
    }

    #[test]
    fn congestion_avoidance_adds_one_mss_per_window_of_acked_bytes() {
        let rtt = RttEstimator::new(&TcpConfig::pfabric_tuned(1_000_000));
        let mut w = Window::new(10_000, 5_000, 1_000);
        let mut c = NewReno::default();
        for _ in 0..9 {
            c.on_ack(&mut w, &ev(1_000, false), &rtt);
        }
        assert_eq!(w.cwnd, 10_000);
        c.on_ack(&mut w, &ev(1_000, false), &rtt);
        assert_eq!(w.cwnd, 11_000);
        // No growth during recovery: the sender sets the window there.
        c.on_ack(&mut w, &ev(50_000, true), &rtt);
        assert_eq!(w.cwnd, 11_000);
        // A timeout forgets the partial count.
        c.on_ack(&mut w, &ev(5_000, false), &rtt);
        c.on_timeout(
            &mut w,
            &LossEvent {
                now: SimTime::ZERO,
                flight: 8_000,
                in_recovery: false,
            },
        );
        assert_eq!((w.cwnd, w.ssthresh), (1_000, 4_000));
        w.cwnd = 4_000;
        c.on_ack(&mut w, &ev(3_999, false), &rtt);
        assert_eq!(w.cwnd, 4_000);
    }
}
