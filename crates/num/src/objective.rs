//! One objective for every scheme (HOLNET's thesis; Flowtune §6.5 Fig. 11): how far the rates
//! a run's flows got over each sampling interval are from the NUM optimum for the same flows,
//! and Flowtune's fairness score. Both simulators record a [`Trace`] (each flow's paths, when
//! it had data, the bits it delivered per interval) and call [`evaluate`]; the math lives here
//! only.
//!
//! # What one interval compares
//! An interval `[t0, t0 + T)` takes the flows that had data in it: flow `f` had data for
//! `a_f` seconds of it (from its start, or `t0`, to its end, or `t0 + T`: a flow that starts,
//! finishes or stops inside the interval takes part only for that part), so its *presence* is
//! `phi_f = a_f / T` in `(0, 1]`. Its achieved rate is the rate while it had data,
//! `r_f = bits_f / a_f`. The optimum is the best the fabric could do for the same flows and
//! the same presences when rates are held constant while a flow has data and only the
//! interval's average load must fit (the time-average relaxation of the schedules within the
//! interval):
//!
//! ```text
//! maximize sum_f phi_f U(r_f)  subject to  sum_{f on l} phi_f r_f <= c_l,  r_f <= line rate of f
//! ```
//!
//! solved in the average throughputs `y_f = phi_f r_f` as a weighted NUM problem: `log`
//! becomes weight `phi_f` on `log y_f`, alpha-fair weight `phi_f^alpha`, and the line rate a
//! maximum `phi_f x line rate` (a flow present a tenth of the interval cannot average more
//! than a tenth of its path's line rate: its *demand*). With every flow present throughout
//! (`phi = 1`) it is the plain NUM problem; the shorter the interval against flow lifetimes,
//! the closer the relaxation is to what a scheme could achieve at each instant, and the
//! noisier `bits / a` (a packet that arrives just after the interval's end counts in the
//! next). Weighted max-min is the water-filling of `r_f` with `y_f` weighted by `phi_f`.
//!
//! # What is reported ([`Score`])
//! - `efficiency`: delivered / optimal total throughput, `sum y_f / sum y*_f`.
//! - `utility_gap`: `sum phi_f (U(r*_f) - U(r_f))` in the utility's units (natural log of b/s
//!   for `log`), and per flow, over `sum phi_f` (the interval's flows weighted by presence).
//!   None for max-min, which has no utility.
//! - `fairness`: Flowtune's per-flow score, `sum phi_f log2(r_f) / sum phi_f` with `r_f` in
//!   Gb/s (one point per doubling; Flowtune §6.5 Fig. 11), and the optimum's.
//! - `above_2x`, `below_2x`: the presence-weighted share of flows whose rate is more than twice,
//!   or less than half, their optimal rate.
//!
//! A flow that delivered nothing in an interval (starved) would score `log 0`: rates are floored
//! at [`rate_floor_bps`], one 1500-byte packet per interval (the least a packet network
//! delivers), and the starved share is reported beside.
//!
//! # How the optimum is solved
//! `log` and alpha-fair: NED (the allocator's solver) warm-started from the previous interval's
//! link prices, run until the KKT residuals ([`crate::kkt`]) are within
//! [`crate::kkt::TOLERANCE`] (the reference solver's own acceptance test); when it does not get
//! there, the interior-point reference ([`crate::reference`]) for intervals of up to a
//! thousand subflows (a larger one is counted as failed and left out of the totals: the dense
//! reference would take minutes). Max-min: exact water-filling
//! ([`crate::maxmin::weighted_max_min`]); with a flow split over several paths, progressive
//! filling by linear programs ([`crate::maxmin::multipath_max_min`], the split left to the
//! optimum as for the utilities), for intervals of up to 200 subflows (a larger one is counted
//! as failed: its dense programs would take minutes).
//!
//! # Flows over several paths
//! A flow with several paths (an MPTCP connection's subflows, a flow a per-packet balancer
//! sprays, a fluid flow spread over its equal-cost paths) takes its rate as the sum over its
//! paths, split as the optimum chooses: the best its balancer could reach. Where the balancer
//! splits evenly (DRILL's fluid model) on paths of equal capacities, the two agree: any split's
//! load on the paths' links sums to the even split's (see `crates/flow/README.md`).

