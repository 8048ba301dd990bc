//! Reference optima by an independent method: a primal log-barrier interior-point method with
//! Newton steps on the subflow rates (dense Cholesky), with a phase-I search for a strictly
//! feasible start when minimum rates are set. Minimum rates that exactly fill a link leave no
//! strictly feasible point; a presolve pins the rates they force and drops the link (see
//! `presolve`). Minimums that leave no strictly feasible point in other ways (a cut of several
//! links filled only jointly, a multipath flow's minimum filling a link its paths share) are
//! found by facial reduction with a small linear program (`facial_reduction`): the
//! constraints that hold with equality at every feasible point are identified from LP duals,
//! and the barrier method then runs in coordinates of that face.
//!
//! It shares nothing with the dual solvers except the utilities' `U'` and `U''`: it maximizes
//! `t sum_s U_s(sum_k y_sk) + sum_j log g_j(y)` over the subflow rates `y` for growing `t`, where
//! the `g_j > 0` are the constraints `y_k > 0`, `c_l - load_l > 0`, `x_s - theta_s > 0` and
//! `Theta_s - x_s > 0`, and stops when the duality gap `m / t` is below `1e-12` of the utility
//! scale: the smallest flow's `|U'_s(x_s) x_s|`, but at least 1e-6 of their sum. Problems whose
//! flows' marginal utilities differ by more than ~1e6 at the optimum (an alpha-fair utility
//! with alpha = 3 written in b/s beside a log utility; alpha = 100 with unequal shares) are
//! solved accurately only for the dominant flows.
//!
//! [`solve`] therefore verifies every answer with [`crate::kkt::residuals`] (rates and the
//! refined prices, relative, within [`crate::kkt::TOLERANCE`]) and reports
//! [`Status::Inaccurate`] instead of `Solved` when it fails. Before giving up it tries a
//! crossover: the barrier keeps flows strictly inside their bounds, by a wide margin for flows
//! with small marginals, so flows within 1e-4 of a bound are moved onto it where the links
//! have room, and the moved answer is kept if it passes. Flows pinned by minimums that leave
//! no strictly feasible point are exempt from stationarity ([`Solution::pinned`]).
//!
//! At the barrier optimum the stationarity conditions hold exactly with the barrier's
//! multipliers as link prices, so the KKT residual is the gap. Multipath flows and min/max
//! rates are handled exactly. Dense linear algebra (O(n^3) per Newton step, about a hundred
//! steps) limits it to about a thousand subflows (17 s). Two sparse solves were tried and
//! dropped. A Woodbury solve through the block structure (each flow's block plus a dense
//! system on the links): at large `t` the blocks are nearly rank one beside link terms of
//! order `1/g^2`, and its directions failed a backward-error check (1e-8 per row) on ~60% of
//! steps of random instances, so with a dense fallback it gained little (995 subflows: 11.7 s
//! against 17 s; 286: 0.32 s against 0.23 s). A sparse Cholesky on the subflows (minimum
//! degree order) fills in almost completely when flows share links at random (286
//! subflows: 1.3 s).

use crate::lp::{Cmp, Lp, Outcome};
use crate::problem::Problem;

/// How a reference solve ended (bad input is caught earlier, by [`Problem`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Converged: relative duality gap and KKT residual below tolerance.
    Solved,
    /// Minimum rates exceed some cut ([`Problem`] rejects such problems first, so this is
    /// only seen for problems within its 1e-12 tolerance that rounding tips over).
    Infeasible,
    /// The iteration cap was reached.
    MaxIterations,
    /// A Newton system was not positive definite or a value was not finite.
    NumericalError,
    /// The barrier method finished, but its answer fails the KKT check
    /// ([`crate::kkt::residuals`] above [`crate::kkt::TOLERANCE`]; see
    /// [`Solution::residuals`] for which condition). Seen when the flows' marginal
    /// utilities differ by more than f64's range allows the barrier to resolve (e.g. alpha =
    /// 100 with unequal shares).
    Inaccurate,
}

/// A reference solution.
#[derive(Clone, Debug)]
pub struct Solution {
    /// How the solve ended.
    pub status: Status,
    /// Flow rates, b/s.
    pub flow_rate_bps: Vec<f64>,
    /// Subflow rates, b/s.
    pub sub_rate_bps: Vec<f64>,
    /// Link prices (barrier multipliers), in the problem's scaled units.
    pub prices: Vec<f64>,
    /// `sum_s U_s(x_s)` with rates in b/s.
    pub objective: f64,
    /// Relative duality gap at exit (the KKT residual).
    pub kkt_residual: f64,
    /// Newton steps taken.
    pub newton_steps: u32,
    /// KKT residuals of the answer with its prices ([`crate::kkt`]); `Solved` only when all
    /// are within [`crate::kkt::TOLERANCE`].
    pub residuals: crate::kkt::Residuals,
    /// Per flow: pinned by minimum rates that leave no strictly feasible point (the presolve
    /// or facial reduction fixed its rate or a path of it). Slater's condition fails for such
    /// a flow, its KKT multipliers need not exist (a log flow forced to 0 has `U' = inf`), and
    /// the check exempts it from stationarity (feasibility is still checked).
    pub pinned: Vec<bool>,
}

/// Relative duality gap at which the solve stops. (If a slack underflows first, the solve
/// stops at the previous centre and still reports `Solved` when its gap is below 1e-7.)
const GAP: f64 = 1e-12;
const MAX_NEWTON: u32 = 2000;

struct Constraint {
    coef: Vec<(usize, f64)>,
    constant: f64,
}

impl Constraint {
    fn eval(&self, v: &[f64]) -> f64 {
        self.constant + self.coef.iter().map(|&(i, a)| a * v[i]).sum::<f64>()
    }
}

