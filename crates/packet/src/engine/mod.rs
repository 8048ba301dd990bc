//! The packet pool. The event queue is core's timing wheel (`dctc_core::event`), over the
//! loop's own event type (`crate::sim::Event`).

pub mod pool;

pub use pool::{PacketId, PacketPool};
