//! Path choice at flow level.
//!
//! - `ecmp`: a hash of the flow picks one equal-cost path for its lifetime (Hopps, RFC 2992).
//! - `hedera`: ECMP at start; every `period` a central scheduler moves large flows (current
//!   natural demand above `threshold` x host link rate) by global first fit: in flow order,
//!   each large flow takes the first equal-cost path whose links still have room for its
//!   demand (reservations start empty each round); a flow that fits nowhere keeps its path.
//!   Demand = Hedera's estimate: the flow's max-min fair rate when only host NICs limit it.
//! - `conga`: at flow start, the equal-cost path whose most utilized link (current load /
//!   capacity) is least utilized; ties go to the flow's ECMP choice order. Flowlets are not
//!   modelled: a fluid flow is one flowlet.
//! - `drill`: per-packet load balancing in the fluid limit: the flow's rate is spread evenly
//!   over all equal-cost paths (each link carries the fraction of paths through it).

use crate::alloc::WaterFill;
use crate::error::FlowError;
use crate::net::{Hop, Net};
use dctc_core::error::unknown_name;
use dctc_core::rng::mix64;
use dctc_core::units::Delta;

/// Most equal-cost paths considered per host pair.
pub const PATH_LIMIT: usize = 256;

/// Flow-level routing names and descriptions (for `dctc list`).
pub const ROUTINGS: &[(&str, &str)] = &[
    (
        "ecmp",
        "per-flow ECMP: a hash of the flow picks one equal-cost path",
    ),
    (
        "hedera",
        "ECMP, plus periodic global first fit of large flows (Hedera-like)",
    ),
    (
        "conga",
        "least congested equal-cost path at flow start (CONGA-like, one flowlet per flow)",
    ),
    (
        "drill",
        "rate spread evenly over all equal-cost paths (DRILL-like per-packet balancing)",
    ),
];

/// How flows pick paths.
#[derive(Clone, Debug, PartialEq)]
pub enum RoutingMode {
    /// Per-flow hash.
    Ecmp,
    /// Periodic first fit of large flows.
    Hedera {
        /// Rescheduling period.
        period: Delta,
        /// A flow is large above this fraction of its host link rate.
        threshold: f64,
    },
    /// Least congested path at start.
    Conga,
    /// Rate spread over all equal-cost paths.
    Drill,
}

impl RoutingMode {
    /// Parses a routing name with default parameters (Hedera: 5 ms period, 10% threshold).
    pub fn from_name(name: &str) -> Result<RoutingMode, FlowError> {
        Ok(match name {
            "ecmp" => RoutingMode::Ecmp,
            "hedera" => RoutingMode::Hedera {
                period: Delta::from_ms(5),
                threshold: 0.1,
            },
            "conga" => RoutingMode::Conga,
            "drill" => RoutingMode::Drill,
            _ => {
                let names: Vec<&str> = ROUTINGS.iter().map(|r| r.0).collect();
                return Err(FlowError::invalid(
                    "routing",
                    unknown_name("routing", name, &names),
                ));
            }
        })
    }

    /// The name.
    pub fn name(&self) -> &'static str {
        match self {
            RoutingMode::Ecmp => "ecmp",
            RoutingMode::Hedera { .. } => "hedera",
            RoutingMode::Conga => "conga",
            RoutingMode::Drill => "drill",
        }
    }
}

/// The hash a flow's ECMP choice uses.
pub fn flow_hash(seed: u64, flow: u32) -> u64 {
    mix64(seed ^ mix64(flow as u64 ^ 0x00f1_0a5e_ed00_0001))
}

/// The route of a new flow under `mode`; `load[l]` is the current traffic on each link (b/s).
pub fn route(
    net: &Net,
    mode: &RoutingMode,
    seed: u64,
    flow: u32,
    src: u32,
    dst: u32,
    load: &[f64],
) -> Vec<Hop> {
    match mode {
        RoutingMode::Ecmp | RoutingMode::Hedera { .. } => net.ecmp(src, dst, flow_hash(seed, flow)),
        RoutingMode::Drill => net.spread(src, dst, PATH_LIMIT),
        RoutingMode::Conga => {
            let paths = net.paths(src, dst, PATH_LIMIT);
            let n = paths.len();
            let first = (flow_hash(seed, flow) % n as u64) as usize;
            let mut best: Option<(f64, usize)> = None;
            for k in 0..n {
                let p = &paths[(first + k) % n];
                let util = p
                    .iter()
                    .map(|l| load[l.index()] / net.cap[l.index()])
                    .fold(0.0, f64::max);
                if best.is_none_or(|(u, _)| util < u - 1e-12) {
                    best = Some((util, (first + k) % n));
                }
            }
            let pick = best.map(|b| b.1).unwrap_or(0);
            paths[pick]
                .iter()
                .map(|l| Hop {
                    link: l.0,
                    coef: 1.0,
                })
                .collect()
        }
    }
}

