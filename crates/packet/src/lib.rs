//! dctc-packet: the packet-level simulator.
//!
//! - [`engine`]: the packet pool.
//! - [`packet`]: the header, with room for per-scheme fields.
//! - [`queue`]: queue disciplines of output ports (DropTail, ECN threshold, CoDel, FQ-CoDel,
//!   sfqCoDel, pFabric).
//! - [`lb`]: load balancers (per-flow ECMP, per-packet spraying, DRILL, HOLNET's percentage
//!   balancer).
//! - [`transport`]: TCP's reliable delivery and the congestion controllers (NewReno, DCTCP,
//!   Cubic) as I/O-free state machines, with header feedback and pacing.
//! - [`sim`]: the event loop of one run (picosecond [`dctc_core::SimTime`], ties in
//!   scheduling order) as mediator between I/O-free parts: the fabric, host endpoints,
//!   applications and results.
//! - [`metrics`]: counters, histograms and per-port statistics of a run.
//! - [`schemes`]: one module per scheme, the registry, and resolved scheme settings.
//! - [`config`]: scenario keys (`[packet]`, `[[schemes]]`, `[[workload]]`, `[output]`).
//! - [`control`]: the control plane: Flowtune's allocator as a node of the fabric and its
//!   control connections.
//! - [`multipath`]: flows run as subflows on source-pinned paths (MPTCP, HOLNET MCC).
//! - [`mod@bench`]: the standard speed workload behind `dctc bench`.

#![forbid(unsafe_code)]

pub mod bench;
pub mod config;
pub mod control;
pub mod engine;
pub mod lb;
pub mod metrics;
pub mod multipath;
pub mod packet;
pub mod queue;
pub mod schemes;
pub mod signal;
pub mod sim;
pub mod transport;

pub use schemes::{PacketScheme, SCHEMES};
pub use sim::{incast_sweep, simulate_packets, RunOptions, SimError, Simulation, Workload};
