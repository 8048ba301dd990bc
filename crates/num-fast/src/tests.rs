//! Tests of both layouts against the generic solver and each other.

use super::layout::W;
use super::*;
use dctc_num::normalize::f_norm;
use dctc_num::solver::{Ned, Solver, State};
use dctc_num::{FlowSpec, Problem, Utility};

fn generic(set: &FlowSet) -> Problem {
    let mut p = Problem::new(set.unit);
    for (l, &c) in set.capacity[..set.dummy].iter().enumerate() {
        p.add_link(format!("l{l}"), c * set.unit).unwrap();
    }
    for f in 0..set.flows() {
        let path: Vec<usize> = set.links[4 * f..4 * f + 4]
            .iter()
            .map(|&l| l as usize)
            .filter(|&l| l != set.dummy)
            .collect();
        p.add_flow(FlowSpec::new(
            format!("f{f}"),
            path,
            Utility::Log {
                weight: set.weight[f],
            },
        ))
        .unwrap();
    }
    p
}

// ---- push layout (the baseline) ----

#[test]
fn fast_f64_matches_the_generic_ned_and_f_norm() {
    let set = Clos::for_nodes(96, 2).random_flows(400, 7);
    let mut p = generic(&set);
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    let mut fast = Fast::<f64>::new(&set);
    for _ in 0..30 {
        ned.iterate(&mut p, &mut st);
        fast.iterate();
    }
    let mut x = st.sub_rate.clone();
    f_norm(p.capacity_scaled(), p.paths(), &mut x);
    for (a, b) in x.iter().zip(&fast.normalized) {
        assert!((a - b).abs() <= 1e-12 * a.abs(), "{a} vs {b}");
    }
    for (a, b) in st.prices.iter().zip(&fast.prices) {
        assert!((a - b).abs() <= 1e-12 * a.abs().max(1e-9), "{a} vs {b}");
    }
}

#[test]
fn f32_agrees_with_f64_to_1e_4() {
    let set = Clos::for_nodes(384, 2).random_flows(3072, 3);
    let mut a = Fast::<f64>::new(&set);
    let mut b = Fast::<f32>::new(&set);
    for _ in 0..200 {
        a.iterate();
        b.iterate();
    }
    for (x, y) in a.normalized.iter().zip(&b.normalized) {
        assert!((x - *y as f64).abs() <= 1e-4 * x, "{x} vs {y}");
    }
}

#[test]
fn parallel_matches_single_thread() {
    let set = Clos::for_nodes(384, 2).random_flows(3072, 5);
    let mut single = Fast::<f64>::new(&set);
    let par = Parallel::<f64>::new(&set);
    for _ in 0..25 {
        single.iterate();
    }
    par.run(25);
    // Same arithmetic except the order of the per-link sums across the two copies.
    for (x, y) in single.normalized.iter().zip(par.normalized()) {
        assert!((x - y).abs() <= 1e-9 * x, "{x} vs {y}");
    }
}

#[test]
fn f_norm_output_never_overloads_and_converges() {
    let set = Clos::for_nodes(384, 1).random_flows(3072, 9);
    let mut fast = Fast::<f64>::new(&set);
    for _ in 0..300 {
        fast.iterate();
    }
    let mut load = vec![0.0; set.capacity.len()];
    for f in 0..set.flows() {
        for &l in &set.links[4 * f..4 * f + 4] {
            load[l as usize] += fast.normalized[f];
        }
    }
    for l in 0..set.links() {
        assert!(load[l] <= set.capacity[l] * (1.0 + 1e-12));
    }
    // Converged: the normalized rates are the raw ones to 1e-6.
    for (x, r) in fast.normalized.iter().zip(&fast.rate) {
        assert!((x - r).abs() <= 1e-6 * r);
    }
}

