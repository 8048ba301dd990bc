//! `fq-codel`: FQ-CoDel switch queues (RFC 8290: flows hashed into `fq_buckets` buckets,
//! deficit round robin with a `fq_quantum_bytes` quantum, new-flows list served before
//! old-flows, CoDel per bucket, on overflow a batch head-drop from the fattest bucket as
//! Linux does) with TCP NewReno, the transport of the FQ-CoDel-in-the-datacenter paper
//! (`transport` replaces it). Datacenter defaults from that paper: target 5 us, interval
//! 100 us, 1024 buckets, a 1500 B quantum; see [`crate::schemes::queue_keys`] for the keys.

use super::{Context, Parts, QueueName};
use crate::config::ConfigError;
use crate::transport::{Cc, NewReno};

/// Registered name.
pub const NAME: &str = "fq-codel";
/// `dctc list` description.
pub const ABOUT: &str =
    "FQ-CoDel (RFC 8290; 1024 buckets, 1500 B quantum, target 5 us, interval 100 us) with NewReno";

crate::scheme_config! {}

/// NewReno over FQ-CoDel.
pub fn parts(_cfg: &Config, _ctx: &Context) -> Result<Parts, ConfigError> {
    Ok(Parts {
        cc: Cc::NewReno(NewReno::default()),
        queue: QueueName::FqCodel,
    })
}
