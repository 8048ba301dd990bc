//! Helpers the `dctc` end-to-end tests share: run the binary, read its output, check an error.
// Each test file compiles this module on its own and uses a different part of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

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
