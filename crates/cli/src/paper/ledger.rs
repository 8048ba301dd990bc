//! The ledger: every `[[paper]]` row of every scenario of a paper, its cross-file claims
//! (`scenarios/<paper>/claims.toml`) and its untested headlines, graded in one table with a
//! tally. `dctc reproduce PAPER` prints its paper's; `dctc ledger` runs every paper's scenarios
//! and writes `ledger.md`, `ledger.json` and `report.html` (and, with `--fidelity`, the
//! repository's `FIDELITY.md`).
//!
//! Row ids are stable: `<paper>/<file stem>#<n>` (`flowtune/comparison-web#2`,
//! `fq-codel/tweaked-0.01.full#1`; n counts the file's `[[paper]]` rows from 1),
//! `<paper>/claims#<n>` and `<paper>/untested#<n>`.

use super::claims::{parse_row, MetricRef, Row, Verdict};
use super::lookup;
use crate::parse::{parse_value, ScenarioError};
use anyhow::{bail, Context, Result};
use dctc_report::{Cell, Report, Section, Table};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The name of a paper's cross-file claims.
pub(crate) const CLAIMS_FILE: &str = "claims.toml";

/// Which file of each scenario a run takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Selection {
    /// The short files (`X.toml`).
    Short,
    /// Only the full files (`X.full.toml`): `dctc reproduce --full`.
    FullOnly,
    /// `X.full.toml` where it exists, else `X.toml`: `dctc ledger --full`.
    FullWhereExists,
}

/// One scenario file of a paper's folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ScenarioFile {
    /// The file name without `.toml` (`tweaked-0.01.full`): row ids use it.
    pub(crate) stem: String,
    /// Without `.full` too (`tweaked-0.01`): claims.toml names scenarios by it.
    pub(crate) base: String,
    /// A `*.full.toml` file.
    pub(crate) full: bool,
    /// Its path.
    pub(crate) path: PathBuf,
}

impl ScenarioFile {
    /// "short" or "full".
    fn mode(&self) -> &'static str {
        if self.full {
            "full"
        } else {
            "short"
        }
    }
}

/// A `[[untested]]` entry: a headline dctc does not grade, and why.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Untested {
    /// The paper's headline.
    pub(crate) headline: String,
    /// Its figure or section.
    pub(crate) figure: String,
    /// Why dctc cannot (yet) grade it.
    pub(crate) reason: String,
}

/// A paper's `claims.toml`.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClaimsFile {
    /// Rows whose metrics name scenarios of the paper.
    pub(crate) rows: Vec<Row>,
    /// Headlines without a graded row.
    pub(crate) untested: Vec<Untested>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClaims {
    #[serde(default)]
    paper: Vec<toml::Value>,
    #[serde(default)]
    untested: Vec<toml::Value>,
}

/// A paper's folder: its scenario files and its claims.
#[derive(Clone, Debug)]
pub(crate) struct PaperDir {
    /// The folder's name (`fq-codel`).
    pub(crate) name: String,
    /// Its scenario files, sorted by name.
    pub(crate) files: Vec<ScenarioFile>,
    /// Its `claims.toml`, empty when there is none.
    pub(crate) claims: ClaimsFile,
}

/// The papers under `root`: every folder holding scenario files, sorted.
pub(crate) fn paper_names(root: &Path) -> Result<Vec<String>> {
    let mut papers: Vec<String> = std::fs::read_dir(root)
        .with_context(|| format!("cannot read {}", root.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    papers.sort();
    Ok(papers)
}

impl PaperDir {
    /// Lists `root/paper`'s scenario files and reads its `claims.toml`, whose scenario names
    /// must be files of the folder.
    pub(crate) fn scan(root: &Path, paper: &str) -> Result<PaperDir> {
        let dir = root.join(paper);
        if !dir.is_dir() {
            bail!(
                "no scenarios for `{paper}` in {}; papers: {}",
                root.display(),
                paper_names(root)?.join(", ")
            );
        }
        let files = scenario_files(&dir)?;
        let bases: BTreeSet<String> = files.iter().map(|f| f.base.clone()).collect();
        let claims_path = dir.join(CLAIMS_FILE);
        let claims = if claims_path.is_file() {
            load_claims(&claims_path, &bases)?
        } else {
            ClaimsFile::default()
        };
        Ok(PaperDir {
            name: paper.to_string(),
            files,
            claims,
        })
    }

    /// The files a run under `sel` takes, one per scenario.
    pub(crate) fn select(&self, sel: Selection) -> Vec<&ScenarioFile> {
        self.files
            .iter()
            .filter(|f| match sel {
                Selection::Short => !f.full,
                Selection::FullOnly => f.full,
                Selection::FullWhereExists => {
                    f.full || !self.files.iter().any(|g| g.full && g.base == f.base)
                }
            })
            .collect()
    }

    /// The scenarios (bases) the claims read.
    pub(crate) fn claimed_bases(&self) -> BTreeSet<String> {
        self.claims
            .rows
            .iter()
            .flat_map(|r| r.metrics().into_iter().filter_map(|m| m.scenario.clone()))
            .collect()
    }
}

/// The scenario files of a paper's folder (every `*.toml` but `claims.toml`), sorted.
fn scenario_files(dir: &Path) -> Result<Vec<ScenarioFile>> {
    let mut files: Vec<ScenarioFile> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy().into_owned();
            let stem = name.strip_suffix(".toml")?.to_string();
            if name == CLAIMS_FILE || !path.is_file() {
                return None;
            }
            let full = stem.ends_with(".full");
            let base = stem.strip_suffix(".full").unwrap_or(&stem).to_string();
            Some(ScenarioFile {
                stem,
                base,
                full,
                path,
            })
        })
        .collect();
    files.sort_by(|a, b| a.stem.cmp(&b.stem));
    Ok(files)
}

/// `dctc validate <paper>/claims.toml`: checks it against the scenarios of its folder.
/// Returns what it holds, in words.
pub(crate) fn validate_claims(path: &Path) -> Result<String> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let bases: BTreeSet<String> = scenario_files(dir)?.into_iter().map(|f| f.base).collect();
    let c = load_claims(path, &bases)?;
    Ok(format!(
        "{} cross-file claim(s), {} untested headline(s)",
        c.rows.len(),
        c.untested.len()
    ))
}

