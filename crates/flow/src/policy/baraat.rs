//! `baraat`: FIFO across coflows (tasks) with limited multiplexing (Baraat, SIGCOMM'14).
//!
//! Coflows are served in arrival order, each one a strict priority class; the fabric's links
//! are shared max-min within a class on what higher classes left (explicit, in-network-aware
//! rate control). A coflow becomes *heavy* once it has sent more than the heavy threshold;
//! a heavy coflow no longer blocks the queue: it shares its class with the next non-heavy
//! coflow behind it (limited multiplexing). Threshold: `heavy_bytes`, or by default the 80th
//! percentile of the workload's coflow sizes (Baraat sets it from the size distribution).
//! Heaviness is the bytes sent so far, so a coflow turns heavy the moment it crosses the
//! threshold: besides arrivals and completions, the policy asks the engine to wake it at the
//! earliest crossing its current rates give ([`RatePolicy::next_wake`]).

use super::{BuildContext, Coupling, RatePolicy, View};
use crate::alloc::WaterFill;
use crate::completion::ceil_pos;
use crate::error::FlowError;
use crate::maxmin_inc::{above_cut, TIGHT};
use dctc_core::stats::percentile_sorted;
use dctc_core::units::SimTime;
use serde::Deserialize;

/// `dctc list`'s line.
pub const ABOUT: &str =
    "Baraat: FIFO across coflows with limited multiplexing once a coflow turns heavy";

/// `baraat`'s keys.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BaraatConfig {
    /// A coflow turns heavy after sending this many bytes (default: the `heavy_percentile` of
    /// the workload's coflow sizes).
    #[serde(default)]
    pub heavy_bytes: Option<f64>,
    /// Percentile of coflow sizes used as the heavy threshold (default 0.8).
    #[serde(default)]
    pub heavy_percentile: Option<f64>,
}

/// The registry's constructor.
pub fn build(cfg: &BaraatConfig, ctx: &BuildContext<'_>) -> Result<Box<dyn RatePolicy>, FlowError> {
    Ok(Box::new(Baraat::new(
        cfg,
        ctx.net.links(),
        ctx.coflow_sizes,
    )?))
}

/// FIFO with limited multiplexing.
#[derive(Clone, Debug)]
pub struct Baraat {
    heavy: f64,
    wf: WaterFill,
    avail: Vec<f64>,
    /// Re-solve only what an event can change ([`Baraat::allocate_incremental`]); `false`
    /// re-solves every class from scratch (the reference it is tested against).
    incremental: bool,
    inc: Incremental,
}

/// What the incremental re-solve keeps between allocations, and its scratch.
#[derive(Clone, Debug, Default)]
struct Incremental {
    /// Per flow: the rate last given (a finished flow's rate is gone from the view).
    last: Vec<f64>,
    /// Flows finished since the last allocation.
    done: Vec<u32>,
    /// Classes at the last allocation, `(first coflow, last coflow)`, in order.
    classes: Vec<(u32, u32)>,
    /// Per class of the last allocation: the links its flows cross and its load on each,
    /// `class_links[class_start[i]..class_start[i + 1]]` (and the same being built now).
    class_start: Vec<usize>,
    class_links: Vec<ClassLink>,
    next_start: Vec<usize>,
    next_links: Vec<ClassLink>,
    /// Classes now, with their runs of `comp`: `(start, end, first coflow, last coflow)`.
    runs: Vec<(usize, usize, u32, u32)>,
    /// Routes the last allocation was made on (`Flows::route_epoch`); `None`: no usable state.
    epoch: Option<u64>,
    /// Per link: load of the classes before the current one, before the event (`old_in`) and
    /// now (`new_in`), b/s.
    old_in: Vec<f64>,
    new_in: Vec<f64>,
    /// Per link, for the current class: its load before the event (a changed class), its
    /// largest rate after, the shares of its flows, whether a re-solved
    /// or finished flow crosses it, and the load of its flows that keep their rates (then of
    /// all of them).
    old_q: Vec<f64>,
    new_max: Vec<f64>,
    shares: Vec<f64>,
    hit: Vec<bool>,
    kept_q: Vec<f64>,
    /// Links of the current class (`mark == stamp`).
    mark: Vec<u32>,
    stamp: u32,
    touched: Vec<u32>,
    /// Positions (in the class's run) of the flows re-solved, and their rates.
    set: Vec<u32>,
    set_all: Vec<u32>,
    out: Vec<f64>,
}

