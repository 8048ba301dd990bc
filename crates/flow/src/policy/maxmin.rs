//! `maxmin`: per-flow max-min fairness over every link, the fluid idealization of TCP-like
//! sharing.

use super::{BuildContext, Coupling, NoKeys, RatePolicy, View};
use crate::alloc::WaterFill;
use crate::error::FlowError;

/// `dctc list`'s line.
pub const ABOUT: &str = "per-flow max-min fairness over every link (idealized TCP-like sharing)";

/// The registry's constructor.
pub fn build(_: &NoKeys, ctx: &BuildContext<'_>) -> Result<Box<dyn RatePolicy>, FlowError> {
    Ok(Box::new(MaxMin::new(ctx.net.links())))
}

/// Max-min fair rates.
#[derive(Clone, Debug)]
pub struct MaxMin {
    wf: WaterFill,
    avail: Vec<f64>,
}

impl MaxMin {
    /// For a fabric with `links` directed links.
    pub fn new(links: usize) -> MaxMin {
        MaxMin {
            wf: WaterFill::new(links),
            avail: Vec::new(),
        }
    }
}

impl RatePolicy for MaxMin {
    fn name(&self) -> &str {
        "maxmin"
    }

    fn coupling(&self) -> Coupling {
        Coupling::Links
    }

    fn incremental_maxmin(&self) -> bool {
        true
    }

    fn allocate(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) {
        self.avail.clear();
        self.avail.extend_from_slice(&v.net.cap);
        self.wf.fill(
            &mut self.avail,
            comp.len(),
            |k| v.flows.hops(comp[k] as usize),
            |_| 1.0,
            |_| f64::INFINITY,
            rates,
        );
    }
}
