//! The event queue every engine runs on: pending events of any small `Copy` type, earliest
//! first, events at the same instant in the order they were scheduled.
//!
//! [`EventQueue`] is a timing wheel over picosecond times with a heap for the far future.
//! Time is cut into slots of 2^15 ps (32.8 ns); 4096 slots cover the next 134 us, where
//! nearly every event of a datacenter run lands (serializations, propagation, RTOs of tens of
//! microseconds). Pushing into a future slot is an append. When the cursor reaches a slot, its
//! few events are sorted once by time, stably, and popped in order; the rare push into the
//! current slot is inserted in place. Events beyond the wheel wait in a binary heap and move
//! into the wheel as it turns; an empty wheel jumps straight to the heap's earliest event.
//!
//! A wheel entry carries no sequence number: a slot's entries are already in scheduling order
//! (far events enter a slot, in heap order, when it first comes within the wheel's span,
//! before any push can reach it directly), so a stable sort by time alone gives (time,
//! scheduling) order. Only the far heap, which is not stable, numbers its entries.
//!
//! [`HeapEventQueue`] is the first version, a plain binary heap, kept as the reference the
//! wheel is tested and benchmarked against: both pop the same events in the same order.
//!
//! The sequence number that breaks ties makes a run a pure function of its inputs. Each engine
//! defines its own event enum (payloads are dense indices) and schedules it here.

use crate::units::SimTime;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

const SLOT_BITS: u32 = 15;
const WHEEL_BITS: u32 = 12;
const SLOTS: u64 = 1 << WHEEL_BITS;
const MASK: u64 = SLOTS - 1;
/// A slot of more events than this is bucketed before its insertion sort.
const SMALL_SLOT: usize = 32;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    time: u64,
    seq: u64,
}

#[derive(Copy, Clone, Debug)]
struct Entry<E> {
    key: Key,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, o: &Self) -> Ordering {
        self.key.cmp(&o.key)
    }
}

/// A wheel entry: ties keep their place in the slot, so no sequence number is needed.
#[derive(Copy, Clone, Debug)]
struct Timed<E> {
    time: u64,
    event: E,
}

