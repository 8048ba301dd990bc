//! `holnet-mcc`: HOLNET's multipath controller MCC (HOLNET §IV-B, eq. (20)) over DropTail:
//! each flow listed in `subflows` runs one coupled subflow per pinned path; other flows run
//! it on one path, where it is TCP's AIMD. Keys: `gamma` (default 1/2) and `eps` (segments,
//! default 2), the values that make one path AIMD.

use super::{Context, Parts};
use crate::keys::Range;
use crate::queue::Discipline;
use crate::queue::droptail::DropTailParams;

use dctc_core::error::KeyError;
use crate::transport::{Cc, HolnetMcc};

/// Registered name.
pub const NAME: &str = "holnet-mcc";
/// `dctc list` description.
pub const ABOUT: &str =
    "HOLNET MCC (eq. 20): coupled subflows on source-pinned paths (`subflows`), AIMD on one path, DropTail";

crate::scheme_config! {
    /// gamma of z = gamma x_l (default 0.5).
    gamma: Option<f64>,
    /// eps of the base utility eps log x, segments (default 2).
    eps: Option<f64>,
}

/// MCC over DropTail.
pub fn parts(cfg: &Config, ctx: &Context) -> Result<Parts, KeyError> {
    let mut m = HolnetMcc::default();
    for (key, v, slot) in [("gamma", cfg.gamma, &mut m.gamma), ("eps", cfg.eps, &mut m.eps)] {
        *slot = ctx.at().number(key, v, Range::POSITIVE)?.unwrap_or(*slot);
    }
    Ok(Parts {
        nic_switch: false,
        cc: Cc::HolnetMcc(m),
        queue: DropTailParams::NAME,
        tcp: Default::default(),
    })
}
