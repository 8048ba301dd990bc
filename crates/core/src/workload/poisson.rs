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
use std::collections::BTreeMap;

/// Which sender-receiver pairs arrivals may use.
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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

    /// Who sends and how often: the hosts with an allowed receiver, and the fabric's arrival
    /// rate (the module's formula, the one place it is written). Fails when no host pair
    /// is of this workload's [`PairMode`].
    fn arrivals(&self, topo: &Topology, cdf: &Cdf) -> Result<Arrivals, WorkloadError> {
        let hosts = topo.hosts();
        let pairs = Pairs::new(topo, self.pairs);
        let senders: Vec<usize> = (0..hosts.len()).filter(|&s| pairs.count(s) > 0).collect();
        if senders.is_empty() {
            return Err(WorkloadError::invalid(
                "pairs",
                format!("no host pair on this fabric is {:?}", self.pairs),
            ));
        }
        let Some(rate) = topo.host_rate(hosts[0]) else {
            return Err(WorkloadError::invalid(
                "pairs",
                "the fabric's first host has no link, so no load can be set against its rate",
            ));
        };
        let host_rate = rate.bps_f64();
        // Each sending host starts `load * host_rate / (8 * mean_size)` flows a second.
        let per_host = self.load * host_rate / (8.0 * cdf.mean_bytes());
        let per_sec = per_host * senders.len() as f64;
        Ok(Arrivals {
            pairs,
            senders,
            host_rate,
            per_sec,
        })
    }

    /// Mean number of arrivals in `[0, until)` from the hosts that may send under
    /// [`Self::pairs`](PoissonSpec::pairs), before `max_flows` applies; 0 when none may.
    pub fn expected_flows(&self, topo: &Topology, cdf: &Cdf, until: SimTime) -> f64 {
        self.arrivals(topo, cdf)
            .map_or(0.0, |a| a.per_sec * until.as_secs_f64())
    }

    /// Refuses a workload whose mean flow count (capped by `max_flows`) exceeds
    /// [`MAX_FLOWS`](super::MAX_FLOWS), without generating it. Returns the bound on the count.
    /// The load itself is checked by [`Self::validate`] (engines that sweep loads allow their
    /// own range).
    pub fn check_size(
        &self,
        topo: &Topology,
        cdf: &Cdf,
        until: SimTime,
    ) -> Result<u64, WorkloadError> {
        // Checked here, not only when drawing, so that a check that counts refuses it too.
        let expected = self.arrivals(topo, cdf)?.per_sec * until.as_secs_f64();
        let bound = match self.max_flows {
            Some(m) => expected.min(m as f64),
            None => expected,
        };
        if bound > super::MAX_FLOWS as f64 {
            return Err(WorkloadError::invalid(
                "load",
                format!(
                    "load {} over {} hosts for {} s gives about {bound:.3e} flows, more than the {} dctc generates; shorten duration_ms, lower the load or set max_flows",
                    self.load,
                    topo.hosts().len(),
                    until.as_secs_f64(),
                    super::MAX_FLOWS
                ),
            ));
        }
        Ok(bound.ceil() as u64)
    }

    /// Generates arrivals in `[0, until)`, ids starting at `first_id`. Fails before
    /// generating when [`Self::check_size`] does, and stops with an error should the draws
    /// exceed [`MAX_FLOWS`](super::MAX_FLOWS) anyway.
    pub fn generate<R: Rng + ?Sized>(
        &self,
        topo: &Topology,
        cdf: &Cdf,
        until: SimTime,
        first_id: u32,
        rng: &mut R,
    ) -> Result<Vec<FlowSpec>, WorkloadError> {
        self.validate()?;
        self.check_size(topo, cdf, until)?;
        let hosts = topo.hosts();
        let a = self.arrivals(topo, cdf)?;
        let mut flows = Vec::new();
        let mut t = 0.0f64;
        let limit = self.max_flows.unwrap_or(usize::MAX);
        while flows.len() < limit {
            let u: f64 = rng.random();
            t += -(1.0 - u).ln() / a.per_sec;
            let start = SimTime::from_delta(Delta::from_secs_f64(t));
            if start >= until {
                break;
            }
            if flows.len() as u64 >= super::MAX_FLOWS {
                return Err(WorkloadError::invalid(
                    "load",
                    format!(
                        "more than {} flows arrive before duration_ms ends",
                        super::MAX_FLOWS
                    ),
                ));
            }
            let (s, d, size) = a.pairs.draw(&a.senders, cdf, rng);
            flows.push(FlowSpec {
                id: FlowId(first_id + flows.len() as u32),
                src: hosts[s],
                dst: hosts[d],
                size_bytes: Some(size),
                start,
                stop: None,
                coflow: None,
            });
        }
        Ok(flows)
    }

    /// Checks a [`Self::warm_start`] over `window` without drawing it: a load below 1 (a
    /// NIC offered 1 or more never empties, and has no steady state), a host pair of this
    /// workload's mode, and no more arrivals to draw than [`MAX_FLOWS`](super::MAX_FLOWS).
    pub fn check_warm_start(
        &self,
        topo: &Topology,
        cdf: &Cdf,
        window: Delta,
    ) -> Result<(), WorkloadError> {
        self.warm_start_arrivals(topo, cdf, window).map(|_| ())
    }

    /// [`Self::check_warm_start`], returning the arrivals to draw from.
    fn warm_start_arrivals(
        &self,
        topo: &Topology,
        cdf: &Cdf,
        window: Delta,
    ) -> Result<Arrivals, WorkloadError> {
        self.validate()?;
        if self.load >= 1.0 {
            return Err(WorkloadError::invalid(
                "load",
                format!(
                    "a warm start needs a load below 1 (a NIC offered {} never empties, and no steady state exists), got {}",
                    self.load, self.load
                ),
            ));
        }
        let a = self.arrivals(topo, cdf)?;
        let draws = a.per_sec * window.as_secs_f64();
        if draws > super::MAX_FLOWS as f64 {
            return Err(WorkloadError::invalid(
                "load",
                format!(
                    "a warm start of {} s at load {} draws about {draws:.3e} arrivals, more than the {} dctc generates; shorten the warm start",
                    window.as_secs_f64(),
                    self.load,
                    super::MAX_FLOWS
                ),
            ));
        }
        Ok(a)
    }

    /// A warm start: the flows of this workload still in progress at time 0 had its arrivals
    /// run for `window` before it. Arrivals are drawn at the rate of [`Self::generate`],
    /// backward from 0 over `window`, with the same choice of pair and size. Each flow is
    /// taken to have sent at `host_rate * (1 - load)` since it arrived, the mean rate of a
    /// flow in an M/G/1 processor-sharing queue (its sender's NIC shared by the flows on it,
    /// at load `load`), so one that arrived `age` before 0 starts at 0 with
    /// `size - age * host_rate * (1 - load) / 8` bytes, and is dropped when that is nothing.
    /// That is the processor-sharing queue's steady state in the mean: `load / (1 - load)`
    /// flows per host in progress (Little's law), each with the equilibrium share of its size
    /// left. A window as long as the largest flow's time at that rate gives it whole (a longer
    /// one adds only finished flows), so a run starts near its offered load instead of
    /// ramping up to it from an empty fabric, which a heavy-tailed size distribution makes
    /// slow (data-mining's 1 GB flows take 0.8 s at 10 Gb/s). A transport that shares a NIC
    /// less evenly, or a fabric that slows flows further, holds more flows in its own steady
    /// state than this. The flows are numbered from `first_id` in order of age; draw them from
    /// a generator of their own (`streams::WARM_START`), so that the arrivals stay those of a
    /// cold start.
    pub fn warm_start<R: Rng + ?Sized>(
        &self,
        topo: &Topology,
        cdf: &Cdf,
        window: Delta,
        first_id: u32,
        rng: &mut R,
    ) -> Result<Vec<FlowSpec>, WorkloadError> {
        let a = self.warm_start_arrivals(topo, cdf, window)?;
        let hosts = topo.hosts();
        // A flow's mean rate under processor sharing at the sender's NIC, bytes per second.
        let sent_per_sec = a.host_rate / 8.0 * (1.0 - self.load);
        let window = window.as_secs_f64();
        let mut flows = Vec::new();
        let mut age = 0.0f64;
        loop {
            let u: f64 = rng.random();
            age += -(1.0 - u).ln() / a.per_sec;
            if age > window {
                break;
            }
            let (s, d, size) = a.pairs.draw(&a.senders, cdf, rng);
            let left = size as f64 - age * sent_per_sec;
            if left < 1.0 {
                continue;
            }
            flows.push(FlowSpec {
                id: FlowId(first_id + flows.len() as u32),
                src: hosts[s],
                dst: hosts[d],
                size_bytes: Some(left.ceil() as u64),
                start: SimTime::ZERO,
                stop: None,
                coflow: None,
            });
        }
        Ok(flows)
    }
}

