//! HOLNET's percentage load balancer (HOLNET eq. 16-18 with z = 1, §V "Load balancing").
//!
//! Each leaf (a switch with hosts) keeps one balancer per destination leaf: a percentage
//! `p_l` for each of its equal-cost uplinks `l` toward that leaf, summing to 1. Packets toward
//! the leaf are split in those proportions (a smooth weighted round robin, per packet, so no
//! randomness). The percentages start proportional to the uplinks' capacities,
//! `p_l = B_l / sum_j B_j`, and every update interval (RTT/4 by default) the leaf checks each
//! uplink (`cg_l`, local) and the port of its next hop toward the destination leaf (next-hop
//! congestion); a port is congested when its queue holds at least `congested_fraction` (80%)
//! of its buffer. If anything is congested, Table II gives `r_in` and `r_out_l`, eq. (18)
//! gives each uplink's rate trend, and eq. (17) moves the percentages:
//!
//! - `cg_l = 1`: `xdot_l = -1`;
//! - else next hop congested: `xdot_l = -1 + r_max r_min`;
//! - else: `xdot_l = -1 + r_max` (some other port of the aggregate is congested, so the node's
//!   `r_in = r_max`);
//! - nothing congested: `r_in = r_out = 1`, every `xdot_l = 0`, the percentages hold.
//!
//! The paper gives eq. (17) in continuous time; one update applies it once with step `gain`
//! (`p_l += gain pdot_l`), clamps at 0 and renormalizes. The sum of `pdot` over an aggregate is
//! zero (eq. 17 is built so), so renormalizing only absorbs the clamp. The next hop's
//! congestion is read directly at the update instant (the paper's per-hop signal, without the
//! one-link delay a real signal would take). Switches other than leaves, and leaves toward
//! destinations reachable over one port, fall back to per-flow ECMP hashing.

use super::{BalancerUnit, Build, LoadBalancer, PortLoad};
use crate::keys::{At, Range};
use crate::packet::Packet;
use dctc_core::error::KeyError;
use dctc_core::ids::{LinkId, NodeId};
use dctc_core::rng::mix64;
use dctc_core::routing::Routing;
use dctc_core::topology::Topology;
use dctc_core::units::{Delta, SimTime};

/// The percentage balancer's settings (HOLNET §V's values by default).
#[derive(Clone, Debug, PartialEq)]
pub struct PercentageParams {
    /// Update interval; `None`: a quarter of the fabric's empty inter-leaf RTT (§V: RTT/4).
    pub update: Option<Delta>,
    /// `r_min` of Table II (§V: 0.1).
    pub r_min: f64,
    /// `r_max` of Table II (§V: 1.5).
    pub r_max: f64,
    /// A port is congested when its queue reaches this fraction of its buffer (§V: 80%).
    pub congested_fraction: f64,
    /// Step of one update of eq. (17) (the paper's law is continuous; ours moves
    /// `gain * pdot` per update).
    pub gain: f64,
    /// Initial percentages per uplink (leaf uplinks in port order), summing to 1; `None`:
    /// proportional to capacity (§V).
    pub initial: Option<Vec<f64>>,
}

impl Default for PercentageParams {
    fn default() -> Self {
        PercentageParams {
            update: None,
            r_min: 0.1,
            r_max: 1.5,
            congested_fraction: 0.8,
            gain: 0.1,
            initial: None,
        }
    }
}

/// One balancer: a leaf's uplinks toward one destination leaf.
#[derive(Copy, Clone, Debug)]
struct Group {
    /// Its uplinks are `links[start..start + n]` (and the same range of `p`, `credit`).
    start: u32,
    n: u32,
}

