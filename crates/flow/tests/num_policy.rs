//! The `num` policy: NUM optima with closed forms on a line network, the alpha -> infinity
//! limit (max-min), the fabric invariants, and its configuration errors.

mod common;
use dctc_core::fabric::preset;
use dctc_core::units::SimTime;
use dctc_flow::engine::simulate;
use dctc_flow::policy::num::{NumConfig, UtilityConfig};
use dctc_flow::workload::{BuildSynthetic, SyntheticSpec};
use dctc_flow::{
    make_policy, CoflowInput, FlowError, FlowInput, Net, PolicyConfig, PolicyKeys, SimConfig,
};
use dctc_num::spec::UtilitySpec;
use std::path::Path;

/// Two racks of two hosts, one spine, every link 1 Gb/s.
fn line() -> Net {
    common::leaf_spine_net(2, 2, 1, 1.0, 1.0)
}

/// One "data unit" = what a 1 Gb/s link carries in one second.
const UNIT: f64 = 125e6;

/// The line network: a long flow 0 -> 2 shares host 0's uplink with a short flow 0 -> 1 and
/// host 2's downlink with a short flow 3 -> 2 (each flow its own coflow, ids 0 long, 1 and 2
/// short). Long 3 units, shorts 2 units.
fn line_flows() -> Vec<CoflowInput> {
    [(0, 2, 3.0), (0, 1, 2.0), (3, 2, 2.0)]
        .iter()
        .enumerate()
        .map(|(i, &(src, dst, units))| CoflowInput {
            id: i as u32,
            arrival: SimTime::ZERO,
            flows: vec![FlowInput {
                src,
                dst,
                bytes: units * UNIT,
            }],
        })
        .collect()
}

fn num_cfg(utility: UtilitySpec) -> PolicyConfig {
    PolicyConfig::new(PolicyKeys::Num(NumConfig {
        utility: Some(UtilityConfig(utility)),
        ..NumConfig::default()
    }))
}

fn ccts(net: &Net, cfg: &PolicyConfig, cf: Vec<CoflowInput>) -> Vec<f64> {
    let p = make_policy(cfg, net, &[]).unwrap();
    let r = simulate(
        net,
        cf,
        p,
        SimConfig {
            audit: true,
            ..SimConfig::default()
        },
    );
    r.coflows.iter().map(|c| c.cct_s.unwrap()).collect()
}

#[test]
fn log_utility_on_a_line_gives_a_third_and_two_thirds() {
    // Proportional fairness: long c/3, shorts 2c/3. Shorts (2 units) finish at 3 s; the long
    // flow has then sent 1 unit and finishes its 2 remaining alone at c: 5 s.
    let net = line();
    let c = ccts(&net, &PolicyConfig::named("num"), line_flows());
    assert!(
        (c[1] - 3.0).abs() < 1e-4 && (c[2] - 3.0).abs() < 1e-4,
        "{c:?}"
    );
    assert!((c[0] - 5.0).abs() < 1e-4, "{c:?}");
    // Max-min would give every flow c/2 (shorts at 4 s).
    let m = ccts(&net, &PolicyConfig::named("maxmin"), line_flows());
    assert!((m[1] - 4.0).abs() < 1e-6, "{m:?}");
}

/// Shorts' completion on the line under alpha-fairness: the long flow gets
/// `x = 1 / (1 + 2^(1/alpha))` (from `x^-alpha = 2 (1 - x)^-alpha`), shorts `1 - x`.
fn alpha_short_cct(alpha: f64) -> f64 {
    let k = 2f64.powf(1.0 / alpha);
    2.0 / (k / (1.0 + k))
}

#[test]
fn alpha_fair_on_a_line_matches_the_closed_form_and_tends_to_maxmin() {
    let net = line();
    let mut gaps = Vec::new();
    for alpha in [2.0, 4.0, 16.0] {
        let c = ccts(
            &net,
            &num_cfg(UtilitySpec::Alpha { weight: 1.0, alpha }),
            line_flows(),
        );
        let want = alpha_short_cct(alpha);
        assert!(
            (c[1] - want).abs() < 1e-3 * want,
            "alpha {alpha}: {c:?} vs {want}"
        );
        gaps.push((c[1] - 4.0).abs());
    }
    // Max-min's 4 s is the alpha -> infinity limit: the gap shrinks with alpha.
    assert!(gaps[0] > gaps[1] && gaps[1] > gaps[2], "{gaps:?}");
    assert!(gaps[2] < 0.1, "{gaps:?}");
}

