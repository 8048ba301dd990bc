//! Equal-cost shortest-path routing.
//!
//! A node's next hops toward a destination are its out-links to neighbours one hop closer
//! (hop distances from a breadth-first search backwards from the destination). Hosts never
//! forward transit traffic.
//!
//! The tables are kept small enough for datacenter-scale fabrics: memory grows with links, not
//! with destinations x nodes. Two facts make that possible.
//!
//! - **Anchors.** A destination whose links in all come from one switch (a host under its
//!   edge switch or leaf) is reached through that switch, its *anchor*: every other node's
//!   next hops toward it are its next hops toward the anchor, and the anchor's own are its
//!   links to the destination. One search per anchor serves all its destinations: per edge
//!   switch, not per host. A destination reached from several switches (a multi-homed host,
//!   Flowtune's allocator) is its own anchor.
//! - **Runs.** Anchors are numbered in the order the destinations first name them, which on
//!   the regular fabrics is rack order. Each node's next-hop sets over that sequence are
//!   stored as runs: a run gives one set to a range of anchors, or, *strided*, gives the
//!   i-th of several equal-sized sets to the i-th block of `width` anchors. On a fat-tree an
//!   edge switch has three runs (up, its own hosts, up), an aggregation switch three (up, one
//!   down-link per edge of its pod, up), a core one (one down-link per pod of `k/2` edges),
//!   a host one; a lookup is then arithmetic on the destination's anchor and the run. Fabrics
//!   read from a file get whatever runs their next hops fall into: per destination edge at
//!   worst, never per host.
//!
//! Most nodes' runs take one of a few shapes: one set for every anchor (a host, a core), or
//! one set for every anchor but a range that takes another (plain or strided: an edge or
//! aggregation switch). Such a node gets a `Rule` that a lookup evaluates with one
//! comparison; other nodes' lookups search their runs.
//!
//! Sets are lists of out-links in the node's own out-link order, so the equal-cost choice
//! (`ecmp_pick`'s index) picks the same link as a per-destination table would.
//!
//! Controller nodes (Flowtune's allocator) are routable like hosts: they are destinations after
//! the hosts, and like hosts they never forward transit traffic, so a fabric without one routes
//! exactly as before.

use crate::ids::{LinkId, NodeId};
use crate::rng::mix64;
use crate::topology::{NodeKind, Topology, TopologyError};
use std::collections::{HashMap, VecDeque};

/// Not a destination (in [`Dest::anchor`]).
const NONE: u32 = u32::MAX;
/// A run whose set is the anchor's own links to the destination ([`Dest::last`]).
const LAST_HOP: u32 = u32::MAX;

/// What a lookup needs of a destination node.
#[derive(Copy, Clone, Debug)]
struct Dest {
    /// Its anchor's number, [`NONE`] when the node is not a destination.
    anchor: u32,
    /// The anchor's links to it, `(offset, len)` in `hops`, when the anchor is a switch.
    last: (u32, u32),
}

/// Next hops of one node for a range of anchors, from `start` to the next run's start.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Run {
    /// First anchor of the run.
    start: u32,
    /// Offset of the (first) set in `hops`, or [`LAST_HOP`].
    off: u32,
    /// Links per set.
    len: u32,
    /// 0: one set for the whole run; else the run is strided: anchor `a` takes the set
    /// `(a - start) / width` places on (sets of `len` links, stored one after another).
    width: u32,
}

/// A node's runs when they take one of the common shapes: anchors `lo .. lo + span` take the
/// middle set (a plain or strided run), every other anchor the outer set. Half a cache line.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(align(32))]
struct Rule {
    lo: u32,
    span: u32,
    /// The middle run: offset of its (first) set in `hops` or [`LAST_HOP`], links per set,
    /// and its width (0: one set).
    mid: (u32, u32, u32),
    /// The outer set, `(offset, len)`; `len` [`SEARCH`] when the node's runs take no common
    /// shape and a lookup searches them.
    out: (u32, u32),
}

/// A [`Rule`] whose node's lookups search its runs.
const SEARCH: u32 = u32::MAX;