/// HOLNET's percentage balancers of every leaf, toward every other leaf.
#[derive(Clone, Debug)]
pub struct Percentage {
    params: PercentageParams,
    period: Delta,
    /// Leaf index of each host node (`u32::MAX` for switches).
    leaf_of_host: Vec<u32>,
    n_leaves: usize,
    /// `group_of[node * n_leaves + leaf]`: the group at `node` toward `leaf` (`u32::MAX`: none).
    group_of: Vec<u32>,
    groups: Vec<Group>,
    links: Vec<LinkId>,
    /// Next-hop ports of each uplink toward the group's leaf: `next[next_span[i].0 ..][.. .1]`.
    next_span: Vec<(u32, u32)>,
    next: Vec<LinkId>,
    /// The distinct ports an update reads (uplinks and their next hops), each judged once per
    /// update; `links_at[i]` and `next_at[j]` are the places of `links[i]` and `next[j]`.
    watched: Vec<LinkId>,
    links_at: Vec<u32>,
    next_at: Vec<u32>,
    /// Scratch: whether `watched[i]` is congested at this update.
    watched_congested: Vec<bool>,
    /// Percentages (HOLNET's p_{i,b,l}).
    p: Vec<f64>,
    /// Smooth weighted round-robin credit.
    credit: Vec<f64>,
    /// Scratch for eq. (18)'s trends of one group.
    xdot: Vec<f64>,
    /// Scratch for eq. (17)'s percentage changes of one group.
    pdot: Vec<f64>,
    /// Each node's ECMP salt for the fallback.
    salt: Vec<u64>,
}

impl Percentage {
    /// Balancers at every leaf of `topo` toward every other leaf. Errors when `initial` does not
    /// have one entry per uplink of a leaf.
    pub fn new(
        topo: &Topology,
        routing: &Routing,
        params: PercentageParams,
    ) -> Result<Percentage, String> {
        let n_nodes = topo.nodes().len();
        let mut leaf_node: Vec<NodeId> = Vec::new();
        let mut leaf_of_host = vec![u32::MAX; n_nodes];
        let mut hosts_of: Vec<Vec<NodeId>> = Vec::new();
        for &h in topo.hosts() {
            let Some(leaf) = topo.edge_switch(h) else {
                continue;
            };
            let li = match leaf_node.iter().position(|&x| x == leaf) {
                Some(i) => i,
                None => {
                    leaf_node.push(leaf);
                    hosts_of.push(Vec::new());
                    leaf_node.len() - 1
                }
            };
            leaf_of_host[h.index()] = li as u32;
            hosts_of[li].push(h);
        }
        let n_leaves = leaf_node.len();
        let mut out = Percentage {
            params,
            period: Delta(1),
            leaf_of_host,
            n_leaves,
            group_of: vec![u32::MAX; n_nodes * n_leaves],
            groups: Vec::new(),
            links: Vec::new(),
            next_span: Vec::new(),
            next: Vec::new(),
            watched: Vec::new(),
            links_at: Vec::new(),
            next_at: Vec::new(),
            watched_congested: Vec::new(),
            p: Vec::new(),
            credit: Vec::new(),
            xdot: Vec::new(),
            pdot: Vec::new(),
            salt: (0..n_nodes as u64).map(mix64).collect(),
        };
        let mut rtt = Delta::ZERO;
        for (b, &leaf) in leaf_node.iter().enumerate() {
            for (d, hosts) in hosts_of.iter().enumerate() {
                if d == b {
                    continue;
                }
                let rep = hosts[0];
                let cands = routing.next_hops(topo, leaf, rep);
                if cands.len() < 2
                    || hosts[1..]
                        .iter()
                        .any(|&h| routing.next_hops(topo, leaf, h) != cands)
                {
                    continue;
                }
                let start = out.links.len() as u32;
                let caps: Vec<f64> = cands.iter().map(|&l| topo.link(l).rate.bps_f64()).collect();
                let init: Vec<f64> = match &out.params.initial {
                    Some(v) if v.len() != cands.len() => {
                        return Err(format!(
                            "lists {} percentages but leaf `{}` has {} uplinks toward leaf `{}`",
                            v.len(),
                            topo.node(leaf).name,
                            cands.len(),
                            topo.node(leaf_node[d]).name
                        ));
                    }
                    Some(v) => v.clone(),
                    // HOLNET §V: p_i = B_i / sum_j B_j.
                    None => {
                        let total: f64 = caps.iter().sum();
                        caps.iter().map(|c| c / total).collect()
                    }
                };
                for (k, &l) in cands.iter().enumerate() {
                    out.links.push(l);
                    let nh = routing.next_hops(topo, topo.link(l).to, rep);
                    out.next_span.push((out.next.len() as u32, nh.len() as u32));
                    out.next.extend_from_slice(nh);
                    out.p.push(init[k]);
                    out.credit.push(0.0);
                }
                out.group_of[leaf.index() * n_leaves + d] = out.groups.len() as u32;
                out.groups.push(Group {
                    start,
                    n: cands.len() as u32,
                });
                out.xdot.resize(out.xdot.len().max(cands.len()), 0.0);
                out.pdot.resize(out.xdot.len(), 0.0);
                let path = routing.ecmp_path(topo, hosts_of[b][0], rep, 0);
                rtt = rtt.max(empty_rtt(topo, &path));
            }
        }
        out.period = out.params.update.unwrap_or(Delta(rtt.0 / 4)).max(Delta(1));
        let mut place = std::collections::HashMap::new();
        let mut at = |l: LinkId, watched: &mut Vec<LinkId>| {
            *place.entry(l).or_insert_with(|| {
                watched.push(l);
                (watched.len() - 1) as u32
            })
        };
        out.links_at = out.links.iter().map(|&l| at(l, &mut out.watched)).collect();
        out.next_at = out.next.iter().map(|&l| at(l, &mut out.watched)).collect();
        out.watched_congested = vec![false; out.watched.len()];
        Ok(out)
    }

