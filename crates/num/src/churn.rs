//! Flowtune §6.6: an allocator under flowlet churn, without the packet network, and the
//! per-iteration measurement ([`ChurnMeter`]) that both this run and the packet engine's
//! allocator node use.
//!
//! Time advances in steps of one allocator iteration (10 us in Flowtune). At each step the
//! flowlets that arrived join the [`Problem`] (taking rates from the current prices), one
//! solver iteration runs, and [`ChurnMeter::measure`] records the step. Flowlets drain at their
//! F-NORM rate until their bytes are sent, then leave. Rate notifications are counted with the
//! update threshold of §6.4.
//!
//! What is measured, as §6.6 defines it:
//! - over-allocation (Fig. 12, "the total amount of over-capacity allocations when there is no
//!   normalization"): per iteration, the sum over links of the un-normalized load above the
//!   link's capacity, `sum_l max(0, G_l)` with `G_l = sum_{s in S(l)} x_s - c_l` (Flowtune
//!   §3), against the full capacity (not the `1 - threshold` share the allocator targets);
//! - throughput as a fraction of the optimum (Fig. 13, "after each iteration, we ran a separate
//!   instance of NED until it converged to the optimal allocation"): the total F-NORM (and
//!   U-NORM, and raw) rate of the iteration's flow set over the total rate of the optimum of
//!   the same flow set, NED run on a copy from the current prices until rates and prices move
//!   by less than 1e-7; summed over the sampled iterations after warm-up (a ratio of sums).

use crate::normalize::{f_norm, u_norm, Notifier};
use crate::problem::{FlowKey, NumFlow, Problem};
use crate::solver::{run_to_convergence, AnySolver, Ned, Solver, State};
use crate::utility::Utility;

/// One flowlet.
#[derive(Clone, Debug)]
pub struct Flowlet {
    /// Arrival time, seconds.
    pub start_s: f64,
    /// Bytes to send.
    pub bytes: f64,
    /// Link indices of its path.
    pub path: Vec<usize>,
}

/// Settings of one churn run.
#[derive(Clone, Debug, PartialEq)]
pub struct ChurnConfig {
    /// Seconds between iterations (Flowtune: 10e-6).
    pub step_s: f64,
    /// Simulated time, seconds.
    pub duration_s: f64,
    /// Compute the optimum every this many steps (0 = never).
    pub optimal_every: usize,
    /// Ignore the first this many seconds in averages (warm-up).
    pub warmup_s: f64,
    /// Update threshold (Flowtune §6.4): a flowlet is notified when its F-NORM rate moved by
    /// more than this fraction, and links are allocated at `1 - threshold` of capacity.
    /// 0 notifies every change and allocates full capacity.
    pub threshold: f64,
}

/// One recorded step.
#[derive(Clone, Debug, Default)]
pub struct StepRecord {
    /// Time, seconds.
    pub time_s: f64,
    /// Active flowlets.
    pub flows: usize,
    /// Sum over links of raw load above the link's full capacity (not the `1 - threshold`
    /// share the allocator targets), b/s.
    pub over_allocation_bps: f64,
    /// Total raw rate, b/s.
    pub raw_bps: f64,
    /// Total F-NORM rate, b/s.
    pub f_norm_bps: f64,
    /// Total U-NORM rate, b/s.
    pub u_norm_bps: f64,
    /// Total optimal rate, b/s (NaN when not computed this step).
    pub optimal_bps: f64,
}

/// Totals of a [`ChurnMeter`] over the steps after warm-up.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ChurnSummary {
    /// Steps measured after warm-up.
    pub steps: u64,
    /// Steps after warm-up whose optimum was computed.
    pub optimum_steps: u64,
    /// Mean active flowlets over the steps after warm-up.
    pub mean_flows: f64,
    /// Largest over-allocation of one step, b/s.
    pub max_over_allocation_bps: f64,
    /// Mean over-allocation per step, b/s.
    pub mean_over_allocation_bps: f64,
    /// Sum of F-NORM throughput over sum of optimal throughput on the steps whose optimum
    /// was computed (Flowtune Fig. 13); 0 when there were none.
    pub f_norm_fraction: f64,
    /// Same for U-NORM.
    pub u_norm_fraction: f64,
    /// Same for the raw (un-normalized) rates.
    pub raw_fraction: f64,
}

