//! Queue disciplines: what an output port does with a packet on arrival and which packet it
//! sends next. One file per discipline; [`Queue`] is the closed set the engine dispatches on
//! (an enum rather than `Box<dyn>` so the hot path inlines).
//!
//! A discipline sees every packet at enqueue and at dequeue with write access to the pool, so
//! it can mark (ECN), drop any packet (pFabric drops the lowest priority, maybe not the
//! arrival), reorder (priority, DRR, fair queuing) and rewrite header fields (TFC, XCP). Per-port
//! timers (CoDel, TFC, XCP) come through [`QueueDisc::poll_at`] / [`QueueDisc::on_timer`].

pub mod fifo;

pub use codel::{Codel, CodelParams, QueueParamError};
pub use droptail::{DropTail, DropTailParams};
pub use ecn::{EcnParams, EcnThreshold};
pub use fq_codel::{FqCodel, FqCodelParams};
pub use holnet::{HolnetMark, HolnetParams};
pub use pfabric::{PFabric, PFabricParams};
pub use sfq_codel::{SfqCodel, SfqCodelParams};
pub use tfc::{Tfc, TfcParams, TokenFeed};
pub use xcp::{XcpParams, XcpRouter};

use crate::engine::{PacketId, PacketPool};
use crate::keys::{At, Keys, ParseTable};
use crate::packet::Ecn;
use dctc_core::error::KeyError;
use dctc_core::units::Rate;
use dctc_core::units::SimTime;

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
    /// The discipline's own state now, for `[output] port_state_sample_us`: its values in the
    /// order of its [`Discipline::STATE_FIELDS`] pushed onto `out`, and whether it has any yet
    /// (a TFC port before its first time slot has none). Read only at sample times, never on a
    /// packet's path. None by default.
    fn state(&self, _out: &mut Vec<f64>) -> bool {
        false
    }
}

/// A boxed discipline is the discipline (the stored-queue disciplines sit in [`Queue`]
/// boxed).
impl<Q: QueueDisc + ?Sized> QueueDisc for Box<Q> {
    #[inline(always)]
    fn enqueue(&mut self, pkt: PacketId, pool: &mut PacketPool, now: SimTime) -> Enqueued {
        (**self).enqueue(pkt, pool, now)
    }
    #[inline(always)]
    fn dequeue(&mut self, pool: &mut PacketPool, now: SimTime) -> Option<PacketId> {
        (**self).dequeue(pool, now)
    }
    #[inline(always)]
    fn bytes(&self) -> u64 {
        (**self).bytes()
    }
    #[inline(always)]
    fn len(&self) -> usize {
        (**self).len()
    }
    #[inline(always)]
    fn is_empty(&self) -> bool {
        (**self).is_empty()
    }
    #[inline(always)]
    fn capacity(&self) -> u64 {
        (**self).capacity()
    }
    #[inline(always)]
    fn poll_at(&self) -> SimTime {
        (**self).poll_at()
    }
    #[inline(always)]
    fn on_timer(&mut self, pool: &mut PacketPool, now: SimTime) {
        (**self).on_timer(pool, now)
    }
    #[inline(always)]
    fn fifo_at_arrival(&self) -> bool {
        (**self).fifo_at_arrival()
    }
    #[inline(always)]
    fn admit(&mut self, offer: &mut Offer, pool: &mut PacketPool, backlog_bytes: u64) -> Enqueued {
        (**self).admit(offer, pool, backlog_bytes)
    }
    #[inline(always)]
    fn drain_dropped(&mut self, out: &mut Vec<PacketId>) {
        (**self).drain_dropped(out)
    }
    #[inline(always)]
    fn take_marks(&mut self) -> u64 {
        (**self).take_marks()
    }
    fn state(&self, out: &mut Vec<f64>) -> bool {
        (**self).state(out)
    }
}

/// A queue discipline as a registered unit, implemented by its parameters: what one
/// `[[schemes]]` table resolves to, from which every port's queue is built.
///
/// Its module (`queue/<name>.rs`) declares the discipline, its keys and this impl; one line
/// of `disciplines!` registers it: that line declares the module, the [`Queue`] and
/// [`QueueSpec`] variants, the dispatch, the `queue = "<name>"` value every scheme table
/// accepts, the keys the table hands it, and its `dctc list` row ([`QUEUES`]).
pub trait Discipline: Copy + std::fmt::Debug + PartialEq + Eq {
    /// Its name: `queue = "<NAME>"`, outputs, `dctc list`.
    const NAME: &'static str;
    /// One line for `dctc list`.
    const ABOUT: &'static str;
    /// Its keys in a scheme table (each also accepted in `[packet]`, as every scheme's
    /// default): made by [`unit_keys!`](crate::unit_keys).
    type Keys: Keys;
    /// One port's queue: the discipline itself, boxed where its state is larger than a
    /// FIFO's (every port holds a [`Queue`], and a test keeps it within one cache line).
    type Queue: QueueDisc;
    /// Checks the keys given (errors through `ctx.at.error(key, reason)`).
    fn resolve(keys: &Self::Keys, ctx: &Context) -> Result<Self, KeyError>;
    /// The queue of a port with a `buffer_bytes` buffer feeding a link of `rate` (the
    /// capacity rate-based disciplines compute with); `seed` keys the port's flow hash
    /// ([`QueueSpec::port_seed`]).
    fn build(&self, buffer_bytes: u64, seed: u64, rate: Rate) -> Self::Queue;
    /// What host NICs run when the scheme keeps `nic_queue = "droptail"`: `None` (the
    /// default), DropTail; a discipline that must act at NICs too returns its NIC form.
    fn host_nic(&self) -> Option<Self> {
        None
    }
    /// The names of the values its ports report with [`QueueDisc::state`] (units in the
    /// name: `rtt_b_us`); none by default.
    const STATE_FIELDS: &'static [&'static str] = &[];
}