    /// The percentages at leaf `node` toward destination host `dst`'s leaf, in uplink order
    /// (`None` if that leaf has no balancer toward it).
    pub fn percentages(&self, node: NodeId, dst: NodeId) -> Option<&[f64]> {
        let g = self.group(node, dst)?;
        let (a, n) = (g.start as usize, g.n as usize);
        Some(&self.p[a..a + n])
    }

    /// The uplinks of the balancer at `node` toward `dst`'s leaf.
    pub fn uplinks(&self, node: NodeId, dst: NodeId) -> Option<&[LinkId]> {
        let g = self.group(node, dst)?;
        let (a, n) = (g.start as usize, g.n as usize);
        Some(&self.links[a..a + n])
    }

    /// The update interval.
    pub fn period(&self) -> Delta {
        self.period
    }

    #[inline]
    fn group(&self, node: NodeId, dst: NodeId) -> Option<&Group> {
        let leaf = *self.leaf_of_host.get(dst.index())?;
        if leaf == u32::MAX {
            return None;
        }
        let g = self.group_of[node.index() * self.n_leaves + leaf as usize];
        self.groups.get(g as usize)
    }
}

/// Round trip of an MTU data packet out along `path` and a header-only ACK back, on an empty
/// fabric (propagation both ways, host delay at both ends, serialization per hop).
fn empty_rtt(topo: &Topology, path: &[LinkId]) -> Delta {
    let mut t = Delta(2 * topo.host_delay.0);
    for &l in path {
        let link = topo.link(l);
        t = t + link.delay + link.delay + link.rate.tx_time(1500) + link.rate.tx_time(40);
    }
    t
}

impl LoadBalancer for Percentage {
    #[inline]
    fn pick(
        &mut self,
        at: NodeId,
        pkt: &Packet,
        candidates: &[LinkId],
        _queue_bytes: &dyn Fn(LinkId) -> u64,
    ) -> usize {
        let n = candidates.len();
        let g = match self.group(at, pkt.dst) {
            Some(g) if g.n as usize == n => *g,
            _ => return (mix64(pkt.hash ^ self.salt[at.index()]) % n as u64) as usize,
        };
        // Smooth weighted round robin: every uplink earns its percentage, the richest sends
        // and pays one packet, so over any run of packets each uplink's share tracks p_l.
        let a = g.start as usize;
        let (credit, p) = (&mut self.credit[a..a + n], &self.p[a..a + n]);
        // The first uplink with the most credit (credits are finite).
        let (mut best, mut top) = (0, f64::NEG_INFINITY);
        for (k, (c, &pk)) in credit.iter_mut().zip(p).enumerate() {
            *c += pk;
            if *c > top {
                (best, top) = (k, *c);
            }
        }
        credit[best] -= 1.0;
        best
    }

