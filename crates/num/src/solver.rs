//! Iterative NUM solvers behind one interface, one iteration at a time, so simulators can
//! interleave them with simulated time.
//!
//! Every solver keeps its per-link state in a [`State`] that survives edits of the
//! [`Problem`] (flows arriving or leaving, capacity changes); [`Solver::iterate`] performs one
//! *rate update* (rates from the current prices, Flowtune eq. 3) followed by one *price update*
//! (the solver's own rule) and leaves the rates it computed in the state.
//!
//! # Safeguards the papers leave open
//! - **Rate caps at line rate.** A flow's reported rate is clamped to
//!   `[theta, min(Theta, line rate)]`, where the line rate is the sum over its paths of each
//!   path's narrowest link. A zero path price therefore gives a finite rate, and no price floor
//!   is needed: prices may reach 0 as in Flowtune eq. (4).
//! - **Demand seen by price updates.** Clamping at line rate would hide a link's true excess
//!   (two flows that each want three times the link would show an excess of one link, and the
//!   price would crawl). Price updates therefore see each flow's *demand*
//!   `clamp((U')^-1(q), theta, min(Theta, 4 x line rate))` ([`crate::problem::DEMAND_CAP`]).
//!   At the optimum no flow wants more than its bottleneck, so the fixed point is unchanged.
//! - **`H_ll` for clamped flows.** A flow held at a bound does not react to small price changes,
//!   so the exact diagonal would omit it and a link whose flows are all clamped would have
//!   `H_ll = 0` (no Newton step). NED instead counts every flow with `1 / U''(x)` evaluated at
//!   its (clamped) demand: the exact `d x / d q` for unclamped flows and the one-sided
//!   derivative at the bound for clamped ones. `H_ll` is then negative for every link that
//!   carries a flow.
//! - **Links with no flows** keep their price unchanged (no gradient information); the price
//!   is there when flows return.
//! - **Multipath flows.** A flow's total rate comes from its split-weighted path price
//!   `q = sum_k phi_k q_k`; the split `phi` moves toward cheaper paths by an exponentiated
//!   gradient step each iteration (`phi_k *= exp(-eta (q_k - q) / q)`, floored at 1e-9 so a
//!   path can recover). At a fixed point every used path has the same price, which is the
//!   multipath optimality condition. The [`crate::reference`] solver handles multipath exactly.
//!   Known limit: when several links carry exactly the same set of subflows (so only the sum of
//!   their prices matters), NED's per-link Newton steps add up on the shared paths; with the
//!   split moving as well, such degenerate multipath instances can settle into a cycle of a few
//!   percent in rate instead of converging (seen on 1 of 6 random instances of an oracle
//!   generator). Single-path instances converge (property tests).

mod dba;
mod fgm;
mod gradient;
mod ned;
mod newton_like;

pub use dba::Dba;
pub use fgm::Fgm;
pub use gradient::Gradient;
pub use ned::Ned;
pub use newton_like::NewtonLike;

use crate::problem::Problem;

/// Per-link solver state plus the rates of the last rate update (all in rate units of
/// [`Problem::rate_unit`]).
#[derive(Clone, Debug, Default)]
pub struct State {
    /// Link prices `p_l`.
    pub prices: Vec<f64>,
    /// Subflow rates.
    pub sub_rate: Vec<f64>,
    /// Flow rates (sum of the flow's subflows).
    pub flow_rate: Vec<f64>,
    /// Per-link demand `sum_{s in S(l)} x_s` seen by the price update (flows' demands, see
    /// the module docs; equal to the load of `sub_rate` unless some flow wants more than line
    /// rate).
    pub load: Vec<f64>,
    /// Per-link `H_ll` (sum of `d x / d p_l`, negative; see the module docs).
    pub hessian: Vec<f64>,
    /// Iterations run so far.
    pub iterations: u64,
}

impl State {
    /// A fresh state with every price at `initial_price` (Flowtune: 1).
    pub fn new(problem: &Problem, initial_price: f64) -> State {
        State {
            prices: vec![initial_price; problem.links()],
            ..State::default()
        }
    }

    /// Grows per-link arrays for links added since (new links start at `initial_price`).
    pub fn fit(&mut self, problem: &Problem, initial_price: f64) {
        if self.prices.len() < problem.links() {
            self.prices.resize(problem.links(), initial_price);
        }
    }

