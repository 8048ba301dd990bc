//! Probe for `perf`: layout statistics and a long single-threaded run of one §6.1 row (not
//! a benchmark: no warm-up, mean time). `pull_probe [ROW 0-6] [ITERATIONS] [pull|push]`.
fn main() {
    let mut args = std::env::args().skip(1);
    let row: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(4);
    let iters: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20000);
    let which: String = args.next().unwrap_or("pull".into());
    let (_, nodes, flows, _) = dctc_num::fast::FLOWTUNE_TABLE[row];
    let set = dctc_num::fast::Clos::for_nodes(nodes, 1).random_flows(flows, 1);
    if which == "push" {
        let mut p = dctc_num::fast::Fast::<f32>::new(&set);
        let t = std::time::Instant::now();
        for _ in 0..iters {
            p.iterate();
        }
        println!(
            "push {:.2} us/iter",
            t.elapsed().as_secs_f64() * 1e6 / iters as f64
        );
        return;
    }
    if let Some(threads) = which.strip_prefix("par").and_then(|t| t.parse().ok()) {
        let mut p = dctc_num::fast::PullParallel::<f32>::new(&set, threads).unwrap();
        p.run(100);
        let mut t = p.run(iters);
        t.sort_unstable();
        println!(
            "par{threads} {:.2} us/iter (median)",
            t[t.len() / 2] as f64 / 1e3
        );
        return;
    }
    let mut p = dctc_num::fast::Pull::<f32>::new(&set).unwrap();
    let l = p.layout();
    println!(
        "tail rows {} flows {} heads {} tails {} slices {} pos/flow {:.3} link_head_rows {}",
        l.link_tails.idx.len(),
        l.flows,
        l.heads.len(),
        l.tails.len(),
        l.slices(),
        l.positions_per_flow(),
        l.link_heads.idx.len()
    );
    let t = std::time::Instant::now();
    for _ in 0..iters {
        p.iterate();
    }
    println!(
        "pull {:.2} us/iter",
        t.elapsed().as_secs_f64() * 1e6 / iters as f64
    );
}
