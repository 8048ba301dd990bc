//! The discrete-event core: the packet engine's events on core's queue, and the packet pool.
//!
//! Events at the same instant run in the order they were scheduled (a sequence number breaks
//! ties), so a run is a pure function of its inputs. Components keep at most one pending
//! event each (htsim's habit): a port schedules its next departure only while it has a queue,
//! a link only its head packet, a flow only its earliest timer.

pub mod pool;

pub use pool::{PacketId, PacketPool};

/// The packet engine's event queue: core's timing wheel over [`Event`].
pub type EventQueue = dctc_core::event::EventQueue<Event>;
/// The binary-heap reference queue (benchmarks compare the wheel against it).
pub type HeapEventQueue = dctc_core::event::HeapEventQueue<Event>;

/// Something that happens at an instant. Payloads are dense indices (links, flows, incasts).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The port feeding link `.0` finished serializing a packet and may start the next one.
    TxDone(u32),
    /// The head packet in flight on link `.0` reaches the link's far end.
    Arrive(u32),
    /// The queue discipline of the port feeding link `.0` asked for a timer (CoDel, TFC, XCP).
    PortTimer(u32),
    /// Flow `.0`'s earliest transport timer (RTO, delayed ACK) may be due.
    FlowTimer(u32),
    /// The next open-loop flow (index `.0` in start order) begins.
    FlowStart(u32),
    /// Long-lived flow `.0` stops taking new data.
    FlowStop(u32),
    /// Incast `.0`'s request for its next round reaches the senders.
    IncastRequest(u32),
    /// Time to sample queue lengths.
    Sample,
    /// Flow `.0`'s sender may have stayed idle for the flowlet threshold (Flowtune).
    FlowletIdle(u32),
    /// The control-plane agent's next iteration (Flowtune's allocator, every 10 us).
    AgentTick,
}
