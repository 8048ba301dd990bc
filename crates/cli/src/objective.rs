//! The objective report (issue 30) as both engines' runs show it: the `[output]
//! objective_*` keys, the per-scheme evaluation of a run's trace (`dctc_num::objective`, the
//! one implementation), and its outputs: `objective.csv`, the `objective` entry of each
//! scheme's summary and `objective_difference`, a console block, and a report section.

use crate::records::{Records, Values};
use crate::scenario::{Scenario, ScenarioError};
use dctc_core::config::OutputSpec;
use dctc_core::units::checked::{self, SpanRule};
use dctc_core::units::Delta;
use dctc_num::objective::{evaluate, Evaluation, ObjectiveKind, Trace};
use dctc_report::{Cell, Chart, Section, Series, Table};
use serde_json::{json, Map, Value};

/// The report's settings, checked.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ObjectivePlan {
    /// Interval length.
    pub(crate) interval: Delta,
    /// The utility scored against.
    pub(crate) kind: ObjectiveKind,
}

/// Reads the keys; `None` when the report is off (`objective_sample_us` absent). `span` is the
/// run's simulated length, which bounds the number of solves
/// ([`crate::limits::MAX_OBJECTIVE_SOLVES`]); `None` when the engine knows it only per run
/// (the flow engine checks each load's estimate with [`check_span`]).
pub(crate) fn plan(
    s: &Scenario,
    output: &OutputSpec,
    span: Option<Delta>,
) -> Result<Option<ObjectivePlan>, ScenarioError> {
    let Some(us) = output.objective_sample_us else {
        for (key, set) in [
            ("objective_utility", output.objective_utility.is_some()),
            ("objective_alpha", output.objective_alpha.is_some()),
        ] {
            if set {
                return Err(s.error(
                    &format!("output.{key}"),
                    "sets the objective report, which is off: set output.objective_sample_us too",
                ));
            }
        }
        return Ok(None);
    };
    let key = "output.objective_sample_us";
    let interval = checked::span_us(key, us, SpanRule::positive(Delta::MAX_SCENARIO))
        .map_err(|e| s.key_error(e))?;
    if let Some(span) = span {
        check_span(s, interval, span)?;
    }
    let alpha_key = "output.objective_alpha";
    let kind = match output.objective_utility.as_deref().unwrap_or("log") {
        "log" => ObjectiveKind::Log,
        "max-min" => ObjectiveKind::MaxMin,
        "alpha-fair" => {
            let alpha = output.objective_alpha.ok_or_else(|| {
                s.error(
                    alpha_key,
                    "objective_utility = \"alpha-fair\" needs an alpha",
                )
            })?;
            if !(alpha.is_finite() && alpha > 0.0 && alpha != 1.0 && alpha <= 100.0) {
                return Err(s.error(
                    alpha_key,
                    format!(
                        "must be above 0 and at most 100, and not 1 (that is \"log\"), got {alpha}"
                    ),
                ));
            }
            ObjectiveKind::AlphaFair { alpha }
        }
        other => {
            return Err(s.error(
                "output.objective_utility",
                dctc_core::error::unknown_name("utility", other, ObjectiveKind::NAMES),
            ))
        }
    };
    if output.objective_alpha.is_some() && !matches!(kind, ObjectiveKind::AlphaFair { .. }) {
        return Err(s.error(
            alpha_key,
            format!(
                "applies to objective_utility = \"alpha-fair\" only, not \"{}\"",
                kind.name()
            ),
        ));
    }
    Ok(Some(ObjectivePlan { interval, kind }))
}

/// Refuses an interval that gives more than [`crate::limits::MAX_OBJECTIVE_SOLVES`] solves
/// over `span`.
pub(crate) fn check_span(s: &Scenario, interval: Delta, span: Delta) -> Result<(), ScenarioError> {
    crate::limits::check_periodic(
        s,
        "output.objective_sample_us",
        interval,
        span,
        crate::limits::MAX_OBJECTIVE_SOLVES,
    )
}

/// One scheme's evaluated trace.
pub(crate) struct Evaluated {
    /// The scheme's label.
    pub(crate) label: String,
    /// The load of a flow-engine sweep's run (`None`: the scenario's own load).
    pub(crate) load: Option<f64>,
    /// Whether recording stopped at the interval limit before the run ended (the flow
    /// engine's runs, whose length is only estimated before they run).
    pub(crate) truncated: bool,
    /// Scores and totals.
    pub(crate) eval: Evaluation,
    /// Wall-clock seconds the evaluation took, and the simulation's (console only: wall time
    /// is never written, so outputs stay byte-identical).
    pub(crate) wall_s: f64,
    pub(crate) run_wall_s: f64,
}

/// Evaluates `trace` of the scheme `label` on links of `capacity_bps`.
pub(crate) fn evaluate_run(
    plan: &ObjectivePlan,
    label: &str,
    trace: &Trace,
    capacity_bps: &[f64],
    run_wall_s: f64,
) -> Evaluated {
    let wall = std::time::Instant::now();
    let eval = evaluate(trace, capacity_bps, plan.kind);
    Evaluated {
        label: label.to_string(),
        load: None,
        truncated: false,
        eval,
        wall_s: wall.elapsed().as_secs_f64(),
        run_wall_s,
    }
}

