//! The coflow trace as recorded: native arrival times, and a mapper and reducer on one port
//! carried through the switch (up the port's link and back down it).

use dctc_core::fabric::{big_switch, BigSwitchSpec};
use dctc_flow::engine::simulate;
use dctc_flow::workload::{
    parse_trace, Arrivals, BuildTrace, Placement, SizeModel, TraceSpec, TRACE_MB,
};
use dctc_flow::{make_policy, Net, PolicyConfig, SimConfig};

fn switch(ports: usize, gbps: f64) -> Net {
    Net::new(
        big_switch(&BigSwitchSpec {
            ports,
            rate_gbps: Some(gbps),
            port_rates_gbps: None,
            link_delay_us: 1.0,
            host_delay_us: 0.0,
            buffer_bytes: 100_000,
        })
        .unwrap(),
    )
    .unwrap()
}

fn spec(arrivals: Arrivals) -> TraceSpec {
    TraceSpec {
        path: "t".into(),
        load: 1.0,
        arrivals,
        cv: 0.0,
        sizes: SizeModel::CoflowMean,
        placement: Placement::Ports,
        max_coflows: None,
        skip_coflows: 0,
        max_mappers: None,
        max_reducers: None,
        size_scale: 1.0,
    }
}

#[test]
fn native_arrivals_are_the_traces_millisecond_stamps() {
    let text = "3 3\n1 0 1 0 1 1:1\n2 1500 1 1 1 2:1\n3 3629235 1 2 1 0:1\n";
    let t = parse_trace("t", text).unwrap();
    let net = switch(3, 1.0);
    let b = spec(Arrivals::Native).build_counted(&t, &net, 1).unwrap();
    let got: Vec<u64> = b.coflows.iter().map(|c| c.arrival.ps()).collect();
    assert_eq!(
        got,
        vec![0, 1_500 * 1_000_000_000, 3_629_235 * 1_000_000_000]
    );
    // Load scaling (the default) moves them: 3 MB over 3,629 s is far below load 1.
    let scaled = spec(Arrivals::Load).build(&t, &net, 1).unwrap();
    assert!(scaled[2].arrival < b.coflows[2].arrival);
    // The key parses as a scenario writes it.
    let s: TraceSpec = toml::from_str("path = \"t\"\narrivals = \"native\"").unwrap();
    assert_eq!(s.arrivals, Arrivals::Native);
    assert!(toml::from_str::<TraceSpec>("path = \"t\"\narrivals = \"nat\"").is_err());
}

#[test]
fn a_same_port_flow_is_carried_and_counts_in_its_cct() {
    // Coflow 1: mapper 0 -> reducer 0, 1 MB (the whole coflow is on one port).
    // Coflow 2: mappers 0 and 1 -> reducer 1, 2 MB (1 MB each; 1 -> 1 on one port).
    let text = "2 2\n1 0 1 0 1 0:1\n2 0 2 0 1 1 1:2\n";
    let t = parse_trace("t", text).unwrap();
    let net = switch(2, 1.0);
    let b = spec(Arrivals::Native).build_counted(&t, &net, 1).unwrap();
    assert_eq!((b.dropped_flows, b.dropped_coflows), (0, 0));
    assert_eq!(b.coflows.len(), 2);
    assert_eq!(b.coflows[0].flows.len(), 1);
    assert_eq!(b.coflows[1].flows.len(), 2);
    let sizes: Vec<f64> = b
        .coflows
        .iter()
        .map(|c| c.flows.iter().map(|f| f.bytes).sum())
        .collect();
    let p = make_policy(&PolicyConfig::named("maxmin"), &net, &sizes).unwrap();
    let cfg = SimConfig {
        audit: true,
        ..SimConfig::default()
    };
    let r = simulate(&net, b.coflows, p, cfg);
    // Up-link 0 carries 0->0 and 0->1; down-link 1 carries 0->1 and 1->1: every flow gets half
    // the port rate, so both coflows take 2 MB-times at 1 Gb/s. Dropping the same-port flows
    // would lose coflow 1 and finish coflow 2 in half the time.
    let want = 2.0 * TRACE_MB * 8.0 / 1e9;
    for c in &r.coflows {
        let cct = c.cct_s.unwrap();
        assert!(
            (cct - want).abs() < 1e-9 * want,
            "coflow {}: {cct} vs {want}",
            c.id
        );
    }
    assert_eq!(r.flows.len(), 3);
}

#[test]
fn zero_byte_reducers_are_counted_not_silent() {
    // Coflow 2's only reducer has 0 MB: 2 flows and the whole coflow are dropped and counted.
    let text = "2 2\n1 0 1 0 1 1:1\n2 5 2 0 1 1 0:0\n";
    let t = parse_trace("t", text).unwrap();
    let b = spec(Arrivals::Native)
        .build_counted(&t, &switch(2, 1.0), 1)
        .unwrap();
    assert_eq!((b.dropped_flows, b.dropped_coflows), (2, 1));
    assert_eq!(b.coflows.len(), 1);
}

#[test]
fn progress_moves_on_completions() {
    // One coflow arriving at t = 0 with 5,000 flows of distinct sizes between two hosts: one
    // arrival event, then 5,000 completions. Progress from event pops alone would only ever
    // report t = 0 before the final call.
    let net = switch(2, 1.0);
    let flows: Vec<dctc_flow::FlowInput> = (1..=5000)
        .map(|k| dctc_flow::FlowInput {
            src: 0,
            dst: 1,
            bytes: 1000.0 * k as f64,
        })
        .collect();
    let total: f64 = flows.iter().map(|f| f.bytes).sum();
    let cf = vec![dctc_flow::CoflowInput {
        id: 0,
        arrival: dctc_core::units::SimTime::ZERO,
        flows,
    }];
    let p = make_policy(&PolicyConfig::named("maxmin"), &net, &[total]).unwrap();
    let mut sim = dctc_flow::Simulator::new(&net, cf, p, SimConfig::default());
    let mut seen = Vec::new();
    let r = sim.run(|t| seen.push(t));
    assert_eq!(r.flows.len(), 5000);
    let before_last = &seen[..seen.len() - 1];
    assert!(
        before_last.iter().any(|t| t.ps() > 0),
        "progress before the end: {before_last:?}"
    );
    assert!(before_last.windows(2).all(|w| w[0] <= w[1]));
}