/// The pending events of one simulation, earliest first, ties in scheduling order.
#[derive(Debug)]
pub struct EventQueue<E> {
    slots: Vec<Vec<Timed<E>>>,
    /// The current slot's events, sorted earliest first; `head` is the next to pop.
    cur: Vec<Timed<E>>,
    head: usize,
    /// Absolute index (time >> SLOT_BITS) of the current slot.
    cur_abs: u64,
    /// Events in `slots` (not counting `cur` and `far`).
    in_wheel: usize,
    /// Events beyond the wheel's span; `seq` numbers them in scheduling order.
    far: BinaryHeap<Reverse<Entry<E>>>,
    seq: u64,
    len: usize,
    /// A crowded slot's sort: a copy of its events and the buckets' counts (kept to spare
    /// the allocations).
    scratch: Vec<Timed<E>>,
    counts: Vec<u32>,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue::with_capacity(0)
    }
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue; `cap` sizes the far-future heap.
    pub fn with_capacity(cap: usize) -> Self {
        EventQueue::with_slot_capacity(cap, 0)
    }

    /// An empty queue; `cap` sizes the far-future heap and `per_slot` each wheel slot. A slot's
    /// vector otherwise grows from empty the first time the wheel reaches it, a few
    /// reallocations per slot over the wheel's first turn (134 us simulated); an engine that
    /// expects busy slots sizes them at once.
    pub fn with_slot_capacity(cap: usize, per_slot: usize) -> Self {
        EventQueue {
            slots: (0..SLOTS).map(|_| Vec::with_capacity(per_slot)).collect(),
            cur: Vec::with_capacity(64),
            head: 0,
            cur_abs: 0,
            in_wheel: 0,
            far: BinaryHeap::with_capacity(cap),
            seq: 0,
            len: 0,
            scratch: Vec::new(),
            counts: Vec::new(),
        }
    }

    /// Schedules `event` at `time`, which must not be earlier than the last popped time.
    ///
    /// Inlined into the engines' hot paths: nearly every push lands in a future slot of the
    /// wheel (an append), and a call with its register saves cost more than that append. The
    /// current slot and the far heap take the out-of-line `push_rare`.
    #[inline(always)]
    pub fn push(&mut self, time: SimTime, event: E) {
        let abs = time.0 >> SLOT_BITS;
        // `cur_abs < abs < cur_abs + SLOTS` in one comparison (wrapping below `cur_abs`).
        if abs.wrapping_sub(self.cur_abs + 1) < SLOTS - 1 {
            self.len += 1;
            self.slots[(abs & MASK) as usize].push(Timed {
                time: time.0,
                event,
            });
            self.in_wheel += 1;
        } else {
            self.push_rare(time, event);
        }
    }

    /// [`EventQueue::push`] into the current slot (inserted in place) or beyond the wheel's
    /// span (the far heap).
    #[inline(never)]
    fn push_rare(&mut self, time: SimTime, event: E) {
        self.len += 1;
        let e = Timed {
            time: time.0,
            event,
        };
        let abs = time.0 >> SLOT_BITS;
        if abs <= self.cur_abs {
            debug_assert!(
                self.head == 0 || self.cur[self.head - 1].time <= time.0,
                "event scheduled before the last popped one"
            );
            // Scheduled last, it goes after every pending event at its time. (A slot earlier
            // than the cursor's, possible after `peek_time` moved the cursor, belongs here
            // too: before everything still pending.)
            let pos = self.head + self.cur[self.head..].partition_point(|x| x.time <= e.time);
            self.cur.insert(pos, e);
        } else {
            debug_assert!(abs >= self.cur_abs + SLOTS);
            self.seq += 1;
            self.far.push(Reverse(Entry {
                key: Key {
                    time: time.0,
                    seq: self.seq,
                },
                event,
            }));
        }
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        loop {
            if let Some(&e) = self.cur.get(self.head) {
                self.head += 1;
                self.len -= 1;
                return Some((SimTime(e.time), e.event));
            }
            if self.len == 0 {
                return None;
            }
            self.advance();
        }
    }

    /// The `k`-th next event (0: the one the next `pop` returns) if it is already sorted in
    /// the wheel's current slot; `None` otherwise. For looking ahead cheaply (an engine may
    /// warm what that event will touch); it never turns the wheel.
    #[inline]
    pub fn upcoming(&self, k: usize) -> Option<E> {
        self.cur.get(self.head + k).map(|e| e.event)
    }

    /// The time of the earliest event, without removing it. It may turn the wheel (hence
    /// `&mut`); events may still be pushed at any time not earlier than the last popped one.
    #[inline]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        loop {
            if let Some(e) = self.cur.get(self.head) {
                return Some(SimTime(e.time));
            }
            if self.len == 0 {
                return None;
            }
            self.advance();
        }
    }

    /// Moves the cursor to the next slot (or, with an empty wheel, to the far heap's earliest
    /// event) and loads that slot.
    fn advance(&mut self) {
        if self.in_wheel == 0 {
            let next = self.far.peek().expect("len > 0").0.key.time >> SLOT_BITS;
            self.cur_abs = next.max(self.cur_abs + 1);
        } else {
            self.cur_abs += 1;
        }
        // Far events that now fall within the wheel's span move in, in (time, sequence)
        // order, into slots that no push has reached yet (they were beyond the span until
        // now): each slot stays in scheduling order.
        let horizon = self.cur_abs + SLOTS;
        while let Some(Reverse(e)) = self.far.peek() {
            let abs = e.key.time >> SLOT_BITS;
            if abs >= horizon {
                break;
            }
            let Reverse(e) = self.far.pop().expect("peeked");
            self.slots[(abs & MASK) as usize].push(Timed {
                time: e.key.time,
                event: e.event,
            });
            self.in_wheel += 1;
        }
        self.cur.clear();
        self.head = 0;
        let slot = &mut self.slots[(self.cur_abs & MASK) as usize];
        if slot.is_empty() {
            return;
        }
        std::mem::swap(&mut self.cur, slot);
        self.in_wheel -= self.cur.len();
        sort_slot(&mut self.cur, &mut self.scratch, &mut self.counts);
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Sorts a slot by time, keeping ties in place. Pushes arrive roughly in time order, so a
/// small slot is nearly sorted already: an insertion sort does a few moves and allocates
/// nothing. A crowded slot (over [`SMALL_SLOT`] events: fabrics of a thousand hosts put a
/// hundred in each) is first spread, in one stable counting pass, over about as many buckets
/// as it has events by the high bits of each event's offset in the slot, which leaves the
/// insertion sort a move or two per event; the library's stable sort cost three times as many
/// instructions per event there. (A slot's events all share the slot's time range; should one
/// not, its bucket would only be wrong, and the insertion sort still puts it in place.)
fn sort_slot<E: Copy>(v: &mut [Timed<E>], scratch: &mut Vec<Timed<E>>, counts: &mut Vec<u32>) {
    if v.len() > SMALL_SLOT && u32::try_from(v.len()).is_ok() {
        let bits = v.len().next_power_of_two().trailing_zeros().min(SLOT_BITS);
        let shift = SLOT_BITS - bits;
        let bucket = |t: u64| ((t & ((1 << SLOT_BITS) - 1)) >> shift) as usize;
        counts.clear();
        counts.resize(1 << bits, 0);
        for e in v.iter() {
            counts[bucket(e.time)] += 1;
        }
        // Each bucket's first place.
        let mut start = 0;
        for c in counts.iter_mut() {
            let n = *c;
            *c = start;
            start += n;
        }
        scratch.clear();
        scratch.extend_from_slice(v);
        for e in scratch.iter() {
            let at = &mut counts[bucket(e.time)];
            v[*at as usize] = *e;
            *at += 1;
        }
    }
    for i in 1..v.len() {
        let e = v[i];
        let mut j = i;
        while j > 0 && v[j - 1].time > e.time {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = e;
    }
}

/// A binary-heap event queue: the reference [`EventQueue`] is tested and benchmarked against.
/// Earliest first, ties in scheduling order.
#[derive(Debug)]
pub struct HeapEventQueue<E> {
    heap: BinaryHeap<Reverse<Entry<E>>>,
    seq: u64,
}

impl<E: Copy> Default for HeapEventQueue<E> {
    fn default() -> Self {
        HeapEventQueue::with_capacity(0)
    }
}

impl<E: Copy> HeapEventQueue<E> {
    /// An empty queue with room for `cap` events.
    pub fn with_capacity(cap: usize) -> Self {
        HeapEventQueue {
            heap: BinaryHeap::with_capacity(cap),
            seq: 0,
        }
    }

    /// Schedules `event` at `time`.
    #[inline]
    pub fn push(&mut self, time: SimTime, event: E) {
        self.seq += 1;
        self.heap.push(Reverse(Entry {
            key: Key {
                time: time.0,
                seq: self.seq,
            },
            event,
        }));
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.heap
            .pop()
            .map(|Reverse(e)| (SimTime(e.key.time), e.event))
    }

    /// The time of the earliest event.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|Reverse(e)| SimTime(e.key.time))
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

    /// A stand-in for an engine's event enum.
    #[derive(Copy, Clone, Debug, PartialEq, Eq)]
    enum Ev {
        Arrive(u32),
        TxDone(u32),
        Sample,
    }

    #[test]
    fn earliest_first_and_ties_in_scheduling_order() {
        let mut q = EventQueue::default();
        let mut h = HeapEventQueue::default();
        for (t, e) in [
            (5, Ev::Arrive(1)),
            (3, Ev::Arrive(2)),
            (5, Ev::Arrive(3)),
            (5, Ev::TxDone(0)),
            (1, Ev::Sample),
        ] {
            q.push(SimTime(t), e);
            h.push(SimTime(t), e);
        }
        assert_eq!(h.peek_time(), Some(SimTime(1)));
        let expected = vec![
            (SimTime(1), Ev::Sample),
            (SimTime(3), Ev::Arrive(2)),
            (SimTime(5), Ev::Arrive(1)),
            (SimTime(5), Ev::Arrive(3)),
            (SimTime(5), Ev::TxDone(0)),
        ];
        assert_eq!(std::iter::from_fn(|| q.pop()).collect::<Vec<_>>(), expected);
        assert_eq!(std::iter::from_fn(|| h.pop()).collect::<Vec<_>>(), expected);
        assert!(q.is_empty() && h.is_empty());
    }

    #[test]
    fn presized_slots_take_their_events_without_growing() {
        let mut q = EventQueue::with_slot_capacity(0, 16);
        let slot = (5 & MASK) as usize;
        let before = (q.slots[slot].as_ptr(), q.slots[slot].capacity());
        assert!(before.1 >= 16);
        for k in 0..16 {
            q.push(SimTime((5 << SLOT_BITS) + 16 - k), Ev::Arrive(k as u32));
        }
        assert_eq!((q.slots[slot].as_ptr(), q.slots[slot].capacity()), before);
        // And they pop in time order, as from an unsized queue.
        let times: Vec<u64> = std::iter::from_fn(|| q.pop()).map(|(t, _)| t.0).collect();
        assert_eq!(
            times,
            ((5 << SLOT_BITS) + 1..=(5 << SLOT_BITS) + 16).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_push_into_the_current_slot_pops_after_earlier_ties() {
        // Time 100 and 200 share a slot; once the slot is loaded, a push at 100 must still
        // follow the 100 already there and precede the 200.
        let mut q = EventQueue::default();
        q.push(SimTime(100), Ev::Arrive(0));
        q.push(SimTime(200), Ev::Arrive(1));
        assert_eq!(q.pop(), Some((SimTime(100), Ev::Arrive(0))));
        q.push(SimTime(100), Ev::Arrive(2));
        q.push(SimTime(150), Ev::Arrive(3));
        let rest: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            rest,
            vec![
                (SimTime(100), Ev::Arrive(2)),
                (SimTime(150), Ev::Arrive(3)),
                (SimTime(200), Ev::Arrive(1)),
            ]
        );
    }

    #[test]
    fn far_future_events_come_back_through_the_wheel() {
        // Beyond the wheel's 134 us span, with an empty wheel in between (the jump) and with
        // a near event scheduled after the far ones.
        let mut q = EventQueue::default();
        let far = 1u64 << 40;
        q.push(SimTime(far + 7), Ev::Arrive(0));
        q.push(SimTime(far), Ev::Arrive(1));
        q.push(SimTime(far), Ev::Arrive(2));
        q.push(SimTime(10), Ev::Sample);
        assert_eq!(q.len(), 4);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(10), Ev::Sample),
                (SimTime(far), Ev::Arrive(1)),
                (SimTime(far), Ev::Arrive(2)),
                (SimTime(far + 7), Ev::Arrive(0)),
            ]
        );
    }

    #[test]
    fn a_push_after_a_peek_that_turned_the_wheel_still_pops_first() {
        // The peek jumps the cursor to the far event's slot; an earlier push (allowed: not
        // before the last pop) must come out before it.
        let mut q = EventQueue::default();
        q.push(SimTime(1), Ev::Sample);
        assert_eq!(q.pop(), Some((SimTime(1), Ev::Sample)));
        let far = 1u64 << 36;
        q.push(SimTime(far), Ev::Arrive(0));
        assert_eq!(q.peek_time(), Some(SimTime(far)));
        q.push(SimTime(5_000_000), Ev::TxDone(1));
        q.push(SimTime(far), Ev::Arrive(2));
        assert_eq!(q.peek_time(), Some(SimTime(5_000_000)));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(5_000_000), Ev::TxDone(1)),
                (SimTime(far), Ev::Arrive(0)),
                (SimTime(far), Ev::Arrive(2)),
            ]
        );
        assert_eq!(q.peek_time(), None);
    }

    #[test]
    fn a_far_event_keeps_its_place_before_a_later_push_at_the_same_time() {
        // Wheel entries carry no sequence number: a far event that enters the wheel must
        // still pop before an event scheduled later at the same time, and before one
        // scheduled later at an earlier time only if its own time is earlier.
        let mut q = EventQueue::default();
        let span = SLOTS << SLOT_BITS;
        let t = span + 1000;
        q.push(SimTime(t), Ev::Arrive(0)); // beyond the wheel: the far heap
        q.push(SimTime(t + 1), Ev::Arrive(1));
        q.push(SimTime(2000), Ev::Sample);
        assert_eq!(q.pop(), Some((SimTime(2000), Ev::Sample)));
        // The wheel has turned: `t` is within its span now, so these go straight to a slot.
        q.push(SimTime(t), Ev::TxDone(2));
        q.push(SimTime(t - 1), Ev::TxDone(3));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(t - 1), Ev::TxDone(3)),
                (SimTime(t), Ev::Arrive(0)),
                (SimTime(t), Ev::TxDone(2)),
                (SimTime(t + 1), Ev::Arrive(1)),
            ]
        );
    }

    #[test]
    fn pushes_at_the_wheels_edges_go_where_they_belong() {
        // With the cursor at slot 5: a push into slot 5 is inserted in place, slots 6 to
        // 5 + SLOTS - 1 are appended to, slot 5 + SLOTS and beyond wait in the far heap
        // (the inlined push decides this with one wrapping comparison).
        let mut q = EventQueue::default();
        let mut h = HeapEventQueue::default();
        let slot = 1u64 << SLOT_BITS;
        let base = 5 * slot + 100;
        q.push(SimTime(base), Ev::Sample);
        h.push(SimTime(base), Ev::Sample);
        assert_eq!(q.pop(), h.pop());
        let times = [
            (5 + SLOTS + 1) * slot,
            (5 + SLOTS) * slot,
            (5 + SLOTS) * slot - 1,
            (4 + SLOTS) * slot,
            6 * slot,
            6 * slot - 1,
            base + 1,
            base,
        ];
        for (i, &t) in times.iter().enumerate() {
            q.push(SimTime(t), Ev::Arrive(i as u32));
            h.push(SimTime(t), Ev::Arrive(i as u32));
        }
        assert_eq!(q.cur.len() - q.head, 3, "slot 5: the cursor's own");
        assert_eq!(q.in_wheel, 3, "slots 6 and 5 + SLOTS - 1");
        assert_eq!(q.far.len(), 2, "slot 5 + SLOTS and beyond");
        let got: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        let want: Vec<_> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(got.len(), times.len());
        assert_eq!(got, want);
    }

    #[test]
    fn a_crowded_slot_sorts_by_time_and_keeps_ties_in_order() {
        // More events in one slot than the insertion sort takes (the library's stable sort
        // runs), pushed in falling time order with ties.
        let mut q = EventQueue::default();
        let mut h = HeapEventQueue::default();
        for i in 0..200u32 {
            let t = 50_000 - u64::from(i / 3) * 7;
            q.push(SimTime(t), Ev::Arrive(i));
            h.push(SimTime(t), Ev::Arrive(i));
        }
        let got: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        let want: Vec<_> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(got.len(), 200);
        assert_eq!(got, want);
        assert_eq!(got[0], (SimTime(50_000 - 66 * 7), Ev::Arrive(198)));
    }

    #[test]
    fn a_crowded_slot_spread_over_its_span_pops_in_heap_order() {
        // Slots of 40 to 2,000 events at random offsets across the slot, a quarter of them
        // ties with an earlier event: the bucketing pass must keep ties in scheduling order.
        let (mut q, mut h) = (EventQueue::default(), HeapEventQueue::default());
        let slot = 1u64 << SLOT_BITS;
        let mut x = 11u64;
        let mut id = 0u32;
        for (k, n) in [40u64, 33, 500, 2_000].into_iter().enumerate() {
            let base = (k as u64 + 3) * slot;
            let mut times = Vec::new();
            for i in 0..n {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let t = if i % 4 == 3 {
                    times[(x >> 40) as usize % times.len()]
                } else {
                    base + (x >> 33) % slot
                };
                times.push(t);
                q.push(SimTime(t), Ev::Arrive(id));
                h.push(SimTime(t), Ev::Arrive(id));
                id += 1;
            }
        }
        let got: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        let want: Vec<_> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(got.len(), 2_573);
        assert_eq!(got, want);
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
                q.push(SimTime(now + dt), Ev::Arrive(next_id));
                h.push(SimTime(now + dt), Ev::Arrive(next_id));
                next_id += 1;
            }
            if step % 5 == 0 {
                assert_eq!(q.peek_time(), h.peek_time());
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
