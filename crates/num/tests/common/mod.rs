//! Shared by the num tests: random instances drawn from the project's own seeded RNG
//! (`dctc_core::rng`), so every run draws the same instances, and the comparisons and
//! flows they build.
#![allow(dead_code)] // each test file uses some of it

use dctc_core::rng::{component_rng, SimRng};
use rand::Rng as _;

/// A seeded source of random instance parameters.
pub(crate) struct Rng(SimRng);

impl Rng {
    /// The generator for `seed`.
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(component_rng(seed, 0))
    }
    /// Uniform in [0, 1).
    pub(crate) fn unit(&mut self) -> f64 {
        self.0.random()
    }
    /// Uniform in 0..n.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0.random_range(0..n)
    }
    /// `len` distinct values of 0..n (a random path over `n` links), in the order drawn.
    #[allow(dead_code)] // not every test file draws paths
    pub(crate) fn distinct(&mut self, n: usize, len: usize) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        while out.len() < len {
            let l = self.below(n);
            if !out.contains(&l) {
                out.push(l);
            }
        }
        out
    }
}

/// `|a - b| / |b|`.
pub(crate) fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

/// Whether `a` and `b` agree to `tol` relative to the larger.
pub(crate) fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1e-300)
}

/// A log-utility flow over `paths` (the first is its primary) with minimum rate `min`.
pub(crate) fn flow(name: &str, paths: &[&[usize]], min: f64) -> dctc_num::problem::NumFlow {
    let u = dctc_num::utility::Utility::Log { weight: 1.0 };
    let mut f = dctc_num::problem::NumFlow::new(name, paths[0].to_vec(), u);
    f.paths = paths.iter().map(|p| p.to_vec()).collect();
    f.min_bps = min;
    f
}
