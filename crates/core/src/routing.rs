//! Equal-cost shortest-path routing.
//!
//! For every destination host, a breadth-first search backwards from it gives each node's hop
//! distance; a node's next hops toward that host are its out-links to neighbours one hop
//! closer. Hosts never forward transit traffic. The next-hop sets are stored flat (CSR) so
//! that a lookup is two array reads.
//!
//! Controller nodes (Flowtune's allocator) are routable like hosts: they are destinations after
//! the hosts, and like hosts they never forward transit traffic, so a fabric without one routes
//! exactly as before.

use crate::ids::{LinkId, NodeId};
use crate::rng::mix64;
use crate::topology::{NodeKind, Topology, TopologyError};
use std::collections::VecDeque;

/// Next hops on equal-cost shortest paths from every node to every host.
#[derive(Clone, Debug)]
pub struct Routing {
    n_nodes: usize,
    /// Destinations: the hosts in order, then the controllers.
    dests: Vec<NodeId>,
    /// Each node's row among `dests` (`u32::MAX`: not a destination).
    row_of: Vec<u32>,
    /// `offsets[dst_row * (n_nodes + 1) + node] .. [.. + 1]` indexes `hops`.
    offsets: Vec<u32>,
    hops: Vec<LinkId>,
    /// Hop distance from each node to each host, `u16::MAX` when unreachable.
    distance: Vec<u16>,
}

impl Routing {
    /// Computes shortest-path next hops toward every host. Fails if some host cannot reach
    /// another.
    pub fn new(topo: &Topology) -> Result<Routing, TopologyError> {
        let n = topo.nodes().len();
        let hosts = topo.hosts();
        let is_endpoint = |v: NodeId| !matches!(topo.node(v).kind, NodeKind::Switch { .. });
        let mut dests: Vec<NodeId> = hosts.to_vec();
        dests.extend(
            (0..n)
                .map(NodeId::from_index)
                .filter(|&v| topo.node(v).kind == NodeKind::Controller),
        );
        let mut row_of = vec![u32::MAX; n];
        for (r, d) in dests.iter().enumerate() {
            row_of[d.index()] = r as u32;
        }
        // Incoming links per node, for the backward search.
        let mut incoming: Vec<Vec<LinkId>> = vec![Vec::new(); n];
        for (i, l) in topo.links().iter().enumerate() {
            incoming[l.to.index()].push(LinkId::from_index(i));
        }
        let mut offsets = Vec::with_capacity(dests.len() * (n + 1));
        let mut hops = Vec::new();
        let mut distance = vec![u16::MAX; dests.len() * n];
        let mut queue = VecDeque::new();
        for (hi, &dst) in dests.iter().enumerate() {
            let dist = &mut distance[hi * n..(hi + 1) * n];
            dist[dst.index()] = 0;
            queue.clear();
            queue.push_back(dst);
            while let Some(v) = queue.pop_front() {
                // A host (or controller) other than the destination does not forward.
                if v != dst && is_endpoint(v) {
                    continue;
                }
                for &l in &incoming[v.index()] {
                    let u = topo.link(l).from;
                    if dist[u.index()] == u16::MAX {
                        dist[u.index()] = dist[v.index()] + 1;
                        queue.push_back(u);
                    }
                }
            }
            for node in 0..n {
                offsets.push(hops.len() as u32);
                let d = dist[node];
                if d == u16::MAX || d == 0 {
                    continue;
                }
                for &l in topo.out_links(NodeId::from_index(node)) {
                    let to = topo.link(l).to;
                    let forwards = to == dst || !is_endpoint(to);
                    if forwards && dist[to.index()] == d - 1 {
                        hops.push(l);
                    }
                }
            }
            offsets.push(hops.len() as u32);
            for &src in hosts {
                if dist[src.index()] == u16::MAX {
                    return Err(TopologyError::Disconnected {
                        from: topo.node(src).name.clone(),
                        to: topo.node(dst).name.clone(),
                    });
                }
            }
        }
        Ok(Routing {
            n_nodes: n,
            dests,
            row_of,
            offsets,
            hops,
            distance,
        })
    }

    fn dst_row(&self, _topo: &Topology, dst: NodeId) -> usize {
        let r = self.row_of[dst.index()];
        assert!(
            r != u32::MAX,
            "routing destination must be a host or controller"
        );
        r as usize
    }

    /// Every destination: the hosts in order, then the controllers.
    pub fn destinations(&self) -> &[NodeId] {
        &self.dests
    }

    /// Out-links of `at` on shortest paths to host (or controller) `dst` (empty at `dst`).
    pub fn next_hops(&self, topo: &Topology, at: NodeId, dst: NodeId) -> &[LinkId] {
        let base = self.dst_row(topo, dst) * (self.n_nodes + 1) + at.index();
        let (a, b) = (self.offsets[base] as usize, self.offsets[base + 1] as usize);
        &self.hops[a..b]
    }

