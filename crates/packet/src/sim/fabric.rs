//! The fabric: output ports with their queue disciplines, links, routes, load balancing and
//! the packet pool. It knows nothing of flows or transports: a host hands it a packet
//! ([`Fabric::inject`]), and it hands back the packets that reach a host
//! ([`Fabric::on_arrive`]). Every drop and mark is counted here, in one place.
//!
//! Forwarding path: a packet offered to a port is queued by the port's discipline; an idle
//! port starts serializing at once. A busy port with a discipline that has timers (TFC, XCP)
//! keeps exactly one `TxDone` event pending; one without (CoDel, FQ-CoDel, sfqCoDel, pFabric)
//! schedules nothing and decides a due departure when the port is next looked at
//! ([`Fabric::settle`]), which also sets the rule for one instant: a port's due departures
//! come before its arrivals. A serialized packet joins the link's in-flight FIFO (links have
//! constant delay, so order is kept) and only the FIFO's head has an `Arrive` event. FIFO disciplines that decide at
//! arrival (DropTail, ECN threshold) skip the stored queue: a FIFO packet's start of
//! transmission is known when it arrives (`max(now, busy_until)`), so it joins the link's FIFO
//! at once and needs no departure event. Their backlog is the port's unfinished work, which
//! counts the rest of the packet being serialized; stored queues count waiting packets only.
//! Hosts pay their stack delay once per one-way trip: it is added to the propagation delay of
//! links leaving a host, which gives the same timing as delaying the packet before its NIC (a
//! pure delay in series) with no extra event. This is the model `dctc_core::stats::ideal_fct`
//! assumes.

use super::pipe::InFlight;
use super::PacketScheme;
use super::{Event, EventQueue};
use crate::engine::{PacketId, PacketPool};
use crate::lb::{Balancer, LoadBalancer, PortLoad};
use crate::metrics::{Counters, Histogram, PortStats, QueueSample};
use crate::packet::{HeaderExt, Packet, PacketKind};
use crate::queue::{
    Codel, Enqueued, FqCodel, PFabric, Queue, QueueDisc, QueueSpec, SfqCodel, Stored,
};
use dctc_core::ids::{LinkId, NodeId};
use dctc_core::rng::{component_rng, streams, SimRng};
use dctc_core::routing::Routing;
use dctc_core::topology::Topology;
use dctc_core::units::{Delta, Rate, SimTime};
use rand::Rng;

/// A stored queue's next departure, still to be decided.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Pending {
    /// Nothing waits to be sent (the queue is empty or the port is idle).
    None,
    /// A `TxDone` event decides it.
    Event,
    /// The port decides it when next looked at ([`Fabric::settle`]).
    Deferred,
}

/// How a port's departures are decided.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Departs {
    /// At arrival: the discipline is a FIFO that decides then, and the packet goes straight
    /// onto the link.
    AtArrival,
    /// A stored queue's departures are `TxDone` events.
    ByEvent,
    /// A stored queue's departures have no events of their own (see [`Fabric::settle`]): its
    /// discipline has no timers ([`Stored::TIMERLESS`]) and the link no send jitter.
    Deferred,
}

/// A link's serialization pace in 8 bytes: the whole number of ps per byte where the rate
/// has one that fits in 32 bits (nearly every rate: 800 at 10 Gb/s), flagged by the top bit,
/// or else the rate itself (bits per second, below 2^63).
#[derive(Copy, Clone, Debug)]
struct Pace(u64);

impl Pace {
    const WHOLE: u64 = 1 << 63;

    fn of(rate: Rate) -> Pace {
        let ps = 8_000_000_000_000u64;
        if rate.0 > 0 && ps.is_multiple_of(rate.0) {
            if let Ok(per_byte) = u32::try_from(ps / rate.0) {
                return Pace(Pace::WHOLE | per_byte as u64);
            }
        }
        assert!(rate.0 < Pace::WHOLE, "a link rate of 2^63 b/s or more");
        Pace(rate.0)
    }
    /// Serialization time per byte when it is a whole number of ps that fits (0 otherwise).
    #[inline(always)]
    fn ps_per_byte(self) -> u64 {
        if self.0 & Pace::WHOLE != 0 {
            self.0 as u32 as u64
        } else {
            0
        }
    }
    #[inline(always)]
    fn tx_time(self, bytes: u64) -> Delta {
        if self.0 & Pace::WHOLE != 0 {
            Delta(bytes * (self.0 as u32 as u64))
        } else {
            Rate(self.0).tx_time(bytes)
        }
    }
    /// Bytes the link serializes in `left`.
    #[inline(always)]
    fn bytes_in(self, left: u64) -> u64 {
        if self.0 & Pace::WHOLE != 0 {
            left / (self.0 as u32 as u64)
        } else {
            Rate(self.0).bytes_in(Delta(left))
        }
    }
}

/// What a packet decided at arrival adds to its port's statistics: the waiting bytes'
/// integral over time (byte-ps), the bytes handed to the link and the largest backlog. Kept
/// in the port's hot line, so that such a hop writes no other; narrower than the
/// [`Tally`]'s fields, which take what overflows (the port's figure is the sum, or for the
/// backlog the larger, of the two).
#[derive(Copy, Clone, Debug, Default)]
struct HopTally {
    area: u64,
    tx_bytes: u32,
    max_queue: u32,
}

impl HopTally {
    /// A packet of `bytes` that waits `wait` ps behind a backlog, with itself, of `queued`.
    #[inline(always)]
    fn count(&mut self, bytes: u32, wait: u64, queued: u64, spill: &mut Tally) {
        let area = self.area as u128 + bytes as u128 * wait as u128;
        match u64::try_from(area) {
            Ok(a) => self.area = a,
            Err(_) => spill.spill_area(area, &mut self.area),
        }
        let (tx, carry) = self.tx_bytes.overflowing_add(bytes);
        self.tx_bytes = tx;
        if carry {
            spill.tx_bytes += 1 << 32;
        }
        if queued > self.max_queue as u64 {
            match u32::try_from(queued) {
                Ok(q) => self.max_queue = q,
                Err(_) => spill.max_queue = spill.max_queue.max(queued),
            }
        }
    }
}