#[test]
fn zero_prices_give_line_rate_and_finite_prices() {
    // Every price at 0 (the branch-free rate update divides by a zero path price): each
    // flow gets its line rate, and the next prices and normalized rates are finite and
    // agree between f32 and f64.
    let set = Clos::for_nodes(384, 1).random_flows(3072, 5);
    let mut a = Fast::<f32>::new(&set);
    a.prices.iter_mut().for_each(|p| *p = 0.0);
    a.iterate();
    for f in 0..set.flows() {
        assert_eq!(a.rate[f] as f64, set.line[f] as f32 as f64);
        assert!(a.normalized[f].is_finite() && a.normalized[f] > 0.0);
    }
    assert!(a.prices.iter().all(|p| p.is_finite() && *p >= 0.0));
    assert!(a.prices[..set.links()].iter().any(|p| *p > 0.0));
    let mut b = Fast::<f64>::new(&set);
    b.prices.iter_mut().for_each(|p| *p = 0.0);
    b.iterate();
    for f in 0..set.flows() {
        assert_eq!(b.rate[f], set.line[f]);
        let rel = (a.normalized[f] as f64 - b.normalized[f]).abs() / b.normalized[f];
        assert!(rel < 1e-4, "flow {f}: {rel}");
    }
}

// ---- pull layout ----

/// A flow set on `links` unrelated links (capacities 0.5-2 units) with paths of 1-4 distinct
/// links placed in random slots among the dummies, and weights 0.5-3: no Clos structure.
fn random_set(flows: usize, links: usize, seed: u64) -> FlowSet {
    use rand::Rng;
    let mut rng = dctc_core::rng::component_rng(seed, 0x7465);
    let mut capacity: Vec<f64> = (0..links).map(|_| rng.random_range(0.5..2.0)).collect();
    capacity.push(f64::INFINITY);
    let dummy = links as u32;
    let (mut slots, mut weight, mut line) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..flows {
        let n = rng.random_range(1..=4usize);
        let mut path: Vec<u32> = Vec::new();
        while path.len() < n {
            let l = rng.random_range(0..links) as u32;
            if !path.contains(&l) {
                path.push(l);
            }
        }
        let mut s = [dummy; 4];
        let mut at: Vec<usize> = (0..4).collect();
        while at.len() > n {
            at.remove(rng.random_range(0..at.len()));
        }
        for (i, &a) in at.iter().enumerate() {
            s[a] = path[i];
        }
        slots.extend(s);
        weight.push(rng.random_range(0.5..3.0));
        line.push(
            path.iter()
                .map(|&l| capacity[l as usize])
                .fold(f64::INFINITY, f64::min),
        );
    }
    FlowSet {
        capacity,
        links: slots,
        weight,
        line,
        block: vec![0; flows],
        block_start: vec![0, flows],
        link_start: vec![0, links],
        dummy: links,
        unit: 10e9,
    }
}

/// Runs the generic NED `iterations` times; F-NORM rates and prices.
fn generic_run(set: &FlowSet, iterations: usize) -> (Vec<f64>, Vec<f64>) {
    let mut p = generic(set);
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    for _ in 0..iterations {
        ned.iterate(&mut p, &mut st);
    }
    let mut x = st.sub_rate.clone();
    f_norm(p.capacity_scaled(), p.paths(), &mut x);
    (x, st.prices.clone())
}

fn assert_close(a: &[f64], b: &[f64], rel: f64, floor: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= rel * x.abs().max(floor),
            "{what}[{i}]: {x} vs {y}"
        );
    }
}

#[test]
fn pull_f64_matches_the_generic_ned_and_f_norm_on_a_clos() {
    let set = Clos::for_nodes(96, 2).random_flows(400, 7);
    let (x, p) = generic_run(&set, 30);
    let mut pull = Pull::<f64>::new(&set).unwrap();
    for _ in 0..30 {
        pull.iterate();
    }
    assert_close(&x, &pull.normalized(), 1e-12, 0.0, "normalized");
    assert_close(&p, &pull.prices()[..set.links()], 1e-12, 1e-9, "prices");
}

#[test]
fn pull_f64_matches_the_generic_path_on_paths_of_one_to_four_links() {
    for (flows, links, seed) in [(300, 40, 1), (1003, 150, 2), (37, 5, 3)] {
        let set = random_set(flows, links, seed);
        let (x, p) = generic_run(&set, 25);
        let mut pull = Pull::<f64>::new(&set).unwrap();
        for _ in 0..25 {
            pull.iterate();
        }
        assert_close(&x, &pull.normalized(), 1e-12, 0.0, "normalized");
        assert_close(&p, &pull.prices()[..links], 1e-12, 1e-9, "prices");
    }
}

