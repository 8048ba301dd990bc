//! Per-flow ECMP: a hash of the flow and the switch picks the next hop, so every packet of a
//! flow takes one path, the same one `Routing::ecmp_path` reports (used for ideal FCTs).

use super::LoadBalancer;
use crate::packet::Packet;
use dctc_core::ids::{LinkId, NodeId};
use dctc_core::routing::ecmp_pick;

/// Per-flow ECMP.
#[derive(Debug, Clone, Default)]
pub struct Ecmp;

impl LoadBalancer for Ecmp {
    #[inline]
    fn pick(
        &mut self,
        at: NodeId,
        pkt: &Packet,
        candidates: &[LinkId],
        _queue_bytes: &dyn Fn(LinkId) -> u64,
    ) -> usize {
        if candidates.len() == 1 {
            0
        } else {
            ecmp_pick(pkt.hash, at, candidates.len())
        }
    }
}
