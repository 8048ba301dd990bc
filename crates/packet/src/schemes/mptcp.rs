//! `mptcp`: MPTCP with RFC 6356's linked increases (LIA) over DropTail: each flow listed in
//! `subflows` runs one coupled subflow per pinned path; other flows are NewReno.

use super::{Context, Parts};
use crate::queue::Discipline;
use crate::queue::droptail::DropTailParams;

use dctc_core::error::KeyError;
use crate::transport::{Cc, Mptcp};

/// Registered name.
pub const NAME: &str = "mptcp";
/// `dctc list` description.
pub const ABOUT: &str =
    "MPTCP (RFC 6356 LIA coupled increase, NewReno recovery) on source-pinned subflows (`subflows`), DropTail";

crate::scheme_config! {}

/// LIA over DropTail.
pub fn parts(_cfg: &Config, _ctx: &Context) -> Result<Parts, KeyError> {
    Ok(Parts {
        nic_switch: false,
        cc: Cc::Mptcp(Mptcp::default()),
        queue: DropTailParams::NAME,
        tcp: Default::default(),
    })
}
