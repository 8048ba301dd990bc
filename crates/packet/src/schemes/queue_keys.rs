//! The CoDel-family queue keys every scheme table accepts, and their validation.
//!
//! | key | queues | default | meaning |
//! |---|---|---|---|
//! | `codel_target_us` | codel, fq-codel, sfqcodel | 5 | CoDel TARGET (RFC 8289 §4.3), us |
//! | `codel_interval_us` | codel, fq-codel, sfqcodel | 100 | CoDel INTERVAL (RFC 8289 §4.2), us |
//! | `codel_ecn` | codel, fq-codel, sfqcodel | false | CE-mark instead of drop (RFC 8289 §5.6) |
//! | `fq_buckets` | fq-codel, sfqcodel | 1024 | hash buckets (RFC 8290 §5.1) |
//! | `fq_quantum_bytes` | fq-codel, sfqcodel | 1500 | DRR quantum (RFC 8290 §5.3) |
//! | `fq_drop_batch` | fq-codel | 64 | overflow drop batch (Linux `drop_batch`) |
//!
//! The defaults are the datacenter setting of the FQ-CoDel-in-the-datacenter paper (the
//! Internet's 5 ms / 100 ms divided by 1000). A key given for a queue that does not use it is
//! an error. The buffer (byte limit) of each discipline is the port's buffer from the fabric.

use super::{Context, QueueName, QueueSpec};
use crate::queue::{CodelParams, FqCodelParams, QueueParamError, SfqCodelParams};
use dctc_core::config::KeyError;
use dctc_core::units::checked::{self, SpanRule};
use dctc_core::units::Delta;

/// The CoDel-family keys as given (unvalidated).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueKeys {
    /// `codel_target_us`.
    pub codel_target_us: Option<f64>,
    /// `codel_interval_us`.
    pub codel_interval_us: Option<f64>,
    /// `codel_ecn`.
    pub codel_ecn: Option<bool>,
    /// `fq_buckets`.
    pub fq_buckets: Option<i64>,
    /// `fq_quantum_bytes`.
    pub fq_quantum_bytes: Option<i64>,
    /// `fq_drop_batch`.
    pub fq_drop_batch: Option<i64>,
}

impl QueueKeys {
    /// The keys given, by name.
    fn given(&self) -> impl Iterator<Item = &'static str> + '_ {
        [
            ("codel_target_us", self.codel_target_us.is_some()),
            ("codel_interval_us", self.codel_interval_us.is_some()),
            ("codel_ecn", self.codel_ecn.is_some()),
            ("fq_buckets", self.fq_buckets.is_some()),
            ("fq_quantum_bytes", self.fq_quantum_bytes.is_some()),
            ("fq_drop_batch", self.fq_drop_batch.is_some()),
        ]
        .into_iter()
        .filter(|k| k.1)
        .map(|k| k.0)
    }
}

/// The name of `q` in [`super::QUEUES`].
pub fn queue_name(q: QueueName) -> &'static str {
    match q {
        QueueName::DropTail => "droptail",
        QueueName::Ecn => "ecn",
        QueueName::Codel => "codel",
        QueueName::FqCodel => "fq-codel",
        QueueName::SfqCodel => "sfqcodel",
        QueueName::PFabric => "pfabric",
        QueueName::Tfc(_) => "tfc",
        QueueName::Xcp(_) => "xcp",
        QueueName::Holnet => "holnet",
    }
}

/// Which keys queue `q` uses.
fn uses(q: QueueName, key: &str) -> bool {
    let codel = key.starts_with("codel_");
    match q {
        QueueName::Codel => codel,
        QueueName::FqCodel => codel || key.starts_with("fq_"),
        QueueName::SfqCodel => codel || (key.starts_with("fq_") && key != "fq_drop_batch"),
        QueueName::DropTail
        | QueueName::Ecn
        | QueueName::PFabric
        | QueueName::Tfc(_)
        | QueueName::Xcp(_)
        | QueueName::Holnet => false,
    }
}

/// Refuses any key queue `q` does not use.
pub fn refuse_all(q: QueueName, keys: &QueueKeys, ctx: &Context) -> Result<(), KeyError> {
    match keys.given().find(|k| !uses(q, k)) {
        None => Ok(()),
        Some(k) => Err(ctx.error(
            k,
            format!(
                "the switch queue is `{}`, which does not use {k}",
                queue_name(q)
            ),
        )),
    }
}

