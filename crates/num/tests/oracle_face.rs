//! The reference solver on minimum rates that leave no strictly feasible point but are
//! feasible (the problem check accepts them): minimums that fill a cut of several links only
//! jointly, and a multipath flow's minimum filling a link its paths share. The optima are
//! derived by hand and checked against KKT through the solver's prices.

mod common;

use common::{flow, rel, Rng};
use dctc_num::reference::{self, Status};
use dctc_num::Problem;

fn links(caps: &[f64]) -> Problem {
    let mut p = Problem::new(1e9);
    for (i, &c) in caps.iter().enumerate() {
        p.add_link(format!("l{i}"), c).unwrap();
    }
    p
}

/// x and y both split over l0 | l1 (1 Gb/s each) with minimums 1.5 and 0.5 Gb/s: the only
/// feasible totals are the minimums themselves.
#[test]
fn two_flows_exactly_fill_two_links() {
    let mut p = links(&[1e9, 1e9]);
    p.add_flow(flow("x", &[&[0], &[1]], 1.5e9)).unwrap();
    p.add_flow(flow("y", &[&[0], &[1]], 0.5e9)).unwrap();
    let sol = reference::solve(&mut p);
    assert_eq!(sol.status, Status::Solved);
    assert!(
        rel(sol.flow_rate_bps[0], 1.5e9) < 1e-9,
        "{:?}",
        sol.flow_rate_bps
    );
    assert!(
        rel(sol.flow_rate_bps[1], 0.5e9) < 1e-9,
        "{:?}",
        sol.flow_rate_bps
    );
    assert!(p.max_overload_bps(&sol.sub_rate_bps) <= 1e-6);
    assert!(sol.sub_rate_bps.iter().all(|&v| v >= 0.0));
}

/// A cut of two links filled jointly, beside a free part: p splits over l0 | l1 (theta 1.5),
/// q crosses l1 and l2 (theta 0.5): l0 and l1 (1 Gb/s each) are full with p = 1.5 (1 + 0.5)
/// and q = 0.5. On l2 (2 Gb/s) r (theta 0.5) and w (split over l2 | l3, l3 1 Gb/s) share the
/// remaining 1.5 + 1 Gb/s: proportional fairness gives r = w = 1.25 (w: 0.25 on l2, 1 on l3),
/// with equal prices 1/1.25 on l2 and l3.
#[test]
fn a_cut_filled_jointly_beside_a_free_part() {
    let mut p = links(&[1e9, 1e9, 2e9, 1e9]);
    p.add_flow(flow("p", &[&[0], &[1]], 1.5e9)).unwrap();
    p.add_flow(flow("q", &[&[1, 2]], 0.5e9)).unwrap();
    p.add_flow(flow("r", &[&[2]], 0.5e9)).unwrap();
    p.add_flow(flow("w", &[&[2], &[3]], 0.0)).unwrap();
    let sol = reference::solve(&mut p);
    assert_eq!(sol.status, Status::Solved);
    let x = &sol.flow_rate_bps;
    for (got, want) in x.iter().zip([1.5e9, 0.5e9, 1.25e9, 1.25e9]) {
        assert!(rel(*got, want) < 1e-6, "{x:?}");
    }
    let y = &sol.sub_rate_bps;
    for (got, want) in y.iter().zip([1e9, 0.5e9, 0.5e9, 1.25e9, 0.25e9, 1e9]) {
        assert!((got - want).abs() < 1e-6 * 1e9, "{y:?}");
    }
    // KKT on the free part: U'(x) = 1/x in rate units (1e9) equals the path price.
    let mu = 1.0 / 1.25;
    assert!(
        rel(sol.prices[2], mu) < 1e-6 && rel(sol.prices[3], mu) < 1e-6,
        "{:?}",
        sol.prices
    );
}