/// Solves `problem` to optimality (see the module docs), then verifies the answer: a barrier
/// solve that ends normally is `Solved` only if its rates and prices pass the KKT check
/// ([`crate::kkt::residuals`] within [`crate::kkt::TOLERANCE`]), and `Inaccurate` otherwise.
pub fn solve(problem: &mut Problem) -> Solution {
    let mut sol = solve_unverified(problem);
    if sol.status == Status::Solved {
        let unit = problem.rate_unit();
        let y: Vec<f64> = sol.sub_rate_bps.iter().map(|v| v / unit).collect();
        let tol = crate::kkt::TOLERANCE;
        sol.residuals = crate::kkt::residuals_except(problem, &y, &sol.prices, tol, &sol.pinned);
        if !sol.residuals.within(crate::kkt::TOLERANCE) {
            // Crossover: the barrier keeps every flow strictly inside its bounds, by a margin
            // that is large for a flow whose marginal utility is tiny beside the others'
            // (alpha = 2 in b/s beside log flows: 1e-5 below its maximum). Flows that close to
            // a bound are moved onto it where the links allow; the answer is kept only if it
            // then passes the same check.
            let mut snapped = y.clone();
            snap_to_bounds(problem, &mut snapped);
            let r = crate::kkt::residuals_except(problem, &snapped, &sol.prices, tol, &sol.pinned);
            if r.within(crate::kkt::TOLERANCE) {
                let mut x = vec![0.0; problem.flows()];
                for (s, &v) in snapped.iter().enumerate() {
                    x[problem.subflow_owner(s)] += v;
                }
                sol.sub_rate_bps = snapped.iter().map(|v| v * unit).collect();
                sol.flow_rate_bps = x.iter().map(|v| v * unit).collect();
                sol.objective = problem.objective(&sol.flow_rate_bps);
                sol.residuals = r;
            } else {
                sol.status = Status::Inaccurate;
            }
        }
    }
    sol
}

/// Relative distance to a rate bound within which [`snap_to_bounds`] moves a flow onto it.
const SNAP: f64 = 1e-4;

/// Moves every flow within [`SNAP`] (relative) of its minimum or user maximum onto it,
/// scaling its subflows in proportion, where every link on its paths has room (subflow rates
/// `y` in rate units).
fn snap_to_bounds(problem: &Problem, y: &mut [f64]) {
    let cap = problem.capacity_scaled();
    let unit = problem.rate_unit();
    let mut load = problem.link_load_bps(y); // rate units in, rate units out
    for f in 0..problem.flows() {
        let x: f64 = problem.subflows(f).map(|s| y[s]).sum();
        if x <= 0.0 {
            continue;
        }
        let (theta, big) = (problem.min_scaled()[f], problem.max_bps()[f] / unit);
        let target = if theta > 0.0 && x > theta && x <= theta * (1.0 + SNAP) {
            theta
        } else if big.is_finite() && x < big && x >= big * (1.0 - SNAP) {
            big
        } else {
            continue;
        };
        let factor = target / x;
        let fits = problem.subflows(f).all(|s| {
            let extra = y[s] * (factor - 1.0);
            problem
                .paths()
                .row(s)
                .iter()
                .all(|&l| load[l as usize] + extra <= cap[l as usize])
        });
        if !fits {
            continue;
        }
        for s in problem.subflows(f) {
            let extra = y[s] * (factor - 1.0);
            for &l in problem.paths().row(s) {
                load[l as usize] += extra;
            }
            y[s] *= factor;
        }
    }
}

