//! DBA's bandwidth allocation (DBA §4.2.2): flow weights from the path price (eq. 10), rates by
//! weighted max-min (the WFQ switches), per-flow KKT deviations (eq. 11), and a Nesterov
//! accelerated price update (eq. 12-14).
//!
//! Eq. (14) as printed adds `(1 - delta(t-1)) / delta(t) * (nu(t+1) - nu(t))`, a negative
//! momentum. Nesterov's method in Bubeck's form, which eq. (13) follows, mixes
//! `(1 - g) nu(t+1) + g nu(t)` with `g = (1 - delta(t-1)) / delta(t)`, i.e. adds
//! `(delta(t-1) - 1) / delta(t) * (nu(t+1) - nu(t))`; this is what is implemented.
//! Minimum rates are not enforced by this solver (weighted max-min has only caps).

use super::{Solver, State};
use crate::maxmin::weighted_max_min;
use crate::problem::Problem;

/// DBA's solver.
#[derive(Clone, Debug)]
pub struct Dba {
    /// Step gamma on the capacity slack in eq. (12), price per rate unit.
    pub gamma: f64,
    delta: f64,
    nu: Vec<f64>,
}

impl Default for Dba {
    fn default() -> Self {
        Dba {
            gamma: 0.5,
            delta: 0.0, // DBA: delta(0) = 0
            nu: Vec::new(),
        }
    }
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
        let mut weight = vec![0.0; ns];
        let mut cap = vec![0.0; ns];
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
            let hi = problem.max_scaled()[f];
            let share = problem.split()[s];
            weight[s] = (share * u.rate_at_price(q).min(hi)).max(1e-300);
            cap[s] = hi;
        }
        let rates = weighted_max_min(problem.capacity_scaled(), problem.paths(), &weight, &cap);
        state.sub_rate = rates;
        state.flow_rate.clear();
        state.flow_rate.resize(problem.flows(), 0.0);
        for s in 0..ns {
            state.flow_rate[problem.subflow_owner(s)] += state.sub_rate[s];
        }
        state.load = problem.link_load_bps(&state.sub_rate); // rate units in, rate units out
        state.hessian.clear();
        state.hessian.resize(nl, 0.0);
        // Eq. (11): e_i = (U'(b_i) - sum p) / |L(i)|; per link the minimum over its flows.
        let mut min_e = vec![f64::INFINITY; nl];
        for s in 0..ns {
            let f = problem.subflow_owner(s);
            let u = &problem.scaled_utilities()[f];
            let row = problem.paths().row(s);
            let e = (u.marginal(state.flow_rate[f]) - path_price[s]) / row.len() as f64;
            for &l in row {
                min_e[l as usize] = min_e[l as usize].min(e);
                state.hessian[l as usize] -= 1.0; // marks the link as used
            }
        }
        let delta_prev = self.delta;
        self.delta = 0.5 * (1.0 + (1.0 + 4.0 * delta_prev * delta_prev).sqrt()); // eq. (13)
        let momentum = if self.delta > 0.0 {
            (delta_prev - 1.0).max(0.0) / self.delta
        } else {
            0.0
        };
        let c = problem.capacity_scaled();
        for l in 0..nl {
            if !min_e[l].is_finite() {
                continue; // no flows: price kept
            }
            // Eq. (12).
            let nu_next = state.prices[l] + min_e[l] - self.gamma * (c[l] - state.load[l]);
            // Eq. (14), Nesterov form (see module docs).
            state.prices[l] = (nu_next + momentum * (nu_next - self.nu[l])).max(0.0);
            self.nu[l] = nu_next;
        }
        state.iterations += 1;
    }
}
