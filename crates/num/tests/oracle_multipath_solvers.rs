//! FGM and Newton-like on multipath flows (HOLNET eq. 10: the utility is of the subflows'
//! total) against the reference solver: HOLNET's 60/20/80 and random instances.

mod common;

use common::Rng;
use dctc_num::reference::{self, Status};
use dctc_num::solver::{run_to_convergence, AnySolver, RunStatus, State};
use dctc_num::{NumFlow, Problem, Utility};

fn holnet() -> Problem {
    let mut p = Problem::new(1e8);
    p.add_link("a", 6e7).unwrap();
    p.add_link("b", 1e8).unwrap();
    let mut mp = NumFlow::new("mp", vec![0], Utility::Log { weight: 1.0 });
    mp.paths.push(vec![1]);
    p.add_flow(mp).unwrap();
    p.add_flow(NumFlow::new("sp", vec![1], Utility::Log { weight: 1.0 }))
        .unwrap();
    p
}

fn run(name: &str, p: &mut Problem, cap: u64) -> (RunStatus, Vec<f64>, Vec<f64>) {
    let mut s = AnySolver::by_name(name).unwrap();
    s.check(p).unwrap();
    let mut st = State::new(p, s.initial_price());
    let status = run_to_convergence(&mut s, p, &mut st, 1e-9, cap);
    (status, st.flow_rates_bps(p), st.sub_rates_bps(p))
}

/// HOLNET §IV-B: 60 + 20 and 80 Mb/s.
#[test]
fn fgm_and_newton_like_reach_holnet_60_20_80() {
    for name in ["fgm", "newton-like"] {
        let mut p = holnet();
        let (status, _, y) = run(name, &mut p, 200_000);
        assert_eq!(status, RunStatus::Converged, "{name}: {y:?}");
        for (got, want) in y.iter().zip([6e7, 2e7, 8e7]) {
            assert!((got - want).abs() < 1e-4 * 8e7, "{name}: {y:?}");
        }
    }
}

/// Random log-utility instances, about half the flows with two or three paths: both solvers
/// converge on all 30 within 20k iterations, to within 1e-3 of the reference. (With the
/// earlier exponentiated split FGM converged on 15 of them in 100k iterations and Newton-like
/// reported convergence 13% off the optimum on one. Over 100 instances of this generator:
/// FGM converges on 94, the other 6 end within 2e-5 of the reference at the cap; Newton-like
/// on 98 (2 at the cap within 1e-13), but one of those stops 2.3% off, its centre drifting by
/// less than 1e-9 per iteration, which run-to-convergence's test cannot tell from rest.)
#[test]
fn fgm_and_newton_like_match_reference_on_random_multipath() {
    let mut rng = Rng::new(0x5eed_0a11);
    let cases = 30;
    let mut stats = Vec::new();
    for name in ["fgm", "newton-like"] {
        let mut converged = 0;
        for case in 0..cases {
            let nl = 3 + rng.below(4);
            let nf = 2 + rng.below(6);
            let mut p = Problem::new(1e10);
            for l in 0..nl {
                p.add_link(format!("l{l}"), 1e9 * (1.0 + 9.0 * rng.unit()))
                    .unwrap();
            }
            for f in 0..nf {
                let np = if rng.below(2) == 0 {
                    1
                } else {
                    2 + rng.below(2)
                };
                let mut fp: Vec<Vec<usize>> = Vec::new();
                while fp.len() < np {
                    let len = 1 + rng.below(2);
                    let mut path = rng.distinct(nl, len);
                    path.sort_unstable();
                    if !fp.contains(&path) {
                        fp.push(path);
                    }
                }
                let w = 0.25 + 3.75 * rng.unit();
                let mut spec =
                    NumFlow::new(format!("f{f}"), fp[0].clone(), Utility::Log { weight: w });
                spec.paths = fp;
                p.add_flow(spec).unwrap();
            }
            let mut q = p.clone();
            let sol = reference::solve(&mut q);
            assert_eq!(sol.status, Status::Solved, "case {case}");
            let (status, x, _) = run(name, &mut p, 20_000);
            let worst = x
                .iter()
                .zip(&sol.flow_rate_bps)
                .map(|(a, b)| (a - b).abs() / b)
                .fold(0.0, f64::max);
            if status == RunStatus::Converged {
                converged += 1;
                assert!(
                    worst <= 1e-3,
                    "{name} case {case}: converged {worst:e} off the reference"
                );
            } else {
                assert!(
                    worst <= 1e-4,
                    "{name} case {case}: {status:?} {worst:e} off the reference"
                );
            }
        }
        stats.push((name, converged));
    }
    assert_eq!(stats, [("fgm", cases), ("newton-like", cases)]);
}