fn solve_unverified(problem: &mut Problem) -> Solution {
    problem.prepare();
    let n = problem.subflow_count();
    let nf = problem.flows();
    let cap = problem.capacity_scaled().to_vec();
    if n == 0 {
        // No flows: the empty allocation is optimal, every link price is 0, objective 0.
        return Solution {
            status: Status::Solved,
            flow_rate_bps: Vec::new(),
            sub_rate_bps: Vec::new(),
            prices: vec![0.0; problem.links()],
            objective: 0.0,
            kkt_residual: 0.0,
            newton_steps: 0,
            residuals: Default::default(),
            pinned: Vec::new(),
        };
    }
    let lo = problem.min_scaled().to_vec();
    let mut hi = problem.max_scaled().to_vec();
    let Some(pins) = presolve(problem, &lo) else {
        return failed(problem, Status::Infeasible, 0);
    };
    let mut frozen: Vec<bool> = pins.fixed.iter().map(Option::is_some).collect();
    let mut flow_frozen: Vec<bool> = (0..nf)
        .map(|f| problem.subflows(f).all(|s| frozen[s]))
        .collect();
    // Constraints (frozen subflows enter as constants; dropped links have none).
    let mut cons: Vec<Constraint> = Vec::new();
    // The flow each constraint belongs to (None: a link), to find flows pinned by the face.
    let mut cons_flow: Vec<Option<usize>> = Vec::new();
    for k in (0..n).filter(|&k| !frozen[k]) {
        cons_flow.push(Some(problem.subflow_owner(k)));
        cons.push(Constraint {
            coef: vec![(k, 1.0)],
            constant: 0.0,
        });
    }
    let link_first = cons.len();
    let mut link_of: Vec<usize> = Vec::new();
    for l in 0..problem.links() {
        let row = problem.by_link().row(l);
        let free: Vec<(usize, f64)> = row
            .iter()
            .map(|&s| s as usize)
            .filter(|&s| !frozen[s])
            .map(|s| (s, -1.0))
            .collect();
        if !pins.dropped[l] && !free.is_empty() {
            let fixed_load: f64 = row.iter().filter_map(|&s| pins.fixed[s as usize]).sum();
            cons_flow.push(None);
            cons.push(Constraint {
                coef: free,
                constant: cap[l] - fixed_load,
            });
            link_of.push(l);
        }
    }
    // Flows with a maximum below their line rate (a constraint of their own).
    let mut has_max = vec![false; nf];
    for f in 0..nf {
        if flow_frozen[f] {
            continue;
        }
        let subs: Vec<(usize, f64)> = problem
            .subflows(f)
            .filter(|&s| !frozen[s])
            .map(|s| (s, 1.0))
            .collect();
        let line: f64 = problem
            .subflows(f)
            .map(|s| {
                problem
                    .paths()
                    .row(s)
                    .iter()
                    .map(|&l| cap[l as usize])
                    .fold(f64::INFINITY, f64::min)
            })
            .sum();
        if hi[f] - lo[f] < 1e-9 * hi[f].max(1e-12) {
            hi[f] = lo[f] + 1e-9 * lo[f].max(1e-12); // theta = Theta: keep a sliver of interior
        }
        if lo[f] > 0.0 {
            cons_flow.push(Some(f));
            cons.push(Constraint {
                coef: subs.clone(),
                constant: -lo[f],
            });
        }
        if hi[f] < line * (1.0 - 1e-12) {
            has_max[f] = true;
            cons_flow.push(Some(f));
            cons.push(Constraint {
                coef: subs.iter().map(|&(s, _)| (s, -1.0)).collect(),
                constant: hi[f],
            });
        }
    }
    let utils = problem.scaled_utilities().to_vec();
    let owner: Vec<usize> = (0..n).map(|s| problem.subflow_owner(s)).collect();
    let flow_total = |y: &[f64]| {
        let mut x = vec![0.0; nf];
        for (s, &v) in y.iter().enumerate() {
            x[owner[s]] += v;
        }
        x
    };

    // Start: each subflow takes half its fair share of its tightest link; then pull flows
    // under their maxima.
    let mut y = vec![0.0; n];
    for (s, ys) in y.iter_mut().enumerate() {
        if let Some(v) = pins.fixed[s] {
            *ys = v;
            continue;
        }
        *ys = problem
            .paths()
            .row(s)
            .iter()
            .map(|&l| cap[l as usize] / (2.0 * problem.by_link().row(l as usize).len() as f64))
            .fold(f64::INFINITY, f64::min);
    }
    let x0 = flow_total(&y);
    for s in 0..n {
        let f = owner[s];
        if !frozen[s] && x0[f] > 0.5 * (hi[f] + lo[f]) && hi[f].is_finite() {
            y[s] *= 0.5 * (hi[f] + lo[f]) / x0[f];
        }
    }
    let mut steps = 0u32;
    if cons.is_empty() {
        // Every subflow is pinned: the allocation is the only feasible one.
        let pinned = vec![true; nf];
        return finish(
            problem,
            &pins,
            y,
            vec![0.0; problem.links()],
            0.0,
            steps,
            pinned,
        );
    }
    let worst = cons
        .iter()
        .map(|c| c.eval(&y))
        .fold(f64::INFINITY, f64::min);
    // The face the barrier works on: all of the space, or (when the minimums leave no strictly
    // feasible point) the face found by `facial_reduction`.
    let mut face: Option<Face> = None;
    if worst <= 0.0 {
        match facial_reduction(&cons, &frozen, &y) {
            Reduction::Infeasible => return failed(problem, Status::Infeasible, steps),
            Reduction::Face(f) => {
                y.clone_from(&f.start);
                // Subflows the face forces to 0 are constants from here on, and a flow with
                // all its subflows at 0 drops out of the objective (for `log` its utility is
                // -inf at every feasible point).
                for (s, fz) in frozen.iter_mut().enumerate() {
                    *fz |= f.zero[s];
                }
                for (fl, ff) in flow_frozen.iter_mut().enumerate() {
                    *ff = problem.subflows(fl).all(|s| frozen[s]);
                }
                face = Some(f);
            }
            Reduction::Strict => match phase_one(&cons, &frozen, &mut y, &mut steps) {
                Ok(true) => {}
                Ok(false) => return failed(problem, Status::Infeasible, steps),
                Err(status) => return failed(problem, status, steps),
            },
        }
    }
    // Constraints and variables of the barrier problem: the subflow rates, or the face's
    // coordinates `v` (`y = start + basis v`) with the face's equalities dropped.
    let (cons_v, frozen_v, mut v) = match &face {
        None => (Vec::new(), frozen.clone(), y.clone()),
        Some(f) => {
            let r = f.basis.len();
            let cons_v: Vec<Constraint> = cons
                .iter()
                .zip(&f.equality)
                .filter(|(_, &e)| !e)
                .map(|(c, _)| Constraint {
                    coef: (0..r)
                        .map(|k| (k, c.coef.iter().map(|&(i, a)| a * f.basis[k][i]).sum()))
                        .filter(|&(_, a): &(usize, f64)| a != 0.0)
                        .collect(),
                    constant: c.eval(&f.start),
                })
                .collect();
            (cons_v, vec![false; r], vec![0.0; r])
        }
    };
    let cons_active: &[Constraint] = if face.is_some() { &cons_v } else { &cons };
    let to_y = |v: &[f64]| -> Vec<f64> {
        match &face {
            None => v.to_vec(),
            Some(f) => {
                let mut y = f.start.clone();
                for (k, col) in f.basis.iter().enumerate() {
                    if v[k] != 0.0 {
                        for (yi, c) in y.iter_mut().zip(col) {
                            *yi += v[k] * c;
                        }
                    }
                }
                y
            }
        }
    };

    // Phase II.
    let m = cons_active.len() as f64;
    // The gap is measured against the smallest flow's utility scale |U'(x) x| (so that flows
    // with tiny marginal utilities are solved accurately too), but not below 1e-6 of the total
    // (beyond that the Newton systems lose precision).
    let scale = |x: &[f64]| -> f64 {
        let terms = x
            .iter()
            .enumerate()
            .filter(|&(f, _)| !flow_frozen[f])
            .map(|(f, &v)| (utils[f].marginal(v) * v).abs());
        let total: f64 = terms.clone().sum();
        let least = terms.fold(f64::INFINITY, f64::min);
        least.max(1e-6 * total).max(1e-300)
    };
    let mut t = m / scale(&flow_total(&y));
    let mut status = Status::MaxIterations;
    loop {
        // The objective over the subflow rates `y`: fills `grad` (per subflow) and returns the
        // value and each flow's curvature `t U''(x_f)`.
        let in_y = |y: &[f64], grad: &mut [f64]| -> (f64, Vec<f64>) {
            let x = flow_total(y);
            let mut value = 0.0;
            for f in (0..nf).filter(|&f| !flow_frozen[f]) {
                value += t * utils[f].value(x[f]);
            }
            for s in 0..n {
                grad[s] = if frozen[s] {
                    0.0
                } else {
                    t * utils[owner[s]].marginal(x[owner[s]])
                };
            }
            let curv = (0..nf)
                .map(|f| {
                    if flow_frozen[f] {
                        0.0
                    } else {
                        t * utils[f].curvature(x[f])
                    }
                })
                .collect();
            (value, curv)
        };
        let objective = |v: &[f64], grad: &mut [f64], hess: &mut [f64]| -> f64 {
            let Some(fc) = &face else {
                let (value, curv) = in_y(v, grad);
                if hess.is_empty() {
                    return value;
                }
                // Hessian of sum_f U_f(x_f): U''(x_f) on each flow's (free) subflow block.
                for f in (0..nf).filter(|&f| !flow_frozen[f]) {
                    let c = curv[f];
                    let subs = problem.subflows(f).filter(|&s| !frozen[s]);
                    for a in subs.clone() {
                        for b in subs.clone() {
                            hess[a * n + b] += c;
                        }
                    }
                }
                return value;
            };
            // On the face: pull the gradient and the flows' rank-one Hessian blocks back
            // through `y = start + basis v`.
            let r = fc.basis.len();
            let mut gy = vec![0.0; n];
            let (value, curv) = in_y(&to_y(v), &mut gy);
            for (k, col) in fc.basis.iter().enumerate() {
                grad[k] = col.iter().zip(&gy).map(|(a, b)| a * b).sum();
            }
            if hess.is_empty() {
                return value;
            }
            for f in (0..nf).filter(|&f| !flow_frozen[f]) {
                let ones: Vec<f64> = (0..r)
                    .map(|k| problem.subflows(f).map(|s| fc.basis[k][s]).sum())
                    .collect();
                for a in 0..r {
                    for b in 0..r {
                        hess[a * r + b] += curv[f] * ones[a] * ones[b];
                    }
                }
            }
            value
        };
        let before = v.clone();
        match newton(cons_active, &frozen_v, &mut v, &objective, &mut steps) {
            Ok(()) => {}
            Err(Status::NumericalError)
                if m / t * 10.0 / scale(&flow_total(&to_y(&before))) < 1e-7 =>
            {
                // A slack fell below f64 resolution: the previous centre is accurate enough.
                v = before;
                status = Status::Solved;
                t /= 10.0;
                break;
            }
            Err(s) => {
                status = s;
                break;
            }
        }
        let gap = m / t / scale(&flow_total(&to_y(&v)));
        if gap < GAP {
            status = Status::Solved;
            break;
        }
        if steps >= MAX_NEWTON {
            break;
        }
        t *= 10.0;
    }
    let y = to_y(&v);
    let x = flow_total(&y);
    let kkt = m / t / scale(&x);
    let mut prices = vec![0.0; problem.links()];
    for (i, &l) in link_of.iter().enumerate() {
        let on_face = face.as_ref().is_some_and(|f| f.equality[link_first + i]);
        if !on_face {
            // (A link the face keeps full has no barrier term; `refine_prices` prices it.)
            prices[l] = 1.0 / (t * cons[link_first + i].eval(&y));
        }
    }
    let bounds = Bounds {
        lo: &lo,
        hi: &hi,
        has_max: &has_max,
    };
    refine_prices(problem, &y, &x, &bounds, &utils, &mut prices);
    // Flows pinned where no strictly feasible point exists (by the presolve or on the face):
    // Slater's condition fails there and KKT multipliers need not exist, so the check
    // exempts them from stationarity.
    let mut pinned: Vec<bool> = (0..nf)
        .map(|f| problem.subflows(f).any(|s| frozen[s]))
        .collect();
    if let Some(fc) = &face {
        for (j, &eq) in fc.equality.iter().enumerate() {
            if let (true, Some(f)) = (eq, cons_flow[j]) {
                pinned[f] = true;
            }
        }
    }
    let mut sol = finish(problem, &pins, y, prices, kkt, steps, pinned);
    if sol.status == Status::Solved {
        sol.status = status;
    }
    sol
}

