//! `dctc sweep`: the cartesian product of values of scenario keys, each point run as an
//! ordinary scenario into `DIR/<point>/`, in parallel over worker threads, plus `DIR/sweep.csv`
//! with one row per point and scheme and `DIR/report.html` plotting the main metrics against
//! the first swept key.
//!
//! Every point is built and validated before anything runs or is written. Runs are
//! independent and single-threaded, and everything written depends only on the points, so the
//! output tree is byte-identical whatever `--jobs` is. A point whose directory already holds
//! dctc's marker and a `summary.json` echoing the same scenario is complete and skipped, so an
//! interrupted sweep resumes where it stopped.

use crate::output;
use crate::progress::Progress;
use crate::scenario::Scenario;
use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Most values one `--set` may give (a range included).
const MAX_VALUES: u64 = 10_000;
/// Most points a sweep may have.
const MAX_POINTS: usize = 100_000;
/// Longest point directory name, in bytes (file systems allow 255).
const MAX_NAME: usize = 200;

/// Arguments of `dctc sweep`.
#[derive(clap::Args)]
pub(crate) struct SweepArgs {
    /// Scenario file (TOML).
    scenario: PathBuf,
    /// `KEY=V1,V2,...` or `KEY=A..B` (integers, inclusive): values for a scalar key path of
    /// the scenario (`seed`, `duration_ms`, `workload[0].load`, `schemes[1].ecn_k_bytes`).
    /// Repeat for more keys; the sweep runs every combination.
    #[arg(long = "set", value_name = "KEY=VALUES", required = true)]
    sets: Vec<String>,
    /// Worker threads, each running one point at a time (default: all cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Output directory (default: out/<scenario name>-sweep).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Replace `--out`, or a point directory in it, even if dctc did not write it.
    #[arg(long)]
    force: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// One step of a key path: a table key or an array index.
#[derive(Clone, Debug, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// One `--set`: a key path and its values.
#[derive(Debug)]
struct Axis {
    /// The key path as written (normalized), e.g. `workload[0].load`.
    key: String,
    /// Its steps.
    path: Vec<Seg>,
    /// Short name used in point directory names (the last key, or the whole path when two
    /// axes share a last key).
    label: String,
    /// The values, in the order given.
    values: Vec<toml::Value>,
}

/// One combination of values: a scenario to run.
struct Point {
    /// Directory name, e.g. `load=0.2,seed=1`.
    name: String,
    /// The value of each axis, as written into `sweep.csv`.
    cells: Vec<String>,
    /// Which value of each axis (an index into [`Axis::values`]).
    picks: Vec<usize>,
    /// The scenario with the values set.
    scenario: Scenario,
}

/// Parses `workload[0].load` into steps.
fn parse_path(key: &str) -> Result<Vec<Seg>, String> {
    if key.is_empty() {
        return Err("the key path is empty".into());
    }
    let mut segs = Vec::new();
    for part in key.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => part.split_at(i),
            None => (part, ""),
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(format!(
                "`{part}` is not a key (letters, digits, '_' or '-', then optional [index])"
            ));
        }
        segs.push(Seg::Key(name.to_string()));
        while !rest.is_empty() {
            let close = rest
                .find(']')
                .filter(|_| rest.starts_with('['))
                .ok_or_else(|| format!("`{part}`: expected `[index]`"))?;
            let index: usize = rest[1..close]
                .parse()
                .map_err(|_| format!("`{part}`: `{}` is not an array index", &rest[1..close]))?;
            segs.push(Seg::Index(index));
            rest = &rest[close + 1..];
        }
    }
    Ok(segs)
}

/// The value a `--set` item stands for: a TOML number, boolean or quoted string, else the text
/// as a string (so `name=dctcp` needs no quotes).
fn parse_value(text: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {text}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .filter(|v| !v.is_table() && !v.is_array())
        .unwrap_or_else(|| toml::Value::String(text.to_string()))
}

/// Parses `A..B` (integers) into its values, or `None` when `item` is not a range.
fn parse_range(item: &str) -> Option<Result<Vec<toml::Value>, String>> {
    let (a, b) = item.split_once("..")?;
    let (Ok(a), Ok(b)) = (a.trim().parse::<i64>(), b.trim().parse::<i64>()) else {
        return Some(Err(format!(
            "`{item}`: a range is two integers, `A..B` (inclusive)"
        )));
    };
    if a > b {
        return Some(Err(format!("`{item}`: the range is empty ({a} > {b})")));
    }
    let count = (b as i128 - a as i128 + 1) as u128;
    if count > MAX_VALUES as u128 {
        return Some(Err(format!(
            "`{item}` has {count} values, more than the {MAX_VALUES} one --set may give"
        )));
    }
    Some(Ok((a..=b).map(toml::Value::Integer).collect()))
}

/// Parses one `--set KEY=VALUES`.
fn parse_set(set: &str) -> Result<(String, Vec<Seg>, Vec<toml::Value>)> {
    let fail = |reason: String| anyhow!("--set {set}: {reason}");
    let (key, list) = set
        .split_once('=')
        .ok_or_else(|| fail("expected KEY=V1,V2,... or KEY=A..B".into()))?;
    let key = key.trim();
    let path = parse_path(key).map_err(fail)?;
    let mut values = Vec::new();
    for item in list.split(',') {
        let item = item.trim();
        if item.is_empty() {
            return Err(fail(if list.trim().is_empty() {
                format!("no values for `{key}`")
            } else {
                format!("an empty value in the list for `{key}`")
            }));
        }
        match parse_range(item) {
            Some(r) => values.extend(r.map_err(fail)?),
            None => values.push(parse_value(item)),
        }
        if values.len() as u64 > MAX_VALUES {
            return Err(fail(format!(
                "more than the {MAX_VALUES} values one --set may give"
            )));
        }
    }
    Ok((key.to_string(), path, values))
}

