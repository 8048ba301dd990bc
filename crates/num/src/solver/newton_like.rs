//! The Newton-like method (Athuraliya & Low 2000): a diagonally scaled price step whose
//! scaling `H_ll` is *estimated from observed rate changes* rather than computed from the
//! utilities as NED does: `H_ll ~ (load_l(t) - load_l(t-1)) / (p_l(t) - p_l(t-1))`, smoothed.

use super::{rate_update_with, rates_at_own_prices, settled, Multipath, Solver, State};
use crate::problem::Problem;

/// Newton-like solver state.
#[derive(Clone, Debug)]
pub struct NewtonLike {
    /// Step factor gamma.
    pub gamma: f64,
    /// Weight of a new observation in the running estimate (0..1].
    pub smoothing: f64,
    estimate: Vec<f64>,
    last_load: Vec<f64>,
    last_price: Vec<f64>,
}

impl Default for NewtonLike {
    fn default() -> Self {
        NewtonLike {
            gamma: 0.4,
            smoothing: 0.5,
            estimate: Vec::new(),
            last_load: Vec::new(),
            last_price: Vec::new(),
        }
    }
}

impl Solver for NewtonLike {
    fn name(&self) -> &'static str {
        "newton-like"
    }

    fn iterate(&mut self, problem: &mut Problem, state: &mut State) {
        rates_at_own_prices(problem, state, false, Multipath::Smoothed);
        let before = if problem.is_single_path() {
            Vec::new()
        } else {
            state.prices.clone()
        };
        let nl = problem.links();
        self.estimate.resize(nl, 0.0);
        self.last_load.resize(nl, f64::NAN);
        self.last_price.resize(nl, f64::NAN);
        let cap = problem.capacity_scaled();
        for l in 0..nl {
            if state.hessian[l] == 0.0 {
                continue; // no flows: nothing observed, price kept
            }
            let (p, load) = (state.prices[l], state.load[l]);
            let dp = p - self.last_price[l];
            let dx = load - self.last_load[l];
            if dp.abs() > 1e-9 * p.abs().max(1e-12) && dx / dp < 0.0 {
                let seen = dx / dp;
                self.estimate[l] = if self.estimate[l] < 0.0 {
                    (1.0 - self.smoothing) * self.estimate[l] + self.smoothing * seen
                } else {
                    seen
                };
            } else if self.estimate[l] >= 0.0 {
                // No usable observation yet: assume log-like elasticity dx/dp = -x/p.
                self.estimate[l] = -load.max(1e-12) / p.max(1e-12);
            }
            self.last_price[l] = p;
            self.last_load[l] = load;
            let g = load - cap[l];
            state.prices[l] = (p - self.gamma * g / self.estimate[l]).max(0.0);
        }
        if !problem.is_single_path() && settled(&before, &state.prices) {
            // The inner (smoothed) problem has converged: move the multipath flows' proximal
            // centres to its solution. The next rate observation must compare responses
            // under one centre, so the loads remembered for this iteration's prices are
            // re-evaluated under the new centres. (Forgetting them instead froze the
            // estimate, as the centres move every iteration near convergence.)
            // The rates reported are those under the new centres (so that a move that still
            // changes them keeps run-to-convergence from stopping inside an inner solve).
            let mut scratch = State::default();
            rate_update_with(
                problem,
                &state.prices,
                &mut scratch,
                true,
                Multipath::Smoothed,
            );
            rate_update_with(
                problem,
                &state.prices,
                &mut scratch,
                false,
                Multipath::Smoothed,
            );
            state.sub_rate.clone_from(&scratch.sub_rate);
            state.flow_rate.clone_from(&scratch.flow_rate);
            rate_update_with(problem, &before, &mut scratch, false, Multipath::Smoothed);
            for l in 0..nl {
                if state.hessian[l] != 0.0 {
                    self.last_load[l] = scratch.load[l];
                }
            }
        }
        state.iterations += 1;
    }
}
