//! FQ-CoDel (RFC 8290): flows hashed into buckets, deficit round robin between them with
//! priority for newly active buckets, CoDel on each bucket, and on a full buffer a head drop
//! from the bucket holding the most bytes.
//!
//! The bucket machinery (`FlowQueues`) is shared with sfqCoDel, which is the same structure
//! with a single round-robin list (no new-flow priority) and no drop batch.

use super::codel::{
    check_buffer, check_switch_buffer, CodelKeys, CodelParams, CodelQueue, CodelState,
    CodelStats, MTU_BYTES,
};
use super::{Context, Discipline, Enqueued, QueueDisc, QueueParamError};
use crate::engine::{PacketId, PacketPool};
use dctc_core::error::KeyError;
use dctc_core::rng::mix64;
use dctc_core::units::{Rate, SimTime};

/// No node / no bucket.
const NIL: u32 = u32::MAX;

/// The most buckets a port may hash into (Linux's limit for fq_codel's `flows`).
pub const MAX_BUCKETS: u32 = 65_536;

/// FQ-CoDel's parameters. The buffer overflows when either limit would be exceeded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FqCodelParams {
    /// Hash buckets (RFC 8290 §4.1 / §5.1; Linux `flows`, default 1024).
    pub buckets: u32,
    /// DRR quantum in bytes (RFC 8290 §4.2 / §5.3; default one 1500 B MTU).
    pub quantum: u32,
    /// Buffer limit in bytes, shared by all buckets.
    pub limit_bytes: u64,
    /// Buffer limit in packets (RFC 8290 §5.2 / Linux `limit`, default 10240).
    pub limit_packets: u32,
    /// The most packets one overflow drops from the fattest bucket (Linux `drop_batch`, 64);
    /// a batch also stops once it has dropped half of that bucket's bytes.
    pub drop_batch: u32,
    /// CoDel on each bucket.
    pub codel: CodelParams,
}

impl Default for FqCodelParams {
    /// 1024 buckets, a 1500 B quantum, 10240 packets (of up to 1500 B), a drop batch of 64,
    /// and the datacenter CoDel setting (target 5 us, interval 100 us).
    fn default() -> Self {
        FqCodelParams {
            buckets: 1024,
            quantum: MTU_BYTES as u32,
            limit_bytes: 10_240 * MTU_BYTES,
            limit_packets: 10_240,
            drop_batch: 64,
            codel: CodelParams::default(),
        }
    }
}

/// Checks the parameters every hashed-bucket discipline shares.
pub(crate) fn check_flow_params(
    buckets: u32,
    quantum: u32,
    limit_bytes: u64,
    limit_packets: u32,
    codel: &CodelParams,
) -> Result<(), QueueParamError> {
    if buckets == 0 {
        return Err(QueueParamError::new("buckets", "must be positive"));
    }
    if buckets > MAX_BUCKETS {
        return Err(QueueParamError::new("buckets", "must be at most 65536"));
    }
    if quantum == 0 {
        return Err(QueueParamError::new("quantum", "must be positive"));
    }
    check_buffer("limit_bytes", limit_bytes)?;
    if limit_packets == 0 {
        return Err(QueueParamError::new("limit_packets", "must be positive"));
    }
    codel.validate()
}

impl FqCodelParams {
    /// Checks every field (the error names the first bad one).
    pub fn validate(&self) -> Result<(), QueueParamError> {
        check_flow_params(
            self.buckets,
            self.quantum,
            self.limit_bytes,
            self.limit_packets,
            &self.codel,
        )?;
        if self.drop_batch == 0 {
            return Err(QueueParamError::new("drop_batch", "must be positive"));
        }
        Ok(())
    }
}

/// What a hashed-bucket discipline dropped and marked (cumulative).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowQueueStats {
    /// Drops and CE marks by CoDel at dequeue.
    pub codel: CodelStats,
    /// Packets dropped from the fattest bucket because the buffer was full.
    pub overflow_drops: u64,
}

