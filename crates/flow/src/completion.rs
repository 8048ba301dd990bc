//! Flow completions: when a flow at a constant rate finishes (rounded up to the picosecond),
//! and the deferral of completions that surely fall after the next policy tick (the tick,
//! which revisits every active flow, files them then; see `Simulator::defer`).

/// Per flow: whether its completion is deferred, and the bytes left and the time its
/// completion time was computed from.
#[derive(Clone, Debug, Default)]
pub(crate) struct Deferred {
    pub(crate) on: Vec<bool>,
    pub(crate) rem: Vec<f64>,
    pub(crate) at: Vec<u64>,
}

/// Whether a flow with `rem` bytes left (> 1e-6) at rate `rate` (> 0) from time `now` surely
/// completes after `horizon`: `ceil(rem * 8 / rate * 1e12) > horizon - now`, checked with a
/// margin far above the rounding of either side.
#[inline]
pub(crate) fn surely_after(rem: f64, rate: f64, now: u64, horizon: u64) -> bool {
    let h = horizon.saturating_sub(now) as f64;
    rem * 8.0 * 1e12 > rate * h * (1.0 + 1e-9)
}

/// The completion time of a flow with `rem` bytes left at `rate` from `now`, ps (`None`:
/// never, or beyond the clock).
#[inline]
pub(crate) fn completion_at(rem: f64, rate: f64, now: u64) -> Option<u64> {
    if rem <= 1e-6 {
        Some(now)
    } else if rate > 0.0 {
        let dt = ceil_pos(rem * 8.0 / rate * 1e12);
        if dt >= (u64::MAX - now) as f64 {
            None
        } else {
            Some(now + (dt as u64).max(1))
        }
    } else {
        None
    }
}

/// `x.ceil()` for `x >= 0` (and for `+inf`), without the libm call `ceil` compiles to on
/// baseline x86-64: below 2^52 the truncation is exact and one more than it is the ceiling
/// when it falls short; from 2^52 on every float is an integer.
#[inline]
pub(crate) fn ceil_pos(x: f64) -> f64 {
    debug_assert!(x >= 0.0, "{x}");
    if x >= 4_503_599_627_370_496.0 {
        return x;
    }
    let t = (x as i64) as f64;
    if t < x {
        t + 1.0
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn ceil_pos_equals_ceil() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(10);
        let mut xs: Vec<f64> = vec![
            0.0,
            0.5,
            1.0,
            1.0 + f64::EPSILON,
            0.49999999999999994,
            4503599627370495.5,
            4503599627370496.0,
            4503599627370497.0,
            9007199254740993.0,
            1e19,
            1e300,
            f64::MAX,
            f64::INFINITY,
            f64::MIN_POSITIVE,
            5e-324,
        ];
        for _ in 0..100_000 {
            xs.push(rng.random_range(0.0..1e12));
            xs.push(rng.random_range(0.0..4.0));
            xs.push(f64::from_bits(rng.random::<u64>() >> 1));
        }
        for &x in &xs {
            if x.is_nan() {
                continue;
            }
            assert_eq!(ceil_pos(x).to_bits(), x.ceil().to_bits(), "{x:e}");
        }
    }
}
