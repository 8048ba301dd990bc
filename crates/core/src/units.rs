//! Simulated time, rates and sizes.
//!
//! [`SimTime`] is an instant and [`Delta`] a span, both in integer picoseconds, so that event
//! ordering is exact and runs are reproducible bit for bit. Subtracting instants is checked.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Mul, Sub};

const PS_PER_NS: u64 = 1_000;
const PS_PER_US: u64 = 1_000_000;
const PS_PER_MS: u64 = 1_000_000_000;
const PS_PER_S: u64 = 1_000_000_000_000;

/// An instant of simulated time, in picoseconds since the run started.
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct SimTime(pub u64);

/// A span of simulated time, in picoseconds.
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Delta(pub u64);

impl SimTime {
    /// The start of every run.
    pub const ZERO: SimTime = SimTime(0);
    /// Later than any instant a run reaches.
    pub const NEVER: SimTime = SimTime(u64::MAX);

    /// Picoseconds since the start.
    pub const fn ps(self) -> u64 {
        self.0
    }
    /// Seconds since the start.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    /// Microseconds since the start.
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 / PS_PER_US as f64
    }
    /// The span from `earlier` to `self`, or `None` if `earlier` is later.
    pub fn checked_since(self, earlier: SimTime) -> Option<Delta> {
        self.0.checked_sub(earlier.0).map(Delta)
    }
    /// The span from `earlier` to `self`, zero if `earlier` is later.
    pub fn saturating_since(self, earlier: SimTime) -> Delta {
        Delta(self.0.saturating_sub(earlier.0))
    }
    /// The instant a span after the start.
    pub const fn from_delta(d: Delta) -> SimTime {
        SimTime(d.0)
    }
}

impl Delta {
    /// No time.
    pub const ZERO: Delta = Delta(0);
    /// Longest simulated span a scenario may ask for (its duration, or a drain period): one
    /// day. The picosecond clock runs out after 2^64 ps (213 days); keeping durations 200
    /// times shorter leaves room for everything added to them (drain, timeouts, last events)
    /// without saturating, and a day is far beyond any published datacenter experiment.
    pub const MAX_SCENARIO: Delta = Delta(86_400 * PS_PER_S);

    /// A span of `ps` picoseconds.
    pub const fn from_ps(ps: u64) -> Delta {
        Delta(ps)
    }
    /// A span of `ns` nanoseconds.
    pub const fn from_ns(ns: u64) -> Delta {
        Delta(ns * PS_PER_NS)
    }
    /// A span of `us` microseconds.
    pub const fn from_us(us: u64) -> Delta {
        Delta(us * PS_PER_US)
    }
    /// A span of `ms` milliseconds.
    pub const fn from_ms(ms: u64) -> Delta {
        Delta(ms * PS_PER_MS)
    }
    /// A span of `s` seconds, rounded to the nearest picosecond; negative or NaN gives zero.
    pub fn from_secs_f64(s: f64) -> Delta {
        if s.is_nan() || s <= 0.0 {
            return Delta(0);
        }
        Delta((s * PS_PER_S as f64).round().min(u64::MAX as f64) as u64)
    }
    /// A span of `us` microseconds (fractional), rounded to the nearest picosecond.
    pub fn from_us_f64(us: f64) -> Delta {
        Delta::from_secs_f64(us * 1e-6)
    }
    /// Picoseconds.
    pub const fn ps(self) -> u64 {
        self.0
    }
    /// Seconds.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    /// Microseconds.
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 / PS_PER_US as f64
    }
    /// `self + other`, saturating at the largest span.
    pub fn saturating_add(self, other: Delta) -> Delta {
        Delta(self.0.saturating_add(other.0))
    }
}

impl Add<Delta> for SimTime {
    type Output = SimTime;
    fn add(self, d: Delta) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Delta> for SimTime {
    fn add_assign(&mut self, d: Delta) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Add for Delta {
    type Output = Delta;
    fn add(self, d: Delta) -> Delta {
        Delta(self.0 + d.0)
    }
}
impl AddAssign for Delta {
    fn add_assign(&mut self, d: Delta) {
        self.0 += d.0;
    }
}
impl Sub for Delta {
    type Output = Delta;
    /// Panics in debug builds if `d > self`; spans are never negative.
    fn sub(self, d: Delta) -> Delta {
        debug_assert!(d.0 <= self.0, "negative span: {self} - {d}");
        Delta(self.0.saturating_sub(d.0))
    }
}
impl Mul<u64> for Delta {
    type Output = Delta;
    fn mul(self, k: u64) -> Delta {
        Delta(self.0 * k)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3} us", self.as_us_f64())
    }
}
impl fmt::Display for Delta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3} us", self.as_us_f64())
    }
}

/// A link or sending rate in bits per second.
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Rate(pub u64);

impl Rate {
    /// `g` gigabits per second.
    pub const fn gbps(g: u64) -> Rate {
        Rate(g * 1_000_000_000)
    }
    /// `m` megabits per second.
    pub const fn mbps(m: u64) -> Rate {
        Rate(m * 1_000_000)
    }
    /// Bits per second.
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Bits per second as a float.
    pub fn bps_f64(self) -> f64 {
        self.0 as f64
    }
    /// Gigabits per second as a float.
    pub fn gbps_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// Time to serialize `bytes` at this rate, rounded up to a whole picosecond.
    /// A zero rate never finishes: it returns the largest span.
    pub fn tx_time(self, bytes: u64) -> Delta {
        if self.0 == 0 {
            return Delta(u64::MAX);
        }
        let bits = bytes as u128 * 8 * PS_PER_S as u128;
        Delta(bits.div_ceil(self.0 as u128).min(u64::MAX as u128) as u64)
    }
    /// Bytes sent at this rate during `d` (rounded down).
    pub fn bytes_in(self, d: Delta) -> u64 {
        (self.0 as u128 * d.0 as u128 / (8 * PS_PER_S as u128)) as u64
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} Gb/s", self.gbps_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_of_a_full_packet_at_10g_is_1_2_us() {
        assert_eq!(Rate::gbps(10).tx_time(1500), Delta::from_ns(1200));
        assert_eq!(Rate::gbps(40).tx_time(1500), Delta::from_ns(300));
    }

    #[test]
    fn tx_time_rounds_up_and_bytes_in_inverts_it() {
        let r = Rate(3);
        assert_eq!(r.tx_time(1), Delta(2_666_666_666_667));
        assert_eq!(Rate::gbps(10).bytes_in(Delta::from_us(1)), 1250);
    }

    #[test]
    fn checked_since_refuses_negative_spans() {
        let a = SimTime(10);
        let b = SimTime(20);
        assert_eq!(b.checked_since(a), Some(Delta(10)));
        assert_eq!(a.checked_since(b), None);
        assert_eq!(a.saturating_since(b), Delta::ZERO);
    }

    #[test]
    fn from_secs_rounds_and_clamps() {
        assert_eq!(Delta::from_secs_f64(1.5e-12), Delta(2));
        assert_eq!(Delta::from_secs_f64(-1.0), Delta::ZERO);
        assert_eq!(Delta::from_us_f64(1.5), Delta(1_500_000));
    }
}
