//! The event loop of the fluid model.
//!
//! Events: coflow arrivals (all flows of a coflow arrive together, DBA §3.1), flow
//! completions, policy ticks (once per `tick_period`, while the policy asks for more),
//! policy wake-ups (the instant a policy's decision changes with no event, as it computes it
//! from the current rates: [`RatePolicy::next_wake`]) and Hedera rescheduling rounds. All events at one instant are applied, then rates are
//! recomputed once for the connected component they touch. Between events every rate is
//! constant, so a flow's completion time is exactly `now + remaining * 8 / rate` (rounded up
//! to the picosecond).

use crate::completion::{completion_at, surely_after, Deferred};
use crate::heap::IndexedHeap;
use crate::maxmin_inc::{Ctx, IncMaxMin};
use crate::metrics::{CoflowRecord, FlowRecordOut, RunResult};
use crate::net::{Hop, Net};
use crate::objective::ObjectiveRec;
use crate::policy::{Coupling, RatePolicy, View};
use crate::routing::{self, Reroute, RoutingMode};
pub use crate::state::{CoflowInput, Coflows, FlowInput, Flows};
use dctc_core::event::EventQueue;
use dctc_core::units::{Delta, SimTime};
use dctc_num::objective::Trace;
use std::collections::HashMap;

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

