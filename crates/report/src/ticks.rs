//! Axis tick generation: "nice" 1-2-5 steps for linear axes, decades for log axes.

use crate::format::{format_num, sci};

/// Ticks for a linear axis covering `[min, max]` with roughly `target` intervals, using a
/// step of 1, 2 or 5 times a power of ten. The first tick is at or below `min` and the last
/// at or above `max`, so the ticks can be used as the axis domain
/// (`nice_ticks(0.0, 97.0, 5)` is `[0, 20, 40, 60, 80, 100]`).
///
/// Non-finite bounds give `[0, 1]`; `min > max` is swapped; `min == max` is widened around
/// the value.
pub fn nice_ticks(min: f64, max: f64, target: usize) -> Vec<f64> {
    let (mut lo, mut hi) = if min.is_finite() && max.is_finite() {
        (min.min(max), min.max(max))
    } else {
        (0.0, 1.0)
    };
    if lo == hi {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        lo -= pad;
        hi += pad;
    }
    let target = target.max(1) as f64;
    let Some((mult, exp)) = nice_step(((hi - lo) / target).abs()) else {
        return vec![lo, hi];
    };
    let step = scaled(mult as f64, exp);
    let first = (lo / step).floor() as i64;
    let last = (hi / step).ceil() as i64;
    if last < first || last - first > 1000 {
        return vec![lo, hi];
    }
    // Each tick is computed as (index * mult) * 10^exp rather than accumulated, so values
    // are as exact as floating point allows (0.3, not 0.30000000000000004).
    (first..=last)
        .map(|i| scaled((i * mult) as f64, exp))
        .collect()
}

/// The smallest step of the form {1, 2, 5} x 10^exp that is >= `raw`.
fn nice_step(raw: f64) -> Option<(i64, i32)> {
    if !(raw.is_finite() && raw > 0.0) {
        return None;
    }
    let mut exp = raw.log10().floor() as i32;
    let mag = scaled(1.0, exp);
    let frac = raw / mag;
    let mult = if frac <= 1.0 + 1e-9 {
        1
    } else if frac <= 2.0 + 1e-9 {
        2
    } else if frac <= 5.0 + 1e-9 {
        5
    } else {
        exp += 1;
        1
    };
    Some((mult, exp))
}

/// `v * 10^exp`, dividing for negative exponents so that e.g. 3 * 10^-1 is exactly 0.3.
fn scaled(v: f64, exp: i32) -> f64 {
    if exp >= 0 {
        v * 10f64.powi(exp)
    } else {
        v / 10f64.powi(-exp)
    }
}

/// Powers of ten covering `[min, max]` (both must be > 0): from the decade at or below `min`
/// to the decade at or above `max`. When the range spans more than 10 decades, every k-th
/// decade is kept. Invalid bounds give `[1, 10]`.
pub fn log_ticks(min: f64, max: f64) -> Vec<f64> {
    let (lo, hi) = match (min.is_finite() && min > 0.0, max.is_finite() && max > 0.0) {
        (true, true) => (min.min(max), min.max(max)),
        _ => (1.0, 10.0),
    };
    let (e_lo, e_hi) = decade_range(lo, hi);
    let span = e_hi - e_lo;
    let every = (span + 9) / 10;
    let every = every.max(1);
    let mut e_end = e_hi;
    if span % every != 0 {
        e_end = e_lo + (span / every + 1) * every;
    }
    (e_lo..=e_end).step_by(every as usize).map(pow10).collect()
}

/// Decade exponents `(lo, hi)` with `10^lo <= min`, `10^hi >= max` and `hi > lo`.
pub(crate) fn decade_range(min: f64, max: f64) -> (i32, i32) {
    let mut e_lo = min.log10().floor() as i32;
    let mut e_hi = max.log10().ceil() as i32;
    // Guard against log10 rounding just past an exact power of ten.
    if pow10(e_lo) > min {
        e_lo -= 1;
    }
    if pow10(e_hi) < max {
        e_hi += 1;
    }
    if e_hi <= e_lo {
        e_hi = e_lo + 1;
    }
    (e_lo, e_hi)
}

/// Exactly the f64 nearest to 10^e.
pub(crate) fn pow10(e: i32) -> f64 {
    format!("1e{e}").parse().unwrap_or(f64::NAN)
}

/// Labels for linear ticks with a common step: fixed decimals for moderate magnitudes,
/// scientific notation otherwise, always enough digits to tell neighbours apart.
pub(crate) fn linear_labels(ticks: &[f64]) -> Vec<String> {
    if ticks.len() < 2 {
        return ticks.iter().map(|&v| format_num(v)).collect();
    }
    let step = (ticks[1] - ticks[0]).abs();
    let max_abs = ticks.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if !(step > 0.0 && step.is_finite() && max_abs.is_finite()) {
        return ticks.iter().map(|&v| format_num(v)).collect();
    }
    let e_step = step.log10().floor() as i32;
    let e_max = max_abs.log10().floor() as i32;
    ticks
        .iter()
        .map(|&v| {
            let v = if v.abs() < step * 1e-6 { 0.0 } else { v };
            if e_max >= 6 || e_max <= -4 {
                if v == 0.0 {
                    return "0".to_string();
                }
                let e_v = v.abs().log10().floor() as i32;
                sci(v, (e_v - e_step).clamp(0, 12) as usize)
            } else {
                let d = (-e_step).clamp(0, 12) as usize;
                format!("{v:.d$}")
            }
        })
        .collect()
}

