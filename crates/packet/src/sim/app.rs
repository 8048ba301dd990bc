//! Applications: what gives flows their data and when. An application owns some flows, hands
//! their senders blocks of bytes through a `Net`, and hears when a block is complete. Two
//! are built in: `OpenLoop` (flows with their own start times: sized, or long-lived until a
//! stop time) and `Incasts` (closed-loop rounds: every sender sends a block, the next round
//! starts when all have finished). A new application is a type implementing `Application`,
//! a variant of [`AppEvent`] for its timers, and a field of `Apps`.

use super::host::{Hosts, Outbox};
use super::results::Recorder;
use super::EventQueue;
use super::{Event, Fabric};
use crate::metrics::{Counters, IncastResult};
use dctc_core::stats::FlowRecord;
use dctc_core::units::SimTime;
use dctc_core::workload::IncastSpec;

/// An application's own timer, carried by the loop's [`Event::App`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AppEvent {
    /// `OpenLoop`: the flow at position `.0` in start order begins.
    FlowStart(u32),
    /// `OpenLoop`: long-lived flow `.0` stops taking new data.
    FlowStop(u32),
    /// `Incasts`: incast `.0`'s receiver sends the requests of its next round.
    IncastRequest(u32),
}

/// What an application may do: start blocks on its flows and schedule its own timers. The
/// loop lends it the hosts and the fabric for the call.
pub(crate) struct Net<'s> {
    pub(crate) now: SimTime,
    pub(crate) events: &'s mut EventQueue,
    pub(crate) hosts: &'s mut Hosts,
    pub(crate) fabric: &'s mut Fabric,
    pub(crate) counters: &'s mut Counters,
    pub(crate) outbox: &'s mut Outbox,
}

impl Net<'_> {
    /// The current time.
    pub(crate) fn now(&self) -> SimTime {
        self.now
    }

    /// Flow `f`'s sender gets `bytes` more (`u64::MAX / 4`: until stopped) as a new block
    /// and sends what its window allows, now.
    #[inline]
    pub(crate) fn start_block(&mut self, f: u32, bytes: u64) {
        self.hosts
            .start_block(f, bytes, self.now, self.outbox, self.counters);
        self.send_outbox();
        self.hosts.rearm(f, self.events);
    }

    /// Flow `f`'s application stops supplying data (to every subflow, for a multipath
    /// flow).
    pub(crate) fn close(&mut self, f: u32) {
        self.hosts.close(f);
        for k in 0..self.hosts.subflows_of(f).len() {
            let m = self.hosts.subflows_of(f)[k];
            self.hosts.close(m);
        }
    }

    /// Flow `f`'s receiver asks its sender for the next block: a header-only request packet
    /// that queues, is delayed and can be dropped like any other.
    pub(crate) fn send_request(&mut self, f: u32) {
        let fl = &self.hosts.flows[f as usize];
        let mut p =
            crate::packet::Packet::new(f, crate::packet::PacketKind::Request, fl.dst, fl.src);
        p.hash = fl.hash;
        p.wire_bytes = self.hosts.tcp.header as u32;
        p.ts = self.now;
        let ext = self.hosts.header().then(crate::packet::HeaderExt::default);
        self.outbox.push(p, ext);
        self.send_outbox();
    }

    /// Schedules `ev` at `at`.
    pub(crate) fn schedule(&mut self, at: SimTime, ev: AppEvent) {
        self.events.push(at, Event::App(ev));
    }

    /// Puts what the hosts produced on the wire, in order.
    #[inline]
    pub(crate) fn send_outbox(&mut self) {
        if self.hosts.small_queues() {
            return self.send_outbox_tracked();
        }
        let out = &mut *self.outbox;
        for (i, p) in out.pkts.iter().enumerate() {
            self.fabric
                .inject(p, out.exts.get(i), self.now, self.events, self.counters);
        }
        out.clear();
    }

    /// [`Net::send_outbox`] under TCP small queues: each sender learns when its data packet
    /// leaves its host's NIC. Out of line: the common path stays as small as it was.
    #[inline(never)]
    fn send_outbox_tracked(&mut self) {
        let out = &mut *self.outbox;
        for (i, p) in out.pkts.iter().enumerate() {
            let nic = self
                .fabric
                .inject(p, out.exts.get(i), self.now, self.events, self.counters);
            if p.kind == crate::packet::PacketKind::Data {
                let leaves = self.fabric.drains_at(nic, self.now);
                self.hosts.nic_enqueued(p.flow, leaves, p.wire_bytes);
            }
        }
        out.clear();
    }
}

