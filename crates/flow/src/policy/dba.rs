//! `dba`: Distributed Bottleneck-Aware coflow scheduling (Zhang et al., TPDS), as published,
//! in its fluid form.
//!
//! **Remaining time (§4.2.1).** When a coflow arrives its SYNs (one per flow, in a batch) fill
//! every node's table for its out-links: `T_kl = sum S_i / B_l`, `N_kl = |C_k ∩ F(l)| / B_l`
//! over the coflow's flows through `l` (Alg. 3). A SYN carries the largest `T_kl` on its path
//! and the paired `N_kl`; each receiver keeps the largest it sees (`T_k^out`, Alg. 2) and
//! echoes it in the SYN-ACK; each sender keeps the largest echo (`T_k^in`, Alg. 1). Once per
//! window of ACKs (one iteration) a sender lowers its estimate by eq. (8):
//! `T_k^in <- max(T_k^in - S~_i N_k^in / |C_k ∩ F(l)|, T_kl)`, with `S~_i` the bytes acked
//! in the window and `T_kl` the coflow's remaining bytes on the sender's access link / its rate.
//! `remaining_time = "exact"` replaces all this with the true remaining time (a diagnostic).
//!
//! **Rates (§4.2.2).** Links share bandwidth by WFQ on the flows' weights; its fluid form is
//! weighted max-min. A new flow starts with weight `initial_weight` (1e10) and window W0
//! (3 packets): during its first two iterations (the initial window and the round after it,
//! "we still let W(t) = W0") it may send at most W0 per RTT. Every RTT (one iteration,
//! synchronized like the switches' PTP-timed price updates) each flow, from its average
//! normalized rate over the last iteration `b~_i(t-1)`, its coflow's remaining time and the
//! latest path price `P_i = sum_l lambda_l(t-1)`, sets
//!
//! ```text
//! w_i(t) = (T_k P_i / (1 - eps))^(-1/eps)                                  eq. (10)
//! e_i(t) = ((1 - eps) b~_i(t-1)^(-eps) / T_k - P_i) / |L(i)|              eq. (11)
//! ```
//!
//! and each link updates its price
//!
//! ```text
//! nu_l(t+1)     = lambda_l(t) + min_{i in F(l)} e_i(t) - gamma (B_l - sum_i beta b_i(t)) eq. (12)
//! delta(t)      = (1 + sqrt(1 + 4 delta(t-1)^2)) / 2                                   eq. (13)
//! lambda_l(t+1) = [nu_l(t+1) + m(t) (nu_l(t+1) - nu_l(t))]_+                            eq. (14)
//! ```
//!
//! (the equations are `dctc_num::dba`'s, the one implementation the `dba` NUM solver drives
//! too, there with Nesterov's momentum by default) with `m(t)` per `momentum`: `"standard"` = `(delta(t-1) - 1) / delta(t)` (Nesterov, as the
//! convergence proof's eq. (21) has it), `"as-printed"` = the printed
//! `(1 - delta(t-1)) / delta(t)`, `"none"` = 0 (default: on our static test sets it settles in
//! 4-23 RTTs where the others take 13-33 or stall; delta is global and never reset, so the
//! standard coefficient tends to 1).
//!
//! **Units of gamma.** The capacity term of eq. (12) is taken in b/s,
//! `gamma (B_l - sum_i beta b_i)`: the paper sizes gamma = 5e-18 "to counteract the very large
//! link bandwidth (10^10 bps)" (§5.4.2). (Until this was fixed it was applied to normalized
//! capacities, 1e10-4e10 times weaker.) The paper is not consistent here: eq. (12) and the
//! switch pseudo-code of §4.3.3, `nu <- lambda + minDev - (gamma / beta) (B_l - bytesServ/T)`,
//! are both on normalized capacities; only §5.4.2's remark ties gamma to b/s. The normalized
//! reading is `gamma = 5e-18 / beta` here (1.25e-28 on dba-144). Either way the paper's gamma
//! is inert: on dba-144 it moves a price by at most 5e-18 * 4e10 = 2e-7 per RTT while the
//! prices are ~0.1-1.
//!
//! **Momentum.** Eq. (14) as printed, `(1 - delta(t-1)) / delta(t)`, and the switch pseudo-code
//! of §4.3.3, `(1 - sqrt(1 + 4 delta^2)) / (1 + sqrt(1 + 4 delta^2)) = (1 - delta(t)) / delta(t)`,
//! both have a negative coefficient; the proof's eq. (21) gives Nesterov's positive
//! `(delta(t-1) - 1) / delta(t)` (`momentum = "standard"`).
//!
//! **Two departures from the printed algorithm, on by default, both needed for the fixed
//! point to be the optimum of (2)** (KKT 7(b): unsaturated links must have zero price). With
//! the paper's gamma the capacity term is inert, so a link that is not anyone's bottleneck
//! (e.g. a 100 Gb/s host link) keeps the price positive deviations gave it and distorts the
//! weights of every flow crossing it (on a parking lot eq. (12) as printed stalls at rates
//! 4x off the optimum, `tests/policies_dba.rs`). (1) A scale-free term
//! `- gamma_rel * lambda_l * (B'_l - sum b) / B'_l` (default 1; 0 restores eq. (12)).
//! (2) `clamp_unsaturated` (default true): on an unsaturated link (load below capacity by more
//! than 0.1%) a positive `min e_i` does not raise the price. A gamma sized for b/s
//! (e.g. 1e-11) also reaches the parking-lot optimum with eq. (12) as printed.
//!
//! **Timing (§4.2.2, §4.3.3).** A tick ends iteration t and starts t+1 (the switches' price
//! updates are synchronized, PTP-timed). At the tick each link applies eq. (12) with the
//! deviations `e_i(t)` that reached its `minDev` during iteration t: the senders computed them
//! at the previous tick, from `b~_i(t-1)` and the path price they had then, and stamped them
//! on iteration t's last packet. The load term uses iteration t's rates (`bytesServ_l / T`).
//! Then the senders compute `w_i(t+1)` and `e_i(t+1)` from `b~_i(t)` and the prices as they
//! were before this tick's update (collected by iteration t's first packet; eq. (10)-(11)'s
//! `lambda(t-1)` at iteration t+1). `lag = d` shows the senders prices d iterations older
//! still (Fig. 10(c)'s computation delay d). The loop from a rate to the price that reacts to
//! it thus spans two RTTs (d + 2 with a lag); until this was fixed eq. (12) applied the
//! deviations computed at the same tick, one RTT earlier than a link can have them.
//!
//! **New flows.** A link that saw a new flow in an iteration keeps its price at the next
//! update (new-flow hold); the flow's first deviation (from the rate its initial weight gave
//! it) is not sent either, so no rate set by the initial weight acts on a price. A flow whose
//! path price is zero keeps the initial weight (eq. (10) at `P_i = 0` is infinite); any
//! positive price gives eq. (10) as printed, which may exceed the initial weight (a small
//! coflow on a nearly idle path; at the optimum `T_k P_i >= 1` and weights are at most 4).
//! Capacities are normalized by the largest one (`B'_l = B_l / beta`), rates likewise.
//! Iterations stop once rates and prices move by less than `converge_tol` in one iteration
//! ("the iteration stops when both b and lambda no longer change") and restart at the next
//! arrival or completion.

