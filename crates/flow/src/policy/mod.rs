//! Rate policies: how the bandwidth of a component of flows is shared.
//!
//! One file per policy; [`POLICIES`] lists them for `dctc list` and [`make_policy`] builds one
//! by name from a [`PolicyConfig`] (the `[[schemes]]` table of a scenario).

pub mod baraat;
pub mod dba;
pub mod dba_ideal;
pub mod fastpass_c;
pub mod fastpass_f;
pub mod madd;
pub mod maxmin;
pub mod num;
mod priority;

use crate::alloc::WaterFill;
use crate::net::Net;
use crate::state::{Coflows, Flows};
use crate::FlowError;
use dctc_core::units::{Delta, SimTime};
use serde::Deserialize;

/// Policy names and one-line descriptions.
pub const POLICIES: &[(&str, &str)] = &[
    (
        "maxmin",
        "per-flow max-min fairness over every link (idealized TCP-like sharing)",
    ),
    (
        "num",
        "NUM optimum of any dctc-num utility (utility = { kind = \"alpha\", alpha = 2 }), NED \
         to convergence warm-started per event, F-NORM",
    ),
    (
        "varys",
        "Varys: SEBF + MADD on the giant-switch model (edge links only), back-filled; \
         the fabric then shares core links max-min among those rates; re-solved at coflow \
         arrivals and completions (and when a back-filled flow ends)",
    ),
    (
        "varys-no-backfill",
        "Varys's SEBF + MADD without back-filling: leftover port bandwidth stays idle",
    ),
    (
        "coflow-fifo",
        "coflow FIFO: coflows in arrival order, each at MADD rates on what earlier ones left \
         (no back-filling)",
    ),
    (
        "baraat",
        "Baraat: FIFO across coflows with limited multiplexing once a coflow turns heavy",
    ),
    (
        "fastpass-f",
        "flow minimum-remaining-time-first aware of every link (greedy priority); sorted at \
         arrivals, completions re-run the greedy only where it changes",
    ),
    (
        "fastpass-c",
        "coflow minimum-remaining-time-first aware of every link (greedy priority); sorted \
         at arrivals, completions re-run the greedy only where it changes",
    ),
    (
        "dba-ideal",
        "optimum of DBA's problem (2), weights 1/T_k, re-solved at every event",
    ),
    (
        "dba",
        "DBA: learned T_k (eq. 8), per-RTT eq. 9-14 iterations, WFQ as weighted max-min \
         (two documented fixes so its fixed point is the optimum)",
    ),
];

/// How far an event's effect reaches, for component-restricted recomputation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Coupling {
    /// Flows sharing links (transitively).
    Links,
    /// Flows sharing links or coflows (transitively).
    LinksAndCoflows,
    /// Every active flow.
    Global,
}

/// What a policy sees: the time, the fabric and every flow's and coflow's state (remaining
/// bytes are current for the flows it is asked about).
pub struct View<'a> {
    /// Now.
    pub now: SimTime,
    /// The fabric.
    pub net: &'a Net,
    /// Flow state.
    pub flows: &'a Flows,
    /// Coflow state.
    pub coflows: &'a Coflows,
}

