//! `dctc sweep`: its table matches runs made one by one, its outputs do not depend on
//! `--jobs`, an interrupted sweep resumes with only the missing points, and bad `--set`s exit 2
//! naming them with nothing written.

mod common;
use common::{dctc, stderr, stdout};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

/// A small packet scenario: 1 ms on the 144-host fabric, two schemes.
const SCENARIO: &str = r#"
name = "t"
engine = "packet"
duration_ms = 1.0
seed = 1
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

const GRID: [&str; 4] = ["--set", "workload[0].load=0.2,0.5", "--set", "seed=1..2"];

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), SCENARIO).unwrap();
    dir
}

fn sweep(cwd: &Path, out: &str, extra: &[&str]) -> Output {
    let mut args = vec!["sweep", "s.toml", "--out", out];
    args.extend_from_slice(&GRID);
    args.extend_from_slice(extra);
    dctc(&args, cwd)
}

/// Every file under `root`, by relative path.
fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(
                    p.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn csv_rows(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|x| x.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

/// The value at a dotted path of `v`.
fn at<'a>(v: &'a serde_json::Value, dotted: &str) -> &'a serde_json::Value {
    dotted
        .split('.')
        .fold(v, |v, k| v.get(k).unwrap_or(&serde_json::Value::Null))
}

#[test]
fn table_rows_equal_the_points_run_one_by_one() {
    let dir = setup();
    let o = sweep(dir.path(), "sw", &["--jobs", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, rows) = csv_rows(&dir.path().join("sw/sweep.csv"));
    assert_eq!(&header[..3], ["workload[0].load", "seed", "scheme"]);
    for metric in ["goodput_gbps", "fct_slowdown.overall.p99", "drops.packets"] {
        assert!(header.iter().any(|h| h == metric), "{metric}: {header:?}");
    }
    assert_eq!(rows.len(), 8, "4 points x 2 schemes");
    let mut compared = 0;
    let mut goodputs = std::collections::BTreeSet::new();
    for (load, seed) in [("0.2", "1"), ("0.2", "2"), ("0.5", "1"), ("0.5", "2")] {
        let file = format!("p{load}-{seed}.toml");
        std::fs::write(
            dir.path().join(&file),
            SCENARIO.replace("load = 0.3", &format!("load = {load}")),
        )
        .unwrap();
        let out = format!("one-{load}-{seed}");
        let o = dctc(
            &["run", &file, "--seed", seed, "--out", &out, "--quiet"],
            dir.path(),
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let summary: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join(&out).join("summary.json")).unwrap(),
        )
        .unwrap();
        for scheme in ["dctcp", "newreno"] {
            let row = rows
                .iter()
                .find(|r| r[0] == load && r[1] == seed && r[2] == scheme)
                .unwrap_or_else(|| panic!("no row for {load} {seed} {scheme}"));
            let mine = &summary["schemes"][scheme];
            for (h, cell) in header.iter().zip(row).skip(3) {
                let want = at(mine, h);
                if cell.is_empty() {
                    assert!(want.is_null(), "{h}: empty cell, run has {want}");
                } else {
                    let want = want
                        .as_f64()
                        .unwrap_or_else(|| panic!("{h}: {want} is not a number"));
                    assert_eq!(
                        cell.parse::<f64>().unwrap(),
                        want,
                        "{load} {seed} {scheme} {h}"
                    );
                    compared += 1;
                }
            }
            goodputs.insert(at(mine, "goodput_gbps").to_string());
        }
    }
    assert!(compared > 100, "compared only {compared} numbers");
    // The report plots the packet metrics against the load, a line per scheme, with the range
    // over the two seeds.
    let html = std::fs::read_to_string(dir.path().join("sw/report.html")).unwrap();
    for text in [
        "p99 FCT slowdown",
        "goodput (Gb/s)",
        "dropped packets",
        "dctcp min",
        "newreno max",
    ] {
        assert!(html.contains(text), "report.html lacks {text}");
    }
    assert!(!html.contains("average CCT"), "no flow-engine metric here");
    assert!(goodputs.len() >= 4, "the points must differ: {goodputs:?}");
}

