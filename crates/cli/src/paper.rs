//! The papers' published figures beside ours: `[[paper]]` rows of a scenario name a metric in
//! `summary.json` by its dotted path and the value the paper reports.

use crate::scenario::{Claim, PaperRow};
use dctc_report::{Cell, Chart, Section, Series, Table};
use serde_json::{json, Value};

/// Looks up a dotted path (`schemes.dctcp.fct_slowdown.overall.p99`) in a JSON value. A
/// segment that is a number indexes an array.
pub(crate) fn lookup<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(value, |v, seg| match v {
        Value::Object(m) => m.get(seg),
        Value::Array(a) => seg.parse::<usize>().ok().and_then(|i| a.get(i)),
        _ => None,
    })
}

/// Checks a row's own keys: a range runs upwards, and a factor reads a relative figure.
/// Returns the offending key and why.
pub(crate) fn check(r: &PaperRow) -> Result<(), (&'static str, String)> {
    if !r.value.is_finite() {
        return Err(("value", format!("must be a finite number, got {}", r.value)));
    }
    if let Some(top) = r.up_to {
        if !(top.is_finite() && top >= r.value) {
            return Err((
                "up_to",
                format!("the top of the paper's range must be a number at least `value` ({}), got {top}", r.value),
            ));
        }
        if r.claim.is_some() {
            return Err((
                "up_to",
                "a claim (`claim`) has one bound, not a range".into(),
            ));
        }
    }
    if let Some(w) = r.within {
        if !(w > 0.0 && w <= 1.0) {
            return Err((
                "within",
                format!("the relative tolerance must be in (0, 1], got {w}"),
            ));
        }
        if r.claim.is_some() {
            return Err((
                "within",
                "a claim (`claim`) is graded by its side, not a tolerance".into(),
            ));
        }
    }
    if r.factor && !r.metric.starts_with("relative.") {
        return Err((
            "factor",
            format!(
                "a factor reads a relative figure (`relative.<a>_vs_<b>.<figure>`), not `{}`",
                r.metric
            ),
        ));
    }
    Ok(())
}

/// Our figure for row `r`: the metric it names, read as a factor a / b when the row says so.
pub(crate) fn ours(r: &PaperRow, summary: &Value) -> Option<f64> {
    let v = lookup(summary, &r.metric).and_then(Value::as_f64)?;
    Some(if r.factor { v + 1.0 } else { v })
}

/// The paper's value for a chart: the middle of its range when it gives one.
fn paper_value(r: &PaperRow) -> f64 {
    r.up_to.map_or(r.value, |top| 0.5 * (r.value + top))
}

/// How a figure of ours compares with the paper's.
///
/// The rule (also printed in the report):
/// - **holds**: ours is within 25% of the paper's value, `|ours - paper| <= 0.25 |paper|`
///   (for a range, ours lies in it or within 25% of its nearer end; a row's `within` sets
///   another tolerance);
/// - **direction only**: not within 25%, but on the same side of zero (`ours * paper > 0`) and at
///   least a tenth of the paper's size (`|ours| >= 0.1 |paper|`), so for a relative figure
///   ("DBA 37% below Varys") the same scheme wins, by another but still visible margin;
/// - **misses**: anything else (the other side of zero, or an effect under a tenth of the
///   paper's, which is no effect at this precision);
/// - **missing**: the run has no such metric.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    Holds,
    DirectionOnly,
    Misses,
    Missing,
}

/// Relative tolerance within which a figure "holds".
pub(crate) const HOLDS_WITHIN: f64 = 0.25;
/// The smallest part of the paper's value a figure on the same side of zero must reach for
/// "direction only".
pub(crate) const DIRECTION_AT_LEAST: f64 = 0.1;

