//! KKT residuals of a candidate NUM solution, in the problem's scaled unit and relative, so
//! that a solver's status can say whether its answer is optimal rather than only that its
//! iterates stopped moving.
//!
//! For subflow rates `y_s >= 0` (flow totals `x_f`), link prices `p_l` and path prices
//! `q_s = sum_{l in L(s)} p_l` the optimality conditions of
//! `max sum_f U_f(x_f)` s.t. `load_l <= c_l`, `theta_f <= x_f <= Theta_f` are
//! (HOLNET eq. 10-11; Flowtune §3 for the single-path case):
//!
//! - primal feasibility: `load_l <= c_l`, `theta_f <= x_f <= Theta_f`;
//! - dual feasibility and complementary slackness: `p_l >= 0`, and `p_l = 0` or `load_l = c_l`;
//! - stationarity: with `q_f = min_s q_s` over the flow's paths, `U'_f(x_f) = q_f` for a flow
//!   strictly between its bounds (`<=` at its minimum, `>=` at its maximum), and every path
//!   that carries traffic costs `q_f`.
//!
//! Each residual is scale-free:
//!
//! - `primal`: the largest `(load_l - c_l)_+ / c_l`, `(theta_f - x_f)_+ / theta_f`,
//!   `(x_f - Theta_f)_+ / Theta_f`;
//! - `complementarity`: the largest `p_l / P_l * (c_l - load_l)_+ / c_l`, where `P_l` is the
//!   largest path price of a subflow on `l` (so a price that is a negligible part of every
//!   path price it enters counts as negligible), and `-p_l / P_l` for a negative price;
//! - `stationarity`: the largest `|U'_f(x_f) - q_f| / max(U'_f(x_f), q_f)` (one-sided at a
//!   bound; for log utilities this is the relative rate error), and per used path
//!   `(y_s / x_f) (q_s - q_f) / q_s`.
//!
//! A flow counts as at a bound within a relative `tolerance` of it. The line-rate cap that
//! solvers put on a flow is implied by the link constraints and is not a bound here.

use crate::problem::Problem;

/// The tolerance below which every residual must lie for `converged` / `solved`.
pub const TOLERANCE: f64 = 1e-6;

/// The three KKT residuals (see the module docs), each relative.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Residuals {
    /// Largest relative capacity or rate-bound violation.
    pub primal: f64,
    /// Largest relative complementary-slackness (or dual-feasibility) violation.
    pub complementarity: f64,
    /// Largest relative stationarity violation.
    pub stationarity: f64,
}