/// Sets the scalar at `path` in `root` to `value`. Missing tables on the way are created;
/// arrays must already hold the index. A float key given an integer keeps a float.
fn set_path(root: &mut toml::Value, path: &[Seg], value: &toml::Value) -> Result<(), String> {
    let mut here = root;
    let mut walked = String::new();
    let (last, init) = path.split_last().expect("a parsed path has a step");
    for (i, seg) in init.iter().enumerate() {
        let next_is_index = matches!(path.get(i + 1), Some(Seg::Index(_)));
        here = step(here, seg, &mut walked, next_is_index)?;
    }
    let scalar = |old: &toml::Value, at: &str| -> Result<toml::Value, String> {
        if old.is_table() || old.is_array() {
            return Err(format!(
                "`{at}` is a {}, not a single value",
                if old.is_table() { "table" } else { "array" }
            ));
        }
        Ok(match (old, value) {
            (toml::Value::Float(_), toml::Value::Integer(n)) => toml::Value::Float(*n as f64),
            _ => value.clone(),
        })
    };
    match last {
        Seg::Key(k) => {
            let at = join(&walked, last);
            let table = here
                .as_table_mut()
                .ok_or_else(|| format!("`{walked}` is not a table"))?;
            let new = match table.get(k) {
                Some(old) => scalar(old, &at)?,
                None => value.clone(),
            };
            table.insert(k.clone(), new);
        }
        Seg::Index(i) => {
            let at = join(&walked, last);
            let array = here
                .as_array_mut()
                .ok_or_else(|| format!("`{walked}` is not an array"))?;
            let len = array.len();
            let slot = array
                .get_mut(*i)
                .ok_or_else(|| format!("`{at}`: `{walked}` has {len} entries"))?;
            *slot = scalar(slot, &at)?;
        }
    }
    Ok(())
}

/// `walked` followed by `seg`, as a key path.
fn join(walked: &str, seg: &Seg) -> String {
    match seg {
        Seg::Key(k) if walked.is_empty() => k.clone(),
        Seg::Key(k) => format!("{walked}.{k}"),
        Seg::Index(i) => format!("{walked}[{i}]"),
    }
}

/// One step down from `here` along `seg`, creating a missing table (not a missing array).
fn step<'a>(
    here: &'a mut toml::Value,
    seg: &Seg,
    walked: &mut String,
    next_is_index: bool,
) -> Result<&'a mut toml::Value, String> {
    let at = join(walked, seg);
    let next = match seg {
        Seg::Key(k) => {
            let table = here
                .as_table_mut()
                .ok_or_else(|| format!("`{walked}` is not a table"))?;
            if !table.contains_key(k) {
                if next_is_index {
                    return Err(format!("`{at}`: the scenario has no such array"));
                }
                table.insert(k.clone(), toml::Value::Table(toml::Table::new()));
            }
            table.get_mut(k).expect("present")
        }
        Seg::Index(i) => {
            let array = here
                .as_array_mut()
                .ok_or_else(|| format!("`{walked}` is not an array"))?;
            let len = array.len();
            array
                .get_mut(*i)
                .ok_or_else(|| format!("`{at}`: `{walked}` has {len} entries"))?
        }
    };
    *walked = at;
    Ok(next)
}

/// A value as text: strings bare, everything else as TOML writes it.
fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `text` with every character a file name should not hold replaced by `_`.
fn file_safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._+-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Parses the `--set`s into axes, naming each by its last key unless two share it.
fn axes(sets: &[String]) -> Result<Vec<Axis>> {
    let mut parsed = Vec::new();
    for set in sets {
        let (key, path, values) = parse_set(set)?;
        if parsed.iter().any(|(_, p, _)| *p == path) {
            bail!("--set {set}: `{key}` is already swept by another --set");
        }
        parsed.push((key, path, values));
    }
    Ok(name_axes(parsed))
}

/// Axes from parsed keys and values, each named by its last key unless two share it.
fn name_axes(parsed: Vec<(String, Vec<Seg>, Vec<toml::Value>)>) -> Vec<Axis> {
    let mut axes: Vec<Axis> = Vec::new();
    for (key, path, values) in parsed {
        let label = match path.last() {
            Some(Seg::Key(k)) => k.clone(),
            _ => key.clone(),
        };
        axes.push(Axis {
            key,
            path,
            label,
            values,
        });
    }
    let labels: Vec<String> = axes.iter().map(|a| a.label.clone()).collect();
    for a in &mut axes {
        if labels.iter().filter(|l| **l == a.label).count() > 1 {
            a.label = a.key.clone();
        }
        a.label = file_safe(&a.label);
    }
    axes
}

/// How error messages name a swept key and one of its values: as the front end that took
/// them writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wording {
    /// The command line's: `--set KEY` and `--set KEY=VALUE`.
    Cli,
    /// Python's `dctc.sweep(grid=...)`: `grid["KEY"]` and `grid["KEY"] = VALUE`, the value
    /// as Python writes it (`True`, `'text'`).
    Python,
}

impl Wording {
    /// The key as the user gave it.
    fn key(self, key: &str) -> String {
        match self {
            Wording::Cli => format!("--set {key}"),
            Wording::Python => format!("grid[{}]", python_str(key)),
        }
    }

    /// The key set to `v`, as the user gave it.
    fn set(self, key: &str, v: &toml::Value) -> String {
        match self {
            Wording::Cli => format!("--set {key}={}", value_text(v)),
            Wording::Python => {
                let value = match v {
                    toml::Value::String(s) => python_str(s),
                    toml::Value::Boolean(true) => "True".into(),
                    toml::Value::Boolean(false) => "False".into(),
                    other => other.to_string(),
                };
                format!("grid[{}] = {value}", python_str(key))
            }
        }
    }

    /// Separates the settings of one point.
    fn separator(self) -> &'static str {
        match self {
            Wording::Cli => " ",
            Wording::Python => ", ",
        }
    }
}

/// `s` as a Python string literal in double quotes.
fn python_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Every key path of `doc` that holds a value (a scalar or an array of scalars), in the
/// document's order: `seed`, `fabric.kind`, `workload[0].load`, ...
fn leaf_paths(doc: &toml::Value) -> Vec<String> {
    fn walk(v: &toml::Value, at: &str, out: &mut Vec<String>) {
        match v {
            toml::Value::Table(t) => {
                for (k, v) in t {
                    walk(v, &join(at, &Seg::Key(k.clone())), out);
                }
            }
            toml::Value::Array(a) if a.iter().any(|v| v.is_table()) => {
                for (i, v) in a.iter().enumerate() {
                    walk(v, &join(at, &Seg::Index(i)), out);
                }
            }
            _ => out.push(at.to_string()),
        }
    }
    let mut out = Vec::new();
    walk(doc, "", &mut out);
    out
}

