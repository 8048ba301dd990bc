//! MADD coflow schedulers on the giant-switch model: `varys` (SEBF + MADD, back-filled),
//! `varys-no-backfill` (SEBF + MADD alone) and `coflow-fifo` (arrival order + MADD).
//!
//! Only host links (the giant switch's ingress and egress ports) are seen. Coflows are taken
//! in an order: by smallest effective bottleneck first (Varys, SIGCOMM'14, as DBA's
//! evaluation uses it; `Gamma = max over ports of remaining bytes on the port / port rate`) or
//! by arrival (coflow FIFO, the FIFO of the coflow literature). In that order each coflow gets
//! MADD rates `remaining_i / Gamma'`, with `Gamma'` its bottleneck on what the earlier coflows
//! left, so all its flows finish together; a coflow with a full port waits, and what the head
//! coflow leaves on its non-bottleneck ports is passed on to the next. With back-filling,
//! leftover port bandwidth is then handed out flow by flow in the same order (work
//! conservation). These rates are what the senders send at; the fabric itself enforces every
//! link's capacity, and where the giant-switch rates oversubscribe a core link the flows share
//! it max-min fairly (DBA §2.2, Fig. 1(b): the allocation "degenerates to fair sharing").
//!
//! **Coflow speed.** Without back-filling the coflow-level decision (the order and each
//! coflow's `Gamma'`) changes at coflow arrivals and completions only: under MADD a coflow's
//! flows finish together, and the SEBF order of the served coflows holds while they drain (the
//! head coflow's `Gamma` falls at one second per second, a later one's no faster, a waiting
//! one's not at all). So a flow completion re-solves only when it ends its coflow, when the
//! flow carried back-filled bandwidth (its leftover goes to others), or when the fabric cut a
//! rate below its MADD rate (its core links are freed); the completion of a flow at exactly its
//! MADD rate, whose siblings finish within picoseconds of it, leaves the others as they are.
//! For the two variants without back-filling this gives the CCTs of re-solving at every
//! completion (tested). With back-filling a waiting coflow's ports drain, so its SEBF rank can
//! move between events; `varys` re-ranks at coflow arrivals and completions and at the end of
//! a back-filled flow, as Varys recomputes its schedule on coflow arrivals and completions
//! (re-ranking at every flow completion instead moved the average CCT by under 10% on random
//! traces, tested).

use super::{maxmin_with_caps, Coupling, RatePolicy, View};
use crate::alloc::WaterFill;

/// Relative amount by which a rate may differ from its MADD rate and still count as pinned to
/// it (rounding of the water-filling).
const PINNED_TOL: f64 = 1e-9;

/// The order coflows are served in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CoflowOrder {
    /// Smallest effective bottleneck first (Varys's SEBF).
    Sebf,
    /// Arrival order (coflow FIFO).
    Arrival,
}

/// MADD in a coflow order, optionally back-filled.
#[derive(Clone, Debug)]
pub struct Madd {
    name: &'static str,
    order: CoflowOrder,
    backfill: bool,
    wf: WaterFill,
    avail: Vec<f64>,
    resid: Vec<f64>,
    port_bytes: Vec<f64>,
    caps: Vec<f64>,
    /// Per flow: its last rate was its MADD rate (no back-fill, not cut by the fabric), so its
    /// completion before its coflow's changes no decision.
    pinned: Vec<bool>,
}

impl Madd {
    /// `varys` (`backfill`) or `varys-no-backfill`, for a fabric with `links` directed links.
    pub fn varys(links: usize, backfill: bool) -> Madd {
        let name = if backfill {
            "varys"
        } else {
            "varys-no-backfill"
        };
        Madd::new(name, links, CoflowOrder::Sebf, backfill)
    }

    /// `coflow-fifo`: arrival order, MADD, no back-filling.
    pub fn coflow_fifo(links: usize) -> Madd {
        Madd::new("coflow-fifo", links, CoflowOrder::Arrival, false)
    }

    fn new(name: &'static str, links: usize, order: CoflowOrder, backfill: bool) -> Madd {
        Madd {
            name,
            order,
            backfill,
            wf: WaterFill::new(links),
            avail: Vec::new(),
            resid: vec![0.0; links],
            port_bytes: vec![0.0; links],
            caps: Vec::new(),
            pinned: Vec::new(),
        }
    }

    /// The order coflows are served in.
    pub fn order(&self) -> CoflowOrder {
        self.order
    }

    /// Whether leftover port bandwidth is back-filled.
    pub fn backfills(&self) -> bool {
        self.backfill
    }
}

impl RatePolicy for Madd {
    fn name(&self) -> &str {
        self.name
    }

    fn coupling(&self) -> Coupling {
        Coupling::LinksAndCoflows
    }

