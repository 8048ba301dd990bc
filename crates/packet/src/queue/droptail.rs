//! DropTail: first in, first out; an arrival that does not fit in the byte buffer is dropped.

use super::{Enqueued, Offer, QueueDisc};
use crate::engine::{PacketId, PacketPool};
use dctc_core::units::SimTime;
use std::collections::VecDeque;

/// A FIFO with a byte limit.
#[derive(Debug)]
pub struct DropTail {
    fifo: VecDeque<PacketId>,
    bytes: u64,
    capacity: u64,
}

impl DropTail {
    /// A queue holding at most `capacity` bytes.
    pub fn new(capacity: u64) -> Self {
        DropTail {
            fifo: VecDeque::with_capacity(16),
            bytes: 0,
            capacity,
        }
    }

    /// Appends `pkt` if it fits; `Err` otherwise (the caller decides what to drop).
    #[inline]
    pub(crate) fn push(&mut self, pkt: PacketId, pool: &PacketPool) -> Result<(), PacketId> {
        let size = pool[pkt].wire_bytes as u64;
        if self.bytes + size > self.capacity {
            return Err(pkt);
        }
        self.bytes += size;
        self.fifo.push_back(pkt);
        Ok(())
    }
}

impl QueueDisc for DropTail {
    #[inline]
    fn enqueue(&mut self, pkt: PacketId, pool: &mut PacketPool, _now: SimTime) -> Enqueued {
        match self.push(pkt, pool) {
            Ok(()) => Enqueued::Queued { marked: false },
            Err(p) => Enqueued::Dropped(p),
        }
    }
    #[inline]
    fn dequeue(&mut self, pool: &mut PacketPool, _now: SimTime) -> Option<PacketId> {
        let p = self.fifo.pop_front()?;
        self.bytes -= pool[p].wire_bytes as u64;
        Some(p)
    }
    fn bytes(&self) -> u64 {
        self.bytes
    }
    fn len(&self) -> usize {
        self.fifo.len()
    }
    fn capacity(&self) -> u64 {
        self.capacity
    }
    fn fifo_at_arrival(&self) -> bool {
        true
    }
    #[inline]
    fn admit(&mut self, offer: &mut Offer, _pool: &mut PacketPool, backlog_bytes: u64) -> Enqueued {
        if backlog_bytes + offer.wire_bytes as u64 > self.capacity {
            Enqueued::Dropped(offer.pkt)
        } else {
            Enqueued::Queued { marked: false }
        }
    }
}
