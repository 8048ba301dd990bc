//! The packet header every scheme reads and writes.
//!
//! One fixed-size, `Copy` struct for all schemes, one cache line: the TCP/IP fields every hop
//! reads. Per-scheme fields (pFabric's priority, TFC's window and RM bits, XCP's feedback,
//! DBA's price sums, HOLNET's per-hop bits) live in a [`HeaderExt`] beside each packet in the
//! pool (`PacketPool::ext`), so schemes that ignore them pay no cache traffic for them.

use dctc_core::ids::NodeId;
use dctc_core::units::SimTime;

/// What a packet carries.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum PacketKind {
    /// Payload bytes of a flow.
    #[default]
    Data,
    /// A pure acknowledgement.
    Ack,
    /// A control message (Flowtune's flowlet start/end and rate updates, later).
    Control,
    /// An application's request for a flow's next block (an incast round), header-only, from
    /// the flow's receiver to its sender; the block starts when it arrives.
    Request,
}

/// ECN bits in the IP header plus the TCP ECE echo.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Ecn {
    /// ECN-capable transport: switches may mark instead of drop.
    pub ect: bool,
    /// Congestion experienced (set by a switch).
    pub ce: bool,
    /// ECN-echo (set by a receiver on an ACK).
    pub ece: bool,
}

/// Per-scheme header fields. Schemes that do not use a field leave it at zero.
#[derive(Copy, Clone, Debug, PartialEq, Default)]
pub struct HeaderExt {
    /// Scheduling rank, smaller is served first (pFabric: remaining flow bytes).
    pub priority: u64,
    /// A window or rate field switches may rewrite (TFC's window, XCP's cwnd, Flowtune's rate).
    pub window: u64,
    /// A signed feedback value (XCP's feedback, DBA's price sum).
    pub feedback: f64,
    /// Scheme flag bits (TFC's RM / RMA, HOLNET's per-hop congestion bits).
    pub flags: u32,
    /// A second scheme word (DBA's coflow id, path length, flow count).
    pub aux: u32,
}

/// A packet. Sizes are bytes on the wire; sequence numbers count payload bytes from 0.
#[derive(Copy, Clone, Debug, PartialEq)]
#[repr(align(64))]
pub struct Packet {
    /// The flow (index into the run's flow table).
    pub flow: u32,
    /// Data, ACK or control.
    pub kind: PacketKind,
    /// Sending host.
    pub src: NodeId,
    /// Receiving host.
    pub dst: NodeId,
    /// Bytes on the wire (payload + headers).
    pub wire_bytes: u32,
    /// Payload bytes.
    pub payload: u32,
    /// First payload byte (data) or next byte expected (ACK).
    pub seq: u64,
    /// On data: the sender's timestamp. On an ACK: the data timestamp it echoes (RFC 7323
    /// style), for RTT samples.
    pub ts: SimTime,
    /// ECN bits.
    pub ecn: Ecn,
    /// Per-flow hash that per-flow load balancers use.
    pub hash: u64,
    /// When the packet joined the queue it sits in (for queueing delay).
    pub enqueued_at: SimTime,
    /// The next packet in the same queue, for disciplines that chain their packets through
    /// the pool (FQ-CoDel's and sfqCoDel's buckets); meaningless outside such a queue. It
    /// sits in the header's padding, so it costs neither space nor a cache line.
    pub queue_next: u32,
}

impl Packet {
    /// A packet of `kind` for `flow` from `src` to `dst` with all other fields zero.
    pub fn new(flow: u32, kind: PacketKind, src: NodeId, dst: NodeId) -> Packet {
        Packet {
            flow,
            kind,
            src,
            dst,
            wire_bytes: 0,
            payload: 0,
            seq: 0,
            ts: SimTime::ZERO,
            ecn: Ecn::default(),
            hash: 0,
            enqueued_at: SimTime::ZERO,
            queue_next: u32::MAX,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_header_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<super::Packet>(), 64);
    }
}
