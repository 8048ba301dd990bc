//! One simulation: a fabric of ports, hosts running transports, a workload, and the event
//! loop. Everything a run needs lives in [`Simulation`] (no globals), so several runs can
//! share a process or a thread pool.
//!
//! Forwarding path: a packet offered to a port is queued by the port's discipline; an idle
//! port starts serializing at once, a busy one keeps exactly one `TxDone` event pending. A
//! serialized packet joins the link's in-flight FIFO (links have constant delay, so order is
//! kept) and only the FIFO's head has an `Arrive` event. FIFO disciplines that decide at
//! arrival (DropTail, ECN threshold) skip the stored queue: a FIFO packet's start of
//! transmission is known when it arrives (`max(now, busy_until)`), so it joins the link's FIFO
//! at once and needs no departure event. Their backlog is the port's unfinished work, which
//! counts the rest of the packet being serialized; stored queues count waiting packets only. Hosts pay their stack delay once per
//! one-way trip: it is added to the propagation delay of links leaving a host, which gives the
//! same timing as delaying the packet before its NIC (a pure delay in series) with no extra
//! event. This is the model `dctc_core::stats::ideal_fct` assumes.

use crate::engine::{Event, EventQueue, PacketId, PacketPool};
use crate::lb::{Balancer, Ecmp, LoadBalancer, Spray};
use crate::metrics::{Counters, Histogram, IncastResult, PortStats, QueueSample, RunResult};
use crate::packet::{Packet, PacketKind};
use crate::queue::{Enqueued, Queue, QueueDisc};
use crate::schemes::{LbKind, PacketScheme, QueueSpec};
use crate::transport::{AckOut, CongestionControl, Coupling, Segment, TcpReceiver, TcpSender};
use dctc_core::ids::{LinkId, NodeId};
use dctc_core::rng::{component_rng, mix64, streams};
use dctc_core::routing::Routing;
use dctc_core::spec::FlowSpec;
use dctc_core::stats::{ideal_fct, FlowRecord};
use dctc_core::topology::Topology;
use dctc_core::units::{Delta, Rate, SimTime};
use dctc_core::workload::IncastSpec;
use rand::Rng;
use std::collections::VecDeque;

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
}

struct Port {
    to: NodeId,
    rate: Rate,
    /// Serialization time per byte when it is a whole number of ps (0 otherwise).
    ps_per_byte: u64,
    delay: Delta,
    queue: Queue,
    busy_until: SimTime,
    tx_pending: bool,
    /// The discipline's timer event pending, if any (`NEVER` = none).
    timer_at: SimTime,
    /// The discipline decides at arrival (FIFO): packets go straight onto the link.
    fifo_fast: bool,
    pipe: VecDeque<(SimTime, PacketId)>,
    switch: bool,
    tx_bytes: u64,
    drops: u64,
    marks: u64,
    max_queue: u64,
    area: u128,
    last_change: SimTime,
}

