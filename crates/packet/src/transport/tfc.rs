//! TFC's host (Zhang et al., EuroSys 2016, §4.6, §5.1, §5.3): the window is whatever the
//! switches allocate, carried back on RMA-marked ACKs; the sender only marks the first data
//! packet of each round (RM) so switches can count effective flows.
//!
//! - A connection starts with two marked empty packets (probes): the first stands for the
//!   handshake's marked SYN, which ports count in E (Fig. 2) but whose answer brings no window
//!   (§4.6: new flows are not counted in the window current when they arrive); the second is
//!   the window acquisition of §4.6, whose answer brings the first window. Data waits for it.
//!   (The engine models no handshake for any scheme; TFC's SYN round is modelled because its
//!   switches rely on it: hundreds of flows starting at once are counted a round before any
//!   of them is given a window.)
//! - The first data packet, and the first one sent after each RMA ACK, carries RM (§5.1); every
//!   packet's window field starts at the maximum (the paper's `0xffff`) for the ports to lower.
//!   A retransmission never carries RM (the next new segment does): ports time rounds between
//!   marks, and in loss recovery retransmissions leave a few hundred nanoseconds apart, which
//!   ports took for rtt_b (Karn's rule for the switches' RTT).
//! - On an RMA ACK `cwnd` becomes the window it carries (§5.1). The engine's receiver echoes
//!   the RM packet's header on its ACK, i.e. the window copied and the mark kept (§5.3); the
//!   first TFC port on the way back sets RMA on it.
//! - The receiver's ACK that covers the RM packet carries its fields even when a delayed ACK
//!   also covers later packets (`echo_merge`); should an ACK past the RM packet come without
//!   the mark all the same, the round is over and the next packet is marked.
//! - The packet holding the last byte supplied carries `LAST`, the FIN of §5.2 that makes
//!   ports re-pick their delimiter.
//! - Loss recovery and the RTO are TCP's (NewReno's response to loss until the next RMA ACK
//!   resets the window). RTT for the token is measured by the switches on full-size marked
//!   packets (§4.4); the host's estimator only times retransmissions.

use super::{
    AckEvent, CongestionControl, FeedbackEvent, FeedbackSource, RttEstimator, StampEvent, Window,
};
use crate::packet::HeaderExt;
use crate::queue::tfc::{LAST, RM, RMA};

/// TFC's sender state.
#[derive(Clone, Debug, PartialEq)]
pub struct Tfc {
    /// The round is over: the next data packet carries RM.
    mark_next: bool,
    /// The cumulative ACK that covers this round's RM packet (its end; a probe's: its
    /// sequence number), until the round ends. Only an ACK that reaches it is this round's
    /// RMA.
    rm_end: Option<u64>,
    /// The part of a segment the allocated windows gave but whole segments could not use.
    carry: u64,
    /// Probes stamped so far (the SYN stand-in, then the window fetch).
    probes_sent: u32,
    /// Probes answered so far.
    probes_answered: u32,
    /// Windows received on RMA ACKs.
    pub windows_received: u64,
    /// The last window received, payload bytes.
    pub last_window: u64,
}

impl Default for Tfc {
    /// A sender whose first data packet will be marked.
    fn default() -> Tfc {
        Tfc {
            mark_next: true,
            rm_end: None,
            carry: 0,
            probes_sent: 0,
            probes_answered: 0,
            windows_received: 0,
            last_window: 0,
        }
    }
}

impl CongestionControl for Tfc {
    fn on_ack(&mut self, _w: &mut Window, ev: &AckEvent, _rtt: &RttEstimator) {
        // The window only changes on RMA ACKs (`on_feedback`); an ACK past the RM packet that
        // was not its RMA (its RMA lost, or held by a delay arbiter while this ACK passed)
        // still ends the round.
        if let Some(end) = self.rm_end {
            if ev.snd_una >= end {
                self.rm_end = None;
                self.mark_next = true;
            }
        }
    }

    fn uses_header(&self) -> bool {
        true
    }

    fn probe_first(&self) -> bool {
        true
    }

