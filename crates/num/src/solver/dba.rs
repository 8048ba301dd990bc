//! DBA's bandwidth allocation (DBA §4.2.2): flow weights from the path price (eq. 10), rates by
//! weighted max-min (the WFQ switches), per-flow KKT deviations (eq. 11), and a Nesterov
//! accelerated price update (eq. 12-14).
//!
//! The update itself is [`crate::dba`]'s (shared with dctc-flow's `dba` policy); eq. (10) here
//! is `(U')^-1` of each flow's own utility, which for DBA's utility is eq. (10) as printed.
//!
//! Eq. (14) as printed adds `(1 - delta(t-1)) / delta(t) * (nu(t+1) - nu(t))`, a negative
//! momentum. Nesterov's method in Bubeck's form, which eq. (13) follows, mixes
//! `(1 - g) nu(t+1) + g nu(t)` with `g = (1 - delta(t-1)) / delta(t)`, i.e. adds
//! `(delta(t-1) - 1) / delta(t) * (nu(t+1) - nu(t))`; this is the default
//! ([`Momentum::Standard`]), [`Dba::with_momentum`] picks another.
//!
//! Minimum and maximum rates (HOLNET eq. 11; DBA's problem (2) has neither): DBA's paper
//! gives no rule for them, so this solver extends its two steps in the way the KKT conditions
//! of the bounded problem ask for. The WFQ allocation reserves each flow its minimum:
//! rates are [`bounded_weighted_max_min`] with the eq. (10) weights, every flow at
//! `clamp(w t, theta, Theta)` at its bottleneck level `t` (the water-filling of
//! `--solver maxmin` on single-path problems; WFQ is per path, so a multipath flow's minimum
//! and maximum are split over its paths in proportion to its split shares, equal unless
//! another solver moved them). Eq. (11)'s
//! deviation is taken only over flows strictly between their bounds: at a bound, 7(a) holds
//! with the bound's multiplier (`U'(theta) < q` for a flow held at its minimum), so such a
//! flow's `e_i` is not an error to correct, and counting it in eq. (12)'s minimum would pull
//! a full link's price down for ever. A link whose flows all sit at a bound gets only the
//! capacity term of eq. (12). [`Dba::check`] rejects multipath minimums whose equal shares do
//! not fit a link (a problem the reference solver may still solve).

use super::{Solver, SolverError, State};
use crate::dba::{deviation, lambda_update, nu_update, Acceleration, Gamma, Momentum};
use crate::maxmin::{bounded_weighted_max_min, weighted_max_min};
use crate::problem::Problem;

/// DBA's solver.
#[derive(Clone, Debug)]
pub struct Dba {
    /// Step gamma on the capacity slack in eq. (12), price per rate unit of the problem
    /// ([`Problem::rate_unit`]).
    pub gamma: f64,
    /// Eq. (13)-(14)'s momentum: Nesterov's ([`Momentum::Standard`]) by default, the rule
    /// the convergence proof (eq. 21) analyses; the problems here are static, where the
    /// accelerated dual method is what the paper proves converges.
    accel: Acceleration,
    nu: Vec<f64>,
}

impl Default for Dba {
    fn default() -> Self {
        Dba::with_momentum(Momentum::Standard)
    }
}

impl Dba {
    /// Gamma 0.5 per rate unit with the given momentum rule (eq. 14).
    pub fn with_momentum(momentum: Momentum) -> Dba {
        Dba {
            gamma: 0.5,
            accel: Acceleration::new(momentum), // DBA: delta(0) = 0
            nu: Vec::new(),
        }
    }

    /// The momentum rule of eq. (14).
    pub fn momentum(&self) -> Momentum {
        self.accel.momentum()
    }

    /// Whether DBA accepts `problem`: the minimum-rate shares it reserves on each path (see
    /// the module docs) must fit every link.
    pub fn check(problem: &Problem) -> Result<(), SolverError> {
        let mut problem = problem.clone();
        problem.prepare();
        let (_, lo, _) = subflow_bounds(&problem);
        let cap = problem.capacity_scaled();
        let mut need = vec![0.0; problem.links()];
        for (s, &m) in lo.iter().enumerate() {
            for &l in problem.paths().row(s) {
                need[l as usize] += m;
            }
        }
        for l in 0..problem.links() {
            if need[l] > cap[l] * (1.0 + 1e-12) {
                let flow = problem
                    .by_link()
                    .row(l)
                    .iter()
                    .map(|&s| problem.subflow_owner(s as usize))
                    .find(|&f| problem.subflows(f).len() > 1 && problem.min_bps()[f] > 0.0)
                    .map(|f| problem.flow_names()[f].clone())
                    .unwrap_or_default();
                return Err(SolverError::SplitMinimum {
                    solver: "dba",
                    flow,
                    link: problem.link_names()[l].clone(),
                    required_bps: need[l] * problem.rate_unit(),
                    capacity_bps: cap[l] * problem.rate_unit(),
                });
            }
        }
        Ok(())
    }
}

