//! What a run reports: per-coflow and per-flow records and their statistics.

use dctc_core::stats::{percentile_sorted, Percentiles};
use serde::Serialize;

/// One coflow's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CoflowRecord {
    /// Workload id.
    pub id: u32,
    /// Arrival, seconds.
    pub arrival_s: f64,
    /// Completion, seconds (`None` if unfinished when the run stopped).
    pub finish_s: Option<f64>,
    /// Coflow completion time, seconds.
    pub cct_s: Option<f64>,
    /// Lower bound on the CCT: the coflow alone on the fabric (its busiest host port, or its
    /// largest flow at its path's bottleneck rate), seconds.
    pub ideal_s: f64,
    /// Number of flows.
    pub flows: u32,
    /// Total bytes.
    pub bytes: f64,
}

/// One flow's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowRecordOut {
    /// Flow number.
    pub id: u32,
    /// Workload id of its coflow.
    pub coflow: u32,
    /// Sender host index.
    pub src: u32,
    /// Receiver host index.
    pub dst: u32,
    /// Size, bytes.
    pub bytes: f64,
    /// Start (its coflow's arrival), seconds.
    pub start_s: f64,
    /// Finish, seconds.
    pub finish_s: Option<f64>,
    /// Flow completion time, seconds.
    pub fct_s: Option<f64>,
    /// The flow alone at its route's bottleneck rate, seconds.
    pub ideal_s: f64,
}

/// Everything one run produced.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunResult {
    /// Policy name.
    pub policy: String,
    /// Routing name.
    pub routing: String,
    /// Per coflow, in arrival order.
    pub coflows: Vec<CoflowRecord>,
    /// Per flow.
    pub flows: Vec<FlowRecordOut>,
    /// Events processed.
    pub events: u64,
    /// Rate recomputations (event-driven).
    pub allocations: u64,
    /// Flows summed over all recomputations (component sizes).
    pub allocated_flows: u64,
    /// Policy ticks.
    pub ticks: u64,
    /// Hedera rounds.
    pub reroutes: u64,
    /// Simulated time at the end, seconds.
    pub end_s: f64,
    /// Policy-specific figures (name, value).
    pub extra: Vec<(String, f64)>,
}

/// CCT statistics of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CctSummary {
    /// Coflows in the workload.
    pub coflows: usize,
    /// Coflows that finished.
    pub finished: usize,
    /// Mean CCT, seconds.
    pub avg_cct_s: f64,
    /// Median CCT, seconds.
    pub p50_cct_s: f64,
    /// 99th percentile CCT, seconds.
    pub p99_cct_s: f64,
    /// Largest CCT, seconds.
    pub max_cct_s: f64,
    /// Mean of CCT / isolation bound.
    pub avg_slowdown: f64,
    /// Mean FCT, seconds.
    pub avg_fct_s: f64,
    /// 99th percentile FCT, seconds.
    pub p99_fct_s: f64,
    /// Bytes delivered / makespan (last completion - first arrival), Gb/s.
    pub throughput_gbps: f64,
    /// Last completion - first arrival, seconds.
    pub makespan_s: f64,
}

impl RunResult {
    /// Sorted CCTs of finished coflows, seconds.
    pub fn ccts(&self) -> Vec<f64> {
        let mut v: Vec<f64> = self.coflows.iter().filter_map(|c| c.cct_s).collect();
        v.sort_by(f64::total_cmp);
        v
    }

    /// CCT statistics.
    pub fn summary(&self) -> CctSummary {
        let ccts = self.ccts();
        let p = Percentiles::of(&ccts);
        let slow: Vec<f64> = self
            .coflows
            .iter()
            .filter_map(|c| {
                c.cct_s
                    .map(|x| if c.ideal_s > 0.0 { x / c.ideal_s } else { 1.0 })
            })
            .collect();
        let fcts: Vec<f64> = self.flows.iter().filter_map(|f| f.fct_s).collect();
        let pf = Percentiles::of(&fcts);
        let first = self
            .coflows
            .iter()
            .map(|c| c.arrival_s)
            .fold(f64::INFINITY, f64::min);
        let last = self
            .flows
            .iter()
            .filter_map(|f| f.finish_s)
            .fold(f64::NEG_INFINITY, f64::max);
        let bytes: f64 = self
            .flows
            .iter()
            .filter(|f| f.finish_s.is_some())
            .map(|f| f.bytes)
            .sum();
        let makespan = if last > first { last - first } else { 0.0 };
        CctSummary {
            coflows: self.coflows.len(),
            finished: ccts.len(),
            avg_cct_s: p.mean,
            p50_cct_s: p.p50,
            p99_cct_s: p.p99,
            max_cct_s: p.max,
            avg_slowdown: if slow.is_empty() {
                0.0
            } else {
                slow.iter().sum::<f64>() / slow.len() as f64
            },
            avg_fct_s: pf.mean,
            p99_fct_s: pf.p99,
            throughput_gbps: if makespan > 0.0 {
                bytes * 8.0 / makespan / 1e9
            } else {
                0.0
            },
            makespan_s: makespan,
        }
    }

    /// The CCT CDF at `points` evenly spaced quantiles: `(cct_s, fraction)`.
    pub fn cct_cdf(&self, points: usize) -> Vec<(f64, f64)> {
        let ccts = self.ccts();
        if ccts.is_empty() {
            return Vec::new();
        }
        let points = points.max(2);
        (0..points)
            .map(|k| {
                let q = k as f64 / (points - 1) as f64;
                (percentile_sorted(&ccts, q), q)
            })
            .collect()
    }
}
