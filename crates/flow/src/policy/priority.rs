//! Strict-priority greedy allocation kept up to date across flow completions (the engine of
//! `fastpass-f` and `fastpass-c`).
//!
//! The greedy gives the flows, in priority order, each all it can on its route:
//! `x_g = min over hops l of (cap_l - sum of x_h c_h,l over earlier h on l) / c_g,l`. A full
//! solve sorts and runs it (at arrivals, where the order is decided). A flow completion then
//! re-runs it only where it can change: the completed flow's links carry less load above every
//! later flow on them, so a cursor walks each such link in priority order, re-evaluating the
//! flows it meets; a flow whose rate moves moves the load on its other links, which start
//! cursors of their own; a link's cursor stops once the load above its next flow is back to
//! what it was (`|delta| <= SNAP * cap`). Cursors are taken in one global priority order (a
//! heap), so a flow is evaluated after every earlier flow has its final rate: the result is
//! the from-scratch greedy over the same order (to rounding, `tests` below).
//!
//! With more load above, only flows with a rate can lose (a flow at 0 stays at 0), so such a
//! cursor walks the link's busy list; with less, every later flow on the link may gain.
//!
//! A different algorithm from the water-filling re-solves (`maxmin_inc.rs`, "The flow
//! policies' incremental re-solves"): no common level, so no cut below which rates hold.

use super::{Coupling, RatePolicy, View};
use crate::net::Hop;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Spare capacity below `SNAP * cap` counts as none, and a link's load change below it as no
/// change (rounding of the subtractions; 1e-9 of a 1 Gb/s link is 1 b/s).
pub(crate) const SNAP: f64 = 1e-9;

/// The greedy's state between solves.
#[derive(Clone, Debug, Default)]
pub(crate) struct PriorityGreedy {
    /// Per flow: its place in the order of the last full solve that covered it.
    rank: Vec<u64>,
    /// Per flow: the rate this allocator gave it last.
    rate: Vec<f64>,
    next_rank: u64,
    /// Per link: the flows on it in priority order, and those among them with a rate.
    order: Vec<Vec<(u64, u32)>>,
    busy: Vec<Vec<(u64, u32)>>,
    /// The routes the state was built on (`Flows::route_epoch`); `None` before the first solve.
    epoch: Option<u64>,
    avail: Vec<f64>,
    // Incremental re-run scratch: per link the load change above the cursor, the cursor's
    // last rank, and the version of its live heap entry.
    delta: Vec<f64>,
    cursor: Vec<u64>,
    version: Vec<u32>,
    heap: BinaryHeap<Reverse<(u64, u32, u32, u32)>>,
    stamp: Vec<u32>,
    pass: u32,
    changed: Vec<u32>,
    touched: Vec<u32>,
}

/// The order a [`GreedyPolicy`] serves flows in, decided at each full solve.
pub(crate) trait Ranking {
    /// Fills `prio` (cleared by the caller) with the positions in `comp`, first served first.
    fn rank(&mut self, v: &View<'_>, comp: &[u32], prio: &mut Vec<u32>);
}

/// A rate policy that gives the flows, in the order its [`Ranking`] decides at arrivals, all
/// they can on their routes, and keeps that greedy up to date across completions with
/// [`PriorityGreedy::remove`] instead of re-sorting (`fastpass-f`, `fastpass-c`).
pub(crate) struct GreedyPolicy<R> {
    name: &'static str,
    coupling: Coupling,
    ranking: R,
    greedy: PriorityGreedy,
    prio: Vec<u32>,
}

impl<R: Ranking> GreedyPolicy<R> {
    /// Policy `name` for a fabric with `links` directed links.
    pub(crate) fn new(name: &'static str, coupling: Coupling, links: usize, ranking: R) -> Self {
        GreedyPolicy {
            name,
            coupling,
            ranking,
            greedy: PriorityGreedy::new(links),
            prio: Vec::new(),
        }
    }
}

impl<R: Ranking> RatePolicy for GreedyPolicy<R> {
    fn name(&self) -> &str {
        self.name
    }

    fn coupling(&self) -> Coupling {
        self.coupling
    }

