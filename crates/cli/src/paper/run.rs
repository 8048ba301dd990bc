//! Running papers' scenarios: `dctc reproduce PAPER` (every scenario written to
//! `out/<paper>/<name>/`, then the paper's ledger printed) and `dctc ledger` (every paper's
//! graded scenarios into one ledger). One implementation picks, checks and runs the files of
//! both.

use super::claims::Row;
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
    // And every output directory, so a refused one fails before hours of runs, not after.
    for s in &loaded {
        output::check_destination(&parent.join(&s.name), force)?;
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
        let summary = crate::run_and_write(s, Some(parent.join(&s.name)), true, force)?;
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
    /// Also write the ledger to this file (the repository's FIDELITY.md), headed by the
    /// commit, the command, the date and the wall time of the run.
    #[arg(long, value_name = "PATH")]
    fidelity: Option<PathBuf>,
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
}

/// The first line of a `FIDELITY.md` that dctc wrote: only such a file is replaced without
/// `--force`.
const FIDELITY_MARK: &str =
    "<!-- Written by `dctc ledger --fidelity`: regenerate it, do not edit it by hand. -->";

/// `dctc ledger`: runs the graded scenarios of every paper (short files, or with `--full` the
/// full ones where they exist), grades every row, each paper's claims.toml and untested
/// headlines, and writes DIR/ledger.md, DIR/ledger.json and DIR/report.html. A scenario file
/// without a `[[paper]]` row that no claim reads is not run (it has nothing to grade).
pub(crate) fn ledger(args: &LedgerArgs) -> Result<()> {
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
        for (f, s) in &all {
            if selected.contains(&f.stem) && (!s.paper.is_empty() || claimed.contains(&f.base)) {
                validate(s)?;
                to_run.push((f.clone(), s.clone()));
            }
        }
        plans.push(Plan {
            all: all.into_iter().map(|(f, s)| (f, s.paper)).collect(),
            dir,
            to_run,
        });
    }
    if plans.is_empty() {
        bail!("no paper under {} has a graded row", root.display());
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join("ledger"));
    output::check_destination(&out, args.force)?;
    if let Some(path) = &args.fidelity {
        check_fidelity(path, args.force)?;
    }
    let total: usize = plans.iter().map(|p| p.to_run.len()).sum();
    let mut done = 0;
    let mut papers = Vec::new();
    for plan in &plans {
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
        let header = fidelity_header(wall);
        write_file_atomically(path, format!("{header}\n{body}").as_bytes())?;
        text.push_str(&format!("wrote {}\n", path.display()));
    }
    emit(&text);
    Ok(())
}

/// The head of `FIDELITY.md`: what produced it. Only here do the commit, the command, the date
/// and the wall time appear: the ledger itself is the same for the same code and seeds.
fn fidelity_header(wall_s: f64) -> String {
    let args: Vec<String> = std::env::args().skip(1).map(|a| shell_word(&a)).collect();
    format!(
        "# FIDELITY: the papers' claims beside dctc's figures\n\n{FIDELITY_MARK}\n\n\
         - commit: `{}` (dctc {})\n\
         - command: `dctc {}`\n\
         - date: {}\n\
         - wall time of the ledger run: {wall_s:.1} s\n",
        crate::provenance::COMMIT,
        crate::provenance::VERSION,
        args.join(" "),
        utc_now(),
    )
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

/// Refuses a `--fidelity` path that is a directory, or a file dctc did not write (without
/// `force`), before any run.
fn check_fidelity(path: &Path, force: bool) -> Result<()> {
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
    Ok(())
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
}
