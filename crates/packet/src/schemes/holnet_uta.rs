//! `holnet-uta`: HOLNET-UTA (HOLNET §V), the CC-LB member with r = 1 and w = 1: the Reno-utility
//! controller of eq. (24)-(25) at the hosts, driven by the first-hop node's congestion report
//! (`holnet` switch queues mark a per-hop bit once a queue reaches 80% of its buffer; the
//! source leaf reports its own port and its next hop's, Table II), no fast
//! retransmit, go-back-N timeouts without a congestion response. Pair it with HOLNET's
//! percentage balancer at the leaves (`load_balancer = "holnet-percentage"`, whose r_min and
//! r_max are `[packet].percentage_lb`'s), as §V does.

use super::{Context, Parts, QueueName};
use dctc_core::config::KeyError;
use crate::transport::{Cc, HolnetUta};

/// Registered name.
pub const NAME: &str = "holnet-uta";
/// `dctc list` description.
pub const ABOUT: &str = "HOLNET-UTA: Reno-utility controller (eq. 24-25) on the first-hop node's 80%-queue congestion bit, no fast retransmit; pair with load_balancer = \"holnet-percentage\"";

crate::scheme_config! {
    /// Table II's r_min for the controller, in (0, 1) (default 0.1).
    r_min: Option<f64>,
    /// Whose congestion bits the controller hears: `first-hop` (default: the first-hop
    /// node's report per Table II, its own port and its next hop's), `first-hop-queue` (the
    /// first-hop node's own port only) or `every-hop` (every switch on the path).
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
    if let Some(r) = cfg.r_min {
        if !(r > 0.0 && r < 1.0) {
            return Err(ctx.error("r_min", format!("must lie in (0, 1), got {r}")));
        }
        c.r_min = r;
    }
    c.hop_mask = match cfg.feedback.as_deref() {
        None | Some("first-hop") => FIRST_HOP_REPORT,
        Some("first-hop-queue") => 1,
        Some("every-hop") => u32::MAX,
        Some(other) => {
            return Err(ctx.error(
                "feedback",
                format!(
                    "must be `first-hop`, `first-hop-queue` or `every-hop`, got `{other}`"
                ),
            ))
        }
    };
    Ok(Parts {
        cc: Cc::HolnetUta(c),
        queue: QueueName::Holnet,
        tcp: Default::default(),
    })
}