/// `apply` updates the completion heap in bulk when it re-applies at least 1 / this of the
/// heap's entries.
const BULK_FRACTION: usize = 8;

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
    /// The policy's next wake-up ([`RatePolicy::next_wake`]), asked anew after every instant;
    /// kept here rather than in `events` so that a wake-up the next instant moves leaves no
    /// stale event behind.
    wake_at: Option<u64>,
    /// The routing mode's rerouting hook (Hedera's), run every period while flows are active.
    reroute: Option<Box<dyn Reroute>>,
    reroute_pending: bool,
    arrivals_left: usize,
    comp: Vec<u32>,
    rates: Vec<f64>,
    stats: Stats,
    /// A policy that opts in ([`RatePolicy::incremental_maxmin`]) is re-solved by the
    /// incremental max-min solver.
    inc: Option<IncMaxMin>,
    /// Whether `load` is kept (CONGA's path choice reads it).
    track_load: bool,
    /// Active flows.
    live: usize,
    /// Whether [`RatePolicy::completion_reallocates`] may skip a completion's re-solve
    /// (`false`: every completion re-solves, for comparisons).
    skip_completions: bool,
    /// Links of the completions that did not re-solve: the next re-solve starts from them too,
    /// so whatever those flows held back (a coflow waiting on their ports) is re-solved with
    /// the event that changes the decision.
    skipped_links: Vec<u32>,
    /// Rate changes a policy makes after a completion that did not re-solve.
    changes: Vec<(u32, f64)>,
    /// The objective report's recording, when asked for ([`Simulator::record_objective`]).
    objective: Option<ObjectiveRec>,
    /// Its next interval boundary, ps (`u64::MAX` when off): one comparison per instant.
    objective_at: u64,
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
            inc: incremental.then(|| IncMaxMin::new(links, n)),
            track_load,
            live: 0,
            skip_completions: true,
            skipped_links: Vec::new(),
            changes: Vec::new(),
            objective: None,
            objective_at: u64::MAX,
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
            wake_at: None,
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
        self.inc.as_ref().map_or((0, 0, 0), |inc| {
            (
                inc.stats.bn_tries,
                inc.stats.bn_applied,
                inc.stats.bn_rounds,
            )
        })
    }

    /// Re-solves at every flow completion, even where the policy says the completion changes
    /// no decision ([`RatePolicy::completion_reallocates`]): the slow reference its coflow-speed
    /// runs are compared with.
    pub fn reallocate_every_completion(&mut self) {
        self.skip_completions = false;
    }

    /// Records the objective report (`dctc_num::objective`): every `interval`, the bytes each
    /// flow delivered, for at most `max_intervals` intervals (recording stops there). Call
    /// before running; recording changes nothing else of the run.
    pub fn record_objective(&mut self, interval: Delta, max_intervals: u64) {
        let rec = ObjectiveRec::new(interval, max_intervals, self.flows.len());
        self.objective_at = rec.next;
        self.objective = Some(rec);
    }

    /// The objective report's trace up to now (the end of the run), and whether recording
    /// stopped at its interval limit before it; `None` when not recorded. Takes the recording.
    pub fn take_objective(&mut self) -> Option<(Trace, bool)> {
        let rec = self.objective.take()?;
        self.objective_at = u64::MAX;
        let moved = self.reroute.is_some();
        Some(rec.finish(
            self.now,
            self.net,
            moved,
            &self.flows,
            &self.coflows,
            &self.active_list,
        ))
    }

    /// Closes the objective report's intervals that end at or before `t` (out of line: only
    /// when one does).
    #[cold]
    fn objective_sample(&mut self, t: u64) {
        if let Some(rec) = self.objective.as_mut() {
            rec.sample(t, &self.flows, &self.active_list);
            self.objective_at = rec.next;
        }
    }

    /// Time of the next event of any kind (for tests stepping event by event).
    #[cfg(test)]
    pub(crate) fn next_event_ps(&mut self) -> Option<u64> {
        let te = self.events.peek_time().map_or(u64::MAX, |t| t.ps());
        let td = self.done.peek().map(|e| e.0).unwrap_or(u64::MAX);
        let tw = self.wake_at.unwrap_or(u64::MAX);
        Some(te.min(td).min(tw)).filter(|&t| t != u64::MAX)
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
            let tw = self.wake_at.unwrap_or(u64::MAX);
            let t = te.min(td).min(tw);
            if t == u64::MAX || t >= until.ps() {
                break;
            }
            if t >= self.objective_at {
                self.objective_sample(t);
            }
            let wake = tw == t;
            if wake {
                self.wake_at = None;
                self.stats.events += 1;
            }
            self.now = SimTime(t);
            if let Some(inc) = self.inc.as_mut() {
                inc.begin_instant();
            }
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
                if let Some(inc) = self.inc.as_mut() {
                    let cx = Ctx {
                        net: self.net,
                        flows: &self.flows,
                        link_flows: &mut self.link_flows,
                        active: &mut self.active_list,
                        live: self.live,
                    };
                    inc.arrival_cut(&cx, &new_flows);
                }
            }
            if wake {
                // The policy's decision moved with no event: re-solve from every active flow,
                // as an arrival would.
                self.compact_active();
                seeds.extend_from_slice(&self.active_list);
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
            self.wake_at = None;
            return;
        }
        // Asked after every instant: whatever happened in it (an allocation, a tick) may have
        // moved the policy's next decision. At least 1 ps ahead, so time always advances.
        let v = View {
            now: self.now,
            net: self.net,
            flows: &self.flows,
            coflows: &self.coflows,
        };
        self.wake_at = self
            .policy
            .next_wake(&v, &self.active_list)
            .map(|t| t.ps().max(self.now.ps() + 1));
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

    /// For each flow of coflow `c`, in order: its share of its two host links among the
    /// coflow's flows on them, b/s.
    fn host_shares(&self, c: usize) -> Vec<f64> {
        let mut count: HashMap<u32, u32> = HashMap::new();
        let ports = |f: usize| {
            [
                self.net.host_up[self.flows.src[f] as usize],
                self.net.host_down[self.flows.dst[f] as usize],
            ]
        };
        for f in self.coflows.flows(c) {
            for l in ports(f) {
                *count.entry(l).or_insert(0) += 1;
            }
        }
        self.coflows
            .flows(c)
            .map(|f| {
                ports(f)
                    .iter()
                    .map(|&l| self.net.cap[l as usize] / count[&l] as f64)
                    .fold(f64::INFINITY, f64::min)
            })
            .collect()
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
        // CONGA places the flows of one arrival one after another, each seeing those placed
        // before it (their first packets reach the path's utilization estimate within
        // microseconds); with the measured load alone every flow of a coflow would pick the
        // same least-loaded path. A placed flow counts at its share of its two host links
        // among the coflow's flows (its rate before any other constraint).
        let mut placed = self
            .track_load
            .then(|| (self.load.clone(), self.host_shares(c)));
        for (i, f) in self.coflows.flows(c).enumerate() {
            let hops = routing::route(
                self.net,
                &self.cfg.routing,
                self.cfg.seed,
                f as u32,
                self.flows.src[f],
                self.flows.dst[f],
                placed.as_ref().map_or(&self.load, |p| &p.0),
            );
            if let Some((load, share)) = placed.as_mut() {
                for h in &hops {
                    load[h.link as usize] += share[i] * h.coef;
                }
            }
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
        }
        if let Some(inc) = self.inc.as_mut() {
            inc.set_route(f, hops);
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
        if let Some(rec) = self.objective.as_mut() {
            rec.finished.push(f as u32);
        }
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
        if let Some(inc) = self.inc.as_mut() {
            inc.on_completion(self.flows.rate[f]);
        }
        let (a, n) = self.flows.route[f];
        for k in a..a + n {
            let l = self.flows.arena[k as usize].link;
            // Incremental maxmin: a link with room to spare before the flow left changes
            // nothing by getting more.
            if !reallocates {
                self.skipped_links.push(l);
            } else {
                let seed = match self.inc.as_mut() {
                    Some(inc) => inc.completed_on(self.net, l, self.flows.rate[f]),
                    None => true,
                };
                if seed {
                    seed_links.push(l);
                }
            }
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
    /// (the solver's `loadq` and `arena_q`) only for the incremental `maxmin`.
    fn set_rate(&mut self, f: usize, r: f64) {
        let old = self.flows.rate[f];
        if old != r {
            if self.track_load || self.inc.is_some() {
                let (a, n) = self.flows.route[f];
                let (a, b) = (a as usize, (a + n) as usize);
                if self.track_load {
                    for h in &self.flows.arena[a..b] {
                        self.load[h.link as usize] += (r - old) * h.coef;
                    }
                }
                if let Some(inc) = self.inc.as_mut() {
                    inc.set_rate(&self.flows.arena[a..b], &mut self.flows.arena_q[a..b], r);
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
        self.flows.compact_active(&mut self.active_list);
    }

    fn reallocate(&mut self, seeds: &[u32], seed_links: &[u32]) {
        if let Some(inc) = self.inc.as_mut() {
            let mut cx = Ctx {
                net: self.net,
                flows: &self.flows,
                link_flows: &mut self.link_flows,
                active: &mut self.active_list,
                live: self.live,
            };
            if inc.reallocate(&mut cx, seeds, seed_links) {
                let mut comp = std::mem::take(&mut self.comp);
                let mut rates = std::mem::take(&mut self.rates);
                inc.changes(&mut comp, &mut rates);
                for &f in &comp {
                    self.settle(f as usize);
                }
                self.apply(&comp, &rates);
                self.stats.allocations += 1;
                self.stats.allocated_flows += comp.len() as u64;
                self.comp = comp;
                self.rates = rates;
            }
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
    use crate::alloc::WaterFill;
    use crate::policy::{make_policy, PolicyConfig};
    use dctc_core::fabric::{leaf_spine, LeafSpineSpec};
    use dctc_num::{maxmin::weighted_max_min, Csr};
    use rand::{Rng, SeedableRng};

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
        let modes = [
            None,
            Some(crate::maxmin_inc::BN_MIN_FLOWS),
            Some(usize::MAX / 2),
            Some(2),
        ];
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
            sim.inc.as_mut().expect("incremental").bn_min_flows = bn;
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
            let st = &sim.inc.as_ref().expect("incremental").stats;
            match bn {
                None => assert_eq!(st.bn_tries, 0),
                Some(crate::maxmin_inc::BN_MIN_FLOWS) => assert!(st.bn_applied > 0, "{st:?}"),
                Some(2) => assert!(st.bn_applied < st.bn_tries, "{st:?}"),
                Some(_) => assert!(
                    st.bn_applied * 10 >= st.bn_tries * 9 && st.bn_rounds > st.bn_tries,
                    "{st:?}"
                ),
            }
            assert!(sim.coflows.finish.iter().all(|&t| t != SimTime::NEVER));
        }
    }

    /// The incremental solver's route grouping (one water-filling entry per route, weighted by
    /// its flows) against one entry per flow: every flow finishes at the same time to 1e-9
    /// relative (the two differ only by rounding: a route's flows share one rate instead of
    /// rates that may differ in the last bits), and the grouping did merge flows.
    #[test]
    fn route_grouping_keeps_every_finish_time() {
        let net = test_net();
        for (seed, routing) in [(11u64, RoutingMode::Ecmp), (12, RoutingMode::Drill)] {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let coflows = random_coflows(&mut rng, 60, 2_000_000_000, 2e6);
            let mut finish = Vec::new();
            for group in [true, false] {
                let policy = make_policy(&PolicyConfig::named("maxmin"), &net, &[]).unwrap();
                let cfg = SimConfig {
                    routing: routing.clone(),
                    audit: true,
                    ..SimConfig::default()
                };
                let mut sim = Simulator::new(&net, coflows.clone(), policy, cfg);
                let inc = sim.inc.as_mut().expect("incremental");
                inc.group_paths = group;
                // The cut-based re-solve alone (the one that groups).
                inc.bn_min_flows = None;
                sim.run(|_| {});
                let merged = sim.inc.as_ref().expect("incremental").stats.merged;
                if group {
                    assert!(merged > 100, "{merged} flows merged");
                } else {
                    assert_eq!(merged, 0);
                }
                assert!(sim.flows.finish.iter().all(|&t| t != SimTime::NEVER));
                finish.push(sim.flows.finish.clone());
            }
            for (f, (a, b)) in finish[0].iter().zip(&finish[1]).enumerate() {
                let (a, b) = (a.ps() as f64, b.ps() as f64);
                assert!(
                    (a - b).abs() <= 1e-9 * b,
                    "seed {seed}, flow {f}: {a} vs {b} ps"
                );
            }
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
                assert_eq!(sim.inc.is_some(), incremental);
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
