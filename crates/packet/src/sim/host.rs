//! Host endpoints: each flow's TCP sender and receiver, and the glue that turns their
//! segments and ACKs into packets. No I/O: a delivered packet goes in, the packets to send go
//! out into an [`Outbox`], and whether the flow's current block of data is complete comes
//! back for its application.

use super::Event;
use super::EventQueue;
use crate::metrics::Counters;
use crate::packet::{HeaderExt, Packet, PacketKind};
use crate::transport::{
    AckOut, CongestionControl, Coupling, FeedbackSource, Segment, TcpConfig, TcpReceiver, TcpSender,
};
use dctc_core::ids::NodeId;
use dctc_core::units::{Delta, SimTime};
use std::collections::VecDeque;

/// Packets hosts want on the wire, in order, with their header fields when the scheme uses
/// them (a run's packets all carry fields or none do, so `exts` is empty or parallel to
/// `pkts`).
#[derive(Default)]
pub(crate) struct Outbox {
    pub(crate) pkts: Vec<Packet>,
    pub(crate) exts: Vec<HeaderExt>,
}

impl Outbox {
    #[inline]
    pub(crate) fn push(&mut self, p: Packet, ext: Option<HeaderExt>) {
        self.pkts.push(p);
        if let Some(e) = ext {
            self.exts.push(e);
        }
    }

    /// Forgets what was pushed.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.pkts.clear();
        self.exts.clear();
    }
}

/// One flow's two endpoints: the sender at `src`, the receiver at `dst`.
pub(crate) struct Endpoint {
    /// Record id (open-loop flows; incast blocks get theirs from the incast).
    pub(crate) id: u32,
    pub(crate) src: NodeId,
    pub(crate) dst: NodeId,
    pub(crate) hash: u64,
    /// Bytes of one block (a sized flow's size, an incast's block).
    pub(crate) size: u64,
    pub(crate) start: SimTime,
    pub(crate) sender: TcpSender,
    pub(crate) receiver: TcpReceiver,
    timer_at: SimTime,
    /// Receiver bytes that complete the current block (sized flow or incast block).
    pub(crate) goal: u64,
    pub(crate) block_start: SimTime,
    pub(crate) block_active: bool,
    /// When the latest block completed.
    pub(crate) finish: Option<SimTime>,
    /// Empty-network completion time of one block.
    pub(crate) ideal: Delta,
    /// Whether payload arrivals are counted in throughput bins (long-lived flows).
    pub(crate) binned: bool,
    /// Per-bin delivered bytes.
    pub(crate) bins: Vec<u64>,
    /// Report: the byte the last timeout retransmitted and when, until that copy arrives
    /// (to tell a spurious timeout: the receiver already held the byte).
    rto_check: Option<(u64, SimTime)>,
    /// Report: `(send time, seq)` of the latest-sent data packet that has arrived, to count
    /// arrivals overtaken by a later-sent packet (reordering).
    latest_arrived: (SimTime, u64),
    /// Multipath connection this subflow belongs to (index into `Hosts::conns`), or `NONE`.
    pub(crate) conn: u32,
    /// Payload of this flow's data packets that reached its receiver, duplicates included
    /// (the per-flow byte ledger).
    pub(crate) arrived_payload: u64,
    /// The flow stalled at some point (counted once; see `TcpSender::stalled`).
    pub(crate) stalled: bool,
}

/// No multipath connection.
pub(crate) const NONE: u32 = u32::MAX;

impl Endpoint {
    /// A flow of `size` bytes per block from `src` to `dst`; its application starts blocks.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        id: u32,
        src: NodeId,
        dst: NodeId,
        hash: u64,
        size: u64,
        start: SimTime,
        ideal: Delta,
        sender: TcpSender,
    ) -> Endpoint {
        Endpoint {
            id,
            src,
            dst,
            hash,
            size,
            start,
            sender,
            receiver: TcpReceiver::default(),
            timer_at: SimTime::NEVER,
            goal: 0,
            block_start: start,
            block_active: false,
            finish: None,
            ideal,
            binned: false,
            bins: Vec::new(),
            rto_check: None,
            latest_arrived: (SimTime::ZERO, 0),
            conn: NONE,
            arrived_payload: 0,
            stalled: false,
        }
    }
}

