//! Oracle tests of `dctc num solve` (issue 3's stable interface): output shape and values
//! against hand-derived optima, normalizers, and bad input (exit 2, the flow or link named).

use serde_json::Value;
use std::process::Command;

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn solve(problem: &str, args: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("problem.json");
    std::fs::write(&path, problem).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_dctc"))
        .arg("num")
        .arg("solve")
        .arg(&path)
        .args(args)
        .output()
        .expect("dctc runs");
    Run {
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn ok(problem: &str, args: &[&str]) -> Value {
    let r = solve(problem, args);
    assert_eq!(r.code, Some(0), "stderr: {}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", r.stdout))
}

fn rates(v: &Value) -> Vec<(String, f64)> {
    v["flows"]
        .as_array()
        .expect("flows array")
        .iter()
        .map(|f| {
            (
                f["id"].as_str().expect("id").to_string(),
                f["rate_bps"].as_f64().expect("rate_bps"),
            )
        })
        .collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1e-300)
}

/// The README's example (the issue's, with link l1 defined): f0 on l0 + l1, f1 multipath on
/// l0 | l1, log utilities weight 1, capacities c. KKT: by symmetry p0 = p1 = p, f0 = 1/(2p),
/// f1 = 1/p (both paths cost p), and the links full: f0 + f1/2 = c, so f0 = c/2, f1 = c
/// (c/2 on each path).
const README: &str = r#"{"links": [{"id": "l0", "capacity_bps": 1e10}, {"id": "l1", "capacity_bps": 1e10}],
 "flows": [{"id": "f0", "paths": [["l0", "l1"]],
            "utility": {"kind": "log", "weight": 1.0},
            "min_bps": 0, "max_bps": null},
           {"id": "f1", "paths": [["l0"], ["l1"]]}]}"#;

fn check_readme(v: &Value, tol: f64) {
    let r = rates(v);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].0, "f0");
    assert_eq!(r[1].0, "f1");
    assert!(close(r[0].1, 5e9, tol), "{v}");
    assert!(close(r[1].1, 1e10, tol), "{v}");
    let subs: Vec<f64> = v["flows"][1]["subflow_rate_bps"]
        .as_array()
        .expect("multipath flow lists subflows")
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(subs.len(), 2);
    assert!(close(subs[0], 5e9, tol) && close(subs[1], 5e9, tol), "{v}");
    let obj = v["objective"].as_f64().expect("objective");
    assert!(
        close(obj, r[0].1.ln() + r[1].1.ln(), 1e-12),
        "objective = sum log x"
    );
    assert!(v["max_overload_bps"].as_f64().expect("max_overload_bps") <= 1e-6 * 1e10);
    assert!(v["iterations"].as_u64().expect("iterations") >= 1);
}

#[test]
fn readme_example_reference_solver() {
    let v = ok(README, &["--solver", "reference"]);
    check_readme(&v, 1e-6);
}

#[test]
fn readme_example_default_ned() {
    let v = ok(README, &[]);
    check_readme(&v, 1e-3);
    assert_eq!(v["status"], "converged", "{v}");
}

/// The issue's example verbatim names `l1` in a path but defines only `l0`: bad input.
#[test]
fn issue_example_verbatim_is_rejected_for_unknown_link() {
    let text = r#"{"links": [{"id": "l0", "capacity_bps": 1e10}],
 "flows": [{"id": "f0", "paths": [["l0", "l1"]],
            "utility": {"kind": "log", "weight": 1.0},
            "min_bps": 0, "max_bps": null}]}"#;
    let r = solve(text, &[]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("l1") && r.stderr.contains("f0"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.trim().is_empty(), "no JSON on error: {}", r.stdout);
}

