//! dctc as a library, for front ends other than the command line (the Python package):
//! scenarios from a file or from text, runs kept in memory, and sweeps planned point by point,
//! with the same checks, results and error messages as `dctc run` and `dctc sweep`.

use crate::output::{self, RunOutput};
use crate::progress::Progress;
use anyhow::Result;
use std::path::{Path, PathBuf};

pub use crate::scenario::{Scenario, ScenarioError};
pub use crate::sweep::Plan;

/// Reads and checks a scenario file, as `dctc run FILE [--seed S]` does.
pub fn load(path: &Path, seed: Option<u64>) -> Result<Scenario, ScenarioError> {
    Scenario::load(path, seed)
}

/// Parses and checks scenario text. `label` names it in error messages (e.g. `<string>`);
/// relative paths in it resolve against `base_dir`; a scenario without `name` is called
/// `scenario`; `seed` overrides its seed.
pub fn parse(
    text: &str,
    label: &str,
    base_dir: &Path,
    seed: Option<u64>,
) -> Result<Scenario, ScenarioError> {
    Scenario::from_source(text, Path::new(label), base_dir, seed, Some("scenario"))
}

/// A scenario as text that [`Source::load`] turns back into the same scenario: to hand a
/// sweep's point to another process (a Ray worker).
#[derive(Clone, Debug, PartialEq)]
pub struct Source {
    /// The scenario as TOML, with its name written in.
    pub text: String,
    /// The seed the run uses.
    pub seed: u64,
    /// The file it came from, naming it in error messages.
    pub path: PathBuf,
    /// Directory that relative paths in it resolve against.
    pub base_dir: PathBuf,
}

impl Source {
    /// The source of `s`.
    pub fn of(s: &Scenario) -> Source {
        let mut doc = s.raw.clone();
        if let toml::Value::Table(t) = &mut doc {
            t.insert("name".into(), toml::Value::String(s.name.clone()));
        }
        Source {
            text: toml::to_string(&doc).unwrap_or_default(),
            seed: s.seed,
            path: s.path.clone(),
            base_dir: s.base_dir.clone(),
        }
    }

    /// The scenario back, checked again.
    pub fn load(&self) -> Result<Scenario, ScenarioError> {
        Scenario::from_str(&self.text, &self.path, &self.base_dir, Some(self.seed))
    }
}

impl Scenario {
    /// The scenario's name (names `dctc run`'s output directory).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The seed the run uses.
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

/// What a run produces, in memory: what `dctc run` writes to `out/<name>/`, less the charts.
#[derive(Clone, Debug)]
pub struct Run {
    /// `summary.json`.
    pub summary: serde_json::Value,
    /// The tables by file name (`flows.csv`, `ports.csv`, `queues.csv`, ...), as written.
    pub tables: Vec<(String, Vec<u8>)>,
    /// `report.html`.
    pub report_html: String,
}

/// Checks `s` as `dctc validate` does (the fabric, the engine's sections, the memory limits).
pub fn validate(s: &Scenario) -> Result<()> {
    crate::validate(s)
}

/// Validates and runs `s` in the calling thread, without a progress bar, writing nothing.
pub fn run(s: &Scenario) -> Result<Run> {
    crate::validate(s)?;
    let out: RunOutput = crate::run_engine(s, &Progress::new(false))?;
    let summary = output::full_summary(s, &out);
    let report_html = output::final_report(s, &out, &summary).to_html();
    Ok(Run {
        summary,
        tables: out.files,
        report_html,
    })
}

/// Plans a sweep of `base` over `grid` (key path and values, as `dctc sweep --set`), building
/// and validating every point. `flag` introduces a setting in error messages (e.g. `grid: `).
pub fn plan(base: &Scenario, grid: Vec<(String, Vec<toml::Value>)>, flag: &str) -> Result<Plan> {
    Plan::new(base, grid, flag)
}

/// One scheme's metrics in a sweep table: its label and the numeric leaves of
/// `schemes.<label>` of the summary (dotted names; `None` for `null`).
pub type SchemeMetrics = (String, Vec<(String, Option<f64>)>);

/// The rows a run contributes to a sweep table, one per scheme, as `sweep.csv` holds them.
/// Errors when the summary has no `schemes` object.
pub fn sweep_rows(summary: &serde_json::Value) -> Result<Vec<SchemeMetrics>> {
    crate::sweep::scheme_metrics(summary)
        .ok_or_else(|| anyhow::anyhow!("the run's summary has no `schemes` object"))
}

/// The metric columns of a sweep table, given the metric names of its rows in row order, as
/// `sweep.csv` picks them (each once, in order of first appearance, less those another name
/// nests below: `x` is dropped when `x.p99` is present).
pub fn sweep_columns<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    crate::sweep::metric_columns(names)
}

/// The [`ScenarioError`] behind `e`, if a scenario key caused it.
pub fn scenario_error(e: &anyhow::Error) -> Option<&ScenarioError> {
    e.chain().find_map(|c| c.downcast_ref::<ScenarioError>())
}
