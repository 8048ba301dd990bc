//! CoDel (Controlled Delay, RFC 8289): a FIFO whose dequeue drops (or CE-marks) packets once
//! their sojourn time has stayed above `target` for at least `interval`, at a rate that grows
//! with the square root of the drops so far.
//!
//! The state machine is [`CodelState`], kept apart from the storage so that FQ-CoDel and
//! sfqCoDel run one per bucket; [`Codel`] is the single-FIFO discipline built from it. The
//! sojourn time is `now - enqueued_at` at dequeue, i.e. when the port starts serializing.

use super::fifo::{fifo_sizes, Fifo};
use super::{Context, Discipline, Enqueued, QueueDisc};
use crate::engine::{PacketId, PacketPool};
use crate::keys::Range;
use dctc_core::error::KeyError;
use dctc_core::units::{Delta, Rate, SimTime};

/// The largest packet on the wire in bytes (RFC 8289 `MAXPACKET`): CoDel never drops while at
/// most this much waits, and every buffer must hold at least one such packet.
pub const MTU_BYTES: u64 = 1500;

/// A bad queue-discipline parameter: which one and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{param}: {reason}")]
pub struct QueueParamError {
    /// The parameter's name (as a scenario key would spell it).
    pub param: &'static str,
    /// What is wrong with its value.
    pub reason: &'static str,
}

impl QueueParamError {
    pub(crate) fn new(param: &'static str, reason: &'static str) -> Self {
        QueueParamError { param, reason }
    }
}

/// Checks that a buffer of `bytes` holds at least one full-size packet.
pub(crate) fn check_buffer(param: &'static str, bytes: u64) -> Result<(), QueueParamError> {
    if bytes < MTU_BYTES {
        return Err(QueueParamError::new(
            param,
            "must hold at least one 1500 B packet",
        ));
    }
    Ok(())
}

/// CoDel's parameters (RFC 8289 §4.2-4.3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CodelParams {
    /// Acceptable standing sojourn time (RFC 8289 `TARGET`).
    pub target: Delta,
    /// The window over which sojourn must stay above target before dropping starts, and the
    /// base of the control law (RFC 8289 `INTERVAL`).
    pub interval: Delta,
    /// CE-mark ECN-capable packets instead of dropping them (RFC 8289 §5.6 allows either).
    pub ecn: bool,
}

impl Default for CodelParams {
    /// The datacenter setting of the FQ-CoDel-in-the-datacenter paper: the Internet defaults
    /// (5 ms, 100 ms) divided by 1000.
    fn default() -> Self {
        CodelParams {
            target: Delta::from_us(5),
            interval: Delta::from_us(100),
            ecn: false,
        }
    }
}

impl CodelParams {
    /// Checks that target and interval are positive and target < interval.
    pub fn validate(&self) -> Result<(), QueueParamError> {
        if self.target == Delta::ZERO {
            return Err(QueueParamError::new("target", "must be positive"));
        }
        if self.interval == Delta::ZERO {
            return Err(QueueParamError::new("interval", "must be positive"));
        }
        if self.target >= self.interval {
            return Err(QueueParamError::new(
                "target",
                "must be shorter than interval",
            ));
        }
        Ok(())
    }

    /// RFC 8289 §5.5 `control_law(t, count) = t + interval / sqrt(count)`.
    #[inline]
    pub fn control_law(&self, t: SimTime, count: u32) -> SimTime {
        let step = (self.interval.0 as f64 / (count.max(1) as f64).sqrt()).round() as u64;
        t + Delta(step)
    }
}

/// The packet storage CoDel dequeues from: one FIFO plus the backlog the MTU rule looks at.
pub trait CodelQueue {
    /// Removes and returns the head packet, if any.
    fn pop(&mut self, pool: &PacketPool) -> Option<PacketId>;
    /// Bytes still waiting after the last pop, for RFC 8289's "fewer than one MTU queued"
    /// rule. FQ-CoDel passes the whole port's backlog here, as Linux does.
    fn backlog_bytes(&self) -> u64;
}

