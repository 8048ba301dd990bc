//! `dctcp`: DCTCP (Alizadeh et al., SIGCOMM 2010): switches mark ECN-capable packets above K
//! bytes (`ecn_k_bytes`, default 65 packets with hosts at 10 Gb/s or more, else 20;
//! BASELINES.md), senders keep the marked fraction alpha with gain g (`dctcp_g`, default
//! 1/16) and cut `cwnd` by `alpha / 2` once per window.

use super::{Context, Parts};
use crate::keys::Range;
use crate::queue::Discipline;
use crate::queue::ecn::EcnParams;

use dctc_core::error::KeyError;
use crate::transport::{Cc, Dctcp};

/// Registered name.
pub const NAME: &str = "dctcp";
/// `dctc list` description.
pub const ABOUT: &str =
    "DCTCP: ECN marks above K at switches, per-window alpha (g = 1/16), cwnd x (1 - alpha/2)";

crate::scheme_config! {
    /// DCTCP's gain g (default 1/16), in (0, 1].
    dctcp_g: Option<f64>,
}

/// DCTCP's controller over the ECN-threshold queue.
pub fn parts(cfg: &Config, ctx: &Context) -> Result<Parts, KeyError> {
    let mut d = Dctcp::default();
    let g = ctx.at().number("dctcp_g", cfg.dctcp_g, Range::open_closed(0.0, 1.0))?;
    d.g = g.unwrap_or(d.g);
    Ok(Parts {
        nic_switch: false,
        cc: Cc::Dctcp(d),
        queue: EcnParams::NAME,
        tcp: Default::default(),
    })
}
