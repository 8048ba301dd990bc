//! The `[flow]` table: its keys as a scenario writes them ([`FlowKeys`]) and their checked
//! form ([`FlowSettings`]).
//!
//! ```toml
//! [flow]
//! routing = "ecmp"           # ecmp | hedera | conga | drill (schemes may override it)
//! hedera_period_ms = 5       # Hedera's rescheduling period
//! hedera_threshold = 0.1     # Hedera's large-flow threshold, fraction of the host link rate
//! loads = [0.5, 1.0]         # optional: rerun the workload at each load
//! mode = "run"               # or "convergence" (DBA Fig. 7: iterations, within,
//!                            # size_factor, track)
//! ```

use crate::routing::RoutingMode;
use dctc_core::error::KeyError;
use dctc_core::units::checked::{self, SpanRule};
use dctc_core::units::Delta;
use dctc_core::workload::coflow::MAX_LOAD;
use serde::Deserialize;

/// `[flow]` as written.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowKeys {
    /// Default routing for every scheme.
    #[serde(default)]
    pub routing: Option<String>,
    /// Hedera rescheduling period, ms (default 5).
    #[serde(default)]
    pub hedera_period_ms: Option<f64>,
    /// Hedera large-flow threshold as a fraction of the host link rate (default 0.1).
    #[serde(default)]
    pub hedera_threshold: Option<f64>,
    /// Rerun the workload at each of these loads (overrides each workload's `load`; absent:
    /// each workload's own; an empty list is refused).
    #[serde(default)]
    pub loads: Option<Vec<f64>>,
    /// `run` (default) or `convergence`.
    #[serde(default)]
    pub mode: Option<String>,
    /// Convergence: DBA iterations to run (default 40).
    #[serde(default)]
    pub iterations: Option<usize>,
    /// Convergence: relative band around the optimum (default 0.01).
    #[serde(default)]
    pub within: Option<f64>,
    /// Convergence: multiply flow sizes so that none ends inside the window (default 1000).
    #[serde(default)]
    pub size_factor: Option<f64>,
    /// Convergence: flows drawn in the chart (default 3).
    #[serde(default)]
    pub track: Option<usize>,
}

/// What a flow-engine scenario runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Mode {
    /// Every scheme at every load.
    Run,
    /// DBA's convergence to the optimum over its first iterations (DBA Fig. 7).
    Convergence {
        /// DBA iterations to run.
        iterations: usize,
        /// Relative band around the optimum that counts as converged.
        within: f64,
        /// Flow sizes are multiplied by this, so that none ends inside the window.
        size_factor: f64,
        /// Flows drawn in the chart.
        track: usize,
    },
}

/// `[flow]`, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSettings {
    /// Routing of schemes that name none.
    pub routing: RoutingMode,
    /// Hedera's period and threshold, for every scheme that routes with Hedera.
    hedera: (Option<Delta>, Option<f64>),
    /// The loads to rerun the workload at (empty: each workload's own).
    pub loads: Vec<f64>,
    /// What to run.
    pub mode: Mode,
}

