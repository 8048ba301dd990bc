//! `codel`: TCP NewReno over CoDel switch queues (RFC 8289: drop at dequeue once the sojourn
//! time has stayed above TARGET for INTERVAL, then at intervals of INTERVAL / sqrt(count)).
//! Datacenter defaults of the FQ-CoDel-in-the-datacenter paper: `codel_target_us` 5,
//! `codel_interval_us` 100 (RFC 8289's 5 ms / 100 ms divided by 1000); see
//! the discipline's module (`crate::queue::codel`, `fq_codel`, `sfq_codel`) for the keys.

use super::{Context, Parts};
use crate::queue::Discipline;
use crate::queue::CodelParams;

use dctc_core::error::KeyError;
use crate::transport::{Cc, NewReno};

/// Registered name.
pub const NAME: &str = "codel";
/// `dctc list` description.
pub const ABOUT: &str =
    "TCP NewReno over CoDel (RFC 8289; target 5 us, interval 100 us, drops at dequeue)";

crate::scheme_config! {}

/// NewReno over CoDel.
pub fn parts(_cfg: &Config, _ctx: &Context) -> Result<Parts, KeyError> {
    Ok(Parts {
        nic_switch: false,
        cc: Cc::NewReno(NewReno::default()),
        queue: CodelParams::NAME,
        tcp: Default::default(),
    })
}