fn num(v: Option<f64>) -> Value {
    v.filter(|x| x.is_finite())
        .map_or(Value::Null, |x| json!(x))
}

/// The `objective` entry of a scheme's summary.
pub(crate) fn summary_json(plan: &ObjectivePlan, e: &Evaluated) -> Value {
    let t = &e.eval.totals;
    let mut v = json!({
        "utility": plan.kind.name(),
        "interval_us": plan.interval.as_us_f64(),
        "intervals": t.intervals,
        "scored_intervals": t.scored,
        "failed_intervals": t.failed,
        "reference_solves": t.by_reference,
        "solver_iterations": t.iterations,
        "flow_intervals": t.flow_intervals,
        "efficiency": num(t.efficiency()),
        "utility_gap": num(t.utility_gap()),
        "utility_gap_per_flow": num(t.utility_gap_per_flow()),
        "fairness_score_per_flow": num(t.fairness()),
        "optimal_fairness_score_per_flow": num(t.optimal_fairness()),
        "share_above_2x": num(t.above_2x()),
        "share_below_2x": num(t.below_2x()),
        "share_starved": num(t.starved()),
    });
    if let ObjectiveKind::AlphaFair { alpha } = plan.kind {
        v["alpha"] = json!(alpha);
    }
    if e.truncated {
        v["truncated"] = json!(true);
    }
    v
}

/// How the console and the report name a run: its label, and its load in a sweep.
fn run_name(e: &Evaluated) -> String {
    match e.load {
        Some(l) => format!("{} @ {:.0}%", e.label, l * 100.0),
        None => e.label.clone(),
    }
}

/// `objective_difference.<a>_vs_<b>.fairness_score_per_flow`: scheme a's score per flow minus
/// b's, for every ordered pair (Flowtune §6.5 Fig. 11 states its results as these points).
pub(crate) fn differences(evals: &[&Evaluated]) -> Value {
    let mut out = Map::new();
    for a in evals {
        for b in evals {
            if a.label == b.label {
                continue;
            }
            let d = match (a.eval.totals.fairness(), b.eval.totals.fairness()) {
                (Some(x), Some(y)) => Some(x - y),
                _ => None,
            };
            let gap = match (
                a.eval.totals.utility_gap_per_flow(),
                b.eval.totals.utility_gap_per_flow(),
            ) {
                (Some(x), Some(y)) => Some(x - y),
                _ => None,
            };
            out.insert(
                format!("{}_vs_{}", a.label, b.label),
                json!({ "fairness_score_per_flow": num(d), "utility_gap_per_flow": num(gap) }),
            );
        }
    }
    Value::Object(out)
}

/// `objective.csv`: one row per interval and scheme.
pub(crate) fn table(evals: &[&Evaluated]) -> Records {
    let rows = || {
        evals
            .iter()
            .flat_map(|e| e.eval.scores.iter().map(move |s| (e, s)))
    };
    let float = |f: &dyn Fn(&dctc_num::objective::Score) -> Option<f64>| Values::Float {
        values: rows()
            .map(|(_, s)| f(s).filter(|x| x.is_finite()))
            .collect(),
        decimals: None,
    };
    let mut records = Records::new().with(
        "scheme",
        Values::Text(rows().map(|(e, _)| e.label.clone()).collect()),
    );
    if evals.iter().any(|e| e.load.is_some()) {
        records = records.with(
            "load",
            Values::Float {
                values: rows().map(|(e, _)| e.load).collect(),
                decimals: None,
            },
        );
    }
    records
        // Times to the picosecond the engines count in (k x interval in floating point
        // would print 4500.000000000001).
        .with(
            "start_us",
            float(&|s| Some((s.start_s * 1e12).round() / 1e6)),
        )
        .with(
            "length_us",
            float(&|s| Some((s.length_s * 1e12).round() / 1e6)),
        )
        .with(
            "flows",
            Values::UInt(rows().map(|(_, s)| s.flows as u64).collect()),
        )
        .with("presence", float(&|s| Some(s.presence)))
        .with("delivered_gbps", float(&|s| Some(s.delivered_bps / 1e9)))
        .with(
            "optimal_gbps",
            float(&|s| scored(s).then_some(s.optimal_bps / 1e9)),
        )
        .with("efficiency", float(&|s| s.efficiency()))
        .with("utility_gap", float(&|s| s.utility_gap))
        .with("utility_gap_per_flow", float(&|s| s.utility_gap_per_flow()))
        .with("fairness_score_per_flow", float(&|s| s.fairness))
        .with(
            "optimal_fairness_score_per_flow",
            float(&|s| s.optimal_fairness),
        )
        .with("share_above_2x", float(&|s| s.above_2x))
        .with("share_below_2x", float(&|s| s.below_2x))
        .with("share_starved", float(&|s| s.starved))
        .with(
            "solved_by",
            Values::Text(
                rows()
                    .map(|(_, s)| s.solved_by.name().to_string())
                    .collect(),
            ),
        )
        .with(
            "solver_iterations",
            Values::UInt(rows().map(|(_, s)| s.iterations).collect()),
        )
}