#[test]
fn fused_f_norm_reports_the_previous_iteration() {
    // The flow pass of iteration t computes F-NORM of iteration t - 1.
    let set = random_set(500, 60, 4);
    let mut a = Pull::<f64>::new(&set).unwrap();
    for _ in 0..10 {
        a.iterate();
    }
    let before = a.normalized();
    a.iterate();
    assert_eq!(before, a.normalized_previous());
    assert_ne!(before, a.normalized());
}

#[test]
fn pull_f32_agrees_with_f64_to_1e_4() {
    for set in [
        Clos::for_nodes(384, 1).random_flows(3072, 3),
        random_set(2000, 300, 5),
    ] {
        let mut a = Pull::<f64>::new(&set).unwrap();
        let mut b = Pull::<f32>::new(&set).unwrap();
        for _ in 0..200 {
            a.iterate();
            b.iterate();
        }
        assert_close(&a.normalized(), &b.normalized(), 1e-4, 0.0, "normalized");
    }
}

#[test]
fn every_kernel_gives_the_portable_results_bit_for_bit() {
    // Ragged sizes (flows not a multiple of the lanes, slices of unequal length) and both
    // precisions. On a CPU without AVX-512 or AVX2 the kernels fall back and agree trivially.
    for (flows, links, seed) in [(1003, 150, 6), (77, 9, 7), (5000, 700, 8)] {
        let set = random_set(flows, links, seed);
        let run32 = |k: Kernel| {
            let mut p = Pull::<f32>::with_kernel(&set, k).unwrap();
            for _ in 0..20 {
                p.iterate();
            }
            (p.normalized(), p.prices())
        };
        let run64 = |k: Kernel| {
            let mut p = Pull::<f64>::with_kernel(&set, k).unwrap();
            for _ in 0..20 {
                p.iterate();
            }
            (p.normalized(), p.prices())
        };
        let (a32, a64) = (run32(Kernel::Portable), run64(Kernel::Portable));
        for k in [Kernel::Avx2, Kernel::Avx512] {
            assert_eq!(a32, run32(k), "{k:?} f32");
            assert_eq!(a64, run64(k), "{k:?} f64");
        }
    }
}

#[test]
fn every_kernel_gives_the_portable_results_bit_for_bit_on_several_threads() {
    // The parallel split of the link pass (per-thread link sums, then their sum per link) has
    // explicit AVX-512 kernels of its own; they must match the portable code too.
    for (flows, links, seed) in [(1003, 150, 16), (5000, 700, 17)] {
        let set = random_set(flows, links, seed);
        for threads in [2, 3] {
            let run = |k: Kernel| {
                let mut p = PullParallel::<f32>::with_kernel(&set, threads, k).unwrap();
                p.run(7);
                p.run(13);
                (p.normalized(), p.prices(0), p.prices(threads - 1))
            };
            let a = run(Kernel::Portable);
            assert_eq!(a.1, a.2, "copies differ");
            for k in [Kernel::Avx2, Kernel::Avx512] {
                assert_eq!(a, run(k), "{k:?}, {threads} threads");
            }
        }
    }
}

#[test]
fn pull_parallel_matches_single_thread() {
    for set in [
        Clos::for_nodes(384, 1).random_flows(3072, 5),
        random_set(1500, 200, 9),
    ] {
        let mut single = Pull::<f64>::new(&set).unwrap();
        for _ in 0..25 {
            single.iterate();
        }
        // One thread: the same arithmetic in the same order.
        let mut one = PullParallel::<f64>::new(&set, 1).unwrap();
        one.run(10);
        one.run(15);
        assert_eq!(single.normalized(), one.normalized());
        assert_eq!(single.prices(), one.prices(0));
        // Several threads: tail sums add per-thread partial sums; every copy of the prices
        // is the same.
        for threads in [2, 3] {
            let mut par = PullParallel::<f64>::new(&set, threads).unwrap();
            par.run(25);
            assert_close(
                &single.normalized(),
                &par.normalized(),
                1e-9,
                0.0,
                "normalized",
            );
            for t in 1..threads {
                assert_eq!(par.prices(0), par.prices(t));
            }
        }
    }
}

