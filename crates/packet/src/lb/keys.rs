//! Scenario keys of the load balancers that take parameters, under `[packet]`:
//!
//! ```toml
//! [packet]
//! load_balancer = "drill"        # or "holnet-percentage" (per scheme: `load_balancer = ...`)
//! drill = { samples = 2, memory = 1 }
//! percentage_lb = { update_us = 41, r_min = 0.1, r_max = 1.5, congested_fraction = 0.8, gain = 0.1, initial = [0.5, 0.5] }
//! ```

use super::{DrillParams, PercentageParams};
use dctc_core::config::KeyError;
use dctc_core::topology::Topology;
use dctc_core::units::checked::{self, SpanRule};
use dctc_core::units::Delta;
use serde::{Deserialize, Serialize};

/// `[packet].drill`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrillKnobs {
    /// Random samples per decision, DRILL's d (default 2).
    #[serde(default)]
    pub samples: Option<u32>,
    /// Remembered ports per switch, DRILL's m (default 1).
    #[serde(default)]
    pub memory: Option<u32>,
}

/// `[packet].percentage_lb`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PercentageKnobs {
    /// Update interval, us (default: a quarter of the empty inter-leaf RTT).
    #[serde(default)]
    pub update_us: Option<f64>,
    /// Table II's r_min, in (0, 1) (default 0.1).
    #[serde(default)]
    pub r_min: Option<f64>,
    /// Table II's r_max, above 1 (default 1.5).
    #[serde(default)]
    pub r_max: Option<f64>,
    /// Queue fraction of the buffer at which a port is congested, in (0, 1] (default 0.8).
    #[serde(default)]
    pub congested_fraction: Option<f64>,
    /// Step of one eq. (17) update, in (0, 1] (default 0.1).
    #[serde(default)]
    pub gain: Option<f64>,
    /// Initial percentages, one per leaf uplink, summing to 1 (default: by capacity).
    #[serde(default)]
    pub initial: Option<Vec<f64>>,
}

/// The resolved parameters of every balancer that takes any.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LbParams {
    /// DRILL's.
    pub drill: DrillParams,
    /// The percentage balancer's.
    pub percentage: PercentageParams,
}

fn err(key: &str, reason: impl Into<String>) -> KeyError {
    KeyError::new(format!("packet.{key}"), reason)
}