use super::{coflow_remaining_times, BuildContext, Coupling, RatePolicy, View};
use crate::alloc::WaterFill;
use crate::error::FlowError;
use crate::net::{Hop, Net};
use dctc_core::error::unknown_name;
use dctc_core::units::Delta;
use dctc_num::dba::{deviation, marginal, Acceleration, Gamma, Momentum};
pub use dctc_num::dba::{eq10_weight, lambda_update, nu_update};
use serde::Deserialize;
use std::collections::{HashMap, VecDeque};

/// `dctc list`'s line.
pub const ABOUT: &str =
    "DBA: learned T_k (eq. 8), per-RTT eq. 9-14 iterations, WFQ as weighted max-min \
     (two documented fixes so its fixed point is the optimum)";

/// `dba`'s keys.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DbaConfig {
    /// The power epsilon of problem (2) (default 0.5).
    #[serde(default)]
    pub epsilon: Option<f64>,
    /// Step size gamma of eq. (12), per b/s of capacity slack (default 5e-18).
    #[serde(default)]
    pub gamma: Option<f64>,
    /// Scale-free step of the capacity term, added to eq. (12):
    /// `- gamma_rel * lambda_l * (B'_l - sum b) / B'_l` (default 1; 0 = eq. (12) as printed).
    /// With the paper's gamma = 5e-18 on normalized capacities the printed term is inert, so
    /// prices of unsaturated links never fall to zero and the fixed point is not the optimum.
    #[serde(default)]
    pub gamma_rel: Option<f64>,
    /// On a link loaded below capacity by more than 0.1%, a positive `min e_i` does not
    /// raise the price (a departure from eq. (12) aimed at KKT 7(b); default true).
    #[serde(default)]
    pub clamp_unsaturated: Option<bool>,
    /// Fraction of the deviation term `min e_i` applied per iteration in eq. (12)
    /// (default 1, as published; smaller damps the price updates).
    #[serde(default)]
    pub dev_step: Option<f64>,
    /// Initial window W0 in packets of 1500 B (default 3).
    #[serde(default)]
    pub w0_packets: Option<f64>,
    /// Initial flow weight (default 1e10).
    #[serde(default)]
    pub initial_weight: Option<f64>,
    /// Price-update lag d in iterations (default 0).
    #[serde(default)]
    pub lag: Option<usize>,
    /// Momentum of eq. (14): `standard` (Nesterov, as in the proof, eq. 21), `as-printed`
    /// (the printed `(1 - delta(t-1)) / delta(t)`) or `none` (default).
    #[serde(default)]
    pub momentum: Option<String>,
    /// Stop iterating when rates and prices change by less than this (relative) in one
    /// iteration (default 1e-3); the next event restarts the iterations.
    #[serde(default)]
    pub converge_tol: Option<f64>,
    /// What must hold still for the iterations to stop: `rates-and-prices` (default, as
    /// published) or `rates` (prices keep drifting as remaining times shrink; stopping on rates
    /// alone cut the iterations 4x with the same CCTs on a 100-coflow trace run).
    #[serde(default)]
    pub stop: Option<String>,
    /// Iteration period in microseconds (default: the fabric's base RTT).
    #[serde(default)]
    pub rtt_us: Option<f64>,
    /// `learned` (§4.2.1 tables and eq. 8, default) or `exact` remaining times.
    #[serde(default)]
    pub remaining_time: Option<String>,
}

