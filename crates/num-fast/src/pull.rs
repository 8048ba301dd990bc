//! The single-threaded pull allocator: the phases of `phases` run one after the
//! other on one core, through the kernel [`super::simd`] picks.

use super::layout::{Layout, LayoutError, W};
use super::phases::{
    capacities, external_prices, fresh, normalized_now, params, unpermute, FlowOut,
};
use super::simd::{self, Kernel};
use super::{FlowSet, Real};

/// Single-threaded allocator in the pull layout.
pub struct Pull<T: Real> {
    lay: Layout,
    params: Vec<[[T; W]; 3]>,
    cap: Vec<T>,
    rate: Vec<[T; W]>,
    normalized: Vec<[T; W]>,
    /// Heads, plus a zero entry (ELLPACK padding).
    head_acc: Vec<[T; 4]>,
    /// Tail sums, plus a zero entry.
    tails: Vec<[T; 4]>,
    /// `[price, F-NORM ratio]` per internal link.
    pr: Vec<[T; 2]>,
    kernel: Kernel,
}

impl<T: Real> Pull<T> {
    /// A fresh allocator (prices at 1) with the fastest kernel this CPU runs.
    pub fn new(set: &FlowSet) -> Result<Pull<T>, LayoutError> {
        Self::with_kernel(set, Kernel::detect())
    }

    /// A fresh allocator using `kernel` (or the next narrower one this CPU runs).
    pub fn with_kernel(set: &FlowSet, kernel: Kernel) -> Result<Pull<T>, LayoutError> {
        let lay = Layout::new(set)?;
        let pr = fresh::<T>(&lay);
        let tails = vec![[T::of(0.0); 4]; lay.tails.len() + 1];
        let zero = T::of(0.0);
        let rows = lay.flow_at.len();
        Ok(Pull {
            params: params(set, &lay),
            cap: capacities(set, &lay),
            rate: vec![[zero; W]; rows],
            normalized: vec![[zero; W]; rows],
            head_acc: vec![[zero; 4]; lay.heads.len() + 1],
            tails,
            pr,
            kernel: kernel.supported(),
            lay,
        })
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.lay
    }

    /// The kernel in use.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// One iteration: flow pass (F-NORM of the previous iteration, eq. 9, and the rate update,
    /// eq. 3) and link pass (price update, eq. 4, and F-NORM ratios).
    pub fn iterate(&mut self) {
        let nh = self.lay.heads.len();
        simd::flow_pass(
            self.kernel,
            &self.lay,
            0,
            self.lay.slices(),
            &self.pr,
            &self.params,
            FlowOut {
                rate: &mut self.rate,
                normalized: &mut self.normalized,
                head_acc: &mut self.head_acc[..nh],
                tails: &mut self.tails,
            },
        );
        simd::link_pass(
            self.kernel,
            &self.lay,
            &self.cap,
            &self.head_acc,
            &[&self.tails],
            &mut self.pr,
        );
    }

    /// Rates of the last iteration, per original flow.
    pub fn rates(&self) -> Vec<f64> {
        unpermute(&self.lay, &self.rate)
    }

    /// F-NORM-normalized rates of the last iteration (eq. 9), per original flow.
    pub fn normalized(&self) -> Vec<f64> {
        normalized_now(&self.lay, &self.rate, &self.pr)
    }

    /// The normalized rates the last flow pass computed (those of the iteration before the
    /// last), per original flow.
    pub fn normalized_previous(&self) -> Vec<f64> {
        unpermute(&self.lay, &self.normalized)
    }

    /// Link prices in the flow set's order (the dummy last).
    pub fn prices(&self) -> Vec<f64> {
        external_prices(&self.lay, &self.pr)
    }

    /// Sets every link price from `p` in the flow set's order (the dummy's, last, stays 0), as
    /// if the last link pass had produced them; ratios are kept.
    pub fn set_prices(&mut self, p: &[f64]) {
        for (i, &l) in self.lay.link_of.iter().enumerate() {
            if (l as usize) < p.len().saturating_sub(1) {
                self.pr[i][0] = T::of(p[l as usize]);
            }
        }
    }
}
