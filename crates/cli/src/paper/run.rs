//! Running papers' scenarios: `dctc reproduce PAPER` (every scenario written to
//! `out/<paper>/<name>/`, then the paper's ledger printed) and `dctc ledger` (every paper's
//! graded scenarios into one ledger). One implementation picks, checks and runs the files of
//! both.

use super::claims::Row;
use super::fidelity::{self, PaperRecord};
use super::ledger::{
    paper_names, Ledger, PaperDir, PaperLedger, Run, ScenarioFile, Selection, Tally,
};
use crate::output;
use crate::progress::Progress;
use crate::scenario::Scenario;
use crate::{emit, run_engine, scenarios_root, validate};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Loads and validates `files`, so that a typo fails before any run.
fn load_checked(files: &[&ScenarioFile]) -> Result<Vec<Scenario>> {
    files
        .iter()
        .map(|f| {
            let s = Scenario::load(&f.path, None)?;
            validate(&s)?;
            Ok(s)
        })
        .collect()
}

/// `dctc reproduce`: runs every short (or, with `full`, every full) scenario of `paper` into
/// `out` (default `out/<paper>`), then prints the paper's ledger: every row of every scenario
/// it ran, its cross-file claims and its untested headlines, with a tally.
pub(crate) fn reproduce(
    paper: &str,
    full: bool,
    out: Option<PathBuf>,
    scenarios: Option<PathBuf>,
    force: bool,
) -> Result<()> {
    let root = scenarios_root(scenarios)?;
    let dir = PaperDir::scan(&root, paper)?;
    let files = dir.select(if full {
        Selection::FullOnly
    } else {
        Selection::Short
    });
    if files.is_empty() {
        bail!(
            "no {} scenarios in {}",
            if full { "full (*.full.toml)" } else { "short" },
            root.join(paper).display()
        );
    }
    let parent = out.unwrap_or_else(|| Path::new("out").join(paper));
    let loaded = load_checked(&files)?;
    // And every output directory, locked until the last run is written, so a refused or
    // busy one fails before hours of runs, not after.
    let mut locks = Vec::new();
    for s in &loaded {
        let dir = parent.join(&s.name);
        locks.push(output::lock(&dir)?);
        crate::check_output(s, &dir, force)?;
    }
    let mut runs = Vec::new();
    for (i, (f, s)) in files.iter().zip(&loaded).enumerate() {
        emit(&format!(
            "== [{}/{}] {} ({})\n",
            i + 1,
            loaded.len(),
            s.name,
            s.path.display()
        ));
        let summary = crate::run_into(s, &parent.join(&s.name), true, force)?;
        runs.push(Run {
            file: (*f).clone(),
            rows: s.paper.clone(),
            summary,
        });
    }
    let all: Vec<(ScenarioFile, Vec<Row>)> = runs
        .iter()
        .map(|r| (r.file.clone(), r.rows.clone()))
        .collect();
    emit(&PaperLedger::build(&dir, &runs, &all).to_text());
    Ok(())
}

/// `dctc ledger`'s arguments.
#[derive(clap::Args)]
pub(crate) struct LedgerArgs {
    /// Take `X.full.toml` where it exists, else the short `X.toml` (default: the short files).
    #[arg(long)]
    full: bool,
    /// Only this paper (repeat for several; default: every folder with a graded row).
    #[arg(long = "paper", value_name = "PAPER")]
    papers: Vec<String>,
    /// Output directory for ledger.md, ledger.json and report.html (default: out/ledger).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also write each paper's part of this file (the repository's FIDELITY.md): its record
    /// `fidelity/<paper>.json` beside it (commit, command, date, wall time, verdicts) is
    /// replaced, and the file is rendered from every record there.
    #[arg(long, value_name = "PATH")]
    fidelity: Option<PathBuf>,
    /// Run nothing: rebuild the `--fidelity` file from its records (e.g. after a merge).
    #[arg(long, requires = "fidelity", conflicts_with_all = ["full", "papers", "out", "scenarios", "skips"])]
    render: bool,
    /// Leave one scenario file out of the run, saying why (e.g. its estimated cost):
    /// `PAPER/STEM=WHY` (`dba/fig4.full=...`). Its rows are listed as not run, and the
    /// `--fidelity` record keeps WHY.
    #[arg(long = "skip", value_name = "PAPER/STEM=WHY")]
    skips: Vec<String>,
    /// Where the scenario folders are (default: ./scenarios, else the source tree's).
    #[arg(long)]
    scenarios: Option<PathBuf>,
    /// Replace `--out` (or the `--fidelity` file) even if dctc did not write it.
    #[arg(long)]
    force: bool,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
}

/// One paper's plan: its folder, every file's rows, and the scenarios to run.
struct Plan {
    dir: PaperDir,
    all: Vec<(ScenarioFile, Vec<Row>)>,
    to_run: Vec<(ScenarioFile, Scenario)>,
    /// What the record says of files `--skip` left out.
    notes: Vec<String>,
}

/// `--skip PAPER/STEM=WHY`, by `PAPER/STEM`.
fn parse_skips(skips: &[String]) -> Result<std::collections::BTreeMap<String, String>> {
    let mut out = std::collections::BTreeMap::new();
    for s in skips {
        let Some((file, why)) = s.split_once('=') else {
            bail!("--skip `{s}`: expected PAPER/STEM=WHY (e.g. dba/fig4.full='estimated 40 CPU hours')");
        };
        if !file.contains('/') || why.trim().is_empty() {
            bail!("--skip `{s}`: expected PAPER/STEM=WHY with a reason (e.g. dba/fig4.full='estimated 40 CPU hours')");
        }
        out.insert(file.to_string(), why.trim().to_string());
    }
    Ok(out)
}

