//! One simulation: the event loop as mediator between I/O-free parts. Everything a run needs
//! lives in [`Simulation`] (no globals), so several runs can share a process or a thread pool.
//!
//! - `fabric`: ports, queue disciplines, links, routes, load balancing and the packet pool;
//!   takes packets from hosts and returns those that reach a host. Drop and mark accounting.
//! - `host`: each flow's TCP endpoints; takes a delivered packet, returns packets to send.
//! - [`app`]: applications (open-loop flows, closed-loop incasts) that give flows their
//!   data and hear when a block is delivered.
//! - `results`: records and series assembled at the end.
//! - `objective`: per-interval delivered bytes for the objective report (issue 30).
//!
//! The loop pops an event and hands it to the part it names; what one part produces (a
//! delivery, packets to send, a completed block) it passes to the next. Events at the same
//! instant run in the order they were scheduled, so a run is a pure function of its inputs.

pub mod app;
pub(crate) mod fabric;
pub(crate) mod host;
pub(crate) mod objective;

/// Most equal-cost paths a flow of a per-packet balancer enters the objective report's optimum
/// with (the flow engine's limit, `dctc_flow::routing::PATH_LIMIT`).
const OBJECTIVE_PATH_LIMIT: usize = 256;
mod pipe;
pub(crate) mod results;
mod scheme;

pub use scheme::{PacketScheme, DEFAULT_NIC_BUFFER};

use crate::control::{Allocator, ControlPlane};
use crate::engine::PacketId;
use crate::metrics::{Counters, PacketRun, PortStateSample, QueueSample};
use crate::packet::PacketKind;
use crate::queue::QueueDisc;
use crate::transport::{CongestionControl, TcpSender};
use app::{AppEvent, Apps, Incast, Incasts, Net, OpenLoop};
use dctc_core::fabric::ALLOCATOR_NODE;
use dctc_core::ids::{LinkId, NodeId};
use dctc_core::rng::{component_rng, mix64, streams};
use dctc_core::routing::Routing;
use dctc_core::spec::FlowSpec;
use dctc_core::stats::{ideal_fct, FlowRecord};
use dctc_core::topology::{NodeKind, Topology};
use dctc_core::units::{Delta, Rate, SimTime};
use dctc_core::workload::IncastSpec;
use fabric::Fabric;
use host::{Endpoint, Hosts, Outbox};
use rand::Rng;
use results::Recorder;

/// Something that happens at an instant. Payloads are dense indices (links, flows).
/// Components keep at most one pending event each (htsim's habit): a port with a timed
/// discipline schedules its next departure only while it has a queue (others settle theirs
/// when next looked at), a link only its head packet, a flow only its earliest timer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The port feeding link `.0` finished serializing a packet and may start the next one
    /// (ports whose discipline has timers; see `Fabric::settle`).
    TxDone(u32),
    /// The head packet in flight on link `.0` reaches the link's far end.
    Arrive(u32),
    /// The queue discipline of the port feeding link `.0` asked for a timer (CoDel, TFC, XCP).
    PortTimer(u32),
    /// Flow `.0`'s earliest transport timer (RTO, paced send, delayed ACK) may be due.
    FlowTimer(u32),
    /// An application's own timer.
    App(AppEvent),
    /// Time to sample queue lengths.
    Sample,
    /// Time to sample the switch ports' discipline state (`RunOptions::port_state_sample`).
    PortState,
    /// The load balancer's periodic update (HOLNET's percentage balancer).
    LbUpdate,
    /// Flow `.0`'s sender may have stayed idle for the flowlet threshold (Flowtune).
    FlowletIdle(u32),
    /// The control-plane agent's next iteration (Flowtune's allocator, every 10 us).
    AgentTick,
    /// A first-hop switch's single-hop signal reaches a flow's source: the flow index and
    /// its judgment of the flow's path (`HeaderExt::flags` bits), packed in one word (see
    /// [`crate::signal`]).
    HopFeedback(u32),
}

/// The packet engine's event queue: core's timing wheel over [`Event`].
pub type EventQueue = dctc_core::event::EventQueue<Event>;
/// The binary-heap reference queue (benchmarks compare the wheel against it).
pub type HeapEventQueue = dctc_core::event::HeapEventQueue<Event>;