/// A rate policy.
pub trait RatePolicy {
    /// Registered name.
    fn name(&self) -> &str;
    /// What an event can affect.
    fn coupling(&self) -> Coupling;
    /// Rates (b/s) for the flows in `comp` (sorted flow numbers, a closed component): write
    /// `rates[k]` for `comp[k]`. The sum on any link must not exceed its capacity.
    fn allocate(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]);
    /// New flows (all flows of the coflows that arrived now).
    fn on_arrivals(&mut self, _v: &View<'_>, _flows: &[u32]) {}
    /// A flow finished.
    fn on_completion(&mut self, _v: &View<'_>, _flow: u32) {}
    /// Whether `flow`'s completion (already applied to `v`: the flow is inactive and its
    /// coflow's `left` counts it out) can change the other flows' rates. `false` keeps every
    /// other rate as it is, with no re-solve: for coflow schedulers whose decisions change only
    /// at coflow-level events (default: every completion re-solves).
    fn completion_reallocates(&self, _v: &View<'_>, _flow: u32) -> bool {
        true
    }
    /// After a completion that did not re-solve ([`RatePolicy::completion_reallocates`] said
    /// `false`): flow `flow` ended at rate `rate`; push `(flow, new rate)` for each other flow
    /// whose rate changes anyway (a back-filling scheduler hands the freed bandwidth on). The
    /// new rates must keep every link within capacity (default: nothing changes).
    fn after_skipped_completion(
        &mut self,
        _v: &View<'_>,
        _flow: u32,
        _rate: f64,
        _changes: &mut Vec<(u32, f64)>,
    ) {
    }
    /// Whether the policy's rates are plain max-min fair rates over every link (weight 1, no
    /// caps, [`Coupling::Links`]): then the engine keeps them with its incremental max-min
    /// re-solve (only the flows an event can move) instead of calling
    /// [`RatePolicy::allocate`] on the whole component (default: no).
    fn incremental_maxmin(&self) -> bool {
        false
    }
    /// Period of the policy's timer (per-RTT iterations), if any.
    fn tick_period(&self) -> Option<Delta> {
        None
    }
    /// Whether the policy wants another tick (false once it has converged).
    fn wants_tick(&self) -> bool {
        false
    }
    /// One timer tick over every active flow; `rates` holds the current rates on entry.
    fn tick(&mut self, v: &View<'_>, active: &[u32], rates: &mut [f64]) {
        self.allocate(v, active, rates);
    }
    /// Policy-specific figures for the summary.
    fn report(&self) -> Vec<(String, f64)> {
        Vec::new()
    }
}

/// Parameters of a `[[schemes]]` entry. Keys that do not apply to the named policy are
/// rejected by [`make_policy`].
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyConfig {
    /// Policy name (see [`POLICIES`]).
    pub name: String,
    /// Label in outputs (default: the name).
    #[serde(default)]
    pub label: Option<String>,
    /// DBA / dba-ideal: the power epsilon of problem (2) (default 0.5).
    #[serde(default)]
    pub epsilon: Option<f64>,
    /// DBA: step size gamma of eq. (12), on capacities in b/s (default 5e-18).
    #[serde(default)]
    pub gamma: Option<f64>,
    /// DBA: scale-free step of the capacity term, added to eq. (12):
    /// `- gamma_rel * lambda_l * (B'_l - sum b) / B'_l` (default 1; 0 = eq. (12) as printed).
    /// With the paper's gamma = 5e-18 on normalized capacities the printed term is inert, so
    /// prices of unsaturated links never fall to zero and the fixed point is not the optimum.
    #[serde(default)]
    pub gamma_rel: Option<f64>,
    /// DBA: on a link loaded below capacity by more than 0.1%, a positive `min e_i` does not
    /// raise the price (a departure from eq. (12) aimed at KKT 7(b)).
    #[serde(default)]
    pub clamp_unsaturated: Option<bool>,
    /// DBA: fraction of the deviation term `min e_i` applied per iteration in eq. (12)
    /// (default 1, as published; smaller damps the price updates).
    #[serde(default)]
    pub dev_step: Option<f64>,
    /// DBA: initial window W0 in packets of 1500 B (default 3).
    #[serde(default)]
    pub w0_packets: Option<f64>,
    /// DBA: initial flow weight (default 1e10).
    #[serde(default)]
    pub initial_weight: Option<f64>,
    /// DBA: price-update lag d in iterations (default 0).
    #[serde(default)]
    pub lag: Option<usize>,
    /// DBA: sign of the momentum term of eq. (14): `standard` (Nesterov, as in the proof,
    /// eq. 21), `as-printed` (the printed `(1 - delta(t-1)) / delta(t)`) or `none` (default).
    #[serde(default)]
    pub momentum: Option<String>,
    /// DBA: stop iterating when rates and prices change by less than this (relative) in one
    /// iteration (default 1e-3); the next event restarts the iterations.
    #[serde(default)]
    pub converge_tol: Option<f64>,
    /// DBA: what must hold still for the iterations to stop: `rates-and-prices` (default, as
    /// published) or `rates` (prices keep drifting as remaining times shrink; stopping on rates
    /// alone cut the iterations 4x with the same CCTs on a 100-coflow trace run).
    #[serde(default)]
    pub stop: Option<String>,
    /// DBA: iteration period in microseconds (default: the fabric's base RTT).
    #[serde(default)]
    pub rtt_us: Option<f64>,
    /// DBA: `learned` (§4.2.1 tables and eq. 8, default) or `exact` remaining times.
    #[serde(default)]
    pub remaining_time: Option<String>,
    /// dba-ideal: also re-solve between events whenever the smallest remaining time may have
    /// shrunk by this fraction (default: only at events).
    #[serde(default)]
    pub resolve_fraction: Option<f64>,
    /// num: every flow's utility, `dctc-num`'s utility spec (default `{ kind = "log" }`).
    #[serde(default)]
    pub utility: Option<num::UtilityConfig>,
    /// num: NED stops when no rate or price changes by more than this (relative) in one
    /// iteration (default 1e-6).
    #[serde(default)]
    pub tolerance: Option<f64>,
    /// num: most NED iterations per solve (default 20000).
    #[serde(default)]
    pub max_iterations: Option<u64>,
    /// Baraat: a coflow turns heavy after sending this many bytes (default: the
    /// `heavy_percentile` of the workload's coflow sizes).
    #[serde(default)]
    pub heavy_bytes: Option<f64>,
    /// Baraat: percentile of coflow sizes used as the heavy threshold (default 0.8).
    #[serde(default)]
    pub heavy_percentile: Option<f64>,
}

impl PolicyConfig {
    /// A config naming `name` with every parameter at its default.
    pub fn named(name: &str) -> PolicyConfig {
        PolicyConfig {
            name: name.to_string(),
            ..PolicyConfig::default()
        }
    }

    /// The label in outputs.
    pub fn label(&self) -> String {
        self.label.clone().unwrap_or_else(|| self.name.clone())
    }

    fn set_keys(&self) -> Vec<&'static str> {
        let mut k = Vec::new();
        let mut add = |set: bool, name: &'static str| {
            if set {
                k.push(name);
            }
        };
        add(self.epsilon.is_some(), "epsilon");
        add(self.gamma.is_some(), "gamma");
        add(self.gamma_rel.is_some(), "gamma_rel");
        add(self.dev_step.is_some(), "dev_step");
        add(self.clamp_unsaturated.is_some(), "clamp_unsaturated");
        add(self.w0_packets.is_some(), "w0_packets");
        add(self.initial_weight.is_some(), "initial_weight");
        add(self.lag.is_some(), "lag");
        add(self.momentum.is_some(), "momentum");
        add(self.converge_tol.is_some(), "converge_tol");
        add(self.rtt_us.is_some(), "rtt_us");
        add(self.stop.is_some(), "stop");
        add(self.remaining_time.is_some(), "remaining_time");
        add(self.resolve_fraction.is_some(), "resolve_fraction");
        add(self.utility.is_some(), "utility");
        add(self.tolerance.is_some(), "tolerance");
        add(self.max_iterations.is_some(), "max_iterations");
        add(self.heavy_bytes.is_some(), "heavy_bytes");
        add(self.heavy_percentile.is_some(), "heavy_percentile");
        k
    }
}

