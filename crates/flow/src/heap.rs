//! An indexed binary min-heap of `(time, item)` with one entry per item: a flow's completion
//! time is updated in place when its rate changes, so stale completions never pile up.

const NONE: u32 = u32::MAX;

/// Min-heap keyed by `(key, item)`, at most one entry per item.
#[derive(Clone, Debug, Default)]
pub struct IndexedHeap {
    heap: Vec<(u64, u32)>,
    pos: Vec<u32>,
}

impl IndexedHeap {
    /// A heap for items `0..n`.
    pub fn new(n: usize) -> IndexedHeap {
        IndexedHeap {
            heap: Vec::new(),
            pos: vec![NONE; n],
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

    /// The smallest entry.
    pub fn peek(&self) -> Option<(u64, u32)> {
        self.heap.first().copied()
    }

    /// Inserts `item` with `key`, or moves it to `key`.
    pub fn set(&mut self, item: u32, key: u64) {
        let p = self.pos[item as usize];
        if p == NONE {
            self.heap.push((key, item));
            let i = self.heap.len() - 1;
            self.pos[item as usize] = i as u32;
            self.up(i);
        } else {
            let i = p as usize;
            let old = self.heap[i].0;
            self.heap[i].0 = key;
            if key < old {
                self.up(i);
            } else {
                self.down(i);
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
        let last = self.heap.len() - 1;
        self.swap(i, last);
        self.heap.pop();
        self.pos[item as usize] = NONE;
        if i < self.heap.len() {
            self.up(i);
            self.down(i);
        }
    }

    /// Removes and returns the smallest entry.
    pub fn pop(&mut self) -> Option<(u64, u32)> {
        let top = self.peek()?;
        self.remove(top.1);
        Some(top)
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.pos[self.heap[a].1 as usize] = a as u32;
        self.pos[self.heap[b].1 as usize] = b as u32;
    }

    fn up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[i] < self.heap[parent] {
                self.swap(i, parent);
                i = parent;
            } else {
                break;
            }
        }
    }

    fn down(&mut self, mut i: usize) {
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
            if self.heap[c] < self.heap[i] {
                self.swap(i, c);
                i = c;
            } else {
                break;
            }
        }
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
}
