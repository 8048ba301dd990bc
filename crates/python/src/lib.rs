//! `dctc._dctc`: the native half of the Python package `dctc` (PyO3, abi3).
//!
//! Scenarios are read and checked by the command line's own code (`dctc_cli::api`), runs and
//! sweeps happen with the GIL released, and tables reach Python as Arrow record batches built
//! here (through the Arrow C data interface: no files, no CSV parser on the Python side).
//! Errors become `dctc.ScenarioError` (with the file, key path and reason of the command
//! line's message) or `dctc.DctcError`.

#![forbid(unsafe_code)]

mod arrow;

use dctc_cli::api;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

create_exception!(
    _dctc,
    DctcError,
    PyException,
    "A scenario or sweep dctc cannot run; the message is the command line's."
);
create_exception!(
    _dctc,
    ScenarioError,
    DctcError,
    "A scenario key with a bad value: `.file`, `.key` (dotted path) and `.reason` say which and why."
);

/// A Python exception for `e`: a [`ScenarioError`] carrying the file, key path and reason
/// when a scenario key caused it, else a [`DctcError`]; the message is the command line's.
fn py_err(py: Python<'_>, e: &anyhow::Error) -> PyErr {
    let message = format!("{e:#}");
    match api::scenario_error(e) {
        Some(se) => {
            let err = ScenarioError::new_err(message);
            let value = err.value(py);
            for (name, text) in [("file", &se.file), ("key", &se.key), ("reason", &se.reason)] {
                if let Err(set) = value.setattr(name, text) {
                    return set;
                }
            }
            err
        }
        None => DctcError::new_err(message),
    }
}

/// A Python progress callback, `callback(label, done, total)`, called from the threads that
/// run the engines with the GIL taken for the call only. The first exception it raises is
/// kept and stops further calls (the work goes on: the engines cannot be stopped midway);
/// [`Progress::finish`] raises it once the work is done.
struct Progress {
    callback: Option<Py<PyAny>>,
    error: Mutex<Option<PyErr>>,
}

impl Progress {
    fn new(callback: Option<Py<PyAny>>) -> Progress {
        Progress {
            callback,
            error: Mutex::new(None),
        }
    }

    fn call(&self, label: &str, done: u64, total: u64) {
        let Some(f) = &self.callback else { return };
        let mut error = self.error.lock().unwrap_or_else(|e| e.into_inner());
        if error.is_none() {
            Python::attach(|py| {
                if let Err(e) = f.call1(py, (label, done, total)) {
                    *error = Some(e);
                }
            });
        }
    }

    /// The callback's exception, if it raised one.
    fn finish(self) -> PyResult<()> {
        match self.error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// A checked scenario, ready to run or sweep.
#[pyclass(frozen, module = "dctc._dctc")]
struct Scenario {
    inner: api::Scenario,
}

#[pymethods]
impl Scenario {
    /// The scenario's name.
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// The seed the run uses.
    #[getter]
    fn seed(&self) -> u64 {
        self.inner.seed()
    }
}

/// Reads and checks a scenario file.
#[pyfunction]
#[pyo3(signature = (path, seed=None))]
fn load_path(py: Python<'_>, path: PathBuf, seed: Option<u64>) -> PyResult<Scenario> {
    let s = api::load(&path, seed).map_err(|e| py_err(py, &e.into()))?;
    checked(py, s)
}

/// Parses and checks scenario TOML text; `label` names it in error messages.
#[pyfunction]
#[pyo3(signature = (text, label, seed=None))]
fn load_text(py: Python<'_>, text: &str, label: &str, seed: Option<u64>) -> PyResult<Scenario> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let s = api::parse(text, label, &cwd, seed).map_err(|e| py_err(py, &e.into()))?;
    checked(py, s)
}

/// Checks a scenario given as a dict (nested dicts, lists, str, int, float, bool).
#[pyfunction]
#[pyo3(signature = (doc, seed=None))]
fn load_dict(py: Python<'_>, doc: &Bound<'_, PyDict>, seed: Option<u64>) -> PyResult<Scenario> {
    let value = to_toml(doc.as_any(), "")?;
    let text = toml::to_string(&value).map_err(|e| DctcError::new_err(e.to_string()))?;
    load_text(py, &text, "<dict>", seed)
}

/// Validates `s` as `dctc validate` does.
fn checked(py: Python<'_>, s: api::Scenario) -> PyResult<Scenario> {
    api::validate(&s).map_err(|e| py_err(py, &e))?;
    Ok(Scenario { inner: s })
}

/// A Python value as TOML; `at` is its key path, for the error.
fn to_toml(v: &Bound<'_, PyAny>, at: &str) -> PyResult<toml::Value> {
    let bad = |what: String| PyTypeError::new_err(format!("scenario key `{at}`: {what}"));
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        return v
            .extract::<i64>()
            .map(toml::Value::Integer)
            .map_err(|_| bad(format!("{v} does not fit a 64-bit integer")));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract()?));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(toml::Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut table = toml::Table::new();
        for (k, x) in d.iter() {
            let key: String = k
                .extract()
                .map_err(|_| bad(format!("the key {k} is not a string")))?;
            let path = if at.is_empty() {
                key.clone()
            } else {
                format!("{at}.{key}")
            };
            if !x.is_none() {
                table.insert(key, to_toml(&x, &path)?);
            }
        }
        return Ok(toml::Value::Table(table));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for (i, x) in v.try_iter()?.enumerate() {
            items.push(to_toml(&x?, &format!("{at}[{i}]"))?);
        }
        return Ok(toml::Value::Array(items));
    }
    Err(bad(format!(
        "a {} cannot be written in a scenario (use dict, list, str, int, float or bool)",
        v.get_type().name()?
    )))
}

