//! The JSON problem format read by `dctc num solve` (documented in the crate README).

use crate::problem::{NumFlow, Problem, ProblemError};
use crate::utility::{holnet_utility, CenterError, Utility};
use serde::Deserialize;
use std::collections::BTreeSet;

/// A whole problem.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProblemSpec {
    /// Links.
    pub links: Vec<LinkSpec>,
    /// Flows.
    pub flows: Vec<FlowJson>,
}

/// One link.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Name.
    pub id: String,
    /// Capacity, b/s.
    pub capacity_bps: f64,
}

/// One flow.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowJson {
    /// Name.
    pub id: String,
    /// Paths, each a list of link ids.
    pub paths: Vec<Vec<String>>,
    /// Utility (default `{"kind": "log", "weight": 1}`).
    #[serde(default)]
    pub utility: UtilitySpec,
    /// Minimum total rate theta, b/s.
    #[serde(default)]
    pub min_bps: f64,
    /// Maximum total rate Theta, b/s (`null` for none).
    #[serde(default)]
    pub max_bps: Option<f64>,
}

fn one() -> f64 {
    1.0
}
fn one_mbps() -> f64 {
    1e6
}

/// A utility in JSON.
#[derive(Clone, Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum UtilitySpec {
    /// `w log x`.
    Log {
        /// w (default 1).
        #[serde(default = "one")]
        weight: f64,
    },
    /// `w x^(1-alpha)/(1-alpha)`.
    Alpha {
        /// w (default 1).
        #[serde(default = "one")]
        weight: f64,
        /// alpha.
        alpha: f64,
    },
    /// DBA's `b^(1-eps)/T`.
    Dba {
        /// eps.
        epsilon: f64,
        /// T, seconds.
        remaining_time_s: f64,
    },
    /// TCP Reno (congestion avoidance).
    TcpReno {
        /// w (default 1).
        #[serde(default = "one")]
        weight: f64,
        /// Additive increase mu.
        mu: f64,
        /// Multiplicative decrease beta.
        beta: f64,
    },
    /// HOLNET: alpha-fair base utility weighted by the center of utility of `user`.
    Holnet {
        /// Base utility's alpha.
        alpha: f64,
        /// R_s, b/s.
        saturated_bps: f64,
        /// x_0^c, b/s (default 1e6).
        #[serde(default = "one_mbps")]
        base_center_bps: f64,
        /// The user utility U(x), x in b/s.
        user: UserUtility,
    },
}

impl Default for UtilitySpec {
    fn default() -> Self {
        UtilitySpec::Log { weight: 1.0 }
    }
}

/// User utilities for HOLNET's center of utility (x in b/s).
#[derive(Clone, Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum UserUtility {
    /// `log(1 + x)` (NRE).
    Log1p,
    /// `x^(1-alpha)/(1-alpha)` (log for alpha = 1 is not offered: `U(R_s)` may be negative).
    Alpha {
        /// alpha, not 1.
        alpha: f64,
    },
    /// `(x - knee)^(1/3) + knee^(1/3)` (RRA, HOLNET §IV-A).
    Rra {
        /// The knee X^RRA, b/s.
        knee_bps: f64,
    },
}

impl UserUtility {
    fn eval(&self, x: f64) -> f64 {
        match *self {
            UserUtility::Log1p => x.ln_1p(),
            UserUtility::Alpha { alpha } => x.powf(1.0 - alpha) / (1.0 - alpha),
            UserUtility::Rra { knee_bps } => (x - knee_bps).cbrt() + knee_bps.cbrt(),
        }
    }
}

/// Errors building a [`Problem`] from a [`ProblemSpec`].
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// The problem itself is bad.
    #[error(transparent)]
    Problem(#[from] ProblemError),
    /// A HOLNET utility whose center of utility cannot be computed.
    #[error("flow `{flow}`: {source}")]
    Center {
        /// Flow name.
        flow: String,
        /// Why.
        source: CenterError,
    },
}