    fn allocate(&mut self, v: &View<'_>, comp: &[u32], rates: &mut [f64]) {
        let net = v.net;
        let ports = |f: usize| {
            [
                net.host_up[v.flows.src[f] as usize] as usize,
                net.host_down[v.flows.dst[f] as usize] as usize,
            ]
        };
        // Group by coflow (coflow numbers follow arrival order).
        let mut groups: Vec<(u32, usize)> = comp
            .iter()
            .enumerate()
            .map(|(k, &f)| (v.flows.coflow[f as usize], k))
            .collect();
        groups.sort_unstable();
        let mut spans: Vec<(usize, usize)> = Vec::new();
        let mut i = 0;
        while i < groups.len() {
            let mut j = i;
            while j < groups.len() && groups[j].0 == groups[i].0 {
                j += 1;
            }
            spans.push((i, j));
            i = j;
        }
        // The service order: effective bottleneck on the idle giant switch (SEBF), or the
        // coflow number (arrival).
        let mut gamma: Vec<(f64, usize)> = Vec::with_capacity(spans.len());
        for (s, &(a, b)) in spans.iter().enumerate() {
            if self.order == CoflowOrder::Arrival {
                gamma.push((0.0, s));
                continue;
            }
            for &(_, k) in &groups[a..b] {
                let f = comp[k] as usize;
                for p in ports(f) {
                    self.port_bytes[p] += v.flows.rem[f].max(0.0) * 8.0;
                }
            }
            let mut g = 0.0f64;
            for &(_, k) in &groups[a..b] {
                let f = comp[k] as usize;
                for p in ports(f) {
                    g = g.max(self.port_bytes[p] / net.cap[p]);
                }
            }
            for &(_, k) in &groups[a..b] {
                for p in ports(comp[k] as usize) {
                    self.port_bytes[p] = 0.0;
                }
            }
            gamma.push((g, s));
        }
        gamma.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        for &f in comp {
            for p in ports(f as usize) {
                self.resid[p] = net.cap[p];
            }
        }
        self.caps.clear();
        self.caps.resize(comp.len(), 0.0);
        // MADD in service order.
        for &(_, s) in &gamma {
            let (a, b) = spans[s];
            for &(_, k) in &groups[a..b] {
                let f = comp[k] as usize;
                for p in ports(f) {
                    self.port_bytes[p] += v.flows.rem[f].max(0.0) * 8.0;
                }
            }
            let mut g = 0.0f64;
            for &(_, k) in &groups[a..b] {
                for p in ports(comp[k] as usize) {
                    if self.port_bytes[p] > 0.0 {
                        g = g.max(if self.resid[p] > 0.0 {
                            self.port_bytes[p] / self.resid[p]
                        } else {
                            f64::INFINITY
                        });
                    }
                }
            }
            for &(_, k) in &groups[a..b] {
                for p in ports(comp[k] as usize) {
                    self.port_bytes[p] = 0.0;
                }
            }
            if g.is_finite() && g > 0.0 {
                for &(_, k) in &groups[a..b] {
                    let f = comp[k] as usize;
                    let r = v.flows.rem[f].max(0.0) * 8.0 / g;
                    let [up, down] = ports(f);
                    let r = r.min(self.resid[up]).min(self.resid[down]).max(0.0);
                    self.caps[k] = r;
                    self.resid[up] -= r;
                    self.resid[down] -= r;
                }
            }
        }
        let mut flows_max = 0usize;
        for &f in comp {
            flows_max = flows_max.max(f as usize + 1);
        }
        if self.pinned.len() < flows_max {
            self.pinned.resize(flows_max, false);
        }
        // Pinned unless back-fill adds to it or the fabric cuts it (checked below).
        for (k, &f) in comp.iter().enumerate() {
            self.pinned[f as usize] = self.caps[k] > 0.0;
        }
        if self.backfill {
            for &(_, s) in &gamma {
                let (a, b) = spans[s];
                for &(_, k) in &groups[a..b] {
                    let [up, down] = ports(comp[k] as usize);
                    let extra = self.resid[up].min(self.resid[down]).max(0.0);
                    if extra > 0.0 {
                        self.pinned[comp[k] as usize] = false;
                    }
                    self.caps[k] += extra;
                    self.resid[up] -= extra;
                    self.resid[down] -= extra;
                }
            }
        }
        // The fabric shares every link (core included) max-min among the senders' rates.
        let caps = std::mem::take(&mut self.caps);
        maxmin_with_caps(&mut self.wf, &mut self.avail, v, comp, &caps, rates);
        // A rate the fabric cut below its cap frees core capacity for others when a flow
        // ends: then every completion in the component re-solves.
        let cut = caps
            .iter()
            .zip(rates.iter())
            .any(|(&c, &r)| r < c * (1.0 - PINNED_TOL));
        if cut {
            for &f in comp {
                self.pinned[f as usize] = false;
            }
        }
        self.caps = caps;
    }

    fn completion_reallocates(&self, v: &View<'_>, flow: u32) -> bool {
        let f = flow as usize;
        let c = v.flows.coflow[f] as usize;
        v.coflows.left[c] == 0 || !self.pinned.get(f).copied().unwrap_or(false)
    }
}