/// One bucket's packets, oldest first: a list chained through the packets' own
/// `queue_next` field, so queueing a packet allocates nothing and touches no memory beyond
/// the packet and its bucket.
#[derive(Copy, Clone, Debug)]
struct Fifo {
    /// The oldest packet's index in the pool, `NIL` when empty.
    head: u32,
    /// The newest packet's index, `NIL` when empty.
    tail: u32,
    bytes: u64,
}

/// Which scheduling list a bucket is on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum On {
    Neither,
    New,
    Old,
}

/// One bucket's state: its packets, its place in the schedule, its CoDel and which bucket
/// holds its slot. 63 bytes, so aligned to 64 each bucket is one cache line (at 72 bytes
/// unaligned, seven buckets in eight straddled two).
#[derive(Clone, Debug)]
#[repr(align(64))]
struct Bucket {
    fifo: Fifo,
    /// DRR credit in bytes (RFC 8290 §4.2 `deficit`).
    deficit: i64,
    on: On,
    /// The next bucket on the same list.
    next: u32,
    /// The bucket whose state this slot holds (bucket numbers are below 65,536).
    owner: u16,
    codel: CodelState,
}

impl Bucket {
    /// The state of bucket `owner`, which has never held a packet.
    fn fresh(owner: u32) -> Bucket {
        Bucket {
            fifo: Fifo {
                head: NIL,
                tail: NIL,
                bytes: 0,
            },
            deficit: 0,
            on: On::Neither,
            next: NIL,
            owner: owner as u16,
            codel: CodelState::default(),
        }
    }
}

/// A singly linked list of buckets (by slot).
#[derive(Copy, Clone, Debug)]
struct List {
    head: u32,
    tail: u32,
}

impl List {
    const EMPTY: List = List {
        head: NIL,
        tail: NIL,
    };
}

/// A bucket seen by CoDel: pops update the port's totals, and the MTU rule looks at the
/// port's whole backlog (as Linux's fq_codel does).
struct BucketView<'a> {
    fifo: &'a mut Fifo,
    bytes: &'a mut u64,
    len: &'a mut u32,
}

#[inline]
fn pop_fifo(fifo: &mut Fifo, pool: &PacketPool) -> Option<(PacketId, u64)> {
    if fifo.head == NIL {
        return None;
    }
    let pkt = PacketId(fifo.head);
    let p = &pool[pkt];
    fifo.head = p.queue_next;
    if fifo.head == NIL {
        fifo.tail = NIL;
    }
    let size = p.wire_bytes as u64;
    fifo.bytes -= size;
    Some((pkt, size))
}

impl CodelQueue for BucketView<'_> {
    #[inline]
    fn pop(&mut self, pool: &PacketPool) -> Option<PacketId> {
        let (pkt, size) = pop_fifo(self.fifo, pool)?;
        *self.bytes -= size;
        *self.len -= 1;
        Some(pkt)
    }
    #[inline]
    fn backlog_bytes(&self) -> u64 {
        *self.bytes
    }
}

/// Hashed buckets served by deficit round robin, CoDel per bucket (RFC 8290 §4). With
/// `new_flow_priority` a newly active bucket goes on the new-flows list (FQ-CoDel); without,
/// every bucket joins the tail of the one round-robin list (sfqCoDel).
///
/// A bucket's state lives in a slot only while it matters: a bucket that leaves the lists
/// with a CoDel state that acts as a new one's would ([`CodelState::is_fresh`]) gives its
/// slot back, and gets a fresh one when a packet next hashes to it. What the discipline does
/// is the same as with a state per bucket, but the few buckets in use share a handful of
/// cache lines instead of being scattered over the whole table (1024 x 64 B per port).
///
/// The fields are laid out in cache-line order (`repr(C)`, 64 B aligned): what every
/// enqueue and dequeue reads comes first, in two lines; the drop and mark hand-over next;
/// the slot bookkeeping and the rest last.
#[derive(Debug)]
#[repr(C, align(64))]
pub(crate) struct FlowQueues {
    // Line 0: where a packet goes.
    /// The slot holding each bucket's state; `NIL` while the bucket has none (its state is
    /// then a fresh bucket's).
    slot_of: Box<[u32]>,
    /// The states of the buckets that hold slots. The lists link slots, not buckets.
    slots: Vec<Bucket>,
    /// Per-port hash key derived from the seed.
    key: u64,
    new_flows: List,
    old_flows: List,
    // Line 1: totals, limits, parameters.
    bytes: u64,
    limit_bytes: u64,
    quantum: i64,
    codel: CodelParams,
    len: u32,
    limit_packets: u32,
    drop_batch: u32,
    new_flow_priority: bool,
    // Line 2: what the engine collects after each call.
    /// The bucket the last packet went to and its slot (bucket `NIL` once that slot is given
    /// back): a train of one flow's packets skips the `slot_of` load, on a busy fabric a
    /// cache miss (1024 x 4 B per port).
    recent: (u32, u32),
    dropped: Vec<PacketId>,
    stats: FlowQueueStats,
    /// `stats.codel.marks` already handed to the engine by `take_marks`.
    marks_taken: u64,
    // Then the slot bookkeeping.
    /// Slots given back, reused newest first.
    spare: Vec<u32>,
    /// Keep every slot (tests compare the two ways).
    #[cfg(test)]
    keep_slots: bool,
}

