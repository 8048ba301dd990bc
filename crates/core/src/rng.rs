//! Seeded randomness. One master seed per run; each component draws from its own stream, so
//! adding draws in one component never shifts another's.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The RNG every component uses: portable and reproducible across platforms.
pub type SimRng = ChaCha8Rng;

/// The RNG for component `stream` of a run seeded with `seed`.
///
/// Streams are named by a constant per component (see [`streams`]) so that the same seed and
/// stream always give the same sequence.
pub fn component_rng(seed: u64, stream: u64) -> SimRng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    rng
}

/// Stream numbers of the components that draw random numbers.
pub mod streams {
    /// Flow arrivals, sizes and endpoints.
    pub const WORKLOAD: u64 = 1;
    /// Path choice (ECMP salt, spraying, DRILL samples).
    pub const ROUTING: u64 = 2;
    /// Transports (e.g. randomized timers).
    pub const TRANSPORT: u64 = 3;
    /// Queue disciplines (e.g. RED).
    pub const QUEUE: u64 = 4;
    /// Coflow trace scaling.
    pub const COFLOW: u64 = 5;
    /// The flows of a Poisson workload's warm start (apart from its arrivals, which stay
    /// those of a cold start).
    pub const WARM_START: u64 = 6;
}

/// A 64-bit mixing function (SplitMix64's finalizer): spreads hash inputs evenly.
pub fn mix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn same_seed_and_stream_repeat_and_streams_differ() {
        let a: Vec<u64> = (0..4).map(|_| component_rng(7, 1).random()).collect();
        let mut r1 = component_rng(7, 1);
        let mut r2 = component_rng(7, 2);
        let x: u64 = r1.random();
        let y: u64 = r2.random();
        assert_eq!(a[0], x);
        assert_ne!(x, y);
    }
}