/// The registry's constructor.
pub fn build(cfg: &DbaConfig, ctx: &BuildContext<'_>) -> Result<Box<dyn RatePolicy>, FlowError> {
    Ok(Box::new(Dba::new(cfg, ctx.net)?))
}

/// A link is saturated when its load is within this fraction of its capacity.
const SATURATED: f64 = 1e-3;

/// Bytes per packet of the initial window.
const PACKET_BYTES: f64 = 1500.0;

/// No sender entry.
const NONE: u32 = u32::MAX;

#[derive(Clone, Debug, Default)]
struct SenderEntry {
    /// Sender host.
    src: u32,
    t_in: f64,
    n_in: f64,
    local_flows: u32,
    // Scratch for one iteration.
    rem_bits: f64,
    dec: f64,
}

/// DBA.
#[derive(Clone, Debug)]
pub struct Dba {
    eps: f64,
    /// Eq. (12)'s step, per b/s.
    gamma: Gamma,
    gamma_rel: f64,
    clamp_unsaturated: bool,
    dev_step: f64,
    w0_bytes: f64,
    w_init: f64,
    lag: usize,
    tol: f64,
    exact_t: bool,
    /// Stop on rates alone (prices may still drift with the remaining times).
    price_stop: bool,
    period: Delta,
    beta: f64,
    // Per flow.
    weight: Vec<f64>,
    iters: Vec<u32>,
    last_rem: Vec<f64>,
    bbar: Vec<f64>,
    /// `e_i(t)` computed at the last tick (NaN: none yet), applied at this one.
    dev: Vec<f64>,
    // Per link.
    lam: Vec<f64>,
    nu: Vec<f64>,
    hold: Vec<bool>,
    history: VecDeque<Vec<f64>>,
    /// Eq. (13)'s delta and eq. (14)'s momentum rule.
    accel: Acceleration,
    // Per (sender host, coflow): a slab (an entry is live while `local_flows > 0`), its
    // index by key (touched at arrivals and completions only), free slots, and each flow's
    // entry.
    senders: Vec<SenderEntry>,
    sender_index: HashMap<(u32, u32), u32>,
    sender_free: Vec<u32>,
    sender_of: Vec<u32>,
    converged: bool,
    wf: WaterFill,
    avail: Vec<f64>,
    caps: Vec<f64>,
    scratch: Vec<f64>,
    touched: Vec<u32>,
    iterations: u64,
    // Per-tick buffers (per active flow, per link).
    t_buf: Vec<f64>,
    before: Vec<f64>,
    min_e: Vec<f64>,
    load: Vec<f64>,
    used: Vec<bool>,
    /// Links used at this tick and at the previous one (their per-link buffers are the only
    /// ones not at their reset values), and links held since the last tick: every other
    /// link has zero price and no hold, which the tick would only write again.
    used_now: Vec<u32>,
    used_prev: Vec<u32>,
    held: Vec<u32>,
}

