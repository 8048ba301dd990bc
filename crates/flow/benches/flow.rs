//! Criterion benches of the flow engine: reduced versions of `dctc bench flow` (a slice of
//! the Facebook trace on dba-144 under maxmin and dba, 20,000 web-search flows on a k = 16
//! fat-tree under maxmin). The full-size runs are `dctc_flow::bench::bench(name, trace, 1.0)`.

use criterion::{criterion_group, criterion_main, Criterion};
use dctc_flow::bench::bench;
use std::path::Path;

const TRACE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/coflow/FB2010-1Hr-150-0.txt"
);

fn engine(c: &mut Criterion) {
    let mut g = c.benchmark_group("flow");
    g.sample_size(10);
    g.bench_function("trace-maxmin-10pct", |b| {
        b.iter(|| bench("trace-maxmin", Path::new(TRACE), 0.1).unwrap())
    });
    g.bench_function("trace-dba-10pct", |b| {
        b.iter(|| bench("trace-dba", Path::new(TRACE), 0.1).unwrap())
    });
    g.bench_function("websearch-20k", |b| {
        b.iter(|| bench("websearch-1m", Path::new(TRACE), 0.02).unwrap())
    });
    g.finish();
}

#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, engine);
}
criterion_main!(group::benches);
