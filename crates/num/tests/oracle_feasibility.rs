//! Minimum-rate feasibility with multipath flows (HOLNET eq. 10-11: the minimum is on the
//! flow's total, split over its paths as needed): the input check is exact, accepting
//! minimums that fit only jointly across several links and rejecting those that do not fit,
//! with the links and flows of the cut named.

mod common;

use common::{flow, Rng};
use dctc_num::{Problem, ProblemError};

fn links(caps: &[f64]) -> Problem {
    let mut p = Problem::new(1e9);
    for (i, &c) in caps.iter().enumerate() {
        p.add_link(["a", "b", "c", "d", "e", "f"][i], c).unwrap();
    }
    p
}

/// x and y each split over a | b (1 Gb/s each): minimums summing to exactly 2 Gb/s fit (no
/// single link can take either flow's 1.5), 1e-9 more does not, and the error names both links
/// and both flows.
#[test]
fn two_multipath_flows_fill_two_links_jointly() {
    let mut p = links(&[1e9, 1e9]);
    p.add_flow(flow("x", &[&[0], &[1]], 1.5e9)).unwrap();
    p.add_flow(flow("y", &[&[0], &[1]], 0.5e9)).unwrap();
    let mut p = links(&[1e9, 1e9]);
    p.add_flow(flow("x", &[&[0], &[1]], 1.5e9)).unwrap();
    let e = p
        .add_flow(flow("y", &[&[0], &[1]], 0.5e9 * (1.0 + 1e-9)))
        .unwrap_err();
    match &e {
        ProblemError::InfeasibleMinimumCut {
            links,
            flows,
            flow,
            fraction,
        } => {
            assert_eq!(links, &["a", "b"]);
            assert_eq!(flows, &["x", "y"]);
            assert_eq!(flow, "y");
            assert!(*fraction < 1.0 && *fraction > 1.0 - 1e-9, "{fraction}");
        }
        other => panic!("{other}"),
    }
    let text = e.to_string();
    assert!(
        text.contains("`a`, `b`") && text.contains("`x`, `y`"),
        "{text}"
    );
}

/// A cut of two links reached only through a chain: p splits over a | b (theta 1.5), q crosses
/// b and c (theta 0.5), r is on c (theta 0.5). Every link fits its own must-cross minimums;
/// together a, b carry p's 1.5 and q's 0.5 exactly (p: 1 on a, 0.5 on b). Adding s on a with
/// a minimum of 1 Mb/s breaks the cut {a, b} (c is not part of it).
#[test]
fn a_cut_of_several_links_exactly_filled() {
    let mut p = links(&[1e9, 1e9, 1e9]);
    p.add_flow(flow("p", &[&[0], &[1]], 1.5e9)).unwrap();
    p.add_flow(flow("q", &[&[1, 2]], 0.5e9)).unwrap();
    p.add_flow(flow("r", &[&[2]], 0.5e9)).unwrap();
    let e = p.add_flow(flow("s", &[&[0]], 1e6)).unwrap_err();
    match &e {
        ProblemError::InfeasibleMinimumCut { links, flows, .. } => {
            assert_eq!(links, &["a", "b"], "{e}");
            assert!(flows.contains(&"p".to_string()) && flows.contains(&"s".to_string()));
            assert!(!flows.contains(&"r".to_string()), "{e}");
        }
        other => panic!("{other}"),
    }
    // Shrinking b is refused the same way; growing it is fine.
    assert!(matches!(
        p.set_capacity(1, 0.9e9),
        Err(ProblemError::InfeasibleMinimumCut { .. })
    ));
    p.set_capacity(1, 2e9).unwrap();
    p.add_flow(flow("s", &[&[0]], 1e6)).unwrap();
    // Removing the multipath flow frees the check.
    let key = p.keys()[0];
    p.remove_flow(key).unwrap();
    p.set_capacity(0, 1e6).unwrap();
}

/// The same problem built in the other order (the multipath flow last) is rejected too.
#[test]
fn order_of_arrival_does_not_matter() {
    let mut p = links(&[1e9, 1e9, 1e9]);
    p.add_flow(flow("s", &[&[0]], 1e6)).unwrap();
    p.add_flow(flow("q", &[&[1, 2]], 0.5e9)).unwrap();
    p.add_flow(flow("r", &[&[2]], 0.5e9)).unwrap();
    assert!(matches!(
        p.add_flow(flow("p", &[&[0], &[1]], 1.5e9)),
        Err(ProblemError::InfeasibleMinimumCut { .. })
    ));
    assert!(p.add_flow(flow("p", &[&[0], &[1]], 1.5e9 - 1e6)).is_ok());
}

/// Random instances whose paths are single links (flows choose among parallel links): there
/// the minimums fit iff, for every set S of links, the minimums of the flows all of whose
/// paths lie in S are at most S's capacity (Hall / Gale: max-flow min-cut on flows -> links).
/// The check agrees with that brute-force condition on instances scaled to within 1e-6 of
/// the boundary on either side.
#[test]
fn agrees_with_hall_condition_near_the_boundary() {
    let mut rng = Rng::new(0x5eed_00f0);
    let (mut feasible, mut infeasible) = (0, 0);
    for case in 0..300 {
        let nl = 2 + rng.below(4);
        let nf = 1 + rng.below(6);
        let caps: Vec<f64> = (0..nl).map(|_| 1e9 * (0.5 + rng.unit())).collect();
        let mut paths: Vec<Vec<usize>> = Vec::new();
        for _ in 0..nf {
            let k = 1 + rng.below(3.min(nl));
            let mut ls: Vec<usize> = Vec::new();
            while ls.len() < k {
                let l = rng.below(nl);
                if !ls.contains(&l) {
                    ls.push(l);
                }
            }
            paths.push(ls);
        }
        let raw: Vec<f64> = (0..nf).map(|_| 0.1 + rng.unit()).collect();
        // The largest common scale of the minimums that Hall's condition allows.
        let mut scale = f64::INFINITY;
        for set in 1u32..(1 << nl) {
            let cap: f64 = (0..nl).filter(|l| set >> l & 1 == 1).map(|l| caps[l]).sum();
            let need: f64 = (0..nf)
                .filter(|&f| paths[f].iter().all(|&l| set >> l & 1 == 1))
                .map(|f| raw[f])
                .sum();
            if need > 0.0 {
                scale = scale.min(cap / need);
            }
        }
        let outside = rng.below(2) == 0;
        let scale = scale * if outside { 1.0 + 1e-6 } else { 1.0 - 1e-6 };
        let mut p = Problem::new(1e9);
        for (l, &c) in caps.iter().enumerate() {
            p.add_link(format!("l{l}"), c).unwrap();
        }
        let mut result = Ok(());
        for f in 0..nf {
            let path_refs: Vec<&[usize]> = paths[f].chunks(1).collect();
            if let Err(e) = p.add_flow(flow(&format!("f{f}"), &path_refs, raw[f] * scale)) {
                result = Err(e);
                break;
            }
        }
        if outside {
            infeasible += 1;
            let e = result.expect_err(&format!("case {case}: infeasible minimums accepted"));
            assert!(
                matches!(
                    e,
                    ProblemError::InfeasibleMinimum { .. }
                        | ProblemError::InfeasibleMinimumCut { .. }
                ),
                "case {case}: {e}"
            );
        } else {
            feasible += 1;
            result.unwrap_or_else(|e| panic!("case {case}: feasible minimums rejected: {e}"));
        }
    }
    assert!(feasible > 100 && infeasible > 100);
}
