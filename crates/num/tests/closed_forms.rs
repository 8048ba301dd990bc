//! Closed forms and published optima, each checked against NED, the other solvers and the
//! reference solver.

mod common;
use common::rel;
use dctc_num::maxmin::max_min;
use dctc_num::reference::{self, Status};
use dctc_num::solver::{run_to_convergence, AnySolver, Ned, RunStatus, State};
use dctc_num::spec::ProblemSpec;
use dctc_num::{Csr, NumFlow, Problem, Utility};

fn one_link_weighted() -> (Problem, Vec<f64>) {
    let mut p = Problem::new(10e9);
    p.add_link("l", 10e9).unwrap();
    let weights = vec![1.0, 2.0, 3.0, 0.5, 4.0];
    for (i, &w) in weights.iter().enumerate() {
        p.add_flow(NumFlow::new(
            format!("f{i}"),
            vec![0],
            Utility::Log { weight: w },
        ))
        .unwrap();
    }
    (p, weights)
}

#[test]
fn one_link_weighted_log_ned() {
    let (mut p, w) = one_link_weighted();
    let total: f64 = w.iter().sum();
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    let status = run_to_convergence(&mut ned, &mut p, &mut st, 1e-12, 10_000);
    assert_eq!(status, RunStatus::Converged);
    let x = st.flow_rates_bps(&p);
    for (xi, wi) in x.iter().zip(&w) {
        assert!(rel(*xi, wi / total * 10e9) < 1e-9, "{x:?}");
    }
}

#[test]
fn one_link_weighted_log_every_solver_and_reference() {
    let (_, w) = one_link_weighted();
    let total: f64 = w.iter().sum();
    for &name in AnySolver::NAMES {
        let (mut p, _) = one_link_weighted();
        let mut s = AnySolver::by_name(name).unwrap();
        let mut st = State::new(&p, s.initial_price());
        let status = run_to_convergence(&mut s, &mut p, &mut st, 1e-11, 200_000);
        assert_eq!(status, RunStatus::Converged, "{name}");
        let x = st.flow_rates_bps(&p);
        for (xi, wi) in x.iter().zip(&w) {
            assert!(rel(*xi, wi / total * 10e9) < 1e-6, "{name}: {x:?}");
        }
    }
    let (mut p, _) = one_link_weighted();
    let sol = reference::solve(&mut p);
    assert_eq!(sol.status, Status::Solved);
    for (xi, wi) in sol.flow_rate_bps.iter().zip(&w) {
        assert!(
            rel(*xi, wi / total * 10e9) < 1e-7,
            "{:?}",
            sol.flow_rate_bps
        );
    }
}

#[test]
fn parking_lot_max_min() {
    // Three links in a row, one long flow across all, one short flow per link.
    let routes = Csr::from_rows(vec![vec![0u32, 1, 2], vec![0], vec![1], vec![2], vec![2]]);
    let r = max_min(&[1.0, 1.0, 1.0], &routes);
    // Link 2 has three flows: 1/3 each; links 0 and 1 give the rest to their short flows.
    let want = [1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0];
    for (x, w) in r.iter().zip(want) {
        assert!((x - w).abs() < 1e-12, "{r:?}");
    }
}

#[test]
fn parking_lot_proportional_fair() {
    // Classic: long flow across n links, one short flow per link, log utilities:
    // long = c / (n + 1), short = c n / (n + 1).
    let n = 4;
    let mut p = Problem::new(1e9);
    for l in 0..n {
        p.add_link(format!("l{l}"), 1e9).unwrap();
    }
    p.add_flow(NumFlow::new(
        "long",
        (0..n).collect(),
        Utility::Log { weight: 1.0 },
    ))
    .unwrap();
    for l in 0..n {
        p.add_flow(NumFlow::new(
            format!("s{l}"),
            vec![l],
            Utility::Log { weight: 1.0 },
        ))
        .unwrap();
    }
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    assert_eq!(
        run_to_convergence(&mut ned, &mut p, &mut st, 1e-12, 10_000),
        RunStatus::Converged
    );
    let x = st.flow_rates_bps(&p);
    assert!(rel(x[0], 1e9 / (n as f64 + 1.0)) < 1e-8, "{x:?}");
    assert!(rel(x[1], 1e9 * n as f64 / (n as f64 + 1.0)) < 1e-8, "{x:?}");
    let sol = reference::solve(&mut p);
    assert!(rel(sol.flow_rate_bps[0], x[0]) < 1e-7);
}

