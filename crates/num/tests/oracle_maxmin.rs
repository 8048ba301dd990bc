//! Oracle tests of bounded weighted max-min (`maxmin::bounded_weighted_max_min`): on random
//! instances the result is feasible and satisfies the max-min optimality condition with
//! minimum rates (every flow below its maximum has a full link on which its normalized rate
//! `x / w` is the largest among the flows above their minimum); with no minimums it equals
//! the plain water-filling; and on tiny instances no point of a fine grid over the feasible
//! set is lexicographically better (leximin of the normalized rates).

#![allow(clippy::needless_range_loop)] // parallel arrays indexed by link and flow

mod common;

use common::Rng;
use dctc_num::maxmin::{
    bounded_weighted_max_min, multipath_max_min, weighted_max_min, MultipathFlow,
};
use dctc_num::Csr;

struct Inst {
    caps: Vec<f64>,
    routes: Vec<Vec<u32>>,
    w: Vec<f64>,
    min: Vec<f64>,
    max: Vec<f64>,
}

/// Random links and flows; minimums drawn and then scaled down per link until they fit (so
/// many links are filled, or nearly filled, by minimums alone).
fn instance(rng: &mut Rng) -> Inst {
    let nl = 1 + rng.below(5);
    let nf = 1 + rng.below(8);
    let caps: Vec<f64> = (0..nl).map(|_| 1.0 + 9.0 * rng.unit()).collect();
    let mut routes = Vec::new();
    let mut w = Vec::new();
    let mut min = Vec::new();
    let mut max = Vec::new();
    for _ in 0..nf {
        let len = 1 + rng.below(nl.min(3));
        let mut r: Vec<u32> = Vec::new();
        while r.len() < len {
            let l = rng.below(nl) as u32;
            if !r.contains(&l) {
                r.push(l);
            }
        }
        routes.push(r);
        w.push([1.0, 2.0, 0.5, 3.0][rng.below(4)] * (0.5 + rng.unit()));
        min.push(if rng.below(2) == 0 {
            0.0
        } else {
            4.0 * rng.unit()
        });
        max.push(f64::INFINITY);
    }
    // Scale the minimums so that every link fits them; on some instances exactly.
    let mut factor: f64 = 1.0;
    for l in 0..nl {
        let need: f64 = (0..nf)
            .filter(|&f| routes[f].contains(&(l as u32)))
            .map(|f| min[f])
            .sum();
        if need > 0.0 {
            factor = factor.min(caps[l] / need);
        }
    }
    if rng.below(3) == 0 {
        factor *= 0.999_999_999_999_9; // a link exactly filled by minimums (to rounding)
    } else {
        factor *= 0.3 + 0.6 * rng.unit();
    }
    for f in 0..nf {
        min[f] *= factor.min(1.0);
        max[f] = match rng.below(3) {
            0 => min[f] + 3.0 * rng.unit(),
            1 if min[f] > 0.0 && rng.below(3) == 0 => min[f], // theta = Theta
            _ => f64::INFINITY,
        };
    }
    Inst {
        caps,
        routes,
        w,
        min,
        max,
    }
}

fn solve(inst: &Inst) -> Vec<f64> {
    let routes = Csr::from_rows(inst.routes.clone());
    bounded_weighted_max_min(&inst.caps, &routes, &inst.w, &inst.min, &inst.max)
        .expect("minimums fit")
}

/// Feasibility and the max-min optimality condition (see the module docs), tolerance `tol`.
fn violation(inst: &Inst, x: &[f64], tol: f64) -> Option<String> {
    let nl = inst.caps.len();
    let mut load = vec![0.0; nl];
    for (f, r) in inst.routes.iter().enumerate() {
        if !(x[f] >= inst.min[f] * (1.0 - tol) && x[f] <= inst.max[f] * (1.0 + tol)) {
            return Some(format!(
                "flow {f} = {} outside [{}, {}]",
                x[f], inst.min[f], inst.max[f]
            ));
        }
        for &l in r {
            load[l as usize] += x[f];
        }
    }
    for l in 0..nl {
        if load[l] > inst.caps[l] * (1.0 + tol) {
            return Some(format!("link {l} load {} > {}", load[l], inst.caps[l]));
        }
    }
    for (f, r) in inst.routes.iter().enumerate() {
        if x[f] >= inst.max[f] * (1.0 - tol) {
            continue;
        }
        let mine = x[f] / inst.w[f];
        let blocked = r.iter().any(|&l| {
            let l = l as usize;
            load[l] >= inst.caps[l] * (1.0 - tol)
                && (0..x.len())
                    .filter(|&g| inst.routes[g].contains(&(l as u32)))
                    .filter(|&g| x[g] > inst.min[g] + tol * inst.caps[l])
                    .all(|g| x[g] / inst.w[g] <= mine * (1.0 + tol) + tol)
        });
        if !blocked {
            return Some(format!(
                "flow {f} (x {}, x/w {mine}) could grow: no full link where it is the \
                 largest; x = {x:?}, loads {load:?}",
                x[f]
            ));
        }
    }
    None
}

