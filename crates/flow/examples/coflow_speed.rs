//! `cargo run --release -p dctc-flow --example coflow_speed -- POLICY [SCALE]`: the first
//! `SCALE` of the Facebook trace as recorded on fb-150 under a policy that can skip a
//! completion's re-solve (the MADD schedulers, Fastpass-f/c), re-solved at coflow-level
//! decisions only (the default) and at every flow completion; prints both times, both average
//! CCTs and the per-coflow relative CCT differences.

use dctc_flow::{make_policy, PolicyConfig, SimConfig, Simulator};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "varys".into());
    let scale: f64 = args
        .next()
        .map(|s| s.parse().expect("scale"))
        .unwrap_or(0.1);
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/coflow/FB2010-1Hr-150-0.txt"
    );
    let (net, coflows) =
        dctc_flow::bench::fb150_workload(std::path::Path::new(trace), scale).expect("workload");
    let sizes: Vec<f64> = coflows
        .iter()
        .map(|c| c.flows.iter().map(|f| f.bytes).sum())
        .collect();
    let mut out = Vec::new();
    for every_completion in [false, true] {
        let p = make_policy(&PolicyConfig::named(&name), &net, &sizes).expect("policy");
        let mut sim = Simulator::new(&net, coflows.clone(), p, SimConfig::default());
        if every_completion {
            sim.reallocate_every_completion();
        }
        let t = Instant::now();
        let r = sim.run(|_| {});
        let secs = t.elapsed().as_secs_f64();
        let avg = r.summary().avg_cct_s;
        println!(
            "{name} scale {scale}, re-solve {}: {secs:.2} s, {} allocations, {} flows re-solved, avg CCT {avg:.4} s",
            if every_completion { "at every completion" } else { "at coflow decisions" },
            r.allocations,
            r.allocated_flows
        );
        out.push(r);
    }
    let mut rel: Vec<f64> = out[0]
        .coflows
        .iter()
        .zip(&out[1].coflows)
        .map(|(a, b)| {
            let (a, b) = (a.cct_s.unwrap_or(f64::NAN), b.cct_s.unwrap_or(f64::NAN));
            (a - b).abs() / b.max(1e-12)
        })
        .collect();
    rel.sort_by(f64::total_cmp);
    let n = rel.len();
    let within = rel.iter().filter(|&&x| x <= 0.01).count();
    println!(
        "per-coflow |CCT difference| / CCT: median {:.2e}, p90 {:.2e}, max {:.2e}; {within} of {n} within 1%; avg CCT ratio {:.4}",
        rel[n / 2],
        rel[(n * 9 / 10).min(n - 1)],
        rel[n - 1],
        out[0].summary().avg_cct_s / out[1].summary().avg_cct_s
    );
}
