//! The coflow trace as recorded, end to end: a big-switch fabric, native arrivals, ports
//! placement, and flows the workload cannot carry reported (console and summary.json).

use std::path::Path;
use std::process::Command;

#[test]
fn dropped_flows_are_warned_and_counted_and_same_port_flows_kept() {
    let dir = tempfile::tempdir().unwrap();
    // Coflow 1: 0 -> 0 (same port, kept). Coflow 2: two mappers into a 0 MB reducer (dropped).
    std::fs::write(
        dir.path().join("t.txt"),
        "2 2\n1 0 1 0 1 0:1\n2 5 2 0 1 1 1:0\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        r#"
name = "t"
engine = "flow"
duration_ms = 1.0
[fabric]
kind = "big-switch"
ports = 2
rate_gbps = 1.0
[[workload]]
kind = "coflow-trace"
path = "t.txt"
placement = "ports"
arrivals = "native"
[[schemes]]
name = "maxmin"
"#,
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_dctc"))
        .args(["run", "s.toml", "--out", "out"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let all = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{all}");
    assert!(
        all.contains("warning: workload[0]: 2 flows (1 whole coflows) dropped"),
        "{all}"
    );
    let s: serde_json::Value = serde_json::from_slice(
        &std::fs::read(Path::new(dir.path()).join("out/summary.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(s["dropped"][0]["flows"], 2, "{s}");
    assert_eq!(s["dropped"][0]["coflows"], 1, "{s}");
    let m = &s["schemes"]["maxmin"];
    assert_eq!(m["coflows"], 1, "{s}");
    assert_eq!(m["finished"], 1, "{s}");
    // 1 MiB up port 0 and back down it at 1 Gb/s.
    let cct = m["avg_cct_s"].as_f64().unwrap();
    assert!((cct - 1_048_576.0 * 8.0 / 1e9).abs() < 1e-9, "{cct}");
}
