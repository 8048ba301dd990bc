//! Oracle tests: closed-form NUM optima derived by hand from the KKT conditions and the
//! papers' published numbers (Flowtune §3, HOLNET §III-IV, DBA eq. 2), checked against NED and
//! the reference solver through the public API. Expectations are derived here, independently
//! of the implementation.

use dctc_num::reference::{self, Status};
use dctc_num::solver::{run_to_convergence, Ned, RunStatus, State};
use dctc_num::spec::ProblemSpec;
use dctc_num::utility::{center_of_utility, holnet_utility};
use dctc_num::{NumFlow, Problem, Utility};

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs()).max(1e-300)
}

fn assert_close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            rel(*g, *w) <= tol,
            "{what}: flow {i}: got {g:e}, want {w:e} (rel {:e} > {tol:e}); all got {got:?} want {want:?}",
            rel(*g, *w)
        );
    }
}

/// NED (gamma 0.4, prices from 1) run until the relative change is below 1e-9.
fn ned_rates(p: &mut Problem) -> (Vec<f64>, Vec<f64>) {
    let mut ned = Ned::default();
    let mut st = State::new(p, 1.0);
    let status = run_to_convergence(&mut ned, p, &mut st, 1e-9, 200_000);
    assert_eq!(status, RunStatus::Converged, "NED did not converge");
    (st.flow_rates_bps(p), st.sub_rates_bps(p))
}

fn reference_rates(p: &mut Problem) -> (Vec<f64>, Vec<f64>) {
    let sol = reference::solve(p);
    assert_eq!(sol.status, Status::Solved);
    (sol.flow_rate_bps, sol.sub_rate_bps)
}

/// Both solvers against `want` (flow rates, b/s).
fn both(p: &mut Problem, want: &[f64], ned_tol: f64, ref_tol: f64, what: &str) {
    let (r, _) = reference_rates(p);
    assert_close(&r, want, ref_tol, &format!("{what} (reference)"));
    let (n, _) = ned_rates(p);
    assert_close(&n, want, ned_tol, &format!("{what} (NED)"));
}

fn single_link(c: f64, utils: &[Utility]) -> Problem {
    let mut p = Problem::new(c);
    let l = p.add_link("l0", c).unwrap();
    for (i, u) in utils.iter().enumerate() {
        p.add_flow(NumFlow::new(format!("f{i}"), vec![l], *u))
            .unwrap();
    }
    p
}

// ---------------------------------------------------------------------------------------
// One link.
// ---------------------------------------------------------------------------------------

/// Weighted log on one link: KKT gives w_i / x_i = p for all i and sum x_i = c, so
/// x_i = w_i / sum(w) * c.
#[test]
fn one_link_weighted_log_is_weight_proportional() {
    let c = 1e10;
    let w = [1.0, 2.0, 3.0, 4.0, 0.5];
    let utils: Vec<Utility> = w.iter().map(|&weight| Utility::Log { weight }).collect();
    let mut p = single_link(c, &utils);
    let sum: f64 = w.iter().sum();
    let want: Vec<f64> = w.iter().map(|wi| wi / sum * c).collect();
    both(&mut p, &want, 1e-6, 1e-6, "one link weighted log");
}

/// Alpha-fair on one link, w x^-alpha = p: x_i proportional to w_i^(1/alpha); equal weights
/// give equal shares whatever alpha. Weights carry a (1 Gb/s)^alpha factor so U' is O(1) in
/// Gb/s (a change of units, which does not move the optimum's ratios).
#[test]
fn one_link_alpha_fair_shares() {
    let c = 1e10;
    for &alpha in &[0.5, 2.0, 4.0] {
        let scale = 1e9f64.powf(alpha);
        // Equal weights: equal shares.
        let utils = vec![
            Utility::Alpha {
                weight: scale,
                alpha
            };
            3
        ];
        let mut p = single_link(c, &utils);
        both(
            &mut p,
            &[c / 3.0; 3],
            1e-6,
            1e-6,
            &format!("equal alpha={alpha}"),
        );
        // Unequal weights: x_i ∝ w_i^(1/alpha).
        let w = [1.0, 2.0, 4.0];
        let utils: Vec<Utility> = w
            .iter()
            .map(|&wi| Utility::Alpha {
                weight: wi * scale,
                alpha,
            })
            .collect();
        let mut p = single_link(c, &utils);
        let shares: Vec<f64> = w.iter().map(|wi| wi.powf(1.0 / alpha)).collect();
        let sum: f64 = shares.iter().sum();
        let want: Vec<f64> = shares.iter().map(|s| s / sum * c).collect();
        both(
            &mut p,
            &want,
            1e-6,
            1e-6,
            &format!("weighted alpha={alpha}"),
        );
    }
}

