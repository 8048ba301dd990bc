//! Convergence speed: iterations until a solver's F-NORM-normalized allocation is within a
//! tolerance of the optimum, from a cold start (prices at their initial value) and after one
//! flow arrives at a converged allocation.
//!
//! Two criteria, both on the F-NORM rates (the feasible allocation a deployment would use):
//! the *utility* criterion `|U(x) - U*| <= tol S` and the stricter *rate* criterion
//! `max_s |x_s - x*_s| / x*_s <= tol`. The optimum is NED run to a relative change of 1e-11
//! (NED matches the independent reference solver in the tests).
//!
//! The utility gap is measured against the utility scale `S = sum_f U'_f(x*_f) x*_f` at the
//! optimum, not against `|U*|`: `U*` depends on the unit (a sum of logs of rates in b/s is
//! about 21 per flow, so 1% of it allowed every rate to be 20% off and every solver met it at
//! its first iteration), while `U(x) - U*` and `S` do not. For log utilities `S = sum_f w_f`
//! and the criterion says the weighted mean of `log(x_f / x*_f)` is within `tol`: the
//! weighted geometric mean of the rates within about `tol` of the optimum's.

use crate::normalize::f_norm;
use crate::problem::{NumFlow, Problem};
use crate::solver::{run_to_convergence, AnySolver, Ned, Solver, State};

/// Iterations to reach each criterion (`None`: not within the cap).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reached {
    /// Utility within tolerance.
    pub utility: Option<usize>,
    /// Every rate within tolerance.
    pub rates: Option<usize>,
}

/// Result of one convergence experiment.
#[derive(Clone, Debug, Default)]
pub struct ConvergenceResult {
    /// From prices at the solver's initial value.
    pub cold: Reached,
    /// After one more flow joins a converged allocation.
    pub arrival: Reached,
    /// Utility gap `|U - U*| / S` per iteration from the cold start (see the module docs).
    pub cold_gap: Vec<f64>,
    /// Largest relative rate error per iteration from the cold start.
    pub cold_rate_error: Vec<f64>,
}

fn optimum(problem: &Problem) -> Vec<f64> {
    let mut p = problem.clone();
    let mut st = State::new(&p, 1.0);
    let mut ned = Ned::default();
    run_to_convergence(&mut ned, &mut p, &mut st, 1e-11, 100_000);
    st.flow_rates_bps(&p)
}

/// The utility scale `S = sum_f |U'_f(x_f)| x_f` of flow rates `x` (b/s); see the module docs.
pub fn utility_scale(problem: &Problem, rate_bps: &[f64]) -> f64 {
    problem
        .utilities()
        .iter()
        .zip(rate_bps)
        .map(|(u, &x)| (u.marginal(x) * x).abs())
        .sum()
}

fn measure(problem: &Problem, state: &State, best: &[f64], best_u: f64, scale: f64) -> (f64, f64) {
    let mut x = state.sub_rate.clone();
    f_norm(problem.capacity_scaled(), problem.paths(), &mut x);
    let mut flow = vec![0.0; problem.flows()];
    for (s, v) in x.iter().enumerate() {
        flow[problem.subflow_owner(s)] += v * problem.rate_unit();
    }
    let u = problem.objective(&flow);
    let gap = (u - best_u).abs() / scale.max(1e-300);
    let err = flow
        .iter()
        .zip(best)
        .map(|(a, b)| (a - b).abs() / b)
        .fold(0.0, f64::max);
    (gap, err)
}

fn track(
    solver: &mut AnySolver,
    problem: &mut Problem,
    state: &mut State,
    tolerance: f64,
    cap: usize,
    trace: Option<(&mut Vec<f64>, &mut Vec<f64>)>,
) -> Reached {
    let best = optimum(problem);
    let best_u = problem.objective(&best);
    let scale = utility_scale(problem, &best);
    let mut reached = Reached::default();
    let mut trace = trace;
    for i in 1..=cap {
        solver.iterate(problem, state);
        let (gap, err) = measure(problem, state, &best, best_u, scale);
        if let Some((g, e)) = trace.as_mut() {
            g.push(gap);
            e.push(err);
        }
        if reached.utility.is_none() && gap <= tolerance {
            reached.utility = Some(i);
        }
        if reached.rates.is_none() && err <= tolerance {
            reached.rates = Some(i);
        }
        if reached.utility.is_some() && reached.rates.is_some() && trace.is_none() {
            break;
        }
    }
    reached
}