/// A grid value as TOML: a number, a string or a boolean; else what it is.
fn to_scalar(v: &Bound<'_, PyAny>) -> Result<toml::Value, String> {
    let shown = v
        .repr()
        .map_or_else(|_| "a value".into(), |r| r.to_string());
    match to_toml(v, "") {
        Ok(x) if !x.is_table() && !x.is_array() => Ok(x),
        _ => Err(format!(
            "{shown} is not a single value (a number, a string or a boolean)"
        )),
    }
}

/// A table of a run as the engine's typed columns, turned into Arrow only when asked for.
#[pyclass(frozen, module = "dctc._dctc")]
struct Table {
    records: api::Records,
}

#[pymethods]
impl Table {
    /// The table as a `pyarrow.RecordBatch` (built with the GIL released).
    fn to_arrow<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let batch = py
            .detach(|| arrow::records_batch(&self.records))
            .map_err(|e| py_err(py, &e))?;
        arrow::to_py(py, &batch)
    }

    /// The table as `dctc run` writes it (CSV bytes).
    fn to_csv<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &py.detach(|| self.records.to_csv()))
    }

    fn __len__(&self) -> usize {
        self.records.rows()
    }
}

/// What [`run`] returns: summary JSON, (table name, table) pairs, report HTML.
type RunTuple = (String, Vec<(String, Table)>, String);

/// Runs `scenario` with the GIL released; returns `(summary JSON, [(table name, table)],
/// report HTML)`. `progress(label, simulated us done, us to run)`, if given, is called at the
/// start of each phase (a scheme, or a scheme at one load) and at most once per percent of it.
#[pyfunction]
#[pyo3(signature = (scenario, progress=None))]
fn run(py: Python<'_>, scenario: &Scenario, progress: Option<Py<PyAny>>) -> PyResult<RunTuple> {
    let s = &scenario.inner;
    let progress = Progress::new(progress);
    let run = py.detach(|| api::run_with_progress(s, &|l, d, t| progress.call(l, d, t)));
    progress.finish()?;
    let run = run.map_err(|e| py_err(py, &e))?;
    let tables = run
        .tables
        .into_iter()
        .filter_map(|(name, records)| {
            let stem = name.strip_suffix(".csv")?.to_string();
            Some((stem, Table { records }))
        })
        .collect();
    Ok((run.summary.to_string(), tables, run.report_html))
}

/// A planned sweep: every point built and checked.
#[pyclass(frozen, module = "dctc._dctc")]
struct Plan {
    inner: api::Plan,
}

