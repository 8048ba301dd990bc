//! End-to-end checks of the `dctc` binary: bad input exits 2 with a message naming the file,
//! the key and the reason, and leaves no output behind.

mod common;
use common::{dctc, files_under, stderr};

use std::path::Path;
use std::process::Command;

const MINIMAL: &str = r#"
name = "t"
engine = "packet"
duration_ms = 1.0
[fabric]
kind = "preset"
name = "flowtune-144"
[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.3
[[schemes]]
name = "dctcp"
"#;

#[test]
fn missing_scenario_file_exits_2_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let o = dctc(&["run", "nope.toml"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nope.toml"), "{}", stderr(&o));
    assert!(!dir.path().join("out").exists());
}

#[test]
fn misspelt_key_exits_2_with_suggestion_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        MINIMAL.replace("duration_ms", "duraton_ms"),
    )
    .unwrap();
    let o = dctc(&["run", "s.toml"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("s.toml") && err.contains("did you mean `duration_ms`"),
        "{err}"
    );
    assert!(!dir.path().join("out").exists(), "no partial output");
}

#[test]
fn impossible_fabric_is_rejected_by_validate() {
    let dir = tempfile::tempdir().unwrap();
    let bad = MINIMAL.replace(
        "kind = \"preset\"\nname = \"flowtune-144\"",
        "kind = \"fat-tree\"\nk = 3\nrate_gbps = 10\nlink_delay_us = 1\nbuffer_bytes = 100000",
    );
    std::fs::write(dir.path().join("s.toml"), bad).unwrap();
    let o = dctc(&["validate", "s.toml"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`fabric.k`: must be even"),
        "{}",
        stderr(&o)
    );
}

/// `validate` counts large Poisson workloads instead of drawing them; the count now makes
/// the pair check the draw makes, so it refuses what `run` would (it accepted inter-rack
/// arrivals on a one-switch fabric when more than 10,000 were expected).
#[test]
fn validate_refuses_pairs_the_fabric_lacks_as_run_does() {
    let dir = tempfile::tempdir().unwrap();
    let bad = MINIMAL
        .replace(
            "kind = \"preset\"\nname = \"flowtune-144\"",
            "kind = \"big-switch\"\nports = 16\nrate_gbps = 10",
        )
        .replace("duration_ms = 1.0", "duration_ms = 10000.0")
        .replace("load = 0.3", "load = 0.3\npairs = \"inter-rack\"");
    std::fs::write(dir.path().join("s.toml"), bad).unwrap();
    for cmd in ["validate", "run"] {
        let o = dctc(&[cmd, "s.toml"], dir.path());
        assert_eq!(o.status.code(), Some(2), "{cmd}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("`workload[0].pairs`: no host pair on this fabric"),
            "{cmd}: {}",
            stderr(&o)
        );
        assert!(!dir.path().join("out").exists(), "{cmd}: no output");
    }
}

#[test]
fn unknown_paper_lists_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scenarios/dba")).unwrap();
    let o = dctc(&["reproduce", "nosuch"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("papers: dba"), "{}", stderr(&o));
}

#[test]
fn list_names_presets_cdfs_and_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let o = dctc(&["list"], dir.path());
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    for name in ["flowtune-144", "holnet-6x6", "websearch", "fat-tree"] {
        assert!(out.contains(name), "{name} missing from:\n{out}");
    }
}

#[test]
fn embedded_demo_is_a_valid_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let o = dctc(&["demo", "--print"], dir.path());
    assert!(o.status.success());
    std::fs::write(dir.path().join("demo.toml"), &o.stdout).unwrap();
    let o = dctc(&["validate", "demo.toml"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn same_seed_gives_byte_identical_outputs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), MINIMAL).unwrap();
    for out in ["a", "b"] {
        let o = dctc(&["run", "s.toml", "--quiet", "--out", out], dir.path());
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let read_dir = |d: &str| -> Vec<_> { files_under(&dir.path().join(d)).into_iter().collect() };
    let (a, b) = (read_dir("a"), read_dir("b"));
    assert_eq!(
        a.iter().map(|f| &f.0).collect::<Vec<_>>(),
        b.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert!(a.iter().any(|f| f.0 == "flows.csv") && a.iter().any(|f| f.0 == "report.html"));
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name} differs between two runs with one seed");
    }
}

#[test]
fn unknown_trace_size_model_exits_2_and_lists_the_valid_ones() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(repo.join("scenarios/dba/fig7.toml")).unwrap();
    let trace = repo
        .join("data/coflow/FB2010-1Hr-150-0.txt")
        .canonicalize()
        .unwrap();
    let bad = text
        .replace(
            "kind = \"coflow-trace\"\n",
            "kind = \"coflow-trace\"\nsizes = \"reducer-means\"\n",
        )
        .replace(
            "\"../../data/coflow/FB2010-1Hr-150-0.txt\"",
            &format!("{:?}", trace.display().to_string()),
        );
    assert!(
        bad.contains("reducer-means") && !bad.contains("../../data"),
        "fig7.toml changed shape"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), bad).unwrap();
    let o = dctc(&["validate", "s.toml"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("s.toml")
            && err.contains("reducer-means")
            && err.contains("`coflow-mean`, `reducer-mean`"),
        "{err}"
    );
}