impl Incremental {
    /// Adds `link` to the current class's links (`stamp`) with zero per-class sums, unless it
    /// is there already.
    #[inline]
    fn touch(&mut self, link: u32, stamp: u32) {
        let l = link as usize;
        if self.mark[l] != stamp {
            self.mark[l] = stamp;
            self.touched.push(link);
            self.old_q[l] = 0.0;
            self.kept_q[l] = 0.0;
            self.new_max[l] = 0.0;
            self.shares[l] = 0.0;
        }
    }
}

/// One link of a class as recorded at an allocation.
#[derive(Copy, Clone, Debug)]
struct ClassLink {
    link: u32,
    /// The class's load on it, b/s.
    load: f64,
    /// Its largest rate on it (or less: a lower bound).
    max: f64,
    /// Sum of its flows' shares of their rates on it.
    shares: f64,
}

impl Baraat {
    /// From a scheme config and the workload's coflow sizes.
    pub fn new(
        cfg: &BaraatConfig,
        links: usize,
        coflow_sizes: &[f64],
    ) -> Result<Baraat, FlowError> {
        let heavy = match (cfg.heavy_bytes, cfg.heavy_percentile) {
            (Some(b), _) => {
                if b.is_nan() || b <= 0.0 {
                    return Err(FlowError::invalid("heavy_bytes", "must be > 0"));
                }
                b
            }
            (None, p) => {
                let p = p.unwrap_or(0.8);
                if !(0.0..=1.0).contains(&p) {
                    return Err(FlowError::invalid("heavy_percentile", "must be in [0, 1]"));
                }
                let mut s: Vec<f64> = coflow_sizes.to_vec();
                s.sort_by(f64::total_cmp);
                if s.is_empty() {
                    f64::INFINITY
                } else {
                    percentile_sorted(&s, p)
                }
            }
        };
        Ok(Baraat {
            heavy,
            wf: WaterFill::new(links),
            avail: Vec::new(),
            incremental: true,
            inc: Incremental::default(),
        })
    }

    /// The same policy re-solving every class from scratch at every event (the reference the
    /// incremental re-solve is checked against; same rates to rounding).
    pub fn from_scratch(mut self) -> Baraat {
        self.incremental = false;
        self
    }

    /// The heavy threshold, bytes.
    pub fn heavy_bytes(&self) -> f64 {
        self.heavy
    }

    /// The classes of `comp` in order, as runs `(start, end, first coflow, last coflow)`:
    /// `comp` is sorted by flow number and flows are numbered coflow by coflow in arrival
    /// order, so each coflow is a run of `comp` and a class (a run of heavy coflows and the
    /// light one behind them) is a run of consecutive coflows.
    fn classes(&self, v: &View<'_>, comp: &[u32], runs: &mut Vec<(usize, usize, u32, u32)>) {
        debug_assert!(comp
            .windows(2)
            .all(|w| v.flows.coflow[w[0] as usize] <= v.flows.coflow[w[1] as usize]));
        runs.clear();
        let mut a = 0;
        let mut i = 0;
        while i < comp.len() {
            let c = v.flows.coflow[comp[i] as usize];
            let mut j = i;
            let mut left = 0.0;
            while j < comp.len() && v.flows.coflow[comp[j] as usize] == c {
                left += v.flows.rem[comp[j] as usize].max(0.0);
                j += 1;
            }
            let sent = v.coflows.bytes[c as usize] - left;
            i = j;
            if sent > self.heavy && i < comp.len() {
                continue;
            }
            runs.push((a, i, v.flows.coflow[comp[a] as usize], c));
            a = i;
        }
    }