    fn allocate(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) {
        self.prio.clear();
        self.ranking.rank(v, comp, &mut self.prio);
        self.greedy.solve(v, comp, &self.prio, rates);
    }

    fn completion_reallocates(&self, v: &View<'_>, flow: u32) -> bool {
        !self.greedy.can_remove(v, flow)
    }

    fn after_skipped_completion(
        &mut self,
        v: &View<'_>,
        flow: u32,
        _rate: f64,
        changes: &mut Vec<(u32, f64)>,
    ) {
        self.greedy.remove(v, flow, changes);
    }
}

fn coef_on(hops: &[Hop], l: usize) -> f64 {
    hops.iter()
        .find(|h| h.link as usize == l)
        .map_or(1.0, |h| h.coef)
}

fn remove_ranked(list: &mut Vec<(u64, u32)>, rank: u64) {
    if let Ok(i) = list.binary_search_by_key(&rank, |e| e.0) {
        list.remove(i);
    }
}

fn insert_ranked(list: &mut Vec<(u64, u32)>, rank: u64, f: u32) {
    if let Err(i) = list.binary_search_by_key(&rank, |e| e.0) {
        list.insert(i, (rank, f));
    }
}

impl PriorityGreedy {
    /// For a fabric with `links` directed links.
    pub(crate) fn new(links: usize) -> PriorityGreedy {
        PriorityGreedy {
            order: vec![Vec::new(); links],
            busy: vec![Vec::new(); links],
            delta: vec![0.0; links],
            cursor: vec![0; links],
            version: vec![0; links],
            ..PriorityGreedy::default()
        }
    }

    /// The full solve: `prio` lists positions in `comp` in priority order; writes `rates[k]`
    /// for `comp[k]` and rebuilds the state of `comp`'s links (a closed component: every
    /// flow on them is in `comp`).
    pub(crate) fn solve(&mut self, v: &View<'_>, comp: &[u32], prio: &[u32], rates: &mut [f64]) {
        let cap = &v.net.cap;
        let top = comp.iter().map(|&f| f as usize + 1).max().unwrap_or(0);
        if self.rank.len() < top {
            self.rank.resize(top, u64::MAX);
            self.rate.resize(top, 0.0);
            self.stamp.resize(top, 0);
        }
        self.avail.clear();
        self.avail.extend_from_slice(cap);
        for &f in comp {
            for h in v.flows.hops(f as usize) {
                self.order[h.link as usize].clear();
                self.busy[h.link as usize].clear();
            }
        }
        for &k in prio {
            let k = k as usize;
            let f = comp[k];
            let hops = v.flows.hops(f as usize);
            let mut r = f64::INFINITY;
            for h in hops {
                let l = h.link as usize;
                let a = self.avail[l];
                let a = if a <= SNAP * cap[l] { 0.0 } else { a };
                r = r.min(a / h.coef);
            }
            if !r.is_finite() {
                r = 0.0;
            }
            let rank = self.next_rank;
            self.next_rank += 1;
            self.rank[f as usize] = rank;
            self.rate[f as usize] = r;
            rates[k] = r;
            for h in hops {
                let l = h.link as usize;
                self.avail[l] -= r * h.coef;
                self.order[l].push((rank, f));
                if r > 0.0 {
                    self.busy[l].push((rank, f));
                }
            }
        }
        self.epoch = Some(v.flows.route_epoch());
    }

    /// Whether `flow`'s completion can be handled by [`PriorityGreedy::remove`] (the state
    /// covers it and the routes have not moved since it was built).
    pub(crate) fn can_remove(&self, v: &View<'_>, flow: u32) -> bool {
        self.epoch == Some(v.flows.route_epoch())
            && self.rank.get(flow as usize).is_some_and(|&r| r != u64::MAX)
    }

