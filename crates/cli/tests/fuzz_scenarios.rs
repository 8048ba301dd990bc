//! Hostile mutations of every shipped scenario (`scenarios/**/*.toml`): byte flips, swapped
//! values and extreme numbers. `validate` never panics on any of them, and every mutant it
//! accepts runs, over a short horizon, to completion, within the bounds dctc checks before a
//! run starts (`validate` and `run` are one path: a run never refuses what `validate`
//! accepted).
//!
//! The cases are drawn from a fixed seed, so CI sees the same mutants every time;
//! `DCTC_FUZZ_CASES` and `DCTC_FUZZ_SEED` draw more, or others, by hand.

use dctc_cli::api;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// Mutants per CI run: the suite stays within a few seconds in the test profile.
const CASES: u32 = 160;

/// Longest a run of a shortened mutant may take before the test calls it unbounded. The runs
/// take well under a second; this is a hang detector, not a speed target.
const HANG: Duration = Duration::from_secs(20);

/// The shipped scenarios (not the fabric files beside them): path and text, sorted.
fn shipped() -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "toml") {
                let text = std::fs::read_to_string(&p).unwrap();
                if text.lines().any(|l| l.starts_with("engine")) {
                    out.push((p, text));
                }
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut out = Vec::new();
    walk(&root, &mut out);
    assert!(out.len() > 20, "found {} scenarios", out.len());
    out
}

/// One step of a key path into a TOML document.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// Paths of every scalar (and empty array) in `v`, in document order.
fn leaves(v: &toml::Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match v {
        toml::Value::Table(t) => {
            for (k, x) in t {
                at.push(Step::Key(k.clone()));
                leaves(x, at, out);
                at.pop();
            }
        }
        toml::Value::Array(a) if !a.is_empty() => {
            for (i, x) in a.iter().enumerate() {
                at.push(Step::Index(i));
                leaves(x, at, out);
                at.pop();
            }
        }
        _ => out.push(at.clone()),
    }
}

fn get_mut<'a>(v: &'a mut toml::Value, path: &[Step]) -> Option<&'a mut toml::Value> {
    path.iter().try_fold(v, |v, s| match s {
        Step::Key(k) => v.get_mut(k.as_str()),
        Step::Index(i) => v.get_mut(*i),
    })
}

/// Numbers that have broken parsers and engines before: zero, negatives, what rounds to zero
/// in integer units, what overflows them, and what is not a number.
fn extreme(k: usize) -> toml::Value {
    use toml::Value::{Float, Integer};
    const VALUES: [f64; 12] = [
        0.0,
        -1.0,
        1e-300,
        5e-324,
        1e-9,
        1e300,
        1e12,
        1e20,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.5,
    ];
    match k % 16 {
        12 => Integer(0),
        13 => Integer(-1),
        14 => Integer(i64::MAX),
        15 => Integer(1_000_000_000_000),
        i => Float(VALUES[i]),
    }
}

/// One mutation of a scenario's text.
#[derive(Clone, Debug)]
enum Mutation {
    /// The byte at `at` (modulo the length) becomes `to`.
    Flip { at: usize, to: u8 },
    /// The values of two leaves trade places.
    Swap { a: usize, b: usize },
    /// A leaf becomes an extreme number.
    Extreme { at: usize, value: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    const BYTES: &[u8] = b"0123456789.-+e\"=[]{},\n #xn_";
    prop_oneof![
        2 => (any::<usize>(), prop::sample::select(BYTES)).prop_map(|(at, to)| Mutation::Flip { at, to }),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap { a, b }),
        3 => (any::<usize>(), any::<usize>()).prop_map(|(at, value)| Mutation::Extreme { at, value }),
    ]
}

/// `text` with `m` applied; `None` when a structural mutation finds text that is not TOML.
fn apply(text: &str, m: &Mutation) -> Option<String> {
    if let Mutation::Flip { at, to } = m {
        let mut bytes = text.as_bytes().to_vec();
        let i = at % bytes.len();
        bytes[i] = *to;
        return String::from_utf8(bytes).ok();
    }
    let mut doc: toml::Value = toml::from_str(text).ok()?;
    let mut all = Vec::new();
    leaves(&doc, &mut Vec::new(), &mut all);
    if all.is_empty() {
        return Some(text.to_string());
    }
    match m {
        Mutation::Swap { a, b } => {
            let (pa, pb) = (&all[a % all.len()], &all[b % all.len()]);
            let va = get_mut(&mut doc, pa)?.clone();
            let vb = std::mem::replace(get_mut(&mut doc, pb)?, va);
            *get_mut(&mut doc, pa)? = vb;
        }
        Mutation::Extreme { at, value } => {
            // A number becomes another (a value of another type is what swaps are for).
            let numbers: Vec<&Vec<Step>> = all
                .iter()
                .filter(|p| {
                    let mut d = doc.clone();
                    get_mut(&mut d, p).is_some_and(|v| v.is_integer() || v.is_float())
                })
                .collect();
            if numbers.is_empty() {
                return Some(text.to_string());
            }
            let path = numbers[at % numbers.len()].clone();
            *get_mut(&mut doc, &path)? = extreme(*value);
        }
        Mutation::Flip { .. } => unreachable!(),
    }
    toml::to_string(&doc).ok()
}