/// The value `doc` holds at `path`, if any.
fn lookup<'a>(doc: &'a toml::Value, path: &[Seg]) -> Option<&'a toml::Value> {
    path.iter().try_fold(doc, |here, seg| match seg {
        Seg::Key(k) => here.as_table()?.get(k),
        Seg::Index(i) => here.as_array()?.get(*i),
    })
}

/// For a swept key the scenario does not hold, the full key path the user probably meant: a
/// path of the scenario ending in the same key (`load` -> `workload[0].load`), else the
/// nearest path by spelling. `None` when the key is in the scenario, when it goes into a table
/// the scenario has (a key the file may add, such as a scheme's own; a misspelling there is
/// named by the scenario's own error), or when nothing is near.
fn suggest_path(doc: &toml::Value, axis: &Axis) -> Option<String> {
    let parent = &axis.path[..axis.path.len() - 1];
    let in_a_table = !parent.is_empty() && lookup(doc, parent).is_some_and(toml::Value::is_table);
    if lookup(doc, &axis.path).is_some() || in_a_table {
        return None;
    }
    let leaves = leaf_paths(doc);
    let last = match axis.path.last() {
        Some(Seg::Key(k)) => k.as_str(),
        _ => return None,
    };
    let same_last = leaves
        .iter()
        .find(|p| p.rsplit('.').next().is_some_and(|tail| tail == last) && **p != axis.key);
    same_last.cloned().or_else(|| {
        let refs: Vec<&str> = leaves.iter().map(String::as_str).collect();
        dctc_core::error::nearest(&axis.key, &refs).map(str::to_string)
    })
}

/// Builds and validates every point of the sweep, in order (the last axis varies fastest).
/// Errors name the settings in `wording`, and end with the full key path of a swept key the
/// scenario does not hold ("did you mean ...?").
fn points(s: &Scenario, axes: &[Axis], wording: Wording) -> Result<Vec<Point>> {
    let hints: Vec<String> = axes
        .iter()
        .filter_map(|a| suggest_path(&s.raw, a))
        .map(|p| format!("did you mean {}?", wording.key(&p)))
        .collect();
    points_inner(s, axes, wording).map_err(|mut e| {
        if hints.is_empty() {
            return e;
        }
        let hint = hints.join(" ");
        // At the end of the reason, so the message still opens with the setting and a front
        // end still reaches the ScenarioError (its key) under the context.
        match e.downcast_mut::<crate::parse::ScenarioError>() {
            Some(se) => {
                se.reason = format!("{}; {hint}", se.reason);
                e
            }
            None => anyhow!("{e:#}; {hint}"),
        }
    })
}

/// [`points`] without the key-path hints.
fn points_inner(s: &Scenario, axes: &[Axis], wording: Wording) -> Result<Vec<Point>> {
    let total = axes
        .iter()
        .try_fold(1usize, |n, a| n.checked_mul(a.values.len()))
        .filter(|n| *n <= MAX_POINTS)
        .ok_or_else(|| anyhow!("the sweep has more than {MAX_POINTS} points"))?;
    let mut out = Vec::with_capacity(total);
    let mut names = std::collections::BTreeSet::new();
    for n in 0..total {
        let mut rest = n;
        let mut picks = vec![0; axes.len()];
        for (i, a) in axes.iter().enumerate().rev() {
            picks[i] = rest % a.values.len();
            rest /= a.values.len();
        }
        let mut doc = s.raw.clone();
        let mut name_parts = Vec::new();
        let mut cells = Vec::new();
        let mut sets = Vec::new();
        for (a, &p) in axes.iter().zip(&picks) {
            let v = &a.values[p];
            set_path(&mut doc, &a.path, v)
                .map_err(|reason| anyhow!("{}: {reason}", wording.set(&a.key, v)))?;
            name_parts.push(format!("{}={}", a.label, file_safe(&value_text(v))));
            cells.push(value_text(v));
            sets.push(wording.set(&a.key, v));
        }
        let name = name_parts.join(",");
        if name.len() > MAX_NAME {
            bail!("point `{name}`: the directory name is longer than {MAX_NAME} bytes; sweep fewer keys");
        }
        if !names.insert(name.to_ascii_lowercase()) {
            bail!("two points share the directory name `{name}` (values that differ only in case or in characters a file name cannot hold)");
        }
        let text = toml::to_string(&doc).context("cannot write the point's scenario")?;
        // A context, not a new message, so a front end can still reach the ScenarioError.
        let point = Scenario::from_source(&text, &s.path, &s.base_dir, None, Some(&s.name))
            .map_err(anyhow::Error::from)
            .and_then(|p| crate::validate(&p).map(|()| p))
            .with_context(|| format!("{} (point `{name}`)", sets.join(wording.separator())))?;
        out.push(Point {
            name,
            cells,
            picks,
            scenario: point,
        });
    }
    Ok(out)
}

