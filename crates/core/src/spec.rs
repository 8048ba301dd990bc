//! What an engine is asked to carry.

use crate::ids::{CoflowId, FlowId, NodeId};
use crate::units::SimTime;
use serde::{Deserialize, Serialize};

/// One flow of a workload.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowSpec {
    /// Unique within a run; dense from 0 where possible.
    pub id: FlowId,
    /// Sending host.
    pub src: NodeId,
    /// Receiving host.
    pub dst: NodeId,
    /// Payload bytes to deliver; `None` for a long-lived flow that sends until `stop`.
    pub size_bytes: Option<u64>,
    /// When the sender starts.
    pub start: SimTime,
    /// When a long-lived flow stops sending (ignored for sized flows).
    pub stop: Option<SimTime>,
    /// The coflow this flow belongs to, if any.
    pub coflow: Option<CoflowId>,
}

impl FlowSpec {
    /// A long-lived flow `id` from `src` to `dst` that sends from `start` until `stop`.
    pub fn long_lived(id: FlowId, src: NodeId, dst: NodeId, start: SimTime, stop: SimTime) -> Self {
        FlowSpec {
            id,
            src,
            dst,
            size_bytes: None,
            start,
            stop: Some(stop),
            coflow: None,
        }
    }

    /// A flow `id` of `size_bytes` payload bytes from `src` to `dst`, starting at `start`.
    pub fn sized(id: FlowId, src: NodeId, dst: NodeId, start: SimTime, size_bytes: u64) -> Self {
        FlowSpec {
            id,
            src,
            dst,
            size_bytes: Some(size_bytes),
            start,
            stop: None,
            coflow: None,
        }
    }
}