    /// Every class water-filled in order on what the earlier classes left.
    fn allocate_from_scratch(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) {
        let mut runs = std::mem::take(&mut self.inc.runs);
        self.classes(v, comp, &mut runs);
        self.avail.clear();
        self.avail.extend_from_slice(&v.net.cap);
        for &(a, i, _, _) in &runs {
            // Class `comp[a..i]`: water-filled on what earlier classes left, unless every one
            // of its flows crosses a link they filled (then all its rates are 0; most classes
            // behind a busy head are, and skipping them saves most of the work).
            let (class, out) = (&comp[a..i], &mut rates[a..i]);
            let avail = &self.avail;
            let open = class.iter().any(|&f| {
                v.flows
                    .hops(f as usize)
                    .iter()
                    .all(|h| avail[h.link as usize] > 0.0)
            });
            if open {
                self.wf.fill(
                    &mut self.avail,
                    class.len(),
                    |m| v.flows.hops(class[m] as usize),
                    |_| 1.0,
                    |_| f64::INFINITY,
                    out,
                );
            } else {
                out.iter_mut().for_each(|r| *r = 0.0);
            }
        }
        self.inc.runs = runs;
    }

    /// Water-fills the flows `st.set` (positions in `class`) on the capacity left by the
    /// classes before (`st.new_in`) and the class's kept flows (`st.kept_q`), writing their
    /// rates into `out`; a flow crossing a link with nothing left gets 0 without it. Leaves
    /// every position handled in `st.set_all`.
    fn solve_set(&mut self, v: &View<'_>, class: &[u32], out: &mut [f64], st: &mut Incremental) {
        st.set_all.clear();
        st.set_all.extend_from_slice(&st.set);
        let (new_in, kept_q, cap) = (&st.new_in, &st.kept_q, &v.net.cap);
        let left = |l: usize| cap[l] - new_in[l] - kept_q[l];
        st.set.retain(|&k| {
            let f = class[k as usize] as usize;
            let open = v.flows.hops(f).iter().all(|h| left(h.link as usize) > 0.0);
            if !open {
                out[k as usize] = 0.0;
            }
            open
        });
        if st.set.is_empty() {
            return;
        }
        let set = &st.set;
        let links = v.net.links();
        self.wf.prepare_flows(links, set.len(), |m| {
            v.flows.hops(class[set[m] as usize] as usize)
        });
        for &l in self.wf.touched() {
            let l = l as usize;
            self.avail[l] = left(l).max(0.0);
        }
        st.out.clear();
        st.out.resize(set.len(), 0.0);
        self.wf.fill_prepared(
            &mut self.avail,
            set.len(),
            |_| 1.0,
            |_| f64::INFINITY,
            &mut st.out,
        );
        for (m, &k) in set.iter().enumerate() {
            out[k as usize] = st.out[m];
        }
    }