/// A queue discipline's parameter name as its scenario key.
fn key_of(param: &str) -> &'static str {
    match param {
        "target" => "codel_target_us",
        "interval" => "codel_interval_us",
        "buckets" => "fq_buckets",
        "quantum" => "fq_quantum_bytes",
        "drop_batch" => "fq_drop_batch",
        _ => "queue",
    }
}

fn param_error(e: QueueParamError, ctx: &Context, buffer: u64) -> KeyError {
    let key = key_of(e.param);
    if key == "queue" {
        // The byte limits come from the fabric's switch buffers.
        ctx.error(
            key,
            format!("switch buffers of {buffer} B: {} ({})", e.reason, e.param),
        )
    } else {
        ctx.error(key, e.reason)
    }
}

fn micros(ctx: &Context, key: &str, v: Option<f64>) -> Result<Option<Delta>, KeyError> {
    v.map(|x| {
        checked::span_us(key, x, SpanRule::positive(Delta::MAX_SCENARIO))
            .map_err(|e| ctx.error(key, e.reason))
    })
    .transpose()
}

fn count(ctx: &Context, key: &str, v: Option<i64>) -> Result<Option<u32>, KeyError> {
    match v {
        None => Ok(None),
        Some(x) if x >= 1 && x <= u32::MAX as i64 => Ok(Some(x as u32)),
        Some(x) => Err(ctx.error(key, format!("must be at least 1, got {x}"))),
    }
}

/// The discipline `q` (one of the CoDel family or pFabric) with its keys applied, checked
/// against the smallest switch buffer `buffer`.
pub fn resolve(
    q: QueueName,
    keys: &QueueKeys,
    buffer: u64,
    ctx: &Context,
) -> Result<QueueSpec, KeyError> {
    refuse_all(q, keys, ctx)?;
    let mut codel = CodelParams::default();
    if let Some(t) = micros(ctx, "codel_target_us", keys.codel_target_us)? {
        codel.target = t;
    }
    if let Some(i) = micros(ctx, "codel_interval_us", keys.codel_interval_us)? {
        codel.interval = i;
    }
    if let Some(e) = keys.codel_ecn {
        codel.ecn = e;
    }
    let buckets = count(ctx, "fq_buckets", keys.fq_buckets)?;
    let quantum = count(ctx, "fq_quantum_bytes", keys.fq_quantum_bytes)?;
    let batch = count(ctx, "fq_drop_batch", keys.fq_drop_batch)?;
    let err = |e| param_error(e, ctx, buffer);
    let spec = match q {
        QueueName::Codel => {
            codel.validate().map_err(err)?;
            crate::queue::codel::check_buffer("buffer_bytes", buffer).map_err(err)?;
            QueueSpec::Codel(codel)
        }
        QueueName::FqCodel => {
            let d = FqCodelParams::default();
            let p = FqCodelParams {
                buckets: buckets.unwrap_or(d.buckets),
                quantum: quantum.unwrap_or(d.quantum),
                drop_batch: batch.unwrap_or(d.drop_batch),
                limit_bytes: buffer,
                codel,
                ..d
            };
            p.validate().map_err(err)?;
            QueueSpec::FqCodel(p)
        }
        QueueName::SfqCodel => {
            let d = SfqCodelParams::default();
            let p = SfqCodelParams {
                buckets: buckets.unwrap_or(d.buckets),
                quantum: quantum.unwrap_or(d.quantum),
                limit_bytes: buffer,
                codel,
                ..d
            };
            p.validate().map_err(err)?;
            QueueSpec::SfqCodel(p)
        }
        QueueName::PFabric => {
            crate::queue::codel::check_buffer("buffer_bytes", buffer).map_err(err)?;
            QueueSpec::PFabric
        }
        QueueName::DropTail
        | QueueName::Ecn
        | QueueName::Tfc(_)
        | QueueName::Xcp(_)
        | QueueName::Holnet => {
            unreachable!("resolved by the caller")
        }
    };
    Ok(spec)
}
