//! The discrete-event core: a time-ordered queue of small `Copy` events and the packet pool.
//!
//! Events at the same instant run in the order they were scheduled (a sequence number breaks
//! ties), so a run is a pure function of its inputs. Components keep at most one pending
//! event each (htsim's habit): a port schedules its next departure only while it has a queue,
//! a link only its head packet, a flow only its earliest timer.

pub mod pool;

pub use pool::{PacketId, PacketPool};

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

/// The pending events of one simulation, earliest first, ties in scheduling order.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
}

impl EventQueue {
    /// An empty queue with room for `cap` events.
    pub fn with_capacity(cap: usize) -> Self {
        EventQueue {
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
}