/// Drops and marks CoDel made (cumulative).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CodelStats {
    /// Packets dropped by the control law.
    pub drops: u64,
    /// Packets CE-marked instead of dropped.
    pub marks: u64,
}

/// CoDel's per-queue state (RFC 8289 §5.4).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CodelState {
    /// When sojourn has been above target for `interval`, if it is above target now
    /// (`first_above_time`, RFC 8289 §5.4), valid while `above`; `ZERO` otherwise, so that
    /// equal states compare equal.
    first_above_time: SimTime,
    /// The next drop time while dropping (`drop_next`).
    drop_next: SimTime,
    /// Drops since entering the dropping state (`count`).
    count: u32,
    /// `count` when the dropping state was last entered (`lastcount`).
    lastcount: u32,
    /// Whether in the dropping state (`dropping`).
    dropping: bool,
    /// Whether `first_above_time` is set (the RFC's `first_above_time != 0`). A flag beside
    /// `dropping` rather than an `Option`, whose tag would take 8 more bytes: the state
    /// packs into 32 bytes, and an FQ-CoDel bucket with it into one cache line.
    above: bool,
}

impl CodelState {
    /// The drop count the control law uses.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Whether CoDel is in its dropping state.
    pub fn dropping(&self) -> bool {
        self.dropping
    }

    /// When the next drop is due while dropping.
    pub fn drop_next(&self) -> SimTime {
        self.drop_next
    }

    /// RFC 8289 §5.5: whether a return to the dropping state at `now` counts as recent
    /// (within 16 intervals of the last scheduled drop), so that `count` resumes near its
    /// old value instead of restarting at 1.
    #[inline]
    fn recent(&self, p: &CodelParams, now: SimTime) -> bool {
        now.0 < self.drop_next.0.saturating_add(16 * p.interval.0)
    }

    /// Whether this state acts exactly as a new queue's would at `now` and after: not
    /// dropping, no sojourn above target pending, and the RFC's re-entry rule would restart
    /// `count` at 1 (at most one drop since the state was last entered, or that was no longer
    /// recent, which stays so as time goes on). FQ-CoDel's idle buckets rely on it to give
    /// their state back.
    #[inline]
    pub(crate) fn is_fresh(&self, p: &CodelParams, now: SimTime) -> bool {
        !self.dropping
            && !self.above
            && (self.count.wrapping_sub(self.lastcount) <= 1 || !self.recent(p, now))
    }

    /// `first_above_time = 0` (RFC 8289 §5.4): sojourn is below target.
    #[inline(always)]
    fn clear_above(&mut self) {
        self.above = false;
        self.first_above_time = SimTime::ZERO;
    }

    /// RFC 8289 §5.5 `dodequeue`: pops the head and says whether it may be dropped.
    #[inline]
    fn dodequeue<Q: CodelQueue + ?Sized>(
        &mut self,
        p: &CodelParams,
        q: &mut Q,
        pool: &PacketPool,
        now: SimTime,
    ) -> (Option<PacketId>, bool) {
        let Some(pkt) = q.pop(pool) else {
            self.clear_above();
            return (None, false);
        };
        let sojourn = now.saturating_since(pool[pkt].enqueued_at);
        if sojourn < p.target || q.backlog_bytes() <= MTU_BYTES {
            self.clear_above();
            return (Some(pkt), false);
        }
        if self.above {
            (Some(pkt), now >= self.first_above_time)
        } else {
            self.above = true;
            self.first_above_time = now + p.interval;
            (Some(pkt), false)
        }
    }

    /// Marks `pkt` CE if ECN is on and the packet is ECN-capable; says whether it did.
    #[inline]
    fn try_mark(p: &CodelParams, pkt: PacketId, pool: &mut PacketPool) -> bool {
        if p.ecn && pool[pkt].ecn.ect {
            pool[pkt].ecn.ce = true;
            true
        } else {
            false
        }
    }