fn one_link(flows: &str, cap: &str) -> String {
    format!(r#"{{"links": [{{"id": "lx", "capacity_bps": {cap}}}], "flows": [{flows}]}}"#)
}

fn assert_rejected(text: &str, names: &[&str], what: &str) {
    let r = solve(text, &[]);
    assert_eq!(r.code, Some(2), "{what}: exit code; stderr {}", r.stderr);
    for n in names {
        assert!(
            r.stderr.contains(n),
            "{what}: message should name `{n}`: {}",
            r.stderr
        );
    }
    assert!(r.stdout.trim().is_empty(), "{what}: stdout {}", r.stdout);
}

#[test]
fn bad_inputs_exit_2_naming_the_flow_or_link() {
    let f = |body: &str| format!(r#"{{"id": "fz", {body}}}"#);
    assert_rejected(
        &one_link(&f(r#""paths": [["lx", "nolink"]]"#), "1e10"),
        &["fz", "nolink"],
        "unknown link",
    );
    assert_rejected(&one_link(&f(r#""paths": []"#), "1e10"), &["fz"], "no path");
    assert_rejected(
        &one_link(&f(r#""paths": [[]]"#), "1e10"),
        &["fz"],
        "empty path",
    );
    for cap in ["0", "-1e9"] {
        assert_rejected(
            &one_link(&f(r#""paths": [["lx"]]"#), cap),
            &["lx"],
            &format!("capacity {cap}"),
        );
    }
    for w in ["0", "-2"] {
        assert_rejected(
            &one_link(
                &f(&format!(
                    r#""paths": [["lx"]], "utility": {{"kind": "log", "weight": {w}}}"#
                )),
                "1e10",
            ),
            &["fz"],
            &format!("log weight {w}"),
        );
        assert_rejected(
            &one_link(
                &f(&format!(
                    r#""paths": [["lx"]], "utility": {{"kind": "alpha", "alpha": 2, "weight": {w}}}"#
                )),
                "1e10",
            ),
            &["fz"],
            &format!("alpha weight {w}"),
        );
    }
    assert_rejected(
        &one_link(
            &f(r#""paths": [["lx"]], "min_bps": 2e9, "max_bps": 1e9"#),
            "1e10",
        ),
        &["fz"],
        "theta > Theta",
    );
    // Minimum rates 6 + 6 Gb/s on a 10 Gb/s link cannot all be met.
    assert_rejected(
        &one_link(
            r#"{"id": "m1", "paths": [["lx"]], "min_bps": 6e9},
               {"id": "m2", "paths": [["lx"]], "min_bps": 6e9}"#,
            "1e10",
        ),
        &["lx"],
        "infeasible minimum rates",
    );
}

/// Three log flows after one NED iteration from prices 1. (Before the utility gain the raw
/// load was about 2c; with it, prices 1 are the marginals at equal shares and the first
/// iterate overloads lx by 4%, still something the normalizers must remove.) F-NORM and
/// U-NORM must bring the overload to 0 (within rounding); U-NORM keeps the rates' ratio.
#[test]
fn normalizers_remove_overload() {
    let text = one_link(
        r#"{"id": "a", "paths": [["lx"]], "utility": {"kind": "log", "weight": 1}},
           {"id": "b", "paths": [["lx"]], "utility": {"kind": "log", "weight": 3}},
           {"id": "c", "paths": [["lx", "ly"]]}"#,
        "1e10",
    )
    .replace(
        r#"[{"id": "lx", "capacity_bps": 1e10}]"#,
        r#"[{"id": "lx", "capacity_bps": 1e10}, {"id": "ly", "capacity_bps": 4e9}]"#,
    );
    let raw = ok(&text, &["--iterations", "1"]);
    assert_eq!(raw["iterations"].as_u64(), Some(1));
    assert!(
        raw["max_overload_bps"].as_f64().unwrap() > 1e8,
        "the raw first iterate must be overloaded for this test to mean anything: {raw}"
    );
    for norm in ["f-norm", "u-norm"] {
        for iters in ["1", "2", "5"] {
            let v = ok(&text, &["--iterations", iters, "--normalize", norm]);
            let over = v["max_overload_bps"].as_f64().unwrap();
            assert!(over <= 1e-6, "{norm} after {iters}: overload {over}");
            // Recompute the loads from the printed rates.
            let r = rates(&v);
            let lx: f64 = r.iter().map(|x| x.1).sum();
            assert!(lx <= 1e10 * (1.0 + 1e-12), "{norm}: lx load {lx}");
            assert!(r[2].1 <= 4e9 * (1.0 + 1e-12), "{norm}: ly load");
        }
    }
    let u = ok(&text, &["--iterations", "1", "--normalize", "u-norm"]);
    let (r, r0) = (rates(&u), rates(&raw));
    for i in 0..3 {
        assert!(
            close(r[i].1 / r[0].1, r0[i].1 / r0[0].1, 1e-9),
            "U-NORM ratios"
        );
    }
}

/// Parking lot with three links of capacity c: long over all three, one short on each; max-min
/// gives c/2 to everyone.
#[test]
fn maxmin_solver_parking_lot() {
    let text = r#"{"links": [{"id": "a", "capacity_bps": 1e10}, {"id": "b", "capacity_bps": 1e10},
                             {"id": "c", "capacity_bps": 1e10}],
      "flows": [{"id": "long", "paths": [["a", "b", "c"]]}, {"id": "sa", "paths": [["a"]]},
                {"id": "sb", "paths": [["b"]]}, {"id": "sc", "paths": [["c"]]}]}"#;
    let v = ok(text, &["--solver", "maxmin"]);
    for (id, x) in rates(&v) {
        assert!(close(x, 5e9, 1e-9), "{id}: {x}");
    }
    // Proportional fairness on the same: 1/x = 3p, 1/s = p, x + s = c => x = c/4.
    let v = ok(text, &["--solver", "reference"]);
    let r = rates(&v);
    assert!(close(r[0].1, 2.5e9, 1e-6), "{v}");
    for s in &r[1..] {
        assert!(close(s.1, 7.5e9, 1e-6), "{v}");
    }
}

/// HOLNET 80/20 (alpha = 0.5, R_s 400 and 100 Mb/s, 100 Mb/s link) through the JSON format.
#[test]
fn holnet_80_20_through_the_command() {
    let text = r#"{"links": [{"id": "l", "capacity_bps": 1e8}],
        "flows": [
          {"id": "f1", "paths": [["l"]], "utility": {"kind": "holnet", "alpha": 0.5,
             "saturated_bps": 4e8, "user": {"kind": "alpha", "alpha": 0.5}}},
          {"id": "f2", "paths": [["l"]], "utility": {"kind": "holnet", "alpha": 0.5,
             "saturated_bps": 1e8, "user": {"kind": "alpha", "alpha": 0.5}}}]}"#;
    for solver in ["reference", "ned"] {
        let v = ok(text, &["--solver", solver]);
        let r = rates(&v);
        assert!(close(r[0].1, 8e7, 1e-5), "{solver}: {v}");
        assert!(close(r[1].1, 2e7, 1e-5), "{solver}: {v}");
    }
}

#[test]
fn bad_flags_exit_2() {
    for args in [&["--solver", "simplex"][..], &["--normalize", "z-norm"][..]] {
        let r = solve(README, args);
        assert_eq!(r.code, Some(2), "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(args[1]), "{args:?}: {}", r.stderr);
    }
}

#[test]
fn more_bad_inputs_exit_2_naming_the_flow_or_link() {
    let link = r#"[{"id": "lx", "capacity_bps": 1e10}]"#;
    let cases = [
        (
            r#"{"id": "rep", "paths": [["lx", "lx"]]}"#,
            vec!["rep", "lx"],
            "link twice on a path",
        ),
        (
            r#"{"id": "az", "paths": [["lx"]], "utility": {"kind": "alpha", "alpha": 0}}"#,
            vec!["az"],
            "alpha 0",
        ),
        (
            r#"{"id": "ez", "paths": [["lx"]], "utility": {"kind": "dba", "epsilon": 1.5, "remaining_time_s": 1}}"#,
            vec!["ez"],
            "epsilon 1.5",
        ),
        (
            r#"{"id": "mz", "paths": [["lx"]], "max_bps": 0}"#,
            vec!["mz"],
            "Theta 0",
        ),
        (
            r#"{"id": "nz", "paths": [["lx"]], "min_bps": -5}"#,
            vec!["nz"],
            "negative theta",
        ),
        (
            r#"{"id": "dd", "paths": [["lx"]]}, {"id": "dd", "paths": [["lx"]]}"#,
            vec!["dd"],
            "duplicate flow",
        ),
    ];
    for (flows, names, what) in cases {
        let text = format!(r#"{{"links": {link}, "flows": [{flows}]}}"#);
        assert_rejected(&text, &names, what);
    }
    assert_rejected(
        r#"{"links": [{"id": "twice", "capacity_bps": 1e10}, {"id": "twice", "capacity_bps": 1e9}],
            "flows": [{"id": "f", "paths": [["twice"]]}]}"#,
        &["twice"],
        "duplicate link",
    );
}

/// Line network with unequal capacities (a = 10, b = 4 Gb/s) and weights 1, 1, 3 (long on
/// a + b, sa on a, sb on b). PF: 1/x = 1/(c1 - x) + 3/(c2 - x), i.e.
/// 5x^2 - (4 c1 + 2 c2) x + c1 c2 = 0. Every iterative solver run to convergence lands on it.
#[test]
fn every_solver_reaches_the_closed_form() {
    let text = r#"{"links": [{"id": "a", "capacity_bps": 1e10}, {"id": "b", "capacity_bps": 4e9}],
      "flows": [{"id": "long", "paths": [["a", "b"]]}, {"id": "sa", "paths": [["a"]]},
                {"id": "sb", "paths": [["b"]], "utility": {"kind": "log", "weight": 3}}]}"#;
    let (c1, c2): (f64, f64) = (1e10, 4e9);
    let (qa, qb, qc) = (5.0, -(4.0 * c1 + 2.0 * c2), c1 * c2);
    let x = (-qb - (qb * qb - 4.0 * qa * qc).sqrt()) / (2.0 * qa);
    let want = [x, c1 - x, c2 - x];
    for (solver, tol) in [
        ("ned", 1e-6),
        ("gradient", 1e-5),
        ("fgm", 1e-5),
        ("newton-like", 1e-5),
        ("reference", 1e-8),
    ] {
        let v = ok(text, &["--solver", solver]);
        let r = rates(&v);
        for ((id, got), w) in r.iter().zip(want) {
            assert!(close(*got, w, tol), "{solver}: {id}: {got:e} vs {w:e}");
        }
        assert!(
            v["max_overload_bps"].as_f64().unwrap() <= 1e-5 * c2,
            "{solver}: {v}"
        );
    }
}

/// Utilities written in plain b/s (no weight rescaling) still solve correctly.
/// - alpha = 2, weights 1 and 4 on one link: x ∝ w^(1/2): c/3, 2c/3.
/// - log beside alpha = 2 (weights 1): 1/x1 = x2^-2, x1 + x2 = c, so x2 = (sqrt(1 + 4c) - 1)/2
///   (about 1e5 b/s: the alpha flow's marginal is tiny in b/s).
#[test]
fn unscaled_utilities_in_bps() {
    let c: f64 = 1e10;
    let a2 = r#"{"links": [{"id": "l", "capacity_bps": 1e10}],
      "flows": [{"id": "a", "paths": [["l"]], "utility": {"kind": "alpha", "alpha": 2, "weight": 1}},
                {"id": "b", "paths": [["l"]], "utility": {"kind": "alpha", "alpha": 2, "weight": 4}}]}"#;
    let mix = r#"{"links": [{"id": "l", "capacity_bps": 1e10}],
      "flows": [{"id": "a", "paths": [["l"]], "utility": {"kind": "log", "weight": 1}},
                {"id": "b", "paths": [["l"]], "utility": {"kind": "alpha", "alpha": 2, "weight": 1}}]}"#;
    let x2 = ((1.0 + 4.0 * c).sqrt() - 1.0) / 2.0;
    for solver in ["ned", "reference"] {
        let r = rates(&ok(a2, &["--solver", solver]));
        assert!(
            close(r[0].1, c / 3.0, 1e-6) && close(r[1].1, 2.0 * c / 3.0, 1e-6),
            "{solver} {r:?}"
        );
        let r = rates(&ok(mix, &["--solver", solver]));
        assert!(
            close(r[0].1, c - x2, 1e-6) && close(r[1].1, x2, 1e-6),
            "{solver} {r:?}"
        );
    }
}

/// Rate bounds (HOLNET eq. 11): a has theta = 8 Gb/s on l (10 Gb/s), b crosses l and m, c on m
/// has Theta = 1 Gb/s. Optimum: a = 8, b = 2 (rest of l), c = 1 Gb/s (capped). And an HRT
/// flow, theta = Theta = 3 Gb/s (HOLNET §III-B), beside an elastic one: 3 and 7 Gb/s.
#[test]
fn rate_bounds_bind() {
    let bounds = r#"{"links": [{"id": "l", "capacity_bps": 1e10}, {"id": "m", "capacity_bps": 1e10}],
      "flows": [{"id": "a", "paths": [["l"]], "min_bps": 8e9}, {"id": "b", "paths": [["l", "m"]]},
                {"id": "c", "paths": [["m"]], "max_bps": 1e9}]}"#;
    let hrt = r#"{"links": [{"id": "l", "capacity_bps": 1e10}],
      "flows": [{"id": "hrt", "paths": [["l"]], "min_bps": 3e9, "max_bps": 3e9},
                {"id": "nre", "paths": [["l"]]}]}"#;
    for solver in ["ned", "reference"] {
        let r = rates(&ok(bounds, &["--solver", solver]));
        for ((id, got), w) in r.iter().zip([8e9, 2e9, 1e9]) {
            assert!(close(*got, w, 1e-6), "{solver}: {id}: {got:e} vs {w:e}");
        }
        let r = rates(&ok(hrt, &["--solver", solver]));
        for ((id, got), w) in r.iter().zip([3e9, 7e9]) {
            assert!(close(*got, w, 1e-6), "{solver}: {id}: {got:e} vs {w:e}");
        }
    }
}

/// Minimum rates that exactly fill a link (5 + 5 Gb/s on 10 Gb/s) are feasible (the input
/// check accepts them), and the optimum is x = theta: 5 and 5 Gb/s. The reference solver
/// should report it, not `infeasible` with null rates.
#[test]
fn minimum_rates_that_exactly_fill_a_link_are_feasible() {
    let text = r#"{"links": [{"id": "l", "capacity_bps": 1e10}],
      "flows": [{"id": "a", "paths": [["l"]], "min_bps": 5e9},
                {"id": "b", "paths": [["l"]], "min_bps": 5e9}]}"#;
    for solver in ["ned", "reference"] {
        let v = ok(text, &["--solver", solver]);
        assert_ne!(v["status"], "infeasible", "{solver}: {v}");
        let r = rates(&v);
        for (id, got) in r {
            assert!(close(got, 5e9, 1e-6), "{solver}: {id}: {got:e}");
        }
    }
}

/// HOLNET 15.2 / 84.8 (alpha = 0.75, NRE log(1+x) vs RRA knee 20 Mb/s, theta = 20 Mb/s,
/// R_s = 100 Mb/s each, x in b/s; see oracle_closed_forms for the centre integrals).
#[test]
fn holnet_15_2_84_8_through_the_command() {
    let text = r#"{"links": [{"id": "l", "capacity_bps": 1e8}],
        "flows": [
          {"id": "nre", "paths": [["l"]], "utility": {"kind": "holnet", "alpha": 0.75,
             "saturated_bps": 1e8, "user": {"kind": "log1p"}}},
          {"id": "rra", "paths": [["l"]], "min_bps": 2e7, "utility": {"kind": "holnet",
             "alpha": 0.75, "saturated_bps": 1e8, "user": {"kind": "rra", "knee_bps": 2e7}}}]}"#;
    for solver in ["reference", "ned"] {
        let r = rates(&ok(text, &["--solver", solver]));
        assert!((r[0].1 / 1e6 - 15.2).abs() < 0.05, "{solver}: {r:?}");
        assert!((r[1].1 / 1e6 - 84.8).abs() < 0.05, "{solver}: {r:?}");
    }
}

/// `--iterations 0` must give a clean answer (the rates at the starting prices) or a clean
/// error (exit 2), never a panic (CONTRIBUTING.md: bad input never panics). It once panicked on the
/// README's multipath example; the flag parser now rejects 0.
#[test]
fn zero_iterations_do_not_panic() {
    for args in [
        &["--iterations", "0"][..],
        &["--iterations", "0", "--normalize", "f-norm"][..],
    ] {
        let r = solve(README, args);
        assert!(
            r.code == Some(0) || r.code == Some(2),
            "{args:?}: exit {:?}: {}",
            r.code,
            r.stderr.lines().next().unwrap_or("")
        );
        if r.code == Some(0) {
            let v: Value = serde_json::from_str(&r.stdout).expect("JSON");
            assert_eq!(v["flows"].as_array().map(|a| a.len()), Some(2));
        }
    }
}

/// A problem with links but no flows has the trivial optimum (no rates, objective 0); every
/// solver should say so, the reference included.
#[test]
fn no_flows_is_trivially_solved() {
    let text = r#"{"links": [{"id": "l", "capacity_bps": 1e10}], "flows": []}"#;
    for solver in ["ned", "maxmin", "reference"] {
        let v = ok(text, &["--solver", solver]);
        assert_eq!(v["flows"].as_array().map(|a| a.len()), Some(0));
        assert!(
            v["status"] == "converged" || v["status"] == "solved",
            "{solver}: {v}"
        );
        assert_eq!(v["objective"].as_f64(), Some(0.0), "{solver}: {v}");
    }
}

/// `--solver maxmin` honours minimum rates: on one 10 Gb/s link, a (theta 5 Gb/s) stays at its
/// minimum while b and c share the rest (2.5 Gb/s each; plain max-min would give 3.33 each);
/// an HRT flow (theta = Theta = 1 Gb/s) beside them takes exactly 1.
#[test]
fn maxmin_honours_minimum_rates() {
    let text = r#"{"links": [{"id": "l", "capacity_bps": 1e10}],
      "flows": [{"id": "a", "paths": [["l"]], "min_bps": 5e9},
                {"id": "b", "paths": [["l"]]}, {"id": "c", "paths": [["l"]]}]}"#;
    let v = ok(text, &["--solver", "maxmin"]);
    for ((id, got), want) in rates(&v).iter().zip([5e9, 2.5e9, 2.5e9]) {
        assert!(close(*got, want, 1e-9), "{id}: {got:e} vs {want:e}");
    }
    let text = r#"{"links": [{"id": "l", "capacity_bps": 1e10}],
      "flows": [{"id": "a", "paths": [["l"]], "min_bps": 5e9},
                {"id": "hrt", "paths": [["l"]], "min_bps": 1e9, "max_bps": 1e9},
                {"id": "b", "paths": [["l"]]}]}"#;
    let v = ok(text, &["--solver", "maxmin"]);
    for ((id, got), want) in rates(&v).iter().zip([5e9, 1e9, 4e9]) {
        assert!(close(*got, want, 1e-9), "{id}: {got:e} vs {want:e}");
    }
}

/// `--solver maxmin` on HOLNET's multipath instance (mp over a 60 Mb/s link | a 100 Mb/s link
/// shared with sp) is max-min on flow totals: 80 / 80 Mb/s (mp: 60 + 20), where water-filling
/// each path as a flow of its own would give 93.3 / 66.7. With mp's maximum at 70 Mb/s:
/// 70 / 90.
#[test]
fn maxmin_multipath_is_on_flow_totals() {
    let text = |max: &str| {
        format!(
            r#"{{"links": [{{"id": "a", "capacity_bps": 6e7}}, {{"id": "b", "capacity_bps": 1e8}}],
              "flows": [{{"id": "mp", "paths": [["a"], ["b"]]{max}}}, {{"id": "sp", "paths": [["b"]]}}]}}"#
        )
    };
    let v = ok(&text(""), &["--solver", "maxmin"]);
    let r = rates(&v);
    assert!(close(r[0].1, 8e7, 1e-9) && close(r[1].1, 8e7, 1e-9), "{v}");
    let v = ok(&text(r#", "max_bps": 7e7"#), &["--solver", "maxmin"]);
    let r = rates(&v);
    assert!(close(r[0].1, 7e7, 1e-9) && close(r[1].1, 9e7, 1e-9), "{v}");
    assert!(v["max_overload_bps"].as_f64().unwrap() <= 1e-3, "{v}");
}

/// `--solver dba` honours minimum rates (its WFQ reserves them; see `solver/dba.rs`): a
/// (theta 5 Gb/s), b (Theta 1 Gb/s) and c on one 10 Gb/s link give 5 / 1 / 4 Gb/s, where DBA
/// without minimums gives a 4.5. A multipath flow whose minimum, split equally over its paths,
/// does not fit a link is refused (exit 2, flow and link named): m needs 8 Gb/s over x (10)
/// and y (3), and 4 Gb/s does not fit y, though 7 + 1 would (the reference solves it).
#[test]
fn dba_honours_minimum_rates() {
    let text = r#"{"links": [{"id": "l", "capacity_bps": 1e10}],
      "flows": [{"id": "a", "paths": [["l"]], "min_bps": 5e9},
                {"id": "b", "paths": [["l"]], "max_bps": 1e9}, {"id": "c", "paths": [["l"]]}]}"#;
    let v = ok(text, &["--solver", "dba"]);
    assert_eq!(v["status"], "converged", "{v}");
    for ((id, got), want) in rates(&v).iter().zip([5e9, 1e9, 4e9]) {
        assert!(close(*got, want, 1e-6), "{id}: {got:e} vs {want:e}");
    }
    let split = r#"{"links": [{"id": "x", "capacity_bps": 1e10}, {"id": "y", "capacity_bps": 3e9}],
      "flows": [{"id": "m", "paths": [["x"], ["y"]], "min_bps": 8e9}]}"#;
    let r = solve(split, &["--solver", "dba"]);
    assert_eq!(r.code, Some(2), "{}", r.stdout);
    assert!(
        r.stderr.contains("`m`") && r.stderr.contains("`y`"),
        "{}",
        r.stderr
    );
    let v = ok(split, &["--solver", "reference"]);
    assert_eq!(v["status"], "solved", "{v}");
    assert!(close(rates(&v)[0].1, 1.3e10, 1e-6), "{v}");
}