    /// The rates of [`Baraat::allocate_from_scratch`], re-solving only the flows an event can
    /// move, class by class in order.
    ///
    /// Class `j` is water-filled on the capacity the classes before it leave. Water-filling
    /// raises a common level and freezes a flow when a link on its route fills; so, as in the
    /// engine's incremental max-min, the freezes below a level `cut_j` are those of the last
    /// allocation, and the flows of class `j` whose rate was below it keep it exactly, where
    /// `cut_j` is the smallest of: the rate of each flow of the class that finished (links it
    /// crossed fill no earlier than that); on each link of the class with more capacity left
    /// by the classes before it, the level at which it filled in class `j` if it did (its
    /// largest rate of the class), and on each link with less capacity or a new flow, a level
    /// below which it cannot fill (capacity left over the shares crossing it). The other flows
    /// of the class are water-filled on what the kept ones leave. A class whose coflows
    /// changed (a coflow turned heavy, a class lost its last light coflow, a coflow arrived)
    /// or whose routes moved (rerouting) is re-solved whole. A class with no finished flow
    /// and no such change on its links keeps every rate, checked on the links and loads kept
    /// from the last allocation without looking at its flows.
    ///
    /// This is the engine's cut-based re-solve (`IncMaxMin`, same lemma and threshold) per
    /// class; it keeps its own per-class records because that solver knows only arrivals and
    /// completions on fixed capacities (`maxmin_inc.rs`, "The flow policies' incremental
    /// re-solves").
    fn allocate_incremental(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) {
        let links = v.net.links();
        let n = v.flows.len();
        let mut st = std::mem::take(&mut self.inc);
        if st.last.len() < n {
            st.last.resize(n, 0.0);
        }
        if st.mark.len() < links {
            st.old_in.resize(links, 0.0);
            st.new_in.resize(links, 0.0);
            st.old_q.resize(links, 0.0);
            st.new_max.resize(links, 0.0);
            st.shares.resize(links, 0.0);
            st.hit.resize(links, false);
            st.kept_q.resize(links, 0.0);
            st.mark.resize(links, 0);
        }
        if self.avail.len() < links {
            self.avail.resize(links, 0.0);
        }
        st.old_in[..links].iter_mut().for_each(|x| *x = 0.0);
        st.new_in[..links].iter_mut().for_each(|x| *x = 0.0);
        // Routes moved since the last allocation other than by arrivals (set at arrival:
        // flows never allocated): nothing kept is valid.
        let new_flows = comp
            .iter()
            .filter(|&&f| v.flows.version[f as usize] == 0)
            .count() as u64;
        let valid = st
            .epoch
            .is_some_and(|e| e + new_flows == v.flows.route_epoch());
        st.done.sort_unstable();
        let mut runs = std::mem::take(&mut st.runs);
        self.classes(v, comp, &mut runs);
        let mut di = 0;
        st.next_start.clear();
        st.next_start.push(0);
        st.next_links.clear();
        for &(a, b, c0, c1) in &runs {
            // Finished flows of coflows before this class: their old load leaves `old_in`.
            while di < st.done.len() && v.flows.coflow[st.done[di] as usize] < c0 {
                let d = st.done[di] as usize;
                for h in v.flows.hops(d) {
                    st.old_in[h.link as usize] += st.last[d] * h.coef;
                }
                di += 1;
            }
            let d0 = di;
            while di < st.done.len() && v.flows.coflow[st.done[di] as usize] <= c1 {
                di += 1;
            }
            let class = &comp[a..b];
            let out = &mut rates[a..b];
            // This class's links: its load, largest rate and shares before the event.
            st.stamp = st.stamp.wrapping_add(1);
            if st.stamp == 0 {
                st.mark.iter_mut().for_each(|m| *m = 0);
                st.stamp = 1;
            }
            let stamp = st.stamp;
            st.touched.clear();
            let old = if valid {
                st.classes.binary_search(&(c0, c1)).ok()
            } else {
                None
            };
            if let Some(o) = old {
                // The same coflows on the same routes: the class's links, and its load,
                // largest rate and shares on each, are those recorded at the last allocation.
                let (s, e) = (st.class_start[o], st.class_start[o + 1]);
                let mut cut = f64::INFINITY;
                for &d in &st.done[d0..di] {
                    cut = cut.min(st.last[d as usize]);
                }
                for cl in &st.class_links[s..e] {
                    let l = cl.link as usize;
                    let (oi, ni) = (st.old_in[l], st.new_in[l]);
                    if oi == ni {
                        continue;
                    }
                    let cap = v.net.cap[l];
                    let room_new = cap - ni;
                    if ni > oi && room_new - cl.load <= TIGHT * cap {
                        // Less capacity, and the class's old load no longer fits (or only
                        // just): it fills no lower than an equal share of what is left.
                        cut = cut.min(room_new.max(0.0) / cl.shares);
                    } else if ni < oi && (cap - oi) - cl.load <= TIGHT * cap {
                        // More capacity on a link the class had filled: it filled at the
                        // class's largest rate on it (or above what is recorded).
                        cut = cut.min(cl.max);
                    }
                }
                if cut == f64::INFINITY {
                    // Nothing that can move a rate: every rate stays, the flows unvisited.
                    for cl in &st.class_links[s..e] {
                        st.old_in[cl.link as usize] += cl.load;
                        st.new_in[cl.link as usize] += cl.load;
                    }
                    st.next_links.extend_from_slice(&st.class_links[s..e]);
                    st.next_start.push(st.next_links.len());
                    for (k, &f) in class.iter().enumerate() {
                        out[k] = v.flows.rate[f as usize];
                    }
                    continue;
                }
                // Flows below the cut keep their rates; the rest are water-filled on what the
                // kept ones leave (the class's load less the re-solved and finished flows').
                let thr = above_cut(cut);
                for cl in &st.class_links[s..e] {
                    let l = cl.link as usize;
                    st.mark[l] = stamp;
                    st.touched.push(cl.link);
                    st.kept_q[l] = cl.load;
                    st.shares[l] = cl.shares;
                    // Whether a re-solved or finished flow crosses it.
                    st.hit[l] = false;
                    st.new_max[l] = 0.0;
                }
                for &d in &st.done[d0..di] {
                    let du = d as usize;
                    for h in v.flows.hops(du) {
                        let l = h.link as usize;
                        debug_assert_eq!(st.mark[l], stamp, "a finished flow off its class");
                        st.kept_q[l] -= st.last[du] * h.coef;
                        st.shares[l] -= h.coef;
                        st.hit[l] = true;
                    }
                }
                st.set.clear();
                for (k, &f) in class.iter().enumerate() {
                    let r = v.flows.rate[f as usize];
                    out[k] = r;
                    if r >= thr {
                        st.set.push(k as u32);
                        for h in v.flows.hops(f as usize) {
                            let l = h.link as usize;
                            st.kept_q[l] -= r * h.coef;
                            st.hit[l] = true;
                        }
                    }
                }
                self.solve_set(v, class, out, &mut st);
                for &k in &st.set_all {
                    let f = class[k as usize] as usize;
                    let r = out[k as usize];
                    st.last[f] = r;
                    for h in v.flows.hops(f) {
                        let l = h.link as usize;
                        st.kept_q[l] += r * h.coef;
                        st.new_max[l] = st.new_max[l].max(r);
                    }
                }
                for cl in &st.class_links[s..e] {
                    let l = cl.link as usize;
                    st.old_in[l] += cl.load;
                    st.new_in[l] += st.kept_q[l];
                    if st.shares[l] > 1e-9 {
                        // A lower bound of the largest rate (exact unless only finished flows
                        // crossed the link), so a later cut is never too high.
                        let max = if st.hit[l] { st.new_max[l] } else { cl.max };
                        st.next_links.push(ClassLink {
                            link: cl.link,
                            load: st.kept_q[l],
                            max,
                            shares: st.shares[l],
                        });
                    }
                }
                st.next_start.push(st.next_links.len());
                continue;
            }
            // A changed class (or no usable state): its old load (for the classes after it)
            // and every flow re-solved.
            for (k, &f) in class.iter().enumerate() {
                let fu = f as usize;
                let fresh = v.flows.version[fu] == 0;
                let r = v.flows.rate[fu];
                out[k] = r;
                for h in v.flows.hops(fu) {
                    let l = h.link as usize;
                    st.touch(h.link, stamp);
                    st.shares[l] += h.coef;
                    if !fresh {
                        st.old_q[l] += r * h.coef;
                    }
                }
            }
            for i in d0..di {
                let du = st.done[i] as usize;
                for h in v.flows.hops(du) {
                    let l = h.link as usize;
                    st.touch(h.link, stamp);
                    st.old_q[l] += st.last[du] * h.coef;
                }
            }
            st.set.clear();
            st.set.extend(0..class.len() as u32);
            self.solve_set(v, class, out, &mut st);
            for (k, &f) in class.iter().enumerate() {
                let fu = f as usize;
                st.last[fu] = out[k];
                for h in v.flows.hops(fu) {
                    let l = h.link as usize;
                    st.kept_q[l] += out[k] * h.coef;
                    st.new_max[l] = st.new_max[l].max(out[k]);
                }
            }
            for &l in &st.touched {
                let lu = l as usize;
                st.old_in[lu] += st.old_q[lu];
                st.new_in[lu] += st.kept_q[lu];
                if st.shares[lu] > 0.0 {
                    st.next_links.push(ClassLink {
                        link: l,
                        load: st.kept_q[lu],
                        max: st.new_max[lu],
                        shares: st.shares[lu],
                    });
                }
            }
            st.next_start.push(st.next_links.len());
        }
        std::mem::swap(&mut st.class_start, &mut st.next_start);
        std::mem::swap(&mut st.class_links, &mut st.next_links);
        st.classes.clear();
        st.classes
            .extend(runs.iter().map(|&(_, _, c0, c1)| (c0, c1)));
        st.runs = runs;
        st.done.clear();
        st.epoch = Some(v.flows.route_epoch());
        self.inc = st;
    }
}

