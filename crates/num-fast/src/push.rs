//! The push layout (the first fast path, kept as the same-run baseline): four link slots per
//! flow, a scatter-add of `[load, H_ll]` per link, F-NORM as a separate flow pass; the
//! multicore version keeps a private copy of every link per thread and merges them.

use super::shared::SpinBarrier;
use super::{FlowSet, Real, DEMAND, GAMMA};
use std::time::Instant;

/// Single-threaded allocator state in `T`.
pub struct Fast<T: Real> {
    links: Vec<[u32; 4]>,
    weight: Vec<T>,
    inv_weight: Vec<T>,
    line: Vec<T>,
    cap: Vec<T>,
    /// Link prices.
    pub prices: Vec<T>,
    /// Per link `[load, H_ll]` side by side: one cache line visit per scatter.
    acc: Vec<[T; 2]>,
    excess: Vec<T>,
    ratio: Vec<T>,
    /// Rates from the last rate update.
    pub rate: Vec<T>,
    /// F-NORM-normalized rates of the last iteration.
    pub normalized: Vec<T>,
    dummy: usize,
}

impl<T: Real> Fast<T> {
    /// A fresh allocator (prices at 1, Flowtune §3).
    pub fn new(set: &FlowSet) -> Fast<T> {
        let nl = set.capacity.len();
        let links: Vec<[u32; 4]> = set
            .links
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect();
        let mut prices = vec![T::of(1.0); nl];
        prices[set.dummy] = T::of(0.0);
        Fast {
            links,
            weight: set.weight.iter().map(|&w| T::of(w)).collect(),
            inv_weight: set.weight.iter().map(|&w| T::of(1.0 / w)).collect(),
            line: set.line.iter().map(|&w| T::of(w)).collect(),
            cap: set
                .capacity
                .iter()
                .map(|&c| T::of(c.min(f64::MAX)))
                .collect(),
            prices,
            acc: vec![[T::of(0.0); 2]; nl],
            excess: vec![T::of(0.0); nl],
            ratio: vec![T::of(0.0); nl],
            rate: vec![T::of(0.0); set.flows()],
            normalized: vec![T::of(0.0); set.flows()],
            dummy: set.dummy,
        }
    }

    /// One iteration: rate update (Flowtune eq. 3), price update (eq. 4), F-NORM (eq. 9).
    pub fn iterate(&mut self) {
        let zero = T::of(0.0);
        self.acc.iter_mut().for_each(|x| *x = [zero; 2]);
        self.excess.iter_mut().for_each(|x| *x = zero);
        let four = T::of(DEMAND);
        for f in 0..self.links.len() {
            let [a, b, c, d] = self.links[f].map(|l| l as usize);
            let q = self.prices[a] + self.prices[b] + self.prices[c] + self.prices[d];
            let w = self.weight[f];
            let line = self.line[f];
            // Prices are >= 0, so q = 0 gives w / q = +inf, clamped to the demand cap: no branch.
            let demand = (w / q).min(four * line);
            let x = demand.min(line);
            let slope = -(demand * demand) * self.inv_weight[f]; // 1 / U''(demand), w log x
            self.rate[f] = x;
            for l in [a, b, c, d] {
                let [ld, h] = self.acc[l];
                self.acc[l] = [ld + x, h + slope];
            }
            if demand > x {
                for l in [a, b, c, d] {
                    self.excess[l] = self.excess[l] + (demand - x);
                }
            }
        }
        let gamma = T::of(GAMMA);
        for l in 0..self.dummy {
            let [load, h] = self.acc[l];
            if h < zero {
                let g = load + self.excess[l] - self.cap[l];
                self.prices[l] = (self.prices[l] - gamma * g / h).max(zero);
            }
            // Kept as the reciprocal c / load: the per-flow F-NORM factor is then the minimum
            // of four reciprocals (1 / max r) and a multiplication.
            self.ratio[l] = self.cap[l] / load;
        }
        self.ratio[self.dummy] = T::of(f64::INFINITY);
        for f in 0..self.links.len() {
            let [a, b, c, d] = self.links[f].map(|l| l as usize);
            let inv = self.ratio[a]
                .min(self.ratio[b])
                .min(self.ratio[c])
                .min(self.ratio[d]);
            // A flow with a positive rate has positive load on each of its links, so `inv`
            // is finite; a zero rate stays zero.
            self.normalized[f] = self.rate[f] * inv;
        }
    }
}

/// Shared state of the multicore allocator.
pub struct Parallel<T: Real> {
    set: FlowSet,
    links: Vec<[u32; 4]>,
    weight: Vec<T>,
    line: Vec<T>,
    cap: Vec<T>,
    prices: Vec<T::Cell>,
    ratio: Vec<T::Cell>,
    /// Per thread: load, excess, H (private copies of every link).
    private: Vec<[Vec<T::Cell>; 3]>,
    rate: Vec<T::Cell>,
    normalized: Vec<T::Cell>,
}

