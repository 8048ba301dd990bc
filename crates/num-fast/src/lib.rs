//! dctc-num-fast: the benchmarked allocator, Flowtune's §6.1 iteration (NED rate update + price update +
//! F-NORM) for weighted-log flows, in `f64` or `f32`, single-threaded or on several threads
//! (Flowtune §5).
//!
//! Two layouts (see `BENCHMARKS.md` for the measurements that chose them):
//!
//! - [`pull`] (the fast path): paths split into two shared *halves* ([`layout`]), flows
//!   renumbered, link sums *pulled* by halves in sliced-ELLPACK form, F-NORM fused into the
//!   next iteration's flow pass, so one iteration is one flow pass and one link pass;
//!   [`par::PullParallel`] runs it with one barrier per iteration and no merge of link
//!   copies. The phases are compiled again for AVX-512 / AVX2 (with explicit AVX-512 kernels
//!   for `f32`), chosen at run time ([`simd`]).
//! - [`push`] (the first fast path, kept as the same-run baseline): four link slots per flow,
//!   a scatter-add of every flow's rate into its links, F-NORM as a separate pass.
//!
//! Semantics match `dctc_num::solver::Ned` + `dctc_num::normalize::f_norm` for log utilities:
//! rates clamp at line rate, price updates see demand up to 4x line rate, `H_ll` uses the
//! one-sided slope at the clamp, links without flows keep their price (tested against the
//! generic path, `tests.rs`).
//!
//! Its own crate because its SIMD kernels and shared-buffer threads need `unsafe` (allowed on
//! those modules only, each block with its SAFETY argument), so that dctc-num can forbid it.

#![deny(unsafe_code)]
// Index loops over several parallel arrays read better than zipped iterators here.
#![allow(clippy::needless_range_loop)]

pub mod layout;
#[allow(unsafe_code)]
pub mod par;
mod phases;
pub mod pull;
pub mod push;
#[allow(unsafe_code)]
mod shared;
#[allow(unsafe_code)]
pub mod simd;

pub use layout::{Layout, LayoutError};
pub use par::PullParallel;
pub use pull::Pull;
pub use push::{Fast, Parallel};
pub use simd::Kernel;

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
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
/// Demand cap relative to line rate (as `dctc_num::problem::DEMAND_CAP`).
const DEMAND: f64 = dctc_num::problem::DEMAND_CAP;

/// One row of Flowtune's §6.1 table with our measurements (medians, microseconds).
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
    /// The push layout ([`Fast`], the previous fast path), f32, one thread: the same-run
    /// baseline.
    pub push_f32_1t_us: f64,
    /// Pull layout, f64, one thread.
    pub f64_1t_us: f64,
    /// Pull layout, f32, one thread.
    pub f32_1t_us: f64,
    /// Pull layout, f32, `threads` threads.
    pub f32_mt_us: f64,
    /// Threads used for `f32_mt_us`.
    pub threads: usize,
    /// The kernel the pull layout ran.
    pub kernel: Kernel,
}

impl BenchRow {
    /// The best of our single- and multi-threaded f32 times.
    pub fn best_us(&self) -> f64 {
        self.f32_1t_us.min(self.f32_mt_us)
    }

    /// Flows per core-microsecond of the multi-threaded run.
    pub fn flows_per_core_us(&self) -> f64 {
        self.flows as f64 / (self.f32_mt_us * self.threads as f64)
    }

    /// Flows per core-microsecond of the single-threaded f32 run.
    pub fn flows_per_core_us_1t(&self) -> f64 {
        self.flows as f64 / self.f32_1t_us
    }

    /// Flows per core-microsecond in Flowtune's run.
    pub fn paper_flows_per_core_us(&self) -> f64 {
        self.flows as f64 / (self.paper_us * self.paper_cores as f64)
    }
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

/// Times `iterations` calls of `step`, appending nanoseconds per call to `into`.
fn time_into(into: &mut Vec<u64>, iterations: usize, mut step: impl FnMut()) {
    for _ in 0..iterations {
        let start = Instant::now();
        step();
        into.push(start.elapsed().as_nanos() as u64);
    }
}

/// Reruns Flowtune's §6.1 table on this machine: for each row, a 2-tier Clos with that many
/// hosts and flows between random pairs, timing one iteration (rate update + price update +
/// F-NORM). The variants (push f32, pull f64, pull f32, pull f32 on `threads` threads) run in
/// ten interleaved rounds of `iterations / 10` iterations each after 50 warm-up iterations, so
/// they see the same machine load; medians over all rounds.
pub fn bench_table(threads: usize, iterations: usize) -> Vec<BenchRow> {
    let rounds = 10;
    let per = iterations.div_ceil(rounds).max(1);
    FLOWTUNE_TABLE
        .iter()
        .map(|&(paper_cores, nodes, flows, paper_us)| {
            let set = Clos::for_nodes(nodes, 1).random_flows(flows, 1);
            let mut push = Fast::<f32>::new(&set);
            let mut p64 = Pull::<f64>::new(&set).expect("Clos paths have 2 or 4 links");
            let mut p32 = Pull::<f32>::new(&set).expect("Clos paths have 2 or 4 links");
            let mut par = PullParallel::<f32>::new(&set, threads).expect("Clos paths");
            let mut t = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
            for _ in 0..50 {
                push.iterate();
                p64.iterate();
                p32.iterate();
            }
            par.run(50);
            for _ in 0..rounds {
                time_into(&mut t[0], per, || push.iterate());
                time_into(&mut t[1], per, || p64.iterate());
                time_into(&mut t[2], per, || p32.iterate());
                t[3].extend(par.run(per));
            }
            let [a, b, c, d] = t.map(median);
            BenchRow {
                paper_cores,
                nodes,
                flows,
                paper_us,
                push_f32_1t_us: a,
                f64_1t_us: b,
                f32_1t_us: c,
                f32_mt_us: d,
                threads,
                kernel: p32.kernel(),
            }
        })
        .collect()
}

/// The table as Markdown, Flowtune's columns beside ours.
pub fn bench_markdown(rows: &[BenchRow]) -> String {
    let Some(r0) = rows.first() else {
        return String::new();
    };
    let th = r0.threads;
    let mut s = format!(
        "| Flowtune cores | nodes | flows | Flowtune us | Flowtune flows per core-us | \
         push f32 1t us (before) | pull f64 1t us | pull f32 1t us | pull f32 {th}t us | \
         flows per core-us (1t) | flows per core-us ({th}t) | best / Flowtune |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n"
    );
    for r in rows {
        s += &format!(
            "| {} | {} | {} | {:.2} | {:.1} | {:.2} | {:.2} | {:.2} | {:.2} | {:.0} | {:.0} | {:.2} |\n",
            r.paper_cores,
            r.nodes,
            r.flows,
            r.paper_us,
            r.paper_flows_per_core_us(),
            r.push_f32_1t_us,
            r.f64_1t_us,
            r.f32_1t_us,
            r.f32_mt_us,
            r.flows_per_core_us_1t(),
            r.flows_per_core_us(),
            r.best_us() / r.paper_us,
        );
    }
    s
}

#[cfg(test)]
mod tests;
