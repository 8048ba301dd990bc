//! dctc as a library, for front ends other than the command line (the Python package):
//! scenarios from a file or from text, runs kept in memory, and sweeps planned point by point,
//! with the same checks, results and error messages as `dctc run` and `dctc sweep`.

use crate::output::{self, RunOutput};
pub use crate::progress::Hook as ProgressHook;
use crate::progress::Progress;
use anyhow::Result;
use std::path::{Path, PathBuf};

pub use crate::records::{Column, Records, Values};
pub use crate::scenario::{Scenario, ScenarioError};
pub use crate::sweep::{Plan, SchemeMetrics, Wording};

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
    /// The tables by file name (`flows.csv`, `ports.csv`, `queues.csv`, ...) as typed
    /// columns; [`Records::to_csv`] gives the bytes `dctc run` writes.
    pub tables: Vec<(String, Records)>,
    /// `report.html`.
    pub report_html: String,
}

/// Checks `s` as `dctc validate` does (the fabric, the engine's sections, the memory limits).
pub fn validate(s: &Scenario) -> Result<()> {
    crate::validate(s)
}

/// Validates and runs `s` in the calling thread, without a progress bar, writing nothing.
pub fn run(s: &Scenario) -> Result<Run> {
    run_reporting(s, &Progress::new(false))
}

/// [`run`], telling `hook` how far the run is: `(phase, simulated us done, us to run)` at the
/// start of each phase (a scheme, or a scheme at one load) and at most once per percent of it.
/// The run and its results are the same as without a hook.
pub fn run_with_progress(s: &Scenario, hook: &ProgressHook<'_>) -> Result<Run> {
    run_reporting(s, &Progress::hooked(hook))
}

fn run_reporting(s: &Scenario, progress: &Progress) -> Result<Run> {
    crate::validate(s)?;
    let out: RunOutput = crate::run_engine(s, progress)?;
    let summary = output::full_summary(s, &out);
    let report_html = output::final_report(s, &out, &summary).to_html();
    Ok(Run {
        summary,
        tables: out.tables,
        report_html,
    })
}

/// Plans a sweep of `base` over `grid` (key path and values, as `dctc sweep --set`), building
/// and validating every point. Errors name the keys and values in `wording` (the command
/// line's `--set KEY=VALUE`, or Python's `grid["KEY"] = VALUE`).
pub fn plan(
    base: &Scenario,
    grid: Vec<(String, Vec<toml::Value>)>,
    wording: Wording,
) -> Result<Plan> {
    Plan::new(base, grid, wording)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// Two schemes, 0.2 ms on the 144-host fabric: quick.
    const TINY: &str = r#"
engine = "packet"
duration_ms = 0.2
[fabric]
kind = "preset"
name = "flowtune-144"
[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.3
[[schemes]]
name = "dctcp"
[[schemes]]
name = "newreno"
"#;

    fn tiny() -> Scenario {
        parse(TINY, "<string>", Path::new("."), None).unwrap()
    }

    #[test]
    fn text_without_a_name_is_called_scenario_and_keeps_its_label_in_errors() {
        assert_eq!(tiny().name(), "scenario");
        let e = parse(
            &TINY.replace("duration_ms", "duraton_ms"),
            "<string>",
            Path::new("."),
            None,
        )
        .unwrap_err();
        assert_eq!(e.file, "<string>");
        assert!(e.reason.contains("did you mean `duration_ms`"), "{e}");
    }

    #[test]
    fn a_progress_hook_sees_each_scheme_from_0_to_its_end_and_changes_nothing() {
        let s = tiny();
        let seen = std::sync::Mutex::new(Vec::new());
        let hook = |label: &str, done: u64, total: u64| {
            seen.lock().unwrap().push((label.to_string(), done, total));
        };
        let hooked = run_with_progress(&s, &hook).unwrap();
        let plain = run(&s).unwrap();
        assert_eq!(hooked.summary.to_string(), plain.summary.to_string());
        let seen = seen.into_inner().unwrap();
        // 0.2 ms = 200 us per scheme; each phase starts at 0, never goes back, ends at its
        // total, and is reported at most once per percent (plus its start).
        let labels: Vec<&str> = seen.iter().map(|(l, ..)| l.as_str()).collect();
        let mut phases = labels.clone();
        phases.dedup();
        assert_eq!(phases, ["dctcp", "newreno"], "{seen:?}");
        for phase in phases {
            let mine: Vec<_> = seen.iter().filter(|(l, ..)| l == phase).collect();
            assert_eq!(mine.first().unwrap().1, 0, "{mine:?}");
            assert!(mine.iter().all(|(_, _, total)| *total == 200), "{mine:?}");
            assert!(mine.windows(2).all(|w| w[0].1 < w[1].1), "{mine:?}");
            assert_eq!(mine.last().unwrap().1, 200, "{mine:?}");
            assert!(mine.len() <= 101, "{}", mine.len());
        }
    }

    #[test]
    fn a_sweep_point_travels_as_source_and_runs_to_the_same_summary() {
        let s = tiny();
        let plan = plan(
            &s,
            vec![(
                "workload[0].load".into(),
                vec![toml::Value::Float(0.2), toml::Value::Float(0.4)],
            )],
            Wording::Python,
        )
        .unwrap();
        assert_eq!(plan.len(), 2);
        assert_eq!(plan.point_name(1), "load=0.4");
        let src = Source::of(plan.point(1));
        let back = src.load().unwrap();
        assert_eq!(back.name(), "scenario");
        assert_eq!(back.seed(), s.seed());
        let here = run(plan.point(1)).unwrap();
        let there = run(&back).unwrap();
        assert_eq!(here.summary, there.summary);
        assert_eq!(here.tables, there.tables);
        assert_eq!(here.summary["scenario"]["workload"][0]["load"], 0.4);
        let rows = sweep_rows(&here.summary).unwrap();
        let schemes: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(schemes, ["dctcp", "newreno"]);
        assert!(rows[0]
            .1
            .iter()
            .any(|(k, v)| k == "goodput_gbps" && v.is_some()));
    }

    #[test]
    fn a_bad_point_keeps_its_scenario_error_under_the_setting() {
        let e = plan(
            &tiny(),
            vec![
                ("seed".into(), vec![toml::Value::Integer(1)]),
                ("duration_ms".into(), vec![toml::Value::Float(-2.0)]),
            ],
            Wording::Python,
        )
        .err()
        .unwrap();
        let se = scenario_error(&e).expect("a ScenarioError in the chain");
        assert_eq!(se.key, "duration_ms");
        let text = format!("{e:#}");
        assert!(
            text.starts_with(
                "grid[\"seed\"] = 1, grid[\"duration_ms\"] = -2.0 \
                 (point `seed=1,duration_ms=-2.0`): <string>: "
            ),
            "{text}"
        );
    }

    #[test]
    fn sweep_columns_drop_a_name_that_others_nest_below() {
        let cols = sweep_columns(["a", "x", "b", "x.p99", "a"]);
        assert_eq!(cols, ["a", "b", "x.p99"]);
    }
}
