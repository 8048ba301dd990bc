//! `newreno`: TCP NewReno (RFC 5681 / 6582, RFC 6298 RTO) over DropTail switch queues. No
//! keys beyond the shared ones.

use super::{Context, Parts};
use crate::queue::Discipline;
use crate::queue::droptail::DropTailParams;

use dctc_core::error::KeyError;
use crate::transport::{Cc, NewReno};

/// Registered name.
pub const NAME: &str = "newreno";
/// `dctc list` description.
pub const ABOUT: &str = "TCP NewReno (RFC 5681/6582, RFC 6298 RTO) over DropTail switch queues";

crate::scheme_config! {}

/// NewReno's controller over DropTail.
pub fn parts(_cfg: &Config, _ctx: &Context) -> Result<Parts, KeyError> {
    Ok(Parts {
        nic_switch: false,
        cc: Cc::NewReno(NewReno::default()),
        queue: DropTailParams::NAME,
        tcp: Default::default(),
    })
}
