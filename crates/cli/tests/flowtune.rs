//! Flowtune through the binary: its scheme keys are validated (exit 2, the key named, nothing
//! written), and a run on a fabric without an allocator gets one and reports its control plane.

mod common;

use std::path::Path;
use std::process::Output;

fn run(extra: &str, dir: &Path) -> Output {
    let scenario = format!(
        r#"
name = "t"
engine = "packet"
duration_ms = 1.0
[fabric]
kind = "leaf-spine"
racks = 2
hosts_per_rack = 2
spines = 2
host_rate_gbps = 10.0
fabric_rate_gbps = 40.0
host_link_delay_us = 1.5
fabric_link_delay_us = 1.5
host_delay_us = 2.0
buffer_bytes = 225000
[[workload]]
kind = "flows"
flows = [
  {{ src = 0, dst = 3, start_us = 0, size_bytes = 200000 }},
  {{ src = 1, dst = 3, start_us = 50, size_bytes = 200000 }},
]
[[schemes]]
name = "dctcp"
[[schemes]]
name = "flowtune"
{extra}
"#
    );
    common::run_in(&scenario, dir)
}

#[test]
fn bad_flowtune_keys_exit_2_naming_the_key() {
    for (extra, want) in [
        ("flowtune_threshold = 0.9", "schemes[1].flowtune_threshold"),
        ("normalizer = \"x-norm\"", "schemes[1].normalizer"),
        ("utility = \"alpha\"", "schemes[1].utility_alpha"),
        ("flowlet_idle_us = -1.0", "schemes[1].flowlet_idle_us"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let o = run(extra, dir.path());
        common::assert_refused(&o, want, dir.path(), extra);
    }
}

#[test]
fn a_flowtune_run_gets_an_allocator_and_reports_its_control_traffic() {
    let dir = tempfile::tempdir().unwrap();
    let o = run("", dir.path());
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(dir.path().join("out/t/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let ft = &v["schemes"]["flowtune"];
    let cp = &ft["control_plane"];
    assert!(cp["rate_updates_applied"].as_u64().unwrap() > 0, "{cp}");
    assert_eq!(cp["flowlets"].as_u64(), Some(2));
    let frac = cp["fraction_of_capacity"].as_f64().unwrap();
    assert!(frac > 0.0 && frac < 0.05, "{frac}");
    assert_eq!(ft["flows_completed"].as_u64(), Some(2));
    // DCTCP in the same scenario has no control plane.
    assert!(v["schemes"]["dctcp"].get("control_plane").is_none());
}
