//! `fq-codel`: FQ-CoDel switch queues (RFC 8290: flows hashed into `fq_buckets` buckets,
//! deficit round robin with a `fq_quantum_bytes` quantum, new-flows list served before
//! old-flows, CoDel per bucket, on overflow a batch head-drop from the fattest bucket as
//! Linux does) with TCP NewReno, the transport of the FQ-CoDel-in-the-datacenter paper
//! (`transport` replaces it). Datacenter defaults from that paper: target 5 us, interval
//! 100 us, 1024 buckets, a 1500 B quantum; see the discipline's module (`crate::queue::codel`, `fq_codel`, `sfq_codel`) for the keys.
//! Its TCP defaults to the pFabric tuning table the paper uses (its Table 2: the
//! `pfabric-tuned` preset, minRTO 45 us, initial cwnd 12, delayed ACK 6 us, max cwnd =
//! queue - 1), named as this scheme's default so it holds even if the engine's default preset
//! changes; `[packet].tcp` or the table's `tcp` keys still override it.

use super::{Context, Parts};
use crate::queue::Discipline;
use crate::queue::FqCodelParams;

use crate::config::TcpKnobs;
use dctc_core::error::KeyError;
use crate::transport::{Cc, NewReno};

/// Registered name.
pub const NAME: &str = "fq-codel";
/// `dctc list` description.
pub const ABOUT: &str =
    "FQ-CoDel (RFC 8290; 1024 buckets, 1500 B quantum, target 5 us, interval 100 us) with NewReno";

crate::scheme_config! {}

/// NewReno tuned as pFabric's TCP over FQ-CoDel.
pub fn parts(_cfg: &Config, _ctx: &Context) -> Result<Parts, KeyError> {
    Ok(Parts {
        nic_switch: false,
        cc: Cc::NewReno(NewReno::default()),
        queue: FqCodelParams::NAME,
        tcp: TcpKnobs {
            preset: Some("pfabric-tuned".into()),
            ..TcpKnobs::default()
        },
    })
}