/// What to run: open-loop flows (Poisson, explicit, CSV, long-lived) and closed-loop incasts.
#[derive(Clone, Debug, Default)]
pub struct Workload {
    /// Flows with their own start times.
    pub flows: Vec<FlowSpec>,
    /// Incast patterns; their blocks get record ids after the flows'.
    pub incasts: Vec<IncastSpec>,
}

/// How long to run and what to record.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Master seed (ECMP salt).
    pub seed: u64,
    /// Simulated time at which the run stops.
    pub until: SimTime,
    /// Interval of switch-queue samples; `None` records none.
    pub queue_sample: Option<Delta>,
    /// Bin width of long-lived flows' throughput series; `None` records none.
    pub throughput_bin: Option<Delta>,
    /// Whether to sample only this port set (link indices); empty = every switch port.
    pub sample_links: Vec<u32>,
    /// Packet captures to record (`[output] pcap`); `None` records none.
    pub capture: Option<crate::capture::CaptureSpec>,
    /// Interval of the objective report's samples (each open-loop flow's bytes delivered in
    /// order per interval; `dctc_num::objective`); `None` records none.
    pub objective: Option<Delta>,
    /// Interval of samples of every switch port's discipline state
    /// ([`crate::queue::QueueDisc::state`]: TFC's last time slot); `None` records none. The
    /// samples only read the ports: a run's packets and flows are the same with them as
    /// without (their own events add to the event count and, like queue samples, carry the
    /// run to `until`).
    pub port_state_sample: Option<Delta>,
}

impl RunOptions {
    /// Run until `until` with no sampling.
    pub fn new(seed: u64, until: SimTime) -> Self {
        RunOptions {
            seed,
            until,
            queue_sample: None,
            throughput_bin: None,
            sample_links: Vec::new(),
            capture: None,
            objective: None,
            port_state_sample: None,
        }
    }
}

/// Why a run cannot start.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SimError {
    /// A flow names a node that is not a host of the fabric.
    #[error("flow {flow}: `{node}` is not a host")]
    NotAHost {
        /// Flow id.
        flow: u32,
        /// Node name.
        node: String,
    },
    /// The scheme's endpoints talk to an allocator but the fabric has no allocator node.
    #[error("the scheme needs Flowtune's allocator but the fabric has no `allocator` node (dctc_core::fabric::attach_allocator adds one)")]
    NoAllocator,
    /// A flow's subflow plan does not fit the workload (see `multipath::check_endpoints`).
    #[error("{key}: {reason}")]
    BadSubflows {
        /// Key path of the `subflows` entry.
        key: String,
        /// Why.
        reason: String,
    },
    /// An incast does not fit the fabric.
    #[error("incast {index}: {reason}")]
    BadIncast {
        /// Position among the incasts.
        index: usize,
        /// Why.
        reason: String,
    },
    /// The load balancer does not fit the fabric.
    #[error("packet.percentage_lb.initial: {0}")]
    BadBalancer(String),
    /// A capture point names a link the fabric does not have.
    #[error("capture point `{0}` names a link the fabric does not have")]
    BadCapture(String),
    /// Flowtune's allocator cannot take the fabric's links as NUM capacities (a link of rate
    /// 0: the fabric's builders refuse one, a hand-built topology may not).
    #[error("Flowtune's allocator: {0}")]
    Allocator(#[from] dctc_num::problem::ProblemError),
}

/// One scheme running one workload on one fabric.
pub struct Simulation<'a> {
    topo: &'a Topology,
    scheme: &'a PacketScheme,
    opts: RunOptions,
    now: SimTime,
    events: EventQueue,
    fabric: Fabric,
    hosts: Hosts,
    apps: Apps,
    records: Vec<FlowRecord>,
    counters: Counters,
    samples: Vec<QueueSample>,
    sample_links: Vec<u32>,
    /// `RunOptions::port_state_sample`'s samples.
    port_state: Vec<PortStateSample>,
    outbox: Outbox,
    /// Set when a closed-loop-only workload has finished every round: the run ends there.
    all_done: bool,
    /// The control plane (Flowtune's allocator and its connections), if the scheme has one.
    ctrl: Option<ControlPlane>,
    /// Scratch: one agent iteration's rate updates.
    update_buf: Vec<(u32, Rate)>,
    /// Whether the loop warms the next events' ports and packets ([`LOOKAHEAD_PORTS`]).
    lookahead: bool,
    /// The objective report's recording, when asked for.
    objective: Option<objective::ObjectiveRec>,
    /// Its next interval boundary (`NEVER` without it).
    objective_at: SimTime,
    /// The loop's one test per event: no event before this needs more than its own work
    /// (see [`Simulation::next_check`]).
    check_at: SimTime,
}

