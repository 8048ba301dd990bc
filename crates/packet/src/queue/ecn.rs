//! ECN marking at an instantaneous threshold (DCTCP's switch): a FIFO that sets CE on an
//! ECN-capable arrival when the queue, counting the arrival, exceeds K bytes. Arrivals that do
//! not fit the buffer are dropped as in DropTail; non-ECT packets are never marked.
//!
//! Key: `ecn_k_bytes`, K in bytes (default 65 packets of 1500 B with hosts at 10 Gb/s or
//! more, else 20; BASELINES.md); `[packet].ecn_k_bytes` sets it for every scheme.

use super::fifo::{ArrivalFifo, ArrivalRule};
use super::{Context, Discipline, Offer};
use crate::engine::PacketPool;
use dctc_core::error::KeyError;
use dctc_core::units::Rate;

/// The marking rule: CE on ECT arrivals that bring the queue above K.
#[derive(Debug)]
pub struct Threshold {
    k_bytes: u64,
}

impl ArrivalRule for Threshold {
    #[inline]
    fn accept(&mut self, offer: &mut Offer, _pool: &mut PacketPool, queued: u64, _cap: u64) -> bool {
        // DCTCP: mark when the instantaneous queue exceeds K.
        let marked = offer.ecn.ect && queued > self.k_bytes;
        if marked {
            offer.ecn.ce = true;
        }
        marked
    }
}

/// DropTail plus CE marks above `k_bytes`.
pub type EcnThreshold = ArrivalFifo<Threshold>;

impl EcnThreshold {
    /// A queue of `capacity` bytes marking above `k_bytes`.
    pub fn new(capacity: u64, k_bytes: u64) -> Self {
        ArrivalFifo::with_rule(capacity, Threshold { k_bytes })
    }

    /// The marking threshold K in bytes.
    pub fn k_bytes(&self) -> u64 {
        self.rule().k_bytes
    }
}

crate::unit_keys! {
    /// The `ecn` queue's keys.
    pub struct Keys {
        /// Marking threshold K, bytes, positive (default: 65 packets of 1500 B with hosts at
        /// 10 Gb/s or more, else 20).
        ecn_k_bytes: u64,
    }
}

/// The ECN threshold's parameter.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EcnParams {
    /// Marking threshold K, bytes.
    pub k_bytes: u64,
}

/// DCTCP's default K: 65 packets of 1500 B with hosts at 10 Gb/s or more, 20 packets below
/// (BASELINES.md).
pub fn default_k(host_rate: Rate) -> u64 {
    if host_rate >= Rate::gbps(10) {
        65 * 1500
    } else {
        20 * 1500
    }
}

impl Discipline for EcnParams {
    const NAME: &'static str = "ecn";
    const ABOUT: &'static str = "FIFO that sets CE on ECN-capable arrivals above K bytes";
    type Keys = Keys;
    type Queue = EcnThreshold;
    fn resolve(keys: &Keys, ctx: &Context) -> Result<Self, KeyError> {
        let k = keys.ecn_k_bytes.unwrap_or_else(|| default_k(ctx.host_rate));
        if k == 0 {
            return Err(ctx.at.error("ecn_k_bytes", "must be positive"));
        }
        Ok(EcnParams { k_bytes: k })
    }
    fn build(&self, buffer_bytes: u64, _seed: u64, _rate: Rate) -> EcnThreshold {
        EcnThreshold::new(buffer_bytes, self.k_bytes)
    }
}