impl FlowQueues {
    /// Checked by the callers' `validate`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        buckets: u32,
        quantum: u32,
        limit_bytes: u64,
        limit_packets: u32,
        drop_batch: u32,
        codel: CodelParams,
        seed: u64,
        new_flow_priority: bool,
    ) -> Self {
        let slots = (buckets as usize).min(64);
        FlowQueues {
            slot_of: vec![NIL; buckets as usize].into_boxed_slice(),
            slots: Vec::with_capacity(slots),
            spare: Vec::with_capacity(slots),
            #[cfg(test)]
            keep_slots: false,
            new_flows: List::EMPTY,
            old_flows: List::EMPTY,
            bytes: 0,
            len: 0,
            limit_bytes,
            limit_packets,
            quantum: quantum as i64,
            drop_batch,
            codel,
            key: mix64(seed ^ 0x6671_5f63_6f64_656c),
            new_flow_priority,
            dropped: Vec::with_capacity(drop_batch.clamp(16, 1024) as usize),
            stats: FlowQueueStats::default(),
            marks_taken: 0,
            recent: (NIL, NIL),
        }
    }

    /// The bucket a flow hash lands in (RFC 8290 §4.1: a seeded hash, so collisions differ
    /// across ports and seeds but repeat with the same seed). Multiply-shift reduction of a
    /// keyed mix, so any bucket count works.
    #[inline]
    pub(crate) fn bucket_of(&self, hash: u64) -> u32 {
        ((mix64(hash ^ self.key) as u128 * self.slot_of.len() as u128) >> 64) as u32
    }

    /// The slot of bucket `b`, taking a fresh one if it has none.
    #[inline]
    fn slot(&mut self, b: u32) -> u32 {
        if self.recent.0 == b {
            return self.recent.1;
        }
        let s = self.slot_of[b as usize];
        if s != NIL {
            self.recent = (b, s);
            return s;
        }
        let s = match self.spare.pop() {
            Some(s) => {
                self.slots[s as usize] = Bucket::fresh(b);
                s
            }
            None => {
                self.slots.push(Bucket::fresh(b));
                (self.slots.len() - 1) as u32
            }
        };
        self.slot_of[b as usize] = s;
        self.recent = (b, s);
        s
    }

    /// Slot `s` has just left the lists: give it back if its bucket's state is as good as
    /// new from `now` on (empty, off the lists, CoDel fresh; the deficit is reset on the
    /// next activation anyway).
    #[inline]
    fn maybe_release(&mut self, s: u32, now: SimTime) {
        #[cfg(test)]
        if self.keep_slots {
            return;
        }
        let slot = &self.slots[s as usize];
        if slot.codel.is_fresh(&self.codel, now) {
            if self.recent.1 == s {
                self.recent.0 = NIL;
            }
            self.slot_of[slot.owner as usize] = NIL;
            self.spare.push(s);
        }
    }

    fn push_list(&mut self, which: On, b: u32) {
        self.slots[b as usize].next = NIL;
        self.slots[b as usize].on = which;
        let list = match which {
            On::New => &mut self.new_flows,
            On::Old => &mut self.old_flows,
            On::Neither => unreachable!("only the two lists are lists"),
        };
        if list.tail == NIL {
            list.head = b;
        } else {
            self.slots[list.tail as usize].next = b;
        }
        list.tail = b;
    }

    /// Unlinks the head bucket of `which` and returns it.
    fn pop_list(&mut self, which: On) -> u32 {
        let list = match which {
            On::New => &mut self.new_flows,
            On::Old => &mut self.old_flows,
            On::Neither => unreachable!("only the two lists are lists"),
        };
        let b = list.head;
        list.head = self.slots[b as usize].next;
        if list.head == NIL {
            list.tail = NIL;
        }
        self.slots[b as usize].next = NIL;
        self.slots[b as usize].on = On::Neither;
        b
    }

    /// The active bucket holding the most bytes (the first such on the lists on a tie).
    fn fattest(&self) -> u32 {
        let mut best = (NIL, 0u64);
        for list in [self.new_flows, self.old_flows] {
            let mut b = list.head;
            while b != NIL {
                let bytes = self.slots[b as usize].fifo.bytes;
                if best.0 == NIL || bytes > best.1 {
                    best = (b, bytes);
                }
                b = self.slots[b as usize].next;
            }
        }
        best.0
    }

    fn over_limit(&self) -> bool {
        self.bytes > self.limit_bytes || self.len > self.limit_packets
    }

    /// RFC 8290 §4.1: timestamp, hash to a bucket, append; a bucket on neither list joins
    /// the new-flows list (FQ-CoDel) or the tail of the round (sfqCoDel) with one quantum of
    /// credit. Then, while over the limit, head-drop from the fattest bucket.
    #[inline]
    pub(crate) fn enqueue(
        &mut self,
        pkt: PacketId,
        pool: &mut PacketPool,
        now: SimTime,
    ) -> Enqueued {
        let p = &mut pool[pkt];
        p.enqueued_at = now;
        p.queue_next = NIL;
        let size = p.wire_bytes as u64;
        let b = self.bucket_of(p.hash);
        let b = self.slot(b);
        let bucket = &mut self.slots[b as usize];
        if bucket.fifo.tail == NIL {
            bucket.fifo.head = pkt.0;
        } else {
            pool[PacketId(bucket.fifo.tail)].queue_next = pkt.0;
        }
        bucket.fifo.tail = pkt.0;
        bucket.fifo.bytes += size;
        self.bytes += size;
        self.len += 1;
        if bucket.on == On::Neither {
            bucket.deficit = self.quantum;
            let list = if self.new_flow_priority {
                On::New
            } else {
                On::Old
            };
            self.push_list(list, b);
        }
        if !self.over_limit() {
            return Enqueued::Queued { marked: false };
        }
        let start = self.dropped.len();
        while self.over_limit() {
            self.drop_from_fattest(pool);
        }
        // The first victim goes back to the caller, the rest through `drain_dropped`.
        Enqueued::Dropped(self.dropped.swap_remove(start))
    }

    /// Linux fq_codel's overflow drop: from the bucket with the most bytes, drop from the head
    /// until `drop_batch` packets or half of its bytes are gone (at least one packet).
    fn drop_from_fattest(&mut self, pool: &PacketPool) {
        let b = self.fattest();
        let bucket = &mut self.slots[b as usize];
        let half = bucket.fifo.bytes / 2;
        let (mut n, mut gone) = (0u32, 0u64);
        while let Some((pkt, size)) = pop_fifo(&mut bucket.fifo, pool) {
            self.bytes -= size;
            self.len -= 1;
            self.dropped.push(pkt);
            self.stats.overflow_drops += 1;
            n += 1;
            gone += size;
            if n >= self.drop_batch || gone >= half {
                break;
            }
        }
    }

    /// RFC 8290 §4.2: serve the head of new-flows, else of old-flows. A bucket out of credit
    /// gets another quantum and moves to the tail of old-flows; an empty bucket from
    /// new-flows moves to the tail of old-flows (so it cannot come straight back as new),
    /// an empty bucket from old-flows leaves the lists.
    #[inline]
    pub(crate) fn dequeue(&mut self, pool: &mut PacketPool, now: SimTime) -> Option<PacketId> {
        loop {
            let which = if self.new_flows.head != NIL {
                On::New
            } else if self.old_flows.head != NIL {
                On::Old
            } else {
                return None;
            };
            let b = match which {
                On::New => self.new_flows.head,
                _ => self.old_flows.head,
            };
            if self.slots[b as usize].deficit <= 0 {
                self.slots[b as usize].deficit += self.quantum;
                self.pop_list(which);
                self.push_list(On::Old, b);
                continue;
            }
            let bucket = &mut self.slots[b as usize];
            let mut view = BucketView {
                fifo: &mut bucket.fifo,
                bytes: &mut self.bytes,
                len: &mut self.len,
            };
            let got = bucket.codel.dequeue(
                &self.codel,
                &mut view,
                pool,
                now,
                &mut self.dropped,
                &mut self.stats.codel,
            );
            match got {
                Some(pkt) => {
                    bucket.deficit -= pool[pkt].wire_bytes as i64;
                    return Some(pkt);
                }
                None => {
                    self.pop_list(which);
                    if which == On::New {
                        self.push_list(On::Old, b);
                    } else {
                        self.maybe_release(b, now);
                    }
                }
            }
        }
    }

    #[inline]
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    pub(crate) fn limit_bytes(&self) -> u64 {
        self.limit_bytes
    }

    /// CoDel marks since the last call.
    #[inline]
    pub(crate) fn take_marks(&mut self) -> u64 {
        let new = self.stats.codel.marks - self.marks_taken;
        self.marks_taken = self.stats.codel.marks;
        new
    }

    pub(crate) fn stats(&self) -> FlowQueueStats {
        self.stats
    }

    /// Bytes queued in bucket `b`.
    pub(crate) fn bucket_bytes(&self, b: u32) -> u64 {
        match self.slot_of[b as usize] {
            NIL => 0,
            s => self.slots[s as usize].fifo.bytes,
        }
    }

    /// Slots in use (held by buckets).
    #[cfg(test)]
    pub(crate) fn slots_held(&self) -> usize {
        self.slots.len() - self.spare.len()
    }

    /// Keeps every bucket's slot once taken, as a table of per-bucket states would.
    #[cfg(test)]
    pub(crate) fn keep_slots(&mut self) {
        self.keep_slots = true;
    }

    #[inline]
    pub(crate) fn drain_dropped(&mut self, out: &mut Vec<PacketId>) {
        if !self.dropped.is_empty() {
            out.append(&mut self.dropped);
        }
    }
}

