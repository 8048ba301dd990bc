//! pFabric's host transport (Alizadeh et al., "pFabric: Minimal Near-Optimal Datacenter
//! Transport", SIGCOMM 2013, §4.2): minimal rate control, because the switches' priority
//! scheduling and dropping (`queue::pfabric`) do the work.
//!
//! What makes it pFabric is mostly TCP settings, which the `pfabric` scheme sets as its
//! defaults (`schemes::pfabric`): start at line rate (initial window = the fabric's BDP, also
//! the largest window), no fast retransmit (loss is detected by timeout only), a small fixed
//! RTO of about 3 RTTs (45 us, no backoff: min = max RTO), an ACK per packet, and probe mode
//! after 5 consecutive timeouts (one header-only probe per RTO until an ACK arrives;
//! `TcpConfig::probe_after_timeouts`). This controller adds the window rule: TCP's slow start
//! and congestion avoidance up to that largest window, and on a timeout
//! `ssthresh = cwnd / 2`, `cwnd = 1` packet.
//!
//! Priority: every data packet (and probe) carries its flow's remaining size, the bytes from
//! its first byte to the end of what the application supplied (`HeaderExt::priority`,
//! smaller is more urgent), so a retransmission carries the priority it had the first time.
//! ACKs echo the fields of the data packet (or probe) that triggered them; how a pFabric
//! port ranks them is the queue's rule (`queue::pfabric`, key `pfabric_ack_priority`): by
//! default every ACK ranks highest, as in pFabric's reference code. A long-lived flow's
//! remaining size is what its application supplied, effectively infinite: it ranks last.
//!
//! Differs from pFabric: its hosts recover with SACK; ours go back N from the first hole
//! after a timeout (the receiver keeps out-of-order data, so resent bytes it holds are
//! only waste, not errors).

use super::{AckEvent, CongestionControl, LossEvent, NewReno, RttEstimator, StampEvent, Window};
use crate::packet::HeaderExt;

/// pFabric's window rule; its only state is the congestion-avoidance byte counter.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PFabricHost {
    reno: NewReno,
}

