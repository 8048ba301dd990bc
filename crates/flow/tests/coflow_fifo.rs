//! Coflow FIFO and Varys with and without back-filling on hand-made traces with known CCTs,
//! and the coflow-speed re-solves (only at coflow-level decisions) against re-solving at
//! every flow completion.

mod common;
use common::{ccts, coflow, fig1_fabric, star, TU};
use dctc_core::rng::{component_rng, streams};
use dctc_core::units::{Delta, SimTime};
use dctc_flow::engine::simulate;
use dctc_flow::policy::View;
use dctc_flow::{make_policy, CoflowInput, Net, PolicyConfig, RunResult, SimConfig, Simulator};
use rand::Rng;

fn sizes(cf: &[CoflowInput]) -> Vec<f64> {
    cf.iter()
        .map(|c| c.flows.iter().map(|f| f.bytes).sum())
        .collect()
}

fn run(net: &Net, name: &str, cf: Vec<CoflowInput>) -> RunResult {
    let p = make_policy(&PolicyConfig::named(name), net, &sizes(&cf)).unwrap();
    let cfg = SimConfig {
        audit: true,
        ..SimConfig::default()
    };
    simulate(net, cf, p, cfg)
}

fn assert_ccts(r: &RunResult, want: &[f64]) {
    let got = ccts(r);
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 1e-6,
            "{}: got {got:?}, want {want:?}",
            r.policy
        );
    }
}

/// Bytes moved over the makespan (first arrival to last finish), b/s.
fn throughput(r: &RunResult) -> f64 {
    let bytes: f64 = r.coflows.iter().map(|c| c.bytes).sum();
    let end = r
        .coflows
        .iter()
        .map(|c| c.finish_s.unwrap())
        .fold(0.0, f64::max);
    bytes * 8.0 / end
}

#[test]
fn three_coflows_on_two_ports_fifo_serves_in_arrival_order_varys_smallest_first() {
    // One sender port (h0 up) and one receiver port (h1 down), all coflows at t = 0:
    // A = 3 units, B = 1, C = 2 (arrival order A, B, C by id).
    // FIFO: A alone at MADD (full rate) ends at 3, then B at 4, then C at 6.
    // Varys: SEBF serves B (1), C (3), A (6), with or without back-filling (no port is idle).
    // Max-min: 1/3 each until B ends at 3, then 1/2 each: C at 5, A at 6.
    let net = star(2, 1.0);
    let cf = vec![
        coflow(0, 0.0, &[(0, 1, 3.0)]),
        coflow(1, 0.0, &[(0, 1, 1.0)]),
        coflow(2, 0.0, &[(0, 1, 2.0)]),
    ];
    assert_ccts(&run(&net, "coflow-fifo", cf.clone()), &[3.0, 4.0, 6.0]);
    assert_ccts(&run(&net, "varys", cf.clone()), &[6.0, 1.0, 3.0]);
    assert_ccts(
        &run(&net, "varys-no-backfill", cf.clone()),
        &[6.0, 1.0, 3.0],
    );
    assert_ccts(&run(&net, "maxmin", cf), &[6.0, 3.0, 5.0]);
}

/// Senders h0, h1; receivers h2, h3. C0 = {h0 -> h2: 2, h1 -> h2: 1} (Gamma 3 on h2),
/// C1 = {h1 -> h3: 2} (Gamma 2), both at t = 0.
fn idle_port_trace() -> Vec<CoflowInput> {
    vec![
        coflow(0, 0.0, &[(0, 2, 2.0), (1, 2, 1.0)]),
        coflow(1, 0.0, &[(1, 3, 2.0)]),
    ]
}

#[test]
fn coflow_fifo_passes_the_head_coflows_leftover_on() {
    // C0 first at MADD: 2/3 and 1/3 (h2 full), leaving 2/3 of h1; C1 gets it: Gamma' =
    // 2 / (2/3) = 3, so everything ends at 3.
    let net = star(4, 1.0);
    assert_ccts(&run(&net, "coflow-fifo", idle_port_trace()), &[3.0, 3.0]);
    // A small coflow behind a big one on another port pair is not held back: C0 = {h0 -> h2:
    // 10, h1 -> h2: 1} (Gamma 11) leaves 10/11 of h1, where C1 = {h1 -> h3: 1} runs at
    // 10/11 and ends at 1.1.
    let cf = vec![
        coflow(0, 0.0, &[(0, 2, 10.0), (1, 2, 1.0)]),
        coflow(1, 0.0, &[(1, 3, 1.0)]),
    ];
    assert_ccts(&run(&net, "coflow-fifo", cf), &[11.0, 1.1]);
}