/// Reads and checks a `claims.toml`: its rows as scenario rows are checked (each metric
/// naming a scenario of `bases`), its `[[untested]]` entries complete.
pub(crate) fn load_claims(
    path: &Path,
    bases: &BTreeSet<String>,
) -> Result<ClaimsFile, ScenarioError> {
    let file = path.display().to_string();
    let text = dctc_core::input::read_input_file(path).map_err(|e| ScenarioError {
        file: file.clone(),
        key: String::new(),
        reason: format!("cannot read: {e}"),
    })?;
    parse_claims(&text, &file, bases)
}

/// [`load_claims`] on text; `file` names it in errors.
pub(crate) fn parse_claims(
    text: &str,
    file: &str,
    bases: &BTreeSet<String>,
) -> Result<ClaimsFile, ScenarioError> {
    let err = |key: String, reason: String| ScenarioError {
        file: file.to_string(),
        key,
        reason,
    };
    let raw: toml::Value = toml::from_str(text).map_err(|e| {
        err(
            String::new(),
            format!("not valid TOML: {}", e.to_string().trim()),
        )
    })?;
    let r: RawClaims = parse_value(&raw, "", file)?;
    let mut rows = Vec::new();
    for (i, v) in r.paper.iter().enumerate() {
        let key = format!("paper[{i}]");
        let row = parse_row(v, &key, file, true)?;
        let metrics = row.metrics();
        for (j, m) in metrics.iter().enumerate() {
            let s = m.scenario.as_deref().unwrap_or_default();
            if !bases.contains(s) {
                let known: Vec<&str> = bases.iter().map(String::as_str).collect();
                let field = match (row.kind(), metrics.len(), j) {
                    ("order" | "trend", _, _) => "metrics",
                    ("ratio", 2, 0) => "a",
                    ("ratio", 2, _) => "b",
                    _ => "metric",
                };
                return Err(err(
                    format!("{key}.{field}"),
                    format!(
                        "`{}` names no scenario of this paper's folder: {}",
                        m.text(),
                        dctc_core::error::unknown_name("scenario", s, &known)
                    ),
                ));
            }
        }
        rows.push(row);
    }
    let mut untested = Vec::new();
    for (i, v) in r.untested.iter().enumerate() {
        let key = format!("untested[{i}]");
        let u: Untested = parse_value(v, &key, file).map_err(|mut e| {
            if let Some(name) = e
                .reason
                .strip_prefix("missing field `")
                .and_then(|r| r.split('`').next())
            {
                e.key = format!("{key}.{name}");
                e.reason = format!("missing: an untested headline needs `headline`, `figure` and `reason` (`{name}` is absent)");
            }
            e
        })?;
        for (k, t) in [
            ("headline", &u.headline),
            ("figure", &u.figure),
            ("reason", &u.reason),
        ] {
            if t.trim().is_empty() {
                return Err(err(format!("{key}.{k}"), "must not be empty".into()));
            }
        }
        untested.push(u);
    }
    Ok(ClaimsFile { rows, untested })
}

/// A scenario that ran, for grading.
pub(crate) struct Run {
    /// Its file.
    pub(crate) file: ScenarioFile,
    /// Its rows.
    pub(crate) rows: Vec<Row>,
    /// Its full `summary.json`.
    pub(crate) summary: Value,
}

/// One graded row of the ledger.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// `<paper>/<stem>#<n>` or `<paper>/claims#<n>`.
    pub(crate) id: String,
    /// The row.
    pub(crate) row: Row,
    /// Its verdict.
    pub(crate) verdict: Verdict,
    /// Ours, as the table shows it.
    pub(crate) ours: String,
    /// "short", "full" or (a claims row over both) "short+full"; "not run" for rows of files
    /// this run did not take.
    pub(crate) run: String,
    /// The file, relative to the scenarios folder.
    pub(crate) file: String,
    /// Its JSON (the row's, with id, run and file).
    pub(crate) json: Value,
}

/// One paper's part of the ledger.
#[derive(Clone, Debug)]
pub(crate) struct PaperLedger {
    /// The paper's folder name.
    pub(crate) paper: String,
    /// Graded rows: every row of every file run, then the claims.
    pub(crate) entries: Vec<Entry>,
    /// Rows of files this run did not take (the other of short and full).
    pub(crate) not_run: Vec<Entry>,
    /// Untested headlines, with their ids.
    pub(crate) untested: Vec<(String, Untested)>,
    /// Scenario files without a `[[paper]]` row (run or not).
    pub(crate) ungraded: Vec<String>,
}

impl PaperLedger {
    /// Grades `runs` (the paper's scenarios that ran) and the paper's claims; `all` is every
    /// scenario file of the paper with its rows, so that rows of files that did not run are
    /// listed too.
    pub(crate) fn build(
        paper: &PaperDir,
        runs: &[Run],
        all: &[(ScenarioFile, Vec<Row>)],
    ) -> PaperLedger {
        let rel = |f: &ScenarioFile| {
            format!(
                "{}/{}",
                paper.name,
                f.path.file_name().unwrap_or_default().to_string_lossy()
            )
        };
        let mut entries = Vec::new();
        for run in runs {
            for (i, row) in run.rows.iter().enumerate() {
                let g = super::grade(row, &run.summary);
                entries.push(entry(
                    format!("{}/{}#{}", paper.name, run.file.stem, i + 1),
                    row,
                    g.verdict,
                    row.ours_text(&g),
                    &row.to_json(&g),
                    run.file.mode().into(),
                    rel(&run.file),
                ));
            }
        }
        let claims_file = format!("{}/{CLAIMS_FILE}", paper.name);
        for (i, row) in paper.claims.rows.iter().enumerate() {
            let run_of = |m: &MetricRef| {
                runs.iter()
                    .find(|r| Some(&r.file.base) == m.scenario.as_ref())
            };
            let g = row.grade(&|m| {
                run_of(m).and_then(|r| lookup(&r.summary, &m.path).and_then(Value::as_f64))
            });
            let modes: BTreeSet<&str> = row
                .metrics()
                .iter()
                .filter_map(|m| run_of(m).map(|r| r.file.mode()))
                .collect();
            let run = match modes.len() {
                0 => "not run".to_string(),
                1 => modes.into_iter().next().unwrap_or_default().to_string(),
                _ => "short+full".to_string(),
            };
            entries.push(entry(
                format!("{}/claims#{}", paper.name, i + 1),
                row,
                g.verdict,
                row.ours_text(&g),
                &row.to_json(&g),
                run,
                claims_file.clone(),
            ));
        }
        let ran: BTreeSet<&str> = runs.iter().map(|r| r.file.stem.as_str()).collect();
        let mut not_run = Vec::new();
        let mut ungraded = Vec::new();
        for (file, rows) in all {
            if rows.is_empty() {
                ungraded.push(rel(file));
            }
            if ran.contains(file.stem.as_str()) {
                continue;
            }
            for (i, row) in rows.iter().enumerate() {
                let mut json = row.to_json(&super::claims::Graded {
                    verdict: Verdict::Missing,
                    ours: None,
                    missing: Vec::new(),
                });
                if let Some(o) = json.as_object_mut() {
                    o.remove("ours");
                    o.remove("ours_text");
                    o.remove("verdict");
                }
                not_run.push(entry(
                    format!("{}/{}#{}", paper.name, file.stem, i + 1),
                    row,
                    Verdict::Missing,
                    String::new(),
                    &json,
                    "not run".into(),
                    rel(file),
                ));
            }
        }
        let untested = paper
            .claims
            .untested
            .iter()
            .enumerate()
            .map(|(i, u)| (format!("{}/untested#{}", paper.name, i + 1), u.clone()))
            .collect();
        PaperLedger {
            paper: paper.name.clone(),
            entries,
            not_run,
            untested,
            ungraded,
        }
    }