fn check(inst: &Inst, x: &[f64], tol: f64, what: &str) {
    if let Some(v) = violation(inst, x, tol) {
        panic!("{what}: {v}");
    }
}

#[test]
fn random_instances_satisfy_the_max_min_condition() {
    let mut rng = Rng::new(0x5eed_00b0);
    for case in 0..500 {
        let inst = instance(&mut rng);
        let x = solve(&inst);
        check(&inst, &x, 1e-9, &format!("case {case}"));
    }
}

/// The condition check itself rejects allocations that are not max-min: the plain
/// water-filling (which ignores minimums) wherever it breaks one, and the bounded result with
/// one flow above its minimum shrunk halfway to it.
#[test]
fn the_condition_check_has_teeth() {
    let mut rng = Rng::new(0x5eed_00b1);
    let (mut caught, mut plain) = (0, 0);
    for _ in 0..200 {
        let inst = instance(&mut rng);
        let x = solve(&inst);
        let routes = Csr::from_rows(inst.routes.clone());
        let y = weighted_max_min(&inst.caps, &routes, &inst.w, &inst.max);
        if (0..y.len()).any(|f| y[f] < inst.min[f] * (1.0 - 1e-9)) {
            assert!(violation(&inst, &y, 1e-9).is_some());
            plain += 1;
        }
        // Shrink the first flow that is above its minimum: it (or the link it fills) now
        // has room, so the check must fail.
        if let Some(f) = (0..x.len()).find(|&f| x[f] > inst.min[f] + 1e-3) {
            let mut y = x.clone();
            y[f] = inst.min[f] + 0.5 * (x[f] - inst.min[f]);
            assert!(
                violation(&inst, &y, 1e-9).is_some(),
                "shrinking flow {f} went unnoticed: {x:?}"
            );
            caught += 1;
        }
    }
    assert!(caught > 100 && plain > 20, "{caught} {plain}");
}

#[test]
fn zero_minimums_match_plain_water_filling() {
    let mut rng = Rng::new(0x5eed_00b2);
    for case in 0..300 {
        let mut inst = instance(&mut rng);
        inst.min.iter_mut().for_each(|m| *m = 0.0);
        let x = solve(&inst);
        let routes = Csr::from_rows(inst.routes.clone());
        let y = weighted_max_min(&inst.caps, &routes, &inst.w, &inst.max);
        for (a, b) in x.iter().zip(&y) {
            assert!(
                (a - b).abs() <= 1e-12 * b.abs().max(1.0),
                "case {case}: {x:?} vs {y:?}"
            );
        }
    }
}

/// Normalized rates sorted ascending (the leximin key).
fn key(x: &[f64], w: &[f64]) -> Vec<f64> {
    let mut k: Vec<f64> = x.iter().zip(w).map(|(a, b)| a / b).collect();
    k.sort_by(f64::total_cmp);
    k
}

/// -1, 0, 1: `a` lexicographically below, equal to (within `tol`), above `b`.
fn lex(a: &[f64], b: &[f64], tol: f64) -> i32 {
    for (x, y) in a.iter().zip(b) {
        if x < &(y - tol) {
            return -1;
        }
        if x > &(y + tol) {
            return 1;
        }
    }
    0
}

