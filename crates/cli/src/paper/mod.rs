//! The papers' claims beside ours: a scenario's `[[paper]]` rows (their kinds and grading are
//! in [`claims`]), graded against its `summary.json`, and the ledger of every paper's rows
//! ([`ledger`]).

pub(crate) mod claims;
pub(crate) mod fidelity;
pub(crate) mod ledger;
pub(crate) mod run;

use claims::{Graded, Row, Verdict};
use dctc_report::{Cell, Chart, Section, Series, Table};
use serde_json::Value;

/// Looks up a dotted path (`schemes.dctcp.fct_slowdown.overall.p99`) in a JSON value. A
/// segment that is a number indexes an array.
pub(crate) fn lookup<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(value, |v, seg| match v {
        Value::Object(m) => m.get(seg),
        Value::Array(a) => seg.parse::<usize>().ok().and_then(|i| a.get(i)),
        _ => None,
    })
}

/// Grades a scenario's row against its own summary.
pub(crate) fn grade(r: &Row, summary: &Value) -> Graded {
    r.grade(&|m| lookup(summary, &m.path).and_then(Value::as_f64))
}

/// The comparison as JSON: one object per row (see [`Row::to_json`]).
pub(crate) fn compare(rows: &[Row], summary: &Value) -> Value {
    Value::Array(rows.iter().map(|r| r.to_json(&grade(r, summary))).collect())
}

/// The verdict as a table shows it: an unexplained miss says so.
pub(crate) fn verdict_text(r: &Row, v: Verdict) -> String {
    match (v, &r.miss_reason) {
        (Verdict::Misses | Verdict::SameWinner | Verdict::Missing, None) if !r.self_check => {
            format!("{} (unexplained)", v.label())
        }
        _ => v.label().to_string(),
    }
}