/// A workload driver.
pub(crate) trait Application {
    /// Schedules its first events.
    fn start(&mut self, net: &mut Net);
    /// One of its own timers fired.
    fn on_event(&mut self, ev: AppEvent, net: &mut Net);
    /// Flow `f`'s current block was delivered completely at `net.now()`; finished blocks
    /// may be recorded into `records`.
    fn on_block_done(
        &mut self,
        f: u32,
        net: &mut Net,
        rec: &Recorder,
        records: &mut Vec<FlowRecord>,
    );
    /// Whether a closed-loop application has nothing left to do (open-loop ones never say
    /// so while they have flows: the run ends when events run out or at its end time).
    fn finished(&self) -> bool;
    /// At the end of the run: records of the blocks not recorded yet.
    fn final_records(&self, hosts: &Hosts, rec: &Recorder, records: &mut Vec<FlowRecord>);
}

/// Flows with their own start times.
pub(crate) struct OpenLoop {
    /// Flow indices in start order.
    pub(crate) arrivals: Vec<u32>,
    /// Which of them are long-lived, by flow index.
    long_lived: Vec<bool>,
    /// Stop times of long-lived flows, by position in `arrivals`.
    stops: Vec<Option<SimTime>>,
}

impl OpenLoop {
    /// Flows `arrivals` (in start order) with their kinds and stop times.
    pub(crate) fn new(
        arrivals: Vec<u32>,
        long_lived: Vec<bool>,
        stops: Vec<Option<SimTime>>,
    ) -> Self {
        OpenLoop {
            arrivals,
            long_lived,
            stops,
        }
    }

    fn is_long_lived(&self, f: u32) -> bool {
        self.long_lived.get(f as usize).copied().unwrap_or(false)
    }
}

impl Application for OpenLoop {
    fn start(&mut self, net: &mut Net) {
        if let Some(&f) = self.arrivals.first() {
            let t = net.hosts.flows[f as usize].start;
            net.schedule(t, AppEvent::FlowStart(0));
        }
    }

    fn on_event(&mut self, ev: AppEvent, net: &mut Net) {
        match ev {
            AppEvent::FlowStart(i) => {
                let f = self.arrivals[i as usize];
                if let Some(&next) = self.arrivals.get(i as usize + 1) {
                    let t = net.hosts.flows[next as usize].start;
                    net.schedule(t, AppEvent::FlowStart(i + 1));
                }
                if self.is_long_lived(f) {
                    if let Some(stop) = self.stops[i as usize] {
                        net.schedule(stop, AppEvent::FlowStop(f));
                    }
                    net.start_block(f, u64::MAX / 4);
                    // A multipath flow's other subflows start with it.
                    for k in 1..net.hosts.subflows_of(f).len() {
                        let m = net.hosts.subflows_of(f)[k];
                        net.start_block(m, u64::MAX / 4);
                    }
                } else {
                    let size = net.hosts.flows[f as usize].size;
                    net.start_block(f, size);
                }
            }
            AppEvent::FlowStop(f) => net.close(f),
            AppEvent::IncastRequest(_) => unreachable!("an incast event reached the open loop"),
        }
    }

    fn on_block_done(
        &mut self,
        _f: u32,
        _net: &mut Net,
        _rec: &Recorder,
        _records: &mut Vec<FlowRecord>,
    ) {
    }

    fn finished(&self) -> bool {
        self.arrivals.is_empty()
    }

    fn final_records(&self, hosts: &Hosts, rec: &Recorder, records: &mut Vec<FlowRecord>) {
        for &f in &self.arrivals {
            let fl = &hosts.flows[f as usize];
            if self.is_long_lived(f) {
                if fl.block_active {
                    records.push(rec.record(fl, fl.id, fl.start, 0, None));
                }
            } else if fl.block_active || fl.finish.is_some() {
                records.push(rec.record(fl, fl.id, fl.start, fl.size, fl.finish));
            }
        }
    }
}

/// One closed-loop incast.
pub(crate) struct Incast {
    pub(crate) spec: IncastSpec,
    /// Its senders' flow indices.
    pub(crate) flows: Vec<u32>,
    round: usize,
    outstanding: usize,
    first_request: SimTime,
    last_finish: SimTime,
    /// Record id of round 0's first block.
    record_base: u32,
}

impl Incast {
    /// An incast over flows `flows`.
    pub(crate) fn new(spec: IncastSpec, flows: Vec<u32>, record_base: u32) -> Self {
        Incast {
            spec,
            flows,
            round: 0,
            outstanding: 0,
            first_request: SimTime::ZERO,
            last_finish: SimTime::ZERO,
            record_base,
        }
    }

    fn record_id(&self, f: u32) -> u32 {
        let k = self.flows.iter().position(|&x| x == f).unwrap_or(0);
        self.record_base + (self.round * self.spec.senders + k) as u32
    }
}

/// Closed-loop incasts. The receiver opens a round by sending each sender a request packet
/// over the fabric (in sender order, so they queue at its NIC); a sender's block starts when
/// its request arrives.
#[derive(Default)]
pub(crate) struct Incasts {
    pub(crate) incasts: Vec<Incast>,
    /// Incast of each flow index (`u32::MAX`: none).
    of_flow: Vec<u32>,
}