    /// RFC 8289 §5.5 `dequeue`: the next packet to send from `q`, pushing what the control
    /// law drops onto `dropped`. With ECN on, an ECN-capable packet due to be dropped is
    /// marked and sent instead (as Linux's CoDel does), and the law advances the same way.
    #[inline]
    pub fn dequeue<Q: CodelQueue + ?Sized>(
        &mut self,
        p: &CodelParams,
        q: &mut Q,
        pool: &mut PacketPool,
        now: SimTime,
        dropped: &mut Vec<PacketId>,
        stats: &mut CodelStats,
    ) -> Option<PacketId> {
        let (mut pkt, mut ok_to_drop) = self.dodequeue(p, q, pool, now);
        if self.dropping {
            if !ok_to_drop {
                // Sojourn went below target: leave the dropping state.
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                let head = pkt.expect("ok_to_drop implies a packet");
                self.count += 1;
                if Self::try_mark(p, head, pool) {
                    stats.marks += 1;
                    // RFC 8289 §5.5: next drop at control_law(drop_next, count).
                    self.drop_next = p.control_law(self.drop_next, self.count);
                    return Some(head);
                }
                dropped.push(head);
                stats.drops += 1;
                (pkt, ok_to_drop) = self.dodequeue(p, q, pool, now);
                if !ok_to_drop {
                    self.dropping = false;
                } else {
                    self.drop_next = p.control_law(self.drop_next, self.count);
                }
            }
        } else if ok_to_drop {
            let head = pkt.expect("ok_to_drop implies a packet");
            if Self::try_mark(p, head, pool) {
                stats.marks += 1;
            } else {
                dropped.push(head);
                stats.drops += 1;
                (pkt, _) = self.dodequeue(p, q, pool, now);
            }
            self.dropping = true;
            // RFC 8289 §5.5: if we were dropping recently (within 16 intervals of the last
            // scheduled drop), resume near the old rate: count = count - lastcount.
            let delta = self.count.wrapping_sub(self.lastcount);
            self.count = if delta > 1 && self.recent(p, now) {
                delta
            } else {
                1
            };
            self.drop_next = p.control_law(now, self.count);
            self.lastcount = self.count;
        }
        pkt
    }
}

/// A FIFO with CoDel at dequeue and a tail-drop byte limit (RFC 8289 §4.4: CoDel still
/// needs a finite buffer).
#[derive(Debug)]
pub struct Codel {
    fifo: Fifo,
    state: CodelState,
    params: CodelParams,
    dropped: Vec<PacketId>,
    stats: CodelStats,
    /// `stats.marks` already handed to the engine by `take_marks`.
    marks_taken: u64,
}

impl CodelQueue for Fifo {
    #[inline]
    fn pop(&mut self, pool: &PacketPool) -> Option<PacketId> {
        Fifo::pop(self, pool)
    }
    #[inline]
    fn backlog_bytes(&self) -> u64 {
        self.bytes()
    }
}

impl Codel {
    /// A CoDel queue holding at most `capacity` bytes.
    pub fn new(capacity: u64, params: CodelParams) -> Result<Self, QueueParamError> {
        params.validate()?;
        check_buffer("buffer_bytes", capacity)?;
        let slots = (capacity / MTU_BYTES).clamp(16, 1 << 16) as usize;
        Ok(Codel {
            fifo: Fifo::new(capacity, slots),
            state: CodelState::default(),
            params,
            dropped: Vec::with_capacity(64),
            stats: CodelStats::default(),
            marks_taken: 0,
        })
    }

    /// The control-law state.
    pub fn state(&self) -> &CodelState {
        &self.state
    }

    /// Drops and marks made at dequeue so far (tail drops are not counted here).
    pub fn stats(&self) -> CodelStats {
        self.stats
    }

    /// The parameters.
    pub fn params(&self) -> &CodelParams {
        &self.params
    }
}