    /// The paper's rows as its table shows them: what `ledger.md` prints and a
    /// `FIDELITY.md` record keeps.
    pub(crate) fn body(&self) -> Body {
        Body {
            rows: self
                .entries
                .iter()
                .map(|e| GradedRow {
                    id: e.id.clone(),
                    figure: e.row.figure.clone(),
                    claim: e.row.label.clone(),
                    kind: e.row.kind().into(),
                    paper: e.row.paper_text(),
                    ours: e.ours.clone(),
                    verdict: e.verdict.label().into(),
                    run: format!("{}: {}", e.run, e.file),
                    reason: reason(e),
                    self_check: e.row.self_check,
                })
                .collect(),
            not_run: self
                .not_run
                .iter()
                .map(|e| NotRunRow {
                    id: e.id.clone(),
                    figure: e.row.figure.clone(),
                    claim: e.row.label.clone(),
                    kind: e.row.kind().into(),
                    paper: e.row.paper_text(),
                    file: e.file.clone(),
                })
                .collect(),
            untested: self
                .untested
                .iter()
                .map(|(id, u)| UntestedRow {
                    id: id.clone(),
                    figure: u.figure.clone(),
                    headline: u.headline.clone(),
                    reason: u.reason.clone(),
                })
                .collect(),
            ungraded: self.ungraded.clone(),
        }
    }

    /// The paper's section of `ledger.md`.
    pub(crate) fn section_markdown(&self) -> String {
        self.body().section_markdown(&self.paper, &[])
    }

    /// The paper's part of `ledger.json`.
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "paper": self.paper,
            "tally": Tally::of(std::slice::from_ref(self)).to_json(),
            "rows": self.entries.iter().map(|e| e.json.clone()).collect::<Vec<_>>(),
            "untested": self.untested.iter().map(|(id, u)| json!({
                "id": id, "headline": u.headline, "figure": u.figure, "reason": u.reason,
            })).collect::<Vec<_>>(),
            "not_run": self.not_run.iter().map(|e| e.json.clone()).collect::<Vec<_>>(),
            "ungraded_scenarios": self.ungraded,
        })
    }

    /// The ledger table (graded rows).
    pub(crate) fn table(&self) -> Table {
        self.body().table(&self.paper)
    }

    /// The ledger table as the HTML report shows it, narrow enough for a page: the id without
    /// the paper (the section names it), the figure before the claim, no reason column (see
    /// [`PaperLedger::reasons_table`]).
    pub(crate) fn html_table(&self) -> Table {
        let mut t = Table::new(
            format!("{}: the paper's claims beside ours", self.paper),
            ["id", "claim", "kind", "paper", "ours", "verdict", "run"],
        );
        let prefix = format!("{}/", self.paper);
        for e in &self.entries {
            t.push_row(
                [
                    e.id.strip_prefix(&prefix).unwrap_or(&e.id).to_string(),
                    format!("{}: {}", e.row.figure, e.row.label),
                    e.row.kind().into(),
                    e.row.paper_text(),
                    e.ours.clone(),
                    e.verdict.label().into(),
                    e.run.clone(),
                ]
                .map(Cell::Text)
                .to_vec(),
            );
        }
        t
    }

    /// Every row that does not hold, with its reason (None when all hold).
    pub(crate) fn reasons_table(&self) -> Option<Table> {
        let mut t = Table::new(
            format!("{}: why rows do not hold", self.paper),
            ["id", "verdict", "reason"],
        );
        for e in self.entries.iter().filter(|e| e.verdict != Verdict::Holds) {
            t.push_row(
                [e.id.clone(), e.verdict.label().into(), reason(e)]
                    .map(Cell::Text)
                    .to_vec(),
            );
        }
        (!t.rows.is_empty()).then_some(t)
    }

    /// The untested headlines (None when there are none).
    pub(crate) fn untested_table(&self) -> Option<Table> {
        self.body().untested_table(&self.paper)
    }

    /// Rows of files this run did not take (None when there are none).
    pub(crate) fn not_run_table(&self) -> Option<Table> {
        self.body().not_run_table(&self.paper)
    }

    /// [`PaperLedger::not_run_table`] as the HTML report shows it, narrow enough for a page:
    /// the id (which names the file) without the paper, the figure before the claim.
    pub(crate) fn html_not_run_table(&self) -> Option<Table> {
        let mut t = self.not_run_table()?;
        t.columns = ["id", "claim", "kind", "paper"].map(String::from).to_vec();
        let prefix = format!("{}/", self.paper);
        for (row, e) in t.rows.iter_mut().zip(&self.not_run) {
            *row = [
                e.id.strip_prefix(&prefix).unwrap_or(&e.id).to_string(),
                format!("{}: {}", e.row.figure, e.row.label),
                e.row.kind().into(),
                e.row.paper_text(),
            ]
            .map(Cell::Text)
            .to_vec();
        }
        Some(t)
    }

    /// The paper's ledger as console text: the table, the untested headlines and the tally.
    pub(crate) fn to_text(&self) -> String {
        let mut s = format!("\nLedger of {}\n{}", self.paper, self.table().to_text());
        if let Some(t) = self.untested_table() {
            s.push('\n');
            s.push_str(&t.to_text());
        }
        if !self.ungraded.is_empty() {
            let _ = writeln!(
                s,
                "\nScenario files without a [[paper]] row: {}",
                self.ungraded.join(", ")
            );
        }
        let _ = writeln!(s, "\n{}", Tally::of(std::slice::from_ref(self)).line());
        s
    }
}

