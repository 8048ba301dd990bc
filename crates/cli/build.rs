//! Embeds the git commit the binary was built from as `DCTC_GIT_COMMIT` (`git rev-parse
//! --short HEAD`, or "unknown" when git or the repository is absent), so that every
//! `summary.json` and report names the code that produced it.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn watch(git_path: &str) {
    // `--git-path` resolves worktrees and the common directory alike.
    if let Some(p) = git(&["rev-parse", "--git-path", git_path]) {
        if Path::new(&p).exists() {
            println!("cargo:rerun-if-changed={p}");
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let commit = git(&["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "unknown".into());
    watch("HEAD");
    if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watch(&r);
        watch("packed-refs");
    }
    println!("cargo:rustc-env=DCTC_GIT_COMMIT={commit}");
}