/// The face of the feasible set the barrier method works on when no point satisfies every
/// constraint strictly: the constraints that hold with equality at every feasible point
/// (minimums that fill a cut of links only jointly, a multipath flow's minimum filling a link,
/// subflows forced to 0), a point in the face's relative interior, and a basis of the
/// directions that keep those equalities.
struct Face {
    /// Per constraint: it is an equality on the whole feasible set.
    equality: Vec<bool>,
    /// A point (subflow rates) where every other constraint is strictly positive.
    start: Vec<f64>,
    /// Directions (each a vector over the subflows) spanning the face; frozen subflows and
    /// subflows forced to 0 are 0 in every one.
    basis: Vec<Vec<f64>>,
    /// Per subflow: forced to 0 on the face.
    zero: Vec<bool>,
}

/// What [`facial_reduction`] found.
enum Reduction {
    /// Some point satisfies every constraint with a slack above 1e-9 (rate units): the
    /// barrier method works on the whole space (started by [`phase_one`]).
    Strict,
    /// The constraints hold (within 1e-9) only on this face.
    Face(Face),
    /// No point satisfies the constraints.
    Infeasible,
}

/// Facial reduction by linear programming: maximize `tau` subject to `g_j(y) >= tau` for the
/// constraints not yet known to be equalities and `g_j(y) >= 0` for those that are (`y >= 0`,
/// frozen subflows at their values). If `tau > 0` its solution is strictly feasible on the
/// face. Otherwise (`tau = 0`) the dual certifies equalities: with duals `u >= 0`, `sum_j u_j
/// g_j(y)` is at most 0 at every feasible `y`, so each `g_j` with `u_j > 0` is 0 there, and so is
/// each variable with a positive reduced cost. Those are added and the program solved again.
/// (A slack that cannot exceed 1e-9 counts as zero: minimums within 1e-12 of a cut's capacity,
/// which the problem check accepts, then make an exact face rather than a sliver of interior
/// the barrier cannot resolve.) `pinned` holds the frozen subflows' values.
fn facial_reduction(cons: &[Constraint], frozen: &[bool], pinned: &[f64]) -> Reduction {
    let n = frozen.len();
    let free: Vec<usize> = (0..n).filter(|&i| !frozen[i]).collect();
    let mut col = vec![usize::MAX; n];
    for (c, &i) in free.iter().enumerate() {
        col[i] = c;
    }
    let tau = free.len();
    let mut equality = vec![false; cons.len()];
    let mut zero = vec![false; n];
    let start = loop {
        let mut lp = Lp {
            vars: free.len() + 1,
            objective: vec![(tau, 1.0)],
            rows: Vec::new(),
        };
        for (j, c) in cons.iter().enumerate() {
            let mut coef: Vec<(usize, f64)> = c
                .coef
                .iter()
                .filter(|&&(i, _)| col[i] != usize::MAX)
                .map(|&(i, a)| (col[i], a))
                .collect();
            if !equality[j] {
                coef.push((tau, -1.0));
            }
            lp.rows.push((coef, Cmp::Ge, -c.constant));
        }
        lp.rows.push((vec![(tau, 1.0)], Cmp::Le, 1.0));
        let opt = match lp.solve() {
            Outcome::Optimal(o) => o,
            _ => return Reduction::Infeasible,
        };
        let mut y = pinned.to_vec();
        for (c, &i) in free.iter().enumerate() {
            y[i] = opt.x[c];
        }
        if opt.value > 1e-9 {
            if !equality.iter().any(|&e| e) && !zero.iter().any(|&z| z) {
                return Reduction::Strict;
            }
            break y;
        }
        let top = opt.duals.iter().map(|d| d.abs()).fold(0.0, f64::max);
        let mut found = false;
        for j in 0..cons.len() {
            if !equality[j] && opt.duals[j].abs() > 1e-9 * top {
                equality[j] = true;
                found = true;
            }
        }
        for (c, &i) in free.iter().enumerate() {
            if opt.reduced[c] > 1e-9 * top.max(1.0) && !zero[i] {
                zero[i] = true;
                found = true;
            }
        }
        // A subflow forced to 0 makes its positivity constraint an equality.
        for (j, c) in cons.iter().enumerate() {
            if c.coef.len() == 1 && c.constant == 0.0 && zero[c.coef[0].0] && !equality[j] {
                equality[j] = true;
                found = true;
            }
        }
        if !found {
            return Reduction::Infeasible; // no certificate (rounding): give up as before
        }
    };
    // Subflows whose positivity is an equality are 0 on the face.
    for (j, c) in cons.iter().enumerate() {
        if equality[j] && c.coef.len() == 1 && c.constant == 0.0 {
            zero[c.coef[0].0] = true;
        }
    }
    let mut start = start;
    let vars: Vec<usize> = free.iter().copied().filter(|&i| !zero[i]).collect();
    for i in 0..n {
        if zero[i] {
            start[i] = 0.0;
        }
    }
    // The other equalities, restricted to the remaining variables, in reduced row echelon
    // form (partial pivoting); the null space basis has one vector per non-pivot column.
    let nv = vars.len();
    let mut rows: Vec<Vec<f64>> = cons
        .iter()
        .zip(&equality)
        .filter(|(c, &e)| e && !(c.coef.len() == 1 && c.constant == 0.0))
        .map(|(c, _)| {
            let mut r = vec![0.0; nv];
            for &(i, a) in &c.coef {
                if let Some(k) = vars.iter().position(|&v| v == i) {
                    r[k] += a;
                }
            }
            r
        })
        .collect();
    let mut pivots: Vec<usize> = Vec::new();
    let mut row = 0;
    for c in 0..nv {
        if row == rows.len() {
            break;
        }
        let (best, size) = (row..rows.len())
            .map(|r| (r, rows[r][c].abs()))
            .fold((row, 0.0), |a, b| if b.1 > a.1 { b } else { a });
        if size <= 1e-12 {
            continue;
        }
        rows.swap(row, best);
        let p = rows[row][c];
        rows[row].iter_mut().for_each(|a| *a /= p);
        for r in 0..rows.len() {
            if r != row && rows[r][c] != 0.0 {
                let f = rows[r][c];
                for k in 0..nv {
                    rows[r][k] -= f * rows[row][k];
                }
            }
        }
        pivots.push(c);
        row += 1;
    }
    let mut basis = Vec::new();
    for c in (0..nv).filter(|c| !pivots.contains(c)) {
        let mut dir = vec![0.0; n];
        dir[vars[c]] = 1.0;
        for (r, &pc) in pivots.iter().enumerate() {
            dir[vars[pc]] = -rows[r][c];
        }
        basis.push(dir);
    }
    Reduction::Face(Face {
        equality,
        start,
        basis,
        zero,
    })
}