/// The §6.6 measurement of an online allocator, one call of [`ChurnMeter::measure`] per
/// iteration (see the module docs for the definitions), accumulating a [`ChurnSummary`].
#[derive(Clone, Debug)]
pub struct ChurnMeter {
    warmup_s: f64,
    /// Link capacities in the problem's rate unit.
    cap_full: Vec<f64>,
    /// The same times the problem's capacity factor (what the normalizers fill).
    cap_scaled: Vec<f64>,
    f_rates: Vec<f64>,
    u_rates: Vec<f64>,
    steps: u64,
    flows_sum: f64,
    over_sum: f64,
    over_max: f64,
    optimum_steps: u64,
    opt_sum: f64,
    f_sum: f64,
    u_sum: f64,
    raw_sum: f64,
}

impl ChurnMeter {
    /// A meter for `problem`'s links (added before this call, with its capacity factor set);
    /// steps before `warmup_s` are recorded but left out of the summary.
    pub fn new(problem: &Problem, warmup_s: f64) -> ChurnMeter {
        let unit = problem.rate_unit();
        let cap_full: Vec<f64> = problem.capacity_bps().iter().map(|c| c / unit).collect();
        let cap_scaled = problem
            .capacity_bps()
            .iter()
            .map(|c| c / unit * problem.capacity_factor())
            .collect();
        ChurnMeter {
            warmup_s,
            cap_full,
            cap_scaled,
            f_rates: Vec::new(),
            u_rates: Vec::new(),
            steps: 0,
            flows_sum: 0.0,
            over_sum: 0.0,
            over_max: 0.0,
            optimum_steps: 0,
            opt_sum: 0.0,
            f_sum: 0.0,
            u_sum: 0.0,
            raw_sum: 0.0,
        }
    }

    /// Measures the iteration that just left `state.sub_rate` on `problem` at `time_s`: the
    /// over-allocation of those raw rates, their F-NORM and U-NORM totals, and, when
    /// `with_optimum`, the optimum of the current flow set. An empty problem records zeros.
    pub fn measure(
        &mut self,
        problem: &Problem,
        state: &State,
        time_s: f64,
        with_optimum: bool,
    ) -> StepRecord {
        let unit = problem.rate_unit();
        let mut rec = StepRecord {
            time_s,
            flows: problem.flows(),
            optimal_bps: f64::NAN,
            ..StepRecord::default()
        };
        self.f_rates.clear();
        if problem.flows() > 0 {
            let raw = &state.sub_rate;
            let load = problem.link_load_bps(raw);
            // Flowtune Fig. 12: sum_l max(0, G_l), G_l = sum_{s in S(l)} x_s - c_l (§3).
            rec.over_allocation_bps = load
                .iter()
                .zip(&self.cap_full)
                .map(|(x, c)| (x - c).max(0.0))
                .sum::<f64>()
                * unit;
            rec.raw_bps = raw.iter().sum::<f64>() * unit;
            self.f_rates.extend_from_slice(raw);
            f_norm(&self.cap_scaled, problem.paths(), &mut self.f_rates);
            self.u_rates.clear();
            self.u_rates.extend_from_slice(raw);
            u_norm(&self.cap_scaled, problem.paths(), &mut self.u_rates);
            rec.f_norm_bps = self.f_rates.iter().sum::<f64>() * unit;
            rec.u_norm_bps = self.u_rates.iter().sum::<f64>() * unit;
            if with_optimum {
                rec.optimal_bps = optimal_throughput(problem, state) * unit;
            }
        }
        if time_s >= self.warmup_s {
            self.steps += 1;
            self.flows_sum += rec.flows as f64;
            self.over_max = self.over_max.max(rec.over_allocation_bps);
            self.over_sum += rec.over_allocation_bps;
            if !rec.optimal_bps.is_nan() {
                self.optimum_steps += 1;
                self.opt_sum += rec.optimal_bps;
                self.f_sum += rec.f_norm_bps;
                self.u_sum += rec.u_norm_bps;
                self.raw_sum += rec.raw_bps;
            }
        }
        rec
    }