    fn update_period(&self) -> Option<Delta> {
        Some(self.period)
    }

    fn on_update(&mut self, _now: SimTime, ports: &dyn Fn(LinkId) -> PortLoad) {
        let frac = self.params.congested_fraction;
        // Every port's load is read at the same instant, so each is judged once, however
        // many balancers watch it.
        for (c, &l) in self.watched_congested.iter_mut().zip(&self.watched) {
            let x = ports(l);
            *c = x.backlog as f64 >= frac * x.buffer as f64;
        }
        let congested = &self.watched_congested;
        if !congested.contains(&true) {
            // Every balancer's `any` below would be false: no percentage moves.
            return;
        }
        let (r_min, r_max, gain) = (self.params.r_min, self.params.r_max, self.params.gain);
        for gi in 0..self.groups.len() {
            let (a, n) = (self.groups[gi].start as usize, self.groups[gi].n as usize);
            let mut any = false;
            for k in 0..n {
                let local = congested[self.links_at[a + k] as usize];
                let (s, m) = self.next_span[a + k];
                let next = self.next_at[s as usize..(s + m) as usize]
                    .iter()
                    .any(|&i| congested[i as usize]);
                any |= local || next;
                // HOLNET eq. (18) with Table II (r_in = r_max once anything is congested).
                self.xdot[k] = if local {
                    -1.0
                } else if next {
                    -1.0 + r_max * r_min
                } else {
                    -1.0 + r_max
                };
            }
            if !any {
                continue;
            }
            let x_sum: f64 = self.xdot[..n].iter().sum();
            let p = &mut self.p[a..a + n];
            let p_sum: f64 = p.iter().sum();
            let xdot = &self.xdot[..n];
            let pdot = &mut self.pdot[..n];
            for ((d, &pk), &xk) in pdot.iter_mut().zip(p.iter()).zip(xdot) {
                // HOLNET eq. (17), z = 1: pdot_l = xdot_l sum_{j!=l} p_j - p_l sum_{j!=l} xdot_j.
                *d = xk * (p_sum - pk) - pk * (x_sum - xk);
            }
            for (pk, &d) in p.iter_mut().zip(pdot.iter()) {
                *pk = (*pk + gain * d).max(0.0);
            }
            let total: f64 = p.iter().sum();
            if total > 0.0 {
                p.iter_mut().for_each(|x| *x /= total);
            } else {
                p.iter_mut().for_each(|x| *x = 1.0 / n as f64);
            }
        }
    }
}

crate::unit_keys! {
    /// `[packet].percentage_lb`: the percentage balancer's settings.
    pub struct PercentageKnobs {
        /// Update interval, us, positive (default: a quarter of the empty inter-leaf RTT).
        update_us: f64,
        /// Table II's r_min, in (0, 1) (default 0.1).
        r_min: f64,
        /// Table II's r_max, above 1 (default 1.5).
        r_max: f64,
        /// Queue fraction of the buffer at which a port is congested, in (0, 1] (default 0.8).
        congested_fraction: f64,
        /// Step of one eq. (17) update, in (0, 1] (default 0.1).
        gain: f64,
        /// Initial percentages, one per leaf uplink, summing to 1 (default: by capacity).
        initial: Vec<f64>,
    }
}

crate::unit_keys! {
    /// The percentage balancer's `[packet]` keys.
    pub struct Keys {
        /// `percentage_lb = { update_us, r_min, r_max, congested_fraction, gain, initial }`.
        percentage_lb: PercentageKnobs,
    }
}

