//! Invariants under every policy and routing: bytes conserved and no link above capacity
//! (asserted by the engine's audit mode after every allocation and completion), every coflow
//! finishes no sooner than alone on the fabric, and runs repeat exactly.

mod common;
use common::dba144;
use dctc_core::fabric::preset;
use dctc_flow::engine::simulate;
use dctc_flow::workload::{parse_trace, BuildSynthetic, BuildTrace, SyntheticSpec, TraceSpec};
use dctc_flow::{make_policy, Net, PolicyConfig, RoutingMode, SimConfig, POLICIES};
use std::path::Path;

fn workload(net: &Net, seed: u64) -> Vec<dctc_flow::CoflowInput> {
    SyntheticSpec {
        coflows: 40,
        load: 0.8,
        width_min: 1,
        width_max: 12,
        cdf: "websearch".into(),
    }
    .build(net, Path::new("."), seed)
    .unwrap()
}

fn run_all(net: &Net, routing: RoutingMode, names: &[&str]) {
    for &name in names {
        let cf = workload(net, 7);
        let sizes: Vec<f64> = cf
            .iter()
            .map(|c| c.flows.iter().map(|f| f.bytes).sum())
            .collect();
        let p = make_policy(&PolicyConfig::named(name), net, &sizes).unwrap();
        let cfg = SimConfig {
            audit: true,
            routing: routing.clone(),
            ..SimConfig::default()
        };
        let r = simulate(net, cf, p, cfg);
        let s = r.summary();
        assert_eq!(s.finished, s.coflows, "{name}: unfinished coflows");
        for c in &r.coflows {
            let cct = c.cct_s.unwrap();
            assert!(
                cct >= c.ideal_s * (1.0 - 1e-9) - 1e-12,
                "{name}/{}: coflow {} CCT {cct} below its isolation bound {}",
                routing.name(),
                c.id,
                c.ideal_s
            );
        }
        for f in &r.flows {
            assert!(
                f.fct_s.unwrap() >= f.ideal_s * (1.0 - 1e-9) - 1e-12,
                "{name}: flow {}",
                f.id
            );
        }
    }
}

#[test]
fn every_policy_keeps_the_invariants() {
    let net = dba144();
    let names: Vec<&str> = POLICIES.iter().map(|p| p.0).collect();
    run_all(&net, RoutingMode::Ecmp, &names);
}

#[test]
fn every_routing_keeps_the_invariants() {
    let net = dba144();
    for r in ["hedera", "conga", "drill"] {
        let mut mode = RoutingMode::from_name(r).unwrap();
        if let RoutingMode::Hedera { period, .. } = &mut mode {
            *period = dctc_core::units::Delta::from_us(200);
        }
        run_all(&net, mode, &["maxmin", "fastpass-c", "dba"]);
    }
}

#[test]
fn same_seed_same_output() {
    let net = dba144();
    for name in ["maxmin", "varys", "dba"] {
        let go = || {
            let cf = workload(&net, 11);
            let p = make_policy(&PolicyConfig::named(name), &net, &[]).unwrap();
            simulate(&net, cf, p, SimConfig::default())
        };
        assert_eq!(go(), go(), "{name}");
    }
    let a = workload(&net, 11);
    let b = workload(&net, 12);
    assert_ne!(a, b);
}

#[test]
fn drill_is_never_slower_than_ecmp_for_maxmin_on_average() {
    // Spreading over every spine removes ECMP collisions; on a 4:1 oversubscribed fabric
    // the average CCT under max-min sharing should not get worse.
    let mut spec = match preset("dba-144").unwrap() {
        dctc_core::fabric::FabricSpec::LeafSpine(s) => s,
        _ => unreachable!(),
    };
    spec.oversubscription = Some(4.0);
    let net = Net::new(dctc_core::fabric::leaf_spine(&spec).unwrap()).unwrap();
    let avg = |routing: RoutingMode| {
        let cf = workload(&net, 3);
        let p = make_policy(&PolicyConfig::named("maxmin"), &net, &[]).unwrap();
        let cfg = SimConfig {
            routing,
            audit: true,
            ..SimConfig::default()
        };
        simulate(&net, cf, p, cfg).summary().avg_cct_s
    };
    let e = avg(RoutingMode::Ecmp);
    let d = avg(RoutingMode::Drill);
    assert!(d <= e * 1.0001, "drill {d} vs ecmp {e}");
}

const TRACE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/coflow/FB2010-1Hr-150-0.txt"
);

#[test]
fn the_facebook_trace_parses_with_its_published_counts() {
    let text = std::fs::read_to_string(TRACE).unwrap();
    let t = parse_trace("fb", &text).unwrap();
    assert_eq!(t.ports, 150);
    assert_eq!(t.coflows.len(), 526);
    let flows: usize = t
        .coflows
        .iter()
        .map(|c| c.mappers.len() * c.reducers.len())
        .sum();
    assert_eq!(flows, 706_397);
    let last = t.coflows.iter().map(|c| c.arrival_ms).fold(0.0, f64::max);
    assert_eq!(last, 3_629_235.0);
}

