//! The pFabric switch queue (Alizadeh et al., "pFabric: Minimal Near-Optimal Datacenter
//! Transport", SIGCOMM 2013, §4.1): every packet carries a priority
//! ([`HeaderExt::priority`](crate::packet::HeaderExt::priority), the flow's remaining bytes;
//! smaller is more urgent).
//!
//! - Dequeue: find the highest-priority packet, then send the *earliest* queued packet of
//!   that packet's flow, so a flow is never reordered (pFabric §4.1).
//! - Enqueue on a full buffer: drop the lowest-priority packet, which may be one already
//!   queued or the arrival itself (ties: the latest arrival goes).
//! - The buffer is small (about 2 x BDP), so both are linear scans over a preallocated array,
//!   as pFabric's switch hardware does; nothing is allocated per packet. The array is kept in
//!   arrival order, so ties go by position and a flow's earliest packet is its first entry.
//!
//! ACKs (key `pfabric_ack_priority`): pFabric's priority is a property of a flow's *data*
//! (§4.1: the remaining flow size); an ACK carries no data and clocks its flow. The rule
//! here is the reference behaviour: every pure ACK ranks highest (priority 0), ahead of any
//! data, and so is the last packet a full port drops. pFabric's ns-2 code and YAPS, an
//! independent pFabric simulator, both do so; with that rule YAPS and dctc agree within 6%
//! on every flow-size class of the pFabric experiment (issue 25). `"data"` instead ranks an
//! ACK with the priority of the data packet it answers (the fields its receiver echoes), so
//! a long flow's ACKs wait behind, and are dropped before, every shorter flow's data on the
//! reverse path: its window stalls on lost ACKs and it times out repeatedly.

use super::codel::{check_buffer, check_switch_buffer};
use super::{Context, Discipline, Enqueued, QueueDisc, QueueParamError};
use crate::engine::{PacketId, PacketPool};
use crate::packet::PacketKind;
use dctc_core::error::{unknown_name, KeyError};
use dctc_core::units::{Rate, SimTime};

/// One queued packet with what the scans read, copied at enqueue.
#[derive(Copy, Clone, Debug)]
struct Entry {
    priority: u64,
    pkt: PacketId,
    flow: u32,
    bytes: u32,
}

/// How a pFabric port ranks pure ACKs (see the module doc).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum AckPriority {
    /// Every ACK ranks highest (priority 0): pFabric's reference code, the default.
    #[default]
    Highest,
    /// An ACK ranks as the data packet it answers (the priority its receiver echoes).
    Data,
}

impl AckPriority {
    /// The key's values, by name.
    pub const NAMES: &'static [(&'static str, AckPriority)] =
        &[("highest", AckPriority::Highest), ("data", AckPriority::Data)];
}

/// pFabric's priority queue with priority dropping.
#[derive(Debug)]
pub struct PFabric {
    /// Queued packets, earliest arrival first.
    entries: Vec<Entry>,
    bytes: u64,
    capacity: u64,
    dropped: Vec<PacketId>,
    acks: AckPriority,
}

impl PFabric {
    /// A pFabric queue holding at most `buffer_bytes` (the paper: about 2 x BDP, 36 KB at
    /// 10 Gb/s); it must hold one 1500 B packet.
    pub fn new(buffer_bytes: u64) -> Result<Self, QueueParamError> {
        check_buffer("buffer_bytes", buffer_bytes)?;
        // Room for the buffer full of 64 B packets, so the array never grows in a run.
        let slots = (buffer_bytes / 64 + 1).min(1 << 16) as usize;
        Ok(PFabric {
            entries: Vec::with_capacity(slots),
            bytes: 0,
            capacity: buffer_bytes,
            dropped: Vec::with_capacity(16),
            acks: AckPriority::Highest,
        })
    }

    /// The same queue ranking pure ACKs by `acks`.
    pub fn with_acks(mut self, acks: AckPriority) -> Self {
        self.acks = acks;
        self
    }

