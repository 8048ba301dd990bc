//! Workloads: what flows arrive, when, between which hosts.
//!
//! - [`cdf`]: empirical flow-size distributions (built-in names and files).
//! - [`poisson`]: open-loop Poisson arrivals at a target load.
//! - [`list`]: explicit flow lists (long-lived flows with start/stop, CSV files).
//! - [`IncastSpec`]: the closed-loop incast pattern; engines drive its rounds.

pub mod cdf;
pub mod list;
pub mod poisson;

use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use cdf::Cdf;
pub use poisson::{PairMode, PoissonSpec};

/// Why a workload cannot be built.
#[derive(Debug, Error, PartialEq)]
pub enum WorkloadError {
    /// A parameter is out of range.
    #[error("{key}: {reason}")]
    Invalid {
        /// The parameter.
        key: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A line of a data file is malformed.
    #[error("{file}:{line}: {reason}")]
    BadLine {
        /// The file.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A file could not be read.
    #[error("{file}: {reason}")]
    File {
        /// The file.
        file: String,
        /// The I/O error.
        reason: String,
    },
}

impl WorkloadError {
    /// An `Invalid` error for `key`.
    pub fn invalid(key: impl Into<String>, reason: impl Into<String>) -> Self {
        WorkloadError::Invalid {
            key: key.into(),
            reason: reason.into(),
        }
    }
}

/// Incast (TFC §6.2.1): `senders` hosts each answer one receiver with a block of
/// `block_bytes`; the next request goes out only when every block of the round has arrived.
/// Repeated for `rounds` rounds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IncastSpec {
    /// Host index of the receiver.
    #[serde(default)]
    pub receiver: usize,
    /// Number of senders (the hosts after the receiver, in host order, wrapping around).
    pub senders: usize,
    /// Bytes each sender returns per round.
    pub block_bytes: u64,
    /// Number of rounds.
    pub rounds: usize,
}

impl IncastSpec {
    /// Checks the spec against a fabric with `n_hosts` hosts.
    pub fn validate(&self, n_hosts: usize) -> Result<(), WorkloadError> {
        if self.receiver >= n_hosts {
            return Err(WorkloadError::invalid(
                "receiver",
                format!(
                    "host index {} but the fabric has {n_hosts} hosts",
                    self.receiver
                ),
            ));
        }
        if self.senders == 0 || self.senders >= n_hosts {
            return Err(WorkloadError::invalid(
                "senders",
                format!(
                    "must be between 1 and {} (hosts other than the receiver), got {}",
                    n_hosts - 1,
                    self.senders
                ),
            ));
        }
        if self.block_bytes == 0 {
            return Err(WorkloadError::invalid("block_bytes", "must be positive"));
        }
        if self.rounds == 0 {
            return Err(WorkloadError::invalid("rounds", "must be at least 1"));
        }
        Ok(())
    }

    /// Host indices of the senders.
    pub fn sender_hosts(&self, n_hosts: usize) -> Vec<usize> {
        (1..=self.senders)
            .map(|i| (self.receiver + i) % n_hosts)
            .collect()
    }
}