impl RatePolicy for Baraat {
    fn name(&self) -> &str {
        "baraat"
    }

    fn coupling(&self) -> Coupling {
        // Classes are formed over every active coflow (FIFO across all of them).
        Coupling::Global
    }

    fn allocate(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) {
        if self.incremental {
            self.allocate_incremental(v, comp, rates);
        } else {
            self.allocate_from_scratch(v, comp, rates);
        }
    }

    fn next_wake(&self, v: &View<'_>, active: &[u32]) -> Option<SimTime> {
        // The first crossing of the heavy threshold by a light coflow with a coflow behind it
        // (the last one's heaviness forms no class): its bytes sent, `bytes - left`, grow at
        // the sum of its flows' rates. `active` is sorted by flow number, so by coflow.
        let now = v.now.ps();
        let mut first = u64::MAX;
        // The crossing of the coflow before the current one, committed once another follows.
        let mut pending = u64::MAX;
        let mut i = 0;
        while i < active.len() {
            let c = v.flows.coflow[active[i] as usize];
            let (mut left, mut rate) = (0.0, 0.0);
            let mut any = false;
            while i < active.len() && v.flows.coflow[active[i] as usize] == c {
                let f = active[i] as usize;
                i += 1;
                if !v.flows.active[f] {
                    continue;
                }
                any = true;
                let r = v.flows.rate[f];
                let dt = (now - v.flows.tlast[f]) as f64 * 1e-12;
                left += (v.flows.rem[f] - r * dt / 8.0).max(0.0);
                rate += r;
            }
            if !any {
                continue;
            }
            first = first.min(pending);
            let to_go = self.heavy - (v.coflows.bytes[c as usize] - left);
            pending = if to_go >= 0.0 && rate > 0.0 {
                let dt = ceil_pos(to_go * 8.0 / rate * 1e12);
                if dt < (u64::MAX - now) as f64 {
                    now + dt as u64
                } else {
                    u64::MAX
                }
            } else {
                u64::MAX
            };
        }
        (first != u64::MAX).then_some(SimTime(first))
    }

