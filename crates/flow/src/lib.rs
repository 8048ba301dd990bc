//! dctc-flow: a flow-level (fluid) simulator for datacenter fabrics, with coflow schedulers.
//!
//! Every active flow progresses at the rate its [`policy::RatePolicy`] gives it. Rates are
//! recomputed on coflow arrivals, flow completions and policy timers (iterative policies such as
//! DBA tick once per base RTT); between events rates are constant, so each completion time is
//! exact (`remaining bytes / rate`). An event recomputes only the connected component of flows
//! and links it touches (closed under "same coflow" for coflow-aware policies).
//!
//! - [`net`]: capacities, edge links, equal-cost paths, base RTT.
//! - [`routing`]: flow-level ECMP, Hedera-like, CONGA-like and DRILL-like path choice; Hedera
//!   as a rerouting hook ([`routing::Reroute`]) the loop runs every period.
//! - [`settings`]: the `[flow]` table, checked.
//! - [`workload`]: the Facebook coflow trace (parse, place, scale), synthetic coflows, Poisson
//!   flows as single-flow coflows.
//! - [`alloc`]: dctc-num's weighted max-min water-filling and greedy priority kernels.
//! - [`state`]: flow and coflow inputs and the per-flow / per-coflow state arrays.
//! - [`engine`]: the event loop and per-flow / per-coflow records; `maxmin_inc`: the
//!   incremental max-min solver it runs for policies that opt in.
//! - [`policy`]: `maxmin`, `varys`, `varys-no-backfill`, `coflow-fifo`, `baraat`, `fastpass-f`, `fastpass-c`, `dba-ideal`, `dba`, `num` (any dctc-num utility).
//! - [`metrics`]: CCT statistics, CDFs, throughput.
//! - `objective`: the objective report's per-interval bytes
//!   ([`Simulator::record_objective`]; the math is `dctc_num::objective`).
//! - [`convergence`]: DBA's per-iteration rates against the optimum (Fig. 7).
//! - [`bench`](mod@bench): the speed benchmarks `dctc bench flow` runs.

#![forbid(unsafe_code)]

pub mod alloc;
pub mod bench;
mod completion;
pub mod convergence;
pub mod engine;
mod error;
pub mod heap;
mod maxmin_inc;
pub mod metrics;
pub mod net;
mod objective;
pub mod policy;
pub mod routing;
pub mod settings;
pub mod state;
pub mod workload;

pub use engine::{CoflowInput, FlowInput, SimConfig, Simulator};
pub use error::FlowError;
pub use metrics::RunResult;
pub use net::Net;
pub use policy::{make_policy, PolicyConfig, PolicyKeys, RatePolicy, POLICIES};
pub use routing::{RoutingMode, ROUTINGS};
