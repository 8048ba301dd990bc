//! The CoDel family end to end on a dumbbell: FQ-CoDel's new-flow priority shortens short
//! flows behind long ones, CoDel keeps the standing queue short, and every new scheme keeps
//! the engine's invariants and is deterministic.

mod common;
use common::*;
use dctc_core::topology::Topology;
use dctc_packet::metrics::PacketRun;
use dctc_packet::queue::QueueSpec;
use dctc_packet::queue::{CodelParams, FqCodelParams, SfqCodelParams};
use dctc_packet::schemes::{codel, fq_codel, sfqcodel_cubic};
use dctc_packet::transport::{Cc, Cubic, NewReno};
use dctc_packet::{PacketScheme, Workload};

const BUFFER: u64 = 600_000;

/// Two long NewReno flows (hosts 0, 1) and 40 two-packet flows from host 2, every 60 us,
/// all to host 3 across the 10 Gb/s bottleneck.
fn workload(t: &Topology) -> Workload {
    let mut flows = vec![
        long_flow(t, 0, 0, 3, 0, 3_500),
        long_flow(t, 1, 1, 3, 0, 3_500),
    ];
    for i in 0..40u32 {
        flows.push(sized_flow(t, 2 + i, 2, 3, 500 + 60 * i as u64, 2_920));
    }
    Workload {
        flows,
        incasts: vec![],
    }
}

fn scheme(t: &Topology, name: &'static str, q: QueueSpec) -> PacketScheme {
    let cc = if name == sfqcodel_cubic::NAME {
        Cc::Cubic(Cubic::default())
    } else {
        Cc::NewReno(NewReno::default())
    };
    PacketScheme::assemble(name, tuned(t), cc, q)
}

fn fq() -> QueueSpec {
    QueueSpec::FqCodel(FqCodelParams {
        limit_bytes: BUFFER,
        ..FqCodelParams::default()
    })
}

fn short_mean_fct(r: &PacketRun) -> f64 {
    let f: Vec<f64> = r
        .records
        .iter()
        .filter(|x| x.size == 2_920)
        .map(|x| x.fct_us.expect("every short flow finishes"))
        .collect();
    assert_eq!(f.len(), 40);
    f.iter().sum::<f64>() / f.len() as f64
}

#[test]
fn fq_codel_gives_short_flows_lower_fct_than_droptail() {
    let t = bell(3, 1, 10.0, BUFFER);
    let wl = workload(&t);
    let drop = run(&t, &PacketScheme::newreno(tuned(&t)), &wl, 4_000);
    let fqc = run(&t, &scheme(&t, fq_codel::NAME, fq()), &wl, 4_000);
    let (d, f) = (short_mean_fct(&drop), short_mean_fct(&fqc));
    eprintln!("short-flow mean FCT: droptail {d:.1} us, fq-codel {f:.1} us");
    assert!(f < d / 3.0, "fq-codel {f} us vs droptail {d} us");
}

#[test]
fn codel_keeps_the_p99_queueing_delay_well_below_droptail() {
    let t = bell(3, 1, 10.0, BUFFER);
    let wl = workload(&t);
    let drop = run(&t, &PacketScheme::newreno(tuned(&t)), &wl, 4_000);
    let cod = run(
        &t,
        &scheme(&t, codel::NAME, QueueSpec::Codel(CodelParams::default())),
        &wl,
        4_000,
    );
    let us = |r: &PacketRun| r.queue_delay.quantile(0.99) as f64 * 1e-6;
    let (d, c) = (us(&drop), us(&cod));
    eprintln!("p99 queueing delay: droptail {d:.1} us, codel {c:.1} us");
    assert!(c < d / 4.0, "codel {c} us vs droptail {d} us");
    assert!(cod.counters.dropped_packets > 0, "CoDel drops at dequeue");
}

#[test]
fn every_new_scheme_keeps_the_invariants_and_repeats_byte_for_byte() {
    // A small buffer, so overflow (batch) drops happen as well as CoDel's.
    let small = 30_000;
    let t = bell(3, 1, 10.0, small);
    let wl = workload(&t);
    let codel_p = CodelParams::default();
    let schemes = [
        (codel::NAME, QueueSpec::Codel(codel_p)),
        (
            fq_codel::NAME,
            QueueSpec::FqCodel(FqCodelParams {
                limit_bytes: small,
                ..FqCodelParams::default()
            }),
        ),
        (
            sfqcodel_cubic::NAME,
            QueueSpec::SfqCodel(SfqCodelParams {
                limit_bytes: small,
                ..SfqCodelParams::default()
            }),
        ),
    ];
    for (name, q) in schemes {
        let s = scheme(&t, name, q);
        // `run` checks bytes sent = delivered + dropped + in flight and no queue above its
        // buffer.
        let a = run(&t, &s, &wl, 2_000);
        let b = run(&t, &s, &wl, 2_000);
        assert!(
            a.counters.delivered_bytes > 1_000_000,
            "{name}: {:?}",
            a.counters
        );
        assert_eq!(
            format!("{:?}", a.counters),
            format!("{:?}", b.counters),
            "{name}"
        );
        assert_eq!(
            format!("{:?}", a.records),
            format!("{:?}", b.records),
            "{name}"
        );
        assert_eq!(
            a.queue_delay.quantile(0.99),
            b.queue_delay.quantile(0.99),
            "{name}"
        );
    }
}
