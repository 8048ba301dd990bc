//! Property tests on random small instances.

use dctc_num::normalize::{f_norm, link_ratios, u_norm};
use dctc_num::reference::{self, Status};
use dctc_num::solver::{run_to_convergence, Ned, RunStatus, State};
use dctc_num::{Csr, NumFlow, Problem, Utility};
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Instance {
    capacities: Vec<f64>,
    flows: Vec<(Vec<usize>, Utility)>,
}

fn instance() -> impl Strategy<Value = Instance> {
    (1usize..5).prop_flat_map(|links| {
        let caps = prop::collection::vec(1.0f64..10.0, links);
        let flow = (
            prop::collection::btree_set(0..links, 1..=links.min(3)),
            0.5f64..4.0,
            prop_oneof![Just(1.0f64), 0.5f64..3.0],
        )
            .prop_map(|(path, w, alpha)| {
                // Alpha-fair weights put U'(1 Gb/s) on the same scale as a log utility's, as a
                // real configuration would (see the reference solver's docs).
                let u = if alpha == 1.0 {
                    Utility::Log { weight: w }
                } else {
                    Utility::Alpha {
                        weight: w * 1e9f64.powf(alpha - 1.0),
                        alpha,
                    }
                };
                (path.into_iter().collect::<Vec<_>>(), u)
            });
        (caps, prop::collection::vec(flow, 1..7))
            .prop_map(|(capacities, flows)| Instance { capacities, flows })
    })
}

fn build(inst: &Instance) -> Problem {
    let mut p = Problem::new(1e9);
    for (i, c) in inst.capacities.iter().enumerate() {
        p.add_link(format!("l{i}"), c * 1e9).unwrap();
    }
    for (i, (path, u)) in inst.flows.iter().enumerate() {
        p.add_flow(NumFlow::new(format!("f{i}"), path.clone(), *u))
            .unwrap();
    }
    p
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn converged_ned_matches_reference(inst in instance()) {
        let mut p = build(&inst);
        let sol = reference::solve(&mut p);
        prop_assert_eq!(sol.status, Status::Solved);
        let mut ned = Ned::default();
        let mut st = State::new(&p, 1.0);
        let status = run_to_convergence(&mut ned, &mut p, &mut st, 1e-10, 20_000);
        prop_assert_eq!(status, RunStatus::Converged);
        for (x, r) in st.flow_rates_bps(&p).iter().zip(&sol.flow_rate_bps) {
            prop_assert!((x - r).abs() <= 1e-3 * r, "ned {} vs reference {} on {:?}", x, r, inst);
        }
    }

    #[test]
    fn reference_prices_satisfy_stationarity(inst in instance()) {
        // Single-path flows with no bounds: U'(x_s) = sum of the prices on the path, and
        // prices vanish on links with slack.
        let mut p = build(&inst);
        let sol = reference::solve(&mut p);
        prop_assert_eq!(sol.status, Status::Solved);
        let unit = p.rate_unit();
        let load = p.link_load_bps(&sol.sub_rate_bps);
        for (f, (path, u)) in inst.flows.iter().enumerate() {
            let q: f64 = path.iter().map(|&l| sol.prices[l] / unit).sum();
            let m = u.marginal(sol.flow_rate_bps[f]);
            prop_assert!((m - q).abs() <= 1e-6 * m, "flow {}: U' {} vs path price {}", f, m, q);
        }
        for (l, c) in inst.capacities.iter().enumerate() {
            if load[l] < c * 1e9 * (1.0 - 1e-6) {
                prop_assert_eq!(sol.prices[l], 0.0);
            }
        }
    }

    #[test]
    fn f_norm_never_leaves_a_link_over(
        inst in instance(),
        rates in prop::collection::vec(0.0f64..20.0, 6),
    ) {
        let paths = Csr::from_rows(inst.flows.iter().map(|(p, _)| p.iter().map(|&l| l as u32).collect::<Vec<_>>()));
        let mut x: Vec<f64> = rates[..inst.flows.len()].to_vec();
        f_norm(&inst.capacities, &paths, &mut x);
        for r in link_ratios(&inst.capacities, &paths, &x) {
            prop_assert!(r <= 1.0 + 1e-12, "ratio {}", r);
        }
    }

    #[test]
    fn u_norm_keeps_ratios_and_fills_the_worst_link(
        inst in instance(),
        rates in prop::collection::vec(0.01f64..20.0, 6),
    ) {
        let paths = Csr::from_rows(inst.flows.iter().map(|(p, _)| p.iter().map(|&l| l as u32).collect::<Vec<_>>()));
        let before: Vec<f64> = rates[..inst.flows.len()].to_vec();
        let mut x = before.clone();
        u_norm(&inst.capacities, &paths, &mut x);
        let k = x[0] / before[0];
        for (a, b) in x.iter().zip(&before) {
            prop_assert!((a / b - k).abs() <= 1e-12 * k);
        }
        let worst = link_ratios(&inst.capacities, &paths, &x).into_iter().fold(0.0, f64::max);
        prop_assert!((worst - 1.0).abs() < 1e-12);
    }
}
