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
//! - **Multipath flows.** Eq. (3) is ill-posed for a flow with several paths: its utility
//!   depends only on the total, so at equal path prices any split is a best response, and the
//!   response to unequal ones jumps. NED and Gradient use a proximal rate update instead
//!   ([`Multipath::Proximal`]): each iteration the flow's subflow rates `y` maximize
//!   `U(sum_k y_k) - sum_k q_k y_k - sum_k (y_k - b_k)^2 / (2c)` over `y >= 0` with the
//!   total in `[theta, demand cap]`, where `b` (the proximal centre) is the previous
//!   iteration's `y` and `c = 0.1 / |U''(x)|` at `x = (U')^-1(min_k q_k)`. The solution is
//!   `y_k = max(0, b_k + c (mu - q_k))` with `mu` such that `sum_k y_k` equals the clamped
//!   `(U')^-1(mu)` (found by bisection); the price update is unchanged, with each path
//!   contributing its share of the flow's slope `1 / U''(x)` to `H_ll` (a path at 0
//!   contributes `-c`). At a fixed point `y = b`, so every used path has price `mu`, every
//!   unused one at least `mu`, and the total is `(U')^-1(mu)` (or at a bound): the multipath
//!   KKT conditions (HOLNET eq. 10-11), with NED's fixed point giving primal feasibility and
//!   complementary slackness as for single-path flows. The proximal term only damps the split
//!   (Lin and Shroff's proximal method for multipath NUM), it does not move the optimum.
//!   Measured: NED converges (relative change 1e-9) within 1e-3 of the reference on all 40
//!   of the oracle generator's instances (1.3k iterations on average) and on 299 of 300
//!   further ones (seeds 1-3; the other ends within 1e-5 of the reference at the 200k cap,
//!   still changing by more than 1e-9 per iteration); `c` 0.1-0.2 / |U''| works, 1 / |U''| cycles on 6 of the 40 (the split then moves
//!   faster than the prices settle), 0.01 / |U''| lets the prices run away (the total then
//!   follows price changes too slowly for NED's `H_ll`). FGM and Newton-like need the
//!   subflow response to be a fixed smooth function of the prices (FGM's acceleration and
//!   Lipschitz steps assume a smooth dual; Newton-like estimates `H_ll` from observed rate
//!   changes), which a centre that moves every iteration breaks: FGM diverged and Newton-like
//!   failed on HOLNET's 60/20/80 that way. They use [`Multipath::Smoothed`], an inexact
//!   proximal point method: the same proximal subproblem with `c = 1 / sigma_f` (`sigma_f =
//!   |U''|` at the line-rate cap, FGM's strong-concavity modulus, so the smoothed
//!   subproblem is as strongly concave in every subflow as FGM's Lipschitz bound assumes),
//!   its centre held fixed while the solver iterates on the resulting smooth dual, and moved
//!   to the current subflow rates once an iteration changes every price by less than
//!   [`CENTRE_MOVE_TOLERANCE`] (FGM then restarts its momentum). The rates an iteration
//!   that moves the centres reports are those under the new centres, and Newton-like
//!   re-evaluates the loads it remembers for its next `H_ll` observation under them (its
//!   observations must compare responses to one centre; forgetting them instead froze its
//!   estimates). A fixed point has the centre equal to the rates, hence the multipath KKT
//!   conditions as above. Measured (`tests/oracle_multipath_solvers.rs`): both reach
//!   60/20/80 and converge within 1e-3 of the reference on 30 of 30 random instances; over
//!   100, FGM converges on 94 (the rest within 2e-5 at 20k iterations) and Newton-like on 98,
//!   one of which stops 2.3% off (its centre drifts by less than run-to-convergence's 1e-9 a
//!   step). The earlier exponentiated-gradient split (a total from the
//!   split-weighted path price, the split moved by `phi_k *= exp(-eta (q_k - q) / q)`) left
//!   FGM unconverged on 15 of 30 and let Newton-like stop 13% off the optimum. A
//!   centre tolerance of 1e-8 lets run-to-convergence's 1e-9 test stop inside an inner solve
//!   (FGM then ends 5% off), 1e-4 slows Newton-like. The [`crate::reference`] solver handles
//!   multipath exactly.

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