/// Tiny instances (two links of integer capacity, three flows, weights 1 or 2, minimums and
/// maximums on a 1/4 grid): the best grid point (step 1/120; the third flow set to the most
/// it can take, which never lowers the leximin key) is not lexicographically above the
/// water-filling result.
#[test]
fn tiny_instances_no_grid_point_is_leximin_better() {
    let mut rng = Rng::new(0x5eed_00b3);
    let step = 1.0 / 120.0;
    let mut checked = 0;
    while checked < 12 {
        let caps = vec![(1 + rng.below(3)) as f64, (1 + rng.below(3)) as f64];
        let routes: Vec<Vec<u32>> = (0..3)
            .map(|_| match rng.below(3) {
                0 => vec![0],
                1 => vec![1],
                _ => vec![0, 1],
            })
            .collect();
        let w: Vec<f64> = (0..3).map(|_| (1 + rng.below(2)) as f64).collect();
        let min: Vec<f64> = (0..3).map(|_| rng.below(3) as f64 * 0.25).collect();
        let max: Vec<f64> = (0..3)
            .map(|f| match rng.below(3) {
                0 => min[f] + (1 + rng.below(4)) as f64 * 0.25,
                _ => f64::INFINITY,
            })
            .collect();
        let inst = Inst {
            caps,
            routes,
            w,
            min,
            max,
        };
        let r = Csr::from_rows(inst.routes.clone());
        let Ok(x) = bounded_weighted_max_min(&inst.caps, &r, &inst.w, &inst.min, &inst.max) else {
            continue; // minimums do not fit
        };
        checked += 1;
        check(&inst, &x, 1e-9, "tiny");
        let fits = |y: &[f64]| {
            (0..2).all(|l| {
                let load: f64 = (0..3)
                    .filter(|&f| inst.routes[f].contains(&(l as u32)))
                    .map(|f| y[f])
                    .sum();
                load <= inst.caps[l] + 1e-12
            })
        };
        let top = |f: usize| {
            inst.routes[f]
                .iter()
                .map(|&l| inst.caps[l as usize])
                .fold(inst.max[f], f64::min)
        };
        let mut best: Option<Vec<f64>> = None;
        let grid = |f: usize| {
            let lo = inst.min[f];
            let n = ((top(f) - lo) / step + 1e-9).floor() as usize;
            (0..=n).map(move |k| lo + k as f64 * step)
        };
        for a in grid(0) {
            for b in grid(1) {
                // The third flow: the most it can take on this grid.
                let room = inst.routes[2].iter().fold(top(2), |m, &l| {
                    let used: f64 = [a, b]
                        .iter()
                        .enumerate()
                        .filter(|(f, _)| inst.routes[*f].contains(&l))
                        .map(|(_, v)| v)
                        .sum();
                    m.min(inst.caps[l as usize] - used)
                });
                if room < inst.min[2] - 1e-12 {
                    continue;
                }
                let c = inst.min[2] + ((room - inst.min[2]) / step + 1e-9).floor().max(0.0) * step;
                let y = [a, b, c];
                if !fits(&y) {
                    continue;
                }
                let k = key(&y, &inst.w);
                if best.as_ref().is_none_or(|b| lex(&k, b, 0.0) > 0) {
                    best = Some(k);
                }
            }
        }
        let best = best.expect("the minimums are a grid point");
        let ours = key(&x, &inst.w);
        assert!(
            lex(&ours, &best, 1e-9) >= 0,
            "grid point {best:?} beats water-filling {ours:?} ({x:?})"
        );
    }
}

fn as_multipath(inst: &Inst) -> Vec<MultipathFlow> {
    (0..inst.w.len())
        .map(|f| MultipathFlow {
            paths: vec![inst.routes[f].iter().map(|&l| l as usize).collect()],
            weight: inst.w[f],
            min: inst.min[f],
            max: inst.max[f],
        })
        .collect()
}

/// With each flow's one path given twice (so there is a split to choose and the LPs run),
/// progressive filling by LPs on flow totals equals the bounded water-filling (two
/// independent methods for one definition); with one path each it is the water-filling.
#[test]
fn multipath_max_min_equals_water_filling_on_single_paths() {
    let mut rng = Rng::new(0x5eed_00b4);
    for case in 0..150 {
        let inst = instance(&mut rng);
        let x = solve(&inst);
        let single = as_multipath(&inst);
        assert_eq!(multipath_max_min(&inst.caps, &single).unwrap(), x);
        let twice: Vec<MultipathFlow> = (single.into_iter())
            .map(|f| MultipathFlow {
                paths: vec![f.paths[0].clone(), f.paths[0].clone()],
                ..f
            })
            .collect();
        let split = multipath_max_min(&inst.caps, &twice).unwrap();
        let y: Vec<f64> = split.chunks(2).map(|p| p[0] + p[1]).collect();
        for (f, (a, b)) in x.iter().zip(&y).enumerate() {
            assert!(
                (a - b).abs() <= 1e-7 * a.abs().max(1.0),
                "case {case}: flow {f}: water-filling {a} vs LP {b}; {x:?} vs {y:?}"
            );
        }
    }
}

/// HOLNET §IV-B's multipath instance: mp over a (60) | b (100), sp over b: max-min on flow
/// totals is 80 / 80 (mp: 60 + 20); with mp's maximum at 70: 70 / 90.
#[test]
fn multipath_max_min_on_totals_holnet() {
    let flows = |max: f64| {
        vec![
            MultipathFlow {
                paths: vec![vec![0], vec![1]],
                weight: 1.0,
                min: 0.0,
                max,
            },
            MultipathFlow {
                paths: vec![vec![1]],
                weight: 1.0,
                min: 0.0,
                max: f64::INFINITY,
            },
        ]
    };
    let y = multipath_max_min(&[60.0, 100.0], &flows(f64::INFINITY)).unwrap();
    assert!(
        (y[0] + y[1] - 80.0).abs() < 1e-9 && (y[2] - 80.0).abs() < 1e-9,
        "{y:?}"
    );
    let y = multipath_max_min(&[60.0, 100.0], &flows(70.0)).unwrap();
    assert!(
        (y[0] + y[1] - 70.0).abs() < 1e-9 && (y[2] - 90.0).abs() < 1e-9,
        "{y:?}"
    );
    assert!(y[0] <= 60.0 + 1e-9 && y[1] + y[2] <= 100.0 + 1e-9, "{y:?}");
}

