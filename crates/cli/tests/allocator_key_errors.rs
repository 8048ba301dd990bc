//! An allocator-engine value that cannot be used is reported at its full key path: each
//! table checks its own keys, the cli prefixes the table's place in the scenario.

use std::process::{Command, Output};

const SCENARIO: &str = r#"
engine = "allocator"
duration_ms = 1.0
[fabric]
kind = "preset"
name = "flowtune-144"
[allocator]
threshold = 0.01
[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.3
[[schemes]]
name = "ned"
[[schemes]]
name = "fgm"
"#;

fn validate(scenario: &str) -> Output {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), scenario).unwrap();
    Command::new(env!("CARGO_BIN_EXE_dctc"))
        .args(["validate", "s.toml"])
        .current_dir(dir.path())
        .output()
        .expect("dctc runs")
}

fn assert_key_error(o: &Output, key: &str, reason: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("`{key}`: {reason}")),
        "wanted `{key}`: {reason} in: {err}"
    );
}

#[test]
fn the_scenario_is_valid_without_the_bad_values() {
    let o = validate(SCENARIO);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn a_setting_is_named_below_allocator() {
    let o = validate(&SCENARIO.replace("threshold = 0.01", "threshold = 0.5"));
    assert_key_error(&o, "allocator.threshold", "must be in [0, 0.5)");
    let o = validate(&SCENARIO.replace("threshold = 0.01", "mode = \"fast\""));
    assert_key_error(&o, "allocator.mode", "unknown mode `fast`");
}

#[test]
fn a_solver_key_is_named_below_its_scheme() {
    let o = validate(&SCENARIO.replace("name = \"fgm\"", "name = \"fgm\"\ngamma = 0.5"));
    assert_key_error(&o, "schemes[1].gamma", "fgm has no gamma");
    let o = validate(&SCENARIO.replace("name = \"fgm\"", "name = \"nde\""));
    assert_key_error(&o, "schemes[1].name", "unknown solver `nde`");
}