/// How a rate update treats multipath flows (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Multipath {
    /// Proximal rate update around each subflow's previous rate (NED, Gradient).
    Proximal,
    /// The proximal update with `c = 1 / sigma_f`, `sigma_f = |U''|` at the flow's line-rate
    /// cap (FGM's strong-concavity modulus), whose centre moves only when the caller asks
    /// (`move_split`): between moves the subflow response is a smooth function of the prices
    /// (FGM, Newton-like; see the module docs).
    Smoothed,
}

/// Relative price change of one iteration below which FGM and Newton-like move the proximal
/// centres of multipath flows ([`Multipath::Smoothed`]).
pub const CENTRE_MOVE_TOLERANCE: f64 = 1e-6;

/// Whether the largest relative change between `before` and `after` is below
/// [`CENTRE_MOVE_TOLERANCE`].
pub(crate) fn settled(before: &[f64], after: &[f64]) -> bool {
    before.len() == after.len()
        && before
            .iter()
            .zip(after)
            .all(|(a, b)| (a - b).abs() <= CENTRE_MOVE_TOLERANCE * a.abs().max(b.abs()).max(1e-300))
}

/// Flowtune eq. (3) for every flow at `prices`: fills `sub_rate`, `flow_rate`, `load` and
/// `hessian` (see the module docs for the treatment of clamped flows and multipath flows).
/// Moves multipath splits (and proximal centres) when `move_split` is set. Multipath flows
/// take the [`Multipath::Proximal`] update.
pub fn rate_update(problem: &mut Problem, prices: &[f64], state: &mut State, move_split: bool) {
    rate_update_with(problem, prices, state, move_split, Multipath::Proximal);
}

/// Eq. (3) at the state's own prices, grown to the problem first (new links priced 1): the
/// first half of an iteration of every solver that then moves each link's price
/// ([`rate_update_with`] with `move_split` and `rule`).
pub(crate) fn rates_at_own_prices(
    problem: &mut Problem,
    state: &mut State,
    move_split: bool,
    rule: Multipath,
) {
    state.fit(problem, 1.0);
    let prices = std::mem::take(&mut state.prices);
    rate_update_with(problem, &prices, state, move_split, rule);
    state.prices = prices;
}

/// [`rate_update`] with the multipath rule chosen.
pub fn rate_update_with(
    problem: &mut Problem,
    prices: &[f64],
    state: &mut State,
    move_split: bool,
    rule: Multipath,
) {
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
    let mut y = Vec::new();
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
        let u = problem.scaled_utilities()[f];
        let (lo, want, hi) = (
            problem.min_scaled()[f],
            problem.demand_cap()[f],
            problem.max_scaled()[f],
        );
        if subs.len() == 1 {
            let s = subs.start;
            let demand = u.rate_at_price(path_price[0]).clamp(lo, want);
            let x = demand.min(hi);
            let slope = 1.0 / u.curvature(demand);
            state.flow_rate[f] = x;
            state.sub_rate[s] = x;
            for &l in problem.paths().row(s) {
                state.load[l as usize] += demand;
                state.hessian[l as usize] += slope;
            }
            continue;
        }
        // Multipath: proximal rate update (see the module docs).
        let q_min = path_price.iter().copied().fold(f64::INFINITY, f64::min);
        let plain = u.rate_at_price(q_min).clamp(lo, want);
        let c = if rule == Multipath::Smoothed {
            1.0 / -u.curvature(hi)
        } else {
            PROX_KAPPA / -u.curvature(plain)
        };
        let (split, centre) = problem.split_and_centre_mut();
        let (split, centre) = (&mut split[subs.clone()], &mut centre[subs.clone()]);
        if centre.iter().any(|v| !v.is_finite()) {
            for (b, &phi) in centre.iter_mut().zip(split.iter()) {
                *b = phi * plain;
            }
        }
        let demand = proximal_rates(&u, lo, want, c, &path_price, centre, &mut y);
        let x = demand.min(hi);
        let scale = if demand > 0.0 { x / demand } else { 0.0 };
        if move_split {
            centre.copy_from_slice(&y);
            if demand > 0.0 {
                for (phi, &v) in split.iter_mut().zip(&y) {
                    *phi = v / demand;
                }
            }
        }
        // H_ll: each path counts with its share of the flow's slope 1 / U''(x) (the response
        // of the total, as for a single-path flow); a path at 0 counts with the slope -c of
        // its proximal response, so that a link carrying only such paths still gets a step.
        let slope = 1.0 / u.curvature(demand);
        state.flow_rate[f] = x;
        for (k, s) in subs.clone().enumerate() {
            state.sub_rate[s] = y[k] * scale;
            let h = if y[k] > 0.0 {
                y[k] / demand * slope
            } else {
                -c
            };
            for &l in problem.paths().row(s) {
                state.load[l as usize] += y[k];
                state.hessian[l as usize] += h;
            }
        }
    }
}

