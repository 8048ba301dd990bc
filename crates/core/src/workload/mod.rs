//! Workloads: what flows arrive, when, between which hosts.
//!
//! - [`cdf`]: empirical flow-size distributions (built-in names and files).
//! - [`poisson`]: open-loop Poisson arrivals at a target load.
//! - [`list`]: explicit flow lists (long-lived flows with start/stop, CSV files).
//! - [`coflow`]: coflow traces and synthetic coflows (the flow engine builds them).
//! - [`IncastSpec`]: the closed-loop incast pattern; engines drive its rounds; [`IncastSweep`]
//!   repeats it for several sender counts.

pub mod cdf;
pub mod coflow;
pub mod list;
pub mod poisson;

use crate::error::KeyError;
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use cdf::Cdf;
pub use poisson::{PairMode, PoissonSpec};

/// Most flows one workload may generate: 5,000,000. Each flow costs the engines a few hundred
/// bytes of state and record (so about 2 GB at the cap) and the papers' runs use at most a
/// few hundred thousand.
pub const MAX_FLOWS: u64 = 5_000_000;

/// Largest flow a workload may carry: 10^15 bytes (1 PB). The largest flows of the papers'
/// workloads are about a gigabyte (VL2 data mining) and the largest coflow of the Facebook
/// trace shuffles about 10^11 bytes; a petabyte takes a day at 100 Gb/s, so anything larger
/// is a unit slip (a size in bytes written as megabytes), and sizes must stay far inside the
/// `u64` byte counts and the `f64` arithmetic of the engines.
pub const MAX_FLOW_BYTES: u64 = 1_000_000_000_000_000;

/// Why a workload cannot be built.
#[derive(Debug, Error, PartialEq)]
pub enum WorkloadError {
    /// A parameter is out of range; the path is relative to the workload's table.
    #[error("{0}")]
    Invalid(#[from] KeyError),
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
        WorkloadError::Invalid(KeyError::new(key, reason))
    }
}

/// Incast (TFC §6.2.1): `senders` hosts each answer one receiver with a block of
/// `block_bytes`; the next request goes out only when every block of the round has arrived.
/// Repeated for `rounds` rounds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
        if self.block_bytes > MAX_FLOW_BYTES {
            return Err(WorkloadError::invalid(
                "block_bytes",
                format!(
                    "{} bytes is more than the {} a flow may carry",
                    self.block_bytes,
                    crate::units::human_bytes(MAX_FLOW_BYTES)
                ),
            ));
        }
        if self.rounds == 0 {
            return Err(WorkloadError::invalid("rounds", "must be at least 1"));
        }
        if (self.rounds as u64).saturating_mul(self.senders as u64) > MAX_FLOWS {
            return Err(WorkloadError::invalid(
                "rounds",
                format!(
                    "{} rounds of {} senders are more than {MAX_FLOWS} flows",
                    self.rounds, self.senders
                ),
            ));
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

/// Incast repeated for several sender counts, each in its own run (TFC Fig. 12a).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IncastSweep {
    /// Host index of the receiver.
    #[serde(default)]
    pub receiver: usize,
    /// Sender counts, one run each.
    pub senders: Vec<usize>,
    /// Bytes each sender returns per round.
    pub block_bytes: u64,
    /// Rounds per run.
    pub rounds: usize,
}

impl IncastSweep {
    /// The incast of one sweep point.
    pub fn point(&self, senders: usize) -> IncastSpec {
        IncastSpec {
            receiver: self.receiver,
            senders,
            block_bytes: self.block_bytes,
            rounds: self.rounds,
        }
    }

    /// Checks every point against a fabric of `n_hosts` hosts; paths are relative to the
    /// workload's table.
    pub fn validate(&self, n_hosts: usize) -> Result<(), KeyError> {
        if self.senders.is_empty() {
            return Err(KeyError::new("senders", "list at least one sender count"));
        }
        for &n in &self.senders {
            self.point(n)
                .validate(n_hosts)
                .map_err(|e| KeyError::new("senders", e.to_string()))?;
        }
        Ok(())
    }
}
