//! The phases of the pull iteration on a [`Layout`]: one flow pass and one link pass per
//! iteration, as portable functions over slices.
//!
//! - Flow pass, row by row (`W` flows of `W` different heads): F-NORM of the *previous*
//!   iteration (its rate times the smaller of the head's and the tail's ratio, Flowtune eq.
//!   9), then the rate update (eq. 3) from the head's and the tail's price sums, giving rate
//!   `x`, demand `d` (up to 4x line rate) and slope `s = d x / d q` (the one-sided slope at
//!   the line-rate clamp, `-d^2 / w` for `w log x`). The head's sums of `[x, d, s]` stay in
//!   per-lane registers over the slice; the tail's are added to its 16-byte accumulator. Both
//!   halves' price sums and ratios are taken from the link table (`[price, ratio]` per link,
//!   small enough to stay in L1 or L2): the head's once per slice, the tail's from the two
//!   links stored beside each flow, so no per-half price table has to be refreshed.
//! - Link pass: every link sums its heads and tails (sliced ELLPACK, `W` links side by side),
//!   updates its price (eq. 4, `G = sum d - c`, skipped while no flow crosses the link) and
//!   F-NORM ratio `c / load` (kept as a reciprocal).
//!
//! The phases are shared by the single-threaded [`super::pull::Pull`] and the multicore
//! [`super::par::PullParallel`], both through [`super::simd`], which compiles them again
//! with AVX-512 or AVX2 enabled (`#[inline(always)]`) and picks one at run time.

use super::layout::{Layout, Sell, W};
use super::{FlowSet, Real, DEMAND, GAMMA};

/// Per position row: `[w, 1 / w, line rate]` per lane (padding: all 0).
pub(crate) fn params<T: Real>(set: &FlowSet, lay: &Layout) -> Vec<[[T; W]; 3]> {
    lay.flow_at
        .iter()
        .map(|row| {
            let mut p = [[T::of(0.0); W]; 3];
            for (j, &f) in row.iter().enumerate() {
                if f != u32::MAX {
                    let (w, line) = (set.weight[f as usize], set.line[f as usize]);
                    p[0][j] = T::of(w);
                    p[1][j] = T::of(1.0 / w);
                    p[2][j] = T::of(line);
                }
            }
            p
        })
        .collect()
}

/// What the flow pass reads and writes for its rows (sub-slices for head slices `k0..k1`).
pub(crate) struct FlowOut<'a, T> {
    pub(crate) rate: &'a mut [[T; W]],
    pub(crate) normalized: &'a mut [[T; W]],
    /// Heads `k0 * W..k1 * W`.
    pub(crate) head_acc: &'a mut [[T; 4]],
    /// Every tail's `[sum x, sum d, sum s, 0]` (zeroed here first; plus a zero entry).
    pub(crate) tails: &'a mut [[T; 4]],
}

/// Flow pass over head slices `k0..k1` (`params` and the rows of `out` start at row
/// `lay.rows[k0]`).
#[inline(always)]
pub(crate) fn flow_pass<T: Real>(
    lay: &Layout,
    k0: usize,
    k1: usize,
    pr: &[[T; 2]],
    params: &[[[T; W]; 3]],
    out: FlowOut<'_, T>,
) {
    let zero = T::of(0.0);
    let four = T::of(DEMAND);
    let base = lay.rows[k0] as usize;
    out.tails[..lay.tails.len()].fill([zero; 4]);
    for k in k0..k1 {
        let (mut hp, mut hr) = ([zero; W], [zero; W]);
        for j in 0..W {
            let [a, b] = lay.heads[k * W + j];
            let (a, b) = (pr[a as usize], pr[b as usize]);
            hp[j] = a[0] + b[0];
            hr[j] = a[1].min(b[1]);
        }
        let (mut ax, mut ad, mut as_) = ([zero; W], [zero; W], [zero; W]);
        for row in lay.rows[k] as usize..lay.rows[k + 1] as usize {
            let t = lay.tail_at[row];
            let [w, inv_w, line] = params[row - base];
            let mut pt = [zero; W];
            let mut rt = [zero; W];
            for (j, &[a, b]) in lay.tail_links_at[row].iter().enumerate() {
                let (a, b) = (pr[a as usize], pr[b as usize]);
                pt[j] = a[0] + b[0];
                rt[j] = a[1].min(b[1]);
            }
            let prev = out.rate[row - base];
            let (mut x, mut d, mut s, mut nrm) = ([zero; W], [zero; W], [zero; W], [zero; W]);
            for j in 0..W {
                // F-NORM (eq. 9) of the previous rate: a positive rate has positive load on
                // each of its links, so the ratio is finite.
                nrm[j] = prev[j] * hr[j].min(rt[j]);
                // Rate update (eq. 3); prices are >= 0, so q = 0 gives w / q = +inf, clamped
                // to the demand cap (padding: 0 / q is 0 or NaN, and the compare-select min
                // against a cap of 0 gives 0).
                let q = hp[j] + pt[j];
                d[j] = (w[j] / q).min(four * line[j]);
                x[j] = d[j].min(line[j]);
                s[j] = -(d[j] * d[j]) * inv_w[j];
                ax[j] = ax[j] + x[j];
                ad[j] = ad[j] + d[j];
                as_[j] = as_[j] + s[j];
            }
            out.rate[row - base] = x;
            out.normalized[row - base] = nrm;
            for j in 0..W {
                let a = &mut out.tails[t[j] as usize];
                *a = [a[0] + x[j], a[1] + d[j], a[2] + s[j], a[3]];
            }
        }
        for j in 0..W {
            out.head_acc[(k - k0) * W + j] = [ax[j], ad[j], as_[j], zero];
        }
    }
}