/// Proximal weight of the multipath rate update: `c = PROX_KAPPA / |U''(x)|`.
const PROX_KAPPA: f64 = 0.1;

/// The proximal rate update of one multipath flow: maximizes
/// `U(x) - sum_k q_k y_k - sum_k (y_k - b_k)^2 / (2c)` over `y >= 0` with
/// `x = sum_k y_k` in `[lo, want]`. Its solution is `y_k = max(0, b_k + c (mu - q_k))` where
/// `mu` makes `sum_k y_k = clamp((U')^-1(mu), lo, want)` (one increasing function of `mu`
/// against a non-increasing one: found by bisection). Fills `y`, returns `x`.
fn proximal_rates(
    u: &crate::utility::Scaled,
    lo: f64,
    want: f64,
    c: f64,
    q: &[f64],
    b: &[f64],
    y: &mut Vec<f64>,
) -> f64 {
    let g = |mu: f64| -> f64 {
        q.iter()
            .zip(b)
            .map(|(&qk, &bk)| (bk + c * (mu - qk)).max(0.0))
            .sum()
    };
    let h = |mu: f64| -> f64 {
        if mu <= 0.0 {
            want
        } else {
            u.rate_at_price(mu).clamp(lo, want)
        }
    };
    let mut low = q
        .iter()
        .zip(b)
        .map(|(&qk, &bk)| qk - bk / c)
        .fold(f64::INFINITY, f64::min);
    low -= low.abs().max(1e-300); // g(low) = 0 <= h(low)
    let mut high = q.iter().copied().fold(0.0, f64::max) + want / c; // g(high) >= want
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if mid <= low || mid >= high {
            break;
        }
        if g(mid) < h(mid) {
            low = mid;
        } else {
            high = mid;
        }
    }
    let mu = 0.5 * (low + high);
    y.clear();
    y.extend(
        q.iter()
            .zip(b)
            .map(|(&qk, &bk)| (bk + c * (mu - qk)).max(0.0)),
    );
    y.iter().sum()
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

/// Every solver `dctc` runs, with what it is (the `dctc list` rows): those
/// [`AnySolver::by_name`] makes, then the exact ones `dctc num solve` runs by themselves.
pub const SOLVERS: &[(&str, &str)] = &[
    (
        "ned",
        "Flowtune's Newton-Exact-Diagonal (gamma 0.4, prices start at 1)",
    ),
    ("gradient", "gradient projection on link prices"),
    (
        "fgm",
        "fast weighted gradient (Beck et al. 2014), Nesterov-accelerated",
    ),
    (
        "newton-like",
        "Athuraliya & Low: H_ll estimated from observed rate changes",
    ),
    (
        "dba",
        "DBA: accelerated price update over weighted max-min rates",
    ),
    (
        "maxmin",
        "weighted max-min fair by water-filling (exact; dctc num solve only)",
    ),
    (
        "reference",
        "interior-point reference optimum (dctc num solve only)",
    ),
];