impl CongestionControl for PFabricHost {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, ev: &AckEvent, _rtt: &RttEstimator) {
        // pFabric §4.2: window growth as TCP's (the sender caps it at the max window).
        if !ev.in_recovery {
            self.reno.grow(w, ev.acked);
        }
    }

    fn uses_header(&self) -> bool {
        true
    }

    #[inline]
    fn stamp(&mut self, _w: &Window, ev: &StampEvent, ext: &mut HeaderExt) {
        // pFabric §4.1: priority = the flow's remaining size, from this packet's first byte
        // to the end of the flow.
        ext.priority = ev.remaining;
    }

    fn on_timeout(&mut self, w: &mut Window, _ev: &LossEvent) {
        // pFabric §4.2: on a timeout the window restarts at one packet and ssthresh halves
        // (half the window at the timeout, at least one packet).
        w.ssthresh = (w.cwnd / 2).max(w.mss);
        w.cwnd = w.mss;
        self.reno.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{AckOut, Cc, Segment, TcpConfig, TcpSender};
    use dctc_core::units::{Delta, SimTime};

    /// pFabric's TCP on a 12-packet BDP: IW = max cwnd = 12, no fast retransmit, fixed
    /// 45 us RTO, probe after 5 timeouts.
    fn cfg() -> TcpConfig {
        let mut c = TcpConfig::pfabric_tuned(36_000);
        c.initial_cwnd_packets = 12;
        c.max_cwnd_bytes = 12 * c.mss;
        c.dupack_threshold = u32::MAX;
        c.min_rto = Delta::from_us(45);
        c.max_rto = Delta::from_us(45);
        c.initial_rto = Delta::from_us(45);
        c.delayed_ack = None;
        c.probe_after_timeouts = Some(5);
        c
    }

    fn us(x: u64) -> SimTime {
        SimTime::from_delta(Delta::from_us(x))
    }

    fn ack(a: u64, at: SimTime) -> AckOut {
        AckOut {
            ack: a,
            ece: false,
            ts_echo: at,
        }
    }

    #[test]
    fn a_timeout_restarts_at_one_packet_and_halves_the_window_into_ssthresh() {
        let rtt = RttEstimator::new(&cfg());
        let mut w = Window::new(12 * 1460, u64::MAX, 1460);
        let mut c = PFabricHost::default();
        c.on_timeout(
            &mut w,
            &LossEvent {
                now: SimTime::ZERO,
                flight: 3 * 1460,
                in_recovery: false,
            },
        );
        assert_eq!((w.cwnd, w.ssthresh), (1460, 6 * 1460));
        // Slow start back to ssthresh, then one packet per window.
        let ev = |acked| AckEvent {
            now: SimTime::ZERO,
            acked,
            ece: false,
            snd_una: 0,
            snd_max: 0,
            in_recovery: false,
        };
        for _ in 0..5 {
            c.on_ack(&mut w, &ev(1460), &rtt);
        }
        assert_eq!(w.cwnd, 6 * 1460);
        c.on_ack(&mut w, &ev(6 * 1460), &rtt);
        assert_eq!(w.cwnd, 7 * 1460);
    }

    #[test]
    fn the_sender_starts_at_line_rate_never_fast_retransmits_and_probes_after_five_timeouts() {
        let cfg = cfg();
        let mut s = TcpSender::new(&cfg, Cc::PFabricHost(PFabricHost::default()));
        let mut out: Vec<Segment> = Vec::new();
        s.supply(100 * 1460);
        s.send(&cfg, SimTime::ZERO, &mut out);
        // Line rate from the first RTT: a whole BDP at once.
        assert_eq!(out.len(), 12);
        out.clear();
        // The first packet is lost: any number of duplicate ACKs trigger nothing.
        for _ in 0..11 {
            s.on_ack(&cfg, us(12), &ack(0, SimTime::ZERO), &mut out);
        }
        assert!(out.is_empty(), "no fast retransmit: {out:?}");
        // The fixed RTO: 45 us after the first send, each time, with no backoff.
        assert_eq!(s.poll_at(), us(45));
        let mut t = us(45);
        for k in 1..=4u32 {
            s.on_timer(&cfg, t, &mut out);
            assert_eq!(s.timeouts, k);
            assert_eq!(out.len(), 1, "one full segment after timeout {k}");
            assert_eq!((out[0].seq, out[0].len), (0, 1460));
            assert!(!s.is_probing());
            out.clear();
            assert_eq!(s.poll_at(), t + Delta::from_us(45));
            t = s.poll_at();
        }
        // The fifth consecutive timeout: probe mode, header-only probes, one per RTO.
        for _ in 0..3 {
            s.on_timer(&cfg, t, &mut out);
            assert!(s.is_probing());
            assert_eq!(out, vec![Segment { seq: 0, len: 0, retransmit: true }]);
            out.clear();
            assert_eq!(s.poll_at(), t + Delta::from_us(45));
            t = s.poll_at();
        }
        // The probe's ACK (nothing new) ends probe mode: the sender resends from the hole
        // with the timeout's one-packet window.
        s.on_ack(&cfg, t, &ack(0, t), &mut out);
        assert!(!s.is_probing());
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].seq, out[0].len), (0, 1460));
    }

    #[test]
    fn stamped_packets_of_a_flow_leave_a_pfabric_queue_in_order() {
        use crate::engine::PacketPool;
        use crate::packet::{Packet, PacketKind};
        use crate::queue::{PFabric, QueueDisc};
        use dctc_core::ids::NodeId;
        // A 12-packet window of a 20-packet flow: each later packet has less remaining, so
        // a higher priority than the one before it; a longer flow's packets interleave.
        let cfg = cfg();
        let mut pool = PacketPool::default();
        let mut q = PFabric::new(100_000).unwrap();
        let mut short = TcpSender::new(&cfg, Cc::PFabricHost(PFabricHost::default()));
        let mut long = TcpSender::new(&cfg, Cc::PFabricHost(PFabricHost::default()));
        short.supply(20 * 1460);
        long.supply(1_000_000);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        short.send(&cfg, SimTime::ZERO, &mut a);
        long.send(&cfg, SimTime::ZERO, &mut b);
        assert!(short.uses_header());
        let mut enqueue = |s: &mut TcpSender, flow: u32, seg: &Segment, q: &mut PFabric| {
            let mut p = Packet::new(flow, PacketKind::Data, NodeId(0), NodeId(1));
            p.seq = seg.seq;
            p.wire_bytes = (seg.len + 40) as u32;
            let id = pool.alloc(p);
            let mut ext = HeaderExt::default();
            s.stamp(SimTime::ZERO, seg, &mut ext);
            // pFabric §4.1: the remaining size from this packet on.
            assert_eq!(ext.priority, remaining_of(flow, seg.seq));
            *pool.ext(id) = ext;
            q.enqueue(id, &mut pool, SimTime::ZERO);
        };
        fn remaining_of(flow: u32, seq: u64) -> u64 {
            if flow == 0 { 20 * 1460 - seq } else { 1_000_000 - seq }
        }
        for (x, y) in a.iter().zip(&b) {
            enqueue(&mut long, 1, y, &mut q);
            enqueue(&mut short, 0, x, &mut q);
        }
        let mut order = Vec::new();
        while let Some(id) = q.dequeue(&mut pool, SimTime::ZERO) {
            order.push((pool[id].flow, pool[id].seq));
        }
        // The short flow first, each flow in sequence order: no reordering within a flow.
        let want: Vec<(u32, u64)> = (0..12)
            .map(|i| (0, i * 1460))
            .chain((0..12).map(|i| (1, i * 1460)))
            .collect();
        assert_eq!(order, want);
    }
}
