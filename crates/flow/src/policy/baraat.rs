//! `baraat`: FIFO across coflows (tasks) with limited multiplexing (Baraat, SIGCOMM'14).
//!
//! Coflows are served in arrival order, each one a strict priority class; the fabric's links
//! are shared max-min within a class on what higher classes left (explicit, in-network-aware
//! rate control). A coflow becomes *heavy* once it has sent more than the heavy threshold;
//! a heavy coflow no longer blocks the queue: it shares its class with the next non-heavy
//! coflow behind it (limited multiplexing). Threshold: `heavy_bytes`, or by default the 80th
//! percentile of the workload's coflow sizes (Baraat sets it from the size distribution).
//! Heaviness is re-evaluated at every event (arrival, completion).

use super::{BuildContext, Coupling, RatePolicy, View};
use crate::alloc::WaterFill;
use crate::FlowError;
use dctc_core::stats::percentile_sorted;
use serde::Deserialize;

/// `dctc list`'s line.
pub const ABOUT: &str =
    "Baraat: FIFO across coflows with limited multiplexing once a coflow turns heavy";

/// `baraat`'s keys.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaraatConfig {
    /// A coflow turns heavy after sending this many bytes (default: the `heavy_percentile` of
    /// the workload's coflow sizes).
    #[serde(default)]
    pub heavy_bytes: Option<f64>,
    /// Percentile of coflow sizes used as the heavy threshold (default 0.8).
    #[serde(default)]
    pub heavy_percentile: Option<f64>,
}

/// The registry's constructor.
pub fn build(cfg: &BaraatConfig, ctx: &BuildContext<'_>) -> Result<Box<dyn RatePolicy>, FlowError> {
    Ok(Box::new(Baraat::new(
        cfg,
        ctx.net.links(),
        ctx.coflow_sizes,
    )?))
}

/// FIFO with limited multiplexing.
#[derive(Clone, Debug)]
pub struct Baraat {
    heavy: f64,
    wf: WaterFill,
    avail: Vec<f64>,
}

impl Baraat {
    /// From a scheme config and the workload's coflow sizes.
    pub fn new(
        cfg: &BaraatConfig,
        links: usize,
        coflow_sizes: &[f64],
    ) -> Result<Baraat, FlowError> {
        let heavy = match (cfg.heavy_bytes, cfg.heavy_percentile) {
            (Some(b), _) => {
                if b.is_nan() || b <= 0.0 {
                    return Err(FlowError::invalid("heavy_bytes", "must be > 0"));
                }
                b
            }
            (None, p) => {
                let p = p.unwrap_or(0.8);
                if !(0.0..=1.0).contains(&p) {
                    return Err(FlowError::invalid("heavy_percentile", "must be in [0, 1]"));
                }
                let mut s: Vec<f64> = coflow_sizes.to_vec();
                s.sort_by(f64::total_cmp);
                if s.is_empty() {
                    f64::INFINITY
                } else {
                    percentile_sorted(&s, p)
                }
            }
        };
        Ok(Baraat {
            heavy,
            wf: WaterFill::new(links),
            avail: Vec::new(),
        })
    }

    /// The heavy threshold, bytes.
    pub fn heavy_bytes(&self) -> f64 {
        self.heavy
    }
}

impl RatePolicy for Baraat {
    fn name(&self) -> &str {
        "baraat"
    }

    fn coupling(&self) -> Coupling {
        Coupling::LinksAndCoflows
    }

    fn allocate(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) {
        // `comp` is sorted by flow number and flows are numbered coflow by coflow in arrival
        // order, so each coflow is a run of `comp` and a class (a run of heavy coflows and the
        // light one behind them) is a run of consecutive coflows.
        debug_assert!(comp
            .windows(2)
            .all(|w| v.flows.coflow[w[0] as usize] <= v.flows.coflow[w[1] as usize]));
        self.avail.clear();
        self.avail.extend_from_slice(&v.net.cap);
        let mut a = 0;
        let mut i = 0;
        while i < comp.len() {
            let c = v.flows.coflow[comp[i] as usize] as usize;
            let mut j = i;
            let mut left = 0.0;
            while j < comp.len() && v.flows.coflow[comp[j] as usize] as usize == c {
                left += v.flows.rem[comp[j] as usize].max(0.0);
                j += 1;
            }
            let sent = v.coflows.bytes[c] - left;
            i = j;
            if sent > self.heavy && i < comp.len() {
                continue;
            }
            // Class `comp[a..i]`: water-filled on what earlier classes left, unless every one
            // of its flows crosses a link they filled (then all its rates are 0; most classes
            // behind a busy head are, and skipping them is most of this policy's speed).
            let (class, out) = (&comp[a..i], &mut rates[a..i]);
            let avail = &self.avail;
            let open = class.iter().any(|&f| {
                v.flows
                    .hops(f as usize)
                    .iter()
                    .all(|h| avail[h.link as usize] > 0.0)
            });
            if open {
                self.wf.fill(
                    &mut self.avail,
                    class.len(),
                    |m| v.flows.hops(class[m] as usize),
                    |_| 1.0,
                    |_| f64::INFINITY,
                    out,
                );
            } else {
                out.iter_mut().for_each(|r| *r = 0.0);
            }
            a = i;
        }
    }

    fn report(&self) -> Vec<(String, f64)> {
        vec![("heavy_bytes".to_string(), self.heavy)]
    }
}
