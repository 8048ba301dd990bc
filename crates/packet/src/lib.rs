//! dctc-packet: the packet-level simulator.
//!
//! - [`engine`]: the event queue (picosecond [`dctc_core::SimTime`], ties in scheduling
//!   order) and the packet pool.
//! - [`packet`]: the header, with room for per-scheme fields.
//! - [`queue`]: queue disciplines of output ports (DropTail, ECN threshold).
//! - [`lb`]: load balancers (per-flow ECMP, per-packet spraying).
//! - [`transport`]: TCP NewReno and DCTCP as I/O-free state machines.
//! - [`sim`]: fabric, hosts and the event loop of one run.
//! - [`metrics`]: counters, histograms and per-port statistics of a run.
//! - [`schemes`]: one module per scheme, the registry, and resolved scheme settings.
//! - [`config`]: scenario keys (`[packet]`, `[[schemes]]`, `[[workload]]`, `[output]`).
//! - [`multipath`]: flows run as subflows on source-pinned paths (MPTCP, HOLNET MCC).
//! - [`mod@bench`]: the standard speed workload behind `dctc bench`.

#![forbid(unsafe_code)]

pub mod bench;
pub mod config;
pub mod engine;
pub mod lb;
pub mod metrics;
pub mod multipath;
pub mod packet;
pub mod queue;
pub mod schemes;
pub mod sim;
pub mod transport;

pub use schemes::{PacketScheme, SCHEMES};
pub use sim::{incast_sweep, simulate, RunOptions, SimError, Simulation, Workload};
