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
//!   as pFabric's switch hardware does; nothing is allocated per packet.

use super::codel::check_buffer;
use super::{Enqueued, QueueDisc, QueueParamError};
use crate::engine::{PacketId, PacketPool};
use dctc_core::units::SimTime;

/// One queued packet with what the scans read, copied at enqueue.
#[derive(Copy, Clone, Debug)]
struct Entry {
    pkt: PacketId,
    priority: u64,
    flow: u32,
    bytes: u32,
    /// Arrival order at this port.
    seq: u64,
}

/// pFabric's priority queue with priority dropping.
#[derive(Debug)]
pub struct PFabric {
    entries: Vec<Entry>,
    bytes: u64,
    capacity: u64,
    next_seq: u64,
    dropped: Vec<PacketId>,
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
            next_seq: 0,
            dropped: Vec::with_capacity(16),
        })
    }

    /// The index of the lowest-priority entry (largest value; the latest on a tie).
    fn lowest(&self) -> usize {
        let mut best = 0;
        for (i, e) in self.entries.iter().enumerate() {
            let b = &self.entries[best];
            if (e.priority, e.seq) > (b.priority, b.seq) {
                best = i;
            }
        }
        best
    }
}

impl QueueDisc for PFabric {
    #[inline]
    fn enqueue(&mut self, pkt: PacketId, pool: &mut PacketPool, now: SimTime) -> Enqueued {
        let priority = pool.ext(pkt).priority;
        let p = &mut pool[pkt];
        p.enqueued_at = now;
        self.entries.push(Entry {
            pkt,
            priority,
            flow: p.flow,
            bytes: p.wire_bytes,
            seq: self.next_seq,
        });
        self.next_seq += 1;
        self.bytes += p.wire_bytes as u64;
        let mut first = None;
        while self.bytes > self.capacity {
            let e = self.entries.swap_remove(self.lowest());
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
        let mut best = 0;
        for (i, e) in self.entries.iter().enumerate().skip(1) {
            let b = &self.entries[best];
            if (e.priority, e.seq) < (b.priority, b.seq) {
                best = i;
            }
        }
        let flow = self.entries.get(best)?.flow;
        // ...and that flow's earliest queued packet goes.
        let mut first = best;
        for (i, e) in self.entries.iter().enumerate() {
            if e.flow == flow && e.seq < self.entries[first].seq {
                first = i;
            }
        }
        let e = self.entries.swap_remove(first);
        self.bytes -= e.bytes as u64;
        Some(e.pkt)
    }
    fn bytes(&self) -> u64 {
        self.bytes
    }
    fn len(&self) -> usize {
        self.entries.len()
    }
    fn capacity(&self) -> u64 {
        self.capacity
    }
    fn drain_dropped(&mut self, out: &mut Vec<PacketId>) {
        out.append(&mut self.dropped);
    }
}

#[cfg(test)]
mod tests;
