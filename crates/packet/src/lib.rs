//! dctc-packet: the packet-level simulator.
//!
//! - [`engine`]: the packet pool.
//! - [`packet`]: the header, with room for per-scheme fields.
//! - [`queue`]: queue disciplines of output ports, one module each, and their registry.
//! - [`lb`]: load balancers, one module each, and their registry.
//! - [`keys`]: scenario keys as the parts of a scheme own them, and their checks.
//! - [`transport`]: TCP's reliable delivery and the congestion controllers (NewReno, DCTCP,
//!   Cubic) as I/O-free state machines, with header feedback and pacing.
//! - [`sim`]: the event loop of one run (picosecond [`dctc_core::SimTime`], ties in
//!   scheduling order) as mediator between I/O-free parts: the fabric, host endpoints,
//!   applications and results.
//! - [`metrics`]: counters, histograms and per-port statistics of a run.
//! - [`schemes`]: one module per scheme, the registry, and the resolution of a scheme table
//!   into a [`PacketScheme`] (the simulator's input, in [`sim`]).
//! - [`config`]: scenario keys (`[packet]`, `[[schemes]]`, `[[workload]]`, `[output]`).
//! - [`control`]: the control plane: Flowtune's allocator as a node of the fabric and its
//!   control connections.
//! - [`multipath`]: flows run as subflows on source-pinned paths (MPTCP, HOLNET MCC).
//! - [`capture`]: packet captures at hosts and switch ports, written as pcap files.
//! - [`mod@bench`]: the standard speed workload behind `dctc bench`.

#![forbid(unsafe_code)]

// Lets the test fixtures shared with the integration tests name this crate as they do.
#[cfg(test)]
extern crate self as dctc_packet;

/// The integration tests' TOML fixtures, shared by the unit tests.
#[cfg(test)]
#[path = "../tests/common/toml_table.rs"]
pub(crate) mod toml_table;

pub mod bench;
pub mod capture;
pub mod config;
pub mod control;
pub mod engine;
pub mod keys;
pub mod lb;
pub mod metrics;
pub mod multipath;
pub mod packet;
pub mod queue;
pub mod schemes;
pub mod signal;
pub mod sim;
pub mod transport;

pub use schemes::SCHEMES;
pub use sim::{
    incast_sweep, simulate_packets, PacketScheme, RunOptions, SimError, Simulation, Workload,
};
