//! Load balancers: which of the equal-cost next hops a packet takes at a node. One file per
//! balancer; [`Balancer`] is the closed set the engine dispatches on. A balancer sees the
//! packet and the live queue length of each candidate port, so queue-aware per-packet schemes
//! (DRILL, HOLNET's percentage balancer) and flowlet schemes (CONGA) fit the same hook.

pub mod ecmp;
pub mod spray;

pub use ecmp::Ecmp;
pub use spray::Spray;

use crate::packet::Packet;
use dctc_core::ids::{LinkId, NodeId};

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
}

/// The balancers this build knows.
#[derive(Debug, Clone)]
pub enum Balancer {
    /// Per-flow hashing.
    Ecmp(Ecmp),
    /// Per-packet round robin.
    Spray(Spray),
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
            Balancer::Spray(b) => b.pick(at, pkt, candidates, queue_bytes),
        }
    }
}
