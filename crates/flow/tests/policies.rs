//! Policy behaviour on hand-built fabrics with answers known by hand.

mod common;
use dctc_core::units::{Delta, SimTime};
use dctc_flow::engine::simulate;
use dctc_flow::policy::baraat::BaraatConfig;
use dctc_flow::policy::dba_ideal::DbaIdealConfig;
use dctc_flow::{make_policy, CoflowInput, FlowInput, Net, PolicyConfig, PolicyKeys, SimConfig};

/// `racks` racks of `hosts` hosts, `spines` spines, every link `gbps`.
fn fabric(racks: usize, hosts: usize, spines: usize, gbps: f64) -> Net {
    common::leaf_spine_net(racks, hosts, spines, gbps, gbps)
}

/// One "data unit" = what a 1 Gb/s link carries in one second.
const UNIT: f64 = 125e6;

fn coflow(id: u32, flows: &[(u32, u32, f64)]) -> CoflowInput {
    CoflowInput {
        id,
        arrival: SimTime::ZERO,
        flows: flows
            .iter()
            .map(|&(src, dst, units)| FlowInput {
                src,
                dst,
                bytes: units * UNIT,
            })
            .collect(),
    }
}

fn run(net: &Net, name: &str, coflows: Vec<CoflowInput>) -> dctc_flow::RunResult {
    let sizes: Vec<f64> = coflows
        .iter()
        .map(|c| c.flows.iter().map(|f| f.bytes).sum())
        .collect();
    let p = make_policy(&PolicyConfig::named(name), net, &sizes).unwrap();
    let cfg = SimConfig {
        audit: true,
        ..SimConfig::default()
    };
    simulate(net, coflows, p, cfg)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// DBA Fig. 1: C1 = two flows of 2 units, C2 = one flow of 3 units, from three different
/// racks into three hosts of one rack: all three meet on one spine -> leaf downlink.
fn fig1() -> (Net, Vec<CoflowInput>) {
    let net = fabric(4, 3, 1, 1.0);
    let c1 = coflow(1, &[(0, 9, 2.0), (3, 10, 2.0)]);
    let c2 = coflow(2, &[(6, 11, 3.0)]);
    (net, vec![c1, c2])
}

#[test]
fn fig1_bottleneck_blind_mrtf_averages_6_5() {
    let (net, cf) = fig1();
    let r = run(&net, "varys", cf);
    let cct: Vec<f64> = r.coflows.iter().map(|c| c.cct_s.unwrap()).collect();
    assert!(close(cct[0], 6.0) && close(cct[1], 7.0), "{cct:?}");
    assert!(close(r.summary().avg_cct_s, 6.5));
}

#[test]
fn fig1_bottleneck_aware_mrtf_averages_5() {
    let (net, cf) = fig1();
    let r = run(&net, "fastpass-c", cf);
    let cct: Vec<f64> = r.coflows.iter().map(|c| c.cct_s.unwrap()).collect();
    assert!(close(cct[0], 7.0) && close(cct[1], 3.0), "{cct:?}");
    assert!(close(r.summary().avg_cct_s, 5.0));
}

#[test]
fn fig1_fair_sharing_matches_the_blind_schedule() {
    let (net, cf) = fig1();
    let r = run(&net, "maxmin", cf);
    assert!(close(r.summary().avg_cct_s, 6.5), "{:?}", r.summary());
}

#[test]
fn maxmin_rates_on_a_parking_lot() {
    // Hosts 0,1 in rack 0; 2,3 in rack 1; one spine; all 1 Gb/s. Flows 0->2, 1->3, 0->1:
    // host 0's uplink carries flows a and c, rack0 -> spine carries a and b.
    // Max-min: every flow 0.5 Gb/s. Sizes 1, 1, 1 -> all end at 2 s.
    let net = fabric(2, 2, 1, 1.0);
    let cf = vec![
        coflow(0, &[(0, 2, 1.0)]),
        coflow(1, &[(1, 3, 1.0)]),
        coflow(2, &[(0, 1, 1.0)]),
    ];
    let r = run(&net, "maxmin", cf);
    for c in &r.coflows {
        assert!(close(c.cct_s.unwrap(), 2.0), "{:?}", r.coflows);
    }
    // Unequal: flow b alone on rack0 -> spine with a: a limited by host 0 (shared with c).
    // Flow sizes a=1, b=3, c=1: a, c at 0.5 until t=2; b at 0.5 until 2, then 1.0 -> ends 4.
    let cf = vec![
        coflow(0, &[(0, 2, 1.0)]),
        coflow(1, &[(1, 3, 3.0)]),
        coflow(2, &[(0, 1, 1.0)]),
    ];
    let r = run(&net, "maxmin", cf);
    let cct: Vec<f64> = r.coflows.iter().map(|c| c.cct_s.unwrap()).collect();
    assert!(
        close(cct[0], 2.0) && close(cct[1], 4.0) && close(cct[2], 2.0),
        "{cct:?}"
    );
}

#[test]
fn maxmin_gives_the_leftover_to_the_unconstrained_flow() {
    // Three flows into host 2 (rack 1) from hosts 0, 1 and 3: receiver link shared 1/3 each.
    // A fourth flow 0 -> 1 (same rack) gets host 0's leftover 2/3.
    let net = fabric(2, 2, 1, 1.0);
    let cf = vec![
        coflow(0, &[(0, 2, 1.0), (1, 2, 1.0), (3, 2, 1.0)]),
        coflow(1, &[(0, 1, 2.0)]),
    ];
    let r = run(&net, "maxmin", cf);
    // Coflow 0: all three at 1/3 -> 3 s. Coflow 1: 2/3 for 3 s = 2 units -> 3 s.
    assert!(close(r.coflows[0].cct_s.unwrap(), 3.0), "{:?}", r.coflows);
    assert!(close(r.coflows[1].cct_s.unwrap(), 3.0), "{:?}", r.coflows);
}

#[test]
fn madd_finishes_every_flow_of_a_coflow_together() {
    // Three senders in different racks into one receiver: sizes 1, 2, 3 units. The receiver
    // port is the bottleneck (6 units): MADD gives rates 1/6, 2/6, 3/6 -> all end at 6 s.
    let net = fabric(4, 2, 2, 1.0);
    let cf = vec![coflow(0, &[(0, 7, 1.0), (2, 7, 2.0), (4, 7, 3.0)])];
    let r = run(&net, "varys", cf);
    let fin: Vec<f64> = r.flows.iter().map(|f| f.finish_s.unwrap()).collect();
    for &t in &fin {
        assert!(close(t, 6.0), "{fin:?}");
    }
    // Max-min instead finishes them at 3, 5 and 6 s.
    let cf = vec![coflow(0, &[(0, 7, 1.0), (2, 7, 2.0), (4, 7, 3.0)])];
    let r = run(&net, "maxmin", cf);
    let fin: Vec<f64> = r.flows.iter().map(|f| f.finish_s.unwrap()).collect();
    assert!(
        close(fin[0], 3.0) && close(fin[1], 5.0) && close(fin[2], 6.0),
        "{fin:?}"
    );
}

#[test]
fn fastpass_c_reaches_the_hand_optimum_and_beats_maxmin() {
    // Two coflows on one receiver port: A = 1 unit, B = 2 units (one flow each, different
    // senders). Optimum: A first (CCT 1), then B (CCT 3): average 2. Max-min: A at 1/2 ends at
    // 2, B ends at 3: average 2.5.
    let net = fabric(2, 2, 1, 1.0);
    let mk = || vec![coflow(0, &[(0, 3, 1.0)]), coflow(1, &[(1, 3, 2.0)])];
    let fc = run(&net, "fastpass-c", mk()).summary().avg_cct_s;
    let mm = run(&net, "maxmin", mk()).summary().avg_cct_s;
    assert!(close(fc, 2.0), "fastpass-c {fc}");
    assert!(close(mm, 2.5), "maxmin {mm}");
    // Coflows of several flows over a shared core link (1 spine): A = {0->2, 1->3} of 1 unit
    // each crosses rack0 -> spine twice (2 units there); B = {0->1} of 3 units inside rack 0
    // shares host 0's uplink with A's first flow. Optimum by hand: A first: its two flows
    // share the uplink rack0->spine at 1/2 each -> 2 s; B gets host 0's uplink leftover 1/2
    // for 2 s (1 unit) then 1 -> 2 more units at t = 4. Average 3. B first: B 3 s; A's flow
    // from host 0 waits -> A ends at 3 + ... > 3. Max-min: host 0 uplink: A1 and B at 1/2;
    // rack uplink: A1, A2 at 1/2: A ends at 2, B: 1/2 for 2 s then 1 -> 4: average 3.
    let mk = || {
        vec![
            coflow(0, &[(0, 2, 1.0), (1, 3, 1.0)]),
            coflow(1, &[(0, 1, 3.0)]),
        ]
    };
    let fc = run(&net, "fastpass-c", mk()).summary().avg_cct_s;
    let mm = run(&net, "maxmin", mk()).summary().avg_cct_s;
    assert!(fc <= mm + 1e-9, "fastpass-c {fc} vs maxmin {mm}");
    assert!(close(fc, 3.0), "fastpass-c {fc}");
}

#[test]
fn fastpass_f_orders_flows_not_coflows() {
    // Coflow A = one 1-unit flow + one 4-unit flow on separate ports; coflow B = one 2-unit
    // flow sharing the receiver of A's small flow. Fastpass-f serves A's 1-unit flow first
    // (A still ends at 4, B at 3). Fastpass-c serves B first (T_B = 2 < T_A = 4): B at 2,
    // A at 4 (its small flow waits until 2, ends 3). One rack: only host links matter.
    let net = fabric(1, 6, 1, 1.0);
    let mk = || {
        vec![
            coflow(0, &[(0, 4, 1.0), (1, 5, 4.0)]),
            coflow(1, &[(2, 4, 2.0)]),
        ]
    };
    let f = run(&net, "fastpass-f", mk());
    let c = run(&net, "fastpass-c", mk());
    assert!(close(f.coflows[1].cct_s.unwrap(), 3.0), "{:?}", f.coflows);
    assert!(close(c.coflows[1].cct_s.unwrap(), 2.0), "{:?}", c.coflows);
    assert!(close(c.coflows[0].cct_s.unwrap(), 4.0), "{:?}", c.coflows);
}

#[test]
fn baraat_serves_in_arrival_order() {
    // Two coflows on one receiver, the bigger one first: FIFO serves it first even though the
    // smaller would finish sooner. A (arrives 0): 2 units; B (arrives 0.5 s): 1 unit.
    let net = fabric(2, 2, 1, 1.0);
    let mut a = coflow(0, &[(0, 3, 2.0)]);
    let mut b = coflow(1, &[(1, 3, 1.0)]);
    a.arrival = SimTime::ZERO;
    b.arrival = SimTime::from_delta(Delta::from_ms(500));
    let sizes = [2.0 * UNIT, 1.0 * UNIT];
    let baraat = |heavy: f64| {
        PolicyConfig::new(PolicyKeys::Baraat(BaraatConfig {
            heavy_bytes: Some(heavy),
            heavy_percentile: None,
        }))
    };
    let cfg = baraat(10.0 * UNIT);
    let p = make_policy(&cfg, &net, &sizes).unwrap();
    let r = simulate(&net, vec![a.clone(), b.clone()], p, SimConfig::default());
    assert!(close(r.coflows[0].cct_s.unwrap(), 2.0), "{:?}", r.coflows);
    assert!(close(r.coflows[1].cct_s.unwrap(), 2.5), "{:?}", r.coflows);
    // With a tiny heavy threshold A turns heavy at once and shares with B (limited
    // multiplexing): both at 1/2 from 0.5 s: B ends at 2.5 s... A has 1.5 left at 0.5 s,
    // B 1: B ends at 0.5 + 2 = 2.5, A at 3: same here; use threshold between to see the
    // switch: A heavy after 0.25 units -> from 0.5 s both share.
    let cfg = baraat(0.25 * UNIT);
    let p = make_policy(&cfg, &net, &sizes).unwrap();
    let r = simulate(&net, vec![a, b], p, SimConfig::default());
    assert!(close(r.coflows[1].cct_s.unwrap(), 2.0), "{:?}", r.coflows);
    assert!(close(r.coflows[0].cct_s.unwrap(), 3.0), "{:?}", r.coflows);
}

#[test]
fn unknown_names_list_the_valid_ones() {
    let e = PolicyConfig::from_name("pfabric").err().unwrap();
    let msg = e.to_string();
    assert!(
        msg.contains("pfabric") && msg.contains("fastpass-c") && msg.contains("dba"),
        "{msg}"
    );
    let e = dctc_flow::RoutingMode::from_name("valiant").unwrap_err();
    assert!(e.to_string().contains("conga"), "{e}");
}

#[test]
fn dba_ideal_resolved_between_events_beats_fair_sharing_on_fig1() {
    // Problem (2) at every instant: re-solving as C2 drains (its 1/T grows) finishes C2 well
    // before fair sharing would; solved only at events it keeps its t = 0 weights.
    let (net, cf) = fig1();
    let cfg = PolicyConfig::new(PolicyKeys::DbaIdeal(DbaIdealConfig {
        resolve_fraction: Some(0.01),
        ..DbaIdealConfig::default()
    }));
    let sizes = [4.0 * UNIT, 3.0 * UNIT];
    let p = make_policy(&cfg, &net, &sizes).unwrap();
    let r = simulate(&net, cf.clone(), p, SimConfig::default());
    let a = r.summary().avg_cct_s;
    assert!(a < 6.5 - 1e-3 && a > 5.0, "continuous dba-ideal {a}");
    let p = make_policy(&PolicyConfig::named("dba-ideal"), &net, &sizes).unwrap();
    let b = simulate(&net, cf, p, SimConfig::default())
        .summary()
        .avg_cct_s;
    assert!(a < b, "continuous {a} vs events-only {b}");
}