/// The comparison as a table (None when the scenario has no paper rows).
pub(crate) fn table(rows: &[Row], summary: &Value) -> Option<Table> {
    if rows.is_empty() {
        return None;
    }
    let mut t = Table {
        caption: "The paper's claims beside ours".into(),
        columns: [
            "#", "figure", "claim", "kind", "paper", "dctc", "verdict", "note",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for (i, r) in rows.iter().enumerate() {
        let g = grade(r, summary);
        let note = match (&r.miss_reason, g.verdict) {
            (Some(why), v) if v != Verdict::Holds => why.clone(),
            _ => r.note.clone(),
        };
        t.rows.push(vec![
            Cell::Num((i + 1) as f64),
            Cell::Text(r.figure.clone()),
            Cell::Text(r.label.clone()),
            Cell::Text(r.kind().into()),
            Cell::Text(r.paper_text()),
            Cell::Text(r.ours_text(&g)),
            Cell::Text(verdict_text(r, g.verdict)),
            Cell::Text(note),
        ]);
    }
    Some(t)
}

/// A report section holding the comparison.
pub(crate) fn section(rows: &[Row], summary: &Value) -> Option<Section> {
    table(rows, summary).map(|t| Section {
        heading: "Paper vs dctc".into(),
        paragraphs: vec![
            "The paper's claims next to this run's figures. Exact numbers differ (other simulators, \
             seeds and scales); each row states what the paper claims (who wins, by roughly how \
             much, which way a curve bends) in a form that can fail. A miss is a result: its \
             reason, when known, replaces the note."
                .into(),
            claims::RULE.into(),
        ],
        tables: vec![t],
        charts: charts(rows, summary),
    })
}

/// The paper's figures drawn beside ours: bars per table row (numbered as in the table), the
/// paper's figure and ours side by side on a linear axis with zero, so a sign (who wins) and
/// a margin read at a glance (a range drawn at its middle; a ratio as the paper states it, a
/// factor or a change). Rows whose paper figure lies within [-1, 1] (relative changes and
/// fractions) share one chart; every other row gets its own, since its unit is its own.
/// Bounds, orders and trends have no single figure and are not drawn.
pub(crate) fn charts(rows: &[Row], summary: &Value) -> Vec<Chart> {
    let drawn: Vec<(usize, f64, Option<f64>)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.chart_values(&grade(r, summary)).map(|(p, o)| (i, p, o)))
        .collect();
    let mut groups: Vec<Vec<&(usize, f64, Option<f64>)>> = Vec::new();
    let small: Vec<_> = drawn.iter().filter(|d| d.1.abs() <= 1.0).collect();
    if !small.is_empty() {
        groups.push(small);
    }
    groups.extend(drawn.iter().filter(|d| d.1.abs() > 1.0).map(|d| vec![d]));
    groups
        .into_iter()
        .map(|g| {
            let (title, y_label) = if g.len() == 1 {
                (
                    format!("Paper vs dctc: row {}", g[0].0 + 1),
                    rows[g[0].0].label.clone(),
                )
            } else {
                (
                    "Paper vs dctc: relative figures and fractions".to_string(),
                    "value (fraction; relative change as a fraction)".to_string(),
                )
            };
            let cats: Vec<String> = g.iter().map(|d| format!("row {}", d.0 + 1)).collect();
            let mut ch = Chart::bars(title, "row of the table above", y_label, cats);
            let paper: Vec<(f64, f64)> =
                g.iter().enumerate().map(|(k, d)| (k as f64, d.1)).collect();
            let ours: Vec<(f64, f64)> = g
                .iter()
                .enumerate()
                .filter_map(|(k, d)| d.2.map(|o| (k as f64, o)))
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
    use serde_json::json;

    fn rows(text: &str) -> Vec<Row> {
        let v: toml::Value = toml::from_str(text).unwrap();
        v["paper"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, r)| claims::parse_row(r, &format!("paper[{i}]"), "s.toml", false).unwrap())
            .collect()
    }

    #[test]
    fn lookup_walks_objects_and_arrays() {
        let v = json!({"schemes": {"dctcp": {"p99": 3.5, "list": [1.0, 2.0]}}});
        assert_eq!(lookup(&v, "schemes.dctcp.p99"), Some(&json!(3.5)));
        assert_eq!(lookup(&v, "schemes.dctcp.list.1"), Some(&json!(2.0)));
        assert_eq!(lookup(&v, "schemes.tcp.p99"), None);
    }

    const ROWS: &str = r#"
[[paper]]
kind = "value"
label = "x"
figure = "Fig. 1"
metric = "a.b"
value = 3.0
note = "n"
[[paper]]
kind = "value"
label = "y"
figure = "Fig. 2"
metric = "a.c"
value = 1.0
note = "n"
[[paper]]
kind = "bound"
label = "z"
figure = "Fig. 3"
metric = "a.b"
below = 10.0
note = "n"
[[paper]]
kind = "ratio"
label = "w"
figure = "Fig. 4"
metric = "relative.p_vs_q.m"
factor = [8.6, 10.9]
note = "n"
miss_reason = "(b) a modelling difference, see scenarios/x/README.md#why"
"#;

    #[test]
    fn the_table_shows_kind_claim_verdict_and_the_reason_for_a_miss() {
        let v = json!({"a": {"b": 6.0}, "relative": {"p_vs_q": {"m": 0.5}}});
        let rows = rows(ROWS);
        let c = compare(&rows, &v);
        assert_eq!(c[0]["verdict"], "misses");
        assert_eq!(c[1]["ours"], Value::Null);
        assert_eq!(c[1]["verdict"], "missing");
        assert_eq!(c[2]["verdict"], "holds");
        assert_eq!(c[3]["verdict"], "same winner");
        let t = table(&rows, &v).unwrap();
        assert_eq!(t.rows.len(), 4);
        assert_eq!(t.rows[0][1], Cell::Text("Fig. 1".into()));
        assert_eq!(t.rows[0][3], Cell::Text("value".into()));
        assert_eq!(t.rows[0][6], Cell::Text("misses (unexplained)".into()));
        assert_eq!(t.rows[1][5], Cell::Text("missing: a.c".into()));
        assert_eq!(t.rows[2][4], Cell::Text("< 10".into()));
        assert_eq!(t.rows[3][4], Cell::Text("p/q 8.6x-10.9x".into()));
        assert_eq!(t.rows[3][5], Cell::Text("1.5x".into()));
        assert_eq!(t.rows[3][6], Cell::Text("same winner".into()));
        assert!(matches!(&t.rows[3][7], Cell::Text(s) if s.starts_with("(b) ")));
        assert!(section(&rows, &v).unwrap().paragraphs[1].contains("same winner"));
    }

    #[test]
    fn charts_draw_figures_beside_ours_and_skip_bounds() {
        let v = json!({"a": {"b": 6.0}, "relative": {"p_vs_q": {"m": 0.5}}});
        let c = charts(&rows(ROWS), &v);
        // Row 2 (paper 1.0) is a small figure; rows 1 and 4 get their own; the bound none.
        assert_eq!(c.len(), 3);
        assert_eq!(c[0].series[0].points, vec![(0.0, 1.0)]);
        assert!(c[0].series[1].points.is_empty());
        assert_eq!(c[1].title, "Paper vs dctc: row 1");
        assert_eq!(c[1].series[1].points, vec![(0.0, 6.0)]);
        assert_eq!(c[2].title, "Paper vs dctc: row 4");
        assert_eq!(c[2].series[0].points, vec![(0.0, 9.75)]);
        assert_eq!(c[2].series[1].points, vec![(0.0, 1.5)]);
    }
}