/// Every flow's endpoints, and the buffers that carry segments and ACKs to packets.
pub(crate) struct Hosts {
    pub(crate) flows: Vec<Endpoint>,
    /// Multipath connections: their subflows (flow indices), the workload's flow first.
    pub(crate) conns: Vec<Vec<u32>>,
    pub(crate) tcp: TcpConfig,
    /// The scheme's controller uses per-packet header fields: stamp, echo and feed them back.
    header: bool,
    /// Per flow, the header fields its receiver echoes on its next ACK: those of the latest
    /// data packet or probe, or of an earlier one the controller's `echo_merge` keeps. Empty
    /// unless `header` (kept out of `Endpoint`, which every scheme's hot path reads).
    echo: Vec<HeaderExt>,
    /// Per flow, whether `echo` came in after the receiver's last ACK (no ACK carried it yet).
    echo_pending: Vec<bool>,
    /// Bin width of throughput series.
    throughput_bin: Option<Delta>,
    seg_buf: Vec<Segment>,
    ack_buf: Vec<AckOut>,
    /// Flows whose application supplied or stopped data since the loop last looked (for
    /// Flowtune's flowlet detection).
    pub(crate) touched: Vec<u32>,
    /// Under TCP small queues (`TcpConfig::small_queue_bytes`), per flow, its data packets
    /// in its host's NIC queue: when each leaves the NIC and its wire bytes, in order.
    /// Empty otherwise (kept out of `Endpoint`, which every scheme's hot path reads).
    nic: Vec<VecDeque<(SimTime, u32)>>,
}