impl Dba {
    /// From a scheme config.
    pub fn new(cfg: &DbaConfig, net: &Net) -> Result<Dba, FlowError> {
        let eps = cfg.epsilon.unwrap_or(0.5);
        if !(eps > 0.0 && eps < 1.0) {
            return Err(FlowError::invalid(
                "epsilon",
                format!("must be in (0, 1), got {eps}"),
            ));
        }
        let gamma = cfg.gamma.unwrap_or(5e-18);
        if !(gamma >= 0.0 && gamma.is_finite()) {
            return Err(FlowError::invalid("gamma", "must be >= 0"));
        }
        let gamma_rel = cfg.gamma_rel.unwrap_or(1.0);
        if !(0.0..=2.0).contains(&gamma_rel) {
            return Err(FlowError::invalid("gamma_rel", "must be in [0, 2]"));
        }
        let dev_step = cfg.dev_step.unwrap_or(1.0);
        if !(dev_step > 0.0 && dev_step <= 1.0) {
            return Err(FlowError::invalid("dev_step", "must be in (0, 1]"));
        }
        let w0 = cfg.w0_packets.unwrap_or(3.0);
        if w0.is_nan() || w0 <= 0.0 {
            return Err(FlowError::invalid("w0_packets", "must be > 0"));
        }
        let w_init = cfg.initial_weight.unwrap_or(1e10);
        if !(w_init > 0.0 && w_init.is_finite()) {
            return Err(FlowError::invalid("initial_weight", "must be > 0"));
        }
        // Default no momentum: on our static test sets it settles in 4-23 RTTs where the
        // others take 13-33 or stall (see the module docs).
        let momentum = match cfg.momentum.as_deref() {
            None => Momentum::None,
            Some(name) => Momentum::parse(name).ok_or_else(|| {
                FlowError::invalid("momentum", unknown_name("momentum", name, Momentum::NAMES))
            })?,
        };
        let exact_t = match cfg.remaining_time.as_deref().unwrap_or("learned") {
            "learned" => false,
            "exact" => true,
            other => {
                return Err(FlowError::invalid(
                    "remaining_time",
                    unknown_name("value", other, &["learned", "exact"]),
                ))
            }
        };
        let price_stop = match cfg.stop.as_deref().unwrap_or("rates-and-prices") {
            "rates-and-prices" => false,
            "rates" => true,
            other => {
                return Err(FlowError::invalid(
                    "stop",
                    unknown_name("value", other, &["rates-and-prices", "rates"]),
                ))
            }
        };
        let tol = cfg.converge_tol.unwrap_or(1e-3);
        if tol.is_nan() || tol <= 0.0 {
            return Err(FlowError::invalid("converge_tol", "must be > 0"));
        }
        let period = match cfg.rtt_us {
            // One iteration per RTT: a round trip under a microsecond is below any
            // datacenter's, and would make the iterations (events) arbitrarily many.
            Some(us) => dctc_core::units::checked::span_us(
                "rtt_us",
                us,
                dctc_core::units::checked::SpanRule::positive(Delta::MAX_SCENARIO)
                    .at_least(Delta::from_us(1)),
            )?,
            None => net.rtt,
        };
        let links = net.links();
        Ok(Dba {
            eps,
            gamma: Gamma::per_bps(gamma),
            gamma_rel,
            clamp_unsaturated: cfg.clamp_unsaturated.unwrap_or(true),
            dev_step,
            w0_bytes: w0 * PACKET_BYTES,
            w_init,
            lag: cfg.lag.unwrap_or(0),
            accel: Acceleration::new(momentum),
            tol,
            exact_t,
            price_stop,
            period,
            beta: net.cap.iter().copied().fold(0.0, f64::max),
            weight: Vec::new(),
            iters: Vec::new(),
            last_rem: Vec::new(),
            bbar: Vec::new(),
            dev: Vec::new(),
            lam: vec![0.0; links],
            nu: vec![0.0; links],
            hold: vec![false; links],
            history: VecDeque::new(),
            senders: Vec::new(),
            sender_index: HashMap::new(),
            sender_free: Vec::new(),
            sender_of: Vec::new(),
            converged: true,
            wf: WaterFill::new(links),
            avail: Vec::new(),
            caps: Vec::new(),
            scratch: vec![0.0; links],
            touched: Vec::new(),
            iterations: 0,
            t_buf: Vec::new(),
            before: Vec::new(),
            min_e: vec![f64::INFINITY; links],
            load: vec![0.0; links],
            used: vec![false; links],
            used_now: Vec::new(),
            used_prev: Vec::new(),
            held: Vec::new(),
        })
    }