/// Minimum rates of multipath flows: x and y each split over a | b (1 Gb/s each). Minimums of
/// 1.5 + 0.5 Gb/s fill both links exactly and are solved (x = 1.5, y = 0.5); 1.5 + 1.5 fit no
/// split and exit 2 naming both links and both flows.
#[test]
fn multipath_minimums_are_checked_exactly() {
    let text = |y: &str| {
        format!(
            r#"{{"links": [{{"id": "a", "capacity_bps": 1e9}}, {{"id": "b", "capacity_bps": 1e9}}],
              "flows": [{{"id": "x", "paths": [["a"], ["b"]], "min_bps": 1.5e9}},
                        {{"id": "y", "paths": [["a"], ["b"]], "min_bps": {y}}}]}}"#
        )
    };
    let v = ok(&text("0.5e9"), &["--solver", "reference"]);
    assert_eq!(v["status"], "solved", "{v}");
    for ((id, got), want) in rates(&v).iter().zip([1.5e9, 0.5e9]) {
        assert!(close(*got, want, 1e-9), "{id}: {got:e} vs {want:e}");
    }
    let r = solve(&text("1.5e9"), &["--solver", "reference"]);
    assert_eq!(r.code, Some(2), "{}", r.stdout);
    for name in ["`a`", "`b`", "`x`", "`y`"] {
        assert!(r.stderr.contains(name), "{name}: {}", r.stderr);
    }
}

