//! dctc-num: network utility maximization.
//!
//! - [`csr`]: flow -> link incidence in compressed rows, the layout every solver iterates over.
//! - [`maxmin`]: exact (weighted) max-min fair rates by water-filling.

pub mod csr;
pub mod maxmin;

pub use csr::Csr;