impl Residuals {
    /// All three residuals as (name, value), in a fixed order.
    pub fn named(&self) -> [(&'static str, f64); 3] {
        [
            ("primal", self.primal),
            ("complementarity", self.complementarity),
            ("stationarity", self.stationarity),
        ]
    }

    /// The largest residual as (name, value); a NaN residual counts as the largest.
    pub fn largest(&self) -> (&'static str, f64) {
        let mut best = ("primal", self.primal);
        for (name, v) in self.named() {
            if v.is_nan() {
                return (name, v);
            }
            if v > best.1 {
                best = (name, v);
            }
        }
        best
    }

    /// Whether every residual is at most `tolerance` (false if any is NaN).
    pub fn within(&self, tolerance: f64) -> bool {
        self.named().iter().all(|&(_, v)| v <= tolerance)
    }

    /// A residual for an answer that has no numbers (NaN rates): everything fails.
    pub fn failed() -> Residuals {
        Residuals {
            primal: f64::INFINITY,
            complementarity: f64::INFINITY,
            stationarity: f64::INFINITY,
        }
    }
}

/// The KKT residuals of subflow rates `sub_rate` and link prices `prices`, both in the
/// problem's scaled units (rate units and scaled prices, as in [`crate::solver::State`]), for
/// the prepared `problem`. Flows whose rates are not finite make every residual infinite.
pub fn residuals(problem: &Problem, sub_rate: &[f64], prices: &[f64], tolerance: f64) -> Residuals {
    residuals_except(problem, sub_rate, prices, tolerance, &[])
}

/// [`residuals`] with the flows marked in `exempt` left out of stationarity (their rates still
/// count in the loads and bounds): flows that minimum rates pin where no strictly feasible
/// point exists, whose multipliers need not exist ([`crate::reference::Solution::pinned`]).
/// An empty `exempt` exempts nobody.
pub fn residuals_except(
    problem: &Problem,
    sub_rate: &[f64],
    prices: &[f64],
    tolerance: f64,
    exempt: &[bool],
) -> Residuals {
    let nl = problem.links();
    let nf = problem.flows();
    if sub_rate.len() != problem.subflow_count() || prices.len() != nl {
        return Residuals::failed();
    }
    if sub_rate
        .iter()
        .chain(prices)
        .any(|v| !v.is_finite() || v.is_nan())
    {
        return Residuals::failed();
    }
    let cap = problem.capacity_scaled();
    let unit = problem.rate_unit();
    let mut load = vec![0.0; nl];
    let mut x = vec![0.0; nf];
    let mut r = Residuals::default();
    for (s, &y) in sub_rate.iter().enumerate() {
        x[problem.subflow_owner(s)] += y;
        if y < 0.0 {
            r.primal = f64::INFINITY;
        }
        for &l in problem.paths().row(s) {
            load[l as usize] += y;
        }
    }
    for l in 0..nl {
        r.primal = r.primal.max((load[l] - cap[l]).max(0.0) / cap[l]);
    }
    let path_price = |s: usize| -> f64 {
        problem
            .paths()
            .row(s)
            .iter()
            .map(|&l| prices[l as usize])
            .sum()
    };
    // Largest path price through each link (P_l).
    let mut largest_path = vec![0.0f64; nl];
    for f in 0..nf {
        let theta = problem.min_scaled()[f];
        let user_max = problem.max_bps()[f] / unit;
        if theta > 0.0 {
            r.primal = r.primal.max((theta - x[f]).max(0.0) / theta);
        }
        if user_max.is_finite() {
            r.primal = r.primal.max((x[f] - user_max).max(0.0) / user_max);
        }
        let mut q_min = f64::INFINITY;
        for s in problem.subflows(f) {
            let q = path_price(s);
            q_min = q_min.min(q);
            for &l in problem.paths().row(s) {
                largest_path[l as usize] = largest_path[l as usize].max(q);
            }
        }
        if exempt.get(f).copied().unwrap_or(false) {
            continue;
        }
        let marginal = problem.scaled_utilities()[f].marginal(x[f]);
        let rel = if marginal.is_infinite() && q_min.is_infinite() {
            0.0
        } else if marginal.is_infinite() || marginal.is_nan() {
            1.0
        } else {
            let scale = marginal.abs().max(q_min.abs());
            if scale > 0.0 {
                (marginal - q_min) / scale
            } else {
                0.0
            }
        };
        let at_min = theta > 0.0 && x[f] <= theta * (1.0 + tolerance);
        let at_max = user_max.is_finite() && x[f] >= user_max * (1.0 - tolerance);
        let violation = match (at_min, at_max) {
            (true, true) => 0.0,
            (true, false) => rel.max(0.0),
            (false, true) => (-rel).max(0.0),
            (false, false) => rel.abs(),
        };
        r.stationarity = r.stationarity.max(violation);
        if x[f] > 0.0 {
            for s in problem.subflows(f) {
                let q = path_price(s);
                if sub_rate[s] > 0.0 && q > 0.0 {
                    r.stationarity = r.stationarity.max(sub_rate[s] / x[f] * (q - q_min) / q);
                }
            }
        }
    }
    for l in 0..nl {
        let big = largest_path[l];
        if problem.by_link().row(l).is_empty() || big <= 0.0 {
            continue; // no flow (or no priced path) sees this link's price
        }
        let p = prices[l] / big;
        let cs = if p < 0.0 {
            -p
        } else {
            p * (cap[l] - load[l]).max(0.0) / cap[l]
        };
        r.complementarity = r.complementarity.max(cs);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::NumFlow;
    use crate::Utility;

    /// Two log flows (weights 1 and 3) on one 10 Gb/s link: x = 2.5 / 7.5 Gb/s, price 0.4 per
    /// rate unit (1/x in rate units of 10 Gb/s).
    fn one_link() -> Problem {
        let mut p = Problem::new(1e10);
        p.add_link("l", 1e10).unwrap();
        p.add_flow(NumFlow::new("a", vec![0], Utility::Log { weight: 1.0 }))
            .unwrap();
        p.add_flow(NumFlow::new("b", vec![0], Utility::Log { weight: 3.0 }))
            .unwrap();
        p.prepare();
        p
    }

    #[test]
    fn the_optimum_has_zero_residuals() {
        let p = one_link();
        let r = residuals(&p, &[0.25, 0.75], &[4.0], TOLERANCE);
        assert!(r.within(1e-12), "{r:?}");
    }

    #[test]
    fn each_condition_is_caught_and_named() {
        let p = one_link();
        // Overloaded by 20%: rates at a price too low (stationary but infeasible).
        let r = residuals(&p, &[0.3, 0.9], &[1.0 / 0.3], TOLERANCE);
        assert!((r.primal - 0.2).abs() < 1e-12, "{r:?}");
        assert_eq!(r.largest().0, "primal");
        // Feasible but half empty with a positive price: complementary slackness.
        let r = residuals(&p, &[0.125, 0.375], &[8.0], TOLERANCE);
        assert!(r.primal == 0.0 && r.stationarity < 1e-12, "{r:?}");
        assert!((r.complementarity - 0.5).abs() < 1e-12, "{r:?}");
        // Full link, but the split disagrees with the price: stationarity.
        let r = residuals(&p, &[0.5, 0.5], &[4.0], TOLERANCE);
        assert_eq!(r.largest().0, "stationarity", "{r:?}");
        assert!((r.stationarity - 0.5).abs() < 1e-12, "{r:?}"); // U'(0.5) = 2 vs q = 4
        assert!(!r.within(TOLERANCE));
    }

    #[test]
    fn bounds_make_stationarity_one_sided() {
        let mut p = one_link();
        let mut s = NumFlow::new("c", vec![0], Utility::Log { weight: 1.0 });
        s.max_bps = 1e9; // Theta = 0.1 rate units, binding
        p.add_flow(s).unwrap();
        p.prepare();
        // a, b share the remaining 0.9 as 1 : 3 at price 1 / 0.225; c at its maximum has
        // U'(0.1) = 10 >= q: no violation.
        let q = 1.0 / 0.225;
        let r = residuals(&p, &[0.225, 0.675, 0.1], &[q], TOLERANCE);
        assert!(r.within(1e-12), "{r:?}");
        // Above its maximum: primal.
        let r = residuals(&p, &[0.2, 0.6, 0.2], &[5.0], TOLERANCE);
        assert!((r.primal - 1.0).abs() < 1e-12, "{r:?}");
    }

    #[test]
    fn an_unused_cheaper_path_and_a_used_dearer_one() {
        let mut p = Problem::new(1.0);
        p.add_link("a", 1.0).unwrap();
        p.add_link("b", 1.0).unwrap();
        let mut s = NumFlow::new("m", vec![0], Utility::Log { weight: 1.0 });
        s.paths.push(vec![1]);
        p.add_flow(s).unwrap();
        p.prepare();
        // Optimum: 1 on each path, x = 2, both prices 1/2.
        let r = residuals(&p, &[1.0, 1.0], &[0.5, 0.5], TOLERANCE);
        assert!(r.within(1e-12), "{r:?}");
        // All traffic on a, whose price is twice b's.
        let r = residuals(&p, &[1.0, 0.0], &[1.0, 0.5], TOLERANCE);
        assert!(r.stationarity >= 0.5 - 1e-12, "{r:?}");
    }
}