fn entry(
    id: String,
    row: &Row,
    verdict: Verdict,
    ours: String,
    json: &Value,
    run: String,
    file: String,
) -> Entry {
    let mut j = json!({ "id": id });
    if let (Some(o), Some(r)) = (j.as_object_mut(), json.as_object()) {
        o.extend(r.clone());
        o.insert("run".into(), json!(run));
        o.insert("file".into(), json!(file));
    }
    Entry {
        id,
        row: row.clone(),
        verdict,
        ours,
        run,
        file,
        json: j,
    }
}

/// The reason column: empty for a hold, the row's `miss_reason`, or "unexplained".
fn reason(e: &Entry) -> String {
    match (e.verdict, &e.row.miss_reason) {
        (Verdict::Holds, _) => String::new(),
        (_, _) if e.row.self_check => "self check".into(),
        (_, Some(r)) => r.clone(),
        (_, None) => UNEXPLAINED.into(),
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A graded row as a ledger table shows it, cell by cell (a `FIDELITY.md` record keeps these).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GradedRow {
    /// `<paper>/<stem>#<n>` or `<paper>/claims#<n>`.
    pub(crate) id: String,
    /// The paper's figure or section.
    pub(crate) figure: String,
    /// The row's label.
    pub(crate) claim: String,
    /// value, range, bound, ratio, order or trend.
    pub(crate) kind: String,
    /// The paper's figure, as the table prints it.
    pub(crate) paper: String,
    /// Ours, as the table prints it.
    pub(crate) ours: String,
    /// The verdict's label.
    pub(crate) verdict: String,
    /// `<mode>: <file>`: the run that graded it.
    pub(crate) run: String,
    /// Empty for a hold, else the miss reason, "self check" or "unexplained".
    pub(crate) reason: String,
    /// A self check (dctc against itself), tallied apart from the paper's claims.
    #[serde(default, skip_serializing_if = "is_false")]
    pub(crate) self_check: bool,
}

/// A row of a file the run did not take.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NotRunRow {
    /// `<paper>/<stem>#<n>`.
    pub(crate) id: String,
    /// The paper's figure or section.
    pub(crate) figure: String,
    /// The row's label.
    pub(crate) claim: String,
    /// Its kind.
    pub(crate) kind: String,
    /// The paper's figure, as the table prints it.
    pub(crate) paper: String,
    /// The file, relative to the scenarios folder.
    pub(crate) file: String,
}

/// An untested headline, with its id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UntestedRow {
    /// `<paper>/untested#<n>`.
    pub(crate) id: String,
    /// The paper's figure or section.
    pub(crate) figure: String,
    /// The headline.
    pub(crate) headline: String,
    /// Why dctc does not grade it.
    pub(crate) reason: String,
}

/// A paper's part of a ledger as its tables show it: what `ledger.md` prints, what a
/// `FIDELITY.md` record keeps, and what [`super::fidelity`] merges a paper's short and full
/// records into.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Body {
    /// Graded rows, in ledger order.
    pub(crate) rows: Vec<GradedRow>,
    /// Rows of files not run.
    pub(crate) not_run: Vec<NotRunRow>,
    /// Untested headlines.
    pub(crate) untested: Vec<UntestedRow>,
    /// Scenario files without a `[[paper]]` row.
    pub(crate) ungraded: Vec<String>,
}

impl Body {
    /// Its verdicts, each row once.
    pub(crate) fn tally(&self) -> Tally {
        let mut t = Tally::default();
        for r in &self.rows {
            let holds = r.verdict == Verdict::Holds.label();
            match (r.self_check, r.verdict.as_str()) {
                (true, _) if holds => t.checks_hold += 1,
                (true, _) => t.checks_fail += 1,
                (false, _) if holds => t.holds += 1,
                (false, v) if v == Verdict::SameWinner.label() => {
                    t.same_winner += 1;
                    if r.reason == UNEXPLAINED {
                        t.same_winner_unexplained += 1;
                    }
                }
                (false, v) if v == Verdict::Misses.label() => {
                    if r.reason == UNEXPLAINED {
                        t.misses_unexplained += 1;
                    } else {
                        t.misses_explained += 1;
                    }
                }
                (false, _) => t.missing += 1,
            }
        }
        t.untested = self.untested.len();
        t.not_run = self.not_run.len();
        t
    }

    /// The graded rows' table.
    pub(crate) fn table(&self, paper: &str) -> Table {
        let mut t = Table::new(
            format!("{paper}: the paper's claims beside ours"),
            [
                "id", "figure", "claim", "kind", "paper", "ours", "verdict", "run", "reason",
            ],
        );
        for r in &self.rows {
            t.push_row(
                [
                    &r.id, &r.figure, &r.claim, &r.kind, &r.paper, &r.ours, &r.verdict, &r.run,
                    &r.reason,
                ]
                .map(|c| Cell::Text(c.clone()))
                .to_vec(),
            );
        }
        t
    }

    /// The untested headlines (None when there are none).
    pub(crate) fn untested_table(&self, paper: &str) -> Option<Table> {
        if self.untested.is_empty() {
            return None;
        }
        let mut t = Table::new(
            format!("{paper}: headlines dctc does not grade"),
            ["id", "figure", "headline", "reason"],
        );
        for u in &self.untested {
            t.push_row(
                [&u.id, &u.figure, &u.headline, &u.reason]
                    .map(|c| Cell::Text(c.clone()))
                    .to_vec(),
            );
        }
        Some(t)
    }

