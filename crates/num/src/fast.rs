//! The benchmarked allocator: Flowtune's §6.1 iteration (NED rate update + price update +
//! F-NORM) for weighted-log flows on a 2-tier Clos, in `f64` or `f32`, single-threaded or with
//! the FlowBlock/LinkBlock scheme of Flowtune §5 on several threads.
//!
//! Layout (chosen by measurement, see `BENCHMARKS.md`): every flow has exactly four link slots
//! (intra-rack flows pad with a dummy link whose price stays 0), so the rate update is a
//! fixed-width gather of four prices and scatter of four loads; links are numbered block by
//! block so each thread's LinkBlocks are contiguous.
//!
//! Multicore (Flowtune §5): racks are grouped into as many blocks as threads; thread `b` owns
//! the FlowBlocks whose source is in block `b`, and keeps private copies of link load and
//! `H_ll`. After the rate update each thread *aggregates* the copies of its own LinkBlocks
//! (the links into and out of its racks, plus an equal share of the spine links' dummy) and
//! updates their prices and F-NORM ratios; a barrier later every thread reads the new prices
//! and ratios (the *distribute* step is the shared read). Two barriers per iteration; shared
//! arrays are relaxed atomics written by one owner between barriers, so the code is safe Rust.
//!
//! Semantics match [`crate::solver::Ned`] + [`crate::normalize::f_norm`] for log utilities:
//! rates clamp at line rate, price updates see demand up to 4x line rate, `H_ll` uses the
//! one-sided slope at the clamp (tested against the generic path).

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// A floating-point type the fast path runs in.
pub trait Real:
    Copy
    + Send
    + Sync
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
    + 'static
{
    /// Its atomic cell (same size).
    type Cell: Send + Sync;
    /// From f64.
    fn of(v: f64) -> Self;
    /// To f64.
    fn f64(self) -> f64;
    /// A new cell.
    fn cell(v: Self) -> Self::Cell;
    /// Relaxed load.
    fn get(c: &Self::Cell) -> Self;
    /// Relaxed store.
    fn set(c: &Self::Cell, v: Self);
    /// The smaller (a plain compare-and-select: one `minss`/`minsd`, unlike `f32::min`, whose
    /// NaN handling costs three more instructions; no NaN reaches it here).
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        if self < o {
            self
        } else {
            o
        }
    }
    /// The larger (compare-and-select, as [`Real::min`]).
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        if self > o {
            self
        } else {
            o
        }
    }
}

impl Real for f64 {
    type Cell = AtomicU64;
    fn of(v: f64) -> Self {
        v
    }
    fn f64(self) -> f64 {
        self
    }
    fn cell(v: Self) -> AtomicU64 {
        AtomicU64::new(v.to_bits())
    }
    fn get(c: &AtomicU64) -> Self {
        f64::from_bits(c.load(Ordering::Relaxed))
    }
    fn set(c: &AtomicU64, v: Self) {
        c.store(v.to_bits(), Ordering::Relaxed)
    }
}

impl Real for f32 {
    type Cell = AtomicU32;
    fn of(v: f64) -> Self {
        v as f32
    }
    fn f64(self) -> f64 {
        self as f64
    }
    fn cell(v: Self) -> AtomicU32 {
        AtomicU32::new(v.to_bits())
    }
    fn get(c: &AtomicU32) -> Self {
        f32::from_bits(c.load(Ordering::Relaxed))
    }
    fn set(c: &AtomicU32, v: Self) {
        c.store(v.to_bits(), Ordering::Relaxed)
    }
}

/// A 2-tier Clos (leaf-spine) with hosts, racks and spines, and random flows on it.
#[derive(Clone, Debug)]
pub struct Clos {
    /// Racks.
    pub racks: usize,
    /// Hosts per rack.
    pub hosts_per_rack: usize,
    /// Spine switches.
    pub spines: usize,
    /// Blocks of racks (FlowBlock/LinkBlock partition; one per thread).
    pub blocks: usize,
    /// Host link capacity, b/s.
    pub host_bps: f64,
    /// Leaf-spine link capacity, b/s.
    pub uplink_bps: f64,
}

/// Flows with four link slots each, links numbered block by block.
#[derive(Clone, Debug)]
pub struct FlowSet {
    /// Link capacities in rate units (last one is the dummy).
    pub capacity: Vec<f64>,
    /// Four links per flow (`4 * flows` entries).
    pub links: Vec<u32>,
    /// Log weight per flow.
    pub weight: Vec<f64>,
    /// Line rate per flow (rate units).
    pub line: Vec<f64>,
    /// Source block per flow (flows are sorted by it).
    pub block: Vec<u32>,
    /// Flow range of each block: `block_start[b]..block_start[b + 1]`.
    pub block_start: Vec<usize>,
    /// Link range each block aggregates: `link_start[b]..link_start[b + 1]`.
    pub link_start: Vec<usize>,
    /// The dummy link's index.
    pub dummy: usize,
    /// The rate unit, b/s.
    pub unit: f64,
}