use crate::csr::Csr;
use crate::problem::{NumFlow, Problem};
use crate::reference;
use crate::solver::{run_checked, CheckedStatus, Ned, State};
use crate::utility::Utility;
use std::collections::BTreeMap;

/// The objective an interval's rates are scored against.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ObjectiveKind {
    /// `log x`: proportional fairness (Flowtune's objective; the default).
    Log,
    /// `x^(1 - alpha) / (1 - alpha)`, `alpha > 0`, `alpha != 1`.
    AlphaFair {
        /// `alpha`.
        alpha: f64,
    },
    /// Max-min fairness (no utility: no utility gap).
    MaxMin,
}

impl ObjectiveKind {
    /// The names `[output] objective_utility` takes.
    pub const NAMES: &'static [&'static str] = &["log", "alpha-fair", "max-min"];

    /// The utility of one flow present throughout, `None` for max-min.
    pub fn utility(&self) -> Option<Utility> {
        match *self {
            ObjectiveKind::Log => Some(Utility::Log { weight: 1.0 }),
            ObjectiveKind::AlphaFair { alpha } => Some(Utility::Alpha { weight: 1.0, alpha }),
            ObjectiveKind::MaxMin => None,
        }
    }

    /// Its name.
    pub fn name(&self) -> &'static str {
        match self {
            ObjectiveKind::Log => "log",
            ObjectiveKind::AlphaFair { .. } => "alpha-fair",
            ObjectiveKind::MaxMin => "max-min",
        }
    }
}

/// One flow of a run, as the objective sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceFlow {
    /// Its paths (fabric link indices); most flows have one.
    pub paths: Vec<Vec<usize>>,
    /// When it started to have data, s.
    pub start_s: f64,
    /// When it stopped having data (its last byte arrived, or it stopped), s; `None`: not by
    /// the end of the run.
    pub end_s: Option<f64>,
}

/// What a simulator records for [`evaluate`]: the flows, and per interval the bits each
/// delivered (flows not listed delivered nothing).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// Interval length, s.
    pub interval_s: f64,
    /// End of the run, s (the last interval ends here; it may be shorter than the others).
    pub end_s: f64,
    /// Every flow.
    pub flows: Vec<TraceFlow>,
    /// Per interval: `(flow index, bits delivered)`, flow indices ascending.
    pub delivered: Vec<Vec<(u32, f64)>>,
}

impl Trace {
    /// Intervals a run of `end_s` seconds has at `interval_s` (known before the run).
    pub fn intervals(interval_s: f64, end_s: f64) -> u64 {
        (end_s / interval_s).ceil().max(0.0) as u64
    }
}

/// How an interval's optimum was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolvedBy {
    /// No flow had data: nothing to solve.
    Empty,
    /// NED from the previous interval's prices, KKT-checked.
    Ned,
    /// The interior-point reference (NED did not pass the KKT check).
    Reference,
    /// Exact water-filling (max-min).
    WaterFill,
    /// Progressive filling by linear programs (max-min with flows split over several paths).
    LinearPrograms,
    /// Neither solver passed its check: the interval is left out of the totals.
    Failed,
}

impl SolvedBy {
    /// Its name in outputs.
    pub fn name(&self) -> &'static str {
        match self {
            SolvedBy::Empty => "empty",
            SolvedBy::Ned => "ned",
            SolvedBy::Reference => "reference",
            SolvedBy::WaterFill => "water-fill",
            SolvedBy::LinearPrograms => "lp",
            SolvedBy::Failed => "failed",
        }
    }
}

