//! Arrow record batches: a run's tables, a sweep point's rows, the sweep table; and their
//! passage to and from pyarrow.

use anyhow::{bail, Context, Result};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray,
};
use arrow_pyarrow::{FromPyArrow, ToPyArrow};
use arrow_schema::{Field, Schema};
use dctc_cli::api;
use pyo3::prelude::*;
use std::sync::Arc;

/// `batch` as a `pyarrow.RecordBatch` (Arrow C data interface: the buffers are handed over).
pub(crate) fn to_py<'py>(py: Python<'py>, batch: &RecordBatch) -> PyResult<Bound<'py, PyAny>> {
    batch.to_pyarrow(py)
}

/// A `pyarrow.RecordBatch` (or anything with `__arrow_c_array__`) as a batch.
pub(crate) fn from_py(value: &Bound<'_, PyAny>) -> PyResult<RecordBatch> {
    RecordBatch::from_pyarrow_bound(value)
}

/// A batch from columns, every field nullable.
fn batch(columns: Vec<(String, ArrayRef)>) -> Result<RecordBatch> {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, a)| Field::new(name, a.data_type().clone(), true))
        .collect();
    let arrays = columns.into_iter().map(|(_, a)| a).collect();
    Ok(RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)?)
}

/// One column of a table as text: every cell's bytes end to end, and where each one ends.
struct TextColumn {
    data: Vec<u8>,
    ends: Vec<usize>,
}

/// One column of a table whose cells are text: integers when every non-empty cell is one,
/// else floats when every one is a number, else booleans, else strings; an empty cell is
/// null (a column of empty cells is floats, as pandas reads it). The engines write numbers
/// with Rust's shortest round-trip formatting, so the values are exactly those computed.
/// Each candidate type is one pass that stops at the first cell it cannot hold.
fn typed_column(name: &str, col: &TextColumn) -> Result<ArrayRef> {
    let text = std::str::from_utf8(&col.data)
        .with_context(|| format!("column `{name}` of a table is not UTF-8"))?;
    // Cells end at field delimiters, which are ASCII: every slice is on a char boundary.
    let cells = || {
        col.ends.iter().scan(0usize, move |start, &end| {
            let cell = &text[*start..end];
            *start = end;
            Some(cell)
        })
    };
    // Some cell holds text (the ends of empty cells add nothing to `data`).
    let present = !col.data.is_empty();
    if present {
        if let Some(v) = parse_all(cells(), parse_int) {
            return Ok(Arc::new(Int64Array::from(v)));
        }
    }
    if let Some(v) = parse_all(cells(), |c| c.parse::<f64>().ok()) {
        return Ok(Arc::new(Float64Array::from(v)));
    }
    let boolean = |c: &str| match c {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    };
    if let Some(v) = parse_all(cells(), boolean) {
        return Ok(Arc::new(BooleanArray::from(v)));
    }
    Ok(Arc::new(StringArray::from_iter(
        cells().map(|c| (!c.is_empty()).then_some(c)),
    )))
}

/// A decimal integer as Rust's `i64::from_str` reads it (an optional sign, then digits), in
/// one pass over the bytes.
fn parse_int(c: &str) -> Option<i64> {
    let b = c.as_bytes();
    let (negative, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        let d = i64::from(d - b'0');
        v = v.checked_mul(10)?;
        v = if negative {
            v.checked_sub(d)?
        } else {
            v.checked_add(d)?
        };
    }
    Some(v)
}

/// Every cell through `parse` (an empty cell is `None`), or `None` at the first cell that
/// does not parse.
fn parse_all<'a, T>(
    cells: impl Iterator<Item = &'a str>,
    parse: impl Fn(&str) -> Option<T>,
) -> Option<Vec<Option<T>>> {
    let mut out = Vec::with_capacity(cells.size_hint().0);
    for c in cells {
        if c.is_empty() {
            out.push(None);
        } else {
            out.push(Some(parse(c)?));
        }
    }
    Some(out)
}

/// A table of a run (`flows.csv`, ...) as the engine formatted it, as a typed batch: one pass
/// over the records into a text buffer per column, then each column typed.
pub(crate) fn csv_batch(bytes: &[u8]) -> Result<RecordBatch> {
    let mut reader = csv::ReaderBuilder::new().from_reader(bytes);
    let header: Vec<String> = reader.headers()?.iter().map(String::from).collect();
    let mut columns: Vec<TextColumn> = header
        .iter()
        .map(|_| TextColumn {
            data: Vec::new(),
            ends: Vec::new(),
        })
        .collect();
    let mut record = csv::ByteRecord::new();
    while reader
        .read_byte_record(&mut record)
        .context("an engine wrote a malformed table")?
    {
        for (i, col) in columns.iter_mut().enumerate() {
            col.data
                .extend_from_slice(record.get(i).unwrap_or_default());
            col.ends.push(col.data.len());
        }
    }
    let typed = header
        .into_iter()
        .zip(&columns)
        .map(|(name, col)| {
            let array = typed_column(&name, col)?;
            Ok((name, array))
        })
        .collect::<Result<Vec<_>>>()?;
    batch(typed)
}