/// Plans a sweep of `scenario` over `grid`, a list of (key path, values).
#[pyfunction]
fn plan(
    py: Python<'_>,
    scenario: &Scenario,
    grid: Vec<(String, Vec<Bound<'_, PyAny>>)>,
) -> PyResult<Plan> {
    let mut axes = Vec::new();
    for (key, values) in grid {
        let named = format!("grid[\"{key}\"]");
        let values = values
            .iter()
            .map(|v| {
                let x = to_scalar(v)
                    .map_err(|what| PyTypeError::new_err(format!("{named}: {what}")))?;
                Ok(x)
            })
            .collect::<PyResult<Vec<_>>>()?;
        axes.push((key, values));
    }
    let inner = py
        .detach(|| api::plan(&scenario.inner, axes, api::Wording::Python))
        .map_err(|e| py_err(py, &e))?;
    Ok(Plan { inner })
}

/// Runs the point in `source` and returns its sweep rows as an Arrow batch.
fn point_batch(s: &api::Scenario) -> anyhow::Result<arrow_array::RecordBatch> {
    let run = api::run(s)?;
    arrow::point_batch(&api::sweep_rows(&run.summary)?)
}

#[pymethods]
impl Plan {
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// The swept key paths.
    fn keys(&self) -> Vec<String> {
        self.inner.keys().into_iter().map(String::from).collect()
    }

    /// Point `i`'s directory name under `dctc sweep`.
    fn point_name(&self, i: usize) -> PyResult<String> {
        self.index(i)?;
        Ok(self.inner.point_name(i).to_string())
    }

    /// Point `i` as `(toml text, path, base dir, seed)`, for [`run_point`] in another process.
    fn point_source(&self, i: usize) -> PyResult<(String, PathBuf, PathBuf, u64)> {
        self.index(i)?;
        let src = api::Source::of(self.inner.point(i));
        Ok((src.text, src.path, src.base_dir, src.seed))
    }

    /// Runs every point over `jobs` threads (default: all cores) with the GIL released, and
    /// returns the sweep table. `progress("points", finished, total)`, if given, is called
    /// once before the first point and after each point.
    #[pyo3(signature = (jobs=None, progress=None))]
    fn run_local<'py>(
        &self,
        py: Python<'py>,
        jobs: Option<usize>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let jobs = match jobs {
            Some(0) => return Err(DctcError::new_err("jobs=0: at least one worker is needed")),
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let plan = &self.inner;
        let progress = Progress::new(progress);
        let total = plan.len() as u64;
        let table = py.detach(|| {
            progress.call("points", 0, total);
            let finished = AtomicUsize::new(0);
            let next = AtomicUsize::new(0);
            let slots: Vec<std::sync::Mutex<Option<anyhow::Result<_>>>> = (0..plan.len())
                .map(|_| std::sync::Mutex::new(None))
                .collect();
            std::thread::scope(|scope| {
                for _ in 0..jobs.min(plan.len()) {
                    scope.spawn(|| loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(slot) = slots.get(i) else {
                            return;
                        };
                        let result = point_batch(plan.point(i));
                        let failed = result.is_err();
                        if !failed {
                            let done = finished.fetch_add(1, Ordering::SeqCst) + 1;
                            progress.call("points", done as u64, total);
                        }
                        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
                        if failed {
                            // Later points are not worth running: skip them.
                            next.fetch_add(plan.len(), Ordering::SeqCst);
                        }
                    });
                }
            });
            let mut batches = Vec::with_capacity(plan.len());
            for (i, slot) in slots.into_iter().enumerate() {
                match slot.into_inner().unwrap_or_else(|e| e.into_inner()) {
                    Some(Ok(b)) => batches.push(b),
                    Some(Err(e)) => {
                        return Err(e.context(format!("point `{}` failed", plan.point_name(i))))
                    }
                    None => continue,
                }
            }
            arrow::sweep_table(plan, &batches)
        });
        progress.finish()?;
        let table = table.map_err(|e| py_err(py, &e))?;
        arrow::to_py(py, &table)
    }

    /// The sweep table from one batch per point, in point order (from [`run_point`]).
    fn merge<'py>(
        &self,
        py: Python<'py>,
        batches: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let batches = batches
            .iter()
            .map(arrow::from_py)
            .collect::<PyResult<Vec<_>>>()?;
        let table = arrow::sweep_table(&self.inner, &batches).map_err(|e| py_err(py, &e))?;
        arrow::to_py(py, &table)
    }
}

impl Plan {
    fn index(&self, i: usize) -> PyResult<()> {
        if i >= self.inner.len() {
            return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                "point {i} of a sweep of {}",
                self.inner.len()
            )));
        }
        Ok(())
    }
}

/// Runs one sweep point from [`Plan::point_source`] (in a Ray worker, say) and returns its
/// rows, one per scheme, as an Arrow batch.
#[pyfunction]
fn run_point<'py>(
    py: Python<'py>,
    text: String,
    path: PathBuf,
    base_dir: PathBuf,
    seed: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let src = api::Source {
        text,
        path,
        base_dir,
        seed,
    };
    let batch = py
        .detach(|| point_batch(&src.load()?))
        .map_err(|e| py_err(py, &e))?;
    arrow::to_py(py, &batch)
}

/// The module.
#[pymodule]
fn _dctc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("DctcError", py.get_type::<DctcError>())?;
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add_class::<Scenario>()?;
    m.add_class::<Plan>()?;
    m.add_class::<Table>()?;
    m.add_function(wrap_pyfunction!(load_path, m)?)?;
    m.add_function(wrap_pyfunction!(load_text, m)?)?;
    m.add_function(wrap_pyfunction!(load_dict, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(run_point, m)?)?;
    Ok(())
}
