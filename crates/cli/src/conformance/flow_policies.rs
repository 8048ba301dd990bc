//! The flow policies: each policy's rates, or its flows' and coflows' completion times, equal
//! its definition on an instance small enough to solve by hand. The expected values are closed
//! forms written here from the policies' papers (never the policies' own code), in units of
//! the link rate `c` and of milliseconds, so one instance checks every rate of [`RATES`].

use super::bench::RATES;
use super::{Case, Measured};
use dctc_core::error::KeyError;
use dctc_core::topology::{NodeKind, Topology};
use dctc_core::units::{Delta, Rate, SimTime};
use dctc_flow::engine::Simulator;
use dctc_flow::policy::ParseTable;
use dctc_flow::{make_policy, CoflowInput, FlowInput, Net, PolicyConfig, SimConfig};

/// A policy as a scenario names it: its registered name and extra `[[schemes]]` keys (TOML
/// text, for the link rate in Gb/s: a threshold in bytes scales with it).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Policy {
    name: &'static str,
    keys: fn(f64) -> String,
}

fn policy(name: &'static str) -> Policy {
    Policy {
        name,
        keys: |_| String::new(),
    }
}

/// The keys of a `[[schemes]]` table as the flow engine reads them.
struct Keys(toml::Table);

impl ParseTable for Keys {
    fn keys(&self) -> Vec<String> {
        self.0.keys().cloned().collect()
    }

    fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, KeyError> {
        toml::Value::Table(self.0.clone())
            .try_into()
            .map_err(|e: toml::de::Error| KeyError::new("conformance", e.to_string()))
    }
}

impl Policy {
    /// The policy config at `gbps`. Panics on keys the policy refuses: the suite's tables are
    /// fixed.
    fn config(&self, gbps: f64) -> PolicyConfig {
        let text = (self.keys)(gbps);
        let keys = Keys(toml::from_str(&text).expect("the suite's keys are valid TOML"));
        PolicyConfig::parse(self.name, None, &keys)
            .unwrap_or_else(|e| panic!("conformance policy `{}`: {e}", self.name))
    }
}

/// One hand-solvable instance at link rate `c`: a fabric and its coflows, every flow's size
/// in "units" (what a link of rate `c` carries in one millisecond).
struct Instance {
    net: Net,
    coflows: Vec<CoflowInput>,
}

/// Bytes a link of `gbps` carries in one millisecond.
fn unit(gbps: f64) -> f64 {
    gbps * 1e9 / 8.0 * 1e-3
}

fn rate(gbps: f64) -> Rate {
    Rate((gbps * 1e9).round() as u64)
}

/// Coflow `id` arriving at `at_ms`, its flows `(src host, dst host, units)`.
fn coflow(gbps: f64, id: u32, at_ms: f64, flows: &[(u32, u32, f64)]) -> CoflowInput {
    CoflowInput {
        id,
        arrival: SimTime::from_delta(Delta::from_secs_f64(at_ms * 1e-3)),
        flows: flows
            .iter()
            .map(|&(src, dst, units)| FlowInput {
                src,
                dst,
                bytes: units * unit(gbps),
            })
            .collect(),
    }
}

/// Each flow its own coflow, all arriving at 0.
fn singles(gbps: f64, flows: &[(u32, u32, f64)]) -> Vec<CoflowInput> {
    (flows.iter().enumerate())
        .map(|(i, &f)| coflow(gbps, i as u32, 0.0, &[f]))
        .collect()
}

/// A parking lot of `links` links at `gbps` (switches s0 - s1 - ... in a row, 1 us each)
/// with two hosts on every switch (hosts 2i and 2i + 1 on switch i) on links 100 times
/// faster, which never bind.
fn parking_lot(gbps: f64, links: usize) -> Net {
    let mut t = Topology::new("parking-lot", Delta::ZERO);
    let s: Vec<_> = (0..=links)
        .map(|i| t.add_node(NodeKind::Switch { tier: 1 }, format!("s{i}")))
        .collect();
    for (i, &sw) in s.iter().enumerate() {
        for j in 0..2 {
            let h = t.add_node(NodeKind::Host, format!("h{}", 2 * i + j));
            t.add_cable(
                h,
                sw,
                rate(100.0 * gbps),
                Delta::from_us(1),
                1 << 20,
                1 << 20,
            );
        }
    }
    for w in s.windows(2) {
        t.add_cable(w[0], w[1], rate(gbps), Delta::from_us(1), 1 << 20, 1 << 20);
    }
    Net::new(t).expect("the suite's parking lots are valid")
}

