//! Oracle tests: Flowtune's rate normalizers (§4, eq. 8-9) and the update threshold (§6.4),
//! against hand-computed examples and the formulas recomputed here.

mod common;
use common::{close, Rng};
use dctc_num::normalize::{f_norm, link_ratios, u_norm, Normalize, Notifier};
use dctc_num::solver::{run_to_convergence, Ned, RunStatus, Solver, State};
use dctc_num::{Csr, NumFlow, Problem, Utility};

/// Hand example. Links: capacities 10, 4, 8. Flows: A on {0, 1}, B on {0}, C on {1, 2},
/// D on {2}, with rates 3, 9, 3, 2. Loads 12, 6, 5: ratios r = 1.2, 1.5, 0.625.
/// F-NORM (eq. 9): A / max(1.2, 1.5) = 2, B / 1.2 = 7.5, C / max(1.5, 0.625) = 2,
/// D / 0.625 = 3.2 (an under-used path is scaled *up*: eq. 9 divides by r < 1 too).
/// New loads 9.5, 4, 5.2: none above capacity.
/// U-NORM (eq. 8): r* = 1.5, every rate / 1.5.
#[test]
fn f_norm_and_u_norm_hand_example() {
    let caps = [10.0, 4.0, 8.0];
    let paths = Csr::from_rows(vec![vec![0u32, 1], vec![0], vec![1, 2], vec![2]]);
    let rates = [3.0, 9.0, 3.0, 2.0];
    let r = link_ratios(&caps, &paths, &rates);
    for (g, w) in r.iter().zip([1.2, 1.5, 0.625]) {
        assert!(close(*g, w, 1e-12), "ratios {r:?}");
    }
    let mut f = rates;
    f_norm(&caps, &paths, &mut f);
    for (g, w) in f.iter().zip([2.0, 7.5, 2.0, 3.2]) {
        assert!(close(*g, w, 1e-12), "F-NORM {f:?}");
    }
    let after = link_ratios(&caps, &paths, &f);
    for (g, w) in after.iter().zip([0.95, 1.0, 0.65]) {
        assert!(close(*g, w, 1e-12), "F-NORM loads {after:?}");
    }
    let mut u = rates;
    let worst = u_norm(&caps, &paths, &mut u);
    assert!(close(worst, 1.5, 1e-12));
    for (g, x) in u.iter().zip(rates) {
        assert!(close(*g, x / 1.5, 1e-12), "U-NORM {u:?}");
    }
}

/// Random rates on random paths: F-NORM leaves no link above capacity and applies eq. 9
/// exactly; U-NORM divides every rate by one factor r* = max ratio, keeps every ratio
/// x_i / x_j, and leaves the worst link exactly full.
#[test]
fn normalizers_on_random_instances() {
    let mut rng = Rng::new(0xf00d);
    for case in 0..500 {
        let nl = 1 + rng.below(8);
        let nf = 1 + rng.below(20);
        let caps: Vec<f64> = (0..nl).map(|_| 1e9 * (0.5 + 10.0 * rng.unit())).collect();
        let rows: Vec<Vec<u32>> = (0..nf)
            .map(|_| {
                let len = 1 + rng.below(nl.min(4));
                let mut r: Vec<u32> = Vec::new();
                while r.len() < len {
                    let l = rng.below(nl) as u32;
                    if !r.contains(&l) {
                        r.push(l);
                    }
                }
                r
            })
            .collect();
        let paths = Csr::from_rows(rows.clone());
        let rates: Vec<f64> = (0..nf).map(|_| 1e10 * rng.unit() + 1.0).collect();
        // My own ratios.
        let mut load = vec![0.0; nl];
        for (row, &x) in rows.iter().zip(&rates) {
            for &l in row {
                load[l as usize] += x;
            }
        }
        let ratio: Vec<f64> = load.iter().zip(&caps).map(|(x, c)| x / c).collect();

        let mut f = rates.clone();
        f_norm(&caps, &paths, &mut f);
        let mut fload = vec![0.0; nl];
        for (s, (row, &x)) in rows.iter().zip(&f).enumerate() {
            let m = row.iter().map(|&l| ratio[l as usize]).fold(0.0, f64::max);
            assert!(close(x, rates[s] / m, 1e-12), "case {case}: eq. 9 flow {s}");
            for &l in row {
                fload[l as usize] += x;
            }
        }
        for l in 0..nl {
            assert!(
                fload[l] <= caps[l] * (1.0 + 1e-12),
                "case {case}: F-NORM left link {l} at {} > {}",
                fload[l],
                caps[l]
            );
        }

        let mut u = rates.clone();
        let star = u_norm(&caps, &paths, &mut u);
        let want_star = ratio.iter().cloned().fold(0.0, f64::max);
        assert!(close(star, want_star, 1e-12), "case {case}: r*");
        for (s, (&a, &b)) in u.iter().zip(&rates).enumerate() {
            assert!(close(a * star, b, 1e-12), "case {case}: U-NORM flow {s}");
        }
        let after = link_ratios(&caps, &paths, &u);
        let top = after.iter().cloned().fold(0.0, f64::max);
        assert!(close(top, 1.0, 1e-12), "case {case}: worst link full");
        // F-NORM never gives a flow less than U-NORM does (it divides by its own path's max
        // ratio, which is at most r*).
        for (a, b) in f.iter().zip(&u) {
            assert!(*a >= *b * (1.0 - 1e-12));
        }
    }
}