/// One output port: a queue discipline feeding one link.
///
/// Two cache lines (`repr(C)`, 128 B aligned: a pair the hardware fetches together): line 0
/// is the discipline (its tag and, for a stored queue, the box) and the link's delay; line 1
/// what every packet through the port reads or writes, at the port (offered, serialized) and
/// at the far end of its link (arrived): the link's in-flight FIFO, the clock, the pace, the
/// statistics a FIFO hop adds to and the flags. Other statistics and rarely used state live
/// apart, in the port's [`Tally`].
#[repr(C, align(128))]
pub(crate) struct Port {
    // Line 0.
    pub(crate) queue: Queue,
    delay: Delta,
    // Line 1.
    pipe: super::pipe::Pipe,
    pub(crate) busy_until: SimTime,
    pace: Pace,
    hop: HopTally,
    to: NodeId,
    departs: Departs,
    pub(crate) switch: bool,
    /// Whether a stored queue's next departure, at `busy_until`, is still to be decided.
    pending: Pending,
    /// A capture point watches the link ([`crate::capture`]): each arrival is recorded.
    capture: bool,
}

/// A port's statistics and the state only timed disciplines use: one cache line beside the
/// [`Port`], in a vector of their own. Packets decided at arrival count in the port's
/// [`HopTally`] instead, and only what overflows that comes here.
#[repr(C, align(64))]
#[derive(Default)]
pub(crate) struct Tally {
    /// Integral of the queued bytes over time, byte-ps.
    area: u128,
    /// When a stored queue's `area` was last brought up to date.
    last_change: SimTime,
    max_queue: u64,
    /// Bytes handed to the link (the packet in service and, for a FIFO decided at arrival,
    /// the whole backlog, included).
    tx_bytes: u64,
    pub(crate) drops: u64,
    pub(crate) marks: u64,
    /// The discipline's timer event pending, if any (`NEVER` = none).
    timer_at: SimTime,
}

impl Port {
    /// The discipline decides at arrival (FIFO): packets go straight onto the link.
    #[inline(always)]
    fn fifo_fast(&self) -> bool {
        self.departs == Departs::AtArrival
    }
    #[inline(always)]
    fn tx_time(&self, bytes: u64) -> Delta {
        self.pace.tx_time(bytes)
    }
    /// Bytes the link serializes in `left`.
    #[inline(always)]
    fn bytes_in(&self, left: u64) -> u64 {
        self.pace.bytes_in(left)
    }
    /// Bytes handed to the link so far (see [`Tally::tx_bytes`]).
    fn tx_bytes(&self, tally: &Tally) -> u64 {
        tally.tx_bytes + self.hop.tx_bytes as u64
    }
    /// Bytes waiting or being serialized at `now`: the stored queue, or for a FIFO decided at
    /// arrival, the unfinished work `(busy_until - now) x rate`.
    #[inline]
    fn backlog(&self, now: SimTime) -> u64 {
        debug_assert!(
            self.pending != Pending::Deferred || self.busy_until > now,
            "a port's backlog read before its due departures were settled (Fabric::settle)"
        );
        if !self.fifo_fast() {
            return self.queue.bytes();
        }
        self.bytes_in(self.busy_until.0.saturating_sub(now.0))
    }
    /// Whether the first-hop signal judges this port congested at `now`:
    /// `sig.congested(self.backlog(now), buffer)`; `left` is the port's entry in
    /// `sig.congested_left`, with which a FIFO port with a whole number of ps per byte is
    /// judged by its unfinished work in ps (no division).
    #[inline(always)]
    fn signal_congested(
        &self,
        sig: &crate::signal::FirstHopSignals,
        left: u64,
        now: SimTime,
    ) -> bool {
        if left != u64::MAX {
            self.busy_until.0.saturating_sub(now.0) >= left
        } else {
            self.signal_congested_by_backlog(sig, now)
        }
    }
    #[inline(never)]
    fn signal_congested_by_backlog(
        &self,
        sig: &crate::signal::FirstHopSignals,
        now: SimTime,
    ) -> bool {
        sig.congested(self.backlog(now), self.queue.capacity())
    }
    /// Report: bytes counted in [`Port::tx_bytes`] whose serialization ends after `now`.
    fn unsent(&self, tally: &Tally, now: SimTime) -> u64 {
        self.bytes_in(self.busy_until.0.saturating_sub(now.0))
            .min(self.tx_bytes(tally))
    }
    /// Port `l`'s next departure, due at `at` (port `l` is this one), is to be decided:
    /// by a `TxDone` event, or when the port is next looked at if it defers.
    #[inline(always)]
    fn pend(&mut self, l: u32, at: SimTime, ev: &mut EventQueue) {
        self.pending = if self.departs == Departs::Deferred {
            Pending::Deferred
        } else {
            ev.push(at, Event::TxDone(l));
            Pending::Event
        };
    }
}

impl Tally {
    /// Takes a [`HopTally`]'s backlog integral with a packet's share, `area`, which
    /// overflowed its 64 bits.
    #[cold]
    #[inline(never)]
    fn spill_area(&mut self, area: u128, hop_area: &mut u64) {
        self.area += area;
        *hop_area = 0;
    }
    /// Brings a stored queue's backlog integral up to `now`; `queued`: its bytes until now.
    #[inline(always)]
    fn account(&mut self, queued: u64, now: SimTime) {
        self.area += queued as u128 * (now.0 - self.last_change.0) as u128;
        self.last_change = now;
    }
    /// The one place a drop of `bytes` on the wire is counted (per port, per run and, for
    /// data, per flow) and its packet freed.
    #[inline(always)]
    fn count_drop(
        &mut self,
        pool: &mut PacketPool,
        c: &mut Counters,
        flow_drops: &mut FlowDrops,
        d: PacketId,
        bytes: u32,
    ) {
        self.drops += 1;
        c.dropped_packets += 1;
        c.dropped_bytes += bytes as u64;
        flow_drops.record(&pool[d]);
        pool.free(d);
    }
    /// The one place CE marks are counted, per port and per run.
    #[inline(always)]
    fn count_marks(&mut self, c: &mut Counters, marks: u64) {
        self.marks += marks;
        c.ecn_marks += marks;
    }
}

/// Ports, routes, the balancer and the packet pool of one run.
pub(crate) struct Fabric {
    /// The fabric's routing (compact: its lookups are arithmetic on small tables).
    routes: Routing,
    pub(crate) pool: PacketPool,
    pub(crate) ports: Vec<Port>,
    /// Each port's statistics, by link index.
    pub(crate) tally: Vec<Tally>,
    is_host: Vec<bool>,
    lb: Balancer,
    drop_buf: Vec<PacketId>,
    /// Queueing delay of every packet at every switch port.
    pub(crate) queue_delay: Histogram,
    /// Pinned path (index into `pins`) of each flow index's data packets, `NO_PIN` for
    /// routed ones; empty when no flow is pinned.
    pin_of: Vec<u32>,
    /// Pinned paths as `(node, link it leaves by)` hops.
    pins: Vec<Vec<(NodeId, LinkId)>>,
    /// Per-host send jitter (`[packet] send_jitter_us`), `None` when off.
    jitter: Option<Jitter>,
    /// First-hop switches' single-hop signals to sources, if the controller asks for them.
    signal: Option<crate::signal::FirstHopSignals>,
    /// Some port defers its departures ([`Port::defer`]): whatever reads a port's backlog
    /// settles it first.
    deferred: bool,
    /// `deferred`, and the balancer reads its candidates' backlogs per packet (DRILL).
    settle_on_pick: bool,
    /// Payload of each flow's dropped data packets (the per-flow byte ledger).
    pub(crate) flow_drops: FlowDrops,
    /// The packets captured links saw, when the run captures.
    pub(crate) capture: Option<Box<crate::capture::Recorder>>,
}

