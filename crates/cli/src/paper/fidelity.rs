//! `FIDELITY.md`: the ledger of every paper, kept in the repository, each paper's part from the
//! runs that last graded it.
//!
//! Each paper has up to two records beside `FIDELITY.md`, one per mode:
//! `fidelity/<paper>.json` (short: the short scenario files) and `fidelity/<paper>.full.json`
//! (full: `X.full.toml` where it exists, else `X.toml`). A record holds the run's mode, commit,
//! command, date and wall time and the paper's rows as its ledger table shows them.
//! `FIDELITY.md` is rendered from every record, so rerunning one paper in one mode
//! (`dctc ledger --paper P [--full] --fidelity FIDELITY.md`) rewrites that record and no other:
//! a short regrade never erases a full run, and two branches that regraded different papers
//! merge without touching each other's records. `FIDELITY.md` itself is rebuilt from the
//! merged records with `dctc ledger --fidelity FIDELITY.md --render`, which runs nothing.
//!
//! A paper's two records merge row by row ([`merge`]): a row of a full file is graded by the
//! full record, a row of a short file by the short one, a `claims.toml` row by the full record
//! where it graded it (its `run` cell says which); a row neither grades is listed as not run.
//! Each row is tallied once. Where the two records disagree on a row (one lacks it, or reads
//! it differently: a scenario's rows changed after the older run), the row is kept and flagged
//! stale, never dropped.

use super::claims::Verdict;
use super::ledger::{summary_markdown, Body, GradedRow, NotRunRow, PaperLedger, Tally};
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The first line of a `FIDELITY.md` that dctc wrote: only such a file is replaced without
/// `--force`.
const FIDELITY_MARK: &str =
    "<!-- Written by `dctc ledger --fidelity`: regenerate it, do not edit it by hand. -->";

/// The folder of per-paper records, beside `FIDELITY.md`.
const RECORDS_DIR: &str = "fidelity";

/// One paper's part of `FIDELITY.md` in one mode: what graded it, and the result.
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
    /// What the section should say beside the rows (files left out of the run, and why).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) notes: Vec<String>,
    /// Its rows, as its ledger table shows them.
    pub(crate) ledger: Body,
}

/// The record format before short and full records were kept apart: the section as markdown.
/// Read (and converted) so that a record written by an older dctc still renders.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LegacyRecord {
    paper: String,
    mode: String,
    commit: String,
    version: String,
    command: String,
    date: String,
    wall_s: f64,
    #[allow(dead_code)]
    tally: Tally,
    section: String,
}

impl PaperRecord {
    /// The record of `paper`, graded by this process in `mode` in `wall_s` seconds.
    pub(crate) fn of(
        paper: &PaperLedger,
        mode: &str,
        wall_s: f64,
        notes: Vec<String>,
    ) -> PaperRecord {
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
            notes,
            ledger: paper.body(),
        }
    }

    /// Its file name in the records' folder.
    fn file_name(&self) -> String {
        record_file_name(&self.paper, &self.mode)
    }

    fn is_full(&self) -> bool {
        self.mode == "full"
    }
}

/// `<paper>.json` for a short record, `<paper>.full.json` for a full one.
fn record_file_name(paper: &str, mode: &str) -> String {
    if mode == "full" {
        format!("{paper}.full.json")
    } else {
        format!("{paper}.json")
    }
}

/// The records' folder for the `FIDELITY.md` at `path`.
fn records_dir(path: &Path) -> PathBuf {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .join(RECORDS_DIR)
}

/// Every record beside `path`, by paper, the short record before the full one.
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
    // Scenarios beside FIDELITY.md: an older record's self checks are read from them.
    let scenarios = dir.with_file_name("scenarios");
    let mut records = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f)
                .with_context(|| format!("cannot read {}", f.display()))?;
            let r = parse_record(&text, &scenarios)
                .with_context(|| format!("{}: not a ledger record", f.display()))?;
            let name = r.file_name();
            if f.file_name().is_none_or(|s| s.to_string_lossy() != name) {
                bail!(
                    "{}: holds the {} record of paper `{}`; its name must be {name}",
                    f.display(),
                    r.mode,
                    r.paper,
                );
            }
            Ok(r)
        })
        .collect::<Result<Vec<_>>>()?;
    records.sort_by(|a, b| (&a.paper, a.is_full()).cmp(&(&b.paper, b.is_full())));
    Ok(records)
}

