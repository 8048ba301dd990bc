//! `xcp`: XCP (Katabi, Handley, Rohrs, SIGCOMM 2002): senders that move their window only by
//! explicit feedback (`transport::xcp`) over routers that compute it per packet
//! (`queue::xcp`) on every port, host NICs included. Keys: `xcp_alpha` (default 0.4) and
//! `xcp_beta` (default 0.226), the efficiency controller's gains, checked against XCP §4's
//! stability bound; each sender asks for its NIC's line rate. Receivers acknowledge every
//! segment (`delayed_ack_us = 0` below `[packet].tcp`): XCP's feedback is per packet and a
//! delayed ACK would echo only the latest data packet's header, losing the others' feedback.
//! Windows send whole packets: where a flow's fair window is near one packet (8 flows on a
//! path of 8.3 packets), windows in [1, 2) packets all send one a round and the spare
//! capacity goes to one flow at a time by turns, so shares are even only over many rounds
//! (the conformance suite's `fair` case at 10 Gb/s, 10 us RTT, 8 flows: Jain 0.986 over 500
//! rounds, 0.998 over 2000).

use super::{Context, Parts};
use crate::queue::Discipline;

use crate::config::TcpKnobs;
use dctc_core::error::KeyError;
use crate::queue::XcpParams;
use crate::transport::{Cc, Xcp};

/// Registered name.
pub const NAME: &str = "xcp";
/// `dctc list` description.
pub const ABOUT: &str =
    "XCP (SIGCOMM 2002): routers' explicit per-packet window feedback (alpha 0.4, beta 0.226, 10% shuffling)";

crate::scheme_config! {}

/// XCP senders over XCP routers (whose keys, `xcp_alpha` and `xcp_beta`, are the `xcp`
/// queue's: `queue::xcp`).
pub fn parts(_cfg: &Config, ctx: &Context) -> Result<Parts, KeyError> {
    let desired_rate = ctx.topo.hosts().first().and_then(|&h| ctx.topo.host_rate(h));
    Ok(Parts {
        nic_switch: false,
        cc: Cc::Xcp(Xcp::new(desired_rate)),
        queue: XcpParams::NAME,
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