    /// Current weight of flow `f`.
    pub fn weight(&self, f: u32) -> f64 {
        self.weight.get(f as usize).copied().unwrap_or(self.w_init)
    }

    /// Current price of link `l`.
    pub fn price(&self, l: u32) -> f64 {
        self.lam[l as usize]
    }

    /// Iterations run so far.
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    /// The remaining time each flow of `comp` currently uses for its coflow, seconds.
    pub fn remaining_times(&mut self, v: &View<'_>, comp: &[u32]) -> Vec<f64> {
        let mut out = Vec::new();
        self.fill_remaining_times(v, comp, &mut out);
        out
    }

    fn fill_remaining_times(&mut self, v: &View<'_>, comp: &[u32], out: &mut Vec<f64>) {
        out.clear();
        if self.exact_t {
            let times = coflow_remaining_times(v, comp, &mut self.scratch, &mut self.touched);
            out.extend(comp.iter().map(|&f| {
                let c = v.flows.coflow[f as usize];
                times[times.binary_search_by_key(&c, |x| x.0).expect("coflow")].1
            }));
            return;
        }
        out.extend(comp.iter().map(|&f| match self.sender_of.get(f as usize) {
            Some(&s) if s != NONE => self.senders[s as usize].t_in,
            _ => 0.0,
        }));
    }

    fn wfq(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) {
        let w0_rate = self.w0_bytes * 8.0 / self.period.as_secs_f64();
        self.caps.clear();
        for &f in comp {
            let f = f as usize;
            self.caps.push(if self.iters[f] < 2 {
                w0_rate
            } else {
                f64::INFINITY
            });
        }
        self.avail.clear();
        self.avail.extend_from_slice(&v.net.cap);
        let weight = &self.weight;
        let caps = &self.caps;
        // Between arrivals and completions the ticks see the same flows and routes.
        self.wf.fill_cached(
            &mut self.avail,
            comp,
            v.flows.route_epoch(),
            |k| v.flows.hops(comp[k] as usize),
            |k| weight[comp[k] as usize],
            |k| caps[k],
            rates,
        );
    }
}

