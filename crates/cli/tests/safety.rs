//! `dctc` never loses a user's files and does bounded work for every input: `--out` replaces
//! only what dctc wrote, is checked before the run, survives a closed or full stdout, and
//! interrupted runs' partial directories are cleaned up; oversized inputs exit 2 at once.

mod common;
use common::{dctc, stderr, TINY};

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), TINY).unwrap();
    dir
}

fn run_out(dir: &Path, out: &str, extra: &[&str]) -> Output {
    let mut args = vec!["run", "s.toml", "--quiet", "--out", out];
    args.extend_from_slice(extra);
    dctc(&args, dir)
}

#[test]
fn existing_directory_not_written_by_dctc_is_kept_unless_forced() {
    let dir = setup();
    let mine = dir.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("thesis.tex"), "precious").unwrap();
    let o = run_out(dir.path(), "mine", &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("mine") && stderr(&o).contains("--force"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(mine.join("thesis.tex")).unwrap(),
        "precious"
    );
    // A dctc output is replaced without --force.
    let o = run_out(dir.path(), "res", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::write(dir.path().join("res/extra.txt"), "old").unwrap();
    let o = run_out(dir.path(), "res", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(dir.path().join("res/summary.json").is_file());
    assert!(!dir.path().join("res/extra.txt").exists());
    // --force replaces the user's directory.
    let o = run_out(dir.path(), "mine", &["--force"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(mine.join("summary.json").is_file());
    assert!(!mine.join("thesis.tex").exists());
}

#[test]
fn dot_dotdot_root_home_and_ancestors_are_refused_even_with_force() {
    let dir = setup();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::write(work.join("s.toml"), TINY).unwrap();
    std::fs::write(dir.path().join("keep.txt"), "x").unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let parent = dir.path().display().to_string();
    let home_s = home.display().to_string();
    for out in [".", "..", "/", "sub/..", "../work", &parent, &home_s] {
        for force in [false, true] {
            let mut args = vec!["run", "s.toml", "--quiet", "--out", out];
            if force {
                args.push("--force");
            }
            let o = Command::new(env!("CARGO_BIN_EXE_dctc"))
                .args(&args)
                .current_dir(&work)
                .env("HOME", &home)
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(2), "--out {out}: {}", stderr(&o));
            assert!(stderr(&o).contains("output directory"), "{}", stderr(&o));
        }
    }
    assert!(work.join("s.toml").is_file());
    assert!(dir.path().join("keep.txt").is_file());
    assert!(!work.join("summary.json").exists());
}

#[test]
fn unwritable_out_fails_before_the_run_and_names_the_path() {
    let dir = setup();
    std::fs::write(dir.path().join("afile"), "x").unwrap();
    let o = run_out(dir.path(), "afile/sub", &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("afile/sub"), "{err}");
    // Checked before simulating: nothing was run, so no console table.
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn closed_stdout_is_a_quiet_exit_with_results_on_disk() {
    let dir = setup();
    let mut child = Command::new(env!("CARGO_BIN_EXE_dctc"))
        .args(["run", "s.toml", "--quiet", "--out", "res"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away, like `| head -0`
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    assert!(dir.path().join("res/summary.json").is_file());
}

#[test]
fn full_stdout_keeps_results_and_reports_the_error() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        return;
    }
    let dir = setup();
    let o = Command::new(env!("CARGO_BIN_EXE_dctc"))
        .args(["run", "s.toml", "--quiet", "--out", "res"])
        .current_dir(dir.path())
        .stdout(std::fs::OpenOptions::new().write(true).open(full).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("standard output") && !err.contains("panicked"),
        "{err}"
    );
    assert!(dir.path().join("res/summary.json").is_file());
}

#[test]
fn stale_partial_directories_are_removed_by_the_next_run() {
    let dir = setup();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    // Process ids never reach 999999999 (Linux caps them at 2^22): that run is gone.
    let stale = dir.path().join("out/.tiny.partial-999999999");
    std::fs::create_dir(&stale).unwrap();
    std::fs::write(stale.join(".dctc-output"), "").unwrap();
    std::fs::write(stale.join("summary.json"), "{").unwrap();
    // Not dctc's (no marker): left alone.
    let foreign = dir.path().join("out/.notes.partial-999999998");
    std::fs::create_dir(&foreign).unwrap();
    // A live process's (this test's): left alone.
    let live = dir
        .path()
        .join(format!("out/.tiny.partial-{}", std::process::id()));
    std::fs::create_dir(&live).unwrap();
    std::fs::write(live.join(".dctc-output"), "").unwrap();
    let o = dctc(&["run", "s.toml", "--quiet"], dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    if Path::new("/proc/self").exists() {
        assert!(!stale.exists(), "stale partial directory left behind");
    }
    assert!(foreign.exists());
    assert!(live.exists());
    assert!(dir.path().join("out/tiny/summary.json").is_file());
}

#[test]
fn reproduce_checks_every_output_directory_before_running() {
    let dir = setup();
    std::fs::create_dir_all(dir.path().join("sc/p")).unwrap();
    std::fs::write(dir.path().join("sc/p/a.toml"), TINY.replace("tiny", "a")).unwrap();
    std::fs::write(dir.path().join("sc/p/b.toml"), TINY.replace("tiny", "b")).unwrap();
    std::fs::create_dir_all(dir.path().join("res/b")).unwrap();
    std::fs::write(dir.path().join("res/b/mine.txt"), "x").unwrap();
    let o = dctc(
        &["reproduce", "p", "--scenarios", "sc", "--out", "res"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("res/b"), "{}", stderr(&o));
    assert!(!dir.path().join("res/a").exists(), "nothing ran");
    assert!(dir.path().join("res/b/mine.txt").is_file());
}

/// `dctc validate` on TINY with `from` replaced by `to`: exit 2 with every `needles` in stderr.
fn refused(from: &str, to: &str, needles: &[&str]) {
    assert!(TINY.contains(from), "{from}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), TINY.replace(from, to)).unwrap();
    for cmd in ["validate", "run"] {
        let o = dctc(&[cmd, "s.toml"], dir.path());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{cmd} {to}: {err}");
        for n in needles {
            assert!(err.contains(n), "{cmd} {to}: no `{n}` in {err}");
        }
        assert!(!dir.path().join("out").exists());
    }
}

const FABRIC: &str = "kind = \"dumbbell\"\nsenders = 1\nreceivers = 1\nhost_rate_gbps = 10\nbottleneck_rate_gbps = 10\nlink_delay_us = 1\nbuffer_bytes = 100000";

#[test]
fn fat_tree_k_1000_is_refused_with_a_memory_estimate() {
    refused(
        FABRIC,
        "kind = \"fat-tree\"\nk = 1000\nrate_gbps = 10\nlink_delay_us = 1\nbuffer_bytes = 100000",
        &["`fabric`", "250000000 hosts", "memory"],
    );
}

#[test]
fn ten_million_hosts_are_refused_with_a_memory_estimate() {
    refused(
        "senders = 1\n",
        "senders = 10000000\n",
        // Compact routing needs about 320 MB here, within the memory limit: the host cap
        // refuses it, with the estimate.
        &[
            "`fabric.senders`",
            "10000001 hosts",
            "routing tables alone would take about",
        ],
    );
}

#[test]
fn durations_beyond_a_day_are_refused() {
    refused(
        "duration_ms = 0.2",
        "duration_ms = 1e300",
        &["`duration_ms`", "one day"],
    );
    refused(
        "duration_ms = 0.2",
        "duration_ms = 1e12",
        &["`duration_ms`", "one day"],
    );
}

#[test]
fn poisson_arrivals_beyond_the_flow_cap_are_refused_without_generating_them() {
    // Within the time limit (a day), but about 2e10 flows at half load of a 10 Gb/s host.
    let dir = tempfile::tempdir().unwrap();
    let text = TINY
        .replace("duration_ms = 0.2", "duration_ms = 86400000")
        .replace(
            "kind = \"flows\"\nflows = [ { src = 0, dst = 1, size_bytes = 30000 } ]",
            "kind = \"poisson\"\ncdf = \"fb-web\"\nload = 0.5",
        );
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    let o = dctc(&["validate", "s.toml"], dir.path());
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("workload[0].load") && err.contains("flows"),
        "{err}"
    );
}

#[test]
fn sampling_every_picosecond_is_refused() {
    refused(
        "[[schemes]]",
        "[output]\nqueue_sample_us = 1e-6\n[[schemes]]",
        &["`output.queue_sample_us`", "samples"],
    );
}

#[test]
fn rates_beyond_100_tbps_are_refused() {
    refused(
        "host_rate_gbps = 10",
        "host_rate_gbps = 1e308",
        &["host_rate_gbps", "100 Tb/s"],
    );
}

#[test]
fn self_loop_in_a_fabric_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("f.toml"),
        r#"nodes = [{name="a", kind="host"}, {name="s", kind="switch"}, {name="b", kind="host"}]
links = [{a="a", b="s", rate_gbps=10, delay_us=1, buffer_bytes=100000},
         {a="s", b="b", rate_gbps=10, delay_us=1, buffer_bytes=100000},
         {a="b", b="b", rate_gbps=10, delay_us=1, buffer_bytes=100000}]"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        TINY.replace(FABRIC, "kind = \"file\"\npath = \"f.toml\""),
    )
    .unwrap();
    let o = dctc(&["validate", "s.toml"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("links[2].b") && stderr(&o).contains("self-loop"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn endless_input_files_are_refused_by_name() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let o = dctc(&["validate", "/dev/zero"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("/dev/zero") && stderr(&o).contains("64 MiB"),
        "{}",
        stderr(&o)
    );
    let o = dctc(&["num", "solve", "/dev/zero"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("/dev/zero") && stderr(&o).contains("64 MiB"),
        "{}",
        stderr(&o)
    );
}

/// `scenarios/flowtune/churn-allocator.toml` with `from` replaced by `to`.
fn churn_allocator_with(from: &str, to: &str) -> String {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text =
        std::fs::read_to_string(repo.join("scenarios/flowtune/churn-allocator.toml")).unwrap();
    assert!(text.contains(from), "churn-allocator.toml changed shape");
    text.replace(from, to)
}

/// Writes `text` as `dir/name`; `dctc validate` must exit 2 naming `key` and saying `word`.
fn assert_validate_refuses(dir: &Path, name: &str, text: &str, key: &str, word: &str) {
    std::fs::write(dir.join(name), text).unwrap();
    let o = dctc(&["validate", name], dir);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(key) && err.contains(word), "{err}");
}

#[test]
fn allocator_and_flow_engines_count_arrivals_before_generating() {
    // 10 s at 0.6 load of 144 hosts is about 1.7e7 arrivals (the iterations stay in bounds).
    let text = churn_allocator_with("duration_ms = 2.0", "duration_ms = 10000");
    let dir = tempfile::tempdir().unwrap();
    assert_validate_refuses(dir.path(), "a.toml", &text, "`workload[0].load`", "flows");
    // The flow engine on the same arrivals.
    let flow = text
        .replace("engine = \"allocator\"", "engine = \"flow\"")
        .split("[allocator]")
        .next()
        .unwrap()
        .to_string()
        + "[[workload]]\nkind = \"poisson\"\ncdf = \"fb-web\"\nload = 0.6\n[[schemes]]\nname = \"dba\"\n";
    assert_validate_refuses(dir.path(), "f.toml", &flow, "`workload[0].load`", "flows");
}

#[test]
fn allocator_iterations_every_picosecond_are_refused() {
    let text = churn_allocator_with("iteration_us = 10.0", "iteration_us = 1e-6");
    let dir = tempfile::tempdir().unwrap();
    assert_validate_refuses(
        dir.path(),
        "a.toml",
        &text,
        "`allocator.iteration_us`",
        "samples",
    );
}

#[test]
fn xcp_gains_outside_their_ranges_are_refused_by_key() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        TINY.replace(
            "name = \"dctcp\"",
            "name = \"xcp\"\nxcp_alpha = 0.4\nxcp_beta = 0.226",
        ),
    )
    .unwrap();
    let o = dctc(&["validate", "s.toml"], dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    refused(
        "name = \"dctcp\"",
        "name = \"xcp\"\nxcp_alpha = 0.7",
        &["schemes[0].xcp_alpha", "pi / (4 sqrt 2)"],
    );
    refused(
        "name = \"dctcp\"",
        "name = \"xcp\"\nxcp_beta = 1.2",
        &["schemes[0].xcp_beta", "(0, 1)"],
    );
    refused(
        "name = \"dctcp\"",
        "name = \"xcp\"\nxcp_alpha = -0.1",
        &["schemes[0].xcp_alpha"],
    );
}