/// Runs the experiment: `problem` holds the initial flows; `arrival` joins after convergence.
pub fn run(
    problem: &Problem,
    arrival: NumFlow,
    solver: &AnySolver,
    tolerance: f64,
    cap: usize,
) -> ConvergenceResult {
    let mut out = ConvergenceResult::default();
    let mut p = problem.clone();
    let mut s = solver.clone();
    let mut st = State::new(&p, s.initial_price());
    out.cold = track(
        &mut s,
        &mut p,
        &mut st,
        tolerance,
        cap,
        Some((&mut out.cold_gap, &mut out.cold_rate_error)),
    );
    // Converge fully with the same solver (NED if it cannot), then add the flow.
    if run_to_convergence(&mut s, &mut p, &mut st, 1e-10, 200_000)
        != crate::solver::RunStatus::Converged
    {
        let mut ned = Ned::default();
        run_to_convergence(&mut ned, &mut p, &mut st, 1e-10, 200_000);
    }
    p.add_flow(arrival).expect("arrival fits the problem");
    out.arrival = track(&mut s, &mut p, &mut st, tolerance, cap, None);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Utility;

    #[test]
    fn ned_converges_fast_on_a_parking_lot() {
        let mut p = Problem::new(1e10);
        for (l, c) in [1e10, 4e9, 2.5e10, 1e10].into_iter().enumerate() {
            p.add_link(format!("l{l}"), c).unwrap();
        }
        p.add_flow(NumFlow::new(
            "long",
            vec![0, 1, 2, 3],
            Utility::Log { weight: 1.0 },
        ))
        .unwrap();
        for (l, w) in [2.0, 0.5, 3.0, 1.5].into_iter().enumerate() {
            p.add_flow(NumFlow::new(
                format!("s{l}"),
                vec![l],
                Utility::Log { weight: w },
            ))
            .unwrap();
        }
        let arrival = NumFlow::new("new", vec![1, 2], Utility::Log { weight: 1.0 });
        let ned = AnySolver::by_name("ned").unwrap();
        let r = run(&p, arrival.clone(), &ned, 0.01, 5000);
        let grad = AnySolver::by_name("gradient").unwrap();
        let g = run(&p, arrival, &grad, 0.01, 5000);
        let (n, gr) = (r.cold.rates.unwrap(), g.cold.rates.unwrap());
        assert!(n < gr, "NED {n} vs Gradient {gr} iterations");
        assert!(r.arrival.rates.unwrap() <= n);
        assert!(r.cold.utility.unwrap() <= n);
        // The utility criterion tells the two apart too. (Against 1% of |U*|, a sum of logs
        // of rates in b/s, both met it at iteration 1.)
        let (nu, gu) = (r.cold.utility.unwrap(), g.cold.utility.unwrap());
        assert!(
            nu > 1,
            "NED met the utility criterion at once: {:?}",
            r.cold_gap
        );
        assert!(
            nu < gu,
            "NED {nu} vs Gradient {gu} iterations to the utility criterion"
        );
    }

    #[test]
    fn the_utility_gap_does_not_depend_on_the_unit() {
        // One log flow (weight 2) on a link, at half the optimum: gap = 2 log 2 / 2 = log 2,
        // in any unit.
        for c in [1e4, 1e10] {
            let mut p = Problem::new(c);
            p.add_link("l", c).unwrap();
            p.add_flow(NumFlow::new("f", vec![0], Utility::Log { weight: 2.0 }))
                .unwrap();
            let best = [c];
            let scale = utility_scale(&p, &best);
            assert!((scale - 2.0).abs() < 1e-12);
            let gap = (p.objective(&best) - p.objective(&[c / 2.0])).abs() / scale;
            assert!((gap - 2f64.ln()).abs() < 1e-12, "{gap}");
        }
    }
}