/// The giant switch of the coflow papers: `hosts` hosts on one switch, every port at `gbps`.
fn giant_switch(gbps: f64, hosts: usize) -> Net {
    let mut t = Topology::new("giant-switch", Delta::ZERO);
    let sw = t.add_node(NodeKind::Switch { tier: 1 }, "sw");
    for i in 0..hosts {
        let h = t.add_node(NodeKind::Host, format!("h{i}"));
        t.add_cable(h, sw, rate(gbps), Delta::from_us(1), 1 << 20, 1 << 20);
    }
    Net::new(t).expect("the suite's switches are valid")
}

/// DBA's Fig. 1(a): senders h0, h1, h2 each under its own leaf, receivers h3, h4, h5 under
/// a fourth; the leaves hang off one core switch; every link at `gbps`.
fn dba_fig1(gbps: f64) -> Net {
    let mut t = Topology::new("dba-fig1", Delta::ZERO);
    let core = t.add_node(NodeKind::Switch { tier: 2 }, "core");
    let leaves: Vec<_> = (0..4)
        .map(|i| t.add_node(NodeKind::Switch { tier: 1 }, format!("leaf{i}")))
        .collect();
    for &l in &leaves {
        t.add_cable(l, core, rate(gbps), Delta::from_us(1), 1 << 20, 1 << 20);
    }
    for i in 0..6 {
        let h = t.add_node(NodeKind::Host, format!("h{i}"));
        t.add_cable(
            h,
            leaves[i.min(3)],
            rate(gbps),
            Delta::from_us(1),
            1 << 20,
            1 << 20,
        );
    }
    Net::new(t).expect("DBA's Fig. 1 fabric is valid")
}

/// The parking lot of the rate cases: three links; one long flow across all three (host 0 ->
/// host 6), and `N_L = (1, 2, 1)` one-link flows on links 1, 2 and 3. Flow order: long, link
/// 1, link 2 (two), link 3.
fn lot_121(gbps: f64) -> Instance {
    let f = [
        (0, 6, 1e3),
        (1, 2, 1e3),
        (2, 4, 1e3),
        (3, 5, 1e3),
        (4, 7, 1e3),
    ];
    Instance {
        net: parking_lot(gbps, 3),
        coflows: singles(gbps, &f),
    }
}

/// One-link flows per link of [`lot_121`].
const LOT_121: [f64; 3] = [1.0, 2.0, 1.0];

/// The alpha-fair optimum on [`lot_121`], rates / c (alpha = infinity: max-min). With every
/// link saturated and the `n_l` flows of link l at `(c - x0) / n_l`, the long flow's KKT
/// condition `x0^-alpha = sum_l (n_l / (c - x0))^alpha` gives `x0 = c / (1 + ||n||_alpha)`
/// (Mo & Walrand 2000: alpha = 1 proportional fairness, `c / (1 + sum n_l)`; alpha -> inf
/// max-min, `c / (1 + max n_l)`, the water level of the most crowded link).
fn lot_121_alpha(alpha: f64) -> Vec<f64> {
    let norm = if alpha.is_infinite() {
        LOT_121.iter().cloned().fold(0.0, f64::max)
    } else {
        LOT_121
            .iter()
            .map(|n| n.powf(alpha))
            .sum::<f64>()
            .powf(1.0 / alpha)
    };
    let x0 = 1.0 / (1.0 + norm);
    let mut v = vec![x0];
    for &n in &LOT_121 {
        v.extend(std::iter::repeat_n((1.0 - x0) / n, n as usize));
    }
    v
}

