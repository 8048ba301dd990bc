//! XCP's end system (Katabi, Handley, Rohrs, SIGCOMM 2002, §3.2-3.4): the sender stamps every
//! data packet's congestion header with its window (H_cwnd), its RTT estimate (H_rtt) and the
//! window change it would like (H_feedback); routers lower H_feedback to what their links
//! allow (`queue::xcp`); the receiver echoes the header on the ACK; the sender then sets
//! `cwnd = max(cwnd + H_feedback, s)`. There is no slow start and no additive increase: the
//! window moves only by the routers' feedback. Losses are handled as TCP does (the default
//! hooks: halve on a fast retransmit, one segment after a timeout).
//!
//! Header fields ([`HeaderExt`]): `window` = H_cwnd in bytes, `aux` = H_rtt in nanoseconds
//! (0 before the first RTT sample), `feedback` = H_feedback in bytes.

use super::{AckEvent, CongestionControl, FeedbackEvent, RttEstimator, StampEvent, Window};
use crate::packet::HeaderExt;
use dctc_core::units::Rate;

/// The XCP sender's congestion controller.
#[derive(Clone, Debug, PartialEq)]
pub struct Xcp {
    /// The rate the sender would like, r of XCP §3.2 (its NIC's line rate in the `xcp`
    /// scheme); `None` asks for as much as the routers give.
    pub desired_rate: Option<Rate>,
    /// The smoothed RTT, nanoseconds (0 until the first sample): H_rtt.
    srtt_ns: u64,
    /// The fractional bytes of feedback not yet applied to the integer window.
    residue: f64,
}

impl Default for Xcp {
    fn default() -> Self {
        Xcp {
            desired_rate: None,
            srtt_ns: 0,
            residue: 0.0,
        }
    }
}

/// H_feedback asked for when the desired rate is unlimited: more than any router gives.
const UNLIMITED: f64 = 1e15;

impl Xcp {
    /// A sender that asks for `desired_rate` (`None`: as much as the routers give).
    pub fn new(desired_rate: Option<Rate>) -> Self {
        Xcp {
            desired_rate,
            ..Xcp::default()
        }
    }

    /// The H_feedback a packet of `len` bytes asks for with window `cwnd`: XCP §3.2,
    /// `(r rtt - cwnd) / (cwnd / s)`, the desired window change spread over one window of
    /// packets (unlimited without a desired rate or an RTT estimate).
    pub fn desired_feedback(&self, cwnd: u64, len: u64) -> f64 {
        match self.desired_rate {
            Some(r) if self.srtt_ns > 0 && cwnd > 0 => {
                let want = r.bps_f64() / 8.0 * self.srtt_ns as f64 * 1e-9;
                (want - cwnd as f64) * len as f64 / cwnd as f64
            }
            _ => UNLIMITED,
        }
    }
}

impl CongestionControl for Xcp {
    fn on_ack(&mut self, _w: &mut Window, _ev: &AckEvent, rtt: &RttEstimator) {
        // The window moves only by feedback (on_feedback); the ACK refreshes H_rtt.
        if let Some(s) = rtt.srtt() {
            self.srtt_ns = (s.0 / 1000).max(1);
        }
    }

    fn uses_header(&self) -> bool {
        true
    }

    fn stamp(&mut self, w: &Window, ev: &StampEvent, ext: &mut HeaderExt) {
        ext.window = w.cwnd;
        ext.aux = self.srtt_ns.min(u64::from(u32::MAX)) as u32;
        ext.feedback = self.desired_feedback(w.cwnd, ev.len.max(1));
    }