impl QueueDisc for Codel {
    #[inline]
    fn enqueue(&mut self, pkt: PacketId, pool: &mut PacketPool, now: SimTime) -> Enqueued {
        if let Err(p) = self.fifo.push(pkt, pool) {
            return Enqueued::Dropped(p);
        }
        pool[pkt].enqueued_at = now;
        Enqueued::Queued { marked: false }
    }
    #[inline]
    fn dequeue(&mut self, pool: &mut PacketPool, now: SimTime) -> Option<PacketId> {
        self.state.dequeue(
            &self.params,
            &mut self.fifo,
            pool,
            now,
            &mut self.dropped,
            &mut self.stats,
        )
    }
    fifo_sizes!(fifo);
    #[inline]
    fn drain_dropped(&mut self, out: &mut Vec<PacketId>) {
        if !self.dropped.is_empty() {
            out.append(&mut self.dropped);
        }
    }
    #[inline]
    fn take_marks(&mut self) -> u64 {
        let new = self.stats.marks - self.marks_taken;
        self.marks_taken = self.stats.marks;
        new
    }
}

crate::unit_keys! {
    /// CoDel's keys, shared by every discipline that runs CoDel (`codel`, `fq-codel`,
    /// `sfqcodel`). Defaults: the datacenter setting of the FQ-CoDel-in-the-datacenter
    /// paper, the Internet's 5 ms / 100 ms divided by 1000.
    pub struct CodelKeys {
        /// TARGET (RFC 8289 §4.3), microseconds, positive (default 5).
        codel_target_us: f64,
        /// INTERVAL (RFC 8289 §4.2), microseconds, above the target (default 100).
        codel_interval_us: f64,
        /// CE-mark ECN-capable packets instead of dropping them (RFC 8289 §5.6; default off).
        codel_ecn: bool,
    }
}

impl CodelKeys {
    /// The CoDel parameters these keys set, checked.
    pub fn params(&self, ctx: &Context) -> Result<CodelParams, KeyError> {
        let d = CodelParams::default();
        let p = CodelParams {
            target: (ctx.at)
                .micros("codel_target_us", self.codel_target_us, Range::POSITIVE)?
                .unwrap_or(d.target),
            interval: (ctx.at)
                .micros("codel_interval_us", self.codel_interval_us, Range::POSITIVE)?
                .unwrap_or(d.interval),
            ecn: self.codel_ecn.unwrap_or(d.ecn),
        };
        // Positive microseconds may still round to zero picoseconds.
        for (key, v) in [("codel_target_us", p.target), ("codel_interval_us", p.interval)] {
            if v == Delta::ZERO {
                return Err(ctx.at.error(key, "must be at least one picosecond"));
            }
        }
        if p.target >= p.interval {
            return Err(ctx.at.error(
                "codel_target_us",
                format!("must be shorter than interval (codel_interval_us, {})", p.interval),
            ));
        }
        Ok(p)
    }
}

/// Refuses switch buffers that cannot hold one full packet (the byte limit of every port
/// comes from the fabric, or `buffer_packets`).
pub(crate) fn check_switch_buffer(ctx: &Context) -> Result<(), KeyError> {
    check_buffer("buffer_bytes", ctx.buffer_bytes).map_err(|e| {
        ctx.at.error(
            "queue",
            format!("switch buffers of {} B: {}", ctx.buffer_bytes, e.reason),
        )
    })
}

impl Discipline for CodelParams {
    const NAME: &'static str = "codel";
    const ABOUT: &'static str = "CoDel (RFC 8289): drops at dequeue once sojourn stays above codel_target_us for codel_interval_us";
    type Keys = CodelKeys;
    type Queue = Box<Codel>;
    fn resolve(keys: &CodelKeys, ctx: &Context) -> Result<Self, KeyError> {
        let p = keys.params(ctx)?;
        check_switch_buffer(ctx)?;
        Ok(p)
    }
    fn build(&self, buffer_bytes: u64, _seed: u64, _rate: Rate) -> Box<Codel> {
        Box::new(Codel::new(buffer_bytes, *self).expect("checked when the scheme was resolved"))
    }
}

#[cfg(test)]
mod tests;
