//! Flow and coflow state: what a workload hands the simulator ([`FlowInput`],
//! [`CoflowInput`]) and the per-flow and per-coflow arrays the loop keeps and policies read
//! ([`Flows`], [`Coflows`]).

use crate::net::Hop;
use dctc_core::units::SimTime;

/// One flow of a coflow, as a workload produces it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FlowInput {
    /// Sender host index.
    pub src: u32,
    /// Receiver host index.
    pub dst: u32,
    /// Payload bytes (> 0).
    pub bytes: f64,
}

/// A coflow: flows that arrive together and finish when the last one does.
#[derive(Clone, Debug, PartialEq)]
pub struct CoflowInput {
    /// The workload's id (trace coflow id, or a running number).
    pub id: u32,
    /// Arrival time.
    pub arrival: SimTime,
    /// Its flows (at least one).
    pub flows: Vec<FlowInput>,
}

/// Per-flow state, structure of arrays (indexed by flow number; a coflow's flows are
/// contiguous).
#[derive(Clone, Debug, Default)]
pub struct Flows {
    /// Coflow number (index into [`Coflows`]).
    pub coflow: Vec<u32>,
    /// Sender host index.
    pub src: Vec<u32>,
    /// Receiver host index.
    pub dst: Vec<u32>,
    /// Size, bytes.
    pub size: Vec<f64>,
    /// Bytes left, as of the last time the flow was settled (current inside policy calls).
    pub rem: Vec<f64>,
    /// Current rate, b/s.
    pub rate: Vec<f64>,
    /// Whether the flow has arrived and not finished.
    pub active: Vec<bool>,
    /// Finish time (`SimTime::NEVER` while unfinished).
    pub finish: Vec<SimTime>,
    pub(crate) route: Vec<(u32, u32)>,
    pub(crate) arena: Vec<Hop>,
    /// Per hop of `arena`: what the flow adds to the link's fixed-point load,
    /// `fixed(rate * coef)` at its current rate (kept so each rate change rounds once per hop).
    pub(crate) arena_q: Vec<i64>,
    pub(crate) tlast: Vec<u64>,
    pub(crate) version: Vec<u32>,
    pub(crate) sent: Vec<f64>,
    /// Bumped whenever a route is set (arrival or reroute).
    pub(crate) route_epoch: u64,
}

impl Flows {
    /// The route of flow `f` (empty before it arrives).
    pub fn hops(&self, f: usize) -> &[Hop] {
        let (a, n) = self.route[f];
        &self.arena[a as usize..(a + n) as usize]
    }

    /// Number of flows in the workload.
    pub fn len(&self) -> usize {
        self.size.len()
    }

    /// A number that changes whenever any flow's route is set (arrival or reroute): two calls
    /// that see the same number see the same routes.
    pub fn route_epoch(&self) -> u64 {
        self.route_epoch
    }

    /// Whether there are no flows.
    pub fn is_empty(&self) -> bool {
        self.size.is_empty()
    }

    /// Drops the finished flows from `list` (active flow numbers, some since finished) and
    /// sorts it.
    pub(crate) fn compact_active(&self, list: &mut Vec<u32>) {
        list.retain(|&f| self.active[f as usize]);
        // Arrivals append increasing flow numbers, so this is usually sorted already.
        if !list.is_sorted() {
            list.sort_unstable();
        }
    }
}

/// Per-coflow state.
#[derive(Clone, Debug, Default)]
pub struct Coflows {
    /// Workload id.
    pub id: Vec<u32>,
    /// Arrival time.
    pub arrival: Vec<SimTime>,
    /// First flow number.
    pub first: Vec<u32>,
    /// Number of flows.
    pub count: Vec<u32>,
    /// Flows not yet finished.
    pub left: Vec<u32>,
    /// Total bytes.
    pub bytes: Vec<f64>,
    /// Completion time (`SimTime::NEVER` while unfinished).
    pub finish: Vec<SimTime>,
    /// Isolation lower bound on the CCT, seconds.
    pub ideal: Vec<f64>,
}

impl Coflows {
    /// Flow numbers of coflow `c`.
    pub fn flows(&self, c: usize) -> std::ops::Range<usize> {
        let a = self.first[c] as usize;
        a..a + self.count[c] as usize
    }

    /// Number of coflows.
    pub fn len(&self) -> usize {
        self.id.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }
}
