//! The event loop of the fluid model.
//!
//! Events: coflow arrivals (all flows of a coflow arrive together, DBA §3.1), flow
//! completions, policy ticks (once per `tick_period`, while the policy asks for more) and
//! Hedera rescheduling rounds. All events at one instant are applied, then rates are
//! recomputed once for the connected component they touch. Between events every rate is
//! constant, so a flow's completion time is exactly `now + remaining * 8 / rate` (rounded up
//! to the picosecond).

use crate::alloc::{WaterFill, CAP_TOL};
use crate::completion::{completion_at, surely_after, Deferred};
use crate::heap::IndexedHeap;
use crate::metrics::{CoflowRecord, FlowRecordOut, RunResult};
use crate::net::{Hop, Net};
use crate::policy::{Coupling, RatePolicy, View};
use crate::routing::{self, Reroute, RoutingMode};
pub use crate::state::{CoflowInput, Coflows, FlowInput, Flows};
use dctc_core::event::EventQueue;
use dctc_core::units::{Delta, SimTime};

/// Run options.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// Path choice.
    pub routing: RoutingMode,
    /// Seed for ECMP hashes.
    pub seed: u64,
    /// Stop at this time (flows still active are reported unfinished).
    pub until: SimTime,
    /// Check invariants after every allocation (no link above capacity, bytes conserved) and
    /// panic on a violation. For tests.
    pub audit: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            routing: RoutingMode::Ecmp,
            seed: 1,
            until: SimTime::NEVER,
            audit: false,
        }
    }
}

/// Something the loop schedules. Completions are not events: they live in the indexed
/// completion heap (`done`), re-keyed in place whenever a rate changes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum FlowEvent {
    /// Coflow `.0` (index in arrival order) arrives.
    Arrival(u32),
    /// Hedera's next rescheduling round.
    Reroute,
    /// The policy's next periodic tick (DBA's per-RTT update).
    Tick,
}

/// Fixed-point unit of the exact per-link load kept for `maxmin`: 2^-16 b/s.
const FIXED_ONE: f64 = 65536.0;

/// Outcome of one try at a local re-solve.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Verdict {
    Applied,
    /// A link that filled needs its other flows: try again with it treated as full.
    Widen,
    /// Re-solve everything above the cut.
    GiveUp,
}

/// Bottleneck re-solve: most widening rounds, and most flows re-solved (summed over the
/// rounds, with link entries scanned counting `1 / BN_SCAN_PER_FLOW` each) before falling back
/// to the cut-based re-solve: `BN_MIN_FLOWS` plus half what the cut-based re-solve has been
/// taking per event, times the recent success rate to the fourth power (where most tries fail,
/// as on the Facebook trace where a completion moves thousands of rates, failing costs little;
/// where nearly all succeed, as under web search, the rare wide one still gets room).
const BN_ITERS: usize = 12;
const BN_SCAN_PER_FLOW: usize = 32;
const BN_MIN_FLOWS: usize = 64;
/// After the second failure in a row, events skipped (doubling, at most this many) before
/// trying the bottleneck re-solve again.
const BN_BACKOFF_MAX: u32 = 16;
/// Relative difference within which two rates count as tied in the bottleneck checks
/// (rounding of the water-filling; rates differ by far more when a flow is not tied).
const BN_TIE: f64 = 1e-12;

/// `apply` updates the completion heap in bulk when it re-applies at least 1 / this of the
/// heap's entries.
const BULK_FRACTION: usize = 8;

/// Local re-solves tried (each wider than the last) before re-solving all above the cut.
const LOCAL_TRIES: usize = 6;

/// A link with less than this fraction of its capacity free counts as full.
const TIGHT: f64 = 1e-9;

/// A link load in fixed point (exact integer sums, so the load never drifts however many
/// times rates change).
///
/// Equal to `(bps * FIXED_ONE).round() as i64` for every input, without the libm call
/// `round` compiles to on baseline x86-64 (it was ~10% of a trace run): the truncation and
/// the fraction `x - trunc(x)` are exact for |x| < 2^53, and above that every float is an
/// integer.
#[inline]
fn fixed(bps: f64) -> i64 {
    let x = bps * FIXED_ONE;
    let t = x as i64;
    let frac = x - t as f64;
    // Branch-free: the fraction is as likely above a half as below.
    t.saturating_add(i64::from(frac >= 0.5) - i64::from(frac <= -0.5))
}

/// The simulator: a fabric, a workload and a policy.
pub struct Simulator<'n> {
    net: &'n Net,
    cfg: SimConfig,
    /// Flow state.
    pub flows: Flows,
    /// Coflow state.
    pub coflows: Coflows,
    policy: Box<dyn RatePolicy>,
    events: EventQueue<FlowEvent>,
    done: IndexedHeap,
    now: SimTime,
    link_flows: Vec<Vec<(u32, u32)>>,
    load: Vec<f64>,
    visit_flow: Vec<u32>,
    visit_link: Vec<u32>,
    visit_coflow: Vec<u32>,
    epoch: u32,
    active_list: Vec<u32>,
    tick_pending: bool,
    /// Time of the pending tick (while `tick_pending`).
    tick_at: u64,
    /// Deferred completions (ticking policies): a flow whose completion falls after the next
    /// tick has no heap entry; its completion time is kept as the inputs it was computed from
    /// (bytes left and the time), and the next tick, which revisits every active flow, files
    /// it (or defers it again) if its rate did not change. `None` turns this off (tests).
    defer: Option<Deferred>,
    /// While a tick applies its rates: the next tick's time, if one will follow.
    tick_horizon: Option<u64>,
    /// The routing mode's rerouting hook (Hedera's), run every period while flows are active.
    reroute: Option<Box<dyn Reroute>>,
    reroute_pending: bool,
    arrivals_left: usize,
    comp: Vec<u32>,
    rates: Vec<f64>,
    stats: Stats,
    /// A policy that opts in ([`RatePolicy::incremental_maxmin`]) is re-solved here,
    /// incrementally (see [`Simulator::reallocate_maxmin`]).
    incremental: bool,
    /// Whether `load` is kept (CONGA's path choice reads it).
    track_load: bool,
    /// Lowest level at which this instant's events can change the max-min water-filling.
    cut: f64,
    /// Active flows on each link.
    nact: Vec<u32>,
    /// Load of each link in fixed point ([`fixed`] of rate x share, summed).
    loadq: Vec<i64>,
    accq: Vec<i64>,
    avail: Vec<f64>,
    comp_links: Vec<u32>,
    slack_links: Vec<u32>,
    /// Active flows.
    live: usize,
    /// Links to treat as full in this re-solve (`== round`).
    force: Vec<u32>,
    round: u32,
    link_queue: Vec<u32>,
    flow_queue: Vec<u32>,
    scratch: Vec<(f64, f64)>,
    wf: WaterFill,
    /// Bottleneck re-solve ([`Simulator::bottleneck_resolve`]): membership stamps.
    bmark_flow: Vec<u32>,
    bmark_link: Vec<u32>,
    bstamp: u32,
    lstamp: u32,
    /// Largest rate a flow finished at this instant carried over each link (0: none).
    freed: Vec<f64>,
    freed_links: Vec<u32>,
    /// Per link: largest new rate of the re-solved flows, largest rate of the others, and
    /// largest rate of any flow before the event.
    lmax_c: Vec<f64>,
    lmax_nc: Vec<f64>,
    lmax_old: Vec<f64>,
    badd: Vec<u32>,
    bseen_link: Vec<u32>,
    dirty_links: Vec<u32>,
    /// This instant's arrivals: each link they cross and its level from `arrival_cut`.
    arrival_levels: Vec<(u32, f64)>,
    /// Bottleneck re-solves to skip after failures (doubling back-off).
    bn_skip: u32,
    bn_fails: u32,
    /// Moving average of the flows the cut-based re-solve water-fills per event (sets the
    /// bottleneck re-solve's budget).
    cut_work: f64,
    /// Moving average of the bottleneck re-solve's success (1) or failure (0).
    bn_success: f64,
    /// Size floor of the bottleneck re-solve (`BN_MIN_FLOWS`); `None` turns it off (tests).
    bn_min_flows: Option<usize>,
    /// Whether [`RatePolicy::completion_reallocates`] may skip a completion's re-solve
    /// (`false`: every completion re-solves, for comparisons).
    skip_completions: bool,
    /// Links of the completions that did not re-solve: the next re-solve starts from them too,
    /// so whatever those flows held back (a coflow waiting on their ports) is re-solved with
    /// the event that changes the decision.
    skipped_links: Vec<u32>,
    /// Rate changes a policy makes after a completion that did not re-solve.
    changes: Vec<(u32, f64)>,
}

#[derive(Clone, Debug, Default)]
struct Stats {
    /// Completions deferred to the next tick.
    deferrals: u64,
    events: u64,
    allocations: u64,
    allocated_flows: u64,
    ticks: u64,
    reroutes: u64,
    /// Bottleneck re-solves tried, applied, and their widening rounds.
    bn_tries: u64,
    bn_applied: u64,
    bn_rounds: u64,
}