/// Ports from which the event loop looks ahead: a fabric this large no longer keeps its ports
/// and links in a core's own cache, and loading the next events' lines early saves more than
/// it costs (k = 32 fat-tree: 21% less CPU per packet; k = 8, 384 ports: 3% more).
const LOOKAHEAD_PORTS: usize = 2048;

/// Events each wheel slot of the event queue has room for from the start (16 B each: 1 MiB
/// for the wheel's 4096 slots).
const SLOT_EVENTS: usize = 16;

fn path_hops(topo: &Topology, path: &[LinkId]) -> Vec<(Rate, Delta)> {
    path.iter()
        .map(|l| {
            let l = topo.link(*l);
            (l.rate, l.delay)
        })
        .collect()
}

/// The applications' view of the run for one call (a macro so the borrow stays per field).
macro_rules! net {
    ($s:ident) => {
        Net {
            now: $s.now,
            events: &mut $s.events,
            hosts: &mut $s.hosts,
            fabric: &mut $s.fabric,
            counters: &mut $s.counters,
            outbox: &mut $s.outbox,
        }
    };
}

impl<'a> Simulation<'a> {
    /// Builds the fabric's ports, the flows' endpoints and the applications.
    pub fn new(
        topo: &'a Topology,
        routing: &'a Routing,
        scheme: &'a PacketScheme,
        workload: &Workload,
        opts: RunOptions,
    ) -> Result<Simulation<'a>, SimError> {
        let n_nodes = topo.nodes().len();
        let mut fabric = Fabric::new(topo, routing, scheme, opts.seed)?;
        if let Some(spec) = &opts.capture {
            let n_links = topo.links().len();
            if let Some(p) =
                (spec.points.iter()).find(|p| p.taps.iter().any(|t| t.link.index() >= n_links))
            {
                return Err(SimError::BadCapture(p.name.clone()));
            }
            fabric.capture(spec);
        }
        let salt: u64 = component_rng(opts.seed, streams::ROUTING).random();
        let tcp = &scheme.tcp;
        let mut flows = Vec::with_capacity(workload.flows.len());
        let mut arrivals = Vec::with_capacity(workload.flows.len());
        let mut long_lived = Vec::with_capacity(workload.flows.len());
        let mut stops = Vec::with_capacity(workload.flows.len());
        let mut order: Vec<&FlowSpec> = workload.flows.iter().collect();
        order.sort_by_key(|f| (f.start, f.id));
        let mk_flow = |id: u32, src: NodeId, dst: NodeId, size: u64, start| {
            let hash = mix64(salt ^ mix64(id as u64));
            let path = routing.ecmp_path(topo, src, dst, hash);
            let ideal = ideal_fct(
                &path_hops(topo, &path),
                size.max(1),
                tcp.mss,
                tcp.header,
                topo.host_delay,
            );
            let sender = TcpSender::new(tcp, scheme.cc_for_flow(id));
            Endpoint::new(id, src, dst, hash, size, start, ideal, sender)
        };
        let mut max_id = 0u32;
        for f in order {
            for n in [f.src, f.dst] {
                if n.index() >= n_nodes || !topo.is_host(n) {
                    return Err(SimError::NotAHost {
                        flow: f.id.0,
                        node: topo
                            .nodes()
                            .get(n.index())
                            .map(|x| x.name.clone())
                            .unwrap_or_else(|| n.to_string()),
                    });
                }
            }
            max_id = max_id.max(f.id.0 + 1);
            arrivals.push(flows.len() as u32);
            long_lived.push(f.size_bytes.is_none());
            stops.push(f.stop);
            let mut ep = mk_flow(f.id.0, f.src, f.dst, f.size_bytes.unwrap_or(0), f.start);
            ep.binned = f.size_bytes.is_none();
            flows.push(ep);
        }
        let mut incasts = Vec::new();
        let hosts = topo.hosts();
        let mut record_base = max_id;
        for (i, spec) in workload.incasts.iter().enumerate() {
            spec.validate(hosts.len())
                .map_err(|e| SimError::BadIncast {
                    index: i,
                    reason: e.to_string(),
                })?;
            let rx = hosts[spec.receiver];
            let mut ids = Vec::new();
            for (k, s) in spec.sender_hosts(hosts.len()).into_iter().enumerate() {
                let id = record_base + k as u32;
                ids.push(flows.len() as u32);
                flows.push(mk_flow(id, hosts[s], rx, spec.block_bytes, SimTime::ZERO));
            }
            incasts.push(Incast::new(spec.clone(), ids, record_base));
            record_base += (spec.senders * spec.rounds) as u32;
        }
        // Multipath flows: the workload's flow is the first subflow; the others follow all
        // flows, each with its own connection state and pinned path.
        let mut conns = Vec::with_capacity(scheme.subflows.len());
        let mut pins = Vec::new();
        for (i, plan) in scheme.subflows.iter().enumerate() {
            crate::multipath::check_endpoints(
                std::slice::from_ref(plan),
                &workload.flows,
                topo,
                &format!("subflows[{i}]"),
            )
            .map_err(|e| SimError::BadSubflows {
                key: e.path,
                reason: e.reason,
            })?;
            let lead = arrivals
                .iter()
                .copied()
                .find(|&a| flows[a as usize].id == plan.flow)
                .expect("check_endpoints found the flow");
            let c = conns.len() as u32;
            let mut members = vec![lead];
            let (src, dst, start, hash) = {
                let l = &mut flows[lead as usize];
                l.conn = c;
                (l.src, l.dst, l.start, l.hash)
            };
            pins.push((lead, plan.paths[0].clone()));
            for (k, path) in plan.paths.iter().enumerate().skip(1) {
                let mut sub = mk_flow(plan.flow, src, dst, 0, start);
                sub.hash = mix64(hash ^ mix64(k as u64));
                sub.conn = c;
                sub.binned = true;
                pins.push((flows.len() as u32, path.clone()));
                members.push(flows.len() as u32);
                flows.push(sub);
            }
            conns.push(members);
        }
        // Long-lived flows are indexed by position in `arrivals`, which is their flow index.
        let n_flows = flows.len();
        let pinned = if opts.objective.is_some() {
            pins.clone()
        } else {
            Vec::new()
        };
        fabric.pin_paths(topo, n_flows, pins);
        fabric.hop_signal(scheme.cc.hop_signal(), n_flows);
        long_lived.resize(n_flows, false);
        let objective = opts.objective.map(|interval| {
            // The objective's flows are the open-loop ones, in start order, with their
            // subflows; each on the path ECMP hashes it to, or its pinned paths.
            let members: Vec<Vec<u32>> = arrivals
                .iter()
                .map(|&a| match flows[a as usize].conn {
                    host::NONE => vec![a],
                    c => conns[c as usize].clone(),
                })
                .collect();
            // A per-packet (or per-flowlet) balancer may put a flow's packets on any of its
            // equal-cost paths: the flow enters the optimum with all of them, the split left
            // to the optimum (on paths of equal capacities, what an even spray reaches).
            let per_packet = scheme.lb != crate::lb::LbKind::Ecmp;
            let paths = members
                .iter()
                .map(|m| {
                    let mut paths: Vec<Vec<usize>> = Vec::new();
                    for &e in m {
                        let ep = &flows[e as usize];
                        let options = match pinned.iter().find(|(f, _)| *f == e) {
                            Some((_, p)) => vec![p.clone()],
                            None if per_packet => {
                                routing.all_paths(topo, ep.src, ep.dst, OBJECTIVE_PATH_LIMIT)
                            }
                            None => vec![routing.ecmp_path(topo, ep.src, ep.dst, ep.hash)],
                        };
                        for p in options {
                            let p: Vec<usize> = p.iter().map(|l| l.index()).collect();
                            if !paths.contains(&p) {
                                paths.push(p);
                            }
                        }
                    }
                    paths
                })
                .collect();
            let ll = arrivals.iter().map(|&a| long_lived[a as usize]).collect();
            objective::ObjectiveRec::new(interval, members, paths, ll, stops.clone())
        });
        let objective_at = objective.as_ref().map_or(SimTime::NEVER, |o| o.next);
        let apps = Apps {
            open: OpenLoop::new(arrivals, long_lived, stops),
            incasts: Incasts::new(incasts, n_flows),
        };
        let sample_links = if opts.sample_links.is_empty() {
            fabric.switch_ports()
        } else {
            opts.sample_links.clone()
        };
        let header = scheme.cc.uses_header();
        let ctrl = match scheme.cc.allocator_spec() {
            None => None,
            Some(spec) => {
                let node = topo
                    .node_by_name(ALLOCATOR_NODE)
                    .filter(|&n| topo.node(n).kind == NodeKind::Controller)
                    .ok_or(SimError::NoAllocator)?;
                let cfg = crate::transport::TcpConfig {
                    min_rto: spec.min_rto,
                    max_rto: spec.max_rto,
                    initial_rto: spec.max_rto,
                    delayed_ack: None,
                    pacing: None,
                    ecn: false,
                    // Control connections' packets are not tracked through the NIC.
                    small_queue_bytes: None,
                    ..scheme.tcp.clone()
                };
                let alloc = Allocator::new(topo, flows.len(), spec)?;
                let mut cp = ControlPlane::new(node, topo.hosts(), flows.len(), cfg, alloc);
                // The allocator knows the fabric's routing and each flow's ECMP hash.
                for (f, ep) in flows.iter().enumerate() {
                    cp.paths[f] = routing
                        .ecmp_path(topo, ep.src, ep.dst, ep.hash)
                        .iter()
                        .map(|l| l.0)
                        .collect();
                }
                Some(cp)
            }
        };
        Ok(Simulation {
            topo,
            scheme,
            now: SimTime::ZERO,
            // A busy fabric's wheel slots (32.8 ns) each hold a dozen events or more (15 at
            // 128 hosts); sized at once, they skip the reallocations of the first turn.
            events: EventQueue::with_slot_capacity(1024, SLOT_EVENTS),
            fabric,
            hosts: Hosts::new(
                flows,
                conns,
                scheme.tcp.clone(),
                header,
                opts.throughput_bin,
            ),
            apps,
            records: Vec::new(),
            counters: Counters::default(),
            samples: Vec::new(),
            sample_links,
            port_state: Vec::new(),
            outbox: Outbox::default(),
            all_done: false,
            opts,
            ctrl,
            update_buf: Vec::new(),
            lookahead: topo.links().len() >= LOOKAHEAD_PORTS,
            objective,
            objective_at,
            check_at: SimTime::ZERO,
        })
    }

    /// Makes the loop look ahead or not whatever the fabric's size (tests compare the two).
    #[cfg(test)]
    pub(crate) fn set_lookahead(&mut self, on: bool) {
        self.lookahead = on;
    }

    /// Runs to `opts.until`; `progress` is called with the simulated time every 16384
    /// events.
    pub fn run(mut self, progress: &mut dyn FnMut(SimTime)) -> PacketRun {
        let wall = std::time::Instant::now();
        self.schedule_start();
        self.run_events(progress);
        self.finish(wall)
    }

    /// The first events: each application's, then sampling.
    fn schedule_start(&mut self) {
        let mut net = net!(self);
        self.apps.start(&mut net);
        if self.opts.queue_sample.is_some() {
            self.events.push(SimTime::ZERO, Event::Sample);
        }
        if self.opts.port_state_sample.is_some() {
            self.events.push(SimTime::ZERO, Event::PortState);
        }
        if let Some(dt) = self.fabric.lb_update_period() {
            self.events.push(SimTime::ZERO + dt, Event::LbUpdate);
        }
    }

    /// Runs events until none is left, the next is past `opts.until`, or a closed-loop
    /// workload has finished; leaves `now` at the end of the run. Never inlined, so that a
    /// profiler can count the event loop alone (`dctc bench packet --scale --valgrind`
    /// collects inside `run_events` only).
    #[inline(never)]
    fn run_events(&mut self, progress: &mut dyn FnMut(SimTime)) {
        let mut until = self.opts.until;
        // The end of the run, a finished workload and the objective report's boundaries are
        // rare: one comparison per event against the earliest of them.
        self.check_at = self.next_check(until);
        loop {
            // Report: a run with no event left ends when its last event ran, not at `until`.
            let Some((t, ev)) = self.events.pop() else {
                until = self.now;
                break;
            };
            if t >= self.check_at {
                if t > until {
                    break;
                }
                if self.all_done {
                    until = self.now;
                    break;
                }
                if t >= self.objective_at {
                    self.objective_sample(t);
                }
                self.check_at = self.next_check(until);
            }
            self.now = t;
            if self.lookahead {
                // Warm what the next events will touch while this one runs (their cache
                // misses overlap its work instead of following it): the port of the one after
                // next, the head packet of the next.
                if let Some(Event::Arrive(l)) = self.events.upcoming(2) {
                    self.fabric.warm_port(l);
                }
                if let Some(Event::Arrive(l)) = self.events.upcoming(1) {
                    self.fabric.warm_head(l);
                }
            }
            self.counters.events += 1;
            if self.counters.events & 0x3fff == 0 {
                progress(t);
            }
            // Nearly every event is an arrival (one per packet-hop): it is tested first, by
            // one comparison, and the others are dispatched out of line.
            if let Event::Arrive(l) = ev {
                // Out of `on_arrive`, whose inlining the per-hop cost depends on.
                if self.fabric.captures(l) {
                    self.fabric.capture_head(l);
                }
                let (ev_q, c) = (&mut self.events, &mut self.counters);
                if let Some(pkt) = self.fabric.on_arrive(l, t, ev_q, c) {
                    self.deliver(pkt);
                }
            } else {
                self.on_event(t, ev);
            }
        }
        self.now = until;
        progress(until);
    }

    /// When the loop must next look past its event: the end of the run (just after
    /// `until`), the objective report's next boundary, or at once when the workload is done.
    fn next_check(&self, until: SimTime) -> SimTime {
        if self.all_done {
            SimTime::ZERO
        } else {
            SimTime(until.0.saturating_add(1)).min(self.objective_at)
        }
    }

    /// Every event but an arrival (see [`Simulation::run_events`]).
    #[inline(never)]
    fn on_event(&mut self, t: SimTime, ev: Event) {
        let (ev_q, c) = (&mut self.events, &mut self.counters);
        match ev {
            Event::Arrive(_) => unreachable!("arrivals are handled in the event loop"),
            Event::TxDone(l) => self.fabric.on_tx_done(l, t, ev_q, c),
            Event::PortTimer(l) => self.fabric.on_port_timer(l, t, ev_q, c),
            Event::FlowTimer(f) => {
                if f as usize >= self.hosts.flows.len() {
                    self.ctrl_timer(f as usize - self.hosts.flows.len());
                } else if self.hosts.on_timer(f, t, &mut self.outbox, c) {
                    net!(self).send_outbox();
                    self.hosts.rearm(f, &mut self.events);
                    self.flowlet_check(f);
                }
            }
            Event::App(a) => {
                let mut net = net!(self);
                self.apps.on_event(a, &mut net);
                self.flowlet_touched();
            }
            Event::FlowletIdle(f) => self.on_flowlet_idle(f),
            Event::AgentTick => self.on_agent_tick(),
            Event::HopFeedback(word) => self.on_hop_feedback(word),
            Event::Sample => {
                let (ev_q, c) = (&mut self.events, &mut self.counters);
                self.fabric
                    .sample(&self.sample_links, t, &mut self.samples, ev_q, c);
                if let Some(dt) = self.opts.queue_sample {
                    self.events.push(t + dt, Event::Sample);
                }
            }
            Event::PortState => self.sample_port_state(t),
            // The balancer's periodic update; it stops once nothing else is pending.
            Event::LbUpdate => {
                self.fabric.lb_update(t, ev_q, c);
                if let (Some(dt), false) = (self.fabric.lb_update_period(), self.events.is_empty())
                {
                    self.events.push(t + dt, Event::LbUpdate);
                }
            }
        }
    }

    /// Closes the objective report's intervals that end at or before `t` (out of line: only
    /// runs with the report get here).
    #[inline(never)]
    fn objective_sample(&mut self, t: SimTime) {
        if let Some(o) = self.objective.as_mut() {
            o.sample(t, &self.hosts);
            self.objective_at = o.next;
        }
    }

    /// Records the discipline state of every switch port that reports one and schedules the
    /// next sample. Reads the ports only: what a discipline reports changes with its packets,
    /// never with a departure still to be settled. Out of line: only runs that ask get here.
    #[inline(never)]
    fn sample_port_state(&mut self, t: SimTime) {
        let fields = self.scheme.switch_queue.state_fields();
        let mut values = Vec::with_capacity(fields.len());
        for (l, port) in self.fabric.ports.iter().enumerate() {
            if port.switch && port.queue.state(&mut values) && values.len() == fields.len() {
                self.port_state.push(PortStateSample {
                    time_ps: t.0,
                    link: l as u32,
                    fields,
                    values: std::mem::replace(&mut values, Vec::with_capacity(fields.len())),
                });
            }
            values.clear();
        }
        if let Some(dt) = self.opts.port_state_sample {
            self.events.push(t + dt, Event::PortState);
        }
    }

    /// A first-hop switch's signal (`word`: flow and flags, [`crate::signal::pack`]) reaches
    /// the flow's source. Out of line: only signaling runs have these events.
    #[inline(never)]
    fn on_hop_feedback(&mut self, word: u32) {
        let (f, flags) = crate::signal::unpack(word);
        self.hosts
            .on_hop_signal(f, flags, self.now, &mut self.outbox, &mut self.counters);
        net!(self).send_outbox();
        self.hosts.rearm(f, &mut self.events);
    }

    /// A packet reached its host: the endpoint answers, the application hears of a completed
    /// block (before the answer leaves, so its timers come first at equal times).
    #[inline]
    fn deliver(&mut self, pkt: PacketId) {
        let (p, ext) = self.fabric.release(pkt, self.hosts.header());
        if p.flow as usize >= self.hosts.flows.len() {
            self.ctrl_deliver(p);
            return;
        }
        let f = p.flow;
        if p.kind == PacketKind::Request {
            // An application's request reached the sender: the application starts the block.
            let mut net = net!(self);
            self.apps.incasts.on_request(f, &mut net);
            self.hosts.rearm(f, &mut self.events);
            return;
        }
        let done = self.hosts.deliver(
            p.dst,
            &p,
            &ext,
            self.now,
            &mut self.outbox,
            &mut self.counters,
        );
        let mut net = net!(self);
        if done {
            let rec = Recorder {
                topo: self.topo,
                label: &self.scheme.label,
            };
            if self
                .apps
                .on_block_done(f, &mut net, &rec, &mut self.records)
            {
                self.all_done = true;
                self.check_at = SimTime::ZERO;
            }
        }
        net.send_outbox();
        self.hosts.rearm(f, &mut self.events);
        self.flowlet_touched();
        self.flowlet_check(f);
    }

    fn finish(mut self, wall: std::time::Instant) -> PacketRun {
        let end = self.now;
        let (in_pkts, in_bytes, ports) =
            self.fabric
                .finish(self.topo, end, &mut self.events, &mut self.counters);
        self.counters.in_flight_packets = in_pkts;
        self.counters.in_flight_bytes = in_bytes;
        if let Some(cp) = &self.ctrl {
            let c = &mut self.counters;
            c.control_to_agent_bytes = cp.stats.to_agent_bytes;
            c.control_from_agent_bytes = cp.stats.from_agent_bytes;
            c.rate_updates = cp.stats.updates;
            c.rate_updates_applied = cp.stats.updates_applied;
            c.flowlets = cp.stats.flowlets;
            c.rate_update_delay_sum_ps = cp.stats.update_delay_sum_ps;
            c.rate_update_delay_max_ps = cp.stats.update_delay_max_ps;
        }
        for fl in &self.hosts.flows {
            self.counters.timeouts += fl.sender.timeouts as u64;
            self.counters.retransmitted_bytes += fl.sender.retransmitted_bytes;
        }
        self.check_flows(end);
        let rec = Recorder {
            topo: self.topo,
            label: &self.scheme.label,
        };
        let mut records = std::mem::take(&mut self.records);
        self.apps.final_records(&self.hosts, &rec, &mut records);
        records.sort_by_key(|r| r.id);
        let captures = match (&self.opts.capture, &self.fabric.capture) {
            (Some(spec), Some(rec)) => {
                let topo = self.topo;
                let ends = |l: LinkId| (topo.link(l).from, topo.link(l).to);
                rec.files(spec, end, &|f| self.hosts.flow_ports(f), &ends)
            }
            _ => Vec::new(),
        };
        let (throughput, subflow_throughput) = if self.opts.throughput_bin.is_some() {
            (
                results::throughput(&self.hosts),
                results::subflow_throughput(&self.hosts),
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let objective = self.objective.take().map(|o| o.finish(end, &self.hosts));
        PacketRun {
            label: self.scheme.label.clone(),
            records,
            counters: self.counters,
            queue_delay: self.fabric.queue_delay,
            ports,
            queue_samples: self.samples,
            port_state: self.port_state,
            throughput_bin: self.opts.throughput_bin,
            throughput,
            subflow_throughput,
            incasts: self.apps.incasts.results(&self.hosts),
            simulated_ps: end.0,
            wall_seconds: wall.elapsed().as_secs_f64(),
            peak_packets: self.fabric.pool.capacity_used(),
            churn: self.ctrl.as_ref().and_then(|cp| cp.allocator.churn()),
            captures,
            objective,
        }
    }
}

impl Simulation<'_> {
    /// The run-time invariants every run checks at its end, per flow: stalls (a flow stuck
    /// at the end never had another timer event to be caught at), and the byte ledger
    /// (payload sent = arrived + dropped + still in the network; acknowledged <= delivered
    /// in order <= highest sent). Counted into `stalled_flows` and `unbalanced_flows`; debug
    /// builds stop at the first violation. O(flows + packet pool), once.
    fn check_flows(&mut self, end: SimTime) {
        for f in 0..self.hosts.flows.len() as u32 {
            self.hosts.check_stall(f, end, &mut self.counters);
        }
        let n = self.hosts.flows.len();
        let mut in_network = vec![0u64; n];
        self.fabric.pool.for_each_live(|p| {
            if p.kind == PacketKind::Data && (p.flow as usize) < n {
                in_network[p.flow as usize] += p.payload as u64;
            }
        });
        let drops = &self.fabric.flow_drops.0;
        for (f, fl) in self.hosts.flows.iter().enumerate() {
            let dropped = drops.get(f).copied().unwrap_or(0);
            let (sent, arrived) = (fl.sender.sent_payload(), fl.arrived_payload);
            let (acked, delivered) = (fl.sender.acked(), fl.receiver.delivered());
            let balanced = sent == arrived + dropped + in_network[f]
                && acked <= delivered
                && delivered <= fl.sender.snd_max();
            if !balanced {
                self.counters.unbalanced_flows += 1;
                debug_assert!(
                    false,
                    "flow {} unbalanced: sent {sent} B != arrived {arrived} + dropped {dropped} + in network {}, or acked {acked} / delivered {delivered} / sent up to {}",
                    fl.id,
                    in_network[f],
                    fl.sender.snd_max()
                );
            }
        }
    }
}

