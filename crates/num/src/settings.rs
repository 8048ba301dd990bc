//! The allocator engine's scenario keys: the `[allocator]` table ([`AllocatorKeys`], checked
//! into [`AllocatorSettings`]) and a `[[schemes]]` entry naming a solver ([`SolverKeys`]).
//!
//! ```toml
//! [allocator]
//! mode = "churn"           # or "convergence"
//! iteration_us = 10.0      # churn: one iteration per step (Flowtune: 10 us)
//! loads = [0.4, 0.6, 0.8]  # churn: rerun the workload at each load
//! optimal_every = 10       # churn: optimum for the current flow set every N steps
//! warmup_ms = 0.2          # churn: left out of the averages
//! threshold = 0.01         # churn: update threshold; links allocated at 1 - threshold
//! flows = 1000             # convergence: random flows
//! tolerance = 0.01         # convergence: relative tolerance
//! max_iterations = 5000    # convergence: iteration cap
//! [[schemes]]
//! name = "ned"             # see solver::SOLVERS
//! label = "NED"
//! gamma = 0.4              # optional step factor (ned, gradient, newton-like, dba)
//! ```

use crate::churn::ChurnConfig;
use crate::solver::AnySolver;
use dctc_core::error::{unknown_name, KeyError};
use dctc_core::units::checked::{self, SpanRule};
use dctc_core::units::Delta;
use dctc_core::workload::MAX_FLOWS;
use serde::Deserialize;

/// `[allocator]` as written.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AllocatorKeys {
    /// Churn: microseconds between solver iterations (default 10).
    #[serde(default)]
    pub iteration_us: Option<f64>,
    /// Churn: rerun the workload at each of these loads (absent: the workload's own; an
    /// empty list is refused).
    #[serde(default)]
    pub loads: Option<Vec<f64>>,
    /// Churn: the optimum every this many steps (default 10).
    #[serde(default)]
    pub optimal_every: Option<usize>,
    /// Churn: warm-up left out of the averages, ms (default 0.2).
    #[serde(default)]
    pub warmup_ms: Option<f64>,
    /// Churn: update threshold, in [0, 0.5) (default 0.01).
    #[serde(default)]
    pub threshold: Option<f64>,
    /// `churn` (default) or `convergence`.
    #[serde(default)]
    pub mode: Option<String>,
    /// Convergence: random flows (default 1000).
    #[serde(default)]
    pub flows: Option<usize>,
    /// Convergence: relative tolerance (default 0.01).
    #[serde(default)]
    pub tolerance: Option<f64>,
    /// Convergence: iteration cap (default 5000).
    #[serde(default)]
    pub max_iterations: Option<usize>,
}

/// What an allocator scenario runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Mode {
    /// Flowlet churn (Flowtune §6.6): every solver at every load, under `config` (whose
    /// `duration_s` the scenario's duration sets).
    Churn {
        /// The run's settings.
        config: ChurnConfig,
        /// Loads to rerun the workload at (empty: the workload's own).
        loads: Vec<f64>,
    },
    /// Iterations to converge on random flows (Flowtune Fig. 5).
    Convergence {
        /// Random flows.
        flows: usize,
        /// Relative tolerance around the optimum.
        tolerance: f64,
        /// Iteration cap.
        max_iterations: usize,
    },
}

/// `[allocator]`, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct AllocatorSettings {
    /// What to run.
    pub mode: Mode,
    /// `iteration_us` as given (the binary bounds the steps it makes over the run).
    pub iteration_us: Option<f64>,
}

impl AllocatorSettings {
    /// Checks `keys`; error paths are relative to `[allocator]` (`loads[1]`).
    pub fn new(keys: &AllocatorKeys) -> Result<AllocatorSettings, KeyError> {
        let k = keys;
        if let Some(us) = k.iteration_us {
            // A step is a point in simulated time: one that rounds to 0 ps never advances.
            checked::span_us("iteration_us", us, SpanRule::positive(Delta::MAX_SCENARIO))?;
        }
        if k.optimal_every == Some(0) {
            return Err(KeyError::new("optimal_every", "must be at least 1"));
        }
        if let Some(w) = k.warmup_ms {
            if !(w.is_finite() && w >= 0.0) {
                return Err(KeyError::new("warmup_ms", "must be >= 0"));
            }
        }
        if let Some(t) = k.threshold {
            if !(t.is_finite() && (0.0..0.5).contains(&t)) {
                return Err(KeyError::new("threshold", "must be in [0, 0.5)"));
            }
        }
        if k.loads.as_ref().is_some_and(Vec::is_empty) {
            return Err(KeyError::new(
                "loads",
                "list at least one load, or leave `loads` out to run the workload's own",
            ));
        }
        for (i, &l) in k.loads.iter().flatten().enumerate() {
            if !(l.is_finite() && l > 0.0 && l <= 1.5) {
                return Err(KeyError::new(
                    format!("loads[{i}]"),
                    format!("must be in (0, 1.5], got {l}"),
                ));
            }
        }
        if k.flows == Some(0) {
            return Err(KeyError::new("flows", "must be at least 1"));
        }
        if let Some(n) = k.flows.filter(|&n| n as u64 > MAX_FLOWS) {
            return Err(KeyError::new(
                "flows",
                format!("{n} is more than the {MAX_FLOWS} flows dctc allocates"),
            ));
        }
        if k.max_iterations == Some(0) {
            return Err(KeyError::new("max_iterations", "must be at least 1"));
        }
        if let Some(t) = k.tolerance {
            if !(t.is_finite() && t > 0.0) {
                return Err(KeyError::new("tolerance", "must be > 0"));
            }
        }
        let mode = match k.mode.as_deref().unwrap_or("churn") {
            "churn" => Mode::Churn {
                config: ChurnConfig {
                    step_s: k.iteration_us.unwrap_or(10.0) * 1e-6,
                    duration_s: 0.0,
                    optimal_every: k.optimal_every.unwrap_or(10),
                    warmup_s: k.warmup_ms.unwrap_or(0.2) * 1e-3,
                    threshold: k.threshold.unwrap_or(0.01),
                },
                loads: k.loads.clone().unwrap_or_default(),
            },
            "convergence" => Mode::Convergence {
                flows: k.flows.unwrap_or(1000),
                tolerance: k.tolerance.unwrap_or(0.01),
                max_iterations: k.max_iterations.unwrap_or(5000),
            },
            other => {
                return Err(KeyError::new(
                    "mode",
                    format!("unknown mode `{other}`; valid: churn, convergence"),
                ))
            }
        };
        Ok(AllocatorSettings {
            mode,
            iteration_us: k.iteration_us,
        })
    }
}