/// Two links; one long flow across both (host 0 -> host 4) and one one-link flow on each
/// (1 -> 2, 3 -> 5), each its own coflow of `sizes` units (long, link 1, link 2).
fn lot_2(gbps: f64, sizes: [f64; 3]) -> Instance {
    let f = [(0, 4, sizes[0]), (1, 2, sizes[1]), (3, 5, sizes[2])];
    Instance {
        net: parking_lot(gbps, 2),
        coflows: singles(gbps, &f),
    }
}

/// The optimum of DBA's problem (2), `max sum_i b_i^(1-eps) / T_k(i)`, on [`lot_2`] with
/// equal sizes (every `T_k` equal), rates / c. KKT 7(a): `b_i = ((1 - eps) / (T P_i))^(1/eps)`
/// with path price `P_i`; both links saturate at one price p by symmetry, so the long flow
/// (`P = 2p`) gets `2^(-1/eps)` of a short flow's rate, and `b_long + b_short = c`.
fn dba_lot(eps: f64) -> Vec<f64> {
    let long = 1.0 / (1.0 + 2f64.powf(1.0 / eps));
    vec![long, 1.0 - long, 1.0 - long]
}

/// Two coflows on a four-port giant switch, both arriving at 0 (A first): A = {h0 -> h2: 4,
/// h1 -> h2: 2} (bottleneck h2's port, Gamma = 6 ms), B = {h0 -> h3: 2} (Gamma = 2 ms).
/// Flow order: A's two, B's.
fn two_coflows(gbps: f64) -> Instance {
    Instance {
        net: giant_switch(gbps, 4),
        coflows: vec![
            coflow(gbps, 0, 0.0, &[(0, 2, 4.0), (1, 2, 2.0)]),
            coflow(gbps, 1, 0.0, &[(0, 3, 2.0)]),
        ],
    }
}

/// DBA Fig. 1: C1 = {h0 -> h3: 2, h1 -> h4: 2}, C2 = {h2 -> h5: 3}, all through the core ->
/// receiving-leaf link.
fn fig1(gbps: f64) -> Instance {
    Instance {
        net: dba_fig1(gbps),
        coflows: vec![
            coflow(gbps, 0, 0.0, &[(0, 3, 2.0), (1, 4, 2.0)]),
            coflow(gbps, 1, 0.0, &[(2, 5, 3.0)]),
        ],
    }
}

/// Baraat's instance: coflow A = {h0 -> h2: 10} at 0, coflow B = {h1 -> h2: 1} at
/// `b_at_ms`, on a three-port giant switch (both end at h2's port).
fn baraat_pair(gbps: f64, b_at_ms: f64) -> Instance {
    Instance {
        net: giant_switch(gbps, 3),
        coflows: vec![
            coflow(gbps, 0, 0.0, &[(0, 2, 10.0)]),
            coflow(gbps, 1, b_at_ms, &[(1, 2, 1.0)]),
        ],
    }
}

/// What a case reads off the run.
#[derive(Copy, Clone, Debug)]
enum Measure {
    /// Every flow's rate / c after `rtts` base round trips and a half (no flow has finished
    /// by then; a ticking policy has run that many iterations).
    Rates { rtts: u64 },
    /// Every flow's finish time, ms.
    Finish,
    /// Every coflow's completion time, ms.
    Cct,
}

/// One flow-policy case: an instance, a measurement and its closed-form expectation.
#[derive(Copy, Clone)]
struct Spec {
    check: &'static str,
    policy: Policy,
    instance: fn(f64) -> Instance,
    setting: &'static str,
    measure: Measure,
    /// The expected values (rates / c or ms) and what they are.
    expected: fn() -> Vec<f64>,
    names: &'static str,
    /// Largest difference allowed, as a fraction of the expected value (of c, for rates).
    tol: f64,
    why: &'static str,
    known: Option<&'static str>,
}

