//! Weighted max-min fair rates by water-filling ([`weighted_max_min`], on the shared kernel of
//! [`crate::waterfill`]; [`oracle_weighted_max_min`] is the slow direct version kept as its
//! test oracle).
//!
//! Every unfrozen flow `f` gets `w_f * level`; the level rises until a link fills (its flows
//! freeze at the current level) or a flow reaches its cap (it freezes alone). The result is the
//! unique weighted max-min fair allocation: no flow can grow without shrinking a flow whose
//! normalized rate `x_f / w_f` is no larger.
//!
//! [`bounded_weighted_max_min`] adds minimum rates (HOLNET's theta, eq. 11): each unfrozen
//! flow's rate is `clamp(w_f * level, theta_f, Theta_f)`, so a flow stays at its minimum until
//! the level reaches `theta_f / w_f`, and a link that fills freezes every unfrozen flow on it,
//! those still at their minimum included. The result is the lexicographic max-min point of the
//! bounded feasible set: every flow below its maximum has a full link on which its normalized
//! rate is the largest among the flows that are above their minimum (a flow held at its minimum
//! cannot give up rate, so it does not limit the others).

use crate::csr::Csr;
use crate::lp::{Cmp, Lp, Outcome};
use crate::waterfill::{Hop, WaterFill};

/// Relative tolerance for "this link is full at this level".
const TIE: f64 = 1e-12;

/// Weighted max-min fair rates, by the shared water-filling kernel
/// ([`crate::waterfill::WaterFill`]).
///
/// - `capacity[l]`: capacity of link `l` (b/s, >= 0).
/// - `routes.row(f)`: the links flow `f` crosses (a flow with no links is limited only by its
///   cap).
/// - `weight[f] > 0`.
/// - `cap[f]`: the flow's own maximum rate (`f64::INFINITY` for none).
///
/// A flow with no links and no cap gets `f64::INFINITY`.
pub fn weighted_max_min(capacity: &[f64], routes: &Csr, weight: &[f64], cap: &[f64]) -> Vec<f64> {
    let n = routes.rows();
    assert_eq!(weight.len(), n, "one weight per flow");
    assert_eq!(cap.len(), n, "one cap per flow");
    let (hops, start) = whole_hops(routes);
    let mut avail = capacity.to_vec();
    let mut rate = vec![0.0f64; n];
    WaterFill::new(capacity.len()).fill(
        &mut avail,
        n,
        |f| &hops[start[f]..start[f + 1]],
        |f| weight[f],
        |f| cap[f],
        &mut rate,
    );
    rate
}

/// Every flow's links as kernel hops carrying its whole rate, and where each flow's start.
fn whole_hops(routes: &Csr) -> (Vec<Hop>, Vec<usize>) {
    let n = routes.rows();
    let hops: Vec<Hop> = (0..n)
        .flat_map(|f| routes.row(f).iter().map(|&link| Hop { link, coef: 1.0 }))
        .collect();
    let mut start = Vec::with_capacity(n + 1);
    start.push(0usize);
    for f in 0..n {
        start.push(start[f] + routes.row(f).len());
    }
    (hops, start)
}