#[test]
fn malformed_trace_lines_name_file_line_and_reason() {
    let cases = [
        ("150 1\n1 0 1 22 1 65\n", "2", "<port>:<megabytes>"),
        ("150 1\n1 0 2 22 1 65:1.0\n", "2", "not a whole number"),
        ("150 1\n1 zero 1 22 1 65:1.0\n", "2", "arrival `zero`"),
        ("150 2\n1 0 1 22 1 65:1.0\n", "1", "header says 2"),
        ("150 1\n\n1 0 1 151 1 65:1.0\n", "3", "outside 0..150"),
        ("150 1\n1 0 1 22 1 65:1.0 7\n", "2", "extra fields"),
        // Counts in the file are not allocated before the lines bear them out (these
        // aborted with a capacity overflow).
        (
            "150 18446744073709551615\n1 0 1 22 1 65:1.0\n",
            "1",
            "header says",
        ),
        ("150 1\n1 0 18446744073709551615 22\n", "2", "mapper ports"),
        (
            "150 1\n1 0 1 22 4611686018427387904 65:1.0\n",
            "2",
            "all reducers",
        ),
    ];
    for (text, line, reason) in cases {
        let e = parse_trace("t.txt", text).unwrap_err().to_string();
        assert!(e.starts_with(&format!("t.txt:{line}:")), "{e}");
        assert!(e.contains(reason), "{e}");
    }
}

#[test]
fn trace_scaling_keeps_bytes_and_sets_the_load() {
    let net = dba144();
    let text = std::fs::read_to_string(TRACE).unwrap();
    let t = parse_trace("fb", &text).unwrap();
    let spec = |load: f64| TraceSpec {
        path: String::new(),
        load,
        cv: 0.5,
        sizes: Default::default(),
        placement: Default::default(),
        max_coflows: Some(60),
        skip_coflows: 0,
        max_mappers: None,
        max_reducers: None,
        size_scale: 1.0,
        arrivals: Default::default(),
    };
    let full = spec(1.0).build(&t, &net, 1).unwrap();
    let half = spec(0.5).build(&t, &net, 1).unwrap();
    let bytes: f64 = full
        .iter()
        .flat_map(|c| c.flows.iter().map(|f| f.bytes))
        .sum();
    let want: f64 = t.coflows[..60]
        .iter()
        .flat_map(|c| c.reducers.iter().map(|r| r.1 * 1_048_576.0))
        .sum();
    assert!((bytes - want).abs() <= 1e-6 * want, "{bytes} vs {want}");
    let span = |cf: &[dctc_flow::CoflowInput]| {
        cf.iter()
            .map(|c| c.arrival.as_secs_f64())
            .fold(0.0, f64::max)
    };
    let offered = bytes * 8.0 / span(&full) / (144.0 * 10e9);
    assert!((offered - 1.0).abs() < 1e-6, "offered {offered}");
    assert!((span(&half) / span(&full) - 2.0).abs() < 1e-6);
    // Every flow has two distinct hosts and a positive size.
    assert!(full
        .iter()
        .flat_map(|c| &c.flows)
        .all(|f| f.src != f.dst && f.bytes > 0.0 && f.src < 144 && f.dst < 144));
}

#[test]
fn trace_flow_sizes_follow_the_chosen_mean() {
    use dctc_flow::workload::SizeModel;
    let net = dba144();
    // Coflow 1: 2 mappers, reducers of 1 MB and 3 MB; coflow 2: 1 mapper, one 2 MB reducer.
    let t = parse_trace(
        "t",
        "150 2\n1 0 2 10 11 2 20:1.0 21:3.0\n2 5 1 12 1 22:2.0\n",
    )
    .unwrap();
    let spec = |sizes: SizeModel, cv: f64| TraceSpec {
        path: String::new(),
        load: 1.0,
        cv,
        sizes,
        placement: Default::default(),
        max_coflows: None,
        skip_coflows: 0,
        max_mappers: None,
        max_reducers: None,
        size_scale: 1.0,
        arrivals: Default::default(),
    };
    let mb = 1_048_576.0;
    let sizes = |c: &dctc_flow::CoflowInput| c.flows.iter().map(|f| f.bytes).collect::<Vec<_>>();
    // DBA §5.1: every flow of a coflow around total / flows (4 MB / 4 flows).
    let paper = spec(SizeModel::CoflowMean, 0.0).build(&t, &net, 7).unwrap();
    assert_eq!(sizes(&paper[0]), vec![mb; 4]);
    assert_eq!(sizes(&paper[1]), vec![2.0 * mb]);
    // Per reducer: 0.5 MB twice, then 1.5 MB twice.
    let per_reducer = spec(SizeModel::ReducerMean, 0.0)
        .build(&t, &net, 7)
        .unwrap();
    assert_eq!(
        sizes(&per_reducer[0]),
        vec![0.5 * mb, 0.5 * mb, 1.5 * mb, 1.5 * mb]
    );
    // With spread, the coflow model mixes the reducers' bytes but keeps the coflow's total.
    let spread = spec(SizeModel::CoflowMean, 0.5).build(&t, &net, 7).unwrap();
    let s = sizes(&spread[0]);
    assert!((s.iter().sum::<f64>() - 4.0 * mb).abs() < 1e-6 * mb);
    assert!(s.windows(2).any(|w| w[0] != w[1]), "{s:?}");
    // The default is the paper's.
    assert_eq!(SizeModel::default(), SizeModel::CoflowMean);
}
