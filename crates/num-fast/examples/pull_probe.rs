//! Probe for `perf stat` / `perf record` on one §6.1 row: layout statistics, then 100 warm-up
//! iterations and ITERATIONS timed ones of one variant, printing the median, minimum and 10th
//! percentile of the per-iteration wall times.
//!
//! `pull_probe [ROW 0-6] [ITERATIONS] [pull|push|parN]` (pull: the pull layout, f32, one
//! thread; push: the previous layout; parN: the pull layout on N threads).
//! Per-flow counts without set-up: `perf stat` two runs with different ITERATIONS and divide
//! the difference by (difference of ITERATIONS) x flows.

fn summary(mut t: Vec<f64>) -> String {
    t.sort_by(f64::total_cmp);
    let q = |f: f64| t[((t.len() - 1) as f64 * f) as usize];
    format!(
        "{:.2} us/iter (median; min {:.2}, p10 {:.2})",
        q(0.5),
        q(0.0),
        q(0.1)
    )
}

fn timed(iters: usize, mut step: impl FnMut()) -> Vec<f64> {
    for _ in 0..100 {
        step();
    }
    (0..iters)
        .map(|_| {
            let s = std::time::Instant::now();
            step();
            s.elapsed().as_secs_f64() * 1e6
        })
        .collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let row: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(4);
    let iters: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2000);
    let which: String = args.next().unwrap_or("pull".into());
    let (_, nodes, flows, _) = dctc_num_fast::FLOWTUNE_TABLE[row.min(6)];
    let set = dctc_num_fast::Clos::for_nodes(nodes, 1).random_flows(flows, 1);
    if which == "push" {
        let mut p = dctc_num_fast::Fast::<f32>::new(&set);
        println!("push {}", summary(timed(iters, || p.iterate())));
        return;
    }
    if let Some(threads) = which.strip_prefix("par").and_then(|t| t.parse().ok()) {
        let mut p = dctc_num_fast::PullParallel::<f32>::new(&set, threads).unwrap();
        p.run(100);
        let t = p.run(iters).iter().map(|&ns| ns as f64 / 1e3).collect();
        println!("par{threads} {}", summary(t));
        return;
    }
    let mut p = dctc_num_fast::Pull::<f32>::new(&set).unwrap();
    let l = p.layout();
    println!(
        "flows {} heads {} tails {} head slices {} positions/flow {:.3} link ELLPACK rows {} + {}",
        l.flows,
        l.heads.len(),
        l.tails.len(),
        l.slices(),
        l.positions_per_flow(),
        l.link_heads.idx.len(),
        l.link_tails.idx.len()
    );
    println!("pull {}", summary(timed(iters, || p.iterate())));
}