/// A record from its JSON, converting the older format (a markdown section) on the way; its
/// holding self checks are found in `scenarios` (the older format did not mark them).
fn parse_record(text: &str, scenarios: &Path) -> Result<PaperRecord> {
    let v: serde_json::Value = serde_json::from_str(text)?;
    if v.get("section").is_none() {
        return Ok(serde_json::from_value(v)?);
    }
    let old: LegacyRecord = serde_json::from_value(v)?;
    let self_checks = if scenarios.is_dir() {
        self_check_ids(scenarios, &old.paper)?
    } else {
        BTreeSet::new()
    };
    Ok(PaperRecord {
        ledger: body_of_section(&old.section, &self_checks),
        paper: old.paper,
        mode: old.mode,
        commit: old.commit,
        version: old.version,
        command: old.command,
        date: old.date,
        wall_s: old.wall_s,
        notes: Vec::new(),
    })
}

/// The ids of `paper`'s self-check rows under `root`.
fn self_check_ids(root: &Path, paper: &str) -> Result<BTreeSet<String>> {
    let mut ids = BTreeSet::new();
    if !root.join(paper).is_dir() {
        return Ok(ids);
    }
    let dir = super::ledger::PaperDir::scan(root, paper)?;
    for f in &dir.files {
        let s = crate::scenario::Scenario::load(&f.path, None)?;
        for (i, r) in s.paper.iter().enumerate() {
            if r.self_check {
                ids.insert(format!("{paper}/{}#{}", f.stem, i + 1));
            }
        }
    }
    for (i, r) in dir.claims.rows.iter().enumerate() {
        if r.self_check {
            ids.insert(format!("{paper}/claims#{}", i + 1));
        }
    }
    Ok(ids)
}

/// The cells of a markdown table line, `\|` unescaped.
pub(crate) fn md_cells(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = line.trim().trim_start_matches('|').chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                if let Some(last) = out.last_mut() {
                    last.push('|');
                }
                chars.next();
            }
            '|' => out.push(String::new()),
            _ => {
                if let Some(last) = out.last_mut() {
                    last.push(c);
                }
            }
        }
    }
    out.pop();
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// The rows of an older record's markdown section (its tables, as [`Body::section_markdown`]
/// writes them); `self_checks` names the self-check rows.
fn body_of_section(section: &str, self_checks: &BTreeSet<String>) -> Body {
    let mut body = Body::default();
    let mut columns = 0;
    for line in section.lines() {
        if let Some(files) = line.strip_prefix("Scenario files without a `[[paper]]` row: ") {
            body.ungraded = files
                .trim_end_matches('.')
                .split(", ")
                .map(|f| f.trim_matches('`').to_string())
                .collect();
            continue;
        }
        if !line.starts_with("| ") {
            continue;
        }
        let c = md_cells(line);
        if c.first().is_some_and(|h| h == "id") {
            columns = c.len();
            continue;
        }
        match (columns, c.as_slice()) {
            (9, [id, figure, claim, kind, paper, ours, verdict, run, reason]) => {
                body.rows.push(GradedRow {
                    self_check: reason == "self check" || self_checks.contains(id),
                    id: id.clone(),
                    figure: figure.clone(),
                    claim: claim.clone(),
                    kind: kind.clone(),
                    paper: paper.clone(),
                    ours: ours.clone(),
                    verdict: verdict.clone(),
                    run: run.clone(),
                    reason: reason.clone(),
                })
            }
            (4, [id, figure, headline, reason]) => body.untested.push(super::ledger::UntestedRow {
                id: id.clone(),
                figure: figure.clone(),
                headline: headline.clone(),
                reason: reason.clone(),
            }),
            (6, [id, figure, claim, kind, paper, file]) => body.not_run.push(NotRunRow {
                id: id.clone(),
                figure: figure.clone(),
                claim: claim.clone(),
                kind: kind.clone(),
                paper: paper.clone(),
                file: file.clone(),
            }),
            _ => {}
        }
    }
    body
}

/// Sorts row ids as the ledger lists them: each file's rows in file order, files by name,
/// the claims last.
fn id_key(id: &str) -> (bool, String, u64) {
    let (file, n) = id.rsplit_once('#').unwrap_or((id, ""));
    let stem = file.split_once('/').map_or(file, |(_, s)| s);
    (
        stem == "claims",
        stem.to_string(),
        n.parse().unwrap_or(u64::MAX),
    )
}

/// What a row is, as a record read it: figure, claim, kind and the paper's figure.
type Definition = (String, String, String, String);