#[test]
fn layout_places_every_flow_once_and_splits_paths_into_head_and_tail() {
    let set = random_set(700, 50, 10);
    let lay = Layout::new(&set).unwrap();
    let mut seen = vec![0; set.flows()];
    for (r, row) in lay.flow_at.iter().enumerate() {
        let k = lay.rows.partition_point(|&s| s as usize <= r) - 1;
        for (j, &f) in row.iter().enumerate() {
            if f == u32::MAX {
                continue;
            }
            seen[f as usize] += 1;
            let [h0, h1] = lay.heads[k * W + j];
            let [t0, t1] = lay.tails[lay.tail_at[r][j] as usize];
            let ext = |l: u32| lay.link_of[l as usize];
            let got: Vec<u32> = [h0, h1, t0, t1]
                .into_iter()
                .map(ext)
                .filter(|&l| l as usize != set.dummy)
                .collect();
            let want: Vec<u32> = set.links[4 * f as usize..4 * f as usize + 4]
                .iter()
                .copied()
                .filter(|&l| l as usize != set.dummy)
                .collect();
            assert_eq!(got, want, "flow {f}");
        }
    }
    assert!(seen.iter().all(|&n| n == 1));
}

#[test]
fn layout_rejects_empty_paths_unknown_links_bad_weights_and_bad_shapes() {
    let mut set = random_set(10, 5, 11);
    set.links[8..12].copy_from_slice(&[5; 4]);
    assert_eq!(Layout::new(&set).unwrap_err(), LayoutError::EmptyPath(2));
    set.links[8] = 9;
    assert!(matches!(
        Layout::new(&set).unwrap_err(),
        LayoutError::UnknownLink {
            flow: 2,
            link: 9,
            ..
        }
    ));
}

#[test]
fn pull_f_norm_never_overloads_and_converges() {
    let set = Clos::for_nodes(384, 1).random_flows(3072, 9);
    let mut pull = Pull::<f64>::new(&set).unwrap();
    for _ in 0..300 {
        pull.iterate();
    }
    let x = pull.normalized();
    let mut load = vec![0.0; set.capacity.len()];
    for f in 0..set.flows() {
        for &l in &set.links[4 * f..4 * f + 4] {
            load[l as usize] += x[f];
        }
    }
    for l in 0..set.links() {
        assert!(load[l] <= set.capacity[l] * (1.0 + 1e-12));
    }
    for (a, r) in x.iter().zip(pull.rates()) {
        assert!((a - r).abs() <= 1e-6 * r);
    }
}

#[test]
fn pull_zero_prices_give_line_rate_and_finite_prices() {
    let set = Clos::for_nodes(384, 1).random_flows(3072, 5);
    let zero = vec![0.0; set.capacity.len()];
    let mut a = Pull::<f32>::new(&set).unwrap();
    a.set_prices(&zero);
    a.iterate();
    let mut b = Pull::<f64>::new(&set).unwrap();
    b.set_prices(&zero);
    b.iterate();
    let (ra, rb, na, nb) = (a.rates(), b.rates(), a.normalized(), b.normalized());
    for f in 0..set.flows() {
        assert_eq!(ra[f], set.line[f] as f32 as f64);
        assert_eq!(rb[f], set.line[f]);
        assert!(na[f].is_finite() && na[f] > 0.0);
        assert!((na[f] - nb[f]).abs() / nb[f] < 1e-4, "flow {f}");
    }
    let p = a.prices();
    assert!(p.iter().all(|p| p.is_finite() && *p >= 0.0));
    assert!(p[..set.links()].iter().any(|p| *p > 0.0));
}

#[test]
fn tiny_flow_sets_and_more_threads_than_slices() {
    // No flow: prices stay at 1, nothing to normalize.
    let empty = random_set(0, 4, 12);
    let mut p = Pull::<f64>::new(&empty).unwrap();
    p.iterate();
    assert!(p.normalized().is_empty());
    assert_eq!(&p.prices()[..4], &[1.0; 4]);
    // One flow, and a few flows on 5 threads (most threads own no slice).
    for flows in [1, 10] {
        let set = random_set(flows, 6, 13);
        let (x, prices) = generic_run(&set, 15);
        let mut single = Pull::<f64>::new(&set).unwrap();
        for _ in 0..15 {
            single.iterate();
        }
        assert_close(&x, &single.normalized(), 1e-12, 0.0, "normalized");
        assert_close(&prices, &single.prices()[..6], 1e-12, 1e-9, "prices");
        let mut par = PullParallel::<f64>::new(&set, 5).unwrap();
        par.run(15);
        assert_close(&x, &par.normalized(), 1e-9, 0.0, "parallel");
    }
}