/// Runs `s`'s instance at `gbps` under `p` and compares with `s`'s expectation.
fn check(s: &Spec, p: Policy, gbps: f64) -> Measured {
    let inst = (s.instance)(gbps);
    let sizes: Vec<f64> = (inst.coflows.iter())
        .map(|c| c.flows.iter().map(|f| f.bytes).sum())
        .collect();
    let pol = make_policy(&p.config(gbps), &inst.net, &sizes)
        .unwrap_or_else(|e| panic!("conformance policy `{}`: {e}", p.name));
    let cfg = SimConfig {
        audit: true,
        ..SimConfig::default()
    };
    let mut sim = Simulator::new(&inst.net, inst.coflows, pol, cfg);
    let got: Vec<f64> = match s.measure {
        Measure::Rates { rtts } => {
            let rtt = inst.net.rtt.ps();
            sim.advance(SimTime(rtts * rtt + rtt / 2), &mut |_| {});
            sim.flows.rate.iter().map(|r| r / (gbps * 1e9)).collect()
        }
        Measure::Finish => {
            let r = sim.run(|_| {});
            let ms = |f: Option<f64>| f.map_or(f64::INFINITY, |s| s * 1e3);
            r.flows.iter().map(|f| ms(f.finish_s)).collect()
        }
        Measure::Cct => {
            let r = sim.run(|_| {});
            let ms = |f: Option<f64>| f.map_or(f64::INFINITY, |s| s * 1e3);
            r.coflows.iter().map(|c| ms(c.cct_s)).collect()
        }
    };
    let want = (s.expected)();
    let ok = got.len() == want.len()
        && (got.iter().zip(&want)).all(|(g, w)| (g - w).abs() <= s.tol * w.abs().max(1.0));
    let list = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Measured::new(list(&got), ok)
}

/// The expectation of `s` as the table prints it.
fn expected_text(s: &Spec) -> String {
    let v = (s.expected)();
    let list = v
        .iter()
        .map(|x| format!("{x:.3}"))
        .collect::<Vec<_>>()
        .join(", ");
    format!("{}: {list} (within {})", s.names, s.tol)
}

/// The rates of a solver-free policy are exact to rounding.
const EXACT: f64 = 1e-6;
/// Completion times of event-driven policies are exact to the picosecond clock and rounding.
const EXACT_MS: f64 = 1e-6;

const MAXMIN_WHY: &str = "max-min fairness (Bertsekas & Gallager, Data Networks §6.5.2, \
    progressive filling): the most crowded link (link 2: the long flow and two others) fixes \
    the long flow at c/3; links 1 and 3 give their other flow what the long flow leaves, 2c/3 \
    (x0 = c / (1 + max n_l))";
const NUM_WHY: &str = "NUM with alpha-fair utilities (Mo & Walrand 2000; Flowtune §3): every \
    link saturates, a one-link flow of a link with n flows gets (c - x0)/n and the long flow's \
    KKT condition x0^-alpha = sum_l (n_l / (c - x0))^alpha gives x0 = c / (1 + ||n||_alpha): \
    c/5 for log utilities (proportional fairness, c/(1 + sum n_l)), c/(1 + sqrt 6) for alpha \
    = 2. Within 0.1% of c: NED stops once no rate moves by 1e-6 relative in an iteration";
const SEBF_WHY: &str = "Varys (SIGCOMM'14) §5.1: coflows in smallest-effective-bottleneck \
    -first order (B: Gamma 2 ms before A: 6 ms), each at MADD rates on what earlier ones left \
    (a coflow whose port is full waits), then leftover port bandwidth back-filled in that order: \
    B takes h0's port (1 c); A's h0 flow waits, its h1 flow is back-filled at c on h2's port \
    and ends at 2 ms with B; A's h0 flow then runs alone, ending at 6 ms. Flow finishes: A's \
    (6, 2), B's 2 ms";
const NO_BACKFILL_WHY: &str = "Varys §5.1 without back-filling: B (Gamma 2) first at c; A's \
    h0 flow has no port left, so A waits whole (MADD gives a coflow its bottleneck's pace or \
    nothing); from 2 ms A runs at MADD rates 4/6 and 2/6 of c and both flows end at 8 ms. Flow \
    finishes: A's (8, 8), B's 2 ms";
