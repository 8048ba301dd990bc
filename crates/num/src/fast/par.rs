//! The pull iteration on several threads (Flowtune §5's FlowBlocks and LinkBlocks, in pull
//! form), with one barrier per iteration.
//!
//! Thread `t` owns a contiguous block of head slices (its FlowBlock: those heads' flows, cut
//! so that every thread has about the same number of position rows). One iteration, per
//! thread:
//!
//! 1. flow pass over its flows, reading its own copy of the link and tail prices, writing its
//!    heads' sums into the shared head array and its flows' contributions to each tail into
//!    its own tail array (the *aggregate* step of §5 is these per-thread tail arrays);
//! 2. barrier;
//! 3. link pass over *every* link into its own copy of prices and ratios: the *distribute*
//!    step of §5 becomes a redundant computation (every thread derives the same prices from
//!    the same sums in the same order, so the copies stay identical).
//!
//! The head and tail arrays are double-buffered by iteration parity, so a thread may start
//! the next flow pass while others still read the last sums: one barrier per iteration.

use super::layout::{Layout, LayoutError, W};
use super::pull::{capacities, external_prices, fresh, normalized_now, params, FlowOut};
use super::shared::{Shared, SpinBarrier};
use super::simd::{self, Kernel};
use super::{FlowSet, Real};
use std::sync::Mutex;
use std::time::Instant;

/// One thread's copy of the link state (`[price, F-NORM ratio]` per internal link).
struct Copy<T> {
    pr: Vec<[T; 2]>,
}

/// Multicore allocator in the pull layout.
pub struct PullParallel<T: Real> {
    lay: Layout,
    params: Vec<[[T; W]; 3]>,
    cap: Vec<T>,
    /// Thread `t` owns head slices `split[t]..split[t + 1]`.
    split: Vec<usize>,
    rate: Shared<[T; W]>,
    normalized: Shared<[T; W]>,
    /// Per parity: head sums (plus a zero entry).
    head_acc: [Shared<[T; 4]>; 2],
    /// Per parity, per thread: tail sums (plus a zero entry).
    tails: [Vec<Shared<[T; 4]>>; 2],
    copies: Vec<Mutex<Copy<T>>>,
    /// Iterations run so far (selects the parity).
    done: usize,
    kernel: Kernel,
}

impl<T: Real> PullParallel<T> {
    /// A fresh allocator (prices at 1) on `threads` threads with the fastest kernel.
    pub fn new(set: &FlowSet, threads: usize) -> Result<PullParallel<T>, LayoutError> {
        Self::with_kernel(set, threads, Kernel::detect())
    }

    /// As [`PullParallel::new`] with `kernel` (or the next narrower one the CPU runs).
    pub fn with_kernel(
        set: &FlowSet,
        threads: usize,
        kernel: Kernel,
    ) -> Result<PullParallel<T>, LayoutError> {
        let threads = threads.max(1);
        let lay = Layout::new(set)?;
        let zero = T::of(0.0);
        // Head-slice blocks with equal numbers of position rows.
        let rows = lay.flow_at.len();
        let mut split = vec![0];
        for t in 1..threads {
            let target = (rows * t / threads) as u32;
            let k = lay.rows.partition_point(|&r| r < target).min(lay.slices());
            split.push(k.max(*split.last().expect("nonempty")));
        }
        split.push(lay.slices());
        let pr = fresh::<T>(&lay);
        let copies = (0..threads)
            .map(|_| Mutex::new(Copy { pr: pr.clone() }))
            .collect();
        let heads = || Shared::new(vec![[zero; 4]; lay.heads.len() + 1]);
        let tails = || {
            (0..threads)
                .map(|_| Shared::new(vec![[zero; 4]; lay.tails.len() + 1]))
                .collect()
        };
        Ok(PullParallel {
            params: params(set, &lay),
            cap: capacities(set, &lay),
            split,
            rate: Shared::new(vec![[zero; W]; rows]),
            normalized: Shared::new(vec![[zero; W]; rows]),
            head_acc: [heads(), heads()],
            tails: [tails(), tails()],
            copies,
            done: 0,
            kernel: kernel.supported(),
            lay,
        })
    }

