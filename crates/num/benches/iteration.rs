//! Criterion benches of one allocator iteration (rate update + price update + F-NORM).

use criterion::{criterion_group, criterion_main, Criterion};
use dctc_num::solver::{Ned, Solver, State};
use dctc_num::{FlowSpec, Problem, Utility};
use std::hint::black_box;

/// A generic-problem NED iteration on a small leaf-spine (the `Problem`/`Solver` path).
fn generic_ned(c: &mut Criterion) {
    let racks = 8;
    let hosts = 48;
    let spines = 4;
    let mut p = Problem::new(40e9);
    let n = racks * hosts;
    for h in 0..n {
        p.add_link(format!("up{h}"), 10e9).unwrap();
        p.add_link(format!("down{h}"), 10e9).unwrap();
    }
    let base = 2 * n;
    for r in 0..racks {
        for s in 0..spines {
            p.add_link(format!("r{r}s{s}up"), 40e9).unwrap();
            p.add_link(format!("r{r}s{s}down"), 40e9).unwrap();
        }
    }
    let mut x: u64 = 12345;
    for i in 0..n * 8 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let src = (x >> 33) as usize % n;
        let dst = ((x >> 13) as usize % (n - 1) + src + 1) % n;
        let (rs, rd) = (src / hosts, dst / hosts);
        let s = (x >> 50) as usize % spines;
        let mut path = vec![2 * src];
        if rs != rd {
            path.push(base + 2 * (rs * spines + s));
            path.push(base + 2 * (rd * spines + s) + 1);
        }
        path.push(2 * dst + 1);
        p.add_flow(FlowSpec::new(
            format!("f{i}"),
            path,
            Utility::Log { weight: 1.0 },
        ))
        .unwrap();
    }
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    c.bench_function("generic_ned_384_nodes_3072_flows", |b| {
        b.iter(|| {
            ned.iterate(&mut p, &mut st);
            black_box(&st.prices);
        })
    });
}

mod group {
    #![allow(missing_docs)]
    use super::*;
    criterion_group!(benches, generic_ned);
}
criterion_main!(group::benches);
