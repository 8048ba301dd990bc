//! Why a flow-level run cannot be set up ([`FlowError`]). A leaf: every module may use it.

use dctc_core::error::KeyError;
use thiserror::Error;

/// Why a flow-level run cannot be set up.
#[derive(Debug, Error, PartialEq)]
pub enum FlowError {
    /// The fabric cannot be used.
    #[error("fabric: {0}")]
    Fabric(String),
    /// A configuration value is invalid (its path relative to the table being read).
    #[error("{0}")]
    Invalid(#[from] KeyError),
    /// A workload file or parameter is bad.
    #[error("{0}")]
    Workload(#[from] dctc_core::workload::WorkloadError),
}

impl FlowError {
    /// An `Invalid` error for `key`.
    pub fn invalid(key: impl Into<String>, reason: impl Into<String>) -> Self {
        FlowError::Invalid(KeyError::new(key, reason))
    }
}
