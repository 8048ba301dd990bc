//! `cargo bench -p dctc-num-fast`: Flowtune's §6.1 iteration on the fast layouts.

use criterion::{criterion_group, criterion_main, Criterion};
use dctc_num_fast::{Clos, Fast, Pull, PullParallel, FLOWTUNE_TABLE};
use std::hint::black_box;

/// Flowtune's first and fifth §6.1 rows: the push layout (previous fast path, f32) and the
/// pull layout (f64, f32, f32 on 2 threads).
fn fast_rows(c: &mut Criterion) {
    for row in [0, 4] {
        let (_, nodes, flows, _) = FLOWTUNE_TABLE[row];
        let set = Clos::for_nodes(nodes, 1).random_flows(flows, 1);
        let name = format!("{nodes}_nodes_{flows}_flows");
        let mut push = Fast::<f32>::new(&set);
        c.bench_function(&format!("push_f32_{name}"), |b| b.iter(|| push.iterate()));
        let mut a = Pull::<f64>::new(&set).unwrap();
        c.bench_function(&format!("pull_f64_{name}"), |b| b.iter(|| a.iterate()));
        let mut f = Pull::<f32>::new(&set).unwrap();
        c.bench_function(&format!("pull_f32_{name}"), |b| b.iter(|| f.iterate()));
        let mut par = PullParallel::<f32>::new(&set, 2).unwrap();
        // 100 iterations per sample amortize the thread start; reported time / 100.
        c.bench_function(&format!("pull_f32_2threads_{name}_x100"), |b| {
            b.iter(|| black_box(par.run(100)))
        });
    }
}

mod group {
    #![allow(missing_docs)]
    use super::*;
    criterion_group!(benches, fast_rows);
}
criterion_main!(group::benches);
