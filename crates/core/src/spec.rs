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