fn holnet(text: &str) -> Problem {
    serde_json::from_str::<ProblemSpec>(text)
        .unwrap()
        .build()
        .unwrap()
}

#[test]
fn holnet_80_20() {
    // HOLNET §IV-A: U = 2 sqrt(x) for both users, R_s 400 and 100 Mb/s, alpha = 0.5, 100 Mb/s.
    let text = r#"{"links": [{"id": "l", "capacity_bps": 1e8}], "flows": [
      {"id": "a", "paths": [["l"]], "utility": {"kind": "holnet", "alpha": 0.5, "saturated_bps": 4e8, "user": {"kind": "alpha", "alpha": 0.5}}},
      {"id": "b", "paths": [["l"]], "utility": {"kind": "holnet", "alpha": 0.5, "saturated_bps": 1e8, "user": {"kind": "alpha", "alpha": 0.5}}}]}"#;
    let mut p = holnet(text);
    let sol = reference::solve(&mut p);
    assert_eq!(sol.status, Status::Solved);
    assert!(
        rel(sol.flow_rate_bps[0], 80e6) < 1e-6,
        "{:?}",
        sol.flow_rate_bps
    );
    assert!(rel(sol.flow_rate_bps[1], 20e6) < 1e-6);
    let mut p = holnet(text);
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    assert_eq!(
        run_to_convergence(&mut ned, &mut p, &mut st, 1e-12, 10_000),
        RunStatus::Converged
    );
    let x = st.flow_rates_bps(&p);
    assert!(rel(x[0], 80e6) < 1e-6 && rel(x[1], 20e6) < 1e-6, "{x:?}");
}

#[test]
fn holnet_15_2_84_8() {
    // HOLNET §IV-A: NRE log(1 + x) vs RRA (x - 20M)^(1/3) + 20M^(1/3), theta = 20 Mb/s for the
    // RRA flow, R_s = 100 Mb/s for both, alpha = 0.75, 100 Mb/s link: 15.2 / 84.8 Mb/s.
    let text = r#"{"links": [{"id": "l", "capacity_bps": 1e8}], "flows": [
      {"id": "nre", "paths": [["l"]], "utility": {"kind": "holnet", "alpha": 0.75, "saturated_bps": 1e8, "user": {"kind": "log1p"}}},
      {"id": "rra", "paths": [["l"]], "min_bps": 2e7, "utility": {"kind": "holnet", "alpha": 0.75, "saturated_bps": 1e8, "user": {"kind": "rra", "knee_bps": 2e7}}}]}"#;
    let mut p = holnet(text);
    let sol = reference::solve(&mut p);
    assert_eq!(sol.status, Status::Solved);
    let x = &sol.flow_rate_bps;
    assert!(
        (x[0] / 1e6 - 15.2).abs() < 0.05 && (x[1] / 1e6 - 84.8).abs() < 0.05,
        "{x:?}"
    );
    let mut p = holnet(text);
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    assert_eq!(
        run_to_convergence(&mut ned, &mut p, &mut st, 1e-12, 10_000),
        RunStatus::Converged
    );
    let y = st.flow_rates_bps(&p);
    assert!(
        rel(y[0], x[0]) < 1e-6 && rel(y[1], x[1]) < 1e-6,
        "{y:?} vs {x:?}"
    );
}

