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

/// A `[[paper]]` row that reads a relative figure as a factor ("Flowtune's p99 is 8.6x-10.9x
/// below DCTCP's"): the comparison in `summary.json` is DCTCP's figure over Flowtune's, graded
/// against the range; and rows whose range runs down or whose factor reads no relative
/// figure are refused by key.
#[test]
fn a_factor_row_compares_two_schemes_and_bad_rows_are_refused() {
    let row = |extra: &str| {
        format!(
            "[[paper]]\nlabel = \"ratio\"\nmetric = \"relative.dctcp_vs_flowtune.mean_slowdown\"\nvalue = 1.0\nfactor = true\n{extra}"
        )
    };
    // A range that holds any sensible ratio, and one a million times off.
    let rows = "[[paper]]\nlabel = \"in range\"\nmetric = \"relative.dctcp_vs_flowtune.mean_slowdown\"\nvalue = 0.01\nup_to = 1000.0\nfactor = true\n\
        [[paper]]\nlabel = \"far off\"\nmetric = \"relative.dctcp_vs_flowtune.mean_slowdown\"\nvalue = 1e6\nup_to = 2e6\nfactor = true";
    let dir = tempfile::tempdir().unwrap();
    let o = run(rows, dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let text = std::fs::read_to_string(dir.path().join("out/t/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let slow = |s: &str| {
        v["schemes"][s]["fct_slowdown"]["overall"]["mean"]
            .as_f64()
            .unwrap()
    };
    let want = slow("dctcp") / slow("flowtune");
    for i in 0..2 {
        let got = v["paper"][i]["ours"].as_f64().unwrap();
        assert!((got - want).abs() < 1e-9 * want, "{got} vs {want}");
    }
    assert_eq!(v["paper"][0]["paper_up_to"].as_f64(), Some(1000.0));
    assert_eq!(v["paper"][0]["verdict"], "holds");
    assert_eq!(v["paper"][1]["verdict"], "misses");
    // The console prints the range as factors.
    assert!(
        common::stdout(&o).contains("0.01x-1000x"),
        "{}",
        common::stdout(&o)
    );
    for (extra, want) in [
        ("up_to = 0.5", "paper[0].up_to"),
        ("claim = \"below\"\nup_to = 2.0", "paper[0].up_to"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let o = run(&row(extra), dir.path());
        common::assert_refused(&o, want, dir.path(), extra);
    }
    let dir = tempfile::tempdir().unwrap();
    let plain = "[[paper]]\nlabel = \"x\"\nmetric = \"schemes.dctcp.drops.packets\"\nvalue = 1.0\nfactor = true";
    let o = run(plain, dir.path());
    common::assert_refused(&o, "paper[0].factor", dir.path(), plain);
}