/// Whether `dir` holds a finished run of `s`: dctc's marker, and a `summary.json` that echoes
/// the same scenario.
fn complete(dir: &Path, s: &Scenario) -> bool {
    if !dir.join(output::MARKER).is_file() {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(dir.join("summary.json")) else {
        return false;
    };
    serde_json::from_str::<Json>(&text).is_ok_and(|j| {
        j.get("scenario")
            .is_some_and(|e| same(e, &output::scenario_echo(s)))
    })
}

/// Whether two JSON values are equal, numbers within a relative 1e-15 (serde_json's parser may
/// read a long decimal back one unit in the last place off).
fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => {
            x == y
                || x.as_f64()
                    .zip(y.as_f64())
                    .is_some_and(|(x, y)| (x - y).abs() <= 1e-15 * x.abs().max(y.abs()))
        }
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Serializes the final writes of finished points, so the SIGINT deferral of
/// [`output::write_atomically`] (one guarded directory at a time) stays exact.
static WRITING: Mutex<()> = Mutex::new(());

/// `dctc sweep`.
pub(crate) fn run(args: &SweepArgs) -> Result<()> {
    let base = Scenario::load(&args.scenario, None)?;
    let axes = axes(&args.sets)?;
    let jobs = match args.jobs {
        Some(0) => bail!("--jobs 0: at least one worker is needed"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let points = points(&base, &axes, Wording::Cli)?;
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join(format!("{}-sweep", base.name)));
    // One sweep writes `dir` at a time: its lock is held until the last file is written.
    let _lock = output::lock(&dir)?;
    if std::fs::symlink_metadata(&dir).is_ok() && !dir.join(output::MARKER).is_file() {
        // `prepare_dir` would replace it whole.
        output::refuse_inputs_inside(&dir, &base.input_files())?;
    }
    prepare_dir(&dir, args.force)?;
    let pending: Vec<usize> = (0..points.len())
        .filter(|&i| !complete(&dir.join(&points[i].name), &points[i].scenario))
        .collect();
    for &i in &pending {
        let point = dir.join(&points[i].name);
        output::check_destination(&point, args.force)?;
        output::refuse_inputs_inside(&point, &points[i].scenario.input_files())?;
    }
    let skipped = points.len() - pending.len();
    let progress = Progress::points(!args.quiet, pending.len() as u64);
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let errors: Mutex<Vec<(usize, anyhow::Error)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(pending.len()) {
            scope.spawn(|| loop {
                if failed.load(Ordering::SeqCst) {
                    return;
                }
                let Some(&i) = pending.get(next.fetch_add(1, Ordering::SeqCst)) else {
                    return;
                };
                let p = &points[i];
                let result =
                    crate::run_engine(&p.scenario, &Progress::new(false)).and_then(|out| {
                        let _lock = WRITING.lock().unwrap_or_else(|e| e.into_inner());
                        output::write_run(&dir.join(&p.name), &p.scenario, &out, args.force)
                    });
                match result {
                    Ok(_) => progress.inc(),
                    Err(e) => {
                        failed.store(true, Ordering::SeqCst);
                        errors
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push((i, e));
                    }
                }
            });
        }
    });
    progress.finish();
    let mut errors = errors.into_inner().unwrap_or_else(|e| e.into_inner());
    errors.sort_by_key(|(i, _)| *i);
    if let Some((i, e)) = errors.into_iter().next() {
        bail!(
            "point `{}` failed: {e:#} (finished points are kept: rerun the same command to resume)",
            points[i].name
        );
    }
    let rows = collect(&dir, &points)?;
    write_file(&dir, "sweep.csv", &table(&axes, &points, &rows))?;
    let html = report(&base, &axes, &points, &rows).to_html();
    write_file(&dir, "report.html", html.as_bytes())?;
    crate::emit(&format!(
        "sweep: {} points; ran {}, skipped {skipped} already complete\nwrote {} and {}\n",
        points.len(),
        pending.len(),
        dir.join("sweep.csv").display(),
        dir.join("report.html").display()
    ));
    Ok(())
}

/// Makes `dir` a dctc output directory to write points into: refused as
/// [`output::check_destination`] refuses; an existing directory dctc wrote is kept (its
/// complete points are reused), any other is replaced whole with `force`.
fn prepare_dir(dir: &Path, force: bool) -> Result<()> {
    output::check_destination(dir, force)?;
    if let Ok(meta) = std::fs::symlink_metadata(dir) {
        if meta.is_dir() && !dir.join(output::MARKER).is_file() {
            std::fs::remove_dir_all(dir)
                .with_context(|| format!("cannot replace {}", dir.display()))?;
        } else if !meta.is_dir() {
            std::fs::remove_file(dir)
                .with_context(|| format!("cannot replace {}", dir.display()))?;
        }
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    output::mark(dir)
}

/// Numeric leaves of a summary: dotted name, and the number as `summary.json` writes it
/// (`None` for `null`).
type Leaves = Vec<(String, Option<String>)>;

/// Appends the numeric leaves of `v` below `prefix` (dotted names); `null` counts as a number
/// that is missing. Strings, booleans and arrays are left out.
fn flatten(prefix: &str, v: &Json, out: &mut Leaves) {
    match v {
        Json::Object(m) => {
            for (k, x) in m {
                let name = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&name, x, out);
            }
        }
        Json::Number(n) => out.push((prefix.to_string(), Some(n.to_string()))),
        Json::Null => out.push((prefix.to_string(), None)),
        _ => {}
    }
}

/// Writes `dir/name` whole: into a hidden file first, then renamed into place.
fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let tmp = dir.join(format!(".{name}.partial"));
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, dir.join(name))
        .with_context(|| format!("cannot write {}", dir.join(name).display()))
}

/// One scheme of one point: its summary's numeric leaves.
struct Row {
    /// Index of the point.
    point: usize,
    /// The scheme's label (its key under `schemes`).
    scheme: String,
    /// Numeric leaves of `schemes.<label>`.
    leaves: Leaves,
}

impl Row {
    /// The number at dotted path `name`, if present and not `null`.
    fn get(&self, name: &str) -> Option<&str> {
        self.leaves
            .iter()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.as_deref())
    }
}

/// Reads every point's `summary.json`, in point order, into one row per scheme.
fn collect(dir: &Path, points: &[Point]) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for (i, p) in points.iter().enumerate() {
        let path = dir.join(&p.name).join("summary.json");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let summary: Json = serde_json::from_str(&text)
            .with_context(|| format!("{}: not valid JSON", path.display()))?;
        let schemes = scheme_leaves(&summary)
            .ok_or_else(|| anyhow!("{}: no `schemes` object", path.display()))?;
        for (scheme, leaves) in schemes {
            rows.push(Row {
                point: i,
                scheme,
                leaves,
            });
        }
    }
    Ok(rows)
}