impl Clos {
    /// Flowtune §6.1-like instance: `nodes` hosts in racks of 48 (or fewer when `nodes` is
    /// small), 4 spines, `blocks` blocks; 40 Gb/s host links, full-bisection uplinks.
    pub fn for_nodes(nodes: usize, blocks: usize) -> Clos {
        let hosts_per_rack = 48.min(nodes / blocks.max(1)).max(1);
        let racks = nodes.div_ceil(hosts_per_rack);
        let spines = 4;
        Clos {
            racks,
            hosts_per_rack,
            spines,
            blocks,
            host_bps: 40e9,
            uplink_bps: 40e9 * hosts_per_rack as f64 / spines as f64,
        }
    }

    /// Hosts.
    pub fn hosts(&self) -> usize {
        self.racks * self.hosts_per_rack
    }

    /// `flows` flows between uniformly random distinct host pairs, each over a uniformly random
    /// spine, log utility with weight 1; deterministic in `seed`.
    pub fn random_flows(&self, flows: usize, seed: u64) -> FlowSet {
        let mut rng = dctc_core::rng::component_rng(seed, 0x6e756d);
        use rand::Rng;
        let hosts = self.hosts();
        let racks_per_block = self.racks.div_ceil(self.blocks);
        let block_of_rack = |r: usize| r / racks_per_block;
        // Link numbering, block by block: for each rack in the block, its hosts' up and down
        // links, then its uplinks and downlinks to each spine.
        let per_rack = 2 * self.hosts_per_rack + 2 * self.spines;
        let host_up = |h: usize| {
            let r = h / self.hosts_per_rack;
            r * per_rack + 2 * (h % self.hosts_per_rack)
        };
        let host_down = |h: usize| host_up(h) + 1;
        let rack_up = |r: usize, s: usize| r * per_rack + 2 * self.hosts_per_rack + 2 * s;
        let rack_down = |r: usize, s: usize| rack_up(r, s) + 1;
        let nlinks = self.racks * per_rack;
        let unit = self.host_bps;
        let mut capacity = vec![0.0; nlinks + 1];
        for r in 0..self.racks {
            for i in 0..self.hosts_per_rack {
                let h = r * self.hosts_per_rack + i;
                capacity[host_up(h)] = self.host_bps / unit;
                capacity[host_down(h)] = self.host_bps / unit;
            }
            for s in 0..self.spines {
                capacity[rack_up(r, s)] = self.uplink_bps / unit;
                capacity[rack_down(r, s)] = self.uplink_bps / unit;
            }
        }
        capacity[nlinks] = f64::INFINITY;
        let mut raw: Vec<(u32, [u32; 4])> = Vec::with_capacity(flows);
        for _ in 0..flows {
            let src = rng.random_range(0..hosts);
            let mut dst = rng.random_range(0..hosts - 1);
            if dst >= src {
                dst += 1;
            }
            let (rs, rd) = (src / self.hosts_per_rack, dst / self.hosts_per_rack);
            let path = if rs == rd {
                [host_up(src), host_down(dst), nlinks, nlinks]
            } else {
                let s = rng.random_range(0..self.spines);
                [
                    host_up(src),
                    rack_up(rs, s),
                    rack_down(rd, s),
                    host_down(dst),
                ]
            };
            raw.push((block_of_rack(rs) as u32, path.map(|l| l as u32)));
        }
        raw.sort_by_key(|f| f.0); // stable: FlowBlocks by source block
        let mut block_start = vec![0; self.blocks + 1];
        for f in &raw {
            block_start[f.0 as usize + 1] += 1;
        }
        for b in 0..self.blocks {
            block_start[b + 1] += block_start[b];
        }
        let mut link_start: Vec<usize> = (0..=self.blocks)
            .map(|b| (b * racks_per_block).min(self.racks) * per_rack)
            .collect();
        link_start[self.blocks] = nlinks;
        let line: Vec<f64> = raw
            .iter()
            .map(|f| {
                f.1.iter()
                    .map(|&l| capacity[l as usize])
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        FlowSet {
            capacity,
            links: raw.iter().flat_map(|f| f.1).collect(),
            weight: vec![1.0; raw.len()],
            line,
            block: raw.iter().map(|f| f.0).collect(),
            block_start,
            link_start,
            dummy: nlinks,
            unit,
        }
    }
}

impl FlowSet {
    /// Number of flows.
    pub fn flows(&self) -> usize {
        self.weight.len()
    }
    /// Number of links (without the dummy).
    pub fn links(&self) -> usize {
        self.dummy
    }
}

/// NED step factor used by the fast path.
const GAMMA: f64 = 0.4;
/// Demand cap relative to line rate (as [`crate::problem::DEMAND_CAP`]).
const DEMAND: f64 = crate::problem::DEMAND_CAP;

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

/// A reusable spinning barrier for `n` threads (iterations take microseconds; parking would
/// cost more than the work).
struct SpinBarrier {
    n: usize,
    count: AtomicUsize,
    generation: AtomicUsize,
}

impl SpinBarrier {
    fn new(n: usize) -> SpinBarrier {
        SpinBarrier {
            n,
            count: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
        }
    }
    fn wait(&self) {
        let gen = self.generation.load(Ordering::Acquire);
        if self.count.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.count.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
        } else {
            let mut spins = 0u32;
            while self.generation.load(Ordering::Acquire) == gen {
                spins += 1;
                if spins < 1 << 12 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
    }
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

/// One row of Flowtune's §6.1 table with our measurements.
#[derive(Clone, Debug)]
pub struct BenchRow {
    /// Flowtune's core count for this row.
    pub paper_cores: usize,
    /// Hosts.
    pub nodes: usize,
    /// Flows.
    pub flows: usize,
    /// Flowtune's published time per iteration, microseconds.
    pub paper_us: f64,
    /// Our median, f64 single thread, microseconds.
    pub f64_1t_us: f64,
    /// Our median, f32 single thread, microseconds.
    pub f32_1t_us: f64,
    /// Our median, f32 on `threads` threads (FlowBlock/LinkBlock), microseconds.
    pub f32_mt_us: f64,
    /// Threads used for `f32_mt_us`.
    pub threads: usize,
}

/// Flowtune §6.1: (cores, nodes, flows, microseconds per iteration).
pub const FLOWTUNE_TABLE: [(usize, usize, usize, f64); 7] = [
    (4, 384, 3072, 8.29),
    (16, 768, 6144, 8.86),
    (64, 1536, 12288, 12.63),
    (64, 1536, 24576, 13.99),
    (64, 1536, 49152, 16.93),
    (64, 3072, 49152, 23.76),
    (64, 4608, 49152, 30.71),
];

fn median(mut v: Vec<u64>) -> f64 {
    v.sort_unstable();
    v[v.len() / 2] as f64 / 1000.0
}

/// Median nanoseconds per single-threaded iteration over `iterations` (after a warm-up).
pub fn time_single<T: Real>(set: &FlowSet, iterations: usize) -> f64 {
    let mut fast = Fast::<T>::new(set);
    for _ in 0..iterations.min(50) {
        fast.iterate();
    }
    let times: Vec<u64> = (0..iterations)
        .map(|_| {
            let start = Instant::now();
            fast.iterate();
            start.elapsed().as_nanos() as u64
        })
        .collect();
    median(times)
}

/// Reruns Flowtune's §6.1 table on this machine: for each row, a Clos with that many hosts
/// and flows between random pairs, timing one iteration (rate update + price update + F-NORM)
/// f64 and f32 single-threaded and f32 with FlowBlock/LinkBlock on `threads` threads. Medians
/// over `iterations` iterations.
pub fn bench_table(threads: usize, iterations: usize) -> Vec<BenchRow> {
    FLOWTUNE_TABLE
        .iter()
        .map(|&(paper_cores, nodes, flows, paper_us)| {
            let single = Clos::for_nodes(nodes, 1).random_flows(flows, 1);
            let multi = Clos::for_nodes(nodes, threads).random_flows(flows, 1);
            let par = Parallel::<f32>::new(&multi);
            let mut times = par.run(iterations + 50);
            times.drain(..50);
            BenchRow {
                paper_cores,
                nodes,
                flows,
                paper_us,
                f64_1t_us: time_single::<f64>(&single, iterations),
                f32_1t_us: time_single::<f32>(&single, iterations),
                f32_mt_us: median(times),
                threads,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::f_norm;
    use crate::solver::{Ned, Solver, State};
    use crate::{FlowSpec, Problem, Utility};

    fn generic(set: &FlowSet) -> Problem {
        let mut p = Problem::new(set.unit);
        for (l, &c) in set.capacity[..set.dummy].iter().enumerate() {
            p.add_link(format!("l{l}"), c * set.unit).unwrap();
        }
        for f in 0..set.flows() {
            let path: Vec<usize> = set.links[4 * f..4 * f + 4]
                .iter()
                .map(|&l| l as usize)
                .filter(|&l| l != set.dummy)
                .collect();
            p.add_flow(FlowSpec::new(
                format!("f{f}"),
                path,
                Utility::Log { weight: 1.0 },
            ))
            .unwrap();
        }
        p
    }

    #[test]
    fn fast_f64_matches_the_generic_ned_and_f_norm() {
        let set = Clos::for_nodes(96, 2).random_flows(400, 7);
        let mut p = generic(&set);
        let mut ned = Ned::default();
        let mut st = State::new(&p, 1.0);
        let mut fast = Fast::<f64>::new(&set);
        for _ in 0..30 {
            ned.iterate(&mut p, &mut st);
            fast.iterate();
        }
        let mut x = st.sub_rate.clone();
        f_norm(p.capacity_scaled(), p.paths(), &mut x);
        for (a, b) in x.iter().zip(&fast.normalized) {
            assert!((a - b).abs() <= 1e-12 * a.abs(), "{a} vs {b}");
        }
        for (a, b) in st.prices.iter().zip(&fast.prices) {
            assert!((a - b).abs() <= 1e-12 * a.abs().max(1e-9), "{a} vs {b}");
        }
    }

    #[test]
    fn f32_agrees_with_f64_to_1e_4() {
        let set = Clos::for_nodes(384, 2).random_flows(3072, 3);
        let mut a = Fast::<f64>::new(&set);
        let mut b = Fast::<f32>::new(&set);
        for _ in 0..200 {
            a.iterate();
            b.iterate();
        }
        for (x, y) in a.normalized.iter().zip(&b.normalized) {
            assert!((x - *y as f64).abs() <= 1e-4 * x, "{x} vs {y}");
        }
    }

    #[test]
    fn parallel_matches_single_thread() {
        let set = Clos::for_nodes(384, 2).random_flows(3072, 5);
        let mut single = Fast::<f64>::new(&set);
        let par = Parallel::<f64>::new(&set);
        for _ in 0..25 {
            single.iterate();
        }
        par.run(25);
        // Same arithmetic except the order of the per-link sums across the two copies.
        for (x, y) in single.normalized.iter().zip(par.normalized()) {
            assert!((x - y).abs() <= 1e-9 * x, "{x} vs {y}");
        }
    }

    #[test]
    fn f_norm_output_never_overloads_and_converges() {
        let set = Clos::for_nodes(384, 1).random_flows(3072, 9);
        let mut fast = Fast::<f64>::new(&set);
        for _ in 0..300 {
            fast.iterate();
        }
        let mut load = vec![0.0; set.capacity.len()];
        for f in 0..set.flows() {
            for &l in &set.links[4 * f..4 * f + 4] {
                load[l as usize] += fast.normalized[f];
            }
        }
        for l in 0..set.links() {
            assert!(load[l] <= set.capacity[l] * (1.0 + 1e-12));
        }
        // Converged: the normalized rates are the raw ones to 1e-6.
        for (x, r) in fast.normalized.iter().zip(&fast.rate) {
            assert!((x - r).abs() <= 1e-6 * r);
        }
    }

    #[test]
    fn zero_prices_give_line_rate_and_finite_prices() {
        // Every price at 0 (the branch-free rate update divides by a zero path price): each
        // flow gets its line rate, and the next prices and normalized rates are finite and
        // agree between f32 and f64.
        let set = Clos::for_nodes(384, 1).random_flows(3072, 5);
        let mut a = Fast::<f32>::new(&set);
        a.prices.iter_mut().for_each(|p| *p = 0.0);
        a.iterate();
        for f in 0..set.flows() {
            assert_eq!(a.rate[f] as f64, set.line[f] as f32 as f64);
            assert!(a.normalized[f].is_finite() && a.normalized[f] > 0.0);
        }
        assert!(a.prices.iter().all(|p| p.is_finite() && *p >= 0.0));
        assert!(a.prices[..set.links()].iter().any(|p| *p > 0.0));
        let mut b = Fast::<f64>::new(&set);
        b.prices.iter_mut().for_each(|p| *p = 0.0);
        b.iterate();
        for f in 0..set.flows() {
            assert_eq!(b.rate[f], set.line[f]);
            let rel = (a.normalized[f] as f64 - b.normalized[f]).abs() / b.normalized[f];
            assert!(rel < 1e-4, "flow {f}: {rel}");
        }
    }
}
