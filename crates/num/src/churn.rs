//! Flowtune §6.6: an allocator under flowlet churn, without the packet network.
//!
//! Time advances in steps of one allocator iteration (10 us in Flowtune). At each step the
//! flowlets that arrived join the [`Problem`] (taking rates from the current prices), one
//! solver iteration runs, and the raw rates are normalized with F-NORM and U-NORM. Flowlets
//! drain at their F-NORM rate until their bytes are sent, then leave. Recorded per step: the
//! total over-allocation of the raw rates (sum over links of load above the full capacity,
//! Flowtune Fig. 12), and the throughput of the raw, F-NORM and U-NORM rates. Every `optimal_every`
//! steps the optimum for the current flow set is computed by running NED from the current
//! prices on a copy until rates and prices move by less than 1e-7 (as Flowtune did: "a
//! separate instance of NED until it converged"), giving the fractions of Fig. 13. Rate
//! notifications are counted with the update threshold of §6.4.

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
#[derive(Clone, Debug)]
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
    let mut arrived_after_warmup = 0usize;
    let mut state = State::new(&problem, solver.initial_price());
    let mut remaining: Vec<(FlowKey, f64)> = Vec::new(); // per flow index: bytes left
    let mut next = 0;
    let mut out = ChurnResult::default();
    let steps = (cfg.duration_s / cfg.step_s).round() as usize;
    let (mut opt_sum, mut f_sum, mut u_sum, mut raw_sum) = (0.0, 0.0, 0.0, 0.0);
    let (mut over_sum, mut over_n) = (0.0, 0usize);
    // Normalizers use the allocated capacity (after the threshold factor, §6.4); the
    // over-allocation of Fig. 12 is load above the links' capacities ("allocate more than link
    // capacities"), so it is measured against the full capacity: a link allocated between
    // `1 - threshold` and 100% of its capacity is not over-allocated.
    let cap_scaled: Vec<f64> = capacity_bps
        .iter()
        .map(|c| c / unit * notifier.capacity_factor())
        .collect();
    let cap_full: Vec<f64> = capacity_bps.iter().map(|c| c / unit).collect();
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
        let mut rec = StepRecord {
            time_s: t,
            flows: problem.flows(),
            optimal_bps: f64::NAN,
            ..StepRecord::default()
        };
        if problem.flows() > 0 {
            solver.iterate(&mut problem, &mut state);
            let raw = state.sub_rate.clone();
            let load = problem.link_load_bps(&raw);
            rec.over_allocation_bps = load
                .iter()
                .zip(&cap_full)
                .map(|(x, c)| (x - c).max(0.0))
                .sum::<f64>()
                * unit;
            rec.raw_bps = raw.iter().sum::<f64>() * unit;
            let mut fr = raw.clone();
            f_norm(&cap_scaled, problem.paths(), &mut fr);
            let mut ur = raw.clone();
            u_norm(&cap_scaled, problem.paths(), &mut ur);
            rec.f_norm_bps = fr.iter().sum::<f64>() * unit;
            rec.u_norm_bps = ur.iter().sum::<f64>() * unit;
            if cfg.optimal_every > 0 && step % cfg.optimal_every == 0 {
                let mut copy = problem.clone();
                let mut st = state.clone();
                if st.prices.iter().any(|p| *p <= 0.0) {
                    // NED from a zero price needs a first step; start positive prices at 1.
                    st.prices.iter_mut().for_each(|p| *p = p.max(1e-3));
                }
                let mut ned = Ned::default();
                run_to_convergence(&mut ned, &mut copy, &mut st, 1e-7, 20_000);
                rec.optimal_bps = st.sub_rate.iter().sum::<f64>() * unit;
                if t >= cfg.warmup_s {
                    opt_sum += rec.optimal_bps;
                    f_sum += rec.f_norm_bps;
                    u_sum += rec.u_norm_bps;
                    raw_sum += rec.raw_bps;
                }
            }
            let sent = notifier.update(&fr, problem.notified_mut());
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
        if t >= cfg.warmup_s {
            out.max_over_allocation_bps = out.max_over_allocation_bps.max(rec.over_allocation_bps);
            over_sum += rec.over_allocation_bps;
            over_n += 1;
        }
        out.steps.push(rec);
    }
    out.mean_over_allocation_bps = if over_n > 0 {
        over_sum / over_n as f64
    } else {
        0.0
    };
    if arrived_after_warmup > 0 {
        out.notifications_per_flowlet = out.notifications as f64 / arrived_after_warmup as f64;
    }
    if opt_sum > 0.0 {
        out.f_norm_fraction = f_sum / opt_sum;
        out.u_norm_fraction = u_sum / opt_sum;
        out.raw_fraction = raw_sum / opt_sum;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
