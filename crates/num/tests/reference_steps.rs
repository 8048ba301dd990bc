//! The reference solver's Newton work: each centring stops once Newton's decrement reaches
//! its rounding floor, instead of jittering to the 200-step cap (which it did in every
//! centring from t ~ 1e8 on: 1258 steps on the instance below, 95 now).

mod common;

use common::Rng;
use dctc_num::reference::{self, Status};
use dctc_num::{NumFlow, Problem, Utility};

/// 30 links, 50 log-utility flows of 1-3 paths of 1-3 links (96 subflows), a quarter of the
/// flows with a 1 Mb/s minimum.
fn instance() -> Problem {
    let mut rng = Rng::new(7);
    let nl = 30;
    let mut p = Problem::new(1e10);
    for l in 0..nl {
        p.add_link(format!("l{l}"), 1e9 * (1.0 + 9.0 * rng.unit()))
            .unwrap();
    }
    for f in 0..50 {
        let np = 1 + rng.below(3);
        let mut fp: Vec<Vec<usize>> = Vec::new();
        while fp.len() < np {
            let len = 1 + rng.below(3);
            let path = rng.distinct(nl, len);
            if !fp.contains(&path) {
                fp.push(path);
            }
        }
        let w = 0.5 + rng.unit();
        let mut s = NumFlow::new(format!("f{f}"), fp[0].clone(), Utility::Log { weight: w });
        s.paths = fp;
        if rng.below(4) == 0 {
            s.min_bps = 1e6;
        }
        p.add_flow(s).unwrap();
    }
    p
}

#[test]
fn centring_stops_at_the_rounding_floor() {
    let mut p = instance();
    assert_eq!(p.subflow_count(), 96);
    let sol = reference::solve(&mut p);
    assert_eq!(sol.status, Status::Solved);
    assert!(sol.newton_steps <= 200, "{} Newton steps", sol.newton_steps);
    assert!(sol.kkt_residual < 1e-10, "{}", sol.kkt_residual);
    // Feasible, minimums met.
    assert!(p.max_overload_bps(&sol.sub_rate_bps) <= 1e-3);
    for (f, &x) in sol.flow_rate_bps.iter().enumerate() {
        assert!(x >= p.min_bps()[f] * (1.0 - 1e-9), "flow {f}");
    }
    // KKT with the solver's prices (rate units): every path of a flow above its minimum costs
    // at least U'(x) = w / x, and exactly that where it carries traffic.
    let unit = p.rate_unit();
    for f in 0..p.flows() {
        let x = sol.flow_rate_bps[f];
        if x <= p.min_bps()[f] * (1.0 + 1e-6) {
            continue;
        }
        let mu = p.utilities()[f].weight() * unit / x;
        for s in p.subflows(f) {
            let q: f64 = p
                .paths()
                .row(s)
                .iter()
                .map(|&l| sol.prices[l as usize])
                .sum();
            assert!(q >= mu * (1.0 - 1e-6), "flow {f}: cheaper path unused");
            if sol.sub_rate_bps[s] > 1e-3 * x {
                assert!(
                    (q - mu).abs() <= 1e-6 * mu,
                    "flow {f}: used path price {q} != {mu}"
                );
            }
        }
    }
}
