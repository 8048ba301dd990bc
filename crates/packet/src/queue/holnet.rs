//! HOLNET's congestion marking (HOLNET §V, "Congestion Detection"): a FIFO output port is
//! congested when its queue reaches `p_q` = 80% of its buffer; packets still enter until the
//! buffer overflows. Each data packet carries one congestion bit per switch hop in
//! `HeaderExt::flags` (bit k: the k-th switch the packet crossed was congested when it arrived)
//! and the hop count in `HeaderExt::aux`; the receiver echoes them to the sender, whose
//! controller reads the hops it listens to (HOLNET-UTA: the first-hop node). ACKs are not
//! marked. HOLNET-UTA with the single-hop signal (its default) reads no header fields and
//! runs over plain DropTail ports instead (`schemes::holnet_uta`).

use super::{DropTail, Enqueued, Offer, QueueDisc};
use crate::engine::{PacketId, PacketPool};
use crate::packet::PacketKind;
use dctc_core::units::SimTime;

/// HOLNET's threshold: a queue at 80% of its buffer is congested (`p_q = 80`).
pub const CONGESTED_PERCENT: u64 = 80;

/// DropTail plus per-hop congestion bits.
#[derive(Debug)]
pub struct HolnetMark {
    fifo: DropTail,
}

impl HolnetMark {
    /// A queue of `capacity` bytes.
    pub fn new(capacity: u64) -> Self {
        HolnetMark {
            fifo: DropTail::new(capacity),
        }
    }

    /// Sets this hop's bit on a data packet when `queued` bytes (the arrival included) reach
    /// 80% of the buffer, and counts the hop.
    #[inline]
    fn mark(&self, pkt: PacketId, pool: &mut PacketPool, queued: u64) {
        if pool[pkt].kind != PacketKind::Data {
            return;
        }
        let congested = queued * 100 >= CONGESTED_PERCENT * self.fifo.capacity();
        let ext = pool.ext(pkt);
        let hop = ext.aux;
        if congested && hop < 32 {
            ext.flags |= 1 << hop;
        }
        ext.aux = hop.saturating_add(1);
    }
}

impl QueueDisc for HolnetMark {
    fn enqueue(&mut self, pkt: PacketId, pool: &mut PacketPool, _now: SimTime) -> Enqueued {
        if let Err(p) = self.fifo.push(pkt, pool) {
            return Enqueued::Dropped(p);
        }
        self.mark(pkt, pool, self.fifo.bytes());
        Enqueued::Queued { marked: false }
    }
    fn dequeue(&mut self, pool: &mut PacketPool, now: SimTime) -> Option<PacketId> {
        self.fifo.dequeue(pool, now)
    }
    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }
    fn len(&self) -> usize {
        self.fifo.len()
    }
    fn capacity(&self) -> u64 {
        self.fifo.capacity()
    }
    fn fifo_at_arrival(&self) -> bool {
        true
    }
    #[inline]
    fn admit(&mut self, offer: &mut Offer, pool: &mut PacketPool, backlog_bytes: u64) -> Enqueued {
        let total = backlog_bytes + offer.wire_bytes as u64;
        if total > self.fifo.capacity() {
            return Enqueued::Dropped(offer.pkt);
        }
        self.mark(offer.pkt, pool, total);
        Enqueued::Queued { marked: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Packet;
    use dctc_core::ids::NodeId;

    fn pkt(pool: &mut PacketPool, kind: PacketKind) -> PacketId {
        let mut p = Packet::new(0, kind, NodeId(0), NodeId(1));
        p.wire_bytes = 1500;
        let id = pool.alloc(p);
        *pool.ext(id) = Default::default();
        id
    }

    #[test]
    fn a_hop_past_80_percent_sets_its_bit_and_every_hop_counts() {
        let mut pool = PacketPool::with_capacity(16);
        let mut q = HolnetMark::new(10_000);
        // Hop 0 at 70% after the arrival: no bit.
        let a = pkt(&mut pool, PacketKind::Data);
        q.admit(&mut Offer::of(a, &pool), &mut pool, 5_500);
        assert_eq!((pool.ext(a).flags, pool.ext(a).aux), (0, 1));
        // The same packet at hop 1, a port at 80%: bit 1.
        let mut q2 = HolnetMark::new(10_000);
        q2.admit(&mut Offer::of(a, &pool), &mut pool, 6_500);
        assert_eq!((pool.ext(a).flags, pool.ext(a).aux), (0b10, 2));
        // ACKs pass unmarked; an arrival that does not fit is dropped.
        let k = pkt(&mut pool, PacketKind::Ack);
        q.admit(&mut Offer::of(k, &pool), &mut pool, 8_000);
        assert_eq!((pool.ext(k).flags, pool.ext(k).aux), (0, 0));
        assert_eq!(
            q.admit(&mut Offer::of(k, &pool), &mut pool, 9_000),
            Enqueued::Dropped(k)
        );
        // The stored path marks the same way: the fifth packet brings the queue to 75%, the
        // sixth to 90%.
        let mut q3 = HolnetMark::new(10_000);
        let ids: Vec<PacketId> = (0..6).map(|_| pkt(&mut pool, PacketKind::Data)).collect();
        for &x in &ids {
            q3.enqueue(x, &mut pool, SimTime::ZERO);
        }
        assert_eq!(pool.ext(ids[4]).flags, 0);
        assert_eq!(pool.ext(ids[5]).flags, 1);
    }
}
