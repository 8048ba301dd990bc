//! `num`: rates = the optimum of a network utility maximization problem over the active flows
//! of a component,
//!
//! ```text
//! maximize   sum_i U(x_i)                  (every flow has the scheme's utility U)
//! subject to sum_i x_i a_il <= c_l  for every link l,   x_i >= 0
//! ```
//!
//! with `U` any utility of `dctc-num` (`utility = { kind = "log" }` (default), `{ kind =
//! "alpha", alpha = 2 }`, `{ kind = "tcp_reno", mu = .., beta = .. }`, ...: the same
//! `UtilitySpec` as `dctc num solve`'s JSON).
//!
//! **Solver.** At every event the component's problem is solved by `dctc-num`'s NED (Flowtune's
//! Newton-Exact-Diagonal, gamma 0.4) run to convergence (`tolerance`, default 1e-6: the largest
//! relative change of any rate and any price in one iteration; capped at `max_iterations`,
//! default 20000), warm-started from the link prices the previous solve left (prices persist
//! per fabric link; a link never priced starts at 1, Flowtune §3). NED rather than the
//! interior-point reference: the reference is dense (300 subflows take seconds), NED scales
//! with the component and a warm start after one arrival or completion needs few iterations.
//!
//! **Feasibility.** NED is iterative, so its rates can sit slightly above capacity; they go
//! through F-NORM (Flowtune eq. 9: each flow divided by the largest `load / capacity` over its
//! own links), after which no link carries more than its capacity. Should NED fail numerically
//! (a NaN or infinite rate or price), the component falls back to max-min rates and the prices
//! restart at 1 (counted in the report as `fallbacks`).
//!
//! **Spread flows.** A flow spread over several paths (DRILL-like routing) crosses its links
//! with fractions `a_il < 1`; the NUM problem counts it fully on each of them (single-path
//! problem, conservative), and F-NORM uses the true fractions.

use super::{maxmin_with_caps, BuildContext, Coupling, RatePolicy, View};
use crate::alloc::WaterFill;
use crate::error::FlowError;
use dctc_num::solver::{run_to_convergence, Ned, RunStatus, State};
use dctc_num::spec::UtilitySpec;
use dctc_num::{NumFlow, Problem, Utility};
use serde::Deserialize;

/// `dctc list`'s line.
pub const ABOUT: &str =
    "NUM optimum of any dctc-num utility (utility = { kind = \"alpha\", alpha = 2 }), NED \
     to convergence warm-started per event, F-NORM";

/// `num`'s keys.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NumConfig {
    /// Every flow's utility, `dctc-num`'s utility spec (default `{ kind = "log" }`).
    #[serde(default)]
    pub utility: Option<UtilityConfig>,
    /// NED stops when no rate or price changes by more than this (relative) in one iteration
    /// (default 1e-6).
    #[serde(default)]
    pub tolerance: Option<f64>,
    /// Most NED iterations per solve (default 20000).
    #[serde(default)]
    pub max_iterations: Option<u64>,
}

/// The registry's constructor.
pub fn build(cfg: &NumConfig, ctx: &BuildContext<'_>) -> Result<Box<dyn RatePolicy>, FlowError> {
    Ok(Box::new(NumPolicy::new(cfg, &ctx.net.cap)?))
}

/// Price a link starts from before any solve priced it (Flowtune §3).
const INITIAL_PRICE: f64 = 1.0;

/// A scheme's utility: `dctc-num`'s JSON utility spec (`kind` = `log`, `alpha`, `dba`,
/// `tcp_reno`, `holnet`, with their parameters).
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct UtilityConfig(pub UtilitySpec);

impl PartialEq for UtilityConfig {
    fn eq(&self, other: &Self) -> bool {
        // UtilitySpec has no PartialEq; its Debug form lists every parameter.
        format!("{:?}", self.0) == format!("{:?}", other.0)
    }
}

/// The NUM-optimal policy.
#[derive(Clone, Debug)]
pub struct NumPolicy {
    utility: Utility,
    tol: f64,
    max_iters: u64,
    unit: f64,
    price: Vec<f64>,
    local: Vec<u32>,
    slot: Vec<u32>,
    wf: WaterFill,
    avail: Vec<f64>,
    caps: Vec<f64>,
    solves: u64,
    iterations: u64,
    unconverged: u64,
    fallbacks: u64,
}

