//! Closed forms, an independent reference, and the warm start.

use super::*;
use crate::problem::{NumFlow, Problem};
use dctc_core::rng::component_rng;
use rand::Rng;

const T: f64 = 100e-6;
const C: f64 = 10e9;

/// A trace of one interval of `T` with `flows` (paths, start, end) delivering `bits`.
fn trace(flows: Vec<(Vec<usize>, f64, Option<f64>)>, bits: &[f64]) -> Trace {
    Trace {
        interval_s: T,
        end_s: T,
        flows: flows
            .into_iter()
            .map(|(p, s, e)| TraceFlow {
                paths: vec![p],
                start_s: s,
                end_s: e,
            })
            .collect(),
        delivered: vec![bits
            .iter()
            .enumerate()
            .filter(|(_, &b)| b > 0.0)
            .map(|(i, &b)| (i as u32, b))
            .collect()],
    }
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs())
}

#[test]
fn n_flows_at_their_fair_share_score_efficiency_one_and_no_gap() {
    let n = 4;
    let tr = trace(vec![(vec![0], 0.0, None); n], &vec![C / n as f64 * T; n]);
    let e = evaluate(&tr, &[C], ObjectiveKind::Log);
    let s = &e.scores[0];
    assert_eq!(s.flows, n);
    assert!(close(s.efficiency().unwrap(), 1.0, 1e-6), "{s:?}");
    assert!(s.utility_gap_per_flow().unwrap().abs() < 1e-6, "{s:?}");
    assert!(close(s.fairness.unwrap(), 2.5f64.log2(), 1e-9), "{s:?}");
    assert!(close(s.optimal_fairness.unwrap(), 2.5f64.log2(), 1e-6));
    assert_eq!(
        (s.above_2x, s.below_2x, s.starved),
        (Some(0.0), Some(0.0), Some(0.0))
    );
    assert_eq!(s.solved_by, SolvedBy::Ned);
}

#[test]
fn one_flow_taking_the_link_from_three_has_a_large_log_gap_but_full_efficiency() {
    let tr = trace(vec![(vec![0], 0.0, None); 4], &[C * T, 0.0, 0.0, 0.0]);
    let s = &evaluate(&tr, &[C], ObjectiveKind::Log).scores[0];
    assert!(close(s.efficiency().unwrap(), 1.0, 1e-6));
    // Three flows at the floor (one packet per interval, 120 Mb/s) instead of 2.5 Gb/s, one
    // at 10 instead of 2.5: ln(2.5/0.12) x 3 - ln(4), per flow.
    let floor = rate_floor_bps(T);
    let want = (3.0 * (2.5e9 / floor).ln() - 4f64.ln()) / 4.0;
    assert!(
        close(s.utility_gap_per_flow().unwrap(), want, 1e-5),
        "{s:?}"
    );
    assert_eq!(s.below_2x, Some(0.75));
    assert_eq!(s.above_2x, Some(0.25));
    assert_eq!(s.starved, Some(0.75));
    // Flowtune's score: the fair share scores log2(2.5) per flow, this allocation
    // (log2(10) + 3 log2(0.12)) / 4, 2.8 points less.
    let score = ((10f64).log2() + 3.0 * (floor / 1e9).log2()) / 4.0;
    assert!(close(s.fairness.unwrap(), score, 1e-9), "{s:?}");
    assert!(close(s.optimal_fairness.unwrap(), 2.5f64.log2(), 1e-6));
}

#[test]
fn a_flow_present_half_the_interval_takes_part_for_that_half() {
    // A throughout, B until T/2: the relaxation's optimum gives both the same rate while
    // present, c / (1 + 1/2), for log and for max-min alike.
    for kind in [ObjectiveKind::Log, ObjectiveKind::MaxMin] {
        let tr = trace(
            vec![(vec![0], 0.0, None), (vec![0], 0.0, Some(T / 2.0))],
            &[C * T * 0.5, C * T * 0.25],
        );
        let mut solver = IntervalSolver::new(&[C], kind);
        let (s, rates) = solver.score_with_rates(&tr, 0.0, T, &tr.delivered[0]);
        assert!(close(s.presence, 1.5, 1e-12));
        assert_eq!(rates.len(), 2);
        for &(_, _, opt) in &rates {
            assert!(close(opt, C / 1.5, 1e-6), "{kind:?}: {rates:?}");
        }
        // Achieved: A 5 Gb/s while present, B 5 Gb/s over its half.
        assert!(close(rates[0].1, 5e9, 1e-12) && close(rates[1].1, 5e9, 1e-12));
        assert!(close(s.efficiency().unwrap(), 0.75, 1e-6), "{s:?}");
    }
}