#[test]
fn large_alpha_approaches_maxmin_on_a_fabric_workload() {
    let net = Net::new(preset("dba-144").unwrap().build(Path::new(".")).unwrap()).unwrap();
    let cf = || {
        SyntheticSpec {
            coflows: 20,
            load: 0.8,
            width_min: 1,
            width_max: 6,
            cdf: "websearch".into(),
        }
        .build(&net, Path::new("."), 3)
        .unwrap()
    };
    let mm = ccts(&net, &PolicyConfig::named("maxmin"), cf());
    let mean_gap = |c: &[f64]| {
        c.iter()
            .zip(&mm)
            .map(|(a, b)| (a - b).abs() / b)
            .sum::<f64>()
            / mm.len() as f64
    };
    let log = mean_gap(&ccts(&net, &PolicyConfig::named("num"), cf()));
    let a8 = mean_gap(&ccts(
        &net,
        &num_cfg(UtilitySpec::Alpha {
            weight: 1.0,
            alpha: 8.0,
        }),
        cf(),
    ));
    assert!(a8 < log, "alpha 8 gap {a8} not below log gap {log}");
    assert!(a8 < 0.02, "alpha 8: mean relative CCT gap to maxmin {a8}");
}

#[test]
fn configuration_errors_name_the_key() {
    let net = line();
    let bad = num_cfg(UtilitySpec::Alpha {
        weight: 1.0,
        alpha: -1.0,
    });
    match make_policy(&bad, &net, &[]) {
        Err(FlowError::Invalid(e)) => assert_eq!(e.path, "utility.alpha"),
        other => panic!("{:?}", other.err()),
    }
    let cfg = PolicyConfig::new(PolicyKeys::Num(NumConfig {
        tolerance: Some(0.0),
        ..NumConfig::default()
    }));
    assert!(
        matches!(make_policy(&cfg, &net, &[]), Err(FlowError::Invalid(e)) if e.path == "tolerance")
    );
}

#[test]
fn rates_match_the_reference_optimum_on_a_fabric() {
    // 10 coflows (38 flows) on dba-144, all present at t = 0: the rates `num` gives right
    // after t = 0 against dctc-num's interior-point reference for the same paths.
    use dctc_core::units::Delta;
    use dctc_flow::Simulator;
    use dctc_num::{NumFlow, Problem, Utility};
    let net = Net::new(preset("dba-144").unwrap().build(Path::new(".")).unwrap()).unwrap();
    let mut cf = SyntheticSpec {
        coflows: 10,
        load: 0.8,
        width_min: 1,
        width_max: 5,
        cdf: "websearch".into(),
    }
    .build(&net, Path::new("."), 5)
    .unwrap();
    for c in &mut cf {
        c.arrival = SimTime::ZERO;
        for f in &mut c.flows {
            f.bytes = 1e9;
        }
    }
    let utility = Utility::Alpha {
        weight: 1.0,
        alpha: 2.0,
    };
    let cfg = num_cfg(UtilitySpec::Alpha {
        weight: 1.0,
        alpha: 2.0,
    });
    let p = make_policy(&cfg, &net, &[]).unwrap();
    let mut sim = Simulator::new(&net, cf, p, SimConfig::default());
    sim.advance(SimTime::ZERO + Delta::from_us(1), &mut |_| {});
    let n = sim.flows.len();
    assert!(n >= 10, "{n} flows");
    let mut prob = Problem::new(40e9);
    for (l, &c) in net.cap.iter().enumerate() {
        prob.add_link(format!("l{l}"), c).unwrap();
    }
    for f in 0..n {
        let path = sim.flows.hops(f).iter().map(|h| h.link as usize).collect();
        prob.add_flow(NumFlow::new(format!("f{f}"), path, utility))
            .unwrap();
    }
    let sol = dctc_num::reference::solve(&mut prob);
    assert_eq!(sol.status, dctc_num::reference::Status::Solved);
    for f in 0..n {
        let (ours, opt) = (sim.flows.rate[f], sol.flow_rate_bps[f]);
        assert!(
            (ours - opt).abs() <= 1e-3 * opt,
            "flow {f}: num {ours:.6e} vs reference {opt:.6e}"
        );
    }
}
