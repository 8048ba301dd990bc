//! DBA's rate convergence (Fig. 7): a static set of flows (all arrive at t = 0 and none
//! finishes within the window), DBA iterating once per RTT, each flow's rate after every
//! iteration against the optimum of problem (2) (`dba-ideal`) for the same flows.

use crate::engine::{CoflowInput, SimConfig, Simulator};
use crate::error::FlowError;
use crate::net::Net;
use crate::policy::dba_ideal::DbaIdeal;
use crate::policy::{make_policy, PolicyConfig, PolicyKeys, RatePolicy, View};
use dctc_core::units::SimTime;

/// Per-flow rates over DBA iterations and the optimum they should reach.
#[derive(Clone, Debug, PartialEq)]
pub struct Convergence {
    /// Iteration period (base RTT), seconds.
    pub rtt_s: f64,
    /// `rates[k][i]`: flow `i`'s rate (b/s) after iteration `k` (k = 0: before the first).
    pub rates: Vec<Vec<f64>>,
    /// Optimal rates (b/s) of problem (2) for the same flows at the end.
    pub ideal: Vec<f64>,
    /// Per flow: the first iteration from which its rate stays within `within` of the
    /// optimum (`None`: not within the window).
    pub settle: Vec<Option<usize>>,
    /// The relative band used for `settle`.
    pub within: f64,
}

impl Convergence {
    /// Iterations until every flow stays within the band, if all do.
    pub fn all_settled(&self) -> Option<usize> {
        self.settle
            .iter()
            .try_fold(0usize, |m, s| s.map(|x| m.max(x)))
    }

    /// Median over flows of the settle iteration (unsettled flows count as the window).
    pub fn median_settle(&self) -> f64 {
        let w = self.rates.len();
        let mut v: Vec<f64> = self.settle.iter().map(|s| s.unwrap_or(w) as f64).collect();
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            0.0
        } else {
            dctc_core::stats::percentile_sorted(&v, 0.5)
        }
    }
}

/// Runs `iterations` DBA iterations (config `cfg`, name must be `dba`) on `coflows`, all
/// treated as arriving at t = 0, and compares every flow's rate with the optimum; `within`
/// is the relative band (0.01 for 1%).
pub fn convergence(
    net: &Net,
    mut coflows: Vec<CoflowInput>,
    cfg: &PolicyConfig,
    iterations: usize,
    within: f64,
) -> Result<Convergence, FlowError> {
    let PolicyKeys::Dba(keys) = &cfg.keys else {
        return Err(FlowError::invalid(
            "name",
            "convergence runs need policy `dba`",
        ));
    };
    for c in &mut coflows {
        c.arrival = SimTime::ZERO;
    }
    let sizes: Vec<f64> = coflows
        .iter()
        .map(|c| c.flows.iter().map(|f| f.bytes).sum())
        .collect();
    let policy = make_policy(cfg, net, &sizes)?;
    let period = keys
        .rtt_us
        .map(dctc_core::units::Delta::from_us_f64)
        .unwrap_or(net.rtt);
    let mut sim = Simulator::new(net, coflows, policy, SimConfig::default());
    let n = sim.flows.len();
    let mut rates = Vec::with_capacity(iterations + 1);
    let mut nop = |_t: SimTime| {};
    for k in 0..=iterations {
        let at = SimTime(period.ps() * k as u64 + period.ps() / 2);
        sim.advance(at, &mut nop);
        rates.push(sim.flows.rate.clone());
    }
    let active = sim.active_flows();
    if active.len() != n {
        return Err(FlowError::invalid(
            "workload",
            format!(
                "{} of {n} flows finished inside the window; use larger flows",
                n - active.len()
            ),
        ));
    }
    let mut ideal_policy = DbaIdeal::with_epsilon(keys.epsilon.unwrap_or(0.5), net.links());
    let v = View {
        now: sim.now(),
        net,
        flows: &sim.flows,
        coflows: &sim.coflows,
    };
    let mut ideal = vec![0.0; n];
    ideal_policy.allocate(&v, &active, &mut ideal);
    let settle = (0..n)
        .map(|i| {
            // Band: `within` of the optimum, but at least `within` of 1% of the route's
            // capacity (an optimum of a few b/s is not a meaningful target).
            let floor = 0.01 * net.route_rate(sim.flows.hops(i));
            let ok = |k: usize| (rates[k][i] - ideal[i]).abs() <= within * ideal[i].max(floor);
            let mut first = None;
            for k in (0..rates.len()).rev() {
                if ok(k) {
                    first = Some(k);
                } else {
                    break;
                }
            }
            first
        })
        .collect();
    Ok(Convergence {
        rtt_s: period.as_secs_f64(),
        rates,
        ideal,
        settle,
        within,
    })
}
