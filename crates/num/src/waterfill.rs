//! The water-filling kernel: every max-min allocation in dctc runs through it (the flow
//! engine's policies, [`crate::maxmin::weighted_max_min`],
//! [`crate::maxmin::bounded_weighted_max_min`] and [`crate::maxmin::multipath_max_min`] when
//! no flow has a split to choose).
//!
//! - [`WaterFill::fill`]: weighted max-min fair rates with per-flow caps and fractional link
//!   shares, on whatever capacity is left (`avail`), by water-filling with a heap of link
//!   levels: O((nnz + links) log links) per call, scratch space reused between calls.
//! - [`WaterFill::fill_bounded`]: the same with per-flow minimum rates (a flow is held at its
//!   minimum until the level reaches it), one more kind of event in the same loop.
//! - [`greedy`]: strict priority, each flow in turn takes all it can on its route.
//!
//! [`crate::maxmin::oracle_weighted_max_min`], the direct level-by-level water-filling, is
//! the test oracle this kernel is checked against.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One hop of a route: a link and the fraction of the flow's rate it carries (1 for a single
/// path; `k / n` when the rate is spread over `n` equal-cost paths of which `k` use the link).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Hop {
    /// Directed link index.
    pub link: u32,
    /// Share of the flow's rate on this link, in (0, 1].
    pub coef: f64,
}

/// Reusable scratch for weighted max-min water-filling over a subset of links.
///
/// Each call copies the flows' routes into a compact local form (links renumbered `0..m` in
/// order of first use, per-hop local link and share in flat arrays, per-link member lists)
/// and water-fills on per-local-link arrays (weights and caps are read through the caller's
/// closures, so constant ones fold away); [`WaterFill::fill_cached`] keeps that form
/// between calls on the same flows and routes. The arithmetic is the same in every case
/// (same operations on the same operands, in the same order), so the rates are too.
#[derive(Clone, Debug, Default)]
pub struct WaterFill {
    /// Global link -> local number (`NONE` for links outside the current structure).
    local: Vec<u32>,
    /// Local number -> global link.
    touched: Vec<u32>,
    /// Per local link: flows crossing it (hops), remaining capacity, unfrozen weight sum,
    /// unfrozen hops.
    count: Vec<u32>,
    lavail: Vec<f64>,
    wsum: Vec<f64>,
    unfrozen: Vec<u32>,
    /// Local link -> member flows (CSR).
    start: Vec<u32>,
    members: Vec<u32>,
    fill_pos: Vec<u32>,
    /// Flow -> hops (CSR): local link and share of each hop.
    fstart: Vec<u32>,
    hl: Vec<u32>,
    hc: Vec<f64>,
    /// Per flow: whether it has its rate.
    frozen: Vec<bool>,
    /// Per flow, when minimum rates are given: its minimum while it is held there (the level
    /// is below `min / weight`), 0 once it grows with the level.
    held: Vec<f64>,
    /// Levels at which held flows start growing, lowest first.
    starts: Vec<(u64, u32)>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    caps: Vec<(u64, u32)>,
    left: usize,
    /// The structure above is that of these flows (`fill_cached`'s ids) with these routes
    /// (`epoch`); `None` after a plain `fill`.
    cached: Option<u64>,
    cached_ids: Vec<u32>,
}

const NONE: u32 = u32::MAX;

fn key(x: f64) -> u64 {
    // Non-negative finite floats order like their bit patterns.
    x.max(0.0).to_bits()
}

impl WaterFill {
    /// Scratch for a fabric with `links` directed links.
    pub fn new(links: usize) -> WaterFill {
        WaterFill {
            local: vec![NONE; links],
            ..WaterFill::default()
        }
    }