    /// Hop count from `at` to host `dst`.
    pub fn distance(&self, topo: &Topology, at: NodeId, dst: NodeId) -> Option<u16> {
        let d = self.distance[self.dst_row(topo, dst) * self.n_nodes + at.index()];
        (d != u16::MAX).then_some(d)
    }

    /// The path a flow takes under per-flow ECMP: at each hop the next link is chosen by a hash
    /// of `flow_hash` and the switch, so one flow always takes one path.
    pub fn ecmp_path(
        &self,
        topo: &Topology,
        src: NodeId,
        dst: NodeId,
        flow_hash: u64,
    ) -> Vec<LinkId> {
        let mut path = Vec::new();
        let mut at = src;
        while at != dst {
            let hops = self.next_hops(topo, at, dst);
            let pick = ecmp_pick(flow_hash, at, hops.len());
            let l = hops[pick];
            path.push(l);
            at = topo.link(l).to;
        }
        path
    }

    /// Every shortest path from `src` to `dst`, up to `limit` of them, in a fixed order.
    pub fn all_paths(
        &self,
        topo: &Topology,
        src: NodeId,
        dst: NodeId,
        limit: usize,
    ) -> Vec<Vec<LinkId>> {
        let mut out = Vec::new();
        let mut stack = vec![(src, Vec::new())];
        while let Some((at, path)) = stack.pop() {
            if out.len() >= limit {
                break;
            }
            if at == dst {
                out.push(path);
                continue;
            }
            for &l in self.next_hops(topo, at, dst).iter().rev() {
                let mut p = path.clone();
                p.push(l);
                stack.push((topo.link(l).to, p));
            }
        }
        out
    }
}

/// Which of `n` equal-cost next hops a flow with hash `flow_hash` takes at `switch`.
pub fn ecmp_pick(flow_hash: u64, switch: NodeId, n: usize) -> usize {
    debug_assert!(n > 0);
    (mix64(flow_hash ^ mix64(switch.0 as u64)) % n as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::preset;
    use std::path::Path;

    #[test]
    fn leaf_spine_paths_are_two_or_four_hops_with_one_choice_per_spine() {
        let t = preset("flowtune-144")
            .unwrap()
            .build(Path::new("."))
            .unwrap();
        let r = Routing::new(&t).unwrap();
        let h = t.hosts();
        // Same rack: host -> leaf -> host.
        assert_eq!(r.ecmp_path(&t, h[0], h[1], 7).len(), 2);
        // Other rack: host -> leaf -> spine -> leaf -> host, 4 choices at the leaf.
        let p = r.ecmp_path(&t, h[0], h[16], 7);
        assert_eq!(p.len(), 4);
        assert_eq!(t.link(p[0]).from, h[0]);
        assert_eq!(t.link(p[3]).to, h[16]);
        let leaf = t.edge_switch(h[0]).unwrap();
        assert_eq!(r.next_hops(&t, leaf, h[16]).len(), 4);
        assert_eq!(r.all_paths(&t, h[0], h[16], 100).len(), 4);
        assert_eq!(r.distance(&t, h[0], h[16]), Some(4));
    }

    #[test]
    fn ecmp_spreads_flows_over_spines() {
        let t = preset("flowtune-144")
            .unwrap()
            .build(Path::new("."))
            .unwrap();
        let r = Routing::new(&t).unwrap();
        let h = t.hosts();
        let mut counts = [0usize; 4];
        let leaf = t.edge_switch(h[0]).unwrap();
        let ups = r.next_hops(&t, leaf, h[16]).to_vec();
        for f in 0..4000u64 {
            let p = r.ecmp_path(&t, h[0], h[16], f);
            counts[ups.iter().position(|l| *l == p[1]).unwrap()] += 1;
        }
        for c in counts {
            assert!((800..1200).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn fat_tree_has_k_squared_over_4_paths_between_pods() {
        let t = crate::fabric::fat_tree(&crate::fabric::FatTreeSpec {
            k: 4,
            rate_gbps: 10.0,
            link_delay_us: 1.0,
            host_delay_us: 0.0,
            buffer_bytes: 100_000,
        })
        .unwrap();
        let r = Routing::new(&t).unwrap();
        let h = t.hosts();
        let paths = r.all_paths(&t, h[0], h[15], 100);
        assert_eq!(paths.len(), 4);
        assert!(paths.iter().all(|p| p.len() == 6));
    }

    #[test]
    fn disconnected_fabric_is_an_error() {
        use crate::topology::NodeKind;
        let mut t = Topology::new("t", crate::units::Delta::ZERO);
        t.add_node(NodeKind::Host, "a");
        t.add_node(NodeKind::Host, "b");
        assert!(matches!(
            Routing::new(&t),
            Err(TopologyError::Disconnected { .. })
        ));
    }
}