fn definition_of_graded(r: &GradedRow) -> Definition {
    (
        r.figure.clone(),
        r.claim.clone(),
        r.kind.clone(),
        r.paper.clone(),
    )
}

fn definition_of_not_run(r: &NotRunRow) -> Definition {
    (
        r.figure.clone(),
        r.claim.clone(),
        r.kind.clone(),
        r.paper.clone(),
    )
}

/// One paper's short and full records merged row by row: each row graded by the record of
/// its file's mode (a claims row by the full record where it graded it), else by the other,
/// else listed as not run; rows the two records disagree on are flagged stale. Returns the
/// body and how many rows are stale.
pub(crate) fn merge(short: Option<&PaperRecord>, full: Option<&PaperRecord>) -> (Body, usize) {
    let records: Vec<&PaperRecord> = [short, full].into_iter().flatten().collect();
    // id -> (record index -> its graded row or its not-run row)
    let mut graded: BTreeMap<&str, Vec<Option<&GradedRow>>> = BTreeMap::new();
    let mut not_run: BTreeMap<&str, Vec<Option<&NotRunRow>>> = BTreeMap::new();
    for (i, r) in records.iter().enumerate() {
        for g in &r.ledger.rows {
            graded
                .entry(&g.id)
                .or_insert_with(|| vec![None; records.len()])[i] = Some(g);
        }
        for n in &r.ledger.not_run {
            not_run
                .entry(&n.id)
                .or_insert_with(|| vec![None; records.len()])[i] = Some(n);
        }
    }
    let mut ids: Vec<&str> = graded.keys().chain(not_run.keys()).copied().collect();
    ids.sort_by_key(|id| id_key(id));
    ids.dedup();
    let mut body = Body::default();
    let mut stale = 0;
    for id in ids {
        let g = graded.get(id);
        let n = not_run.get(id);
        // What each record read this row as, and which records know it at all.
        let mut definitions = BTreeSet::new();
        let mut knows = vec![false; records.len()];
        for (i, k) in knows.iter_mut().enumerate() {
            if let Some(row) = g.and_then(|g| g[i]) {
                definitions.insert(definition_of_graded(row));
                *k = true;
            }
            if let Some(row) = n.and_then(|n| n[i]) {
                definitions.insert(definition_of_not_run(row));
                *k = true;
            }
        }
        let why = if definitions.len() > 1 {
            Some("the short and full records read this row differently".to_string())
        } else if knows.iter().any(|k| !k) {
            let with = records
                .iter()
                .zip(&knows)
                .find(|(_, k)| **k)
                .map_or("one", |(r, _)| r.mode.as_str());
            Some(format!("only the {with} record has this row"))
        } else {
            None
        };
        stale += usize::from(why.is_some());
        let flag = |cell: &str| match &why {
            Some(w) => format!("{cell} (stale: {w}; regrade)"),
            None => cell.to_string(),
        };
        // The record of the row's mode first: full for a full file's rows and the claims,
        // short for a short file's.
        let (_, stem, _) = id_key(id);
        let prefer_full = stem.ends_with(".full") || stem == "claims";
        let mut order: Vec<usize> = (0..records.len()).collect();
        order.sort_by_key(|&i| records[i].is_full() != prefer_full);
        // A row whose metric was absent (its scenario left out of that run) is graded by
        // the other record where that one has it.
        let candidates: Vec<&GradedRow> =
            order.iter().filter_map(|&i| g.and_then(|g| g[i])).collect();
        let chosen = candidates
            .iter()
            .find(|r| r.verdict != Verdict::Missing.label())
            .or(candidates.first());
        if let Some(&row) = chosen {
            let mut row = row.clone();
            row.run = flag(&row.run);
            body.rows.push(row);
        } else if let Some(row) = order.iter().find_map(|&i| n.and_then(|n| n[i])) {
            let mut row = row.clone();
            row.file = flag(&row.file);
            body.not_run.push(row);
        }
    }
    let mut seen = BTreeSet::new();
    for r in &records {
        for u in &r.ledger.untested {
            if seen.insert(u.id.clone()) {
                body.untested.push(u.clone());
            }
        }
    }
    for r in &records {
        for f in &r.ledger.ungraded {
            if !body.ungraded.contains(f) {
                body.ungraded.push(f.clone());
            }
        }
    }
    (body, stale)
}