impl FlowSettings {
    /// Checks `keys`; error paths are relative to `[flow]` (`loads[1]`).
    pub fn new(keys: &FlowKeys) -> Result<FlowSettings, KeyError> {
        let period = match keys.hedera_period_ms {
            None => None,
            Some(ms) => Some(checked::span_ms(
                "hedera_period_ms",
                ms,
                SpanRule::positive(Delta::MAX_SCENARIO),
            )?),
        };
        let threshold = match keys.hedera_threshold {
            Some(t) if !(t.is_finite() && (0.0..=1.0).contains(&t)) => {
                return Err(KeyError::new("hedera_threshold", "must be in [0, 1]"))
            }
            t => t,
        };
        if keys.loads.as_ref().is_some_and(Vec::is_empty) {
            return Err(KeyError::new(
                "loads",
                "list at least one load, or leave `loads` out to run each workload's own",
            ));
        }
        for (k, &l) in keys.loads.iter().flatten().enumerate() {
            if !(l.is_finite() && l > 0.0 && l <= MAX_LOAD) {
                return Err(KeyError::new(
                    format!("loads[{k}]"),
                    format!("must be in (0, {MAX_LOAD}], got {l}"),
                ));
            }
        }
        if let Some(w) = keys.within {
            if !(w.is_finite() && w > 0.0) {
                return Err(KeyError::new("within", "must be > 0"));
            }
        }
        if let Some(f) = keys.size_factor {
            if !(f.is_finite() && f > 0.0) {
                return Err(KeyError::new(
                    "size_factor",
                    format!("must be a positive factor, got {f}"),
                ));
            }
        }
        let mode = match keys.mode.as_deref().unwrap_or("run") {
            "run" => Mode::Run,
            "convergence" => Mode::Convergence {
                iterations: keys.iterations.unwrap_or(40),
                within: keys.within.unwrap_or(0.01),
                size_factor: keys.size_factor.unwrap_or(1000.0),
                track: keys.track.unwrap_or(3),
            },
            other => {
                return Err(KeyError::new(
                    "mode",
                    format!("unknown mode `{other}`; valid: run, convergence"),
                ))
            }
        };
        let mut s = FlowSettings {
            routing: RoutingMode::Ecmp,
            hedera: (period, threshold),
            loads: keys.loads.clone().unwrap_or_default(),
            mode,
        };
        s.routing = s.routing_named(keys.routing.as_deref().unwrap_or("ecmp"))?;
        Ok(s)
    }

    /// Routing `name` with `[flow]`'s Hedera parameters; an unknown name is an error at
    /// `routing`.
    pub fn routing_named(&self, name: &str) -> Result<RoutingMode, KeyError> {
        let mut mode = RoutingMode::from_name(name).map_err(|e| match e {
            crate::error::FlowError::Invalid(k) => k,
            other => KeyError::new("routing", other.to_string()),
        })?;
        if let RoutingMode::Hedera { period, threshold } = &mut mode {
            if let Some(p) = self.hedera.0 {
                *period = p;
            }
            if let Some(t) = self.hedera.1 {
                *threshold = t;
            }
        }
        Ok(mode)
    }

    /// Whether this is a convergence run.
    pub fn convergence(&self) -> bool {
        matches!(self.mode, Mode::Convergence { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_refusals_name_their_key() {
        let s = FlowSettings::new(&FlowKeys::default()).unwrap();
        assert_eq!(
            (s.routing.clone(), s.mode.clone()),
            (RoutingMode::Ecmp, Mode::Run)
        );
        let hedera = FlowKeys {
            routing: Some("hedera".into()),
            hedera_period_ms: Some(2.0),
            ..FlowKeys::default()
        };
        let s = FlowSettings::new(&hedera).unwrap();
        let RoutingMode::Hedera { period, threshold } = s.routing else {
            panic!("{:?}", s.routing)
        };
        assert_eq!((period, threshold), (Delta::from_ms(2), 0.1));
        let bad = |k: FlowKeys| FlowSettings::new(&k).unwrap_err().path;
        let keys = FlowKeys::default;
        assert_eq!(
            bad(FlowKeys {
                loads: Some(vec![1.0, 80.0]),
                ..keys()
            }),
            "loads[1]"
        );
        assert_eq!(
            bad(FlowKeys {
                mode: Some("fast".into()),
                ..keys()
            }),
            "mode"
        );
        assert_eq!(
            bad(FlowKeys {
                routing: Some("ecmpp".into()),
                ..keys()
            }),
            "routing"
        );
        assert_eq!(
            bad(FlowKeys {
                hedera_threshold: Some(2.0),
                ..keys()
            }),
            "hedera_threshold"
        );
        assert_eq!(
            bad(FlowKeys {
                within: Some(0.0),
                ..keys()
            }),
            "within"
        );
        assert_eq!(
            bad(FlowKeys {
                loads: Some(Vec::new()),
                ..keys()
            }),
            "loads"
        );
        assert_eq!(
            bad(FlowKeys {
                size_factor: Some(f64::NAN),
                ..keys()
            }),
            "size_factor"
        );
        // A period that rounds to 0 ps would reschedule forever at one instant.
        let e = FlowSettings::new(&FlowKeys {
            hedera_period_ms: Some(5e-324),
            ..keys()
        })
        .unwrap_err();
        assert_eq!(e.path, "hedera_period_ms");
        assert!(e.reason.contains("is 0 ps"), "{}", e.reason);
    }
}
