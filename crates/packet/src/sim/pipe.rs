//! A link's packets in flight, oldest first: a ring buffer whose push and pop inline into the
//! per-hop path. Each entry carries what the switches on the packet's way read of it (its
//! destination, flow hash, size and ECN bits), so a hop reads the entry and not the pool.
//!
//! `std::collections::VecDeque` does the same job, but whether its `push_back` inlines into
//! the event loop is the inliner's call, and it flips with unrelated changes elsewhere in the
//! loop: when it stopped inlining, DCTCP's bench ran 1.7% more instructions through a call per
//! packet-hop. Here the operations a hop uses are `#[inline(always)]` and only growth is out
//! of line.

use crate::engine::PacketId;
use crate::packet::{Ecn, Packet};
use crate::queue::Offer;
use dctc_core::ids::NodeId;
use dctc_core::units::SimTime;

/// One packet on a link (or being offered to a port): when it reaches the far end, where it
/// goes, its flow hash, and the [`Offer`] a port's discipline reads (which packet, its size and
/// ECN bits): what forwarding reads of a packet. Half a cache line, aligned so that no
/// entry straddles two.
///
/// While a packet crosses ports that decide at arrival, its CE mark is set here only; the
/// engine writes the ECN bits back to the pool before anything else reads them (a stored
/// queue's discipline, the receiving host).
#[derive(Copy, Clone, Debug, PartialEq)]
#[repr(align(32))]
pub(crate) struct InFlight {
    /// When it reaches the far end of the link.
    pub(crate) at: SimTime,
    /// The flow hash (per-flow ECMP).
    pub(crate) hash: u64,
    /// Its destination.
    pub(crate) dst: NodeId,
    /// The packet, its size and ECN bits.
    pub(crate) offer: Offer,
}

impl InFlight {
    /// Packet `pkt`, whose header is `p`, due at `at`.
    #[inline(always)]
    pub(crate) fn of(pkt: PacketId, p: &Packet, at: SimTime) -> InFlight {
        InFlight {
            at,
            hash: p.hash,
            dst: p.dst,
            offer: Offer {
                pkt,
                wire_bytes: p.wire_bytes,
                ecn: p.ecn,
            },
        }
    }
}

/// The value of an unused ring slot.
const VACANT: InFlight = InFlight {
    at: SimTime::ZERO,
    hash: 0,
    dst: NodeId(0),
    offer: Offer {
        pkt: PacketId(0),
        wire_bytes: 0,
        ecn: Ecn {
            ect: false,
            ce: false,
            ece: false,
        },
    },
};

/// A FIFO of [`InFlight`] packets (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Pipe {
    /// The slots; the capacity is zero or a power of two.
    buf: Box<[InFlight]>,
    /// The oldest packet's slot.
    head: u32,
    len: u32,
}

impl Pipe {
    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    #[inline(always)]
    fn slot(&self, k: u32) -> usize {
        (self.head.wrapping_add(k) as usize) & (self.buf.len() - 1)
    }

    /// The oldest packet.
    #[inline(always)]
    pub(crate) fn front(&self) -> Option<&InFlight> {
        (self.len != 0).then(|| &self.buf[self.head as usize])
    }

    /// The newest packet.
    #[inline(always)]
    pub(crate) fn back(&self) -> Option<&InFlight> {
        (self.len != 0).then(|| &self.buf[self.slot(self.len - 1)])
    }

    #[inline(always)]
    pub(crate) fn push_back(&mut self, p: InFlight) {
        if self.len as usize == self.buf.len() {
            self.grow();
        }
        let i = self.slot(self.len);
        self.buf[i] = p;
        self.len += 1;
    }

    #[inline(always)]
    pub(crate) fn pop_front(&mut self) -> Option<InFlight> {
        if self.len == 0 {
            return None;
        }
        let p = self.buf[self.head as usize];
        self.head = self.slot(1) as u32;
        self.len -= 1;
        Some(p)
    }

    /// Oldest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &InFlight> {
        (0..self.len).map(|k| &self.buf[self.slot(k)])
    }

    /// Doubles the capacity (at least 8), keeping the order; the oldest moves to slot 0.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = (self.buf.len() * 2).max(8);
        let mut buf = vec![VACANT; cap].into_boxed_slice();
        for (k, p) in self.iter().enumerate() {
            buf[k] = *p;
        }
        self.buf = buf;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn an_entry_is_half_a_cache_line() {
        assert_eq!(std::mem::size_of::<InFlight>(), 32);
        assert_eq!(std::mem::align_of::<InFlight>(), 32);
    }

    #[test]
    fn a_pipe_keeps_fifo_order_through_wraps_and_growth() {
        // Against VecDeque, over pushes and pops that wrap the ring and make it grow twice.
        let (mut pipe, mut model) = (Pipe::default(), VecDeque::new());
        let mut rng = dctc_core::rng::component_rng(3, 0);
        let mut next = 0u32;
        for step in 0..20_000 {
            // Mostly pushes at first, mostly pops at the end.
            let push =
                rand::Rng::random_range(&mut rng, 0..100) < if step < 10_000 { 55 } else { 45 };
            if push {
                let mut p = VACANT;
                p.at = SimTime(next as u64 * 7);
                p.offer.pkt = PacketId(next);
                pipe.push_back(p);
                model.push_back(p);
                next += 1;
            } else {
                assert_eq!(pipe.pop_front(), model.pop_front());
            }
            assert_eq!(pipe.len(), model.len());
            assert_eq!(pipe.front(), model.front());
            assert_eq!(pipe.back(), model.back());
        }
        assert!(
            pipe.buf.len() >= 16,
            "the ring grew ({} slots)",
            pipe.buf.len()
        );
        assert!(pipe.iter().eq(model.iter()));
        while let Some(p) = model.pop_front() {
            assert_eq!(pipe.pop_front(), Some(p));
        }
        assert!(pipe.is_empty() && pipe.front().is_none() && pipe.back().is_none());
    }
}
