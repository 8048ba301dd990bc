//! Minimum and maximum rates (HOLNET eq. 11) in the solvers built on weighted max-min: DBA's
//! rate allocation (WFQ with each flow's minimum reserved, `maxmin::bounded_weighted_max_min`)
//! must reach the reference optimum when minimums bind.

#![allow(clippy::needless_range_loop)] // parallel arrays indexed by link and flow

mod common;

use common::{rel, Rng};
use dctc_num::reference::{self, Status};
use dctc_num::solver::{run_to_convergence, AnySolver, RunStatus, State};
use dctc_num::{NumFlow, Problem, Utility};

fn log(w: f64) -> Utility {
    Utility::Log { weight: w }
}

fn run(name: &str, p: &mut Problem) -> (RunStatus, Vec<f64>) {
    let mut s = AnySolver::by_name(name).unwrap();
    s.check(p).unwrap();
    let mut st = State::new(p, s.initial_price());
    let status = run_to_convergence(&mut s, p, &mut st, 1e-10, 200_000);
    (status, st.flow_rates_bps(p))
}

/// Three log flows on 10 Gb/s; a needs >= 5, b <= 1: optimum 5 / 1 / 4 Gb/s (the minimum
/// binds: without it a gets 4.5).
#[test]
fn dba_one_link_minimum_and_maximum_bind() {
    let mut p = Problem::new(10e9);
    p.add_link("l", 10e9).unwrap();
    let mut a = NumFlow::new("a", vec![0], log(1.0));
    a.min_bps = 5e9;
    let mut b = NumFlow::new("b", vec![0], log(1.0));
    b.max_bps = 1e9;
    p.add_flow(a).unwrap();
    p.add_flow(b).unwrap();
    p.add_flow(NumFlow::new("c", vec![0], log(1.0))).unwrap();
    let (status, x) = run("dba", &mut p);
    assert_eq!(status, RunStatus::Converged);
    for (got, want) in x.iter().zip([5e9, 1e9, 4e9]) {
        assert!(rel(*got, want) < 1e-6, "{x:?}");
    }
}

/// a (theta 8 Gb/s) on l, b over l and m, c on m with Theta 1 Gb/s: 8 / 2 / 1 Gb/s.
#[test]
fn dba_two_links_minimum_binds() {
    let mut p = Problem::new(10e9);
    p.add_link("l", 10e9).unwrap();
    p.add_link("m", 10e9).unwrap();
    let mut a = NumFlow::new("a", vec![0], log(1.0));
    a.min_bps = 8e9;
    let mut c = NumFlow::new("c", vec![1], log(1.0));
    c.max_bps = 1e9;
    p.add_flow(a).unwrap();
    p.add_flow(NumFlow::new("b", vec![0, 1], log(1.0))).unwrap();
    p.add_flow(c).unwrap();
    let (status, x) = run("dba", &mut p);
    assert_eq!(status, RunStatus::Converged);
    for (got, want) in x.iter().zip([8e9, 2e9, 1e9]) {
        assert!(rel(*got, want) < 1e-6, "{x:?}");
    }
}

/// Random single-path log-utility instances where about half the flows have a minimum (scaled
/// so that some links are nearly filled by them) and some a maximum. DBA's rates meet every
/// minimum at every stopping point; where DBA converges its rates are the reference optimum;
/// it converges on at least 36 of the 40 (measured: 37, and 39 of the same 40 without the
/// bounds: the eq. (12) minimum over multi-link flows, with momentum that never resets, can
/// oscillate); and some minimum binds at the optimum on at least a third of them.
#[test]
fn dba_matches_reference_with_random_bounds() {
    let mut rng = Rng::new(0x5eed_00d0);
    let (mut binding, mut converged) = (0, 0);
    let cases = 40;
    for case in 0..cases {
        let nl = 1 + rng.below(4);
        let nf = 2 + rng.below(6);
        let caps: Vec<f64> = (0..nl).map(|_| 1e9 * (1.0 + 9.0 * rng.unit())).collect();
        let mut routes = Vec::new();
        for _ in 0..nf {
            let len = 1 + rng.below(nl.min(3));
            let mut r: Vec<usize> = Vec::new();
            while r.len() < len {
                let l = rng.below(nl);
                if !r.contains(&l) {
                    r.push(l);
                }
            }
            routes.push(r);
        }
        let mut min: Vec<f64> = (0..nf)
            .map(|_| if rng.below(2) == 0 { 0.0 } else { rng.unit() })
            .collect();
        let mut factor: f64 = f64::INFINITY;
        for l in 0..nl {
            let need: f64 = (0..nf)
                .filter(|&f| routes[f].contains(&l))
                .map(|f| min[f])
                .sum();
            if need > 0.0 {
                factor = factor.min(caps[l] / need);
            }
        }
        let factor = if factor.is_finite() { factor } else { 0.0 };
        min.iter_mut()
            .for_each(|m| *m *= factor * (0.5 + 0.45 * rng.unit()));
        let build = || {
            let mut p = Problem::new(1e10);
            for (l, &c) in caps.iter().enumerate() {
                p.add_link(format!("l{l}"), c).unwrap();
            }
            for f in 0..nf {
                let mut s = NumFlow::new(format!("f{f}"), routes[f].clone(), log(1.0 + f as f64));
                s.min_bps = min[f];
                if f % 3 == 2 {
                    s.max_bps = min[f] + 1e9;
                }
                p.add_flow(s).unwrap();
            }
            p
        };
        let mut p = build();
        let sol = reference::solve(&mut p);
        assert_eq!(sol.status, Status::Solved, "case {case}");
        if (0..nf).any(|f| min[f] > 0.0 && sol.flow_rate_bps[f] <= min[f] * (1.0 + 1e-6)) {
            binding += 1;
        }
        let mut p = build();
        let (status, x) = run("dba", &mut p);
        for f in 0..nf {
            assert!(
                x[f] >= min[f] * (1.0 - 1e-12),
                "case {case}: flow {f} below its minimum"
            );
        }
        if status != RunStatus::Converged {
            continue;
        }
        converged += 1;
        for (f, (a, b)) in x.iter().zip(&sol.flow_rate_bps).enumerate() {
            assert!(
                rel(*a, *b) < 1e-4,
                "case {case}: flow {f}: dba {a:e} vs reference {b:e} (min {:e})",
                min[f]
            );
        }
    }
    assert!(
        binding >= cases / 3,
        "only {binding} cases with a binding minimum"
    );
    assert!(converged >= 36, "only {converged}/{cases} converged");
}
