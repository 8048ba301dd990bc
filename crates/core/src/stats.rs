//! Per-flow records and the statistics every engine reports.

use crate::units::{Delta, Rate};
use serde::{Deserialize, Serialize};

/// Payload bytes per full packet (the unit of the size buckets).
pub const MSS_BYTES: u64 = 1460;
/// TCP/IP header bytes per packet on the wire.
pub const HEADER_BYTES: u64 = 40;

/// Percentiles of a sample.
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    /// Number of values.
    pub count: usize,
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Largest value.
    pub max: f64,
}

impl Percentiles {
    /// Percentiles of `values` (any order; NaNs are ignored). Empty input gives all zeros.
    pub fn of(values: &[f64]) -> Percentiles {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
        if v.is_empty() {
            return Percentiles::default();
        }
        v.sort_by(f64::total_cmp);
        Percentiles {
            count: v.len(),
            mean: v.iter().sum::<f64>() / v.len() as f64,
            p50: percentile_sorted(&v, 0.5),
            p99: percentile_sorted(&v, 0.99),
            p999: percentile_sorted(&v, 0.999),
            max: v[v.len() - 1],
        }
    }
}

/// The `q`-quantile (0..=1) of sorted values, interpolating linearly between closest ranks.
pub fn percentile_sorted(sorted: &[f64], q: f64) -> f64 {
    assert!(!sorted.is_empty(), "percentile of an empty sample");
    let pos = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// Jain's fairness index of `x`: (sum x)^2 / (n sum x^2); 1 when all equal.
pub fn jain_fairness(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if s2 == 0.0 {
        return 1.0;
    }
    s * s / (x.len() as f64 * s2)
}

/// Flow-size buckets in packets of [`MSS_BYTES`] (Flowtune §6.5, pFabric).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SizeBucket {
    /// One packet.
    #[serde(rename = "1")]
    One,
    /// 2 to 10 packets.
    #[serde(rename = "1-10")]
    UpTo10,
    /// 11 to 100 packets.
    #[serde(rename = "10-100")]
    UpTo100,
    /// 101 to 1000 packets.
    #[serde(rename = "100-1000")]
    UpTo1000,
    /// More than 1000 packets.
    #[serde(rename = ">1000")]
    Over1000,
}

impl SizeBucket {
    /// All buckets, smallest first.
    pub const ALL: [SizeBucket; 5] = [
        SizeBucket::One,
        SizeBucket::UpTo10,
        SizeBucket::UpTo100,
        SizeBucket::UpTo1000,
        SizeBucket::Over1000,
    ];

    /// The bucket of a flow of `bytes` payload bytes.
    pub fn of(bytes: u64) -> SizeBucket {
        match bytes.div_ceil(MSS_BYTES) {
            0 | 1 => SizeBucket::One,
            2..=10 => SizeBucket::UpTo10,
            11..=100 => SizeBucket::UpTo100,
            101..=1000 => SizeBucket::UpTo1000,
            _ => SizeBucket::Over1000,
        }
    }

    /// The label used in tables and JSON.
    pub fn label(self) -> &'static str {
        match self {
            SizeBucket::One => "1",
            SizeBucket::UpTo10 => "1-10",
            SizeBucket::UpTo100 => "10-100",
            SizeBucket::UpTo1000 => "100-1000",
            SizeBucket::Over1000 => ">1000",
        }
    }
}

/// Flow-size classes in bytes, as the literature reports them (pFabric, DCTCP, Homa, HPCC:
/// (0, 100 KB], (100 KB, 10 MB], > 10 MB by default): classes split at increasing upper bounds,
/// the last one open above. `[output] size_classes_bytes` sets the bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByteClasses {
    bounds: Vec<u64>,
}

impl Default for ByteClasses {
    fn default() -> Self {
        ByteClasses {
            bounds: vec![100_000, 10_000_000],
        }
    }
}

impl ByteClasses {
    /// Classes split at `bounds` (bytes, each class's inclusive upper end): positive and
    /// strictly increasing, at most 16 of them.
    pub fn new(bounds: Vec<u64>) -> Result<ByteClasses, String> {
        if bounds.is_empty() || bounds.len() > 16 {
            return Err(format!(
                "must list 1 to 16 class bounds in bytes, got {}",
                bounds.len()
            ));
        }
        if bounds[0] == 0 || bounds.windows(2).any(|w| w[0] >= w[1]) {
            return Err(format!(
                "must be positive and strictly increasing, got {bounds:?}"
            ));
        }
        Ok(ByteClasses { bounds })
    }