const FIFO_WHY: &str = "coflow FIFO (Orchestra/Baraat's arrival order, Varys §7 baseline): A \
    first at MADD rates (4/6, 2/6 of c: h2's port bounds it, Gamma 6 ms), then B on what A \
    left of h0's port (c/3), so B also ends at 6 ms. Flow finishes: A's (6, 6), B's 6 ms";
const BLIND_WHY: &str = "DBA (TPDS) §2.2, Fig. 1(b): Varys sees only the edge ports, where C1 \
    (Gamma 2) precedes C2 (Gamma 3); the three flows meet on the core -> leaf link, which the \
    fabric shares max-min (c/3 each), so C1 ends at 6 ms and C2 at 7 (average 6.5)";
const MRTF_C_WHY: &str = "DBA §2.2, Fig. 1(c): coflow minimum-remaining-time-first aware of \
    every link ranks C2 (3 ms on the core -> leaf link) before C1 (4 ms there): C2 takes the \
    link to 3 ms, C1 follows to 7 (average 5)";
const MRTF_F_WHY: &str = "flow minimum-remaining-time-first aware of every link (Fastpass's \
    timeslot allocator realizing MRTF, as DBA's evaluation uses it): the link-1 flow (1 ms \
    alone) and the link-2 flow (2 ms) go before the long flow (3 ms) and each takes its link; \
    the long flow waits until both links are free at 2 ms and ends at 5 ms. Flow finishes: \
    long 5, link 1: 1, link 2: 2 ms";
const BARAAT_WHY: &str = "Baraat (SIGCOMM'14), FIFO-LM: FIFO across tasks, and limited \
    multiplexing: a task that has sent more than the heavy threshold (here 2 units) no longer \
    blocks the one behind it. A (10 units) has sent 4 when B (1 unit) arrives at 4 ms, so they \
    share h2's port (c/2 each): B completes in 2 ms, A at 11 ms. CCTs: A 11, B 2 ms";
const BARAAT_CROSS_WHY: &str = "Baraat's FIFO-LM: heaviness is the task's bytes sent so far, so a \
    task turns heavy the moment it crosses the threshold, not at the next arrival. B (1 unit) \
    arrives at 1 ms while A has sent 1 of its 10 units (light: B waits); A crosses 2 units at \
    2 ms, and from then A and B share h2's port (c/2 each): B completes at 4 ms (CCT 3), A at \
    11. CCTs: A 11, B 3 ms";
const DBA_IDEAL_WHY: &str = "DBA (TPDS) problem (2), max sum b_i^(1-eps) / T_k with every T_k \
    equal here: KKT 7(a) gives b_i = ((1 - eps) / (T P_i))^(1/eps); both links saturate at one \
    price, the long flow pays two, so it gets 2^(-1/eps) of a one-link flow's rate: c/5 and \
    4c/5 at eps = 0.5. Within 0.1% of c: the dual solve stops within 1e-7 of capacity";
const DBA_WHY: &str = "DBA (TPDS) §4, Theorem 1: the per-RTT price iteration (eq. 9-14) \
    converges to the optimum of problem (2) at Theta(1/t^2), so after 100 iterations (round \
    trips) the rates are within 1% of c of it: c/5 for the long flow, 4c/5 for each one-link \
    flow (eps = 0.5, equal T_k; see dba-ideal)";

