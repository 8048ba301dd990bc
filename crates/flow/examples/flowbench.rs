//! `cargo run --release -p dctc-flow --example flowbench -- NAME [SCALE]`: one speed benchmark
//! (see `dctc_flow::bench::BENCHES`), printed as one line.

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "trace-maxmin".into());
    let scale: f64 = args
        .next()
        .map(|s| s.parse().expect("scale"))
        .unwrap_or(1.0);
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/coflow/FB2010-1Hr-150-0.txt"
    );
    let r = dctc_flow::bench::bench(&name, std::path::Path::new(trace), scale).expect("bench");
    println!(
        "{} scale {scale}: wall {:.2} s (setup {:.2} s), {} flows, {} events, {:.3} simulated s, avg CCT {:.4} s, {} flows re-solved, bottleneck re-solves {} of {}, finish digest {:016x}",
        r.name,
        r.wall_s,
        r.setup_s,
        r.flows,
        r.events,
        r.sim_s,
        r.avg_cct_s,
        r.allocated_flows,
        r.bottleneck.1,
        r.bottleneck.0,
        r.digest
    );
}
