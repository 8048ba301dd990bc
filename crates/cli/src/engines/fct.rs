//! Absolute flow completion times of a packet run, in the terms HOLNET §V reports: the mean
//! FCT of all completed sized flows, of small flows (< 100 KB) and of huge flows (> 10 MB), and
//! the p99 FCT. The packet summary's `relative.<a>_vs_<b>` block compares them between
//! schemes (`avg_fct`, `p99_fct`, `small_avg_fct`, `huge_avg_fct` = a / b - 1), so a paper's
//! "normalized to DRILL" reads as `relative.<x>_vs_<drill>`.

use dctc_core::stats::FlowRecord;
use serde_json::{json, Value};

/// HOLNET §V's small flows: below 100 KB.
pub(crate) const SMALL_BYTES: u64 = 100_000;
/// HOLNET §V's huge flows: above 10 MB.
pub(crate) const HUGE_BYTES: u64 = 10_000_000;

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// The `fct_us` block of one scheme: `mean`, `p99` (nearest rank), `small_mean`, `huge_mean`
/// over completed sized flows (null when there are none), with the counts.
pub(crate) fn fct_json(records: &[FlowRecord]) -> Value {
    let done: Vec<(u64, f64)> = records
        .iter()
        .filter(|r| r.size > 0)
        .filter_map(|r| r.fct_us.map(|f| (r.size, f)))
        .collect();
    let all: Vec<f64> = done.iter().map(|x| x.1).collect();
    let small: Vec<f64> = done
        .iter()
        .filter(|x| x.0 < SMALL_BYTES)
        .map(|x| x.1)
        .collect();
    let huge: Vec<f64> = done
        .iter()
        .filter(|x| x.0 > HUGE_BYTES)
        .map(|x| x.1)
        .collect();
    let p99 = (!all.is_empty()).then(|| {
        let mut s = all.clone();
        s.sort_by(f64::total_cmp);
        let rank = ((0.99 * s.len() as f64).ceil() as usize).max(1);
        s[rank - 1]
    });
    json!({
        "mean": mean(&all), "p99": p99, "small_mean": mean(&small), "huge_mean": mean(&huge),
        "completed": all.len(), "small_completed": small.len(), "huge_completed": huge.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(size: u64, fct: Option<f64>) -> FlowRecord {
        FlowRecord {
            id: 0,
            src: 0,
            dst: 1,
            size,
            start_us: 0.0,
            finish_us: fct,
            fct_us: fct,
            ideal_fct_us: 1.0,
            slowdown: fct,
            retransmitted_bytes: 0,
            timeouts: 0,
            scheme: "x".into(),
        }
    }

    #[test]
    fn size_classes() {
        let a = fct_json(&[
            rec(50_000, Some(10.0)),
            rec(1_000_000, Some(100.0)),
            rec(20_000_000, Some(1000.0)),
            rec(20_000_000, None),
        ]);
        assert_eq!(a["mean"], json!(370.0));
        assert_eq!(a["small_mean"], json!(10.0));
        assert_eq!(a["huge_mean"], json!(1000.0));
        assert_eq!(a["p99"], json!(1000.0));
        assert_eq!(a["huge_completed"], json!(1));
    }
}