/// A workload's senders and arrival rate ([`PoissonSpec::arrivals`]).
struct Arrivals {
    pairs: Pairs,
    /// Host indices (in `topo.hosts()`) with at least one allowed receiver.
    senders: Vec<usize>,
    /// The first host's link rate, b/s: what `load` is a fraction of.
    host_rate: f64,
    /// Arrivals per second over the fabric.
    per_sec: f64,
}

/// The receivers each sender may use under a [`PairMode`], by host index, without an n x n
/// table: hosts are grouped by edge switch (each group in host order), and a sender's `k`-th
/// allowed receiver in host order is found from its group in O(log n).
struct Pairs {
    n: usize,
    mode: PairMode,
    groups: Vec<Vec<usize>>,
    group_of: Vec<usize>,
}

impl Pairs {
    fn new(topo: &Topology, mode: PairMode) -> Pairs {
        let hosts = topo.hosts();
        let mut by_rack: BTreeMap<Option<NodeId>, Vec<usize>> = BTreeMap::new();
        for (i, &h) in hosts.iter().enumerate() {
            by_rack.entry(topo.edge_switch(h)).or_default().push(i);
        }
        let groups: Vec<Vec<usize>> = by_rack.into_values().collect();
        let mut group_of = vec![0usize; hosts.len()];
        for (g, members) in groups.iter().enumerate() {
            for &m in members {
                group_of[m] = g;
            }
        }
        Pairs {
            n: hosts.len(),
            mode,
            groups,
            group_of,
        }
    }