/// Per subflow: its share of the flow (split), and the flow's minimum and user maximum times
/// that share, in rate units (the maximum infinite when the user gave none).
fn subflow_bounds(problem: &Problem) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let ns = problem.subflow_count();
    let unit = problem.rate_unit();
    let (mut share, mut lo, mut hi) = (vec![0.0; ns], vec![0.0; ns], vec![0.0; ns]);
    for s in 0..ns {
        let f = problem.subflow_owner(s);
        share[s] = problem.split()[s];
        lo[s] = problem.min_scaled()[f] * share[s];
        hi[s] = (problem.max_bps()[f] / unit).max(problem.min_scaled()[f]) * share[s];
    }
    (share, lo, hi)
}

impl Solver for Dba {
    fn name(&self) -> &'static str {
        "dba"
    }

    fn iterate(&mut self, problem: &mut Problem, state: &mut State) {
        state.fit(problem, 0.0);
        problem.prepare();
        let nl = problem.links();
        let ns = problem.subflow_count();
        if self.nu.len() != nl {
            self.nu.resize(nl, 0.0);
        }
        // Eq. (10): weight = (U')^-1(path price), capped at line rate.
        let (share, lo, hi) = subflow_bounds(problem);
        let mut weight = vec![0.0; ns];
        let mut path_price = vec![0.0; ns];
        for s in 0..ns {
            let f = problem.subflow_owner(s);
            let q: f64 = problem
                .paths()
                .row(s)
                .iter()
                .map(|&l| state.prices[l as usize])
                .sum();
            path_price[s] = q;
            let u = &problem.scaled_utilities()[f];
            let line = problem.max_scaled()[f];
            weight[s] = (share[s] * u.rate_at_price(q).min(line)).max(1e-300);
        }
        let rates = match bounded_weighted_max_min(
            problem.capacity_scaled(),
            problem.paths(),
            &weight,
            &lo,
            &hi,
        ) {
            Ok(r) => r,
            // Minimum shares that do not fit (rejected by `Dba::check`): WFQ without them.
            Err(_) => weighted_max_min(problem.capacity_scaled(), problem.paths(), &weight, &hi),
        };
        state.sub_rate = rates;
        state.flow_rate.clear();
        state.flow_rate.resize(problem.flows(), 0.0);
        for s in 0..ns {
            state.flow_rate[problem.subflow_owner(s)] += state.sub_rate[s];
        }
        state.load = problem.link_load_bps(&state.sub_rate); // rate units in, rate units out
        state.hessian.clear();
        state.hessian.resize(nl, 0.0);
        // Eq. (11): e_i = (U'(b_i) - sum p) / |L(i)|; per link the minimum over its flows that
        // are strictly between their bounds (see the module docs).
        let unit = problem.rate_unit();
        let mut min_e = vec![f64::INFINITY; nl];
        for s in 0..ns {
            let f = problem.subflow_owner(s);
            let x = state.flow_rate[f];
            let theta = problem.min_scaled()[f];
            let at_bound = (theta > 0.0 && x <= theta * (1.0 + 1e-9))
                || x >= problem.max_bps()[f] / unit * (1.0 - 1e-9);
            let u = &problem.scaled_utilities()[f];
            let row = problem.paths().row(s);
            let e = deviation(u.marginal(x), path_price[s], row.len()); // eq. (11)
            for &l in row {
                if !at_bound {
                    min_e[l as usize] = min_e[l as usize].min(e);
                }
                state.hessian[l as usize] -= 1.0; // marks the link as used
            }
        }
        let momentum = self.accel.step(); // eq. (13), m(t) of eq. (14)
        let gamma = Gamma::per_unit(self.gamma, unit);
        let c = problem.capacity_scaled();
        for l in 0..nl {
            if state.hessian[l] == 0.0 {
                continue; // no flows: price kept
            }
            // Eq. (12) (no deviation term when every flow on the link sits at a bound).
            let e = if min_e[l].is_finite() { min_e[l] } else { 0.0 };
            let nu_next = nu_update(state.prices[l], e, gamma, c[l], state.load[l]);
            // Eq. (14) with the chosen momentum (see module docs).
            state.prices[l] = lambda_update(nu_next, self.nu[l], momentum);
            self.nu[l] = nu_next;
        }
        state.iterations += 1;
    }
}
