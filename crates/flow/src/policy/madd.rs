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
//! **Coflow speed.** The coflow-level decision (the order and each coflow's `Gamma'`) is made
//! at coflow arrivals and completions, as Varys recomputes its schedule: a flow completion
//! re-solves only when it ends its coflow or when the fabric cut some rate of its component
//! below its giant-switch rate (core links it frees go to others). Under MADD a coflow's flows
//! finish together, and without back-filling the order of the served coflows holds while they
//! drain (the head coflow's `Gamma` falls at one second per second, a later one's no faster, a
//! waiting one's not at all), so for `varys-no-backfill` and `coflow-fifo` this gives the CCTs
//! of re-solving at every flow completion (tested). With back-filling, a flow that ends before
//! its coflow hands its two ports' bandwidth on in the last service order (to the first flows
//! on those ports with room on their other port and no link beyond the two: the back-fill
//! pass re-run from those ports);
//! a waiting coflow's back-filled ports drain, so its rank is revisited at coflow events only.
//! Re-solving at every flow completion instead moves the average CCT by under 10% on random
//! traces (tested) and cost 1,443 s of CPU on the whole trace.
use super::{maxmin_with_caps, BuildContext, Coupling, NoKeys, RatePolicy, View};
use crate::alloc::WaterFill;
use crate::error::FlowError;

/// `dctc list`'s line for `varys`.
pub const ABOUT_VARYS: &str =
    "Varys: SEBF + MADD on the giant-switch model (edge links only), back-filled; \
     the fabric then shares core links max-min among those rates; re-solved at coflow \
     arrivals and completions (and when a back-filled flow ends)";

/// `dctc list`'s line for `varys-no-backfill`.
pub const ABOUT_VARYS_NO_BACKFILL: &str =
    "Varys's SEBF + MADD without back-filling: leftover port bandwidth stays idle";

/// `dctc list`'s line for `coflow-fifo`.
pub const ABOUT_COFLOW_FIFO: &str =
    "coflow FIFO: coflows in arrival order, each at MADD rates on what earlier ones left \
     (no back-filling)";

/// The registry's constructor of `varys`.
pub fn build_varys(_: &NoKeys, ctx: &BuildContext<'_>) -> Result<Box<dyn RatePolicy>, FlowError> {
    Ok(Box::new(Madd::varys(ctx.net.links(), true)))
}

/// The registry's constructor of `varys-no-backfill`.
pub fn build_varys_no_backfill(
    _: &NoKeys,
    ctx: &BuildContext<'_>,
) -> Result<Box<dyn RatePolicy>, FlowError> {
    Ok(Box::new(Madd::varys(ctx.net.links(), false)))
}

/// The registry's constructor of `coflow-fifo`.
pub fn build_coflow_fifo(
    _: &NoKeys,
    ctx: &BuildContext<'_>,
) -> Result<Box<dyn RatePolicy>, FlowError> {
    Ok(Box::new(Madd::coflow_fifo(ctx.net.links())))
}

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
    /// Per flow: its last rate was not cut by the fabric below its giant-switch rate, so its
    /// completion before its coflow's changes no decision.
    pinned: Vec<bool>,
    /// Back-filling between re-solves: each flow's place in the service order of its last
    /// re-solve (increasing across re-solves), and per port the flows on it in that order.
    rank: Vec<u64>,
    next_rank: u64,
    port_flows: Vec<Vec<u32>>,
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
            rank: Vec::new(),
            next_rank: 0,
            port_flows: vec![Vec::new(); links],
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
            self.rank.resize(flows_max, 0);
        }
        // Pinned unless the fabric cuts a rate (checked below).
        for &f in comp {
            self.pinned[f as usize] = true;
        }
        if self.backfill {
            // The service order, for handing on what a flow frees between re-solves (a port
            // crossed by flows of this component has them all here: components are closed
            // under links).
            for &f in comp {
                for p in ports(f as usize) {
                    self.port_flows[p].clear();
                }
            }
            for &(_, s) in &gamma {
                let (a, b) = spans[s];
                for &(_, k) in &groups[a..b] {
                    let f = comp[k];
                    self.rank[f as usize] = self.next_rank;
                    self.next_rank += 1;
                    let [up, down] = ports(f as usize);
                    self.port_flows[up].push(f);
                    self.port_flows[down].push(f);
                }
            }
            for &(_, s) in &gamma {
                let (a, b) = spans[s];
                for &(_, k) in &groups[a..b] {
                    let [up, down] = ports(comp[k] as usize);
                    let extra = self.resid[up].min(self.resid[down]).max(0.0);
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

    /// Back-filling: the bandwidth `flow` held on its two ports goes, in the service order of
    /// the last re-solve, to the flows on those ports with room on their other port (what a
    /// re-run of the back-fill pass would hand out from those ports, the rest unchanged).
    ///
    /// Not the priority greedy's re-run (`PriorityGreedy::remove`), though the back-fill pass
    /// is a greedy over ports in service order: a flow here takes only what the last pass
    /// left on its other port, so no rate falls until the next coflow event, where the
    /// re-run would let it take from flows served after it; and only flows through their two
    /// ports alone take any, since a flow through the core would need the fabric's max-min
    /// this skips (`maxmin_inc.rs`, "The flow policies' incremental re-solves").
    fn after_skipped_completion(
        &mut self,
        v: &View<'_>,
        flow: u32,
        rate: f64,
        changes: &mut Vec<(u32, f64)>,
    ) {
        if !self.backfill || rate <= 0.0 {
            return;
        }
        let net = v.net;
        let ports = |f: usize| {
            [
                net.host_up[v.flows.src[f] as usize] as usize,
                net.host_down[v.flows.dst[f] as usize] as usize,
            ]
        };
        let [up, down] = ports(flow as usize);
        self.resid[up] += rate;
        self.resid[down] += rate;
        let (a, b) = (&self.port_flows[up], &self.port_flows[down]);
        let (mut i, mut j) = (0, 0);
        // A flow from `up` to `down` is on both lists; its second visit finds one of its ports
        // full and takes nothing.
        while (i < a.len() || j < b.len()) && (self.resid[up] > 0.0 || self.resid[down] > 0.0) {
            let take_a = j >= b.len()
                || (i < a.len() && self.rank[a[i] as usize] <= self.rank[b[j] as usize]);
            let g = if take_a {
                i += 1;
                a[i - 1]
            } else {
                j += 1;
                b[j - 1]
            };
            let gu = g as usize;
            if !v.flows.active[gu] {
                continue;
            }
            let [gup, gdown] = ports(gu);
            // Only a flow that crosses nothing but its two ports: a core link may be full.
            let edge_only = v
                .flows
                .hops(gu)
                .iter()
                .all(|h| h.coef == 1.0 && (h.link as usize == gup || h.link as usize == gdown));
            if !edge_only {
                continue;
            }
            let extra = self.resid[gup].min(self.resid[gdown]);
            if extra > 0.0 {
                self.resid[gup] -= extra;
                self.resid[gdown] -= extra;
                changes.push((g, v.flows.rate[gu] + extra));
            }
        }
    }

    fn completion_reallocates(&self, v: &View<'_>, flow: u32) -> bool {
        let f = flow as usize;
        let c = v.flows.coflow[f] as usize;
        v.coflows.left[c] == 0 || !self.pinned.get(f).copied().unwrap_or(false)
    }
}