/// Payload bytes of dropped data packets, by flow index (grown as flows drop).
#[derive(Default)]
pub(crate) struct FlowDrops(pub(crate) Vec<u64>);

impl FlowDrops {
    /// Counts `p` if it is a data packet.
    #[inline]
    fn record(&mut self, p: &Packet) {
        if p.kind == PacketKind::Data {
            let f = p.flow as usize;
            if self.0.len() <= f {
                self.0.resize(f + 1, 0);
            }
            self.0[f] += p.payload as u64;
        }
    }
}

/// Seeded send jitter of host ports: each packet a host sends reaches the far end an extra
/// uniform `[0, max]` later, never before the packet sent ahead of it on that link.
struct Jitter {
    rng: SimRng,
    max_ps: u64,
}

/// When a packet on `port` due at `arrive` reaches the far end, with the host jitter if any.
#[inline]
fn jittered(jitter: &mut Option<Jitter>, port: &Port, arrive: SimTime) -> SimTime {
    match jitter {
        Some(j) if !port.switch => {
            let t = arrive + Delta(j.rng.random_range(0..=j.max_ps));
            port.pipe.back().map_or(t, |ahead| t.max(ahead.at))
        }
        _ => arrive,
    }
}

/// Runs `$e` with `$Q` the concrete type of the stored-queue discipline in `$queue` (see
/// [`Stored`]); disciplines without a variant of their own run as [`Queue`].
macro_rules! with_stored {
    ($queue:expr, $Q:ident => $e:expr) => {
        match $queue {
            Queue::FqCodel(_) => {
                type $Q = FqCodel;
                $e
            }
            Queue::SfqCodel(_) => {
                type $Q = SfqCodel;
                $e
            }
            Queue::Codel(_) => {
                type $Q = Codel;
                $e
            }
            Queue::PFabric(_) => {
                type $Q = PFabric;
                $e
            }
            _ => {
                type $Q = Queue;
                $e
            }
        }
    };
}

/// A flow whose data is routed (no pinned path).
const NO_PIN: u32 = u32::MAX;

/// TFC's delay arbiter sits, in the paper, at the switch port whose data the arriving RMA
/// ACKs answer; here each link direction is its own queue, so the arbiter runs where those
/// ACKs leave (the other direction of the link) and meters the data direction's token.
fn pair_tfc_arbiters(topo: &Topology, ports: &mut [Port]) {
    for (li, l) in topo.links().iter().enumerate() {
        let Some(back) = topo.link_between(l.to, l.from) else {
            continue;
        };
        let Queue::Tfc(data) = &ports[li].queue else {
            continue;
        };
        let feed = data.token_feed();
        if let Queue::Tfc(acks) = &mut ports[back.index()].queue {
            acks.meter(feed);
        }
    }
}

impl Fabric {
    /// The ports of `topo` with `scheme`'s disciplines (host NICs get the host queue);
    /// `seed` keys the hashed-bucket queues per port.
    pub(crate) fn new(
        topo: &Topology,
        routing: &Routing,
        scheme: &PacketScheme,
        seed: u64,
    ) -> Result<Fabric, super::SimError> {
        let n_nodes = topo.nodes().len();
        // A controller node (Flowtune's allocator) is an endpoint like a host.
        let is_host: Vec<bool> = (0..n_nodes)
            .map(|i| {
                let n = NodeId::from_index(i);
                topo.is_host(n) || topo.node(n).kind == dctc_core::topology::NodeKind::Controller
            })
            .collect();
        // Send jitter applies to host links (see `jittered`).
        let jitter_on = scheme.send_jitter > Delta::ZERO;
        let ports: Vec<Port> = topo
            .links()
            .iter()
            .enumerate()
            .map(|(li, l)| {
                let from_host = is_host[l.from.index()];
                let buffer = if from_host {
                    scheme.nic_buffer_bytes.max(l.buffer_bytes)
                } else {
                    scheme.switch_buffer_bytes.unwrap_or(l.buffer_bytes)
                };
                // Hashed-bucket queues key their flow hash per port (reproducible).
                let port_seed = QueueSpec::port_seed(seed, li);
                let queue = if from_host {
                    scheme.host_queue.build(buffer, port_seed, l.rate)
                } else {
                    scheme.switch_queue.build(buffer, port_seed, l.rate)
                };
                let departs = if queue.fifo_at_arrival() {
                    Departs::AtArrival
                } else if with_stored!(queue, Q => <Q as Stored>::TIMERLESS)
                    && !(from_host && jitter_on)
                {
                    Departs::Deferred
                } else {
                    Departs::ByEvent
                };
                Port {
                    to: l.to,
                    pace: Pace::of(l.rate),
                    hop: HopTally::default(),
                    delay: if from_host {
                        l.delay + topo.host_delay
                    } else {
                        l.delay
                    },
                    busy_until: SimTime::ZERO,
                    pending: Pending::None,
                    departs,
                    queue,
                    pipe: Default::default(),
                    switch: !from_host,
                    capture: false,
                }
            })
            .collect();
        let mut ports = ports;
        pair_tfc_arbiters(topo, &mut ports);
        let built = crate::lb::Build {
            topo,
            routing,
            seed,
        };
        let lb = (scheme.lb)
            .build(&scheme.lb_params, &built)
            .map_err(super::SimError::BadBalancer)?;
        let deferred = ports.iter().any(|p| p.departs == Departs::Deferred);
        let tally = (0..ports.len())
            .map(|_| Tally {
                timer_at: SimTime::NEVER,
                ..Tally::default()
            })
            .collect();
        Ok(Fabric {
            routes: routing.clone(),
            pool: PacketPool::with_capacity(4096),
            ports,
            tally,
            is_host,
            drop_buf: Vec::new(),
            queue_delay: Histogram::default(),
            pin_of: Vec::new(),
            pins: Vec::new(),
            jitter: (scheme.send_jitter > Delta::ZERO).then(|| Jitter {
                rng: component_rng(seed, streams::TRANSPORT),
                max_ps: scheme.send_jitter.0,
            }),
            signal: None,
            deferred,
            settle_on_pick: deferred && lb.reads_backlog(),
            lb,
            flow_drops: FlowDrops::default(),
            capture: None,
        })
    }