/// A sweep point's rows: `scheme`, then each metric (floats; null where the summary holds
/// `null` or a scheme lacks it), in order of first appearance.
pub(crate) fn point_batch(rows: &[api::SchemeMetrics]) -> Result<RecordBatch> {
    let mut names: Vec<&str> = Vec::new();
    for (_, metrics) in rows {
        for (name, _) in metrics {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    let mut columns: Vec<(String, ArrayRef)> = vec![(
        "scheme".into(),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r.0))),
    )];
    for name in names {
        let values = rows.iter().map(|(_, metrics)| {
            metrics
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, v)| *v)
        });
        columns.push((name.to_string(), Arc::new(Float64Array::from_iter(values))));
    }
    batch(columns)
}

/// The sweep table from one [`point_batch`] per point, in point order: the swept values
/// (typed by all their values), `scheme`, then the metrics as `sweep.csv` chooses them.
pub(crate) fn sweep_table(plan: &api::Plan, points: &[RecordBatch]) -> Result<RecordBatch> {
    if points.len() != plan.len() {
        bail!(
            "{} point results for a sweep of {} points",
            points.len(),
            plan.len()
        );
    }
    let names: Vec<String> = points
        .iter()
        .flat_map(|b| {
            b.schema()
                .fields()
                .iter()
                .skip(1)
                .map(|f| f.name().clone())
                .collect::<Vec<_>>()
        })
        .collect();
    let metrics = api::sweep_columns(names.iter().map(String::as_str));
    let mut owner: Vec<usize> = Vec::new();
    let mut schemes: Vec<Option<String>> = Vec::new();
    for (i, b) in points.iter().enumerate() {
        let col = b
            .column_by_name("scheme")
            .and_then(|c| c.as_any().downcast_ref::<StringArray>())
            .with_context(|| format!("point {i}: no `scheme` column of strings"))?;
        for r in 0..b.num_rows() {
            owner.push(i);
            schemes.push(col.is_valid(r).then(|| col.value(r).to_string()));
        }
    }
    let mut columns: Vec<(String, ArrayRef)> = Vec::new();
    for (axis, key) in plan.keys().into_iter().enumerate() {
        let values = plan.values(axis);
        let picked = owner.iter().map(|&p| &values[plan.picks(p)[axis]]);
        columns.push((key.to_string(), value_column(values, picked)));
    }
    columns.push(("scheme".into(), Arc::new(StringArray::from(schemes))));
    for name in metrics {
        let mut cells: Vec<Option<f64>> = Vec::with_capacity(owner.len());
        for (i, b) in points.iter().enumerate() {
            match b.column_by_name(&name) {
                Some(c) => {
                    let c = c
                        .as_any()
                        .downcast_ref::<Float64Array>()
                        .with_context(|| format!("point {i}: `{name}` is not a float column"))?;
                    cells.extend(c.iter());
                }
                None => cells.extend(std::iter::repeat_n(None, b.num_rows())),
            }
        }
        columns.push((name, Arc::new(Float64Array::from(cells))));
    }
    batch(columns)
}

/// A swept key's column: integers, floats (integers among floats widen), booleans, or the
/// values as text, as all of the key's `values` allow.
fn value_column<'a>(
    values: &[toml::Value],
    picked: impl Iterator<Item = &'a toml::Value> + Clone,
) -> ArrayRef {
    use toml::Value as V;
    if values.iter().all(|v| matches!(v, V::Integer(_))) {
        return Arc::new(Int64Array::from_iter_values(
            picked.map(|v| v.as_integer().unwrap_or_default()),
        ));
    }
    if values
        .iter()
        .all(|v| matches!(v, V::Integer(_) | V::Float(_)))
    {
        return Arc::new(Float64Array::from_iter_values(picked.map(|v| match v {
            V::Integer(n) => *n as f64,
            other => other.as_float().unwrap_or_default(),
        })));
    }
    if values.iter().all(|v| matches!(v, V::Boolean(_))) {
        return Arc::new(BooleanArray::from_iter(picked.map(|v| v.as_bool())));
    }
    Arc::new(StringArray::from_iter_values(picked.map(|v| match v {
        V::String(s) => s.clone(),
        other => other.to_string(),
    })))
}