/// Subflows whose rate is forced by minimum rates that exactly fill links, found before the
/// barrier method (which needs a strictly feasible point and so cannot handle them).
struct Pins {
    /// Per subflow: its forced rate (rate units), or `None` when it is a variable.
    fixed: Vec<Option<f64>>,
    /// Per link: its constraint is implied by the pinned rates (they fill it).
    dropped: Vec<bool>,
}

/// Finds links whose minimum rates fill them: a link `l` whose remaining capacity (capacity
/// less the rates already pinned on it) is at most the sum of `theta_f` over the flows all of
/// whose remaining paths cross `l` (within 1e-12 of its capacity). Every feasible point then
/// has those flows at exactly `theta_f` and every other subflow on `l` at 0, so they are
/// pinned and `l`'s constraint dropped; repeated until no link is filled. `None` when pinning
/// proves the minimums infeasible. (A multipath flow pinned at `theta > 0` with several paths
/// left keeps its paths free: its split is not determined by `l`, so `l` is left to the
/// barrier method, which then reports `Infeasible`.)
fn presolve(problem: &Problem, lo: &[f64]) -> Option<Pins> {
    let n = problem.subflow_count();
    let cap = problem.capacity_scaled();
    let mut pins = Pins {
        fixed: vec![None; n],
        dropped: vec![false; problem.links()],
    };
    let mut rem = cap.to_vec();
    let mut changed = true;
    while changed {
        changed = false;
        for l in 0..problem.links() {
            if pins.dropped[l] {
                continue;
            }
            let free: Vec<usize> = problem
                .by_link()
                .row(l)
                .iter()
                .map(|&s| s as usize)
                .filter(|&s| pins.fixed[s].is_none())
                .collect();
            if free.is_empty() {
                continue;
            }
            // Flows all of whose free subflows cross l.
            let mut must: Vec<usize> = free.iter().map(|&s| problem.subflow_owner(s)).collect();
            must.sort_unstable();
            must.dedup();
            must.retain(|&f| {
                problem
                    .subflows(f)
                    .filter(|&s| pins.fixed[s].is_none())
                    .all(|s| free.contains(&s))
            });
            let need: f64 = must.iter().map(|&f| lo[f]).sum();
            let tol = 1e-12 * cap[l];
            if need > rem[l] + tol {
                return None;
            }
            if need < rem[l] - tol {
                continue;
            }
            let split_pin = must.iter().any(|&f| {
                lo[f] > 0.0
                    && problem
                        .subflows(f)
                        .filter(|&s| pins.fixed[s].is_none())
                        .count()
                        > 1
            });
            if split_pin {
                continue;
            }
            for &s in &free {
                let f = problem.subflow_owner(s);
                let v = if must.contains(&f) { lo[f] } else { 0.0 };
                pins.fixed[s] = Some(v);
                for &m in problem.paths().row(s) {
                    rem[m as usize] -= v;
                }
            }
            pins.dropped[l] = true;
            changed = true;
        }
    }
    Some(pins)
}