    /// How many classes there are (one more than bounds).
    pub fn len(&self) -> usize {
        self.bounds.len() + 1
    }

    /// Never: there is always the open class above the last bound.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The class of a flow of `bytes` (> 0).
    pub fn of(&self, bytes: u64) -> usize {
        self.bounds.partition_point(|&b| b < bytes)
    }

    /// The label of class `i`, e.g. `<=100KB`, `100KB-10MB`, `>10MB` (decimal units, as the
    /// papers use them): used as a JSON key and a CSV column part.
    pub fn label(&self, i: usize) -> String {
        match i {
            0 => format!("<={}", bytes_text(self.bounds[0])),
            i if i == self.bounds.len() => format!(">{}", bytes_text(self.bounds[i - 1])),
            i => format!(
                "{}-{}",
                bytes_text(self.bounds[i - 1]),
                bytes_text(self.bounds[i])
            ),
        }
    }
}

/// `bytes` in the largest decimal unit that divides it: `100KB`, `10MB`, `1500B`.
fn bytes_text(bytes: u64) -> String {
    for (unit, name) in [(1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "KB")] {
        if bytes.is_multiple_of(unit) {
            return format!("{}{name}", bytes / unit);
        }
    }
    format!("{bytes}B")
}

/// Bytes on the wire for `payload` bytes cut into packets of at most `mss` payload bytes, each
/// with `header` bytes of headers.
pub fn wire_bytes(payload: u64, mss: u64, header: u64) -> u64 {
    payload + payload.div_ceil(mss).max(1) * header
}

/// The time to deliver `payload` bytes over an empty path: the first packet is stored and
/// forwarded at every hop, the rest stream behind it at the bottleneck rate.
///
/// ```text
/// ideal = host_delay + sum_i (delay_i + tx_i(first)) + (wire - first) / min_i rate_i
/// ```
///
/// where `first` is the first packet's wire size (`min(payload, mss) + header`) and `wire` the
/// whole flow's ([`wire_bytes`]). `hops` are `(rate, propagation delay)` per link, sender
/// first; `host_delay` is paid once per one-way trip (by the sender). FCT runs from the flow's
/// start until its receiver holds every byte.
pub fn ideal_fct(
    hops: &[(Rate, Delta)],
    payload: u64,
    mss: u64,
    header: u64,
    host_delay: Delta,
) -> Delta {
    assert!(!hops.is_empty(), "a path has at least one link");
    let first = payload.min(mss) + header;
    let wire = wire_bytes(payload, mss, header);
    let bottleneck = hops.iter().map(|h| h.0).min().expect("non-empty");
    let mut t = host_delay;
    for &(rate, delay) in hops {
        t += delay + rate.tx_time(first);
    }
    t + bottleneck.tx_time(wire - first)
}

/// One row of `flows.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowRecord {
    /// Flow id.
    pub id: u32,
    /// Sender host index.
    pub src: usize,
    /// Receiver host index.
    pub dst: usize,
    /// Payload bytes (0 for long-lived flows).
    pub size: u64,
    /// Start, us.
    pub start_us: f64,
    /// Completion (receiver holds every byte), us; absent if unfinished.
    pub finish_us: Option<f64>,
    /// `finish - start`, us.
    pub fct_us: Option<f64>,
    /// Empty-network FCT ([`ideal_fct`]), us.
    pub ideal_fct_us: f64,
    /// `fct / ideal_fct`.
    pub slowdown: Option<f64>,
    /// Payload bytes sent more than once.
    pub retransmitted_bytes: u64,
    /// Retransmission timeouts.
    pub timeouts: u32,
    /// Scheme that carried it.
    pub scheme: String,
}

/// Slowdown of one size bucket: percentiles over its completed flows, and how many of its
/// flows did not finish (and so are in no percentile).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BucketSlowdown {
    /// The bucket's label ([`SizeBucket::label`]).
    pub bucket: String,
    /// Percentiles over the bucket's completed flows (`count` = completed flows; all zeros
    /// when none completed: check [`BucketSlowdown::is_empty`] / `count` before reading them).
    pub completed: Percentiles,
    /// Flows of the bucket that had not finished when the run ended.
    pub unfinished: usize,
    /// Their sizes, summed (bytes).
    pub unfinished_bytes: u64,
}