/// The rule of [`Verdict`] in one sentence, for the report.
pub(crate) const RULE: &str = "Verdict: \"holds\" when ours is within 25% of the paper's value \
     (|ours - paper| <= 0.25 |paper|); \"direction only\" when it is not but lies on the same side of \
     zero with at least a tenth of the paper's size (|ours| >= 0.1 |paper|: for a relative figure such \
     as \"DBA 37% below Varys\", the same scheme wins by another but visible margin); \"misses\" \
     otherwise (the other side of zero, or next to zero). A row marked \"< x\" or \"> x\" is a claim the \
     paper makes without a number (one scheme beats another): it holds when ours lies on that side \
     of x and misses otherwise. A range \"a-b\" is graded against its nearer end (inside it holds); \
     \"x\" marks a factor, scheme B's figure over scheme A's (\"A's p99 is 8.6x below B's\"). \
     \"± p%\" marks a row graded with its own tolerance p instead of 25%.";

impl Verdict {
    /// The verdict for row `r` against our `ours`: a claim's side, else [`Verdict::of`].
    pub(crate) fn of_row(r: &PaperRow, ours: Option<f64>) -> Verdict {
        let Some(claim) = r.claim else {
            let within = r.within.unwrap_or(HOLDS_WITHIN);
            return Verdict::in_range(r.value, r.up_to.unwrap_or(r.value), within, ours);
        };
        let Some(o) = ours.filter(|o| o.is_finite()) else {
            return Verdict::Missing;
        };
        let holds = match claim {
            Claim::Below => o < r.value,
            Claim::Above => o > r.value,
        };
        if holds {
            Verdict::Holds
        } else {
            Verdict::Misses
        }
    }

    /// The verdict for the paper's `paper` against our `ours`.
    #[cfg(test)]
    pub(crate) fn of(paper: f64, ours: Option<f64>) -> Verdict {
        Verdict::in_range(paper, paper, HOLDS_WITHIN, ours)
    }

    /// The verdict for the paper's range `low ..= high` against our `ours`: inside it holds,
    /// outside it holds within the relative tolerance `within` of the nearer end, and is
    /// otherwise graded as in [`Verdict`].
    pub(crate) fn in_range(low: f64, high: f64, within: f64, ours: Option<f64>) -> Verdict {
        let Some(o) = ours.filter(|o| o.is_finite()) else {
            return Verdict::Missing;
        };
        if (low..=high).contains(&o) {
            return Verdict::Holds;
        }
        let paper = if o < low { low } else { high };
        if (o - paper).abs() <= within * paper.abs() {
            Verdict::Holds
        } else if o * paper > 0.0 && o.abs() >= DIRECTION_AT_LEAST * paper.abs() {
            Verdict::DirectionOnly
        } else {
            Verdict::Misses
        }
    }

    /// The word shown in tables and JSON.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DirectionOnly => "direction only",
            Verdict::Misses => "misses",
            Verdict::Missing => "missing",
        }
    }
}

/// The comparison as JSON: one object per row with `ours` (null when the metric is missing)
/// and the `verdict`.
pub(crate) fn compare(rows: &[PaperRow], summary: &Value) -> Value {
    Value::Array(
        rows.iter()
            .map(|r| {
                let ours = ours(r, summary);
                json!({
                    "label": r.label, "metric": r.metric, "paper": r.value, "ours": ours,
                    "paper_up_to": r.up_to, "factor": r.factor, "within": r.within,
                    "verdict": Verdict::of_row(r, ours).label(),
                    "claim": r.claim.map(|c| match c { Claim::Below => "below", Claim::Above => "above" }),
                    "note": r.note,
                })
            })
            .collect(),
    )
}

/// The comparison as a table (None when the scenario has no paper rows).
pub(crate) fn table(rows: &[PaperRow], summary: &Value) -> Option<Table> {
    if rows.is_empty() {
        return None;
    }
    let mut t = Table {
        caption: "The paper's figures beside ours".into(),
        columns: ["#", "figure", "paper", "dctc", "verdict", "note"]
            .map(String::from)
            .to_vec(),
        rows: Vec::new(),
    };
    for (i, r) in rows.iter().enumerate() {
        let ours = ours(r, summary);
        let x = if r.factor { "x" } else { "" };
        let pm = r
            .within
            .map(|w| format!(" ± {}%", w * 100.0))
            .unwrap_or_default();
        t.rows.push(vec![
            Cell::Num((i + 1) as f64),
            Cell::Text(r.label.clone()),
            match (r.claim, r.up_to) {
                (None, Some(top)) => Cell::Text(format!("{}{x}-{top}{x}{pm}", r.value)),
                (None, None) if r.factor => Cell::Text(format!("{}x{pm}", r.value)),
                (None, None) if r.within.is_some() => Cell::Text(format!("{}{pm}", r.value)),
                (None, None) => Cell::Num(r.value),
                (Some(Claim::Below), _) => Cell::Text(format!("< {}{x}", r.value)),
                (Some(Claim::Above), _) => Cell::Text(format!("> {}{x}", r.value)),
            },
            ours.map(Cell::Num)
                .unwrap_or_else(|| Cell::Text(format!("missing: {}", r.metric))),
            Cell::Text(Verdict::of_row(r, ours).label().into()),
            Cell::Text(r.note.clone()),
        ]);
    }
    Some(t)
}

