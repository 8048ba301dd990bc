//! The objective report's recording (issue 30; the math is `dctc_num::objective`): every
//! interval, the bytes each flow delivered. Rates are constant between events, so the bytes a
//! flow has delivered by any instant are exact ([`Flows::delivered_by`]); the loop closes the
//! intervals that end at or before an event's time before it applies the event, so recording
//! schedules nothing and changes no rate, completion or record of the run.
//!
//! Paths: a flow on one path (ECMP, CONGA) enters the optimum on that path. A flow whose rate
//! is spread over several paths (DRILL) enters as a multipath flow over those paths, the split
//! left to the optimum; a flow that Hedera may move enters with every equal-cost path of its
//! host pair (the best any of its placements could reach, split allowed: an upper bound on
//! what moving whole flows achieves). On a fabric whose equal-cost paths have equal capacities
//! (every preset), the free split reaches exactly the rates of DRILL's even split (see
//! `crates/flow/README.md`, "The objective report").

use crate::net::Net;
use crate::routing::PATH_LIMIT;
use crate::state::{Coflows, Flows};
use dctc_core::units::{Delta, SimTime};
use dctc_num::objective::{Trace, TraceFlow};

impl Flows {
    /// Bytes flow `f` has delivered by `at` (not before its last settle time; exact: its rate
    /// has been constant since). 0 before it arrives; its size once finished.
    pub fn delivered_by(&self, f: usize, at: SimTime) -> f64 {
        let settled = self.size[f] - self.rem[f];
        let moving = if self.active[f] {
            let dt = at.ps().saturating_sub(self.tlast[f]);
            self.rate[f] * dt as f64 * 1e-12 / 8.0
        } else {
            0.0
        };
        (settled + moving).clamp(0.0, self.size[f])
    }
}

/// What a run records for the objective report.
pub(crate) struct ObjectiveRec {
    interval: u64,
    /// The next boundary, ps (the loop's trigger).
    pub(crate) next: u64,
    /// Intervals recorded at most; recording stops after them.
    max_intervals: u64,
    /// Per flow: bytes delivered at the last boundary.
    last: Vec<f64>,
    /// Flows that finished since the last boundary (no longer in the active list).
    pub(crate) finished: Vec<u32>,
    delivered: Vec<Vec<(u32, f64)>>,
    /// Whether recording stopped at `max_intervals` before the run ended.
    truncated: bool,
}

impl ObjectiveRec {
    /// A recording every `interval` of `flows` flows, of at most `max_intervals` intervals.
    pub(crate) fn new(interval: Delta, max_intervals: u64, flows: usize) -> ObjectiveRec {
        let interval = interval.ps().max(1);
        ObjectiveRec {
            interval,
            next: interval,
            max_intervals,
            last: vec![0.0; flows],
            finished: Vec::new(),
            delivered: Vec::new(),
            truncated: false,
        }
    }

    /// Closes every interval that ends at or before `t` (the time of the next event, before
    /// it is applied). `active` lists the active flows (possibly with finished ones).
    pub(crate) fn sample(&mut self, t: u64, flows: &Flows, active: &[u32]) {
        while self.next <= t && !self.truncated {
            self.close(SimTime(self.next), flows, active);
            self.next = self.next.saturating_add(self.interval);
        }
    }

    fn close(&mut self, at: SimTime, flows: &Flows, active: &[u32]) {
        if self.delivered.len() as u64 >= self.max_intervals {
            self.truncated = true;
            return;
        }
        let mut row: Vec<(u32, f64)> = Vec::new();
        let candidates = active
            .iter()
            .filter(|&&f| flows.active[f as usize])
            .chain(self.finished.iter());
        for &f in candidates {
            let now = flows.delivered_by(f as usize, at);
            let was = &mut self.last[f as usize];
            if now > *was {
                row.push((f, (now - *was) * 8.0));
                *was = now;
            }
        }
        self.finished.clear();
        row.sort_unstable_by_key(|e| e.0);
        self.delivered.push(row);
    }

