//! Helpers the `dctc` end-to-end tests share: run the binary, read its output, check an error.
// Each test file compiles this module on its own and uses a different part of it.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

/// One 30 kB flow across a dumbbell: a run of a few hundred events.
pub(crate) const TINY: &str = r#"
name = "tiny"
engine = "packet"
duration_ms = 0.2
[fabric]
kind = "dumbbell"
senders = 1
receivers = 1
host_rate_gbps = 10
bottleneck_rate_gbps = 10
link_delay_us = 1
buffer_bytes = 100000
[[workload]]
kind = "flows"
flows = [ { src = 0, dst = 1, size_bytes = 30000 } ]
[[schemes]]
name = "dctcp"
"#;

/// Runs `dctc ARGS` in `cwd` and waits for it.
pub(crate) fn dctc(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dctc"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("dctc runs")
}

/// Standard output as text.
pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes `scenario` to `dir/s.toml` and runs `dctc validate` on it.
pub(crate) fn validate_in(scenario: &str, dir: &Path) -> Output {
    std::fs::write(dir.join("s.toml"), scenario).unwrap();
    dctc(&["validate", "s.toml"], dir)
}

/// Asserts exit status 2 with "`key`: reason" on standard error.
pub(crate) fn assert_key_error(o: &Output, key: &str, reason: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("`{key}`: {reason}")),
        "wanted `{key}`: {reason} in: {err}"
    );
}

/// Writes `scenario` to `dir/s.toml` and runs `dctc run s.toml` there.
pub(crate) fn run_in(scenario: &str, dir: &Path) -> Output {
    std::fs::write(dir.join("s.toml"), scenario).unwrap();
    dctc(&["run", "s.toml"], dir)
}

/// Asserts that a run in `dir` was refused: exit status 2, `want` on standard error (a key
/// path or a suggestion), and no output directory written. `case` names the input in messages.
pub(crate) fn assert_refused(o: &Output, want: &str, dir: &Path, case: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{case}: {err}");
    assert!(err.contains(want), "{case}: wanted {want} in {err}");
    assert!(!dir.join("out").exists(), "{case}: no output");
}

/// Every file under `dir` (its subdirectories too), by path relative to it, with its bytes.
pub(crate) fn files_under(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}