    /// One arrival's sender (among `senders`), receiver and size, in that order of draws.
    fn draw<R: Rng + ?Sized>(
        &self,
        senders: &[usize],
        cdf: &Cdf,
        rng: &mut R,
    ) -> (usize, usize, u64) {
        let s = senders[rng.random_range(0..senders.len())];
        let d = self.kth(s, rng.random_range(0..self.count(s)));
        (s, d, cdf.sample(rng))
    }

    /// How many receivers sender `s` may use.
    fn count(&self, s: usize) -> usize {
        let rack = self.groups[self.group_of[s]].len();
        match self.mode {
            PairMode::Any => self.n - 1,
            PairMode::InterRack => self.n - rack,
            PairMode::IntraRack => rack - 1,
        }
    }

    /// The `k`-th receiver (in host order) sender `s` may use; `k < self.count(s)`.
    fn kth(&self, s: usize, k: usize) -> usize {
        let members = &self.groups[self.group_of[s]];
        match self.mode {
            PairMode::Any => k + usize::from(k >= s),
            PairMode::IntraRack => {
                let own = members.partition_point(|&m| m < s);
                members[k + usize::from(k >= own)]
            }
            PairMode::InterRack => {
                // The k-th host outside `members` is k + j, where j is the number of members
                // below it: the first j with members[j] - j > k.
                let (mut lo, mut hi) = (0, members.len());
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    if members[mid] - mid <= k {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                k + lo
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::preset;
    use crate::rng::component_rng;
    use std::path::Path;

    /// The warm start holds a processor-sharing NIC's steady state: on average
    /// `load / (1 - load)` flows per host in progress (Little's law, each flow at
    /// `(1 - load)` of line rate), all starting at 0, and a window past the largest flow's
    /// time at that rate adds nothing.
    #[test]
    fn warm_start_holds_load_flows_per_host_at_time_zero() {
        let t = preset("holnet-6x6").unwrap().build(Path::new(".")).unwrap();
        let cdf = Cdf::builtin("datamining").unwrap();
        let spec = PoissonSpec {
            cdf: "datamining".into(),
            load: 0.4,
            pairs: PairMode::InterRack,
            max_flows: None,
        };
        // The largest data-mining flow (973 MB) takes 1.3 s at 0.6 x 10 Gb/s.
        let window = Delta::from_ms(1400);
        let (mut count, runs) = (0usize, 20u64);
        for seed in 0..runs {
            let mut rng = component_rng(seed, 1);
            let warm = spec.warm_start(&t, &cdf, window, 7, &mut rng).unwrap();
            let mut longer = component_rng(seed, 1);
            let same = spec
                .warm_start(&t, &cdf, Delta::from_ms(3000), 7, &mut longer)
                .unwrap();
            assert_eq!(warm, same, "a longer window only adds finished flows");
            assert!(warm.iter().all(|f| f.start == SimTime::ZERO));
            assert!(warm
                .iter()
                .all(|f| t.edge_switch(f.src) != t.edge_switch(f.dst)));
            assert!(warm.iter().enumerate().all(|(k, f)| f.id.0 == 7 + k as u32));
            let max = cdf.points().last().unwrap().0;
            assert!(warm
                .iter()
                .all(|f| (1..=max.ceil() as u64).contains(&f.size_bytes.unwrap())));
            count += warm.len();
        }
        // 144 hosts at load 0.4: 144 x 0.4 / 0.6 = 96 flows in progress, a Poisson count
        // (M/G/inf); the mean of 20 has a standard deviation of 2.2. (Line rate would hold
        // 57.6.)
        let mean = count as f64 / runs as f64;
        assert!((mean - 96.0).abs() < 9.0, "mean flows in progress {mean}");
        let over = PoissonSpec {
            load: 1.0,
            ..spec.clone()
        };
        let e = over.warm_start(&t, &cdf, window, 0, &mut component_rng(1, 1));
        assert!(e.unwrap_err().to_string().contains("load"));
        // Without a window nothing is in progress.
        let none = spec
            .warm_start(&t, &cdf, Delta::ZERO, 0, &mut component_rng(1, 1))
            .unwrap();
        assert!(none.is_empty());
    }

    /// Hosts `0..n` under switches by `rack[i]`, 10 Gb/s links.
    fn racks(rack: &[usize]) -> Topology {
        let mut t = Topology::new("racks", Delta::ZERO);
        let switches = rack.iter().max().map_or(0, |&m| m + 1);
        let sw: Vec<_> = (0..switches)
            .map(|i| {
                t.add_node(
                    crate::topology::NodeKind::Switch { tier: 1 },
                    format!("s{i}"),
                )
            })
            .collect();
        for (i, &r) in rack.iter().enumerate() {
            let h = t.add_node(crate::topology::NodeKind::Host, format!("h{i}"));
            let rate = crate::units::Rate::gbps(10);
            t.add_cable(h, sw[r], rate, Delta::ZERO, 2000, 2000);
        }
        t
    }

    /// A bug fixed: the count that checks a workload before it is drawn took every host for a
    /// sender, so `dctc validate` (which counts, and draws only small workloads) accepted
    /// inter-rack arrivals on a one-switch fabric that the run, drawing them, refused. The
    /// count now refuses it, and counts only the hosts that may send.
    #[test]
    fn the_count_refuses_a_mode_no_pair_has_and_counts_only_hosts_that_may_send() {
        let cdf = Cdf::builtin("fb-web").unwrap();
        let spec = PoissonSpec {
            cdf: "fb-web".into(),
            load: 0.5,
            pairs: PairMode::InterRack,
            max_flows: None,
        };
        let one_switch = racks(&[0; 8]);
        let until = SimTime::from_delta(Delta::from_ms(500));
        let e = spec.check_size(&one_switch, &cdf, until).unwrap_err();
        assert!(e.to_string().starts_with("pairs:"), "{e}");
        assert_eq!(spec.expected_flows(&one_switch, &cdf, until), 0.0);
        let e = spec.check_warm_start(&one_switch, &cdf, Delta::from_ms(1));
        assert!(e.unwrap_err().to_string().starts_with("pairs:"));
        // Intra-rack, host 4 alone in its rack: four of five hosts send.
        let lone = racks(&[0, 0, 0, 0, 1]);
        let intra = PoissonSpec {
            pairs: PairMode::IntraRack,
            ..spec
        };
        let expected = intra.expected_flows(&lone, &cdf, until);
        let drawn = intra
            .generate(&lone, &cdf, until, 0, &mut component_rng(5, 1))
            .unwrap();
        assert!(drawn.iter().all(|f| f.src != lone.hosts()[4]));
        // About 1.5e4 arrivals, a Poisson count (standard deviation 1%); five senders
        // would expect 25% more.
        let ratio = drawn.len() as f64 / expected;
        assert!((ratio - 1.0).abs() < 0.05, "drawn / expected {ratio}");
        assert_eq!(
            intra.check_size(&lone, &cdf, until).unwrap(),
            expected.ceil() as u64
        );
    }

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
    fn pair_lookup_matches_the_full_receiver_lists() {
        // A file-like fabric whose racks are not contiguous in host order, and a preset.
        let mut t = Topology::new("odd", Delta::ZERO);
        let sw: Vec<_> = (0..3)
            .map(|i| {
                t.add_node(
                    crate::topology::NodeKind::Switch { tier: 1 },
                    format!("s{i}"),
                )
            })
            .collect();
        for i in 0..11 {
            let h = t.add_node(crate::topology::NodeKind::Host, format!("h{i}"));
            let r = crate::units::Rate::gbps(10);
            t.add_cable(
                h,
                sw[[0, 1, 0, 2, 2, 0, 1, 0, 0, 2, 1][i]],
                r,
                Delta::ZERO,
                2000,
                2000,
            );
        }
        let preset = preset("flowtune-144")
            .unwrap()
            .build(Path::new("."))
            .unwrap();
        for topo in [&t, &preset] {
            let hosts = topo.hosts();
            let rack: Vec<_> = hosts.iter().map(|&h| topo.edge_switch(h)).collect();
            for mode in [PairMode::Any, PairMode::InterRack, PairMode::IntraRack] {
                let pairs = Pairs::new(topo, mode);
                for s in 0..hosts.len() {
                    let full: Vec<usize> = (0..hosts.len())
                        .filter(|&d| {
                            d != s
                                && match mode {
                                    PairMode::Any => true,
                                    PairMode::InterRack => rack[d] != rack[s],
                                    PairMode::IntraRack => rack[d] == rack[s],
                                }
                        })
                        .collect();
                    assert_eq!(pairs.count(s), full.len(), "{mode:?} sender {s}");
                    for (k, &d) in full.iter().enumerate() {
                        assert_eq!(pairs.kth(s, k), d, "{mode:?} sender {s} k {k}");
                    }
                }
            }
        }
    }

    #[test]
    fn too_many_flows_are_refused_before_generating() {
        let t = preset("flowtune-144")
            .unwrap()
            .build(Path::new("."))
            .unwrap();
        let cdf = Cdf::builtin("websearch").unwrap();
        let spec = PoissonSpec {
            cdf: "websearch".into(),
            load: 0.3,
            pairs: PairMode::Any,
            max_flows: None,
        };
        // duration_ms = 1e12 in the scenario's terms; at ~3e4 arrivals/s that is ~1e13 flows.
        let until = SimTime::from_delta(Delta::from_secs_f64(1e9));
        let e = spec
            .generate(&t, &cdf, until, 0, &mut component_rng(3, 1))
            .unwrap_err();
        assert!(e.to_string().starts_with("load:"), "{e}");
        assert!(e.to_string().contains("flows"), "{e}");
        // max_flows bounds the count: the same spec with a cap is fine.
        let capped = PoissonSpec {
            max_flows: Some(1000),
            ..spec
        };
        assert_eq!(capped.check_size(&t, &cdf, until).unwrap(), 1000);
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
