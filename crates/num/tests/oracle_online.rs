//! Oracle tests: online NUM (Flowtune §3, last paragraph of Alg. 1; §4): flows leave and
//! arrive and capacities change while prices persist; NED re-converges to the new optimum,
//! which is derived here in closed form or taken from a fresh reference solve.

mod common;
use common::{close, Rng};
use dctc_num::reference::{self, Status};
use dctc_num::solver::{run_to_convergence, Ned, RunStatus, Solver, State};
use dctc_num::{FlowKey, NumFlow, Problem, Utility};

const C: f64 = 1e10;
const LOG: Utility = Utility::Log { weight: 1.0 };

/// Line network: `long` over links a and b, `s_a` on a, `s_b` on b, capacity C each, unit C.
fn line() -> (Problem, [FlowKey; 3]) {
    let mut p = Problem::new(C);
    let a = p.add_link("a", C).unwrap();
    let b = p.add_link("b", C).unwrap();
    let k0 = p.add_flow(NumFlow::new("long", vec![a, b], LOG)).unwrap();
    let k1 = p.add_flow(NumFlow::new("s_a", vec![a], LOG)).unwrap();
    let k2 = p.add_flow(NumFlow::new("s_b", vec![b], LOG)).unwrap();
    (p, [k0, k1, k2])
}

fn converge(ned: &mut Ned, p: &mut Problem, st: &mut State) {
    assert_eq!(
        run_to_convergence(ned, p, st, 1e-9, 100_000),
        RunStatus::Converged
    );
}

fn rate_of(p: &Problem, st: &State, name: &str) -> f64 {
    let f = p.flow_names().iter().position(|n| n == name).unwrap();
    st.flow_rates_bps(p)[f]
}

/// Before: long C/3, shorts 2C/3, prices (scaled by C) 1/(2/3) = 1.5 on both links.
/// Remove `s_a`: the first iteration computes rates from the *old* prices (long = 1/3,
/// s_b = 2/3 of C), not from a reset to 1 (which would give 1/2 and 1). Then link a is no
/// longer a bottleneck: optimum long = s_b = C/2, p_a = 0, p_b = 1/(1/2) = 2.
#[test]
fn departure_keeps_prices_and_reconverges() {
    let (mut p, keys) = line();
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    converge(&mut ned, &mut p, &mut st);
    assert!(close(st.prices[0], 1.5, 1e-6) && close(st.prices[1], 1.5, 1e-6));
    let old = st.prices.clone();
    let iterations = st.iterations;

    p.remove_flow(keys[1]).unwrap();
    ned.iterate(&mut p, &mut st);
    assert_eq!(st.iterations, iterations + 1, "state continues");
    assert!(close(
        rate_of(&p, &st, "long"),
        C / (old[0] + old[1]),
        1e-12
    ));
    assert!(close(rate_of(&p, &st, "s_b"), C / old[1], 1e-12));

    converge(&mut ned, &mut p, &mut st);
    assert!(close(rate_of(&p, &st, "long"), C / 2.0, 1e-6));
    assert!(close(rate_of(&p, &st, "s_b"), C / 2.0, 1e-6));
    assert!(st.prices[0] <= 1e-9, "idle link a price {}", st.prices[0]);
    assert!(close(st.prices[1], 2.0, 1e-6));
}

/// Arrival of `s_c` on link b: its first rate is (U')^-1(p_b) at the current price (1/1.5 of
/// C). New PF optimum: long x, s_a = C - x, s_b = s_c = (C - x)/2, with
/// 1/x = p_a + p_b = 1/(C - x) + 2/(C - x), so x = C/4, s_a = 3C/4, s_b = s_c = 3C/8.
#[test]
fn arrival_starts_from_current_prices_and_reconverges() {
    let (mut p, _) = line();
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    converge(&mut ned, &mut p, &mut st);
    let pb = st.prices[1];
    p.add_flow(NumFlow::new("s_c", vec![1], LOG)).unwrap();
    ned.iterate(&mut p, &mut st);
    assert!(close(rate_of(&p, &st, "s_c"), C / pb, 1e-12));
    converge(&mut ned, &mut p, &mut st);
    for (name, want) in [
        ("long", C / 4.0),
        ("s_a", 0.75 * C),
        ("s_b", 0.375 * C),
        ("s_c", 0.375 * C),
    ] {
        let got = rate_of(&p, &st, name);
        assert!(close(got, want, 1e-6), "{name}: {got:e} vs {want:e}");
    }
}