/// `|L(i)|` of eq. (11): the links one packet of the flow crosses, over which the deviation
/// of its path price `P_i` is split (each adds `e_i` to its price, so `P_i` moves by the
/// whole deviation). On one path that is its hop count. A sprayed route (DRILL) lists every
/// link of every equal-cost path with the fraction of the paths through it, and `P_i` sums
/// the prices in those fractions, so the fractions' sum (the path length) is the count:
/// the number of hops would split the deviation over every path's links at once and move
/// `P_i` by a fraction of it (half, on a leaf-spine).
fn path_links(hops: &[Hop]) -> usize {
    hops.iter().map(|h| h.coef).sum::<f64>().round() as usize
}

impl RatePolicy for Dba {
    fn name(&self) -> &str {
        "dba"
    }

    fn coupling(&self) -> Coupling {
        Coupling::Links
    }

    fn on_arrivals(&mut self, v: &View<'_>, flows: &[u32]) {
        let n = v.flows.len();
        if self.weight.len() < n {
            self.weight.resize(n, self.w_init);
            self.iters.resize(n, 0);
            self.last_rem.resize(n, 0.0);
            self.bbar.resize(n, 0.0);
            self.dev.resize(n, f64::NAN);
            self.sender_of.resize(n, NONE);
        }
        for &f in flows {
            let f = f as usize;
            self.weight[f] = self.w_init;
            self.iters[f] = 0;
            self.last_rem[f] = v.flows.size[f];
            self.dev[f] = f64::NAN;
            for h in v.flows.hops(f) {
                self.hold[h.link as usize] = true;
                self.held.push(h.link);
            }
        }
        self.converged = false;
        // §4.2.1: the batch of SYNs of each arriving coflow fills the node tables.
        let mut by_coflow: Vec<(u32, u32)> = flows
            .iter()
            .map(|&f| (v.flows.coflow[f as usize], f))
            .collect();
        by_coflow.sort_unstable();
        let mut i = 0;
        while i < by_coflow.len() {
            let c = by_coflow[i].0;
            let mut j = i;
            while j < by_coflow.len() && by_coflow[j].0 == c {
                j += 1;
            }
            let members: Vec<usize> = by_coflow[i..j].iter().map(|x| x.1 as usize).collect();
            // Alg. 3: T_kl and N_kl on every link the coflow crosses.
            let mut table: HashMap<u32, (f64, f64)> = HashMap::new();
            for &f in &members {
                for h in v.flows.hops(f) {
                    let b = v.net.cap[h.link as usize];
                    let e = table.entry(h.link).or_insert((0.0, 0.0));
                    e.0 += v.flows.size[f] * 8.0 * h.coef / b;
                    e.1 += h.coef / b;
                }
            }
            // SYN: the largest T_kl on the path, with its N_kl.
            let syn: Vec<(f64, f64)> = members
                .iter()
                .map(|&f| {
                    v.flows.hops(f).iter().fold((0.0, 0.0), |acc, h| {
                        let x = table[&h.link];
                        if x.0 > acc.0 {
                            x
                        } else {
                            acc
                        }
                    })
                })
                .collect();
            // Alg. 2: receivers keep the largest.
            let mut recv: HashMap<u32, (f64, f64)> = HashMap::new();
            for (m, &f) in members.iter().enumerate() {
                let e = recv.entry(v.flows.dst[f]).or_insert((0.0, 0.0));
                if syn[m].0 > e.0 {
                    *e = syn[m];
                }
            }
            // Alg. 1: senders keep the largest SYN-ACK echo.
            for &f in &members {
                let echo = recv[&v.flows.dst[f]];
                let src = v.flows.src[f];
                let idx = match self.sender_index.get(&(src, c)) {
                    Some(&i) => i,
                    None => {
                        let entry = SenderEntry {
                            src,
                            ..SenderEntry::default()
                        };
                        let i = match self.sender_free.pop() {
                            Some(i) => {
                                self.senders[i as usize] = entry;
                                i
                            }
                            None => {
                                self.senders.push(entry);
                                (self.senders.len() - 1) as u32
                            }
                        };
                        self.sender_index.insert((src, c), i);
                        i
                    }
                };
                self.sender_of[f] = idx;
                let e = &mut self.senders[idx as usize];
                e.local_flows += 1;
                if echo.0 > e.t_in {
                    e.t_in = echo.0;
                    e.n_in = echo.1;
                }
            }
            i = j;
        }
    }