fn specs() -> Vec<Spec> {
    let rates_121 = "rates / c (long, link 1, link 2 x2, link 3)";
    let rates_lot2 = "rates / c (long, link 1, link 2)";
    vec![
        Spec {
            check: "max-min rates by progressive filling",
            policy: policy("maxmin"),
            instance: lot_121,
            setting: "3-link parking lot, 1 long + (1, 2, 1) one-link flows",
            measure: Measure::Rates { rtts: 1 },
            expected: || lot_121_alpha(f64::INFINITY),
            names: rates_121,
            tol: EXACT,
            why: MAXMIN_WHY,
            known: None,
        },
        Spec {
            check: "alpha-fair NUM optimum",
            policy: policy("num"),
            instance: lot_121,
            setting: "3-link parking lot, 1 long + (1, 2, 1) one-link flows, log utility",
            measure: Measure::Rates { rtts: 1 },
            expected: || lot_121_alpha(1.0),
            names: rates_121,
            tol: 1e-3,
            why: NUM_WHY,
            known: None,
        },
        Spec {
            check: "alpha-fair NUM optimum",
            policy: Policy {
                name: "num",
                keys: |_| "utility = { kind = \"alpha\", alpha = 2.0 }".into(),
            },
            instance: lot_121,
            setting: "3-link parking lot, 1 long + (1, 2, 1) one-link flows, alpha = 2",
            measure: Measure::Rates { rtts: 1 },
            expected: || lot_121_alpha(2.0),
            names: rates_121,
            tol: 1e-3,
            why: NUM_WHY,
            known: None,
        },
        Spec {
            check: "SEBF order, MADD rates, back-filling",
            policy: policy("varys"),
            instance: two_coflows,
            setting: "4-port giant switch, coflows A (4 + 2 units into h2) and B (2 units)",
            measure: Measure::Finish,
            expected: || vec![6.0, 2.0, 2.0],
            names: "flow finishes, ms (A h0, A h1, B)",
            tol: EXACT_MS,
            why: SEBF_WHY,
            known: None,
        },
        Spec {
            check: "bottleneck-blind on the core",
            policy: policy("varys"),
            instance: fig1,
            setting: "DBA Fig. 1, C1 (2 x 2 units) and C2 (3 units) on one core link",
            measure: Measure::Cct,
            expected: || vec![6.0, 7.0],
            names: "CCTs, ms (C1, C2)",
            tol: EXACT_MS,
            why: BLIND_WHY,
            known: None,
        },
        Spec {
            check: "SEBF order, MADD rates, no back-filling",
            policy: policy("varys-no-backfill"),
            instance: two_coflows,
            setting: "4-port giant switch, coflows A (4 + 2 units into h2) and B (2 units)",
            measure: Measure::Finish,
            expected: || vec![8.0, 8.0, 2.0],
            names: "flow finishes, ms (A h0, A h1, B)",
            tol: EXACT_MS,
            why: NO_BACKFILL_WHY,
            known: None,
        },
        Spec {
            check: "arrival order, MADD rates",
            policy: policy("coflow-fifo"),
            instance: two_coflows,
            setting: "4-port giant switch, coflows A (4 + 2 units into h2) and B (2 units)",
            measure: Measure::Finish,
            expected: || vec![6.0, 6.0, 6.0],
            names: "flow finishes, ms (A h0, A h1, B)",
            tol: EXACT_MS,
            why: FIFO_WHY,
            known: None,
        },
        Spec {
            check: "FIFO with limited multiplexing",
            policy: Policy {
                name: "baraat",
                keys: |g| format!("heavy_bytes = {}", 2.0 * unit(g)),
            },
            instance: |g| baraat_pair(g, 4.0),
            setting: "3-port giant switch, A (10 units) at 0, B (1 unit) at 4 ms, heavy at 2 units",
            measure: Measure::Cct,
            expected: || vec![11.0, 2.0],
            names: "CCTs, ms (A, B)",
            tol: EXACT_MS,
            why: BARAAT_WHY,
            known: None,
        },
        Spec {
            check: "turns heavy when it crosses the threshold",
            policy: Policy {
                name: "baraat",
                keys: |g| format!("heavy_bytes = {}", 2.0 * unit(g)),
            },
            instance: |g| baraat_pair(g, 1.0),
            setting: "3-port giant switch, A (10 units) at 0, B (1 unit) at 1 ms, heavy at 2 units",
            measure: Measure::Cct,
            expected: || vec![11.0, 3.0],
            names: "CCTs, ms (A, B)",
            tol: EXACT_MS,
            why: BARAAT_CROSS_WHY,
            known: None,
        },
        Spec {
            check: "flow MRTF aware of every link",
            policy: policy("fastpass-f"),
            instance: |g| lot_2(g, [3.0, 1.0, 2.0]),
            setting: "2-link parking lot, long (3 units) + one-link flows (1, 2 units)",
            measure: Measure::Finish,
            expected: || vec![5.0, 1.0, 2.0],
            names: "flow finishes, ms (long, link 1, link 2)",
            tol: EXACT_MS,
            why: MRTF_F_WHY,
            known: None,
        },
        Spec {
            check: "coflow MRTF aware of every link",
            policy: policy("fastpass-c"),
            instance: fig1,
            setting: "DBA Fig. 1, C1 (2 x 2 units) and C2 (3 units) on one core link",
            measure: Measure::Cct,
            expected: || vec![7.0, 3.0],
            names: "CCTs, ms (C1, C2)",
            tol: EXACT_MS,
            why: MRTF_C_WHY,
            known: None,
        },
        Spec {
            check: "optimum of DBA's problem (2)",
            policy: policy("dba-ideal"),
            instance: |g| lot_2(g, [1e3; 3]),
            setting: "2-link parking lot, long + 2 one-link flows, equal sizes, eps = 0.5",
            measure: Measure::Rates { rtts: 1 },
            expected: || dba_lot(0.5),
            names: rates_lot2,
            tol: 1e-3,
            why: DBA_IDEAL_WHY,
            known: None,
        },
        Spec {
            check: "converges to DBA's problem (2)",
            policy: policy("dba"),
            instance: |g| lot_2(g, [1e3; 3]),
            setting: "2-link parking lot, long + 2 one-link flows, equal sizes, 100 RTTs",
            measure: Measure::Rates { rtts: 100 },
            expected: || dba_lot(0.5),
            names: rates_lot2,
            tol: 0.01,
            why: DBA_WHY,
            known: None,
        },
    ]
}

