//! ECN marking at an instantaneous threshold (DCTCP's switch): a FIFO that sets CE on an
//! ECN-capable arrival when the queue, counting the arrival, exceeds K bytes. Arrivals that do
//! not fit the buffer are dropped as in DropTail; non-ECT packets are never marked.

use super::{DropTail, Enqueued, Offer, QueueDisc};
use crate::engine::{PacketId, PacketPool};
use dctc_core::units::SimTime;

/// DropTail plus CE marks above `k_bytes`.
#[derive(Debug)]
pub struct EcnThreshold {
    fifo: DropTail,
    k_bytes: u64,
}

impl EcnThreshold {
    /// A queue of `capacity` bytes marking above `k_bytes`.
    pub fn new(capacity: u64, k_bytes: u64) -> Self {
        EcnThreshold {
            fifo: DropTail::new(capacity),
            k_bytes,
        }
    }

    /// The marking threshold K in bytes.
    pub fn k_bytes(&self) -> u64 {
        self.k_bytes
    }
}

impl QueueDisc for EcnThreshold {
    #[inline]
    fn enqueue(&mut self, pkt: PacketId, pool: &mut PacketPool, _now: SimTime) -> Enqueued {
        if let Err(p) = self.fifo.push(pkt, pool) {
            return Enqueued::Dropped(p);
        }
        // DCTCP: mark when the instantaneous queue exceeds K.
        let p = &mut pool[pkt];
        let marked = p.ecn.ect && self.fifo.bytes() > self.k_bytes;
        if marked {
            p.ecn.ce = true;
        }
        Enqueued::Queued { marked }
    }
    #[inline]
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
    fn admit(&mut self, offer: &mut Offer, _pool: &mut PacketPool, backlog_bytes: u64) -> Enqueued {
        let total = backlog_bytes + offer.wire_bytes as u64;
        if total > self.fifo.capacity() {
            return Enqueued::Dropped(offer.pkt);
        }
        // DCTCP: mark when the instantaneous queue exceeds K.
        let marked = offer.ecn.ect && total > self.k_bytes;
        if marked {
            offer.ecn.ce = true;
        }
        Enqueued::Queued { marked }
    }
}
