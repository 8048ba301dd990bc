//! Bad CoDel-family keys in a packet scheme table exit 2, name `schemes[i].<key>` and write
//! nothing.

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
name = "flowtune-144"
[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.3
[[schemes]]
name = "dctcp"
[[schemes]]
name = "fq-codel"
{extra}
"#
    );
    std::fs::write(dir.join("s.toml"), scenario).unwrap();
    Command::new(env!("CARGO_BIN_EXE_dctc"))
        .args(["run", "s.toml"])
        .current_dir(dir)
        .output()
        .expect("dctc runs")
}

#[test]
fn bad_codel_family_keys_exit_2_naming_the_key() {
    for (extra, want) in [
        ("fq_buckets = 0", "schemes[1].fq_buckets"),
        ("codel_target_us = -5.0", "schemes[1].codel_target_us"),
        ("fq_quantum_bytes = 0", "schemes[1].fq_quantum_bytes"),
        ("fq_bucket = 64", "did you mean `fq_buckets`"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let o = run(extra, dir.path());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra}: {err}");
        assert!(err.contains(want), "{extra}: wanted {want} in {err}");
        assert!(!dir.path().join("out").exists(), "{extra}: no output");
    }
}