    /// Weighted max-min fair rates for `n` flows on the capacity left in `avail` (b/s per
    /// link, reduced by what the flows take). Flow `i` crosses `hops(i)`, has weight
    /// `weight(i) > 0` and may not exceed `cap(i)` (`f64::INFINITY` for none). Writes
    /// `rates[i]`. A flow with no hops and no cap gets its cap (infinite).
    pub fn fill<'a, H, W, C>(
        &mut self,
        avail: &mut [f64],
        n: usize,
        hops: H,
        weight: W,
        cap: C,
        rates: &mut [f64],
    ) where
        H: Fn(usize) -> &'a [Hop],
        W: Fn(usize) -> f64,
        C: Fn(usize) -> f64,
    {
        self.prepare(avail.len(), n, hops);
        self.cached = None;
        self.solve(avail, n, weight, cap, rates);
    }

    /// [`WaterFill::fill`] with a minimum rate `min(i)` per flow (HOLNET's theta, eq. 11; at
    /// most its cap): every unfrozen flow's rate is `max(w_i level, min_i)`, so a flow is
    /// held at its minimum until the level reaches `min_i / w_i`, and a link that fills
    /// freezes every unfrozen flow on it, those still held included. The minimums must fit
    /// the links (`avail` minus their sum stays >= 0); the caller checks.
    #[allow(clippy::too_many_arguments)]
    pub fn fill_bounded<'a, H, W, M, C>(
        &mut self,
        avail: &mut [f64],
        n: usize,
        hops: H,
        weight: W,
        min: M,
        cap: C,
        rates: &mut [f64],
    ) where
        H: Fn(usize) -> &'a [Hop],
        W: Fn(usize) -> f64,
        M: Fn(usize) -> f64,
        C: Fn(usize) -> f64,
    {
        self.prepare(avail.len(), n, hops);
        self.cached = None;
        self.held.clear();
        self.held.extend((0..n).map(&min));
        self.solve(avail, n, weight, cap, rates);
        self.held.clear();
    }

    /// The first half of [`WaterFill::fill`]: takes in the routes of `n` flows. Then
    /// [`WaterFill::touched`] lists the links they cross, and [`WaterFill::fill_prepared`]
    /// water-fills them.
    pub fn prepare_flows<'a, H>(&mut self, links: usize, n: usize, hops: H)
    where
        H: Fn(usize) -> &'a [Hop],
    {
        self.prepare(links, n, hops);
        self.cached = None;
    }

    /// The links crossed by the flows last taken in, each once.
    pub fn touched(&self) -> &[u32] {
        &self.touched
    }

    /// The second half of [`WaterFill::fill`], on the flows [`WaterFill::prepare_flows`] took
    /// in (`n` must be their number).
    pub fn fill_prepared<W, C>(
        &mut self,
        avail: &mut [f64],
        n: usize,
        weight: W,
        cap: C,
        rates: &mut [f64],
    ) where
        W: Fn(usize) -> f64,
        C: Fn(usize) -> f64,
    {
        assert_eq!(
            n + 1,
            self.fstart.len(),
            "fill_prepared: not the prepared flows"
        );
        self.solve(avail, n, weight, cap, rates);
    }

    /// [`WaterFill::fill`] for the flows `ids` (flow `i` of the call is `ids[i]`), reusing
    /// the route structure of the previous call when it was made by this method with the same
    /// `ids` and the same `epoch`. The caller changes `epoch` whenever a route of any flow may
    /// have changed.
    #[allow(clippy::too_many_arguments)]
    pub fn fill_cached<'a, H, W, C>(
        &mut self,
        avail: &mut [f64],
        ids: &[u32],
        epoch: u64,
        hops: H,
        weight: W,
        cap: C,
        rates: &mut [f64],
    ) where
        H: Fn(usize) -> &'a [Hop],
        W: Fn(usize) -> f64,
        C: Fn(usize) -> f64,
    {
        let n = ids.len();
        if self.cached != Some(epoch) || self.cached_ids != ids || self.local.len() < avail.len() {
            self.prepare(avail.len(), n, hops);
            self.cached = Some(epoch);
            self.cached_ids.clear();
            self.cached_ids.extend_from_slice(ids);
        }
        self.solve(avail, n, weight, cap, rates);
    }

    /// Builds the local structure of `n` flows on `hops`.
    fn prepare<'a, H>(&mut self, links: usize, n: usize, hops: H)
    where
        H: Fn(usize) -> &'a [Hop],
    {
        for &l in &self.touched {
            self.local[l as usize] = NONE;
        }
        if self.local.len() < links {
            self.local.resize(links, NONE);
        }
        self.touched.clear();
        self.count.clear();
        self.fstart.clear();
        self.fstart.reserve(n + 1);
        self.fstart.push(0);
        let mut nnz = 0u32;
        for i in 0..n {
            nnz += hops(i).len() as u32;
            self.fstart.push(nnz);
        }
        self.hl.clear();
        self.hl.resize(nnz as usize, 0);
        self.hc.clear();
        self.hc.resize(nnz as usize, 0.0);
        for i in 0..n {
            let (a, b) = (self.fstart[i] as usize, self.fstart[i + 1] as usize);
            let hs = hops(i);
            for ((h, hl), hc) in hs.iter().zip(&mut self.hl[a..b]).zip(&mut self.hc[a..b]) {
                let l = h.link as usize;
                let mut j = self.local[l];
                if j == NONE {
                    j = self.touched.len() as u32;
                    self.local[l] = j;
                    self.touched.push(h.link);
                    self.count.push(0);
                }
                self.count[j as usize] += 1;
                *hl = j;
                *hc = h.coef;
            }
        }
        // Link -> flows (CSR over local link numbers), flows in increasing order.
        let m = self.touched.len();
        self.start.clear();
        self.start.push(0);
        let mut acc = 0u32;
        for &c in &self.count {
            acc += c;
            self.start.push(acc);
        }
        self.fill_pos.clear();
        self.fill_pos.extend_from_slice(&self.start[..m]);
        self.members.clear();
        self.members.resize(acc as usize, 0);
        for i in 0..n {
            let (a, b) = (self.fstart[i] as usize, self.fstart[i + 1] as usize);
            for &j in &self.hl[a..b] {
                let pos = &mut self.fill_pos[j as usize];
                self.members[*pos as usize] = i as u32;
                *pos += 1;
            }
        }
    }

    /// Water-fills the prepared structure with this call's weights and caps.
    fn solve<W, C>(&mut self, avail: &mut [f64], n: usize, weight: W, cap: C, rates: &mut [f64])
    where
        W: Fn(usize) -> f64,
        C: Fn(usize) -> f64,
    {
        let m = self.touched.len();
        let bounded = !self.held.is_empty();
        // Weight sums and unfrozen counts, summed flow by flow as the hops come.
        self.wsum.clear();
        self.wsum.resize(m, 0.0);
        self.unfrozen.clear();
        self.unfrozen.extend_from_slice(&self.count);
        for i in 0..n {
            if bounded && self.held[i] > 0.0 {
                // Held at its minimum: its weight joins at the level min / w.
                continue;
            }
            let w = weight(i);
            let (a, b) = (self.fstart[i] as usize, self.fstart[i + 1] as usize);
            for (&j, &c) in self.hl[a..b].iter().zip(&self.hc[a..b]) {
                self.wsum[j as usize] += w * c;
            }
        }
        self.lavail.clear();
        self.lavail
            .extend(self.touched.iter().map(|&l| avail[l as usize]));
        if bounded {
            // The held flows' minimums are taken off their links at once.
            for i in 0..n {
                let (a, b) = (self.fstart[i] as usize, self.fstart[i + 1] as usize);
                for (&j, &c) in self.hl[a..b].iter().zip(&self.hc[a..b]) {
                    self.lavail[j as usize] -= self.held[i] * c;
                }
            }
        }
        self.frozen.clear();
        self.frozen.resize(n, false);
        // Link levels and cap levels.
        // Heapify in O(links) rather than pushing one by one.
        let mut entries = std::mem::take(&mut self.heap).into_vec();
        entries.clear();
        for (j, &l) in self.touched.iter().enumerate() {
            if self.wsum[j] > 0.0 {
                entries.push(Reverse((key(self.lavail[j] / self.wsum[j]), l)));
            }
        }
        self.heap = BinaryHeap::from(entries);
        self.caps.clear();
        for (i, rate) in rates.iter_mut().enumerate().take(n) {
            let c = cap(i);
            if c.is_finite() {
                self.caps.push((key(c / weight(i)), i as u32));
            } else if self.fstart[i] == self.fstart[i + 1] {
                *rate = f64::INFINITY;
                self.frozen[i] = true;
            }
        }
        self.caps.sort_unstable();
        self.starts.clear();
        if bounded {
            for i in 0..n {
                if !self.frozen[i] && self.held[i] > 0.0 {
                    self.starts.push((key(self.held[i] / weight(i)), i as u32));
                }
            }
            self.starts.sort_unstable();
        }
        let mut next_start = 0usize;
        let mut next_cap = 0usize;
        let mut level = 0.0f64;
        self.left = self.frozen.iter().filter(|&&f| !f).count();
        loop {
            if self.left == 0 {
                // Every flow has its rate: the remaining entries are links that emptied.
                break;
            }
            // Drop stale heap entries.
            let link_top = loop {
                let Some(mut top) = self.heap.peek_mut() else {
                    break None;
                };
                let Reverse((k, l)) = *top;
                let j = self.local[l as usize] as usize;
                if self.unfrozen[j] == 0 || self.wsum[j] <= 0.0 {
                    std::collections::binary_heap::PeekMut::pop(top);
                    continue;
                }
                let cur = key(self.lavail[j] / self.wsum[j]);
                if cur != k {
                    // A key that grew (a flow frozen below the link's level) is fixed in
                    // place, one sift-down; one that fell (a held flow released) already has
                    // a fresh entry below it.
                    *top = Reverse((cur, l));
                    continue;
                }
                break Some((k, j));
            };
            while next_cap < self.caps.len() && self.frozen[self.caps[next_cap].1 as usize] {
                next_cap += 1;
            }
            let cap_top = self.caps.get(next_cap).copied();
            while next_start < self.starts.len() && self.frozen[self.starts[next_start].1 as usize]
            {
                next_start += 1;
            }
            if let Some((k, i)) = self.starts.get(next_start).copied() {
                // A held flow starts growing before anything at its level happens.
                let first = |top: Option<(u64, _)>| top.is_none_or(|(t, _)| k <= t);
                if first(link_top) && first(cap_top.map(|(t, i)| (t, i as usize))) {
                    next_start += 1;
                    level = level.max(f64::from_bits(k));
                    self.release(i as usize, &weight);
                    continue;
                }
            }
            let take_cap = match (link_top, cap_top) {
                (None, None) => break,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some((lk, _)), Some((ck, _))) => ck <= lk,
            };
            if take_cap {
                let (k, i) = cap_top.expect("cap event");
                level = level.max(f64::from_bits(k));
                next_cap += 1;
                self.freeze(i as usize, level, &weight, &cap, rates);
            } else {
                let (k, j) = link_top.expect("link event");
                self.heap.pop();
                level = level.max(f64::from_bits(k));
                let (a, b) = (self.start[j] as usize, self.start[j + 1] as usize);
                for p in a..b {
                    let i = self.members[p] as usize;
                    if !self.frozen[i] {
                        self.freeze(i, level, &weight, &cap, rates);
                    }
                }
            }
        }
        for (j, &l) in self.touched.iter().enumerate() {
            avail[l as usize] = self.lavail[j];
        }
    }

    #[inline(always)]
    fn freeze<W, C>(&mut self, i: usize, level: f64, weight: &W, cap: &C, rates: &mut [f64])
    where
        W: Fn(usize) -> f64,
        C: Fn(usize) -> f64,
    {
        self.frozen[i] = true;
        self.left -= 1;
        if let Some(&min) = self.held.get(i).filter(|&&t| t > 0.0) {
            // Frozen while held: its minimum, already taken off its links.
            rates[i] = min;
            let (a, b) = (self.fstart[i] as usize, self.fstart[i + 1] as usize);
            for &j in &self.hl[a..b] {
                let j = j as usize;
                self.unfrozen[j] -= 1;
                if self.unfrozen[j] == 0 {
                    self.wsum[j] = 0.0;
                }
            }
            return;
        }
        let w = weight(i);
        let mut r = (w * level).min(cap(i));
        let (a, b) = (self.fstart[i] as usize, self.fstart[i + 1] as usize);
        let (hl, hc) = (&self.hl[a..b], &self.hc[a..b]);
        // Never exceed what is left on a link (rounding).
        for (&j, &c) in hl.iter().zip(hc) {
            r = r.min(self.lavail[j as usize].max(0.0) / c);
        }
        rates[i] = r;
        for (&j, &c) in hl.iter().zip(hc) {
            let j = j as usize;
            self.lavail[j] = (self.lavail[j] - r * c).max(0.0);
            self.wsum[j] -= w * c;
            self.unfrozen[j] -= 1;
            if self.unfrozen[j] == 0 {
                self.wsum[j] = 0.0;
            }
        }
    }
}