#[test]
fn min_and_max_rates_bind() {
    // Three log flows on 10 Gb/s: fair share 3.33; flow 0 needs >= 5, flow 1 <= 1.
    let mut p = Problem::new(10e9);
    p.add_link("l", 10e9).unwrap();
    let mut a = NumFlow::new("a", vec![0], Utility::Log { weight: 1.0 });
    a.min_bps = 5e9;
    let mut b = NumFlow::new("b", vec![0], Utility::Log { weight: 1.0 });
    b.max_bps = 1e9;
    p.add_flow(a).unwrap();
    p.add_flow(b).unwrap();
    p.add_flow(NumFlow::new("c", vec![0], Utility::Log { weight: 1.0 }))
        .unwrap();
    let want = [5e9, 1e9, 4e9];
    let sol = reference::solve(&mut p);
    assert_eq!(sol.status, Status::Solved);
    for (x, w) in sol.flow_rate_bps.iter().zip(want) {
        assert!(rel(*x, w) < 1e-6, "{:?}", sol.flow_rate_bps);
    }
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    assert_eq!(
        run_to_convergence(&mut ned, &mut p, &mut st, 1e-12, 10_000),
        RunStatus::Converged
    );
    for (x, w) in st.flow_rates_bps(&p).iter().zip(want) {
        assert!(rel(*x, w) < 1e-8);
    }
}

#[test]
fn infeasible_minimum_across_paths_is_rejected_on_input() {
    // Two multipath flows whose minima fit no single link check but not the network either:
    // each needs 1.5 over links a and b of capacity 1 each. (Before the exact check, the
    // problem was accepted and the reference solver reported it infeasible.)
    let mut p = Problem::new(1.0);
    p.add_link("a", 1.0).unwrap();
    p.add_link("b", 1.0).unwrap();
    let mut f = NumFlow::new("x", vec![0], Utility::Log { weight: 1.0 });
    f.paths.push(vec![1]);
    f.min_bps = 1.5;
    p.add_flow(f.clone()).unwrap();
    f.name = "y".into();
    let e = p.add_flow(f).unwrap_err();
    assert!(
        matches!(e, dctc_num::ProblemError::InfeasibleMinimumCut { ref links, .. } if links.len() == 2),
        "{e}"
    );
}

#[test]
fn online_departure_reconverges() {
    let mut p = Problem::new(10e9);
    p.add_link("a", 10e9).unwrap();
    p.add_link("b", 10e9).unwrap();
    let long = p
        .add_flow(NumFlow::new(
            "long",
            vec![0, 1],
            Utility::Log { weight: 1.0 },
        ))
        .unwrap();
    p.add_flow(NumFlow::new("s0", vec![0], Utility::Log { weight: 1.0 }))
        .unwrap();
    p.add_flow(NumFlow::new("s1", vec![1], Utility::Log { weight: 2.0 }))
        .unwrap();
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    assert_eq!(
        run_to_convergence(&mut ned, &mut p, &mut st, 1e-12, 10_000),
        RunStatus::Converged
    );
    let before = st.prices.clone();
    p.remove_flow(long).unwrap();
    // Prices persist across the change.
    assert_eq!(st.prices, before);
    assert_eq!(
        run_to_convergence(&mut ned, &mut p, &mut st, 1e-12, 10_000),
        RunStatus::Converged
    );
    let x = st.flow_rates_bps(&p);
    assert!(rel(x[0], 10e9) < 1e-9 && rel(x[1], 10e9) < 1e-9, "{x:?}");
    // And a capacity change.
    p.set_capacity(1, 5e9).unwrap();
    assert_eq!(
        run_to_convergence(&mut ned, &mut p, &mut st, 1e-12, 10_000),
        RunStatus::Converged
    );
    let x = st.flow_rates_bps(&p);
    assert!(rel(x[1], 5e9) < 1e-9, "{x:?}");
}

#[test]
fn tcp_reno_and_dba_utilities_match_reference() {
    let mut p = Problem::new(1e9);
    p.add_link("a", 1e9).unwrap();
    p.add_link("b", 2e9).unwrap();
    p.add_flow(NumFlow::new(
        "r",
        vec![0, 1],
        Utility::TcpReno {
            weight: 1.0,
            mu: 1e8,
            beta: 0.5,
        },
    ))
    .unwrap();
    p.add_flow(NumFlow::new(
        "d",
        vec![0],
        Utility::Dba {
            epsilon: 0.5,
            remaining_time_s: 0.01,
        },
    ))
    .unwrap();
    p.add_flow(NumFlow::new("l", vec![1], Utility::Log { weight: 3.0 }))
        .unwrap();
    let sol = reference::solve(&mut p);
    assert_eq!(sol.status, Status::Solved);
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    assert_eq!(
        run_to_convergence(&mut ned, &mut p, &mut st, 1e-12, 100_000),
        RunStatus::Converged
    );
    for (x, r) in st.flow_rates_bps(&p).iter().zip(&sol.flow_rate_bps) {
        assert!(rel(*x, *r) < 1e-6, "{x} vs {r}");
    }
}