/// Runs `scheme` on `workload` over `topo` (a convenience over [`Simulation`]).
pub fn simulate_packets(
    topo: &Topology,
    routing: &Routing,
    scheme: &PacketScheme,
    workload: &Workload,
    opts: RunOptions,
) -> Result<PacketRun, SimError> {
    Ok(Simulation::new(topo, routing, scheme, workload, opts)?.run(&mut |_| {}))
}

/// Runs one incast per sender count of `sweep` under `scheme` (each in its own simulation,
/// until every round is done or `until`), returning `(senders, outcome)` in sweep order.
pub fn incast_sweep(
    topo: &Topology,
    routing: &Routing,
    scheme: &PacketScheme,
    sweep: &dctc_core::workload::IncastSweep,
    opts: &RunOptions,
) -> Result<Vec<(usize, PacketRun)>, SimError> {
    sweep
        .senders
        .iter()
        .map(|&n| {
            let wl = Workload {
                flows: Vec::new(),
                incasts: vec![sweep.point(n)],
            };
            let sim = Simulation::new(topo, routing, scheme, &wl, opts.clone())?;
            Ok((n, sim.run(&mut |_| {})))
        })
        .collect()
}

#[cfg(test)]
mod engine_tests;
#[cfg(test)]
mod signal_tests;

#[path = "../control/engine.rs"]
mod control_engine;
