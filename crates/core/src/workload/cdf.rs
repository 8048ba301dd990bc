//! Empirical flow-size CDFs.
//!
//! A CDF is a list of `(size_bytes, F)` points, linear between points (sizes uniform within a
//! segment); two points with the same size make a point mass, and a first point with `F > 0`
//! is a point mass at the smallest size. Samples are rounded up to whole bytes. Four file
//! formats are read (see `data/cdf/README.md`): HPCC (`bytes percent`), pFabric/ns-2
//! (`packets 1 fraction`, 1460 B per packet), Homa (a first line holding the mean, then
//! `bytes fraction`), and plain `bytes fraction`.

use super::WorkloadError;
use rand::Rng;
use std::path::Path;

/// Payload bytes per packet in the pFabric-style CDF files.
pub const CDF_PACKET_BYTES: f64 = 1460.0;

/// An empirical flow-size distribution.
#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    /// Where it came from (a built-in name or a path).
    pub name: String,
    /// `(size_bytes, cumulative probability)`, both non-decreasing, ending at probability 1.
    points: Vec<(f64, f64)>,
}

/// Built-in CDFs: name, description, file contents.
pub const BUILTIN: &[(&str, &str, &str)] = &[
    (
        "websearch",
        "DCTCP web search (pFabric's input), mean 1.67 MB",
        include_str!("../../../../data/cdf/websearch.tcl"),
    ),
    (
        "datamining",
        "VL2 data mining (pFabric's input), mean 7.47 MB",
        include_str!("../../../../data/cdf/datamining.tcl"),
    ),
    (
        "fb-web",
        "Facebook web server, intra-cluster (Roy et al.), mean 62 KB",
        include_str!("../../../../data/cdf/fb-web.txt"),
    ),
    (
        "fb-cache",
        "Facebook cache follower, intra-cluster (Roy et al.), mean 687 KB",
        include_str!("../../../../data/cdf/fb-cache.txt"),
    ),
    (
        "fb-hadoop",
        "Facebook Hadoop, all traffic (Roy et al.), mean 122 KB",
        include_str!("../../../../data/cdf/fb-hadoop.txt"),
    ),
];

impl Cdf {
    /// Builds a CDF from points, checking that they are non-decreasing and end at 1.
    pub fn from_points(
        name: impl Into<String>,
        points: Vec<(f64, f64)>,
    ) -> Result<Cdf, WorkloadError> {
        let name = name.into();
        if points.is_empty() {
            return Err(WorkloadError::invalid(&name, "the CDF has no points"));
        }
        for (i, w) in points.windows(2).enumerate() {
            if w[1].0 < w[0].0 || w[1].1 < w[0].1 {
                return Err(WorkloadError::BadLine {
                    file: name,
                    line: i + 2,
                    reason: "sizes and probabilities must not decrease".into(),
                });
            }
        }
        let (first, last) = (points[0], points[points.len() - 1]);
        if first.0 < 0.0 || first.1 < 0.0 {
            return Err(WorkloadError::invalid(
                &name,
                "sizes and probabilities must be >= 0",
            ));
        }
        if (last.1 - 1.0).abs() > 1e-9 {
            return Err(WorkloadError::invalid(
                &name,
                format!("the CDF ends at {} instead of 1", last.1),
            ));
        }
        if last.0 <= 0.0 {
            return Err(WorkloadError::invalid(
                &name,
                "the largest size must be positive",
            ));
        }
        if last.0 > super::MAX_FLOW_BYTES as f64 {
            return Err(WorkloadError::invalid(
                &name,
                format!(
                    "the largest size, {:e} bytes, is more than the {} a flow may carry",
                    last.0,
                    crate::units::human_bytes(super::MAX_FLOW_BYTES)
                ),
            ));
        }
        Ok(Cdf { name, points })
    }