/// The numeric leaves of each scheme of a summary (`schemes.<label>`), in the scenario's
/// order (the summary's echo of its `schemes`; JSON objects come sorted by key); `None` when
/// it has no `schemes` object.
fn scheme_leaves(summary: &Json) -> Option<Vec<(String, Leaves)>> {
    let Some(Json::Object(schemes)) = summary.get("schemes") else {
        return None;
    };
    let order: Vec<&str> = summary
        .pointer("/scenario/schemes")
        .and_then(Json::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|t| t.get("label").or_else(|| t.get("name"))?.as_str())
                .collect()
        })
        .unwrap_or_default();
    let mut rows: Vec<(String, Leaves)> = schemes
        .iter()
        .map(|(label, v)| {
            let mut leaves = Vec::new();
            flatten("", v, &mut leaves);
            (label.clone(), leaves)
        })
        .collect();
    // Labels the echo does not name (none today) keep the summary's order, after the others.
    rows.sort_by_key(|(label, _)| order.iter().position(|l| l == label).unwrap_or(order.len()));
    Some(rows)
}

/// Metrics `report.html` plots for all flows, where the summaries have them: (dotted path,
/// title with its unit). A metric may also sit below a prefix (the flow engine's per-load
/// `load_50.avg_cct_s`).
const PLOTTED: [(&str, &str); 8] = [
    ("fct_slowdown.overall.p99", "p99 FCT slowdown (FCT / ideal)"),
    (
        "fct_slowdown.overall.mean",
        "mean FCT slowdown (FCT / ideal)",
    ),
    ("flows_unfinished", "unfinished flows (count)"),
    ("goodput_gbps", "goodput (Gb/s)"),
    ("drops.packets", "dropped packets (count)"),
    ("timeouts", "retransmission timeouts (count)"),
    ("avg_cct_s", "average CCT (s)"),
    ("avg_fct_s", "average FCT (s)"),
];

/// What the report plots of each size class (`fct_slowdown.by_bytes.<class>` and
/// `fct_slowdown.by_size.<bucket>`): (leaf, title with its unit).
const PER_CLASS: [(&str, &str); 3] = [
    ("p99", "p99 FCT slowdown (FCT / ideal)"),
    ("mean", "mean FCT slowdown (FCT / ideal)"),
    ("unfinished", "unfinished flows (count)"),
];

/// A swept key as an axis title: what it is and its unit, then the key path, e.g.
/// `offered load (fraction of capacity): workload[0].load`.
fn axis_title(key: &str) -> String {
    let last = key
        .rsplit('.')
        .next()
        .unwrap_or(key)
        .split('[')
        .next()
        .unwrap_or(key);
    let known = match last {
        "load" => Some("offered load (fraction of capacity)".to_string()),
        "seed" => Some("seed".to_string()),
        _ => [
            ("_us", "us"),
            ("_ms", "ms"),
            ("_bytes", "bytes"),
            ("_gbps", "Gb/s"),
            ("_mbps", "Mb/s"),
            ("_packets", "packets"),
        ]
        .iter()
        .find_map(|(suffix, unit)| {
            last.strip_suffix(suffix)
                .map(|stem| format!("{} ({unit})", stem.replace('_', " ")))
        }),
    };
    match known {
        Some(t) if t != key => format!("{t}: {key}"),
        _ => key.to_string(),
    }
}

/// One plotted metric: its column in the rows, and the chart's title.
struct Plot {
    column: String,
    title: String,
}