    /// The F-NORM rates of the last measured step (subflow order of its problem; empty when
    /// it had no flows).
    pub fn f_norm_rates(&self) -> &[f64] {
        &self.f_rates
    }

    /// The totals so far.
    pub fn summary(&self) -> ChurnSummary {
        let frac = |x: f64| {
            if self.opt_sum > 0.0 {
                x / self.opt_sum
            } else {
                0.0
            }
        };
        let per_step = |x: f64| {
            if self.steps > 0 {
                x / self.steps as f64
            } else {
                0.0
            }
        };
        ChurnSummary {
            steps: self.steps,
            optimum_steps: self.optimum_steps,
            mean_flows: per_step(self.flows_sum),
            max_over_allocation_bps: self.over_max,
            mean_over_allocation_bps: per_step(self.over_sum),
            f_norm_fraction: frac(self.f_sum),
            u_norm_fraction: frac(self.u_sum),
            raw_fraction: frac(self.raw_sum),
        }
    }
}

/// Total rate (problem units) of the optimum of `problem`'s flow set: a separate NED
/// (gamma 0.4) run on a copy from `state`'s prices until rates and prices move by less than
/// 1e-7 (Flowtune §6.6).
fn optimal_throughput(problem: &Problem, state: &State) -> f64 {
    let mut copy = problem.clone();
    let mut st = state.clone();
    if st.prices.iter().any(|p| *p <= 0.0) {
        // NED from a zero price needs a first step; start positive prices at 1e-3.
        st.prices.iter_mut().for_each(|p| *p = p.max(1e-3));
    }
    let mut ned = Ned::default();
    run_to_convergence(&mut ned, &mut copy, &mut st, 1e-7, 20_000);
    st.sub_rate.iter().sum::<f64>()
}

/// The outcome of a churn run.
#[derive(Clone, Debug, Default)]
pub struct ChurnResult {
    /// Every step.
    pub steps: Vec<StepRecord>,
    /// Flowlets that finished.
    pub completed: usize,
    /// Largest over-allocation after warm-up, b/s.
    pub max_over_allocation_bps: f64,
    /// Mean over-allocation after warm-up, b/s.
    pub mean_over_allocation_bps: f64,
    /// Sum of F-NORM throughput over sum of optimal throughput on the steps where the optimum
    /// was computed (after warm-up).
    pub f_norm_fraction: f64,
    /// Same for U-NORM.
    pub u_norm_fraction: f64,
    /// Same for the raw (un-normalized) rates.
    pub raw_fraction: f64,
    /// Rate notifications sent after warm-up (Flowtune §6.4).
    pub notifications: u64,
    /// Notifications per flowlet that arrived after warm-up.
    pub notifications_per_flowlet: f64,
    /// The meter's totals (the fields above repeat its over-allocation and fractions).
    pub summary: ChurnSummary,
}