    /// Pins the data packets of some of the `n_flows` flows (multipath subflows) to paths:
    /// `(flow index, path)`. Their ACKs, and every other flow's packets, are routed.
    pub(crate) fn pin_paths(
        &mut self,
        topo: &Topology,
        n_flows: usize,
        pins: Vec<(u32, Vec<LinkId>)>,
    ) {
        if pins.is_empty() {
            return;
        }
        self.pin_of = vec![NO_PIN; n_flows];
        for (f, path) in pins {
            self.pin_of[f as usize] = self.pins.len() as u32;
            self.pins
                .push(path.iter().map(|&l| (topo.link(l).from, l)).collect());
        }
    }

    /// First-hop switches signal the sources of the run's `n_flows` flows as `spec` asks
    /// (see [`crate::signal`]); `None`: no signaling.
    pub(crate) fn hop_signal(&mut self, spec: Option<crate::signal::HopSignal>, n_flows: usize) {
        self.signal = spec.map(|s| crate::signal::FirstHopSignals::new(s, n_flows));
        if let Some(sig) = &mut self.signal {
            sig.congested_left = self
                .ports
                .iter()
                .map(|p| {
                    if !p.fifo_fast() || p.pace.ps_per_byte() == 0 {
                        return u64::MAX;
                    }
                    // u64::MAX (judged by the backlog) should the product overflow.
                    sig.congested_bytes(p.queue.capacity())
                        .saturating_mul(p.pace.ps_per_byte())
                })
                .collect();
        }
    }

    /// Records what the links of `spec`'s capture points carry.
    pub(crate) fn capture(&mut self, spec: &crate::capture::CaptureSpec) {
        let rec = crate::capture::Recorder::new(spec, self.ports.len());
        for l in rec.captured_links() {
            self.ports[l.index()].capture = spec.max_packets > 0;
        }
        self.capture = Some(Box::new(rec));
    }

    /// Whether a capture point watches link `l` (and it has not recorded its limit yet).
    #[inline(always)]
    pub(crate) fn captures(&self, l: u32) -> bool {
        self.ports[l as usize].capture
    }

    /// Records the head packet on link `l`, which reaches the far end now (before
    /// [`Fabric::on_arrive`] takes it). Out of line: only captured links come here.
    #[cold]
    #[inline(never)]
    pub(crate) fn capture_head(&mut self, l: u32) {
        let hop = *self.ports[l as usize]
            .pipe
            .front()
            .expect("an Arrive event has a packet");
        self.capture_hop(l, &hop);
    }

    /// Records `hop`, which reaches the far end of link `l`; the link records no more
    /// once it holds its capture's limit.
    fn capture_hop(&mut self, l: u32, hop: &InFlight) {
        let port = &self.ports[l as usize];
        let on_link = port.delay + port.tx_time(hop.offer.wire_bytes as u64);
        let p = &self.pool[hop.offer.pkt];
        let raw = crate::capture::Raw {
            sent: SimTime(hop.at.0.saturating_sub(on_link.0)),
            arrived: hop.at,
            seq: p.seq,
            flow: p.flow,
            payload: p.payload,
            src: p.src,
            dst: p.dst,
            kind: p.kind,
            ecn: hop.offer.ecn,
        };
        if let Some(rec) = &mut self.capture {
            if !rec.record(l, raw) {
                self.ports[l as usize].capture = false;
            }
        }
    }

    /// At the end of the run: records the packets still on captured links (those that
    /// started to leave by `end` belong to their sender's capture).
    fn capture_in_flight(&mut self) {
        for l in 0..self.ports.len() {
            if !self.ports[l].capture {
                continue;
            }
            let hops: Vec<InFlight> = self.ports[l].pipe.iter().copied().collect();
            for hop in hops {
                if !self.ports[l].capture {
                    break;
                }
                self.capture_hop(l as u32, &hop);
            }
        }
    }

    /// How often the balancer wants [`Fabric::lb_update`] (HOLNET's percentage balancer).
    pub(crate) fn lb_update_period(&self) -> Option<Delta> {
        self.lb.update_period()
    }

    /// The balancer's periodic update, reading every port's load now.
    #[inline(never)]
    pub(crate) fn lb_update(&mut self, now: SimTime, ev: &mut EventQueue, c: &mut Counters) {
        self.settle_all(now, ev, c);
        let ports = &self.ports;
        self.lb.on_update(now, &|l: LinkId| {
            let p = &ports[l.index()];
            PortLoad {
                backlog: p.backlog(now),
                buffer: p.queue.capacity(),
            }
        });
    }

    /// Switch ports (link indices).
    pub(crate) fn switch_ports(&self) -> Vec<u32> {
        (0..self.ports.len() as u32)
            .filter(|&l| self.ports[l as usize].switch)
            .collect()
    }

    /// A host puts `pkt` (with header fields `ext`, if the scheme uses them) on the wire.
    /// Returns the link of the host's NIC it was offered to.
    #[inline]
    pub(crate) fn inject(
        &mut self,
        pkt: &Packet,
        ext: Option<&HeaderExt>,
        now: SimTime,
        ev: &mut EventQueue,
        c: &mut Counters,
    ) -> u32 {
        c.sent_packets += 1;
        c.sent_bytes += pkt.wire_bytes as u64;
        let id = self.pool.alloc(*pkt);
        if let Some(e) = ext {
            *self.pool.ext(id) = *e;
        }
        self.forward(pkt.src, InFlight::of(id, pkt, now), now, ev, c)
    }

    /// When port `l` will have sent what it holds at `now` (just settled by an offer): for
    /// a FIFO, when its last packet leaves; for a stored queue, when its backlog would, sent
    /// at line rate in any order. TCP small queues read this right after a host's offer.
    pub(crate) fn drains_at(&self, l: u32, now: SimTime) -> SimTime {
        let p = &self.ports[l as usize];
        let busy = p.busy_until.max(now);
        if p.fifo_fast() {
            busy
        } else {
            busy + p.tx_time(p.queue.bytes())
        }
    }

    /// Loads port `l`'s hot line ahead of its use, so that its cache miss overlaps other work.
    #[inline(always)]
    pub(crate) fn warm_port(&self, l: u32) {
        std::hint::black_box(self.ports[l as usize].busy_until);
    }