/// Simulated time a shortened mutant's arrivals (and its drain) may last, ms.
const HORIZON_MS: f64 = 0.2;

/// The mutant with a short horizon: at most 0.2 ms of arrivals and drain, a few coflows,
/// incast rounds, iterations and convergence flows, so each accepted mutant runs in a moment.
/// Values the mutation made hostile are kept (a negative duration stays negative).
fn shorten(text: &str) -> Option<String> {
    let mut doc: toml::Value = toml::from_str(text).ok()?;
    let cap_f = |v: Option<&mut toml::Value>, max: f64| {
        if let Some(v) = v {
            match v {
                toml::Value::Float(x) if *x > max => *x = max,
                toml::Value::Integer(n) if *n as f64 > max => *v = toml::Value::Float(max),
                _ => {}
            }
        }
    };
    let cap_i = |v: Option<&mut toml::Value>, max: i64| {
        if let Some(toml::Value::Integer(n)) = v {
            *n = (*n).min(max);
        }
    };
    cap_f(doc.get_mut("duration_ms"), HORIZON_MS);
    if let Some(p) = doc.get_mut("packet") {
        cap_f(p.get_mut("drain_ms"), HORIZON_MS);
    }
    // What the shorter run would not reach moves inside it (a flow starting after it ends
    // would be refused; so would an averaging or measurement window starting after it).
    if let Some(o) = doc.get_mut("output") {
        cap_f(o.get_mut("rate_average_from_ms"), HORIZON_MS / 2.0);
        cap_f(o.get_mut("measure_from_ms"), HORIZON_MS / 2.0);
    }
    for table in ["flow", "allocator"] {
        if let Some(toml::Value::Array(loads)) = doc.get_mut(table).and_then(|t| t.get_mut("loads"))
        {
            loads.truncate(2);
        }
    }
    if let Some(f) = doc.get_mut("flow") {
        cap_i(f.get_mut("iterations"), 10);
    }
    if let Some(a) = doc.get_mut("allocator") {
        cap_i(a.get_mut("flows"), 100);
        cap_i(a.get_mut("max_iterations"), 200);
        if a.get("mode").and_then(toml::Value::as_str) == Some("convergence") {
            a.as_table_mut()?
                .entry("flows")
                .or_insert(toml::Value::Integer(100));
            a.as_table_mut()?
                .entry("max_iterations")
                .or_insert(toml::Value::Integer(200));
        }
    }
    for w in doc
        .get_mut("workload")
        .and_then(toml::Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        let kind = w
            .get("kind")
            .and_then(toml::Value::as_str)
            .map(String::from);
        let t = w.as_table_mut()?;
        match kind.as_deref() {
            Some("coflow-trace") => {
                for (key, max) in [("max_coflows", 5), ("max_mappers", 4), ("max_reducers", 4)] {
                    cap_i(Some(t.entry(key).or_insert(toml::Value::Integer(max))), max);
                }
                cap_f(
                    Some(t.entry("size_scale").or_insert(toml::Value::Float(0.01))),
                    0.01,
                );
            }
            Some("synthetic-coflows") => cap_i(t.get_mut("coflows"), 10),
            Some("incast") | Some("incast-sweep") => cap_i(t.get_mut("rounds"), 2),
            _ => {}
        }
        if let Some(toml::Value::Array(senders)) = t.get_mut("senders") {
            senders.truncate(2);
        }
        if let Some(toml::Value::Array(flows)) = t.get_mut("flows") {
            for f in flows.iter_mut() {
                cap_f(f.get_mut("start_us"), HORIZON_MS * 1e3 / 2.0);
                cap_f(f.get_mut("stop_us"), HORIZON_MS * 1e3);
            }
        }
    }
    toml::to_string(&doc).ok()
}

/// Mutants `validate` accepted, and those of them that ran (after shortening).
static ACCEPTED: AtomicUsize = AtomicUsize::new(0);
static RAN: AtomicUsize = AtomicUsize::new(0);

/// What a case found wrong.
fn fail(what: String) -> TestCaseError {
    TestCaseError::fail(what)
}

/// What happened to one mutant.
enum Outcome {
    /// `validate` refused it.
    Refused,
    /// Accepted, but refused once shortened (no arrival left in the shorter run).
    RefusedShort,
    /// Accepted, shortened and run to completion.
    Ran,
}