impl BucketSlowdown {
    /// True when the bucket holds no flow at all (none completed, none unfinished): its
    /// statistics are "no flows", not zeros.
    pub fn is_empty(&self) -> bool {
        self.completed.count == 0 && self.unfinished == 0
    }
}

/// Slowdown percentiles overall, per size bucket in packets and per size class in bytes, each
/// beside its unfinished flows.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SlowdownSummary {
    /// All completed sized flows.
    pub overall: Percentiles,
    /// Sized flows that had not finished when the run ended (excluded from `overall`).
    pub unfinished: usize,
    /// Their sizes, summed (bytes).
    pub unfinished_bytes: u64,
    /// Per size bucket, in [`SizeBucket::ALL`] order.
    pub by_size: Vec<BucketSlowdown>,
    /// Per byte class ([`ByteClasses`]), smallest first.
    pub by_bytes: Vec<BucketSlowdown>,
}

impl SlowdownSummary {
    /// [`SlowdownSummary::with_classes`] with the literature's byte classes.
    pub fn of(records: &[FlowRecord]) -> SlowdownSummary {
        SlowdownSummary::with_classes(records, &ByteClasses::default())
    }

    /// Summarizes the sized flows of `records` (long-lived ones, `size == 0`, are left out):
    /// percentiles over the completed ones, counts and bytes of the unfinished ones, overall,
    /// per packet bucket and per byte class of `classes`.
    pub fn with_classes(records: &[FlowRecord], classes: &ByteClasses) -> SlowdownSummary {
        let sized: Vec<&FlowRecord> = records.iter().filter(|r| r.size > 0).collect();
        let bucket = |label: String, mine: &dyn Fn(&FlowRecord) -> bool| {
            let (mut done, mut unfinished, mut unfinished_bytes) = (Vec::new(), 0, 0);
            for r in sized.iter().filter(|r| mine(r)) {
                match r.slowdown {
                    Some(x) => done.push(x),
                    None => {
                        unfinished += 1;
                        unfinished_bytes += r.size;
                    }
                }
            }
            BucketSlowdown {
                bucket: label,
                completed: Percentiles::of(&done),
                unfinished,
                unfinished_bytes,
            }
        };
        let overall = bucket(String::new(), &|_| true);
        SlowdownSummary {
            overall: overall.completed,
            unfinished: overall.unfinished,
            unfinished_bytes: overall.unfinished_bytes,
            by_size: SizeBucket::ALL
                .iter()
                .map(|b| bucket(b.label().to_string(), &|r| SizeBucket::of(r.size) == *b))
                .collect(),
            by_bytes: (0..classes.len())
                .map(|i| bucket(classes.label(i), &|r| classes.of(r.size) == i))
                .collect(),
        }
    }
}