/// Sums of `src` over one ELLPACK slice's entries, `W` rows side by side, added to `s` (the
/// fourth component rides along: it is zero in every `src`).
#[inline(always)]
fn sell_add<T: Real>(s: &mut [[T; 4]; W], entries: &[[u32; W]], src: &[[T; 4]]) {
    for e in entries {
        for j in 0..W {
            let v = src[e[j] as usize];
            s[j] = [
                s[j][0] + v[0],
                s[j][1] + v[1],
                s[j][2] + v[2],
                s[j][3] + v[3],
            ];
        }
    }
}

/// Link pass: every link's price (eq. 4) and F-NORM ratio (`pr`) from the head sums and the
/// tail sums (one tail array per thread, each with a zero entry past the tails).
#[inline(always)]
pub(crate) fn link_pass<T: Real>(
    lay: &Layout,
    cap: &[T],
    head_acc: &[[T; 4]],
    tails: &[&[[T; 4]]],
    pr: &mut [[T; 2]],
) {
    for k in 0..lay.link_heads.slices() {
        let s = slice_sums(&lay.link_heads, &lay.link_tails, k, head_acc, tails);
        price_step(k, &s, cap, pr);
    }
}

/// The summing half of [`link_pass`] for one thread of [`super::par::PullParallel`]: every
/// link's `[sum x, sum d, sum s, 0]` over this thread's head and tail sums (heads of other
/// threads are zero in `head_acc`, and `link_heads`, the thread's part of `lay.link_heads`,
/// skips them), into `out` (one entry per internal link).
#[inline(always)]
pub(crate) fn link_sums<T: Real>(
    lay: &Layout,
    link_heads: &Sell,
    head_acc: &[[T; 4]],
    tails: &[[T; 4]],
    out: &mut [[T; 4]],
) {
    for k in 0..lay.link_heads.slices() {
        let s = slice_sums(link_heads, &lay.link_tails, k, head_acc, &[tails]);
        out[k * W..(k + 1) * W].copy_from_slice(&s);
    }
}

/// The updating half of [`link_pass`] for [`super::par::PullParallel`]: every link's sums are
/// the threads' [`link_sums`] added in thread order (one thread: its sums as they are), then
/// price and ratio as in [`link_pass`].
#[inline(always)]
pub(crate) fn link_update<T: Real>(lay: &Layout, cap: &[T], sums: &[&[[T; 4]]], pr: &mut [[T; 2]]) {
    for k in 0..lay.link_heads.slices() {
        let mut s: [[T; 4]; W] = sums[0][k * W..(k + 1) * W].try_into().expect("W");
        for t in &sums[1..] {
            for j in 0..W {
                let v = t[k * W + j];
                s[j] = [
                    s[j][0] + v[0],
                    s[j][1] + v[1],
                    s[j][2] + v[2],
                    s[j][3] + v[3],
                ];
            }
        }
        price_step(k, &s, cap, pr);
    }
}

/// Link slice `k`'s sums: its heads', then each tail array's.
#[inline(always)]
fn slice_sums<T: Real>(
    lh: &Sell,
    lt: &Sell,
    k: usize,
    head_acc: &[[T; 4]],
    tails: &[&[[T; 4]]],
) -> [[T; 4]; W] {
    let mut s = [[T::of(0.0); 4]; W];
    sell_add(
        &mut s,
        &lh.idx[lh.rows[k] as usize..lh.rows[k + 1] as usize],
        head_acc,
    );
    for t in tails {
        sell_add(
            &mut s,
            &lt.idx[lt.rows[k] as usize..lt.rows[k + 1] as usize],
            t,
        );
    }
    s
}