/// Whether an interval has an optimum to compare with.
fn scored(s: &dctc_num::objective::Score) -> bool {
    !matches!(
        s.solved_by,
        dctc_num::objective::SolvedBy::Empty | dctc_num::objective::SolvedBy::Failed
    )
}

fn fmt(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.3}"))
}

fn pct(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{:.1}%", x * 100.0))
}

/// The console block: one line per scheme, with the evaluation's share of the wall time.
pub(crate) fn console(plan: &ObjectivePlan, evals: &[&Evaluated]) -> String {
    let mut out = format!(
        "Objective ({} utility, every {} us; fairness score = mean log2(rate in Gb/s) per flow):\n",
        plan.kind.name(),
        plan.interval.as_us_f64()
    );
    for e in evals {
        let t = &e.eval.totals;
        let share = e.wall_s / (e.wall_s + e.run_wall_s).max(1e-12);
        out.push_str(&format!(
            "  {}: efficiency {}, utility gap/flow {}, fairness score/flow {} (optimum {}), \
             >2x above {} / below {} optimal, starved {}; {} intervals scored, {} solver \
             iterations, {:.2} s ({:.0}% of the run's wall time)\n",
            run_name(e),
            fmt(t.efficiency()),
            fmt(t.utility_gap_per_flow()),
            fmt(t.fairness()),
            fmt(t.optimal_fairness()),
            pct(t.above_2x()),
            pct(t.below_2x()),
            pct(t.starved()),
            t.scored,
            t.iterations,
            e.wall_s,
            share * 100.0,
        ));
        if e.truncated {
            out.push_str(&format!(
                "  warning: {}: the run outlasted the {} intervals the report records; the \
                 intervals after them are not scored\n",
                run_name(e),
                crate::limits::MAX_OBJECTIVE_SOLVES
            ));
        }
    }
    out
}

/// The report's section: the totals per scheme and three series over time.
pub(crate) fn section(plan: &ObjectivePlan, evals: &[&Evaluated]) -> Section {
    let mut sec = Section::new("Objective: rates against the NUM optimum").with_paragraph(format!(
        "Every {} us, the flows that had data (each for the part of the interval it had data) are \
         compared with the {} NUM optimum for the same flows on the fabric's capacities \
         (dctc_num::objective). Efficiency = delivered / optimal throughput; utility gap = \
         U(optimal) - U(achieved) per flow{}; fairness score = Flowtune's mean log2(rate in Gb/s) \
         per flow (Fig. 11: one point per doubling); shares of flows more than 2x above or below \
         their optimal rate. Intervals with no flow are left out (no point is drawn).",
        plan.interval.as_us_f64(),
        plan.kind.name(),
        if plan.kind.utility().is_some() {
            " (natural log of b/s for log)"
        } else {
            " (none for max-min)"
        },
    ));
    let mut t = Table::new(
        "Objective totals per scheme",
        [
            "scheme",
            "efficiency",
            "utility gap/flow",
            "fairness score/flow",
            "optimum's score/flow",
            ">2x above",
            ">2x below",
            "starved",
            "intervals",
        ],
    );
    let cell = |v: Option<f64>| v.map_or(Cell::Text("-".into()), Cell::Num);
    for e in evals {
        let x = &e.eval.totals;
        t.push_row(vec![
            Cell::Text(run_name(e)),
            cell(x.efficiency()),
            cell(x.utility_gap_per_flow()),
            cell(x.fairness()),
            cell(x.optimal_fairness()),
            cell(x.above_2x()),
            cell(x.below_2x()),
            cell(x.starved()),
            Cell::Num(x.scored as f64),
        ]);
    }
    sec.push_table(t);
    type Pick = fn(&dctc_num::objective::Score) -> Option<f64>;
    let charts: [(&str, &str, Pick); 3] = [
        (
            "Efficiency over time",
            "delivered / optimal throughput",
            |s| s.efficiency(),
        ),
        (
            "Fairness score over time",
            "mean log2(rate in Gb/s) per flow",
            |s| s.fairness,
        ),
        (
            "Flows below half their optimal rate",
            "share of flows (presence-weighted)",
            |s| s.below_2x,
        ),
    ];
    for (title, y, pick) in charts {
        let mut ch = Chart::line(title, "interval start (ms)", y);
        for e in evals {
            let pts = e
                .eval
                .scores
                .iter()
                .filter(|s| scored(s))
                .filter_map(|s| {
                    pick(s)
                        .filter(|v| v.is_finite())
                        .map(|v| (s.start_s * 1e3, v))
                })
                .collect();
            ch.push_series(Series::new(run_name(e), pts));
        }
        sec.push_chart(ch);
    }
    sec
}