    fn probe_again(&mut self) -> bool {
        // Once, after the SYN stand-in's answer.
        self.probes_answered == 1 && self.probes_sent == 1
    }

    fn stamp(&mut self, _w: &Window, ev: &StampEvent, ext: &mut HeaderExt) {
        // §5.1: the window field starts at its maximum; every port lowers it to its W.
        ext.window = u64::MAX;
        if ev.len == 0 {
            // The SYN stand-in, then §4.6's marked empty packet that fetches the window.
            ext.flags = RM;
            self.probes_sent = self.probes_sent.max(1);
            if self.probes_answered >= 1 {
                self.probes_sent = 2;
            }
            self.rm_end = Some(ev.seq);
            return;
        }
        if self.mark_next && !ev.retransmit {
            ext.flags |= RM;
            self.mark_next = false;
            self.rm_end = Some(ev.seq + ev.len);
        }
        if ev.remaining <= ev.len {
            ext.flags |= LAST;
        }
    }

    /// §5.3: the ACK of an RM packet is its RMA and carries the RM packet's window. A delayed
    /// ACK that covers the RM packet and a later one is that ACK, so an RM packet's fields
    /// wait for it rather than give way to the later, unmarked packet's (which would leave
    /// the round without a window: with ACKs every second packet and an even window, every
    /// round).
    fn echo_merge(&self, pending: &HeaderExt, arrived: &HeaderExt) -> HeaderExt {
        if pending.flags & RM != 0 && arrived.flags & RM == 0 {
            *pending
        } else {
            *arrived
        }
    }