#[test]
fn bad_flow_bench_scale_exits_2_instead_of_running_full_size() {
    for bad in ["abc", "0", "1.5", "-0.1"] {
        let dir = tempfile::tempdir().unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_dctc"))
            .args(["bench", "flow"])
            .env("DCTC_FLOW_BENCH_SCALE", bad)
            .current_dir(dir.path())
            .output()
            .expect("dctc runs");
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let err = stderr(&o);
        assert!(
            err.contains("DCTC_FLOW_BENCH_SCALE") && err.contains(&format!("`{bad}`")),
            "{err}"
        );
    }
}

#[test]
fn completions_cover_the_subcommands_and_refuse_an_unknown_shell() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let o = dctc(&["completions", shell], dir.path());
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let script = String::from_utf8_lossy(&o.stdout);
        for sub in ["run", "sweep", "reproduce", "ledger", "completions"] {
            assert!(script.contains(sub), "{shell} script lacks `{sub}`");
        }
    }
    let o = dctc(&["completions", "tcsh"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("tcsh"), "{}", stderr(&o));
}

#[test]
fn a_swept_key_missing_from_the_scenario_suggests_its_full_path() {
    let dir = tempfile::tempdir().unwrap();
    let o = dctc(&["demo", "--print"], dir.path());
    std::fs::write(dir.path().join("demo.toml"), &o.stdout).unwrap();
    for set in ["load=0.3", "workload.load=0.3"] {
        let o = dctc(
            &["sweep", "demo.toml", "--quiet", "--out", "x", "--set", set],
            dir.path(),
        );
        assert_eq!(o.status.code(), Some(2), "{set}");
        let err = stderr(&o);
        assert!(
            err.contains("did you mean --set workload[0].load?"),
            "{set}: {err}"
        );
        assert!(!dir.path().join("x").exists(), "{set}: wrote output");
    }
}

#[test]
fn byte_classes_follow_the_scenario_and_count_every_sized_flow() {
    let dir = tempfile::tempdir().unwrap();
    let bad = format!("{MINIMAL}[output]\nsize_classes_bytes = [50000, 50000]\n");
    std::fs::write(dir.path().join("s.toml"), &bad).unwrap();
    let o = dctc(&["validate", "s.toml"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .contains("`output.size_classes_bytes`: must be positive and strictly increasing"),
        "{}",
        stderr(&o)
    );
    let good = format!("{MINIMAL}[output]\nsize_classes_bytes = [50000]\n");
    std::fs::write(dir.path().join("s.toml"), &good).unwrap();
    let o = dctc(&["run", "--quiet", "s.toml"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(dir.path().join("out/t/summary.json")).unwrap();
    let s: serde_json::Value = serde_json::from_str(&text).unwrap();
    let d = &s["schemes"]["dctcp"];
    let classes = d["fct_slowdown"]["by_bytes"].as_object().unwrap();
    let names: Vec<&str> = classes.keys().map(String::as_str).collect();
    assert_eq!(names, ["<=50KB", ">50KB"]);
    // Every sized flow is in one class, completed or unfinished (an empty class is null).
    let count = |v: &serde_json::Value, k: &str| v[k].as_u64().unwrap_or(0);
    let done: u64 = classes.values().map(|c| count(c, "count")).sum();
    let left: u64 = classes.values().map(|c| count(c, "unfinished")).sum();
    let left_bytes: u64 = classes.values().map(|c| count(c, "unfinished_bytes")).sum();
    assert_eq!(done, d["flows_completed"].as_u64().unwrap());
    assert_eq!(left, d["flows_unfinished"].as_u64().unwrap());
    assert_eq!(left_bytes, d["flows_unfinished_bytes"].as_u64().unwrap());
    assert!(done > 0, "{text}");
}

#[test]
fn an_incast_sweep_reports_its_stalled_flows() {
    // Issue 25's stalled-flow invariant reaches every summary, the incast sweep's too: per
    // point and summed per scheme (a correct engine has none).
    let dir = tempfile::tempdir().unwrap();
    let scenario = r#"
name = "incast"
engine = "packet"
duration_ms = 1000.0
[fabric]
kind = "leaf-spine"
racks = 1
hosts_per_rack = 5
spines = 1
host_rate_gbps = 1.0
fabric_rate_gbps = 1.0
host_link_delay_us = 10.0
fabric_link_delay_us = 10.0
buffer_bytes = 256000
[[workload]]
kind = "incast-sweep"
receiver = 0
senders = [1, 4]
block_bytes = 64000
rounds = 2
[[schemes]]
name = "dctcp"
"#;
    std::fs::write(dir.path().join("s.toml"), scenario).unwrap();
    let o = dctc(&["run", "s.toml"], dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(dir.path().join("out/incast/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let s = &v["schemes"]["dctcp"];
    assert_eq!(s["stalled_flows"], 0, "{s}");
    let rows = s["incast_sweep"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["stalled_flows"] == 0), "{s}");
}