impl Hosts {
    /// Hosts running `flows`, grouped into multipath connections `conns`, with TCP
    /// settings `tcp`.
    pub(crate) fn new(
        flows: Vec<Endpoint>,
        conns: Vec<Vec<u32>>,
        tcp: TcpConfig,
        header: bool,
        throughput_bin: Option<Delta>,
    ) -> Hosts {
        let (echo, echo_pending) = if header {
            (
                vec![HeaderExt::default(); flows.len()],
                vec![false; flows.len()],
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let nic = if tcp.small_queue_bytes.is_some() {
            vec![VecDeque::new(); flows.len()]
        } else {
            Vec::new()
        };
        Hosts {
            flows,
            conns,
            tcp,
            header,
            echo,
            echo_pending,
            throughput_bin,
            seg_buf: Vec::with_capacity(64),
            ack_buf: Vec::with_capacity(8),
            touched: Vec::new(),
            nic,
        }
    }

    /// Whether senders count their packets in their hosts' NIC queues (TCP small queues).
    #[inline]
    pub(crate) fn small_queues(&self) -> bool {
        !self.nic.is_empty()
    }

    /// Flow `f`'s data packet of `wire` bytes entered its host's NIC queue and leaves it at
    /// `leaves` (TCP small queues).
    pub(crate) fn nic_enqueued(&mut self, f: u32, leaves: SimTime, wire: u32) {
        self.nic[f as usize].push_back((leaves, wire));
    }

    /// Tells flow `f`'s sender of its packets that have left the NIC by `now` (TCP small
    /// queues; nothing otherwise).
    #[inline]
    fn nic_drain(&mut self, f: u32, now: SimTime) {
        let Some(q) = self.nic.get_mut(f as usize) else {
            return;
        };
        let mut left = 0;
        while let Some(&(t, wire)) = q.front() {
            if t > now {
                break;
            }
            left += wire as u64;
            q.pop_front();
        }
        if left > 0 {
            self.flows[f as usize].sender.nic_departed(left);
        }
    }

    /// Whether the scheme's packets carry header fields.
    pub(crate) fn header(&self) -> bool {
        self.header
    }

    /// The application of flow `f` starts a block of `bytes` (`u64::MAX / 4`: send until
    /// stopped) at `now`; the sender sends what its window allows.
    #[inline]
    pub(crate) fn start_block(
        &mut self,
        f: u32,
        bytes: u64,
        now: SimTime,
        out: &mut Outbox,
        c: &mut Counters,
    ) {
        self.nic_drain(f, now);
        let fl = &mut self.flows[f as usize];
        fl.block_active = true;
        fl.block_start = now;
        fl.goal = fl.goal.saturating_add(bytes);
        fl.sender.supply(bytes);
        self.touched.push(f);
        fl.sender.send(&self.tcp, now, &mut self.seg_buf);
        self.flush_segments(f, now, out, c);
    }

    /// The application of flow `f` stops supplying data.
    pub(crate) fn close(&mut self, f: u32) {
        self.touched.push(f);
        self.flows[f as usize].sender.close();
    }

    /// Flow `f`'s earliest timer (RTO, paced send, delayed ACK) may be due. Returns false
    /// for a stale timer event (the flow's timer moved).
    #[inline]
    pub(crate) fn on_timer(
        &mut self,
        f: u32,
        now: SimTime,
        out: &mut Outbox,
        c: &mut Counters,
    ) -> bool {
        let fl = &mut self.flows[f as usize];
        if fl.timer_at != now {
            return false;
        }
        fl.timer_at = SimTime::NEVER;
        self.check_stall(f, now, c);
        self.couple(f);
        self.nic_drain(f, now);
        let fl = &mut self.flows[f as usize];
        // Report: a timeout is spurious when the receiver already holds the first
        // unacknowledged byte, the one it retransmits.
        let (timeouts, una) = (fl.sender.timeouts, fl.sender.acked());
        fl.sender.on_timer(&self.tcp, now, &mut self.seg_buf);
        if fl.sender.timeouts > timeouts {
            fl.rto_check = Some((una, now));
        }
        if fl.sender.nic_waiting() {
            // Small queues: packets left the NIC; send what waited for them.
            fl.sender.send(&self.tcp, now, &mut self.seg_buf);
        }
        fl.receiver.on_timer(now, &mut self.ack_buf);
        self.flush_segments(f, now, out, c);
        self.flush_acks(f, out);
        true
    }

    /// A packet of flow `p.flow` reached host `node`. Returns whether that flow's current
    /// block just completed.
    #[inline]
    pub(crate) fn deliver(
        &mut self,
        node: NodeId,
        p: &Packet,
        ext: &HeaderExt,
        now: SimTime,
        out: &mut Outbox,
        c: &mut Counters,
    ) -> bool {
        let f = p.flow;
        let mut done = false;
        match p.kind {
            PacketKind::Data => {
                if self.header {
                    let i = f as usize;
                    self.echo[i] = if self.echo_pending[i] {
                        self.flows[i].sender.echo_merge(&self.echo[i], ext)
                    } else {
                        *ext
                    };
                    self.echo_pending[i] = true;
                }
                let fl = &mut self.flows[f as usize];
                // Report: data packets delivered, and long-lived flows' throughput bins count
                // payload as it arrives (bounded by the link rate), not as released in order.
                c.delivered_data_packets += 1;
                fl.arrived_payload += p.payload as u64;
                // Report: the copy a timeout sent (sent at or after it) arrives; the timeout
                // was spurious if the receiver already held that byte.
                if let Some((seq, at)) = fl.rto_check {
                    if p.seq == seq && p.ts >= at {
                        fl.rto_check = None;
                        if fl.receiver.delivered() > seq {
                            c.spurious_timeouts += 1;
                        }
                    }
                }
                // Report: overtaken by a packet of the flow sent after it (retransmissions are
                // sent later, so they never count as overtaken by their originals).
                if (p.ts, p.seq) < fl.latest_arrived {
                    c.reordered_packets += 1;
                } else {
                    fl.latest_arrived = (p.ts, p.seq);
                }
                if let (Some(bin), true) = (self.throughput_bin, fl.binned) {
                    let b = (now.0 / bin.0.max(1)) as usize;
                    if fl.bins.len() <= b {
                        fl.bins.resize(b + 1, 0);
                    }
                    fl.bins[b] += p.payload as u64;
                }
                let newly = fl.receiver.on_data(
                    &self.tcp,
                    now,
                    p.seq,
                    p.payload as u64,
                    p.ecn.ce,
                    p.ts,
                    &mut self.ack_buf,
                );
                if newly > 0 {
                    c.goodput_bytes += newly;
                    c.last_goodput_ps = now.0;
                    if fl.block_active && fl.receiver.delivered() >= fl.goal {
                        fl.block_active = false;
                        fl.finish = Some(now);
                        done = true;
                    }
                }
                self.flush_acks(f, out);
            }
            PacketKind::Ack => {
                let ack = AckOut {
                    ack: p.seq,
                    ece: p.ecn.ece,
                    ts_echo: p.ts,
                };
                self.nic_drain(f, now);
                let fl = &mut self.flows[f as usize];
                if self.header {
                    fl.sender
                        .on_feedback(now, ext, FeedbackSource::Ack, Some(ack));
                }
                self.couple(f);
                let fl = &mut self.flows[f as usize];
                fl.sender.on_ack(&self.tcp, now, &ack, &mut self.seg_buf);
                self.flush_segments(f, now, out, c);
            }
            // Requests go to the application (see `Simulation::deliver`).
            PacketKind::Request => {}
            PacketKind::Control => {
                let fl = &mut self.flows[f as usize];
                if node == fl.dst {
                    // A probe: the receiver answers with a pure ACK echoing its fields.
                    if self.header {
                        self.echo[f as usize] = *ext;
                    }
                    fl.receiver.on_probe(p.ts, &mut self.ack_buf);
                    self.flush_acks(f, out);
                } else {
                    self.nic_drain(f, now);
                    let fl = &mut self.flows[f as usize];
                    fl.sender
                        .on_feedback(now, ext, FeedbackSource::Control, None);
                    fl.sender.send(&self.tcp, now, &mut self.seg_buf);
                    self.flush_segments(f, now, out, c);
                }
            }
        }
        done
    }

    /// Checks whether flow `f` is stalled at `now` (see `TcpSender::stalled`), counting it
    /// the first time. Called at the flow's timer events and at the end of the run, off the
    /// per-packet path. Debug builds stop at the first stall.
    pub(crate) fn check_stall(&mut self, f: u32, now: SimTime, c: &mut Counters) {
        let fl = &mut self.flows[f as usize];
        if fl.stalled || !fl.sender.stalled(&self.tcp, now) {
            return;
        }
        fl.stalled = true;
        c.stalled_flows += 1;
        debug_assert!(
            false,
            "flow {} ({:?} -> {:?}) stalled at {now}: acked {} of {} supplied, {} sent, window {:?}, RTO {}",
            fl.id,
            fl.src,
            fl.dst,
            fl.sender.acked(),
            fl.sender.supplied(),
            fl.sender.snd_max(),
            fl.sender.window(),
            fl.sender.current_rto(&self.tcp),
        );
    }

    /// Flow `f`'s first-hop switch signaled its judgment `flags` of the flow's path (see
    /// [`crate::signal`]): the controller hears it, and the sender sends what its window
    /// then allows.
    pub(crate) fn on_hop_signal(
        &mut self,
        f: u32,
        flags: u32,
        now: SimTime,
        out: &mut Outbox,
        c: &mut Counters,
    ) {
        let ext = HeaderExt {
            flags,
            ..Default::default()
        };
        self.nic_drain(f, now);
        let fl = &mut self.flows[f as usize];
        fl.sender
            .on_feedback(now, &ext, FeedbackSource::Switch, None);
        fl.sender.send(&self.tcp, now, &mut self.seg_buf);
        self.flush_segments(f, now, out, c);
    }

    /// The subflows of the multipath connection flow `f` belongs to (flow indices, the
    /// workload's flow first); empty for a single-path flow.
    pub(crate) fn subflows_of(&self, f: u32) -> &[u32] {
        match self.flows[f as usize].conn {
            NONE => &[],
            c => &self.conns[c as usize],
        }
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
                cp.sampled += 1;
                cp.sum_rate += cwnd as f64 / t;
                cp.max_cwnd_over_rtt2 = cp.max_cwnd_over_rtt2.max(cwnd as f64 / (t * t));
            }
        }
        self.flows[f as usize].sender.cc_mut().couple(&cp);
    }

