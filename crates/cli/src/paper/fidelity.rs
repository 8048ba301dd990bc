//! `FIDELITY.md`: the ledger of every paper, kept in the repository, each paper's part from the
//! run that last graded it.
//!
//! Each paper's part is a record, `fidelity/<paper>.json` beside `FIDELITY.md`: the run's
//! mode, commit, command, date and wall time, its tally and its markdown section.
//! `FIDELITY.md` is rendered from every record, so rerunning one paper
//! (`dctc ledger --paper P --fidelity FIDELITY.md`) rewrites that paper's record and no other,
//! and two branches that regraded different papers merge without touching each other's
//! records; `FIDELITY.md` itself is rebuilt from the merged records with
//! `dctc ledger --fidelity FIDELITY.md --render`, which runs nothing.

use super::ledger::{summary_markdown, PaperLedger, Tally};
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The first line of a `FIDELITY.md` that dctc wrote: only such a file is replaced without
/// `--force`.
const FIDELITY_MARK: &str =
    "<!-- Written by `dctc ledger --fidelity`: regenerate it, do not edit it by hand. -->";

/// The folder of per-paper records, beside `FIDELITY.md`.
const RECORDS_DIR: &str = "fidelity";

/// One paper's part of `FIDELITY.md`: what graded it, and the result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PaperRecord {
    /// The paper's folder name.
    pub(crate) paper: String,
    /// "short" or "full" (`X.full.toml` where it exists).
    pub(crate) mode: String,
    /// The commit of the binary that ran it.
    pub(crate) commit: String,
    /// dctc's version.
    pub(crate) version: String,
    /// The command, as typed.
    pub(crate) command: String,
    /// When, `YYYY-MM-DD HH:MM UTC`.
    pub(crate) date: String,
    /// Wall time of this paper's runs, seconds.
    pub(crate) wall_s: f64,
    /// Its verdicts.
    pub(crate) tally: Tally,
    /// Its section of the ledger, markdown.
    pub(crate) section: String,
}

impl PaperRecord {
    /// The record of `paper`, graded by this process in `mode` in `wall_s` seconds.
    pub(crate) fn of(paper: &PaperLedger, mode: &str, wall_s: f64) -> PaperRecord {
        let args: Vec<String> = std::env::args().skip(1).map(|a| shell_word(&a)).collect();
        PaperRecord {
            paper: paper.paper.clone(),
            mode: mode.to_string(),
            commit: crate::provenance::COMMIT.to_string(),
            version: crate::provenance::VERSION.to_string(),
            command: format!("dctc {}", args.join(" ")),
            date: utc_now(),
            // Tenths of a second: the record says how long, not to the nanosecond.
            wall_s: (wall_s * 10.0).round() / 10.0,
            tally: Tally::of(std::slice::from_ref(paper)),
            section: paper.section_markdown(),
        }
    }
}

/// The records' folder for the `FIDELITY.md` at `path`.
fn records_dir(path: &Path) -> PathBuf {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .join(RECORDS_DIR)
}

/// Every record beside `path`, in paper-name order.
fn read_records(path: &Path) -> Result<Vec<PaperRecord>> {
    let dir = records_dir(path);
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f)
                .with_context(|| format!("cannot read {}", f.display()))?;
            let r: PaperRecord = serde_json::from_str(&text)
                .with_context(|| format!("{}: not a ledger record", f.display()))?;
            if f.file_stem().is_none_or(|s| s.to_string_lossy() != r.paper) {
                bail!(
                    "{}: holds the record of paper `{}`; its name must be {}.json",
                    f.display(),
                    r.paper,
                    r.paper
                );
            }
            Ok(r)
        })
        .collect()
}

/// `FIDELITY.md` from `records`: what ran each paper, the tally over all, then each paper's
/// section.
pub(crate) fn render(records: &[PaperRecord]) -> String {
    let mut s = format!(
        "# FIDELITY: the papers' claims beside dctc's figures\n\n{FIDELITY_MARK}\n\n\
         Each paper's part comes from the run named below; its record is \
         `{RECORDS_DIR}/<paper>.json`. `dctc ledger --paper P --fidelity FIDELITY.md` reruns one \
         paper and rewrites its part (add `--full` for the full scenario files); \
         `dctc ledger --fidelity FIDELITY.md --render` rebuilds this file from the records without \
         running anything (after a merge).\n\n\
         | paper | mode | commit | command | date | wall time |\n|---|---|---|---|---|---|\n"
    );
    for r in records {
        let _ = writeln!(
            s,
            "| {} | {} | `{}` (dctc {}) | `{}` | {} | {:.1} s |",
            r.paper, r.mode, r.commit, r.version, r.command, r.date, r.wall_s
        );
    }
    let total: f64 = records.iter().map(|r| r.wall_s).sum();
    let _ = writeln!(
        s,
        "\nWall time of every paper's runs together: {total:.1} s.\n"
    );
    let tallies: Vec<(String, Tally)> = records
        .iter()
        .map(|r| (r.paper.clone(), r.tally.clone()))
        .collect();
    s.push_str(&summary_markdown(
        "Mode: per paper, as the table above says (short: the short scenario files; full: \
         `X.full.toml` where it exists, else the short `X.toml`).",
        &tallies,
    ));
    for r in records {
        s.push_str(&r.section);
    }
    s
}

