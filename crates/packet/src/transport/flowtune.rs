//! Flowtune's endpoint (Perry et al., SIGCOMM 2017, §6.2 "Flowtune servers"): a connection
//! starts as regular TCP (NewReno) while the endpoint tells the allocator of its flowlet; once a
//! rate update arrives, the endpoint opens the window and paces new data at the allocated rate
//! (`Window::pacing`), and loss no longer shrinks the window: the allocator, not the endpoint,
//! sets the rate from then on.
//!
//! The allocator's settings ride along in [`AllocatorSpec`], so a scheme whose transport is
//! `flowtune` gets an allocator node on the fabric (see `crate::control`).

use super::{
    AckEvent, Cc, CongestionControl, FeedbackEvent, FeedbackSource, LossEvent, NewReno,
    RttEstimator, Window,
};
use dctc_core::units::{Delta, Rate};
use dctc_num::normalize::Normalize;
use dctc_num::utility::Utility;

/// What the allocator runs (Flowtune §6.2-6.4), with the paper's values as defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct AllocatorSpec {
    /// Time between allocator iterations (10 us).
    pub interval: Delta,
    /// NED's step factor gamma (0.4).
    pub gamma: f64,
    /// Every flowlet's utility (proportional fairness: `log x`).
    pub utility: Utility,
    /// The normalizer applied to NED's rates before they are sent (F-NORM).
    pub normalizer: Normalize,
    /// Relative rate change that triggers an update (0.01); links are allocated at
    /// `1 - threshold` of capacity (§6.4).
    pub threshold: f64,
    /// A flowlet ends when its sender's queue stays empty this long.
    pub flowlet_idle: Delta,
    /// Rate of the allocator's link to each spine (40 Gb/s).
    pub link_gbps: f64,
    /// Control connections' minimum and maximum RTO (20 us and 30 us).
    pub min_rto: Delta,
    /// See `min_rto`.
    pub max_rto: Delta,
    /// Flowtune §6.6 measured inside the run: every iteration's over-allocation and
    /// normalized throughput, with the optimum of the current flowlet set every this many
    /// iterations (`dctc_num::churn::ChurnMeter`); `None` (the default) measures nothing.
    pub churn_optimal_every: Option<u64>,
    /// Iterations before this time are left out of the churn summary.
    pub churn_warmup: Delta,
}

impl Default for AllocatorSpec {
    fn default() -> Self {
        AllocatorSpec {
            interval: Delta::from_us(10),
            gamma: 0.4,
            utility: Utility::Log { weight: 1.0 },
            normalizer: Normalize::FNorm,
            threshold: 0.01,
            // The paper names no value; 20 us is about one 4-hop RTT of flowtune-144.
            flowlet_idle: Delta::from_us(20),
            link_gbps: 40.0,
            min_rto: Delta::from_us(20),
            max_rto: Delta::from_us(30),
            churn_optimal_every: None,
            churn_warmup: Delta::ZERO,
        }
    }
}

/// Flowtune's endpoint controller.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Flowtune {
    /// The allocator this endpoint talks to.
    pub spec: AllocatorSpec,
    /// The last allocated rate, once one arrived.
    pub rate: Option<Rate>,
    reno: NewReno,
}

/// A window that never limits a paced flow (the pacing rate does).
const OPEN_WINDOW: u64 = u64::MAX / 4;

impl Flowtune {
    /// An endpoint of an allocator with `spec`.
    pub fn new(spec: AllocatorSpec) -> Self {
        Flowtune {
            spec,
            rate: None,
            reno: NewReno::default(),
        }
    }

    /// A rate update arrived: open the window and pace at `rate` (§6.2 "Flowtune servers").
    pub fn set_rate(&mut self, w: &mut Window, rate: Rate) {
        self.rate = Some(rate);
        w.pacing = Some(rate);
        w.cwnd = OPEN_WINDOW;
        w.ssthresh = OPEN_WINDOW;
    }
}

impl Cc {
    /// The allocator a Flowtune endpoint talks to; `None` for every other controller (the
    /// engine then runs no control plane).
    pub fn allocator_spec(&self) -> Option<&AllocatorSpec> {
        match self {
            Cc::Flowtune(f) => Some(&f.spec),
            _ => None,
        }
    }
}

impl CongestionControl for Flowtune {
    fn on_ack(&mut self, w: &mut Window, ev: &AckEvent, _rtt: &RttEstimator) {
        if self.rate.is_some() {
            w.cwnd = OPEN_WINDOW;
        } else if !ev.in_recovery {
            self.reno.grow(w, ev.acked);
        }
    }

    /// A rate update (a control packet whose `window` field holds the rate in b/s).
    fn on_feedback(&mut self, w: &mut Window, ev: &FeedbackEvent, _rtt: &RttEstimator) {
        if ev.source == FeedbackSource::Control && ev.ext.window > 0 {
            self.set_rate(w, Rate(ev.ext.window));
        }
    }

    fn on_loss(&mut self, w: &mut Window, ev: &LossEvent) {
        if self.rate.is_none() {
            w.ssthresh = (ev.flight / 2).max(2 * w.mss);
        }
    }

    fn on_timeout(&mut self, w: &mut Window, ev: &LossEvent) {
        if self.rate.is_none() {
            self.reno.on_timeout(w, ev);
        }
    }
}
