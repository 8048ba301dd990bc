//! An allocator-engine value that cannot be used is reported at its full key path: each
//! table checks its own keys, the cli prefixes the table's place in the scenario.

mod common;
use common::{assert_key_error, validate_in};

use std::process::Output;

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
    validate_in(scenario, dir.path())
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
