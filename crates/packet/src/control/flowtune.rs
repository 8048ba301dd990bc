//! Flowtune's allocator (Perry et al., SIGCOMM 2017, §2-4 and §6.2): the flowlets it was told
//! of form a NUM problem over the fabric's links (`dctc_num`'s online [`Problem`], flows added
//! and removed as flowlets start and end); every `interval` it runs one NED iteration (gamma
//! 0.4, prices from 1) and the normalizer (F-NORM), and it reports the flowlets whose
//! normalized rate moved by more than the threshold since they were last told (§6.4, the
//! [`Notifier`] rule), allocating `1 - threshold` of each link. When the scheme asks for it
//! (`AllocatorSpec::churn_optimal_every`), every iteration is also measured as Flowtune §6.6
//! measures its allocator alone ([`ChurnMeter`]): here flowlets, as the endpoints detect and
//! report them, churn.

use crate::transport::flowtune::AllocatorSpec;
use dctc_core::topology::Topology;
use dctc_core::units::{Rate, SimTime};
use dctc_num::churn::{ChurnMeter, ChurnSummary};
use dctc_num::normalize::Notifier;
use dctc_num::problem::{FlowKey, NumFlow, Problem, ProblemError};
use dctc_num::solver::{Ned, Solver, State};

/// Lowest rate sent to an endpoint, b/s: NED gives every flowlet a positive rate, but a rate
/// that rounds to zero would stop a flow for good; 1 Mb/s is 1e-4 of a 10 Gb/s link.
const MIN_RATE_BPS: f64 = 1e6;

/// The allocator's state.
#[derive(Clone, Debug)]
pub struct Allocator {
    spec: AllocatorSpec,
    problem: Problem,
    state: State,
    ned: Ned,
    notifier: Notifier,
    /// Per engine flow: its flowlet's key while the allocator knows one.
    key_of: Vec<Option<FlowKey>>,
    /// Per key: the engine flow.
    flow_of_key: Vec<u32>,
    /// Flowlets that ended since the last iteration.
    ending: Vec<FlowKey>,
    /// Link capacities in the problem's units, times `1 - threshold`.
    cap_scaled: Vec<f64>,
    rate: Vec<f64>,
    /// The §6.6 measurement, when asked for.
    churn: Option<ChurnMeter>,
    /// Iterations run.
    pub iterations: u64,
}

impl Allocator {
    /// An allocator over every link of `topo` for the engine's `flows` flows. Fails, naming
    /// the link, when a link's rate cannot be a NUM capacity (zero: a fabric whose rate
    /// rounded to 0 b/s).
    pub fn new(
        topo: &Topology,
        flows: usize,
        spec: &AllocatorSpec,
    ) -> Result<Allocator, ProblemError> {
        let unit = topo
            .links()
            .iter()
            .map(|l| l.rate.bps_f64())
            .fold(1.0, f64::max);
        let mut problem = Problem::new(unit);
        for (i, l) in topo.links().iter().enumerate() {
            problem.add_link(format!("l{i}"), l.rate.bps_f64())?;
        }
        let notifier = Notifier::new(spec.threshold);
        // Flowtune §6.4: allocate 1 - threshold of every link.
        problem.set_capacity_factor(notifier.capacity_factor());
        let cap_scaled = topo
            .links()
            .iter()
            .map(|l| l.rate.bps_f64() / unit * notifier.capacity_factor())
            .collect();
        let churn = spec
            .churn_optimal_every
            .map(|_| ChurnMeter::new(&problem, spec.churn_warmup.as_secs_f64()));
        Ok(Allocator {
            state: State::new(&problem, 1.0), // Flowtune §3: prices start at 1
            ned: Ned { gamma: spec.gamma },
            notifier,
            spec: spec.clone(),
            problem,
            key_of: vec![None; flows],
            flow_of_key: Vec::new(),
            ending: Vec::new(),
            cap_scaled,
            rate: Vec::new(),
            churn,
            iterations: 0,
        })
    }

    /// A flowlet of engine flow `flow` started on the links `path`.
    pub fn start(&mut self, flow: u32, path: &[u32]) {
        if self.key_of[flow as usize].is_some() {
            return;
        }
        let path = path.iter().map(|&l| l as usize).collect();
        let key = self
            .problem
            .add_flow(NumFlow::new(String::new(), path, self.spec.utility))
            .expect("paths are fabric links and the utility was validated");
        debug_assert_eq!(key.0 as usize, self.flow_of_key.len());
        self.flow_of_key.push(flow);
        self.key_of[flow as usize] = Some(key);
    }