/// A periodic rerouting hook (a routing mode that moves flows while they run): every
/// `period` the loop settles the active flows and asks the hook which to move; it applies the
/// moves and re-solves the rates.
pub trait Reroute {
    /// How often it runs.
    fn period(&self) -> Delta;
    /// For the active flows `active` (sorted flow numbers, remaining bytes current), pushes
    /// `(flow, links of its new route)` for each flow to move, in the order to apply them.
    fn reroute(
        &mut self,
        net: &Net,
        flows: &crate::state::Flows,
        active: &[u32],
        moves: &mut Vec<(u32, Vec<u32>)>,
    );
}

/// Hedera's scheduler (Al-Fares et al., NSDI 2010) in fluid form: each flow's natural demand
/// is its max-min fair rate when only the host links limit it; flows whose demand exceeds
/// `threshold` of their host's link rate are placed by global first fit on the first
/// equal-cost path with room for the demand (reserved in flow order), others stay.
#[derive(Clone, Debug)]
pub struct Hedera {
    period: Delta,
    threshold: f64,
    wf: WaterFill,
}

impl Hedera {
    /// Every `period`, for flows above `threshold` of their host's link rate.
    pub fn new(period: Delta, threshold: f64, links: usize) -> Hedera {
        Hedera {
            period,
            threshold,
            wf: WaterFill::new(links),
        }
    }
}

impl Reroute for Hedera {
    fn period(&self) -> Delta {
        self.period
    }

    fn reroute(
        &mut self,
        net: &Net,
        flows: &crate::state::Flows,
        active: &[u32],
        moves: &mut Vec<(u32, Vec<u32>)>,
    ) {
        // Demand estimation: max-min over the host (edge) links only.
        let edge_hops: Vec<Vec<Hop>> = active
            .iter()
            .map(|&f| {
                flows
                    .hops(f as usize)
                    .iter()
                    .filter(|h| net.is_edge[h.link as usize])
                    .copied()
                    .collect()
            })
            .collect();
        let mut demands = vec![0.0f64; active.len()];
        let mut avail = net.cap.clone();
        self.wf.fill(
            &mut avail,
            active.len(),
            |k| &edge_hops[k],
            |_| 1.0,
            |_| f64::INFINITY,
            &mut demands,
        );
        let mut reserved = vec![0.0f64; net.links()];
        for (k, &f) in active.iter().enumerate() {
            let fu = f as usize;
            let (src, dst) = (flows.src[fu], flows.dst[fu]);
            let host_rate = net.cap[net.host_up[src as usize] as usize];
            let demand = demands[k];
            if demand <= self.threshold * host_rate {
                continue;
            }
            let paths = net.paths(src, dst, PATH_LIMIT);
            let fits = paths.iter().position(|p| {
                p.iter()
                    .all(|l| reserved[l.index()] + demand <= net.cap[l.index()] * (1.0 + 1e-12))
            });
            let current: Vec<u32> = flows.hops(fu).iter().map(|h| h.link).collect();
            let chosen: Vec<u32> = match fits {
                Some(k) => paths[k].iter().map(|l| l.0).collect(),
                None => current.clone(),
            };
            for &l in &chosen {
                reserved[l as usize] += demand;
            }
            if chosen != current {
                moves.push((f, chosen));
            }
        }
    }
}

impl RoutingMode {
    /// The rerouting hook this mode runs while flows are active, if any (Hedera's).
    pub fn reroute_hook(&self, links: usize) -> Option<Box<dyn Reroute>> {
        match *self {
            RoutingMode::Hedera { period, threshold } => {
                Some(Box::new(Hedera::new(period, threshold, links)))
            }
            _ => None,
        }
    }
}