impl AnySolver {
    /// Every name [`AnySolver::by_name`] takes.
    pub const NAMES: &'static [&'static str] = &["ned", "gradient", "fgm", "newton-like", "dba"];

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

    /// Whether this solver accepts `problem` (see [`SolverError`]); call before iterating.
    pub fn check(&self, problem: &Problem) -> Result<(), SolverError> {
        match self {
            AnySolver::Dba(_) => Dba::check(problem),
            _ => Ok(()),
        }
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

/// A problem a solver does not accept (checked by [`AnySolver::check`]; names the flow).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SolverError {
    /// DBA's weighted fair queueing reserves each path its equal share of the flow's minimum;
    /// those shares do not fit this link.
    #[error(
        "flow `{flow}`: solver `{solver}` reserves each path an equal share of the flow's \
         min_bps, and those shares need {required_bps} b/s on link `{link}` of capacity \
         {capacity_bps} b/s (the reference solver splits minimums freely)"
    )]
    SplitMinimum {
        /// Solver name.
        solver: &'static str,
        /// A multipath flow with a minimum on that link.
        flow: String,
        /// The link.
        link: String,
        /// Sum of the minimum shares on the link.
        required_bps: f64,
        /// Its usable capacity.
        capacity_bps: f64,
    },
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

/// How a [`run_checked`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckedStatus {
    /// Rates and prices stopped moving *and* the KKT residuals are within tolerance.
    Converged,
    /// The iterates stopped moving (an iteration changed nothing) at a point whose KKT
    /// residuals are above the tolerance.
    Stalled,
    /// The iteration cap was reached first.
    MaxIterations,
    /// A rate or price became NaN or infinite.
    NumericalError,
}

/// How a [`run_checked`] ended: the status and the KKT residuals of the final rates and
/// prices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Checked {
    /// [`CheckedStatus::Converged`] only when the residuals are within the KKT tolerance.
    pub status: CheckedStatus,
    /// KKT residuals of `state.sub_rate` and `state.prices` at exit ([`crate::kkt`]).
    pub residuals: crate::kkt::Residuals,
}

/// [`run_to_convergence`] whose `Converged` means optimal: when the rates and prices move by
/// less than `tolerance` in one iteration, the KKT residuals of the current rates and prices
/// are checked ([`crate::kkt::residuals`]); within `kkt_tolerance` it is `Converged`,
/// otherwise the small change only meant slow progress and iterating goes on (the next check
/// after another eighth of the iterations so far, so that checking stays a small part of the
/// work), until the cap (`MaxIterations`) or until an iteration changes nothing at all
/// (`Stalled`). The residuals are computed at the end, never per iteration.
pub fn run_checked(
    solver: &mut impl Solver,
    problem: &mut Problem,
    state: &mut State,
    tolerance: f64,
    kkt_tolerance: f64,
    max_iterations: u64,
) -> Checked {
    let mut previous: Vec<f64> = Vec::new();
    let mut previous_prices: Vec<f64> = Vec::new();
    let mut next_check = 0u64;
    let mut status = CheckedStatus::MaxIterations;
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
            status = CheckedStatus::NumericalError;
            break;
        }
        if i >= 1 && i >= next_check && previous.len() == state.flow_rate.len() {
            let change = relative_change(&previous, &state.flow_rate)
                .max(relative_change(&previous_prices, &state.prices));
            if change < tolerance {
                problem.prepare();
                let r =
                    crate::kkt::residuals(problem, &state.sub_rate, &state.prices, kkt_tolerance);
                if r.within(kkt_tolerance) {
                    return Checked {
                        status: CheckedStatus::Converged,
                        residuals: r,
                    };
                }
                if change == 0.0 {
                    return Checked {
                        status: CheckedStatus::Stalled,
                        residuals: r,
                    };
                }
                next_check = i + 1 + i / 8;
            }
        }
        previous.clear();
        previous.extend_from_slice(&state.flow_rate);
    }
    problem.prepare();
    Checked {
        status,
        residuals: crate::kkt::residuals(problem, &state.sub_rate, &state.prices, kkt_tolerance),
    }
}

/// Largest relative change between two equally long vectors.
fn relative_change(before: &[f64], after: &[f64]) -> f64 {
    before
        .iter()
        .zip(after)
        .map(|(a, b)| (a - b).abs() / a.abs().max(b.abs()).max(1e-300))
        .fold(0.0, f64::max)
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
