//! Bad queue discipline keys in a packet scheme table (the CoDel family's, RED's) exit 2,
//! name `schemes[i].<key>` and write nothing.

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
        let extra = format!("name = \"fq-codel\"\n{extra}");
        let dir = tempfile::tempdir().unwrap();
        let o = run(&extra, dir.path());
        common::assert_refused(&o, want, dir.path(), &extra);
    }
}

#[test]
fn bad_red_keys_exit_2_naming_the_key() {
    for (extra, want) in [
        ("red_max_bytes = 20000", "schemes[1].red_max_bytes"),
        ("red_max_p = 1.5", "schemes[1].red_max_p"),
        ("red_weight = 0.0", "schemes[1].red_weight"),
        ("red_min = 9000", "did you mean `red_min_bytes`"),
    ] {
        let extra = format!("name = \"dctcp\"\nqueue = \"red\"\n{extra}");
        let dir = tempfile::tempdir().unwrap();
        let o = run(&extra, dir.path());
        common::assert_refused(&o, want, dir.path(), &extra);
    }
    // A RED key under another discipline names the queue that owns it.
    let dir = tempfile::tempdir().unwrap();
    let o = run("name = \"dctcp\"\nred_max_p = 0.2", dir.path());
    common::assert_refused(
        &o,
        "a key of the `red` queue",
        dir.path(),
        "red_max_p on ecn",
    );
}