    fn on_completion(&mut self, v: &View<'_>, flow: u32) {
        let f = flow as usize;
        let idx = self.sender_of.get(f).copied().unwrap_or(NONE);
        if idx != NONE {
            self.sender_of[f] = NONE;
            let e = &mut self.senders[idx as usize];
            e.local_flows = e.local_flows.saturating_sub(1);
            if e.local_flows == 0 {
                self.sender_index
                    .remove(&(v.flows.src[f], v.flows.coflow[f]));
                self.sender_free.push(idx);
            }
        }
        self.converged = false;
    }

    fn allocate(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) {
        self.wfq(v, comp, rates);
    }

    fn tick_period(&self) -> Option<Delta> {
        Some(self.period)
    }

    fn wants_tick(&self) -> bool {
        !self.converged
    }

    fn tick(&mut self, v: &View<'_>, active: &[u32], rates: &mut [f64]) {
        self.iterations += 1;
        let period_s = self.period.as_secs_f64();
        // Average normalized rate over the last iteration, and eq. (8) at the senders.
        for e in self.senders.iter_mut() {
            e.rem_bits = 0.0;
            e.dec = 0.0;
        }
        for &f in active {
            let f = f as usize;
            let sent = (self.last_rem[f] - v.flows.rem[f]).max(0.0);
            self.last_rem[f] = v.flows.rem[f];
            self.bbar[f] = sent * 8.0 / period_s / self.beta;
            let s = self.sender_of[f];
            if s != NONE {
                let e = &mut self.senders[s as usize];
                e.rem_bits += v.flows.rem[f].max(0.0) * 8.0;
                e.dec += sent * 8.0 * e.n_in / e.local_flows.max(1) as f64;
            }
        }
        for e in self.senders.iter_mut().filter(|e| e.local_flows > 0) {
            let access = v.net.cap[v.net.host_up[e.src as usize] as usize];
            // DBA eq. (8).
            e.t_in = (e.t_in - e.dec).max(e.rem_bits / access);
        }
        let mut t = std::mem::take(&mut self.t_buf);
        self.fill_remaining_times(v, active, &mut t);
        // Weights (eq. 10) and per-link deviations (eq. 11) from the prices the senders see.
        // The deviations computed now, e_i(t+1), ride on this iteration's packets and reach
        // the links' `minDev` during it: eq. (12) at this tick uses e_i(t), the ones computed
        // at the previous tick (`self.dev`), while its load term uses this iteration's rates.
        let links = v.net.links();
        let (min_e, load, used) = (&mut self.min_e, &mut self.load, &mut self.used);
        if used.len() != links {
            min_e.clear();
            min_e.resize(links, f64::INFINITY);
            load.clear();
            load.resize(links, 0.0);
            used.clear();
            used.resize(links, false);
        }
        // Reset what the previous tick wrote (every other entry is at its reset value).
        std::mem::swap(&mut self.used_now, &mut self.used_prev);
        for &l in &self.used_prev {
            let l = l as usize;
            min_e[l] = f64::INFINITY;
            load[l] = 0.0;
            used[l] = false;
        }
        let used_now = &mut self.used_now;
        used_now.clear();
        let mut warming = false;
        // Path prices the senders see (`visible_prices`, borrowed field by field).
        let prices: &[f64] = if self.lag == 0 || self.history.is_empty() {
            &self.lam
        } else {
            self.history.front().expect("non-empty")
        };
        for (k, &f) in active.iter().enumerate() {
            let fu = f as usize;
            let hops = v.flows.hops(fu);
            let p = hops
                .iter()
                .map(|h| h.coef * prices[h.link as usize])
                .sum::<f64>();
            self.weight[fu] = eq10_weight(t[k], p, self.eps, self.w_init);
            let valid = self.iters[fu] >= 1 && self.bbar[fu] > 0.0;
            let e = if valid {
                // eq. (11)
                deviation(marginal(self.bbar[fu], t[k], self.eps), p, path_links(hops))
            } else {
                f64::NAN
            };
            if self.iters[fu] < 2 {
                warming = true;
            }
            self.iters[fu] = self.iters[fu].saturating_add(1);
            // Eq. (12)'s inputs: the previous deviation and this iteration's load.
            let e_prev = std::mem::replace(&mut self.dev[fu], e);
            let b = self.bbar[fu];
            for h in hops {
                let l = h.link as usize;
                if !used[l] {
                    used[l] = true;
                    used_now.push(h.link);
                }
                load[l] += b * h.coef;
                if !e_prev.is_nan() {
                    min_e[l] = min_e[l].min(e_prev);
                }
            }
        }
        self.t_buf = t;
        let (min_e, load, used) = (&self.min_e, &self.load, &self.used);
        let m = self.accel.step(); // eq. (13), m(t) of eq. (14)
        let mut max_dl = 0.0f64;
        // Unused links: zero price, no hold. Only those used at the previous tick or held since
        // can hold anything else.
        for &l in self.used_prev.iter().chain(&self.held) {
            let l = l as usize;
            if !used[l] {
                self.lam[l] = 0.0;
                self.nu[l] = 0.0;
                self.hold[l] = false;
            }
        }
        self.held.clear();
        // Used links, in the order first used (each link's update depends on its own state
        // only, and the largest relative price move does not depend on the order).
        for &l in &self.used_now {
            let l = l as usize;
            if self.hold[l] {
                // New-flow hold: keep this iteration's price.
                self.hold[l] = false;
                continue;
            }
            if !min_e[l].is_finite() {
                continue;
            }
            let cap_n = v.net.cap[l] / self.beta;
            let gap = (cap_n - load[l]).max(0.0);
            // Departure (opt-in, KKT 7(b)): an unsaturated link's price must fall to zero, so
            // there a positive deviation (flows asking for more) does not raise it.
            let dev = if self.clamp_unsaturated && gap > SATURATED * cap_n {
                min_e[l].min(0.0)
            } else {
                min_e[l]
            };
            let nu_new = nu_update(
                self.lam[l],
                self.dev_step * dev,
                self.gamma,
                v.net.cap[l],
                load[l] * self.beta,
            ) - self.gamma_rel * self.lam[l] * gap / cap_n;
            let lam_new = lambda_update(nu_new, self.nu[l], m);
            let old = self.lam[l];
            max_dl = max_dl.max((lam_new - old).abs() / lam_new.max(old).max(1e-300));
            self.nu[l] = nu_new;
            self.lam[l] = lam_new;
        }
        if self.lag > 0 {
            self.history.push_back(self.lam.clone());
            while self.history.len() > self.lag + 1 {
                self.history.pop_front();
            }
        }
        let mut before = std::mem::take(&mut self.before);
        before.clear();
        before.extend_from_slice(rates);
        self.wfq(v, active, rates);
        // Converged when the rates the links give and the prices hold still (the weights
        // keep drifting as remaining times shrink, which alone does not move the rates much).
        let max_dr = before
            .iter()
            .zip(rates.iter())
            .map(|(a, b)| (a - b).abs() / a.max(*b).max(1.0))
            .fold(0.0, f64::max);
        self.before = before;
        self.converged = !warming && max_dr < self.tol && (self.price_stop || max_dl < self.tol);
    }

    fn report(&self) -> Vec<(String, f64)> {
        vec![("iterations".to_string(), self.iterations as f64)]
    }
}