    /// Loads the head packet's entry on link `l` ahead of its arrival, and its header if it
    /// is about to reach its host.
    #[inline(always)]
    pub(crate) fn warm_head(&self, l: u32) {
        let port = &self.ports[l as usize];
        if let Some(h) = port.pipe.front() {
            if self.is_host[port.to.index()] {
                std::hint::black_box(self.pool[h.offer.pkt].flow);
            } else {
                std::hint::black_box(h.dst);
            }
        }
    }

    /// The head packet on link `l` reaches the far end: forwarded if that is a switch,
    /// returned if it is a host (the caller reads it, then frees it with
    /// [`Fabric::release`]).
    #[inline]
    pub(crate) fn on_arrive(
        &mut self,
        l: u32,
        now: SimTime,
        ev: &mut EventQueue,
        c: &mut Counters,
    ) -> Option<PacketId> {
        let port = &mut self.ports[l as usize];
        let hop = port.pipe.pop_front().expect("an Arrive event has a packet");
        if let Some(next) = port.pipe.front() {
            ev.push(next.at, Event::Arrive(l));
        }
        let node = port.to;
        if port.pending == Pending::Deferred && port.busy_until <= now {
            // The packet in service when the next departure fell due arrives no earlier
            // than that departure: its arrival is the settling that always comes.
            self.settle(l, now, ev, c);
        }
        if self.is_host[node.index()] {
            let pkt = hop.offer.pkt;
            c.delivered_packets += 1;
            c.delivered_bytes += hop.offer.wire_bytes as u64;
            debug_assert_eq!(hop.dst, node, "a host received a packet for another host");
            // The marks made on the way reach the header the host reads.
            self.pool[pkt].ecn = hop.offer.ecn;
            Some(pkt)
        } else if self.signal.is_some() && !self.ports[l as usize].switch {
            // A host's link: `node` is the packet's first-hop switch.
            self.forward_signaled(node, hop, now, ev, c);
            None
        } else {
            self.forward(node, hop, now, ev, c);
            None
        }
    }

    /// A first-hop switch `at` forwards `pkt`; for a data packet it then judges the flow's
    /// path and signals a change to the source, one switch-to-host propagation delay later
    /// (see [`crate::signal`]). Judged after the packet is queued (or dropped), so the
    /// packet counts in its port's backlog as it does in the `holnet` queue's mark.
    #[inline(never)]
    fn forward_signaled(
        &mut self,
        at: NodeId,
        hop: InFlight,
        now: SimTime,
        ev: &mut EventQueue,
        c: &mut Counters,
    ) {
        let p = &self.pool[hop.offer.pkt];
        let (flow, data, src, dst) = (p.flow, p.kind == PacketKind::Data, p.src, p.dst);
        let link = self.forward(at, hop, now, ev, c);
        let Some(sig) = &self.signal else {
            return;
        };
        if !data || flow as usize >= sig.flows() {
            return;
        }
        if self.deferred {
            // The judgment reads these ports' backlogs. `link` itself was settled when the
            // packet was offered to it; the ports behind it were not.
            let downstream = sig.spec.downstream;
            let to = self.ports[link as usize].to;
            if !self.is_host[to.index()] {
                self.settle_toward(to, dst, downstream, now, ev, c);
            }
        }
        let Some(sig) = &self.signal else {
            return;
        };
        let mut flags = 0;
        if self.ports[link as usize].signal_congested(sig, sig.congested_left[link as usize], now) {
            flags |= crate::signal::LOCAL;
        }
        let to = self.ports[link as usize].to;
        if !self.is_host[to.index()] && self.node_congested(sig, to, dst, now) {
            flags |= crate::signal::NEXT_HOP;
        }
        let Some(sig) = &mut self.signal else {
            return;
        };
        if let Some(flags) = sig.judge(flow, flags) {
            let back = self.routes.hops_toward(at, src)[0];
            let delay = self.ports[back.index()].delay;
            ev.push(
                now + delay,
                Event::HopFeedback(crate::signal::pack(flow, flags)),
            );
            c.hop_signals += 1;
        }
    }

    /// Whether switch `node` counts as congested toward `dst` in a first-hop report: one of
    /// its ports toward `dst` is, or (with `spec.downstream`) the switch behind one of them
    /// is, by the same rule (see [`crate::signal::HopSignal::downstream`]).
    #[inline]
    fn node_congested(
        &self,
        sig: &crate::signal::FirstHopSignals,
        node: NodeId,
        dst: NodeId,
        now: SimTime,
    ) -> bool {
        self.routes.hops_toward(node, dst).iter().any(|l| {
            let next = &self.ports[l.index()];
            next.signal_congested(sig, sig.congested_left[l.index()], now)
                || (sig.spec.downstream
                    && !self.is_host[next.to.index()]
                    && self.node_congested(sig, next.to, dst, now))
        })
    }

    /// The packet a host received, and its header fields (zero unless `header`); frees it.
    #[inline]
    pub(crate) fn release(&mut self, pkt: PacketId, header: bool) -> (Packet, HeaderExt) {
        let p = self.pool[pkt];
        let ext = if header {
            *self.pool.ext(pkt)
        } else {
            HeaderExt::default()
        };
        self.pool.free(pkt);
        (p, ext)
    }

    // Inlined into both callers (a host's send, a switch's arrival) with `enqueue`'s FIFO
    // path: together they are the per-hop work, and calls between them cost more than their
    // bodies. The rare paths (pinned subflows, stored queues) stay out of line.
    /// Returns the link the packet was offered to.
    #[inline(always)]
    fn forward(
        &mut self,
        at: NodeId,
        hop: InFlight,
        now: SimTime,
        ev: &mut EventQueue,
        c: &mut Counters,
    ) -> u32 {
        if !self.pins.is_empty() {
            if let Some(link) = self.pinned_hop(at, hop.offer.pkt) {
                self.enqueue(link.0, hop, now, ev, c);
                return link.0;
            }
        }
        let link = match self.route(at, &hop) {
            Some(link) => link,
            None => self.pick_loaded(at, hop, now, ev, c).0,
        };
        self.enqueue(link, hop, now, ev, c);
        link
    }

    /// The link `hop` leaves `at` by when no backlog decides it: the only next hop, or ECMP's
    /// pick; `None` when another balancer must read the candidates' backlogs.
    #[inline(always)]
    fn route(&self, at: NodeId, hop: &InFlight) -> Option<u32> {
        let cands = self.routes.hops_toward(at, hop.dst);
        if cands.len() == 1 {
            Some(cands[0].0)
        } else if let Balancer::Ecmp(b) = &self.lb {
            // ECMP reads no backlog: its hash inlines here.
            Some(cands[b.pick_hash(at, hop.hash, cands.len())].0)
        } else {
            None
        }
    }

