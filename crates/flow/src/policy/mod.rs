//! Rate policies: how the bandwidth of a component of flows is shared.
//!
//! One file per policy, holding its own `[[schemes]]` keys as a `deny_unknown_fields` config,
//! its one-line description and its `build` function; one line of `policies!` below registers
//! it (its name, its variant of [`PolicyKeys`], its `dctc list` row in [`POLICIES`]). A key
//! the named policy does not have is an error naming the key ([`PolicyConfig::parse`]).

pub mod baraat;
pub mod dba;
pub mod dba_ideal;
pub mod fastpass_c;
pub mod fastpass_f;
pub mod madd;
pub mod maxmin;
pub mod num;
mod priority;

mod registry;

use crate::alloc::WaterFill;
use crate::error::FlowError;
use crate::net::Net;
use crate::state::{Coflows, Flows};
use dctc_core::units::{Delta, SimTime};
use registry::policies;
pub use registry::{make_policy, BuildContext, NoKeys, ParseTable, PolicyConfig};

policies! {
    "maxmin" => MaxMin(NoKeys) = maxmin::build, maxmin::ABOUT;
    "num" => Num(num::NumConfig) = num::build, num::ABOUT;
    "varys" => Varys(NoKeys) = madd::build_varys, madd::ABOUT_VARYS;
    "varys-no-backfill" => VarysNoBackfill(NoKeys) = madd::build_varys_no_backfill, madd::ABOUT_VARYS_NO_BACKFILL;
    "coflow-fifo" => CoflowFifo(NoKeys) = madd::build_coflow_fifo, madd::ABOUT_COFLOW_FIFO;
    "baraat" => Baraat(baraat::BaraatConfig) = baraat::build, baraat::ABOUT;
    "fastpass-f" => FastpassF(NoKeys) = fastpass_f::build, fastpass_f::ABOUT;
    "fastpass-c" => FastpassC(NoKeys) = fastpass_c::build, fastpass_c::ABOUT;
    "dba-ideal" => DbaIdeal(dba_ideal::DbaIdealConfig) = dba_ideal::build, dba_ideal::ABOUT;
    "dba" => Dba(dba::DbaConfig) = dba::build, dba::ABOUT;
}

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
    /// caps, [`Coupling::Links`]): then the engine keeps them with the incremental max-min
    /// solver (`src/maxmin_inc.rs`: re-solves only the flows an event can move and hands the
    /// loop the rate changes) instead of calling
    /// [`RatePolicy::allocate`] on the whole component (default: no).
    fn incremental_maxmin(&self) -> bool {
        false
    }
    /// The next instant after `v.now` at which the policy's decision changes with no event,
    /// as it follows from the current rates if none comes first (Baraat: a coflow crossing
    /// the heavy threshold), or `None`. The engine asks after every instant and, at the
    /// instant returned (at least 1 ps later), re-solves from every active flow as at an
    /// arrival. `active` holds the active flows, sorted, and may still hold flows that have
    /// finished (`v.flows.active` is false for them); the rates are current, the bytes left
    /// as of each flow's `tlast` (default: none).
    fn next_wake(&self, _v: &View<'_>, _active: &[u32]) -> Option<SimTime> {
        None
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