/// Builds the policy `cfg.name` for `net`; `coflow_sizes` (bytes, the whole workload) lets
/// Baraat set its heavy threshold. Unknown names list the valid ones; keys that do not apply
/// to the policy are errors.
pub fn make_policy(
    cfg: &PolicyConfig,
    net: &Net,
    coflow_sizes: &[f64],
) -> Result<Box<dyn RatePolicy>, FlowError> {
    let allowed: &[&str] = match cfg.name.as_str() {
        "maxmin" | "varys" | "varys-no-backfill" | "coflow-fifo" | "fastpass-f" | "fastpass-c" => {
            &[]
        }
        "baraat" => &["heavy_bytes", "heavy_percentile"],
        "num" => &["utility", "tolerance", "max_iterations"],
        "dba-ideal" => &["epsilon", "resolve_fraction"],
        "dba" => &[
            "epsilon",
            "gamma",
            "gamma_rel",
            "clamp_unsaturated",
            "dev_step",
            "w0_packets",
            "initial_weight",
            "lag",
            "momentum",
            "converge_tol",
            "rtt_us",
            "stop",
            "remaining_time",
        ],
        other => {
            let names: Vec<&str> = POLICIES.iter().map(|p| p.0).collect();
            return Err(FlowError::invalid(
                "name",
                format!("unknown policy `{other}`; valid: {}", names.join(", ")),
            ));
        }
    };
    for k in cfg.set_keys() {
        if !allowed.contains(&k) {
            return Err(FlowError::invalid(
                k,
                format!("does not apply to policy `{}`", cfg.name),
            ));
        }
    }
    let links = net.links();
    Ok(match cfg.name.as_str() {
        "maxmin" => Box::new(maxmin::MaxMin::new(links)),
        "varys" => Box::new(madd::Madd::varys(links, true)),
        "varys-no-backfill" => Box::new(madd::Madd::varys(links, false)),
        "coflow-fifo" => Box::new(madd::Madd::coflow_fifo(links)),
        "fastpass-f" => Box::new(fastpass_f::FastpassF::new(links)),
        "fastpass-c" => Box::new(fastpass_c::FastpassC::new(links)),
        "baraat" => Box::new(baraat::Baraat::new(cfg, links, coflow_sizes)?),
        "dba-ideal" => Box::new(dba_ideal::DbaIdeal::new(cfg, links)?),
        "dba" => Box::new(dba::Dba::new(cfg, net)?),
        "num" => Box::new(num::NumPolicy::new(cfg, &net.cap)?),
        _ => unreachable!("checked above"),
    })
}

