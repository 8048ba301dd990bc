//! DBA's price iteration on the Fig. 7 snapshot: faithfulness checks of eq. (12)-(14) and the
//! measurements behind the README's "Known gaps" (price trajectory of a bottleneck link).

mod common;
use common::dba144;
use dctc_core::rng::mix64;
use dctc_core::topology::{NodeKind, Topology};
use dctc_core::units::Delta;
use dctc_core::units::Rate;
use dctc_core::units::SimTime;
use dctc_flow::engine::{SimConfig, Simulator};
use dctc_flow::make_policy;
use dctc_flow::policy::dba::Dba;
use dctc_flow::policy::dba_ideal::DbaIdeal;
use dctc_flow::policy::{Coupling, RatePolicy, View};
use dctc_flow::workload::{parse_trace, Placement, TraceSpec};
use dctc_flow::FlowInput;
use dctc_flow::{CoflowInput, Net, PolicyConfig};
use std::cell::RefCell;
use std::rc::Rc;

/// The Fig. 7 scenario's snapshot: the first 40 trace coflows, 8 x 8, sizes x 1000.
fn fig7_set(net: &Net) -> Vec<CoflowInput> {
    let path = "../../data/coflow/FB2010-1Hr-150-0.txt";
    let text = std::fs::read_to_string(path).unwrap();
    let trace = parse_trace(path, &text).unwrap();
    let spec = TraceSpec {
        path: path.into(),
        load: 1.0,
        cv: 0.5,
        placement: Placement::Random,
        max_coflows: Some(40),
        skip_coflows: 0,
        max_mappers: Some(8),
        max_reducers: Some(8),
        size_scale: 1.0,
    };
    let mut cf = spec.build(&trace, net, mix64(1)).unwrap();
    for c in &mut cf {
        c.arrival = SimTime::ZERO;
        for f in &mut c.flows {
            f.bytes *= 1000.0;
        }
    }
    cf
}

type Log = Rc<RefCell<Vec<Vec<f64>>>>;

/// Wraps DBA and records every link's price after each tick.
struct Probe {
    inner: Dba,
    links: usize,
    log: Log,
    zero: Rc<RefCell<Vec<usize>>>,
}

impl RatePolicy for Probe {
    fn name(&self) -> &str {
        "dba"
    }
    fn coupling(&self) -> Coupling {
        self.inner.coupling()
    }
    fn allocate(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) {
        self.inner.allocate(v, comp, rates)
    }
    fn on_arrivals(&mut self, v: &View<'_>, flows: &[u32]) {
        self.inner.on_arrivals(v, flows)
    }
    fn on_completion(&mut self, v: &View<'_>, flow: u32) {
        self.inner.on_completion(v, flow)
    }
    fn tick_period(&self) -> Option<Delta> {
        self.inner.tick_period()
    }
    fn wants_tick(&self) -> bool {
        self.inner.wants_tick()
    }
    fn tick(&mut self, v: &View<'_>, active: &[u32], rates: &mut [f64]) {
        self.inner.tick(v, active, rates);
        let p = (0..self.links as u32)
            .map(|l| self.inner.price(l))
            .collect();
        self.log.borrow_mut().push(p);
        let zero = active
            .iter()
            .filter(|&&f| self.inner.weight(f) >= 1e10)
            .count();
        self.zero.borrow_mut().push(zero);
    }
}

struct Trajectory {
    /// Flows at the initial weight (zero path price) after each tick.
    zero: Vec<usize>,
    /// rates[k][i] after iteration k.
    rates: Vec<Vec<f64>>,
    /// prices[k][l] after tick k.
    prices: Vec<Vec<f64>>,
    ideal: Vec<f64>,
    /// Flows per link (active set).
    on_link: Vec<Vec<usize>>,
}

