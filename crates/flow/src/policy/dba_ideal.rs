//! `dba-ideal`: the optimum of DBA's problem (2), re-solved at every event; with
//! `resolve_fraction = x` also between events, whenever the smallest remaining time `T_k` may
//! have shrunk by the fraction x (problem (2) holds at every instant and its weights
//! `1 / T_k(t)` grow as coflows drain; solved only at events, a draining coflow keeps the
//! weight it had at the last event, which can be worse than fair sharing: DBA Fig. 1 averages
//! 6.69 against max-min's 6.5).
//!
//! ```text
//! maximize   sum_i b_i^(1-eps) / T_k(i)           DBA eq. (2)
//! subject to sum_i b_i x_il <= B'_l  for all l    (2a),  b_i >= 0  (2b)
//! ```
//!
//! with `T_k` the coflow's remaining time alone on the fabric (every link counted) and
//! capacities normalized by the largest one (`B'_l = B_l / beta`). Solved in the dual: each
//! flow's best response to its path price `P_i` is `b_i = ((1-eps) / (T_k P_i))^(1/eps)`
//! (from KKT eq. 7(a)), boxed by its route's capacity; link prices move by a diagonal Newton
//! step `lambda_l += step * (y_l - B'_l) / sum_i x_il^2 b_i / (eps P_i)` until the flows'
//! load matches capacity on priced links. The rates returned are weighted max-min with
//! weights `b_i(lambda)`: feasible at every iterate, and equal to the optimum at the fixed
//! point (every flow of the optimum crosses a saturated link, so water-filling with weights
//! `b*` gives back `b*`).

use super::{coflow_remaining_times, BuildContext, Coupling, RatePolicy, View};
use crate::alloc::WaterFill;
use crate::error::FlowError;
use dctc_core::units::Delta;
use serde::Deserialize;

/// `dctc list`'s line.
pub const ABOUT: &str = "optimum of DBA's problem (2), weights 1/T_k, re-solved at every event";

/// `dba-ideal`'s keys.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DbaIdealConfig {
    /// The power epsilon of problem (2) (default 0.5).
    #[serde(default)]
    pub epsilon: Option<f64>,
    /// Also re-solve between events whenever the smallest remaining time may have shrunk by
    /// this fraction (default: only at events).
    #[serde(default)]
    pub resolve_fraction: Option<f64>,
}

/// The registry's constructor.
pub fn build(
    cfg: &DbaIdealConfig,
    ctx: &BuildContext<'_>,
) -> Result<Box<dyn RatePolicy>, FlowError> {
    Ok(Box::new(DbaIdeal::new(cfg, ctx.net.links())?))
}

/// Most dual iterations per solve.
const MAX_ITERS: usize = 4000;
/// Stop when every priced link is within this relative distance of capacity and no link is
/// above it by more.
const TOL: f64 = 1e-7;

/// The optimum of problem (2).
#[derive(Clone, Debug)]
pub struct DbaIdeal {
    eps: f64,
    wf: WaterFill,
    avail: Vec<f64>,
    scratch: Vec<f64>,
    touched: Vec<u32>,
    iters: u64,
    solves: u64,
    min_t: f64,
    resolve_fraction: Option<f64>,
}

impl DbaIdeal {
    /// From a scheme config.
    pub fn new(cfg: &DbaIdealConfig, links: usize) -> Result<DbaIdeal, FlowError> {
        let eps = cfg.epsilon.unwrap_or(0.5);
        if !(eps > 0.0 && eps < 1.0) {
            return Err(FlowError::invalid(
                "epsilon",
                format!("must be in (0, 1), got {eps}"),
            ));
        }
        let mut d = DbaIdeal::with_epsilon(eps, links);
        if let Some(x) = cfg.resolve_fraction {
            if !(x.is_finite() && x > 0.0 && x <= 1.0) {
                return Err(FlowError::invalid("resolve_fraction", "must be in (0, 1]"));
            }
            d.resolve_fraction = Some(x);
        }
        Ok(d)
    }

    /// With power `eps` in (0, 1).
    pub fn with_epsilon(eps: f64, links: usize) -> DbaIdeal {
        DbaIdeal {
            eps,
            wf: WaterFill::new(links),
            avail: Vec::new(),
            scratch: vec![0.0; links],
            touched: Vec::new(),
            iters: 0,
            solves: 0,
            min_t: f64::INFINITY,
            resolve_fraction: None,
        }
    }