/// Labels for decade ticks: plain numbers when every decade is within 0.001 ..= 10000,
/// otherwise `10` with a superscript exponent (`10⁶`, `10⁻³`) for all of them, so one axis
/// never mixes styles.
pub(crate) fn log_labels(ticks: &[f64]) -> Vec<String> {
    let exps: Vec<i32> = ticks.iter().map(|v| v.log10().round() as i32).collect();
    if exps.iter().all(|e| (-3..=4).contains(e)) {
        ticks.iter().map(|&v| format_num(v)).collect()
    } else {
        exps.iter()
            .map(|&e| format!("10{}", superscript(e)))
            .collect()
    }
}

/// A minor tick label (`k x 10^e`): plain within 0.001 ..= 10000, else `2e6` style.
pub(crate) fn minor_label(v: f64) -> String {
    if (1e-3..=1e4).contains(&v) {
        format_num(v)
    } else {
        sci(v, 0)
    }
}

fn superscript(e: i32) -> String {
    e.to_string()
        .chars()
        .map(|c| match c {
            '-' => '\u{207B}',
            '0' => '\u{2070}',
            '1' => '\u{00B9}',
            '2' => '\u{00B2}',
            '3' => '\u{00B3}',
            d => char::from_u32(0x2070 + d.to_digit(10).unwrap_or(0)).unwrap_or(d),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_ticks_known_ranges() {
        assert_eq!(
            nice_ticks(0.0, 97.0, 5),
            vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
        );
        assert_eq!(nice_ticks(0.0, 1.0, 5), vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        assert_eq!(
            nice_ticks(0.0, 1.0, 10),
            vec![0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
        );
        assert_eq!(
            nice_ticks(-3.0, 7.0, 5),
            vec![-4.0, -2.0, 0.0, 2.0, 4.0, 6.0, 8.0]
        );
        assert_eq!(nice_ticks(12.0, 38.0, 5), vec![10.0, 20.0, 30.0, 40.0]);
        assert_eq!(
            nice_ticks(12.0, 38.0, 8),
            vec![10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0]
        );
        assert_eq!(nice_ticks(1e6, 3.7e6, 4), vec![1e6, 2e6, 3e6, 4e6]);
    }

    #[test]
    fn nice_ticks_degenerate_inputs() {
        let t = nice_ticks(5.0, 5.0, 5);
        assert!(
            t.len() >= 2 && t[0] <= 5.0 && *t.last().unwrap() >= 5.0,
            "{t:?}"
        );
        let t = nice_ticks(0.0, 0.0, 5);
        assert!(
            t.len() >= 2 && t[0] <= 0.0 && *t.last().unwrap() > 0.0,
            "{t:?}"
        );
        assert_eq!(nice_ticks(f64::NAN, 3.0, 5), nice_ticks(0.0, 1.0, 5));
        assert_eq!(nice_ticks(97.0, 0.0, 5), nice_ticks(0.0, 97.0, 5));
    }

    #[test]
    fn log_ticks_are_decades() {
        assert_eq!(
            log_ticks(3.0, 4500.0),
            vec![1.0, 10.0, 100.0, 1000.0, 10000.0]
        );
        assert_eq!(log_ticks(1e-3, 1.0), vec![1e-3, 1e-2, 1e-1, 1.0]);
        assert_eq!(log_ticks(100.0, 100.0), vec![100.0, 1000.0]);
        let wide = log_ticks(1e-10, 1e15);
        assert_eq!(wide.first(), Some(&1e-10));
        assert!(*wide.last().unwrap() >= 1e15);
        assert!(wide.len() <= 14, "{wide:?}");
        assert_eq!(log_ticks(0.0, 10.0), vec![1.0, 10.0]);
    }

    #[test]
    fn labels_distinguish_neighbours() {
        assert_eq!(linear_labels(&[0.0, 0.5, 1.0]), vec!["0.0", "0.5", "1.0"]);
        assert_eq!(linear_labels(&[0.0, 20.0, 40.0]), vec!["0", "20", "40"]);
        assert_eq!(
            linear_labels(&[1e6, 1.5e6, 2e6]),
            vec!["1e6", "1.5e6", "2e6"]
        );
        assert_eq!(log_labels(&[0.01, 1.0, 1000.0]), vec!["0.01", "1", "1000"]);
        assert_eq!(
            log_labels(&[1e-5, 1.0, 1e10, 1e14]),
            vec![
                "10\u{207B}\u{2075}",
                "10\u{2070}",
                "10\u{00B9}\u{2070}",
                "10\u{00B9}\u{2074}"
            ]
        );
        assert_eq!(minor_label(2e6), "2e6");
        assert_eq!(minor_label(50.0), "50");
    }
}