/// Runs one churn experiment with `solver` on links of `capacity_bps` (see the module docs).
/// `flowlets` must be sorted by start time.
pub fn run(
    capacity_bps: &[f64],
    flowlets: &[Flowlet],
    solver: &mut AnySolver,
    cfg: &ChurnConfig,
) -> ChurnResult {
    let unit = capacity_bps.iter().cloned().fold(1.0, f64::max);
    let mut problem = Problem::new(unit);
    for (l, &c) in capacity_bps.iter().enumerate() {
        problem
            .add_link(format!("l{l}"), c)
            .expect("positive capacities");
    }
    let mut notifier = Notifier::new(cfg.threshold);
    problem.set_capacity_factor(notifier.capacity_factor());
    let mut meter = ChurnMeter::new(&problem, cfg.warmup_s);
    let mut arrived_after_warmup = 0usize;
    let mut state = State::new(&problem, solver.initial_price());
    let mut remaining: Vec<(FlowKey, f64)> = Vec::new(); // per flow index: bytes left
    let mut next = 0;
    let mut out = ChurnResult::default();
    let steps = (cfg.duration_s / cfg.step_s).round() as usize;
    for step in 0..steps {
        let t = step as f64 * cfg.step_s;
        while next < flowlets.len() && flowlets[next].start_s <= t {
            let f = &flowlets[next];
            let key = problem
                .add_flow(NumFlow::new(
                    format!("f{next}"),
                    f.path.clone(),
                    Utility::Log { weight: 1.0 },
                ))
                .expect("valid path");
            remaining.push((key, f.bytes * 8.0));
            if f.start_s >= cfg.warmup_s {
                arrived_after_warmup += 1;
            }
            next += 1;
        }
        if problem.flows() > 0 {
            solver.iterate(&mut problem, &mut state);
        }
        let with_optimum = cfg.optimal_every > 0 && step % cfg.optimal_every == 0;
        let rec = meter.measure(&problem, &state, t, with_optimum);
        if problem.flows() > 0 {
            let fr = meter.f_norm_rates();
            let sent = notifier.update(fr, problem.notified_mut());
            if t >= cfg.warmup_s {
                out.notifications += sent;
            }
            // Drain at the F-NORM rate; collect finished flowlets.
            let mut done = Vec::new();
            for (i, (key, bits)) in remaining.iter_mut().enumerate() {
                *bits -= fr[i] * unit * cfg.step_s;
                if *bits <= 0.0 {
                    done.push(*key);
                }
            }
            if !done.is_empty() {
                out.completed += done.len();
                problem.remove_flows(&done).expect("known keys");
                remaining.retain(|(_, bits)| *bits > 0.0);
            }
        }
        out.steps.push(rec);
    }
    if arrived_after_warmup > 0 {
        out.notifications_per_flowlet = out.notifications as f64 / arrived_after_warmup as f64;
    }
    let s = meter.summary();
    out.max_over_allocation_bps = s.max_over_allocation_bps;
    out.mean_over_allocation_bps = s.mean_over_allocation_bps;
    out.f_norm_fraction = s.f_norm_fraction;
    out.u_norm_fraction = s.u_norm_fraction;
    out.raw_fraction = s.raw_fraction;
    out.summary = s;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_meter_measures_what_section_6_6_defines_on_a_hand_case() {
        // Two 10 Gb/s links; A on l0, B on both, C on l1. Raw rates 8, 5, 7 Gb/s load l0 with
        // 13 and l1 with 12: over-allocation 3 + 2 = 5 Gb/s (Fig. 12). F-NORM divides A and B
        // by 1.3, C by 1.2 (eq. 9): 13/1.3 + 7/1.2 = 15.83 Gb/s; U-NORM divides all by 1.3
        // (eq. 8): 20/1.3 = 15.38 Gb/s. The proportionally fair optimum is A = C = 2/3,
        // B = 1/3 of a link: 16.67 Gb/s (Fig. 13's denominator).
        let mut p = Problem::new(10e9);
        for l in ["l0", "l1"] {
            p.add_link(l, 10e9).unwrap();
        }
        let log = Utility::Log { weight: 1.0 };
        for path in [vec![0], vec![0, 1], vec![1]] {
            p.add_flow(NumFlow::new("", path, log)).unwrap();
        }
        let mut st = State::new(&p, 1.0);
        st.sub_rate = vec![0.8, 0.5, 0.7];
        let mut m = ChurnMeter::new(&p, 1e-3);
        // Before warm-up: recorded, not summed.
        let early = m.measure(&p, &st, 0.0, true);
        assert_eq!(m.summary().steps, 0);
        let rec = m.measure(&p, &st, 2e-3, true);
        for r in [&early, &rec] {
            assert!((r.over_allocation_bps - 5e9).abs() < 1e-3, "{r:?}");
            assert!((r.raw_bps - 20e9).abs() < 1e-3);
            let f = (13.0 / 1.3 + 7.0 / 1.2) * 1e9;
            assert!((r.f_norm_bps - f).abs() < 1e-3, "{r:?}");
            assert!((r.u_norm_bps - 20e9 / 1.3).abs() < 1e-3, "{r:?}");
            // NED stops when rates move by less than 1e-7 per iteration.
            assert!((r.optimal_bps / (50e9 / 3.0) - 1.0).abs() < 1e-6, "{r:?}");
        }
        let f = m.f_norm_rates();
        assert!((f[0] - 0.8 / 1.3).abs() < 1e-12 && (f[2] - 0.7 / 1.2).abs() < 1e-12);
        // A step without the optimum counts in the over-allocation only.
        let mut st2 = st.clone();
        st2.sub_rate = vec![0.5, 0.5, 0.5];
        let r2 = m.measure(&p, &st2, 3e-3, false);
        assert!(r2.optimal_bps.is_nan() && r2.over_allocation_bps == 0.0);
        let s = m.summary();
        assert_eq!((s.steps, s.optimum_steps), (2, 1));
        assert!((s.max_over_allocation_bps - 5e9).abs() < 1e-3);
        assert!((s.mean_over_allocation_bps - 2.5e9).abs() < 1e-3);
        assert!((s.f_norm_fraction - rec.f_norm_bps / rec.optimal_bps).abs() < 1e-12);
        assert!((s.u_norm_fraction - rec.u_norm_bps / rec.optimal_bps).abs() < 1e-12);
        assert!((s.raw_fraction - 1.2).abs() < 1e-6, "{s:?}");
        assert_eq!(s.mean_flows, 3.0);
    }

    #[test]
    fn over_allocation_counts_load_above_full_capacity_not_the_threshold_share() {
        // Capacity factor 0.99 (threshold 0.01): a 9.95 Gb/s load on a 10 Gb/s link is above
        // what the allocator targets but not above the link, so it is no over-allocation;
        // F-NORM fills the 99% share.
        let mut p = Problem::new(10e9);
        p.add_link("l", 10e9).unwrap();
        p.set_capacity_factor(0.99);
        p.add_flow(NumFlow::new("", vec![0], Utility::Log { weight: 1.0 }))
            .unwrap();
        let mut st = State::new(&p, 1.0);
        st.sub_rate = vec![0.995];
        let mut m = ChurnMeter::new(&p, 0.0);
        let r = m.measure(&p, &st, 0.0, false);
        assert_eq!(r.over_allocation_bps, 0.0);
        assert!((r.f_norm_bps - 9.9e9).abs() < 1.0, "{r:?}");
        st.sub_rate = vec![1.02];
        let r = m.measure(&p, &st, 0.0, false);
        assert!((r.over_allocation_bps - 0.2e9).abs() < 1.0, "{r:?}");
    }

    #[test]
    fn single_link_churn_fills_the_link_and_finishes_flows() {
        // Flowlets of 10 kB every 10 us on one 10 Gb/s link (8 Gb/s offered): every flowlet
        // finishes, F-NORM never exceeds capacity, and F-NORM throughput is near optimal.
        let flowlets: Vec<Flowlet> = (0..200)
            .map(|i| Flowlet {
                start_s: i as f64 * 10e-6,
                bytes: 10_000.0,
                path: vec![0],
            })
            .collect();
        let cfg = ChurnConfig {
            step_s: 10e-6,
            duration_s: 3e-3,
            optimal_every: 5,
            warmup_s: 0.2e-3,
            threshold: 0.01,
        };
        let mut s = AnySolver::by_name("ned").unwrap();
        let r = run(&[10e9], &flowlets, &mut s, &cfg);
        assert_eq!(r.completed, 200);
        for st in &r.steps {
            assert!(st.f_norm_bps <= 0.99 * 10e9 * (1.0 + 1e-9));
        }
        assert!(r.f_norm_fraction > 0.99, "{}", r.f_norm_fraction);
        // Every flowlet is told its rate at least once; the threshold keeps it to a few.
        assert!(
            r.notifications_per_flowlet >= 1.0,
            "{}",
            r.notifications_per_flowlet
        );
        assert!(
            r.notifications_per_flowlet < 20.0,
            "{}",
            r.notifications_per_flowlet
        );
    }

    #[test]
    fn over_allocation_is_measured_against_full_capacity() {
        // Two long flowlets on one 10 Gb/s link with threshold 0.01: NED approaches the 99%
        // allocation from above (prices rise from below), so for several steps the raw load is
        // between 9.9 and 10 Gb/s. That is not above the link's capacity: the over-allocation
        // of every step is the raw load above 10 Gb/s (one link, so load = raw throughput).
        let flowlets: Vec<Flowlet> = (0..2)
            .map(|_| Flowlet {
                start_s: 0.0,
                bytes: 1e9,
                path: vec![0],
            })
            .collect();
        let cfg = ChurnConfig {
            step_s: 10e-6,
            duration_s: 0.5e-3,
            optimal_every: 0,
            warmup_s: 0.0,
            threshold: 0.01,
        };
        let mut s = AnySolver::by_name("ned").unwrap();
        let r = run(&[10e9], &flowlets, &mut s, &cfg);
        let between = r
            .steps
            .iter()
            .filter(|st| st.raw_bps > 9.9e9 * (1.0 + 1e-9) && st.raw_bps < 10e9)
            .count();
        assert!(between > 0, "no step with raw load in (9.9, 10) Gb/s");
        for st in &r.steps {
            let want = (st.raw_bps - 10e9).max(0.0);
            assert!(
                (st.over_allocation_bps - want).abs() <= 1e-6 * 10e9,
                "t {} raw {} over {}",
                st.time_s,
                st.raw_bps,
                st.over_allocation_bps
            );
        }
    }

    /// A churn run on 8 links of 10 Gb/s in which the flow set changes every `k` iterations:
    /// one flowlet every `k` steps on two random links, its bytes scaled with `k` so the
    /// offered load is the same for every `k`.
    fn churn_every(k: usize) -> ChurnResult {
        use dctc_core::rng::mix64;
        let step = 10e-6;
        let steps = 3000;
        let flowlets: Vec<Flowlet> = (0..steps / k)
            .map(|i| {
                let h = mix64(7 ^ mix64(i as u64));
                let a = (h % 8) as usize;
                let b = (a + 1 + (mix64(h) % 7) as usize) % 8;
                Flowlet {
                    start_s: (i * k) as f64 * step,
                    bytes: k as f64 * 40_000.0,
                    path: vec![a, b],
                }
            })
            .collect();
        let cfg = ChurnConfig {
            step_s: step,
            duration_s: steps as f64 * step,
            optimal_every: 2,
            warmup_s: 1000.0 * step,
            threshold: 0.0,
        };
        let mut s = AnySolver::by_name("ned").unwrap();
        run(&[10e9; 8], &flowlets, &mut s, &cfg)
    }

    #[test]
    fn f_norm_fraction_is_set_by_iterations_per_flow_set_change() {
        // The difference from Flowtune's "over 99.7% of optimal" (§6.6) pinned: with the
        // same offered load, NED + F-NORM reaches about 0.997 of the optimum only when the flow
        // set holds still for tens of iterations, and loses several percent when it changes
        // every iteration or every few (fb-web at load 0.8 on flowtune-144 changes a host
        // link's flow set about every 3 iterations). Over-allocation falls the same way.
        let ks = [1usize, 3, 10, 60];
        let runs: Vec<ChurnResult> = ks.iter().map(|&k| churn_every(k)).collect();
        let f: Vec<f64> = runs.iter().map(|r| r.f_norm_fraction).collect();
        for w in f.windows(2) {
            assert!(w[0] < w[1], "F-NORM fraction not rising with k: {f:?}");
        }
        assert!(f[0] < 0.95, "every iteration: {f:?}");
        assert!(f[1] < 0.98, "every 3 iterations: {f:?}");
        assert!(f[3] > 0.995, "every 60 iterations: {f:?}");
        let over: Vec<f64> = runs.iter().map(|r| r.mean_over_allocation_bps).collect();
        for w in over.windows(2) {
            assert!(w[0] > w[1], "over-allocation not falling with k: {over:?}");
        }
    }
}