/// FQ-CoDel on one output port (RFC 8290, with Linux's fattest-bucket overflow drop).
#[derive(Debug)]
#[repr(C)]
pub struct FqCodel {
    q: FlowQueues,
    params: FqCodelParams,
}

impl FqCodel {
    /// FQ-CoDel with `params`, hashing with a key derived from `seed` (give each port its
    /// own seed so that which flows collide is reproducible but differs between ports).
    pub fn new(params: FqCodelParams, seed: u64) -> Result<Self, QueueParamError> {
        params.validate()?;
        Ok(FqCodel {
            q: FlowQueues::new(
                params.buckets,
                params.quantum,
                params.limit_bytes,
                params.limit_packets,
                params.drop_batch,
                params.codel,
                seed,
                true,
            ),
            params,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &FqCodelParams {
        &self.params
    }
}

/// `QueueDisc` and the bucket accessors for a discipline that is a [`FlowQueues`] in field `q`
/// (FQ-CoDel, sfqCoDel): every call goes to the shared bucket machinery.
macro_rules! flow_queues_disc {
    ($t:ty) => {
        impl $t {
            /// The bucket packets with flow hash `hash` go to.
            pub fn bucket_of(&self, hash: u64) -> u32 {
                self.q.bucket_of(hash)
            }

            /// Bytes queued in bucket `b`.
            pub fn bucket_bytes(&self, b: u32) -> u64 {
                self.q.bucket_bytes(b)
            }

            /// Drops and marks so far.
            pub fn stats(&self) -> FlowQueueStats {
                self.q.stats()
            }
        }

        impl QueueDisc for $t {
            #[inline]
            fn enqueue(&mut self, pkt: PacketId, pool: &mut PacketPool, now: SimTime) -> Enqueued {
                self.q.enqueue(pkt, pool, now)
            }
            #[inline]
            fn dequeue(&mut self, pool: &mut PacketPool, now: SimTime) -> Option<PacketId> {
                self.q.dequeue(pool, now)
            }
            #[inline]
            fn bytes(&self) -> u64 {
                self.q.bytes()
            }
            #[inline]
            fn len(&self) -> usize {
                self.q.len()
            }
            fn capacity(&self) -> u64 {
                self.q.limit_bytes()
            }
            #[inline]
            fn drain_dropped(&mut self, out: &mut Vec<PacketId>) {
                self.q.drain_dropped(out);
            }
            #[inline]
            fn take_marks(&mut self) -> u64 {
                self.q.take_marks()
            }
        }
    };
}
pub(crate) use flow_queues_disc;

flow_queues_disc!(FqCodel);

crate::unit_keys! {
    /// The bucket keys of `fq-codel` (`sfqcodel` takes the first two).
    pub struct FqKeys {
        /// Hash buckets (RFC 8290 §5.1), 1..=65536 (default 1024).
        fq_buckets: i64,
        /// DRR quantum (RFC 8290 §5.3), bytes, positive (default 1500).
        fq_quantum_bytes: i64,
        /// Most packets one overflow drops from the fattest bucket (Linux `drop_batch`),
        /// positive (default 64).
        fq_drop_batch: i64,
    }
}

/// `fq_buckets` and `fq_quantum_bytes` checked, each `None` when not given.
pub(crate) fn bucket_keys(
    ctx: &Context,
    buckets: Option<i64>,
    quantum: Option<i64>,
) -> Result<(Option<u32>, Option<u32>), KeyError> {
    let b = ctx.at.count("fq_buckets", buckets, 1, MAX_BUCKETS as i64)?;
    let q = ctx.at.count("fq_quantum_bytes", quantum, 1, u32::MAX as i64)?;
    Ok((b.map(|x| x as u32), q.map(|x| x as u32)))
}

impl Discipline for FqCodelParams {
    const NAME: &'static str = "fq-codel";
    const ABOUT: &'static str = "FQ-CoDel (RFC 8290): fq_buckets hashed flows, DRR with fq_quantum_bytes, new-flow priority, CoDel per bucket";
    type Keys = (CodelKeys, FqKeys);
    type Queue = Box<FqCodel>;
    fn resolve((codel, fq): &(CodelKeys, FqKeys), ctx: &Context) -> Result<Self, KeyError> {
        let codel = codel.params(ctx)?;
        let (buckets, quantum) = bucket_keys(ctx, fq.fq_buckets, fq.fq_quantum_bytes)?;
        let batch = ctx.at.count("fq_drop_batch", fq.fq_drop_batch, 1, u32::MAX as i64)?;
        check_switch_buffer(ctx)?;
        let d = FqCodelParams::default();
        Ok(FqCodelParams {
            buckets: buckets.unwrap_or(d.buckets),
            quantum: quantum.unwrap_or(d.quantum),
            drop_batch: batch.map_or(d.drop_batch, |x| x as u32),
            limit_bytes: ctx.buffer_bytes,
            codel,
            ..d
        })
    }
    /// `limit_bytes` becomes the port's buffer.
    fn build(&self, buffer_bytes: u64, seed: u64, _rate: Rate) -> Box<FqCodel> {
        let p = FqCodelParams {
            limit_bytes: buffer_bytes,
            ..*self
        };
        Box::new(FqCodel::new(p, seed).expect("checked when the scheme was resolved"))
    }
}

#[cfg(test)]
pub(crate) mod tests;
