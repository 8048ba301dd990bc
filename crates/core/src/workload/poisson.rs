//! Poisson flow arrivals at a target load.
//!
//! Load is offered bytes per second per host divided by the host link rate: at load `rho`,
//! each host starts flows at `rho * host_rate / (8 * mean_size)` per second (100% load = the
//! host link rate divided by the mean flow size). Each arrival picks its sender uniformly among
//! hosts and its receiver uniformly among the hosts the pair mode allows.

use super::{Cdf, WorkloadError};
use crate::ids::{FlowId, NodeId};
use crate::spec::FlowSpec;
use crate::topology::Topology;
use crate::units::{Delta, SimTime};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Which sender-receiver pairs arrivals may use.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairMode {
    /// Any two distinct hosts.
    #[default]
    Any,
    /// Hosts under different edge switches.
    InterRack,
    /// Hosts under the same edge switch.
    IntraRack,
}

/// Poisson arrivals as a scenario describes them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoissonSpec {
    /// A built-in CDF name (`websearch`, `datamining`, `fb-web`, `fb-cache`, `fb-hadoop`) or a
    /// CDF file path.
    pub cdf: String,
    /// Offered load per host as a fraction of the host link rate, in (0, 1].
    pub load: f64,
    /// Which pairs may talk.
    #[serde(default)]
    pub pairs: PairMode,
    /// Stop after this many flows (default: no limit, arrivals run until the duration ends).
    #[serde(default)]
    pub max_flows: Option<usize>,
}

impl PoissonSpec {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        if !(self.load.is_finite() && self.load > 0.0 && self.load <= 1.5) {
            return Err(WorkloadError::invalid(
                "load",
                format!("must be in (0, 1.5], got {}", self.load),
            ));
        }
        if self.max_flows == Some(0) {
            return Err(WorkloadError::invalid("max_flows", "must be at least 1"));
        }
        Ok(())
    }

    /// Generates arrivals in `[0, until)`, ids starting at `first_id`.
    pub fn generate<R: Rng + ?Sized>(
        &self,
        topo: &Topology,
        cdf: &Cdf,
        until: SimTime,
        first_id: u32,
        rng: &mut R,
    ) -> Result<Vec<FlowSpec>, WorkloadError> {
        self.validate()?;
        let hosts = topo.hosts();
        let rack: Vec<Option<NodeId>> = hosts.iter().map(|&h| topo.edge_switch(h)).collect();
        // Receivers each sender may use, by host index.
        let allowed: Vec<Vec<usize>> = (0..hosts.len())
            .map(|s| {
                (0..hosts.len())
                    .filter(|&d| {
                        d != s
                            && match self.pairs {
                                PairMode::Any => true,
                                PairMode::InterRack => rack[d] != rack[s],
                                PairMode::IntraRack => rack[d] == rack[s],
                            }
                    })
                    .collect()
            })
            .collect();
        let senders: Vec<usize> = (0..hosts.len())
            .filter(|&s| !allowed[s].is_empty())
            .collect();
        if senders.is_empty() {
            return Err(WorkloadError::invalid(
                "pairs",
                format!("no host pair on this fabric is {:?}", self.pairs),
            ));
        }
        let host_rate = topo
            .host_rate(hosts[0])
            .expect("hosts have a NIC")
            .bps_f64();
        let per_host = self.load * host_rate / (8.0 * cdf.mean_bytes());
        let total_rate = per_host * senders.len() as f64; // arrivals per second
        let mut flows = Vec::new();
        let mut t = 0.0f64;
        let limit = self.max_flows.unwrap_or(usize::MAX);
        while flows.len() < limit {
            let u: f64 = rng.random();
            t += -(1.0 - u).ln() / total_rate;
            let start = SimTime::from_delta(Delta::from_secs_f64(t));
            if start >= until {
                break;
            }
            let s = senders[rng.random_range(0..senders.len())];
            let d = allowed[s][rng.random_range(0..allowed[s].len())];
            flows.push(FlowSpec {
                id: FlowId(first_id + flows.len() as u32),
                src: hosts[s],
                dst: hosts[d],
                size_bytes: Some(cdf.sample(rng)),
                start,
                stop: None,
                coflow: None,
            });
        }
        Ok(flows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::preset;
    use crate::rng::component_rng;
    use std::path::Path;

    #[test]
    fn offered_load_matches_target() {
        let t = preset("flowtune-144")
            .unwrap()
            .build(Path::new("."))
            .unwrap();
        let cdf = Cdf::builtin("fb-web").unwrap();
        let spec = PoissonSpec {
            cdf: "fb-web".into(),
            load: 0.6,
            pairs: PairMode::Any,
            max_flows: None,
        };
        let until = SimTime::from_delta(Delta::from_ms(50));
        let flows = spec
            .generate(&t, &cdf, until, 0, &mut component_rng(3, 1))
            .unwrap();
        let bytes: u64 = flows.iter().map(|f| f.size_bytes.unwrap()).sum();
        let offered = bytes as f64 * 8.0 / 0.05 / 144.0 / 10e9;
        assert!((offered - 0.6).abs() < 0.05, "offered load {offered}");
        assert!(flows.windows(2).all(|w| w[0].start <= w[1].start));
        assert!(flows.iter().all(|f| f.src != f.dst));
    }

    #[test]
    fn inter_rack_pairs_cross_racks() {
        let t = preset("flowtune-144")
            .unwrap()
            .build(Path::new("."))
            .unwrap();
        let cdf = Cdf::builtin("fb-web").unwrap();
        let spec = PoissonSpec {
            cdf: "fb-web".into(),
            load: 0.5,
            pairs: PairMode::InterRack,
            max_flows: Some(500),
        };
        let flows = spec
            .generate(&t, &cdf, SimTime::NEVER, 10, &mut component_rng(3, 1))
            .unwrap();
        assert_eq!(flows.len(), 500);
        assert_eq!(flows[0].id, FlowId(10));
        assert!(flows
            .iter()
            .all(|f| t.edge_switch(f.src) != t.edge_switch(f.dst)));
    }

    #[test]
    fn bad_load_is_rejected() {
        let spec = PoissonSpec {
            cdf: "fb-web".into(),
            load: -0.1,
            pairs: PairMode::Any,
            max_flows: None,
        };
        assert!(spec
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("load:"));
    }
}
