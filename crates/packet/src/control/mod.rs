//! The control plane: a node of the fabric that runs a control-plane agent (Flowtune's
//! allocator, [`flowtune::Allocator`]) and the reliable control connections between it and
//! every host.
//!
//! Each host has two control connections with the agent node, one each way, each a TCP byte
//! stream (the engine's [`TcpSender`] / [`TcpReceiver`] with the agent's RTO bounds) whose
//! data packets are [`crate::packet::PacketKind::Control`] packets: they queue, are delayed
//! and are dropped like any other packet. A message is a run of bytes on the stream; it takes
//! effect when the receiver has every byte up to its end in order (ns-2's TcpApp, as Flowtune
//! §6.2 describes). Control packets carry flow ids past the last data flow
//! ([`ControlPlane::base`]), so the engine tells them apart without a header field.

pub mod flowtune;

use crate::transport::{Cc, TcpConfig, TcpReceiver, TcpSender};
use dctc_core::ids::NodeId;
use dctc_core::units::{Rate, SimTime};
use std::collections::VecDeque;

pub use flowtune::Allocator;

/// A control message (Flowtune §6.2: start 16 B, end 4 B, rate update 6 B of payload).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// A flowlet of `flow` started (host to allocator).
    FlowletStart {
        /// The engine's flow index.
        flow: u32,
    },
    /// The flowlet of `flow` ended (host to allocator).
    FlowletEnd {
        /// The engine's flow index.
        flow: u32,
    },
    /// `flow` is to send at `rate` (allocator to host).
    RateUpdate {
        /// The engine's flow index.
        flow: u32,
        /// The allocated rate.
        rate: Rate,
    },
}

impl Msg {
    /// Payload bytes of the message on its connection.
    pub fn bytes(&self) -> u64 {
        match self {
            Msg::FlowletStart { .. } => 16,
            Msg::FlowletEnd { .. } => 4,
            Msg::RateUpdate { .. } => 6,
        }
    }
}

/// One direction of a control connection between a host and the agent node.
#[derive(Clone, Debug)]
pub struct Conn {
    /// Sending node.
    pub from: NodeId,
    /// Receiving node.
    pub to: NodeId,
    /// ECMP hash of its packets.
    pub hash: u64,
    /// The stream's sender.
    pub sender: TcpSender,
    /// The stream's receiver.
    pub receiver: TcpReceiver,
    /// The earliest timer event pending (`NEVER`: none).
    pub timer_at: SimTime,
    /// Bytes written so far.
    written: u64,
    /// Messages not yet taken by the receiver: (stream offset just past the message, message,
    /// when it was written).
    queue: VecDeque<(u64, Msg, SimTime)>,
}

impl Conn {
    /// Writes `m` to the stream at `now` (the caller then lets the sender send).
    pub fn push(&mut self, m: Msg, now: SimTime) {
        self.written += m.bytes();
        self.sender.supply(m.bytes());
        self.queue.push_back((self.written, m, now));
    }

    /// The next message whose bytes have all arrived in order, with when it was written.
    pub fn pop_arrived(&mut self) -> Option<(Msg, SimTime)> {
        match self.queue.front() {
            Some(&(end, m, at)) if end <= self.receiver.delivered() => {
                self.queue.pop_front();
                Some((m, at))
            }
            _ => None,
        }
    }
}

/// What the control plane counts for reports (Flowtune §6.4).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ControlStats {
    /// Wire bytes hosts sent to the agent (control data and ACKs of updates).
    pub to_agent_bytes: u64,
    /// Wire bytes the agent sent to hosts (updates and ACKs of notifications).
    pub from_agent_bytes: u64,
    /// Rate updates the agent sent.
    pub updates: u64,
    /// Rate updates that took effect at an endpoint.
    pub updates_applied: u64,
    /// Flowlets that started.
    pub flowlets: u64,
    /// Agent iterations run.
    pub iterations: u64,
    /// Sum over applied updates of the time from writing to taking effect, ps.
    pub update_delay_sum_ps: u64,
    /// Largest such delay, ps.
    pub update_delay_max_ps: u64,
}

/// Per-flow flowlet detection (Flowtune §1: a flowlet ends when the sender's queue stays
/// empty for a threshold time).
#[derive(Clone, Copy, Debug)]
pub struct FlowletState {
    /// Application bytes supplied when last checked.
    pub seen_end: u64,
    /// A flowlet is open (the allocator was told of its start and not of its end).
    pub active: bool,
    /// When the sender's queue emptied plus the threshold (`NEVER`: not idle).
    pub idle_at: SimTime,
}

/// The agent node, its connections and its agent.
#[derive(Debug)]
pub struct ControlPlane {
    /// The agent's node.
    pub node: NodeId,
    /// TCP settings of the control connections.
    pub cfg: TcpConfig,
    /// Two connections per host: `2 h` host -> agent, `2 h + 1` agent -> host.
    pub conns: Vec<Conn>,
    /// Packet flow id of connection 0 (the number of data flows).
    pub base: u32,
    /// The agent.
    pub allocator: Allocator,
    /// Flowlet state per data flow.
    pub flowlets: Vec<FlowletState>,
    /// Each data flow's path (link indices), computed at its first flowlet.
    pub paths: Vec<Vec<u32>>,
    /// The agent's next iteration (`NEVER`: none scheduled).
    pub tick_at: SimTime,
    /// Counters.
    pub stats: ControlStats,
    /// Scratch: connections written to in one iteration.
    pub touched: Vec<usize>,
    /// Scratch: segments a connection's sender emits.
    pub seg_buf: Vec<crate::transport::Segment>,
    /// Scratch: ACKs a connection's receiver emits.
    pub ack_buf: Vec<crate::transport::AckOut>,
    /// Test fault: drop this many of the allocator's next control data packets.
    #[cfg(test)]
    pub drop_from_agent: u32,
}

impl ControlPlane {
    /// A control plane at `node` for `hosts` (in host order) and `flows` data flows; control
    /// connections use `cfg` with NewReno.
    pub fn new(
        node: NodeId,
        hosts: &[NodeId],
        flows: usize,
        cfg: TcpConfig,
        allocator: Allocator,
    ) -> ControlPlane {
        let mut conns = Vec::with_capacity(2 * hosts.len());
        for (i, &h) in hosts.iter().enumerate() {
            for (from, to) in [(h, node), (node, h)] {
                conns.push(Conn {
                    from,
                    to,
                    hash: dctc_core::rng::mix64(
                        0xc047_2010 ^ ((i as u64) << 1) ^ (from == node) as u64,
                    ),
                    sender: TcpSender::new(&cfg, Cc::NewReno(Default::default())),
                    receiver: TcpReceiver::default(),
                    timer_at: SimTime::NEVER,
                    written: 0,
                    queue: VecDeque::new(),
                });
            }
        }
        ControlPlane {
            node,
            cfg,
            conns,
            base: flows as u32,
            allocator,
            flowlets: vec![
                FlowletState {
                    seen_end: 0,
                    active: false,
                    idle_at: SimTime::NEVER,
                };
                flows
            ],
            paths: vec![Vec::new(); flows],
            tick_at: SimTime::NEVER,
            stats: ControlStats::default(),
            touched: Vec::new(),
            seg_buf: Vec::new(),
            ack_buf: Vec::new(),
            #[cfg(test)]
            drop_from_agent: 0,
        }
    }
}