impl BalancerUnit for Percentage {
    const NAME: &'static str = "holnet-percentage";
    const ABOUT: &'static str = "HOLNET eq. 16-18: per-destination-leaf percentages at source leaves, updated every RTT/4 from local and next-hop congestion ([packet].percentage_lb)";
    type Keys = Keys;
    type Params = PercentageParams;
    fn resolve(keys: &Keys, topo: &Topology) -> Result<PercentageParams, KeyError> {
        let mut q = PercentageParams::default();
        let Some(p) = &keys.percentage_lb else {
            return Ok(q);
        };
        let at = At("packet.percentage_lb");
        if let Some(u) = at.micros("update_us", p.update_us, Range::POSITIVE)? {
            q.update = Some(u);
        }
        let num = |key, v, range| at.number(key, v, range);
        q.r_min = num("r_min", p.r_min, Range::open(0.0, 1.0))?.unwrap_or(q.r_min);
        q.r_max = num("r_max", p.r_max, Range::open(1.0, f64::INFINITY))?.unwrap_or(q.r_max);
        let f = num("congested_fraction", p.congested_fraction, Range::open_closed(0.0, 1.0))?;
        q.congested_fraction = f.unwrap_or(q.congested_fraction);
        q.gain = num("gain", p.gain, Range::open_closed(0.0, 1.0))?.unwrap_or(q.gain);
        if let Some(v) = &p.initial {
            check_initial(at, v, topo)?;
            q.initial = Some(v.clone());
        }
        Ok(q)
    }
    fn build(params: &PercentageParams, ctx: &Build) -> Result<Self, String> {
        Percentage::new(ctx.topo, ctx.routing, params.clone())
    }
}