/// HOLNET's multipath 60/20/80 through the command with NED (proximal multipath update) and
/// FGM and Newton-like (its smoothed form; before it FGM did not converge here): converged,
/// subflows 60 + 20 and 80 Mb/s.
#[test]
fn multipath_60_20_80_every_proximal_solver() {
    let text = r#"{"links": [{"id": "a", "capacity_bps": 6e7}, {"id": "b", "capacity_bps": 1e8}],
      "flows": [{"id": "mp", "paths": [["a"], ["b"]]}, {"id": "sp", "paths": [["b"]]}]}"#;
    for solver in ["ned", "fgm", "newton-like"] {
        let v = ok(text, &["--solver", solver]);
        assert_eq!(v["status"], "converged", "{solver}: {v}");
        let subs: Vec<f64> = v["flows"][0]["subflow_rate_bps"]
            .as_array()
            .expect("subflows")
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert!(
            close(subs[0], 6e7, 1e-4) && close(subs[1], 2e7, 1e-3),
            "{solver}: {v}"
        );
        assert!(close(rates(&v)[1].1, 8e7, 1e-4), "{solver}: {v}");
    }
}

const ITERATIVE: [&str; 5] = ["ned", "gradient", "fgm", "newton-like", "dba"];

fn kkt_within(v: &Value) -> bool {
    v["kkt"]["within_tolerance"].as_bool().unwrap_or(false)
}

