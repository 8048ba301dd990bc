//! The conformance suite in CI: its quick set (what `dctc conformance --quick` runs) meets
//! every expectation, and broken variants of two schemes and of every flow policy, run through
//! the same measurements and checkers, fail them, so a scheme that breaks the same way would
//! fail the suite.

use dctc_cli::conformance::{self, Case, Filter, Measured};
use std::process::Command;

fn run(cases: &[&Case]) -> Vec<Measured> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    conformance::run_all(cases, threads, &|_, _| {})
}

#[test]
fn the_quick_set_meets_its_expectations() {
    let all = conformance::cases();
    let quick = Filter {
        quick: true,
        ..Filter::default()
    };
    let selected: Vec<&Case> = all.iter().filter(|c| quick.selects(c)).collect();
    assert!(selected.len() >= 20, "{} quick cases", selected.len());
    let results = run(&selected);
    let failed: Vec<String> = selected
        .iter()
        .zip(&results)
        .filter(|(c, m)| !c.as_expected(m))
        .map(|(c, m)| {
            format!(
                "{} {} ({}): expected {}, measured {}",
                c.family, c.scheme, c.setting, c.expected, m.value
            )
        })
        .collect();
    assert!(failed.is_empty(), "failed:\n{}", failed.join("\n"));
}

#[test]
fn broken_variants_fail_their_checks() {
    let broken = conformance::sabotaged();
    let refs: Vec<&Case> = broken.iter().collect();
    for (c, m) in refs.iter().zip(run(&refs)) {
        eprintln!("{} ({}): {}", c.scheme, c.setting, m.value);
        assert!(!m.pass, "{} passed its check: {}", c.scheme, m.value);
    }
}

#[test]
fn every_scheme_and_policy_dctc_list_prints_has_cases() {
    // The registries `dctc list` prints from: a scheme or policy added without a case fails.
    let covered = conformance::covered();
    let listed = (dctc_packet::SCHEMES.iter()).chain(dctc_flow::POLICIES);
    let missing: Vec<&str> = listed
        .map(|(name, _)| *name)
        .filter(|name| !covered.iter().any(|c| c == name))
        .collect();
    assert!(missing.is_empty(), "no conformance case for {missing:?}");
}

#[test]
fn an_unknown_scheme_is_refused_with_the_names() {
    let out = Command::new(env!("CARGO_BIN_EXE_dctc"))
        .args(["conformance", "--scheme", "dctpc"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--scheme") && err.contains("dctcp"), "{err}");
}