#[test]
fn parking_lot_with_bounds_all_solvers_agree_with_reference() {
    // Mixed utilities, a max and a min rate; DBA's water-filling once stalled here on a
    // rounding residue in a link's weight sum.
    let text = include_str!("../examples/parking-lot.json");
    let mut p = serde_json::from_str::<ProblemSpec>(text)
        .unwrap()
        .build()
        .unwrap();
    let sol = reference::solve(&mut p);
    assert_eq!(sol.status, Status::Solved);
    for &name in AnySolver::NAMES {
        let mut p = serde_json::from_str::<ProblemSpec>(text)
            .unwrap()
            .build()
            .unwrap();
        let mut s = AnySolver::by_name(name).unwrap();
        let mut st = State::new(&p, s.initial_price());
        let status = run_to_convergence(&mut s, &mut p, &mut st, 1e-10, 200_000);
        assert_eq!(status, RunStatus::Converged, "{name}");
        for (x, r) in st.flow_rates_bps(&p).iter().zip(&sol.flow_rate_bps) {
            assert!(rel(*x, *r) < 1e-4, "{name}: {x} vs {r}");
        }
    }
}

/// Links but no flows: the reference solves at once (no Newton step) with zero prices.
#[test]
fn reference_without_flows_is_solved_at_once() {
    let mut p = Problem::new(10e9);
    p.add_link("l", 10e9).unwrap();
    let sol = reference::solve(&mut p);
    assert_eq!(sol.status, Status::Solved);
    assert!(sol.flow_rate_bps.is_empty() && sol.sub_rate_bps.is_empty());
    assert_eq!(sol.prices, vec![0.0]);
    assert_eq!(sol.objective, 0.0);
    assert_eq!(sol.newton_steps, 0);
}

/// Minimum rates that exactly fill a link have no strictly feasible point but are feasible:
/// a (theta 6) and b (theta 4) fill l (10 Gb/s); c has paths [l, m] and [m], so its path
/// through l must carry 0 and it takes all of m (7 Gb/s).
#[test]
fn reference_pins_minimums_that_fill_a_link() {
    let mut p = Problem::new(10e9);
    let l = p.add_link("l", 10e9).unwrap();
    let m = p.add_link("m", 7e9).unwrap();
    let log = Utility::Log { weight: 1.0 };
    let mut a = NumFlow::new("a", vec![l], log);
    a.min_bps = 6e9;
    let mut b = NumFlow::new("b", vec![l], log);
    b.min_bps = 4e9;
    let mut c = NumFlow::new("c", vec![l, m], log);
    c.paths = vec![vec![l, m], vec![m]];
    p.add_flow(a).unwrap();
    p.add_flow(b).unwrap();
    p.add_flow(c).unwrap();
    let sol = reference::solve(&mut p);
    assert_eq!(sol.status, Status::Solved);
    for (got, want) in sol.flow_rate_bps.iter().zip([6e9, 4e9, 7e9]) {
        assert!(rel(*got, want) < 1e-9, "{:?}", sol.flow_rate_bps);
    }
    assert_eq!(
        sol.sub_rate_bps[2], 0.0,
        "c's path through the full link is unused"
    );
    // KKT: every path price is at least U'(x) = 1/x (rate units), equal where used.
    let unit = p.rate_unit();
    let mu = |x: f64| unit / x;
    assert!(sol.prices[l] + sol.prices[m] >= mu(7e9) * (1.0 - 1e-6));
    assert!(rel(sol.prices[m], mu(7e9)) < 1e-6, "{:?}", sol.prices);
    // Minimums that exceed the link are still rejected by validation.
    let mut q = Problem::new(10e9);
    let l = q.add_link("l", 10e9).unwrap();
    let mut a = NumFlow::new("a", vec![l], log);
    a.min_bps = 6e9;
    let mut b = NumFlow::new("b", vec![l], log);
    b.min_bps = 4.1e9;
    q.add_flow(a).unwrap();
    assert!(q.add_flow(b).is_err());
}
