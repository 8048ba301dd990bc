//! Load balancers: which of the equal-cost next hops a packet takes at a node. One file per
//! balancer; [`Balancer`] is the closed set the engine dispatches on. A balancer sees the
//! packet and the live queue length of each candidate port, so queue-aware per-packet schemes
//! (DRILL, HOLNET's percentage balancer) and flowlet schemes (CONGA) fit the same hook.

pub mod drill;
pub mod ecmp;
pub mod keys;
pub mod percentage;
pub mod spray;

pub use drill::{Drill, DrillParams};
pub use ecmp::Ecmp;
pub use keys::LbParams;
pub use percentage::{Percentage, PercentageParams};
pub use spray::Spray;

use crate::packet::Packet;
use dctc_core::ids::{LinkId, NodeId};
use dctc_core::units::{Delta, SimTime};

/// Load balancers a scheme (or `[packet]`) may name with `load_balancer = "..."`: name,
/// description.
pub const LOAD_BALANCERS: &[(&str, &str)] = &[
    ("ecmp", "per-flow hashing over equal-cost next hops (default)"),
    ("spray", "per-packet round robin over equal-cost next hops"),
    (
        "drill",
        "DRILL(d, m): per packet at every switch, the shortest of d random and m remembered queues ([packet].drill)",
    ),
    (
        "holnet-percentage",
        "HOLNET eq. 16-18: per-destination-leaf percentages at source leaves, updated every RTT/4 from local and next-hop congestion ([packet].percentage_lb)",
    ),
];

/// What a balancer's periodic update reads of one port.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PortLoad {
    /// Bytes waiting or being serialized.
    pub backlog: u64,
    /// The port's buffer, bytes.
    pub buffer: u64,
}

/// Picks one of the candidate next hops.
pub trait LoadBalancer {
    /// Index into `candidates` (non-empty, equal-cost next hops of `at` toward `pkt.dst`);
    /// `queue_bytes(link)` is the live backlog of a candidate's port.
    fn pick(
        &mut self,
        at: NodeId,
        pkt: &Packet,
        candidates: &[LinkId],
        queue_bytes: &dyn Fn(LinkId) -> u64,
    ) -> usize;

    /// How often [`LoadBalancer::on_update`] runs (`None`: never; the default).
    fn update_period(&self) -> Option<Delta> {
        None
    }

    /// A periodic update (HOLNET's percentage balancer): `ports(link)` is any port's load now.
    fn on_update(&mut self, _now: SimTime, _ports: &dyn Fn(LinkId) -> PortLoad) {}
}

/// The balancers this build knows.
#[derive(Debug, Clone)]
pub enum Balancer {
    /// Per-flow hashing.
    Ecmp(Ecmp),
    /// Per-packet round robin.
    Spray(Spray),
    /// DRILL(d, m): per packet, the shortest of d random and m remembered queues.
    Drill(Drill),
    /// HOLNET's percentage balancers at the leaves.
    Percentage(Percentage),
}

impl Balancer {
    /// [`LoadBalancer::pick`] of the balancers other than ECMP, out of line: ECMP's hash is
    /// the common per-hop case and inlines into the forwarding path, which these would bloat.
    #[inline(never)]
    fn pick_other(
        &mut self,
        at: NodeId,
        pkt: &Packet,
        candidates: &[LinkId],
        queue_bytes: &dyn Fn(LinkId) -> u64,
    ) -> usize {
        match self {
            Balancer::Ecmp(b) => b.pick(at, pkt, candidates, queue_bytes),
            Balancer::Spray(b) => b.pick(at, pkt, candidates, queue_bytes),
            Balancer::Drill(b) => b.pick(at, pkt, candidates, queue_bytes),
            Balancer::Percentage(b) => b.pick(at, pkt, candidates, queue_bytes),
        }
    }
}

impl LoadBalancer for Balancer {
    #[inline]
    fn pick(
        &mut self,
        at: NodeId,
        pkt: &Packet,
        candidates: &[LinkId],
        queue_bytes: &dyn Fn(LinkId) -> u64,
    ) -> usize {
        match self {
            Balancer::Ecmp(b) => b.pick(at, pkt, candidates, queue_bytes),
            _ => self.pick_other(at, pkt, candidates, queue_bytes),
        }
    }

    fn update_period(&self) -> Option<Delta> {
        match self {
            Balancer::Percentage(b) => b.update_period(),
            _ => None,
        }
    }

    fn on_update(&mut self, now: SimTime, ports: &dyn Fn(LinkId) -> PortLoad) {
        if let Balancer::Percentage(b) = self {
            b.on_update(now, ports)
        }
    }
}
