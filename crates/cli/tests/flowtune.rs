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
        ("churn_optimal_every = 0", "schemes[1].churn_optimal_every"),
        ("churn_warmup_us = 100.0", "schemes[1].churn_warmup_us"),
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
    // The §6.6 measurement is off unless asked for.
    assert!(cp.get("churn").is_none(), "{cp}");
}

#[test]
fn churn_measured_in_the_fabric_is_reported_under_control_plane() {
    let dir = tempfile::tempdir().unwrap();
    let o = run("churn_optimal_every = 1", dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let text = std::fs::read_to_string(dir.path().join("out/t/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let ch = &v["schemes"]["flowtune"]["control_plane"]["churn"];
    // Two flows on one 10 Gb/s downlink: every iteration is measured and its optimum computed;
    // NED's raw rates approach the 99% share from above after the second arrival (prices rise
    // from 1), and F-NORM gives back the optimum's total within a percent.
    let iterations = ch["iterations"].as_u64().unwrap();
    assert!(iterations > 10, "{ch}");
    assert_eq!(ch["optimum_iterations"].as_u64(), Some(iterations));
    let f = ch["f_norm_fraction"].as_f64().unwrap();
    assert!(f > 0.99 && f < 1.01, "{ch}");
    assert!(ch["mean_flowlets"].as_f64().unwrap() > 1.0, "{ch}");
    let report = std::fs::read_to_string(dir.path().join("out/t/report.html")).unwrap();
    assert!(report.contains("Normalization under churn, in the fabric"));
}

/// A `ratio` row reads a relative figure as the factor a / b ("Flowtune's p99 is 8.6x-10.9x
/// below DCTCP's"): the comparison in `summary.json` is DCTCP's figure over Flowtune's, graded
/// against the range, with the paper's winner part of the claim; rows whose range runs down,
/// reaches 1, or whose single metric is no relative figure are refused by key.
#[test]
fn a_ratio_row_compares_two_schemes_and_bad_rows_are_refused() {
    let head = "[[paper]]\nkind = \"ratio\"\nfigure = \"Fig. 8\"\nnote = \"test\"\n";
    let row = |extra: &str| {
        format!("{head}label = \"ratio\"\nmetric = \"relative.dctcp_vs_flowtune.mean_slowdown\"\n{extra}")
    };
    // On this fabric DCTCP's mean slowdown is the lower: a range that holds any sensible ratio
    // below 1, one a million times off, and the reversed claim (DCTCP's the larger), which
    // misses whatever the size.
    let rows = format!(
        "{}\n{}\n{}",
        row("factor = [0.001, 0.75]"),
        row("factor = [1e-6, 2e-6]"),
        row("factor = [1.34, 1000.0]")
    );
    let dir = tempfile::tempdir().unwrap();
    let o = run(&rows, dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let text = std::fs::read_to_string(dir.path().join("out/t/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let slow = |s: &str| {
        v["schemes"][s]["fct_slowdown"]["overall"]["mean"]
            .as_f64()
            .unwrap()
    };
    let want = slow("dctcp") / slow("flowtune");
    assert!(
        want > 0.001 && want < 0.9375,
        "DCTCP's mean slowdown should be below Flowtune's here: {want}"
    );
    for i in 0..3 {
        let got = v["paper"][i]["ours"].as_f64().unwrap();
        assert!((got - want).abs() < 1e-9 * want, "{got} vs {want}");
        assert_eq!(v["paper"][i]["kind"], "ratio");
    }
    assert_eq!(v["paper"][0]["paper"], "dctcp/flowtune 0.001x-0.75x");
    assert_eq!(v["paper"][0]["verdict"], "holds");
    assert_eq!(v["paper"][1]["verdict"], "same winner");
    assert_eq!(v["paper"][2]["verdict"], "misses");
    // The console prints the range as factors.
    assert!(
        common::stdout(&o).contains("0.001x-0.75x"),
        "{}",
        common::stdout(&o)
    );
    for (extra, want) in [
        ("factor = [2.0, 1.5]", "paper[0].factor"),
        ("factor = [0.5, 2.0]", "paper[0].factor"),
        ("factor = 1.1", "paper[0].factor"),
        ("factor = 2.0\nchange = 1.0", "paper[0].change"),
        ("factor = 2.0\nup_to = 3.0", "paper[0].up_to"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let o = run(&row(extra), dir.path());
        common::assert_refused(&o, want, dir.path(), extra);
    }
    let dir = tempfile::tempdir().unwrap();
    let plain =
        format!("{head}label = \"x\"\nmetric = \"schemes.dctcp.drops.packets\"\nfactor = 2.0");
    let o = run(&plain, dir.path());
    common::assert_refused(&o, "paper[0].metric", dir.path(), &plain);
}

/// The text of `scenarios/flowtune/<name>`.
fn scenario(name: &str) -> String {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::read_to_string(repo.join("scenarios/flowtune").join(name)).unwrap()
}

/// Runs `text` as `dir/s.toml` and returns its summary.
fn summary_of(text: &str, dir: &Path) -> serde_json::Value {
    let o = common::run_in(text, dir);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let name = text
        .lines()
        .find_map(|l| l.strip_prefix("name = \""))
        .and_then(|l| l.strip_suffix('"'))
        .unwrap();
    let path = dir.join("out").join(name).join("summary.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn churn_in_the_fabric_is_pinned_against_the_allocator_alone() {
    // Flowtune §6.6 on the same fb-web arrivals at load 0.8 (2 ms, 0.5 ms warm-up): the
    // allocator alone (`churn-allocator.toml`, flowlets draining at their F-NORM rates) and the
    // allocator node in the fabric (`churn-fabric.toml`, flowlets as endpoints report them).
    // Measured (scenarios/flowtune/README.md): F-NORM / optimal 0.926 alone, 0.914 in the
    // fabric, both short of the paper's 0.997; mean over-allocation 299 vs 379 Gb/s on about
    // the same number of flowlets (421 vs 430). Churn inside the system does not close the gap.
    let dir = tempfile::tempdir().unwrap();
    let text = scenario("churn-allocator.toml");
    assert!(
        text.contains("loads = [0.4, 0.6, 0.8]"),
        "churn-allocator.toml changed shape"
    );
    let alone = summary_of(
        &text.replace("loads = [0.4, 0.6, 0.8]", "loads = [0.8]"),
        dir.path(),
    );
    let alone = &alone["schemes"]["NED"]["load_80"];
    let fabric = summary_of(&scenario("churn-fabric.toml"), dir.path());
    let fabric = &fabric["schemes"]["Flowtune"]["control_plane"]["churn"];
    let get = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    let (fa, ff) = (
        get(alone, "f_norm_fraction"),
        get(fabric, "f_norm_fraction"),
    );
    assert!(fa > 0.91 && fa < 0.94, "alone {alone}");
    assert!(ff > 0.90 && ff < 0.93, "fabric {fabric}");
    assert!(ff < fa - 0.005, "fabric {ff} alone {fa}");
    let (oa, of) = (
        get(alone, "mean_over_allocation_gbps"),
        get(fabric, "mean_over_allocation_gbps"),
    );
    assert!(oa > 250.0 && oa < 350.0, "alone {alone}");
    assert!(of > 1.1 * oa && of < 450.0, "fabric {fabric}");
    // Both far above the paper's 140 Gb/s at their worst iteration.
    assert!(get(alone, "max_over_allocation_gbps") > 400.0, "{alone}");
    assert!(get(fabric, "max_over_allocation_gbps") > 500.0, "{fabric}");
    // The in-fabric figure covers the iterations after the warm-up (1.5 ms of 10 us) with an
    // optimum every 10, on a flowlet set of the allocator-alone run's size.
    assert_eq!(fabric["iterations"].as_u64(), Some(151), "{fabric}");
    assert_eq!(fabric["optimum_iterations"].as_u64(), Some(15), "{fabric}");
    let flowlets = get(fabric, "mean_flowlets");
    assert!(flowlets > 380.0 && flowlets < 480.0, "{fabric}");
}