    /// Flow `flow`'s flowlet ended; it leaves the problem at the next iteration.
    pub fn end(&mut self, flow: u32) {
        if let Some(k) = self.key_of[flow as usize].take() {
            self.ending.push(k);
        }
    }

    /// Flowlets the allocator knows (including those that leave at the next iteration).
    pub fn flowlets(&self) -> usize {
        self.problem.flows()
    }

    /// Whether the next iteration has work: known flowlets or pending removals.
    pub fn busy(&self) -> bool {
        self.problem.flows() > 0
    }

    /// One iteration at `now` (Flowtune §6.2): removes ended flowlets, runs one NED step,
    /// normalizes, and appends `(flow, rate)` for every flowlet whose rate moved by more than
    /// the threshold since it was last told.
    pub fn iterate(&mut self, now: SimTime, out: &mut Vec<(u32, Rate)>) {
        if !self.ending.is_empty() {
            self.problem
                .remove_flows(&self.ending)
                .expect("ending flowlets are known");
            self.ending.clear();
        }
        if self.problem.flows() == 0 {
            return;
        }
        self.ned.iterate(&mut self.problem, &mut self.state);
        if let (Some(meter), Some(every)) = (&mut self.churn, self.spec.churn_optimal_every) {
            let with_optimum = self.iterations.is_multiple_of(every.max(1));
            meter.measure(&self.problem, &self.state, now.as_secs_f64(), with_optimum);
        }
        self.iterations += 1;
        self.rate.clear();
        self.rate.extend_from_slice(&self.state.sub_rate);
        self.spec
            .normalizer
            .apply(&self.cap_scaled, self.problem.paths(), &mut self.rate);
        let unit = self.problem.rate_unit();
        for i in 0..self.rate.len() {
            let notified = &mut self.problem.notified_mut()[i..=i];
            // Flowtune §6.4: notify only when the rate moved by more than the threshold.
            if self.notifier.update(&self.rate[i..=i], notified) == 1 {
                let key = self.problem.keys()[i];
                let bps = (self.rate[i] * unit).max(MIN_RATE_BPS);
                out.push((self.flow_of_key[key.0 as usize], Rate(bps.round() as u64)));
            }
        }
    }

    /// Updates sent so far.
    pub fn updates(&self) -> u64 {
        self.notifier.sent
    }

