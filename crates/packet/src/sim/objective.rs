//! The objective report's recording (issue 30; the math is `dctc_num::objective`): at every
//! interval boundary, the bytes each open-loop flow's receiver got in order since the last
//! one. The loop calls [`ObjectiveRec::sample`] before the first event at or after a
//! boundary, so nothing enters the event queue and a run with the report off differs only by
//! one comparison per event. A flow's paths (set up in `sim/mod.rs`): its ECMP path, its
//! pinned subflow paths, or under a per-packet balancer every equal-cost path.

use super::host::Hosts;
use dctc_core::units::{Delta, SimTime};
use dctc_num::objective::{Trace, TraceFlow};

/// The recording of one run.
pub(crate) struct ObjectiveRec {
    interval: Delta,
    /// The next boundary (the loop's trigger).
    pub(crate) next: SimTime,
    /// Per objective flow: its endpoints (a multipath connection's subflows, or the flow).
    members: Vec<Vec<u32>>,
    /// Per objective flow: bytes its receivers had delivered in order at the last boundary.
    last: Vec<u64>,
    trace: Trace,
    /// Per objective flow: long-lived flows' stop times (`None`: sized, or never stops).
    stops: Vec<Option<SimTime>>,
    long_lived: Vec<bool>,
    /// Per objective flow: its lead endpoint.
    lead: Vec<u32>,
}

impl ObjectiveRec {
    /// A recording at `interval` of the open-loop flows `arrivals` (endpoint indices, with
    /// their subflows `members`, paths, long-lived flags and stop times).
    pub(crate) fn new(
        interval: Delta,
        members: Vec<Vec<u32>>,
        paths: Vec<Vec<Vec<usize>>>,
        long_lived: Vec<bool>,
        stops: Vec<Option<SimTime>>,
    ) -> ObjectiveRec {
        let lead = members.iter().map(|m| m[0]).collect();
        ObjectiveRec {
            interval,
            next: SimTime::ZERO + interval,
            last: vec![0; members.len()],
            members,
            trace: Trace {
                interval_s: interval.as_secs_f64(),
                end_s: 0.0,
                flows: paths
                    .into_iter()
                    .map(|paths| TraceFlow {
                        paths,
                        start_s: 0.0,
                        end_s: None,
                    })
                    .collect(),
                delivered: Vec::new(),
            },
            stops,
            long_lived,
            lead,
        }
    }

    /// Closes every interval that ends at or before `t`.
    pub(crate) fn sample(&mut self, t: SimTime, hosts: &Hosts) {
        while self.next <= t {
            self.close_interval(hosts);
            self.next += self.interval;
        }
    }

    fn close_interval(&mut self, hosts: &Hosts) {
        let mut row = Vec::new();
        for (k, m) in self.members.iter().enumerate() {
            let now: u64 = m
                .iter()
                .map(|&e| hosts.flows[e as usize].receiver.delivered())
                .sum();
            if now > self.last[k] {
                row.push((k as u32, (now - self.last[k]) as f64 * 8.0));
                self.last[k] = now;
            }
        }
        self.trace.delivered.push(row);
    }

    /// The trace of a run that ended at `end`: the intervals up to it (the last one partial
    /// when `end` is not on a boundary), with each flow's start and end.
    pub(crate) fn finish(mut self, end: SimTime, hosts: &Hosts) -> Trace {
        self.sample(end, hosts);
        if SimTime(self.next.0 - self.interval.0) < end {
            self.close_interval(hosts);
        }
        self.trace.end_s = end.as_secs_f64();
        for (k, f) in self.trace.flows.iter_mut().enumerate() {
            let ep = &hosts.flows[self.lead[k] as usize];
            f.start_s = ep.start.as_secs_f64();
            let end = if self.long_lived[k] {
                self.stops[k]
            } else {
                ep.finish
            };
            f.end_s = end.map(|t| t.as_secs_f64());
        }
        self.trace
    }
}
