//! An indexed binary min-heap of `(time, item)` with one entry per item: a flow's completion
//! time is updated in place when its rate changes, so stale completions never pile up.

const NONE: u32 = u32::MAX;

/// Min-heap keyed by `(key, item)`, at most one entry per item. The pairs are distinct, so
/// the order entries come out in depends only on the pairs, not on the heap's shape.
///
/// Many updates at once (a re-solve that moves thousands of completions) go faster in bulk:
/// between [`IndexedHeap::begin_bulk`] and [`IndexedHeap::end_bulk`] updates and removals
/// only write the entries, and `end_bulk` restores the heap order in one O(n) pass.
#[derive(Clone, Debug, Default)]
pub struct IndexedHeap {
    heap: Vec<(u64, u32)>,
    pos: Vec<u32>,
    bulk: bool,
}

impl IndexedHeap {
    /// A heap for items `0..n`.
    pub fn new(n: usize) -> IndexedHeap {
        IndexedHeap {
            heap: Vec::new(),
            pos: vec![NONE; n],
            bulk: false,
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Whether `item` has an entry.
    pub fn contains(&self, item: u32) -> bool {
        self.pos[item as usize] != NONE
    }

    /// The smallest entry.
    pub fn peek(&self) -> Option<(u64, u32)> {
        debug_assert!(!self.bulk, "peek inside a bulk update");
        self.heap.first().copied()
    }

    /// Starts a bulk update: until [`IndexedHeap::end_bulk`], `set` and `remove` leave the
    /// heap order to it (no `peek` or `pop` in between).
    pub fn begin_bulk(&mut self) {
        self.bulk = true;
    }

    /// Ends a bulk update, restoring the heap order (Floyd's bottom-up heapify).
    pub fn end_bulk(&mut self) {
        if !self.bulk {
            return;
        }
        self.bulk = false;
        for i in (0..self.heap.len() / 2).rev() {
            let e = self.heap[i];
            self.down(i, e);
        }
    }

    /// Inserts `item` with `key`, or moves it to `key`.
    pub fn set(&mut self, item: u32, key: u64) {
        let p = self.pos[item as usize];
        if self.bulk {
            if p == NONE {
                self.pos[item as usize] = self.heap.len() as u32;
                self.heap.push((key, item));
            } else {
                self.heap[p as usize].0 = key;
            }
            return;
        }
        if p == NONE {
            self.heap.push((key, item));
            let i = self.heap.len() - 1;
            self.up(i, (key, item));
        } else {
            let i = p as usize;
            let old = self.heap[i].0;
            if key < old {
                self.up(i, (key, item));
            } else if key > old {
                self.down(i, (key, item));
            }
        }
    }

    /// Removes `item` if present.
    pub fn remove(&mut self, item: u32) {
        let p = self.pos[item as usize];
        if p == NONE {
            return;
        }
        let i = p as usize;
        self.pos[item as usize] = NONE;
        let last = self.heap.pop().expect("non-empty");
        if i < self.heap.len() && self.bulk {
            self.heap[i] = last;
            self.pos[last.1 as usize] = i as u32;
        } else if i < self.heap.len() {
            // The last entry fills the hole: it moves up or down from there.
            if i > 0 && last < self.heap[(i - 1) / 2] {
                self.up(i, last);
            } else {
                self.down(i, last);
            }
        }
    }

    /// Removes and returns the smallest entry.
    pub fn pop(&mut self) -> Option<(u64, u32)> {
        let top = self.peek()?;
        self.remove(top.1);
        Some(top)
    }

    /// Places `e` at hole `i` or above, moving larger parents down.
    fn up(&mut self, mut i: usize, e: (u64, u32)) {
        while i > 0 {
            let parent = (i - 1) / 2;
            let pe = self.heap[parent];
            if e < pe {
                self.heap[i] = pe;
                self.pos[pe.1 as usize] = i as u32;
                i = parent;
            } else {
                break;
            }
        }
        self.heap[i] = e;
        self.pos[e.1 as usize] = i as u32;
    }

    /// Places `e` at hole `i` or below, moving smaller children up.
    fn down(&mut self, mut i: usize, e: (u64, u32)) {
        let n = self.heap.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && self.heap[r] < self.heap[l] {
                r
            } else {
                l
            };
            let ce = self.heap[c];
            if ce < e {
                self.heap[i] = ce;
                self.pos[ce.1 as usize] = i as u32;
                i = c;
            } else {
                break;
            }
        }
        self.heap[i] = e;
        self.pos[e.1 as usize] = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_order_after_updates_and_removals() {
        let mut h = IndexedHeap::new(6);
        for (i, k) in [50u64, 10, 40, 30, 20, 60].iter().enumerate() {
            h.set(i as u32, *k);
        }
        h.set(0, 5);
        h.set(1, 45);
        h.remove(3);
        let order: Vec<u32> = std::iter::from_fn(|| h.pop().map(|x| x.1)).collect();
        assert_eq!(order, vec![0, 4, 2, 1, 5]);
    }

    #[test]
    fn bulk_updates_pop_in_the_same_order() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(4);
        let n = 200u32;
        let (mut a, mut b) = (IndexedHeap::new(n as usize), IndexedHeap::new(n as usize));
        for round in 0..300 {
            let bulk = round % 2 == 0;
            if bulk {
                b.begin_bulk();
            }
            for _ in 0..rng.random_range(0..150) {
                let item = rng.random_range(0..n);
                if rng.random_bool(0.2) {
                    a.remove(item);
                    b.remove(item);
                } else {
                    let key = rng.random_range(0..64u64);
                    a.set(item, key);
                    b.set(item, key);
                }
            }
            b.end_bulk();
            for _ in 0..rng.random_range(0..20) {
                assert_eq!(a.pop(), b.pop());
            }
            assert_eq!(a.len(), b.len());
            assert_eq!(a.peek(), b.peek());
        }
    }

    #[test]
    fn random_operations_pop_in_key_then_item_order() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let n = 64u32;
        let mut h = IndexedHeap::new(n as usize);
        let mut model: std::collections::BTreeMap<u32, u64> = Default::default();
        for _ in 0..20_000 {
            let item = rng.random_range(0..n);
            match rng.random_range(0..4) {
                0 => {
                    h.remove(item);
                    model.remove(&item);
                }
                1 => {
                    let want = model.iter().map(|(&i, &k)| (k, i)).min();
                    assert_eq!(h.pop(), want);
                    if let Some((_, i)) = want {
                        model.remove(&i);
                    }
                }
                _ => {
                    // Few distinct keys: ties broken by item.
                    let key = rng.random_range(0..16u64);
                    h.set(item, key);
                    model.insert(item, key);
                }
            }
            assert_eq!(h.len(), model.len());
            assert_eq!(h.peek(), model.iter().map(|(&i, &k)| (k, i)).min());
        }
    }
}