/// The test oracle for [`weighted_max_min`]: the direct water-filling, one level at a time
/// (every link and flow scanned per level, O(levels x (links + flows))), written for
/// clarity, not speed. Same arguments and result.
pub fn oracle_weighted_max_min(
    capacity: &[f64],
    routes: &Csr,
    weight: &[f64],
    cap: &[f64],
) -> Vec<f64> {
    let n = routes.rows();
    assert_eq!(weight.len(), n, "one weight per flow");
    assert_eq!(cap.len(), n, "one cap per flow");
    let by_link = routes.transpose(capacity.len());
    let mut rate = vec![0.0f64; n];
    let mut frozen = vec![false; n];
    let mut remaining: Vec<f64> = capacity.to_vec();
    // Sum of weights of unfrozen flows per link.
    let mut active_weight = vec![0.0f64; capacity.len()];
    // Unfrozen flows per link: a link whose flows are all frozen has weight exactly 0 (the
    // running sum of weights can keep a rounding residue, which once stalled the loop).
    let mut active_count = vec![0u32; capacity.len()];
    for (f, &w) in weight.iter().enumerate() {
        debug_assert!(w > 0.0, "weights must be positive");
        for &l in routes.row(f) {
            active_weight[l as usize] += w;
            active_count[l as usize] += 1;
        }
    }
    let mut unfrozen = n;
    while unfrozen > 0 {
        // The lowest level at which a link fills or a flow hits its cap.
        let mut level = f64::INFINITY;
        for l in 0..capacity.len() {
            if active_weight[l] > 0.0 {
                level = level.min(remaining[l].max(0.0) / active_weight[l]);
            }
        }
        for f in 0..n {
            if !frozen[f] {
                level = level.min(cap[f] / weight[f]);
            }
        }
        if level.is_infinite() {
            // Only unconstrained flows are left.
            for f in 0..n {
                if !frozen[f] {
                    rate[f] = f64::INFINITY;
                    frozen[f] = true;
                }
            }
            break;
        }
        let threshold = level * (1.0 + TIE) + f64::MIN_POSITIVE;
        let mut to_freeze = Vec::new();
        for l in 0..capacity.len() {
            if active_weight[l] > 0.0 && remaining[l].max(0.0) / active_weight[l] <= threshold {
                for &f in by_link.row(l) {
                    if !frozen[f as usize] {
                        to_freeze.push(f as usize);
                    }
                }
            }
        }
        for f in 0..n {
            if !frozen[f] && cap[f] / weight[f] <= threshold {
                to_freeze.push(f);
            }
        }
        let to_freeze_was_empty = to_freeze.iter().all(|&f| frozen[f]);
        for f in to_freeze {
            if frozen[f] {
                continue;
            }
            frozen[f] = true;
            unfrozen -= 1;
            rate[f] = (weight[f] * level).min(cap[f]);
            for &l in routes.row(f) {
                let l = l as usize;
                remaining[l] -= rate[f];
                active_count[l] -= 1;
                active_weight[l] = if active_count[l] == 0 {
                    0.0
                } else {
                    (active_weight[l] - weight[f]).max(0.0)
                };
            }
        }
        if to_freeze_was_empty {
            // Nothing froze at this level (only possible through rounding): freeze the flows
            // of the tightest link so the loop always makes progress.
            let tightest = (0..capacity.len())
                .filter(|&l| active_count[l] > 0)
                .min_by(|&a, &b| {
                    let ra = remaining[a].max(0.0) / active_weight[a];
                    let rb = remaining[b].max(0.0) / active_weight[b];
                    ra.total_cmp(&rb)
                });
            match tightest {
                Some(l) => {
                    for &f in by_link.row(l) {
                        let f = f as usize;
                        if !frozen[f] {
                            frozen[f] = true;
                            unfrozen -= 1;
                            rate[f] = (weight[f] * level).min(cap[f]);
                            for &m in routes.row(f) {
                                let m = m as usize;
                                remaining[m] -= rate[f];
                                active_count[m] -= 1;
                                active_weight[m] = if active_count[m] == 0 {
                                    0.0
                                } else {
                                    (active_weight[m] - weight[f]).max(0.0)
                                };
                            }
                        }
                    }
                }
                None => {
                    for f in 0..n {
                        if !frozen[f] {
                            frozen[f] = true;
                            unfrozen -= 1;
                            rate[f] = (weight[f] * level).min(cap[f]);
                        }
                    }
                }
            }
        }
    }
    rate
}

/// Unweighted max-min fair rates with no caps.
pub fn max_min(capacity: &[f64], routes: &Csr) -> Vec<f64> {
    let n = routes.rows();
    weighted_max_min(capacity, routes, &vec![1.0; n], &vec![f64::INFINITY; n])
}

/// Why [`bounded_weighted_max_min`] or [`multipath_max_min`] has no allocation (flows and
/// links by index).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MaxMinError {
    /// A flow's minimum is above its maximum, or is negative or not finite.
    #[error("flow #{flow}: bad bounds, minimum {min} and maximum {max}")]
    BadBounds {
        /// Flow index.
        flow: usize,
        /// theta.
        min: f64,
        /// Theta.
        max: f64,
    },
    /// No split of the flows over their paths meets every minimum ([`multipath_max_min`]).
    #[error("the minimum rates cannot all be met over the flows' paths")]
    NoFeasiblePoint,
    /// The minimum rates of the flows crossing a link exceed its capacity.
    #[error(
        "link #{link}: minimum rates of its flows sum to {required} but its capacity is {capacity}"
    )]
    InfeasibleMinimum {
        /// Link index.
        link: usize,
        /// Sum of the minimum rates of its flows.
        required: f64,
        /// Its capacity.
        capacity: f64,
    },
}

