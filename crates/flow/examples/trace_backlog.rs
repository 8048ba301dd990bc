//! `cargo run --release -p dctc-flow --example trace_backlog -- POLICY [SCALE] [STEP_S] [END_S]`: the
//! trace benchmarks' workload (`dctc_flow::bench::trace_workload`: the first SCALE of the
//! Facebook trace on dba-144, load 1.0) under POLICY (default `maxmin`, scale 1), printing the
//! active flows, events and flows re-solved every STEP_S simulated seconds (default 2), then
//! the peak backlog and the sum of flow completion times against its line-rate bound (every
//! flow alone at 10 Gb/s); with END_S, stops after END_S simulated seconds (a prefix to time). These are the figures behind BENCHMARKS.md's "Why the full trace
//! under `maxmin` and `dba` cannot meet 60 s here".

use dctc_core::units::{Delta, SimTime};
use dctc_flow::engine::{SimConfig, Simulator};
use dctc_flow::policy::{make_policy, PolicyConfig};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let policy = args.next().unwrap_or_else(|| "maxmin".into());
    let scale: f64 = args.next().map_or(1.0, |s| s.parse().expect("SCALE"));
    let step: f64 = args.next().map_or(2.0, |s| s.parse().expect("STEP_S"));
    let end: f64 = args
        .next()
        .map_or(f64::INFINITY, |s| s.parse().expect("END_S"));
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/coflow/FB2010-1Hr-150-0.txt"
    );
    let (net, coflows) =
        dctc_flow::bench::trace_workload(std::path::Path::new(trace), scale).expect("workload");
    let sizes: Vec<f64> = coflows
        .iter()
        .map(|c| c.flows.iter().map(|f| f.bytes).sum())
        .collect();
    // Every flow alone on a 10 Gb/s host link: the least any schedule's completion times sum to.
    let bound_s = sizes.iter().sum::<f64>() * 8.0 / 1e10;
    let p = make_policy(&PolicyConfig::named(&policy), &net, &sizes).expect("policy");
    let mut sim = Simulator::new(&net, coflows, p, SimConfig::default());
    let t0 = Instant::now();
    let (mut t, mut peak) = (0.0, (0usize, 0.0));
    let mut nop = |_: SimTime| {};
    loop {
        t += step;
        sim.advance(SimTime::ZERO + Delta::from_secs_f64(t), &mut nop);
        let active = sim.active_flows().len();
        if active > peak.0 {
            peak = (active, t);
        }
        let r = sim.result();
        println!(
            "sim {t:.0} s  wall {:.1} s  active {active}  events {}  flows re-solved {}",
            t0.elapsed().as_secs_f64(),
            r.events,
            r.allocated_flows
        );
        if r.flows.iter().all(|f| f.finish_s.is_some()) {
            let fct: f64 = r.flows.iter().filter_map(|f| f.fct_s).sum();
            println!(
                "{policy}: peak {} active flows (at {:.1} s), sum of FCTs {fct:.1} flow-s = \
                 {:.1}x the line-rate bound {bound_s:.1}, {} events, {} flows re-solved, {} \
                 ticks, wall {:.1} s",
                peak.0,
                peak.1,
                fct / bound_s,
                r.events,
                r.allocated_flows,
                r.ticks,
                t0.elapsed().as_secs_f64()
            );
            break;
        }
        if t >= end {
            println!(
                "{policy}: stopped at {t:.0} simulated s, {} events, {} flows re-solved, wall {:.1} s",
                r.events,
                r.allocated_flows,
                t0.elapsed().as_secs_f64()
            );
            break;
        }
    }
}