impl LbParams {
    /// Resolves `[packet].drill` and `[packet].percentage_lb` on `topo`.
    pub fn resolve(
        drill: Option<&DrillKnobs>,
        pct: Option<&PercentageKnobs>,
        topo: &Topology,
    ) -> Result<LbParams, KeyError> {
        let mut out = LbParams::default();
        if let Some(d) = drill {
            if let Some(s) = d.samples {
                if !(1..=super::drill::MAX_SAMPLES).contains(&s) {
                    return Err(err(
                        "drill.samples",
                        format!("must be 1..={}, got {s}", super::drill::MAX_SAMPLES),
                    ));
                }
                out.drill.samples = s;
            }
            if let Some(m) = d.memory {
                if m > super::drill::MAX_MEMORY {
                    return Err(err(
                        "drill.memory",
                        format!("must be 0..={}, got {m}", super::drill::MAX_MEMORY),
                    ));
                }
                out.drill.memory = m;
            }
        }
        let Some(p) = pct else {
            return Ok(out);
        };
        let q = &mut out.percentage;
        let open = |key: &str, v: Option<f64>, ok: &dyn Fn(f64) -> bool, what: &str| match v {
            Some(x) if !(x.is_finite() && ok(x)) => Err(err(
                &format!("percentage_lb.{key}"),
                format!("{what}, got {x}"),
            )),
            _ => Ok(v),
        };
        if let Some(u) = p.update_us {
            q.update = Some(checked::span_us(
                "packet.percentage_lb.update_us",
                u,
                SpanRule::positive(Delta::MAX_SCENARIO),
            )?);
        }
        if let Some(r) = open(
            "r_min",
            p.r_min,
            &|x| x > 0.0 && x < 1.0,
            "must lie in (0, 1)",
        )? {
            q.r_min = r;
        }
        if let Some(r) = open("r_max", p.r_max, &|x| x > 1.0, "must exceed 1")? {
            q.r_max = r;
        }
        if let Some(f) = open(
            "congested_fraction",
            p.congested_fraction,
            &|x| x > 0.0 && x <= 1.0,
            "must lie in (0, 1]",
        )? {
            q.congested_fraction = f;
        }
        if let Some(g) = open(
            "gain",
            p.gain,
            &|x| x > 0.0 && x <= 1.0,
            "must lie in (0, 1]",
        )? {
            q.gain = g;
        }
        if let Some(v) = &p.initial {
            let key = "percentage_lb.initial";
            if let Some(x) = v.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
                return Err(err(key, format!("percentages must be >= 0, got {x}")));
            }
            let sum: f64 = v.iter().sum();
            if (sum - 1.0).abs() > 1e-6 {
                return Err(err(
                    key,
                    format!("percentages must sum to 1, these sum to {sum}"),
                ));
            }
            // One percentage per uplink of every leaf (links from a switch with hosts to
            // other switches).
            for &h in topo.hosts() {
                let Some(leaf) = topo.edge_switch(h) else {
                    continue;
                };
                let up = topo
                    .out_links(leaf)
                    .iter()
                    .filter(|&&l| !topo.is_host(topo.link(l).to))
                    .count();
                if up != v.len() {
                    return Err(err(
                        key,
                        format!(
                            "lists {} percentages but leaf `{}` has {up} uplinks",
                            v.len(),
                            topo.node(leaf).name
                        ),
                    ));
                }
            }
            q.initial = Some(v.clone());
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dctc_core::fabric::preset;

    fn knobs(initial: Vec<f64>) -> PercentageKnobs {
        PercentageKnobs {
            initial: Some(initial),
            ..Default::default()
        }
    }

    #[test]
    fn a_percentage_vector_must_sum_to_one_and_fit_the_leaves() {
        let topo = preset("holnet-6x6")
            .unwrap()
            .build(std::path::Path::new("."))
            .unwrap();
        let ok = LbParams::resolve(None, Some(&knobs(vec![1.0 / 6.0; 6])), &topo).unwrap();
        assert_eq!(ok.percentage.initial.unwrap().len(), 6);
        let e = LbParams::resolve(None, Some(&knobs(vec![0.2; 6])), &topo).unwrap_err();
        assert_eq!(e.path, "packet.percentage_lb.initial");
        assert!(e.reason.contains("sum to 1"), "{}", e.reason);
        let e = LbParams::resolve(None, Some(&knobs(vec![0.5, 0.5])), &topo).unwrap_err();
        assert_eq!(e.path, "packet.percentage_lb.initial");
        assert!(e.reason.contains("6 uplinks"), "{}", e.reason);
        let e = LbParams::resolve(
            None,
            Some(&knobs(vec![1.5, -0.5, 0.0, 0.0, 0.0, 0.0])),
            &topo,
        )
        .unwrap_err();
        assert!(e.reason.contains(">= 0"), "{}", e.reason);
    }

    #[test]
    fn out_of_range_parameters_name_their_key() {
        let topo = preset("holnet-6x6")
            .unwrap()
            .build(std::path::Path::new("."))
            .unwrap();
        let cases = [
            (
                PercentageKnobs {
                    r_min: Some(1.0),
                    ..Default::default()
                },
                "r_min",
            ),
            (
                PercentageKnobs {
                    r_max: Some(0.9),
                    ..Default::default()
                },
                "r_max",
            ),
            (
                PercentageKnobs {
                    gain: Some(0.0),
                    ..Default::default()
                },
                "gain",
            ),
            (
                PercentageKnobs {
                    update_us: Some(-1.0),
                    ..Default::default()
                },
                "update_us",
            ),
            (
                PercentageKnobs {
                    congested_fraction: Some(1.2),
                    ..Default::default()
                },
                "congested_fraction",
            ),
        ];
        for (k, key) in cases {
            let e = LbParams::resolve(None, Some(&k), &topo).unwrap_err();
            assert_eq!(e.path, format!("packet.percentage_lb.{key}"));
        }
        let d = DrillKnobs {
            samples: Some(0),
            memory: None,
        };
        assert_eq!(
            LbParams::resolve(Some(&d), None, &topo).unwrap_err().path,
            "packet.drill.samples"
        );
        let d = DrillKnobs {
            samples: None,
            memory: Some(99),
        };
        assert_eq!(
            LbParams::resolve(Some(&d), None, &topo).unwrap_err().path,
            "packet.drill.memory"
        );
    }
}
