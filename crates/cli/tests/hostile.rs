//! Hostile inputs (issue 27), through the binary: a rate that rounds to 0 b/s, work without
//! bound, `validate` accepting what `run` refuses, two writers in one directory, legal slips
//! accepted without a word, an input inside the directory being replaced, and type errors
//! that named the table instead of the field. Each test failed on ba054a0.

mod common;
use common::{dctc, stderr, TINY};

use std::path::Path;
use std::process::Output;

/// TINY with `from` replaced by `to` (which must change it).
fn tiny(from: &str, to: &str) -> String {
    assert!(TINY.contains(from), "{from}");
    TINY.replace(from, to)
}

/// Writes `text` as `dir/s.toml` and runs `dctc CMD s.toml` there.
fn cmd(c: &str, text: &str, dir: &Path) -> Output {
    std::fs::write(dir.join("s.toml"), text).unwrap();
    dctc(
        &[c, "s.toml", "--quiet"][..if c == "run" { 3 } else { 2 }],
        dir,
    )
}

/// `validate` and `run` both exit 2 with every `needles` on stderr, and nothing is written.
fn refused(text: &str, needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    for c in ["validate", "run"] {
        let o = cmd(c, text, dir.path());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{c}: {err}\n{text}");
        for n in needles {
            assert!(err.contains(n), "{c}: no `{n}` in {err}");
        }
        assert!(!dir.path().join("out").exists(), "{c} wrote nothing");
    }
}

// 1. Sub-unit rates.

#[test]
fn a_rate_that_rounds_to_zero_bps_is_refused_naming_the_key_and_what_it_becomes() {
    for tiny_rate in ["1e-300", "5e-324"] {
        // Flowtune panicked on the 0 b/s link; the other schemes ran on it.
        for scheme in ["flowtune", "dctcp"] {
            let text = tiny(
                "host_rate_gbps = 10",
                &format!("host_rate_gbps = {tiny_rate}"),
            )
            .replace("name = \"dctcp\"", &format!("name = \"{scheme}\""));
            refused(&text, &["`fabric.host_rate_gbps`", "is 0 b/s"]);
        }
    }
    let text = tiny("bottleneck_rate_gbps = 10", "bottleneck_rate_gbps = 1e-300");
    refused(&text, &["`fabric.bottleneck_rate_gbps`", "is 0 b/s"]);
}

// 2. Work bounded before the run starts, with the estimate in the error.

#[test]
fn a_flowtune_allocator_interval_of_a_femtosecond_is_refused_with_its_step_count() {
    let text = tiny(
        "name = \"dctcp\"",
        "name = \"flowtune\"\nallocator_interval_us = 1e-9",
    );
    // 1e-9 us is 1 fs: 0 ps in the engines' clock.
    refused(&text, &["`schemes[0].allocator_interval_us`", "0 ps"]);
    let text = tiny(
        "name = \"dctcp\"",
        "name = \"flowtune\"\nallocator_interval_us = 5e-6",
    );
    // 5 ps steps over 0.2 ms are 4e7 steps: refused with the count.
    refused(
        &text,
        &["`schemes[0].allocator_interval_us`", "40000000 steps"],
    );
}

/// The shipped allocator convergence scenario with `max_iterations` set to `n`.
fn convergence_with(n: &str) -> String {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(repo.join("scenarios/flowtune/convergence-allocator.toml"))
        .unwrap();
    assert!(text.contains("max_iterations = 5000"));
    text.replace("max_iterations = 5000", &format!("max_iterations = {n}"))
}

#[test]
fn allocator_iteration_caps_of_zero_or_beyond_the_work_bound_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (n, needles) in [
        ("0", &["`allocator.max_iterations`", "at least 1"][..]),
        (
            "1000000000000",
            &["`allocator.max_iterations`", "more than the 20000000"][..],
        ),
        // Within the recorded bound, but 1.9e7 iterations x 1000 flows x 2 is 3.8e10 flow
        // updates per scheme.
        (
            "19000000",
            &["`allocator.max_iterations`", "3.800e10 flow updates"][..],
        ),
    ] {
        let o = cmd("validate", &convergence_with(n), dir.path());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{n}: {err}");
        for w in needles {
            assert!(err.contains(w), "{n}: no `{w}` in {err}");
        }
    }
}

// 3. `validate` makes every check `run` makes.

/// TINY with a second, Poisson, workload at `load`.
fn two_workloads(load: &str) -> String {
    format!("{TINY}\n[[workload]]\nkind = \"poisson\"\ncdf = \"websearch\"\nload = {load}\n")
}

#[test]
fn a_second_workloads_bad_load_is_refused_by_validate() {
    for load in ["nan", "-inf", "1.51"] {
        refused(&two_workloads(load), &["`workload[1].load`", "(0, 1.5]"]);
    }
}