/// One interval's comparison (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    /// Interval start, s.
    pub start_s: f64,
    /// Interval length, s.
    pub length_s: f64,
    /// Flows that had data in it.
    pub flows: usize,
    /// Their presences summed (flow-equivalents).
    pub presence: f64,
    /// Delivered throughput averaged over the interval, b/s.
    pub delivered_bps: f64,
    /// The optimum's, b/s.
    pub optimal_bps: f64,
    /// `sum phi (U(r*) - U(r))`; `None` for max-min or an empty interval.
    pub utility_gap: Option<f64>,
    /// Flowtune's score per flow (log2 of Gb/s); `None` for an empty interval.
    pub fairness: Option<f64>,
    /// The optimum's score per flow.
    pub optimal_fairness: Option<f64>,
    /// Presence-weighted share of flows above twice their optimal rate.
    pub above_2x: Option<f64>,
    /// ... below half their optimal rate.
    pub below_2x: Option<f64>,
    /// ... that delivered nothing.
    pub starved: Option<f64>,
    /// How the optimum was found.
    pub solved_by: SolvedBy,
    /// Solver iterations (NED) or Newton steps (reference).
    pub iterations: u64,
}

impl Score {
    /// `delivered / optimal`; `None` when the optimum carries nothing.
    pub fn efficiency(&self) -> Option<f64> {
        (self.optimal_bps > 0.0).then(|| self.delivered_bps / self.optimal_bps)
    }

    /// The utility gap per flow-equivalent.
    pub fn utility_gap_per_flow(&self) -> Option<f64> {
        self.utility_gap.map(|g| g / self.presence)
    }
}

/// Totals over a run's scored intervals (failed and empty ones left out).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Totals {
    /// Intervals in the run.
    pub intervals: usize,
    /// Intervals scored (had flows and a verified optimum).
    pub scored: usize,
    /// Intervals whose optimum no solver verified.
    pub failed: usize,
    /// Intervals the reference solver settled (NED's answer failed the KKT check).
    pub by_reference: usize,
    /// Solver iterations (NED) and Newton steps (reference) over the run.
    pub iterations: u64,
    /// Flow-intervals: flows summed over scored intervals.
    pub flow_intervals: usize,
    delivered_bits: f64,
    optimal_bits: f64,
    presence: f64,
    gap: f64,
    has_gap: bool,
    fairness: f64,
    optimal_fairness: f64,
    above: f64,
    below: f64,
    starved: f64,
}

impl Totals {
    /// Adds one interval.
    pub fn add(&mut self, s: &Score) {
        self.intervals += 1;
        self.iterations += s.iterations;
        match s.solved_by {
            SolvedBy::Failed => self.failed += 1,
            SolvedBy::Reference => self.by_reference += 1,
            _ => {}
        }
        if matches!(s.solved_by, SolvedBy::Failed | SolvedBy::Empty) {
            return;
        }
        self.scored += 1;
        self.flow_intervals += s.flows;
        self.delivered_bits += s.delivered_bps * s.length_s;
        self.optimal_bits += s.optimal_bps * s.length_s;
        let w = s.presence;
        self.presence += w;
        if let Some(g) = s.utility_gap {
            self.gap += g;
            self.has_gap = true;
        }
        let add = |acc: &mut f64, v: Option<f64>| *acc += v.unwrap_or(0.0) * w;
        add(&mut self.fairness, s.fairness);
        add(&mut self.optimal_fairness, s.optimal_fairness);
        add(&mut self.above, s.above_2x);
        add(&mut self.below, s.below_2x);
        add(&mut self.starved, s.starved);
    }

    fn per_presence(&self, v: f64) -> Option<f64> {
        (self.presence > 0.0).then(|| v / self.presence)
    }

    /// Delivered over optimal bits, over the scored intervals.
    pub fn efficiency(&self) -> Option<f64> {
        (self.optimal_bits > 0.0).then(|| self.delivered_bits / self.optimal_bits)
    }
    /// The utility gaps summed over the scored intervals (each the sum over its flows).
    pub fn utility_gap(&self) -> Option<f64> {
        self.has_gap.then_some(self.gap)
    }
    /// The utility gap per flow-interval (presence-weighted).
    pub fn utility_gap_per_flow(&self) -> Option<f64> {
        self.utility_gap().and_then(|g| self.per_presence(g))
    }
    /// Flowtune's score per flow, presence-weighted over every scored interval.
    pub fn fairness(&self) -> Option<f64> {
        self.per_presence(self.fairness)
    }
    /// The optimum's score per flow.
    pub fn optimal_fairness(&self) -> Option<f64> {
        self.per_presence(self.optimal_fairness)
    }
    /// Share of flow-intervals above twice the optimal rate.
    pub fn above_2x(&self) -> Option<f64> {
        self.per_presence(self.above)
    }
    /// Share of flow-intervals below half the optimal rate.
    pub fn below_2x(&self) -> Option<f64> {
        self.per_presence(self.below)
    }
    /// Share of flow-intervals that delivered nothing.
    pub fn starved(&self) -> Option<f64> {
        self.per_presence(self.starved)
    }
}