impl Rule {
    /// The rule of a node whose runs are `runs` over `n_anchors` anchors.
    fn of(runs: &[Run], n_anchors: u32) -> Rule {
        let search = Rule {
            lo: 0,
            span: 0,
            mid: (0, 0, 0),
            out: (0, SEARCH),
        };
        let end = |i: usize| runs.get(i + 1).map_or(n_anchors, |r| r.start);
        let plain = |r: &Run| r.width == 0 && r.off != LAST_HOP;
        let mid_of = |i: usize| Rule {
            lo: runs[i].start,
            span: end(i) - runs[i].start,
            mid: (runs[i].off, runs[i].len, runs[i].width),
            out: (0, 0),
        };
        match runs {
            // One run: all anchors in the middle.
            [_] => mid_of(0),
            // Two: either is the outer set if it is a plain run.
            [a, _] if plain(a) => Rule {
                out: (a.off, a.len),
                ..mid_of(1)
            },
            [_, b] if plain(b) => Rule {
                out: (b.off, b.len),
                ..mid_of(0)
            },
            // Three: the same plain set on either side of the middle.
            [a, _, c] if plain(a) && plain(c) && (a.off, a.len) == (c.off, c.len) => Rule {
                out: (a.off, a.len),
                ..mid_of(1)
            },
            _ => search,
        }
    }
}

/// Next hops on equal-cost shortest paths from every node to every host (see the module docs
/// for how they are stored).
#[derive(Clone, Debug)]
pub struct Routing {
    /// Destinations: the hosts in order, then the controllers.
    dests: Vec<NodeId>,
    /// Per node: as a destination.
    dest: Vec<Dest>,
    /// Per node: its runs' common shape, if they take one.
    rules: Vec<Rule>,
    /// Per node: its runs, `(first, count)` in `runs`, ordered by start anchor.
    node_runs: Vec<(u32, u32)>,
    runs: Vec<Run>,
    /// Every next-hop set and last hop, one after another.
    hops: Vec<LinkId>,
}

