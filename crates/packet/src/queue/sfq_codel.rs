//! sfqCoDel: stochastic fair queueing with CoDel on each bucket, the switch queue of the
//! "Cubic over sfqCoDel" baseline in Flowtune's comparison.
//!
//! How it differs from [FQ-CoDel](super::fq_codel) (same hashing, same DRR quantum, same
//! per-bucket CoDel):
//! - **No new-flow priority.** There is one round-robin list: a bucket that becomes active
//!   joins its tail with one quantum of credit and waits a full round behind the backlogged
//!   buckets. FQ-CoDel instead puts it on a new-flows list served before every old bucket,
//!   which is what lets a sparse flow's packets skip the queue there.
//! - **An empty bucket leaves the round at once** (there is no new-to-old move to make).
//! - **Overflow drops one packet per excess**, from the head of the bucket holding the most
//!   bytes; there is no drop batch.

use super::codel::{check_switch_buffer, CodelKeys, CodelParams};
use super::fq_codel::{bucket_keys, check_flow_params, FlowQueueStats, FlowQueues};
use super::{Context, Discipline, Enqueued, QueueDisc, QueueParamError};
use crate::engine::{PacketId, PacketPool};
use dctc_core::error::KeyError;
use dctc_core::units::{Rate, SimTime};

/// sfqCoDel's parameters. The buffer overflows when either limit would be exceeded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SfqCodelParams {
    /// Hash buckets (default 1024, as FQ-CoDel, so the two compare like for like).
    pub buckets: u32,
    /// Bytes a bucket may send per round (default one 1500 B MTU).
    pub quantum: u32,
    /// Buffer limit in bytes, shared by all buckets.
    pub limit_bytes: u64,
    /// Buffer limit in packets.
    pub limit_packets: u32,
    /// CoDel on each bucket.
    pub codel: CodelParams,
}

impl Default for SfqCodelParams {
    /// The [`FqCodelParams`](super::fq_codel::FqCodelParams) defaults, without the batch.
    fn default() -> Self {
        let fq = super::fq_codel::FqCodelParams::default();
        SfqCodelParams {
            buckets: fq.buckets,
            quantum: fq.quantum,
            limit_bytes: fq.limit_bytes,
            limit_packets: fq.limit_packets,
            codel: fq.codel,
        }
    }
}

impl SfqCodelParams {
    /// Checks every field (the error names the first bad one).
    pub fn validate(&self) -> Result<(), QueueParamError> {
        check_flow_params(
            self.buckets,
            self.quantum,
            self.limit_bytes,
            self.limit_packets,
            &self.codel,
        )
    }
}

/// sfqCoDel on one output port.
#[derive(Debug)]
#[repr(C)]
pub struct SfqCodel {
    q: FlowQueues,
    params: SfqCodelParams,
}

impl SfqCodel {
    /// sfqCoDel with `params`, hashing with a key derived from `seed`.
    pub fn new(params: SfqCodelParams, seed: u64) -> Result<Self, QueueParamError> {
        params.validate()?;
        Ok(SfqCodel {
            q: FlowQueues::new(
                params.buckets,
                params.quantum,
                params.limit_bytes,
                params.limit_packets,
                1,
                params.codel,
                seed,
                false,
            ),
            params,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &SfqCodelParams {
        &self.params
    }
}

super::fq_codel::flow_queues_disc!(SfqCodel);

crate::unit_keys! {
    /// The bucket keys of `sfqcodel` (as `fq-codel`'s, without a drop batch).
    pub struct SfqKeys {
        /// Hash buckets, 1..=65536 (default 1024).
        fq_buckets: i64,
        /// Round-robin quantum, bytes, positive (default 1500).
        fq_quantum_bytes: i64,
    }
}

impl Discipline for SfqCodelParams {
    const NAME: &'static str = "sfqcodel";
    const ABOUT: &'static str = "stochastic fair queueing (round robin, no new-flow priority) with CoDel per bucket";
    type Keys = (CodelKeys, SfqKeys);
    type Queue = Box<SfqCodel>;
    fn resolve((codel, sfq): &(CodelKeys, SfqKeys), ctx: &Context) -> Result<Self, KeyError> {
        let codel = codel.params(ctx)?;
        let (buckets, quantum) = bucket_keys(ctx, sfq.fq_buckets, sfq.fq_quantum_bytes)?;
        check_switch_buffer(ctx)?;
        let d = SfqCodelParams::default();
        Ok(SfqCodelParams {
            buckets: buckets.unwrap_or(d.buckets),
            quantum: quantum.unwrap_or(d.quantum),
            limit_bytes: ctx.buffer_bytes,
            codel,
            ..d
        })
    }
    /// `limit_bytes` becomes the port's buffer.
    fn build(&self, buffer_bytes: u64, seed: u64, _rate: Rate) -> Box<SfqCodel> {
        let p = SfqCodelParams {
            limit_bytes: buffer_bytes,
            ..*self
        };
        Box::new(SfqCodel::new(p, seed).expect("checked when the scheme was resolved"))
    }
}

#[cfg(test)]
mod tests;
