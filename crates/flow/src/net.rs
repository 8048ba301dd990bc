//! The fabric as the fluid model sees it: link capacities, which links are host (edge) links,
//! equal-cost paths, and the base RTT that paces iterative policies.

use crate::error::FlowError;
use dctc_core::routing::Routing;
use dctc_core::topology::Topology;
use dctc_core::units::Delta;
use dctc_core::{LinkId, NodeId};

pub use dctc_num::waterfill::Hop;

/// A fabric prepared for the fluid simulator.
#[derive(Clone, Debug)]
pub struct Net {
    /// The topology.
    pub topo: Topology,
    /// Equal-cost shortest-path next hops.
    pub routing: Routing,
    /// Capacity of each directed link, b/s.
    pub cap: Vec<f64>,
    /// Whether a link starts or ends at a host (the "ports" of the giant-switch model).
    pub is_edge: Vec<bool>,
    /// Host index -> its uplink (host -> edge switch).
    pub host_up: Vec<u32>,
    /// Host index -> its downlink (edge switch -> host).
    pub host_down: Vec<u32>,
    /// Base round-trip time (no queueing) of the longest host-to-host shortest path: the
    /// iteration period of per-RTT policies.
    pub rtt: Delta,
}

impl Net {
    /// Prepares `topo`. Fails if some host cannot reach another or a host has no link.
    pub fn new(topo: Topology) -> Result<Net, FlowError> {
        let routing = Routing::new(&topo).map_err(|e| FlowError::Fabric(e.to_string()))?;
        let cap: Vec<f64> = topo.links().iter().map(|l| l.rate.bps_f64()).collect();
        let is_edge = topo
            .links()
            .iter()
            .map(|l| topo.is_host(l.from) || topo.is_host(l.to))
            .collect();
        let mut host_up = Vec::with_capacity(topo.hosts().len());
        let mut host_down = Vec::with_capacity(topo.hosts().len());
        for &h in topo.hosts() {
            let up = *topo.out_links(h).first().ok_or_else(|| {
                FlowError::Fabric(format!("host {} has no link", topo.node(h).name))
            })?;
            host_up.push(up.0);
            host_down.push(topo.link(up).reverse.0);
        }
        let mut net = Net {
            topo,
            routing,
            cap,
            is_edge,
            host_up,
            host_down,
            rtt: Delta::ZERO,
        };
        net.rtt = net.base_rtt();
        Ok(net)
    }

    fn base_rtt(&self) -> Delta {
        let hosts = self.topo.hosts();
        if hosts.len() < 2 {
            return Delta::from_us(1);
        }
        // The farthest host from host 0 gives the longest path on the regular fabrics.
        let src = hosts[0];
        let mut best = (0u16, hosts[1]);
        for &h in &hosts[1..] {
            if let Some(d) = self.routing.distance(&self.topo, src, h) {
                if d > best.0 {
                    best = (d, h);
                }
            }
        }
        let path = self.routing.ecmp_path(&self.topo, src, best.1, 0);
        let one_way: u64 = path
            .iter()
            .map(|&l| self.topo.link(l).delay.ps())
            .sum::<u64>()
            + self.topo.host_delay.ps();
        Delta::from_ps((2 * one_way).max(1_000_000))
    }

    /// Number of hosts.
    pub fn hosts(&self) -> usize {
        self.topo.hosts().len()
    }

    /// Number of directed links.
    pub fn links(&self) -> usize {
        self.cap.len()
    }

    /// Host node of host index `h`.
    pub fn host(&self, h: u32) -> NodeId {
        self.topo.hosts()[h as usize]
    }

    /// The per-flow ECMP path from host `src` to host `dst`. A host sending to itself goes
    /// through its switch: up its uplink and back down its downlink.
    pub fn ecmp(&self, src: u32, dst: u32, hash: u64) -> Vec<Hop> {
        if src == dst {
            return self
                .loopback(src)
                .into_iter()
                .map(|l| Hop {
                    link: l.0,
                    coef: 1.0,
                })
                .collect();
        }
        self.routing
            .ecmp_path(&self.topo, self.host(src), self.host(dst), hash)
            .into_iter()
            .map(|l| Hop {
                link: l.0,
                coef: 1.0,
            })
            .collect()
    }

    /// Host `h`'s path to itself: its uplink, then its downlink.
    pub fn loopback(&self, h: u32) -> Vec<LinkId> {
        vec![
            LinkId(self.host_up[h as usize]),
            LinkId(self.host_down[h as usize]),
        ]
    }

    /// Every equal-cost path (at most `limit`) from host `src` to host `dst` (for `src == dst`,
    /// the one [`Net::loopback`] path).
    pub fn paths(&self, src: u32, dst: u32, limit: usize) -> Vec<Vec<LinkId>> {
        if src == dst {
            return vec![self.loopback(src)];
        }
        self.routing
            .all_paths(&self.topo, self.host(src), self.host(dst), limit)
    }

    /// The rate spread evenly over all equal-cost paths (at most `limit`): each link carries
    /// the fraction of paths that use it.
    pub fn spread(&self, src: u32, dst: u32, limit: usize) -> Vec<Hop> {
        let paths = self.paths(src, dst, limit);
        let n = paths.len() as f64;
        let mut hops: Vec<Hop> = Vec::new();
        for p in &paths {
            for &l in p {
                match hops.iter_mut().find(|h| h.link == l.0) {
                    Some(h) => h.coef += 1.0 / n,
                    None => hops.push(Hop {
                        link: l.0,
                        coef: 1.0 / n,
                    }),
                }
            }
        }
        hops.sort_by_key(|h| h.link);
        hops
    }

    /// The smallest capacity on a route, scaled by each hop's share: the rate the flow would
    /// get alone.
    pub fn route_rate(&self, hops: &[Hop]) -> f64 {
        hops.iter()
            .map(|h| self.cap[h.link as usize] / h.coef)
            .fold(f64::INFINITY, f64::min)
    }
}