impl WaterFill {
    /// A held flow starts growing with the level: its minimum goes back to its links, its
    /// weight joins theirs (their levels may drop: each gets a fresh heap entry).
    fn release<W>(&mut self, i: usize, weight: &W)
    where
        W: Fn(usize) -> f64,
    {
        let min = std::mem::replace(&mut self.held[i], 0.0);
        let w = weight(i);
        let (a, b) = (self.fstart[i] as usize, self.fstart[i + 1] as usize);
        for (&j, &c) in self.hl[a..b].iter().zip(&self.hc[a..b]) {
            let j = j as usize;
            self.lavail[j] += min * c;
            self.wsum[j] += w * c;
            let k = key(self.lavail[j] / self.wsum[j]);
            self.heap.push(Reverse((k, self.touched[j])));
        }
    }
}

/// Strict priority: flows in the given order each take all they can on their route
/// (`min over hops of avail / coef`, at most `cap(i)`), reducing `avail`.
pub fn greedy<'a, H, C>(avail: &mut [f64], order: &[u32], hops: H, cap: C, rates: &mut [f64])
where
    H: Fn(usize) -> &'a [Hop],
    C: Fn(usize) -> f64,
{
    for &i in order {
        let i = i as usize;
        let mut r = cap(i);
        for h in hops(i) {
            r = r.min(avail[h.link as usize].max(0.0) / h.coef);
        }
        if !r.is_finite() {
            r = 0.0;
        }
        rates[i] = r;
        for h in hops(i) {
            let l = h.link as usize;
            avail[l] = (avail[l] - r * h.coef).max(0.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::maxmin::oracle_weighted_max_min as weighted_max_min;
    use crate::Csr;

    fn hop(l: u32) -> Hop {
        Hop { link: l, coef: 1.0 }
    }

    #[test]
    fn parking_lot_matches_reference_water_filling() {
        let routes = [
            vec![hop(0), hop(1)],
            vec![hop(0)],
            vec![hop(1)],
            vec![hop(1)],
        ];
        let mut avail = vec![1.0, 1.0];
        let mut rates = vec![0.0; 4];
        let mut wf = WaterFill::new(2);
        wf.fill(
            &mut avail,
            4,
            |i| &routes[i],
            |_| 1.0,
            |_| f64::INFINITY,
            &mut rates,
        );
        let csr = Csr::from_rows(
            routes
                .iter()
                .map(|r| r.iter().map(|h| h.link).collect::<Vec<_>>()),
        );
        let want = weighted_max_min(&[1.0, 1.0], &csr, &[1.0; 4], &[f64::INFINITY; 4]);
        for (a, b) in rates.iter().zip(&want) {
            assert!((a - b).abs() < 1e-12, "{rates:?} vs {want:?}");
        }
        assert!(avail.iter().all(|&a| a.abs() < 1e-12));
    }

    #[test]
    fn weights_caps_and_fractional_shares() {
        // Flow 0 spreads half over links 1 and 2; flow 1 uses link 1; flow 2 link 2, capped.
        let routes = [
            vec![
                hop(0),
                Hop { link: 1, coef: 0.5 },
                Hop { link: 2, coef: 0.5 },
            ],
            vec![hop(1)],
            vec![hop(2)],
        ];
        let mut avail = vec![10.0, 4.0, 4.0];
        let mut rates = vec![0.0; 3];
        let mut wf = WaterFill::new(3);
        let caps = [f64::INFINITY, f64::INFINITY, 1.0];
        wf.fill(
            &mut avail,
            3,
            |i| &routes[i],
            |_| 1.0,
            |i| caps[i],
            &mut rates,
        );
        // Flow 2 stops at 1; link 1 fills first: 0.5 x + x = 4 -> x = 8/3 for flows 0, 1.
        assert!((rates[2] - 1.0).abs() < 1e-12, "{rates:?}");
        assert!((rates[0] - 8.0 / 3.0).abs() < 1e-12, "{rates:?}");
        assert!((rates[1] - 8.0 / 3.0).abs() < 1e-12, "{rates:?}");
    }

    #[test]
    fn random_instances_agree_with_the_reference() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for _ in 0..50 {
            let links = rng.random_range(1..8usize);
            let n = rng.random_range(1..20usize);
            let cap: Vec<f64> = (0..links).map(|_| rng.random_range(1.0..10.0)).collect();
            let routes: Vec<Vec<Hop>> = (0..n)
                .map(|_| {
                    let mut r: Vec<u32> =
                        (0..links as u32).filter(|_| rng.random_bool(0.4)).collect();
                    if r.is_empty() {
                        r.push(0);
                    }
                    r.into_iter().map(hop).collect()
                })
                .collect();
            // Weights in quarters: their sums are exact, which the reference needs (it stops
            // only when a full link's weight sum reaches exactly zero).
            let w: Vec<f64> = (0..n)
                .map(|_| rng.random_range(1..12u32) as f64 / 4.0)
                .collect();
            let c: Vec<f64> = (0..n)
                .map(|_| {
                    if rng.random_bool(0.3) {
                        rng.random_range(0.1..3.0)
                    } else {
                        f64::INFINITY
                    }
                })
                .collect();
            let mut avail = cap.clone();
            let mut rates = vec![0.0; n];
            WaterFill::new(links).fill(
                &mut avail,
                n,
                |i| &routes[i],
                |i| w[i],
                |i| c[i],
                &mut rates,
            );
            let csr = Csr::from_rows(
                routes
                    .iter()
                    .map(|r| r.iter().map(|h| h.link).collect::<Vec<_>>()),
            );
            let want = weighted_max_min(&cap, &csr, &w, &c);
            for (a, b) in rates.iter().zip(&want) {
                assert!((a - b).abs() < 1e-9 * b.max(1.0), "{rates:?} vs {want:?}");
            }
        }
    }
}