impl Incasts {
    /// The incasts; `n_flows` flows exist in all.
    pub(crate) fn new(incasts: Vec<Incast>, n_flows: usize) -> Self {
        let mut of_flow = vec![u32::MAX; n_flows];
        for (i, inc) in incasts.iter().enumerate() {
            for &f in &inc.flows {
                of_flow[f as usize] = i as u32;
            }
        }
        Incasts { incasts, of_flow }
    }

    /// Per-incast outcomes.
    pub(crate) fn results(&self, hosts: &Hosts) -> Vec<IncastResult> {
        self.incasts
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
                        .map(|&f| hosts.flows[f as usize].sender.timeouts as u64)
                        .sum(),
                }
            })
            .collect()
    }
}

impl Incasts {
    /// Flow `f`'s request reached its sender: its next block starts.
    pub(crate) fn on_request(&mut self, f: u32, net: &mut Net) {
        let i = self.of_flow[f as usize];
        if i == u32::MAX {
            return;
        }
        let block = self.incasts[i as usize].spec.block_bytes;
        net.start_block(f, block);
    }
}

impl Application for Incasts {
    fn start(&mut self, net: &mut Net) {
        for i in 0..self.incasts.len() {
            net.schedule(SimTime::ZERO, AppEvent::IncastRequest(i as u32));
        }
    }

    fn on_event(&mut self, ev: AppEvent, net: &mut Net) {
        let AppEvent::IncastRequest(i) = ev else {
            unreachable!("an open-loop event reached the incasts")
        };
        let inc = &mut self.incasts[i as usize];
        if inc.round == 0 {
            inc.first_request = net.now();
        }
        inc.outstanding = inc.flows.len();
        for k in 0..inc.flows.len() {
            let f = self.incasts[i as usize].flows[k];
            net.send_request(f);
        }
    }

    fn on_block_done(
        &mut self,
        f: u32,
        net: &mut Net,
        rec: &Recorder,
        records: &mut Vec<FlowRecord>,
    ) {
        let i = self.of_flow[f as usize];
        let inc = &mut self.incasts[i as usize];
        let fl = &net.hosts.flows[f as usize];
        records.push(rec.record(fl, inc.record_id(f), fl.block_start, fl.size, fl.finish));
        inc.outstanding -= 1;
        if inc.outstanding == 0 {
            inc.round += 1;
            inc.last_finish = net.now();
            if inc.round < inc.spec.rounds {
                net.schedule(net.now(), AppEvent::IncastRequest(i));
            }
        }
    }

    fn finished(&self) -> bool {
        self.incasts.iter().all(|x| x.round >= x.spec.rounds)
    }

    fn final_records(&self, hosts: &Hosts, rec: &Recorder, records: &mut Vec<FlowRecord>) {
        for inc in &self.incasts {
            for &f in &inc.flows {
                let fl = &hosts.flows[f as usize];
                if fl.block_active {
                    records.push(rec.record(fl, inc.record_id(f), fl.block_start, fl.size, None));
                }
            }
        }
    }
}

/// The run's applications.
#[derive(Default)]
pub(crate) struct Apps {
    pub(crate) open: OpenLoop,
    pub(crate) incasts: Incasts,
}

impl Default for OpenLoop {
    fn default() -> Self {
        OpenLoop::new(Vec::new(), Vec::new(), Vec::new())
    }
}

impl Apps {
    /// Every application schedules its first events.
    pub(crate) fn start(&mut self, net: &mut Net) {
        self.open.start(net);
        self.incasts.start(net);
    }

    /// Routes an application timer to its application.
    pub(crate) fn on_event(&mut self, ev: AppEvent, net: &mut Net) {
        match ev {
            AppEvent::FlowStart(_) | AppEvent::FlowStop(_) => self.open.on_event(ev, net),
            AppEvent::IncastRequest(_) => self.incasts.on_event(ev, net),
        }
    }

    /// Flow `f`'s block completed: its application hears of it. Returns whether every
    /// application is now finished (the run can end).
    pub(crate) fn on_block_done(
        &mut self,
        f: u32,
        net: &mut Net,
        rec: &Recorder,
        records: &mut Vec<FlowRecord>,
    ) -> bool {
        if self
            .incasts
            .of_flow
            .get(f as usize)
            .is_some_and(|&i| i != u32::MAX)
        {
            self.incasts.on_block_done(f, net, rec, records);
        } else {
            self.open.on_block_done(f, net, rec, records);
        }
        self.open.finished() && self.incasts.finished()
    }

    /// Records of the blocks still open (or finished but not yet recorded) at the end.
    pub(crate) fn final_records(
        &self,
        hosts: &Hosts,
        rec: &Recorder,
        records: &mut Vec<FlowRecord>,
    ) {
        self.open.final_records(hosts, rec, records);
        self.incasts.final_records(hosts, rec, records);
    }
}