#[test]
fn max_min_on_two_links_is_the_textbook_answer() {
    // Link 0 (1 Gb/s): A, B; link 1 (2 Gb/s): B, C. Max-min: A = B = 0.5, C = 1.5 Gb/s.
    let tr = trace(
        vec![
            (vec![0], 0.0, None),
            (vec![0, 1], 0.0, None),
            (vec![1], 0.0, None),
        ],
        &[0.5e9 * T, 0.5e9 * T, 1.5e9 * T],
    );
    let mut solver = IntervalSolver::new(&[1e9, 2e9], ObjectiveKind::MaxMin);
    let (s, rates) = solver.score_with_rates(&tr, 0.0, T, &tr.delivered[0]);
    let opt: Vec<f64> = rates.iter().map(|r| r.2).collect();
    for (a, b) in opt.iter().zip([0.5e9, 0.5e9, 1.5e9]) {
        assert!(close(*a, b, 1e-9), "{opt:?}");
    }
    assert_eq!(s.solved_by, SolvedBy::WaterFill);
    assert!(s.utility_gap.is_none());
    assert!(close(s.efficiency().unwrap(), 1.0, 1e-9));
}

#[test]
fn a_flow_over_two_paths_takes_the_split_the_optimum_chooses_for_every_utility() {
    // A may use link 0 or link 1 (1 Gb/s each), B only link 0. On its first path alone A
    // would share link 0 with B (0.5 Gb/s each); split freely, A takes link 1 and B link 0:
    // 1 Gb/s each, under max-min and log alike.
    let mut tr = trace(
        vec![(vec![0], 0.0, None), (vec![0], 0.0, None)],
        &[0.5e9 * T, 0.5e9 * T],
    );
    tr.flows[0].paths = vec![vec![0], vec![1]];
    for kind in [ObjectiveKind::MaxMin, ObjectiveKind::Log] {
        let mut solver = IntervalSolver::new(&[1e9, 1e9], kind);
        let (s, rates) = solver.score_with_rates(&tr, 0.0, T, &tr.delivered[0]);
        for r in &rates {
            assert!(close(r.2, 1e9, 1e-6), "{kind:?}: {rates:?}");
        }
        assert!(close(s.efficiency().unwrap(), 0.5, 1e-6), "{kind:?}: {s:?}");
        let by = if kind == ObjectiveKind::MaxMin {
            SolvedBy::LinearPrograms
        } else {
            SolvedBy::Ned
        };
        assert_eq!(s.solved_by, by);
    }
}

/// Random flows with random presences on a small two-tier tree: hosts 0-7 under two leaves,
/// links host->leaf 0-7, leaf->host 8-15, leaf->spine 16-19 (two spines), spine->leaf 20-23.
fn random_instance(seed: u64) -> (Trace, Vec<f64>) {
    let mut rng = component_rng(seed, 7);
    let mut cap = vec![10e9; 16];
    cap.extend([20e9; 8]);
    let flows = rng.random_range(3..40);
    let mut list = Vec::new();
    let mut bits = Vec::new();
    for _ in 0..flows {
        let src = rng.random_range(0..8usize);
        let mut dst = rng.random_range(0..7usize);
        if dst >= src {
            dst += 1;
        }
        let (ls, ld) = (src / 4, dst / 4);
        let path = if ls == ld {
            vec![src, 8 + dst]
        } else {
            let spine = rng.random_range(0..2usize);
            vec![src, 16 + ls * 2 + spine, 20 + spine * 2 + ld, 8 + dst]
        };
        let start = if rng.random_bool(0.3) {
            rng.random_range(0.0..T * 0.9)
        } else {
            0.0
        };
        let end = rng
            .random_bool(0.3)
            .then(|| rng.random_range(start + T * 0.05..T * 1.2));
        list.push((path, start, end));
        bits.push(rng.random_range(0.0..1e9) * T);
    }
    (trace(list, &bits), cap)
}

