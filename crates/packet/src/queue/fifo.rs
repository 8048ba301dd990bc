//! What the FIFO disciplines share: the packets of one port in arrival order under a byte
//! limit ([`Fifo`]), and the FIFOs that decide everything when a packet arrives
//! ([`ArrivalFifo`]: DropTail, ECN marking, HOLNET's marking), whose one arrival rule serves
//! both of the engine's paths (a stored packet's `enqueue`, and `admit` from the port's
//! backlog).

use super::{Enqueued, Offer, QueueDisc};
use crate::engine::{PacketId, PacketPool};
use dctc_core::units::SimTime;
use std::collections::VecDeque;

/// Packets in arrival order and their bytes, under a byte limit.
#[derive(Debug)]
pub struct Fifo {
    q: VecDeque<PacketId>,
    bytes: u64,
    capacity: u64,
}

impl Fifo {
    /// An empty FIFO holding at most `capacity` bytes, with room for `slots` packets before
    /// it grows.
    pub fn new(capacity: u64, slots: usize) -> Self {
        Fifo {
            q: VecDeque::with_capacity(slots),
            bytes: 0,
            capacity,
        }
    }

    /// Whether `size` more bytes fit.
    #[inline]
    pub fn fits(&self, size: u64) -> bool {
        self.bytes + size <= self.capacity
    }

    /// Appends `pkt` if it fits; `Err` otherwise (the caller decides what to drop).
    #[inline]
    pub fn push(&mut self, pkt: PacketId, pool: &PacketPool) -> Result<(), PacketId> {
        let size = pool[pkt].wire_bytes as u64;
        if !self.fits(size) {
            return Err(pkt);
        }
        self.bytes += size;
        self.q.push_back(pkt);
        Ok(())
    }

    /// Removes and returns the head packet.
    #[inline]
    pub fn pop(&mut self, pool: &PacketPool) -> Option<PacketId> {
        let p = self.q.pop_front()?;
        self.bytes -= pool[p].wire_bytes as u64;
        Some(p)
    }

    /// Bytes waiting.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Packets waiting.
    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// Whether nothing waits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// The byte limit.
    #[inline]
    pub fn capacity(&self) -> u64 {
        self.capacity
    }
}

/// The [`QueueDisc`] size methods of a discipline that keeps its packets in the [`Fifo`]
/// field `$f`.
macro_rules! fifo_sizes {
    ($f:ident) => {
        #[inline]
        fn bytes(&self) -> u64 {
            self.$f.bytes()
        }
        #[inline]
        fn len(&self) -> usize {
            self.$f.len()
        }
        fn capacity(&self) -> u64 {
            self.$f.capacity()
        }
    };
}
pub(crate) use fifo_sizes;

/// What a FIFO that decides at arrival does with an arrival that fits its buffer.
pub trait ArrivalRule: std::fmt::Debug {
    /// Accepts `offer`, which brings the port's queue to `queued` bytes (the arrival
    /// included; at most `capacity`), and may mark it (CE in `offer.ecn`, which the caller
    /// carries to the header) or rewrite its header's extension fields in `pool`; returns
    /// whether it set CE. A rule that needs no more than the offer reads no pool entry, so a
    /// switch hop reads none.
    fn accept(
        &mut self,
        offer: &mut Offer,
        pool: &mut PacketPool,
        queued: u64,
        capacity: u64,
    ) -> bool;
}

/// A FIFO with a byte limit whose arrival rule decides at arrival: an arrival that does not
/// fit is dropped, one that fits is accepted under `R`.
#[derive(Debug)]
pub struct ArrivalFifo<R> {
    fifo: Fifo,
    rule: R,
}

impl<R: ArrivalRule> ArrivalFifo<R> {
    /// A FIFO of `capacity` bytes under `rule`.
    pub fn with_rule(capacity: u64, rule: R) -> Self {
        ArrivalFifo {
            fifo: Fifo::new(capacity, 16),
            rule,
        }
    }

    /// The arrival rule.
    pub fn rule(&self) -> &R {
        &self.rule
    }
}

impl<R: ArrivalRule> QueueDisc for ArrivalFifo<R> {
    #[inline]
    fn enqueue(&mut self, pkt: PacketId, pool: &mut PacketPool, _now: SimTime) -> Enqueued {
        if let Err(p) = self.fifo.push(pkt, pool) {
            return Enqueued::Dropped(p);
        }
        let mut offer = Offer::of(pkt, pool);
        let marked = self
            .rule
            .accept(&mut offer, pool, self.fifo.bytes(), self.fifo.capacity());
        // A stored packet's header is where its mark travels.
        pool[pkt].ecn = offer.ecn;
        Enqueued::Queued { marked }
    }
    #[inline]
    fn dequeue(&mut self, pool: &mut PacketPool, _now: SimTime) -> Option<PacketId> {
        self.fifo.pop(pool)
    }
    fifo_sizes!(fifo);
    fn fifo_at_arrival(&self) -> bool {
        true
    }
    #[inline]
    fn admit(&mut self, offer: &mut Offer, pool: &mut PacketPool, backlog_bytes: u64) -> Enqueued {
        let total = backlog_bytes + offer.wire_bytes as u64;
        if total > self.fifo.capacity() {
            return Enqueued::Dropped(offer.pkt);
        }
        let marked = self.rule.accept(offer, pool, total, self.fifo.capacity());
        Enqueued::Queued { marked }
    }
}