    /// The TCP ports of flow index `f`'s packets in a capture: its id and subflow; `None`
    /// for the control plane's connections (indices past the flows).
    pub(crate) fn flow_ports(&self, f: u32) -> Option<crate::capture::FlowPorts> {
        let ep = self.flows.get(f as usize)?;
        let subflow = match self.conns.get(ep.conn as usize) {
            Some(members) => members.iter().position(|&m| m == f).unwrap_or(0) as u32,
            None => 0,
        };
        Some(crate::capture::FlowPorts { id: ep.id, subflow })
    }

    /// Schedules flow `f`'s earliest timer if it moved earlier.
    #[inline]
    pub(crate) fn rearm(&mut self, f: u32, ev: &mut EventQueue) {
        let fl = &mut self.flows[f as usize];
        let mut t = fl.sender.poll_at().min(fl.receiver.poll_at());
        if fl.sender.nic_waiting() {
            // Small queues: wake when the flow's oldest packet in the NIC leaves it.
            if let Some(&(leaves, _)) = self.nic[f as usize].front() {
                t = t.min(leaves);
            }
        }
        if t < fl.timer_at {
            fl.timer_at = t;
            ev.push(t, Event::FlowTimer(f));
        }
    }

    /// A probe of flow `f`: a header-only control packet from sender to receiver that
    /// queues, is delayed and can be dropped like any other.
    #[inline]
    fn probe(&self, f: u32, now: SimTime) -> Packet {
        let fl = &self.flows[f as usize];
        let mut p = Packet::new(f, PacketKind::Control, fl.src, fl.dst);
        p.hash = fl.hash;
        p.wire_bytes = self.tcp.header as u32;
        p.ts = now;
        p
    }