#[test]
fn backfilling_finishes_no_coflow_later_and_raises_throughput() {
    // SEBF serves C1 first at full rate on h1 and h3: C0 cannot use h1 (full), so under MADD
    // alone it waits until C1 ends at 2, then takes Gamma = 3: CCT 5. Back-filled, h0 -> h2
    // takes the idle h0 and h2 at rate 1 meanwhile and ends at 2; h1 -> h2 then ends at 3.
    let net = star(4, 1.0);
    let bf = run(&net, "varys", idle_port_trace());
    let nobf = run(&net, "varys-no-backfill", idle_port_trace());
    assert_ccts(&bf, &[3.0, 2.0]);
    assert_ccts(&nobf, &[5.0, 2.0]);
    for (a, b) in ccts(&bf).iter().zip(ccts(&nobf)) {
        assert!(*a <= b + 1e-9);
    }
    // 5 units in 3 against 5 units in 5.
    let (t_bf, t_nobf) = (throughput(&bf), throughput(&nobf));
    assert!((t_bf / t_nobf - 5.0 / 3.0).abs() < 1e-6, "{t_bf} {t_nobf}");
}

/// Random many-flow coflows on a 6-port giant switch, arriving over time.
fn random_trace(seed: u64) -> Vec<CoflowInput> {
    let mut rng = component_rng(seed, streams::WORKLOAD);
    (0..30)
        .map(|i| {
            let at = rng.random::<f64>() * 20.0;
            let n = 1 + rng.random_range(0..6usize);
            let flows: Vec<(u32, u32, f64)> = (0..n)
                .map(|_| {
                    let s = rng.random_range(0..6u32);
                    let d = (s + 1 + rng.random_range(0..5u32)) % 6;
                    (s, d, 0.1 + rng.random::<f64>() * 3.0)
                })
                .collect();
            coflow(i, at, &flows)
        })
        .collect()
}

/// Policy `name` on `cf` (audited) twice: re-solving only where its coflow-level decision
/// changes, then at every flow completion.
fn at_decisions_and_every_completion(
    net: &Net,
    name: &str,
    cf: &[CoflowInput],
) -> (RunResult, RunResult) {
    let mk = || make_policy(&PolicyConfig::named(name), net, &sizes(cf)).unwrap();
    let cfg = SimConfig {
        audit: true,
        ..SimConfig::default()
    };
    let mut fast = Simulator::new(net, cf.to_vec(), mk(), cfg.clone());
    let rf = fast.run(|_| {});
    let mut slow = Simulator::new(net, cf.to_vec(), mk(), cfg);
    slow.reallocate_every_completion();
    (rf, slow.run(|_| {}))
}

#[test]
fn coflow_speed_resolves_less_and_finishes_every_coflow_at_the_same_time() {
    // Re-solving only at coflow-level decisions (the policy's completion capability) against
    // re-solving at every flow completion: without back-filling the same CCTs (a skipped
    // completion's siblings end within picoseconds of it, and the order of the served coflows
    // holds while they drain) with fewer re-solves.
    let net = star(6, 1.0);
    for name in ["varys", "varys-no-backfill", "coflow-fifo"] {
        for seed in 1..=4 {
            let cf = random_trace(seed);
            let (rf, rs) = at_decisions_and_every_completion(&net, name, &cf);
            assert!(rf.allocations <= rs.allocations, "{name} seed {seed}");
            if name == "varys" {
                // Back-filled flows drain a waiting coflow's ports, so its SEBF rank can move
                // between events: re-solving at every completion samples the order more often.
                // Varys itself recomputes on coflow arrivals and completions; the averages
                // stay close.
                let (a, b) = (rf.summary().avg_cct_s, rs.summary().avg_cct_s);
                assert!((a / b - 1.0).abs() < 0.1, "{name} seed {seed}: {a} vs {b}");
                continue;
            }
            for (a, b) in rf.coflows.iter().zip(&rs.coflows) {
                let (a, b) = (a.cct_s.unwrap(), b.cct_s.unwrap());
                assert!(
                    (a - b).abs() <= 1e-9 * b.max(1e-3),
                    "{name} seed {seed}: {a} vs {b}"
                );
            }
            // Without back-filling a re-solve happens only at coflow arrivals and completions.
            assert!(rf.allocations <= 2 * cf.len() as u64, "{name}: {rf:?}");
        }
    }
}

