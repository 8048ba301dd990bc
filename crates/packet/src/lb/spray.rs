//! Per-packet spraying: each node sends successive packets round robin over its equal-cost
//! next hops (one counter per node), ignoring flows. Reordering is the transport's problem.

use super::LoadBalancer;
use crate::packet::Packet;
use dctc_core::ids::{LinkId, NodeId};

/// Round-robin spraying with one counter per node.
#[derive(Debug, Clone)]
pub struct Spray {
    next: Vec<u32>,
}

impl Spray {
    /// A sprayer for a fabric of `n_nodes` nodes.
    pub fn new(n_nodes: usize) -> Self {
        Spray {
            next: vec![0; n_nodes],
        }
    }
}

impl LoadBalancer for Spray {
    #[inline]
    fn pick(
        &mut self,
        at: NodeId,
        _pkt: &Packet,
        candidates: &[LinkId],
        _queue_bytes: &dyn Fn(LinkId) -> u64,
    ) -> usize {
        let c = &mut self.next[at.index()];
        let i = *c as usize % candidates.len();
        *c = c.wrapping_add(1);
        i
    }
}
