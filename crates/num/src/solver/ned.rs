//! Flowtune's Newton-Exact-Diagonal (NED), Algorithm 1.

use super::{rates_at_own_prices, Multipath, Solver, State};
use crate::problem::Problem;

/// NED: rate update by eq. (3), then `p_l <- max(0, p_l - gamma G_l / H_ll)` (eq. 4) with
/// `G_l = load_l - c_l` and `H_ll = sum_{s in S(l)} d x_s / d p_l` computed exactly from the
/// utilities (see [`crate::solver`] for clamped flows and empty links).
#[derive(Clone, Debug)]
pub struct Ned {
    /// Step factor gamma (Flowtune §6.2 uses 0.4; 0.2-1.5 behave alike).
    pub gamma: f64,
}

impl Default for Ned {
    fn default() -> Self {
        Ned { gamma: 0.4 }
    }
}

impl Solver for Ned {
    fn name(&self) -> &'static str {
        "ned"
    }

    fn iterate(&mut self, problem: &mut Problem, state: &mut State) {
        rates_at_own_prices(problem, state, true, Multipath::Proximal);
        let cap = problem.capacity_scaled();
        for l in 0..problem.links() {
            let h = state.hessian[l];
            if h < 0.0 {
                let g = state.load[l] - cap[l]; // Flowtune G_l
                state.prices[l] = (state.prices[l] - self.gamma * g / h).max(0.0);
                // eq. (4)
            }
        }
        state.iterations += 1;
    }
}
