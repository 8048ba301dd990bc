//! Oracle tests: KKT conditions of NUM (Flowtune eq. 2 with Lagrangian eq. 5) checked on
//! random instances for the reference optimum and for converged NED (Flowtune Alg. 1), with
//! U' computed here from the utility definitions. Instances come from a small fixed-seed
//! generator (splitmix64), so failures reproduce.
//!
//! For rates x (b/s) and prices p (utility per b/s) the conditions are
//! - primal feasibility: sum_{s in S(l)} x_s <= c_l;
//! - dual feasibility: p_l >= 0;
//! - complementary slackness: p_l (c_l - load_l) = 0, checked in aggregate as
//!   sum_l p_l (c_l - load_l) <= tol * sum_s x_s U'(x_s) (scale-free; the duality gap);
//! - stationarity: U'(x_s) = sum_{l in L(s)} p_l for every flow.

mod common;
use common::Rng;
use dctc_num::reference::{self, Status};
use dctc_num::solver::{run_to_convergence, Ned, RunStatus, State};
use dctc_num::{NumFlow, Problem, Utility};

#[derive(Clone, Copy, Debug)]
enum Family {
    Log,
    Alpha(f64),
}

/// My own U'(x) for x in b/s, from the definitions: w log x -> w/x; w x^(1-a)/(1-a) -> w x^-a.
fn marginal(u: &Utility, x: f64) -> f64 {
    match *u {
        Utility::Log { weight } => weight / x,
        Utility::Alpha { weight, alpha } => weight * x.powf(-alpha),
        _ => unreachable!("generator makes only log and alpha utilities"),
    }
}

struct Instance {
    caps: Vec<f64>,
    paths: Vec<Vec<usize>>,
    utils: Vec<Utility>,
}

fn instance(rng: &mut Rng, family: Family) -> Instance {
    let nl = 3 + rng.below(5);
    let nf = 2 + rng.below(9);
    let caps: Vec<f64> = (0..nl).map(|_| 1e9 * (1.0 + 9.0 * rng.unit())).collect();
    let mut paths = Vec::new();
    let mut utils = Vec::new();
    for _ in 0..nf {
        let len = 1 + rng.below(3.min(nl));
        paths.push(rng.distinct(nl, len));
        let w = 0.25 + 3.75 * rng.unit();
        utils.push(match family {
            Family::Log => Utility::Log { weight: w },
            // Weights in (1 Gb/s)^alpha units keep U' O(1) in Gb/s.
            Family::Alpha(alpha) => Utility::Alpha {
                weight: w * 1e9f64.powf(alpha),
                alpha,
            },
        });
    }
    Instance { caps, paths, utils }
}

fn build(inst: &Instance) -> Problem {
    let unit = inst.caps.iter().cloned().fold(0.0, f64::max);
    let mut p = Problem::new(unit);
    for (i, &c) in inst.caps.iter().enumerate() {
        p.add_link(format!("l{i}"), c).unwrap();
    }
    for (i, (path, u)) in inst.paths.iter().zip(&inst.utils).enumerate() {
        p.add_flow(NumFlow::new(format!("f{i}"), path.clone(), *u))
            .unwrap();
    }
    p
}

/// Checks KKT for flow rates `x` (b/s) and prices `p` (per b/s). Links that carry no flow are
/// skipped: they constrain nothing and a dual solver has no information to move their price.
fn check_kkt(inst: &Instance, x: &[f64], p: &[f64], stat_tol: f64, cs_tol: f64, what: &str) {
    let nl = inst.caps.len();
    let mut load = vec![0.0; nl];
    let mut used = vec![false; nl];
    for (path, &xs) in inst.paths.iter().zip(x) {
        assert!(xs > 0.0 && xs.is_finite(), "{what}: rate {xs}");
        for &l in path {
            load[l] += xs;
            used[l] = true;
        }
    }
    for l in 0..nl {
        assert!(
            load[l] <= inst.caps[l] * (1.0 + 1e-6),
            "{what}: link {l} load {:e} > capacity {:e}",
            load[l],
            inst.caps[l]
        );
        assert!(p[l] >= 0.0, "{what}: price {l} = {}", p[l]);
    }
    let scale: f64 = x
        .iter()
        .zip(&inst.utils)
        .map(|(&xs, u)| xs * marginal(u, xs))
        .sum();
    let cs: f64 = (0..nl)
        .filter(|&l| used[l])
        .map(|l| p[l] * (inst.caps[l] - load[l]).abs())
        .sum();
    assert!(
        cs <= cs_tol * scale,
        "{what}: complementary slackness sum p (c - load) = {cs:e} vs scale {scale:e}; \
         prices {p:?} load {load:?} caps {:?}",
        inst.caps
    );
    for (s, (path, u)) in inst.paths.iter().zip(&inst.utils).enumerate() {
        let q: f64 = path.iter().map(|&l| p[l]).sum();
        let m = marginal(u, x[s]);
        assert!(
            (m - q).abs() <= stat_tol * m,
            "{what}: flow {s}: U'(x) = {m:e} but path price {q:e}"
        );
    }
}

