//! `fastpass-f`: flow-level minimum-remaining-time-first, aware of every link.
//!
//! DBA's evaluation uses Fastpass (centralized, collision-free timeslot allocation) to realize
//! MRTF exactly. In the fluid model: flows sorted by remaining time alone on their route
//! (`remaining bytes / route bottleneck rate`), each in turn takes all it can on its route.

use super::{BuildContext, Coupling, NoKeys, RatePolicy, View};
use crate::alloc::greedy;
use crate::FlowError;

/// `dctc list`'s line.
pub const ABOUT: &str = "flow minimum-remaining-time-first aware of every link (greedy priority)";

/// The registry's constructor.
pub fn build(_: &NoKeys, ctx: &BuildContext<'_>) -> Result<Box<dyn RatePolicy>, FlowError> {
    Ok(Box::new(FastpassF::new(ctx.net.links())))
}

/// Flow MRTF.
#[derive(Clone, Debug)]
pub struct FastpassF {
    avail: Vec<f64>,
    order: Vec<(f64, u32)>,
    idx: Vec<u32>,
}

impl FastpassF {
    /// For a fabric with `links` directed links.
    pub fn new(_links: usize) -> FastpassF {
        FastpassF {
            avail: Vec::new(),
            order: Vec::new(),
            idx: Vec::new(),
        }
    }
}

impl RatePolicy for FastpassF {
    fn name(&self) -> &str {
        "fastpass-f"
    }

    fn coupling(&self) -> Coupling {
        Coupling::Links
    }

    fn allocate(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) {
        self.order.clear();
        for (k, &f) in comp.iter().enumerate() {
            let f = f as usize;
            let t = v.flows.rem[f].max(0.0) * 8.0 / v.net.route_rate(v.flows.hops(f));
            self.order.push((t, k as u32));
        }
        self.order
            .sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        self.idx.clear();
        self.idx.extend(self.order.iter().map(|o| o.1));
        self.avail.clear();
        self.avail.extend_from_slice(&v.net.cap);
        greedy(
            &mut self.avail,
            &self.idx,
            |k| v.flows.hops(comp[k] as usize),
            |_| f64::INFINITY,
            rates,
        );
    }
}