    /// Rows of files not run (None when there are none).
    pub(crate) fn not_run_table(&self, paper: &str) -> Option<Table> {
        if self.not_run.is_empty() {
            return None;
        }
        let mut t = Table::new(
            format!("{paper}: rows of files this run did not take (the other of short and full)"),
            ["id", "figure", "claim", "kind", "paper", "file"],
        );
        for r in &self.not_run {
            t.push_row(
                [&r.id, &r.figure, &r.claim, &r.kind, &r.paper, &r.file]
                    .map(|c| Cell::Text(c.clone()))
                    .to_vec(),
            );
        }
        Some(t)
    }

    /// The paper's markdown section: its tally, `notes` (a paragraph each), its rows, its
    /// untested headlines and the rows no run graded.
    pub(crate) fn section_markdown(&self, paper: &str, notes: &[String]) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "\n## {paper}\n\n{}\n", self.tally().line());
        for n in notes {
            let _ = writeln!(s, "{n}\n");
        }
        s.push_str(&md_table(&self.table(paper)));
        if let Some(t) = self.untested_table(paper) {
            let _ = writeln!(s, "\nHeadlines dctc does not grade:\n");
            s.push_str(&md_table(&t));
        }
        if !self.ungraded.is_empty() {
            let _ = writeln!(
                s,
                "\nScenario files without a `[[paper]]` row: {}.",
                self.ungraded
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if let Some(t) = self.not_run_table(paper) {
            let _ = writeln!(
                s,
                "\nRows no run here graded (files of the other of short and full, or left out of the run):\n"
            );
            s.push_str(&md_table(&t));
        }
        s
    }
}

/// The reason column of a miss or a same-winner ratio without a `miss_reason`.
pub(crate) const UNEXPLAINED: &str = "unexplained";

/// Counts of verdicts over one paper or all.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Tally {
    /// Paper claims that hold.
    pub(crate) holds: usize,
    /// Ratios with the paper's winner, by another size.
    pub(crate) same_winner: usize,
    /// Of those, the ones without a `miss_reason` saying why the size differs.
    #[serde(default)]
    pub(crate) same_winner_unexplained: usize,
    /// Misses with a `miss_reason`.
    pub(crate) misses_explained: usize,
    /// Misses without one.
    pub(crate) misses_unexplained: usize,
    /// Rows whose metric is absent.
    pub(crate) missing: usize,
    /// Headlines without a graded row.
    pub(crate) untested: usize,
    /// Rows of files this run did not take.
    pub(crate) not_run: usize,
    /// Self checks (dctc against itself) that hold.
    pub(crate) checks_hold: usize,
    /// Self checks that fail.
    pub(crate) checks_fail: usize,
}

impl Tally {
    /// Counts over `papers`.
    pub(crate) fn of(papers: &[PaperLedger]) -> Tally {
        papers.iter().fold(Tally::default(), |mut t, p| {
            t.add(&p.body().tally());
            t
        })
    }

    /// Adds `other`'s counts to these.
    pub(crate) fn add(&mut self, other: &Tally) {
        self.holds += other.holds;
        self.same_winner += other.same_winner;
        self.same_winner_unexplained += other.same_winner_unexplained;
        self.misses_explained += other.misses_explained;
        self.misses_unexplained += other.misses_unexplained;
        self.missing += other.missing;
        self.untested += other.untested;
        self.not_run += other.not_run;
        self.checks_hold += other.checks_hold;
        self.checks_fail += other.checks_fail;
    }

    /// Graded paper claims (self checks apart).
    pub(crate) fn graded(&self) -> usize {
        self.holds + self.same_winner + self.misses() + self.missing
    }

    /// Same-winner ratios with a `miss_reason`.
    pub(crate) fn same_winner_explained(&self) -> usize {
        self.same_winner - self.same_winner_unexplained
    }

    /// Misses, explained or not.
    pub(crate) fn misses(&self) -> usize {
        self.misses_explained + self.misses_unexplained
    }

    /// "N paper claims graded: ... untested headlines", the counts every summary leads with.
    fn counts(&self) -> String {
        format!(
            "{} paper claims graded: {} hold, {} same winner ({} explained, {} unexplained), {} miss ({} explained, {} unexplained), {} missing; {} untested headlines",
            self.graded(),
            self.holds,
            self.same_winner,
            self.same_winner_explained(),
            self.same_winner_unexplained,
            self.misses(),
            self.misses_explained,
            self.misses_unexplained,
            self.missing,
            self.untested,
        )
    }

    /// One line.
    pub(crate) fn line(&self) -> String {
        let mut s = format!("Tally: {}", self.counts());
        if self.checks_hold + self.checks_fail > 0 {
            let _ = write!(
                s,
                "; self checks (dctc against itself, not paper claims): {} hold, {} fail",
                self.checks_hold, self.checks_fail
            );
        }
        if self.not_run > 0 {
            let _ = write!(s, "; rows of files not run: {}", self.not_run);
        }
        s
    }

    fn to_json(&self) -> Value {
        json!({
            "graded": self.graded(),
            "holds": self.holds,
            "same_winner": self.same_winner,
            "same_winner_explained": self.same_winner_explained(),
            "same_winner_unexplained": self.same_winner_unexplained,
            "misses": self.misses(),
            "misses_explained": self.misses_explained,
            "misses_unexplained": self.misses_unexplained,
            "missing": self.missing,
            "untested": self.untested,
            "self_checks_hold": self.checks_hold,
            "self_checks_fail": self.checks_fail,
            "not_run": self.not_run,
        })
    }
}

/// The whole ledger: the mode it ran in and each paper's part.
pub(crate) struct Ledger {
    /// "short" or "full" (`X.full.toml` where it exists).
    pub(crate) mode: &'static str,
    /// The papers, in the order given.
    pub(crate) papers: Vec<PaperLedger>,
}

/// Escapes a markdown table cell.
fn md(s: &str) -> String {
    s.replace('|', "\\|")
}

