//! Rate allocation kernels shared by the policies.
//!
//! - [`WaterFill::fill`]: weighted max-min fair rates with per-flow caps and fractional link
//!   shares, on whatever capacity is left (`avail`), by water-filling with a heap of link
//!   levels: O((nnz + links) log links) per call, scratch space reused between calls.
//! - [`greedy`]: strict priority, each flow in turn takes all it can on its route.

use crate::net::Hop;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Relative slack when checking "no link above capacity".
pub const CAP_TOL: f64 = 1e-9;

/// Reusable scratch for weighted max-min water-filling over a subset of links.
#[derive(Clone, Debug, Default)]
pub struct WaterFill {
    wsum: Vec<f64>,
    unfrozen: Vec<u32>,
    local: Vec<u32>,
    touched: Vec<u32>,
    start: Vec<u32>,
    fill_pos: Vec<u32>,
    members: Vec<u32>,
    frozen: Vec<bool>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    caps: Vec<(u64, u32)>,
    left: usize,
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
            wsum: vec![0.0; links],
            unfrozen: vec![0; links],
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
        if self.local.len() < avail.len() {
            self.wsum.resize(avail.len(), 0.0);
            self.unfrozen.resize(avail.len(), 0);
            self.local.resize(avail.len(), NONE);
        }
        self.touched.clear();
        self.frozen.clear();
        self.frozen.resize(n, false);
        // Links touched, weight sums and member counts.
        for i in 0..n {
            let w = weight(i);
            for h in hops(i) {
                let l = h.link as usize;
                if self.local[l] == NONE {
                    self.local[l] = self.touched.len() as u32;
                    self.touched.push(h.link);
                    self.wsum[l] = 0.0;
                    self.unfrozen[l] = 0;
                }
                self.wsum[l] += w * h.coef;
                self.unfrozen[l] += 1;
            }
        }
        // Link -> flows (CSR over local link numbers).
        let m = self.touched.len();
        self.start.clear();
        self.start.resize(m + 1, 0);
        for &l in &self.touched {
            let li = self.local[l as usize] as usize;
            self.start[li + 1] = self.unfrozen[l as usize];
        }
        for j in 0..m {
            self.start[j + 1] += self.start[j];
        }
        self.fill_pos.clear();
        self.fill_pos.extend_from_slice(&self.start[..m]);
        self.members.clear();
        self.members.resize(self.start[m] as usize, 0);
        for i in 0..n {
            for h in hops(i) {
                let li = self.local[h.link as usize] as usize;
                self.members[self.fill_pos[li] as usize] = i as u32;
                self.fill_pos[li] += 1;
            }
        }
        // Link levels and cap levels.
        // Heapify in O(links) rather than pushing one by one.
        let mut entries = std::mem::take(&mut self.heap).into_vec();
        entries.clear();
        for &l in &self.touched {
            let lu = l as usize;
            if self.wsum[lu] > 0.0 {
                entries.push(Reverse((key(avail[lu] / self.wsum[lu]), l)));
            }
        }
        self.heap = BinaryHeap::from(entries);
        self.caps.clear();
        for (i, rate) in rates.iter_mut().enumerate().take(n) {
            let c = cap(i);
            if c.is_finite() {
                self.caps.push((key(c / weight(i)), i as u32));
            } else if hops(i).is_empty() {
                *rate = f64::INFINITY;
                self.frozen[i] = true;
            }
        }
        self.caps.sort_unstable();
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
                let lu = l as usize;
                if self.unfrozen[lu] == 0 || self.wsum[lu] <= 0.0 {
                    std::collections::binary_heap::PeekMut::pop(top);
                    continue;
                }
                let cur = key(avail[lu] / self.wsum[lu]);
                if cur != k {
                    // Keys only grow (freezing a flow below a link's level raises it): fix
                    // the top in place, one sift-down.
                    *top = Reverse((cur, l));
                    continue;
                }
                break Some((k, l));
            };
            while next_cap < self.caps.len() && self.frozen[self.caps[next_cap].1 as usize] {
                next_cap += 1;
            }
            let cap_top = self.caps.get(next_cap).copied();
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
                self.freeze(i as usize, level, avail, &hops, &weight, &cap, rates);
            } else {
                let (k, l) = link_top.expect("link event");
                self.heap.pop();
                level = level.max(f64::from_bits(k));
                let li = self.local[l as usize] as usize;
                let (a, b) = (self.start[li] as usize, self.start[li + 1] as usize);
                for p in a..b {
                    let i = self.members[p] as usize;
                    if !self.frozen[i] {
                        self.freeze(i, level, avail, &hops, &weight, &cap, rates);
                    }
                }
            }
        }
        for &l in &self.touched {
            self.local[l as usize] = NONE;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn freeze<'a, H, W, C>(
        &mut self,
        i: usize,
        level: f64,
        avail: &mut [f64],
        hops: &H,
        weight: &W,
        cap: &C,
        rates: &mut [f64],
    ) where
        H: Fn(usize) -> &'a [Hop],
        W: Fn(usize) -> f64,
        C: Fn(usize) -> f64,
    {
        self.frozen[i] = true;
        self.left -= 1;
        let w = weight(i);
        let mut r = (w * level).min(cap(i));
        // Never exceed what is left on a link (rounding).
        for h in hops(i) {
            r = r.min(avail[h.link as usize].max(0.0) / h.coef);
        }
        rates[i] = r;
        for h in hops(i) {
            let l = h.link as usize;
            avail[l] = (avail[l] - r * h.coef).max(0.0);
            self.wsum[l] -= w * h.coef;
            self.unfrozen[l] -= 1;
            if self.unfrozen[l] == 0 {
                self.wsum[l] = 0.0;
            }
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
    use dctc_num::{maxmin::weighted_max_min, Csr};

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