/// What a discipline's [`Discipline::resolve`] may read besides its keys.
#[derive(Copy, Clone, Debug)]
pub struct Context<'a> {
    /// Where its keys sit (`schemes[1]`).
    pub at: At<'a>,
    /// The smallest switch-port buffer the scheme runs with, bytes (the fabric's, or
    /// `buffer_packets`).
    pub buffer_bytes: u64,
    /// The scheme's full segment, payload bytes.
    pub mss: u64,
    /// The scheme's header bytes per packet.
    pub header: u64,
    /// The first host's link rate.
    pub host_rate: Rate,
}

/// Implements [`QueueDisc`] for [`Queue`] by matching each registered variant.
macro_rules! dispatch_queue {
    ($($v:ident),*) => {
        impl QueueDisc for Queue {
            #[inline]
            fn enqueue(&mut self, pkt: PacketId, pool: &mut PacketPool, now: SimTime) -> Enqueued {
                match self { $(Queue::$v(q) => q.enqueue(pkt, pool, now),)* }
            }
            #[inline]
            fn dequeue(&mut self, pool: &mut PacketPool, now: SimTime) -> Option<PacketId> {
                match self { $(Queue::$v(q) => q.dequeue(pool, now),)* }
            }
            #[inline]
            fn bytes(&self) -> u64 {
                match self { $(Queue::$v(q) => q.bytes(),)* }
            }
            #[inline]
            fn len(&self) -> usize {
                match self { $(Queue::$v(q) => q.len(),)* }
            }
            fn capacity(&self) -> u64 {
                match self { $(Queue::$v(q) => q.capacity(),)* }
            }
            fn poll_at(&self) -> SimTime {
                match self { $(Queue::$v(q) => q.poll_at(),)* }
            }
            fn on_timer(&mut self, pool: &mut PacketPool, now: SimTime) {
                match self { $(Queue::$v(q) => q.on_timer(pool, now),)* }
            }
            fn fifo_at_arrival(&self) -> bool {
                match self { $(Queue::$v(q) => q.fifo_at_arrival(),)* }
            }
            #[inline(always)]
            fn admit(&mut self, offer: &mut Offer, pool: &mut PacketPool, backlog_bytes: u64) -> Enqueued {
                match self { $(Queue::$v(q) => q.admit(offer, pool, backlog_bytes),)* }
            }
            #[inline]
            fn drain_dropped(&mut self, out: &mut Vec<PacketId>) {
                match self { $(Queue::$v(q) => q.drain_dropped(out),)* }
            }
            #[inline]
            fn take_marks(&mut self) -> u64 {
                match self { $(Queue::$v(q) => q.take_marks(),)* }
            }
            fn state(&self, out: &mut Vec<f64>) -> bool {
                match self { $(Queue::$v(q) => q.state(out),)* }
            }
        }
    };
}