fn trajectory(net: &Net, cf: Vec<CoflowInput>, cfg: &PolicyConfig, iters: usize) -> Trajectory {
    let log: Log = Rc::new(RefCell::new(Vec::new()));
    let zero = Rc::new(RefCell::new(Vec::new()));
    let probe = Probe {
        inner: Dba::new(cfg, net).unwrap(),
        links: net.links(),
        log: log.clone(),
        zero: zero.clone(),
    };
    let mut sim = Simulator::new(net, cf, Box::new(probe), SimConfig::default());
    let period = net.rtt;
    let mut rates = Vec::new();
    let mut nop = |_t: SimTime| {};
    for k in 0..=iters {
        sim.advance(SimTime(period.ps() * k as u64 + period.ps() / 2), &mut nop);
        rates.push(sim.flows.rate.clone());
    }
    let active = sim.active_flows();
    assert_eq!(
        active.len(),
        sim.flows.len(),
        "a flow finished in the window"
    );
    let v = View {
        now: sim.now(),
        net,
        flows: &sim.flows,
        coflows: &sim.coflows,
    };
    let mut ideal = vec![0.0; active.len()];
    DbaIdeal::with_epsilon(cfg.epsilon.unwrap_or(0.5), net.links())
        .allocate(&v, &active, &mut ideal);
    let mut on_link = vec![Vec::new(); net.links()];
    for &f in &active {
        for h in sim.flows.hops(f as usize) {
            on_link[h.link as usize].push(f as usize);
        }
    }
    let prices = log.borrow().clone();
    let zero = zero.borrow().clone();
    Trajectory {
        zero,
        rates,
        prices,
        ideal,
        on_link,
    }
}

fn within(t: &Trajectory, k: usize) -> usize {
    t.rates[k]
        .iter()
        .zip(&t.ideal)
        .filter(|(r, o)| (*r - *o).abs() <= 0.01 * o.max(1e8))
        .count()
}

#[test]
#[ignore = "diagnostic: prints DBA's price trajectory on the Fig. 7 snapshot"]
fn print_fig7_price_trajectory() {
    let net = dba144();
    for (label, cfg) in variants() {
        let iters: usize = std::env::var("DBA_ITERS")
            .map(|x| x.parse().unwrap())
            .unwrap_or(40);
        let t = trajectory(&net, fig7_set(&net), &cfg, iters);
        let n = t.ideal.len();
        // The busiest link that is saturated at the optimum.
        let cap = &net.cap;
        let mut best = (0usize, 0usize);
        for (l, fl) in t.on_link.iter().enumerate() {
            let load: f64 = fl.iter().map(|&f| t.ideal[f]).sum();
            if load > 0.999 * cap[l] && fl.len() > best.1 {
                best = (l, fl.len());
            }
        }
        let l = best.0;
        println!(
            "== {label}: {n} flows; link {l} ({} flows, saturated at the optimum)",
            best.1
        );
        let counts: Vec<String> = [3, 5, 10, 20, 40]
            .iter()
            .map(|&k| format!("{k}:{}", within(&t, k)))
            .collect();
        println!("   within 1% after RTTs {}", counts.join(" "));
        let z: Vec<String> = [3, 5, 10, 20, 39]
            .iter()
            .filter(|&&k| k < t.zero.len())
            .map(|&k| format!("{}:{}", k + 1, t.zero[k]))
            .collect();
        println!(
            "   flows with zero path price (weight 1e10) after tick {}",
            z.join(" ")
        );
        let last = t.rates.len() - 1;
        let mut errs: Vec<f64> = (0..n)
            .map(|i| (t.rates[last][i] - t.ideal[i]).abs() / t.ideal[i].max(1e8))
            .collect();
        errs.sort_by(f64::total_cmp);
        let mut moves: Vec<f64> = (0..n)
            .map(|i| {
                (last.saturating_sub(10)..last)
                    .map(|k| (t.rates[k + 1][i] - t.rates[k][i]).abs() / t.rates[k][i].max(1e8))
                    .fold(0.0, f64::max)
            })
            .collect();
        moves.sort_by(f64::total_cmp);
        let q = |v: &[f64], p: f64| v[((v.len() - 1) as f64 * p) as usize];
        println!(
            "   after {last}: |rate/ideal - 1| p50 {:.3} p90 {:.3} max {:.3}; largest per-RTT rate move over the last 10 RTTs p50 {:.3} p90 {:.3}",
            q(&errs, 0.5), q(&errs, 0.9), q(&errs, 1.0), q(&moves, 0.5), q(&moves, 0.9)
        );
        if std::env::var("DBA_FLOWS").is_ok() {
            // Three unsettled flows: the median, p75 and p90 of the final error.
            let mut by_err: Vec<(f64, usize)> = (0..n)
                .map(|i| {
                    (
                        (t.rates[last][i] - t.ideal[i]).abs() / t.ideal[i].max(1e8),
                        i,
                    )
                })
                .collect();
            by_err.sort_by(|a, b| a.0.total_cmp(&b.0));
            for p in [0.6, 0.75, 0.9] {
                let i = by_err[((n - 1) as f64 * p) as usize].1;
                let seq: Vec<String> = (last.saturating_sub(15)..=last)
                    .map(|k| format!("{:.2}", t.rates[k][i] / t.ideal[i]))
                    .collect();
                println!(
                    "   flow {i} (ideal {:.3} Gb/s, {} links): rate/ideal over the last 16 RTTs {}",
                    t.ideal[i] / 1e9,
                    t.on_link.iter().filter(|f| f.contains(&i)).count(),
                    seq.join(" ")
                );
            }
        }
        if std::env::var("DBA_TRACE").is_err() {
            continue;
        }
        for k in 0..t.prices.len() {
            let load: f64 = t.on_link[l].iter().map(|&f| t.rates[k + 1][f]).sum();
            println!(
                "iter {:>3}: within 1% {:>3}/{n}  price[{l}] {:>12.5e}  load/cap {:.4}",
                k + 1,
                within(&t, k + 1),
                t.prices[k][l],
                load / cap[l]
            );
        }
    }
}

