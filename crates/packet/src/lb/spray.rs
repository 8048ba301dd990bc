//! Per-packet spraying: each node sends successive packets round robin over its equal-cost
//! next hops (one counter per node), ignoring flows. Reordering is the transport's problem.

use super::{BalancerUnit, Build, LoadBalancer};
use crate::keys::NoKeys;
use crate::packet::Packet;
use dctc_core::error::KeyError;
use dctc_core::topology::Topology;
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

impl BalancerUnit for Spray {
    const NAME: &'static str = "spray";
    const ABOUT: &'static str = "per-packet round robin over equal-cost next hops";
    type Keys = NoKeys;
    type Params = ();
    fn resolve(_keys: &NoKeys, _topo: &Topology) -> Result<(), KeyError> {
        Ok(())
    }
    fn build(_params: &(), ctx: &Build) -> Result<Self, String> {
        Ok(Spray::new(ctx.topo.nodes().len()))
    }
}