/// Registers the disciplines, one line each: `Variant(module::Params)` for
/// `queue/<module>.rs`, whose `Params` implements [`Discipline`].
macro_rules! disciplines {
    ($($(#[$doc:meta])* $v:ident($m:ident::$p:ident),)*) => {
        $(pub mod $m;)*

        /// The disciplines this build knows, dispatched without virtual calls (the hot path
        /// inlines). The FIFOs decided at arrival are held inline; the stored-queue
        /// disciplines, whose state is several times a FIFO's, are boxed so that every port
        /// stays small (a port is touched on every hop, and the enum is as large as its
        /// largest variant).
        #[derive(Debug)]
        pub enum Queue {
            $($(#[$doc])* $v(<$m::$p as Discipline>::Queue),)*
        }

        dispatch_queue!($($v),*);

        /// A queue discipline with its parameters, built once per port.
        #[derive(Copy, Clone, Debug, PartialEq, Eq)]
        pub enum QueueSpec {
            $($(#[$doc])* $v($m::$p),)*
        }

        /// Queue disciplines a scheme table may name with `queue = "..."`: name,
        /// description.
        pub const QUEUES: &[(&str, &str)] = &[
            $((<$m::$p as Discipline>::NAME, <$m::$p as Discipline>::ABOUT),)*
        ];

        /// Every discipline's keys as the `[packet]` table sets them (defaults for every
        /// scheme whose switch queue uses them).
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct QueueKeys {
            $(
                #[doc = concat!("The `", stringify!($m), "` discipline's.")]
                pub $m: <$m::$p as Discipline>::Keys,
            )*
        }

        impl QueueKeys {
            /// Every discipline's keys in `table`.
            pub fn read(table: &impl ParseTable) -> Result<QueueKeys, KeyError> {
                Ok(QueueKeys { $($m: Keys::read(table)?,)* })
            }
        }

        impl QueueSpec {
            /// Its name in [`QUEUES`].
            pub fn name(&self) -> &'static str {
                match self { $(QueueSpec::$v(_) => <$m::$p as Discipline>::NAME,)* }
            }

            /// The queue of a port (see [`Discipline::build`]).
            pub fn build(&self, buffer_bytes: u64, seed: u64, rate: Rate) -> Queue {
                match self { $(QueueSpec::$v(p) => Queue::$v(p.build(buffer_bytes, seed, rate)),)* }
            }

            /// The names of the state values its ports report ([`Discipline::STATE_FIELDS`]).
            pub fn state_fields(&self) -> &'static [&'static str] {
                match self { $(QueueSpec::$v(_) => <$m::$p as Discipline>::STATE_FIELDS,)* }
            }

            /// What host NICs run unless the scheme puts the switch discipline there.
            pub fn host_nic(&self) -> QueueSpec {
                let nic = match self { $(QueueSpec::$v(p) => p.host_nic().map(QueueSpec::$v),)* };
                nic.unwrap_or(QueueSpec::DropTail(droptail::DropTailParams))
            }

            /// Discipline `name` with its keys of `table` over `defaults` (the `[packet]`
            /// table's), checked; `None` if no discipline has that name.
            pub fn resolve(
                name: &str,
                table: &impl ParseTable,
                defaults: &QueueKeys,
                ctx: &Context,
            ) -> Option<Result<QueueSpec, KeyError>> {
                $(if name == <$m::$p as Discipline>::NAME {
                    let keys = <$m::$p as Discipline>::Keys::read(table);
                    return Some(keys.and_then(|k| {
                        let d = &defaults.$m;
                        if *d != Default::default() {
                            // A bad default is reported where it is written.
                            let at = Context { at: At("packet"), ..*ctx };
                            <$m::$p as Discipline>::resolve(d, &at)?;
                        }
                        let p = <$m::$p as Discipline>::resolve(&k.or(d), ctx)?;
                        Ok(QueueSpec::$v(p))
                    }));
                })*
                None
            }

            /// Every discipline's name and the JSON Schema of its keys.
            pub fn schemas(
                generator: &mut schemars::SchemaGenerator,
            ) -> Vec<(&'static str, schemars::Schema)> {
                vec![$((<$m::$p as Discipline>::NAME, <<$m::$p as Discipline>::Keys as Keys>::schema(generator)),)*]
            }

            /// The names of the disciplines whose ports report a state
            /// ([`Discipline::STATE_FIELDS`]).
            pub fn reporting_state() -> Vec<&'static str> {
                [$((<$m::$p as Discipline>::NAME, <$m::$p as Discipline>::STATE_FIELDS.len()),)*]
                    .into_iter()
                    .filter(|(_, n)| *n > 0)
                    .map(|(name, _)| name)
                    .collect()
            }

            /// Every discipline's name and keys.
            pub fn keys() -> Vec<(&'static str, Vec<&'static str>)> {
                vec![$((<$m::$p as Discipline>::NAME, <<$m::$p as Discipline>::Keys as Keys>::names()),)*]
            }
        }
    };
}

disciplines! {
    /// FIFO, drop the arrival when full.
    DropTail(droptail::DropTailParams),
    /// FIFO with CE marks above an instantaneous threshold (DCTCP).
    Ecn(ecn::EcnParams),
    /// CoDel (RFC 8289) over one FIFO.
    Codel(codel::CodelParams),
    /// FQ-CoDel (RFC 8290).
    FqCodel(fq_codel::FqCodelParams),
    /// Stochastic fair queueing with CoDel per bucket.
    SfqCodel(sfq_codel::SfqCodelParams),
    /// pFabric's priority queue with priority dropping.
    PFabric(pfabric::PFabricParams),
    /// TFC's switch port: tokens, effective flows, window, delay arbiter.
    Tfc(tfc::TfcParams),
    /// XCP's router: a FIFO that writes explicit window feedback into data packets.
    Xcp(xcp::XcpParams),
    /// FIFO with HOLNET's per-hop congestion bits (80% of the buffer).
    Holnet(holnet::HolnetParams),
    /// RED with ECN, gentle mode (RFC 2309, RFC 3168).
    Red(red::RedParams),
}

impl QueueSpec {
    /// The hash key of port (link) `link` in a run seeded with `run_seed`: drawn from the
    /// queue stream of `dctc_core::rng` and mixed with the link index, so which flows share
    /// a bucket is reproducible per port and differs between ports.
    pub fn port_seed(run_seed: u64, link: usize) -> u64 {
        use rand::Rng;
        let key: u64 =
            dctc_core::rng::component_rng(run_seed, dctc_core::rng::streams::QUEUE).random();
        dctc_core::rng::mix64(key ^ dctc_core::rng::mix64(link as u64))
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