/// The least rate an interval of `interval_s` resolves: one 1500-byte packet over it.
pub fn rate_floor_bps(interval_s: f64) -> f64 {
    1500.0 * 8.0 / interval_s
}

/// A run's scores, interval by interval, and their totals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evaluation {
    /// One per interval, in time order.
    pub scores: Vec<Score>,
    /// Over the run.
    pub totals: Totals,
}

/// Scores every interval of `trace` on links of `capacity_bps` against `kind` (see the module
/// docs), the optimum of each warm-started from the previous one's.
pub fn evaluate(trace: &Trace, capacity_bps: &[f64], kind: ObjectiveKind) -> Evaluation {
    let mut solver = IntervalSolver::new(capacity_bps, kind);
    let mut out = Evaluation::default();
    let n = trace.delivered.len();
    for (k, delivered) in trace.delivered.iter().enumerate() {
        let t0 = k as f64 * trace.interval_s;
        let t1 = if k + 1 == n {
            trace.end_s
        } else {
            t0 + trace.interval_s
        };
        let score = solver.score(trace, t0, t1, delivered);
        out.totals.add(&score);
        out.scores.push(score);
    }
    out
}

/// One interval's flow: presence, paths, achieved rate.
struct Member<'a> {
    index: u32,
    presence: f64,
    paths: &'a [Vec<usize>],
    rate_bps: f64,
    /// Bits over the interval's length (0 when starved; the floor is not delivered).
    delivered_bps: f64,
    starved: bool,
}

/// Solves interval after interval, keeping link prices (utility per b/s, unscaled) for the
/// next interval's warm start.
pub struct IntervalSolver {
    capacity_bps: Vec<f64>,
    kind: ObjectiveKind,
    /// Last known price per fabric link, utility per b/s.
    prices: BTreeMap<usize, f64>,
}

impl IntervalSolver {
    /// A solver for links of `capacity_bps`.
    pub fn new(capacity_bps: &[f64], kind: ObjectiveKind) -> IntervalSolver {
        IntervalSolver {
            capacity_bps: capacity_bps.to_vec(),
            kind,
            prices: BTreeMap::new(),
        }
    }

    /// Scores the interval `[t0, t1)` of `trace` with `delivered` bits per flow.
    pub fn score(&mut self, trace: &Trace, t0: f64, t1: f64, delivered: &[(u32, f64)]) -> Score {
        self.score_with_rates(trace, t0, t1, delivered).0
    }