/// DBA eq. (2): U = b^(1-eps) / T, so U' = (1-eps) b^-eps / T = p and
/// b_1 / b_2 = (T_2 / T_1)^(1/eps) on a shared link.
#[test]
fn one_link_dba_utility_favours_short_remaining_time() {
    let c = 1e10;
    let eps = 0.5;
    let t = [1.0, 2.0, 4.0];
    let utils: Vec<Utility> = t
        .iter()
        .map(|&remaining_time_s| Utility::Dba {
            epsilon: eps,
            remaining_time_s,
        })
        .collect();
    // Value is b^(1-eps)/T exactly (DBA eq. 2).
    for (u, &ti) in utils.iter().zip(&t) {
        let b: f64 = 3.7e9;
        assert!(rel(u.value(b), b.powf(1.0 - eps) / ti) < 1e-12);
    }
    let mut p = single_link(c, &utils);
    let shares: Vec<f64> = t.iter().map(|ti| (1.0 / ti).powf(1.0 / eps)).collect();
    let sum: f64 = shares.iter().sum();
    let want: Vec<f64> = shares.iter().map(|s| s / sum * c).collect();
    both(&mut p, &want, 1e-6, 1e-6, "DBA utility");
}

/// TCP Reno (HOLNET eq. 22). Differentiating eq. 22 by hand:
/// d/dx [(mu/beta + x)(log(mu + beta x) - 1) - x (log(beta x) - 1)] = log(1 + mu/(beta x)).
/// Two weighted flows on one link: w1 log(1 + mu/(beta x1)) = w2 log(1 + mu/(beta (c - x1))),
/// solved here by bisection.
#[test]
fn one_link_tcp_reno_matches_bisection_of_kkt() {
    let c = 1e10;
    let (mu, beta) = (2e9, 1.0);
    let w = [1.0, 3.0];
    let m = |wi: f64, x: f64| wi * (1.0 + mu / (beta * x)).ln();
    let (mut lo, mut hi) = (1e-6 * c, c * (1.0 - 1e-9));
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if m(w[0], mid) > m(w[1], c - mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let x1 = 0.5 * (lo + hi);
    let utils: Vec<Utility> = w
        .iter()
        .map(|&weight| Utility::TcpReno { weight, mu, beta })
        .collect();
    // U' from the crate agrees with the hand derivative of eq. 22.
    for x in [1e8, 1e9, 7e9] {
        assert!(rel(utils[1].marginal(x), m(3.0, x)) < 1e-12);
        let h = x * 1e-5;
        let fd = (utils[1].value(x + h) - utils[1].value(x - h)) / (2.0 * h);
        assert!(rel(fd, m(3.0, x)) < 1e-5, "eq. 22 value vs marginal at {x}");
    }
    let mut p = single_link(c, &utils);
    both(&mut p, &[x1, c - x1], 1e-6, 1e-6, "TCP Reno");
}

/// Every utility's derived functions agree with finite differences of `value` and with each
/// other: U' = dU/dx, U'' = dU'/dx, (U')^-1(U'(x)) = x, d(U')^-1/dq = 1/U''.
#[test]
fn utility_functions_are_mutually_consistent() {
    let utils = [
        Utility::Log { weight: 2.5 },
        Utility::Alpha {
            weight: 3.0,
            alpha: 0.5,
        },
        Utility::Alpha {
            weight: 0.7,
            alpha: 2.0,
        },
        Utility::Alpha {
            weight: 1.3,
            alpha: 1.0,
        },
        Utility::Dba {
            epsilon: 0.2,
            remaining_time_s: 0.01,
        },
        Utility::TcpReno {
            weight: 2.0,
            mu: 5.0,
            beta: 0.5,
        },
    ];
    for u in &utils {
        for &x in &[0.3, 1.0, 4.0, 17.0] {
            let h = x * 1e-5;
            let du = (u.value(x + h) - u.value(x - h)) / (2.0 * h);
            assert!(rel(du, u.marginal(x)) < 1e-6, "{u:?} U' at {x}");
            let d2 = (u.marginal(x + h) - u.marginal(x - h)) / (2.0 * h);
            assert!(rel(d2, u.curvature(x)) < 1e-6, "{u:?} U'' at {x}");
            assert!(
                u.curvature(x) < 0.0 && u.marginal(x) > 0.0,
                "{u:?} concave increasing"
            );
            let q = u.marginal(x);
            assert!(rel(u.rate_at_price(q), x) < 1e-9, "{u:?} inverse at {x}");
            assert!(
                rel(u.rate_slope(q), 1.0 / u.curvature(x)) < 1e-9,
                "{u:?} inverse slope at {x}"
            );
        }
    }
    // alpha = 1 is log (HOLNET footnote 2): same marginal.
    let a1 = Utility::Alpha {
        weight: 1.3,
        alpha: 1.0,
    };
    assert!(rel(a1.marginal(2.0), 1.3 / 2.0) < 1e-12);
}

// ---------------------------------------------------------------------------------------
// Two-link line network: one long flow over both links, one short flow on each.
// ---------------------------------------------------------------------------------------

fn line(c1: f64, c2: f64, u: Utility) -> Problem {
    let mut p = Problem::new(c1.max(c2));
    let a = p.add_link("a", c1).unwrap();
    let b = p.add_link("b", c2).unwrap();
    p.add_flow(NumFlow::new("long", vec![a, b], u)).unwrap();
    p.add_flow(NumFlow::new("s_a", vec![a], u)).unwrap();
    p.add_flow(NumFlow::new("s_b", vec![b], u)).unwrap();
    p
}

/// Proportional fairness, equal capacities c: by symmetry p_a = p_b = p, short = 1/p,
/// long = 1/(2p), short + long = c, so long = c/3 and short = 2c/3.
#[test]
fn line_network_proportional_fair_thirds() {
    let c = 1e10;
    let mut p = line(c, c, Utility::Log { weight: 1.0 });
    both(
        &mut p,
        &[c / 3.0, 2.0 * c / 3.0, 2.0 * c / 3.0],
        1e-6,
        1e-6,
        "line PF",
    );
}

/// Proportional fairness, capacities c1, c2: 1/x = 1/(c1 - x) + 1/(c2 - x), i.e.
/// 3x^2 - 2(c1 + c2)x + c1 c2 = 0, x = ((c1 + c2) - sqrt((c1 + c2)^2 - 3 c1 c2)) / 3.
#[test]
fn line_network_proportional_fair_unequal_capacities() {
    let (c1, c2): (f64, f64) = (4e9, 1e10);
    let s = c1 + c2;
    let x = (s - (s * s - 3.0 * c1 * c2).sqrt()) / 3.0;
    let mut p = line(c1, c2, Utility::Log { weight: 1.0 });
    both(&mut p, &[x, c1 - x, c2 - x], 1e-6, 1e-6, "line PF unequal");
}

/// Alpha-fair, equal capacities: long = (2p)^(-1/alpha) = 2^(-1/alpha) short, so
/// long = c 2^(-1/alpha) / (1 + 2^(-1/alpha)), which tends to c/2 (max-min) as alpha grows.
#[test]
fn line_network_alpha_fair_tends_to_max_min() {
    let c = 1e10;
    let mut last_gap = f64::INFINITY;
    for &alpha in &[1.0, 2.0, 4.0, 8.0, 16.0] {
        let k = 2f64.powf(-1.0 / alpha);
        let long = c * k / (1.0 + k);
        let u = Utility::Alpha {
            weight: 1e9f64.powf(alpha),
            alpha,
        };
        let mut p = line(c, c, u);
        let want = [long, c - long, c - long];
        both(&mut p, &want, 1e-6, 1e-6, &format!("line alpha={alpha}"));
        let gap = (c / 2.0 - long) / c;
        assert!(gap < last_gap, "approaches max-min monotonically");
        last_gap = gap;
    }
    assert!(last_gap < 0.025, "alpha = 16 within 2.5% of max-min");
}

/// Unequal capacities (1 and 1.5 Gb/s): max-min gives long = s_a = 0.5, s_b = 1.0 (Gb/s).
/// For finite alpha the exact optimum solves x^-alpha = (c1 - x)^-alpha + (c2 - x)^-alpha
/// (both links saturated, p_l = short_l^-alpha); bisection here. The distance to max-min must
/// shrink as alpha grows.
#[test]
fn alpha_fair_unequal_capacities_approach_max_min() {
    let (c1, c2) = (1e9, 1.5e9);
    let maxmin = [0.5e9, 0.5e9, 1.0e9];
    let mut last = f64::INFINITY;
    for &alpha in &[1.0, 2.0, 4.0, 8.0, 16.0] {
        // In Gb/s units: f(x) = x^-a - (c1-x)^-a - (c2-x)^-a, decreasing on (0, c1).
        let f = |x: f64| x.powf(-alpha) - (1.0 - x).powf(-alpha) - (1.5 - x).powf(-alpha);
        let (mut lo, mut hi) = (1e-9, 1.0 - 1e-9);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if f(mid) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let x = 0.5 * (lo + hi) * 1e9;
        let want = [x, c1 - x, c2 - x];
        let u = Utility::Alpha {
            weight: 1e9f64.powf(alpha),
            alpha,
        };
        let mut p = line(c1, c2, u);
        both(&mut p, &want, 1e-6, 1e-6, &format!("unequal alpha={alpha}"));
        let dist = want
            .iter()
            .zip(&maxmin)
            .map(|(a, b)| (a - b).abs() / c1)
            .fold(0.0, f64::max);
        assert!(dist < last, "alpha={alpha}: {dist} not below {last}");
        last = dist;
    }
    assert!(last < 1e-3, "alpha = 16 is max-min to 0.1%: {last}");
}

// ---------------------------------------------------------------------------------------
// HOLNET §III-IV: center of utility (eq. 4), weights (eq. 9), published optima.
// ---------------------------------------------------------------------------------------

/// U = x^(1-a)/(1-a): x U'(x) = x^(1-a), so x^c = R^(2-a)/(2-a) / (R^(1-a)/(1-a))
/// = R (1-a)/(2-a); for a = 0.5, x^c = R/3.
fn xc_alpha(a: f64, r: f64) -> f64 {
    r * (1.0 - a) / (2.0 - a)
}

/// U = log(1 + x): ∫_0^R x/(1+x) dx = R - log(1+R), so x^c = (R - log(1+R)) / log(1+R).
fn xc_log1p(r: f64) -> f64 {
    let l = r.ln_1p();
    (r - l) / l
}

/// U = (x - k)^(1/3) + k^(1/3) (RRA, real cube root). With y = x - k and
/// U' = |y|^(-2/3)/3: ∫ x U' dx = ∫_{-k}^{R-k} (y + k)|y|^(-2/3)/3 dy
/// = ((R-k)^(4/3) - k^(4/3))/4 + k ((R-k)^(1/3) + k^(1/3)); divided by U(R).
fn xc_rra(k: f64, r: f64) -> f64 {
    let a = r - k;
    let ur = a.cbrt() + k.cbrt();
    ((a.powf(4.0 / 3.0) - k.powf(4.0 / 3.0)) / 4.0 + k * ur) / ur
}

#[test]
fn center_of_utility_matches_hand_integrals_and_paper_ratios() {
    // 80/20 case: U = 2 sqrt(x), R_s 400 and 100 Mb/s: ratio 4, weight ratio 4^0.5 = 2.
    let u = |x: f64| 2.0 * x.sqrt();
    let c1 = center_of_utility(&u, 4e8).unwrap();
    let c2 = center_of_utility(&u, 1e8).unwrap();
    assert!(rel(c1, xc_alpha(0.5, 4e8)) < 1e-6, "{c1}");
    assert!(rel(c2, 1e8 / 3.0) < 1e-6, "{c2}");
    assert!(rel(c1 / c2, 4.0) < 1e-6);
    // 15.2/84.8 case, x in b/s: paper's centre ratio 5.59, weight ratio 3.63.
    let nre = center_of_utility(&|x: f64| x.ln_1p(), 1e8).unwrap();
    let rra = center_of_utility(&|x: f64| (x - 2e7).cbrt() + 2e7f64.cbrt(), 1e8).unwrap();
    assert!(rel(nre, xc_log1p(1e8)) < 1e-6, "NRE centre {nre}");
    assert!(rel(rra, xc_rra(2e7, 1e8)) < 1e-6, "RRA centre {rra}");
    let ratio = rra / nre;
    assert!((ratio - 5.59).abs() < 0.005, "centre ratio {ratio}");
    assert!((ratio.powf(0.75) - 3.63).abs() < 0.01, "weight ratio");
    // Eq. 9: weight = (x^c / x_0^c)^alpha.
    let h = holnet_utility(&u, 4e8, 0.5, 1e6).unwrap();
    assert!(rel(h.weight(), (xc_alpha(0.5, 4e8) / 1e6).sqrt()) < 1e-6);
}

fn spec(text: &str) -> Problem {
    let s: ProblemSpec = serde_json::from_str(text).expect("valid JSON spec");
    s.build().expect("valid problem")
}

/// HOLNET §IV-A: alpha = 0.5, two NRE flows with U = U_alpha(0.5, x) and R_s 400 / 100 Mb/s
/// on a 100 Mb/s link: 80 / 20 Mb/s.
#[test]
fn holnet_80_20_via_json() {
    let mut p = spec(
        r#"{"links": [{"id": "l", "capacity_bps": 1e8}],
        "flows": [
          {"id": "f1", "paths": [["l"]], "utility": {"kind": "holnet", "alpha": 0.5,
             "saturated_bps": 4e8, "user": {"kind": "alpha", "alpha": 0.5}}},
          {"id": "f2", "paths": [["l"]], "utility": {"kind": "holnet", "alpha": 0.5,
             "saturated_bps": 1e8, "user": {"kind": "alpha", "alpha": 0.5}}}]}"#,
    );
    both(&mut p, &[8e7, 2e7], 1e-5, 1e-5, "HOLNET 80/20");
}