/// Checks `initial`: non-negative percentages summing to 1, one per uplink of every leaf
/// (links from a switch with hosts to other switches).
fn check_initial(at: At, v: &[f64], topo: &Topology) -> Result<(), KeyError> {
    let key = "initial";
    if let Some(x) = v.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
        return Err(at.error(key, format!("percentages must be >= 0, got {x}")));
    }
    let sum: f64 = v.iter().sum();
    if (sum - 1.0).abs() > 1e-6 {
        return Err(at.error(key, format!("percentages must sum to 1, these sum to {sum}")));
    }
    for &h in topo.hosts() {
        let Some(leaf) = topo.edge_switch(h) else {
            continue;
        };
        let up = topo
            .out_links(leaf)
            .iter()
            .filter(|&&l| !topo.is_host(topo.link(l).to))
            .count();
        if up != v.len() {
            return Err(at.error(
                key,
                format!(
                    "lists {} percentages but leaf `{}` has {up} uplinks",
                    v.len(),
                    topo.node(leaf).name
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;
    use dctc_core::fabric::{leaf_spine, LeafSpineSpec};

    fn fabric() -> Topology {
        leaf_spine(&LeafSpineSpec {
            racks: 2,
            hosts_per_rack: 2,
            spines: 3,
            host_rate_gbps: 10.0,
            fabric_rate_gbps: 10.0,
            oversubscription: None,
            host_link_delay_us: 1.0,
            fabric_link_delay_us: 1.0,
            host_delay_us: 0.0,
            buffer_bytes: 100_000,
            spine_buffer_bytes: None,
        })
        .unwrap()
    }

    #[test]
    fn packets_split_in_the_percentages_and_eq_17_moves_them_off_a_congested_port() {
        let t = fabric();
        let r = Routing::new(&t).unwrap();
        let (h0, h2) = (t.hosts()[0], t.hosts()[2]);
        let leaf = t.edge_switch(h0).unwrap();
        let init = vec![0.5, 0.25, 0.25];
        let mut b = Percentage::new(
            &t,
            &r,
            PercentageParams {
                initial: Some(init.clone()),
                ..Default::default()
            },
        )
        .unwrap();
        let ups = b.uplinks(leaf, h2).unwrap().to_vec();
        assert_eq!(b.percentages(leaf, h2).unwrap(), &init[..]);
        let pkt = Packet::new(0, PacketKind::Data, h0, h2);
        let mut counts = [0; 3];
        for _ in 0..400 {
            counts[b.pick(leaf, &pkt, &ups, &|_| 0)] += 1;
        }
        assert_eq!(counts, [200, 100, 100]);
        // Nothing congested: Table II's r = 1 everywhere, eq. (18) gives 0, shares hold.
        let idle = |_: LinkId| PortLoad {
            backlog: 0,
            buffer: 100_000,
        };
        b.on_update(SimTime::ZERO, &idle);
        assert_eq!(b.percentages(leaf, h2).unwrap(), &init[..]);
        // The first uplink's queue past 80%: its share falls, the others' rise, the sum stays
        // 1 (eq. 17 with xdot = (-1, 0.5, 0.5), step 0.1: pdot_0 = -1 (0.5) - 0.5 (1) = -1).
        let first_congested = |l: LinkId| PortLoad {
            backlog: if l == ups[0] { 80_000 } else { 0 },
            buffer: 100_000,
        };
        b.on_update(SimTime::ZERO, &first_congested);
        let p = b.percentages(leaf, h2).unwrap();
        assert!((p[0] - 0.4).abs() < 1e-12, "{p:?}");
        assert!(
            (p[1] - 0.3).abs() < 1e-12 && (p[2] - 0.3).abs() < 1e-12,
            "{p:?}"
        );
        // The next hop of the second uplink (that spine's port toward the far leaf) congested:
        // it loses its share to the other two (xdot -0.85 vs 0.5 and 0.5).
        let spine1 = t.link(ups[1]).to;
        let next = r.next_hops(&t, spine1, h2)[0];
        let next_congested = |l: LinkId| PortLoad {
            backlog: if l == next { 90_000 } else { 0 },
            buffer: 100_000,
        };
        for _ in 0..30 {
            b.on_update(SimTime::ZERO, &next_congested);
        }
        let p = b.percentages(leaf, h2).unwrap();
        assert!(p[1] < 0.05 && p[0] > 0.45 && p[2] > 0.45, "{p:?}");
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn shares_start_proportional_to_capacity() {
        let mut t = Topology::new("u", Delta::ZERO);
        use dctc_core::topology::NodeKind;
        use dctc_core::units::Rate;
        let l0 = t.add_node(NodeKind::Switch { tier: 1 }, "l0");
        let l1 = t.add_node(NodeKind::Switch { tier: 1 }, "l1");
        let s0 = t.add_node(NodeKind::Switch { tier: 2 }, "s0");
        let s1 = t.add_node(NodeKind::Switch { tier: 2 }, "s1");
        let a = t.add_node(NodeKind::Host, "a");
        let z = t.add_node(NodeKind::Host, "z");
        let d = Delta::from_us(1);
        t.add_cable(a, l0, Rate::gbps(10), d, 1 << 20, 1 << 20);
        t.add_cable(z, l1, Rate::gbps(10), d, 1 << 20, 1 << 20);
        t.add_cable(l0, s0, Rate::gbps(30), d, 1 << 20, 1 << 20);
        t.add_cable(l0, s1, Rate::gbps(10), d, 1 << 20, 1 << 20);
        t.add_cable(l1, s0, Rate::gbps(30), d, 1 << 20, 1 << 20);
        t.add_cable(l1, s1, Rate::gbps(10), d, 1 << 20, 1 << 20);
        let r = Routing::new(&t).unwrap();
        let b = Percentage::new(&t, &r, PercentageParams::default()).unwrap();
        // HOLNET §V: p_i = B_i / sum_j B_j.
        assert_eq!(b.percentages(l0, z).unwrap(), &[0.75, 0.25]);
        assert_eq!(b.percentages(l1, a).unwrap(), &[0.75, 0.25]);
        assert!(b.percentages(s0, z).is_none(), "spines have one way down");
        let e = Percentage::new(
            &t,
            &r,
            PercentageParams {
                initial: Some(vec![1.0]),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(e.contains("2 uplinks"), "{e}");
    }
}