    /// Optimal rates (b/s) of the flows in `comp` for remaining times `t[k]` (seconds).
    pub fn solve(&mut self, v: &View<'_>, comp: &[u32], t: &[f64], rates: &mut [f64]) {
        let n = comp.len();
        if n == 0 {
            return;
        }
        self.solves += 1;
        let net = v.net;
        let beta = net.cap.iter().copied().fold(0.0, f64::max);
        let eps = self.eps;
        // Local link numbering.
        let mut local: Vec<u32> = Vec::new();
        let mut map = std::collections::HashMap::new();
        let mut rows: Vec<Vec<(usize, f64)>> = Vec::with_capacity(n);
        for &f in comp {
            let row: Vec<(usize, f64)> = v
                .flows
                .hops(f as usize)
                .iter()
                .map(|h| {
                    let next = local.len();
                    let li = *map.entry(h.link).or_insert_with(|| {
                        local.push(h.link);
                        next
                    });
                    (li, h.coef)
                })
                .collect();
            rows.push(row);
        }
        let m = local.len();
        let c: Vec<f64> = local.iter().map(|&l| net.cap[l as usize] / beta).collect();
        let u: Vec<f64> = t.iter().map(|&x| (1.0 - eps) / x.max(1e-12)).collect();
        let bmax: Vec<f64> = rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|&(l, coef)| c[l] / coef)
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        // Start: prices that would give each flow its fair share on its busiest link.
        let mut count = vec![0.0f64; m];
        for r in &rows {
            for &(l, coef) in r {
                count[l] += coef;
            }
        }
        let mut lam = vec![0.0f64; m];
        let mut usum = vec![0.0f64; m];
        for (i, r) in rows.iter().enumerate() {
            for &(l, _) in r {
                usum[l] += u[i];
            }
        }
        for l in 0..m {
            let share = c[l] / count[l].max(1e-12);
            let umean = usum[l] / count[l].max(1e-12);
            lam[l] = umean * share.powf(-eps) / 2.0;
        }
        let lam0 = lam.clone();
        let mut b = vec![0.0f64; n];
        let mut y = vec![0.0f64; m];
        let mut h = vec![0.0f64; m];
        let step = 0.5;
        let mut share = vec![0.0f64; m];
        for it in 0..MAX_ITERS {
            y.iter_mut().for_each(|x| *x = 0.0);
            h.iter_mut().for_each(|x| *x = 0.0);
            share.iter_mut().for_each(|x| *x = 0.0);
            for (i, r) in rows.iter().enumerate() {
                let p: f64 = r.iter().map(|&(l, coef)| coef * lam[l]).sum();
                let (bi, clamped) = if p <= 0.0 {
                    (bmax[i], true)
                } else {
                    let x = (u[i] / p).powf(1.0 / eps);
                    if x >= bmax[i] {
                        (bmax[i], true)
                    } else {
                        (x, false)
                    }
                };
                b[i] = bi;
                for &(l, coef) in r {
                    y[l] += coef * bi;
                    if !clamped {
                        h[l] += coef * coef * bi / (eps * p);
                        share[l] = share[l].max(coef * lam[l] / p);
                    }
                }
            }
            // Primal feasibility, and complementary slackness on links that carry a
            // noticeable part of some flow's price.
            let mut worst = 0.0f64;
            for l in 0..m {
                let gap = (y[l] - c[l]) / c[l];
                if gap > 0.0 || share[l] > 1e-9 {
                    worst = worst.max(gap.abs());
                }
            }
            self.iters += 1;
            if worst < TOL && it > 0 {
                break;
            }
            for l in 0..m {
                if lam[l] == 0.0 {
                    if y[l] > c[l] {
                        lam[l] = lam0[l];
                    }
                    continue;
                }
                let hl = h[l].max(1e-12 * c[l] / lam[l].max(1e-300));
                let d = step * (y[l] - c[l]) / hl;
                // A price falls at most 90% per step (the Newton step overshoots below zero
                // when a link empties).
                let nl = (lam[l] + d).max(0.1 * lam[l]);
                lam[l] = if nl < 1e-250 { 0.0 } else { nl };
            }
        }
        // Feasible rates: weighted max-min with the best responses as weights.
        self.avail.clear();
        self.avail.extend_from_slice(&net.cap);
        self.wf.fill(
            &mut self.avail,
            n,
            |k| v.flows.hops(comp[k] as usize),
            |k| b[k].max(1e-300),
            |_| f64::INFINITY,
            rates,
        );
    }

    /// Each flow's coflow remaining time alone on the fabric, seconds.
    pub fn remaining_times(&mut self, v: &View<'_>, comp: &[u32]) -> Vec<f64> {
        let times = coflow_remaining_times(v, comp, &mut self.scratch, &mut self.touched);
        comp.iter()
            .map(|&f| {
                let c = v.flows.coflow[f as usize];
                times[times.binary_search_by_key(&c, |x| x.0).expect("coflow")].1
            })
            .collect()
    }
}

impl RatePolicy for DbaIdeal {
    fn name(&self) -> &str {
        "dba-ideal"
    }

    fn coupling(&self) -> Coupling {
        Coupling::LinksAndCoflows
    }

    fn allocate(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) {
        let t = self.remaining_times(v, comp);
        self.min_t = t.iter().copied().fold(f64::INFINITY, f64::min);
        self.solve(v, comp, &t, rates);
    }

    fn tick_period(&self) -> Option<Delta> {
        // Problem (2) holds at every instant with T_k(t) shrinking as coflows drain: re-solve
        // whenever the smallest remaining time may have fallen by `RESOLVE_FRACTION`.
        let f = self.resolve_fraction?;
        Some(Delta::from_secs_f64((self.min_t * f).max(1e-6)))
    }

    fn wants_tick(&self) -> bool {
        self.resolve_fraction.is_some() && self.min_t.is_finite()
    }

    fn tick(&mut self, v: &View<'_>, active: &[u32], rates: &mut [f64]) {
        self.allocate(v, active, rates);
    }

    fn report(&self) -> Vec<(String, f64)> {
        vec![
            ("solves".to_string(), self.solves as f64),
            ("dual_iterations".to_string(), self.iters as f64),
        ]
    }
}