/// Same through the library: `holnet_utility` on the user utility closure.
#[test]
fn holnet_80_20_via_library() {
    let u = |x: f64| 2.0 * x.sqrt();
    let mut p = Problem::new(1e8);
    let l = p.add_link("l", 1e8).unwrap();
    for (name, rs) in [("f1", 4e8), ("f2", 1e8)] {
        let h = holnet_utility(&u, rs, 0.5, 1e6).unwrap();
        p.add_flow(NumFlow::new(name, vec![l], h)).unwrap();
    }
    both(&mut p, &[8e7, 2e7], 1e-5, 1e-5, "HOLNET 80/20 lib");
}

/// HOLNET §IV-A: alpha = 0.75, NRE log(1+x) vs RRA with knee = theta = 20 Mb/s, R_s 100 Mb/s
/// each, 100 Mb/s link. Alpha-fair with weights (x^c)^alpha on one link gives
/// x_i = c x^c_i / sum x^c: 15.2 / 84.8 Mb/s; theta = 20 Mb/s does not bind.
#[test]
fn holnet_15_2_84_8_via_json() {
    let mut p = spec(
        r#"{"links": [{"id": "l", "capacity_bps": 1e8}],
        "flows": [
          {"id": "nre", "paths": [["l"]], "utility": {"kind": "holnet", "alpha": 0.75,
             "saturated_bps": 1e8, "user": {"kind": "log1p"}}},
          {"id": "rra", "paths": [["l"]], "min_bps": 2e7, "utility": {"kind": "holnet",
             "alpha": 0.75, "saturated_bps": 1e8, "user": {"kind": "rra", "knee_bps": 2e7}}}]}"#,
    );
    let (a, b) = (xc_log1p(1e8), xc_rra(2e7, 1e8));
    let want = [1e8 * a / (a + b), 1e8 * b / (a + b)];
    assert!((want[0] / 1e6 - 15.2).abs() < 0.05, "{want:?}");
    assert!((want[1] / 1e6 - 84.8).abs() < 0.05, "{want:?}");
    both(&mut p, &want, 1e-5, 1e-5, "HOLNET 15.2/84.8");
}

