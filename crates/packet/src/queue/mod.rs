//! Queue disciplines: what an output port does with a packet on arrival and which packet it
//! sends next. One file per discipline; [`Queue`] is the closed set the engine dispatches on
//! (an enum rather than `Box<dyn>` so the hot path inlines).
//!
//! A discipline sees every packet at enqueue and at dequeue with write access to the pool, so
//! it can mark (ECN), drop any packet (pFabric drops the lowest priority, maybe not the
//! arrival), reorder (priority, DRR, fair queuing) and rewrite header fields (TFC, XCP). Per-port
//! timers (CoDel, TFC, XCP) come through [`QueueDisc::poll_at`] / [`QueueDisc::on_timer`].

pub mod codel;
pub mod droptail;
pub mod ecn;
pub mod fq_codel;
pub mod holnet;
pub mod pfabric;
pub mod sfq_codel;
pub mod tfc;
pub mod xcp;

pub use codel::{Codel, CodelParams, QueueParamError};
pub use droptail::DropTail;
pub use ecn::EcnThreshold;
pub use fq_codel::{FqCodel, FqCodelParams};
pub use holnet::HolnetMark;
pub use pfabric::PFabric;
pub use sfq_codel::{SfqCodel, SfqCodelParams};
pub use tfc::{Tfc, TfcParams};
pub use xcp::{XcpParams, XcpRouter};

use crate::engine::{PacketId, PacketPool};
use crate::packet::Ecn;

/// A packet offered to a discipline that decides at arrival ([`QueueDisc::admit`]): which it
/// is, and its size and ECN bits as they travel with it from port to port, so that admission
/// reads nothing from the pool. A CE mark is set in `ecn`; the engine carries it to the
/// packet's header before anything else reads it (see `sim::pipe`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Offer {
    /// The packet.
    pub pkt: PacketId,
    /// Bytes on the wire.
    pub wire_bytes: u32,
    /// ECN bits as set so far.
    pub ecn: Ecn,
}

impl Offer {
    /// The offer of `pool[pkt]` as its header reads now.
    pub fn of(pkt: PacketId, pool: &PacketPool) -> Offer {
        let p = &pool[pkt];
        Offer {
            pkt,
            wire_bytes: p.wire_bytes,
            ecn: p.ecn,
        }
    }
}
use dctc_core::units::SimTime;

/// What happened to an arriving packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Enqueued {
    /// Queued; `marked` if it got a CE mark.
    Queued {
        /// Whether the discipline set CE on it.
        marked: bool,
    },
    /// The buffer could not take it; this packet (the arrival or another) was dropped and
    /// must be freed by the caller.
    Dropped(PacketId),
}

/// A queue discipline of one output port. Byte counts exclude the packet being serialized.
pub trait QueueDisc {
    /// Offers a packet; `now` is its arrival time.
    fn enqueue(&mut self, pkt: PacketId, pool: &mut PacketPool, now: SimTime) -> Enqueued;
    /// The next packet to serialize, if any.
    fn dequeue(&mut self, pool: &mut PacketPool, now: SimTime) -> Option<PacketId>;
    /// Bytes waiting.
    fn bytes(&self) -> u64;
    /// Packets waiting.
    fn len(&self) -> usize;
    /// Whether nothing waits.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The buffer size in bytes.
    fn capacity(&self) -> u64;
    /// When the discipline next needs [`QueueDisc::on_timer`]; never by default.
    fn poll_at(&self) -> SimTime {
        SimTime::NEVER
    }
    /// A per-port timer fired.
    fn on_timer(&mut self, _pool: &mut PacketPool, _now: SimTime) {}
    /// Whether the discipline is a FIFO that decides everything at arrival from the port's
    /// backlog ([`QueueDisc::admit`]). The engine then never stores its packets: a FIFO
    /// packet's departure time is known when it arrives, so it goes straight onto the link
    /// with no departure event (about a third fewer events per hop).
    fn fifo_at_arrival(&self) -> bool {
        false
    }
    /// For [`QueueDisc::fifo_at_arrival`] disciplines: drop or accept (and maybe mark, in
    /// `offer.ecn`) an arrival given `backlog_bytes`, the port's unfinished work including
    /// the rest of the packet being serialized.
    fn admit(
        &mut self,
        offer: &mut Offer,
        _pool: &mut PacketPool,
        _backlog_bytes: u64,
    ) -> Enqueued {
        Enqueued::Dropped(offer.pkt)
    }
    /// Hands over packets the discipline dropped outside `enqueue` (at dequeue or on a timer,
    /// as CoDel does); the engine frees and counts them. None by default.
    fn drain_dropped(&mut self, _out: &mut Vec<PacketId>) {}
    /// CE marks made outside `enqueue` (at dequeue or on a timer) since the last call; the
    /// engine adds them to its mark counters. None by default.
    fn take_marks(&mut self) -> u64 {
        0
    }
}

