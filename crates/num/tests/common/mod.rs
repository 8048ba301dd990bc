//! Shared by the oracle tests: random instances drawn from the project's own seeded RNG
//! (`dctc_core::rng`), so every run draws the same instances.

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