/// Converts a solution in rate units to b/s, and prices the links dropped by [`presolve`]:
/// the least price that makes every subflow on them satisfy `sum_{l in L(k)} p_l >= U'(x)`
/// (a pinned flow's `theta` multiplier takes up any excess), 0 if none needs one.
fn finish(
    problem: &Problem,
    pins: &Pins,
    y: Vec<f64>,
    mut prices: Vec<f64>,
    kkt: f64,
    steps: u32,
    pinned: Vec<bool>,
) -> Solution {
    let unit = problem.rate_unit();
    let mut x = vec![0.0; problem.flows()];
    for (s, &v) in y.iter().enumerate() {
        x[problem.subflow_owner(s)] += v;
    }
    for l in (0..problem.links()).filter(|&l| pins.dropped[l]) {
        let mut p: f64 = 0.0;
        for &s in problem.by_link().row(l) {
            let f = problem.subflow_owner(s as usize);
            let others: f64 = problem
                .paths()
                .row(s as usize)
                .iter()
                .filter(|&&m| m as usize != l)
                .map(|&m| prices[m as usize])
                .sum();
            let want = problem.scaled_utilities()[f].marginal(x[f]) - others;
            if want.is_finite() {
                p = p.max(want);
            }
        }
        prices[l] = p;
    }
    let flow_rate_bps: Vec<f64> = x.iter().map(|v| v * unit).collect();
    let sub_rate_bps: Vec<f64> = y.iter().map(|v| v * unit).collect();
    let status = if flow_rate_bps.iter().any(|v| !v.is_finite()) {
        Status::NumericalError
    } else {
        Status::Solved
    };
    Solution {
        status,
        objective: problem.objective(&flow_rate_bps),
        flow_rate_bps,
        sub_rate_bps,
        prices,
        kkt_residual: kkt,
        newton_steps: steps,
        residuals: Default::default(),
        pinned,
    }
}

/// Per-flow rate bounds in rate units, and whether the maximum is a constraint of its own.
struct Bounds<'a> {
    lo: &'a [f64],
    hi: &'a [f64],
    has_max: &'a [bool],
}