    /// Threads.
    pub fn threads(&self) -> usize {
        self.copies.len()
    }

    /// Runs `iterations` iterations, one thread per block; returns the wall time of each
    /// iteration in nanoseconds (thread 0, between iteration starts).
    pub fn run(&mut self, iterations: usize) -> Vec<u64> {
        let threads = self.threads();
        let barrier = SpinBarrier::new(threads);
        let mut times = Vec::with_capacity(iterations);
        let this = &*self;
        let first = self.done;
        std::thread::scope(|scope| {
            for t in 1..threads {
                let barrier = &barrier;
                scope.spawn(move || {
                    let mut copy = this.copies[t].lock().expect("own copy");
                    for i in first..first + iterations {
                        this.step(t, i, &mut copy, barrier);
                    }
                });
            }
            let mut copy = this.copies[0].lock().expect("own copy");
            for i in first..first + iterations {
                let start = Instant::now();
                this.step(0, i, &mut copy, &barrier);
                times.push(start.elapsed().as_nanos() as u64);
            }
        });
        self.done += iterations;
        times
    }

    fn step(&self, t: usize, i: usize, copy: &mut Copy<T>, barrier: &SpinBarrier) {
        let p = i % 2;
        let (k0, k1) = (self.split[t], self.split[t + 1]);
        let (r0, r1) = (self.lay.rows[k0] as usize, self.lay.rows[k1] as usize);
        let ntails = self.lay.tails.len();
        // SAFETY: rows r0..r1 of `rate` and `normalized` are only ever touched by thread t
        // during a run. Heads k0 * W..k1 * W of `head_acc[p]` and all of `tails[p][t]` are
        // this thread's to write in iteration i: their other readers are the link passes of
        // iteration i - 2 (finished before every thread arrived at the barrier of iteration
        // i - 1, which this thread has passed) and of iteration i (after this iteration's
        // barrier).
        let out = unsafe {
            FlowOut {
                rate: self.rate.range_mut(r0, r1),
                normalized: self.normalized.range_mut(r0, r1),
                head_acc: self.head_acc[p].range_mut(k0 * W, k1 * W),
                tails: self.tails[p][t].range_mut(0, ntails + 1),
            }
        };
        simd::flow_pass(
            self.kernel,
            &self.lay,
            k0,
            k1,
            &copy.pr,
            &self.params[r0..r1],
            out,
        );
        barrier.wait();
        {
            // SAFETY: parity p's sums were all written before this iteration's barrier and
            // are next written in iteration i + 2, after the barrier of iteration i + 1, which
            // no thread passes before this thread has finished reading here.
            let (heads, tails): (&[[T; 4]], Vec<&[[T; 4]]>) = unsafe {
                (
                    self.head_acc[p].get(),
                    self.tails[p].iter().map(|s| s.get()).collect(),
                )
            };
            simd::link_pass(
                self.kernel,
                &self.lay,
                &self.cap,
                heads,
                &tails,
                &mut copy.pr,
            );
        }
    }

    /// F-NORM-normalized rates of the last iteration (eq. 9), per original flow.
    pub fn normalized(&mut self) -> Vec<f64> {
        // SAFETY: `&mut self`: no run is in progress.
        let rate = unsafe { self.rate.get() };
        let copy = self.copies[0].lock().expect("copy");
        normalized_now(&self.lay, rate, &copy.pr)
    }

    /// Link prices of thread `t`'s copy (every copy is the same), in the flow set's order.
    pub fn prices(&self, t: usize) -> Vec<f64> {
        let copy = self.copies[t].lock().expect("copy");
        external_prices(&self.lay, &copy.pr)
    }
}
