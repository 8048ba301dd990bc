//! The papers' published figures beside ours: `[[paper]]` rows of a scenario name a metric in
//! `summary.json` by its dotted path and the value the paper reports.

use crate::scenario::PaperRow;
use dctc_report::{Cell, Section, Table};
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

/// The comparison as JSON: one object per row with `ours` (null when the metric is missing).
pub(crate) fn compare(rows: &[PaperRow], summary: &Value) -> Value {
    Value::Array(
        rows.iter()
            .map(|r| {
                let ours = lookup(summary, &r.metric).and_then(Value::as_f64);
                json!({
                    "label": r.label, "metric": r.metric, "paper": r.value, "ours": ours,
                    "ratio": ours.map(|o| if r.value != 0.0 { o / r.value } else { f64::NAN }),
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
        columns: ["figure", "paper", "dctc", "dctc / paper", "note"]
            .map(String::from)
            .to_vec(),
        rows: Vec::new(),
    };
    for r in rows {
        let ours = lookup(summary, &r.metric).and_then(Value::as_f64);
        t.rows.push(vec![
            Cell::Text(r.label.clone()),
            Cell::Num(r.value),
            ours.map(Cell::Num)
                .unwrap_or_else(|| Cell::Text(format!("missing: {}", r.metric))),
            ours.filter(|_| r.value != 0.0)
                .map(|o| Cell::Num(o / r.value))
                .unwrap_or_else(|| Cell::Text("-".into())),
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
        ],
        tables: vec![t],
        charts: Vec::new(),
    })
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
    fn comparison_reports_ratio_and_missing_metrics() {
        let v = json!({"a": {"b": 6.0}});
        let rows = vec![
            PaperRow {
                label: "x".into(),
                metric: "a.b".into(),
                value: 3.0,
                note: String::new(),
            },
            PaperRow {
                label: "y".into(),
                metric: "a.c".into(),
                value: 1.0,
                note: String::new(),
            },
        ];
        let c = compare(&rows, &v);
        assert_eq!(c[0]["ratio"], json!(2.0));
        assert_eq!(c[1]["ours"], Value::Null);
        let t = table(&rows, &v).unwrap();
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[1][2], Cell::Text("missing: a.c".into()));
    }
}