fn variants() -> Vec<(&'static str, PolicyConfig)> {
    let g = |gamma: f64, momentum: &str, lag: usize| PolicyConfig {
        gamma: Some(gamma),
        ..v(0.0, false, momentum, lag, true)
    };
    let only = std::env::var("DBA_VARIANT").ok();
    let all = vec![
        ("old-default exactT", v(1.0, true, "none", 0, true)),
        ("old-default learnedT", v(1.0, true, "none", 0, false)),
        (
            "published std lag0 exactT",
            v(0.0, false, "standard", 0, true),
        ),
        (
            "published std lag1 exactT",
            v(0.0, false, "standard", 1, true),
        ),
        ("published none lag0 exactT", v(0.0, false, "none", 0, true)),
        ("published none lag1 exactT", v(0.0, false, "none", 1, true)),
        (
            "published printed lag0 exactT",
            v(0.0, false, "as-printed", 0, true),
        ),
        ("fixes std lag0 exactT", v(1.0, true, "standard", 0, true)),
        ("fixes none lag1 exactT", v(1.0, true, "none", 1, true)),
        ("gamma1e-11 none lag0", g(1e-11, "none", 0)),
        ("gamma1e-11 std lag0", g(1e-11, "standard", 0)),
        ("gamma1e-12 none lag0", g(1e-12, "none", 0)),
        ("gamma1e-10 none lag0", g(1e-10, "none", 0)),
        ("gamma1e-11 none lag1", g(1e-11, "none", 1)),
        (
            "old-default dev_step 0.5",
            PolicyConfig {
                dev_step: Some(0.5),
                ..v(1.0, true, "none", 0, true)
            },
        ),
        (
            "old-default dev_step 0.2",
            PolicyConfig {
                dev_step: Some(0.2),
                ..v(1.0, true, "none", 0, true)
            },
        ),
    ];
    all.into_iter()
        .filter(|(l, _)| only.as_deref().is_none_or(|o| l.contains(o)))
        .collect()
}

fn v(gamma_rel: f64, clamp: bool, momentum: &str, lag: usize, exact: bool) -> PolicyConfig {
    PolicyConfig {
        remaining_time: Some(if exact { "exact" } else { "learned" }.into()),
        gamma_rel: Some(gamma_rel),
        clamp_unsaturated: Some(clamp),
        momentum: Some(momentum.into()),
        lag: Some(lag),
        ..PolicyConfig::named("dba")
    }
}

/// Parking lot: S0 -(1 Gb/s)- S1 -(2 Gb/s)- S2, two 100 Gb/s hosts per switch (0, 1 on S0;
/// 2, 3 on S1; 4, 5 on S2). Flows: long 0 -> 4 (2e9 B), 1 -> 2 (1e9 B), 3 -> 5 (3e9 B), each
/// its own coflow. Both inner links are saturated at the optimum; the 100 Gb/s host links
/// are not (their prices must be 0, KKT 7(b)).
fn parking_lot() -> (Net, Vec<CoflowInput>) {
    let gbps = |g: f64| Rate((g * 1e9) as u64);
    let mut t = Topology::new("parking-lot", Delta::ZERO);
    let s: Vec<_> = (0..3)
        .map(|i| t.add_node(NodeKind::Switch { tier: 1 }, format!("s{i}")))
        .collect();
    for (i, &sw) in s.iter().enumerate() {
        for j in 0..2 {
            let h = t.add_node(NodeKind::Host, format!("h{}", 2 * i + j));
            t.add_cable(h, sw, gbps(100.0), Delta::from_us(1), 100_000, 100_000);
        }
    }
    t.add_cable(s[0], s[1], gbps(1.0), Delta::from_us(1), 100_000, 100_000);
    t.add_cable(s[1], s[2], gbps(2.0), Delta::from_us(1), 100_000, 100_000);
    let cf = [(0, 4, 2e9), (1, 2, 1e9), (3, 5, 3e9)]
        .iter()
        .enumerate()
        .map(|(i, &(src, dst, bytes))| CoflowInput {
            id: i as u32,
            arrival: SimTime::ZERO,
            flows: vec![FlowInput { src, dst, bytes }],
        })
        .collect();
    (Net::new(t).unwrap(), cf)
}