#[test]
fn only_a_completion_that_changes_a_decision_re_solves() {
    // At t = 1 on the idle-port trace (flows 0 = h0 -> h2 and 1 = h1 -> h2 of C0, flow 2 =
    // h1 -> h3 of C1) no flow's end before its coflow's changes the coflow-level decision,
    // back-filled (varys: flow 0) or not. On DBA's Fig. 1 fabric the core link cuts the
    // giant-switch rates to 1/3 each: every completion frees core capacity and re-solves.
    let star4 = star(4, 1.0);
    let fig1 = fig1_fabric();
    let fig1_trace = vec![
        coflow(1, 0.0, &[(0, 3, 2.0), (1, 4, 2.0)]),
        coflow(2, 0.0, &[(2, 5, 3.0)]),
    ];
    for name in ["varys", "varys-no-backfill", "coflow-fifo"] {
        for (net, cf, want) in [
            (&star4, idle_port_trace(), false),
            (&fig1, fig1_trace.clone(), true),
        ] {
            let p = make_policy(&PolicyConfig::named(name), net, &sizes(&cf)).unwrap();
            let mut sim = Simulator::new(net, cf, p, SimConfig::default());
            sim.advance(SimTime::from_delta(Delta::from_secs_f64(TU)), &mut |_| {});
            let v = View {
                now: sim.now(),
                net: sim.net(),
                flows: &sim.flows,
                coflows: &sim.coflows,
            };
            for f in 0..3 {
                assert!(sim.flows.active[f as usize], "{name}: flow {f} ended early");
                let got = sim.policy().completion_reallocates(&v, f);
                assert_eq!(got, want, "{name} on {}: flow {f}", net.hosts());
            }
        }
    }
}

#[test]
fn the_new_names_are_listed_and_take_no_keys() {
    let names: Vec<&str> = dctc_flow::POLICIES.iter().map(|p| p.0).collect();
    assert!(names.contains(&"coflow-fifo") && names.contains(&"varys-no-backfill"));
    for name in ["coflow-fifo", "varys-no-backfill"] {
        let Err(e) = PolicyConfig::parse(name, None, &common::TomlKeys::new("heavy_bytes = 1.0"))
        else {
            panic!("heavy_bytes accepted by {name}");
        };
        assert!(e.to_string().contains("heavy_bytes"), "{e}");
    }
}

#[test]
fn fastpass_re_solves_only_at_arrivals_and_stays_within_its_stated_tolerance() {
    // Fastpass-f/c at coflow speed: the greedy order is decided at arrivals and a completion
    // re-runs the greedy in that order where it changes anything (exact: the unit test in
    // `policy/priority.rs`). Re-sorting at every completion instead sees the keys of the
    // flows still sending shrink (a flow served at part of its route's rate can pass one
    // served at all of it; within a fastpass-c coflow the longest flow first): the stated
    // tolerance is on the average CCT.
    // Measured worst case over these seeds: 10.6% (fastpass-f), 5.5% (fastpass-c).
    let net = star(6, 1.0);
    for (name, tolerance) in [("fastpass-f", 0.15), ("fastpass-c", 0.08)] {
        let mut worst = 0.0f64;
        for seed in 1..=8 {
            let cf = random_trace(seed);
            let (rf, rs) = at_decisions_and_every_completion(&net, name, &cf);
            assert!(
                rf.allocations <= cf.len() as u64,
                "{name} seed {seed}: {rf:?}"
            );
            assert!(rs.allocations > 2 * cf.len() as u64, "{name} seed {seed}");
            let (a, b) = (rf.summary().avg_cct_s, rs.summary().avg_cct_s);
            worst = worst.max((a / b - 1.0).abs());
        }
        eprintln!("{name}: worst avg CCT difference {worst:.4}");
        assert!(worst < tolerance, "{name}: {worst}");
    }
}