impl<T: Real> Parallel<T> {
    /// The allocator for a flow set whose blocks become threads.
    pub fn new(set: &FlowSet) -> Parallel<T> {
        let fast = Fast::<T>::new(set);
        let nl = set.capacity.len();
        let threads = set.block_start.len() - 1;
        let cells = |v: T| (0..nl).map(|_| T::cell(v)).collect::<Vec<_>>();
        Parallel {
            set: set.clone(),
            links: fast.links,
            weight: fast.weight,
            line: fast.line,
            cap: fast.cap,
            prices: fast.prices.iter().map(|&p| T::cell(p)).collect(),
            ratio: cells(T::of(0.0)),
            private: (0..threads)
                .map(|_| [cells(T::of(0.0)), cells(T::of(0.0)), cells(T::of(0.0))])
                .collect(),
            rate: (0..set.flows()).map(|_| T::cell(T::of(0.0))).collect(),
            normalized: (0..set.flows()).map(|_| T::cell(T::of(0.0))).collect(),
        }
    }

    /// Runs `iterations` iterations on one thread per block; returns the wall time of each
    /// iteration in nanoseconds (measured on thread 0 between iteration starts).
    pub fn run(&self, iterations: usize) -> Vec<u64> {
        let threads = self.private.len();
        let barrier = SpinBarrier::new(threads);
        let mut times = Vec::with_capacity(iterations);
        std::thread::scope(|scope| {
            for t in 1..threads {
                let barrier = &barrier;
                scope.spawn(move || {
                    for _ in 0..iterations {
                        self.step(t, barrier);
                    }
                });
            }
            for _ in 0..iterations {
                let start = Instant::now();
                self.step(0, &barrier);
                times.push(start.elapsed().as_nanos() as u64);
            }
        });
        times
    }

    /// Thread `t`'s part of one iteration. Protocol: (1) rate update of own flows into own
    /// private arrays, reading prices; barrier; (2) aggregate own links from every private
    /// copy, update their prices and ratios; barrier; (3) F-NORM of own flows reading ratios.
    /// Two barriers suffice: nobody reads private copies after the second, and nobody writes
    /// ratios or prices again before every thread has passed the next iteration's first.
    fn step(&self, t: usize, barrier: &SpinBarrier) {
        let zero = T::of(0.0);
        let four = T::of(DEMAND);
        let [load, excess, hess] = &self.private[t];
        let (lo, hi) = (self.set.link_start[t], self.set.link_start[t + 1]);
        // Zero own private copies of every link this thread's flows touch: all links (cheap
        // relative to the flows; a real deployment would zero only its LinkBlocks).
        for l in 0..load.len() {
            T::set(&load[l], zero);
            T::set(&excess[l], zero);
            T::set(&hess[l], zero);
        }
        let flows = self.set.block_start[t]..self.set.block_start[t + 1];
        for f in flows.clone() {
            let ls = self.links[f].map(|l| l as usize);
            let q = ls
                .iter()
                .fold(zero, |acc, &l| acc + T::get(&self.prices[l]));
            let w = self.weight[f];
            let line = self.line[f];
            let demand = (w / q).min(four * line); // q = 0: +inf, clamped
            let x = demand.min(line);
            let slope = -(demand * demand) / w;
            T::set(&self.rate[f], x);
            for &l in &ls {
                T::set(&load[l], T::get(&load[l]) + x);
                T::set(&hess[l], T::get(&hess[l]) + slope);
            }
            if demand > x {
                for &l in &ls {
                    T::set(&excess[l], T::get(&excess[l]) + (demand - x));
                }
            }
        }
        barrier.wait();
        // Aggregate own LinkBlocks and update their prices and ratios.
        let gamma = T::of(GAMMA);
        for l in lo..hi {
            let (mut ld, mut ex, mut h) = (zero, zero, zero);
            for copy in &self.private {
                ld = ld + T::get(&copy[0][l]);
                ex = ex + T::get(&copy[1][l]);
                h = h + T::get(&copy[2][l]);
            }
            if h < zero {
                let g = ld + ex - self.cap[l];
                let p = T::get(&self.prices[l]);
                T::set(&self.prices[l], (p - gamma * g / h).max(zero));
            }
            T::set(&self.ratio[l], ld / self.cap[l]);
        }
        barrier.wait();
        // F-NORM of own flows.
        for f in flows {
            let ls = self.links[f].map(|l| l as usize);
            let r = ls
                .iter()
                .fold(zero, |acc, &l| acc.max(T::get(&self.ratio[l])));
            let x = T::get(&self.rate[f]);
            T::set(&self.normalized[f], if r > zero { x / r } else { x });
        }
    }

    /// Current prices.
    pub fn prices(&self) -> Vec<f64> {
        self.prices.iter().map(|c| T::get(c).f64()).collect()
    }

    /// Normalized rates of the last iteration.
    pub fn normalized(&self) -> Vec<f64> {
        self.normalized.iter().map(|c| T::get(c).f64()).collect()
    }
}