    /// [`IntervalSolver::score`], with each present flow's `(flow index, achieved rate,
    /// optimal rate)` in b/s while present (empty when no optimum was found).
    pub fn score_with_rates(
        &mut self,
        trace: &Trace,
        t0: f64,
        t1: f64,
        delivered: &[(u32, f64)],
    ) -> (Score, Vec<(u32, f64, f64)>) {
        let length = t1 - t0;
        let floor = rate_floor_bps(trace.interval_s);
        let bits: BTreeMap<u32, f64> = delivered.iter().copied().collect();
        let mut members = Vec::new();
        for (i, f) in trace.flows.iter().enumerate() {
            let from = f.start_s.max(t0);
            let to = f.end_s.unwrap_or(f64::INFINITY).min(t1);
            if to <= from || length <= 0.0 {
                continue;
            }
            let b = bits.get(&(i as u32)).copied().unwrap_or(0.0);
            let active = to - from;
            members.push(Member {
                index: i as u32,
                presence: active / length,
                paths: &f.paths,
                rate_bps: (b / active).max(floor),
                delivered_bps: b / length,
                starved: b <= 0.0,
            });
        }
        let mut score = Score {
            start_s: t0,
            length_s: length,
            flows: members.len(),
            presence: members.iter().map(|m| m.presence).sum(),
            delivered_bps: members.iter().map(|m| m.delivered_bps).sum(),
            optimal_bps: 0.0,
            utility_gap: None,
            fairness: None,
            optimal_fairness: None,
            above_2x: None,
            below_2x: None,
            starved: None,
            solved_by: SolvedBy::Empty,
            iterations: 0,
        };
        if members.is_empty() {
            return (score, Vec::new());
        }
        let (optimal, by, iterations) = self.optimum(&members);
        score.solved_by = by;
        score.iterations = iterations;
        let Some(optimal) = optimal else {
            return (score, Vec::new());
        };
        let w = score.presence;
        let (mut fair, mut opt_fair, mut above, mut below, mut starved, mut gap) =
            (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        for (m, &opt) in members.iter().zip(&optimal) {
            let p = m.presence;
            score.optimal_bps += p * opt;
            fair += p * (m.rate_bps / 1e9).log2();
            opt_fair += p * (opt.max(floor) / 1e9).log2();
            if m.rate_bps > 2.0 * opt {
                above += p;
            }
            if m.rate_bps < 0.5 * opt {
                below += p;
            }
            if m.starved {
                starved += p;
            }
            if let Some(u) = self.kind.utility() {
                gap += p * (u.value(opt.max(floor)) - u.value(m.rate_bps));
            }
        }
        score.fairness = Some(fair / w);
        score.optimal_fairness = Some(opt_fair / w);
        score.above_2x = Some(above / w);
        score.below_2x = Some(below / w);
        score.starved = Some(starved / w);
        score.utility_gap = self.kind.utility().map(|_| gap);
        let rates = members
            .iter()
            .zip(&optimal)
            .map(|(m, &o)| (m.index, m.rate_bps, o))
            .collect();
        (score, rates)
    }

    /// The optimal rate while present (b/s) of each member, how it was found and the work.
    fn optimum(&mut self, members: &[Member<'_>]) -> (Option<Vec<f64>>, SolvedBy, u64) {
        // The links the interval's flows use, renumbered.
        let mut links: BTreeMap<usize, usize> = BTreeMap::new();
        for m in members {
            for path in m.paths {
                for &l in path {
                    let next = links.len();
                    links.entry(l).or_insert(next);
                }
            }
        }
        let mut fabric_of = vec![0usize; links.len()];
        for (&l, &i) in &links {
            fabric_of[i] = l;
        }
        let cap: Vec<f64> = fabric_of.iter().map(|&l| self.capacity_bps[l]).collect();
        let line_rate = |paths: &[Vec<usize>]| -> f64 {
            paths
                .iter()
                .map(|p| {
                    p.iter()
                        .map(|&l| cap[links[&l]])
                        .fold(f64::INFINITY, f64::min)
                })
                .sum()
        };
        let Some(utility) = self.kind.utility() else {
            if members.iter().any(|m| m.paths.len() > 1) {
                return self.multipath_max_min(members, &links, &cap, &line_rate);
            }
            // Max-min: water-fill y with weights phi, each capped at phi x line rate.
            let routes = Csr::from_rows(members.iter().map(|m| {
                m.paths[0]
                    .iter()
                    .map(|l| links[l] as u32)
                    .collect::<Vec<_>>()
            }));
            let weight: Vec<f64> = members.iter().map(|m| m.presence).collect();
            let max: Vec<f64> = members
                .iter()
                .map(|m| m.presence * line_rate(&m.paths[..1]))
                .collect();
            let y = crate::maxmin::weighted_max_min(&cap, &routes, &weight, &max);
            let r = y.iter().zip(members).map(|(y, m)| y / m.presence).collect();
            return (Some(r), SolvedBy::WaterFill, 0);
        };
        let unit = cap.iter().copied().fold(0.0, f64::max);
        let mut problem = Problem::new(unit);
        for (i, &c) in cap.iter().enumerate() {
            problem
                .add_link(format!("l{}", fabric_of[i]), c)
                .expect("fabric capacities are positive");
        }
        for (i, m) in members.iter().enumerate() {
            let p = m.presence;
            let u = match utility {
                Utility::Log { .. } => Utility::Log { weight: p },
                Utility::Alpha { alpha, .. } => Utility::Alpha {
                    weight: p.powf(alpha),
                    alpha,
                },
                other => other,
            };
            let mut f = NumFlow::new(format!("f{i}"), Vec::new(), u);
            f.paths = m
                .paths
                .iter()
                .map(|p| p.iter().map(|l| links[l]).collect())
                .collect();
            f.max_bps = p * line_rate(m.paths);
            problem.add_flow(f).expect("paths are fabric links");
        }
        problem.autoscale();
        let price_unit = problem.price_unit();
        let mut state = State::new(&problem, 1.0);
        for (i, &l) in fabric_of.iter().enumerate() {
            if let Some(&q) = self.prices.get(&l) {
                state.prices[i] = q * price_unit;
            }
        }
        let checked = run_checked(
            &mut Ned::default(),
            &mut problem,
            &mut state,
            1e-9,
            crate::kkt::TOLERANCE,
            MAX_NED_ITERATIONS,
        );
        let (y, prices, by, work) = if checked.status == CheckedStatus::Converged {
            (
                state.flow_rates_bps(&problem),
                state.prices.clone(),
                SolvedBy::Ned,
                state.iterations,
            )
        } else if problem.subflow_count() > MAX_REFERENCE_SUBFLOWS {
            // The dense reference would take minutes (O(n^3) per Newton step).
            return (None, SolvedBy::Failed, state.iterations);
        } else {
            let sol = reference::solve(&mut problem);
            if sol.status != reference::Status::Solved {
                return (
                    None,
                    SolvedBy::Failed,
                    state.iterations + sol.newton_steps as u64,
                );
            }
            (
                sol.flow_rate_bps,
                sol.prices,
                SolvedBy::Reference,
                state.iterations + sol.newton_steps as u64,
            )
        };
        for (i, &l) in fabric_of.iter().enumerate() {
            self.prices.insert(l, prices[i] / price_unit);
        }
        let r = y.iter().zip(members).map(|(y, m)| y / m.presence).collect();
        (Some(r), by, work)
    }
}

impl IntervalSolver {
    /// Max-min over flows that may split over their paths ([`crate::maxmin::multipath_max_min`]:
    /// the split left to the optimum, as for log and alpha-fair), for intervals of up to
    /// [`MAX_LP_SUBFLOWS`] subflows (its dense linear programs); a larger one is counted as
    /// failed.
    fn multipath_max_min(
        &self,
        members: &[Member<'_>],
        links: &BTreeMap<usize, usize>,
        cap: &[f64],
        line_rate: &dyn Fn(&[Vec<usize>]) -> f64,
    ) -> (Option<Vec<f64>>, SolvedBy, u64) {
        let subflows: usize = members.iter().map(|m| m.paths.len()).sum();
        if subflows > MAX_LP_SUBFLOWS {
            return (None, SolvedBy::Failed, 0);
        }
        let flows: Vec<crate::maxmin::MultipathFlow> = members
            .iter()
            .map(|m| crate::maxmin::MultipathFlow {
                paths: (m.paths.iter())
                    .map(|p| p.iter().map(|l| links[l]).collect())
                    .collect(),
                weight: m.presence,
                min: 0.0,
                max: m.presence * line_rate(m.paths),
            })
            .collect();
        let Ok(sub) = crate::maxmin::multipath_max_min(cap, &flows) else {
            return (None, SolvedBy::Failed, 0);
        };
        let mut at = 0;
        let r = members
            .iter()
            .map(|m| {
                let y: f64 = sub[at..at + m.paths.len()].iter().sum();
                at += m.paths.len();
                y / m.presence
            })
            .collect();
        (Some(r), SolvedBy::LinearPrograms, 0)
    }
}

/// Most subflows a multipath max-min interval is solved for (dense LPs, up to `2F` rounds of
/// `F + 1` each: tens of flows, not thousands).
const MAX_LP_SUBFLOWS: usize = 200;

/// NED iterations before an interval falls back to the reference solver.
const MAX_NED_ITERATIONS: u64 = 20_000;

/// Most subflows the reference fallback takes on: its dense Newton steps take about 17 s at a
/// thousand ([`crate::reference`]); a larger interval NED does not settle is left unscored
/// (counted as failed).
const MAX_REFERENCE_SUBFLOWS: usize = 1000;

#[cfg(test)]
mod tests;
