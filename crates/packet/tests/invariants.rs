//! Invariants on a loaded fabric (checked inside `run_with`) and determinism.

mod common;
use common::*;
use dctc_core::fabric::preset;
use dctc_core::rng::{component_rng, streams};
use dctc_core::units::{Delta, SimTime};
use dctc_core::workload::{Cdf, PairMode, PoissonSpec};
use dctc_packet::lb::LbKind;
use dctc_packet::{PacketScheme, RunOptions, Workload};
use std::path::Path;

fn loaded(
    scheme_of: impl Fn(&dctc_core::topology::Topology) -> PacketScheme,
    seed: u64,
) -> dctc_packet::metrics::PacketRun {
    let t = preset("fq-codel-32")
        .unwrap()
        .build(Path::new("."))
        .unwrap();
    let cdf = Cdf::builtin("websearch").unwrap();
    let until = SimTime::from_delta(Delta::from_ms(4));
    let spec = PoissonSpec {
        cdf: "websearch".into(),
        load: 0.7,
        pairs: PairMode::Any,
        max_flows: None,
    };
    let flows = spec
        .generate(
            &t,
            &cdf,
            until,
            0,
            &mut component_rng(seed, streams::WORKLOAD),
        )
        .unwrap();
    let wl = Workload {
        flows,
        incasts: vec![],
    };
    let mut opts = RunOptions::new(seed, until);
    opts.queue_sample = Some(Delta::from_us(100));
    let scheme = scheme_of(&t);
    run_with(&t, &scheme, &wl, opts)
}

type MakeScheme = dyn Fn(&dctc_core::topology::Topology) -> PacketScheme;

#[test]
fn invariants_hold_under_load_for_every_scheme_and_balancer() {
    let makers: Vec<Box<MakeScheme>> = vec![
        Box::new(|t| PacketScheme::newreno(tuned(t))),
        Box::new(|t| PacketScheme::dctcp(tuned(t), 97_500)),
        Box::new(|t| PacketScheme {
            lb: LbKind::Spray,
            ..PacketScheme::dctcp(tuned(t), 97_500)
        }),
        Box::new(|t| {
            // Loss paths again, with limited transmit and timestamp RTT samples.
            let mut s = PacketScheme::newreno(tuned(t));
            s.tcp.max_cwnd_bytes = u64::MAX / 4;
            s.tcp.limited_transmit = true;
            s.tcp.timestamps = true;
            s
        }),
        Box::new(|t| {
            // No max-cwnd cap: windows overrun the buffers, driving the loss paths.
            let mut s = PacketScheme::newreno(tuned(t));
            s.tcp.max_cwnd_bytes = u64::MAX / 4;
            s
        }),
    ];
    let n = makers.len();
    for (i, make) in makers.into_iter().enumerate() {
        let r = loaded(make, 5);
        if i >= n - 2 {
            assert!(r.counters.dropped_packets > 0, "{:?}", r.counters);
        }
        assert!(r.counters.packet_hops > 10_000, "{:?}", r.counters);
        assert!(r.records.iter().filter(|x| x.fct_us.is_some()).count() > 20);
    }
}

#[test]
fn one_seed_gives_identical_runs_and_another_seed_does_not() {
    let mk = |t: &dctc_core::topology::Topology| PacketScheme::dctcp(tuned(t), 97_500);
    let a = loaded(mk, 9);
    let b = loaded(mk, 9);
    assert_eq!(a.records, b.records);
    assert_eq!(a.counters, b.counters);
    assert_eq!(a.queue_samples, b.queue_samples);
    assert_eq!(a.ports, b.ports);
    let c = loaded(mk, 10);
    assert_ne!(a.records, c.records);
}

#[test]
fn schemes_compared_in_one_scenario_carry_the_identical_flows() {
    let a = loaded(|t| PacketScheme::newreno(tuned(t)), 3);
    let b = loaded(|t| PacketScheme::dctcp(tuned(t), 97_500), 3);
    let key = |r: &dctc_packet::metrics::PacketRun| {
        r.records
            .iter()
            .map(|x| {
                (
                    x.id,
                    x.src,
                    x.dst,
                    x.size,
                    x.start_us.to_bits(),
                    x.ideal_fct_us.to_bits(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&a), key(&b));
    assert_ne!(a.counters, b.counters);
}