    /// The link a balancer other than ECMP picks for `hop` at `at`, reading the candidates'
    /// backlogs (settled first where ports defer their departures).
    #[inline(never)]
    fn pick_loaded(
        &mut self,
        at: NodeId,
        hop: InFlight,
        now: SimTime,
        ev: &mut EventQueue,
        c: &mut Counters,
    ) -> LinkId {
        if self.settle_on_pick {
            self.settle_toward(at, hop.dst, false, now, ev, c);
        }
        let cands = self.routes.hops_toward(at, hop.dst);
        let ports = &self.ports;
        let i = self
            .lb
            .pick(at, &self.pool[hop.offer.pkt], cands, &|l: LinkId| {
                ports[l.index()].backlog(now)
            });
        cands[i]
    }

    /// The link a multipath subflow's data packet at `at` leaves by, if it is pinned.
    #[inline(never)]
    fn pinned_hop(&self, at: NodeId, pkt: PacketId) -> Option<LinkId> {
        let p = &self.pool[pkt];
        let pin = self.pin_of[p.flow as usize];
        if pin == NO_PIN || p.kind != PacketKind::Data {
            return None;
        }
        // A subflow's data follows its pinned path.
        let hop = self.pins[pin as usize]
            .iter()
            .find(|(from, _)| *from == at)
            .expect("a pinned packet is on its path");
        Some(hop.1)
    }

    /// Offers `pkt` (its header as it reads in the pool) to the port feeding link `l`.
    #[cfg(test)]
    pub(crate) fn offer(
        &mut self,
        l: u32,
        pkt: PacketId,
        now: SimTime,
        ev: &mut EventQueue,
        c: &mut Counters,
    ) {
        let hop = InFlight::of(pkt, &self.pool[pkt], now);
        self.enqueue(l, hop, now, ev, c);
    }

    /// Offers the packet of `hop` to the port feeding link `l`.
    #[inline(always)]
    fn enqueue(
        &mut self,
        l: u32,
        mut hop: InFlight,
        now: SimTime,
        ev: &mut EventQueue,
        c: &mut Counters,
    ) {
        let port = &mut self.ports[l as usize];
        if port.fifo_fast() {
            // FIFO decided at arrival: the packet starts when everything before it is sent.
            let backlog = port.backlog(now);
            let bytes = hop.offer.wire_bytes as u64;
            let tally = &mut self.tally[l as usize];
            match port.queue.admit(&mut hop.offer, &mut self.pool, backlog) {
                Enqueued::Dropped(d) => {
                    tally.count_drop(
                        &mut self.pool,
                        c,
                        &mut self.flow_drops,
                        d,
                        hop.offer.wire_bytes,
                    );
                    return;
                }
                Enqueued::Queued { marked } => {
                    if marked {
                        tally.count_marks(c, 1);
                    }
                }
            }
            let start = port.busy_until.max(now);
            let wait = start.0 - now.0;
            if port.switch {
                self.queue_delay.record(wait);
            }
            // Integral of waiting bytes over time, packet by packet, bytes sent and the
            // largest backlog, in the port's own line.
            port.hop
                .count(hop.offer.wire_bytes, wait, backlog + bytes, tally);
            let done = start + port.tx_time(bytes);
            port.busy_until = done;
            c.packet_hops += 1;
            hop.at = jittered(&mut self.jitter, port, done + port.delay);
            if port.pipe.is_empty() {
                ev.push(hop.at, Event::Arrive(l));
            }
            port.pipe.push_back(hop);
            return;
        }
        self.enqueue_stored(l, hop, now, ev, c);
    }

    /// [`Fabric::enqueue`] into a stored queue (a discipline that decides at dequeue).
    #[inline(never)]
    fn enqueue_stored(
        &mut self,
        l: u32,
        hop: InFlight,
        now: SimTime,
        ev: &mut EventQueue,
        c: &mut Counters,
    ) {
        // The discipline reads the header: the marks made on the way reach it first.
        self.pool[hop.offer.pkt].ecn = hop.offer.ecn;
        let pkt = hop.offer.pkt;
        with_stored!(self.ports[l as usize].queue, Q => self.enqueue_in::<Q>(l, pkt, now, ev, c))
    }

    /// [`Fabric::enqueue_stored`] for the discipline `Q` of port `l`.
    #[inline(always)]
    fn enqueue_in<Q: Stored>(
        &mut self,
        l: u32,
        pkt: PacketId,
        now: SimTime,
        ev: &mut EventQueue,
        c: &mut Counters,
    ) {
        if self.ports[l as usize].pending == Pending::Deferred {
            // Departures due by now go first.
            self.settle_in::<Q>(l, now, ev, c);
        }
        let port = &mut self.ports[l as usize];
        let tally = &mut self.tally[l as usize];
        let queued = Q::of(&mut port.queue).bytes();
        tally.account(queued, now);
        self.pool[pkt].enqueued_at = now;
        match Q::of(&mut port.queue).enqueue(pkt, &mut self.pool, now) {
            Enqueued::Dropped(d) => {
                let bytes = self.pool[d].wire_bytes;
                tally.count_drop(&mut self.pool, c, &mut self.flow_drops, d, bytes)
            }
            Enqueued::Queued { marked } => {
                if marked {
                    tally.count_marks(c, 1);
                }
            }
        }
        // Further packets one arrival dropped (FQ-CoDel batches, pFabric): freed and counted now.
        self.free_dropped_in::<Q>(l, c);
        let port = &mut self.ports[l as usize];
        let tally = &mut self.tally[l as usize];
        let q = Q::of(&mut port.queue);
        tally.max_queue = tally.max_queue.max(q.bytes());
        let due = q.poll_at();
        let empty = q.is_empty();
        if due < tally.timer_at {
            tally.timer_at = due;
            ev.push(due, Event::PortTimer(l));
        }
        if port.pending != Pending::None || empty {
            return;
        }
        if port.busy_until <= now {
            self.start_tx_in::<Q>(l, now, ev, c);
        } else {
            port.pend(l, port.busy_until, ev);
        }
    }

    /// Port `l`, idle, starts serializing its discipline's next packet, if any.
    #[inline]
    pub(crate) fn start_tx(&mut self, l: u32, now: SimTime, ev: &mut EventQueue, c: &mut Counters) {
        with_stored!(self.ports[l as usize].queue, Q => self.start_tx_in::<Q>(l, now, ev, c))
    }

