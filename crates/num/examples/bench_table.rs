//! Prints Flowtune's §6.1 table beside this machine's medians:
//! `cargo run --release -p dctc-num --example bench_table [THREADS] [ITERATIONS]`.

fn main() {
    let mut args = std::env::args().skip(1);
    let threads: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2);
    let iterations: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2000);
    println!("| Flowtune cores | nodes | flows | Flowtune us | f64 1 thread us | f32 1 thread us | f32 {threads} threads us | flows per core-us ({threads} threads) |");
    println!("|---|---|---|---|---|---|---|---|");
    for r in dctc_num::fast::bench_table(threads, iterations) {
        println!(
            "| {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.0} |",
            r.paper_cores,
            r.nodes,
            r.flows,
            r.paper_us,
            r.f64_1t_us,
            r.f32_1t_us,
            r.f32_mt_us,
            r.flows as f64 / (r.f32_mt_us * r.threads as f64)
        );
    }
}
