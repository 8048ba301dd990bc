//! DBA as published (Zhang et al., §4.2.2): the timing of eq. (11)-(12) and eq. (10)'s range.

mod common;
use common::star;
use dctc_core::units::{Delta, SimTime};
use dctc_flow::policy::dba::{eq10_weight, Dba};
use dctc_flow::policy::{Coupling, RatePolicy, View};
use dctc_flow::{CoflowInput, FlowInput, SimConfig, Simulator};
use std::cell::RefCell;
use std::rc::Rc;

/// What a tick saw and left: the rates and remaining bytes on entry, every price after.
#[derive(Default)]
struct TickLog {
    rates_in: Vec<Vec<f64>>,
    rem_in: Vec<Vec<f64>>,
    prices: Vec<Vec<f64>>,
}

struct Probe {
    inner: Dba,
    links: u32,
    log: Rc<RefCell<TickLog>>,
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
        {
            let mut log = self.log.borrow_mut();
            log.rates_in.push(rates.to_vec());
            log.rem_in
                .push(active.iter().map(|&f| v.flows.rem[f as usize]).collect());
        }
        self.inner.tick(v, active, rates);
        let p = (0..self.links).map(|l| self.inner.price(l)).collect();
        self.log.borrow_mut().prices.push(p);
    }
}

#[test]
fn eq12_applies_the_deviations_computed_one_iteration_earlier() {
    // Two flows into host 2 of a 10 Gb/s star (the receiver's link is their bottleneck),
    // exact remaining times. DBA §4.2.2: in iteration t the sender computes e_i(t) from
    // b~_i(t-1) and stamps it on the window's last packet; the link collects it in `minDev`
    // during iteration t and applies it at the end of t (eq. 12, §4.3.3's switch). So the
    // deviations computed at a tick act on the prices at the next tick, not the same one.
    // Tick 1: both flows new (new-flow hold, no deviation); tick 2: first deviations
    // computed (from the rates of iteration 1), none yet at the links, prices stay 0;
    // tick 3: the link's price becomes min_i e_i(tick 2).
    let net = star(3, 10.0);
    let cf = (0..2)
        .map(|i| CoflowInput {
            id: i,
            arrival: SimTime::ZERO,
            flows: vec![FlowInput {
                src: i,
                dst: 2,
                bytes: 1e9 * (1.0 + i as f64),
            }],
        })
        .collect();
    let cfg = dctc_flow::policy::dba::DbaConfig {
        remaining_time: Some("exact".into()),
        ..Default::default()
    };
    let log = Rc::new(RefCell::new(TickLog::default()));
    let probe = Probe {
        inner: Dba::new(&cfg, &net).unwrap(),
        links: net.links() as u32,
        log: log.clone(),
    };
    let mut sim = Simulator::new(&net, cf, Box::new(probe), SimConfig::default());
    let rtt = net.rtt.ps();
    sim.advance(SimTime(3 * rtt + rtt / 2), &mut |_| {});
    let log = log.borrow();
    assert_eq!(log.prices.len(), 3, "three ticks");
    let down = sim.flows.hops(0).last().unwrap().link as usize;
    assert_eq!(sim.flows.hops(1).last().unwrap().link as usize, down);
    assert!(
        log.prices[1].iter().all(|&p| p == 0.0),
        "no deviation has reached a link by tick 2: {:?}",
        log.prices[1]
    );
    // Eq. (11) at tick 2 with P = 0 and beta = 1e10: e_i = (1 - eps) b_i^-eps / T_i / |L(i)|.
    let beta = 1e10;
    let e: Vec<f64> = (0..2)
        .map(|i| {
            let b = log.rates_in[1][i] / beta;
            let t = log.rem_in[1][i] * 8.0 / 1e10;
            0.5 * b.powf(-0.5) / t / 2.0
        })
        .collect();
    let want = e[0].min(e[1]);
    let got = log.prices[2][down];
    assert!(
        (got - want).abs() <= 1e-6 * want,
        "price after tick 3 {got} vs min e(tick 2) {want} (e {e:?})"
    );
}

#[test]
fn eq10_weight_is_unbounded_above_except_at_zero_price() {
    // (T P / (1 - eps))^(-1/eps): T = 10 us, P = 1e-3, eps 0.5 -> (2e-8)^-2 = 2.5e15, above
    // the initial weight 1e10 (the formula as printed; a small coflow on a cheap path
    // outweighs a new flow).
    let w = eq10_weight(1e-5, 1e-3, 0.5, 1e10);
    assert!((w / 2.5e15 - 1.0).abs() < 1e-12, "{w}");
    // At the optimum T P >= 1 for normalized rates <= 1, so weights there are <= 4.
    assert!((eq10_weight(2.0, 1.0, 0.5, 1e10) - 0.0625).abs() < 1e-15);
    // Zero path price: eq. (10) is infinite, the flow keeps the initial weight.
    assert_eq!(eq10_weight(1.0, 0.0, 0.5, 1e10), 1e10);
}