/// The optimum of problem (2) on the parking lot (eps 0.5; T = 16, 8, 12 s) by bisection on
/// the long flow's rate x: U'_long(x) = U'_b(1e9 - x) + U'_c(2e9 - x).
fn lot_optimum() -> [f64; 3] {
    let u = |b: f64, t: f64| 0.5 * b.powf(-0.5) / t;
    let g = |x: f64| u(x, 16.0) - u(1e9 - x, 8.0) - u(2e9 - x, 12.0);
    let (mut lo, mut hi) = (1e-3, 1e9 - 1e-3);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let x = 0.5 * (lo + hi);
    [x, 1e9 - x, 2e9 - x]
}

/// Rates after `iters` iterations on the parking lot, and the largest relative error.
fn lot_error(cfg: &PolicyConfig, iters: u64) -> (Vec<f64>, f64) {
    let (net, cf) = parking_lot();
    let p = make_policy(cfg, &net, &[]).unwrap();
    let mut sim = Simulator::new(&net, cf, p, SimConfig::default());
    let rtt = net.rtt.ps();
    sim.advance(SimTime(iters * rtt + rtt / 2), &mut |_| {});
    let opt = lot_optimum();
    let r = sim.flows.rate.clone();
    let err = r
        .iter()
        .zip(&opt)
        .map(|(a, b)| (a - b).abs() / b)
        .fold(0.0, f64::max);
    (r, err)
}

/// Eq. (12) as printed (no departures, exact remaining times) with a given gamma.
fn printed(gamma: f64) -> PolicyConfig {
    PolicyConfig {
        gamma: Some(gamma),
        gamma_rel: Some(0.0),
        clamp_unsaturated: Some(false),
        momentum: Some("none".into()),
        remaining_time: Some("exact".into()),
        ..PolicyConfig::named("dba")
    }
}

#[test]
fn eq12_capacity_term_is_in_bits_per_second() {
    // gamma (B_l - sum beta b_i) with B_l in b/s: gamma = 1e-11 lowers a price by ~1 per
    // iteration on a 100 Gb/s host link that carries ~1 Gb/s, enough to hold the host links'
    // prices at 0 (KKT 7(b)), and eq. (12) as printed then reaches the optimum. On normalized
    // capacities (B' <= 1) the same gamma is inert.
    let (r, err) = lot_error(&printed(1e-11), 60);
    assert!(err < 0.01, "rates {r:?} vs optimum {:?}", lot_optimum());
}

#[test]
fn with_the_papers_gamma_eq12_as_printed_misses_the_optimum() {
    // The paper's gamma = 5e-18 moves a 100 Gb/s link's price by at most 5e-7 per iteration
    // while prices here are ~1: the capacity term is inert, the idle host links keep the
    // prices positive deviations gave them, and the rates stall far from the optimum (the
    // reason for the default departures `gamma_rel` and `clamp_unsaturated`).
    let (r, err) = lot_error(&printed(5e-18), 60);
    assert!(err > 0.5, "rates {r:?} vs optimum {:?}", lot_optimum());
    let (_, err) = lot_error(&PolicyConfig::named("dba"), 60);
    assert!(err < 0.01, "defaults: {err}");
}

#[test]
fn nu_and_lambda_updates_follow_eq_12_and_14() {
    use dctc_flow::policy::dba::{lambda_update, nu_update};
    // Eq. (12): empty 10 Gb/s link, the paper's gamma: 5e-18 * 1e10 = 5e-8.
    let nu = nu_update(1.0, 0.25, 5e-18, 1e10, 0.0);
    assert!((nu - (1.25 - 5e-8)).abs() < 1e-15, "{nu}");
    // Eq. (14): momentum and the projection at 0.
    assert!((lambda_update(2.0, 1.0, 0.5) - 2.5).abs() < 1e-15);
    assert_eq!(lambda_update(-1.0, 0.0, 0.0), 0.0);
}