/// `FIDELITY.md` from `records` (by paper, short before full): what ran each paper in each
/// mode, the tally over all, then each paper's section, its records merged.
pub(crate) fn render(records: &[PaperRecord]) -> String {
    let mut s = format!(
        "# FIDELITY: the papers' claims beside dctc's figures\n\n{FIDELITY_MARK}\n\n\
         Each paper's part comes from the runs named below, one record per mode: \
         `{RECORDS_DIR}/<paper>.json` (short: the short scenario files) and \
         `{RECORDS_DIR}/<paper>.full.json` (full: `X.full.toml` where it exists, else the short \
         `X.toml`). A row of a full file is graded by the full run, a row of a short file by the \
         short run, a `claims.toml` row by the full run where there is one (its `run` cell says \
         which); each row is counted once. `dctc ledger --paper P --fidelity FIDELITY.md` reruns \
         one paper and rewrites its short record (add `--full` for its full record); \
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
    let wall = |full: bool| -> f64 {
        records
            .iter()
            .filter(|r| r.is_full() == full)
            .map(|r| r.wall_s)
            .sum()
    };
    let _ = writeln!(
        s,
        "\nWall time of every paper's runs together: short {:.1} s, full {:.1} s.\n",
        wall(false),
        wall(true)
    );
    let mut papers: Vec<(String, Body, usize, Vec<String>)> = Vec::new();
    for r in records {
        if papers.last().is_some_and(|p| p.0 == r.paper) {
            continue;
        }
        let of = |full: bool| {
            records
                .iter()
                .find(|x| x.paper == r.paper && x.is_full() == full)
        };
        let (short, full) = (of(false), of(true));
        let (body, stale) = merge(short, full);
        let notes = [short, full]
            .into_iter()
            .flatten()
            .flat_map(|x| x.notes.iter().map(move |n| format!("{} run: {n}", x.mode)))
            .collect();
        papers.push((r.paper.clone(), body, stale, notes));
    }
    let stale: usize = papers.iter().map(|p| p.2).sum();
    if stale > 0 {
        let _ = writeln!(
            s,
            "**{stale} rows are flagged stale**: a paper's short and full records disagree on them \
             (a scenario's rows changed after the older run); regrade it.\n"
        );
    }
    let tallies: Vec<(String, Tally)> = papers
        .iter()
        .map(|(p, b, _, _)| (p.clone(), b.tally()))
        .collect();
    s.push_str(&summary_markdown(
        "Mode: per row, as its `run` cell says (short: the short scenario files; full: \
         `X.full.toml` where it exists, else the short `X.toml`).",
        &tallies,
    ));
    for (paper, body, stale, mut notes) in papers {
        if stale > 0 {
            notes.push(format!(
                "**{stale} rows flagged stale**: this paper's short and full records disagree on them."
            ));
        }
        s.push_str(&body.section_markdown(&paper, &notes));
    }
    s
}

/// Writes `records` (replacing those papers' records in their modes) and renders `path` from
/// every record beside it. Returns the files written.
pub(crate) fn write(path: &Path, records: &[PaperRecord]) -> Result<Vec<PathBuf>> {
    let dir = records_dir(path);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::new();
    for r in records {
        let file = dir.join(r.file_name());
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

    fn graded(id: &str, verdict: &str, run: &str) -> GradedRow {
        GradedRow {
            id: id.into(),
            figure: "Fig. 1".into(),
            claim: format!("claim {id}"),
            kind: "value".into(),
            paper: "10".into(),
            ours: "9".into(),
            verdict: verdict.into(),
            run: run.into(),
            reason: match verdict {
                "holds" => String::new(),
                _ => "(b) see scenarios/p/README.md#x".into(),
            },
            self_check: false,
        }
    }

    fn not_run(id: &str, file: &str) -> NotRunRow {
        NotRunRow {
            id: id.into(),
            figure: "Fig. 1".into(),
            claim: format!("claim {id}"),
            kind: "value".into(),
            paper: "10".into(),
            file: file.into(),
        }
    }

    /// A record of paper `paper` in `mode` with `holds` holding rows and one explained miss
    /// (ids `<paper>/s#n`).
    fn record(paper: &str, holds: usize) -> PaperRecord {
        let mut rows: Vec<GradedRow> = (1..=holds)
            .map(|i| graded(&format!("{paper}/s#{i}"), "holds", "short: s.toml"))
            .collect();
        rows.push(graded(
            &format!("{paper}/s#{}", holds + 1),
            "misses",
            "short: s.toml",
        ));
        PaperRecord {
            paper: paper.into(),
            mode: "short".into(),
            commit: "abc1234".into(),
            version: "0.1.0".into(),
            command: format!("dctc ledger --paper {paper} --fidelity FIDELITY.md"),
            date: "2026-11-28 03:00 UTC".into(),
            wall_s: 1.5,
            notes: Vec::new(),
            ledger: Body {
                rows,
                ..Body::default()
            },
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
        // A full record of a sits beside its short one: the short one stays.
        let mut full = record("a", 2);
        full.mode = "full".into();
        full.wall_s = 100.0;
        write(&path, &[full]).unwrap();
        assert!(dir.join(RECORDS_DIR).join("a.json").is_file());
        assert!(dir.join(RECORDS_DIR).join("a.full.json").is_file());
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("Wall time of every paper's runs together: short 3.0 s, full 100.0 s."),
            "{text}"
        );
        // Its rows are short-file rows, graded by the short record, counted once.
        assert!(text.contains("**11 paper claims graded: 9 hold"), "{text}");
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

    /// Paper p: a short file `s` (2 rows), a scenario `f` with a short and a full file (1 row
    /// each) and a claims row; the short record grades s, f and the claim, the full record s,
    /// f.full and the claim.
    fn short_and_full() -> (PaperRecord, PaperRecord) {
        let mut short = record("p", 0);
        short.ledger = Body {
            rows: vec![
                graded("p/f#1", "holds", "short: p/f.toml"),
                graded("p/s#1", "holds", "short: p/s.toml"),
                graded("p/s#2", "misses", "short: p/s.toml"),
                graded("p/claims#1", "misses", "short: p/claims.toml"),
            ],
            not_run: vec![not_run("p/f.full#1", "p/f.full.toml")],
            ..Body::default()
        };
        let mut full = record("p", 0);
        full.mode = "full".into();
        full.ledger = Body {
            rows: vec![
                graded("p/f.full#1", "misses", "full: p/f.full.toml"),
                // The full run grades the short file too (it has no full file): the same
                // row, here with another verdict, to see which record grades it.
                graded("p/s#1", "misses", "full: p/s.toml"),
                graded("p/s#2", "misses", "full: p/s.toml"),
                graded("p/claims#1", "holds", "short+full: p/claims.toml"),
            ],
            not_run: vec![not_run("p/f#1", "p/f.toml")],
            ..Body::default()
        };
        (short, full)
    }

    fn verdicts(b: &Body) -> Vec<(String, String, String)> {
        b.rows
            .iter()
            .map(|r| (r.id.clone(), r.verdict.clone(), r.run.clone()))
            .collect()
    }

    #[test]
    fn each_row_is_graded_by_the_record_of_its_files_mode_and_counted_once() {
        let (short, full) = short_and_full();
        let (b, stale) = merge(Some(&short), Some(&full));
        assert_eq!(stale, 0);
        let v = |id: &str, verdict: &str, run: &str| (id.into(), verdict.into(), run.into());
        assert_eq!(
            verdicts(&b),
            [
                v("p/f#1", "holds", "short: p/f.toml"),
                v("p/f.full#1", "misses", "full: p/f.full.toml"),
                v("p/s#1", "holds", "short: p/s.toml"),
                v("p/s#2", "misses", "short: p/s.toml"),
                v("p/claims#1", "holds", "short+full: p/claims.toml"),
            ]
        );
        assert!(b.not_run.is_empty());
        let t = b.tally();
        assert_eq!((t.holds, t.misses_explained, t.not_run), (3, 2, 0));
        // The rendered file: both records named, each row once, stable byte for byte.
        let text = render(&[short.clone(), full.clone()]);
        assert_eq!(text, render(&[short, full]));
        assert!(text.contains("| p | short |") && text.contains("| p | full |"));
        assert!(text.contains("**5 paper claims graded: 3 hold"), "{text}");
        assert_eq!(text.matches("| p/s#1 |").count(), 1);
    }

    #[test]
    fn a_same_winner_ratio_counts_as_explained_only_with_a_reason() {
        let mut unexplained = graded("p/s#2", "same winner", "short: p/s.toml");
        unexplained.reason = super::super::ledger::UNEXPLAINED.into();
        let body = Body {
            rows: vec![
                graded("p/s#1", "same winner", "short: p/s.toml"),
                unexplained,
                graded("p/s#3", "misses", "short: p/s.toml"),
            ],
            ..Body::default()
        };
        let t = body.tally();
        assert_eq!((t.same_winner, t.same_winner_unexplained), (2, 1));
        assert_eq!((t.misses_explained, t.misses_unexplained), (1, 0));
        assert!(
            t.line().contains(
                "2 same winner (1 explained, 1 unexplained), 1 miss (1 explained, 0 unexplained)"
            ),
            "{}",
            t.line()
        );
    }

    #[test]
    fn a_claim_the_full_run_could_not_read_is_graded_by_the_short_run() {
        let (short, mut full) = short_and_full();
        // The full run left f.full out (--skip): the claim's metric is absent there.
        full.ledger.rows[3].verdict = "missing".into();
        full.ledger.rows[3].run = "short: p/claims.toml".into();
        let (b, _) = merge(Some(&short), Some(&full));
        let claim = b.rows.iter().find(|r| r.id == "p/claims#1").unwrap();
        assert_eq!(claim, &short.ledger.rows[3]);
        // Missing in both: the row stays, missing (a failure), from the full record.
        let mut short = short;
        short.ledger.rows[3].verdict = "missing".into();
        let (b, _) = merge(Some(&short), Some(&full));
        let claim = b.rows.iter().find(|r| r.id == "p/claims#1").unwrap();
        assert_eq!(claim, &full.ledger.rows[3]);
        assert_eq!(b.tally().missing, 1);
    }

    #[test]
    fn without_a_full_record_the_full_files_rows_are_not_run() {
        let (short, full) = short_and_full();
        let (b, stale) = merge(Some(&short), None);
        assert_eq!(stale, 0);
        assert_eq!(b.rows, short.ledger.rows);
        assert_eq!(b.not_run, short.ledger.not_run);
        assert_eq!(b.tally().not_run, 1);
        let text = render(std::slice::from_ref(&short));
        assert!(text.contains("Rows no run here graded"), "{text}");
        assert!(text.contains("| p/f.full#1 |"), "{text}");
        // And without a short record the full one grades what it ran, the short file of
        // f listed as not run.
        let (b, _) = merge(None, Some(&full));
        assert_eq!(b.rows.len(), 4);
        assert_eq!(b.not_run[0].id, "p/f#1");
    }

    #[test]
    fn rows_the_two_records_disagree_on_are_flagged_stale_not_dropped() {
        let (mut short, full) = short_and_full();
        // After the full run, f.full gained a row and its first row's claim changed; the
        // short record (newer) says so, the full one does not know.
        short
            .ledger
            .not_run
            .push(not_run("p/f.full#2", "p/f.full.toml"));
        short.ledger.not_run[0].paper = "12".into();
        let (b, stale) = merge(Some(&short), Some(&full));
        assert_eq!(stale, 2);
        let row = b.rows.iter().find(|r| r.id == "p/f.full#1").unwrap();
        assert_eq!(
            row.run,
            "full: p/f.full.toml (stale: the short and full records read this row differently; regrade)"
        );
        assert_eq!(b.not_run.len(), 1);
        assert_eq!(
            b.not_run[0].file,
            "p/f.full.toml (stale: only the short record has this row; regrade)"
        );
        let text = render(&[short, full]);
        assert!(text.contains("**2 rows are flagged stale**"), "{text}");
        assert!(text.contains("| p/f.full#2 |"), "{text}");
    }

    #[test]
    fn an_older_record_with_a_markdown_section_is_read_row_by_row() {
        let (short, _) = short_and_full();
        let mut body = short.ledger.clone();
        body.rows[1].reason = "self check".into();
        body.rows[1].verdict = "misses".into();
        body.rows[1].self_check = true;
        // A holding self check, which the older format does not mark.
        body.rows[0].self_check = true;
        body.ungraded = vec!["p/x.toml".into(), "p/y.toml".into()];
        body.untested = vec![super::super::ledger::UntestedRow {
            id: "p/untested#1".into(),
            figure: "Fig. 9".into(),
            headline: "a | b".into(),
            reason: "testbed".into(),
        }];
        let section = body.section_markdown("p", &[]);
        let legacy = serde_json::json!({
            "paper": "p", "mode": "short", "commit": "abc", "version": "0.1.0",
            "command": "dctc ledger", "date": "2026-11-28 03:00 UTC", "wall_s": 1.0,
            "tally": body.tally(), "section": section,
        });
        let no_scenarios = Path::new("/nonexistent");
        let r = parse_record(&legacy.to_string(), no_scenarios).unwrap();
        let mut expected = body.clone();
        expected.rows[0].self_check = false;
        assert_eq!(r.ledger, expected);
        let checks: BTreeSet<String> = ["p/f#1".to_string()].into();
        assert_eq!(body_of_section(&section, &checks), body);
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