/// Max-min fair rates for `comp` over every link with per-flow caps `cap[k]`.
pub(crate) fn maxmin_with_caps(
    wf: &mut WaterFill,
    avail: &mut Vec<f64>,
    v: &View<'_>,
    comp: &[u32],
    cap: &[f64],
    rates: &mut [f64],
) {
    avail.clear();
    avail.extend_from_slice(&v.net.cap);
    wf.fill(
        avail,
        comp.len(),
        |k| v.flows.hops(comp[k] as usize),
        |_| 1.0,
        |k| cap[k],
        rates,
    );
}

/// Remaining time of each coflow present in `comp` if it had the fabric to itself, aware of
/// every link: `max over links of (remaining bytes of the coflow on the link * share) /
/// capacity`, seconds. Returns `(coflow, time)` sorted by coflow number.
pub(crate) fn coflow_remaining_times(
    v: &View<'_>,
    comp: &[u32],
    scratch: &mut Vec<f64>,
    touched: &mut Vec<u32>,
) -> Vec<(u32, f64)> {
    if scratch.len() < v.net.links() {
        scratch.resize(v.net.links(), 0.0);
    }
    let mut by_coflow: Vec<(u32, u32)> = comp
        .iter()
        .map(|&f| (v.flows.coflow[f as usize], f))
        .collect();
    by_coflow.sort_unstable();
    let mut out = Vec::new();
    let mut i = 0;
    while i < by_coflow.len() {
        let c = by_coflow[i].0;
        let mut j = i;
        touched.clear();
        while j < by_coflow.len() && by_coflow[j].0 == c {
            let f = by_coflow[j].1 as usize;
            for h in v.flows.hops(f) {
                let l = h.link as usize;
                if scratch[l] == 0.0 {
                    touched.push(h.link);
                }
                scratch[l] += v.flows.rem[f].max(0.0) * 8.0 * h.coef;
            }
            j += 1;
        }
        let mut t = 0.0f64;
        for &l in touched.iter() {
            t = t.max(scratch[l as usize] / v.net.cap[l as usize]);
            scratch[l as usize] = 0.0;
        }
        out.push((c, t));
        i = j;
    }
    out
}