fn families() -> [Family; 3] {
    [Family::Log, Family::Alpha(0.5), Family::Alpha(2.0)]
}

/// Converged NED rates and prices for an instance (checked for convergence).
fn ned(inst: &Instance, what: &str) -> (Vec<f64>, Vec<f64>) {
    let mut p = build(inst);
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    let status = run_to_convergence(&mut ned, &mut p, &mut st, 1e-9, 100_000);
    assert_eq!(status, RunStatus::Converged, "{what}");
    let prices: Vec<f64> = st.prices.iter().map(|q| q / p.rate_unit()).collect();
    (st.flow_rates_bps(&p), prices)
}

/// The reference rates are optimal: together with multipliers (taken from converged NED, whose
/// own KKT residuals are checked below) they satisfy every KKT condition, which certifies
/// optimality whatever produced the multipliers.
#[test]
fn reference_rates_satisfy_kkt() {
    let mut rng = Rng::new(0x5eed_0001);
    for family in families() {
        for case in 0..40 {
            let inst = instance(&mut rng, family);
            let mut p = build(&inst);
            let sol = reference::solve(&mut p);
            assert_eq!(sol.status, Status::Solved, "{family:?} case {case}");
            let what = format!("reference {family:?} case {case}");
            let (_, prices) = ned(&inst, &what);
            check_kkt(&inst, &sol.flow_rate_bps, &prices, 1e-6, 1e-6, &what);
            // The reported objective is sum U(x) at the reported rates.
            let obj: f64 = inst
                .utils
                .iter()
                .zip(&sol.flow_rate_bps)
                .map(|(u, &x)| u.value(x))
                .sum();
            assert!((obj - sol.objective).abs() <= 1e-9 * obj.abs().max(1.0));
        }
    }
}

/// The reference's own reported prices satisfy every KKT condition too. (Found off by up to
/// ~100% before 092e2fc: barrier estimates 1/(t g) lost digits at a 1e-12 gap.)
#[test]
fn reference_prices_satisfy_stationarity() {
    let mut rng = Rng::new(0x5eed_0001);
    for family in families() {
        for case in 0..40 {
            let inst = instance(&mut rng, family);
            let mut p = build(&inst);
            let sol = reference::solve(&mut p);
            assert_eq!(sol.status, Status::Solved, "{family:?} case {case}");
            let prices: Vec<f64> = sol.prices.iter().map(|q| q / p.rate_unit()).collect();
            check_kkt(
                &inst,
                &sol.flow_rate_bps,
                &prices,
                1e-6,
                1e-6,
                &format!("reference prices {family:?} case {case}"),
            );
        }
    }
}

#[test]
fn converged_ned_satisfies_kkt_and_matches_reference() {
    let mut rng = Rng::new(0x5eed_0002);
    for family in families() {
        for case in 0..40 {
            let inst = instance(&mut rng, family);
            let what = format!("NED {family:?} case {case}");
            let (x, prices) = ned(&inst, &what);
            check_kkt(&inst, &x, &prices, 1e-6, 1e-6, &what);
            let mut p2 = build(&inst);
            let sol = reference::solve(&mut p2);
            assert_eq!(sol.status, Status::Solved);
            for (s, (a, b)) in x.iter().zip(&sol.flow_rate_bps).enumerate() {
                assert!(
                    (a - b).abs() <= 1e-3 * b,
                    "{what}: flow {s}: NED {a:e} vs reference {b:e}"
                );
            }
        }
    }
}

/// Strong duality (Flowtune §3, Slater): the dual function D(p) = max_x L(x, p) (eq. 6),
/// evaluated here with x_s = (U')^-1(q_s) computed by hand at converged NED prices, equals the
/// reference's primal objective (and is never below it: weak duality).
#[test]
fn ned_prices_close_the_duality_gap() {
    let mut rng = Rng::new(0x5eed_0003);
    for case in 0..30 {
        let inst = instance(&mut rng, Family::Log);
        let mut p = build(&inst);
        let sol = reference::solve(&mut p);
        assert_eq!(sol.status, Status::Solved);
        let (_, prices) = ned(&inst, &format!("case {case}"));
        // Empty links: no flow, so their price only adds p c to D; drop it (p = 0 is optimal).
        let mut used = vec![false; inst.caps.len()];
        inst.paths.iter().flatten().for_each(|&l| used[l] = true);
        let prices: Vec<f64> = prices
            .iter()
            .zip(&used)
            .map(|(&q, &u)| if u { q } else { 0.0 })
            .collect();
        let mut dual: f64 = prices.iter().zip(&inst.caps).map(|(q, c)| q * c).sum();
        for (path, u) in inst.paths.iter().zip(&inst.utils) {
            let q: f64 = path.iter().map(|&l| prices[l]).sum();
            let Utility::Log { weight } = *u else {
                unreachable!()
            };
            let x = weight / q; // (U')^-1 for w log x
            dual += weight * x.ln() - q * x;
        }
        let n = inst.utils.len() as f64;
        // Gap relative to the number of flows (each log term's scale is its weight ~ 1).
        assert!(
            (dual - sol.objective).abs() <= 1e-6 * n,
            "case {case}: dual {dual} primal {}",
            sol.objective
        );
        assert!(dual >= sol.objective - 1e-9 * n, "weak duality");
    }
}