impl UtilitySpec {
    /// The utility this spec describes.
    pub fn build(&self, flow: &str) -> Result<Utility, SpecError> {
        Ok(match *self {
            UtilitySpec::Log { weight } => Utility::Log { weight },
            UtilitySpec::Alpha { weight, alpha } => Utility::Alpha { weight, alpha },
            UtilitySpec::Dba {
                epsilon,
                remaining_time_s,
            } => Utility::Dba {
                epsilon,
                remaining_time_s,
            },
            UtilitySpec::TcpReno { weight, mu, beta } => Utility::TcpReno { weight, mu, beta },
            UtilitySpec::Holnet {
                alpha,
                saturated_bps,
                base_center_bps,
                ref user,
            } => holnet_utility(&|x| user.eval(x), saturated_bps, alpha, base_center_bps).map_err(
                |source| SpecError::Center {
                    flow: flow.to_string(),
                    source,
                },
            )?,
        })
    }
}

impl ProblemSpec {
    /// Builds the problem; the rate unit is the largest capacity, and the utility gain is
    /// chosen by [`Problem::autoscale`] (so that the same problem written in b/s, Mb/s or
    /// Gb/s is the same problem in the scaled unit).
    pub fn build(&self) -> Result<Problem, SpecError> {
        let unit = self
            .links
            .iter()
            .map(|l| l.capacity_bps)
            .filter(|c| c.is_finite() && *c > 0.0)
            .fold(0.0, f64::max);
        let mut p = Problem::new(if unit > 0.0 { unit } else { 1.0 });
        for l in &self.links {
            p.add_link(l.id.clone(), l.capacity_bps)?;
        }
        let mut names = BTreeSet::new();
        for f in &self.flows {
            if !names.insert(f.id.as_str()) {
                return Err(ProblemError::DuplicateFlow { flow: f.id.clone() }.into());
            }
            let mut paths = Vec::new();
            for path in &f.paths {
                let mut idx = Vec::new();
                for name in path {
                    match p.link_by_name(name) {
                        Some(i) => idx.push(i),
                        None => {
                            return Err(ProblemError::UnknownLink {
                                flow: f.id.clone(),
                                link: name.clone(),
                            }
                            .into())
                        }
                    }
                }
                paths.push(idx);
            }
            p.add_flow(NumFlow {
                name: f.id.clone(),
                paths,
                utility: f.utility.build(&f.id)?,
                min_bps: f.min_bps,
                max_bps: f.max_bps.unwrap_or(f64::INFINITY),
            })?;
        }
        p.autoscale();
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_example() {
        let text = r#"{"links": [{"id": "l0", "capacity_bps": 1e10}, {"id": "l1", "capacity_bps": 1e10}],
          "flows": [{"id": "f0", "paths": [["l0", "l1"]],
                     "utility": {"kind": "log", "weight": 1.0},
                     "min_bps": 0, "max_bps": null},
                    {"id": "f1", "paths": [["l1"]],
                     "utility": {"kind": "holnet", "alpha": 0.75, "saturated_bps": 1e8,
                                 "user": {"kind": "rra", "knee_bps": 2e7}}}]}"#;
        let spec: ProblemSpec = serde_json::from_str(text).unwrap();
        let p = spec.build().unwrap();
        assert_eq!(p.flows(), 2);
        assert_eq!(p.links(), 2);
    }

    #[test]
    fn unknown_link_and_duplicate_flow_are_named() {
        let text = r#"{"links": [{"id": "l0", "capacity_bps": 1e10}],
          "flows": [{"id": "f0", "paths": [["l0", "nope"]]}]}"#;
        let spec: ProblemSpec = serde_json::from_str(text).unwrap();
        let e = spec.build().unwrap_err().to_string();
        assert!(e.contains("f0") && e.contains("nope"), "{e}");
        let text = r#"{"links": [{"id": "l0", "capacity_bps": 1e10}],
          "flows": [{"id": "f0", "paths": [["l0"]]}, {"id": "f0", "paths": [["l0"]]}]}"#;
        let spec: ProblemSpec = serde_json::from_str(text).unwrap();
        assert!(matches!(
            spec.build(),
            Err(SpecError::Problem(ProblemError::DuplicateFlow { .. }))
        ));
    }

    #[test]
    fn bad_center_is_named() {
        let text = r#"{"links": [{"id": "l0", "capacity_bps": 1e10}],
          "flows": [{"id": "f9", "paths": [["l0"]], "utility": {"kind": "holnet", "alpha": 0.5,
             "saturated_bps": -1, "user": {"kind": "log1p"}}}]}"#;
        let spec: ProblemSpec = serde_json::from_str(text).unwrap();
        let e = spec.build().unwrap_err();
        assert!(
            matches!(e, SpecError::Center { ref flow, .. } if flow == "f9"),
            "{e}"
        );
    }
}