impl Port {
    #[inline]
    fn tx_time(&self, bytes: u64) -> Delta {
        if self.ps_per_byte != 0 {
            Delta(bytes * self.ps_per_byte)
        } else {
            self.rate.tx_time(bytes)
        }
    }
    /// Bytes waiting or being serialized at `now`: the stored queue, or for a FIFO decided at
    /// arrival, the unfinished work `(busy_until - now) x rate`.
    #[inline]
    fn backlog(&self, now: SimTime) -> u64 {
        if !self.fifo_fast {
            return self.queue.bytes();
        }
        let left = self.busy_until.0.saturating_sub(now.0);
        left.checked_div(self.ps_per_byte)
            .unwrap_or_else(|| self.rate.bytes_in(Delta(left)))
    }
    /// Report: bytes counted in `tx_bytes` whose serialization ends after `now`.
    fn unsent(&self, now: SimTime) -> u64 {
        let left = Delta(self.busy_until.0.saturating_sub(now.0));
        left.0
            .checked_div(self.ps_per_byte)
            .unwrap_or_else(|| self.rate.bytes_in(left))
            .min(self.tx_bytes)
    }
    #[inline]
    fn account(&mut self, now: SimTime) {
        let b = self.queue.bytes();
        self.area += b as u128 * (now.0 - self.last_change.0) as u128;
        self.last_change = now;
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum FlowKind {
    Sized,
    LongLived,
    Incast(u32),
}

struct Flow {
    id: u32,
    src: NodeId,
    dst: NodeId,
    hash: u64,
    kind: FlowKind,
    size: u64,
    start: SimTime,
    stop: Option<SimTime>,
    sender: TcpSender,
    receiver: TcpReceiver,
    timer_at: SimTime,
    /// Receiver bytes that complete the current block (sized flow or incast block).
    goal: u64,
    block_start: SimTime,
    block_active: bool,
    finish: Option<SimTime>,
    ideal: Delta,
    /// Per-bin delivered bytes of long-lived flows.
    bins: Vec<u64>,
    /// Report: the byte the last timeout retransmitted and when, until that copy arrives
    /// (to tell a spurious timeout: the receiver already held the byte).
    rto_check: Option<(u64, SimTime)>,
    /// Multipath connection this subflow belongs to (index into `conns`), or `NONE`.
    conn: u32,
    /// Pinned path of this subflow's data (index into `pins`), or `NONE`.
    pin: u32,
}

/// No multipath connection / no pinned path.
const NONE: u32 = u32::MAX;

struct Incast {
    spec: IncastSpec,
    flows: Vec<u32>,
    round: usize,
    outstanding: usize,
    request_delay: Delta,
    first_request: SimTime,
    last_finish: SimTime,
    record_base: u32,
}

/// Next hops toward every host from every node, flattened from [`Routing`] so the per-hop
/// lookup inlines: `spans[host * n_nodes + node]` indexes `links`.
struct RouteTable {
    n_nodes: usize,
    host_of: Vec<u32>,
    spans: Vec<(u32, u32)>,
    links: Vec<LinkId>,
}

impl RouteTable {
    fn new(topo: &Topology, routing: &Routing) -> RouteTable {
        let n_nodes = topo.nodes().len();
        let host_of = (0..n_nodes)
            .map(|i| {
                topo.host_index(NodeId::from_index(i))
                    .map_or(u32::MAX, |h| h as u32)
            })
            .collect();
        let mut spans = Vec::with_capacity(topo.hosts().len() * n_nodes);
        let mut links = Vec::new();
        for &dst in topo.hosts() {
            for node in 0..n_nodes {
                let hops = routing.next_hops(topo, NodeId::from_index(node), dst);
                spans.push((links.len() as u32, hops.len() as u32));
                links.extend_from_slice(hops);
            }
        }
        RouteTable {
            n_nodes,
            host_of,
            spans,
            links,
        }
    }

    #[inline]
    fn next_hops(&self, at: NodeId, dst: NodeId) -> &[LinkId] {
        let h = self.host_of[dst.index()] as usize;
        let (a, n) = self.spans[h * self.n_nodes + at.index()];
        &self.links[a as usize..(a + n) as usize]
    }
}

/// One scheme running one workload on one fabric.
pub struct Simulation<'a> {
    topo: &'a Topology,
    routes: RouteTable,
    scheme: &'a PacketScheme,
    opts: RunOptions,
    now: SimTime,
    events: EventQueue,
    pool: PacketPool,
    ports: Vec<Port>,
    is_host: Vec<bool>,
    lb: Balancer,
    flows: Vec<Flow>,
    /// Open-loop flows in start order (indices into `flows`).
    arrivals: Vec<u32>,
    incasts: Vec<Incast>,
    records: Vec<FlowRecord>,
    counters: Counters,
    queue_delay: Histogram,
    samples: Vec<QueueSample>,
    sample_links: Vec<u32>,
    seg_buf: Vec<Segment>,
    ack_buf: Vec<AckOut>,
    drop_buf: Vec<PacketId>,
    /// Set when a closed-loop-only workload has finished every round: the run ends there.
    all_done: bool,
    /// Multipath connections: their subflows (indices into `flows`), the workload's first.
    conns: Vec<Vec<u32>>,
    /// Pinned subflow paths.
    pins: Vec<Vec<LinkId>>,
}

fn path_hops(topo: &Topology, path: &[LinkId]) -> Vec<(Rate, Delta)> {
    path.iter()
        .map(|l| {
            let l = topo.link(*l);
            (l.rate, l.delay)
        })
        .collect()
}

impl<'a> Simulation<'a> {
    /// Builds the fabric's ports and the flow table.
    pub fn new(
        topo: &'a Topology,
        routing: &'a Routing,
        scheme: &'a PacketScheme,
        workload: &Workload,
        opts: RunOptions,
    ) -> Result<Simulation<'a>, SimError> {
        let n_nodes = topo.nodes().len();
        let is_host: Vec<bool> = (0..n_nodes)
            .map(|i| topo.is_host(NodeId::from_index(i)))
            .collect();
        let ports: Vec<Port> = topo
            .links()
            .iter()
            .enumerate()
            .map(|(li, l)| {
                let from_host = is_host[l.from.index()];
                let buffer = if from_host {
                    scheme.nic_buffer_bytes.max(l.buffer_bytes)
                } else {
                    l.buffer_bytes
                };
                // Hashed-bucket queues key their flow hash per port (reproducible).
                let seed = QueueSpec::port_seed(opts.seed, li);
                let queue = if from_host {
                    scheme.host_queue.build(buffer, seed)
                } else {
                    scheme.switch_queue.build(buffer, seed)
                };
                let ps = 8_000_000_000_000u64;
                let ps_per_byte = if l.rate.0 > 0 && ps.is_multiple_of(l.rate.0) {
                    ps / l.rate.0
                } else {
                    0
                };
                Port {
                    to: l.to,
                    rate: l.rate,
                    ps_per_byte,
                    delay: if from_host {
                        l.delay + topo.host_delay
                    } else {
                        l.delay
                    },
                    busy_until: SimTime::ZERO,
                    tx_pending: false,
                    timer_at: SimTime::NEVER,
                    fifo_fast: queue.fifo_at_arrival(),
                    queue,
                    pipe: VecDeque::new(),
                    switch: !from_host,
                    tx_bytes: 0,
                    drops: 0,
                    marks: 0,
                    max_queue: 0,
                    area: 0,
                    last_change: SimTime::ZERO,
                }
            })
            .collect();
        let salt: u64 = component_rng(opts.seed, streams::ROUTING).random();
        let lb = match scheme.lb {
            LbKind::Ecmp => Balancer::Ecmp(Ecmp::new(n_nodes)),
            LbKind::Spray => Balancer::Spray(Spray::new(n_nodes)),
        };
        let tcp = &scheme.tcp;
        let mut flows = Vec::with_capacity(workload.flows.len());
        let mut arrivals = Vec::with_capacity(workload.flows.len());
        let mut order: Vec<&FlowSpec> = workload.flows.iter().collect();
        order.sort_by_key(|f| (f.start, f.id));
        let mk_flow = |id: u32, src: NodeId, dst: NodeId, kind, size: u64, start, stop| {
            let hash = mix64(salt ^ mix64(id as u64));
            let path = routing.ecmp_path(topo, src, dst, hash);
            let ideal = ideal_fct(
                &path_hops(topo, &path),
                size.max(1),
                tcp.mss,
                tcp.header,
                topo.host_delay,
            );
            Flow {
                id,
                src,
                dst,
                hash,
                kind,
                size,
                start,
                stop,
                sender: TcpSender::new(tcp, scheme.cc_for_flow(id)),
                receiver: TcpReceiver::default(),
                timer_at: SimTime::NEVER,
                goal: size,
                block_start: start,
                block_active: false,
                finish: None,
                ideal,
                bins: Vec::new(),
                rto_check: None,
                conn: NONE,
                pin: NONE,
            }
        };
        let mut max_id = 0u32;
        for f in order {
            for n in [f.src, f.dst] {
                if n.index() >= n_nodes || !is_host[n.index()] {
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
            let kind = if f.size_bytes.is_some() {
                FlowKind::Sized
            } else {
                FlowKind::LongLived
            };
            max_id = max_id.max(f.id.0 + 1);
            arrivals.push(flows.len() as u32);
            flows.push(mk_flow(
                f.id.0,
                f.src,
                f.dst,
                kind,
                f.size_bytes.unwrap_or(0),
                f.start,
                f.stop,
            ));
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
                let mut f = mk_flow(
                    id,
                    hosts[s],
                    rx,
                    FlowKind::Incast(i as u32),
                    spec.block_bytes,
                    SimTime::ZERO,
                    None,
                );
                f.goal = 0;
                flows.push(f);
            }
            // The request is not simulated as a packet: it reaches the senders after the
            // empty-network one-way time of a header-only packet from the receiver.
            let back = routing.ecmp_path(topo, rx, hosts[spec.sender_hosts(hosts.len())[0]], 0);
            let request_delay = ideal_fct(
                &path_hops(topo, &back),
                0,
                tcp.mss,
                tcp.header,
                topo.host_delay,
            );
            incasts.push(Incast {
                spec: spec.clone(),
                flows: ids,
                round: 0,
                outstanding: 0,
                request_delay,
                first_request: SimTime::ZERO,
                last_finish: SimTime::ZERO,
                record_base,
            });
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
                key: e.key,
                reason: e.reason,
            })?;
            let lead = arrivals
                .iter()
                .copied()
                .find(|&a| flows[a as usize].id == plan.flow)
                .expect("check_endpoints found the flow");
            let c = conns.len() as u32;
            let mut members = vec![lead];
            let (src, dst, start, stop, hash) = {
                let l = &mut flows[lead as usize];
                l.conn = c;
                l.pin = pins.len() as u32;
                (l.src, l.dst, l.start, l.stop, l.hash)
            };
            pins.push(plan.paths[0].clone());
            for (k, path) in plan.paths.iter().enumerate().skip(1) {
                let mut sub = mk_flow(plan.flow, src, dst, FlowKind::LongLived, 0, start, stop);
                sub.hash = mix64(hash ^ mix64(k as u64));
                sub.conn = c;
                sub.pin = pins.len() as u32;
                pins.push(path.clone());
                members.push(flows.len() as u32);
                flows.push(sub);
            }
            conns.push(members);
        }
        let sample_links = if opts.sample_links.is_empty() {
            (0..ports.len() as u32)
                .filter(|&l| ports[l as usize].switch)
                .collect()
        } else {
            opts.sample_links.clone()
        };
        Ok(Simulation {
            topo,
            routes: RouteTable::new(topo, routing),
            scheme,
            opts,
            now: SimTime::ZERO,
            events: EventQueue::with_capacity(1024),
            pool: PacketPool::with_capacity(4096),
            ports,
            is_host,
            lb,
            flows,
            arrivals,
            incasts,
            records: Vec::new(),
            counters: Counters::default(),
            queue_delay: Histogram::default(),
            samples: Vec::new(),
            sample_links,
            seg_buf: Vec::with_capacity(64),
            ack_buf: Vec::with_capacity(8),
            drop_buf: Vec::new(),
            all_done: false,
            conns,
            pins,
        })
    }

    /// Runs to `opts.until`; `progress` is called with the simulated time every 16384
    /// events.
    pub fn run(mut self, progress: &mut dyn FnMut(SimTime)) -> RunResult {
        let wall = std::time::Instant::now();
        if !self.arrivals.is_empty() {
            let f = self.arrivals[0];
            self.events
                .push(self.flows[f as usize].start, Event::FlowStart(0));
        }
        for i in 0..self.incasts.len() {
            self.events
                .push(SimTime::ZERO, Event::IncastRequest(i as u32));
        }
        if self.opts.queue_sample.is_some() {
            self.events.push(SimTime::ZERO, Event::Sample);
        }
        let mut until = self.opts.until;
        loop {
            // Report: a run with no event left ends when its last event ran, not at `until`.
            let Some((t, ev)) = self.events.pop() else {
                until = self.now;
                break;
            };
            if t > until {
                break;
            }
            if self.all_done {
                until = self.now;
                break;
            }
            self.now = t;
            self.counters.events += 1;
            if self.counters.events & 0x3fff == 0 {
                progress(t);
            }
            match ev {
                Event::Arrive(l) => self.on_arrive(l),
                Event::TxDone(l) => self.on_tx_done(l),
                Event::PortTimer(l) => self.on_port_timer(l),
                Event::FlowTimer(f) => self.on_flow_timer(f),
                Event::FlowStart(i) => self.on_flow_start(i),
                Event::FlowStop(f) => {
                    self.flows[f as usize].sender.close();
                    let c = self.flows[f as usize].conn;
                    if c != NONE {
                        for &m in &self.conns[c as usize] {
                            self.flows[m as usize].sender.close();
                        }
                    }
                }
                Event::IncastRequest(i) => self.on_incast_request(i),
                Event::Sample => self.on_sample(),
            }
        }
        self.now = until;
        progress(until);
        self.finish(wall)
    }

    #[inline]
    fn on_arrive(&mut self, l: u32) {
        let port = &mut self.ports[l as usize];
        let (_, pkt) = port.pipe.pop_front().expect("an Arrive event has a packet");
        if let Some(&(t, _)) = port.pipe.front() {
            self.events.push(t, Event::Arrive(l));
        }
        let node = port.to;
        if self.is_host[node.index()] {
            self.deliver(node, pkt);
        } else {
            self.forward(node, pkt);
        }
    }

    #[inline]
    fn forward(&mut self, at: NodeId, pkt: PacketId) {
        if !self.pins.is_empty() {
            let p = &self.pool[pkt];
            let pin = self.flows[p.flow as usize].pin;
            if pin != NONE && p.kind == PacketKind::Data {
                // A subflow's data follows its pinned path.
                let topo = self.topo;
                let link = self.pins[pin as usize]
                    .iter()
                    .find(|l| topo.link(**l).from == at)
                    .expect("a pinned packet is on its path");
                self.enqueue(link.0, pkt);
                return;
            }
        }
        let dst = self.pool[pkt].dst;
        let cands = self.routes.next_hops(at, dst);
        let i = if cands.len() == 1 {
            0
        } else {
            let ports = &self.ports;
            let now = self.now;
            self.lb.pick(at, &self.pool[pkt], cands, &|l: LinkId| {
                ports[l.index()].backlog(now)
            })
        };
        let link = cands[i].0;
        self.enqueue(link, pkt);
    }

    #[inline]
    fn enqueue(&mut self, l: u32, pkt: PacketId) {
        let now = self.now;
        let port = &mut self.ports[l as usize];
        if port.fifo_fast {
            // FIFO decided at arrival: the packet starts when everything before it is sent.
            let backlog = port.backlog(now);
            match port.queue.admit(pkt, &mut self.pool, backlog) {
                Enqueued::Dropped(d) => {
                    let bytes = self.pool[d].wire_bytes as u64;
                    port.drops += 1;
                    self.counters.dropped_packets += 1;
                    self.counters.dropped_bytes += bytes;
                    self.pool.free(d);
                    return;
                }
                Enqueued::Queued { marked } => {
                    if marked {
                        port.marks += 1;
                        self.counters.ecn_marks += 1;
                    }
                }
            }
            let bytes = self.pool[pkt].wire_bytes as u64;
            let start = port.busy_until.max(now);
            let wait = start.0 - now.0;
            if port.switch {
                self.queue_delay.record(wait);
            }
            // Integral of waiting bytes over time, packet by packet.
            port.area += bytes as u128 * wait as u128;
            port.max_queue = port.max_queue.max(backlog + bytes);
            let done = start + port.tx_time(bytes);
            port.busy_until = done;
            port.tx_bytes += bytes;
            self.counters.packet_hops += 1;
            let arrive = done + port.delay;
            if port.pipe.is_empty() {
                self.events.push(arrive, Event::Arrive(l));
            }
            port.pipe.push_back((arrive, pkt));
            return;
        }
        port.account(now);
        self.pool[pkt].enqueued_at = now;
        match port.queue.enqueue(pkt, &mut self.pool, now) {
            Enqueued::Dropped(d) => {
                let bytes = self.pool[d].wire_bytes as u64;
                port.drops += 1;
                self.counters.dropped_packets += 1;
                self.counters.dropped_bytes += bytes;
                self.pool.free(d);
            }
            Enqueued::Queued { marked } => {
                if marked {
                    port.marks += 1;
                    self.counters.ecn_marks += 1;
                }
            }
        }
        // Further packets one arrival dropped (FQ-CoDel batches, pFabric): freed and counted now.
        self.free_dropped(l);
        let port = &mut self.ports[l as usize];
        let q = port.queue.bytes();
        port.max_queue = port.max_queue.max(q);
        let due = port.queue.poll_at();
        if due < port.timer_at {
            port.timer_at = due;
            self.events.push(due, Event::PortTimer(l));
        }
        if port.tx_pending || port.queue.is_empty() {
            return;
        }
        if port.busy_until <= now {
            self.start_tx(l);
        } else {
            port.tx_pending = true;
            self.events.push(port.busy_until, Event::TxDone(l));
        }
    }

    #[inline]
    fn start_tx(&mut self, l: u32) {
        let now = self.now;
        let port = &mut self.ports[l as usize];
        port.account(now);
        let dequeued = port.queue.dequeue(&mut self.pool, now);
        let due = port.queue.poll_at();
        if due < port.timer_at {
            port.timer_at = due;
            self.events.push(due, Event::PortTimer(l));
        }
        self.free_dropped(l);
        let Some(pkt) = dequeued else {
            return;
        };
        let port = &mut self.ports[l as usize];
        let p = &self.pool[pkt];
        let bytes = p.wire_bytes as u64;
        if port.switch {
            self.queue_delay.record(now.0 - p.enqueued_at.0);
        }
        let done = now + port.tx_time(bytes);
        port.busy_until = done;
        port.tx_bytes += bytes;
        self.counters.packet_hops += 1;
        let arrive = done + port.delay;
        if port.pipe.is_empty() {
            self.events.push(arrive, Event::Arrive(l));
        }
        port.pipe.push_back((arrive, pkt));
        if !port.queue.is_empty() {
            port.tx_pending = true;
            self.events.push(done, Event::TxDone(l));
        }
    }

    /// A discipline's timer: let it act (drop, mark, rewrite), then resume sending if the
    /// port is idle and something waits.
    fn on_port_timer(&mut self, l: u32) {
        let now = self.now;
        let port = &mut self.ports[l as usize];
        if port.timer_at != now {
            return;
        }
        port.timer_at = SimTime::NEVER;
        port.account(now);
        port.queue.on_timer(&mut self.pool, now);
        let due = port.queue.poll_at();
        if due < SimTime::NEVER {
            port.timer_at = due.max(now);
            self.events.push(port.timer_at, Event::PortTimer(l));
        }
        self.free_dropped(l);
        let port = &self.ports[l as usize];
        if !port.tx_pending && !port.queue.is_empty() && port.busy_until <= now {
            self.start_tx(l);
        }
    }

    /// Frees and counts what the discipline of port `l` dropped outside `enqueue`.
    #[inline]
    fn free_dropped(&mut self, l: u32) {
        // CE marks made at dequeue or on a timer (CoDel with ECN) count with arrival marks.
        let port = &mut self.ports[l as usize];
        let marks = port.queue.take_marks();
        port.marks += marks;
        self.counters.ecn_marks += marks;
        port.queue.drain_dropped(&mut self.drop_buf);
        if self.drop_buf.is_empty() {
            return;
        }
        for i in 0..self.drop_buf.len() {
            let d = self.drop_buf[i];
            self.counters.dropped_packets += 1;
            self.counters.dropped_bytes += self.pool[d].wire_bytes as u64;
            self.ports[l as usize].drops += 1;
            self.pool.free(d);
        }
        self.drop_buf.clear();
    }

    #[inline]
    fn on_tx_done(&mut self, l: u32) {
        self.ports[l as usize].tx_pending = false;
        self.start_tx(l);
    }

    fn emit(&mut self, pkt: Packet) {
        self.counters.sent_packets += 1;
        self.counters.sent_bytes += pkt.wire_bytes as u64;
        let src = pkt.src;
        let id = self.pool.alloc(pkt);
        self.forward(src, id);
    }

    fn flush_segments(&mut self, f: u32) {
        if self.seg_buf.is_empty() {
            return;
        }
        let mut segs = std::mem::take(&mut self.seg_buf);
        let fl = &self.flows[f as usize];
        let cfg = &self.scheme.tcp;
        let mut p = Packet::new(f, PacketKind::Data, fl.src, fl.dst);
        p.hash = fl.hash;
        p.ecn.ect = cfg.ecn;
        p.ts = self.now;
        for s in segs.drain(..) {
            // Report: retransmitted data packets.
            self.counters.retransmitted_packets += s.retransmit as u64;
            p.seq = s.seq;
            p.payload = s.len as u32;
            p.wire_bytes = (s.len + cfg.header) as u32;
            self.emit(p);
        }
        self.seg_buf = segs;
    }

    fn flush_acks(&mut self, f: u32) {
        if self.ack_buf.is_empty() {
            return;
        }
        let mut acks = std::mem::take(&mut self.ack_buf);
        let fl = &self.flows[f as usize];
        let mut p = Packet::new(f, PacketKind::Ack, fl.dst, fl.src);
        p.hash = fl.hash;
        p.wire_bytes = self.scheme.tcp.header as u32;
        for a in acks.drain(..) {
            p.seq = a.ack;
            p.ecn.ece = a.ece;
            p.ts = a.ts_echo;
            self.emit(p);
        }
        self.ack_buf = acks;
    }

    fn rearm(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        let t = fl.sender.poll_at().min(fl.receiver.poll_at());
        if t < fl.timer_at {
            fl.timer_at = t;
            self.events.push(t, Event::FlowTimer(f));
        }
    }

    fn deliver(&mut self, node: NodeId, pkt: PacketId) {
        let p = self.pool[pkt];
        self.pool.free(pkt);
        self.counters.delivered_packets += 1;
        self.counters.delivered_bytes += p.wire_bytes as u64;
        debug_assert_eq!(p.dst, node, "a host received a packet for another host");
        let f = p.flow;
        let now = self.now;
        let cfg = &self.scheme.tcp;
        match p.kind {
            PacketKind::Data => {
                let fl = &mut self.flows[f as usize];
                // Report: data packets delivered, and long-lived flows' throughput bins count
                // payload as it arrives (bounded by the link rate), not as released in order.
                self.counters.delivered_data_packets += 1;
                // Report: the copy a timeout sent (sent at or after it) arrives; the timeout
                // was spurious if the receiver already held that byte.
                if let Some((seq, at)) = fl.rto_check {
                    if p.seq == seq && p.ts >= at {
                        fl.rto_check = None;
                        if fl.receiver.delivered() > seq {
                            self.counters.spurious_timeouts += 1;
                        }
                    }
                }
                if let (Some(bin), FlowKind::LongLived) = (self.opts.throughput_bin, fl.kind) {
                    let b = (now.0 / bin.0.max(1)) as usize;
                    if fl.bins.len() <= b {
                        fl.bins.resize(b + 1, 0);
                    }
                    fl.bins[b] += p.payload as u64;
                }
                let newly = fl.receiver.on_data(
                    cfg,
                    now,
                    p.seq,
                    p.payload as u64,
                    p.ecn.ce,
                    p.ts,
                    &mut self.ack_buf,
                );
                if newly > 0 {
                    self.on_delivered(f, newly);
                }
                self.flush_acks(f);
            }
            PacketKind::Ack => {
                let ack = AckOut {
                    ack: p.seq,
                    ece: p.ecn.ece,
                    ts_echo: p.ts,
                };
                self.couple(f);
                let fl = &mut self.flows[f as usize];
                fl.sender.on_ack(cfg, now, &ack, &mut self.seg_buf);
                self.flush_segments(f);
            }
            PacketKind::Control => {}
        }
        self.rearm(f);
    }

    /// Hands subflow `f` of a multipath connection the state of all its subflows.
    #[inline]
    fn couple(&mut self, f: u32) {
        let c = self.flows[f as usize].conn;
        if c == NONE {
            return;
        }
        let mut cp = Coupling::default();
        for &m in &self.conns[c as usize] {
            let s = &self.flows[m as usize].sender;
            let cwnd = s.window().cwnd;
            cp.subflows += 1;
            cp.total_cwnd += cwnd;
            if let Some(rtt) = s.rtt().srtt().filter(|d| d.0 > 0) {
                let t = rtt.as_secs_f64();
                cp.sum_rate += cwnd as f64 / t;
                cp.max_cwnd_over_rtt2 = cp.max_cwnd_over_rtt2.max(cwnd as f64 / (t * t));
            }
        }
        self.flows[f as usize].sender.cc_mut().couple(&cp);
    }

    fn on_delivered(&mut self, f: u32, newly: u64) {
        self.counters.goodput_bytes += newly;
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        if !fl.block_active || fl.receiver.delivered() < fl.goal {
            return;
        }
        fl.block_active = false;
        match fl.kind {
            FlowKind::Sized => fl.finish = Some(now),
            FlowKind::LongLived => {}
            FlowKind::Incast(i) => {
                let rec = self.block_record(f, Some(now));
                self.records.push(rec);
                let inc = &mut self.incasts[i as usize];
                inc.outstanding -= 1;
                if inc.outstanding == 0 {
                    inc.round += 1;
                    inc.last_finish = now;
                    if inc.round < inc.spec.rounds {
                        self.events
                            .push(now + inc.request_delay, Event::IncastRequest(i));
                    } else if self.arrivals.is_empty()
                        && self.incasts.iter().all(|x| x.round >= x.spec.rounds)
                    {
                        self.all_done = true;
                    }
                }
            }
        }
    }

    fn block_record(&self, f: u32, finish: Option<SimTime>) -> FlowRecord {
        let fl = &self.flows[f as usize];
        let hosts = self.topo;
        let (id, start, size) = match fl.kind {
            FlowKind::Incast(i) => {
                let inc = &self.incasts[i as usize];
                let k = inc.flows.iter().position(|&x| x == f).unwrap_or(0);
                let round = inc.round;
                (
                    inc.record_base + (round * inc.spec.senders + k) as u32,
                    fl.block_start,
                    fl.size,
                )
            }
            _ => (fl.id, fl.start, fl.size),
        };
        let fct = finish.map(|t| t.saturating_since(start));
        let ideal = fl.ideal;
        FlowRecord {
            id,
            src: hosts.host_index(fl.src).unwrap_or(0),
            dst: hosts.host_index(fl.dst).unwrap_or(0),
            size: if fl.kind == FlowKind::LongLived {
                0
            } else {
                size
            },
            start_us: start.as_us_f64(),
            finish_us: finish.map(|t| t.as_us_f64()),
            fct_us: fct.map(|d| d.as_us_f64()),
            ideal_fct_us: ideal.as_us_f64(),
            slowdown: fct.map(|d| d.0 as f64 / ideal.0.max(1) as f64),
            retransmitted_bytes: fl.sender.retransmitted_bytes,
            timeouts: fl.sender.timeouts,
            scheme: self.scheme.label.clone(),
        }
    }

    fn on_flow_timer(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        if fl.timer_at != now {
            return;
        }
        fl.timer_at = SimTime::NEVER;
        self.couple(f);
        let fl = &mut self.flows[f as usize];
        let cfg = &self.scheme.tcp;
        // Report: a timeout is spurious when the receiver already holds the first
        // unacknowledged byte, the one it retransmits.
        let (timeouts, una) = (fl.sender.timeouts, fl.sender.acked());
        fl.sender.on_timer(cfg, now, &mut self.seg_buf);
        if fl.sender.timeouts > timeouts {
            fl.rto_check = Some((una, now));
        }
        fl.receiver.on_timer(now, &mut self.ack_buf);
        self.flush_segments(f);
        self.flush_acks(f);
        self.rearm(f);
    }

    fn on_flow_start(&mut self, i: u32) {
        let f = self.arrivals[i as usize];
        if let Some(&next) = self.arrivals.get(i as usize + 1) {
            self.events
                .push(self.flows[next as usize].start, Event::FlowStart(i + 1));
        }
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        fl.block_active = true;
        fl.block_start = now;
        match fl.kind {
            FlowKind::LongLived => {
                fl.sender.supply(u64::MAX / 4);
                fl.goal = u64::MAX;
                if let Some(stop) = fl.stop {
                    self.events.push(stop, Event::FlowStop(f));
                }
            }
            _ => fl.sender.supply(fl.size),
        }
        fl.sender.send(&self.scheme.tcp, now, &mut self.seg_buf);
        self.flush_segments(f);
        self.rearm(f);
        let c = self.flows[f as usize].conn;
        if c != NONE {
            for k in 1..self.conns[c as usize].len() {
                let m = self.conns[c as usize][k];
                let sub = &mut self.flows[m as usize];
                sub.block_active = true;
                sub.block_start = now;
                sub.goal = u64::MAX;
                sub.sender.supply(u64::MAX / 4);
                sub.sender.send(&self.scheme.tcp, now, &mut self.seg_buf);
                self.flush_segments(m);
                self.rearm(m);
            }
        }
    }

    fn on_incast_request(&mut self, i: u32) {
        let now = self.now;
        let inc = &mut self.incasts[i as usize];
        if inc.round == 0 {
            inc.first_request = now;
        }
        inc.outstanding = inc.flows.len();
        let block = inc.spec.block_bytes;
        let ids = inc.flows.clone();
        for f in ids {
            let fl = &mut self.flows[f as usize];
            fl.block_active = true;
            fl.block_start = now;
            fl.goal += block;
            fl.sender.supply(block);
            fl.sender.send(&self.scheme.tcp, now, &mut self.seg_buf);
            self.flush_segments(f);
            self.rearm(f);
        }
    }

    fn on_sample(&mut self) {
        let now = self.now;
        for &l in &self.sample_links {
            let port = &self.ports[l as usize];
            self.samples.push(QueueSample {
                time_ps: now.0,
                link: l,
                bytes: port.backlog(now),
                // Report: bytes sent by now (what is scheduled past `now` is not sent yet).
                sent_bytes: port.tx_bytes - port.unsent(now),
            });
        }
        if let Some(dt) = self.opts.queue_sample {
            self.events.push(now + dt, Event::Sample);
        }
    }

    fn finish(mut self, wall: std::time::Instant) -> RunResult {
        let end = self.now;
        let span = end.0.max(1);
        // In flight at the end: every packet still in a queue or on a link.
        let mut in_pkts = 0u64;
        let mut in_bytes = 0u64;
        for p in &mut self.ports {
            p.account(end);
            in_pkts += p.queue.len() as u64 + p.pipe.len() as u64;
            in_bytes += p.queue.bytes();
            for &(_, pkt) in &p.pipe {
                in_bytes += self.pool[pkt].wire_bytes as u64;
            }
        }
        self.counters.in_flight_packets = in_pkts;
        self.counters.in_flight_bytes = in_bytes;
        for fl in &self.flows {
            self.counters.timeouts += fl.sender.timeouts as u64;
            self.counters.retransmitted_bytes += fl.sender.retransmitted_bytes;
        }
        let mut records = std::mem::take(&mut self.records);
        for f in 0..self.flows.len() as u32 {
            let fl = &self.flows[f as usize];
            if fl.conn != NONE && self.conns[fl.conn as usize][0] != f {
                // A multipath connection has one record, its first subflow's.
                continue;
            }
            match fl.kind {
                FlowKind::Sized if fl.block_active || fl.finish.is_some() => {
                    records.push(self.block_record(f, fl.finish));
                }
                FlowKind::LongLived if fl.block_active => records.push(self.block_record(f, None)),
                FlowKind::Incast(_) if fl.block_active => records.push(self.block_record(f, None)),
                _ => {}
            }
        }
        records.sort_by_key(|r| r.id);
        let ports = self
            .topo
            .links()
            .iter()
            .zip(&self.ports)
            .map(|(l, p)| PortStats {
                from: self.topo.node(l.from).name.clone(),
                to: self.topo.node(l.to).name.clone(),
                switch: p.switch,
                rate_bps: p.rate.bps_f64(),
                buffer_bytes: p.queue.capacity(),
                max_queue_bytes: p.max_queue,
                mean_queue_bytes: p.area as f64 / span as f64,
                // Report: only bytes serialized by the end count (`tx_bytes` also holds the
                // packet in service and, for a FIFO decided at arrival, the whole backlog).
                utilization: (p.tx_bytes - p.unsent(end)) as f64 * 8.0
                    / p.rate.bps_f64()
                    / (span as f64 * 1e-12),
                drops: p.drops,
                ecn_marks: p.marks,
            })
            .collect();
        let binned =
            |f: &&Flow| f.kind == FlowKind::LongLived && self.opts.throughput_bin.is_some();
        let throughput = self
            .flows
            .iter()
            .enumerate()
            .filter(|(i, f)| {
                binned(f) && (f.conn == NONE || self.conns[f.conn as usize][0] == *i as u32)
            })
            .map(|(_, f)| {
                if f.conn == NONE {
                    return (f.id, f.bins.clone());
                }
                // A connection's throughput is the sum of its subflows'.
                let mut sum: Vec<u64> = Vec::new();
                for &m in &self.conns[f.conn as usize] {
                    let b = &self.flows[m as usize].bins;
                    if sum.len() < b.len() {
                        sum.resize(b.len(), 0);
                    }
                    for (s, x) in sum.iter_mut().zip(b) {
                        *s += x;
                    }
                }
                (f.id, sum)
            })
            .collect();
        let subflow_throughput = self
            .conns
            .iter()
            .flat_map(|members| {
                members.iter().enumerate().map(|(k, &m)| {
                    let f = &self.flows[m as usize];
                    (f.id, k as u32, f.bins.clone())
                })
            })
            .filter(|_| self.opts.throughput_bin.is_some())
            .collect();
        let incasts = self
            .incasts
            .iter()
            .map(|inc| {
                let span = inc.last_finish.saturating_since(inc.first_request);
                let bytes = (inc.round * inc.spec.senders) as u64 * inc.spec.block_bytes;
                IncastResult {
                    senders: inc.spec.senders,
                    rounds_completed: inc.round,
                    goodput_gbps: if span.0 > 0 {
                        bytes as f64 * 8.0 / span.as_secs_f64() / 1e9
                    } else {
                        0.0
                    },
                    timeouts: inc
                        .flows
                        .iter()
                        .map(|&f| self.flows[f as usize].sender.timeouts as u64)
                        .sum(),
                }
            })
            .collect();
        RunResult {
            label: self.scheme.label.clone(),
            records,
            counters: self.counters,
            queue_delay: self.queue_delay,
            ports,
            queue_samples: self.samples,
            throughput_bin: self.opts.throughput_bin,
            throughput,
            subflow_throughput,
            incasts,
            simulated_ps: end.0,
            wall_seconds: wall.elapsed().as_secs_f64(),
            peak_packets: self.pool.capacity_used(),
        }
    }
}

/// Runs `scheme` on `workload` over `topo` (a convenience over [`Simulation`]).
pub fn simulate(
    topo: &Topology,
    routing: &Routing,
    scheme: &PacketScheme,
    workload: &Workload,
    opts: RunOptions,
) -> Result<RunResult, SimError> {
    Ok(Simulation::new(topo, routing, scheme, workload, opts)?.run(&mut |_| {}))
}

/// Runs one incast per sender count of `sweep` under `scheme` (each in its own simulation,
/// until every round is done or `until`), returning `(senders, outcome)` in sweep order.
pub fn incast_sweep(
    topo: &Topology,
    routing: &Routing,
    scheme: &PacketScheme,
    sweep: &crate::config::IncastSweep,
    opts: &RunOptions,
) -> Result<Vec<(usize, RunResult)>, SimError> {
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
#[path = "schemes/engine_tests.rs"]
mod engine_tests;
