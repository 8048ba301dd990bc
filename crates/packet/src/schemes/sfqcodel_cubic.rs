//! `sfqcodel-cubic`: CUBIC (RFC 9438 with HyStart++, Linux's defaults, as the `cubic` scheme)
//! over sfqCoDel switch queues, the "Cubic over sfqCoDel" baseline of Flowtune (Perry et al.,
//! NSDI 2017, §6): stochastic fair queueing over `fq_buckets` hashed buckets (plain round
//! robin with a `fq_quantum_bytes` quantum, no new-flow priority) with CoDel (RFC 8289) per
//! bucket. Defaults as `fq-codel`: target 5 us, interval 100 us, 1024 buckets, 1500 B; see
//! the discipline's module (`crate::queue::codel`, `fq_codel`, `sfq_codel`) for the keys.

use super::{Context, Parts};
use crate::queue::Discipline;
use crate::queue::SfqCodelParams;

use dctc_core::error::KeyError;
use crate::transport::{Cc, Cubic};

/// Registered name.
pub const NAME: &str = "sfqcodel-cubic";
/// `dctc list` description.
pub const ABOUT: &str =
    "CUBIC (RFC 9438) over sfqCoDel (hashed round robin, CoDel per bucket; Flowtune's baseline)";

crate::scheme_config! {}

/// CUBIC over sfqCoDel.
pub fn parts(_cfg: &Config, _ctx: &Context) -> Result<Parts, KeyError> {
    Ok(Parts {
        nic_switch: false,
        cc: Cc::Cubic(Cubic::default()),
        queue: SfqCodelParams::NAME,
        tcp: Default::default(),
    })
}