    /// The trace of a run that ended at `end`: the intervals up to it (the last one partial
    /// when `end` is not on a boundary; none past the limit), with each flow's paths, arrival
    /// and finish.
    pub(crate) fn finish(
        mut self,
        end: SimTime,
        net: &Net,
        spread_or_moved: bool,
        flows: &Flows,
        coflows: &Coflows,
        active: &[u32],
    ) -> (Trace, bool) {
        self.sample(end.ps(), flows, active);
        let mut end_ps = end.ps();
        if self.truncated {
            end_ps = self.delivered.len() as u64 * self.interval;
        } else if self.next - self.interval < end.ps() {
            self.close(end, flows, active);
            if self.truncated {
                end_ps = self.delivered.len() as u64 * self.interval;
            }
        }
        let trace_flows = (0..flows.len())
            .map(|f| {
                let hops = flows.hops(f);
                let paths = if spread_or_moved || hops.iter().any(|h| h.coef != 1.0) {
                    net.paths(flows.src[f], flows.dst[f], PATH_LIMIT)
                        .into_iter()
                        .map(|p| p.iter().map(|l| l.index()).collect())
                        .collect()
                } else {
                    vec![hops.iter().map(|h| h.link as usize).collect()]
                };
                let finish = flows.finish[f];
                TraceFlow {
                    paths,
                    start_s: coflows.arrival[flows.coflow[f] as usize].as_secs_f64(),
                    end_s: (finish != SimTime::NEVER).then(|| finish.as_secs_f64()),
                }
            })
            .collect();
        let trace = Trace {
            interval_s: self.interval as f64 * 1e-12,
            end_s: end_ps as f64 * 1e-12,
            flows: trace_flows,
            delivered: self.delivered,
        };
        (trace, self.truncated)
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::tests::{random_coflows, test_net};
    use crate::policy::{make_policy, PolicyConfig};
    use crate::{SimConfig, Simulator};
    use dctc_core::units::{Delta, SimTime};
    use rand::SeedableRng;

    /// Under policies that re-solve per event, per tick (DBA, with deferred completions) and
    /// per coflow (Varys): every flow's recorded bits add up to its size, each interval's to
    /// no more than its route's line rate allows, and recording changes no finish time.
    #[test]
    fn recorded_bytes_add_up_to_each_flow_and_change_nothing() {
        let net = test_net();
        for policy in ["maxmin", "dba", "varys"] {
            let mut rng = rand::rngs::StdRng::seed_from_u64(7);
            let coflows = random_coflows(&mut rng, 30, 2_000_000_000, 2e6);
            let sizes: Vec<f64> = coflows
                .iter()
                .map(|c| c.flows.iter().map(|f| f.bytes).sum())
                .collect();
            let run = |record: bool| {
                let cfg = PolicyConfig::named(policy);
                let p = make_policy(&cfg, &net, &sizes).unwrap();
                let mut sim = Simulator::new(&net, coflows.clone(), p, SimConfig::default());
                if record {
                    sim.record_objective(Delta::from_us(50), 1_000_000);
                }
                let result = sim.run(|_| {});
                (result, sim.take_objective())
            };
            let (off, none) = run(false);
            let (on, trace) = run(true);
            assert!(none.is_none());
            let (trace, truncated) = trace.expect("recorded");
            assert!(!truncated);
            let fin = |r: &crate::RunResult| r.flows.iter().map(|f| f.finish_s).collect::<Vec<_>>();
            assert_eq!(fin(&off), fin(&on), "{policy}");
            assert_eq!(
                trace.delivered.len() as u64,
                dctc_num::objective::Trace::intervals(50e-6, on.end_s),
                "{policy}"
            );
            let mut total = vec![0.0f64; on.flows.len()];
            for row in &trace.delivered {
                for &(f, bits) in row {
                    total[f as usize] += bits;
                    // 10 Gb/s host links: at most 500 kbit per 50 us interval.
                    assert!(bits <= 10e9 * 50e-6 * (1.0 + 1e-9), "{policy}: {bits}");
                }
            }
            for (f, rec) in on.flows.iter().enumerate() {
                let want = rec.bytes * 8.0;
                assert!((total[f] - want).abs() <= 1e-6 * want, "{policy} flow {f}");
                assert_eq!(trace.flows[f].end_s, rec.finish_s);
                assert_eq!(trace.flows[f].start_s, rec.start_s);
            }
        }
    }

    #[test]
    fn recording_stops_at_its_interval_limit_and_says_so() {
        let net = test_net();
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let coflows = random_coflows(&mut rng, 10, 1_000_000_000, 2e6);
        let cfg = PolicyConfig::named("maxmin");
        let p = make_policy(&cfg, &net, &[]).unwrap();
        let mut sim = Simulator::new(&net, coflows, p, SimConfig::default());
        sim.record_objective(Delta::from_us(10), 3);
        let r = sim.run(|_| {});
        assert!(r.end_s > 30e-6);
        let (trace, truncated) = sim.take_objective().unwrap();
        assert!(truncated);
        assert_eq!(trace.delivered.len(), 3);
        assert_eq!(
            trace.end_s,
            SimTime::from_delta(Delta::from_us(30)).as_secs_f64()
        );
    }
}
