//! Bad load-balancer keys (DRILL's, HOLNET's percentage balancer's) exit 2, name the key and
//! write nothing; good ones run and report their receivers' reordered arrivals.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn run(packet: &str, dir: &Path) -> Output {
    let scenario = format!(
        r#"
name = "t"
engine = "packet"
duration_ms = 0.3
[fabric]
kind = "preset"
name = "holnet-6x6"
[packet]
{packet}
[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.3
pairs = "inter-rack"
[[schemes]]
name = "dctcp"
load_balancer = "drill"
[[schemes]]
name = "newreno"
label = "pct"
load_balancer = "holnet-percentage"
[output]
queue_sample_us = 0
"#
    );
    common::run_in(&scenario, dir)
}

#[test]
fn bad_balancer_keys_exit_2_naming_the_key() {
    for (extra, want) in [
        (
            "percentage_lb = { initial = [0.2, 0.2, 0.2, 0.2, 0.2, 0.2] }",
            "`packet.percentage_lb.initial`: percentages must sum to 1",
        ),
        (
            "percentage_lb = { initial = [0.5, 0.5] }",
            "`packet.percentage_lb.initial`: lists 2 percentages but leaf",
        ),
        (
            "percentage_lb = { r_max = 0.5 }",
            "packet.percentage_lb.r_max",
        ),
        ("percentage_lb = { step = 0.5 }", "step"),
        ("drill = { samples = 0 }", "packet.drill.samples"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let o = run(extra, dir.path());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra}: {err}");
        assert!(err.contains(want), "{extra}: wanted {want} in {err}");
        assert!(!dir.path().join("out").exists(), "{extra}: no output");
    }
}

#[test]
fn drill_and_percentage_runs_report_reordering() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(
        "drill = { samples = 2, memory = 1 }\npercentage_lb = { initial = [0.25, 0.25, 0.125, 0.125, 0.125, 0.125] }",
        dir.path(),
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/t/summary.json")).unwrap())
            .unwrap();
    // The counts themselves are checked in the packet engine's tests.
    for label in ["dctcp", "pct"] {
        let s = &summary["schemes"][label];
        assert!(s["reordered_packets"].is_u64(), "{label}: {s}");
        assert!(s["flows_completed"].as_u64().unwrap() > 0, "{label}: {s}");
    }
}

#[test]
fn bad_holnet_uta_keys_exit_2_naming_the_key() {
    for (extra, want) in [
        ("r_min = 1.5", "schemes[0].r_min"),
        ("feedback = \"last-hop\"", "schemes[0].feedback"),
        ("ecn_k_bytes = 1000", "schemes[0].ecn_k_bytes"),
        ("rmin = 0.2", "did you mean `r_min`"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let scenario = format!(
            r#"
name = "t"
engine = "packet"
duration_ms = 0.2
[fabric]
kind = "preset"
name = "holnet-6x6"
[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.3
[[schemes]]
name = "holnet-uta"
{extra}
"#
        );
        std::fs::write(dir.path().join("s.toml"), scenario).unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_dctc"))
            .args(["run", "s.toml"])
            .current_dir(dir.path())
            .output()
            .expect("dctc runs");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra}: {err}");
        assert!(err.contains(want), "{extra}: wanted {want} in {err}");
        assert!(!dir.path().join("out").exists(), "{extra}: no output");
    }
}
