//! Kernel choice: the portable phases of `phases` compiled again with AVX-512 or AVX2
//! enabled (the compiler then vectorizes their arithmetic), picked at run time with
//! `is_x86_feature_detected!`, plus explicit AVX-512 kernels for the `f32` flow and link passes.
//! The portable build (x86-64 baseline, SSE2) is the fallback and the oracle: every kernel
//! does the same operations in the same order and gives the same bits (tested). All the
//! `unsafe` of the fast path that concerns CPU features is in this module.

use super::layout::{Layout, Sell, W};
use super::phases::{self, FlowOut};
use super::Real;
#[cfg(target_arch = "x86_64")]
use std::any::TypeId;

/// Which compilation of the phases runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Baseline x86-64 (or any other target): SSE2.
    Portable,
    /// AVX2 + FMA.
    Avx2,
    /// AVX-512 F/VL/BW/DQ + AVX2 + FMA.
    Avx512,
}

impl Kernel {
    /// The widest kernel this CPU runs.
    pub fn detect() -> Kernel {
        Kernel::Avx512.supported()
    }

    /// `self` if this CPU runs it, else the next narrower one that it does.
    pub fn supported(self) -> Kernel {
        #[cfg(target_arch = "x86_64")]
        {
            let avx2 = std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma");
            let avx512 = avx2
                && std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512dq");
            match self {
                Kernel::Avx512 if avx512 => Kernel::Avx512,
                Kernel::Avx512 | Kernel::Avx2 if avx2 => Kernel::Avx2,
                _ => Kernel::Portable,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Kernel::Portable
        }
    }

    /// Short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;

    /// A portable phase of `phases` compiled again with AVX-512 and with AVX2 enabled: two
    /// functions with the phase's signature that call it.
    macro_rules! recompiled {
        ($phase:ident => $avx512:ident, $avx2:ident ($($arg:ident: $ty:ty),* $(,)?)) => {
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            pub(super) fn $avx512<T: Real>($($arg: $ty),*) {
                phases::$phase($($arg),*)
            }

            #[target_feature(enable = "avx2,fma")]
            pub(super) fn $avx2<T: Real>($($arg: $ty),*) {
                phases::$phase($($arg),*)
            }
        };
    }

    recompiled!(flow_pass => flow_pass_avx512, flow_pass_avx2(
        lay: &Layout,
        k0: usize,
        k1: usize,
        pr: &[[T; 2]],
        params: &[[[T; W]; 3]],
        out: FlowOut<'_, T>,
    ));
    recompiled!(link_pass => link_pass_avx512, link_pass_avx2(
        lay: &Layout,
        cap: &[T],
        head_acc: &[[T; 4]],
        tails: &[&[[T; 4]]],
        pr: &mut [[T; 2]],
    ));
    recompiled!(link_sums => link_sums_avx512, link_sums_avx2(
        lay: &Layout,
        link_heads: &Sell,
        head_acc: &[[T; 4]],
        tails: &[[T; 4]],
        out: &mut [[T; 4]],
    ));
    recompiled!(link_update => link_update_avx512, link_update_avx2(
        lay: &Layout,
        cap: &[T],
        sums: &[&[[T; 4]]],
        pr: &mut [[T; 2]],
    ));

    /// Link slice `$k`'s `[x, d, s, 0]` sums (`[__m128; W]`) over `$lh`'s heads in `$head_acc`,
    /// then over `$lt`'s tails in each array of `$tails`, as in `phases::slice_sums`. A macro,
    /// not a function: a `#[target_feature]` function cannot be forced inline, and the call
    /// cost 7% of an iteration. Callers guarantee every entry of `$lh` indexes `$head_acc` and
    /// every entry of `$lt` each tail array.
    macro_rules! slice_sums_f32 {
        ($lh:expr, $lt:expr, $k:expr, $head_acc:expr, $tails:expr) => {{
            let (lh, lt, k): (&Sell, &Sell, usize) = ($lh, $lt, $k);
            let heads = $head_acc.as_ptr() as *const f32;
            let mut s = [_mm_setzero_ps(); W];
            for e in &lh.idx[lh.rows[k] as usize..lh.rows[k + 1] as usize] {
                for j in 0..W {
                    // SAFETY: e[j] indexes the head sums (callers' guarantee); 16-byte entries.
                    s[j] = _mm_add_ps(s[j], unsafe { _mm_loadu_ps(heads.add(4 * e[j] as usize)) });
                }
            }
            for t in $tails {
                let base = t.as_ptr() as *const f32;
                for e in &lt.idx[lt.rows[k] as usize..lt.rows[k + 1] as usize] {
                    for j in 0..W {
                        // SAFETY: e[j] indexes every tail array (callers' guarantee).
                        s[j] =
                            _mm_add_ps(s[j], unsafe { _mm_loadu_ps(base.add(4 * e[j] as usize)) });
                    }
                }
            }
            s
        }};
    }

    /// The flow pass for `f32` with explicit AVX-512 (VL) intrinsics: the eight tails'
    /// `[price, ratio]` in one register, the arithmetic eight lanes wide, and the tail sums added
    /// as eight 16-byte `[x, d, s, 0]` vectors after an in-register transpose. The same
    /// operations in the same order as `phases::flow_pass`, so the results are identical.
    ///
    /// # Safety
    /// The CPU has AVX-512 F/VL and AVX2; `lay` was built by `Layout::new` (every `tail_at`
    /// entry is below `lay.tails.len()`, every link in `heads` and `tail_links_at` below
    /// `lay.links()`); `out.tails.len() > lay.tails.len()` and `pr.len() == lay.links()`
    /// (asserted).
    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
    pub(super) unsafe fn flow_pass_f32_avx512(
        lay: &Layout,
        k0: usize,
        k1: usize,
        pr: &[[f32; 2]],
        params: &[[[f32; W]; 3]],
        out: FlowOut<'_, f32>,
    ) {
        use std::arch::x86_64::*;
        const { assert!(W == 8) };
        assert!(out.tails.len() > lay.tails.len());
        let base = lay.rows[k0] as usize;
        assert_eq!(pr.len(), lay.links());
        out.tails[..lay.tails.len()].fill([0.0; 4]);
        let tails = out.tails.as_mut_ptr() as *mut f32;
        let links = pr.as_ptr() as *const i64;
        let zero = _mm256_setzero_ps();
        let four = _mm256_set1_ps(super::super::DEMAND as f32);
        let sign = _mm256_set1_ps(-0.0);
        // Eight `[x, d, s, 0]` quadruples, lane by lane: two in each of four registers.
        #[inline(always)]
        fn quads(x: __m256, d: __m256, s: __m256) -> [__m256; 4] {
            // SAFETY (of the intrinsics): pure register operations, AVX enabled by the caller.
            unsafe {
                let z = _mm256_setzero_ps();
                let xd_lo = _mm256_unpacklo_ps(x, d); // x0 d0 x1 d1 | x4 d4 x5 d5
                let xd_hi = _mm256_unpackhi_ps(x, d); // x2 d2 x3 d3 | x6 d6 x7 d7
                let sz_lo = _mm256_unpacklo_ps(s, z); // s0 0 s1 0 | s4 0 s5 0
                let sz_hi = _mm256_unpackhi_ps(s, z);
                [
                    _mm256_shuffle_ps::<0b01_00_01_00>(xd_lo, sz_lo), // lanes 0 | 4
                    _mm256_shuffle_ps::<0b11_10_11_10>(xd_lo, sz_lo), // lanes 1 | 5
                    _mm256_shuffle_ps::<0b01_00_01_00>(xd_hi, sz_hi), // lanes 2 | 6
                    _mm256_shuffle_ps::<0b11_10_11_10>(xd_hi, sz_hi), // lanes 3 | 7
                ]
            }
        }
        // Lane j of the quads: register j % 4, half j / 4.
        #[inline(always)]
        fn lane(q: &[__m256; 4], j: usize) -> __m128 {
            // SAFETY (of the intrinsics): pure register operations.
            unsafe {
                if j < 4 {
                    _mm256_castps256_ps128(q[j])
                } else {
                    _mm256_extractf128_ps::<1>(q[j - 4])
                }
            }
        }
        for k in k0..k1 {
            let (mut hp, mut hr) = ([0f32; W], [0f32; W]);
            for j in 0..W {
                let [a, b] = lay.heads[k * W + j];
                let (a, b) = (pr[a as usize], pr[b as usize]);
                hp[j] = a[0] + b[0];
                hr[j] = a[1].min(b[1]);
            }
            let hp = _mm256_loadu_ps(hp.as_ptr());
            let hr = _mm256_loadu_ps(hr.as_ptr());
            let (mut ax, mut ad, mut as_) = (zero, zero, zero);
            for row in lay.rows[k] as usize..lay.rows[k + 1] as usize {
                let t = &lay.tail_at[row];
                let p = &params[row - base];
                // The tails' two links' `[price, ratio]`: sixteen scalar 8-byte loads from the
                // link table (faster here than `vpgatherdq`).
                // SAFETY: every link is below pr.len() (Layout::new, asserted length).
                let tl = &lay.tail_links_at[row];
                let ld = |j: usize, i: usize| *(links.add(tl[j][i] as usize));
                let ga = _mm512_setr_epi64(
                    ld(0, 0),
                    ld(1, 0),
                    ld(2, 0),
                    ld(3, 0),
                    ld(4, 0),
                    ld(5, 0),
                    ld(6, 0),
                    ld(7, 0),
                );
                let gb = _mm512_setr_epi64(
                    ld(0, 1),
                    ld(1, 1),
                    ld(2, 1),
                    ld(3, 1),
                    ld(4, 1),
                    ld(5, 1),
                    ld(6, 1),
                    ld(7, 1),
                );
                let lo = |g: __m512i| _mm256_castsi256_ps(_mm512_cvtepi64_epi32(g));
                let hi = |g: __m512i| {
                    _mm256_castsi256_ps(_mm512_cvtepi64_epi32(_mm512_srli_epi64::<32>(g)))
                };
                let pt = _mm256_add_ps(lo(ga), lo(gb));
                // minps(a, b) is `if a < b { a } else { b }`, as `Real::min`.
                let rt = _mm256_min_ps(hi(ga), hi(gb));
                let w = _mm256_loadu_ps(p[0].as_ptr());
                let inv_w = _mm256_loadu_ps(p[1].as_ptr());
                let line = _mm256_loadu_ps(p[2].as_ptr());
                let r = row - base;
                let prev = _mm256_loadu_ps(out.rate[r].as_ptr());
                // minps(a, b) is `if a < b { a } else { b }`, as `Real::min`.
                let nrm = _mm256_mul_ps(prev, _mm256_min_ps(hr, rt));
                let q = _mm256_add_ps(hp, pt);
                let d = _mm256_min_ps(_mm256_div_ps(w, q), _mm256_mul_ps(four, line));
                let x = _mm256_min_ps(d, line);
                let s = _mm256_mul_ps(_mm256_xor_ps(_mm256_mul_ps(d, d), sign), inv_w);
                ax = _mm256_add_ps(ax, x);
                ad = _mm256_add_ps(ad, d);
                as_ = _mm256_add_ps(as_, s);
                _mm256_storeu_ps(out.rate[r].as_mut_ptr(), x);
                _mm256_storeu_ps(out.normalized[r].as_mut_ptr(), nrm);
                let q4 = quads(x, d, s);
                for j in 0..W {
                    // SAFETY: t[j] < tails.len(); 16-byte entries.
                    let at = tails.add(4 * t[j] as usize);
                    _mm_storeu_ps(at, _mm_add_ps(_mm_loadu_ps(at), lane(&q4, j)));
                }
            }
            let q4 = quads(ax, ad, as_);
            for j in 0..W {
                let at = out.head_acc[(k - k0) * W + j].as_mut_ptr();
                _mm_storeu_ps(at, lane(&q4, j));
            }
        }
    }

    /// The first part of the link pass for `f32` with explicit AVX-512 (VL) intrinsics: each
    /// ELLPACK entry is one 16-byte load and add, the eight sums are transposed in registers
    /// and the price update (eq. 4) and ratios run eight links wide, in the same operations
    /// and order as `phases::link_pass` (identical results).
    ///
    /// # Safety
    /// The CPU has AVX-512 F/VL and AVX2; `lay` was built by `Layout::new` (ELLPACK entries
    /// below `lay.heads.len() + 1` and `lay.tails.len() + 1`); the lengths of `head_acc`,
    /// every `tails[i]`, `cap` and `pr` match (asserted).
    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
    pub(super) unsafe fn link_pass_f32_avx512(
        lay: &Layout,
        cap: &[f32],
        head_acc: &[[f32; 4]],
        tails: &[&[[f32; 4]]],
        pr: &mut [[f32; 2]],
    ) {
        use std::arch::x86_64::*;
        const { assert!(W == 8) };
        assert_eq!(head_acc.len(), lay.heads.len() + 1);
        assert!(tails.iter().all(|t| t.len() == lay.tails.len() + 1));
        assert!(cap.len() == lay.links() && pr.len() == lay.links());
        let (lh, lt) = (&lay.link_heads, &lay.link_tails);
        for k in 0..lh.slices() {
            // `lay` comes from `Layout::new`, so its entries index the heads and tails (lengths
            // asserted above).
            let s = slice_sums_f32!(lh, lt, k, head_acc, tails);
            // SAFETY: k is a link slice, so k * W + W <= cap.len() == pr.len() (asserted).
            unsafe { update_slice_f32(k, &s, cap, pr) };
        }
    }

    /// Link slice `k`'s price (eq. 4) and F-NORM ratio from its eight `[x, d, s, 0]` sums, as
    /// in `phases::price_step`.
    ///
    /// # Safety
    /// The CPU has AVX-512 F/VL and AVX2; `(k + 1) * W <= cap.len()` and `<= pr.len()`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
    unsafe fn update_slice_f32(
        k: usize,
        s: &[std::arch::x86_64::__m128; W],
        cap: &[f32],
        pr: &mut [[f32; 2]],
    ) {
        use std::arch::x86_64::*;
        let gamma = _mm256_set1_ps(super::super::GAMMA as f32);
        let zero = _mm256_setzero_ps();
        // Lane order inside the registers below: links 0 1 4 5 | 2 3 6 7 of the slice.
        let order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
        let y = |a: usize, b: usize| _mm256_set_m128(s[b], s[a]);
        let (y0, y1, y2, y3) = (y(0, 2), y(1, 3), y(4, 6), y(5, 7));
        let (t0, t1) = (_mm256_unpacklo_ps(y0, y1), _mm256_unpackhi_ps(y0, y1));
        let (t2, t3) = (_mm256_unpacklo_ps(y2, y3), _mm256_unpackhi_ps(y2, y3));
        let load = _mm256_shuffle_ps::<0b01_00_01_00>(t0, t2);
        let demand = _mm256_shuffle_ps::<0b11_10_11_10>(t0, t2);
        let h = _mm256_shuffle_ps::<0b01_00_01_00>(t1, t3);
        let c = _mm256_permutevar8x32_ps(_mm256_loadu_ps(cap[k * W..].as_ptr()), order);
        let at = pr[k * W..(k + 1) * W].as_mut_ptr() as *mut f32;
        // SAFETY: `at` points at W `[f32; 2]` pairs, 16 floats.
        let (a, b) = unsafe { (_mm256_loadu_ps(at), _mm256_loadu_ps(at.add(8))) };
        let p = _mm256_shuffle_ps::<0b10_00_10_00>(a, b);
        // Eq. (4), as in `phases::price_step`: maxps(x, 0) is `if x > 0 { x } else { 0 }`.
        let stepped = _mm256_max_ps(
            _mm256_sub_ps(
                p,
                _mm256_div_ps(_mm256_mul_ps(gamma, _mm256_sub_ps(demand, c)), h),
            ),
            zero,
        );
        let next = _mm256_blendv_ps(p, stepped, _mm256_cmp_ps::<_CMP_LT_OQ>(h, zero));
        let ratio = _mm256_div_ps(c, load);
        // SAFETY: as above.
        unsafe {
            _mm256_storeu_ps(at, _mm256_unpacklo_ps(next, ratio));
            _mm256_storeu_ps(at.add(8), _mm256_unpackhi_ps(next, ratio));
        }
    }

    /// `phases::link_sums` for `f32` with explicit AVX-512 (VL) intrinsics (the summing loop of
    /// [`link_pass_f32_avx512`]); the same additions in the same order.
    ///
    /// # Safety
    /// The CPU has AVX-512 F/VL and AVX2; `lay` was built by `Layout::new` and `link_heads` by
    /// `lay.link_heads.filtered` (so both index only heads); the lengths of `head_acc`, `tails`
    /// and `out` match (asserted).
    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
    pub(super) unsafe fn link_sums_f32_avx512(
        lay: &Layout,
        link_heads: &Sell,
        head_acc: &[[f32; 4]],
        tails: &[[f32; 4]],
        out: &mut [[f32; 4]],
    ) {
        use std::arch::x86_64::*;
        assert_eq!(head_acc.len(), lay.heads.len() + 1);
        assert_eq!(tails.len(), lay.tails.len() + 1);
        assert_eq!(out.len(), lay.links());
        assert_eq!(link_heads.slices(), lay.link_tails.slices());
        let lt = &lay.link_tails;
        for k in 0..link_heads.slices() {
            // `link_heads` comes from `lay.link_heads.filtered` (contract), so its entries, like
            // `lay`'s, index the heads; `lt`'s index the tails.
            let s = slice_sums_f32!(link_heads, lt, k, head_acc, [tails]);
            let o = out[k * W..(k + 1) * W].as_mut_ptr() as *mut f32;
            for (j, v) in s.iter().enumerate() {
                // SAFETY: `o` points at W 16-byte entries.
                unsafe { _mm_storeu_ps(o.add(4 * j), *v) };
            }
        }
    }

    /// `phases::link_update` for `f32` with explicit AVX-512 (VL) intrinsics; the same
    /// operations in the same order.
    ///
    /// # Safety
    /// The CPU has AVX-512 F/VL and AVX2; `sums` is not empty and every entry, `cap` and `pr`
    /// have `lay.links()` entries (asserted).
    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
    pub(super) unsafe fn link_update_f32_avx512(
        lay: &Layout,
        cap: &[f32],
        sums: &[&[[f32; 4]]],
        pr: &mut [[f32; 2]],
    ) {
        use std::arch::x86_64::*;
        assert!(!sums.is_empty() && sums.iter().all(|t| t.len() == lay.links()));
        assert!(cap.len() == lay.links() && pr.len() == lay.links());
        for k in 0..lay.link_heads.slices() {
            let first = sums[0][k * W..].as_ptr() as *const f32;
            // SAFETY: W 16-byte entries from k * W, within the length asserted above.
            let mut s: [__m128; W] =
                std::array::from_fn(|j| unsafe { _mm_loadu_ps(first.add(4 * j)) });
            for t in &sums[1..] {
                let p = t[k * W..].as_ptr() as *const f32;
                for (j, v) in s.iter_mut().enumerate() {
                    // SAFETY: as above.
                    *v = _mm_add_ps(*v, unsafe { _mm_loadu_ps(p.add(4 * j)) });
                }
            }
            // SAFETY: (k + 1) * W <= lay.links() == cap.len() == pr.len().
            unsafe { update_slice_f32(k, &s, cap, pr) };
        }
    }
}

/// `phases::flow_pass` compiled for `kernel` (which must come from [`Kernel::supported`]).
pub(crate) fn flow_pass<T: Real>(
    kernel: Kernel,
    lay: &Layout,
    k0: usize,
    k1: usize,
    pr: &[[T; 2]],
    params: &[[[T; W]; 3]],
    out: FlowOut<'_, T>,
) {
    #[cfg(target_arch = "x86_64")]
    if kernel == Kernel::Avx512 && TypeId::of::<T>() == TypeId::of::<f32>() {
        // SAFETY: T is f32, so every cast below is the identity; `Kernel::supported` returned
        // Avx512 only after detecting the features; `lay` comes from `Layout::new` (callers
        // hold it immutably) and the lengths are asserted inside.
        unsafe {
            let pr = &*(pr as *const [[T; 2]] as *const [[f32; 2]]);
            let params = &*(params as *const [[[T; W]; 3]] as *const [[[f32; W]; 3]]);
            let out = FlowOut {
                rate: &mut *(out.rate as *mut [[T; W]] as *mut [[f32; W]]),
                normalized: &mut *(out.normalized as *mut [[T; W]] as *mut [[f32; W]]),
                head_acc: &mut *(out.head_acc as *mut [[T; 4]] as *mut [[f32; 4]]),
                tails: &mut *(out.tails as *mut [[T; 4]] as *mut [[f32; 4]]),
            };
            x86::flow_pass_f32_avx512(lay, k0, k1, pr, params, out);
        }
        return;
    }
    match kernel {
        // SAFETY: `Kernel::supported` returned Avx512 only after detecting every feature
        // this function enables; its code is safe Rust.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => unsafe { x86::flow_pass_avx512(lay, k0, k1, pr, params, out) },
        // SAFETY: as above, AVX2 and FMA were detected.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe { x86::flow_pass_avx2(lay, k0, k1, pr, params, out) },
        _ => phases::flow_pass(lay, k0, k1, pr, params, out),
    }
}

/// `phases::link_pass` compiled for `kernel` (which must come from [`Kernel::supported`]).
pub(crate) fn link_pass<T: Real>(
    kernel: Kernel,
    lay: &Layout,
    cap: &[T],
    head_acc: &[[T; 4]],
    tails: &[&[[T; 4]]],
    pr: &mut [[T; 2]],
) {
    #[cfg(target_arch = "x86_64")]
    if kernel == Kernel::Avx512 && TypeId::of::<T>() == TypeId::of::<f32>() {
        // SAFETY: T is f32, so every cast below is the identity; `Kernel::supported` returned
        // Avx512 only after detecting the features; `lay` comes from `Layout::new` and the
        // lengths are asserted inside.
        unsafe {
            let cap = &*(cap as *const [T] as *const [f32]);
            let head_acc = &*(head_acc as *const [[T; 4]] as *const [[f32; 4]]);
            let tails = &*(tails as *const [&[[T; 4]]] as *const [&[[f32; 4]]]);
            let pr = &mut *(pr as *mut [[T; 2]] as *mut [[f32; 2]]);
            x86::link_pass_f32_avx512(lay, cap, head_acc, tails, pr);
        }
        return;
    }
    match kernel {
        // SAFETY: `Kernel::supported` detected every feature this function enables.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => unsafe { x86::link_pass_avx512(lay, cap, head_acc, tails, pr) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe { x86::link_pass_avx2(lay, cap, head_acc, tails, pr) },
        _ => phases::link_pass(lay, cap, head_acc, tails, pr),
    }
}

/// `phases::link_sums` compiled for `kernel` (which must come from [`Kernel::supported`]);
/// `link_heads` must come from `lay.link_heads.filtered` (its entries index the heads).
pub(crate) fn link_sums<T: Real>(
    kernel: Kernel,
    lay: &Layout,
    link_heads: &Sell,
    head_acc: &[[T; 4]],
    tails: &[[T; 4]],
    out: &mut [[T; 4]],
) {
    #[cfg(target_arch = "x86_64")]
    if kernel == Kernel::Avx512 && TypeId::of::<T>() == TypeId::of::<f32>() {
        // SAFETY: T is f32, so every cast below is the identity; `Kernel::supported` returned
        // Avx512 only after detecting the features; `lay` comes from `Layout::new` and the
        // lengths are asserted inside.
        unsafe {
            let head_acc = &*(head_acc as *const [[T; 4]] as *const [[f32; 4]]);
            let tails = &*(tails as *const [[T; 4]] as *const [[f32; 4]]);
            let out = &mut *(out as *mut [[T; 4]] as *mut [[f32; 4]]);
            x86::link_sums_f32_avx512(lay, link_heads, head_acc, tails, out);
        }
        return;
    }
    match kernel {
        // SAFETY: `Kernel::supported` detected every feature this function enables.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => unsafe { x86::link_sums_avx512(lay, link_heads, head_acc, tails, out) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe { x86::link_sums_avx2(lay, link_heads, head_acc, tails, out) },
        _ => phases::link_sums(lay, link_heads, head_acc, tails, out),
    }
}

/// `phases::link_update` compiled for `kernel` (which must come from [`Kernel::supported`]).
pub(crate) fn link_update<T: Real>(
    kernel: Kernel,
    lay: &Layout,
    cap: &[T],
    sums: &[&[[T; 4]]],
    pr: &mut [[T; 2]],
) {
    #[cfg(target_arch = "x86_64")]
    if kernel == Kernel::Avx512 && TypeId::of::<T>() == TypeId::of::<f32>() {
        // SAFETY: T is f32, so every cast below is the identity; `Kernel::supported` returned
        // Avx512 only after detecting the features; the lengths are asserted inside.
        unsafe {
            let cap = &*(cap as *const [T] as *const [f32]);
            let sums = &*(sums as *const [&[[T; 4]]] as *const [&[[f32; 4]]]);
            let pr = &mut *(pr as *mut [[T; 2]] as *mut [[f32; 2]]);
            x86::link_update_f32_avx512(lay, cap, sums, pr);
        }
        return;
    }
    match kernel {
        // SAFETY: `Kernel::supported` detected every feature this function enables.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => unsafe { x86::link_update_avx512(lay, cap, sums, pr) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe { x86::link_update_avx2(lay, cap, sums, pr) },
        _ => phases::link_update(lay, cap, sums, pr),
    }
}
