//! Rate normalizers (Flowtune §4) and the rate-update threshold (§6.4).
//!
//! Both normalizers work on subflow rates (any unit, as long as capacities are in the same
//! unit). A link with no load has ratio 0 and scales nobody; a subflow with zero rate stays
//! at zero.

use crate::csr::Csr;

/// `r_l = sum_{s in S(l)} x_s / c_l` for every link.
pub fn link_ratios(capacity: &[f64], paths: &Csr, rate: &[f64]) -> Vec<f64> {
    let mut load = vec![0.0; capacity.len()];
    for (s, &x) in rate.iter().enumerate() {
        for &l in paths.row(s) {
            load[l as usize] += x;
        }
    }
    load.iter().zip(capacity).map(|(x, c)| x / c).collect()
}

/// U-NORM (Flowtune eq. 8): every rate divided by the largest link ratio `r*`, so the most
/// congested link runs exactly at capacity and rate ratios are kept. Returns `r*`.
pub fn u_norm(capacity: &[f64], paths: &Csr, rate: &mut [f64]) -> f64 {
    let worst = link_ratios(capacity, paths, rate)
        .into_iter()
        .fold(0.0, f64::max);
    if worst > 0.0 {
        rate.iter_mut().for_each(|x| *x /= worst);
    }
    worst
}

/// F-NORM (Flowtune eq. 9): each subflow divided by the largest ratio on its own path. No link
/// ends above capacity: every subflow on `l` is divided by at least `r_l`.
pub fn f_norm(capacity: &[f64], paths: &Csr, rate: &mut [f64]) {
    let ratio = link_ratios(capacity, paths, rate);
    for (s, x) in rate.iter_mut().enumerate() {
        let worst = paths
            .row(s)
            .iter()
            .map(|&l| ratio[l as usize])
            .fold(0.0, f64::max);
        if worst > 0.0 {
            *x /= worst;
        }
    }
}

/// Which normalizer to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Normalize {
    /// Rates as the optimizer left them.
    None,
    /// [`u_norm`].
    UNorm,
    /// [`f_norm`].
    FNorm,
}

impl Normalize {
    /// Applies this normalizer in place.
    pub fn apply(self, capacity: &[f64], paths: &Csr, rate: &mut [f64]) {
        match self {
            Normalize::None => {}
            Normalize::UNorm => {
                u_norm(capacity, paths, rate);
            }
            Normalize::FNorm => f_norm(capacity, paths, rate),
        }
    }
}

/// The update threshold (Flowtune §6.4): a flow is told its new rate only when it moved by
/// more than `threshold` (relative) from the rate it was last told; the allocator compensates by
/// allocating `1 - threshold` of each link ([`Notifier::capacity_factor`], to be set with
/// [`crate::problem::Problem::set_capacity_factor`]).
#[derive(Clone, Debug)]
pub struct Notifier {
    /// Relative change that triggers a notification (Flowtune: 0.01).
    pub threshold: f64,
    /// Notifications sent so far.
    pub sent: u64,
}

impl Notifier {
    /// A notifier with the given threshold.
    pub fn new(threshold: f64) -> Notifier {
        assert!((0.0..1.0).contains(&threshold), "threshold in [0, 1)");
        Notifier { threshold, sent: 0 }
    }

    /// The capacity factor that goes with the threshold: `1 - threshold`.
    pub fn capacity_factor(&self) -> f64 {
        1.0 - self.threshold
    }

    /// Compares each flow's `rate` with `notified` (NaN = never told), updates `notified` where
    /// the change exceeds the threshold, and returns how many flows were notified this time.
    pub fn update(&mut self, rate: &[f64], notified: &mut [f64]) -> u64 {
        let mut n = 0;
        for (x, last) in rate.iter().zip(notified.iter_mut()) {
            let moved = last.is_nan() || (x - *last).abs() > self.threshold * last.abs();
            if moved {
                *last = *x;
                n += 1;
            }
        }
        self.sent += n;
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f_norm_fixes_only_the_congested_link() {
        // Link 0 (cap 1) carries flows 0, 1 at 1 each: ratio 2. Link 1 (cap 4) carries flow 1
        // and flow 2 at 1 each: ratio 0.5.
        let paths = Csr::from_rows(vec![vec![0u32], vec![0, 1], vec![1]]);
        let mut r = vec![1.0, 1.0, 1.0];
        f_norm(&[1.0, 4.0], &paths, &mut r);
        assert_eq!(r, vec![0.5, 0.5, 2.0]);
        let mut r = vec![1.0, 1.0, 1.0];
        assert_eq!(u_norm(&[1.0, 4.0], &paths, &mut r), 2.0);
        assert_eq!(r, vec![0.5, 0.5, 0.5]);
    }

    #[test]
    fn notifier_counts_only_big_moves() {
        let mut n = Notifier::new(0.01);
        let mut told = vec![f64::NAN; 3];
        assert_eq!(n.update(&[1.0, 2.0, 3.0], &mut told), 3);
        assert_eq!(n.update(&[1.005, 2.03, 3.0], &mut told), 1);
        assert_eq!(told, vec![1.0, 2.03, 3.0]);
        assert_eq!(n.sent, 4);
        assert!((n.capacity_factor() - 0.99).abs() < 1e-15);
    }
}