    fn on_feedback(&mut self, w: &mut Window, ev: &FeedbackEvent, _rtt: &RttEstimator) {
        if ev.source != FeedbackSource::Ack || ev.ext.flags & (RM | RMA) == 0 {
            return;
        }
        // §5.1: the RMA that ends a round is the ACK of that round's RM packet. An ACK that
        // does not reach it echoes an earlier round's mark (a duplicate, or an RMA ACK the
        // delay arbiter held while a later ACK ended its round); taking it would mark a second
        // packet within one round trip, and the ports would time that gap as a round and take
        // it for rtt_b, a minimum that never comes back up (40 Gb/s, 8 us path: rtt_b 3.3 us,
        // the link 56% used).
        match (self.rm_end, ev.ack) {
            (Some(end), Some(ack)) if ack.ack >= end => {}
            _ => return,
        }
        if self.probes_sent == 1 && self.probes_answered == 0 {
            // The SYN's answer: counted, no window yet (§4.6).
            self.probes_answered = 1;
            self.rm_end = None;
            return;
        }
        if self.probes_sent == 2 {
            self.probes_answered = 2;
        }
        // §5.1: the congestion window is the window the RMA ACK carries. The sender sends
        // whole segments, so the fraction of a segment a round cannot use is carried to the
        // next round (error diffusion): over rounds the windows average the allocated one,
        // where rounding down would leave up to a segment per flow unused (a quarter of the
        // link with 4 flows on a 6-packet pipe) and rounding up would overshoot the token.
        // At least one segment: the delay arbiter raises windows below a packet to one
        // packet before they arrive.
        let window = ev.ext.window.min(u64::MAX / 4);
        let avail = window + self.carry;
        let segments = (avail / w.mss).max(1);
        self.carry = avail.saturating_sub(segments * w.mss);
        w.cwnd = segments * w.mss;
        self.last_window = window;
        self.windows_received += 1;
        self.rm_end = None;
        self.mark_next = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{AckOut, FeedbackSource};
    use dctc_core::units::SimTime;

    fn stamp(c: &mut Tfc, seq: u64, len: u64, remaining: u64) -> HeaderExt {
        stamp_sent(c, seq, len, remaining, false)
    }

    fn stamp_sent(c: &mut Tfc, seq: u64, len: u64, remaining: u64, retransmit: bool) -> HeaderExt {
        let mut ext = HeaderExt::default();
        let w = Window::new(0, u64::MAX, 1460);
        c.stamp(
            &w,
            &StampEvent {
                now: SimTime::ZERO,
                seq,
                len,
                retransmit,
                remaining,
                snd_una: 0,
            },
            &mut ext,
        );
        ext
    }

    /// An ACK up to `ack` carrying `flags` and `window` in its echoed header.
    fn feedback(c: &mut Tfc, w: &mut Window, flags: u32, window: u64, ack: u64) {
        let ev = FeedbackEvent {
            now: SimTime::ZERO,
            ext: HeaderExt {
                flags,
                window,
                ..Default::default()
            },
            source: FeedbackSource::Ack,
            ack: Some(AckOut {
                ack,
                ece: false,
                ts_echo: SimTime::ZERO,
            }),
        };
        c.on_feedback(w, &ev, &RttEstimator::new(&crate::transport::TcpConfig::linux_like()));
    }

    fn ack(c: &mut Tfc, w: &mut Window, snd_una: u64) {
        let ev = AckEvent {
            now: SimTime::ZERO,
            acked: 1460,
            ece: false,
            snd_una,
            snd_max: snd_una,
            in_recovery: false,
        };
        c.on_ack(w, &ev, &RttEstimator::new(&crate::transport::TcpConfig::linux_like()));
    }

    #[test]
    fn one_packet_per_round_is_marked_and_the_rma_window_becomes_cwnd() {
        let mut c = Tfc::default();
        let mut w = Window::new(14_600, u64::MAX, 1460);
        let syn = stamp(&mut c, 0, 0, 10 * 1460);
        assert_eq!((syn.flags, syn.window), (RM, u64::MAX));
        feedback(&mut c, &mut w, RM, 2920, 0);
        assert_eq!(w.cwnd, 14_600, "the SYN stand-in's answer brings no window");
        assert!(c.probe_again(), "a second probe fetches the window");
        let fetch = stamp(&mut c, 0, 0, 10 * 1460);
        assert_eq!(fetch.flags, RM);
        feedback(&mut c, &mut w, RM, 2920, 0);
        assert!(!c.probe_again());
        assert_eq!(w.cwnd, 2920, "the second probe's answer brings the first window");
        // 1.5 segments a round: 1, then 2 (with the half carried), then 1, 2, ...
        let mut got = Vec::new();
        let mut seq = 0;
        for _ in 0..4 {
            assert_eq!(stamp(&mut c, seq, 1460, 100_000).flags, RM);
            seq += 1460;
            feedback(&mut c, &mut w, RM, 2190, seq);
            got.push(w.cwnd / 1460);
        }
        assert_eq!(got, [1, 2, 1, 2], "windows average the allocation");
        stamp(&mut c, seq, 1460, 100_000);
        seq += 1460;
        feedback(&mut c, &mut w, RM, 300, seq);
        assert_eq!(w.cwnd, 1460, "never below one segment");
        stamp(&mut c, seq, 1460, 100_000);
        seq += 1460;
        feedback(&mut c, &mut w, RM, 2920, seq);
        let a = stamp(&mut c, seq, 1460, 10 * 1460);
        let b = stamp(&mut c, seq + 1460, 1460, 9 * 1460);
        assert_eq!(a.flags, RM, "the first packet of the round");
        assert_eq!(a.window, u64::MAX);
        assert_eq!(b.flags, 0, "one mark per round");
        // A plain ACK (echoing the unmarked packet) leaves the window alone.
        feedback(&mut c, &mut w, 0, 100, seq + 2920);
        assert_eq!(w.cwnd, 2920);
        // The RMA ACK sets the window and the next packet starts a new round.
        feedback(&mut c, &mut w, RM | RMA, 4380, seq + 1460);
        assert_eq!(w.cwnd, 4380);
        assert_eq!(stamp(&mut c, seq + 2920, 1460, 8 * 1460).flags, RM);
        assert_eq!(c.windows_received, 8);
    }

    /// Issue 25: an ACK echoing an earlier round's mark (a second ACK of the same RM packet, or
    /// an RMA ACK a delay arbiter held while a later, unmarked ACK ended its round) once
    /// counted as this round's RMA: the sender marked a second packet within one round trip,
    /// the ports timed the gap as a round, and rtt_b (a minimum) stayed at that gap for good.
    #[test]
    fn only_the_ack_of_this_rounds_rm_packet_ends_the_round_with_a_window() {
        let mut c = Tfc::default();
        let mut w = Window::new(14_600, u64::MAX, 1460);
        for _ in 0..2 {
            stamp(&mut c, 0, 0, 100_000);
            feedback(&mut c, &mut w, RM, 5840, 0);
        }
        assert_eq!(stamp(&mut c, 0, 1460, 100_000).flags, RM);
        assert_eq!(stamp(&mut c, 1460, 1460, 100_000).flags, 0);
        feedback(&mut c, &mut w, RM | RMA, 4380, 1460);
        assert_eq!(w.cwnd, 4380);
        assert_eq!(stamp(&mut c, 2920, 1460, 100_000).flags, RM);
        // A second ACK echoing the first round's RM packet: not this round's RMA.
        feedback(&mut c, &mut w, RM | RMA, 8760, 2920);
        assert_eq!(w.cwnd, 4380, "a stale RMA brings no window");
        assert_eq!(stamp(&mut c, 4380, 1460, 100_000).flags, 0, "nor a mark");
        // The round's RMA is held; a later ACK passes it and ends the round.
        ack(&mut c, &mut w, 5840);
        assert_eq!(stamp(&mut c, 5840, 1460, 100_000).flags, RM);
        feedback(&mut c, &mut w, RM | RMA, 2920, 4380);
        assert_eq!(w.cwnd, 4380, "the held RMA arrives a round late");
        assert_eq!(stamp(&mut c, 7300, 1460, 100_000).flags, 0);
        // This round's RMA.
        feedback(&mut c, &mut w, RM | RMA, 2920, 7300);
        assert_eq!(w.cwnd, 2920);
        assert_eq!(stamp(&mut c, 8760, 1460, 100_000).flags, RM);
    }

    #[test]
    fn an_ack_past_the_rm_packet_without_its_mark_still_ends_the_round() {
        let mut c = Tfc::default();
        let mut w = Window::new(14_600, u64::MAX, 1460);
        assert_eq!(stamp(&mut c, 0, 1460, 100_000).flags, RM);
        assert_eq!(stamp(&mut c, 1460, 1460, 100_000).flags, 0);
        ack(&mut c, &mut w, 1460 - 1);
        assert_eq!(stamp(&mut c, 2920, 1460, 100_000).flags, 0);
        ack(&mut c, &mut w, 2920);
        assert_eq!(stamp(&mut c, 4380, 1460, 100_000).flags, RM);
    }

    /// Issue 25: in loss recovery every partial ACK passed the RM packet and the next
    /// retransmission was marked, so ports timed "rounds" between retransmissions sent a few
    /// hundred nanoseconds apart and took them for rtt_b (0.05 us on an 8 us path: the token
    /// and every window collapsed). A retransmission's timing says nothing of the round trip
    /// (Karn's rule); the mark waits for the next new segment.
    #[test]
    fn a_retransmission_is_never_the_round_mark_the_next_new_segment_is() {
        let mut c = Tfc::default();
        let mut w = Window::new(14_600, u64::MAX, 1460);
        assert_eq!(stamp(&mut c, 0, 1460, 100_000).flags, RM);
        ack(&mut c, &mut w, 1460);
        assert_eq!(stamp_sent(&mut c, 1460, 1460, 100_000, true).flags, 0);
        assert_eq!(stamp_sent(&mut c, 2920, 1460, 100_000, true).flags, 0);
        assert_eq!(stamp(&mut c, 4380, 1460, 100_000).flags, RM);
        assert_eq!(stamp(&mut c, 5840, 1460, 100_000).flags, 0);
    }

    #[test]
    fn the_last_supplied_byte_is_flagged_for_the_ports() {
        let mut c = Tfc::default();
        assert_eq!(stamp(&mut c, 0, 1460, 2000).flags & LAST, 0);
        assert_eq!(stamp(&mut c, 1460, 540, 540).flags & LAST, LAST);
    }
}