fn md_table(t: &Table) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| {} |",
        t.columns
            .iter()
            .map(|c| md(c))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(s, "|{}", "---|".repeat(t.columns.len()));
    for r in &t.rows {
        let _ = writeln!(
            s,
            "| {} |",
            r.iter()
                .map(|c| md(&c.display()))
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    s
}

/// The head of `ledger.md` and `FIDELITY.md`: `mode` (a line saying which runs graded the
/// rows), the tally over every paper, a table per paper and the grading rule.
pub(crate) fn summary_markdown(mode: &str, papers: &[(String, Tally)]) -> String {
    let tally = papers.iter().fold(Tally::default(), |mut sum, (_, t)| {
        sum.add(t);
        sum
    });
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{mode} A row's id names its file: `<paper>/<stem>#<n>` is the n-th `[[paper]]` row of `scenarios/<paper>/<stem>.toml`, `<paper>/claims#<n>` and `<paper>/untested#<n>` are entries of `scenarios/<paper>/claims.toml`; `run` says which runs graded it.\n"
    );
    let _ = writeln!(s, "**{}.**", tally.counts());
    if tally.checks_hold + tally.checks_fail > 0 {
        let _ = writeln!(
            s,
            "\nSelf checks (dctc against itself, not paper claims): {} hold, {} fail.",
            tally.checks_hold, tally.checks_fail
        );
    }
    if tally.not_run > 0 {
        let _ = writeln!(
            s,
            "\n{} rows belong to files no run here took; they are listed under each paper, ungraded.",
            tally.not_run
        );
    }
    s.push('\n');
    let mut per = Table::new(
        "Per paper",
        [
            "paper",
            "graded",
            "holds",
            "same winner (explained)",
            "misses (explained)",
            "missing",
            "untested",
        ],
    );
    for (paper, t) in papers {
        per.push_row(
            [
                paper.clone(),
                t.graded().to_string(),
                t.holds.to_string(),
                format!("{} ({})", t.same_winner, t.same_winner_explained()),
                format!("{} ({})", t.misses(), t.misses_explained),
                t.missing.to_string(),
                t.untested.to_string(),
            ]
            .map(Cell::Text)
            .to_vec(),
        );
    }
    s.push_str(&md_table(&per));
    let _ = writeln!(s, "\n{}", super::claims::RULE);
    s
}

