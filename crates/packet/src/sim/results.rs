//! What a run hands back: per-flow records, counters, port statistics, samples and series,
//! assembled from the parts at the end.

use super::host::{Endpoint, Hosts, NONE};
use dctc_core::stats::FlowRecord;
use dctc_core::topology::Topology;
use dctc_core::units::SimTime;

/// Turns a flow's endpoint into its record.
pub(crate) struct Recorder<'a> {
    pub(crate) topo: &'a Topology,
    pub(crate) label: &'a str,
}

impl Recorder<'_> {
    /// The record of one block of `fl`: id `id`, started at `start`, `size` bytes (0 for a
    /// long-lived flow), finished at `finish` if it did.
    pub(crate) fn record(
        &self,
        fl: &Endpoint,
        id: u32,
        start: SimTime,
        size: u64,
        finish: Option<SimTime>,
    ) -> FlowRecord {
        let fct = finish.map(|t| t.saturating_since(start));
        let ideal = fl.ideal;
        FlowRecord {
            id,
            src: self.topo.host_index(fl.src).unwrap_or(0),
            dst: self.topo.host_index(fl.dst).unwrap_or(0),
            size,
            start_us: start.as_us_f64(),
            finish_us: finish.map(|t| t.as_us_f64()),
            fct_us: fct.map(|d| d.as_us_f64()),
            ideal_fct_us: ideal.as_us_f64(),
            slowdown: fct.map(|d| d.0 as f64 / ideal.0.max(1) as f64),
            retransmitted_bytes: fl.sender.retransmitted_bytes,
            timeouts: fl.sender.timeouts,
            scheme: self.label.to_string(),
        }
    }
}

/// Throughput series of the long-lived flows: `(flow id, bytes per bin)` in flow order; a
/// multipath connection has one series, its first subflow's place, summing its subflows'.
pub(crate) fn throughput(hosts: &Hosts) -> Vec<(u32, Vec<u64>)> {
    hosts
        .flows
        .iter()
        .enumerate()
        .filter(|(i, f)| {
            f.binned && (f.conn == NONE || hosts.conns[f.conn as usize][0] == *i as u32)
        })
        .map(|(_, f)| {
            if f.conn == NONE {
                return (f.id, f.bins.clone());
            }
            // A connection's throughput is the sum of its subflows'.
            let mut sum: Vec<u64> = Vec::new();
            for &m in &hosts.conns[f.conn as usize] {
                let b = &hosts.flows[m as usize].bins;
                if sum.len() < b.len() {
                    sum.resize(b.len(), 0);
                }
                for (s, x) in sum.iter_mut().zip(b) {
                    *s += x;
                }
            }
            (f.id, sum)
        })
        .collect()
}

/// Each multipath connection's subflows' series: `(flow id, subflow index, bytes per bin)`.
pub(crate) fn subflow_throughput(hosts: &Hosts) -> Vec<(u32, u32, Vec<u64>)> {
    hosts
        .conns
        .iter()
        .flat_map(|members| {
            members.iter().enumerate().map(|(k, &m)| {
                let f = &hosts.flows[m as usize];
                (f.id, k as u32, f.bins.clone())
            })
        })
        .collect()
}
