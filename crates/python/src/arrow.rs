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

/// A table of a run (`flows.csv`, ...) as a batch, column by column from the engine's typed
/// values: integers as `Int64`, numbers as `Float64` (null where absent; the values
/// themselves, also where the CSV rounds them), booleans, text as `Utf8`.
pub(crate) fn records_batch(t: &api::Records) -> Result<RecordBatch> {
    let mut columns: Vec<(String, ArrayRef)> = Vec::with_capacity(t.columns().len());
    for c in t.columns() {
        let array: ArrayRef = match &c.values {
            api::Values::UInt(v) => {
                let mut out = Vec::with_capacity(v.len());
                for &x in v {
                    out.push(i64::try_from(x).with_context(|| {
                        format!(
                            "column `{}` holds {x}, beyond a 64-bit signed integer",
                            c.name
                        )
                    })?);
                }
                Arc::new(Int64Array::from(out))
            }
            api::Values::Float { values, .. } => {
                Arc::new(Float64Array::from_iter(values.iter().copied()))
            }
            api::Values::Bool(v) => Arc::new(BooleanArray::from(v.clone())),
            api::Values::Text(v) => Arc::new(StringArray::from_iter_values(v)),
        };
        columns.push((c.name.clone(), array));
    }
    batch(columns)
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