/// Sharpens the barrier's price estimates `1 / (t g_l)`, which lose digits when a binding
/// link's slack `g_l` nears f64 resolution: on the binding links (relative slack below 1e-7)
/// solve the stationarity conditions `sum_{l in L(k)} p_l = U'(x_s)` of the subflows that sit
/// at no bound, in the least-squares sense with a tiny ridge toward the barrier estimates
/// (which also fixes prices the equations leave free), then clamp at 0.
fn refine_prices(
    problem: &Problem,
    y: &[f64],
    x: &[f64],
    bounds: &Bounds<'_>,
    utils: &[crate::utility::Scaled],
    prices: &mut [f64],
) {
    let (lo, hi, has_max) = (bounds.lo, bounds.hi, bounds.has_max);
    let cap = problem.capacity_scaled();
    let mut load = vec![0.0; problem.links()];
    for (k, &v) in y.iter().enumerate() {
        for &l in problem.paths().row(k) {
            load[l as usize] += v;
        }
    }
    let tight: Vec<usize> = (0..problem.links())
        .filter(|&l| !problem.by_link().row(l).is_empty() && cap[l] - load[l] <= 1e-7 * cap[l])
        .collect();
    if tight.is_empty() {
        for p in prices.iter_mut() {
            *p = 0.0; // no binding link: every price is zero at the optimum
        }
        return;
    }
    let mut col = vec![usize::MAX; problem.links()];
    for (i, &l) in tight.iter().enumerate() {
        col[l] = i;
    }
    let n = tight.len();
    let mut ata = vec![0.0; n * n];
    let mut rhs = vec![0.0; n];
    for (k, &yk) in y.iter().enumerate() {
        let f = problem.subflow_owner(k);
        // Bounds with multipliers of their own: theta, a user Theta, an unused path. (The
        // line-rate cap is implied by the links and has none.)
        let at_bound = x[f] <= lo[f] * (1.0 + 1e-7) && lo[f] > 0.0
            || has_max[f] && x[f] >= hi[f] * (1.0 - 1e-7)
            || yk <= 1e-9 * x[f];
        if at_bound {
            continue;
        }
        let u = utils[f].marginal(x[f]);
        if !(u.is_finite() && u > 0.0) {
            continue;
        }
        // Each equation divided by its U' (relative residuals, as the KKT check measures
        // them): unweighted, the equations of flows with large marginals absorbed the
        // rounding of their rates into the prices of links that only flows with small
        // marginals price (a 1e-7 rate error became a 1e-3 stationarity error there).
        let weight = 1.0 / (u * u);
        let row: Vec<usize> = problem
            .paths()
            .row(k)
            .iter()
            .map(|&l| col[l as usize])
            .filter(|&c| c != usize::MAX)
            .collect();
        for &a in &row {
            rhs[a] += u * weight;
            for &b in &row {
                ata[a * n + b] += weight;
            }
        }
    }
    // A flow held at a bound has a multiplier of its own, so `U'` says nothing about its
    // path price, but every path it uses must still cost the same: rows
    // `q_s - q_first = 0` (relative to the barrier's estimate of its path price).
    for f in 0..problem.flows() {
        let bound = x[f] <= lo[f] * (1.0 + 1e-7) && lo[f] > 0.0
            || has_max[f] && x[f] >= hi[f] * (1.0 - 1e-7);
        if !bound {
            continue;
        }
        let used: Vec<usize> = problem
            .subflows(f)
            .filter(|&k| y[k] > 1e-9 * x[f])
            .collect();
        let Some((&first, rest)) = used.split_first() else {
            continue;
        };
        let row_of = |k: usize| -> Vec<f64> {
            let mut r = vec![0.0; n];
            for &l in problem.paths().row(k) {
                if col[l as usize] != usize::MAX {
                    r[col[l as usize]] += 1.0;
                }
            }
            r
        };
        let base = row_of(first);
        let q: f64 = problem
            .paths()
            .row(first)
            .iter()
            .map(|&l| prices[l as usize])
            .sum();
        if !(q.is_finite() && q > 0.0) {
            continue;
        }
        let weight = 1.0 / (q * q);
        for &k in rest {
            let mut r = row_of(k);
            r.iter_mut().zip(&base).for_each(|(a, b)| *a -= b);
            for a in 0..n {
                if r[a] != 0.0 {
                    for b in 0..n {
                        ata[a * n + b] += weight * r[a] * r[b];
                    }
                }
            }
        }
    }
    // Ridge: 1e-10 of each column's weight (of the largest where a column has none) pulls
    // each price toward its barrier estimate.
    let top = (0..n).map(|i| ata[i * n + i]).fold(0.0, f64::max);
    for (i, &l) in tight.iter().enumerate() {
        let d = ata[i * n + i];
        let ridge = 1e-10 * if d > 0.0 { d } else { top.max(1e-300) };
        ata[i * n + i] += ridge;
        rhs[i] += ridge * prices[l];
    }
    if !cholesky(&mut ata, n) {
        return;
    }
    let p = cholesky_solve(&ata, n, &rhs);
    if p.iter().any(|v| !v.is_finite()) {
        return;
    }
    for l in 0..problem.links() {
        prices[l] = if col[l] == usize::MAX {
            0.0
        } else {
            p[col[l]].max(0.0)
        };
    }
}

fn failed(problem: &Problem, status: Status, steps: u32) -> Solution {
    Solution {
        status,
        flow_rate_bps: vec![f64::NAN; problem.flows()],
        sub_rate_bps: vec![f64::NAN; problem.subflow_count()],
        prices: vec![f64::NAN; problem.links()],
        objective: f64::NAN,
        kkt_residual: f64::INFINITY,
        newton_steps: steps,
        residuals: crate::kkt::Residuals::failed(),
        pinned: vec![false; problem.flows()],
    }
}

/// Phase I: maximize `-s` subject to `g_j(y) + s > 0`; returns whether a point with every
/// `g_j > 0` was found (left in `y`).
fn phase_one(
    cons: &[Constraint],
    frozen: &[bool],
    y: &mut [f64],
    steps: &mut u32,
) -> Result<bool, Status> {
    let n = y.len();
    let mut frozen = frozen.to_vec();
    frozen.push(false); // s
    let worst = cons.iter().map(|c| c.eval(y)).fold(f64::INFINITY, f64::min);
    let mut v = y.to_vec();
    v.push(1.0 - worst + worst.abs()); // s
    let shifted: Vec<Constraint> = cons
        .iter()
        .map(|c| {
            let mut coef = c.coef.clone();
            coef.push((n, 1.0));
            Constraint {
                coef,
                constant: c.constant,
            }
        })
        .collect();
    let m = shifted.len() as f64;
    let mut t = 1.0;
    for _ in 0..40 {
        let objective = |w: &[f64], grad: &mut [f64], _hess: &mut [f64]| -> f64 {
            grad.iter_mut().for_each(|g| *g = 0.0);
            grad[n] = -t;
            -t * w[n]
        };
        let result = newton(&shifted, &frozen, &mut v, &objective, steps);
        if v[n] < 0.0 {
            y.copy_from_slice(&v[..n]);
            return Ok(true);
        }
        // The optimal s is at least s - m / t: positive means no strictly feasible point.
        if v[n] - m / t > 0.0 {
            return Ok(false);
        }
        result?;
        if m / t < 1e-12 {
            break;
        }
        t *= 10.0;
    }
    Ok(false)
}

/// An objective: fills the gradient, adds its Hessian (skipped when given an empty slice),
/// returns its value.
type Objective<'a> = dyn Fn(&[f64], &mut [f64], &mut [f64]) -> f64 + 'a;

