//! Simulated time, rates and sizes.
//!
//! [`SimTime`] is an instant and [`Delta`] a span, both in integer picoseconds, so that event
//! ordering is exact and runs are reproducible bit for bit. Subtracting instants is checked.

use crate::error::KeyError;
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

impl Rate {
    /// Slowest link or sending rate a scenario may give: 1 Mb/s. A 1500 B packet then takes
    /// 12 ms to serialize; anything slower is a typo in a datacenter fabric (a rate meant in
    /// Mb/s or b/s but written in Gb/s is too fast, not too slow, and is caught by
    /// [`Rate::MAX_SCENARIO`]), and a rate that rounds to 0 b/s would never send at all.
    pub const MIN_SCENARIO: Rate = Rate(1_000_000);
    /// Fastest link or sending rate a scenario may give: 100 Tb/s, beyond any single link
    /// built today; rates must stay well inside the `u64` bits per second the engines compute
    /// with.
    pub const MAX_SCENARIO: Rate = Rate(100_000_000_000_000);
}

/// Scenario numbers in the engines' integer units, checked where they are read.
///
/// Scenarios give rates in Gb/s and times in us or ms as floats; the engines compute in whole
/// b/s and whole picoseconds. A value is refused (a [`KeyError`] at its key, saying what it
/// would become) when it is not a finite number, lies outside the range the engines accept,
/// or is positive but rounds to zero in the engine's unit (`1e-300` Gb/s is 0 b/s: a link that
/// never sends).
pub mod checked {
    use super::{Delta, KeyError, Rate, PS_PER_MS, PS_PER_S, PS_PER_US};

    /// `gbps` Gb/s as a [`Rate`], within [`Rate::MIN_SCENARIO`]..=[`Rate::MAX_SCENARIO`].
    pub fn rate_gbps(key: &str, gbps: f64) -> Result<Rate, KeyError> {
        if !(gbps.is_finite() && gbps > 0.0) {
            return Err(KeyError::new(
                key,
                format!("must be a positive rate in Gb/s, got {gbps}"),
            ));
        }
        let bps = (gbps * 1e9).round();
        let (min, max) = (Rate::MIN_SCENARIO, Rate::MAX_SCENARIO);
        if bps < min.0 as f64 {
            return Err(KeyError::new(
                key,
                format!(
                    "{gbps:e} Gb/s is {bps} b/s in the engines' whole bits per second, below the {} Gb/s (1 Mb/s) dctc accepts",
                    min.gbps_f64()
                ),
            ));
        }
        if bps > max.0 as f64 {
            return Err(KeyError::new(
                key,
                format!(
                    "{gbps:e} Gb/s is above the {} Gb/s (100 Tb/s) dctc accepts",
                    max.gbps_f64()
                ),
            ));
        }
        Ok(Rate(bps as u64))
    }

    /// How a span may be given: whether 0 is allowed (and what it means), the shortest and the
    /// longest positive span.
    #[derive(Copy, Clone, Debug)]
    pub struct SpanRule {
        /// 0 is a valid value (e.g. "no delay", "off").
        pub zero_ok: bool,
        /// Shortest positive span.
        pub min: Delta,
        /// Longest span.
        pub max: Delta,
    }

    impl SpanRule {
        /// Positive, at least 1 ps, at most `max`.
        pub const fn positive(max: Delta) -> SpanRule {
            SpanRule {
                zero_ok: false,
                min: Delta(1),
                max,
            }
        }

        /// 0 or at least 1 ps, at most `max`.
        pub const fn zero_or_more(max: Delta) -> SpanRule {
            SpanRule {
                zero_ok: true,
                min: Delta(1),
                max,
            }
        }

        /// The same rule with the shortest positive span `min`.
        pub const fn at_least(self, min: Delta) -> SpanRule {
            SpanRule { min, ..self }
        }
    }

    /// A number of `unit_ps` picoseconds (`unit` names it in messages) as a [`Delta`] under
    /// `rule`.
    fn span(
        key: &str,
        x: f64,
        unit_ps: u64,
        unit: &str,
        rule: SpanRule,
    ) -> Result<Delta, KeyError> {
        let what = if rule.zero_ok { ">= 0" } else { "> 0" };
        if !(x.is_finite() && (x > 0.0 || (rule.zero_ok && x == 0.0))) {
            return Err(KeyError::new(
                key,
                format!("must be a number of {unit} {what}, got {x}"),
            ));
        }
        if x == 0.0 {
            return Ok(Delta::ZERO);
        }
        // The same rounding as `Delta::from_secs_f64`, through which these values were read
        // before they were checked (so every accepted value gives the same span as then).
        let ps = (x * (unit_ps as f64 / PS_PER_S as f64) * PS_PER_S as f64).round();
        let show = |d: Delta| human_span(d);
        if ps > rule.max.0 as f64 {
            let max = if rule.max == Delta::MAX_SCENARIO {
                format!("{} (one day) of simulated time", show(rule.max))
            } else {
                show(rule.max)
            };
            return Err(KeyError::new(
                key,
                format!("{x:e} {unit} is longer than the {max} dctc accepts here"),
            ));
        }
        if ps < rule.min.0 as f64 {
            let zero = if rule.zero_ok { " (or 0)" } else { "" };
            return Err(KeyError::new(
                key,
                format!(
                    "{x:e} {unit} is {ps} ps in the engines' whole picoseconds, shorter than the {}{zero} dctc accepts here",
                    show(rule.min)
                ),
            ));
        }
        Ok(Delta::from_secs_f64(x * (unit_ps as f64 / PS_PER_S as f64)))
    }

