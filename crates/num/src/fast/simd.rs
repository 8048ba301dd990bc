//! Kernel choice: the portable phases of [`super::pull`] compiled again with AVX-512 or AVX2
//! enabled (the compiler then vectorizes the flow pass's arithmetic 16 or 8 `f32` wide), picked
//! at run time with `is_x86_feature_detected!`. The portable build (x86-64 baseline, SSE2) is
//! the fallback and the oracle the tests compare against. All the `unsafe` of the fast path
//! that concerns CPU features is in this module.

use super::layout::{Layout, W};
use super::pull::{self, FlowOut, Halves};
use super::Real;

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

    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
    pub(super) fn flow_pass_avx512<T: Real>(
        lay: &Layout,
        k0: usize,
        k1: usize,
        halves: &Halves<T>,
        params: &[[[T; W]; 3]],
        out: FlowOut<'_, T>,
    ) {
        pull::flow_pass(lay, k0, k1, halves, params, out)
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) fn flow_pass_avx2<T: Real>(
        lay: &Layout,
        k0: usize,
        k1: usize,
        halves: &Halves<T>,
        params: &[[[T; W]; 3]],
        out: FlowOut<'_, T>,
    ) {
        pull::flow_pass(lay, k0, k1, halves, params, out)
    }

    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
    pub(super) fn link_pass_avx512<T: Real>(
        lay: &Layout,
        cap: &[T],
        head_acc: &[[T; 4]],
        tail_accs: &[&[[T; 4]]],
        pr: &mut [[T; 2]],
        halves: &mut Halves<T>,
    ) {
        pull::link_pass(lay, cap, head_acc, tail_accs, pr, halves)
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) fn link_pass_avx2<T: Real>(
        lay: &Layout,
        cap: &[T],
        head_acc: &[[T; 4]],
        tail_accs: &[&[[T; 4]]],
        pr: &mut [[T; 2]],
        halves: &mut Halves<T>,
    ) {
        pull::link_pass(lay, cap, head_acc, tail_accs, pr, halves)
    }
}

/// [`pull::flow_pass`] compiled for `kernel` (which must come from [`Kernel::supported`]).
pub(crate) fn flow_pass<T: Real>(
    kernel: Kernel,
    lay: &Layout,
    k0: usize,
    k1: usize,
    halves: &Halves<T>,
    params: &[[[T; W]; 3]],
    out: FlowOut<'_, T>,
) {
    match kernel {
        // SAFETY: `Kernel::supported` returned Avx512 only after detecting every feature
        // this function enables; its code is safe Rust.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => unsafe { x86::flow_pass_avx512(lay, k0, k1, halves, params, out) },
        // SAFETY: as above, AVX2 and FMA were detected.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe { x86::flow_pass_avx2(lay, k0, k1, halves, params, out) },
        _ => pull::flow_pass(lay, k0, k1, halves, params, out),
    }
}

/// [`pull::link_pass`] compiled for `kernel` (which must come from [`Kernel::supported`]).
pub(crate) fn link_pass<T: Real>(
    kernel: Kernel,
    lay: &Layout,
    cap: &[T],
    head_acc: &[[T; 4]],
    tail_accs: &[&[[T; 4]]],
    pr: &mut [[T; 2]],
    halves: &mut Halves<T>,
) {
    match kernel {
        // SAFETY: `Kernel::supported` detected every feature this function enables.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => unsafe {
            x86::link_pass_avx512(lay, cap, head_acc, tail_accs, pr, halves)
        },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe { x86::link_pass_avx2(lay, cap, head_acc, tail_accs, pr, halves) },
        _ => pull::link_pass(lay, cap, head_acc, tail_accs, pr, halves),
    }
}