    /// Subflow rates in b/s.
    pub fn sub_rates_bps(&self, problem: &Problem) -> Vec<f64> {
        self.sub_rate
            .iter()
            .map(|x| x * problem.rate_unit())
            .collect()
    }

    /// Flow rates in b/s.
    pub fn flow_rates_bps(&self, problem: &Problem) -> Vec<f64> {
        self.flow_rate
            .iter()
            .map(|x| x * problem.rate_unit())
            .collect()
    }
}

/// Exponentiated-gradient step size for multipath splits.
const SPLIT_ETA: f64 = 0.5;
/// Smallest split share (lets an abandoned path come back).
const SPLIT_FLOOR: f64 = 1e-9;

/// Flowtune eq. (3) for every flow at `prices`: fills `sub_rate`, `flow_rate`, `load` and
/// `hessian` (see the module docs for the treatment of clamped flows and multipath flows).
/// Moves multipath splits when `move_split` is set.
pub fn rate_update(problem: &mut Problem, prices: &[f64], state: &mut State, move_split: bool) {
    problem.prepare();
    let nl = problem.links();
    state.load.clear();
    state.load.resize(nl, 0.0);
    state.hessian.clear();
    state.hessian.resize(nl, 0.0);
    state.sub_rate.resize(problem.subflow_count(), 0.0);
    state.flow_rate.resize(problem.flows(), 0.0);
    if problem.is_single_path() {
        single_path_update(problem, prices, state);
        return;
    }
    let mut path_price = Vec::new();
    for f in 0..problem.flows() {
        let subs = problem.subflows(f);
        path_price.clear();
        for s in subs.clone() {
            let q: f64 = problem
                .paths()
                .row(s)
                .iter()
                .map(|&l| prices[l as usize])
                .sum();
            path_price.push(q);
        }
        if move_split && subs.len() > 1 {
            let split = &mut problem.split_mut()[subs.clone()];
            let q: f64 = split.iter().zip(&path_price).map(|(a, b)| a * b).sum();
            if q > 0.0 {
                let mut total = 0.0;
                for (phi, &qk) in split.iter_mut().zip(&path_price) {
                    *phi = (*phi * (-SPLIT_ETA * (qk - q) / q).exp()).max(SPLIT_FLOOR);
                    total += *phi;
                }
                split.iter_mut().for_each(|phi| *phi /= total);
            }
        }
        let split = &problem.split()[subs.clone()];
        let q: f64 = split.iter().zip(&path_price).map(|(a, b)| a * b).sum();
        let u = &problem.scaled_utilities()[f];
        let demand = u
            .rate_at_price(q)
            .clamp(problem.min_scaled()[f], problem.demand_cap()[f]);
        let x = demand.min(problem.max_scaled()[f]);
        let slope = 1.0 / u.curvature(demand);
        state.flow_rate[f] = x;
        for (k, s) in subs.enumerate() {
            state.sub_rate[s] = split[k] * x;
            for &l in problem.paths().row(s) {
                state.load[l as usize] += split[k] * demand;
                state.hessian[l as usize] += split[k] * slope;
            }
        }
    }
}

fn single_path_update(problem: &Problem, prices: &[f64], state: &mut State) {
    let paths = problem.paths();
    let utils = problem.scaled_utilities();
    let (lo, hi, want) = (
        problem.min_scaled(),
        problem.max_scaled(),
        problem.demand_cap(),
    );
    for f in 0..problem.flows() {
        let row = paths.row(f);
        let q: f64 = row.iter().map(|&l| prices[l as usize]).sum();
        let u = &utils[f];
        let demand = u.rate_at_price(q).clamp(lo[f], want[f]);
        let x = demand.min(hi[f]);
        let slope = 1.0 / u.curvature(demand);
        state.flow_rate[f] = x;
        state.sub_rate[f] = x;
        for &l in row {
            state.load[l as usize] += demand;
            state.hessian[l as usize] += slope;
        }
    }
}

/// One iterative solver (see the module docs).
pub trait Solver {
    /// Short name (`ned`, `gradient`, ...).
    fn name(&self) -> &'static str;
    /// One rate update and one price update.
    fn iterate(&mut self, problem: &mut Problem, state: &mut State);
}