/// Link slice `k`'s new prices (eq. 4) and F-NORM ratios from its sums `s`.
#[inline(always)]
fn price_step<T: Real>(k: usize, s: &[[T; 4]; W], cap: &[T], pr: &mut [[T; 2]]) {
    let zero = T::of(0.0);
    let gamma = T::of(GAMMA);
    let cap: &[T; W] = cap[k * W..(k + 1) * W].try_into().expect("W");
    let pr: &mut [[T; 2]; W] = (&mut pr[k * W..(k + 1) * W]).try_into().expect("W");
    // Lanes side by side (structure of arrays), so the divisions vectorize.
    let load: [T; W] = std::array::from_fn(|j| s[j][0]);
    let demand: [T; W] = std::array::from_fn(|j| s[j][1]);
    let h: [T; W] = std::array::from_fn(|j| s[j][2]);
    let p: [T; W] = std::array::from_fn(|j| pr[j][0]);
    let mut next = [zero; W];
    let mut ratio = [zero; W];
    for j in 0..W {
        // Eq. (4); H_ll < 0 iff some flow crosses the link, otherwise the price stays
        // (selected, not branched: the division's value is then unused).
        let stepped = (p[j] - gamma * (demand[j] - cap[j]) / h[j]).max(zero);
        next[j] = if h[j] < zero { stepped } else { p[j] };
        // Reciprocal of r_l (eq. 9): F-NORM takes the minimum and multiplies.
        ratio[j] = cap[j] / load[j];
    }
    for j in 0..W {
        pr[j] = [next[j], ratio[j]];
    }
}

/// Link capacities in `T`, internal order (the dummy's infinite capacity becomes the largest
/// finite value, padding links get 1).
pub(crate) fn capacities<T: Real>(set: &FlowSet, lay: &Layout) -> Vec<T> {
    lay.link_of
        .iter()
        .map(|&l| match set.capacity.get(l as usize) {
            Some(&c) => T::of(c.min(f64::MAX)),
            None => T::of(1.0),
        })
        .collect()
}

/// Fresh link state: prices 1 (Flowtune §3), the dummy's price 0 and ratio infinite, other
/// ratios 0 (no F-NORM before the first rates).
pub(crate) fn fresh<T: Real>(lay: &Layout) -> Vec<[T; 2]> {
    let mut pr = vec![[T::of(1.0), T::of(0.0)]; lay.links()];
    pr[lay.dummy] = [T::of(0.0), T::of(f64::INFINITY)];
    pr
}

/// Prices in the flow set's link order (the dummy last), from internal order.
pub(crate) fn external_prices<T: Real>(lay: &Layout, pr: &[[T; 2]]) -> Vec<f64> {
    let mut out = vec![0.0; lay.dummy_external() + 1];
    for (i, &l) in lay.link_of.iter().enumerate() {
        if let Some(o) = out.get_mut(l as usize) {
            *o = pr[i][0].f64();
        }
    }
    out
}

/// F-NORM-normalized rates (eq. 9) of `rate` with the current half ratios, per original flow.
pub(crate) fn normalized_now<T: Real>(lay: &Layout, rate: &[[T; W]], pr: &[[T; 2]]) -> Vec<f64> {
    let mut out = vec![0.0; lay.flows];
    for k in 0..lay.slices() {
        for row in lay.rows[k] as usize..lay.rows[k + 1] as usize {
            for j in 0..W {
                let f = lay.flow_at[row][j];
                if f != u32::MAX {
                    let [a, b] = lay.heads[k * W + j];
                    let [c, d] = lay.tail_links_at[row][j];
                    let r = pr[a as usize][1]
                        .min(pr[b as usize][1])
                        .min(pr[c as usize][1].min(pr[d as usize][1]));
                    out[f as usize] = (rate[row][j] * r).f64();
                }
            }
        }
    }
    out
}

/// Values per position row mapped back to original flow order.
pub(crate) fn unpermute<T: Real>(lay: &Layout, rows: &[[T; W]]) -> Vec<f64> {
    let mut out = vec![0.0; lay.flows];
    for (row, fs) in rows.iter().zip(&lay.flow_at) {
        for (v, &f) in row.iter().zip(fs) {
            if f != u32::MAX {
                out[f as usize] = v.f64();
            }
        }
    }
    out
}