    #[inline]
    fn flush_segments(&mut self, f: u32, now: SimTime, out: &mut Outbox, c: &mut Counters) {
        if self.seg_buf.is_empty() {
            return;
        }
        let mut segs = std::mem::take(&mut self.seg_buf);
        let fl = &self.flows[f as usize];
        let mut p = Packet::new(f, PacketKind::Data, fl.src, fl.dst);
        p.hash = fl.hash;
        p.ecn.ect = self.tcp.ecn;
        p.ts = now;
        for s in segs.drain(..) {
            let ext = if self.header {
                let mut ext = HeaderExt::default();
                self.flows[f as usize].sender.stamp(now, &s, &mut ext);
                Some(ext)
            } else {
                None
            };
            if s.len == 0 {
                // A probe: an empty control packet to the receiver.
                out.push(self.probe(f, now), ext);
                continue;
            }
            // Report: retransmitted data packets.
            c.retransmitted_packets += s.retransmit as u64;
            p.seq = s.seq;
            p.payload = s.len as u32;
            p.wire_bytes = (s.len + self.tcp.header) as u32;
            out.push(p, ext);
        }
        self.seg_buf = segs;
    }

    #[inline]
    fn flush_acks(&mut self, f: u32, out: &mut Outbox) {
        if self.ack_buf.is_empty() {
            return;
        }
        let mut acks = std::mem::take(&mut self.ack_buf);
        let fl = &self.flows[f as usize];
        let mut p = Packet::new(f, PacketKind::Ack, fl.dst, fl.src);
        p.hash = fl.hash;
        p.wire_bytes = self.tcp.header as u32;
        let echo = self.header.then(|| self.echo[f as usize]);
        if self.header {
            self.echo_pending[f as usize] = false;
        }
        for a in acks.drain(..) {
            p.seq = a.ack;
            p.ecn.ece = a.ece;
            p.ts = a.ts_echo;
            out.push(p, echo);
        }
        self.ack_buf = acks;
    }
}
