//! dctc-num: network utility maximization (NUM), the allocation engine behind Flowtune's
//! allocator, DBA's rate allocation and HOLNET's objective.
//!
//! - [`csr`]: flow -> link incidence in compressed rows, the layout every solver iterates over.
//! - [`waterfill`]: the water-filling kernel (weighted max-min with caps and fractional link
//!   shares, scratch reused between calls) and greedy strict priority; the flow engine's
//!   policies and [`maxmin`] run on it.
//! - [`maxmin`]: exact (weighted) max-min fair rates: plain, with minimum rates, multipath.
//! - [`utility`]: log, alpha-fair, DBA, TCP-Reno utilities and HOLNET's center-of-utility
//!   weights, each with `U'`, `(U')^-1` and its derivative in closed form.
//! - [`problem`]: links, (multipath) flows, weights and min/max rates in structure-of-arrays
//!   form, editable online, with typed validation errors.
//! - [`dba`]: DBA's eq. (10)-(14) (weights, deviations, price update with explicit units and
//!   momentum), shared by the `dba` solver and dctc-flow's `dba` policy.
//! - [`solver`]: NED, Gradient, FGM, Newton-like and DBA behind one iteration interface; the
//!   module docs list the safeguards the papers leave open (rate caps at line rate, `H_ll` for
//!   clamped flows, links with no flows, multipath splits).
//! - [`kkt`]: relative KKT residuals (primal, complementary slackness, stationarity) of a
//!   candidate solution, behind every `converged` / `solved` status.
//! - [`reference`](mod@reference): an independent interior-point solver giving reference optima.
//! - [`normalize`]: U-NORM, F-NORM and the update threshold.
//! - [`objective`]: one objective for every scheme: a run's per-interval rates against the NUM
//!   optimum for the same flows (efficiency, utility gap, Flowtune's fairness score).
//! - [`spec`]: the JSON problem format of `dctc num solve` (see the crate README).
//! - [`churn`]: Flowtune §6.6, an allocator under flowlet churn (over-allocation, F-NORM and
//!   U-NORM throughput against the optimum).
//! - [`convergence`]: iterations to within 1% of the optimum, cold and after an arrival.
//!
//! The benchmarked allocator (Flowtune's §6.1 iteration on SIMD layouts and threads) is the
//! crate dctc-num-fast, which alone needs `unsafe`; its tests check it against [`solver`]'s
//! NED + F-NORM.

#![forbid(unsafe_code)]
// Index loops over several parallel arrays read better than zipped iterators here.
#![allow(clippy::needless_range_loop)]

pub mod churn;
pub mod convergence;
pub mod csr;
pub mod dba;
pub mod kkt;
mod lp;
pub mod maxmin;
pub mod normalize;
pub mod objective;
pub mod problem;
pub mod reference;
pub mod settings;
pub mod solver;
pub mod spec;
pub mod utility;
pub mod waterfill;

pub use csr::Csr;
pub use problem::{FlowKey, NumFlow, Problem, ProblemError};
pub use utility::Utility;
