//! What a run produces and how it reaches the disk: everything is written into a temporary
//! directory next to the destination and renamed into place only when complete, so an
//! interrupted or failed run never leaves a directory that looks finished.

use crate::paper;
use crate::scenario::Scenario;
use anyhow::{Context, Result};
use dctc_report::Report;
use std::path::{Path, PathBuf};

/// Header of the wall-clock column of console tables. Wall time varies between runs, so the
/// frame drops this column from the report: everything written is byte-identical for one seed,
/// except the `wall_seconds` timing fields of `summary.json`.
pub(crate) const WALL_COLUMN: &str = "wall s";

/// A CSV file built in memory with the csv crate: fields are quoted only where they need it
/// (a comma, quote or line break), lines end in `\n`. Every engine writes its tables with it.
pub(crate) struct CsvOut {
    w: csv::Writer<Vec<u8>>,
}

impl CsvOut {
    /// A file with this header row.
    pub(crate) fn new(header: &[&str]) -> Self {
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        w.write_record(header)
            .expect("writing to memory cannot fail");
        CsvOut { w }
    }

    /// One row, already formatted field by field.
    pub(crate) fn row<I, T>(&mut self, fields: I)
    where
        I: IntoIterator<Item = T>,
        T: AsRef<[u8]>,
    {
        self.w
            .write_record(fields)
            .expect("writing to memory cannot fail");
    }

    /// The file's bytes.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.w.into_inner().expect("writing to memory cannot fail")
    }
}

/// A CSV field for an optional number: the number as Rust prints it, empty when absent.
pub(crate) fn csv_opt(v: Option<f64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// An engine's results for one scenario.
pub(crate) struct RunOutput {
    /// Engine summary; the frame adds `scenario` (the echoed input) and `paper`.
    pub(crate) summary: serde_json::Value,
    /// Extra files (name, bytes), e.g. `flows.csv`.
    pub(crate) files: Vec<(String, Vec<u8>)>,
    /// The report; rendered to `report.html` and one SVG per chart.
    pub(crate) report: Report,
    /// Printed to stdout after the run (a comparison table).
    pub(crate) console: String,
}

/// The finished summary: the engine's, plus the scenario echo and the paper comparison.
pub(crate) fn full_summary(scenario: &Scenario, out: &RunOutput) -> serde_json::Value {
    let mut summary = match &out.summary {
        serde_json::Value::Object(m) => m.clone(),
        other => {
            let mut m = serde_json::Map::new();
            m.insert("result".into(), other.clone());
            m
        }
    };
    let mut echo = serde_json::to_value(&scenario.raw).unwrap_or(serde_json::Value::Null);
    if let serde_json::Value::Object(m) = &mut echo {
        m.insert("name".into(), scenario.name.clone().into());
        m.insert("seed".into(), scenario.seed.into());
    }
    summary.insert("scenario".into(), echo);
    summary.insert("dctc".into(), crate::provenance::json());
    let value = serde_json::Value::Object(summary.clone());
    summary.insert("paper".into(), paper::compare(&scenario.paper, &value));
    serde_json::Value::Object(summary)
}

/// Writes `out` for `scenario` into `dir` atomically (temp dir + rename). Replaces an existing
/// `dir`. Returns the final path.
pub(crate) fn write_run(dir: &Path, scenario: &Scenario, out: &RunOutput) -> Result<PathBuf> {
    let summary = full_summary(scenario, out);
    let mut report = out.report.clone();
    report.meta = crate::provenance::report_line(scenario.seed);
    for section in &mut report.sections {
        for table in &mut section.tables {
            *table = table.without_column(WALL_COLUMN);
        }
    }
    if let Some(section) = paper::section(&scenario.paper, &summary) {
        report.sections.insert(0, section);
    }
    let mut files: Vec<(String, Vec<u8>)> = vec![
        (
            "summary.json".into(),
            (serde_json::to_string_pretty(&summary)? + "\n").into_bytes(),
        ),
        ("report.html".into(), report.to_html().into_bytes()),
    ];
    files.extend(out.files.iter().cloned());
    for (name, svg) in dctc_report::write_svg_files(&report) {
        files.push((format!("charts/{name}"), svg.into_bytes()));
    }
    write_atomically(dir, &files)?;
    Ok(dir.to_path_buf())
}

/// Writes `files` (relative names, `/` for subdirectories) as the complete contents of `dir`.
pub(crate) fn write_atomically(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<()> {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    let leaf = dir
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = parent.join(format!(".{leaf}.partial-{}", std::process::id()));
    let result = (|| -> Result<()> {
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp)?;
        }
        std::fs::create_dir_all(&tmp)?;
        for (name, bytes) in files {
            let path = tmp.join(name);
            if let Some(p) = path.parent() {
                std::fs::create_dir_all(p)?;
            }
            std::fs::write(&path, bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        if dir.exists() {
            std::fs::remove_dir_all(dir)
                .with_context(|| format!("cannot replace {}", dir.display()))?;
        }
        std::fs::rename(&tmp, dir)
            .with_context(|| format!("cannot move results into {}", dir.display()))?;
        Ok(())
    })();
    if result.is_err() {
        std::fs::remove_dir_all(&tmp).ok();
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_the_directory_whole() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("run");
        write_atomically(
            &dir,
            &[
                ("a.txt".into(), b"1".to_vec()),
                ("sub/b.txt".into(), b"2".to_vec()),
            ],
        )
        .unwrap();
        assert_eq!(std::fs::read(dir.join("sub/b.txt")).unwrap(), b"2");
        write_atomically(&dir, &[("c.txt".into(), b"3".to_vec())]).unwrap();
        assert!(!dir.join("a.txt").exists(), "old contents must be gone");
        assert!(dir.join("c.txt").exists());
        let leftovers: Vec<_> = std::fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    }

    #[test]
    fn csv_out_quotes_only_fields_that_need_it() {
        let mut c = CsvOut::new(&["scheme", "value"]);
        c.row(["plain", "1.5"]);
        c.row(["a,b", "say \"hi\""]);
        c.row(["", "x"]);
        let text = String::from_utf8(c.into_bytes()).unwrap();
        assert_eq!(
            text,
            "scheme,value\nplain,1.5\n\"a,b\",\"say \"\"hi\"\"\"\n,x\n"
        );
    }
}
