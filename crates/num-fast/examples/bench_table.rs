//! Prints Flowtune's §6.1 table beside this machine's medians (push layout = the previous fast
//! path, timed in the same rounds as the baseline):
//! `cargo run --release -p dctc-num-fast --example bench_table [THREADS] [ITERATIONS]`.

fn main() {
    let mut args = std::env::args().skip(1);
    let threads: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2);
    let iterations: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2000);
    let rows = dctc_num_fast::bench_table(threads, iterations);
    if let Some(r) = rows.first() {
        println!("kernel: {}", r.kernel.name());
    }
    print!("{}", dctc_num_fast::bench_markdown(&rows));
}
