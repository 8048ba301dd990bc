//! The discrete-event core: a time-ordered queue of small `Copy` events and the packet pool.
//!
//! Events at the same instant run in the order they were scheduled (a sequence number breaks
//! ties), so a run is a pure function of its inputs. Components keep at most one pending
//! event each (htsim's habit): a port schedules its next departure only while it has a queue,
//! a link only its head packet, a flow only its earliest timer.

pub mod pool;
mod wheel;

pub use pool::{PacketId, PacketPool};
pub use wheel::EventQueue;

use dctc_core::units::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Something that happens at an instant. Payloads are dense indices (links, flows, incasts).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The port feeding link `.0` finished serializing a packet and may start the next one.
    TxDone(u32),
    /// The head packet in flight on link `.0` reaches the link's far end.
    Arrive(u32),
    /// The queue discipline of the port feeding link `.0` asked for a timer (CoDel, TFC, XCP).
    PortTimer(u32),
    /// Flow `.0`'s earliest transport timer (RTO, delayed ACK) may be due.
    FlowTimer(u32),
    /// The next open-loop flow (index `.0` in start order) begins.
    FlowStart(u32),
    /// Long-lived flow `.0` stops taking new data.
    FlowStop(u32),
    /// Incast `.0`'s request for its next round reaches the senders.
    IncastRequest(u32),
    /// Time to sample queue lengths.
    Sample,
}

#[derive(Copy, Clone, Debug)]
struct Entry {
    time: u64,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: `BinaryHeap` is a max-heap and we want the earliest (then the first scheduled).
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

/// A binary-heap event queue (the first version, kept as the reference the radix queue is
/// tested and benchmarked against). Earliest first, ties in scheduling order.
#[derive(Debug, Default)]
pub struct HeapEventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
}

impl HeapEventQueue {
    /// An empty queue with room for `cap` events.
    pub fn with_capacity(cap: usize) -> Self {
        HeapEventQueue {
            heap: BinaryHeap::with_capacity(cap),
            seq: 0,
        }
    }

    /// Schedules `event` at `time`.
    #[inline]
    pub fn push(&mut self, time: SimTime, event: Event) {
        self.seq += 1;
        self.heap.push(Entry {
            time: time.0,
            seq: self.seq,
            event,
        });
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.heap.pop().map(|e| (SimTime(e.time), e.event))
    }

    /// The time of the earliest event.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| SimTime(e.time))
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_ties_in_scheduling_order() {
        let mut q = EventQueue::default();
        let mut h = HeapEventQueue::default();
        h.push(SimTime(1), Event::Sample);
        assert_eq!(h.pop(), Some((SimTime(1), Event::Sample)));
        q.push(SimTime(5), Event::Arrive(1));
        q.push(SimTime(3), Event::Arrive(2));
        q.push(SimTime(5), Event::Arrive(3));
        q.push(SimTime(5), Event::TxDone(0));
        q.push(SimTime(1), Event::Sample);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(1), Event::Sample),
                (SimTime(3), Event::Arrive(2)),
                (SimTime(5), Event::Arrive(1)),
                (SimTime(5), Event::Arrive(3)),
                (SimTime(5), Event::TxDone(0)),
            ]
        );
    }

    #[test]
    fn wheel_queue_pops_in_the_same_order_as_the_heap() {
        // A simulation-like pattern: pops interleaved with pushes at or after the current
        // time, many ties.
        let mut q = EventQueue::default();
        let mut h = HeapEventQueue::default();
        let mut x = 7u64;
        let mut now = 0u64;
        let mut next_id = 0u32;
        for step in 0..200_000u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pushes = (x >> 60) % 3;
            for k in 0..pushes {
                let dt = match (x >> (40 + k)) % 4 {
                    0 => 0,
                    1 => (x >> 20) % 16,
                    2 => (x >> 10) % 100_000,
                    _ if (x >> 3).is_multiple_of(7) => (x >> 5) % 5_000_000_000,
                    _ => (x >> 5) % 50_000_000,
                };
                q.push(SimTime(now + dt), Event::Arrive(next_id));
                h.push(SimTime(now + dt), Event::Arrive(next_id));
                next_id += 1;
            }
            if step % 3 != 0 || q.len() > 1000 {
                let a = q.pop();
                assert_eq!(a, h.pop());
                if let Some((t, _)) = a {
                    now = t.0;
                }
            }
            assert_eq!(q.len(), h.len());
        }
        while let Some(a) = q.pop() {
            assert_eq!(Some(a), h.pop());
        }
        assert!(h.is_empty());
    }
}