/// The disciplines this build knows, dispatched without virtual calls. The FIFOs decided at
/// arrival are held inline; the stored-queue disciplines, whose state is several times a
/// FIFO's, are boxed so that every port stays small (a port is touched on every hop, and the
/// enum is as large as its largest variant).
#[derive(Debug)]
pub enum Queue {
    /// FIFO, drop the arrival when full.
    DropTail(DropTail),
    /// FIFO with CE marks above an instantaneous threshold (DCTCP).
    Ecn(EcnThreshold),
    /// CoDel (RFC 8289) over one FIFO.
    Codel(Box<Codel>),
    /// FQ-CoDel (RFC 8290).
    FqCodel(Box<FqCodel>),
    /// Stochastic fair queueing with CoDel per bucket.
    SfqCodel(Box<SfqCodel>),
    /// pFabric's priority queue with priority dropping.
    PFabric(Box<PFabric>),
    /// TFC's switch port: tokens, effective flows, window, delay arbiter.
    Tfc(Box<Tfc>),
    /// XCP's router: a FIFO that writes explicit window feedback into data packets.
    Xcp(Box<XcpRouter>),
    /// FIFO with HOLNET's per-hop congestion bits (80% of the buffer).
    Holnet(HolnetMark),
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            Queue::DropTail($q) => $e,
            Queue::Ecn($q) => $e,
            Queue::Codel($q) => $e,
            Queue::FqCodel($q) => $e,
            Queue::SfqCodel($q) => $e,
            Queue::PFabric($q) => $e,
            Queue::Tfc($q) => $e,
            Queue::Xcp($q) => $e,
            Queue::Holnet($q) => $e,
        }
    };
}

impl QueueDisc for Queue {
    #[inline]
    fn enqueue(&mut self, pkt: PacketId, pool: &mut PacketPool, now: SimTime) -> Enqueued {
        dispatch!(self, q => q.enqueue(pkt, pool, now))
    }
    #[inline]
    fn dequeue(&mut self, pool: &mut PacketPool, now: SimTime) -> Option<PacketId> {
        dispatch!(self, q => q.dequeue(pool, now))
    }
    #[inline]
    fn bytes(&self) -> u64 {
        dispatch!(self, q => q.bytes())
    }
    #[inline]
    fn len(&self) -> usize {
        dispatch!(self, q => q.len())
    }
    fn capacity(&self) -> u64 {
        dispatch!(self, q => q.capacity())
    }
    fn poll_at(&self) -> SimTime {
        dispatch!(self, q => q.poll_at())
    }
    fn on_timer(&mut self, pool: &mut PacketPool, now: SimTime) {
        dispatch!(self, q => q.on_timer(pool, now))
    }
    fn fifo_at_arrival(&self) -> bool {
        dispatch!(self, q => q.fifo_at_arrival())
    }
    #[inline(always)]
    fn admit(&mut self, offer: &mut Offer, pool: &mut PacketPool, backlog_bytes: u64) -> Enqueued {
        dispatch!(self, q => q.admit(offer, pool, backlog_bytes))
    }
    #[inline]
    fn drain_dropped(&mut self, out: &mut Vec<PacketId>) {
        dispatch!(self, q => q.drain_dropped(out))
    }
    #[inline]
    fn take_marks(&mut self) -> u64 {
        dispatch!(self, q => q.take_marks())
    }
}

/// A discipline the engine's stored-queue path (enqueue, departure, timer) is compiled for
/// as a concrete type: the port's [`Queue`] is matched once per call of that path, and every
/// discipline call inside it inlines (a dispatch per call cost about as much as FQ-CoDel's
/// own work). [`Queue`] itself is the catch-all, dispatching per call as before.
pub(crate) trait Stored: QueueDisc {
    /// The discipline never asks for a timer ([`QueueDisc::poll_at`] is always `NEVER`), so
    /// what it sends next is decided only by its own packets and the time: the engine may
    /// settle its departures when the port is next looked at, with no event of their own.
    const TIMERLESS: bool;
    /// The discipline inside `q`, which holds this variant.
    fn of(q: &mut Queue) -> &mut Self;
}

impl Stored for Queue {
    const TIMERLESS: bool = false;
    #[inline(always)]
    fn of(q: &mut Queue) -> &mut Self {
        q
    }
}

/// [`Stored`] for the boxed variants the engine compiles its stored path for.
macro_rules! stored_variants {
    ($($v:ident($t:ty)),*) => {$(
        impl Stored for $t {
            const TIMERLESS: bool = true;
            #[inline(always)]
            fn of(q: &mut Queue) -> &mut Self {
                match q {
                    Queue::$v(b) => b,
                    _ => unreachable!(concat!("the port's queue is ", stringify!($v))),
                }
            }
        }
    )*};
}
stored_variants!(
    FqCodel(FqCodel),
    SfqCodel(SfqCodel),
    Codel(Codel),
    PFabric(PFabric)
);

#[cfg(test)]
mod tests;