    /// Flow `flow` has ended: re-runs the greedy where that changes anything and pushes
    /// `(flow, new rate)` for every other flow whose rate moved.
    pub(crate) fn remove(&mut self, v: &View<'_>, flow: u32, changes: &mut Vec<(u32, f64)>) {
        let f = flow as usize;
        let rank = self.rank[f];
        let r0 = self.rate[f];
        self.rank[f] = u64::MAX;
        self.rate[f] = 0.0;
        let hops = v.flows.hops(f);
        for h in hops {
            let l = h.link as usize;
            remove_ranked(&mut self.order[l], rank);
            if r0 > 0.0 {
                remove_ranked(&mut self.busy[l], rank);
            }
        }
        if r0 <= 0.0 {
            return;
        }
        self.pass = self.pass.wrapping_add(1);
        if self.pass == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.pass = 1;
        }
        self.heap.clear();
        self.changed.clear();
        self.touched.clear();
        for h in hops {
            let l = h.link as usize;
            self.delta[l] = -r0 * h.coef;
            self.restart(v, l, rank);
        }
        while let Some(Reverse((rk, g, l, ver))) = self.heap.pop() {
            let l = l as usize;
            if self.version[l] != ver {
                continue;
            }
            let gu = g as usize;
            // (A finished flow is only on lists the next full solve rebuilds.)
            if v.flows.active[gu] && self.stamp[gu] != self.pass {
                self.stamp[gu] = self.pass;
                let old = self.rate[gu];
                let new = self.evaluate(v, gu, rk);
                if new != old {
                    self.rate[gu] = new;
                    self.changed.push(g);
                    for h in v.flows.hops(gu) {
                        let m = h.link as usize;
                        self.delta[m] += (new - old) * h.coef;
                        if old <= 0.0 {
                            insert_ranked(&mut self.busy[m], rk, g);
                        } else if new <= 0.0 {
                            remove_ranked(&mut self.busy[m], rk);
                        }
                        if m != l {
                            self.restart(v, m, rk);
                        }
                    }
                }
            }
            self.restart(v, l, rk);
        }
        for &g in &self.changed {
            changes.push((g, self.rate[g as usize]));
        }
        for &l in &self.touched {
            self.delta[l as usize] = 0.0;
        }
    }

    /// Files link `l`'s cursor from just after rank `from`: the next flow on it that the load
    /// change above can move, unless that change is down to rounding.
    fn restart(&mut self, v: &View<'_>, l: usize, from: u64) {
        self.touched.push(l as u32);
        self.version[l] = self.version[l].wrapping_add(1);
        self.cursor[l] = from;
        let d = self.delta[l];
        if d.abs() <= SNAP * v.net.cap[l] {
            self.delta[l] = 0.0;
            return;
        }
        let list = if d > 0.0 {
            &self.busy[l]
        } else {
            &self.order[l]
        };
        let i = list.partition_point(|e| e.0 <= from);
        if let Some(&(rk, g)) = list.get(i) {
            self.heap.push(Reverse((rk, g, l as u32, self.version[l])));
        }
    }