    /// [`Fabric::start_tx`] for the discipline `Q` of port `l`.
    #[inline(always)]
    fn start_tx_in<Q: Stored>(
        &mut self,
        l: u32,
        now: SimTime,
        ev: &mut EventQueue,
        c: &mut Counters,
    ) {
        let port = &mut self.ports[l as usize];
        let tally = &mut self.tally[l as usize];
        let queued = Q::of(&mut port.queue).bytes();
        tally.account(queued, now);
        let q = Q::of(&mut port.queue);
        let dequeued = q.dequeue(&mut self.pool, now);
        let due = q.poll_at();
        if due < tally.timer_at {
            tally.timer_at = due;
            ev.push(due, Event::PortTimer(l));
        }
        self.free_dropped_in::<Q>(l, c);
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
        self.tally[l as usize].tx_bytes += bytes;
        c.packet_hops += 1;
        let hop = InFlight::of(pkt, p, jittered(&mut self.jitter, port, done + port.delay));
        if port.pipe.is_empty() {
            ev.push(hop.at, Event::Arrive(l));
        }
        port.pipe.push_back(hop);
        if !Q::of(&mut port.queue).is_empty() {
            port.pend(l, done, ev);
        }
    }

    /// Settles port `l`'s departures due by `now` if it defers them ([`Port::defer`]).
    ///
    /// A deferring port schedules no event for its next departure. Its discipline has no
    /// timers, so between two looks at the port nothing but the clock changes what it would
    /// send, and a departure due at `t` is decided exactly as an event at `t` would decide it,
    /// provided the port is settled before anything else touches or reads it: an arrival
    /// ([`Fabric::enqueue`]), a backlog read (a balancer, a first-hop signal, a sample), the
    /// end of the run. If nothing does, the packet in service when the departure fell due
    /// reaches the far end no earlier than that ([`Fabric::on_arrive`]), and that settles it;
    /// every packet it sends then arrives after that moment, so no event lands in the past.
    /// At one instant, a port's due departures come before its arrivals and reads.
    #[inline(never)]
    pub(crate) fn settle(&mut self, l: u32, now: SimTime, ev: &mut EventQueue, c: &mut Counters) {
        if self.ports[l as usize].pending == Pending::Deferred {
            with_stored!(self.ports[l as usize].queue, Q => self.settle_in::<Q>(l, now, ev, c))
        }
    }

    /// [`Fabric::settle`] for the discipline `Q` of port `l`.
    #[inline(always)]
    fn settle_in<Q: Stored>(
        &mut self,
        l: u32,
        now: SimTime,
        ev: &mut EventQueue,
        c: &mut Counters,
    ) {
        loop {
            let port = &mut self.ports[l as usize];
            if port.pending != Pending::Deferred || port.busy_until > now {
                return;
            }
            port.pending = Pending::None;
            let at = port.busy_until;
            self.start_tx_in::<Q>(l, at, ev, c);
            debug_assert!(
                self.ports[l as usize]
                    .pipe
                    .back()
                    .is_none_or(|h| h.at > now),
                "a settled departure arrives after the moment that settled it"
            );
        }
    }

    /// Settles the ports of `node` toward `dst` and, with `downstream`, those of the
    /// switches behind them, as [`Fabric::node_congested`] reads them.
    fn settle_toward(
        &mut self,
        node: NodeId,
        dst: NodeId,
        downstream: bool,
        now: SimTime,
        ev: &mut EventQueue,
        c: &mut Counters,
    ) {
        for k in 0..self.routes.hops_toward(node, dst).len() {
            let l = self.routes.hops_toward(node, dst)[k];
            self.settle(l.0, now, ev, c);
            let to = self.ports[l.index()].to;
            if downstream && !self.is_host[to.index()] {
                self.settle_toward(to, dst, downstream, now, ev, c);
            }
        }
    }

    /// Whether port `l` defers its departures.
    #[cfg(test)]
    pub(crate) fn defers(&self, l: u32) -> bool {
        self.ports[l as usize].departs == Departs::Deferred
    }

    /// Makes every port schedule its departures as events (tests compare the two ways).
    #[cfg(test)]
    pub(crate) fn schedule_departures(&mut self) {
        for p in &mut self.ports {
            if p.departs == Departs::Deferred {
                p.departs = Departs::ByEvent;
            }
        }
        self.deferred = false;
        self.settle_on_pick = false;
    }

    /// Settles every deferring port up to `now` (before a read of all ports).
    fn settle_all(&mut self, now: SimTime, ev: &mut EventQueue, c: &mut Counters) {
        if self.deferred {
            for l in 0..self.ports.len() as u32 {
                self.settle(l, now, ev, c);
            }
        }
    }

    /// A discipline's timer: let it act (drop, mark, rewrite), then resume sending if the
    /// port is idle and something waits.
    pub(crate) fn on_port_timer(
        &mut self,
        l: u32,
        now: SimTime,
        ev: &mut EventQueue,
        c: &mut Counters,
    ) {
        let (port, tally) = (&mut self.ports[l as usize], &mut self.tally[l as usize]);
        if tally.timer_at != now {
            return;
        }
        tally.timer_at = SimTime::NEVER;
        tally.account(port.queue.bytes(), now);
        port.queue.on_timer(&mut self.pool, now);
        let due = port.queue.poll_at();
        if due < SimTime::NEVER {
            tally.timer_at = due.max(now);
            ev.push(tally.timer_at, Event::PortTimer(l));
        }
        self.free_dropped_in::<Queue>(l, c);
        let port = &self.ports[l as usize];
        if port.pending == Pending::None && !port.queue.is_empty() && port.busy_until <= now {
            self.start_tx(l, now, ev, c);
        }
    }

    /// Frees and counts what the discipline `Q` of port `l` dropped outside `enqueue`.
    #[inline(always)]
    fn free_dropped_in<Q: Stored>(&mut self, l: u32, c: &mut Counters) {
        // CE marks made at dequeue or on a timer (CoDel with ECN) count with arrival marks.
        let q = Q::of(&mut self.ports[l as usize].queue);
        let marks = q.take_marks();
        q.drain_dropped(&mut self.drop_buf);
        let tally = &mut self.tally[l as usize];
        if marks != 0 {
            tally.count_marks(c, marks);
        }
        if self.drop_buf.is_empty() {
            return;
        }
        for &d in &self.drop_buf {
            let bytes = self.pool[d].wire_bytes;
            tally.count_drop(&mut self.pool, c, &mut self.flow_drops, d, bytes);
        }
        self.drop_buf.clear();
    }

