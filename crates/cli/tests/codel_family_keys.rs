//! Bad CoDel-family keys in a packet scheme table exit 2, name `schemes[i].<key>` and write
//! nothing.

mod common;

use std::path::Path;
use std::process::Output;

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
    common::run_in(&scenario, dir)
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
        common::assert_refused(&o, want, dir.path(), extra);
    }
}