/// `report.html`: per group of metrics (all flows; each byte class; each packet bucket; other
/// engines' metrics), a table of every plotted number and a chart per metric against the first
/// swept key, one line per scheme in the scenario's order at the mean over the other keys'
/// values, with the minimum and maximum as their own series where they differ from the mean
/// (the report's charts have no error bars). A metric whose positive values span two orders of
/// magnitude or more, with no zero, gets a log axis.
fn report(base: &Scenario, axes: &[Axis], points: &[Point], rows: &[Row]) -> dctc_report::Report {
    let first = &axes[0];
    let others: Vec<&str> = axes[1..].iter().map(|a| a.key.as_str()).collect();
    let mut report = dctc_report::Report::new(
        format!("Sweep of {}", base.name),
        format!(
            "{} points: {}",
            points.len(),
            axes.iter()
                .map(|a| format!(
                    "{} = {}",
                    a.key,
                    a.values
                        .iter()
                        .map(value_text)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    );
    report.meta = format!(
        "dctc {} (commit {})",
        crate::provenance::VERSION,
        crate::provenance::COMMIT
    );
    let mut schemes: Vec<&str> = Vec::new();
    for r in rows {
        if !schemes.contains(&r.scheme.as_str()) {
            schemes.push(&r.scheme);
        }
    }
    let numeric: Option<Vec<f64>> = first
        .values
        .iter()
        .map(|v| match v {
            toml::Value::Integer(n) => Some(*n as f64),
            toml::Value::Float(x) => Some(*x),
            _ => None,
        })
        .collect();
    let mut intro = dctc_report::Section::new(format!("Against {}", first.key));
    intro.push_paragraph(if others.is_empty() {
        "One run per value.".to_string()
    } else {
        format!(
            "Lines and tables: the mean over the values of {}; `min` and `max` series: their range.",
            others.join(", ")
        )
    });
    intro.push_paragraph(
        "Slowdown percentiles are over completed flows; the unfinished flows of each class are \
         counted beside them, so a scheme that leaves flows behind cannot look better for it. \
         An empty cell or a missing point: no flow of that class in those runs.",
    );
    if numeric.is_none() {
        intro.push_paragraph(format!(
            "{} is not a number: the values are plotted in the order given, at 0, 1, 2, ...",
            first.key
        ));
    }
    report.push_section(intro);
    let xs: Vec<f64> =
        numeric.unwrap_or_else(|| (0..first.values.len()).map(|i| i as f64).collect());
    let all = columns(rows);
    let sweep = SweepView {
        first,
        xs: &xs,
        schemes: &schemes,
        points,
        rows,
    };
    for (heading, plots) in plot_groups(&all) {
        if !plots.is_empty() {
            report.push_section(sweep.section(&heading, &plots));
        }
    }
    report
}

/// The plotted metrics found in `columns`, in groups of one section each: all flows, each byte
/// class, each packet bucket.
fn plot_groups(columns: &[String]) -> Vec<(String, Vec<Plot>)> {
    let mut overall = Vec::new();
    for (metric, title) in PLOTTED {
        let tail = format!(".{metric}");
        for c in columns {
            if c == metric {
                overall.push(Plot {
                    column: c.clone(),
                    title: title.to_string(),
                });
            } else if let Some(prefix) = c.strip_suffix(&tail) {
                overall.push(Plot {
                    column: c.clone(),
                    title: format!("{title}, {prefix}"),
                });
            }
        }
    }
    let mut groups = vec![("All flows".to_string(), overall)];
    for (by, unit) in [
        ("fct_slowdown.by_bytes.", ""),
        ("fct_slowdown.by_size.", " packets"),
    ] {
        let mut classes: Vec<&str> = Vec::new();
        for c in columns {
            if let Some(class) = c.strip_prefix(by).and_then(|x| x.rsplit_once('.')) {
                if !classes.contains(&class.0) {
                    classes.push(class.0);
                }
            }
        }
        // Summaries hold classes sorted by label; plot them smallest first.
        classes.sort_by(|a, b| class_floor(a).total_cmp(&class_floor(b)));
        for class in classes {
            let plots = PER_CLASS
                .iter()
                .map(|(leaf, title)| (format!("{by}{class}.{leaf}"), title))
                .filter(|(c, _)| columns.contains(c))
                .map(|(column, title)| Plot {
                    title: format!("{title}, {class}{unit}"),
                    column,
                })
                .collect();
            groups.push((format!("Flows of {class}{unit}"), plots));
        }
    }
    groups
}

/// Where a size class label starts, for ordering: `<=100KB` 0, `100KB-10MB` 1e5, `>10MB`
/// just above 1e7; packet buckets (`1`, `1-10`, `>1000`) alike. Unreadable labels go last.
fn class_floor(label: &str) -> f64 {
    let size = |t: &str| -> Option<f64> {
        let digits = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let scale = match &t[digits.len()..] {
            "" | "B" => 1.0,
            "KB" => 1e3,
            "MB" => 1e6,
            "GB" => 1e9,
            _ => return None,
        };
        digits.parse::<f64>().ok().map(|x| x * scale)
    };
    let floor = if label.starts_with("<=") {
        Some(0.0)
    } else if let Some(rest) = label.strip_prefix('>') {
        size(rest).map(|x| x + 0.5)
    } else {
        size(label.split('-').next().unwrap_or(label))
    };
    floor.unwrap_or(f64::INFINITY)
}

/// What every section of a sweep report plots against.
struct SweepView<'a> {
    first: &'a Axis,
    xs: &'a [f64],
    schemes: &'a [&'a str],
    points: &'a [Point],
    rows: &'a [Row],
}

impl SweepView<'_> {
    /// The values of `column` for `scheme` at the `xi`-th value of the first key, over the
    /// other keys' values.
    fn values(&self, scheme: &str, xi: usize, column: &str) -> Vec<f64> {
        self.rows
            .iter()
            .filter(|r| r.scheme == scheme && self.points[r.point].picks[0] == xi)
            .filter_map(|r| r.get(column).and_then(|v| v.parse::<f64>().ok()))
            .collect()
    }

    /// A section: the table of every number its charts plot (means), then one chart per plot.
    fn section(&self, heading: &str, plots: &[Plot]) -> dctc_report::Section {
        use dctc_report::{Cell, Chart, Series, Table};
        let mut section = dctc_report::Section::new(heading);
        let mut header = vec![self.first.key.clone(), "scheme".to_string()];
        header.extend(plots.iter().map(|p| p.title.clone()));
        let mut table = Table::new(format!("{heading}: the plotted numbers"), header);
        for (xi, v) in self.first.values.iter().enumerate() {
            for scheme in self.schemes {
                let mut row = vec![Cell::Text(value_text(v)), Cell::Text(scheme.to_string())];
                for p in plots {
                    let ys = self.values(scheme, xi, &p.column);
                    row.push(if ys.is_empty() {
                        Cell::Text(String::new())
                    } else {
                        Cell::Num(ys.iter().sum::<f64>() / ys.len() as f64)
                    });
                }
                table.push_row(row);
            }
        }
        section.push_table(table);
        for p in plots {
            let mut series = Vec::new();
            for scheme in self.schemes {
                let (mut mean, mut low, mut high) = (Vec::new(), Vec::new(), Vec::new());
                for (xi, &x) in self.xs.iter().enumerate() {
                    let ys = self.values(scheme, xi, &p.column);
                    if ys.is_empty() {
                        continue;
                    }
                    mean.push((x, ys.iter().sum::<f64>() / ys.len() as f64));
                    low.push((x, ys.iter().copied().fold(f64::INFINITY, f64::min)));
                    high.push((x, ys.iter().copied().fold(f64::NEG_INFINITY, f64::max)));
                }
                let spread = low.iter().zip(&high).any(|(a, b)| a.1 < b.1);
                series.push(Series::new(scheme.to_string(), mean));
                if spread {
                    series.push(Series::new(format!("{scheme} min"), low));
                    series.push(Series::new(format!("{scheme} max"), high));
                }
            }
            let ys: Vec<f64> = series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1))
                .collect();
            let (lo, hi) = ys.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &y| {
                (lo.min(y), hi.max(y))
            });
            let log = lo > 0.0 && hi >= 100.0 * lo;
            let mut chart =
                Chart::line(&p.title, axis_title(&self.first.key), &p.title).with_log(false, log);
            for s in series {
                chart.push_series(s);
            }
            section.push_chart(chart);
        }
        section
    }
}

/// The metric columns of `sweep.csv`: every leaf name, in order of first appearance.
fn columns(rows: &[Row]) -> Vec<String> {
    metric_columns(
        rows.iter()
            .flat_map(|r| r.leaves.iter().map(|(n, _)| n.as_str())),
    )
}

