//! The pull iteration on several threads (Flowtune §5's FlowBlocks and LinkBlocks, in pull
//! form), with one barrier per iteration.
//!
//! Thread `t` owns a contiguous block of head slices (its FlowBlock: those heads' flows, cut
//! so that every thread has about the same number of position rows). One iteration, per
//! thread:
//!
//! 1. flow pass over its flows, reading its own copy of the link prices and ratios, writing its
//!    heads' sums and its flows' contributions to each tail into arrays of its own;
//! 2. the summing half of the link pass over its own arrays: every link's partial sums (the
//!    *aggregate* step of §5), written to a shared per-thread array of one entry per link;
//! 3. barrier;
//! 4. the updating half over *every* link into its own copy of prices and ratios: the threads'
//!    partial sums added in thread order, so every copy is the same (the *distribute* step of
//!    §5 becomes a redundant computation).
//!
//! Only the per-link partial sums cross between cores (16 bytes per link per thread), not the
//! per-head and per-tail sums, which outnumber the links by about 2x and 3-4x on the §6.1 Clos
//! rows. The partial sums are double-buffered by iteration parity, so a thread may start the
//! next iteration while others still read the last sums: one barrier per iteration.

use super::layout::{Layout, LayoutError, Sell, W};
use super::phases::{capacities, external_prices, fresh, normalized_now, params, FlowOut};
use super::shared::{Shared, SpinBarrier};
use super::simd::{self, Kernel};
use super::{FlowSet, Real};
use std::sync::Mutex;
use std::time::Instant;

/// Estimated cost of one head slice beyond its position rows, in rows. Splitting by rows
/// alone left the thread with the many small heads (short slices, more link-incidence entries
/// per flow) about 25% more work (`perf`, row 2); 1.0 measured best of 0 / 1 / 2 / 4 (2-thread
/// medians 3-11% below 0 on rows 1-7, `crates/num/BENCHMARKS.md`).
const SLICE_COST: f64 = 1.0;

/// One thread's own state: its copy of the link state (`[price, F-NORM ratio]` per internal
/// link), its heads' sums (other threads' heads stay zero) and its tail sums, each with a zero
/// entry for ELLPACK padding.
struct Copy<T> {
    pr: Vec<[T; 2]>,
    heads: Vec<[T; 4]>,
    tails: Vec<[T; 4]>,
}

/// Multicore allocator in the pull layout.
pub struct PullParallel<T: Real> {
    lay: Layout,
    params: Vec<[[T; W]; 3]>,
    cap: Vec<T>,
    /// Thread `t` owns head slices `split[t]..split[t + 1]`.
    split: Vec<usize>,
    /// Per thread: the link-to-heads incidence restricted to its own heads.
    link_heads: Vec<Sell>,
    rate: Shared<[T; W]>,
    normalized: Shared<[T; W]>,
    /// Per parity, per thread: the thread's partial sums per internal link.
    sums: [Vec<Shared<[T; 4]>>; 2],
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
        // Head-slice blocks of equal estimated cost: a slice's position rows plus
        // `SLICE_COST` for the slice itself (its heads' prices, sums and link incidence).
        let rows = lay.flow_at.len();
        let costs: Vec<f64> = (0..=lay.slices())
            .map(|k| lay.rows[k] as f64 + SLICE_COST * k as f64)
            .collect();
        let total = costs[lay.slices()];
        let mut split = vec![0];
        for t in 1..threads {
            let target = total * t as f64 / threads as f64;
            let k = costs.partition_point(|&c| c < target).min(lay.slices());
            split.push(k.max(*split.last().expect("nonempty")));
        }
        split.push(lay.slices());
        let pr = fresh::<T>(&lay);
        let copies = (0..threads)
            .map(|_| {
                Mutex::new(Copy {
                    pr: pr.clone(),
                    heads: vec![[zero; 4]; lay.heads.len() + 1],
                    tails: vec![[zero; 4]; lay.tails.len() + 1],
                })
            })
            .collect();
        let pad = lay.heads.len() as u32;
        let link_heads = (0..threads)
            .map(|t| {
                let (h0, h1) = ((split[t] * W) as u32, (split[t + 1] * W) as u32);
                lay.link_heads.filtered(|h| (h0..h1).contains(&h), pad)
            })
            .collect();
        let sums = || {
            (0..threads)
                .map(|_| Shared::new(vec![[zero; 4]; lay.links()]))
                .collect()
        };
        Ok(PullParallel {
            params: params(set, &lay),
            cap: capacities(set, &lay),
            split,
            link_heads,
            rate: Shared::new(vec![[zero; W]; rows]),
            normalized: Shared::new(vec![[zero; W]; rows]),
            sums: [sums(), sums()],
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
        let links = self.lay.links();
        let Copy { pr, heads, tails } = copy;
        // SAFETY: rows r0..r1 of `rate` and `normalized` are only ever touched by thread t
        // during a run.
        let out = unsafe {
            FlowOut {
                rate: self.rate.range_mut(r0, r1),
                normalized: self.normalized.range_mut(r0, r1),
                head_acc: &mut heads[k0 * W..k1 * W],
                tails,
            }
        };
        simd::flow_pass(
            self.kernel,
            &self.lay,
            k0,
            k1,
            pr,
            &self.params[r0..r1],
            out,
        );
        // SAFETY: `sums[p][t]` is this thread's to write in iteration i: its other readers are
        // the updates of iteration i - 2 (finished before every thread arrived at the barrier of
        // iteration i - 1, which this thread has passed) and of iteration i (after this
        // iteration's barrier).
        let mine = unsafe { self.sums[p][t].range_mut(0, links) };
        simd::link_sums(
            self.kernel,
            &self.lay,
            &self.link_heads[t],
            heads,
            tails,
            mine,
        );
        barrier.wait();
        // SAFETY: parity p's sums were all written before this iteration's barrier and are next
        // written in iteration i + 2, after the barrier of iteration i + 1, which no thread
        // passes before this thread has finished reading here.
        let all: Vec<&[[T; 4]]> = unsafe { self.sums[p].iter().map(|s| s.get()).collect() };
        simd::link_update(self.kernel, &self.lay, &self.cap, &all, pr);
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