/// The normalizers applied to an unconverged NED iterate of a real problem (prices from 1,
/// two flows per unit-capacity link: overloaded): F-NORM removes every overload.
#[test]
fn f_norm_removes_overload_of_early_ned_iterates() {
    let c = 1e10;
    let mut p = Problem::new(c);
    let links: Vec<usize> = (0..4)
        .map(|i| p.add_link(format!("l{i}"), c).unwrap())
        .collect();
    let paths = [
        vec![0, 1],
        vec![1, 2, 3],
        vec![0],
        vec![2],
        vec![3],
        vec![1],
    ];
    for (i, path) in paths.iter().enumerate() {
        let path: Vec<usize> = path.iter().map(|&k| links[k]).collect();
        p.add_flow(NumFlow::new(
            format!("f{i}"),
            path,
            Utility::Log { weight: 1.0 },
        ))
        .unwrap();
    }
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    let mut saw_overload = false;
    for it in 0..30 {
        ned.iterate(&mut p, &mut st);
        let raw = st.sub_rates_bps(&p);
        saw_overload |= p.max_overload_bps(&raw) > 1e-3 * c;
        let mut f = raw.clone();
        Normalize::FNorm.apply(p.capacity_bps(), p.paths(), &mut f);
        assert!(
            p.max_overload_bps(&f) <= 1e-9 * c,
            "iteration {it}: F-NORM overload {}",
            p.max_overload_bps(&f)
        );
        let mut u = raw.clone();
        Normalize::UNorm.apply(p.capacity_bps(), p.paths(), &mut u);
        assert!(p.max_overload_bps(&u) <= 1e-9 * c);
    }
    assert!(
        saw_overload,
        "the test needs overloaded iterates to mean anything"
    );
}

/// Flowtune §6.4: with threshold 0.01 a flow told 1 Gb/s is told again only above 1.01 or
/// below 0.99 Gb/s; the allocator then allocates 99% of each link.
#[test]
fn update_threshold_and_capacity_factor() {
    let mut n = Notifier::new(0.01);
    let mut told = vec![f64::NAN];
    assert_eq!(n.update(&[1e9], &mut told), 1, "first rate is always sent");
    for x in [1.009e9, 0.991e9, 1.0099e9] {
        assert_eq!(n.update(&[x], &mut told), 0, "{x} is within 1%");
    }
    assert_eq!(told[0], 1e9);
    assert_eq!(n.update(&[1.0101e9], &mut told), 1);
    assert_eq!(told[0], 1.0101e9);
    assert_eq!(n.update(&[0.9e9], &mut told), 1);
    assert_eq!(n.sent, 3);
    assert!(close(n.capacity_factor(), 0.99, 1e-12));

    // A converged allocation with the factor applied fills 99% of the link.
    let c = 1e10;
    let mut p = Problem::new(c);
    let l = p.add_link("l", c).unwrap();
    for (i, w) in [1.0, 3.0].iter().enumerate() {
        p.add_flow(NumFlow::new(
            format!("f{i}"),
            vec![l],
            Utility::Log { weight: *w },
        ))
        .unwrap();
    }
    p.set_capacity_factor(n.capacity_factor());
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    assert_eq!(
        run_to_convergence(&mut ned, &mut p, &mut st, 1e-9, 100_000),
        RunStatus::Converged
    );
    let x = st.flow_rates_bps(&p);
    assert!(close(x[0], 0.25 * 0.99 * c, 1e-6), "{x:?}");
    assert!(close(x[1], 0.75 * 0.99 * c, 1e-6), "{x:?}");
}