/// Validates the mutant and, if accepted, runs it shortened, all in a thread that must end
/// within [`HANG`] without a panic, and without a run refusing what `validate` accepted.
fn check(path: &Path, text: String) -> Result<(), TestCaseError> {
    let base = path.parent().unwrap().to_path_buf();
    let label = path.display().to_string();
    let (tx, rx) = mpsc::channel();
    let mutant = text.clone();
    std::thread::spawn(move || {
        let r = std::panic::catch_unwind(move || -> Result<Outcome, String> {
            let checked = api::parse(&mutant, &label, &base, None)
                .map_err(anyhow::Error::from)
                .and_then(|s| api::validate(&s));
            if checked.is_err() {
                return Ok(Outcome::Refused);
            }
            let Some(short) = shorten(&mutant) else {
                return Ok(Outcome::RefusedShort);
            };
            let s = api::parse(&short, &label, &base, None).map_err(|e| format!("parse: {e}"))?;
            if let Err(e) = api::validate(&s) {
                if std::env::var_os("DCTC_FUZZ_VERBOSE").is_some() {
                    eprintln!("shortened mutant refused: {e:#}");
                }
                return Ok(Outcome::RefusedShort);
            }
            let run = api::run(&s)
                .map_err(|e| format!("validate accepted it, run refused it: {e:#}\n{short}"))?;
            if run.summary.get("schemes").is_none() {
                return Err(format!("no schemes in the summary of\n{short}"));
            }
            Ok(Outcome::Ran)
        });
        let _ = tx.send(r);
    });
    let started = std::time::Instant::now();
    let verbose = std::env::var_os("DCTC_FUZZ_VERBOSE").is_some();
    let outcome = rx.recv_timeout(HANG);
    if verbose && started.elapsed() > Duration::from_secs(2) {
        eprintln!("slow ({:?}): {}\n{text}", started.elapsed(), path.display());
    }
    let outcome = match outcome {
        Err(_) => return Err(fail(format!("unbounded: no end after {HANG:?}:\n{text}"))),
        Ok(Err(_)) => return Err(fail(format!("panicked on:\n{text}"))),
        Ok(Ok(Err(e))) => return Err(fail(e)),
        Ok(Ok(Ok(o))) => o,
    };
    match outcome {
        Outcome::Refused => {}
        Outcome::RefusedShort => {
            ACCEPTED.fetch_add(1, Ordering::Relaxed);
        }
        Outcome::Ran => {
            ACCEPTED.fetch_add(1, Ordering::Relaxed);
            RAN.fetch_add(1, Ordering::Relaxed);
        }
    }
    Ok(())
}

#[test]
fn mutated_shipped_scenarios_never_panic_and_accepted_ones_run_to_completion() {
    let scenarios = shipped();
    let cases = std::env::var("DCTC_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CASES);
    let mut seed = [7u8; 32];
    if let Some(s) = std::env::var("DCTC_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        seed[..8].copy_from_slice(&s.to_le_bytes());
    }
    let config = Config {
        cases,
        failure_persistence: None,
        // A failure is reported with its mutant; shrinking it far would rerun many.
        max_shrink_iters: 16,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let strategy = (0..scenarios.len(), prop::collection::vec(mutation(), 1..=2));
    let result = runner.run(&strategy, |(i, mutations)| {
        let (path, text) = &scenarios[i];
        let mut mutant = text.clone();
        for m in &mutations {
            match apply(&mutant, m) {
                Some(t) => mutant = t,
                None => break,
            }
        }
        check(path, mutant)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    // The mutants must exercise both sides: many refused, and a good share accepted and run.
    let (accepted, ran) = (
        ACCEPTED.load(Ordering::Relaxed),
        RAN.load(Ordering::Relaxed),
    );
    eprintln!("{cases} mutants: {accepted} accepted by validate, {ran} of them run");
    assert!(
        ran * 8 >= cases as usize,
        "only {ran} of {cases} mutants ran"
    );
    assert!(accepted < cases as usize, "every mutant was accepted");
}

#[test]
fn every_shipped_scenario_validates_and_the_mutations_reach_each() {
    // The unmutated scenarios are accepted (else the mutants test nothing), and every
    // structural mutation applies to each.
    for (path, text) in shipped() {
        let base = path.parent().unwrap();
        let s = api::parse(text.as_str(), &path.display().to_string(), base, None).unwrap();
        api::validate(&s).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
        for m in [
            Mutation::Swap { a: 1, b: 2 },
            Mutation::Extreme { at: 3, value: 2 },
        ] {
            let mutant = apply(&text, &m).expect("a scenario is TOML");
            assert_ne!(
                mutant,
                toml::to_string(&toml::from_str::<toml::Value>(&text).unwrap()).unwrap(),
                "{}: {m:?}",
                path.display()
            );
        }
    }
}
