//! Per-flow ECMP: a hash of the flow and the switch picks the next hop, so every packet of a
//! flow takes one path, the same one `Routing::ecmp_path` reports (used for ideal FCTs).

use super::{BalancerUnit, Build, LoadBalancer};
use crate::keys::NoKeys;
use crate::packet::Packet;
use dctc_core::error::KeyError;
use dctc_core::topology::Topology;
use dctc_core::ids::{LinkId, NodeId};
use dctc_core::rng::mix64;

/// Per-flow ECMP. Caches each node's hash salt; picks exactly as
/// `dctc_core::routing::ecmp_pick` (tested), so packets follow `Routing::ecmp_path`.
#[derive(Debug, Clone, Default)]
pub struct Ecmp {
    salt: Vec<u64>,
}

impl Ecmp {
    /// ECMP for a fabric of `n_nodes` nodes.
    pub fn new(n_nodes: usize) -> Self {
        Ecmp {
            salt: (0..n_nodes as u64).map(mix64).collect(),
        }
    }
}

impl Ecmp {
    /// Which of `n` candidates a packet of flow hash `hash` takes at `at` (the engine's hop
    /// path calls this with the hash its ring entry carries).
    #[inline]
    pub fn pick_hash(&self, at: NodeId, hash: u64, n: usize) -> usize {
        if n == 1 {
            0
        } else {
            // dctc_core::routing::ecmp_pick with the node's mix precomputed. A power-of-two
            // count (the usual fan-out) takes a mask, the same value as `%` without a division.
            let h = mix64(hash ^ self.salt[at.index()]);
            let n = n as u64;
            (if n.is_power_of_two() {
                h & (n - 1)
            } else {
                h % n
            }) as usize
        }
    }
}

impl LoadBalancer for Ecmp {
    #[inline]
    fn pick(
        &mut self,
        at: NodeId,
        pkt: &Packet,
        candidates: &[LinkId],
        _queue_bytes: &dyn Fn(LinkId) -> u64,
    ) -> usize {
        self.pick_hash(at, pkt.hash, candidates.len())
    }
}

impl BalancerUnit for Ecmp {
    const NAME: &'static str = "ecmp";
    const ABOUT: &'static str = "per-flow hashing over equal-cost next hops (default)";
    type Keys = NoKeys;
    type Params = ();
    fn resolve(_keys: &NoKeys, _topo: &Topology) -> Result<(), KeyError> {
        Ok(())
    }
    fn build(_params: &(), ctx: &Build) -> Result<Self, String> {
        Ok(Ecmp::new(ctx.topo.nodes().len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, PacketKind};
    use dctc_core::routing::ecmp_pick;

    #[test]
    fn picks_exactly_as_core_ecmp() {
        let mut e = Ecmp::new(50);
        let links: Vec<LinkId> = (0..7).map(LinkId).collect();
        for h in 0..2000u64 {
            let mut p = Packet::new(0, PacketKind::Data, NodeId(0), NodeId(1));
            p.hash = h.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            for node in [0u32, 3, 49] {
                for n in 2..=7 {
                    let got = e.pick(NodeId(node), &p, &links[..n], &|_| 0);
                    assert_eq!(got, ecmp_pick(p.hash, NodeId(node), n));
                }
            }
        }
    }
}