    /// Port `l` finished serializing a packet. Out of line: only stored queues have
    /// departure events, and the FIFO hop inlined into the event loop stays small.
    #[inline(never)]
    pub(crate) fn on_tx_done(
        &mut self,
        l: u32,
        now: SimTime,
        ev: &mut EventQueue,
        c: &mut Counters,
    ) {
        self.ports[l as usize].pending = Pending::None;
        self.start_tx(l, now, ev, c);
    }

    /// Queue length and bytes sent so far of each port in `links`.
    #[inline(never)]
    pub(crate) fn sample(
        &mut self,
        links: &[u32],
        now: SimTime,
        out: &mut Vec<QueueSample>,
        ev: &mut EventQueue,
        c: &mut Counters,
    ) {
        for &l in links {
            self.settle(l, now, ev, c);
            let (port, tally) = (&self.ports[l as usize], &self.tally[l as usize]);
            out.push(QueueSample {
                time_ps: now.0,
                link: l,
                bytes: port.backlog(now),
                // Report: bytes sent by now (what is scheduled past `now` is not sent yet).
                sent_bytes: port.tx_bytes(tally) - port.unsent(tally, now),
            });
        }
    }

    /// Closes the books at `end`: the packets and bytes still queued or on a link, and each
    /// port's statistics.
    pub(crate) fn finish(
        &mut self,
        topo: &Topology,
        end: SimTime,
        ev: &mut EventQueue,
        c: &mut Counters,
    ) -> (u64, u64, Vec<PortStats>) {
        // Departures due by the end happen, as their events would have.
        self.settle_all(end, ev, c);
        self.capture_in_flight();
        let span = end.0.max(1);
        // In flight at the end: every packet still in a queue or on a link.
        let mut in_pkts = 0u64;
        let mut in_bytes = 0u64;
        for (p, t) in self.ports.iter().zip(&mut self.tally) {
            t.account(p.queue.bytes(), end);
            in_pkts += p.queue.len() as u64 + p.pipe.len() as u64;
            in_bytes += p.queue.bytes();
            for hop in p.pipe.iter() {
                in_bytes += hop.offer.wire_bytes as u64;
            }
        }
        let ports = topo
            .links()
            .iter()
            .zip(self.ports.iter().zip(&self.tally))
            .map(|(l, (p, t))| PortStats {
                from: topo.node(l.from).name.clone(),
                to: topo.node(l.to).name.clone(),
                switch: p.switch,
                rate_bps: l.rate.bps_f64(),
                buffer_bytes: p.queue.capacity(),
                max_queue_bytes: t.max_queue.max(p.hop.max_queue as u64),
                mean_queue_bytes: (t.area + p.hop.area as u128) as f64 / span as f64,
                // Report: only bytes serialized by the end count (`tx_bytes` also holds the
                // packet in service and, for a FIFO decided at arrival, the whole backlog).
                utilization: (p.tx_bytes(t) - p.unsent(t, end)) as f64 * 8.0
                    / l.rate.bps_f64()
                    / (span as f64 * 1e-12),
                drops: t.drops,
                ecn_marks: t.marks,
            })
            .collect();
        (in_pkts, in_bytes, ports)
    }
}

#[cfg(test)]
mod tests {
    use super::{HopTally, Pace, Port, Tally};
    use dctc_core::units::{Delta, Rate};
    use std::mem::offset_of;

    #[test]
    fn a_hop_tally_hands_what_overflows_to_the_tally() {
        // The port's figures are the tally's plus (for the backlog: or) the hop tally's, as
        // one u128 / u64 / u64 count would have them.
        let (mut hop, mut tally) = (HopTally::default(), Tally::default());
        let (mut area, mut tx, mut max) = (0u128, 0u64, 0u64);
        let packets = [
            (1500u32, 0u64, 1500u64),
            (1500, 7_000_000, 90_000),
            (u32::MAX, 1 << 40, 5_000_000_000), // past 64 bits of area, 32 of backlog
            (u32::MAX, 3, 20),                  // past 32 bits of bytes sent
            (64, u64::MAX / 2, 64),             // the product alone overflows
            (1500, 1_200_000, 3000),
        ];
        for (bytes, wait, queued) in packets {
            hop.count(bytes, wait, queued, &mut tally);
            area += bytes as u128 * wait as u128;
            tx += bytes as u64;
            max = max.max(queued);
            assert_eq!(tally.area + hop.area as u128, area);
            assert_eq!(tally.tx_bytes + hop.tx_bytes as u64, tx);
            assert_eq!(tally.max_queue.max(hop.max_queue as u64), max);
        }
        assert!(
            tally.area > 0 && tally.tx_bytes > 0,
            "the overflows reached the tally"
        );
    }

    #[test]
    fn a_pace_serializes_as_its_rate() {
        // Whole ps per byte (10 and 40 Gb/s) and not (3 Gb/s: 2666.67 ps per byte; 1 kb/s:
        // more ps per byte than 32 bits hold): the same times and byte counts as the rate's.
        for bps in [10_000_000_000u64, 40_000_000_000, 3_000_000_000, 1_000] {
            let (rate, pace) = (Rate(bps), Pace::of(Rate(bps)));
            assert_eq!(pace.ps_per_byte() != 0, bps >= 10_000_000_000, "{bps}");
            for bytes in [0u64, 1, 64, 1500, 9000] {
                assert_eq!(
                    pace.tx_time(bytes),
                    rate.tx_time(bytes),
                    "{bps} b/s, {bytes} B"
                );
            }
            for left in [0u64, 799, 800, 1_200_001, 9_999_999_999] {
                assert_eq!(
                    pace.bytes_in(left),
                    rate.bytes_in(Delta(left)),
                    "{bps}, {left} ps"
                );
            }
        }
    }

    #[test]
    fn a_port_keeps_its_cache_line_layout() {
        // Line 0: the discipline; line 1: what every packet through the port reads or
        // writes. The statistics: one line of their own.
        assert_eq!(std::mem::size_of::<Port>(), 128);
        assert_eq!(std::mem::align_of::<Port>(), 128);
        let line = |off: usize| off / 64;
        assert_eq!(offset_of!(Port, queue), 0);
        assert_eq!(line(offset_of!(Port, delay)), 0);
        for off in [
            offset_of!(Port, pipe),
            offset_of!(Port, busy_until),
            offset_of!(Port, pace),
            offset_of!(Port, hop),
            offset_of!(Port, to),
            offset_of!(Port, departs),
            offset_of!(Port, switch),
            offset_of!(Port, pending),
            offset_of!(Port, capture),
        ] {
            assert_eq!(line(off), 1, "offset {off}");
        }
        assert_eq!(std::mem::size_of::<Tally>(), 64);
    }
}