#[test]
fn outputs_are_byte_identical_whatever_the_jobs() {
    let dir = setup();
    for (out, jobs) in [("j1", "1"), ("j2", "2")] {
        let o = sweep(dir.path(), out, &["--jobs", jobs]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let a = tree(&dir.path().join("j1"));
    let b = tree(&dir.path().join("j2"));
    assert!(a.len() > 4 * 3, "{:?}", a.keys().collect::<Vec<_>>());
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "same files"
    );
    for (k, v) in &a {
        assert!(b[k] == *v, "{} differs between --jobs 1 and 2", k.display());
    }
}

#[cfg(unix)]
fn stamp(p: &Path) -> (u64, std::time::SystemTime) {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(p).unwrap();
    (m.ino(), m.modified().unwrap())
}

#[cfg(unix)]
#[test]
fn an_interrupted_sweep_runs_only_the_missing_points() {
    let dir = setup();
    let o = sweep(dir.path(), "sw", &["--jobs", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("ran 4, skipped 0"), "{}", stdout(&o));
    let root = dir.path().join("sw");
    let csv = std::fs::read(root.join("sweep.csv")).unwrap();
    let points = [
        "load=0.2,seed=1",
        "load=0.2,seed=2",
        "load=0.5,seed=1",
        "load=0.5,seed=2",
    ];
    let before: Vec<_> = points
        .iter()
        .map(|p| stamp(&root.join(p).join("summary.json")))
        .collect();
    // One point's directory gone, another's summary gone: as if killed mid-sweep.
    std::fs::remove_dir_all(root.join(points[1])).unwrap();
    std::fs::remove_file(root.join(points[3]).join("summary.json")).unwrap();
    std::fs::remove_file(root.join("sweep.csv")).unwrap();
    let o = sweep(dir.path(), "sw", &["--jobs", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("ran 2, skipped 2"), "{}", stdout(&o));
    for i in [0, 2] {
        assert_eq!(
            stamp(&root.join(points[i]).join("summary.json")),
            before[i],
            "{} was rerun",
            points[i]
        );
    }
    for i in [1, 3] {
        assert!(root.join(points[i]).join("summary.json").is_file());
    }
    assert_eq!(std::fs::read(root.join("sweep.csv")).unwrap(), csv);
    // A changed scenario makes every point stale.
    std::fs::write(
        dir.path().join("s.toml"),
        SCENARIO.replace("duration_ms = 1.0", "duration_ms = 0.5"),
    )
    .unwrap();
    let o = sweep(dir.path(), "sw", &["--jobs", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("ran 4, skipped 0"), "{}", stdout(&o));
}

#[test]
fn bad_sets_exit_2_naming_them_and_write_nothing() {
    let dir = setup();
    for (set, says) in [
        ("workload[0].lod=0.2,0.4", "did you mean `load`"),
        ("workload[3].load=0.2", "has 1 entries"),
        ("fabric=1", "is a table"),
        ("workload[0].load=0.2,abc", "expected f64"),
        ("seed=-1", "expected u64"),
        ("seed=", "no values for `seed`"),
        ("seed=1,,2", "an empty value"),
        ("seed=5..1", "the range is empty"),
    ] {
        let o = dctc(
            &["sweep", "s.toml", "--set", set, "--out", "sw"],
            dir.path(),
        );
        assert_eq!(o.status.code(), Some(2), "{set}");
        let err = stderr(&o);
        let key = set.split('=').next().unwrap();
        assert!(
            err.contains(&format!("--set {key}=")) && err.contains(says),
            "{set}: {err}"
        );
        assert!(!dir.path().join("sw").exists(), "{set}: wrote output");
    }
    let o = dctc(
        &[
            "sweep", "s.toml", "--set", "seed=1", "--jobs", "0", "--out", "sw",
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--jobs 0"), "{}", stderr(&o));
    // A directory dctc did not write is refused without --force, and left alone.
    std::fs::create_dir(dir.path().join("mine")).unwrap();
    std::fs::write(dir.path().join("mine/notes.txt"), "keep").unwrap();
    let o = dctc(
        &["sweep", "s.toml", "--set", "seed=1", "--out", "mine"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not written by dctc"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("mine/notes.txt")).unwrap(),
        "keep"
    );
}