    /// The §6.6 measurement's totals, when the scheme asked for it.
    pub fn churn(&self) -> Option<ChurnSummary> {
        self.churn.as_ref().map(ChurnMeter::summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dctc_core::fabric::{preset, FabricSpec};

    fn fabric() -> Topology {
        let FabricSpec::LeafSpine(s) = preset("flowtune-144").unwrap() else {
            unreachable!()
        };
        dctc_core::fabric::leaf_spine(&s).unwrap()
    }

    #[test]
    fn an_allocator_over_a_zero_rate_link_is_an_error_naming_the_link_not_a_panic() {
        use dctc_core::topology::NodeKind;
        use dctc_core::units::{Delta, Rate};
        let mut t = Topology::new("zero", Delta::ZERO);
        let h0 = t.add_node(NodeKind::Host, "h0");
        let h1 = t.add_node(NodeKind::Host, "h1");
        let sw = t.add_node(NodeKind::Switch { tier: 1 }, "s");
        t.add_cable(h0, sw, Rate::gbps(10), Delta::ZERO, 15_000, 15_000);
        // A rate that rounded to 0 b/s.
        t.add_cable(h1, sw, Rate(0), Delta::ZERO, 15_000, 15_000);
        let e = Allocator::new(&t, 1, &AllocatorSpec::default()).unwrap_err();
        assert_eq!(
            e,
            ProblemError::BadCapacity {
                link: "l2".into(),
                capacity: 0.0
            }
        );
        assert!(Allocator::new(&fabric(), 1, &AllocatorSpec::default()).is_ok());
    }

    #[test]
    fn two_flowlets_on_one_link_get_half_each_and_only_moves_are_sent() {
        let t = fabric();
        // Two flows from different hosts to h5: both cross h5's downlink (link of the
        // cable leaf0 -> h5), the bottleneck.
        let down = t.link_between(t.edge_switch(t.hosts()[5]).unwrap(), t.hosts()[5]);
        let down = down.unwrap().0;
        let up = |h: usize| t.out_links(t.hosts()[h])[0].0;
        let spec = AllocatorSpec::default();
        let mut a = Allocator::new(&t, 2, &spec).unwrap();
        a.start(0, &[up(1), down]);
        a.start(1, &[up(2), down]);
        let mut out = Vec::new();
        let mut last = [0.0f64; 2];
        for _ in 0..40 {
            out.clear();
            a.iterate(SimTime::ZERO, &mut out);
            for &(f, r) in &out {
                last[f as usize] = r.bps_f64();
            }
        }
        // Proportional fairness: half of 99% of 10 Gb/s each, within the threshold.
        for r in last {
            assert!((r - 4.95e9).abs() < 0.02 * 4.95e9, "rate {r}");
        }
        // Converged: a further iteration moves nobody by more than 1%.
        out.clear();
        a.iterate(SimTime::ZERO, &mut out);
        assert!(out.is_empty(), "{out:?}");
        let sent = a.updates();
        // One flowlet ends: the other is told it may take the whole link.
        a.end(1);
        for _ in 0..40 {
            out.clear();
            a.iterate(SimTime::ZERO, &mut out);
            assert!(out.iter().all(|&(f, _)| f == 0));
            for &(f, r) in &out {
                last[f as usize] = r.bps_f64();
            }
        }
        assert!(a.updates() > sent);
        assert!((last[0] - 9.9e9).abs() < 0.02 * 9.9e9, "rate {}", last[0]);
        assert_eq!(a.flowlets(), 1);
    }

    /// Flowlets churning on flowtune-144 (a start or an end every iteration, random hosts
    /// and paths): returns the updates sent, checking at every iteration that the normalized
    /// rates load no link above `1 - threshold` of its capacity and the rates endpoints were
    /// last told load none above its capacity.
    fn churn(threshold: f64) -> u64 {
        use dctc_core::routing::Routing;
        use rand::Rng;
        let t = fabric();
        let routing = Routing::new(&t).unwrap();
        let spec = AllocatorSpec {
            threshold,
            ..AllocatorSpec::default()
        };
        let n = 400usize;
        let mut a = Allocator::new(&t, n, &spec).unwrap();
        let mut rng = dctc_core::rng::component_rng(7, dctc_core::rng::streams::WORKLOAD);
        let mut told = vec![0.0f64; n];
        let mut active: Vec<u32> = Vec::new();
        let hosts = t.hosts();
        let mut out = Vec::new();
        for (step, f) in (0..n as u32).enumerate() {
            let (src, dst) = loop {
                let (x, y) = (rng.random_range(0..144), rng.random_range(0..144));
                if x != y {
                    break (x, y);
                }
            };
            let path: Vec<u32> = routing
                .ecmp_path(&t, hosts[src], hosts[dst], rng.random())
                .iter()
                .map(|l| l.0)
                .collect();
            a.start(f, &path);
            active.push(f);
            if step % 3 == 2 {
                let gone = active.remove(rng.random_range(0..active.len()));
                a.end(gone);
                told[gone as usize] = 0.0;
            }
            out.clear();
            a.iterate(SimTime::ZERO, &mut out);
            for &(g, r) in &out {
                told[g as usize] = r.bps_f64();
            }
            // Normalized rates fit 1 - threshold of every link.
            let load = a.problem.link_load_bps(
                &a.rate
                    .iter()
                    .map(|x| x * a.problem.rate_unit())
                    .collect::<Vec<_>>(),
            );
            for (l, x) in load.iter().enumerate() {
                let cap = t.links()[l].rate.bps_f64();
                assert!(
                    *x <= cap * (1.0 - threshold) * (1.0 + 1e-9),
                    "link {l}: {x}"
                );
            }
            // What endpoints were told fits every link.
            let mut told_load = vec![0.0; t.links().len()];
            for (g, p) in (0..n).filter_map(|g| Some((g, a.key_of[g]?))) {
                let i = a.problem.index_of(p).unwrap();
                for &l in a.problem.paths().row(i) {
                    told_load[l as usize] += told[g];
                }
            }
            for (l, x) in told_load.iter().enumerate() {
                let cap = t.links()[l].rate.bps_f64();
                assert!(*x <= cap * (1.0 + 1e-9), "told load on link {l}: {x}");
            }
        }
        a.updates()
    }

    #[test]
    fn a_larger_threshold_sends_fewer_updates_and_no_link_is_over_allocated() {
        let (fine, coarse) = (churn(0.01), churn(0.05));
        assert!(coarse < fine, "0.05: {coarse} updates, 0.01: {fine}");
        assert!(fine > 400, "{fine}");
    }
}