/// Issue 10 §3: two alpha = 2 flows on a 10 Gb/s link. FGM said `converged` after 2
/// iterations at 100 kb/s each and Gradient stopped at the cap at 316 kb/s (utilities in b/s
/// have marginals of order 1e-10 per rate unit). Solved in the scaled unit, every solver
/// converges to 5 / 5 Gb/s, and `converged` comes with KKT residuals within tolerance.
#[test]
fn alpha_two_in_bps_every_solver_gets_half_the_link() {
    let text = one_link(
        r#"{"id": "a", "paths": [["lx"]], "utility": {"kind": "alpha", "alpha": 2, "weight": 1}},
           {"id": "b", "paths": [["lx"]], "utility": {"kind": "alpha", "alpha": 2, "weight": 1}}"#,
        "1e10",
    );
    for solver in ITERATIVE.into_iter().chain(["reference"]) {
        let v = ok(&text, &["--solver", solver]);
        let want = if solver == "reference" {
            "solved"
        } else {
            "converged"
        };
        assert_eq!(v["status"], want, "{solver}: {v}");
        assert!(kkt_within(&v), "{solver}: {v}");
        for (id, x) in rates(&v) {
            assert!(close(x, 5e9, 1e-6), "{solver}: {id} = {x:e}");
        }
    }
}