impl<'n> Simulator<'n> {
    /// A simulator for `coflows` on `net` under `policy`. Coflows need not be sorted.
    pub fn new(
        net: &'n Net,
        mut coflows: Vec<CoflowInput>,
        policy: Box<dyn RatePolicy>,
        cfg: SimConfig,
    ) -> Simulator<'n> {
        coflows.sort_by_key(|c| (c.arrival, c.id));
        let cfg_reroute = cfg.routing.reroute_hook(net.links());
        let mut fl = Flows::default();
        let mut co = Coflows::default();
        for (ci, c) in coflows.iter().enumerate() {
            co.id.push(c.id);
            co.arrival.push(c.arrival);
            co.first.push(fl.size.len() as u32);
            co.count.push(c.flows.len() as u32);
            co.left.push(c.flows.len() as u32);
            co.bytes.push(c.flows.iter().map(|f| f.bytes).sum());
            co.finish.push(SimTime::NEVER);
            co.ideal.push(0.0);
            for f in &c.flows {
                fl.coflow.push(ci as u32);
                fl.src.push(f.src);
                fl.dst.push(f.dst);
                fl.size.push(f.bytes);
                fl.rem.push(f.bytes);
                fl.rate.push(0.0);
                fl.active.push(false);
                fl.finish.push(SimTime::NEVER);
                fl.route.push((0, 0));
                fl.tlast.push(0);
                fl.version.push(0);
                fl.sent.push(0.0);
            }
        }
        // Arrivals pushed in coflow order: same-instant arrivals pop in that order.
        let mut events = EventQueue::with_capacity(coflows.len());
        for (ci, c) in coflows.iter().enumerate() {
            events.push(c.arrival, FlowEvent::Arrival(ci as u32));
        }
        let n = fl.size.len();
        let links = net.links();
        let incremental = policy.incremental_maxmin() && policy.coupling() == Coupling::Links;
        let track_load = matches!(cfg.routing, RoutingMode::Conga);
        Simulator {
            incremental,
            track_load,
            cut: f64::INFINITY,
            nact: vec![0; links],
            loadq: vec![0; links],
            accq: vec![0; links],
            avail: vec![0.0; links],
            comp_links: Vec::new(),
            slack_links: Vec::new(),
            live: 0,
            force: vec![0; links],
            round: 0,
            link_queue: Vec::new(),
            flow_queue: Vec::new(),
            scratch: Vec::new(),
            wf: WaterFill::new(links),
            bmark_flow: vec![0; n],
            bmark_link: vec![0; links],
            bstamp: 0,
            lstamp: 0,
            freed: vec![0.0; links],
            freed_links: Vec::new(),
            lmax_c: vec![0.0; links],
            lmax_nc: vec![0.0; links],
            lmax_old: vec![0.0; links],
            badd: Vec::new(),
            bseen_link: vec![0; links],
            dirty_links: Vec::new(),
            arrival_levels: Vec::new(),
            bn_skip: 0,
            bn_fails: 0,
            cut_work: 0.0,
            bn_success: 1.0,
            bn_min_flows: Some(BN_MIN_FLOWS),
            skip_completions: true,
            skipped_links: Vec::new(),
            changes: Vec::new(),
            net,
            cfg,
            policy,
            events,
            done: IndexedHeap::new(n),
            now: SimTime::ZERO,
            link_flows: vec![Vec::new(); links],
            load: vec![0.0; links],
            visit_flow: vec![0; n],
            visit_link: vec![0; links],
            visit_coflow: vec![0; co.id.len()],
            epoch: 0,
            active_list: Vec::new(),
            tick_pending: false,
            tick_at: 0,
            defer: Some(Deferred {
                on: vec![false; n],
                rem: vec![0.0; n],
                at: vec![0; n],
            }),
            tick_horizon: None,
            reroute: cfg_reroute,
            reroute_pending: false,
            arrivals_left: coflows.len(),
            comp: Vec::new(),
            rates: Vec::new(),
            stats: Stats::default(),
            flows: fl,
            coflows: co,
        }
    }

    /// The current simulated time.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The fabric.
    pub fn net(&self) -> &Net {
        self.net
    }

    /// Active flows, sorted.
    pub fn active_flows(&self) -> Vec<u32> {
        (0..self.flows.len() as u32)
            .filter(|&f| self.flows.active[f as usize])
            .collect()
    }

    /// Bottleneck re-solves (`maxmin`) so far: tried, applied, and widening rounds.
    pub fn bottleneck_stats(&self) -> (u64, u64, u64) {
        (
            self.stats.bn_tries,
            self.stats.bn_applied,
            self.stats.bn_rounds,
        )
    }

    /// Re-solves at every flow completion, even where the policy says the completion changes
    /// no decision ([`RatePolicy::completion_reallocates`]): the slow reference its coflow-speed
    /// runs are compared with.
    pub fn reallocate_every_completion(&mut self) {
        self.skip_completions = false;
    }

    /// Time of the next event of any kind (for tests stepping event by event).
    #[cfg(test)]
    pub(crate) fn next_event_ps(&mut self) -> Option<u64> {
        let te = self.events.peek_time().map_or(u64::MAX, |t| t.ps());
        let td = self.done.peek().map(|e| e.0).unwrap_or(u64::MAX);
        Some(te.min(td)).filter(|&t| t != u64::MAX)
    }

    /// The policy (for inspection after a run).
    pub fn policy(&self) -> &dyn RatePolicy {
        self.policy.as_ref()
    }

    /// Runs to the end (or `until`), calling `progress(now)` every 4096 events of any kind
    /// (arrivals, ticks, reroutes and flow completions).
    pub fn run(&mut self, mut progress: impl FnMut(SimTime)) -> RunResult {
        let until = self.cfg.until;
        self.advance(until, &mut progress);
        progress(self.now);
        self.result()
    }

    /// Processes every event before `until` (or before the configured end, if earlier).
    pub fn advance(&mut self, until: SimTime, progress: &mut impl FnMut(SimTime)) {
        let until = until.min(self.cfg.until);
        let mut seeds: Vec<u32> = Vec::new();
        let mut seed_links: Vec<u32> = Vec::new();
        let mut new_flows: Vec<u32> = Vec::new();
        loop {
            let te = self.events.peek_time().map_or(u64::MAX, |t| t.ps());
            let td = self.done.peek().map(|e| e.0).unwrap_or(u64::MAX);
            let t = te.min(td);
            if t == u64::MAX || t >= until.ps() {
                break;
            }
            self.now = SimTime(t);
            self.cut = f64::INFINITY;
            self.arrival_levels.clear();
            seeds.clear();
            seed_links.clear();
            new_flows.clear();
            let mut tick = false;
            let mut reroute = false;
            while let Some((t2, f)) = self.done.peek() {
                if t2 != t {
                    break;
                }
                self.done.pop();
                self.stats.events += 1;
                // Completions come off their own heap: report progress from them too.
                if self.stats.events.is_multiple_of(4096) {
                    progress(self.now);
                }
                if self.flows.active[f as usize] {
                    self.complete(f as usize, &mut seed_links);
                }
            }
            while self.events.peek_time() == Some(SimTime(t)) {
                let (_, event) = self.events.pop().expect("peeked");
                self.stats.events += 1;
                if self.stats.events.is_multiple_of(4096) {
                    progress(self.now);
                }
                match event {
                    FlowEvent::Arrival(c) => self.arrive(c as usize, &mut new_flows),
                    FlowEvent::Reroute => reroute = true,
                    FlowEvent::Tick => tick = true,
                }
            }
            if !new_flows.is_empty() {
                let v = View {
                    now: self.now,
                    net: self.net,
                    flows: &self.flows,
                    coflows: &self.coflows,
                };
                self.policy.on_arrivals(&v, &new_flows);
                seeds.extend_from_slice(&new_flows);
                if self.incremental {
                    self.arrival_cut(&new_flows);
                }
            }
            if !seeds.is_empty() || !seed_links.is_empty() {
                seed_links.append(&mut self.skipped_links);
                self.reallocate(&seeds, &seed_links);
            }
            if reroute {
                self.reroute_pending = false;
                self.reroute_round();
            }
            if tick {
                self.tick_pending = false;
                self.do_tick();
            }
            self.schedule_timers();
        }
    }

    fn schedule_timers(&mut self) {
        if self.active_list.is_empty() {
            return;
        }
        if !self.tick_pending {
            if let Some(next) = self.next_tick_time() {
                self.events.push(SimTime(next), FlowEvent::Tick);
                self.tick_pending = true;
                self.tick_at = next;
            }
        }
        if let Some(period) = self.reroute.as_ref().map(|h| h.period()) {
            if !self.reroute_pending {
                let p = period.ps().max(1);
                let next = (self.now.ps() / p + 1) * p;
                self.events.push(SimTime(next), FlowEvent::Reroute);
                self.reroute_pending = true;
            }
        }
    }

    /// When the next tick would be, if the policy wants one.
    fn next_tick_time(&self) -> Option<u64> {
        let period = self.policy.tick_period()?;
        if !self.policy.wants_tick() {
            return None;
        }
        let p = period.ps().max(1);
        Some((self.now.ps() / p + 1) * p)
    }

    fn arrive(&mut self, c: usize, new_flows: &mut Vec<u32>) {
        self.arrivals_left -= 1;
        let mut touched: Vec<(u32, f64)> = Vec::new();
        let mut flow_bound = 0.0f64;
        for f in self.coflows.flows(c) {
            let hops = routing::route(
                self.net,
                &self.cfg.routing,
                self.cfg.seed,
                f as u32,
                self.flows.src[f],
                self.flows.dst[f],
                &self.load,
            );
            flow_bound = flow_bound.max(self.flows.size[f] * 8.0 / self.net.route_rate(&hops));
            self.set_route(f, &hops);
            self.flows.active[f] = true;
            self.flows.tlast[f] = self.now.ps();
            self.active_list.push(f as u32);
            self.live += 1;
            new_flows.push(f as u32);
            for &l in &[
                self.net.host_up[self.flows.src[f] as usize],
                self.net.host_down[self.flows.dst[f] as usize],
            ] {
                match touched.iter_mut().find(|x| x.0 == l) {
                    Some(x) => x.1 += self.flows.size[f],
                    None => touched.push((l, self.flows.size[f])),
                }
            }
        }
        let port_bound = touched
            .iter()
            .map(|&(l, b)| b * 8.0 / self.net.cap[l as usize])
            .fold(0.0, f64::max);
        self.coflows.ideal[c] = port_bound.max(flow_bound);
    }

    fn set_route(&mut self, f: usize, hops: &[Hop]) {
        let start = self.flows.arena.len() as u32;
        self.flows.arena.extend_from_slice(hops);
        // The flow's rate is 0 here (new, or set to 0 before a reroute).
        debug_assert_eq!(self.flows.rate[f], 0.0);
        self.flows.arena_q.resize(self.flows.arena.len(), 0);
        self.flows.route[f] = (start, hops.len() as u32);
        self.flows.route_epoch += 1;
        for h in hops {
            self.link_flows[h.link as usize].push((f as u32, start));
            self.nact[h.link as usize] += 1;
        }
    }

    fn complete(&mut self, f: usize, seed_links: &mut Vec<u32>) {
        self.settle(f);
        if self.cfg.audit {
            let size = self.flows.size[f];
            let rem = self.flows.rem[f];
            let slack = self.flows.rate[f] * 2e-12 / 8.0 + 1e-9 * size + 1e-6;
            assert!(
                rem.abs() <= slack,
                "flow {f}: {rem} bytes left at its completion (rate {})",
                self.flows.rate[f]
            );
            let sent = self.flows.sent[f];
            assert!(
                (sent - size).abs() <= slack,
                "flow {f}: sent {sent} of {size} bytes"
            );
        }
        self.flows.rem[f] = 0.0;
        self.flows.active[f] = false;
        self.live -= 1;
        self.done.remove(f as u32);
        if let Some(d) = self.defer.as_mut() {
            d.on[f] = false;
        }
        self.flows.finish[f] = self.now;
        let c = self.flows.coflow[f] as usize;
        self.coflows.left[c] -= 1;
        if self.coflows.left[c] == 0 {
            self.coflows.finish[c] = self.now;
        }
        // A policy whose decision this completion leaves as it was (a coflow scheduler while
        // the rest of the coflow is still running) keeps every other rate.
        let reallocates = !self.skip_completions
            || self.policy.completion_reallocates(
                &View {
                    now: self.now,
                    net: self.net,
                    flows: &self.flows,
                    coflows: &self.coflows,
                },
                f as u32,
            );
        self.cut = self.cut.min(self.flows.rate[f]);
        let (a, n) = self.flows.route[f];
        for k in a..a + n {
            let l = self.flows.arena[k as usize].link;
            // Incremental maxmin: a link with room to spare before the flow left changes
            // nothing by getting more.
            if !reallocates {
                self.skipped_links.push(l);
            } else if !self.incremental || self.tight(l as usize) {
                seed_links.push(l);
                if self.incremental {
                    let lu = l as usize;
                    if self.freed[lu] == 0.0 {
                        self.freed_links.push(l);
                    }
                    self.freed[lu] = self.freed[lu].max(self.flows.rate[f]);
                }
            }
            self.nact[l as usize] -= 1;
        }
        let rate = self.flows.rate[f];
        self.set_rate(f, 0.0);
        let v = View {
            now: self.now,
            net: self.net,
            flows: &self.flows,
            coflows: &self.coflows,
        };
        self.policy.on_completion(&v, f as u32);
        if !reallocates {
            let mut changes = std::mem::take(&mut self.changes);
            changes.clear();
            self.policy
                .after_skipped_completion(&v, f as u32, rate, &mut changes);
            if !changes.is_empty() {
                let mut ids = std::mem::take(&mut self.comp);
                let mut rates = std::mem::take(&mut self.rates);
                ids.clear();
                rates.clear();
                for &(g, r) in &changes {
                    self.settle(g as usize);
                    ids.push(g);
                    rates.push(r);
                }
                self.apply(&ids, &rates);
                self.comp = ids;
                self.rates = rates;
            }
            self.changes = changes;
        }
    }

    fn settle(&mut self, f: usize) {
        let now = self.now.ps();
        let dt = now - self.flows.tlast[f];
        if dt > 0 {
            let bytes = self.flows.rate[f] * dt as f64 * 1e-12 / 8.0;
            self.flows.rem[f] -= bytes;
            self.flows.sent[f] += bytes;
            self.flows.tlast[f] = now;
        }
    }

    /// Sets flow `f`'s rate, keeping the per-link loads that something reads: the float load
    /// (`load`) only under CONGA (its path choice is the only reader), the fixed-point load
    /// (`loadq`, `arena_q`) only for the incremental `maxmin`.
    fn set_rate(&mut self, f: usize, r: f64) {
        let old = self.flows.rate[f];
        if old != r {
            if self.track_load || self.incremental {
                let (a, n) = self.flows.route[f];
                let (a, b) = (a as usize, (a + n) as usize);
                if self.track_load {
                    for h in &self.flows.arena[a..b] {
                        self.load[h.link as usize] += (r - old) * h.coef;
                    }
                }
                if self.incremental {
                    let hops = &self.flows.arena[a..b];
                    let qs = &mut self.flows.arena_q[a..b];
                    // `r * 1.0 == r` exactly: a whole-rate hop (every hop but DRILL's) shares
                    // one rounding.
                    let whole = fixed(r);
                    for (h, q) in hops.iter().zip(qs) {
                        let nq = if h.coef == 1.0 {
                            whole
                        } else {
                            fixed(r * h.coef)
                        };
                        let l = h.link as usize;
                        self.loadq[l] += nq - *q;
                        *q = nq;
                    }
                }
            }
            self.flows.rate[f] = r;
        }
    }

    /// Files flow `f`'s completion from its current bytes left and rate (after a rate
    /// change), or defers it when it surely falls after `horizon` (the next tick).
    fn schedule_done(&mut self, f: usize, horizon: Option<u64>) {
        self.flows.version[f] = self.flows.version[f].wrapping_add(1);
        let rate = self.flows.rate[f];
        let rem = self.flows.rem[f].max(0.0);
        let now = self.now.ps();
        if let Some(d) = self.defer.as_mut() {
            if let Some(h) = horizon {
                if rem > 1e-6 && rate > 0.0 && surely_after(rem, rate, now, h) {
                    self.done.remove(f as u32);
                    self.stats.deferrals += 1;
                    d.on[f] = true;
                    d.rem[f] = rem;
                    d.at[f] = now;
                    return;
                }
            }
            // Filed from the current inputs: whatever was deferred is stale.
            d.on[f] = false;
        }
        self.file_done(f, rem, rate, now);
    }

    /// A deferred flow whose rate did not change: files the completion time computed when it
    /// was deferred, or keeps it deferred while it surely falls after `horizon`.
    fn refile_done(&mut self, f: usize, horizon: Option<u64>) {
        let Some(d) = self.defer.as_mut() else {
            return;
        };
        let (rem, at, rate) = (d.rem[f], d.at[f], self.flows.rate[f]);
        if let Some(h) = horizon {
            if surely_after(rem, rate, at, h) {
                return;
            }
        }
        d.on[f] = false;
        self.file_done(f, rem, rate, at);
    }

    fn file_done(&mut self, f: usize, rem: f64, rate: f64, now: u64) {
        match completion_at(rem, rate, now) {
            Some(at) => self.done.set(f as u32, at),
            None => self.done.remove(f as u32),
        }
    }

    fn next_epoch(&mut self) -> u32 {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.visit_flow.iter_mut().for_each(|x| *x = 0);
            self.visit_link.iter_mut().for_each(|x| *x = 0);
            self.visit_coflow.iter_mut().for_each(|x| *x = 0);
            self.epoch = 1;
        }
        self.epoch
    }

    /// The component of active flows reachable from the seeds.
    fn component(&mut self, seeds: &[u32], seed_links: &[u32]) {
        let ep = self.next_epoch();
        self.comp.clear();
        let coupling = self.policy.coupling();
        if coupling == Coupling::Global {
            self.compact_active();
            self.comp.extend_from_slice(&self.active_list);
            return;
        }
        let mut link_queue: Vec<u32> = Vec::new();
        let mut flow_queue: Vec<u32> = Vec::new();
        for &l in seed_links {
            if self.visit_link[l as usize] != ep {
                self.visit_link[l as usize] = ep;
                link_queue.push(l);
            }
        }
        for &f in seeds {
            flow_queue.push(f);
        }
        loop {
            if let Some(f) = flow_queue.pop() {
                let fu = f as usize;
                if !self.flows.active[fu] || self.visit_flow[fu] == ep {
                    continue;
                }
                self.visit_flow[fu] = ep;
                self.comp.push(f);
                let (a, n) = self.flows.route[fu];
                for h in &self.flows.arena[a as usize..(a + n) as usize] {
                    if self.visit_link[h.link as usize] != ep {
                        self.visit_link[h.link as usize] = ep;
                        link_queue.push(h.link);
                    }
                }
                if coupling == Coupling::LinksAndCoflows {
                    let c = self.flows.coflow[fu] as usize;
                    if self.visit_coflow[c] != ep {
                        self.visit_coflow[c] = ep;
                        for g in self.coflows.flows(c) {
                            if self.flows.active[g] && self.visit_flow[g] != ep {
                                flow_queue.push(g as u32);
                            }
                        }
                    }
                }
                continue;
            }
            let Some(l) = link_queue.pop() else { break };
            let list = &mut self.link_flows[l as usize];
            let flows = &self.flows;
            list.retain(|&(g, start)| {
                flows.active[g as usize] && flows.route[g as usize].0 == start
            });
            for &(g, _) in list.iter() {
                if self.visit_flow[g as usize] != ep {
                    flow_queue.push(g);
                }
            }
        }
        self.comp.sort_unstable();
    }

    fn compact_active(&mut self) {
        let flows = &self.flows;
        self.active_list.retain(|&f| flows.active[f as usize]);
        // Arrivals append increasing flow numbers, so this is usually sorted already.
        if !self.active_list.is_sorted() {
            self.active_list.sort_unstable();
        }
    }

    fn reallocate(&mut self, seeds: &[u32], seed_links: &[u32]) {
        if self.incremental {
            self.reallocate_maxmin(seeds, seed_links);
            return;
        }
        self.component(seeds, seed_links);
        if self.comp.is_empty() {
            return;
        }
        let comp = std::mem::take(&mut self.comp);
        for &f in &comp {
            self.settle(f as usize);
        }
        let mut rates = std::mem::take(&mut self.rates);
        rates.clear();
        rates.resize(comp.len(), 0.0);
        let v = View {
            now: self.now,
            net: self.net,
            flows: &self.flows,
            coflows: &self.coflows,
        };
        self.policy.allocate(&v, &comp, &mut rates);
        self.apply(&comp, &rates);
        self.stats.allocations += 1;
        self.stats.allocated_flows += comp.len() as u64;
        self.rates = rates;
        self.comp = comp;
    }

    /// Lowers `cut` to the lowest level at which a link crossed by a new flow fills, with the
    /// other flows on it frozen at their rates below that level and the new flows unfrozen:
    /// the smallest `lambda` with `sum_i c_i min(x_i, lambda) + lambda sum_new c = capacity`.
    fn arrival_cut(&mut self, new_flows: &[u32]) {
        let ep = self.next_epoch();
        self.arrival_levels.clear();
        let mut pairs = std::mem::take(&mut self.scratch);
        for &f in new_flows {
            let (a, n) = self.flows.route[f as usize];
            for k in a..a + n {
                let l = self.flows.arena[k as usize].link;
                let lu = l as usize;
                if self.visit_link[lu] == ep {
                    continue;
                }
                self.visit_link[lu] = ep;
                pairs.clear();
                let mut w_new = 0.0f64;
                let mut w_all = 0.0f64;
                for &(g, start) in &self.link_flows[lu] {
                    let gu = g as usize;
                    if !self.flows.active[gu] || self.flows.route[gu].0 != start {
                        continue;
                    }
                    let n = self.flows.route[gu].1;
                    let hops = &self.flows.arena[start as usize..(start + n) as usize];
                    let c = hops.iter().find(|h| h.link == l).map_or(1.0, |h| h.coef);
                    w_all += c;
                    if self.flows.version[gu] == 0 {
                        w_new += c;
                    } else {
                        pairs.push((self.flows.rate[gu], c));
                    }
                }
                pairs.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
                let mut frozen = 0.0f64;
                let mut lambda = f64::INFINITY;
                for &(x, c) in pairs.iter() {
                    let at = (self.net.cap[lu] - frozen) / w_all;
                    if at <= x {
                        lambda = at;
                        break;
                    }
                    frozen += c * x;
                    w_all -= c;
                }
                if lambda == f64::INFINITY && w_new > 0.0 {
                    lambda = (self.net.cap[lu] - frozen) / w_new;
                }
                self.cut = self.cut.min(lambda.max(0.0));
                self.arrival_levels.push((l, lambda.max(0.0)));
            }
        }
        self.scratch = pairs;
    }

    /// Max-min fair rates after this instant's arrivals and completions, re-solving only what
    /// can change.
    ///
    /// First tries [`Simulator::bottleneck_resolve`] (re-solves only the flows whose
    /// bottleneck moves, within a work budget); if it gives up, the cut-based re-solve below
    /// ([`Simulator::reallocate_cut`]) runs.
    ///
    /// (The flows above the cut are taken from the active list rather than from the
    /// component of the event: on the loaded fabrics of the benchmarks that component held
    /// nearly all of them anyway, and max-min splits over components, so solving a union of
    /// components gives the same rates.)
    ///
    /// Water-filling raises a common level; a flow freezes when a link on its route fills.
    /// Removing a flow of rate `r` leaves every freeze below level `r` as it was (no link it
    /// crossed filled below `r`, and the other links see the same flows); adding flows leaves
    /// every freeze below `capacity / active flows` of each link they cross (no such link can
    /// fill earlier). So with `cut` the smallest of these, flows whose rate is below `cut` keep
    /// it exactly, and the rest is the water-filling of the flows at or above `cut` on the
    /// capacity the others leave. That problem splits into connected components, and only the
    /// component holding the new flows and the completed flows' links can change. On a loaded
    /// fabric this is a fraction of the flows the plain component holds.
    fn reallocate_maxmin(&mut self, seeds: &[u32], seed_links: &[u32]) {
        if !self.cut.is_finite() {
            self.clear_freed();
            return;
        }
        let done = if self.bn_min_flows.is_none() {
            false
        } else if self.bn_skip > 0 {
            self.bn_skip -= 1;
            false
        } else if self.bottleneck_resolve(seeds, seed_links) {
            self.bn_fails = 0;
            self.bn_success += (1.0 - self.bn_success) / 32.0;
            true
        } else {
            self.bn_success -= self.bn_success / 32.0;
            self.bn_fails += 1;
            if self.bn_fails >= 2 {
                self.bn_skip = (1u32 << (self.bn_fails - 2).min(8)).min(BN_BACKOFF_MAX);
            }
            false
        };
        self.clear_freed();
        if done {
            return;
        }
        let work = self.reallocate_cut(seeds, seed_links);
        self.cut_work += (work as f64 - self.cut_work) / 16.0;
    }

    /// The cut-based re-solve (see [`Simulator::reallocate_maxmin`]); returns the flows
    /// water-filled, over its tries.
    fn reallocate_cut(&mut self, seeds: &[u32], seed_links: &[u32]) -> usize {
        let mut work = 0;
        // Ties at the cut belong above it; a margin for rounding only adds flows, which is
        // always exact. New flows (never allocated) are always in.
        let thr = self.cut * (1.0 - 1e-9);
        self.round = self.round.wrapping_add(1);
        if self.active_list.len() > 2 * self.live + 1024 {
            // Finished flows leave the list only when it is compacted.
            self.compact_active();
        }
        for _ in 0..LOCAL_TRIES {
            if !self.local_set(seeds, seed_links, thr) {
                // The search costs more than a scan of every active flow would.
                break;
            }
            if self.comp.is_empty() {
                // No flow above the cut is reachable through a full link: nothing changes.
                return work;
            }
            work += self.comp.len();
            match self.solve_set(thr, true) {
                Verdict::Applied => {
                    self.stats.allocations += 1;
                    self.stats.allocated_flows += self.comp.len() as u64;
                    return work;
                }
                Verdict::Widen => continue,
                Verdict::GiveUp => break,
            }
        }
        self.above_cut_set(thr);
        if !self.comp.is_empty() {
            work += self.comp.len();
            let _ = self.solve_set(thr, false);
            self.stats.allocations += 1;
            self.stats.allocated_flows += self.comp.len() as u64;
        }
        work
    }

    fn clear_freed(&mut self) {
        for &l in &self.freed_links {
            self.freed[l as usize] = 0.0;
        }
        self.freed_links.clear();
    }

    fn next_bstamp(&mut self) -> u32 {
        self.bstamp = self.bstamp.wrapping_add(1);
        if self.bstamp == 0 {
            self.bmark_flow.iter_mut().for_each(|x| *x = 0);
            self.bstamp = 1;
        }
        self.bstamp
    }

    fn next_lstamp(&mut self) -> u32 {
        self.lstamp = self.lstamp.wrapping_add(1);
        if self.lstamp == 0 {
            self.bmark_link.iter_mut().for_each(|x| *x = 0);
            self.bseen_link.iter_mut().for_each(|x| *x = 0);
            self.lstamp = 1;
        }
        self.lstamp
    }

    /// Adds to `badd` the active flows on link `l` not in the set (`bmark_flow != st`) whose
    /// rate is at least `min_rate`, marking them.
    fn take_from_link(&mut self, l: u32, st: u32, min_rate: f64) {
        let flows = &self.flows;
        let mark = &mut self.bmark_flow;
        for &(g, start) in &self.link_flows[l as usize] {
            let gu = g as usize;
            if flows.active[gu]
                && flows.route[gu].0 == start
                && mark[gu] != st
                && flows.rate[gu] >= min_rate
            {
                mark[gu] = st;
                self.badd.push(g);
            }
        }
    }

    /// Max-min rates after this instant's events by propagating along the bottleneck
    /// structure: re-solve a set `C` of flows with every other flow held at its rate, then
    /// check the result is the max-min allocation of all flows, and widen `C` where it is
    /// not. Returns false (nothing applied) when `C` grows too large or the checks do not
    /// settle; the caller then falls back to the cut-based re-solve.
    ///
    /// `C` starts with the new flows and, on each link a finished flow left that was full,
    /// the flows at the largest rate there (the ones bottlenecked on it). A link crossed by
    /// a flow of `C` is *touched*. After water-filling `C` on the capacity the others leave:
    ///
    /// - (a) on every touched link that was full where a flow outside `C` ran at the largest
    ///   rate (so it may have been bottlenecked there), the link must still be full and no
    ///   flow of `C` above it; otherwise those flows join `C`.
    /// - (b) every flow of `C` must have a full link on which no flow (in `C` or not) runs
    ///   faster; otherwise the faster flows outside `C` on its full links join `C`.
    ///
    /// Why that is the max-min allocation: a flow outside `C` keeps its bottleneck (a full
    /// link where it is fastest): if the link is untouched, nothing on it changed; if it is
    /// touched, (a) holds there; and a flow bottlenecked on a link a finished flow left
    /// joined `C` at the start. A flow of `C` has its bottleneck by (b). Every link stays
    /// within capacity. An allocation in which every flow has a bottleneck is max-min fair,
    /// and that allocation is unique.
    fn bottleneck_resolve(&mut self, seeds: &[u32], seed_links: &[u32]) -> bool {
        let limit = self
            .bn_min_flows
            .unwrap_or(0)
            .saturating_add((self.cut_work / 2.0 * self.bn_success.powi(4)) as usize);
        let st = self.next_bstamp();
        let sl = self.next_lstamp();
        let mut comp = std::mem::take(&mut self.comp);
        comp.clear();
        self.badd.clear();
        for &f in seeds {
            let fu = f as usize;
            if self.flows.active[fu] && self.bmark_flow[fu] != st {
                self.bmark_flow[fu] = st;
                comp.push(f);
            }
        }
        // On each link a finished flow left full: the flows at its largest rate before.
        for &l in seed_links {
            let lu = l as usize;
            if self.bmark_link[lu] == sl {
                continue;
            }
            self.bmark_link[lu] = sl;
            let flows = &self.flows;
            let list = &mut self.link_flows[lu];
            list.retain(|&(g, start)| {
                flows.active[g as usize] && flows.route[g as usize].0 == start
            });
            let mut m = self.freed[lu];
            for &(g, _) in list.iter() {
                m = m.max(flows.rate[g as usize]);
            }
            self.take_from_link(l, st, m * (1.0 - 1e-9));
        }
        // On each link a new flow crosses: the flows above the level at which it fills with
        // the new flows added (`arrival_cut`); they must slow down.
        for i in 0..self.arrival_levels.len() {
            let (l, lambda) = self.arrival_levels[i];
            self.take_from_link(l, st, lambda * (1.0 - 1e-9));
        }
        comp.extend_from_slice(&self.badd);
        self.badd.clear();
        let mut rates = std::mem::take(&mut self.rates);
        let mut ok = false;
        // Flows re-solved over the rounds, plus link entries scanned / `BN_SCAN_PER_FLOW`.
        let mut work = 0usize;
        let mut scanned = 0usize;
        self.stats.bn_tries += 1;
        // Links of `C` (`bseen_link == sc`), kept over the rounds: `C` only grows, so each
        // round adds the new flows' shares to the links' state and rescans only the links
        // those flows cross (`dirty`).
        let sc = self.next_lstamp();
        self.comp_links.clear();
        let mut dirty = std::mem::take(&mut self.dirty_links);
        let mut fresh = 0usize;
        for _ in 0..BN_ITERS {
            self.stats.bn_rounds += 1;
            if comp.is_empty() {
                ok = true;
                break;
            }
            if work + comp.len() + scanned / BN_SCAN_PER_FLOW > limit {
                break;
            }
            let lst = self.next_lstamp();
            dirty.clear();
            for &f in &comp[fresh..] {
                let fu = f as usize;
                let r = self.flows.rate[fu];
                let (a, n) = self.flows.route[fu];
                let (a, b) = (a as usize, (a + n) as usize);
                for (h, q) in self.flows.arena[a..b].iter().zip(&self.flows.arena_q[a..b]) {
                    let lu = h.link as usize;
                    if self.bseen_link[lu] != sc {
                        self.bseen_link[lu] = sc;
                        self.comp_links.push(h.link);
                        self.accq[lu] = self.loadq[lu];
                        self.lmax_old[lu] = self.freed[lu];
                    }
                    if self.bmark_link[lu] != lst {
                        self.bmark_link[lu] = lst;
                        dirty.push(h.link);
                    }
                    self.accq[lu] -= *q;
                    self.lmax_old[lu] = self.lmax_old[lu].max(r);
                }
            }
            fresh = comp.len();
            for &l in &self.comp_links {
                let lu = l as usize;
                self.avail[lu] = (self.net.cap[lu] - self.accq[lu] as f64 / FIXED_ONE).max(0.0);
                self.lmax_c[lu] = 0.0;
            }
            // The other flows on the links whose membership changed.
            let budget = (limit - work - comp.len()).saturating_mul(BN_SCAN_PER_FLOW);
            let mut over = false;
            for &l in &dirty {
                if scanned > budget {
                    // Out of budget: stop here (`lmax_nc` is incomplete, nothing is checked).
                    over = true;
                    break;
                }
                let lu = l as usize;
                let flows = &self.flows;
                let mark = &self.bmark_flow;
                let list = &mut self.link_flows[lu];
                list.retain(|&(g, start)| {
                    flows.active[g as usize] && flows.route[g as usize].0 == start
                });
                scanned += list.len();
                let mut m = 0.0f64;
                for &(g, _) in list.iter() {
                    if mark[g as usize] != st {
                        m = m.max(flows.rate[g as usize]);
                    }
                }
                self.lmax_nc[lu] = m;
                self.lmax_old[lu] = self.lmax_old[lu].max(m);
            }
            work += comp.len();
            if over || work + scanned / BN_SCAN_PER_FLOW > limit {
                break;
            }
            rates.clear();
            rates.resize(comp.len(), 0.0);
            let flows = &self.flows;
            self.wf.fill(
                &mut self.avail,
                comp.len(),
                |k| flows.hops(comp[k] as usize),
                |_| 1.0,
                |_| f64::INFINITY,
                &mut rates,
            );
            for (k, &f) in comp.iter().enumerate() {
                for h in self.flows.hops(f as usize) {
                    let lu = h.link as usize;
                    self.lmax_c[lu] = self.lmax_c[lu].max(rates[k]);
                }
            }
            // (a) Flows outside `C` keep their bottlenecks.
            for i in 0..self.comp_links.len() {
                let l = self.comp_links[i];
                let lu = l as usize;
                let nc = self.lmax_nc[lu];
                if nc > 0.0 && nc >= self.lmax_old[lu] * (1.0 - 1e-9) && self.tight(lu) {
                    let full = self.avail[lu] <= TIGHT * self.net.cap[lu];
                    if !full || self.lmax_c[lu] > nc * (1.0 + BN_TIE) {
                        self.take_from_link(l, st, nc * (1.0 - 1e-9));
                    }
                }
            }
            // (b) Flows of `C` have bottlenecks.
            let mut stuck = false;
            for (k, &f) in comp.iter().enumerate() {
                let x = rates[k] * (1.0 + BN_TIE);
                let hops = self.flows.hops(f as usize);
                let has = hops.iter().any(|h| {
                    let lu = h.link as usize;
                    self.avail[lu] <= TIGHT * self.net.cap[lu]
                        && x >= self.lmax_c[lu]
                        && x >= self.lmax_nc[lu]
                });
                if has {
                    continue;
                }
                let mut faster = false;
                let (a, n) = self.flows.route[f as usize];
                for i in a..a + n {
                    let h = self.flows.arena[i as usize];
                    let lu = h.link as usize;
                    if self.avail[lu] <= TIGHT * self.net.cap[lu] && self.lmax_nc[lu] > x {
                        faster = true;
                        self.take_from_link(h.link, st, x);
                    }
                }
                // No bottleneck and nobody to pull in (rounding inside `C`): give up.
                stuck |= !faster;
            }
            if stuck {
                break;
            }
            if self.badd.is_empty() {
                ok = true;
                break;
            }
            comp.extend_from_slice(&self.badd);
            self.badd.clear();
        }
        if ok && !comp.is_empty() {
            for &f in &comp {
                self.settle(f as usize);
            }
            self.apply(&comp, &rates);
            self.stats.allocations += 1;
            self.stats.allocated_flows += comp.len() as u64;
        }
        if ok {
            self.stats.bn_applied += 1;
        }
        self.dirty_links = dirty;
        self.rates = rates;
        self.comp = comp;
        ok
    }

    /// Whether link `l` was full before this instant's changes (or must be treated so).
    fn tight(&self, l: usize) -> bool {
        self.force[l] == self.round
            || self.net.cap[l] - self.loadq[l] as f64 / FIXED_ONE <= TIGHT * self.net.cap[l]
    }

    /// The flows at or above the cut reachable from the event through full links: a full
    /// link pulls in every flow above the cut on it; a link with room left (before) is only
    /// recorded in `slack_links`, to be checked after the solve. Gives up (false) once it
    /// has looked at more link entries than a quarter of the active flows (a scan of the
    /// active list is sequential and several times cheaper per entry).
    fn local_set(&mut self, seeds: &[u32], seed_links: &[u32], thr: f64) -> bool {
        let mut budget = self.active_list.len() / 4 + 64;
        let ep = self.next_epoch();
        self.comp.clear();
        self.slack_links.clear();
        let mut link_queue = std::mem::take(&mut self.link_queue);
        let mut flow_queue = std::mem::take(&mut self.flow_queue);
        link_queue.clear();
        flow_queue.clear();
        // The finished flows' links that were full before they left (see `complete`).
        for &l in seed_links {
            let lu = l as usize;
            if self.visit_link[lu] != ep {
                self.visit_link[lu] = ep;
                link_queue.push(l);
            }
        }
        flow_queue.extend_from_slice(seeds);
        loop {
            if let Some(f) = flow_queue.pop() {
                let fu = f as usize;
                if !self.flows.active[fu] || self.visit_flow[fu] == ep {
                    continue;
                }
                self.visit_flow[fu] = ep;
                self.comp.push(f);
                let (a, n) = self.flows.route[fu];
                for h in &self.flows.arena[a as usize..(a + n) as usize] {
                    let lu = h.link as usize;
                    if self.visit_link[lu] != ep {
                        self.visit_link[lu] = ep;
                        if self.tight(lu) {
                            link_queue.push(h.link);
                        } else {
                            self.slack_links.push(h.link);
                        }
                    }
                }
                continue;
            }
            let Some(l) = link_queue.pop() else { break };
            let list = &mut self.link_flows[l as usize];
            if list.len() > budget {
                self.link_queue = link_queue;
                self.flow_queue = flow_queue;
                return false;
            }
            budget -= list.len();
            let flows = &self.flows;
            list.retain(|&(g, start)| {
                flows.active[g as usize] && flows.route[g as usize].0 == start
            });
            for &(g, _) in list.iter() {
                let gu = g as usize;
                if self.visit_flow[gu] != ep && (flows.rate[gu] >= thr || flows.version[gu] == 0) {
                    flow_queue.push(g);
                }
            }
        }
        self.comp.sort_unstable();
        self.link_queue = link_queue;
        self.flow_queue = flow_queue;
        true
    }

    /// Every active flow at or above the cut (and every new flow).
    fn above_cut_set(&mut self, thr: f64) {
        self.compact_active();
        self.slack_links.clear();
        // Branch-free (a flow is above the cut about as often as not): write every flow, keep
        // the ones that qualify.
        let (rate, version) = (&self.flows.rate, &self.flows.version);
        self.comp.clear();
        self.comp.resize(self.active_list.len(), 0);
        let mut k = 0;
        for &f in &self.active_list {
            let fu = f as usize;
            self.comp[k] = f;
            k += usize::from(rate[fu] >= thr || version[fu] == 0);
        }
        self.comp.truncate(k);
    }

    /// Water-fills `comp` on the capacity the other flows leave and applies the rates. With
    /// `verify`, first checks the result is the max-min allocation of every flow: no flow
    /// fell below the cut, and every link in `slack_links` that filled carries no flow above
    /// the cut outside `comp` (such a link is marked full for the next try and nothing is
    /// applied).
    ///
    /// Why that suffices: a flow outside `comp` above the cut has its bottleneck on a full
    /// link; had a flow of `comp` crossed that link, the search would have pulled it in; so
    /// its bottleneck is untouched. A flow of `comp` is bottlenecked, in the sub-problem, on
    /// a link that filled, where only flows of `comp` and flows below the cut (slower than it)
    /// remain once the check passes. Every link keeps within capacity. So every flow has a
    /// bottleneck: the allocation is max-min fair, and max-min fair allocations are unique.
    fn solve_set(&mut self, thr: f64, verify: bool) -> Verdict {
        // (The epoch is not used here; it is taken to keep the sequence of epochs.)
        let _ = self.next_epoch();
        let comp = std::mem::take(&mut self.comp);
        let flows = &self.flows;
        // The water-filling takes in the routes first; the links it lists are those of `comp`.
        self.wf.prepare_flows(self.avail.len(), comp.len(), |k| {
            flows.hops(comp[k] as usize)
        });
        // Capacity left by the flows that keep their rates: the exact (fixed-point) load of
        // each link less what the re-solved flows carry.
        for &l in self.wf.touched() {
            self.accq[l as usize] = self.loadq[l as usize];
        }
        for &f in &comp {
            let (a, n) = flows.route[f as usize];
            let (a, b) = (a as usize, (a + n) as usize);
            for (h, q) in flows.arena[a..b].iter().zip(&flows.arena_q[a..b]) {
                self.accq[h.link as usize] -= *q;
            }
        }
        for &l in self.wf.touched() {
            let lu = l as usize;
            self.avail[lu] = (self.net.cap[lu] - self.accq[lu] as f64 / FIXED_ONE).max(0.0);
        }
        let mut rates = std::mem::take(&mut self.rates);
        rates.clear();
        rates.resize(comp.len(), 0.0);
        self.wf.fill_prepared(
            &mut self.avail,
            comp.len(),
            |_| 1.0,
            |_| f64::INFINITY,
            &mut rates,
        );
        let mut verdict = Verdict::Applied;
        if verify {
            if rates.iter().any(|&r| r < thr) {
                // Held down by flows outside `comp` on links with room before: widen there.
                verdict = Verdict::GiveUp;
                for (k, &f) in comp.iter().enumerate() {
                    if rates[k] >= thr {
                        continue;
                    }
                    let (a, n) = self.flows.route[f as usize];
                    for i in a..a + n {
                        let lu = self.flows.arena[i as usize].link as usize;
                        if !self.tight(lu) {
                            self.force[lu] = self.round;
                            verdict = Verdict::Widen;
                        }
                    }
                }
            } else {
                // `comp` still carries this epoch's marks from `local_set` only if no other
                // epoch began: mark it afresh.
                let ep = self.next_epoch();
                for &f in &comp {
                    self.visit_flow[f as usize] = ep;
                }
                for k in 0..self.slack_links.len() {
                    let l = self.slack_links[k];
                    let lu = l as usize;
                    if self.avail[lu] > TIGHT * self.net.cap[lu] {
                        continue;
                    }
                    let flows = &self.flows;
                    let visit = &self.visit_flow;
                    let crowded = self.link_flows[lu].iter().any(|&(g, start)| {
                        let gu = g as usize;
                        flows.active[gu]
                            && flows.route[gu].0 == start
                            && visit[gu] != ep
                            && flows.rate[gu] >= thr
                    });
                    if crowded {
                        self.force[lu] = self.round;
                        verdict = Verdict::Widen;
                    }
                }
            }
        }
        if verdict == Verdict::Applied {
            for &f in &comp {
                self.settle(f as usize);
            }
            self.apply(&comp, &rates);
        }
        self.rates = rates;
        self.comp = comp;
        verdict
    }

    fn apply(&mut self, comp: &[u32], rates: &[f64]) {
        // Completions after the next tick wait for it (see `defer`): during a tick, the tick
        // that will follow it; otherwise the pending one.
        let horizon = if self.tick_horizon.is_some() {
            self.tick_horizon
        } else if self.tick_pending {
            Some(self.tick_at)
        } else {
            None
        };
        // Many completions move: update them in place and restore the heap order once
        // (O(heap) instead of a sift each; the order completions come out in is the same).
        let bulk = comp.len() >= 64 && comp.len() * BULK_FRACTION >= self.done.len();
        if bulk {
            self.done.begin_bulk();
        }
        for (k, &f) in comp.iter().enumerate() {
            let f = f as usize;
            let r = rates[k].max(0.0);
            let r = if r.is_finite() { r } else { 0.0 };
            let changed = r != self.flows.rate[f];
            self.set_rate(f, r);
            if changed || self.flows.version[f] == 0 {
                self.schedule_done(f, horizon);
            } else if self.defer.as_ref().is_some_and(|d| d.on[f]) {
                self.refile_done(f, horizon);
            }
        }
        self.done.end_bulk();
        if self.cfg.audit {
            self.audit_links(comp);
            self.audit_deferred(comp, horizon);
        }
    }

    /// Every deferred flow of `comp` completes after `horizon` (so no completion is missed)
    /// and has no heap entry; every other flow of `comp` with a rate and bytes left has one
    /// (so none is filed twice or not at all).
    fn audit_deferred(&self, comp: &[u32], horizon: Option<u64>) {
        let Some(d) = self.defer.as_ref() else {
            return;
        };
        for &f in comp {
            let f = f as usize;
            let filed = self.done.contains(f as u32);
            if !d.on[f] {
                let due = completion_at(
                    self.flows.rem[f].max(0.0),
                    self.flows.rate[f],
                    self.now.ps(),
                );
                assert!(
                    filed || due.is_none(),
                    "flow {f}: no completion filed (rate {}, {} bytes left)",
                    self.flows.rate[f],
                    self.flows.rem[f]
                );
                continue;
            }
            assert!(!filed, "flow {f}: deferred and filed");
            {
                let h = horizon.expect("a deferred completion without a next tick");
                let at = completion_at(d.rem[f], self.flows.rate[f], d.at[f]);
                assert!(
                    at.is_none_or(|at| at > h),
                    "flow {f}: deferred completion {at:?} not after the next tick {h}"
                );
            }
        }
    }

    fn audit_links(&self, comp: &[u32]) {
        let mut sum = vec![0.0f64; self.net.links()];
        for (f, &active) in self.flows.active.iter().enumerate() {
            if active {
                for h in self.flows.hops(f) {
                    sum[h.link as usize] += self.flows.rate[f] * h.coef;
                }
            }
        }
        for (l, &s) in sum.iter().enumerate() {
            assert!(
                s <= self.net.cap[l] * (1.0 + 1e-6) + 1e-3,
                "link {l} carries {s} b/s above its capacity {} (component of {} flows, policy {})",
                self.net.cap[l],
                comp.len(),
                self.policy.name()
            );
        }
        let _ = CAP_TOL;
    }

    fn do_tick(&mut self) {
        self.compact_active();
        if self.active_list.is_empty() {
            return;
        }
        let comp = std::mem::take(&mut self.active_list);
        for &f in &comp {
            self.settle(f as usize);
        }
        let mut rates = std::mem::take(&mut self.rates);
        rates.clear();
        rates.extend(comp.iter().map(|&f| self.flows.rate[f as usize]));
        let v = View {
            now: self.now,
            net: self.net,
            flows: &self.flows,
            coflows: &self.coflows,
        };
        self.policy.tick(&v, &comp, &mut rates);
        // The tick after this one (`schedule_timers` files it): every active flow is applied
        // again then, so completions after it can wait.
        self.tick_horizon = self.next_tick_time();
        self.apply(&comp, &rates);
        self.tick_horizon = None;
        self.stats.ticks += 1;
        self.rates = rates;
        self.active_list = comp;
    }

    /// One round of the routing mode's rerouting hook: settle the active flows, move the
    /// flows it names, re-solve if any moved.
    fn reroute_round(&mut self) {
        if self.reroute.is_none() {
            return;
        }
        self.compact_active();
        if self.active_list.is_empty() {
            return;
        }
        self.stats.reroutes += 1;
        let active = self.active_list.clone();
        for &f in &active {
            self.settle(f as usize);
        }
        let mut moves = Vec::new();
        if let Some(hook) = self.reroute.as_mut() {
            hook.reroute(self.net, &self.flows, &active, &mut moves);
        }
        for (f, chosen) in &moves {
            let fu = *f as usize;
            let r = self.flows.rate[fu];
            self.set_rate(fu, 0.0);
            let (a, n) = self.flows.route[fu];
            for h in &self.flows.arena[a as usize..(a + n) as usize] {
                self.nact[h.link as usize] -= 1;
            }
            let hops: Vec<Hop> = chosen.iter().map(|&l| Hop { link: l, coef: 1.0 }).collect();
            self.set_route(fu, &hops);
            self.set_rate(fu, r);
        }
        if !moves.is_empty() {
            let comp = active;
            let mut rates = vec![0.0; comp.len()];
            let v = View {
                now: self.now,
                net: self.net,
                flows: &self.flows,
                coflows: &self.coflows,
            };
            self.policy.allocate(&v, &comp, &mut rates);
            self.apply(&comp, &rates);
            self.stats.allocations += 1;
        }
    }

    /// The records so far.
    pub fn result(&self) -> RunResult {
        let secs = |t: SimTime| t.as_secs_f64();
        let mut coflows = Vec::with_capacity(self.coflows.len());
        for c in 0..self.coflows.len() {
            let fin = self.coflows.finish[c];
            let arr = self.coflows.arrival[c];
            coflows.push(CoflowRecord {
                id: self.coflows.id[c],
                arrival_s: secs(arr),
                finish_s: (fin != SimTime::NEVER).then(|| secs(fin)),
                cct_s: (fin != SimTime::NEVER).then(|| fin.saturating_since(arr).as_secs_f64()),
                ideal_s: self.coflows.ideal[c],
                flows: self.coflows.count[c],
                bytes: self.coflows.bytes[c],
            });
        }
        let mut flows = Vec::with_capacity(self.flows.len());
        for f in 0..self.flows.len() {
            let c = self.flows.coflow[f] as usize;
            let arr = self.coflows.arrival[c];
            let fin = self.flows.finish[f];
            let hops = self.flows.hops(f);
            let ideal = if hops.is_empty() {
                0.0
            } else {
                self.flows.size[f] * 8.0 / self.net.route_rate(hops)
            };
            flows.push(FlowRecordOut {
                id: f as u32,
                coflow: self.coflows.id[c],
                src: self.flows.src[f],
                dst: self.flows.dst[f],
                bytes: self.flows.size[f],
                start_s: secs(arr),
                finish_s: (fin != SimTime::NEVER).then(|| secs(fin)),
                fct_s: (fin != SimTime::NEVER).then(|| fin.saturating_since(arr).as_secs_f64()),
                ideal_s: ideal,
            });
        }
        RunResult {
            policy: self.policy.name().to_string(),
            routing: self.cfg.routing.name().to_string(),
            coflows,
            flows,
            events: self.stats.events,
            allocations: self.stats.allocations,
            allocated_flows: self.stats.allocated_flows,
            ticks: self.stats.ticks,
            reroutes: self.stats.reroutes,
            end_s: self.now.as_secs_f64(),
            extra: self.policy.report(),
        }
    }
}