/// How a node reaches one anchor while the tables are built: not at all, by the anchor's own
/// last hops, or by a set of out-links (bits over the node's out-link positions).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Empty,
    Last,
    Set(Vec<u64>),
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
        // Incoming links per node, for the backward search.
        let mut incoming: Vec<Vec<LinkId>> = vec![Vec::new(); n];
        for (i, l) in topo.links().iter().enumerate() {
            incoming[l.to.index()].push(LinkId::from_index(i));
        }
        // Anchors, numbered in the order the destinations name them.
        let mut anchors: Vec<NodeId> = Vec::new();
        let mut anchor_no = vec![NONE; n];
        let mut dest = vec![
            Dest {
                anchor: NONE,
                last: (0, 0),
            };
            n
        ];
        let mut hops: Vec<LinkId> = Vec::new();
        for &d in &dests {
            let ins = &incoming[d.index()];
            let from = ins.first().map(|&l| topo.link(l).from);
            let a = match from {
                Some(s) if !is_endpoint(s) && ins.iter().all(|&l| topo.link(l).from == s) => s,
                _ => d,
            };
            if anchor_no[a.index()] == NONE {
                anchor_no[a.index()] = anchors.len() as u32;
                anchors.push(a);
            }
            dest[d.index()].anchor = anchor_no[a.index()];
            if a != d {
                let off = hops.len() as u32;
                hops.extend(topo.out_links(a).iter().filter(|&&l| topo.link(l).to == d));
                dest[d.index()].last = (off, hops.len() as u32 - off);
            }
        }
        // One backward search per anchor; a node's key toward it extends the node's current
        // run or starts a new one (`node_runs[v]`: first anchor and key of each run).
        let mut open: Vec<Option<Key>> = vec![None; n];
        let mut node_runs: Vec<Vec<(u32, Key)>> = vec![Vec::new(); n];
        // Hosts that cannot reach each anchor (the first two, in host order).
        let mut unreached: Vec<[Option<NodeId>; 2]> = Vec::with_capacity(anchors.len());
        let mut dist = vec![u16::MAX; n];
        let mut queue = VecDeque::new();
        let mut bits: Vec<u64> = Vec::new();
        for (ai, &a) in anchors.iter().enumerate() {
            dist.fill(u16::MAX);
            dist[a.index()] = 0;
            queue.clear();
            queue.push_back(a);
            while let Some(v) = queue.pop_front() {
                // A host (or controller) other than the anchor does not forward.
                if v != a && is_endpoint(v) {
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
            let mut miss = [None, None];
            for (i, &h) in hosts
                .iter()
                .filter(|h| dist[h.index()] == u16::MAX)
                .take(2)
                .enumerate()
            {
                miss[i] = Some(h);
            }
            unreached.push(miss);
            for v in 0..n {
                let d = dist[v];
                let key = if d == u16::MAX {
                    Key::Empty
                } else if d == 0 {
                    // The anchor itself: a switch reaches its destinations by its last hops;
                    // a destination that is its own anchor is there.
                    if is_endpoint(a) {
                        Key::Empty
                    } else {
                        Key::Last
                    }
                } else {
                    let out = topo.out_links(NodeId::from_index(v));
                    bits.clear();
                    bits.resize(out.len().div_ceil(64).max(1), 0);
                    for (i, &l) in out.iter().enumerate() {
                        let to = topo.link(l).to;
                        let forwards = to == a || !is_endpoint(to);
                        if forwards && dist[to.index()] == d - 1 {
                            bits[i / 64] |= 1 << (i % 64);
                        }
                    }
                    // Compared in place: a set is allocated only where a run starts.
                    if matches!(&open[v], Some(Key::Set(b)) if *b == bits) {
                        continue;
                    }
                    Key::Set(bits.clone())
                };
                if open[v].as_ref() != Some(&key) {
                    node_runs[v].push((ai as u32, key.clone()));
                    open[v] = Some(key);
                }
            }
        }
        // Disconnected pairs, reported as a search per destination would: the first
        // destination (in order) that some host cannot reach, and the first such host.
        for &d in &dests {
            let miss = unreached[dest[d.index()].anchor as usize];
            if let Some(h) = miss.into_iter().flatten().find(|&h| h != d) {
                return Err(TopologyError::Disconnected {
                    from: topo.node(h).name.clone(),
                    to: topo.node(d).name.clone(),
                });
            }
        }
        // Each node's distinct sets, stored once in the order of first use, then its runs,
        // those with equal-sized sets in sequence merged into strided runs.
        let n_anchors = anchors.len() as u32;
        let mut runs = Vec::new();
        let mut first_run = Vec::with_capacity(n);
        let mut stored: HashMap<&Key, (u32, u32, u32)> = HashMap::new();
        for (v, list) in node_runs.iter().enumerate() {
            stored.clear();
            // Per run: first anchor, (offset, len) of its set, and the set's order of first
            // use (`u32::MAX` for the empty and last-hop sets).
            let mut sets: Vec<(u32, (u32, u32), u32)> = Vec::with_capacity(list.len());
            for (start, key) in list {
                let (off, len, order) = match key {
                    Key::Empty => (0, 0, u32::MAX),
                    Key::Last => (LAST_HOP, 0, u32::MAX),
                    Key::Set(bits) => {
                        let next = stored.len() as u32;
                        *stored.entry(key).or_insert_with(|| {
                            let out = topo.out_links(NodeId::from_index(v));
                            let off = hops.len() as u32;
                            hops.extend(
                                out.iter()
                                    .enumerate()
                                    .filter(|(i, _)| bits[i / 64] >> (i % 64) & 1 == 1)
                                    .map(|(_, &l)| l),
                            );
                            (off, hops.len() as u32 - off, next)
                        })
                    }
                };
                sets.push((*start, (off, len), order));
            }
            let first = runs.len() as u32;
            let end_of = |j: usize| sets.get(j + 1).map_or(n_anchors, |s| s.0);
            let mut j = 0;
            while j < sets.len() {
                let (start, (off, len), order) = sets[j];
                let width = end_of(j) - start;
                // A strided run: the runs after it as wide, with sets as large and first used
                // one after another (so stored one after another).
                let mut e = j + 1;
                if order != u32::MAX {
                    while e < sets.len()
                        && sets[e].2 == sets[e - 1].2 + 1
                        && sets[e].1 .1 == len
                        && sets[e].1 .0 == sets[e - 1].1 .0 + len
                        && end_of(e) - sets[e].0 == width
                    {
                        e += 1;
                    }
                }
                runs.push(Run {
                    start,
                    off,
                    len,
                    width: if e - j > 1 { width } else { 0 },
                });
                j = e;
            }
            first_run.push((first, runs.len() as u32 - first));
        }
        let rules = first_run
            .iter()
            .map(|&(first, count)| {
                Rule::of(&runs[first as usize..(first + count) as usize], n_anchors)
            })
            .collect();
        Ok(Routing {
            dests,
            dest,
            rules,
            node_runs: first_run,
            runs,
            hops,
        })
    }

    /// Every destination: the hosts in order, then the controllers.
    pub fn destinations(&self) -> &[NodeId] {
        &self.dests
    }

    /// Out-links of `at` on shortest paths to host (or controller) `dst` (empty at `dst`),
    /// in `at`'s out-link order.
    #[inline]
    pub fn next_hops(&self, _topo: &Topology, at: NodeId, dst: NodeId) -> &[LinkId] {
        self.hops_toward(at, dst)
    }

    /// [`Routing::next_hops`] (which needs no topology). The packet engine's per-hop lookup:
    /// for a node whose runs take a common shape, one comparison and at most a division.
    #[inline(always)]
    pub fn hops_toward(&self, at: NodeId, dst: NodeId) -> &[LinkId] {
        let d = self.dest[dst.index()];
        assert!(
            d.anchor != NONE,
            "routing destination must be a host or controller"
        );
        if at == dst {
            return &[];
        }
        let rule = &self.rules[at.index()];
        let rel = d.anchor.wrapping_sub(rule.lo);
        let (off, len) = if rel < rule.span {
            let (off, len, width) = rule.mid;
            if off == LAST_HOP {
                d.last
            } else {
                (off + block(rel, width) * len, len)
            }
        } else if rule.out.1 != SEARCH {
            rule.out
        } else {
            self.search(at, d)
        };
        &self.hops[off as usize..(off + len) as usize]
    }

    /// The set toward `d` of a node whose runs take no common shape, from its runs.
    #[inline(never)]
    fn search(&self, at: NodeId, d: Dest) -> (u32, u32) {
        let (first, count) = self.node_runs[at.index()];
        let runs = &self.runs[first as usize..(first + count) as usize];
        let r = &runs[runs.partition_point(|r| r.start <= d.anchor) - 1];
        if r.off == LAST_HOP {
            d.last
        } else {
            (r.off + block(d.anchor - r.start, r.width) * r.len, r.len)
        }
    }

    /// Hop count from `at` to host `dst`.
    pub fn distance(&self, topo: &Topology, at: NodeId, dst: NodeId) -> Option<u16> {
        // Every next hop is one hop closer: follow the first.
        let mut hops = 0u16;
        let mut v = at;
        while v != dst {
            let &l = self.hops_toward(v, dst).first()?;
            v = topo.link(l).to;
            hops += 1;
        }
        Some(hops)
    }

    /// Runs and stored links: the size of the tables (a test checks they grow with links).
    pub fn table_size(&self) -> (usize, usize) {
        (self.runs.len(), self.hops.len())
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

/// The block of a run of `width` (0: a plain run, one block) that the anchor `rel` places
/// after the run's start falls in.
#[inline(always)]
fn block(rel: u32, width: u32) -> u32 {
    if width <= 1 {
        // 0 for a plain run, `rel` for blocks of one anchor (an aggregation switch's edges).
        rel * width
    } else {
        rel / width
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

    /// The tables as a breadth-first search per destination computes them (the first
    /// implementation, kept as the reference): next hops of every node toward every
    /// destination, and hop distances; or the first disconnected pair.
    #[allow(clippy::type_complexity)]
    fn reference(
        t: &Topology,
    ) -> Result<Vec<(NodeId, Vec<(Vec<LinkId>, Option<u16>)>)>, TopologyError> {
        let n = t.nodes().len();
        let is_endpoint = |v: NodeId| !matches!(t.node(v).kind, NodeKind::Switch { .. });
        let mut dests: Vec<NodeId> = t.hosts().to_vec();
        dests.extend(
            (0..n)
                .map(NodeId::from_index)
                .filter(|&v| t.node(v).kind == NodeKind::Controller),
        );
        let mut incoming: Vec<Vec<LinkId>> = vec![Vec::new(); n];
        for (i, l) in t.links().iter().enumerate() {
            incoming[l.to.index()].push(LinkId::from_index(i));
        }
        let mut out = Vec::new();
        for &dst in &dests {
            let mut dist = vec![u16::MAX; n];
            dist[dst.index()] = 0;
            let mut queue = VecDeque::from([dst]);
            while let Some(v) = queue.pop_front() {
                if v != dst && is_endpoint(v) {
                    continue;
                }
                for &l in &incoming[v.index()] {
                    let u = t.link(l).from;
                    if dist[u.index()] == u16::MAX {
                        dist[u.index()] = dist[v.index()] + 1;
                        queue.push_back(u);
                    }
                }
            }
            let rows = (0..n)
                .map(|node| {
                    let d = dist[node];
                    let hops = if d == u16::MAX || d == 0 {
                        Vec::new()
                    } else {
                        t.out_links(NodeId::from_index(node))
                            .iter()
                            .copied()
                            .filter(|&l| {
                                let to = t.link(l).to;
                                (to == dst || !is_endpoint(to)) && dist[to.index()] == d - 1
                            })
                            .collect()
                    };
                    (hops, (d != u16::MAX).then_some(d))
                })
                .collect();
            for &src in t.hosts() {
                if dist[src.index()] == u16::MAX {
                    return Err(TopologyError::Disconnected {
                        from: t.node(src).name.clone(),
                        to: t.node(dst).name.clone(),
                    });
                }
            }
            out.push((dst, rows));
        }
        Ok(out)
    }

    /// `Routing` agrees with [`reference`] on every node and destination of `t`; whether it
    /// built (an error must be the reference's).
    fn agrees_with_reference(t: &Topology) -> bool {
        let (r, want) = match (Routing::new(t), reference(t)) {
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "{}", t.name);
                return false;
            }
            (Ok(r), Ok(w)) => (r, w),
            (r, w) => panic!("{}: {:?} against {:?}", t.name, r.err(), w.err()),
        };
        assert_eq!(
            r.destinations(),
            want.iter().map(|w| w.0).collect::<Vec<_>>()
        );
        for (dst, rows) in &want {
            for (node, (hops, dist)) in rows.iter().enumerate() {
                let at = NodeId::from_index(node);
                assert_eq!(
                    r.next_hops(t, at, *dst),
                    &hops[..],
                    "{}: next hops of {} toward {}",
                    t.name,
                    t.node(at).name,
                    t.node(*dst).name
                );
                assert_eq!(r.distance(t, at, *dst), *dist, "{}", t.name);
            }
        }
        true
    }

    fn fat(k: usize) -> Topology {
        crate::fabric::fat_tree(&crate::fabric::FatTreeSpec {
            k,
            rate_gbps: 10.0,
            link_delay_us: 1.0,
            host_delay_us: 0.0,
            buffer_bytes: 100_000,
        })
        .unwrap()
    }

    #[test]
    fn the_compact_tables_route_the_generated_fabrics_as_a_search_per_destination() {
        for k in [2, 4, 6, 8] {
            assert!(agrees_with_reference(&fat(k)));
        }
        let mut with_allocator = fat(4);
        crate::fabric::attach_allocator(&mut with_allocator, 40.0).unwrap();
        assert!(agrees_with_reference(&with_allocator));
        for (name, _) in crate::fabric::PRESETS {
            let mut t = preset(name).unwrap().build(Path::new(".")).unwrap();
            assert!(agrees_with_reference(&t));
            crate::fabric::attach_allocator(&mut t, 40.0).unwrap();
            assert!(agrees_with_reference(&t));
        }
        let db = crate::fabric::dumbbell(&crate::fabric::DumbbellSpec {
            senders: 3,
            receivers: 2,
            host_rate_gbps: 10.0,
            bottleneck_rate_gbps: 10.0,
            link_delay_us: 1.0,
            host_delay_us: 0.0,
            buffer_bytes: 100_000,
        })
        .unwrap();
        assert!(agrees_with_reference(&db));
    }

    #[test]
    fn the_compact_tables_route_irregular_fabrics_as_a_search_per_destination() {
        use crate::units::{Delta, Rate};
        // Random fabrics: multi-homed hosts, parallel cables, hosts cabled to hosts, switches
        // of mixed tiers, a controller; some disconnected. Each checked against the
        // reference, errors included.
        let mut x = 12345u64;
        let mut next = |m: u64| {
            x = mix64(x);
            x % m
        };
        let r = Rate(10_000_000_000);
        let mut built = 0;
        for case in 0..60 {
            let mut t = Topology::new(format!("random {case}"), Delta::ZERO);
            let hosts = 2 + next(6) as usize;
            let switches = 1 + next(5) as usize;
            let h: Vec<_> = (0..hosts)
                .map(|i| t.add_node(NodeKind::Host, format!("h{i}")))
                .collect();
            let s: Vec<_> = (0..switches)
                .map(|i| {
                    let tier = 1 + next(3) as u8;
                    t.add_node(NodeKind::Switch { tier }, format!("s{i}"))
                })
                .collect();
            if next(4) == 0 {
                t.add_node(NodeKind::Controller, "allocator");
            }
            let nodes = t.nodes().len() as u64;
            for (i, &hh) in h.iter().enumerate() {
                // Most hosts single-homed; some with two or three cables.
                for _ in 0..1 + usize::from(next(4) == 0) + usize::from(next(8) == 0) {
                    let sw = s[(i + next(2) as usize) % switches];
                    t.add_cable(hh, sw, r, Delta::ZERO, 1, 1);
                }
            }
            for _ in 0..next(2 * nodes) + switches as u64 {
                let a = NodeId::from_index(next(nodes) as usize);
                let b = NodeId::from_index(next(nodes) as usize);
                if a != b {
                    t.add_cable(a, b, r, Delta::ZERO, 1, 1);
                }
            }
            built += usize::from(agrees_with_reference(&t));
        }
        // Both outcomes are exercised.
        assert!((20..55).contains(&built), "{built} of 60 built");
    }

    #[test]
    fn the_regular_fabrics_route_by_rules_without_searching() {
        let mut t = fat(8);
        crate::fabric::attach_allocator(&mut t, 40.0).unwrap();
        let mut ls = preset("flowtune-144")
            .unwrap()
            .build(Path::new("."))
            .unwrap();
        crate::fabric::attach_allocator(&mut ls, 40.0).unwrap();
        for t in [fat(8), t, fat(6), ls] {
            let r = Routing::new(&t).unwrap();
            assert!(
                r.rules.iter().all(|rule| rule.out.1 != SEARCH),
                "{}",
                t.name
            );
        }
    }

    #[test]
    fn routing_tables_grow_with_links_not_hosts_times_nodes() {
        for k in [8, 16, 24] {
            let t = fat(k);
            let r = Routing::new(&t).unwrap();
            let (runs, hops) = r.table_size();
            let links = t.links().len();
            // A host one run, an edge or aggregation switch three (two at either end of the
            // anchor order: the first and last edge, the aggregation switches of the first
            // and last pod), a core one.
            assert_eq!(
                runs,
                t.hosts().len() + 3 * k * k - (k + 2) + k * k / 4,
                "k = {k}"
            );
            assert!(
                hops <= 2 * links,
                "k = {k}: {hops} stored links, {links} links"
            );
        }
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