/// Any of the iterative solvers, by value (no `Box<dyn>`).
#[derive(Clone, Debug)]
pub enum AnySolver {
    /// Flowtune's Newton-Exact-Diagonal.
    Ned(Ned),
    /// Gradient projection.
    Gradient(Gradient),
    /// Fast weighted gradient (Beck et al. 2014).
    Fgm(Fgm),
    /// Newton-like (Athuraliya & Low 2000).
    NewtonLike(NewtonLike),
    /// DBA's accelerated price update over weighted max-min rates.
    Dba(Dba),
}

impl AnySolver {
    /// A solver by name with its default settings: `ned`, `gradient`, `fgm`, `newton-like`,
    /// `dba`.
    pub fn by_name(name: &str) -> Option<AnySolver> {
        Some(match name {
            "ned" => AnySolver::Ned(Ned::default()),
            "gradient" => AnySolver::Gradient(Gradient::default()),
            "fgm" => AnySolver::Fgm(Fgm::default()),
            "newton-like" => AnySolver::NewtonLike(NewtonLike::default()),
            "dba" => AnySolver::Dba(Dba::default()),
            _ => return None,
        })
    }

    /// The price a fresh [`State`] should start from for this solver.
    pub fn initial_price(&self) -> f64 {
        match self {
            AnySolver::Dba(_) => 0.0, // DBA §4.2.2: lambda_l(0) = 0
            _ => 1.0,                 // Flowtune §3: prices start at 1
        }
    }
}

impl Solver for AnySolver {
    fn name(&self) -> &'static str {
        match self {
            AnySolver::Ned(s) => s.name(),
            AnySolver::Gradient(s) => s.name(),
            AnySolver::Fgm(s) => s.name(),
            AnySolver::NewtonLike(s) => s.name(),
            AnySolver::Dba(s) => s.name(),
        }
    }
    fn iterate(&mut self, problem: &mut Problem, state: &mut State) {
        match self {
            AnySolver::Ned(s) => s.iterate(problem, state),
            AnySolver::Gradient(s) => s.iterate(problem, state),
            AnySolver::Fgm(s) => s.iterate(problem, state),
            AnySolver::NewtonLike(s) => s.iterate(problem, state),
            AnySolver::Dba(s) => s.iterate(problem, state),
        }
    }
}

/// How a run to convergence ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStatus {
    /// The largest relative rate change of an iteration fell below the tolerance.
    Converged,
    /// The iteration cap was reached first.
    MaxIterations,
    /// A rate or price became NaN or infinite.
    NumericalError,
}

/// Iterates until the largest relative change of any flow rate *and* of any link price in one
/// iteration is below `tolerance` (checked after at least two iterations) or `max_iterations`
/// is reached. (Rates alone can stand still while prices climb: flows clamped at line rate.)
pub fn run_to_convergence(
    solver: &mut impl Solver,
    problem: &mut Problem,
    state: &mut State,
    tolerance: f64,
    max_iterations: u64,
) -> RunStatus {
    let mut previous: Vec<f64> = Vec::new();
    let mut previous_prices: Vec<f64> = Vec::new();
    for i in 0..max_iterations {
        previous_prices.clear();
        previous_prices.extend_from_slice(&state.prices);
        solver.iterate(problem, state);
        if state
            .flow_rate
            .iter()
            .chain(&state.prices)
            .any(|v| !v.is_finite())
        {
            return RunStatus::NumericalError;
        }
        if i >= 1 && previous.len() == state.flow_rate.len() {
            let change = previous
                .iter()
                .zip(&state.flow_rate)
                .map(|(a, b)| (a - b).abs() / a.abs().max(b.abs()).max(1e-300))
                .fold(0.0, f64::max);
            let price_change = previous_prices
                .iter()
                .zip(&state.prices)
                .map(|(a, b)| (a - b).abs() / a.abs().max(b.abs()).max(1e-300))
                .fold(0.0, f64::max);
            if change < tolerance && price_change < tolerance {
                return RunStatus::Converged;
            }
        }
        previous.clear();
        previous.extend_from_slice(&state.flow_rate);
    }
    RunStatus::MaxIterations
}