/// A report section holding the comparison.
pub(crate) fn section(rows: &[PaperRow], summary: &Value) -> Option<Section> {
    table(rows, summary).map(|t| Section {
        heading: "Paper vs dctc".into(),
        paragraphs: vec![
            "Published figures next to this run's. Exact numbers differ (other simulators, seeds and \
             scales); the claim to check is who wins, by roughly how much, and which way curves bend."
                .into(),
            RULE.into(),
        ],
        tables: vec![t],
        charts: charts(rows, summary),
    })
}

/// The paper's values drawn beside ours: bars per table row (numbered as in the table), the
/// paper's value and ours side by side on a linear axis with zero, so a sign (who wins) and
/// a margin read at a glance (a range drawn at its middle). Rows whose paper value lies within
/// [-1, 1] (relative changes and fractions) share one chart; every other row gets its own,
/// since its unit is its own.
pub(crate) fn charts(rows: &[PaperRow], summary: &Value) -> Vec<Chart> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    // A claim has no paper value to draw.
    let numeric = |i: &usize| rows[*i].claim.is_none();
    let small: Vec<usize> = (0..rows.len())
        .filter(numeric)
        .filter(|&i| paper_value(&rows[i]).abs() <= 1.0)
        .collect();
    if !small.is_empty() {
        groups.push(small);
    }
    groups.extend(
        (0..rows.len())
            .filter(numeric)
            .filter(|&i| paper_value(&rows[i]).abs() > 1.0)
            .map(|i| vec![i]),
    );
    groups
        .into_iter()
        .map(|g| {
            let (title, y_label) = if g.len() == 1 {
                (
                    format!("Paper vs dctc: row {}", g[0] + 1),
                    rows[g[0]].label.clone(),
                )
            } else {
                (
                    "Paper vs dctc: relative figures and fractions".to_string(),
                    "value (fraction; relative change as a fraction)".to_string(),
                )
            };
            let cats: Vec<String> = g.iter().map(|&i| format!("row {}", i + 1)).collect();
            let mut ch = Chart::bars(title, "row of the table above", y_label, cats);
            let paper: Vec<(f64, f64)> = g
                .iter()
                .enumerate()
                .map(|(k, &i)| (k as f64, paper_value(&rows[i])))
                .collect();
            let ours: Vec<(f64, f64)> = g
                .iter()
                .enumerate()
                .filter_map(|(k, &i)| ours(&rows[i], summary).map(|o| (k as f64, o)))
                .collect();
            ch.push_series(Series::new("paper", paper));
            ch.push_series(Series::new("dctc", ours));
            ch
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_walks_objects_and_arrays() {
        let v = json!({"schemes": {"dctcp": {"p99": 3.5, "list": [1.0, 2.0]}}});
        assert_eq!(lookup(&v, "schemes.dctcp.p99"), Some(&json!(3.5)));
        assert_eq!(lookup(&v, "schemes.dctcp.list.1"), Some(&json!(2.0)));
        assert_eq!(lookup(&v, "schemes.tcp.p99"), None);
    }

    #[test]
    fn verdicts_follow_the_written_rule() {
        assert_eq!(Verdict::of(-0.371, Some(-0.30)), Verdict::Holds);
        assert_eq!(Verdict::of(-0.371, Some(-0.10)), Verdict::DirectionOnly);
        assert_eq!(Verdict::of(-0.371, Some(0.05)), Verdict::Misses);
        // Same side of zero but under a tenth of the paper's effect: no effect.
        assert_eq!(Verdict::of(-0.348, Some(-0.0037)), Verdict::Misses);
        assert_eq!(Verdict::of(-0.264, Some(-0.091)), Verdict::DirectionOnly);
        assert_eq!(Verdict::of(0.14, Some(0.0)), Verdict::Misses);
        assert_eq!(Verdict::of(140.0, Some(175.0)), Verdict::Holds);
        assert_eq!(Verdict::of(140.0, Some(176.0)), Verdict::DirectionOnly);
        assert_eq!(Verdict::of(0.0, Some(0.0)), Verdict::Holds);
        assert_eq!(Verdict::of(1.0, None), Verdict::Missing);
        assert_eq!(Verdict::of(1.0, Some(f64::NAN)), Verdict::Missing);
    }

    #[test]
    fn comparison_reports_verdict_and_missing_metrics() {
        let v = json!({"a": {"b": 6.0}});
        let rows = vec![
            PaperRow {
                label: "x".into(),
                metric: "a.b".into(),
                value: 3.0,
                note: String::new(),
                claim: None,
                up_to: None,
                factor: false,
                within: None,
            },
            PaperRow {
                label: "y".into(),
                metric: "a.c".into(),
                value: 1.0,
                note: String::new(),
                claim: None,
                up_to: None,
                factor: false,
                within: None,
            },
        ];
        let c = compare(&rows, &v);
        assert_eq!(c[0]["verdict"], json!("direction only"));
        assert_eq!(c[0].get("ratio"), None);
        assert_eq!(c[1]["ours"], Value::Null);
        assert_eq!(c[1]["verdict"], json!("missing"));
        let t = table(&rows, &v).unwrap();
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[1][3], Cell::Text("missing: a.c".into()));
        assert_eq!(t.rows[0][4], Cell::Text("direction only".into()));
        // Rows within [-1, 1] share a chart (y), others get their own (x); paper beside
        // ours, no bar for ours when missing.
        let c = charts(&rows, &v);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].series[0].points, vec![(0.0, 1.0)]);
        assert!(c[0].series[1].points.is_empty());
        assert_eq!(c[1].series[0].points, vec![(0.0, 3.0)]);
        assert_eq!(c[1].series[1].points, vec![(0.0, 6.0)]);
        assert_eq!(c[1].title, "Paper vs dctc: row 1");
    }

    #[test]
    fn a_claim_holds_only_on_its_side_and_is_not_drawn() {
        let v = json!({"r": -0.3});
        let row = |claim, value| PaperRow {
            label: "A vs B".into(),
            metric: "r".into(),
            value,
            note: String::new(),
            claim: Some(claim),
            up_to: None,
            factor: false,
            within: None,
        };
        assert_eq!(
            Verdict::of_row(&row(Claim::Below, 0.0), Some(-0.3)),
            Verdict::Holds
        );
        assert_eq!(
            Verdict::of_row(&row(Claim::Below, -0.5), Some(-0.3)),
            Verdict::Misses
        );
        assert_eq!(
            Verdict::of_row(&row(Claim::Above, 0.0), Some(-0.3)),
            Verdict::Misses
        );
        assert_eq!(
            Verdict::of_row(&row(Claim::Above, -1.0), Some(-0.3)),
            Verdict::Holds
        );
        assert_eq!(
            Verdict::of_row(&row(Claim::Above, 0.0), None),
            Verdict::Missing
        );
        let rows = vec![row(Claim::Below, 0.0)];
        let t = table(&rows, &v).unwrap();
        assert_eq!(t.rows[0][2], Cell::Text("< 0".into()));
        assert_eq!(t.rows[0][4], Cell::Text("holds".into()));
        assert_eq!(compare(&rows, &v)[0]["claim"], json!("below"));
        assert!(charts(&rows, &v).is_empty());
    }

    #[test]
    fn a_factor_row_reads_a_relative_figure_against_a_range() {
        // DCTCP's p99 is 9.8 times Flowtune's: relative = 8.8.
        let v = json!({"relative": {"DCTCP_vs_Flowtune": {"p99": 8.8}}});
        let row = |value, up_to| PaperRow {
            label: "Flowtune p99 below DCTCP's".into(),
            metric: "relative.DCTCP_vs_Flowtune.p99".into(),
            value,
            note: String::new(),
            claim: None,
            up_to,
            factor: true,
            within: None,
        };
        let inside = row(8.6, Some(10.9));
        assert_eq!(ours(&inside, &v), Some(9.8));
        assert_eq!(Verdict::of_row(&inside, Some(9.8)), Verdict::Holds);
        // Outside the range: graded against the nearer end.
        assert_eq!(Verdict::of_row(&inside, Some(13.6)), Verdict::Holds);
        assert_eq!(Verdict::of_row(&inside, Some(13.7)), Verdict::DirectionOnly);
        assert_eq!(Verdict::of_row(&inside, Some(6.5)), Verdict::Holds);
        assert_eq!(Verdict::of_row(&inside, Some(6.4)), Verdict::DirectionOnly);
        assert_eq!(Verdict::of_row(&inside, Some(0.8)), Verdict::Misses);
        let single = row(2.35, None);
        assert_eq!(
            Verdict::of_row(&single, ours(&single, &v)),
            Verdict::DirectionOnly
        );
        let rows = vec![inside, single];
        let t = table(&rows, &v).unwrap();
        assert_eq!(t.rows[0][2], Cell::Text("8.6x-10.9x".into()));
        assert_eq!(t.rows[0][3], Cell::Num(9.8));
        assert_eq!(t.rows[1][2], Cell::Text("2.35x".into()));
        let c = compare(&rows, &v);
        assert_eq!(c[0]["ours"], json!(9.8));
        assert_eq!(c[0]["paper_up_to"], json!(10.9));
        assert_eq!(c[0]["verdict"], json!("holds"));
        // A range is drawn at its middle.
        assert_eq!(charts(&rows, &v)[0].series[0].points, vec![(0.0, 9.75)]);
    }

    #[test]
    fn a_row_with_its_own_tolerance_is_graded_by_it() {
        let row = |within| PaperRow {
            label: "F-NORM / optimal".into(),
            metric: "f".into(),
            value: 0.997,
            note: String::new(),
            claim: None,
            up_to: None,
            factor: false,
            within,
        };
        // 0.947 is within the default 25% of 0.997, but not within 1%.
        assert_eq!(Verdict::of_row(&row(None), Some(0.947)), Verdict::Holds);
        assert_eq!(
            Verdict::of_row(&row(Some(0.01)), Some(0.947)),
            Verdict::DirectionOnly
        );
        assert_eq!(
            Verdict::of_row(&row(Some(0.01)), Some(0.99)),
            Verdict::Holds
        );
        let v = json!({"f": 0.947});
        let t = table(&[row(Some(0.01))], &v).unwrap();
        assert!(
            matches!(&t.rows[0][2], Cell::Text(p) if p == "0.997 ± 1%"),
            "{:?}",
            t.rows[0][2]
        );
        assert_eq!(compare(&[row(Some(0.01))], &v)[0]["within"], json!(0.01));
        for bad in [0.0, -0.1, 1.5, f64::NAN] {
            assert_eq!(check(&row(Some(bad))).unwrap_err().0, "within");
        }
        let claim = PaperRow {
            claim: Some(Claim::Below),
            ..row(Some(0.01))
        };
        assert_eq!(check(&claim).unwrap_err().0, "within");
    }

    #[test]
    fn bad_rows_name_their_key() {
        let ok = PaperRow {
            label: "x".into(),
            metric: "relative.a_vs_b.p99".into(),
            value: 2.0,
            note: String::new(),
            claim: None,
            up_to: Some(3.0),
            factor: true,
            within: None,
        };
        assert!(check(&ok).is_ok());
        let down = PaperRow {
            up_to: Some(1.0),
            ..ok.clone()
        };
        assert_eq!(check(&down).unwrap_err().0, "up_to");
        let claim = PaperRow {
            claim: Some(Claim::Below),
            ..ok.clone()
        };
        assert_eq!(check(&claim).unwrap_err().0, "up_to");
        let plain = PaperRow {
            metric: "schemes.a.p99".into(),
            ..ok
        };
        assert_eq!(check(&plain).unwrap_err().0, "factor");
    }
}