struct Multi {
    caps: Vec<f64>,
    paths: Vec<Vec<Vec<usize>>>,
    weights: Vec<f64>,
}

/// Log-utility instances where about half the flows have two or three paths (HOLNET eq. 10:
/// the utility is of the subflows' total).
fn multi(rng: &mut Rng) -> Multi {
    let nl = 3 + rng.below(5);
    let nf = 2 + rng.below(7);
    let caps: Vec<f64> = (0..nl).map(|_| 1e9 * (1.0 + 9.0 * rng.unit())).collect();
    let mut paths = Vec::new();
    let mut weights = Vec::new();
    for _ in 0..nf {
        let np = if rng.below(2) == 0 {
            1
        } else {
            2 + rng.below(2)
        };
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
        weights.push(0.25 + 3.75 * rng.unit());
    }
    Multi {
        caps,
        paths,
        weights,
    }
}

fn build_multi(m: &Multi) -> Problem {
    let mut p = Problem::new(1e10);
    for (i, &c) in m.caps.iter().enumerate() {
        p.add_link(format!("l{i}"), c).unwrap();
    }
    for (i, (fp, &w)) in m.paths.iter().zip(&m.weights).enumerate() {
        let mut spec = NumFlow::new(format!("f{i}"), fp[0].clone(), Utility::Log { weight: w });
        spec.paths = fp.clone();
        p.add_flow(spec).unwrap();
    }
    p
}

/// Multipath KKT (subflow rates y_k >= 0, x = sum_k y_k): primal feasibility; for every path
/// k of flow s, q_k >= U'(x_s), with equality where y_k > 0 (here: y_k > 1e-3 x_s);
/// complementary slackness on links.
fn check_multi(m: &Multi, sub: &[f64], p: &[f64], tol: f64, what: &str) {
    let nl = m.caps.len();
    let mut load = vec![0.0; nl];
    let mut used = vec![false; nl];
    let mut s = 0;
    let mut scale = 0.0;
    let mut flows = Vec::new();
    for (fp, &w) in m.paths.iter().zip(&m.weights) {
        let x: f64 = sub[s..s + fp.len()].iter().sum();
        flows.push(x);
        scale += w; // x U'(x) = w for log
        for (k, path) in fp.iter().enumerate() {
            assert!(sub[s + k] >= 0.0, "{what}: negative subflow");
            for &l in path {
                load[l] += sub[s + k];
                used[l] = true;
            }
        }
        s += fp.len();
    }
    for (l, (x, c)) in load.iter().zip(&m.caps).enumerate() {
        assert!(
            *x <= c * (1.0 + 1e-6),
            "{what}: link {l} load {x:e} > {c:e}"
        );
    }
    let cs: f64 = (0..nl)
        .filter(|&l| used[l])
        .map(|l| p[l] * (m.caps[l] - load[l]).abs())
        .sum();
    assert!(cs <= 1e-6 * scale, "{what}: complementary slackness {cs:e}");
    let mut s = 0;
    for (f, (fp, &w)) in m.paths.iter().zip(&m.weights).enumerate() {
        let mu = w / flows[f];
        for (k, path) in fp.iter().enumerate() {
            let q: f64 = path.iter().map(|&l| p[l]).sum();
            assert!(
                q >= mu * (1.0 - tol),
                "{what}: flow {f} path {k}: price {q:e} below U' {mu:e}: a cheaper path is unused"
            );
            if sub[s + k] > 1e-3 * flows[f] {
                assert!(
                    (q - mu).abs() <= tol * mu,
                    "{what}: flow {f} path {k} carries {:e} at price {q:e} != U' {mu:e}",
                    sub[s + k]
                );
            }
        }
        s += fp.len();
    }
}

#[test]
fn multipath_reference_satisfies_kkt() {
    let mut rng = Rng::new(0x5eed_0004);
    for case in 0..40 {
        let m = multi(&mut rng);
        let mut p = build_multi(&m);
        let sol = reference::solve(&mut p);
        assert_eq!(sol.status, Status::Solved, "case {case}");
        let prices: Vec<f64> = sol.prices.iter().map(|q| q / p.rate_unit()).collect();
        check_multi(
            &m,
            &sol.sub_rate_bps,
            &prices,
            1e-5,
            &format!("reference case {case}"),
        );
    }
}

