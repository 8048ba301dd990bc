//! `holnet-uta`: HOLNET-UTA (HOLNET §V), the CC-LB member with r = 1 and w = 1: the Reno-utility
//! controller of eq. (24)-(25) at the hosts, driven by the first-hop node's congestion report
//! (a port is congested once its queue reaches 80% of its buffer; the source leaf reports its
//! own port and its next hop's, Table II), no fast retransmit, go-back-N timeouts without a
//! congestion response. By default the source leaf signals the source directly, one
//! host-link delay after it forwards a data packet (eq. 12's single-hop signaling, see
//! [`crate::signal`]), over plain FIFO switch ports; the echo variants carry per-hop bits set
//! by `holnet` queues to the receiver and back in the ACK. Pair it with HOLNET's
//! percentage balancer at the leaves (`load_balancer = "holnet-percentage"`, whose r_min and
//! r_max are `[packet].percentage_lb`'s), as §V does.

use super::{Context, Parts};
use crate::keys::Range;
use crate::queue::Discipline;
use crate::queue::droptail::DropTailParams;
use crate::queue::holnet::HolnetParams;

use dctc_core::error::KeyError;
use crate::transport::{Cc, HolnetUta, UtaFeedback};

/// Registered name.
pub const NAME: &str = "holnet-uta";
/// `dctc list` description.
pub const ABOUT: &str = "HOLNET-UTA: Reno-utility controller (eq. 24-25) on the first-hop node's 80%-queue congestion signal (single hop), no fast retransmit; pair with load_balancer = \"holnet-percentage\"";

crate::scheme_config! {
    /// Table II's r_min for the controller, in (0, 1) (default 0.1).
    r_min: Option<f64>,
    /// What the controller hears and how: `first-hop` (default: the first-hop node's
    /// report per Table II, its own port and its next hop's, signaled directly to the
    /// source), `first-hop-queue` (the first-hop node's own port only, signaled),
    /// `first-hop-chain` (the `first-hop` report with Table II applied at every node on
    /// the way: the next hop is congested when any port from it to the destination is,
    /// signaled), `first-hop-echo` (the `first-hop` report as bits echoed in ACKs, one RTT
    /// later) or `every-hop` (every switch's bit on the path, echoed).
    feedback: Option<String>,
}

/// The hops whose bits make up the first-hop node's report (Table II): the first-hop node's
/// own output port (bit 0) and its next hop's port on the path (bit 1). The source leaf's
/// percentage balancer reads the same two ("a leaf node checks if any outgoing port or its
/// next hop is congested", §V).
pub const FIRST_HOP_REPORT: u32 = 0b11;

/// HOLNET-UTA's controller over `holnet` marking queues.
pub fn parts(cfg: &Config, ctx: &Context) -> Result<Parts, KeyError> {
    let mut c = HolnetUta::default();
    c.r_min = (ctx.at().number("r_min", cfg.r_min, Range::open(0.0, 1.0))?).unwrap_or(c.r_min);
    (c.hop_mask, c.via) = match cfg.feedback.as_deref() {
        None | Some("first-hop") => (FIRST_HOP_REPORT, UtaFeedback::Signal),
        Some("first-hop-queue") => (1, UtaFeedback::Signal),
        Some("first-hop-chain") => {
            c.downstream = true;
            (FIRST_HOP_REPORT, UtaFeedback::Signal)
        }
        Some("first-hop-echo") => (FIRST_HOP_REPORT, UtaFeedback::Echo),
        Some("every-hop") => (u32::MAX, UtaFeedback::Echo),
        Some(other) => {
            return Err(ctx.error(
                "feedback",
                format!(
                    "must be `first-hop`, `first-hop-queue`, `first-hop-chain`, `first-hop-echo` or `every-hop`, got `{other}`"
                ),
            ))
        }
    };
    // The signaling switch judges its ports itself; echoed bits need the marking queue.
    let queue = match c.via {
        UtaFeedback::Signal => DropTailParams::NAME,
        UtaFeedback::Echo => HolnetParams::NAME,
    };
    Ok(Parts {
        nic_switch: false,
        cc: Cc::HolnetUta(c),
        queue,
        tcp: Default::default(),
    })
}
