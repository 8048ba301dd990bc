//! `xcp`: XCP (Katabi, Handley, Rohrs, SIGCOMM 2002): senders that move their window only by
//! explicit feedback (`transport::xcp`) over routers that compute it per packet
//! (`queue::xcp`) on every port, host NICs included. Keys: `xcp_alpha` (default 0.4) and
//! `xcp_beta` (default 0.226), the efficiency controller's gains, checked against XCP §4's
//! stability bound; each sender asks for its NIC's line rate. Receivers acknowledge every
//! segment (`delayed_ack_us = 0` below `[packet].tcp`): XCP's feedback is per packet and a
//! delayed ACK would echo only the latest data packet's header, losing the others' feedback.

use super::{Context, Parts, QueueName};
use crate::config::TcpKnobs;
use dctc_core::config::KeyError;
use crate::queue::XcpParams;
use crate::transport::{Cc, Xcp};

/// Registered name.
pub const NAME: &str = "xcp";
/// `dctc list` description.
pub const ABOUT: &str =
    "XCP (SIGCOMM 2002): routers' explicit per-packet window feedback (alpha 0.4, beta 0.226, 10% shuffling)";

crate::scheme_config! {
    /// α of the efficiency controller, in (0, π / (4√2)) (default 0.4).
    xcp_alpha: Option<f64>,
    /// β of the efficiency controller, in (0, 1) (default 0.226).
    xcp_beta: Option<f64>,
}

/// XCP senders over XCP routers.
pub fn parts(cfg: &Config, ctx: &Context) -> Result<Parts, KeyError> {
    let mut p = XcpParams::default();
    if let Some(a) = cfg.xcp_alpha {
        p.alpha = a;
    }
    if let Some(b) = cfg.xcp_beta {
        p.beta = b;
    }
    p.validate()
        .map_err(|(field, reason)| ctx.error(&format!("xcp_{field}"), reason))?;
    let desired_rate = ctx.topo.hosts().first().and_then(|&h| ctx.topo.host_rate(h));
    Ok(Parts {
        cc: Cc::Xcp(Xcp::new(desired_rate)),
        queue: QueueName::Xcp(p),
        // Every data packet's feedback must come back on its own ACK (XCP §3.1).
        tcp: TcpKnobs {
            delayed_ack_us: Some(0.0),
            ..TcpKnobs::default()
        },
    })
}

#[cfg(test)]
#[path = "xcp_tests.rs"]
mod tests;