    /// `us` microseconds as a [`Delta`] under `rule`.
    pub fn span_us(key: &str, us: f64, rule: SpanRule) -> Result<Delta, KeyError> {
        span(key, us, PS_PER_US, "us", rule)
    }

    /// `ms` milliseconds as a [`Delta`] under `rule`.
    pub fn span_ms(key: &str, ms: f64, rule: SpanRule) -> Result<Delta, KeyError> {
        span(key, ms, PS_PER_MS, "ms", rule)
    }

    /// A span for messages: `1 ps`, `12 ns`, `1.5 us`, `3 ms`, `86400 s`.
    pub fn human_span(d: Delta) -> String {
        let ps = d.0 as f64;
        let (v, u) = if d.0 < 1_000 {
            (ps, "ps")
        } else if d.0 < PS_PER_US {
            (ps / 1e3, "ns")
        } else if d.0 < PS_PER_MS {
            (ps / 1e6, "us")
        } else if d.0 < 1_000 * PS_PER_MS {
            (ps / 1e9, "ms")
        } else {
            (ps / 1e12, "s")
        };
        format!("{v} {u}")
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} Gb/s", self.gbps_f64())
    }
}

/// A byte count for messages: `512 B`, `3.2 GB`, `404.0 TB` (decimal units).
pub fn human_bytes(b: u64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1000.0 && u + 1 < units.len() {
        x /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{x:.1} {}", units[u])
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

    #[test]
    fn checked_rates_refuse_what_rounds_to_zero_and_name_what_it_becomes() {
        use checked::rate_gbps;
        assert_eq!(rate_gbps("r", 10.0), Ok(Rate::gbps(10)));
        assert_eq!(rate_gbps("r", 1e-3), Ok(Rate::MIN_SCENARIO));
        for tiny in [1e-300, 5e-324] {
            let e = rate_gbps("fabric.fabric_rate_gbps", tiny).unwrap_err();
            assert_eq!(e.path, "fabric.fabric_rate_gbps");
            assert!(e.reason.contains("is 0 b/s"), "{}", e.reason);
        }
        assert!(rate_gbps("r", 1e-4)
            .unwrap_err()
            .reason
            .contains("100000 b/s"));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e6] {
            assert_eq!(rate_gbps("r", bad).unwrap_err().path, "r", "{bad}");
        }
    }

    #[test]
    fn checked_spans_refuse_what_rounds_to_zero_or_overflows() {
        use checked::{span_ms, span_us, SpanRule};
        let day = Delta::MAX_SCENARIO;
        assert_eq!(
            span_us("k", 1.5, SpanRule::positive(day)),
            Ok(Delta(1_500_000))
        );
        assert_eq!(span_us("k", 1e-6, SpanRule::positive(day)), Ok(Delta(1)));
        assert_eq!(
            span_us("k", 0.0, SpanRule::zero_or_more(day)),
            Ok(Delta::ZERO)
        );
        let e = span_us("k", 0.0, SpanRule::positive(day)).unwrap_err();
        assert!(e.reason.contains("> 0"), "{}", e.reason);
        for tiny in [1e-9, 1e-300, 5e-324] {
            let e = span_us("k", tiny, SpanRule::zero_or_more(day)).unwrap_err();
            assert!(e.reason.contains("is 0 ps"), "{}", e.reason);
            assert!(e.reason.contains("(or 0)"), "{}", e.reason);
        }
        let e = span_ms("duration_ms", 5e-324, SpanRule::positive(day)).unwrap_err();
        assert!(e.reason.contains("is 0 ps"), "{}", e.reason);
        let e = span_ms("duration_ms", 1e300, SpanRule::positive(day)).unwrap_err();
        assert!(
            e.reason.contains("longer than the 86400 s (one day)"),
            "{}",
            e.reason
        );
        let rule = SpanRule::positive(day).at_least(Delta::from_us(1));
        let e = span_us("min_rto_us", 0.5, rule).unwrap_err();
        assert!(
            e.reason.contains("500000 ps") && e.reason.contains("1 us"),
            "{}",
            e.reason
        );
        for bad in [f64::NAN, f64::INFINITY, -1.0] {
            assert!(
                span_us("k", bad, SpanRule::zero_or_more(day)).is_err(),
                "{bad}"
            );
        }
    }
}