/// Runs `coflows` on `net` under `policy` to completion.
pub fn simulate(
    net: &Net,
    coflows: Vec<CoflowInput>,
    policy: Box<dyn RatePolicy>,
    cfg: SimConfig,
) -> RunResult {
    Simulator::new(net, coflows, policy, cfg).run(|_| {})
}

/// Picoseconds in a duration given in seconds (for tests and workloads).
pub fn secs(s: f64) -> Delta {
    Delta::from_secs_f64(s)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::policy::{make_policy, PolicyConfig};
    use dctc_core::fabric::{leaf_spine, LeafSpineSpec};
    use dctc_num::{maxmin::weighted_max_min, Csr};
    use rand::{Rng, SeedableRng};

    #[test]
    fn fixed_point_rounding_equals_round() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        let mut xs: Vec<f64> = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            2.5,
            -2.5,
            0.49999999999999994,
            -0.49999999999999994,
            4503599627370495.5,
            4503599627370497.0,
            9007199254740993.0,
            1e19,
            -1e19,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MAX,
        ];
        for _ in 0..100_000 {
            xs.push(rng.random_range(-1e12..1e12));
            xs.push(rng.random_range(0.0..1e11) / FIXED_ONE);
            xs.push(f64::from_bits(rng.random::<u64>()));
        }
        for &x in &xs {
            let b = x / FIXED_ONE;
            assert_eq!(fixed(b), (b * FIXED_ONE).round() as i64, "{x:e}");
        }
    }

    /// 4 racks x 4 hosts at 10 Gb/s, 2 spines at 15 Gb/s: fabric links can be bottlenecks.
    pub(crate) fn test_net() -> Net {
        let topo = leaf_spine(&LeafSpineSpec {
            racks: 4,
            hosts_per_rack: 4,
            spines: 2,
            host_rate_gbps: 10.0,
            fabric_rate_gbps: 15.0,
            oversubscription: None,
            host_link_delay_us: 1.0,
            fabric_link_delay_us: 1.0,
            host_delay_us: 0.0,
            buffer_bytes: 100_000,
            spine_buffer_bytes: None,
        })
        .unwrap();
        Net::new(topo).unwrap()
    }

    /// `n` coflows of 1-5 flows between random distinct hosts of [`test_net`], arriving
    /// uniformly in `0..horizon_ps`, flows of 1 kB up to `max_bytes`.
    pub(crate) fn random_coflows(
        rng: &mut rand::rngs::StdRng,
        n: u32,
        horizon_ps: u64,
        max_bytes: f64,
    ) -> Vec<CoflowInput> {
        (0..n)
            .map(|i| CoflowInput {
                id: i,
                arrival: SimTime(rng.random_range(0..horizon_ps)),
                flows: (0..rng.random_range(1..6))
                    .map(|_| {
                        let src = rng.random_range(0..16u32);
                        FlowInput {
                            src,
                            dst: (src + rng.random_range(1..16u32)) % 16,
                            bytes: rng.random_range(1e3..max_bytes),
                        }
                    })
                    .collect(),
            })
            .collect()
    }

    /// Deferred completions (ticking policies) change nothing: the same finish times, to the
    /// picosecond, with deferral on and off, under the audit (which checks every deferred
    /// completion falls after the next tick and every completion leaves no bytes).
    #[test]
    fn deferred_completions_leave_every_finish_time_unchanged() {
        let net = test_net();
        // Random coflows, and long flows that let DBA converge (no tick pending) before the
        // next arrivals re-apply their rates.
        let flow = |src: u32, dst: u32, bytes: f64| FlowInput { src, dst, bytes };
        let calm = vec![
            CoflowInput {
                id: 0,
                arrival: SimTime::ZERO,
                flows: vec![
                    flow(0, 5, 4e7),
                    flow(1, 5, 3e7),
                    flow(0, 9, 5e7),
                    flow(2, 13, 2e7),
                ],
            },
            CoflowInput {
                id: 1,
                arrival: SimTime(30_000_000_000),
                flows: vec![flow(3, 5, 1e7), flow(0, 14, 2e7)],
            },
            CoflowInput {
                id: 2,
                arrival: SimTime(60_000_000_000),
                flows: vec![flow(4, 9, 1e7)],
            },
        ];
        for (seed, routing) in [
            (0u64, RoutingMode::Ecmp),
            (6, RoutingMode::Ecmp),
            (7, RoutingMode::Conga),
        ] {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let coflows: Vec<CoflowInput> = if seed == 0 {
                calm.clone()
            } else {
                random_coflows(&mut rng, 30, 3_000_000_000, 3e6)
            };
            let run = |defer: bool| {
                let policy = make_policy(&PolicyConfig::named("dba"), &net, &[]).unwrap();
                let cfg = SimConfig {
                    routing: routing.clone(),
                    audit: true,
                    ..SimConfig::default()
                };
                let mut sim = Simulator::new(&net, coflows.clone(), policy, cfg);
                if !defer {
                    sim.defer = None;
                }
                let res = sim.run(|_| {});
                let deferred = sim.stats.deferrals;
                (
                    sim.flows.finish.clone(),
                    sim.coflows.finish.clone(),
                    res.events,
                    deferred,
                )
            };
            let (on, off) = (run(true), run(false));
            assert!(on.0.iter().all(|&t| t != SimTime::NEVER));
            assert_eq!(on.0, off.0, "flow finish times");
            assert_eq!(on.1, off.1, "coflow finish times");
            assert_eq!(on.2, off.2, "events");
            assert_eq!(off.3, 0);
            assert!(on.3 > 100, "{} completions deferred", on.3);
        }
    }

    /// Incremental `maxmin` against a from-scratch water-filling (crate `num`) of every active
    /// flow, after every event of a random run with coflows arriving and flows finishing.
    #[test]
    fn incremental_maxmin_matches_a_full_resolve_after_every_event() {
        let net = test_net();
        // Bottleneck re-solve off (the cut-based path alone), on as in runs, and with no size
        // limit (it then settles nearly every event itself, widening as far as needed).
        // A tiny size floor exercises the give-ups (out of budget mid-round).
        let modes = [None, Some(BN_MIN_FLOWS), Some(usize::MAX / 2), Some(2)];
        let runs = [
            (3u64, RoutingMode::Ecmp),
            (4, RoutingMode::Drill),
            (5, RoutingMode::Conga),
        ];
        for ((seed, routing), bn) in runs
            .iter()
            .flat_map(|r| modes.iter().map(move |&m| (r.clone(), m)))
        {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let coflows = random_coflows(&mut rng, 60, 2_000_000_000, 2e6);
            let policy = make_policy(&PolicyConfig::named("maxmin"), &net, &[]).unwrap();
            let cfg = SimConfig {
                routing: routing.clone(),
                audit: true,
                ..SimConfig::default()
            };
            let mut sim = Simulator::new(&net, coflows, policy, cfg);
            assert!(sim.incremental);
            sim.bn_min_flows = bn;
            let mut checked = 0;
            loop {
                let te = sim.events.peek_time().map_or(u64::MAX, |t| t.ps());
                let td = sim.done.peek().map(|e| e.0).unwrap_or(u64::MAX);
                let t = te.min(td);
                if t == u64::MAX {
                    break;
                }
                sim.advance(SimTime(t + 1), &mut |_| {});
                let active = sim.active_flows();
                if active.is_empty() {
                    continue;
                }
                let rows: Vec<Vec<u32>> = active
                    .iter()
                    .map(|&f| sim.flows.hops(f as usize).iter().map(|h| h.link).collect())
                    .collect();
                let drill = active
                    .iter()
                    .any(|&f| sim.flows.hops(f as usize).iter().any(|h| h.coef != 1.0));
                let want: Vec<f64> = if drill {
                    // Fractional shares: the engine's own kernel, from scratch.
                    let mut avail = net.cap.clone();
                    let mut r = vec![0.0; active.len()];
                    WaterFill::new(net.links()).fill(
                        &mut avail,
                        active.len(),
                        |k| sim.flows.hops(active[k] as usize),
                        |_| 1.0,
                        |_| f64::INFINITY,
                        &mut r,
                    );
                    r
                } else {
                    let n = active.len();
                    weighted_max_min(
                        &net.cap,
                        &Csr::from_rows(rows),
                        &vec![1.0; n],
                        &vec![f64::INFINITY; n],
                    )
                };
                for (k, &f) in active.iter().enumerate() {
                    let got = sim.flows.rate[f as usize];
                    assert!(
                        (got - want[k]).abs() <= 1e-9 * want[k],
                        "t {t}: flow {f}: {got} vs {}",
                        want[k]
                    );
                }
                checked += 1;
            }
            assert!(checked > 100, "{checked} instants checked");
            let st = &sim.stats;
            match bn {
                None => assert_eq!(st.bn_tries, 0),
                Some(BN_MIN_FLOWS) => assert!(st.bn_applied > 0, "{st:?}"),
                Some(2) => assert!(st.bn_applied < st.bn_tries, "{st:?}"),
                Some(_) => assert!(
                    st.bn_applied * 10 >= st.bn_tries * 9 && st.bn_rounds > st.bn_tries,
                    "{st:?}"
                ),
            }
            assert!(sim.coflows.finish.iter().all(|&t| t != SimTime::NEVER));
        }
    }

    /// `maxmin` under another name: opts in to the incremental solver or not.
    struct Fair {
        inner: crate::policy::maxmin::MaxMin,
        incremental: bool,
    }

    impl RatePolicy for Fair {
        fn name(&self) -> &str {
            if self.incremental {
                "fair"
            } else {
                "maxmin"
            }
        }
        fn coupling(&self) -> Coupling {
            Coupling::Links
        }
        fn allocate(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) {
            self.inner.allocate(v, comp, rates);
        }
        fn incremental_maxmin(&self) -> bool {
            self.incremental
        }
    }

    #[test]
    fn the_incremental_solver_follows_the_capability_not_the_name() {
        // Incremental (a policy named "fair" that opts in) and from-scratch (one named
        // "maxmin" that does not) give the same finish times on random traces.
        let net = test_net();
        for seed in [7u64, 8] {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let coflows = random_coflows(&mut rng, 60, 2_000_000_000, 2e6);
            let mut finish = Vec::new();
            for incremental in [true, false] {
                let policy = Box::new(Fair {
                    inner: crate::policy::maxmin::MaxMin::new(net.links()),
                    incremental,
                });
                let cfg = SimConfig {
                    audit: true,
                    ..SimConfig::default()
                };
                let mut sim = Simulator::new(&net, coflows.clone(), policy, cfg);
                assert_eq!(sim.incremental, incremental);
                sim.run(|_| {});
                assert!(sim.flows.finish.iter().all(|&t| t != SimTime::NEVER));
                finish.push(sim.flows.finish.clone());
            }
            for (a, b) in finish[0].iter().zip(&finish[1]) {
                let (a, b) = (a.ps() as f64, b.ps() as f64);
                assert!((a - b).abs() <= 1e-9 * b + 2.0, "seed {seed}: {a} vs {b}");
            }
        }
    }
}