/// Writes `records` (replacing those papers' records) and renders `path` from every record
/// beside it. Returns the files written.
pub(crate) fn write(path: &Path, records: &[PaperRecord]) -> Result<Vec<PathBuf>> {
    let dir = records_dir(path);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::new();
    for r in records {
        let file = dir.join(format!("{}.json", r.paper));
        let text = serde_json::to_string_pretty(r)? + "\n";
        write_file_atomically(&file, text.as_bytes())?;
        written.push(file);
    }
    written.push(render_file(path)?);
    Ok(written)
}

/// Renders `path` from the records beside it; refuses when there are none.
pub(crate) fn render_file(path: &Path) -> Result<PathBuf> {
    let records = read_records(path)?;
    if records.is_empty() {
        bail!(
            "--fidelity {}: no records in {} to render; run `dctc ledger --fidelity {}` first",
            path.display(),
            records_dir(path).display(),
            path.display()
        );
    }
    write_file_atomically(path, render(&records).as_bytes())?;
    Ok(path.to_path_buf())
}

/// Refuses a `--fidelity` path that is a directory, or a file dctc did not write (without
/// `force`), before any run.
pub(crate) fn check(path: &Path, force: bool) -> Result<()> {
    if path.is_dir() {
        bail!("--fidelity {}: is a directory; name a file", path.display());
    }
    if path.exists() && !force {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if !text.contains(FIDELITY_MARK) {
            bail!(
                "--fidelity {}: exists and was not written by `dctc ledger --fidelity`; choose another path, or pass --force to replace it",
                path.display()
            );
        }
    }
    // Read the records now, so a broken one fails before hours of runs.
    read_records(path)?;
    Ok(())
}

/// `word`, quoted for a POSIX shell when it needs it.
fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The current time as `YYYY-MM-DD HH:MM UTC`.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let rem = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's
/// `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Writes `bytes` to `path` through a temporary file beside it and a rename, so an
/// interrupted run never leaves half a file.
fn write_file_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .with_context(|| format!("{}: not a file name", path.display()))?;
    let tmp = dir.join(format!(
        ".{}.partial-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        std::fs::remove_file(&tmp).ok();
        anyhow::anyhow!("cannot move {} into place: {e}", path.display())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_shell_words() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(shell_word("--fidelity"), "--fidelity");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
    }

    fn record(paper: &str, holds: usize) -> PaperRecord {
        PaperRecord {
            paper: paper.into(),
            mode: "short".into(),
            commit: "abc1234".into(),
            version: "0.1.0".into(),
            command: format!("dctc ledger --paper {paper} --fidelity FIDELITY.md"),
            date: "2026-11-28 03:00 UTC".into(),
            wall_s: 1.5,
            tally: Tally {
                holds,
                misses_unexplained: 1,
                ..Tally::default()
            },
            section: format!("\n## {paper}\n\nits rows\n"),
        }
    }

    #[test]
    fn one_paper_rewrites_its_record_and_the_file_sums_every_record() {
        let dir = std::env::temp_dir().join(format!("dctc-fidelity-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("FIDELITY.md");
        write(&path, &[record("a", 2), record("b", 3)]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("**7 paper claims graded: 5 hold"), "{text}");
        assert!(text.find("## a").unwrap() < text.find("## b").unwrap());
        // Regrading b alone keeps a's record as it was.
        write(&path, &[record("b", 7)]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("**11 paper claims graded: 9 hold"), "{text}");
        assert!(text.contains("## a"));
        // A render of the records is the file, byte for byte.
        let before = text.clone();
        render_file(&path).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
        check(&path, false).unwrap();
        // A record under another paper's name is refused, naming the file.
        std::fs::write(
            dir.join(RECORDS_DIR).join("c.json"),
            serde_json::to_string(&record("a", 1)).unwrap(),
        )
        .unwrap();
        let e = check(&path, false).unwrap_err().to_string();
        assert!(e.contains("c.json") && e.contains("`a`"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_shipped_fidelity_is_the_render_of_its_records() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../FIDELITY.md");
        let records = read_records(&path).unwrap();
        let papers: Vec<&str> = records.iter().map(|r| r.paper.as_str()).collect();
        for p in ["dba", "flowtune", "fq-codel", "holnet", "tfc"] {
            assert!(papers.contains(&p), "no record of {p} in fidelity/");
        }
        assert!(
            std::fs::read_to_string(&path).unwrap() == render(&records),
            "FIDELITY.md is not the render of fidelity/*.json: cargo run --release -p dctc -- ledger --fidelity FIDELITY.md --render"
        );
    }

    #[test]
    fn render_refuses_without_records_and_check_refuses_foreign_files() {
        let dir = std::env::temp_dir().join(format!("dctc-fidelity-none-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("FIDELITY.md");
        assert!(render_file(&path)
            .unwrap_err()
            .to_string()
            .contains("no records"));
        std::fs::write(&path, "my notes\n").unwrap();
        assert!(check(&path, false)
            .unwrap_err()
            .to_string()
            .contains("not written by"));
        check(&path, true).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