/// Maximizes `f(v) + sum_j log g_j(v)` by damped Newton from a strictly feasible `v`.
/// `f` fills the gradient and adds its Hessian (row-major, pre-zeroed) and returns its value.
/// Variables marked `frozen` (in no constraint, zero gradient) keep their values.
fn newton(
    cons: &[Constraint],
    frozen: &[bool],
    v: &mut [f64],
    f: &Objective<'_>,
    steps: &mut u32,
) -> Result<(), Status> {
    let n = v.len();
    let mut grad = vec![0.0; n];
    let mut hess = vec![0.0; n * n];
    let mut previous_decrement = f64::INFINITY;
    let mut stalled = 0;
    for _ in 0..200 {
        *steps += 1;
        if *steps > MAX_NEWTON {
            return Err(Status::MaxIterations);
        }
        hess.iter_mut().for_each(|h| *h = 0.0);
        let current = {
            let fv = f(v, &mut grad, &mut hess);
            let mut b = 0.0;
            for c in cons {
                let g = c.eval(v);
                b += g.ln();
                for &(i, a) in &c.coef {
                    grad[i] += a / g;
                    for &(j, bj) in &c.coef {
                        hess[i * n + j] -= a * bj / (g * g);
                    }
                }
            }
            fv + b
        };
        if !current.is_finite() {
            return Err(Status::NumericalError);
        }
        for (i, _) in frozen.iter().enumerate().filter(|&(_, &z)| z) {
            grad[i] = 0.0;
            hess[i * n + i] = -1.0; // a unit row: the Newton step leaves v_i alone
        }
        // Solve (-H) d = grad. -H is positive definite in exact arithmetic; when rounding
        // makes it singular (multipath flows: U'' couples a flow's subflows with rank one and
        // the barrier terms of large subflows are tiny at large t), retry with a growing
        // diagonal shift (Levenberg), which only shortens the step.
        let largest = (0..n).map(|i| -hess[i * n + i]).fold(0.0, f64::max);
        let mut shift = 0.0;
        let mut a: Vec<f64> = Vec::new();
        let mut ok = false;
        for _ in 0..12 {
            a.clear();
            a.extend(hess.iter().map(|h| -h));
            for i in 0..n {
                a[i * n + i] += shift;
            }
            if cholesky(&mut a, n) {
                ok = true;
                break;
            }
            shift = if shift == 0.0 {
                1e-14 * largest
            } else {
                shift * 100.0
            };
        }
        if !ok {
            return Err(Status::NumericalError);
        }
        let d = cholesky_solve(&a, n, &grad);
        let decrement: f64 = d.iter().zip(&grad).map(|(x, g)| x * g).sum();
        if !decrement.is_finite() {
            return Err(Status::NumericalError);
        }
        // Stop at 1e-14, or once the decrement sits at its rounding floor: not halving for
        // two steps in a row while below 1e-3 of the number of constraints (there the
        // centring error adds at most 1e-3 of the duality gap m / t). Newton's decrement falls
        // quadratically near the centre, but at large t the gradient's rounding holds it at a
        // floor that grows like t^2 (1e-14 at t ~ 1e7, 1e-4 at 1e12 on a 286-subflow
        // instance), and the steps after that only jitter: they took the 200-step cap in
        // every centring from t ~ 1e8 on, 1200 of 1272 steps.
        let bound = 1e-3 * cons.len() as f64;
        if decrement / 2.0 < bound && decrement >= 0.5 * previous_decrement {
            stalled += 1;
        } else {
            stalled = 0;
        }
        let floor = stalled >= 2;
        if decrement / 2.0 < 1e-14 || floor {
            return Ok(());
        }
        previous_decrement = decrement;
        // Line search on the directional derivative only (utilities such as TCP Reno's lose
        // their value to cancellation at large rates, their derivatives do not): never more
        // than 99% of the way to the nearest constraint, and bisect for the point where the
        // derivative along `d` vanishes when the full step overshoots it.
        let mut top: f64 = 1.0;
        for c in cons {
            let g = c.eval(v);
            let dg: f64 = c.coef.iter().map(|&(i, a)| a * d[i]).sum();
            if dg < 0.0 {
                top = top.min(0.99 * g / -dg);
            }
        }
        let mut trial = v.to_vec();
        let slope_at = |s: f64, trial: &mut [f64], g: &mut [f64]| -> f64 {
            for i in 0..n {
                trial[i] = v[i] + s * d[i];
            }
            f(trial, g, &mut []);
            for c in cons {
                let gv = c.eval(trial);
                for &(i, a) in &c.coef {
                    g[i] += a / gv;
                }
            }
            g.iter().zip(&d).map(|(a, b)| a * b).sum()
        };
        let mut scratch = vec![0.0; n];
        let mut step = top;
        if slope_at(top, &mut trial, &mut scratch) < 0.0 {
            let (mut lo, mut hi) = (0.0, top);
            for _ in 0..40 {
                let mid = 0.5 * (lo + hi);
                if slope_at(mid, &mut trial, &mut scratch) >= 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            step = lo.max(1e-3 * top);
        }
        for i in 0..n {
            trial[i] = v[i] + step * d[i];
        }
        if trial == v {
            return Ok(()); // the step is below this precision
        }
        v.copy_from_slice(&trial);
    }
    Ok(())
}

/// In-place Cholesky `A = L L^T` (lower triangle kept); false if not positive definite.
fn cholesky(a: &mut [f64], n: usize) -> bool {
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        if d.is_nan() || d <= 0.0 {
            return false;
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
    }
    true
}

fn cholesky_solve(l: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    let mut z = b.to_vec();
    for i in 0..n {
        let mut s = z[i];
        for k in 0..i {
            s -= l[i * n + k] * z[k];
        }
        z[i] = s / l[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = z[i];
        for k in i + 1..n {
            s -= l[k * n + i] * z[k];
        }
        z[i] = s / l[i * n + i];
    }
    z
}