impl NumPolicy {
    /// From a scheme config, for a fabric with capacities `cap` (b/s).
    pub fn new(cfg: &NumConfig, cap: &[f64]) -> Result<NumPolicy, FlowError> {
        let spec = cfg.utility.clone().unwrap_or_default().0;
        let utility = spec
            .build("num")
            .map_err(|e| FlowError::invalid("utility", e.to_string()))?;
        utility.check().map_err(|(k, v)| {
            FlowError::invalid(format!("utility.{k}"), format!("bad value {v}"))
        })?;
        let tol = cfg.tolerance.unwrap_or(1e-6);
        if !(tol > 0.0 && tol < 1.0) {
            return Err(FlowError::invalid("tolerance", "must be in (0, 1)"));
        }
        let max_iters = cfg.max_iterations.unwrap_or(20_000);
        if max_iters == 0 {
            return Err(FlowError::invalid("max_iterations", "must be > 0"));
        }
        let unit = cap.iter().copied().fold(0.0, f64::max);
        if !(unit > 0.0 && unit.is_finite()) {
            return Err(FlowError::invalid(
                "fabric",
                "no link with a positive capacity",
            ));
        }
        let links = cap.len();
        Ok(NumPolicy {
            utility,
            tol,
            max_iters,
            unit,
            price: vec![INITIAL_PRICE; links],
            local: Vec::new(),
            slot: vec![u32::MAX; links],
            wf: WaterFill::new(links),
            avail: Vec::new(),
            caps: Vec::new(),
            solves: 0,
            iterations: 0,
            unconverged: 0,
            fallbacks: 0,
        })
    }

    /// The utility every flow has.
    pub fn utility(&self) -> Utility {
        self.utility
    }

    /// Current price of fabric link `l` (in `dctc-num`'s scaled units).
    pub fn price(&self, l: u32) -> f64 {
        self.price[l as usize]
    }

    /// Solves the component's NUM problem; `None` if NED failed numerically.
    fn solve(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) -> Option<()> {
        self.local.clear();
        let mut problem = Problem::new(self.unit);
        let mut flows = Vec::with_capacity(comp.len());
        for &f in comp {
            let mut path = Vec::new();
            for h in v.flows.hops(f as usize) {
                let l = h.link as usize;
                if self.slot[l] == u32::MAX {
                    self.slot[l] = self.local.len() as u32;
                    self.local.push(h.link);
                    problem.add_link(format!("l{l}"), v.net.cap[l]).ok()?;
                }
                path.push(self.slot[l] as usize);
            }
            flows.push(NumFlow::new(format!("f{f}"), path, self.utility));
        }
        let result = (|| {
            for spec in flows {
                problem.add_flow(spec).ok()?;
            }
            let mut state = State::new(&problem, INITIAL_PRICE);
            for (k, &l) in self.local.iter().enumerate() {
                state.prices[k] = self.price[l as usize];
            }
            let before = state.iterations;
            let status = run_to_convergence(
                &mut Ned::default(),
                &mut problem,
                &mut state,
                self.tol,
                self.max_iters,
            );
            self.iterations += state.iterations.saturating_sub(before);
            match status {
                RunStatus::Converged => {}
                RunStatus::MaxIterations => self.unconverged += 1,
                RunStatus::NumericalError => return None,
            }
            for (k, &l) in self.local.iter().enumerate() {
                self.price[l as usize] = state.prices[k];
            }
            for (r, x) in rates.iter_mut().zip(state.flow_rates_bps(&problem)) {
                *r = x;
            }
            Some(())
        })();
        if result.is_none() {
            for &l in &self.local {
                self.price[l as usize] = INITIAL_PRICE;
            }
        }
        for &l in &self.local {
            self.slot[l as usize] = u32::MAX;
        }
        result
    }

    /// F-NORM (Flowtune eq. 9) with the flows' true link fractions.
    fn f_norm(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) {
        let load = &mut self.avail;
        load.clear();
        load.resize(v.net.links(), 0.0);
        for (k, &f) in comp.iter().enumerate() {
            for h in v.flows.hops(f as usize) {
                load[h.link as usize] += rates[k] * h.coef;
            }
        }
        for (k, &f) in comp.iter().enumerate() {
            let worst = v
                .flows
                .hops(f as usize)
                .iter()
                .map(|h| load[h.link as usize] / v.net.cap[h.link as usize])
                .fold(0.0, f64::max);
            if worst > 0.0 {
                rates[k] /= worst;
            }
        }
    }
}

impl RatePolicy for NumPolicy {
    fn name(&self) -> &str {
        "num"
    }

    fn coupling(&self) -> Coupling {
        Coupling::Links
    }

    fn allocate(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) {
        if comp.is_empty() {
            return;
        }
        self.solves += 1;
        let ok = self.solve(v, comp, rates).is_some()
            && rates.iter().all(|r| r.is_finite() && *r >= 0.0);
        if ok {
            self.f_norm(v, comp, rates);
        } else {
            self.fallbacks += 1;
            self.caps.clear();
            self.caps.resize(comp.len(), f64::INFINITY);
            let caps = std::mem::take(&mut self.caps);
            maxmin_with_caps(&mut self.wf, &mut self.avail, v, comp, &caps, rates);
            self.caps = caps;
        }
    }

    fn report(&self) -> Vec<(String, f64)> {
        vec![
            ("solves".to_string(), self.solves as f64),
            ("ned_iterations".to_string(), self.iterations as f64),
            ("unconverged_solves".to_string(), self.unconverged as f64),
            ("fallbacks".to_string(), self.fallbacks as f64),
        ]
    }
}