/// HOLNET §IV-B: multipath flow with subflows on a 60 Mb/s path and on a 100 Mb/s link shared
/// with a single-path flow, equal log utilities: 60 + 20 and 80 Mb/s (KKT: both used paths of
/// the multipath flow have one price, and the totals are equal).
#[test]
fn holnet_multipath_60_20_80() {
    let text = r#"{"links": [{"id": "a", "capacity_bps": 6e7}, {"id": "b", "capacity_bps": 1e8}],
        "flows": [{"id": "mp", "paths": [["a"], ["b"]], "utility": {"kind": "log", "weight": 1}},
                  {"id": "sp", "paths": [["b"]], "utility": {"kind": "log", "weight": 1}}]}"#;
    let mut p = spec(text);
    let (flows, subs) = reference_rates(&mut p);
    assert_close(&flows, &[8e7, 8e7], 1e-6, "multipath totals (reference)");
    assert_close(
        &subs,
        &[6e7, 2e7, 8e7],
        1e-6,
        "multipath subflows (reference)",
    );
    let mut p = spec(text);
    let (flows, subs) = ned_rates(&mut p);
    assert_close(&flows, &[8e7, 8e7], 1e-4, "multipath totals (NED)");
    assert_close(&subs, &[6e7, 2e7, 8e7], 1e-4, "multipath subflows (NED)");
}