/// The metric columns of a sweep table from the leaf names of its rows, in row order: each
/// name once, in order of first appearance, less those that other names nest below.
pub(crate) fn metric_columns<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut columns: Vec<String> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for name in names {
        if seen.insert(name.to_string()) {
            columns.push(name.to_string());
        }
    }
    // A `null` where other rows hold an object (an empty bucket) is covered by those columns.
    columns.retain(|c| {
        let inner = format!("{c}.");
        !seen.iter().any(|s| s.starts_with(&inner))
    });
    columns
}

/// `sweep.csv`: one row per point (in point order) and scheme, the swept values, then every
/// numeric leaf of `schemes.<label>` in the points' summaries (columns in order of first
/// appearance; a missing or `null` value is an empty cell).
fn table(axes: &[Axis], points: &[Point], rows: &[Row]) -> Vec<u8> {
    let columns = columns(rows);
    let mut header: Vec<String> = axes.iter().map(|a| a.key.clone()).collect();
    header.push("scheme".into());
    header.extend(columns.iter().cloned());
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut csv = output::CsvOut::new(&header_refs);
    for r in rows {
        let lookup: std::collections::BTreeMap<&str, &Option<String>> =
            r.leaves.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let mut fields: Vec<String> = points[r.point].cells.clone();
        fields.push(r.scheme.clone());
        for c in &columns {
            fields.push(
                lookup
                    .get(c.as_str())
                    .and_then(|v| v.as_ref().cloned())
                    .unwrap_or_default(),
            );
        }
        csv.row(fields);
    }
    csv.into_bytes()
}

/// A sweep planned for a front end other than the command line (the Python package): every
/// point built and validated as `dctc sweep` builds them, to be run in memory or elsewhere.
pub struct Plan {
    axes: Vec<Axis>,
    points: Vec<Point>,
}

impl Plan {
    /// Plans the cartesian product of `grid` (key path, values; the last key varies fastest)
    /// over `base`. Errors name the keys and values in `wording`.
    pub(crate) fn new(
        base: &Scenario,
        grid: Vec<(String, Vec<toml::Value>)>,
        wording: Wording,
    ) -> Result<Plan> {
        if grid.is_empty() {
            bail!("no keys to sweep: give at least one key path and its values");
        }
        let mut parsed: Vec<(String, Vec<Seg>, Vec<toml::Value>)> = Vec::new();
        for (key, values) in grid {
            let key = key.trim().to_string();
            let named = wording.key(&key);
            let path = parse_path(&key).map_err(|reason| anyhow!("{named}: {reason}"))?;
            if values.is_empty() {
                bail!("{named}: no values");
            }
            if values.len() as u64 > MAX_VALUES {
                bail!("{named}: more than the {MAX_VALUES} values one key may take");
            }
            if let Some(v) = values.iter().find(|v| v.is_table() || v.is_array()) {
                bail!("{named}: `{v}` is not a single value (a number, a string or a boolean)");
            }
            if parsed.iter().any(|(_, p, _)| *p == path) {
                bail!("{named}: the key is swept twice");
            }
            parsed.push((key, path, values));
        }
        let axes = name_axes(parsed);
        let points = points(base, &axes, wording)?;
        Ok(Plan { axes, points })
    }

    /// The swept key paths, in the order given.
    pub fn keys(&self) -> Vec<&str> {
        self.axes.iter().map(|a| a.key.as_str()).collect()
    }

    /// The values of the `axis`-th key, in the order given.
    pub fn values(&self, axis: usize) -> &[toml::Value] {
        &self.axes[axis].values
    }

    /// How many points the sweep has.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Whether the sweep has no points (never, once planned).
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The scenario of point `i`, with its values set.
    pub fn point(&self, i: usize) -> &Scenario {
        &self.points[i].scenario
    }

    /// Point `i`'s directory name under `dctc sweep`, e.g. `load=0.2,seed=1`.
    pub fn point_name(&self, i: usize) -> &str {
        &self.points[i].name
    }

    /// Which value of each key point `i` takes (indices into [`Plan::values`]).
    pub fn picks(&self, i: usize) -> &[usize] {
        &self.points[i].picks
    }
}

/// One scheme's metrics in a sweep table: its label and the numeric leaves of
/// `schemes.<label>` of the summary (dotted names; `None` for `null`).
pub type SchemeMetrics = (String, Vec<(String, Option<f64>)>);