/// m's two paths share l0 (1 Gb/s) and its minimum is 1 Gb/s: l0 is full at every feasible
/// point but m's split is free. o on l1 wants it all, so m's path over l1 carries 0 and its
/// path over l2 carries 1; o = 1.
#[test]
fn a_multipath_minimum_fills_a_shared_link() {
    let mut p = links(&[1e9, 1e9, 1e9]);
    p.add_flow(flow("m", &[&[0, 1], &[0, 2]], 1e9)).unwrap();
    p.add_flow(flow("o", &[&[1]], 0.0)).unwrap();
    let sol = reference::solve(&mut p);
    assert_eq!(sol.status, Status::Solved);
    let y = &sol.sub_rate_bps;
    assert!(y[0].abs() < 1e-6 * 1e9 && rel(y[1], 1e9) < 1e-6, "{y:?}");
    assert!(
        rel(sol.flow_rate_bps[1], 1e9) < 1e-6,
        "{:?}",
        sol.flow_rate_bps
    );
}

struct Inst {
    caps: Vec<f64>,
    paths: Vec<Vec<Vec<usize>>>,
    min: Vec<f64>,
}

fn build(inst: &Inst, scale: f64) -> Option<Problem> {
    let mut p = links(&inst.caps);
    for (f, fp) in inst.paths.iter().enumerate() {
        let refs: Vec<&[usize]> = fp.iter().map(|v| v.as_slice()).collect();
        p.add_flow(flow(&format!("f{f}"), &refs, inst.min[f] * scale))
            .ok()?;
    }
    Some(p)
}

/// Random multipath instances with minimums scaled (by bisection on what the problem check
/// accepts) to the edge of feasibility, where some cut is exactly full: the reference solves
/// them, meets every minimum and capacity, and its flow totals agree with its optimum for
/// minimums 1e-4 smaller (strictly feasible, solved without facial reduction) to 0.1% + 1 Mb/s
/// (a flow the edge forces to 0 gets ~0.1 Mb/s inside).
#[test]
fn random_instances_at_the_edge_of_feasibility() {
    let mut rng = Rng::new(0x5eed_0fac);
    let mut solved = 0;
    for case in 0..25 {
        let nl = 2 + rng.below(4);
        let nf = 2 + rng.below(5);
        let caps: Vec<f64> = (0..nl).map(|_| 1e9 * (0.5 + rng.unit())).collect();
        let mut paths = Vec::new();
        for _ in 0..nf {
            let np = 1 + rng.below(3);
            let mut fp: Vec<Vec<usize>> = Vec::new();
            while fp.len() < np {
                let len = 1 + rng.below(2.min(nl));
                let mut path = rng.distinct(nl, len);
                path.sort_unstable();
                if !fp.contains(&path) {
                    fp.push(path);
                }
            }
            paths.push(fp);
        }
        let min: Vec<f64> = (0..nf)
            .map(|f| {
                if f == 0 || rng.below(3) > 0 {
                    1e9 * (0.2 + rng.unit())
                } else {
                    0.0
                }
            })
            .collect();
        let inst = Inst { caps, paths, min };
        let (mut lo, mut hi) = (0.0, 1.0);
        while build(&inst, hi).is_some() {
            hi *= 2.0;
        }
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if build(&inst, mid).is_some() {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let mut edge = build(&inst, lo).unwrap();
        let sol = reference::solve(&mut edge);
        assert_eq!(sol.status, Status::Solved, "case {case}");
        assert!(
            edge.max_overload_bps(&sol.sub_rate_bps) <= 1e-9 * 1e9,
            "case {case}: overload"
        );
        for (f, &x) in sol.flow_rate_bps.iter().enumerate() {
            assert!(
                x >= inst.min[f] * lo * (1.0 - 1e-9),
                "case {case}: flow {f} below minimum"
            );
        }
        assert!(sol.sub_rate_bps.iter().all(|&v| v >= 0.0), "case {case}");
        let mut inside = build(&inst, lo * (1.0 - 1e-4)).unwrap();
        let near = reference::solve(&mut inside);
        assert_eq!(near.status, Status::Solved, "case {case}");
        for (f, (a, b)) in sol
            .flow_rate_bps
            .iter()
            .zip(&near.flow_rate_bps)
            .enumerate()
        {
            assert!(
                (a - b).abs() <= 1e-3 * b + 1e6,
                "case {case}: flow {f}: edge {a:e} vs inside {b:e}"
            );
        }
        solved += 1;
    }
    assert_eq!(solved, 25);
}
