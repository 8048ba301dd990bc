//! `varys`: Smallest-Effective-Bottleneck-First + MADD on the giant-switch model (Varys,
//! SIGCOMM'14), as DBA's evaluation uses it.
//!
//! Only host links (the giant switch's ingress and egress ports) are seen. Coflows are ordered
//! by `Gamma = max over ports of remaining bytes on the port / port rate`. In that order each
//! coflow gets MADD rates `remaining_i / Gamma'`, with `Gamma'` its bottleneck on what the
//! earlier coflows left, so all its flows would finish together; a coflow with a full port
//! waits. Leftover port bandwidth is then back-filled flow by flow in the same order. These
//! rates are what the senders send at; the fabric itself enforces every link's capacity, and
//! where the giant-switch rates oversubscribe a core link the flows share it max-min fairly
//! (DBA §2.2, Fig. 1(b): the allocation "degenerates to fair sharing").

use super::{maxmin_with_caps, Coupling, RatePolicy, View};
use crate::alloc::WaterFill;

/// SEBF + MADD.
#[derive(Clone, Debug)]
pub struct Varys {
    wf: WaterFill,
    avail: Vec<f64>,
    resid: Vec<f64>,
    port_bytes: Vec<f64>,
    caps: Vec<f64>,
}

impl Varys {
    /// For a fabric with `links` directed links.
    pub fn new(links: usize) -> Varys {
        Varys {
            wf: WaterFill::new(links),
            avail: Vec::new(),
            resid: vec![0.0; links],
            port_bytes: vec![0.0; links],
            caps: Vec::new(),
        }
    }
}

impl RatePolicy for Varys {
    fn name(&self) -> &str {
        "varys"
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
        // Effective bottleneck of each coflow on the idle giant switch.
        let mut gamma: Vec<(f64, usize)> = Vec::with_capacity(spans.len());
        for (s, &(a, b)) in spans.iter().enumerate() {
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
        // MADD in SEBF order.
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
        // Back-fill, same order.
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
        // The fabric shares every link (core included) max-min among the senders' rates.
        let caps = std::mem::take(&mut self.caps);
        maxmin_with_caps(&mut self.wf, &mut self.avail, v, comp, &caps, rates);
        self.caps = caps;
    }
}