    /// The index of the lowest-priority entry (largest value; the latest on a tie).
    fn lowest(&self) -> usize {
        let mut best = 0;
        let mut worst = 0;
        for (i, e) in self.entries.iter().enumerate() {
            if e.priority >= worst {
                (best, worst) = (i, e.priority);
            }
        }
        best
    }
}

impl QueueDisc for PFabric {
    #[inline]
    fn enqueue(&mut self, pkt: PacketId, pool: &mut PacketPool, now: SimTime) -> Enqueued {
        let p = &pool[pkt];
        let priority = if p.kind == PacketKind::Ack && self.acks == AckPriority::Highest {
            0
        } else {
            pool.ext(pkt).priority
        };
        let p = &mut pool[pkt];
        p.enqueued_at = now;
        self.entries.push(Entry {
            priority,
            pkt,
            flow: p.flow,
            bytes: p.wire_bytes,
        });
        self.bytes += p.wire_bytes as u64;
        let mut first = None;
        while self.bytes > self.capacity {
            let e = self.entries.remove(self.lowest());
            self.bytes -= e.bytes as u64;
            match first {
                None => first = Some(e.pkt),
                Some(_) => self.dropped.push(e.pkt),
            }
        }
        match first {
            None => Enqueued::Queued { marked: false },
            Some(d) => Enqueued::Dropped(d),
        }
    }

    #[inline]
    fn dequeue(&mut self, _pool: &mut PacketPool, _now: SimTime) -> Option<PacketId> {
        // The highest-priority packet (earliest on a tie) picks the flow...
        let mut top = self.entries.first()?;
        for e in &self.entries[1..] {
            if e.priority < top.priority {
                top = e;
            }
        }
        let flow = top.flow;
        // ...and that flow's earliest queued packet goes.
        let first = self
            .entries
            .iter()
            .position(|e| e.flow == flow)
            .expect("the flow has a queued packet");
        let e = self.entries.remove(first);
        self.bytes -= e.bytes as u64;
        Some(e.pkt)
    }
    #[inline]
    fn bytes(&self) -> u64 {
        self.bytes
    }
    #[inline]
    fn len(&self) -> usize {
        self.entries.len()
    }
    fn capacity(&self) -> u64 {
        self.capacity
    }
    #[inline]
    fn drain_dropped(&mut self, out: &mut Vec<PacketId>) {
        if !self.dropped.is_empty() {
            out.append(&mut self.dropped);
        }
    }
}

crate::unit_keys! {
    /// The `pfabric` queue's keys.
    pub struct Keys {
        /// How pure ACKs rank: `"highest"` (default; pFabric's reference code) or `"data"`
        /// (as the data packet each answers).
        pfabric_ack_priority: String,
    }
}

/// pFabric's queue parameters: the port's buffer is its limit; the ACK rule.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PFabricParams {
    /// How pure ACKs rank.
    pub acks: AckPriority,
}

impl Discipline for PFabricParams {
    const NAME: &'static str = "pfabric";
    const ABOUT: &'static str = "pFabric (SIGCOMM 2013): highest priority out first, lowest-priority packet dropped when full; keys: pfabric_ack_priority (highest: every ACK first, pFabric's reference code; or data)";
    type Keys = Keys;
    type Queue = Box<PFabric>;
    fn resolve(keys: &Keys, ctx: &Context) -> Result<Self, KeyError> {
        check_switch_buffer(ctx)?;
        let acks = match keys.pfabric_ack_priority.as_deref() {
            None => AckPriority::default(),
            Some(v) => match AckPriority::NAMES.iter().find(|(n, _)| *n == v) {
                Some(&(_, a)) => a,
                None => {
                    let names: Vec<&str> = AckPriority::NAMES.iter().map(|x| x.0).collect();
                    let reason = unknown_name("ACK priority rule", v, &names);
                    return Err(ctx.at.error("pfabric_ack_priority", reason));
                }
            },
        };
        Ok(PFabricParams { acks })
    }
    fn build(&self, buffer_bytes: u64, _seed: u64, _rate: Rate) -> Box<PFabric> {
        let q = PFabric::new(buffer_bytes).expect("checked when the scheme was resolved");
        Box::new(q.with_acks(self.acks))
    }
}

#[cfg(test)]
mod tests;