fn case(s: Spec, p: Policy, scheme: &str, gbps: f64, quick: bool) -> Case {
    Case::new(
        "flow-policies",
        s.check,
        scheme,
        format!("{gbps} Gb/s, {}", s.setting),
        expected_text(&s),
        s.why,
        quick,
        move || check(&s, p, gbps),
    )
}

pub(crate) fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for s in specs() {
        for &(gbps, quick) in RATES {
            let c = case(s, s.policy, s.policy.name, gbps, quick);
            v.push(match s.known {
                Some(finding) => c.known(finding),
                None => c,
            });
        }
    }
    v
}

/// Broken variants of the flow policies, made from ordinary names and keys: each runs a
/// case's instance and checker under a policy that breaks the case's definition, and each
/// must fail (see [`super::sabotaged`]).
pub(crate) fn sabotaged() -> Vec<Case> {
    let broken: &[(&str, &str, Policy)] = &[
        (
            "maxmin",
            "max-min served proportionally fair",
            policy("num"),
        ),
        (
            "num",
            "log NUM with a near-max-min utility",
            Policy {
                name: "num",
                keys: |_| "utility = { kind = \"alpha\", alpha = 8.0 }".into(),
            },
        ),
        ("varys", "varys serving coflows FIFO", policy("coflow-fifo")),
        (
            "varys-no-backfill",
            "varys-no-backfill back-filling",
            policy("varys"),
        ),
        (
            "coflow-fifo",
            "coflow FIFO serving SEBF",
            policy("varys-no-backfill"),
        ),
        (
            "baraat",
            "baraat never multiplexing",
            Policy {
                name: "baraat",
                keys: |_| "heavy_bytes = 1e15".into(),
            },
        ),
        ("fastpass-f", "fastpass-f sharing fairly", policy("maxmin")),
        (
            "fastpass-c",
            "fastpass-c blind to the core",
            policy("varys"),
        ),
        (
            "dba-ideal",
            "dba-ideal without 1/T_k weights",
            policy("num"),
        ),
        (
            "dba",
            "dba with eq. (12) as printed",
            Policy {
                name: "dba",
                keys: |_| "gamma_rel = 0.0\nclamp_unsaturated = false".into(),
            },
        ),
    ];
    let specs = specs();
    broken
        .iter()
        .map(|&(name, label, p)| {
            let s = *specs
                .iter()
                .find(|s| s.policy.name == name && s.known.is_none())
                .expect("every broken variant has a case");
            case(s, p, label, 10.0, true)
        })
        .collect()
}