#[test]
fn a_lone_workloads_load_of_zero_or_less_says_what_is_wrong() {
    let text = tiny(
        "kind = \"flows\"\nflows = [ { src = 0, dst = 1, size_bytes = 30000 } ]",
        "kind = \"poisson\"\ncdf = \"websearch\"\nload = LOAD",
    );
    for load in ["0", "-1", "nan"] {
        let text = text.replace("LOAD", load);
        refused(&text, &["`workload[0].load`", "must be in (0, 1.5]"]);
        let o = cmd("validate", &text, tempfile::tempdir().unwrap().path());
        assert!(!stderr(&o).contains("raise the load"), "{}", stderr(&o));
    }
}

/// A flow-engine scenario on a 4-host leaf-spine running DBA over `workload`.
fn flow_scenario(workload: &str, extra: &str) -> String {
    format!(
        r#"
name = "f"
engine = "flow"
duration_ms = 10.0
{extra}
[fabric]
kind = "leaf-spine"
racks = 2
hosts_per_rack = 2
spines = 2
host_rate_gbps = 10.0
fabric_rate_gbps = 10.0
host_link_delay_us = 1
fabric_link_delay_us = 1
host_delay_us = 1
buffer_bytes = 225000
[[workload]]
{workload}
[[schemes]]
name = "dba"
"#
    )
}

#[test]
fn a_malformed_synthetic_coflow_cdf_is_refused_by_validate() {
    let dir = tempfile::tempdir().unwrap();
    // Probabilities that fall: not a CDF.
    std::fs::write(
        dir.path().join("bad.cdf"),
        "1000 1 0.5\n2000 1 0.2\n3000 1 1.0\n",
    )
    .unwrap();
    let text = flow_scenario(
        "kind = \"synthetic-coflows\"\ncoflows = 4\nload = 0.5\nwidth_min = 1\nwidth_max = 2\ncdf = \"bad.cdf\"",
        "",
    );
    for c in ["validate", "run"] {
        let o = cmd(c, &text, dir.path());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{c}: {err}");
        assert!(err.contains("bad.cdf"), "{c}: {err}");
    }
}

// 4. One writer per output directory.

/// Holds the lock of `dir/NAME` as another dctc process would: `.NAME.lock` beside it, naming
/// pid 4242, under an OS file lock.
fn hold_lock(dir: &Path, name: &str) -> std::fs::File {
    use std::io::Write;
    let mut f = std::fs::File::create(dir.join(format!(".{name}.lock"))).unwrap();
    writeln!(f, "4242\ndctc run other.toml").unwrap();
    f.try_lock().expect("the lock is free");
    f
}