/// The numeric leaves of each scheme of a run's summary (`schemes.<label>`, dotted names, in
/// the scenario's order), as the rows of `sweep.csv` hold them; `None` for a summary without
/// `schemes`.
pub(crate) fn scheme_metrics(summary: &Json) -> Option<Vec<SchemeMetrics>> {
    let parse = |v: Option<String>| v.and_then(|t| t.parse::<f64>().ok());
    scheme_leaves(summary).map(|rows| {
        rows.into_iter()
            .map(|(scheme, leaves)| {
                let metrics = leaves.into_iter().map(|(k, v)| (k, parse(v))).collect();
                (scheme, metrics)
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_plot_smallest_first_and_axes_name_their_unit() {
        let columns: Vec<String> = [">10MB", "100KB-10MB", "<=100KB"]
            .iter()
            .map(|c| format!("fct_slowdown.by_bytes.{c}.p99"))
            .collect();
        let headings: Vec<String> = plot_groups(&columns).into_iter().map(|g| g.0).collect();
        assert_eq!(
            headings,
            [
                "All flows",
                "Flows of <=100KB",
                "Flows of 100KB-10MB",
                "Flows of >10MB"
            ]
        );
        assert_eq!(
            axis_title("workload[0].load"),
            "offered load (fraction of capacity): workload[0].load"
        );
        assert_eq!(
            axis_title("schemes[0].ecn_k_bytes"),
            "ecn k (bytes): schemes[0].ecn_k_bytes"
        );
        assert_eq!(axis_title("fabric.name"), "fabric.name");
    }

    #[test]
    fn a_swept_key_the_scenario_lacks_suggests_its_full_path() {
        let doc: toml::Value = toml::from_str(
            "seed = 1\n[fabric]\nkind = \"leaf-spine\"\n[[workload]]\ncdf = \"web\"\nload = 0.5\n\n[[schemes]]\nname = \"dctcp\"\n",
        )
        .unwrap();
        let axis = |key: &str| axes(&[format!("{key}=1")]).unwrap().remove(0);
        // A bare last key, and a table path that skips the array index.
        assert_eq!(
            suggest_path(&doc, &axis("load")).as_deref(),
            Some("workload[0].load")
        );
        assert_eq!(
            suggest_path(&doc, &axis("workload.load")).as_deref(),
            Some("workload[0].load")
        );
        // A misspelt table: the nearest path by spelling.
        assert_eq!(
            suggest_path(&doc, &axis("fabrc.kind")).as_deref(),
            Some("fabric.kind")
        );
        // Present keys, keys the scenario may add to a table it has (a scheme's own key), and
        // misspellings under a present table (the scenario's error names them) get none.
        assert_eq!(suggest_path(&doc, &axis("fabric.knd")), None);
        assert_eq!(suggest_path(&doc, &axis("workload[0].load")), None);
        assert_eq!(suggest_path(&doc, &axis("schemes[0].ecn_k_bytes")), None);
    }

    #[test]
    fn report_plots_prefixed_flow_metrics_with_the_range_over_other_keys() {
        let text = "engine = \"flow\"\nduration_ms = 1.0\n[fabric]\nkind = \"preset\"\nname = \"dba-144\"\n";
        let s = Scenario::from_str(text, Path::new("f.toml"), Path::new("."), None).unwrap();
        let axes = axes(&["x=1,2".into(), "seed=1..2".into()]).unwrap();
        let points: Vec<Point> = (0..4)
            .map(|i| Point {
                name: format!("p{i}"),
                cells: Vec::new(),
                picks: vec![i / 2, i % 2],
                scenario: s.clone(),
            })
            .collect();
        // avg_cct_s = x * 10 + seed, under the flow engine's per-load prefix.
        let rows: Vec<Row> = (0..4)
            .map(|i| Row {
                point: i,
                scheme: "dba".into(),
                leaves: vec![(
                    "load_50.avg_cct_s".into(),
                    Some(((i / 2 + 1) * 10 + i % 2 + 1).to_string()),
                )],
            })
            .collect();
        let r = report(&s, &axes, &points, &rows);
        let charts: Vec<_> = r.charts().collect();
        assert_eq!(charts.len(), 1);
        assert_eq!(charts[0].title, "average CCT (s), load_50");
        let series = |name: &str| {
            charts[0]
                .series
                .iter()
                .find(|x| x.name == name)
                .unwrap()
                .points
                .clone()
        };
        assert_eq!(series("dba"), vec![(1.0, 11.5), (2.0, 21.5)]);
        assert_eq!(series("dba min"), vec![(1.0, 11.0), (2.0, 21.0)]);
        assert_eq!(series("dba max"), vec![(1.0, 12.0), (2.0, 22.0)]);
    }

    #[test]
    fn wordings_name_a_setting_as_each_front_end_takes_it() {
        let text = toml::Value::String("a\"b".into());
        assert_eq!(
            Wording::Cli.set("schemes[0].name", &text),
            "--set schemes[0].name=a\"b"
        );
        assert_eq!(
            Wording::Python.set("schemes[0].name", &text),
            "grid[\"schemes[0].name\"] = \"a\\\"b\""
        );
        assert_eq!(
            Wording::Python.set("x", &toml::Value::Boolean(false)),
            "grid[\"x\"] = False"
        );
        assert_eq!(
            Wording::Python.set("x", &toml::Value::Float(0.5)),
            "grid[\"x\"] = 0.5"
        );
        assert_eq!(Wording::Cli.key("seed"), "--set seed");
        assert_eq!(Wording::Python.key("seed"), "grid[\"seed\"]");
    }

    #[test]
    fn key_paths_parse_into_steps() {
        assert_eq!(
            parse_path("workload[0].load").unwrap(),
            vec![
                Seg::Key("workload".into()),
                Seg::Index(0),
                Seg::Key("load".into())
            ]
        );
        assert!(parse_path("a..b").is_err());
        assert!(parse_path("a[x]").is_err());
        assert!(parse_path("a[1").is_err());
    }

    #[test]
    fn values_and_ranges_parse() {
        let (_, _, v) = parse_set("seed=1..3,7").unwrap();
        assert_eq!(v, [1, 2, 3, 7].map(toml::Value::Integer));
        let (_, _, v) = parse_set("schemes[0].name=dctcp,0.5,true").unwrap();
        assert_eq!(
            v,
            vec![
                toml::Value::String("dctcp".into()),
                toml::Value::Float(0.5),
                toml::Value::Boolean(true)
            ]
        );
        assert!(parse_set("seed=")
            .unwrap_err()
            .to_string()
            .contains("no values"));
        assert!(parse_set("seed=3..1")
            .unwrap_err()
            .to_string()
            .contains("empty"));
        assert!(parse_set("seed").is_err());
    }

    #[test]
    fn set_path_keeps_floats_and_refuses_tables() {
        let mut doc: toml::Value =
            toml::from_str("x = 1.5\n[[w]]\nload = 0.3\n[t]\na = 1\n").unwrap();
        set_path(
            &mut doc,
            &parse_path("x").unwrap(),
            &toml::Value::Integer(2),
        )
        .unwrap();
        assert_eq!(doc["x"], toml::Value::Float(2.0));
        set_path(
            &mut doc,
            &parse_path("w[0].load").unwrap(),
            &toml::Value::Float(0.5),
        )
        .unwrap();
        assert_eq!(doc["w"][0]["load"], toml::Value::Float(0.5));
        let e = set_path(
            &mut doc,
            &parse_path("w[3].load").unwrap(),
            &toml::Value::Float(0.5),
        );
        assert!(e.unwrap_err().contains("has 1 entries"));
        let e = set_path(
            &mut doc,
            &parse_path("t").unwrap(),
            &toml::Value::Integer(1),
        );
        assert!(e.unwrap_err().contains("is a table"));
        set_path(
            &mut doc,
            &parse_path("new.k").unwrap(),
            &toml::Value::Integer(1),
        )
        .unwrap();
        assert_eq!(doc["new"]["k"], toml::Value::Integer(1));
    }
}
