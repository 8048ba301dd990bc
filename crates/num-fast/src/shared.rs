//! Arrays shared between the threads of one iteration, written in disjoint ranges between
//! barriers, and the spinning barrier itself. The only other `unsafe` of the fast path
//! (besides CPU-feature dispatch in [`super::simd`]).

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A vector whose disjoint ranges threads write between barriers while nobody reads them.
pub(crate) struct Shared<T>(Box<[UnsafeCell<T>]>);

// SAFETY: access goes through the unsafe methods below, whose callers guarantee that a range
// being written is neither written nor read by another thread until the next barrier, and
// the barrier's Release/Acquire pair orders the writes before every later read.
unsafe impl<T: Send> Sync for Shared<T> {}

impl<T> Shared<T> {
    pub(crate) fn new(v: Vec<T>) -> Shared<T> {
        Shared(v.into_iter().map(UnsafeCell::new).collect())
    }

    /// The whole vector, read-only.
    ///
    /// # Safety
    /// No thread writes any part of it while the returned slice lives.
    pub(crate) unsafe fn get(&self) -> &[T] {
        // SAFETY: `UnsafeCell<T>` has the layout of `T`; no concurrent writer (caller's
        // contract), so reading through a shared slice is sound.
        unsafe { std::slice::from_raw_parts(self.0.as_ptr() as *const T, self.0.len()) }
    }

    /// Elements `lo..hi`, writable.
    ///
    /// # Safety
    /// No other reference to `lo..hi` (in this thread or another) exists while the returned
    /// slice lives.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn range_mut(&self, lo: usize, hi: usize) -> &mut [T] {
        let cells = &self.0[lo..hi]; // bounds-checked
                                     // SAFETY: the cells are contiguous and valid; the range is exclusively this
                                     // reference's (caller's contract), and mutation through `UnsafeCell` is permitted.
        unsafe { std::slice::from_raw_parts_mut(UnsafeCell::raw_get(cells.as_ptr()), hi - lo) }
    }
}

/// A reusable barrier for `n` threads that spins (an iteration takes microseconds, parking
/// would cost more), backing off with `spin_loop` hints and then yielding, since on a shared VM
/// the peer may be descheduled for a whole time slice.
pub(crate) struct SpinBarrier {
    n: usize,
    count: AtomicUsize,
    generation: AtomicUsize,
}

impl SpinBarrier {
    pub(crate) fn new(n: usize) -> SpinBarrier {
        SpinBarrier {
            n,
            count: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
        }
    }

    pub(crate) fn wait(&self) {
        let gen = self.generation.load(Ordering::Acquire);
        if self.count.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.count.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
        } else {
            let mut spins = 0u32;
            while self.generation.load(Ordering::Acquire) == gen {
                spins += 1;
                if spins < 1 << 9 {
                    for _ in 0..spins.min(32) {
                        std::hint::spin_loop();
                    }
                } else {
                    std::thread::yield_now();
                }
            }
        }
    }
}