/// A `[[schemes]]` entry of the allocator engine: a solver by name.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SolverKeys {
    /// A solver of [`crate::solver::SOLVERS`] that iterates (`ned`, `gradient`, `fgm`,
    /// `newton-like`, `dba`).
    pub name: String,
    /// Name in outputs (default: `name`).
    #[serde(default)]
    pub label: Option<String>,
    /// Step factor gamma (`ned`, `gradient`, `newton-like`, `dba`), positive.
    #[serde(default)]
    pub gamma: Option<f64>,
}

impl SolverKeys {
    /// The solver it names; paths are relative to its `[[schemes]]` table.
    pub fn solver(&self) -> Result<AnySolver, KeyError> {
        let mut solver = AnySolver::by_name(&self.name).ok_or_else(|| {
            KeyError::new("name", unknown_name("solver", &self.name, AnySolver::NAMES))
        })?;
        if let Some(g) = self.gamma {
            if !(g.is_finite() && g > 0.0) {
                return Err(KeyError::new("gamma", "must be > 0"));
            }
            match &mut solver {
                AnySolver::Ned(x) => x.gamma = g,
                AnySolver::Gradient(x) => x.gamma = g,
                AnySolver::NewtonLike(x) => x.gamma = g,
                AnySolver::Dba(x) => x.gamma = g,
                AnySolver::Fgm(_) => {
                    return Err(KeyError::new(
                        "gamma",
                        "fgm has no gamma (its steps come from the utilities' curvature)",
                    ))
                }
            }
        }
        Ok(solver)
    }

    /// Its label in outputs.
    pub fn label(&self) -> String {
        self.label.clone().unwrap_or_else(|| self.name.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_refusals_name_their_key() {
        let s = AllocatorSettings::new(&AllocatorKeys::default()).unwrap();
        let Mode::Churn { config, loads } = s.mode else {
            panic!("{:?}", s.mode)
        };
        assert_eq!(
            (config.step_s, config.optimal_every, loads.len()),
            (10.0 * 1e-6, 10, 0)
        );
        let keys = AllocatorKeys::default;
        let bad = |k: AllocatorKeys| AllocatorSettings::new(&k).unwrap_err().path;
        assert_eq!(
            bad(AllocatorKeys {
                loads: Some(vec![0.5, 2.0]),
                ..keys()
            }),
            "loads[1]"
        );
        assert_eq!(
            bad(AllocatorKeys {
                threshold: Some(0.5),
                ..keys()
            }),
            "threshold"
        );
        assert_eq!(
            bad(AllocatorKeys {
                mode: Some("x".into()),
                ..keys()
            }),
            "mode"
        );
        assert_eq!(
            bad(AllocatorKeys {
                flows: Some(0),
                ..keys()
            }),
            "flows"
        );
        // An empty list is a slip (absent means the workload's own load), and so is a cap
        // of 0 iterations or a step that rounds to 0 ps.
        assert_eq!(
            bad(AllocatorKeys {
                loads: Some(Vec::new()),
                ..keys()
            }),
            "loads"
        );
        assert_eq!(
            bad(AllocatorKeys {
                max_iterations: Some(0),
                ..keys()
            }),
            "max_iterations"
        );
        let e = AllocatorSettings::new(&AllocatorKeys {
            iteration_us: Some(1e-300),
            ..keys()
        })
        .unwrap_err();
        assert_eq!(e.path, "iteration_us");
        assert!(e.reason.contains("is 0 ps"), "{}", e.reason);
        let fgm = SolverKeys {
            name: "fgm".into(),
            label: None,
            gamma: Some(0.5),
        };
        assert_eq!(fgm.solver().unwrap_err().path, "gamma");
        let typo = SolverKeys {
            name: "nedd".into(),
            ..fgm
        };
        assert!(typo
            .solver()
            .unwrap_err()
            .reason
            .contains("did you mean `ned`"));
    }
}