    fn on_feedback(&mut self, w: &mut Window, ev: &FeedbackEvent, _rtt: &RttEstimator) {
        // Only headers that crossed the routers carry feedback: a packet stamped before the
        // first RTT sample (H_rtt = 0) or with no window got none, and an unlimited request
        // that no XCP router lowered is not an allowance.
        if ev.ext.aux == 0 || ev.ext.window == 0 || ev.ext.feedback >= UNLIMITED {
            return;
        }
        // XCP §3.4: cwnd = max(cwnd + H_feedback, s); fractions of a byte carry over.
        let next = w.cwnd as f64 + self.residue + ev.ext.feedback;
        let floor = next.floor();
        if floor <= w.mss as f64 {
            w.cwnd = w.mss;
            self.residue = 0.0;
        } else {
            w.cwnd = floor as u64;
            self.residue = next - floor;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{FeedbackSource, TcpConfig};
    use dctc_core::units::{Delta, SimTime};

    fn feedback(window: u64, rtt_ns: u32, fb: f64) -> FeedbackEvent {
        FeedbackEvent {
            now: SimTime(0),
            ext: HeaderExt {
                window,
                aux: rtt_ns,
                feedback: fb,
                ..HeaderExt::default()
            },
            source: FeedbackSource::Ack,
            ack: None,
        }
    }

    #[test]
    fn window_moves_by_echoed_feedback_with_fractions_carried() {
        let rtt = RttEstimator::new(&TcpConfig::pfabric_tuned(225_000));
        let mut c = Xcp::default();
        let mut w = Window::new(15_000, u64::MAX, 1460);
        c.on_feedback(&mut w, &feedback(15_000, 20_000, 100.4), &rtt);
        assert_eq!(w.cwnd, 15_100);
        c.on_feedback(&mut w, &feedback(15_000, 20_000, 0.7), &rtt);
        assert_eq!(w.cwnd, 15_101, "0.4 + 0.7 carried into a whole byte");
        c.on_feedback(&mut w, &feedback(15_000, 20_000, -5_000.0), &rtt);
        assert_eq!(w.cwnd, 10_101);
        // Never below one segment.
        c.on_feedback(&mut w, &feedback(15_000, 20_000, -1e9), &rtt);
        assert_eq!(w.cwnd, 1460);
        // No RTT in the header, or an unlowered request: no change.
        c.on_feedback(&mut w, &feedback(15_000, 0, 500.0), &rtt);
        c.on_feedback(&mut w, &feedback(15_000, 20_000, UNLIMITED), &rtt);
        assert_eq!(w.cwnd, 1460);
    }

    #[test]
    fn stamps_window_rtt_and_the_desired_change() {
        let cfg = TcpConfig::pfabric_tuned(225_000);
        let mut rtt = RttEstimator::new(&cfg);
        let mut c = Xcp {
            desired_rate: Some(Rate::gbps(10)),
            ..Xcp::default()
        };
        let w = Window::new(15_000, u64::MAX, 1500);
        let ev = StampEvent {
            now: SimTime(0),
            seq: 0,
            len: 1500,
            retransmit: false,
            remaining: 1_000_000,
            snd_una: 0,
        };
        let mut ext = HeaderExt::default();
        c.stamp(&w, &ev, &mut ext);
        assert_eq!((ext.window, ext.aux), (15_000, 0));
        assert_eq!(ext.feedback, UNLIMITED, "no RTT yet: ask for anything");
        rtt.sample(&cfg, Delta::from_us(20));
        let ack = AckEvent {
            now: SimTime(0),
            acked: 1500,
            ece: false,
            snd_una: 1500,
            snd_max: 15_000,
            in_recovery: false,
        };
        let mut w2 = w;
        c.on_ack(&mut w2, &ack, &rtt);
        assert_eq!(w2, w, "ACKs do not move the window");
        c.stamp(&w, &ev, &mut ext);
        assert_eq!(ext.aux, 20_000);
        // r rtt = 1.25e9 B/s x 20 us = 25000 B: (25000 - 15000) / (15000 / 1500) per packet.
        assert!((ext.feedback - 1000.0).abs() < 1e-9, "{}", ext.feedback);
    }
}
