//! A flow-engine value that cannot be used is reported at its full key path: the flow crate
//! names the key inside its table, the cli prefixes the table's place in the scenario.

mod common;
use common::{assert_key_error, assert_refused, run_in, validate_in as validate};

use std::path::Path;

fn scenario(workload_extra: &str, scheme: &str) -> String {
    let trace =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/coflow/FB2010-1Hr-150-0.txt");
    format!(
        r#"
engine = "flow"
duration_ms = 1.0
[fabric]
kind = "preset"
name = "dba-144"
[[workload]]
kind = "coflow-trace"
path = "{}"
max_coflows = 4
{workload_extra}
[[schemes]]
name = "maxmin"
[[schemes]]
label = "second"
{scheme}
"#,
        trace.display()
    )
}

#[test]
fn the_scenario_is_valid_without_the_bad_values() {
    let dir = tempfile::tempdir().unwrap();
    let o = validate(&scenario("", "name = \"maxmin\""), dir.path());
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn a_policy_key_is_named_below_its_scheme() {
    let dir = tempfile::tempdir().unwrap();
    let o = validate(
        &scenario(
            "",
            "name = \"num\"\nutility = { kind = \"alpha\", alpha = 2.0 }\ntolerance = 0.0",
        ),
        dir.path(),
    );
    assert_key_error(&o, "schemes[1].tolerance", "must be in (0, 1)");
}

#[test]
fn a_workload_key_is_named_below_its_workload() {
    let dir = tempfile::tempdir().unwrap();
    let o = validate(
        &scenario("size_scale = 0.0", "name = \"maxmin\""),
        dir.path(),
    );
    assert_key_error(&o, "workload[0].size_scale", "must be > 0");
}

#[test]
fn a_key_the_policy_does_not_have_is_refused_at_that_key() {
    // `epsilon` is dba's and dba-ideal's; maxmin has no keys, varys neither, baraat others.
    for (scheme, key, policy) in [
        ("name = \"maxmin\"\nepsilon = 0.5", "epsilon", "maxmin"),
        (
            "name = \"varys\"\nheavy_bytes = 1e6",
            "heavy_bytes",
            "varys",
        ),
        (
            "name = \"baraat\"\nmomentum = \"none\"",
            "momentum",
            "baraat",
        ),
        ("name = \"dba\"\nepsilom = 0.5", "epsilom", "dba"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let o = validate(&scenario("", scheme), dir.path());
        assert_key_error(
            &o,
            &format!("schemes[1].{key}"),
            &format!("does not apply to policy `{policy}`"),
        );
        let o = run_in(&scenario("", scheme), dir.path());
        assert_refused(&o, &format!("schemes[1].{key}"), dir.path(), scheme);
    }
}

#[test]
fn a_load_above_ten_is_refused_at_its_key_and_ten_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    // A trace's own load: up to 10x the hosts' capacity (arrivals compressed further).
    let o = validate(&scenario("load = 10.0", "name = \"maxmin\""), dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let o = validate(&scenario("load = 10.5", "name = \"maxmin\""), dir.path());
    assert_key_error(&o, "workload[0].load", "must be in (0, 10], got 10.5");
    // The flow engine's load sweep: same range, each value named by its index.
    let with_loads = |loads: &str| {
        scenario("", "name = \"maxmin\"").replacen(
            "[fabric]",
            &format!("[flow]\nloads = {loads}\n[fabric]"),
            1,
        )
    };
    let o = validate(&with_loads("[1.0, 4.0, 10.0]"), dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let o = validate(&with_loads("[1.0, 80.0]"), dir.path());
    assert_key_error(&o, "flow.loads[1]", "must be in (0, 10], got 80");
    let o = run_in(&with_loads("[1.0, 80.0]"), dir.path());
    assert_refused(&o, "flow.loads[1]", dir.path(), "loads = [1.0, 80.0]");
}