/// The smallest sample for which the `q`-quantile is more than the sample's largest value or
/// an interpolation next to it: `1 / (1 - q)` (100 for p99, 1000 for p99.9). Reports mark
/// tail percentiles of smaller samples.
pub fn min_samples_for(q: f64) -> usize {
    if q >= 1.0 {
        return usize::MAX;
    }
    (1.0 / (1.0 - q)).round() as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_one_to_hundred() {
        let v: Vec<f64> = (1..=101).map(f64::from).collect();
        let p = Percentiles::of(&v);
        assert_eq!(p.p50, 51.0);
        assert_eq!(p.p99, 100.0);
        assert_eq!(p.max, 101.0);
        assert_eq!(p.mean, 51.0);
        assert_eq!(Percentiles::of(&[]).count, 0);
    }

    #[test]
    fn buckets_follow_packet_counts() {
        assert_eq!(SizeBucket::of(1), SizeBucket::One);
        assert_eq!(SizeBucket::of(1460), SizeBucket::One);
        assert_eq!(SizeBucket::of(1461), SizeBucket::UpTo10);
        assert_eq!(SizeBucket::of(14_600), SizeBucket::UpTo10);
        assert_eq!(SizeBucket::of(14_601), SizeBucket::UpTo100);
        assert_eq!(SizeBucket::of(1_460_001), SizeBucket::Over1000);
    }

    #[test]
    fn ideal_fct_of_one_packet_over_two_hops() {
        let hops = [
            (Rate::gbps(10), Delta::from_ns(1500)),
            (Rate::gbps(10), Delta::from_ns(1500)),
        ];
        // 2 us host + 2 x (1.5 us + 1.2 us).
        assert_eq!(
            ideal_fct(&hops, 1460, 1460, 40, Delta::from_us(2)),
            Delta::from_ns(7400)
        );
        // 10 packets: 9 more 1.2 us serializations at the bottleneck.
        assert_eq!(
            ideal_fct(&hops, 14_600, 1460, 40, Delta::ZERO),
            Delta::from_ns(5400 + 9 * 1200)
        );
    }

    fn rec(size: u64, slowdown: Option<f64>) -> FlowRecord {
        FlowRecord {
            id: 0,
            src: 0,
            dst: 1,
            size,
            start_us: 0.0,
            finish_us: slowdown,
            fct_us: slowdown,
            ideal_fct_us: 1.0,
            slowdown,
            retransmitted_bytes: 0,
            timeouts: 0,
            scheme: String::new(),
        }
    }

    #[test]
    fn slowdown_summary_counts_unfinished_flows_and_keeps_empty_buckets_empty() {
        let records = vec![
            rec(100, Some(2.0)),
            rec(100, Some(4.0)),
            rec(5_000, Some(3.0)),
            rec(2_000_000, None),
            rec(2_000_000, None),
            rec(0, None), // long-lived: neither completed nor unfinished
        ];
        let s = SlowdownSummary::of(&records);
        assert_eq!(s.overall.count, 3);
        assert_eq!(s.unfinished, 2);
        let b: Vec<(&str, usize, usize, bool)> = s
            .by_size
            .iter()
            .map(|x| {
                (
                    x.bucket.as_str(),
                    x.completed.count,
                    x.unfinished,
                    x.is_empty(),
                )
            })
            .collect();
        assert_eq!(
            b,
            vec![
                ("1", 2, 0, false),
                ("1-10", 1, 0, false),
                ("10-100", 0, 0, true),
                ("100-1000", 0, 0, true),
                (">1000", 0, 2, false),
            ]
        );
        assert_eq!(s.by_size[0].completed.p50, 3.0);
    }

    #[test]
    fn byte_classes_split_at_inclusive_upper_bounds() {
        let c = ByteClasses::default();
        let labels: Vec<String> = (0..c.len()).map(|i| c.label(i)).collect();
        assert_eq!(labels, ["<=100KB", "100KB-10MB", ">10MB"]);
        assert_eq!(c.of(1), 0);
        assert_eq!(c.of(100_000), 0);
        assert_eq!(c.of(100_001), 1);
        assert_eq!(c.of(10_000_000), 1);
        assert_eq!(c.of(10_000_001), 2);
        let odd = ByteClasses::new(vec![1_500, 1_048_576]).unwrap();
        assert_eq!(odd.label(0), "<=1500B");
        assert_eq!(odd.label(2), ">1048576B");
        assert!(ByteClasses::new(vec![]).is_err());
        assert!(ByteClasses::new(vec![0, 5]).is_err());
        assert!(ByteClasses::new(vec![5, 5]).is_err());
    }

    #[test]
    fn byte_classes_count_unfinished_flows_and_their_bytes() {
        let records = vec![
            rec(50_000, Some(2.0)),
            rec(100_000, None),
            rec(5_000_000, Some(3.0)),
            rec(20_000_000, None),
            rec(30_000_000, None),
            rec(0, None),
        ];
        let s = SlowdownSummary::of(&records);
        assert_eq!((s.unfinished, s.unfinished_bytes), (3, 50_100_000));
        let b: Vec<(&str, usize, usize, u64)> = s
            .by_bytes
            .iter()
            .map(|x| {
                (
                    x.bucket.as_str(),
                    x.completed.count,
                    x.unfinished,
                    x.unfinished_bytes,
                )
            })
            .collect();
        assert_eq!(
            b,
            vec![
                ("<=100KB", 1, 1, 100_000),
                ("100KB-10MB", 1, 0, 0),
                (">10MB", 0, 2, 50_000_000),
            ]
        );
    }

    #[test]
    fn tail_percentiles_need_one_over_one_minus_q_samples() {
        assert_eq!(min_samples_for(0.99), 100);
        assert_eq!(min_samples_for(0.999), 1000);
        assert_eq!(min_samples_for(0.5), 2);
    }

    #[test]
    fn jain_is_one_for_equal_and_one_over_n_for_a_hog() {
        assert!((jain_fairness(&[3.0, 3.0, 3.0]) - 1.0).abs() < 1e-12);
        assert!((jain_fairness(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }
}