/// `dctc ledger`: runs the graded scenarios of every paper (short files, or with `--full` the
/// full ones where they exist), grades every row, each paper's claims.toml and untested
/// headlines, and writes DIR/ledger.md, DIR/ledger.json and DIR/report.html. A scenario file
/// without a `[[paper]]` row that no claim reads is not run (it has nothing to grade).
pub(crate) fn ledger(args: &LedgerArgs) -> Result<()> {
    if let (true, Some(path)) = (args.render, &args.fidelity) {
        fidelity::check(path, args.force)?;
        let written = fidelity::render_file(path)?;
        emit(&format!("wrote {}\n", written.display()));
        return Ok(());
    }
    let start = Instant::now();
    let root = scenarios_root(args.scenarios.clone())?;
    let sel = if args.full {
        Selection::FullWhereExists
    } else {
        Selection::Short
    };
    let names = if args.papers.is_empty() {
        paper_names(&root)?
    } else {
        let mut seen = Vec::new();
        for p in &args.papers {
            if !seen.contains(p) {
                seen.push(p.clone());
            }
        }
        seen
    };
    let mut skips = parse_skips(&args.skips)?;
    let mut plans = Vec::new();
    for name in &names {
        let dir = PaperDir::scan(&root, name)?;
        let mut all = Vec::new();
        for f in &dir.files {
            let s = Scenario::load(&f.path, None)?;
            all.push((f.clone(), s));
        }
        let graded = all.iter().any(|(_, s)| !s.paper.is_empty())
            || !dir.claims.rows.is_empty()
            || !dir.claims.untested.is_empty();
        if !graded && args.papers.is_empty() {
            continue;
        }
        let claimed = dir.claimed_bases();
        let selected: Vec<String> = dir.select(sel).iter().map(|f| f.stem.clone()).collect();
        let mut to_run = Vec::new();
        let mut notes = Vec::new();
        for (f, s) in &all {
            if selected.contains(&f.stem) && (!s.paper.is_empty() || claimed.contains(&f.base)) {
                validate(s)?;
                if let Some(why) = skips.remove(&format!("{name}/{}", f.stem)) {
                    notes.push(format!(
                        "`{name}/{}.toml` left out of this run: {why}",
                        f.stem
                    ));
                    continue;
                }
                to_run.push((f.clone(), s.clone()));
            }
        }
        plans.push(Plan {
            all: all.into_iter().map(|(f, s)| (f, s.paper)).collect(),
            dir,
            to_run,
            notes,
        });
    }
    if let Some(file) = skips.keys().next() {
        bail!(
            "--skip {file}: not a scenario file this run would take (PAPER/STEM, e.g. dba/fig4.full; the papers run: {})",
            names.join(", ")
        );
    }
    if plans.is_empty() {
        bail!("no paper under {} has a graded row", root.display());
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join("ledger"));
    let _lock = output::lock(&out)?;
    output::check_destination(&out, args.force)?;
    if let Some(path) = &args.fidelity {
        fidelity::check(path, args.force)?;
    }
    let total: usize = plans.iter().map(|p| p.to_run.len()).sum();
    let mut done = 0;
    let mut papers = Vec::new();
    let mut walls = Vec::new();
    for plan in &plans {
        let paper_start = Instant::now();
        let mut runs = Vec::new();
        for (f, s) in &plan.to_run {
            done += 1;
            emit(&format!(
                "== [{done}/{total}] {}/{} ({}, {})\n",
                plan.dir.name,
                f.stem,
                if f.full { "full" } else { "short" },
                s.path.display()
            ));
            let progress = Progress::new(!args.quiet);
            let result = run_engine(s, &progress);
            progress.finish();
            let result = result.with_context(|| format!("running {}", s.path.display()))?;
            runs.push(Run {
                file: f.clone(),
                rows: s.paper.clone(),
                summary: output::full_summary(s, &result),
            });
        }
        papers.push(PaperLedger::build(&plan.dir, &runs, &plan.all));
        walls.push(paper_start.elapsed().as_secs_f64());
    }
    let ledger = Ledger {
        mode: if args.full { "full" } else { "short" },
        papers,
    };
    let body = ledger.to_markdown();
    let files = vec![
        (
            "ledger.md".to_string(),
            format!("# dctc ledger\n\n{body}").into_bytes(),
        ),
        (
            "ledger.json".to_string(),
            (serde_json::to_string_pretty(&ledger.to_json())? + "\n").into_bytes(),
        ),
        (
            "report.html".to_string(),
            ledger.report().to_html().into_bytes(),
        ),
    ];
    output::write_atomically(&out, &files, args.force)?;
    let wall = start.elapsed().as_secs_f64();
    let mut text = String::new();
    for p in &ledger.papers {
        text.push_str(&p.to_text());
    }
    text.push_str(&format!(
        "\nAll papers. {}\n",
        Tally::of(&ledger.papers).line()
    ));
    text.push_str(&format!(
        "wrote {} ({wall:.1} s)\n",
        out.join("ledger.md").display()
    ));
    if let Some(path) = &args.fidelity {
        let records: Vec<PaperRecord> = ledger
            .papers
            .iter()
            .zip(&walls)
            .zip(&plans)
            .map(|((p, &w), plan)| PaperRecord::of(p, ledger.mode, w, plan.notes.clone()))
            .collect();
        for f in fidelity::write(path, &records)? {
            text.push_str(&format!("wrote {}\n", f.display()));
        }
    }
    emit(&text);
    Ok(())
}
