//! Bad TFC keys in a packet scheme table exit 2, name `schemes[i].<key>` and write nothing.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn run(extra: &str, dir: &Path) -> Output {
    let scenario = format!(
        r#"
name = "t"
engine = "packet"
duration_ms = 0.2
[fabric]
kind = "preset"
name = "tfc-360"
[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.1
[[schemes]]
name = "dctcp"
[[schemes]]
name = "tfc"
{extra}
"#
    );
    common::run_in(&scenario, dir)
}

#[test]
fn bad_tfc_keys_exit_2_naming_the_key() {
    for (extra, want) in [
        ("rho0 = 0.0", "schemes[1].rho0"),
        ("rho0 = 1.25", "schemes[1].rho0"),
        ("alpha = 1.0", "schemes[1].alpha"),
        ("alpha = -0.5", "schemes[1].alpha"),
        ("initial_rtt_b_us = -160.0", "schemes[1].initial_rtt_b_us"),
        ("initial_rtt_b_us = 0.0", "schemes[1].initial_rtt_b_us"),
        ("ecn_k_bytes = 30000", "schemes[1].ecn_k_bytes"),
        ("rho = 0.9", "did you mean `rho0`"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let o = run(extra, dir.path());
        common::assert_refused(&o, want, dir.path(), extra);
    }
}

#[test]
fn tfc_is_listed_with_its_keys() {
    let o = Command::new(env!("CARGO_BIN_EXE_dctc"))
        .arg("list")
        .output()
        .expect("dctc runs");
    let out = String::from_utf8_lossy(&o.stdout);
    let row = out
        .lines()
        .find(|l| l.trim_start().starts_with("tfc "))
        .unwrap_or_else(|| panic!("no tfc row in {out}"));
    for key in ["rho0", "alpha", "initial_rtt_b_us", "delay_arbiter"] {
        assert!(row.contains(key), "{key} missing from {row}");
    }
}
