//! Which code produced a result: the dctc version and the git commit it was built from
//! (embedded by `build.rs`), written into every `summary.json` and report.

/// The crate version (`Cargo.toml`).
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// `git rev-parse --short HEAD` at build time, or "unknown" when git or the repository was
/// absent.
pub(crate) const COMMIT: &str = env!("DCTC_GIT_COMMIT");

/// The `dctc` object of `summary.json`.
pub(crate) fn json() -> serde_json::Value {
    serde_json::json!({ "version": VERSION, "commit": COMMIT })
}

/// The line every report shows under its title: seed and version.
pub(crate) fn report_line(seed: u64) -> String {
    format!("seed {seed} \u{b7} dctc {VERSION} (commit {COMMIT})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_seed_version_and_commit() {
        let l = report_line(42);
        assert!(l.starts_with("seed 42 "), "{l}");
        assert!(l.contains(VERSION) && l.contains(COMMIT), "{l}");
        assert!(!COMMIT.is_empty());
        assert_eq!(json()["version"], VERSION);
    }
}