/// The same interval's problem, built here from the module docs' definition and solved by
/// the interior-point reference: each flow's optimal rate while present.
fn reference_rates(tr: &Trace, cap: &[f64], alpha: Option<f64>) -> Vec<f64> {
    let mut p = Problem::new(10e9);
    for (l, &c) in cap.iter().enumerate() {
        p.add_link(format!("l{l}"), c).unwrap();
    }
    let mut presence = Vec::new();
    for (i, f) in tr.flows.iter().enumerate() {
        let a = f.end_s.unwrap_or(T).min(T) - f.start_s;
        if a <= 0.0 {
            continue;
        }
        let phi = a / T;
        presence.push(phi);
        let utility = match alpha {
            None => Utility::Log { weight: phi },
            Some(alpha) => Utility::Alpha {
                weight: phi.powf(alpha),
                alpha,
            },
        };
        let mut nf = NumFlow::new(format!("f{i}"), f.paths[0].clone(), utility);
        nf.max_bps = phi
            * f.paths[0]
                .iter()
                .map(|&l| cap[l])
                .fold(f64::INFINITY, f64::min);
        p.add_flow(nf).unwrap();
    }
    p.autoscale();
    let sol = crate::reference::solve(&mut p);
    assert_eq!(sol.status, crate::reference::Status::Solved);
    sol.flow_rate_bps
        .iter()
        .zip(&presence)
        .map(|(y, phi)| y / phi)
        .collect()
}

#[test]
fn the_optimum_matches_the_reference_solver_on_random_intervals() {
    for (seed, alpha) in (1..=12)
        .map(|s| (s, None))
        .chain([(13, Some(2.0)), (14, Some(0.5))])
    {
        let (tr, cap) = random_instance(seed);
        let kind = alpha.map_or(ObjectiveKind::Log, |alpha| ObjectiveKind::AlphaFair {
            alpha,
        });
        let mut solver = IntervalSolver::new(&cap, kind);
        let (s, rates) = solver.score_with_rates(&tr, 0.0, T, &tr.delivered[0]);
        assert!(
            matches!(s.solved_by, SolvedBy::Ned | SolvedBy::Reference),
            "{s:?}"
        );
        let want = reference_rates(&tr, &cap, alpha);
        assert_eq!(rates.len(), want.len());
        for (got, want) in rates.iter().zip(&want) {
            assert!(
                close(got.2, *want, 1e-4),
                "seed {seed}: {} vs {want}",
                got.2
            );
        }
    }
}

#[test]
fn the_next_interval_starts_from_the_previous_prices() {
    let (tr, cap) = random_instance(3);
    let mut solver = IntervalSolver::new(&cap, ObjectiveKind::Log);
    let first = solver.score(&tr, 0.0, T, &tr.delivered[0]);
    let second = solver.score(&tr, 0.0, T, &tr.delivered[0]);
    assert_eq!(first.solved_by, SolvedBy::Ned);
    assert!(
        second.iterations * 4 < first.iterations,
        "warm {} vs cold {}",
        second.iterations,
        first.iterations
    );
    assert!(close(first.optimal_bps, second.optimal_bps, 1e-6));
}

#[test]
fn totals_weigh_intervals_by_their_flows_and_leave_empty_ones_out() {
    // Interval 0: one flow at line rate; interval 1: nobody; interval 2: two flows, one
    // starved.
    let tr = Trace {
        interval_s: T,
        end_s: 3.0 * T,
        flows: vec![
            TraceFlow {
                paths: vec![vec![0]],
                start_s: 0.0,
                end_s: Some(T),
            },
            TraceFlow {
                paths: vec![vec![0]],
                start_s: 2.0 * T,
                end_s: None,
            },
            TraceFlow {
                paths: vec![vec![0]],
                start_s: 2.0 * T,
                end_s: None,
            },
        ],
        delivered: vec![vec![(0, C * T)], vec![], vec![(1, C * T)]],
    };
    let e = evaluate(&tr, &[C], ObjectiveKind::Log);
    assert_eq!(e.scores[1].solved_by, SolvedBy::Empty);
    let t = &e.totals;
    assert_eq!((t.intervals, t.scored, t.flow_intervals), (3, 2, 3));
    assert!(close(t.efficiency().unwrap(), 1.0, 1e-6));
    assert!(close(t.starved().unwrap(), 1.0 / 3.0, 1e-12));
    let f = rate_floor_bps(T);
    let want = ((10f64).log2() * 2.0 + (f / 1e9).log2()) / 3.0;
    assert!(close(t.fairness().unwrap(), want, 1e-9), "{t:?}");
}