/// A flow for [`multipath_max_min`]: its paths (each a list of link indices), weight and
/// bounds on its total.
#[derive(Clone, Debug, PartialEq)]
pub struct MultipathFlow {
    /// Paths, each a list of link indices.
    pub paths: Vec<Vec<usize>>,
    /// Weight `w > 0`.
    pub weight: f64,
    /// Minimum total rate theta (>= 0).
    pub min: f64,
    /// Maximum total rate Theta (`f64::INFINITY` for none).
    pub max: f64,
}

/// Weighted max-min fair *flow totals* with minimum and maximum rates, for flows that may
/// split over several paths (HOLNET eq. 10-11): progressive filling by linear programs. The
/// level `t` rises with every unfrozen flow's total at least `max(w t, theta)` (any split
/// over its paths), as far as the links allow (one LP); then each unfrozen flow that cannot
/// exceed its share at that level (one LP per flow: maximize its total with the others held
/// at theirs) is frozen there, and a flow reaching `Theta` is frozen at it. The result is the
/// lexicographic max-min point of the feasible totals (normalized by `w`); with one path per
/// flow it equals [`bounded_weighted_max_min`], whose water-filling kernel it then runs (an
/// LP finds a split; with nothing to split the kernel is exact and fast). Returns subflow
/// rates (paths in order, flows in order): the split is a vertex of the path-split polytope
/// at the final totals, one of possibly many. Cost: up to `2F` rounds of up to `F + 1` dense
/// LPs over the subflows: for tens of flows, not thousands. Errors when the minimums cannot
/// all be met.
pub fn multipath_max_min(
    capacity: &[f64],
    flows: &[MultipathFlow],
) -> Result<Vec<f64>, MaxMinError> {
    let nf = flows.len();
    for (f, fl) in flows.iter().enumerate() {
        if !(fl.min.is_finite() && fl.min >= 0.0 && fl.max >= fl.min) {
            return Err(MaxMinError::BadBounds {
                flow: f,
                min: fl.min,
                max: fl.max,
            });
        }
    }
    if flows.iter().all(|fl| fl.paths.len() == 1) {
        // Nothing to split: the water-filling kernel, as `bounded_weighted_max_min`.
        let routes = Csr::from_rows(
            flows
                .iter()
                .map(|fl| fl.paths[0].iter().map(|&l| l as u32).collect::<Vec<_>>()),
        );
        let field = |g: fn(&MultipathFlow) -> f64| flows.iter().map(g).collect::<Vec<f64>>();
        let (w, min, max) = (field(|f| f.weight), field(|f| f.min), field(|f| f.max));
        return bounded_weighted_max_min(capacity, &routes, &w, &min, &max);
    }
    let mut first = Vec::with_capacity(nf);
    let mut ns = 0;
    for fl in flows {
        first.push(ns);
        ns += fl.paths.len();
    }
    let t_var = ns;
    // A level no allocation can exceed (every total is at most the sum of capacities).
    let total_cap: f64 = capacity.iter().sum();
    let ceiling = flows
        .iter()
        .map(|fl| (total_cap.max(fl.min) + 1.0) / fl.weight)
        .fold(0.0, f64::max);
    let mut frozen: Vec<Option<f64>> = vec![None; nf];
    let mut level = 0.0f64;
    // The program at level `t` (a variable when `t` is None) with each unfrozen flow's total
    // at least `max(w t, theta)`, frozen ones at their totals.
    let program = |frozen: &[Option<f64>], t: Option<f64>, cap_t: f64| -> Lp {
        let mut lp = Lp {
            vars: ns + 1,
            objective: Vec::new(),
            rows: Vec::new(),
        };
        let mut on_link: Vec<Vec<(usize, f64)>> = vec![Vec::new(); capacity.len()];
        for (f, fl) in flows.iter().enumerate() {
            let sum: Vec<(usize, f64)> = (0..fl.paths.len()).map(|k| (first[f] + k, 1.0)).collect();
            for (k, path) in fl.paths.iter().enumerate() {
                for &l in path {
                    on_link[l].push((first[f] + k, 1.0));
                }
            }
            match frozen[f] {
                Some(x) => lp.rows.push((sum, Cmp::Eq, x)),
                None => {
                    lp.rows.push((sum.clone(), Cmp::Ge, fl.min));
                    if fl.max.is_finite() {
                        lp.rows.push((sum.clone(), Cmp::Le, fl.max));
                    }
                    match t {
                        Some(t) => lp.rows.push((sum, Cmp::Ge, fl.weight * t)),
                        None => {
                            let mut row = sum;
                            row.push((t_var, -fl.weight));
                            lp.rows.push((row, Cmp::Ge, 0.0));
                        }
                    }
                }
            }
        }
        for (l, coef) in on_link.into_iter().enumerate() {
            if !coef.is_empty() {
                lp.rows.push((coef, Cmp::Le, capacity[l]));
            }
        }
        match t {
            Some(_) => lp.rows.push((vec![(t_var, 1.0)], Cmp::Eq, 0.0)),
            None => lp.rows.push((vec![(t_var, 1.0)], Cmp::Le, cap_t)),
        }
        lp
    };
    let infeasible = || MaxMinError::NoFeasiblePoint;
    let mut last = None;
    while frozen.iter().any(Option::is_none) {
        // The next level at which an unfrozen flow reaches its maximum.
        let stop = (0..nf)
            .filter(|&f| frozen[f].is_none())
            .map(|f| flows[f].max / flows[f].weight)
            .fold(f64::INFINITY, f64::min)
            .min(ceiling);
        let mut lp = program(&frozen, None, stop);
        lp.objective = vec![(t_var, 1.0)];
        let Outcome::Optimal(opt) = lp.solve() else {
            return Err(infeasible());
        };
        let t = opt.x[t_var].max(level);
        last = Some(opt.x);
        if t >= stop * (1.0 - 1e-12) {
            // Flows reaching their maximum freeze there.
            level = stop;
            for f in 0..nf {
                if frozen[f].is_none() && flows[f].max / flows[f].weight <= stop {
                    frozen[f] = Some(flows[f].max);
                }
            }
            if stop >= ceiling {
                break; // unreachable with links on every path
            }
            continue;
        }
        level = t;
        // Flows that cannot exceed their share at this level freeze at it.
        let mut any = false;
        let mut least: Option<(f64, usize)> = None;
        let candidates: Vec<usize> = (0..nf).filter(|&f| frozen[f].is_none()).collect();
        for &f in &candidates {
            let share = (flows[f].weight * level).max(flows[f].min);
            let mut lp = program(&frozen, Some(level), 0.0);
            lp.objective = (0..flows[f].paths.len())
                .map(|k| (first[f] + k, 1.0))
                .collect();
            let Outcome::Optimal(o) = lp.solve() else {
                return Err(infeasible());
            };
            let room = o.value - share;
            if room <= share * 1e-9 + 1e-12 * total_cap {
                frozen[f] = Some(share);
                any = true;
            }
            if least.is_none_or(|(r, _)| room < r) {
                least = Some((room, f));
            }
        }
        if let (false, Some((_, f))) = (any, least) {
            // Rounding: freeze the flow with the least room so that the loop ends.
            frozen[f] = Some((flows[f].weight * level).max(flows[f].min));
        }
    }
    // A split realizing the frozen totals.
    let lp = program(&frozen, Some(level), 0.0);
    match lp.solve() {
        Outcome::Optimal(o) => Ok(o.x[..ns].to_vec()),
        _ => match last {
            Some(x) => Ok(x[..ns].to_vec()),
            None => Err(infeasible()),
        },
    }
}