#[test]
fn a_second_writer_into_a_locked_directory_fails_at_once_naming_the_holder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), TINY).unwrap();
    let lock = hold_lock(dir.path(), "res");
    let sweep = [
        "sweep", "s.toml", "--set", "seed=1,2", "--out", "res", "--quiet",
    ];
    for args in [
        &["run", "s.toml", "--quiet", "--out", "res"][..],
        &sweep[..],
    ] {
        let o = dctc(args, dir.path());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("is being written by dctc process 4242 (`dctc run other.toml`)"),
            "{args:?}: {err}"
        );
        assert!(!dir.path().join("res").exists(), "{args:?} wrote nothing");
    }
    // A directory inside the locked one is refused too.
    let o = dctc(
        &["run", "s.toml", "--quiet", "--out", "res/inner"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("is inside"), "{}", stderr(&o));
    // Released (its holder gone, the file left with its pid): the next run takes it, writes
    // and removes the lock file when it ends.
    drop(lock);
    let o = dctc(&["run", "s.toml", "--quiet", "--out", "res"], dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(dir.path().join("res/summary.json").is_file());
    assert!(!dir.path().join(".res.lock").exists());
}

#[test]
fn reproduce_locks_every_output_directory_before_the_first_run() {
    let dir = tempfile::tempdir().unwrap();
    let paper = dir.path().join("scenarios/p");
    std::fs::create_dir_all(&paper).unwrap();
    std::fs::write(paper.join("a.toml"), TINY.replace("\"tiny\"", "\"a\"")).unwrap();
    std::fs::write(paper.join("b.toml"), TINY.replace("\"tiny\"", "\"b\"")).unwrap();
    std::fs::create_dir_all(dir.path().join("res")).unwrap();
    let _lock = hold_lock(&dir.path().join("res"), "b");
    let o = dctc(
        &["reproduce", "p", "--scenarios", "scenarios", "--out", "res"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("dctc process 4242"), "{}", stderr(&o));
    assert!(!dir.path().join("res/a").exists(), "nothing ran");
}

// 5. Slips: refused where they cannot run, warned of where they are legal.

#[test]
fn a_duration_that_rounds_to_zero_is_refused_and_one_under_a_microsecond_warns() {
    refused(
        &tiny("duration_ms = 0.2", "duration_ms = 5e-324"),
        &["`duration_ms`", "0 ps"],
    );
    let dir = tempfile::tempdir().unwrap();
    let o = cmd(
        "validate",
        &tiny("duration_ms = 0.2", "duration_ms = 1e-4"),
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: s.toml: `duration_ms`: 100 ns of simulated time"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_flow_starting_after_the_run_ends_is_refused_naming_it() {
    let text = tiny(
        "size_bytes = 30000 }",
        "size_bytes = 30000, start_us = 1e20 }",
    );
    refused(&text, &["`workload[0].flows[0].start_us`"]);
}

#[test]
fn a_coflow_of_1e300_megabytes_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.txt"), "4 1\n1 0 1 0 1 3:1e300\n").unwrap();
    let text = flow_scenario("kind = \"coflow-trace\"\npath = \"t.txt\"\nload = 0.5", "");
    for c in ["validate", "run"] {
        let o = cmd(c, &text, dir.path());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{c}: {err}");
        assert!(err.contains("`workload[0]"), "{c}: {err}");
        assert!(err.contains("1 PB") || err.contains("1e300"), "{c}: {err}");
    }
}

#[test]
fn load_lists_that_are_empty_are_refused_and_overloads_warn() {
    let synthetic = "kind = \"synthetic-coflows\"\ncoflows = 4\nload = 0.5\nwidth_min = 1\nwidth_max = 2\ncdf = \"websearch\"";
    refused(
        &flow_scenario(synthetic, "[flow]\nloads = []"),
        &["`flow.loads`", "at least one load"],
    );
    let dir = tempfile::tempdir().unwrap();
    let o = cmd(
        "validate",
        &flow_scenario(synthetic, "[flow]\nloads = [3.0]"),
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: s.toml: `flow.loads[0]`: load 3 offers the hosts more"),
        "{}",
        stderr(&o)
    );
    // The allocator engine's list likewise.
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let churn =
        std::fs::read_to_string(repo.join("scenarios/flowtune/churn-allocator.toml")).unwrap();
    assert!(churn.contains("loads = [0.4, 0.6, 0.8]"));
    let empty = churn.replace("loads = [0.4, 0.6, 0.8]", "loads = []");
    let o = cmd("validate", &empty, dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("`allocator.loads`"), "{}", stderr(&o));
}

#[test]
fn an_oversubscription_that_makes_the_fabric_rate_round_away_is_refused() {
    let text = flow_scenario(
        "kind = \"synthetic-coflows\"\ncoflows = 4\nload = 0.5\nwidth_min = 1\nwidth_max = 2\ncdf = \"websearch\"",
        "",
    )
    .replace("fabric_rate_gbps = 10.0", "fabric_rate_gbps = 10.0\noversubscription = 1e12");
    refused(&text, &["`fabric.oversubscription`", "1e12"]);
}

// 6. An input inside the directory to be replaced.

#[test]
fn an_input_inside_the_output_directory_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), TINY).unwrap();
    let o = dctc(&["run", "s.toml", "--quiet", "--out", "res"], dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The scenario moves into its own results, beside the user's notes.
    std::fs::rename(dir.path().join("s.toml"), dir.path().join("res/s.toml")).unwrap();
    std::fs::write(dir.path().join("res/notes.txt"), "mine").unwrap();
    let o = dctc(
        &["run", "res/s.toml", "--quiet", "--out", "res"],
        dir.path(),
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("an input of this run"), "{err}");
    assert!(dir.path().join("res/s.toml").is_file());
    assert!(dir.path().join("res/notes.txt").is_file());
    // And the working directory inside it, even with --force.
    let o = dctc(
        &["run", "s.toml", "--quiet", "--force", "--out", "."],
        &dir.path().join("res"),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(dir.path().join("res/notes.txt").is_file());
}

// 7. Type errors name the field.

#[test]
fn a_wrong_type_inside_a_tagged_table_names_the_field() {
    refused(
        &tiny("buffer_bytes = 100000", "buffer_bytes = \"big\""),
        &["`fabric.buffer_bytes`"],
    );
    refused(
        &tiny(
            "size_bytes = 30000 }",
            "size_bytes = 30000, start_us = \"soon\" }",
        ),
        &["`workload[0].flows[0].start_us`"],
    );
}

#[test]
fn buffers_beyond_a_terabyte_are_refused() {
    // i64::MAX bytes overflowed a congestion threshold (a percentage of the buffer) mid-run.
    refused(
        &tiny(
            "buffer_bytes = 100000",
            "buffer_bytes = 9223372036854775807",
        ),
        &["`fabric.buffer_bytes`", "1 TB"],
    );
    refused(
        &format!("{TINY}[packet]\nnic_buffer_bytes = 9223372036854775807\n"),
        &["`packet.nic_buffer_bytes`", "1 TB"],
    );
}