/// NED on multipath instances: whenever it reports `Converged`, its flow totals are within
/// 1e-3 of the reference (subflow splits may differ where the optimum's split is not unique)
/// and KKT holds at its own point. (That it converges on every instance: the next two tests.)
#[test]
fn multipath_ned_is_right_when_it_says_converged() {
    let mut rng = Rng::new(0x5eed_0004);
    let mut converged = 0;
    for case in 0..40 {
        let m = multi(&mut rng);
        let mut p = build_multi(&m);
        let sol = reference::solve(&mut p);
        assert_eq!(sol.status, Status::Solved, "case {case}");
        let mut p = build_multi(&m);
        let mut ned = Ned::default();
        let mut st = State::new(&p, 1.0);
        let status = run_to_convergence(&mut ned, &mut p, &mut st, 1e-9, 10_000);
        let what = format!("NED multipath case {case}");
        if status != RunStatus::Converged {
            continue;
        }
        converged += 1;
        let x = st.flow_rates_bps(&p);
        for (f, (a, b)) in x.iter().zip(&sol.flow_rate_bps).enumerate() {
            assert!(
                (a - b).abs() <= 1e-3 * b,
                "{what}: flow {f}: NED {a:e} vs reference {b:e}"
            );
        }
        let prices: Vec<f64> = st.prices.iter().map(|q| q / p.rate_unit()).collect();
        check_multi(&m, &st.sub_rates_bps(&p), &prices, 1e-3, &what);
    }
    assert!(converged >= 30, "only {converged}/40 converged");
}

/// NED should converge on every multipath instance (the property: converged NED within
/// 1e-3 of the reference). (Finding, fixed by the proximal multipath rate update in
/// `solver.rs`: with the earlier split heuristic 7 of these 40 hit the cap, 3 of them (cases
/// 12, 23, 25) with no two links with identical subflow sets.)
#[test]
fn multipath_ned_converges_and_matches_reference() {
    let mut rng = Rng::new(0x5eed_0004);
    for case in 0..40 {
        let m = multi(&mut rng);
        let mut p = build_multi(&m);
        let sol = reference::solve(&mut p);
        assert_eq!(sol.status, Status::Solved, "case {case}");
        let mut p = build_multi(&m);
        let mut ned = Ned::default();
        let mut st = State::new(&p, 1.0);
        let status = run_to_convergence(&mut ned, &mut p, &mut st, 1e-9, 200_000);
        let what = format!("NED multipath case {case}");
        assert_eq!(status, RunStatus::Converged, "{what}");
        let x = st.flow_rates_bps(&p);
        for (f, (a, b)) in x.iter().zip(&sol.flow_rate_bps).enumerate() {
            assert!(
                (a - b).abs() <= 1e-3 * b,
                "{what}: flow {f}: NED {a:e} vs reference {b:e}"
            );
        }
    }
}

/// Case 12 of the generator on its own: 5 links, 3 flows of 3 paths each, no two links with
/// the same subflow set. Reference (KKT-certified above): 6.398 / 8.799 / 1.970 Gb/s. (Finding,
/// fixed: NED with the earlier split heuristic was at 7.5 / 7.8 / 6.3 Gb/s after 200k
/// iterations.)
#[test]
fn multipath_ned_case_12() {
    let m = Multi {
        caps: vec![
            3045292876.860161,
            8207968220.731722,
            4907160163.44295,
            4051943730.3993816,
            6130964932.223302,
        ],
        paths: vec![
            vec![vec![1, 4], vec![0, 1], vec![3]],
            vec![vec![0, 3], vec![2], vec![3]],
            vec![vec![3], vec![1], vec![2, 3]],
        ],
        weights: vec![2.6905719997041557, 3.7005094762657187, 0.8286758185086399],
    };
    let mut p = build_multi(&m);
    let sol = reference::solve(&mut p);
    assert_eq!(sol.status, Status::Solved);
    let prices: Vec<f64> = sol.prices.iter().map(|q| q / p.rate_unit()).collect();
    check_multi(&m, &sol.sub_rate_bps, &prices, 1e-5, "reference case 12");
    let mut p = build_multi(&m);
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    let status = run_to_convergence(&mut ned, &mut p, &mut st, 1e-9, 200_000);
    let x = st.flow_rates_bps(&p);
    for (f, (a, b)) in x.iter().zip(&sol.flow_rate_bps).enumerate() {
        assert!(
            (a - b).abs() <= 1e-3 * b,
            "flow {f}: NED {a:e} vs reference {b:e} ({status:?})"
        );
    }
}