    /// Parses CDF text in any of the supported formats. `name` is used in errors.
    pub fn parse(name: &str, text: &str) -> Result<Cdf, WorkloadError> {
        let mut rows: Vec<(usize, Vec<f64>)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Result<Vec<f64>, _> =
                line.split_whitespace().map(str::parse::<f64>).collect();
            let fields = fields.map_err(|e| WorkloadError::BadLine {
                file: name.into(),
                line: i + 1,
                reason: format!("not a number: {e}"),
            })?;
            if fields.iter().any(|x| !x.is_finite()) {
                return Err(WorkloadError::BadLine {
                    file: name.into(),
                    line: i + 1,
                    reason: "not a finite number".into(),
                });
            }
            rows.push((i + 1, fields));
        }
        // Homa: a first line holding only the mean.
        if rows.first().is_some_and(|(_, f)| f.len() == 1) {
            rows.remove(0);
        }
        if rows.is_empty() {
            return Err(WorkloadError::invalid(name, "the CDF has no points"));
        }
        let width = rows[0].1.len();
        if let Some((line, f)) = rows.iter().find(|(_, f)| f.len() != width) {
            return Err(WorkloadError::BadLine {
                file: name.into(),
                line: *line,
                reason: format!("expected {width} columns, found {}", f.len()),
            });
        }
        let points: Vec<(f64, f64)> = match width {
            // pFabric / ns-2: packets, an unused column, fraction.
            3 => rows
                .iter()
                .map(|(_, f)| (f[0] * CDF_PACKET_BYTES, f[2]))
                .collect(),
            2 => {
                let last = rows[rows.len() - 1].1[1];
                let scale = if (last - 100.0).abs() < 1e-6 {
                    0.01
                } else {
                    1.0
                };
                rows.iter().map(|(_, f)| (f[0], f[1] * scale)).collect()
            }
            _ => {
                return Err(WorkloadError::BadLine {
                    file: name.into(),
                    line: rows[0].0,
                    reason: format!("expected 2 or 3 columns, found {width}"),
                })
            }
        };
        Cdf::from_points(name, points)
    }

    /// A built-in CDF by name.
    pub fn builtin(name: &str) -> Option<Cdf> {
        BUILTIN
            .iter()
            .find(|b| b.0 == name)
            .map(|b| Cdf::parse(b.0, b.2).expect("built-in CDFs parse"))
    }

    /// A built-in name, or else a file path (relative paths resolve against `base_dir`).
    pub fn load(name_or_path: &str, base_dir: &Path) -> Result<Cdf, WorkloadError> {
        if let Some(c) = Cdf::builtin(name_or_path) {
            return Ok(c);
        }
        let path = base_dir.join(name_or_path);
        let text = crate::input::read_input_file(&path).map_err(|e| {
            let names: Vec<&str> = BUILTIN.iter().map(|b| b.0).collect();
            WorkloadError::File {
                file: path.display().to_string(),
                reason: format!(
                    "{e} (not a built-in CDF either; built-ins: {})",
                    names.join(", ")
                ),
            }
        })?;
        Cdf::parse(&path.display().to_string(), &text)
    }

    /// The points, `(size_bytes, F)`.
    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// Mean flow size in bytes under linear interpolation.
    pub fn mean_bytes(&self) -> f64 {
        let (x0, f0) = self.points[0];
        let mut mean = x0 * f0;
        for w in self.points.windows(2) {
            mean += (w[0].0 + w[1].0) / 2.0 * (w[1].1 - w[0].1);
        }
        mean
    }

    /// The size at cumulative probability `u` in [0, 1), before rounding.
    pub fn quantile(&self, u: f64) -> f64 {
        let (x0, f0) = self.points[0];
        if u < f0 {
            return x0;
        }
        for w in self.points.windows(2) {
            let ((xa, fa), (xb, fb)) = (w[0], w[1]);
            if u < fb {
                if fb <= fa {
                    return xb;
                }
                return xa + (u - fa) / (fb - fa) * (xb - xa);
            }
        }
        self.points[self.points.len() - 1].0
    }

    /// Draws one flow size in bytes (at least 1).
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        let u: f64 = rng.random();
        (self.quantile(u).ceil() as u64).max(1)
    }

    /// The probability that a flow is at most `bytes` long.
    pub fn cdf_at(&self, bytes: f64) -> f64 {
        let (x0, f0) = self.points[0];
        if bytes < x0 {
            return 0.0;
        }
        let mut f = f0;
        for w in self.points.windows(2) {
            let ((xa, fa), (xb, fb)) = (w[0], w[1]);
            if bytes >= xb {
                f = fb;
            } else {
                if xb > xa && bytes >= xa {
                    f = fa + (bytes - xa) / (xb - xa) * (fb - fa);
                }
                break;
            }
        }
        f
    }

    /// The FQ-CoDel-in-the-datacenter paper's tweaked workload (§4.1): sizes above
    /// `max_bytes` are cut to `max_bytes` (a point mass there), then single-packet flows (at
    /// most [`CDF_PACKET_BYTES`]) are made to carry `share` of all bytes by changing their
    /// probability, every other size's probability scaled by one common factor ("proportionally
    /// reduce the occurrence of all the other flow sizes").
    ///
    /// With p1 the single-packet probability, m1 their mean size and m the mean of the others,
    /// the new probability solves p1' m1 / (p1' m1 + (1 - p1') m) = share:
    /// `p1' = share m / (m1 (1 - share) + share m)`.
    pub fn with_single_packet_share(
        &self,
        max_bytes: f64,
        share: f64,
    ) -> Result<Cdf, WorkloadError> {
        let name = format!(
            "{} (max {max_bytes} B, single-packet byte share {share})",
            self.name
        );
        if !(share > 0.0 && share < 1.0) {
            return Err(WorkloadError::invalid(
                "share",
                format!("must be in (0, 1), got {share}"),
            ));
        }
        if !(max_bytes.is_finite() && max_bytes > CDF_PACKET_BYTES) {
            return Err(WorkloadError::invalid(
                "max_bytes",
                format!("must exceed one packet ({CDF_PACKET_BYTES} B), got {max_bytes}"),
            ));
        }
        // Cap at max_bytes, with a point at exactly one packet so no segment straddles it.
        let one = CDF_PACKET_BYTES;
        let mut pts: Vec<(f64, f64)> = Vec::with_capacity(self.points.len() + 3);
        for &(x, f) in &self.points {
            if x >= max_bytes {
                pts.push((max_bytes, self.cdf_at(max_bytes)));
                pts.push((max_bytes, 1.0));
                break;
            }
            pts.push((x, f));
        }
        if !pts.iter().any(|p| p.0 == one) {
            if let Some(i) = pts.iter().position(|p| p.0 > one) {
                pts.insert(i, (one, self.cdf_at(one)));
            }
        }
        let capped = Cdf::from_points(&name, pts)?;
        let p1 = capped.cdf_at(one);
        if p1 <= 0.0 || p1 >= 1.0 {
            return Err(WorkloadError::invalid(
                &name,
                "needs both single-packet flows and longer ones to reweight",
            ));
        }
        let small = Cdf::from_points(
            "small",
            capped
                .points
                .iter()
                .filter(|p| p.0 <= one)
                .map(|&(x, f)| (x, f / p1))
                .collect(),
        )?;
        let m1 = small.mean_bytes();
        let m_rest = (capped.mean_bytes() - p1 * m1) / (1.0 - p1);
        let p1_new = share * m_rest / (m1 * (1.0 - share) + share * m_rest);
        let points = capped
            .points
            .iter()
            .map(|&(x, f)| {
                if x <= one {
                    (x, f / p1 * p1_new)
                } else {
                    (x, p1_new + (f - p1) * (1.0 - p1_new) / (1.0 - p1))
                }
            })
            .collect();
        Cdf::from_points(name, points)
    }

    /// The points as `bytes fraction` lines (a CDF file [`Cdf::parse`] reads back).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for &(x, f) in &self.points {
            s.push_str(&format!("{x} {f}\n"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::component_rng;

    #[test]
    fn builtin_means_match_the_provenance_table() {
        // data/cdf/README.md (linear interpolation, 1 packet = 1460 B).
        let cases = [
            ("websearch", 1_665_831.0),
            ("datamining", 7_470_236.0),
            ("fb-web", 62_229.0),
            ("fb-cache", 686_866.0),
            ("fb-hadoop", 121_849.0),
        ];
        for (name, mean) in cases {
            let c = Cdf::builtin(name).unwrap();
            let rel = (c.mean_bytes() - mean).abs() / mean;
            assert!(rel < 1e-3, "{name}: {} vs {mean}", c.mean_bytes());
        }
    }

    #[test]
    fn point_mass_and_interpolation() {
        let c = Cdf::builtin("websearch").unwrap();
        // 15% of flows are exactly 6 packets.
        assert_eq!(c.quantile(0.0), 6.0 * 1460.0);
        assert_eq!(c.quantile(0.1499), 6.0 * 1460.0);
        // Half way between (13, 0.2) and (19, 0.3).
        assert!((c.quantile(0.25) - 16.0 * 1460.0).abs() < 1e-6);
        assert!((c.cdf_at(16.0 * 1460.0) - 0.25).abs() < 1e-9);
    }

    #[test]
    fn sample_mean_converges_to_mean() {
        let c = Cdf::builtin("fb-hadoop").unwrap();
        let mut rng = component_rng(1, 1);
        let n = 200_000;
        let s: f64 = (0..n).map(|_| c.sample(&mut rng) as f64).sum::<f64>() / n as f64;
        assert!((s - c.mean_bytes()).abs() / c.mean_bytes() < 0.05, "{s}");
    }

    #[test]
    fn malformed_files_name_the_line() {
        let e = Cdf::parse("x.txt", "1 0\n2 abc\n").unwrap_err();
        assert!(matches!(e, WorkloadError::BadLine { line: 2, .. }), "{e:?}");
        let e = Cdf::parse("x.txt", "1 0\n3 0.5\n2 1\n").unwrap_err();
        assert!(matches!(e, WorkloadError::BadLine { line: 3, .. }), "{e:?}");
        let e = Cdf::parse("x.txt", "1 0\n2 0.5\n").unwrap_err();
        assert!(e.to_string().contains("ends at 0.5"), "{e}");
        assert!(Cdf::load("no-such-file", Path::new("/nonexistent")).is_err());
    }

    /// The tweaked data-mining CDFs committed under `data/cdf/` (FQ-CoDel paper §4.1): share
    /// of bytes in single-packet flows, file name.
    const TWEAKED: [(f64, &str); 4] = [
        (1e-4, "datamining-1pkt-0.01pct.txt"),
        (1e-3, "datamining-1pkt-0.1pct.txt"),
        (1e-2, "datamining-1pkt-1pct.txt"),
        (1e-1, "datamining-1pkt-10pct.txt"),
    ];

    fn tweaked(share: f64) -> Cdf {
        Cdf::builtin("datamining")
            .unwrap()
            .with_single_packet_share(1e5 * CDF_PACKET_BYTES, share)
            .unwrap()
    }

    fn data_file(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../data/cdf")
            .join(name)
    }

    #[test]
    fn tweaked_datamining_gives_single_packet_flows_the_asked_byte_share() {
        let max = 1e5 * CDF_PACKET_BYTES;
        let dm = Cdf::builtin("datamining").unwrap();
        for (share, file) in TWEAKED {
            let t = tweaked(share);
            let p1 = t.cdf_at(CDF_PACKET_BYTES);
            let got = p1 * CDF_PACKET_BYTES / t.mean_bytes();
            assert!((got - share).abs() < 1e-9 * share, "{share}: {got}");
            // Capped at 1e5 packets, with the cut-off mass as a point mass there.
            assert_eq!(t.points().last(), Some(&(max, 1.0)));
            assert_eq!(t.quantile(0.999_999), max);
            // Longer flows keep their relative frequencies.
            let orig_p1 = dm.cdf_at(CDF_PACKET_BYTES);
            for x in [2.0, 7.0, 267.0, 66_667.0] {
                let x = x * CDF_PACKET_BYTES;
                let before = (dm.cdf_at(x) - orig_p1) / (1.0 - orig_p1);
                let after = (t.cdf_at(x) - p1) / (1.0 - p1);
                assert!((before - after).abs() < 1e-12, "{x}: {before} vs {after}");
            }
            // The committed file is this CDF.
            let path = data_file(file);
            let text = std::fs::read_to_string(&path).unwrap();
            let f = Cdf::parse(file, &text).unwrap();
            assert_eq!(
                f.points(),
                t.points(),
                "{file}: rerun write_tweaked_datamining"
            );
        }
        // More single-packet bytes means more single-packet flows.
        assert!(tweaked(0.1).cdf_at(CDF_PACKET_BYTES) > tweaked(0.01).cdf_at(CDF_PACKET_BYTES));
    }

    #[test]
    fn impossible_tweaks_are_refused() {
        let dm = Cdf::builtin("datamining").unwrap();
        for share in [0.0, 1.0, -0.1, f64::NAN] {
            let e = dm.with_single_packet_share(1e8, share).unwrap_err();
            assert!(e.to_string().contains("share"), "{e}");
        }
        let e = dm.with_single_packet_share(1000.0, 0.1).unwrap_err();
        assert!(e.to_string().contains("max_bytes"), "{e}");
        // No single-packet flows to reweight.
        let big = Cdf::from_points("big", vec![(10_000.0, 0.0), (20_000.0, 1.0)]).unwrap();
        assert!(big.with_single_packet_share(1e8, 0.1).is_err());
    }

    /// Writes the tweaked CDF files: `cargo test -p dctc-core -- --ignored write_tweaked`.
    #[test]
    #[ignore]
    fn write_tweaked_datamining() {
        for (share, file) in TWEAKED {
            let head = format!(
                "# datamining capped at 1e5 packets, single-packet flows carrying {}% of bytes\n\
                 # (FQ-CoDel in the datacenter, 4.1); made by Cdf::with_single_packet_share\n",
                share * 100.0
            );
            std::fs::write(data_file(file), head + &tweaked(share).to_text()).unwrap();
        }
    }
}