    /// Flow `g`'s greedy rate given the current rates of the flows before it (rank `rk`).
    fn evaluate(&self, v: &View<'_>, g: usize, rk: u64) -> f64 {
        let cap = &v.net.cap;
        let mut r = f64::INFINITY;
        for h in v.flows.hops(g) {
            let l = h.link as usize;
            let mut a = cap[l];
            for &(hr, hf) in &self.busy[l] {
                if hr >= rk {
                    break;
                }
                let hf = hf as usize;
                if v.flows.active[hf] {
                    a -= self.rate[hf] * coef_on(v.flows.hops(hf), l);
                }
            }
            let a = if a <= SNAP * cap[l] { 0.0 } else { a };
            r = r.min(a / h.coef);
        }
        if r.is_finite() {
            r
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{SimConfig, Simulator};
    use crate::policy::{Coupling, RatePolicy};
    use crate::routing::RoutingMode;
    use crate::state::{CoflowInput, FlowInput};
    use dctc_core::units::SimTime;
    use rand::{Rng, SeedableRng};

    fn coflows(seed: u64) -> Vec<CoflowInput> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        (0..60)
            .map(|i| CoflowInput {
                id: i,
                arrival: SimTime(rng.random_range(0..2_000_000_000)),
                flows: (0..rng.random_range(1..8))
                    .map(|_| {
                        let src = rng.random_range(0..16u32);
                        FlowInput {
                            src,
                            dst: (src + rng.random_range(1..16u32)) % 16,
                            bytes: rng.random_range(1e3..3e6),
                        }
                    })
                    .collect(),
            })
            .collect()
    }

    /// Priority by flow size (a key that never moves, so re-sorting at every completion
    /// gives the order the incremental re-run keeps); after every incremental re-run it
    /// checks every active flow's rate against the from-scratch greedy in the kept order,
    /// and that the engine applied the changes it pushed.
    struct BySize {
        greedy: PriorityGreedy,
        order: Vec<(f64, u32)>,
        idx: Vec<u32>,
        checked: usize,
        moved: usize,
    }

    impl BySize {
        fn check(&mut self, v: &View<'_>) {
            let mut act: Vec<(u64, u32)> = (0..v.flows.len())
                .filter(|&f| v.flows.active[f])
                .map(|f| (self.greedy.rank[f], f as u32))
                .collect();
            act.sort_unstable();
            let mut avail = v.net.cap.clone();
            for &(_, f) in &act {
                let hops = v.flows.hops(f as usize);
                let mut r = f64::INFINITY;
                for h in hops {
                    let l = h.link as usize;
                    let a = avail[l];
                    r = r.min(if a <= SNAP * v.net.cap[l] { 0.0 } else { a } / h.coef);
                }
                for h in hops {
                    avail[h.link as usize] -= r * h.coef;
                }
                let got = self.greedy.rate[f as usize];
                assert!(
                    (got - r).abs() <= 1e-9 * v.net.route_rate(hops),
                    "flow {f}: incremental {got} vs from scratch {r}"
                );
            }
            self.checked += 1;
        }
    }

    impl RatePolicy for BySize {
        fn name(&self) -> &str {
            "by-size"
        }
        fn coupling(&self) -> Coupling {
            Coupling::Links
        }
        fn allocate(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) {
            self.order.clear();
            for (k, &f) in comp.iter().enumerate() {
                self.order.push((v.flows.size[f as usize], k as u32));
            }
            self.order
                .sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            self.idx.clear();
            self.idx.extend(self.order.iter().map(|o| o.1));
            self.greedy.solve(v, comp, &self.idx, rates);
        }
        fn completion_reallocates(&self, v: &View<'_>, flow: u32) -> bool {
            for f in 0..v.flows.len() {
                if v.flows.active[f] && f != flow as usize {
                    assert_eq!(v.flows.rate[f], self.greedy.rate[f], "flow {f} as applied");
                }
            }
            !self.greedy.can_remove(v, flow)
        }
        fn after_skipped_completion(
            &mut self,
            v: &View<'_>,
            flow: u32,
            _rate: f64,
            changes: &mut Vec<(u32, f64)>,
        ) {
            self.greedy.remove(v, flow, changes);
            self.moved += changes.len();
            self.check(v);
        }
    }

    #[test]
    fn incremental_greedy_matches_the_from_scratch_greedy_after_every_completion() {
        let net = crate::engine::tests::test_net();
        for (seed, routing) in [(1u64, RoutingMode::Ecmp), (2, RoutingMode::Drill)] {
            let mut finish = Vec::new();
            for every in [false, true] {
                let p = BySize {
                    greedy: PriorityGreedy::new(net.links()),
                    order: Vec::new(),
                    idx: Vec::new(),
                    checked: 0,
                    moved: 0,
                };
                let cfg = SimConfig {
                    routing: routing.clone(),
                    audit: true,
                    ..SimConfig::default()
                };
                let mut sim = Simulator::new(&net, coflows(seed), Box::new(p), cfg);
                if every {
                    sim.reallocate_every_completion();
                }
                let r = sim.run(|_| {});
                assert!(sim.flows.finish.iter().all(|&t| t != SimTime::NEVER));
                if !every {
                    // Most completions were handled incrementally and moved some rates.
                    assert!(r.allocations < 80, "{} full solves", r.allocations);
                }
                finish.push(sim.flows.finish.clone());
            }
            for (a, b) in finish[0].iter().zip(&finish[1]) {
                let (a, b) = (a.ps() as f64, b.ps() as f64);
                assert!((a - b).abs() <= 1e-9 * b + 2.0, "seed {seed}: {a} vs {b}");
            }
        }
    }
}
