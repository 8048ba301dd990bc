//! Gradient projection (Low & Lapsley 1999): `p_l <- max(0, p_l + gamma G_l)`.

use super::{rates_at_own_prices, Multipath, Solver, State};
use crate::problem::Problem;

/// Gradient projection on the dual (Flowtune §3, "Gradient").
#[derive(Clone, Debug)]
pub struct Gradient {
    /// Step size gamma, in price per rate unit. Too large oscillates; the default suits
    /// capacities and log weights of order 1 in rate units.
    pub gamma: f64,
}

impl Default for Gradient {
    fn default() -> Self {
        Gradient { gamma: 0.1 }
    }
}

impl Solver for Gradient {
    fn name(&self) -> &'static str {
        "gradient"
    }

    fn iterate(&mut self, problem: &mut Problem, state: &mut State) {
        rates_at_own_prices(problem, state, true, Multipath::Proximal);
        let cap = problem.capacity_scaled();
        for l in 0..problem.links() {
            if state.hessian[l] < 0.0 {
                let g = state.load[l] - cap[l];
                state.prices[l] = (state.prices[l] + self.gamma * g).max(0.0);
            }
        }
        state.iterations += 1;
    }
}