/// Issue 10 §3: alpha = 100 on a parking lot (l 10 Gb/s: a, b; m 4 Gb/s: a, c). NED said
/// `converged` with m at 200%, and the reference said `solved` at a = 1.1, b = 4.5, c = 1.5
/// Gb/s (l not full: not Pareto-optimal). Now NED converges to the optimum (close to max-min:
/// a = c = 2, b = 8 Gb/s) and every status is honest: `converged` / `solved` only with KKT
/// residuals within tolerance and a feasible point; otherwise the JSON names the large
/// residual.
#[test]
fn alpha_one_hundred_statuses_are_honest() {
    let text = r#"{"links": [{"id": "l", "capacity_bps": 1e10}, {"id": "m", "capacity_bps": 4e9}],
      "flows": [{"id": "a", "paths": [["l", "m"]], "utility": {"kind": "alpha", "alpha": 100}},
                {"id": "b", "paths": [["l"]], "utility": {"kind": "alpha", "alpha": 100}},
                {"id": "c", "paths": [["m"]], "utility": {"kind": "alpha", "alpha": 100}}]}"#;
    let ned = ok(text, &["--solver", "ned"]);
    assert_eq!(ned["status"], "converged", "{ned}");
    let r = rates(&ned);
    // a = c: 2 Gb/s each on m; b takes the rest of l.
    assert!(
        close(r[0].1, 2e9, 1e-6) && close(r[2].1, 2e9, 1e-6),
        "{r:?}"
    );
    assert!(close(r[1].1, 8e9, 1e-6), "{r:?}");
    for solver in ITERATIVE.into_iter().chain(["reference"]) {
        if solver != "reference" {
            let v = ok(text, &["--solver", solver, "--iterations", "1"]);
            assert_eq!(v["status"], "fixed_iterations");
            assert!(
                !kkt_within(&v),
                "{solver}: one iteration is not optimal: {v}"
            );
        }
        let v = ok(text, &["--solver", solver]);
        let status = v["status"].as_str().unwrap();
        if status == "converged" || status == "solved" {
            assert!(kkt_within(&v), "{solver}: {v}");
            assert!(
                v["max_overload_bps"].as_f64().unwrap() <= 1e-6 * 4e9,
                "{solver}: {v}"
            );
            for ((id, x), w) in rates(&v).into_iter().zip([2e9, 8e9, 2e9]) {
                assert!(close(x, w, 1e-5), "{solver}: {id} = {x:e}");
            }
        } else {
            assert!(!kkt_within(&v), "{solver}: {v}");
            let name = v["kkt"]["largest"].as_str().unwrap();
            assert!(
                ["primal", "complementarity", "stationarity"].contains(&name),
                "{solver}: {v}"
            );
            assert!(
                v["kkt"]["largest_value"].as_f64().unwrap() > 1e-6,
                "{solver}: {v}"
            );
        }
    }
}

