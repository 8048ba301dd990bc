//! The event queue: a timing wheel over picosecond times with a heap for the far future.
//!
//! Time is cut into slots of 2^15 ps (32.8 ns); 4096 slots cover the next 134 us, where
//! nearly every event of a datacenter run lands (serializations, propagation, RTOs of tens of
//! microseconds). Pushing into a future slot is an append. When the cursor reaches a slot, its
//! few events are sorted once by (time, sequence) and popped in order; the rare push into the
//! current slot is inserted in place. Events beyond the wheel wait in a binary heap and move
//! into the wheel as it turns; an empty wheel jumps straight to the heap's earliest event.
//! Ties pop in scheduling order, exactly as in [`super::HeapEventQueue`] (tested against it).

use super::Event;
use dctc_core::units::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const SLOT_BITS: u32 = 15;
const WHEEL_BITS: u32 = 12;
const SLOTS: u64 = 1 << WHEEL_BITS;
const MASK: u64 = SLOTS - 1;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    time: u64,
    seq: u64,
}

#[derive(Copy, Clone, Debug)]
struct Entry {
    key: Key,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key.cmp(&o.key)
    }
}

/// The pending events of one simulation, earliest first, ties in scheduling order.
// `repr(C)` keeps `seq` and `len` apart: when adjacent, the compiler updates both with one
// 16-byte load that cannot be forwarded from the 8-byte store of the previous `pop`.
#[derive(Debug)]
#[repr(C)]
pub struct EventQueue {
    seq: u64,
    slots: Vec<Vec<Entry>>,
    /// The current slot's events, sorted earliest first; `head` is the next to pop.
    cur: Vec<Entry>,
    head: usize,
    /// Absolute index (time >> SLOT_BITS) of the current slot.
    cur_abs: u64,
    /// Events in `slots` (not counting `cur` and `far`).
    in_wheel: usize,
    far: BinaryHeap<Reverse<Entry>>,
    len: usize,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue::with_capacity(0)
    }
}

impl EventQueue {
    /// An empty queue; `cap` sizes the far-future heap.
    pub fn with_capacity(cap: usize) -> Self {
        EventQueue {
            slots: (0..SLOTS).map(|_| Vec::new()).collect(),
            cur: Vec::with_capacity(64),
            head: 0,
            cur_abs: 0,
            in_wheel: 0,
            far: BinaryHeap::with_capacity(cap),
            seq: 0,
            len: 0,
        }
    }

    /// Schedules `event` at `time`, which must not be earlier than the last popped time.
    #[inline]
    pub fn push(&mut self, time: SimTime, event: Event) {
        self.seq += 1;
        self.len += 1;
        let e = Entry {
            key: Key {
                time: time.0,
                seq: self.seq,
            },
            event,
        };
        let abs = time.0 >> SLOT_BITS;
        if abs <= self.cur_abs {
            debug_assert!(abs == self.cur_abs, "event scheduled in the past");
            // Its key is the largest so far among equal times: after every smaller key.
            let pos = self.head + self.cur[self.head..].partition_point(|x| x.key < e.key);
            self.cur.insert(pos, e);
        } else if abs < self.cur_abs + SLOTS {
            self.slots[(abs & MASK) as usize].push(e);
            self.in_wheel += 1;
        } else {
            self.far.push(Reverse(e));
        }
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        loop {
            if let Some(&e) = self.cur.get(self.head) {
                self.head += 1;
                self.len -= 1;
                return Some((SimTime(e.key.time), e.event));
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
        // Far events that now fall within the wheel's span move in.
        let horizon = self.cur_abs + SLOTS;
        while let Some(Reverse(e)) = self.far.peek() {
            let abs = e.key.time >> SLOT_BITS;
            if abs >= horizon {
                break;
            }
            let Reverse(e) = self.far.pop().expect("peeked");
            self.slots[(abs & MASK) as usize].push(e);
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
        // Pushes arrive roughly in time order, so this is nearly sorted already.
        if self.cur.len() > 1 {
            self.cur.sort_unstable_by_key(|e| e.key);
        }
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