/// Tiny multipath instances (links of capacity 1-3, one flow split over two one-link paths,
/// two single-path flows, weights 1 or 2, quarter-step minimums and maximums): no point of a
/// grid (step 1/24) over the split and the first single-path flow, the second taking all it
/// can, has a leximin-better vector of normalized *totals* than `multipath_max_min`.
#[test]
fn multipath_tiny_instances_no_grid_point_is_leximin_better() {
    let mut rng = Rng::new(0x5eed_00b5);
    let step = 1.0 / 24.0;
    let mut checked = 0;
    while checked < 12 {
        let nl = 2 + rng.below(2);
        let caps: Vec<f64> = (0..nl).map(|_| (1 + rng.below(3)) as f64).collect();
        let a = rng.below(nl);
        let b = (a + 1 + rng.below(nl - 1)) % nl;
        let single = |rng: &mut Rng| -> Vec<usize> {
            let l = rng.below(nl);
            if rng.below(2) == 0 {
                vec![l]
            } else {
                let m = (l + 1) % nl;
                vec![l, m]
            }
        };
        let mut flows = vec![MultipathFlow {
            paths: vec![vec![a], vec![b]],
            weight: (1 + rng.below(2)) as f64,
            min: rng.below(3) as f64 * 0.25,
            max: f64::INFINITY,
        }];
        for _ in 0..2 {
            let min = rng.below(2) as f64 * 0.25;
            flows.push(MultipathFlow {
                paths: vec![single(&mut rng)],
                weight: (1 + rng.below(2)) as f64,
                min,
                max: if rng.below(3) == 0 {
                    min + 0.5
                } else {
                    f64::INFINITY
                },
            });
        }
        let Ok(y) = multipath_max_min(&caps, &flows) else {
            continue; // minimums do not fit
        };
        checked += 1;
        let totals = [y[0] + y[1], y[2], y[3]];
        let w: Vec<f64> = flows.iter().map(|f| f.weight).collect();
        // Our allocation is feasible.
        let load = |y: &[f64; 4]| -> Vec<f64> {
            let mut l = vec![0.0; nl];
            l[a] += y[0];
            l[b] += y[1];
            for (f, v) in [(1, y[2]), (2, y[3])] {
                for &m in &flows[f].paths[0] {
                    l[m] += v;
                }
            }
            l
        };
        let ours = [y[0], y[1], y[2], y[3]];
        assert!(y.iter().all(|&v| v >= -1e-12), "{y:?}");
        for (l, v) in load(&ours).iter().enumerate() {
            assert!(*v <= caps[l] + 1e-9, "{y:?}");
        }
        for (f, &x) in totals.iter().enumerate() {
            assert!(
                x >= flows[f].min - 1e-9 && x <= flows[f].max + 1e-9,
                "{y:?}"
            );
        }
        let grid = |lo: f64, hi: f64| {
            let n = ((hi - lo) / step + 1e-9).floor().max(-1.0);
            (0..=(n as i64)).map(move |k| lo + k as f64 * step)
        };
        let mut best: Option<Vec<f64>> = None;
        for y0 in grid(0.0, caps[a]) {
            for y1 in grid(0.0, caps[b]) {
                let xm = y0 + y1;
                if xm < flows[0].min - 1e-12 || xm > flows[0].max + 1e-12 {
                    continue;
                }
                for xa in grid(flows[1].min, flows[1].max.min(3.0)) {
                    let partial = load(&[y0, y1, xa, 0.0]);
                    let room = flows[2].paths[0]
                        .iter()
                        .fold(flows[2].max.min(3.0), |r, &m| r.min(caps[m] - partial[m]));
                    if room < flows[2].min - 1e-12 || (0..nl).any(|l| partial[l] > caps[l] + 1e-12)
                    {
                        continue;
                    }
                    let xb = flows[2].min
                        + ((room - flows[2].min) / step + 1e-9).floor().max(0.0) * step;
                    let k = key(&[xm, xa, xb], &w);
                    if best.as_ref().is_none_or(|b| lex(&k, b, 0.0) > 0) {
                        best = Some(k);
                    }
                }
            }
        }
        let best = best.expect("a feasible grid point");
        let ours = key(&totals, &w);
        assert!(
            lex(&ours, &best, 1e-9) >= 0,
            "grid point {best:?} beats LP max-min {ours:?} ({y:?}, caps {caps:?})"
        );
    }
}
