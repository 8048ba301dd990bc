//! Fast weighted gradient method (Beck, Nedic, Ozdaglar & Teboulle 2014).
//!
//! The dual of NUM with strongly concave utilities has a Lipschitz gradient. Beck et al. scale
//! each link's step by `1 / L_l` with `L_l = sum_{s in S(l)} |L(s)| / sigma_s`, where `sigma_s` is
//! the strong-concavity modulus of `U_s` on the flow's rate range (here `|U''|` at the flow's
//! line-rate cap, where it is smallest for every utility offered), and accelerate with
//! Nesterov/FISTA momentum. This is the "crude upper bound on the convexity" Flowtune §8
//! contrasts with NED's exact diagonal.

use super::{rate_update_with, settled, Multipath, Solver, State};
use crate::problem::Problem;

/// FGM state (momentum and the previous prices).
#[derive(Clone, Debug, Default)]
pub struct Fgm {
    t: f64,
    previous: Vec<f64>,
    point: Vec<f64>,
    lipschitz: Vec<f64>,
}

impl Fgm {
    /// Forgets the momentum (e.g. after a large change of the flow set).
    pub fn reset(&mut self) {
        self.t = 0.0;
        self.previous.clear();
        self.point.clear();
    }
}

impl Solver for Fgm {
    fn name(&self) -> &'static str {
        "fgm"
    }

    fn iterate(&mut self, problem: &mut Problem, state: &mut State) {
        state.fit(problem, 1.0);
        problem.prepare();
        let nl = problem.links();
        if self.point.len() != nl {
            self.point = state.prices.clone();
            self.previous = state.prices.clone();
            self.t = 1.0;
        }
        if self.t == 0.0 {
            self.t = 1.0;
            self.point.clone_from(&state.prices);
            self.previous.clone_from(&state.prices);
        }
        // L_l = sum over subflows on l of |L(s)| / sigma_s.
        self.lipschitz.clear();
        self.lipschitz.resize(nl, 0.0);
        for s in 0..problem.subflow_count() {
            let f = problem.subflow_owner(s);
            let sigma = -problem.scaled_utilities()[f].curvature(problem.max_scaled()[f]);
            let hops = problem.paths().row(s).len() as f64;
            for &l in problem.paths().row(s) {
                self.lipschitz[l as usize] += hops / sigma;
            }
        }
        let point = std::mem::take(&mut self.point);
        rate_update_with(problem, &point, state, false, Multipath::Smoothed);
        let cap = problem.capacity_scaled();
        let mut next = vec![0.0; nl];
        for l in 0..nl {
            next[l] = if self.lipschitz[l] > 0.0 {
                let g = state.load[l] - cap[l];
                (point[l] + g / self.lipschitz[l]).max(0.0)
            } else {
                state.prices[l]
            };
        }
        if !problem.is_single_path() && settled(&state.prices, &next) {
            // The inner (smoothed) problem has converged: move the multipath flows' proximal
            // centres to its solution and restart the momentum (a new smooth dual).
            // The rates reported are those under the new centres (so that a move that still
            // changes them keeps run-to-convergence from stopping inside an inner solve).
            let mut scratch = State::default();
            rate_update_with(problem, &next, &mut scratch, true, Multipath::Smoothed);
            rate_update_with(problem, &next, &mut scratch, false, Multipath::Smoothed);
            state.sub_rate = scratch.sub_rate;
            state.flow_rate = scratch.flow_rate;
            self.point.clone_from(&next);
            self.previous.clone_from(&next);
            state.prices = next;
            self.t = 1.0;
            state.iterations += 1;
            return;
        }
        let t_next = 0.5 * (1.0 + (1.0 + 4.0 * self.t * self.t).sqrt());
        let momentum = (self.t - 1.0) / t_next;
        self.point = next
            .iter()
            .zip(&self.previous)
            .map(|(&p, &old)| (p + momentum * (p - old)).max(0.0))
            .collect();
        self.previous.clone_from(&next);
        state.prices = next;
        self.t = t_next;
        state.iterations += 1;
    }
}
