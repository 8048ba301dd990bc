//! dctc-core: what every dctc engine shares.
//!
//! - [`units`]: simulated instants and spans in picoseconds, rates in bits per second, sizes in
//!   bytes, as newtypes.
//! - [`ids`]: node, link, flow and coflow ids (no arithmetic on them).
//! - [`topology`] and [`fabric`]: directed links with rate, delay and buffer; leaf-spine,
//!   fat-tree, dumbbell and file-defined fabrics; the papers' named presets.
//! - [`routing`]: equal-cost shortest paths, per-flow ECMP hashing.
//! - [`workload`]: flow-size CDFs, Poisson arrivals at a target load, incast, long-lived and
//!   CSV flow lists.
//! - [`spec`]: the flows an engine is asked to carry.
//! - [`stats`]: percentiles, size buckets, ideal (empty-network) completion times.
//! - [`input`]: reading the files a scenario names, with a bound on their size.
//! - [`rng`]: one seeded RNG per run, split per component.
//! - [`config`]: the `{path, reason}` error every engine's configuration reports.
//! - [`event`]: the event queue the engines run on (a timing wheel; ties in scheduling order).

#![forbid(unsafe_code)]

pub mod config;
pub mod error;
pub mod event;
pub mod fabric;
pub mod ids;
pub mod input;
pub mod rng;
pub mod routing;
pub mod spec;
pub mod stats;
pub mod topology;
pub mod units;
pub mod workload;

pub use ids::{CoflowId, FlowId, LinkId, NodeId};
pub use units::{Delta, Rate, SimTime};