/// Capacity change on link a to 0.4 C: PF optimum 3x^2 - 2(c1 + c2)x + c1 c2 = 0 (from
/// 1/x = 1/(c1 - x) + 1/(c2 - x)).
#[test]
fn capacity_change_reconverges() {
    let (mut p, _) = line();
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    converge(&mut ned, &mut p, &mut st);
    let (c1, c2) = (0.4 * C, C);
    p.set_capacity(0, c1).unwrap();
    converge(&mut ned, &mut p, &mut st);
    let s = c1 + c2;
    let x = (s - (s * s - 3.0 * c1 * c2).sqrt()) / 3.0;
    for (name, want) in [("long", x), ("s_a", c1 - x), ("s_b", c2 - x)] {
        let got = rate_of(&p, &st, name);
        assert!(close(got, want, 1e-6), "{name}: {got:e} vs {want:e}");
    }
}

/// Random instances: converge, remove one or two flows, keep iterating from the old prices;
/// NED lands within 1e-3 of a fresh reference solve of the remaining flows.
#[test]
fn random_departures_reconverge_to_new_reference() {
    let mut rng = Rng::new(0x0411);
    for case in 0..30 {
        let nl = 3 + rng.below(4);
        let nf = 3 + rng.below(8);
        let mut specs = Vec::new();
        for i in 0..nf {
            let len = 1 + rng.below(3);
            let path = rng.distinct(nl, len);
            let u = Utility::Log {
                weight: 0.5 + 3.0 * rng.unit(),
            };
            specs.push(NumFlow::new(format!("f{i}"), path, u));
        }
        let caps: Vec<f64> = (0..nl).map(|_| 1e9 * (1.0 + 9.0 * rng.unit())).collect();
        let make = |specs: &[NumFlow]| {
            let mut p = Problem::new(1e10);
            for (i, &c) in caps.iter().enumerate() {
                p.add_link(format!("l{i}"), c).unwrap();
            }
            let keys: Vec<FlowKey> = specs
                .iter()
                .map(|s| p.add_flow(s.clone()).unwrap())
                .collect();
            (p, keys)
        };
        let (mut p, keys) = make(&specs);
        let mut ned = Ned::default();
        let mut st = State::new(&p, 1.0);
        converge(&mut ned, &mut p, &mut st);
        let gone: Vec<usize> = if nf > 4 && rng.below(2) == 0 {
            vec![0, nf - 1]
        } else {
            vec![rng.below(nf)]
        };
        let gone_keys: Vec<FlowKey> = gone.iter().map(|&i| keys[i]).collect();
        p.remove_flows(&gone_keys).unwrap();
        converge(&mut ned, &mut p, &mut st);
        let rest: Vec<NumFlow> = specs
            .iter()
            .enumerate()
            .filter(|(i, _)| !gone.contains(i))
            .map(|(_, s)| s.clone())
            .collect();
        let (mut fresh, _) = make(&rest);
        let sol = reference::solve(&mut fresh);
        assert_eq!(sol.status, Status::Solved);
        for (f, spec) in rest.iter().enumerate() {
            let got = rate_of(&p, &st, &spec.name);
            let want = sol.flow_rate_bps[f];
            assert!(
                close(got, want, 1e-3),
                "case {case}: {}: NED after departure {got:e} vs reference {want:e}",
                spec.name
            );
        }
    }
}

/// Minimum rates online (HOLNET eq. 11): a 10 Gb/s link holds a flow with theta = 6 Gb/s, so
/// a second theta = 6 Gb/s flow cannot join (12 > 10; the link and flow are named) until the
/// first has left. Then, beside an elastic flow of equal weight, the unconstrained optimum 5 / 5
/// violates theta, so the bound binds: 6 / 4.
#[test]
fn minimum_rates_are_booked_and_released_online() {
    let mut p = Problem::new(C);
    let l = p.add_link("l", C).unwrap();
    let mut a = NumFlow::new("a", vec![l], LOG);
    a.min_bps = 6e9;
    let ka = p.add_flow(a).unwrap();
    p.add_flow(NumFlow::new("e", vec![l], LOG)).unwrap();
    let mut b = NumFlow::new("b", vec![l], LOG);
    b.min_bps = 6e9;
    let err = p.add_flow(b.clone()).unwrap_err().to_string();
    assert!(err.contains("`l`") && err.contains("`b`"), "{err}");
    p.remove_flow(ka).unwrap();
    p.add_flow(b).expect("room again after the first left");
    let mut ned = Ned::default();
    let mut st = State::new(&p, 1.0);
    converge(&mut ned, &mut p, &mut st);
    assert!(close(rate_of(&p, &st, "b"), 6e9, 1e-6));
    assert!(close(rate_of(&p, &st, "e"), 4e9, 1e-6));
    let sol = reference::solve(&mut p);
    assert_eq!(sol.status, Status::Solved);
    assert!(close(sol.flow_rate_bps[0], 4e9, 1e-6) && close(sol.flow_rate_bps[1], 6e9, 1e-6));
}