    fn on_completion(&mut self, _v: &View<'_>, flow: u32) {
        if self.incremental {
            self.inc.done.push(flow);
        }
    }

    fn report(&self) -> Vec<(String, f64)> {
        vec![("heavy_bytes".to_string(), self.heavy)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tests::{random_coflows, test_net};
    use crate::engine::{CoflowInput, FlowInput, SimConfig, Simulator};
    use crate::routing::RoutingMode;
    use dctc_core::units::{Delta, SimTime};
    use rand::SeedableRng;

    /// A coflow turns heavy the moment its bytes sent cross the threshold, not at the next
    /// event (Baraat's FIFO-LM): A (10 units, host 0 to 1) at 0, B (1 unit, host 2 to 1) at
    /// 1 ms while A has sent 1 unit, threshold 2 units (a unit is 1 ms of a 10 Gb/s host link).
    /// A crosses at 2 ms; from then A and B share host 1's link: B ends at 4 ms, A at 11 ms.
    /// Re-evaluated only at events, B would wait for all of A (A ending at 10 ms, B at 11).
    #[test]
    fn a_coflow_turns_heavy_when_it_crosses_the_threshold_between_events() {
        let net = test_net();
        let unit = 10e9 / 8.0 * 1e-3;
        let coflow = |id: u32, ms: u64, src: u32, units: f64| CoflowInput {
            id,
            arrival: SimTime::ZERO + Delta::from_ms(ms),
            flows: vec![FlowInput {
                src,
                dst: 1,
                bytes: units * unit,
            }],
        };
        let cfg = BaraatConfig {
            heavy_bytes: Some(2.0 * unit),
            heavy_percentile: None,
        };
        let policy = Baraat::new(&cfg, net.links(), &[]).unwrap();
        for policy in [policy.clone(), policy.from_scratch()] {
            let coflows = vec![coflow(0, 0, 0, 10.0), coflow(1, 1, 2, 1.0)];
            let sim_cfg = SimConfig {
                audit: true,
                ..SimConfig::default()
            };
            let res = Simulator::new(&net, coflows, Box::new(policy), sim_cfg).run(|_| {});
            let ms = |c: usize| res.coflows[c].finish_s.unwrap() * 1e3;
            assert!((ms(1) - 4.0).abs() < 1e-6, "B ends at {} ms", ms(1));
            assert!((ms(0) - 11.0).abs() < 1e-6, "A ends at {} ms", ms(0));
        }
    }

    /// Incremental `baraat` against `baraat` from scratch on the same state, after every
    /// event of random runs (coflows arriving, flows finishing, coflows turning heavy and
    /// classes merging), under ECMP, DRILL (fractional shares) and Hedera (rerouting).
    #[test]
    fn incremental_baraat_matches_from_scratch_after_every_event() {
        let net = test_net();
        let hedera = RoutingMode::Hedera {
            period: Delta::from_ms(20),
            threshold: 0.1,
        };
        let mut partial = 0;
        for (seed, routing) in [
            (11u64, RoutingMode::Ecmp),
            (12, RoutingMode::Drill),
            (13, hedera),
            (14, RoutingMode::Ecmp),
        ] {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            // Arrivals within 0.2 s, flows up to 20 MB: a backlog of classes, most of them
            // waiting on links the earlier ones filled.
            let coflows = random_coflows(&mut rng, 60, 200_000_000_000, 2e7);
            let sizes: Vec<f64> = coflows
                .iter()
                .map(|c| c.flows.iter().map(|f| f.bytes).sum())
                .collect();
            let cfg = BaraatConfig {
                heavy_bytes: None,
                heavy_percentile: Some(if seed == 14 { 0.3 } else { 0.8 }),
            };
            let policy = Baraat::new(&cfg, net.links(), &sizes).unwrap();
            let mut reference = policy.clone().from_scratch();
            let sim_cfg = SimConfig {
                routing,
                audit: true,
                ..SimConfig::default()
            };
            let mut sim = Simulator::new(&net, coflows, Box::new(policy), sim_cfg);
            let (mut checked, mut merged, mut classes) = (0, 0, 0);
            let mut want = Vec::new();
            while let Some(t) = sim.next_event_ps() {
                sim.advance(SimTime(t + 1), &mut |_| {});
                let active = sim.active_flows();
                if active.is_empty() {
                    continue;
                }
                let v = View {
                    now: sim.now(),
                    net: &net,
                    flows: &sim.flows,
                    coflows: &sim.coflows,
                };
                want.clear();
                want.resize(active.len(), 0.0);
                reference.allocate(&v, &active, &mut want);
                let runs = &reference.inc.runs;
                classes += runs.len();
                merged += runs.iter().filter(|r| r.2 != r.3).count();
                for (k, &f) in active.iter().enumerate() {
                    let got = sim.flows.rate[f as usize];
                    assert!(
                        // 1e-12 relative, or 1e-12 of a host link (0.01 b/s: rounding
                        // residue a link is left with after it fills).
                        (got - want[k]).abs() <= 1e-12 * (want[k] + 1e10),
                        "seed {seed}, t {t}: flow {f}: {got} vs {} from scratch",
                        want[k]
                    );
                    partial += usize::from(want[k] > 0.0 && want[k] < 9.9e9);
                }
                checked += 1;
            }
            assert!(checked > 100, "{checked} instants checked");
            assert!(
                merged > 0 && classes > 3 * checked,
                "{merged} merged of {classes}"
            );
            assert!(sim.coflows.finish.iter().all(|&t| t != SimTime::NEVER));
        }
        // Rates strictly between 0 and a whole host link: classes really share.
        assert!(partial > 1000, "{partial}");
    }
}