/// The same problem written in b/s, Mb/s and Gb/s (capacities scaled by 1e-6, 1e-9; the
/// alpha = 3 weights by s^(alpha - 1) so that the utilities are the same up to a common
/// factor) gives the same rates, scaled, from every solver (before the scaled unit, the b/s
/// version was 1e3-1e6 too low for Gradient and FGM).
#[test]
fn the_unit_does_not_matter() {
    let problem = |s: f64| {
        let w = |w: f64| w * s.powf(2.0);
        format!(
            r#"{{"links": [{{"id": "l", "capacity_bps": {}}}, {{"id": "m", "capacity_bps": {}}}],
              "flows": [{{"id": "a", "paths": [["l", "m"]], "utility": {{"kind": "alpha", "alpha": 3, "weight": {}}}}},
                        {{"id": "b", "paths": [["l"]], "utility": {{"kind": "alpha", "alpha": 3, "weight": {}}}}},
                        {{"id": "c", "paths": [["m"]], "utility": {{"kind": "alpha", "alpha": 3, "weight": {}}}}}]}}"#,
            1e10 * s,
            4e9 * s,
            w(1.0),
            w(2.0),
            w(1.0)
        )
    };
    for solver in ITERATIVE.into_iter().chain(["reference"]) {
        let base = ok(&problem(1.0), &["--solver", solver]);
        assert!(kkt_within(&base), "{solver}: {base}");
        for s in [1e-6, 1e-9] {
            let v = ok(&problem(s), &["--solver", solver]);
            assert_eq!(v["status"], base["status"], "{solver} at {s}: {v}");
            for ((id, x), (_, x0)) in rates(&v).into_iter().zip(rates(&base)) {
                assert!(
                    close(x / s, x0, 1e-6),
                    "{solver} at {s}: {id}: {:e} vs {x0:e}",
                    x / s
                );
            }
        }
    }
}