impl Ledger {
    /// `ledger.json`: deterministic (no times, no commit).
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "mode": self.mode,
            "rule": super::claims::RULE,
            "tally": Tally::of(&self.papers).to_json(),
            "papers": self.papers.iter().map(PaperLedger::to_json).collect::<Vec<_>>(),
        })
    }

    /// `ledger.md`: the tally over every paper, then each paper's section.
    pub(crate) fn to_markdown(&self) -> String {
        let mode = format!(
            "Mode: **{}** ({}).",
            self.mode,
            if self.mode == "short" {
                "the short scenario files; `--full` takes `X.full.toml` where it exists"
            } else {
                "`X.full.toml` where it exists, else the short `X.toml`"
            }
        );
        let tallies: Vec<(String, Tally)> = self
            .papers
            .iter()
            .map(|p| (p.paper.clone(), Tally::of(std::slice::from_ref(p))))
            .collect();
        let mut s = summary_markdown(&mode, &tallies);
        for p in &self.papers {
            s.push_str(&p.section_markdown());
        }
        s
    }

    /// `report.html`: the tally, then a section per paper.
    pub(crate) fn report(&self) -> Report {
        let tally = Tally::of(&self.papers);
        let mut r = Report::new(
            "dctc ledger: the papers' claims beside ours",
            format!("{} runs; every row of every scenario, each paper's cross-file claims and untested headlines", self.mode),
        );
        r.meta = format!(
            "dctc {} (commit {})",
            crate::provenance::VERSION,
            crate::provenance::COMMIT
        );
        let mut top = Section::new("Tally")
            .with_paragraph(tally.line())
            .with_paragraph(super::claims::RULE)
            .with_paragraph(
                "A row's id names its file: <paper>/<stem>#<n> is the n-th [[paper]] row of \
                 scenarios/<paper>/<stem>.toml; <paper>/claims#<n> and <paper>/untested#<n> are \
                 entries of scenarios/<paper>/claims.toml. \"run\" says which runs graded it \
                 (short, full, or both for a claim across files).",
            );
        let mut per = Table::new(
            "Per paper",
            [
                "paper",
                "graded",
                "holds",
                "same winner",
                "same winner explained",
                "misses",
                "misses explained",
                "missing",
                "untested",
            ],
        );
        for p in &self.papers {
            let t = Tally::of(std::slice::from_ref(p));
            per.push_row(vec![
                Cell::Text(p.paper.clone()),
                Cell::Num(t.graded() as f64),
                Cell::Num(t.holds as f64),
                Cell::Num(t.same_winner as f64),
                Cell::Num(t.same_winner_explained() as f64),
                Cell::Num(t.misses() as f64),
                Cell::Num(t.misses_explained as f64),
                Cell::Num(t.missing as f64),
                Cell::Num(t.untested as f64),
            ]);
        }
        top.push_table(per);
        r.push_section(top);
        for p in &self.papers {
            let mut sec = Section::new(p.paper.clone()).with_table(p.html_table());
            if let Some(t) = p.reasons_table() {
                sec.push_table(t);
            }
            if let Some(t) = p.untested_table() {
                sec.push_table(t);
            }
            if !p.ungraded.is_empty() {
                sec.push_paragraph(format!(
                    "Scenario files without a [[paper]] row: {}.",
                    p.ungraded.join(", ")
                ));
            }
            if let Some(t) = p.html_not_run_table() {
                sec.push_table(t);
            }
            r.push_section(sec);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bases(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    const TREND: &str = r#"
[[paper]]
kind = "trend"
label = "gap shrinks"
figure = "Fig. 4"
note = "the paper: reduced significantly"
metrics = ["s-1:g", "s-2:g"]
direction = "decreasing"

[[untested]]
headline = "a testbed figure"
figure = "Fig. 13"
reason = "a testbed, not a simulation"
"#;

    #[test]
    fn a_claims_file_names_existing_scenarios_and_complete_headlines() {
        let c = parse_claims(TREND, "claims.toml", &bases(&["s-1", "s-2"])).unwrap();
        assert_eq!(c.rows.len(), 1);
        assert_eq!(c.untested[0].figure, "Fig. 13");
        let e = parse_claims(TREND, "claims.toml", &bases(&["s-1", "s-3"])).unwrap_err();
        assert_eq!(e.key, "paper[0].metrics");
        assert!(
            e.reason.contains("`s-2:g`") && e.reason.contains("unknown scenario `s-2`"),
            "{e}"
        );
        let e = parse_claims(
            &TREND.replace("reason = ", "why = "),
            "claims.toml",
            &bases(&["s-1", "s-2"]),
        )
        .unwrap_err();
        assert_eq!(e.key, "untested[0].why", "{e}");
        let e = parse_claims(
            &TREND.replace("reason = \"a testbed, not a simulation\"", ""),
            "claims.toml",
            &bases(&["s-1", "s-2"]),
        )
        .unwrap_err();
        assert_eq!(e.key, "untested[0].reason", "{e}");
        let e = parse_claims(
            &format!("{TREND}\n[extra]\nx = 1\n"),
            "claims.toml",
            &bases(&["s-1", "s-2"]),
        )
        .unwrap_err();
        assert_eq!(e.key, "extra", "{e}");
        let e = parse_claims(
            &TREND.replace("\"s-1:g\"", "\"g\""),
            "claims.toml",
            &bases(&["s-1", "s-2"]),
        )
        .unwrap_err();
        assert_eq!(e.key, "paper[0].metrics", "{e}");
    }

    fn file(stem: &str) -> ScenarioFile {
        let full = stem.ends_with(".full");
        ScenarioFile {
            stem: stem.into(),
            base: stem.trim_end_matches(".full").into(),
            full,
            path: PathBuf::from(format!("x/{stem}.toml")),
        }
    }

    #[test]
    fn selections_take_one_file_per_scenario() {
        let p = PaperDir {
            name: "p".into(),
            files: ["a", "a.full", "b", "c.full"].map(file).to_vec(),
            claims: ClaimsFile::default(),
        };
        let stems = |s: Selection| {
            p.select(s)
                .iter()
                .map(|f| f.stem.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(stems(Selection::Short), ["a", "b"]);
        assert_eq!(stems(Selection::FullOnly), ["a.full", "c.full"]);
        assert_eq!(stems(Selection::FullWhereExists), ["a.full", "b", "c.full"]);
    }

    fn rows(text: &str) -> Vec<Row> {
        let v: toml::Value = toml::from_str(text).unwrap();
        v["paper"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, r)| parse_row(r, &format!("paper[{i}]"), "t", false).unwrap())
            .collect()
    }

    #[test]
    fn the_ledger_grades_runs_and_claims_and_tallies_them_apart() {
        let claims = parse_claims(TREND, "claims.toml", &bases(&["s-1", "s-2"])).unwrap();
        let paper = PaperDir {
            name: "p".into(),
            files: ["s-1", "s-2", "s-2.full"].map(file).to_vec(),
            claims,
        };
        let own = rows(
            r#"
[[paper]]
kind = "ratio"
label = "r"
figure = "F"
note = "n"
metric = "relative.a_vs_b.m"
factor = 2.0
[[paper]]
kind = "value"
label = "v"
figure = "F"
note = "n"
metric = "g"
value = 10.0
miss_reason = "(c) the paper gives no buffer size, see scenarios/p/README.md#buffers"
[[paper]]
kind = "bound"
label = "c"
figure = "F"
note = "n"
metric = "g"
below = 1.0
self_check = true
"#,
        );
        let runs = vec![
            Run {
                file: file("s-1"),
                rows: own.clone(),
                summary: json!({"g": 0.5, "relative": {"a_vs_b": {"m": 5.0}}}),
            },
            Run {
                file: file("s-2"),
                rows: Vec::new(),
                summary: json!({"g": 0.2}),
            },
        ];
        let all = vec![
            (file("s-1"), own.clone()),
            (file("s-2"), Vec::new()),
            (file("s-2.full"), own[..1].to_vec()),
        ];
        let l = PaperLedger::build(&paper, &runs, &all);
        let ids: Vec<&str> = l.entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["p/s-1#1", "p/s-1#2", "p/s-1#3", "p/claims#1"]);
        let verdicts: Vec<&str> = l.entries.iter().map(|e| e.verdict.label()).collect();
        assert_eq!(verdicts, ["same winner", "misses", "holds", "holds"]);
        assert_eq!(l.not_run.len(), 1);
        assert_eq!(l.not_run[0].id, "p/s-2.full#1");
        assert_eq!(l.ungraded, ["p/s-2.toml"]);
        let t = Tally::of(std::slice::from_ref(&l));
        assert_eq!(
            t,
            Tally {
                holds: 1,
                same_winner: 1,
                same_winner_unexplained: 1,
                misses_explained: 1,
                misses_unexplained: 0,
                missing: 0,
                untested: 1,
                not_run: 1,
                checks_hold: 1,
                checks_fail: 0,
            }
        );
        let table = l.table();
        assert_eq!(table.rows[0][8], Cell::Text("unexplained".into()));
        assert!(matches!(&table.rows[1][8], Cell::Text(r) if r.starts_with("(c) ")));
        assert_eq!(table.rows[3][7], Cell::Text("short: p/claims.toml".into()));
        assert_eq!(l.html_table().rows[3][6], Cell::Text("short".into()));
        let nr = l.html_not_run_table().unwrap();
        assert_eq!(nr.columns.len(), 4);
        assert_eq!(nr.rows[0][0], Cell::Text("s-2.full#1".into()));
        assert_eq!(nr.rows[0][1], Cell::Text("F: r".into()));
        let ledger = Ledger {
            mode: "short",
            papers: vec![l],
        };
        let j = ledger.to_json();
        assert_eq!(j["tally"]["holds"], 1);
        assert_eq!(j["papers"][0]["rows"][0]["id"], "p/s-1#1");
        assert_eq!(j["papers"][0]["rows"][0]["verdict"], "same winner");
        assert_eq!(j["papers"][0]["not_run"][0]["id"], "p/s-2.full#1");
        assert!(j["papers"][0]["not_run"][0].get("verdict").is_none());
        let m = ledger.to_markdown();
        for id in ["p/s-1#1", "p/claims#1", "p/untested#1", "p/s-2.full#1"] {
            assert!(m.contains(id), "{id} in\n{m}");
        }
        assert!(m.contains("**3 paper claims graded: 1 hold, 1 same winner (0 explained, 1 unexplained), 1 miss (1 explained, 0 unexplained), 0 missing; 1 untested headlines.**"), "{m}");
        // A missing metric of a claims row (its scenario did not run) is a failure, not a hold.
        let l = PaperLedger::build(&paper, &runs[..1], &all);
        assert_eq!(l.entries[3].verdict, Verdict::Missing);
        assert_eq!(l.entries[3].run, "short");
    }
}

/// The shipped scenarios: every row of every file (and claims.toml) parses with its kind, a
/// figure and a note; and FIDELITY.md lists each one as the code reads it.
#[cfg(test)]
mod shipped {
    use super::*;
    use crate::scenario::Scenario;

    fn repo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    /// Every row of every shipped scenario and claims.toml, by id.
    fn all_rows() -> Vec<(String, Row)> {
        let root = repo().join("scenarios");
        let mut out = Vec::new();
        for paper in paper_names(&root).unwrap() {
            let dir = PaperDir::scan(&root, &paper).unwrap_or_else(|e| panic!("{e:#}"));
            for f in &dir.files {
                let s = Scenario::load(&f.path, None).unwrap_or_else(|e| panic!("{e}"));
                for (i, r) in s.paper.iter().enumerate() {
                    out.push((format!("{paper}/{}#{}", f.stem, i + 1), r.clone()));
                }
            }
            for (i, r) in dir.claims.rows.iter().enumerate() {
                out.push((format!("{paper}/claims#{}", i + 1), r.clone()));
            }
        }
        out
    }

    /// Every row id with its kind and its claim as the ledger prints it; untested headlines
    /// with kind "untested" and their headline.
    pub(super) fn rows() -> Vec<(String, String, String)> {
        let root = repo().join("scenarios");
        let mut ids: Vec<(String, String, String)> = all_rows()
            .into_iter()
            .map(|(id, r)| (id, r.kind().to_string(), r.paper_text()))
            .collect();
        for paper in paper_names(&root).unwrap() {
            let dir = PaperDir::scan(&root, &paper).unwrap();
            for (i, u) in dir.claims.untested.iter().enumerate() {
                ids.push((
                    format!("{paper}/untested#{}", i + 1),
                    "untested".into(),
                    u.headline.clone(),
                ));
            }
        }
        ids
    }

    use super::super::fidelity::md_cells as cells;

    #[test]
    fn fidelity_lists_every_row_as_the_code_reads_it() {
        let text = std::fs::read_to_string(repo().join("FIDELITY.md"))
            .expect("FIDELITY.md at the repository root");
        let regenerate =
            "regenerate it: cargo run --release -p dctc -- ledger --fidelity FIDELITY.md";
        // id -> (kind, claim) from every table: graded rows and rows not run carry
        // `id | figure | claim | kind | paper | ...`, untested headlines
        // `id | figure | headline | reason`.
        let mut listed = std::collections::BTreeMap::new();
        for line in text.lines().filter(|l| l.starts_with("| ")) {
            let c = cells(line);
            let is_id = c[0].contains('/') && c[0].contains('#') && !c[0].contains(' ');
            if !is_id {
                continue;
            }
            let entry = if c[0].contains("/untested#") {
                ("untested".to_string(), c[2].clone())
            } else {
                (c[3].clone(), c[4].clone())
            };
            assert!(
                listed.insert(c[0].clone(), entry).is_none(),
                "{} is listed twice in FIDELITY.md",
                c[0]
            );
        }
        let rows = rows();
        for (id, kind, claim) in &rows {
            match listed.get(id) {
                None => panic!("FIDELITY.md does not list {id}: {regenerate}"),
                Some((k, c)) => assert!(
                    k == kind && c == claim,
                    "FIDELITY.md lists {id} as {k} `{c}`, the code reads {kind} `{claim}`: {regenerate}"
                ),
            }
        }
        let shipped: BTreeSet<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        for id in listed.keys() {
            assert!(
                shipped.contains(id.as_str()),
                "FIDELITY.md lists {id}, which no scenario has any more: {regenerate}"
            );
        }
    }

    /// GitHub's anchor for a markdown heading: lowercase, punctuation dropped, spaces to `-`.
    fn anchor(heading: &str) -> String {
        heading
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect()
    }

    #[test]
    fn every_miss_reason_points_to_a_readme_section_that_exists() {
        assert_eq!(
            anchor("Fig. 4: what the paper plots, and why our FQ-CoDel gap stays flat"),
            "fig-4-what-the-paper-plots-and-why-our-fq-codel-gap-stays-flat"
        );
        for (id, r) in all_rows() {
            let Some(reason) = &r.miss_reason else {
                continue;
            };
            let (file, section) = reason
                .split_whitespace()
                .find_map(|w| {
                    w.trim_end_matches(['.', ',', ')', ';'])
                        .split_once("README.md#")
                })
                .map(|(dir, sec)| (format!("{dir}README.md"), sec.to_string()))
                .unwrap_or_else(|| panic!("{id}: no README pointer in `{reason}`"));
            let text = std::fs::read_to_string(repo().join(&file))
                .unwrap_or_else(|e| panic!("{id}: {file}: {e}"));
            let found = text
                .lines()
                .filter_map(|l| l.strip_prefix('#'))
                .any(|h| anchor(h.trim_start_matches('#')) == section);
            assert!(found, "{id}: {file} has no section #{section}");
        }
    }

    #[test]
    fn every_shipped_row_has_a_kind_a_figure_and_a_note() {
        for (id, r) in all_rows() {
            assert!(
                !r.figure.trim().is_empty() && !r.note.trim().is_empty(),
                "{id}"
            );
            assert!(super::super::claims::KINDS.contains(&r.kind()), "{id}");
        }
        let rows = rows();
        assert!(rows.len() > 150, "{}", rows.len());
        let kinds: BTreeSet<&str> = rows.iter().map(|r| r.1.as_str()).collect();
        for k in ["value", "range", "bound", "ratio", "trend", "untested"] {
            assert!(kinds.contains(k), "no shipped `{k}` row");
        }
        let ids: BTreeSet<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(ids.len(), rows.len(), "ids are unique");
    }
}