/// Weighted max-min fair rates with minimum and maximum rates (see the module docs).
///
/// - `capacity[l]`: capacity of link `l` (>= 0).
/// - `routes.row(f)`: the links flow `f` crosses.
/// - `weight[f] > 0`.
/// - `min[f]`: the flow's minimum rate theta (finite, >= 0).
/// - `max[f]`: its maximum Theta (`f64::INFINITY` for none), at least `min[f]`.
///
/// Every flow gets `clamp(w_f * t_f, theta_f, Theta_f)` where `t_f` is the level at which its
/// first link filled (or it reached its maximum). A flow with no links and no maximum gets
/// `f64::INFINITY`. Errors when some link's minimum rates exceed its capacity (beyond a
/// relative 1e-12) or a flow's bounds are out of order.
pub fn bounded_weighted_max_min(
    capacity: &[f64],
    routes: &Csr,
    weight: &[f64],
    min: &[f64],
    max: &[f64],
) -> Result<Vec<f64>, MaxMinError> {
    let n = routes.rows();
    let nl = capacity.len();
    assert_eq!(weight.len(), n, "one weight per flow");
    assert_eq!(min.len(), n, "one minimum per flow");
    assert_eq!(max.len(), n, "one maximum per flow");
    for f in 0..n {
        debug_assert!(weight[f] > 0.0, "weights must be positive");
        if !(min[f].is_finite() && min[f] >= 0.0 && max[f] >= min[f]) {
            return Err(MaxMinError::BadBounds {
                flow: f,
                min: min[f],
                max: max[f],
            });
        }
    }
    // The minimums must fit every link.
    let mut load = vec![0.0f64; nl];
    for f in 0..n {
        for &l in routes.row(f) {
            load[l as usize] += min[f];
        }
    }
    for l in 0..nl {
        if load[l] > capacity[l] * (1.0 + TIE) {
            return Err(MaxMinError::InfeasibleMinimum {
                link: l,
                required: load[l],
                capacity: capacity[l],
            });
        }
    }
    let (hops, start) = whole_hops(routes);
    let mut avail = capacity.to_vec();
    let mut rate = vec![0.0f64; n];
    WaterFill::new(nl).fill_bounded(
        &mut avail,
        n,
        |f| &hops[start[f]..start[f + 1]],
        |f| weight[f],
        |f| min[f],
        |f| max[f],
        &mut rate,
    );
    Ok(rate)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// The kernel behind `weighted_max_min` against the direct oracle, on random instances
    /// with weights, caps, shared bottlenecks and capless flows with no links.
    #[test]
    fn kernel_matches_the_oracle_to_1e_12() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x3a7e_f111);
        let mut infinite = 0;
        for case in 0..400 {
            let links = rng.random_range(1..10usize);
            let n = rng.random_range(1..30usize);
            let capacity: Vec<f64> = (0..links).map(|_| rng.random_range(1.0..100.0)).collect();
            let routes = Csr::from_rows((0..n).map(|_| {
                (0..links as u32)
                    .filter(|_| rng.random_bool(0.3))
                    .collect::<Vec<_>>()
            }));
            // Weights in quarters: sums are exact, which the oracle's stop rule needs.
            let weight: Vec<f64> = (0..n)
                .map(|_| rng.random_range(1..16u32) as f64 / 4.0)
                .collect();
            let cap: Vec<f64> = (0..n)
                .map(|_| {
                    if rng.random_bool(0.3) {
                        rng.random_range(0.5..40.0)
                    } else {
                        f64::INFINITY
                    }
                })
                .collect();
            let fast = weighted_max_min(&capacity, &routes, &weight, &cap);
            let slow = oracle_weighted_max_min(&capacity, &routes, &weight, &cap);
            for (f, (a, b)) in fast.iter().zip(&slow).enumerate() {
                if b.is_infinite() {
                    assert_eq!(a, b, "case {case} flow {f}");
                    infinite += 1;
                    continue;
                }
                assert!(
                    (a - b).abs() <= 1e-12 * b.abs().max(1.0),
                    "case {case} flow {f}: kernel {a} vs oracle {b}"
                );
            }
        }
        assert!(infinite > 0, "no capless flow without links was drawn");
    }

    #[test]
    fn n_flows_share_one_link_equally() {
        let routes = Csr::from_rows((0..4).map(|_| vec![0u32]));
        let r = max_min(&[10.0], &routes);
        assert!(r.iter().all(|&x| close(x, 2.5)), "{r:?}");
    }

    #[test]
    fn parking_lot() {
        // Links 0 and 1 of capacity 1; flow 0 crosses both, flows 1 and 2 one each, flow 3
        // also on link 1: link 1 has three flows -> 1/3 each, flow 1 takes the rest of link 0.
        let routes = Csr::from_rows(vec![vec![0u32, 1], vec![0], vec![1], vec![1]]);
        let r = max_min(&[1.0, 1.0], &routes);
        let want = [1.0 / 3.0, 2.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0];
        for (x, w) in r.iter().zip(want) {
            assert!(close(*x, w), "{r:?}");
        }
    }

    #[test]
    fn weights_and_caps() {
        let routes = Csr::from_rows(vec![vec![0u32], vec![0], vec![0]]);
        // Weights 1:2:1 on capacity 8 -> 2, 4, 2; cap flow 1 at 3 -> 2.5, 3, 2.5.
        let r = weighted_max_min(&[8.0], &routes, &[1.0, 2.0, 1.0], &[f64::INFINITY; 3]);
        assert!(
            close(r[0], 2.0) && close(r[1], 4.0) && close(r[2], 2.0),
            "{r:?}"
        );
        let r = weighted_max_min(
            &[8.0],
            &routes,
            &[1.0, 2.0, 1.0],
            &[f64::INFINITY, 3.0, f64::INFINITY],
        );
        assert!(
            close(r[0], 2.5) && close(r[1], 3.0) && close(r[2], 2.5),
            "{r:?}"
        );
    }

    #[test]
    fn minimum_rates_hold_flows_above_the_level() {
        // One link of 10, three unit-weight flows. a needs 5: it stays at 5 while b and c
        // share the rest (2.5 each). With a minimum of 2 instead, a grows with the others
        // from level 2 on and all three end at 10/3.
        let routes = Csr::from_rows(vec![vec![0u32], vec![0], vec![0]]);
        let inf = [f64::INFINITY; 3];
        let r =
            bounded_weighted_max_min(&[10.0], &routes, &[1.0; 3], &[5.0, 0.0, 0.0], &inf).unwrap();
        assert!(
            close(r[0], 5.0) && close(r[1], 2.5) && close(r[2], 2.5),
            "{r:?}"
        );
        let r =
            bounded_weighted_max_min(&[10.0], &routes, &[1.0; 3], &[2.0, 0.0, 0.0], &inf).unwrap();
        assert!(r.iter().all(|&x| close(x, 10.0 / 3.0)), "{r:?}");
    }

    #[test]
    fn minimums_that_fill_a_link_freeze_it_at_once() {
        // Link 0 (capacity 4) is filled by a's and b's minimums; c crosses links 0 and 1, so
        // it gets 0, and d alone on link 1 (capacity 3) takes all of it. An HRT flow (theta =
        // Theta = 1) on link 1 beside d instead: d gets 2.
        let routes = Csr::from_rows(vec![vec![0u32], vec![0], vec![0, 1], vec![1]]);
        let inf = f64::INFINITY;
        let r = bounded_weighted_max_min(
            &[4.0, 3.0],
            &routes,
            &[1.0; 4],
            &[1.0, 3.0, 0.0, 0.0],
            &[inf; 4],
        )
        .unwrap();
        assert_eq!(r, vec![1.0, 3.0, 0.0, 3.0]);
        let routes = Csr::from_rows(vec![vec![1u32], vec![1]]);
        let r =
            bounded_weighted_max_min(&[4.0, 3.0], &routes, &[5.0, 1.0], &[1.0, 0.0], &[1.0, inf])
                .unwrap();
        assert!(close(r[0], 1.0) && close(r[1], 2.0), "{r:?}");
    }

    #[test]
    fn bounded_errors_name_the_link_or_flow() {
        let routes = Csr::from_rows(vec![vec![0u32], vec![0, 1]]);
        let inf = f64::INFINITY;
        assert_eq!(
            bounded_weighted_max_min(&[10.0, 1.0], &routes, &[1.0; 2], &[0.0, 2.0], &[inf; 2]),
            Err(MaxMinError::InfeasibleMinimum {
                link: 1,
                required: 2.0,
                capacity: 1.0
            })
        );
        assert!(matches!(
            bounded_weighted_max_min(&[10.0, 1.0], &routes, &[1.0; 2], &[3.0, 0.0], &[2.0, inf]),
            Err(MaxMinError::BadBounds { flow: 0, .. })
        ));
    }

    #[test]
    fn pathless_flows_take_their_cap() {
        let routes = Csr::from_rows(vec![Vec::<u32>::new(), vec![]]);
        let r = weighted_max_min(&[], &routes, &[1.0, 1.0], &[5.0, f64::INFINITY]);
        assert_eq!(r, vec![5.0, f64::INFINITY]);
    }
}
