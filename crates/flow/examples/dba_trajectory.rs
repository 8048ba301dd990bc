//! DBA's price trajectory on the Fig. 7 snapshot (the measurements behind the README's
//! "Known gaps"): for each variant, flows within 1% of the optimum of problem (2) after 3 /
//! 5 / 10 / 20 / 40 RTTs, flows at zero path price, the final error and per-RTT rate moves;
//! optionally the busiest saturated link's price per RTT and three unsettled flows.
//!
//! `cargo run --release -p dctc-flow --example dba_trajectory -- [--variant SUBSTRING]
//! [--iters N] [--trace] [--flows]`
//!
//! - `--variant S`: only the variants whose label contains `S` (labels: see [`variants`]);
//! - `--iters N`: RTTs to run (default 40);
//! - `--trace`: the busiest saturated link's price and load per RTT;
//! - `--flows`: rate / optimum over the last 16 RTTs of three unsettled flows.

use dctc_core::fabric::preset;
use dctc_core::rng::mix64;
use dctc_core::units::{Delta, SimTime};
use dctc_flow::engine::{SimConfig, Simulator};
use dctc_flow::policy::dba::Dba;
use dctc_flow::policy::dba::DbaConfig;
use dctc_flow::policy::dba_ideal::DbaIdeal;
use dctc_flow::policy::{Coupling, RatePolicy, View};
use dctc_flow::workload::{parse_trace, Placement, TraceSpec};
use dctc_flow::{CoflowInput, Net};
use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

/// Command-line options.
struct Opts {
    variant: Option<String>,
    iters: usize,
    trace: bool,
    flows: bool,
}

fn main() {
    let mut opt = Opts {
        variant: None,
        iters: 40,
        trace: false,
        flows: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--variant" => opt.variant = Some(args.next().expect("--variant SUBSTRING")),
            "--iters" => {
                opt.iters = args
                    .next()
                    .and_then(|x| x.parse().ok())
                    .expect("--iters N (a whole number)")
            }
            "--trace" => opt.trace = true,
            "--flows" => opt.flows = true,
            other => {
                eprintln!(
                    "unknown argument `{other}`; usage: dba_trajectory [--variant S] [--iters N] [--trace] [--flows]"
                );
                std::process::exit(2);
            }
        }
    }
    print_fig7_price_trajectory(&opt);
}

/// The Fig. 7 scenario's snapshot: the first 40 trace coflows, 8 x 8, sizes x 1000.
fn fig7_set(net: &Net) -> Vec<CoflowInput> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/coflow/FB2010-1Hr-150-0.txt"
    );
    let text = std::fs::read_to_string(path).expect("the Facebook trace");
    let trace = parse_trace(path, &text).unwrap();
    let spec = TraceSpec {
        path: path.into(),
        load: 1.0,
        cv: 0.5,
        sizes: Default::default(),
        placement: Placement::Random,
        max_coflows: Some(40),
        skip_coflows: 0,
        max_mappers: Some(8),
        max_reducers: Some(8),
        size_scale: 1.0,
        arrivals: Default::default(),
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
            .filter(|&&f| self.inner.weight(f) == 1e10) // the initial weight: zero path price
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

fn trajectory(net: &Net, cf: Vec<CoflowInput>, cfg: &DbaConfig, iters: usize) -> Trajectory {
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

fn print_fig7_price_trajectory(opt: &Opts) {
    let net = Net::new(
        preset("dba-144")
            .expect("preset")
            .build(Path::new("."))
            .expect("dba-144"),
    )
    .expect("net");
    for (label, cfg) in variants(opt.variant.as_deref()) {
        let t = trajectory(&net, fig7_set(&net), &cfg, opt.iters);
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
        if opt.flows {
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
        if !opt.trace {
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

fn variants(only: Option<&str>) -> Vec<(&'static str, DbaConfig)> {
    let g = |gamma: f64, momentum: &str, lag: usize| DbaConfig {
        gamma: Some(gamma),
        ..v(0.0, false, momentum, lag, true)
    };
    let all = vec![
        ("defaults exactT", v(1.0, true, "none", 0, true)),
        ("defaults learnedT", v(1.0, true, "none", 0, false)),
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
            "defaults dev_step 0.5",
            DbaConfig {
                dev_step: Some(0.5),
                ..v(1.0, true, "none", 0, true)
            },
        ),
        (
            "defaults dev_step 0.2",
            DbaConfig {
                dev_step: Some(0.2),
                ..v(1.0, true, "none", 0, true)
            },
        ),
    ];
    all.into_iter()
        .filter(|(l, _)| only.is_none_or(|o| l.contains(o)))
        .collect()
}

fn v(gamma_rel: f64, clamp: bool, momentum: &str, lag: usize, exact: bool) -> DbaConfig {
    DbaConfig {
        remaining_time: Some(if exact { "exact" } else { "learned" }.into()),
        gamma_rel: Some(gamma_rel),
        clamp_unsaturated: Some(clamp),
        momentum: Some(momentum.into()),
        lag: Some(lag),
        ..DbaConfig::default()
    }
}
