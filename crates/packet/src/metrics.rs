//! What a run measures: counters, a queueing-delay histogram, per-port statistics, queue
//! samples and per-flow throughput bins.

use dctc_core::stats::FlowRecord;
use dctc_core::units::Delta;

/// A log-linear histogram of picosecond values: 256 sub-buckets per power of two, and a
/// percentile reads as the middle of its bucket, so it is within 0.2% of the exact
/// nearest-rank value (values below 256 ps are exact). Fixed size, no allocation per sample.
#[derive(Clone, Debug)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    max: u64,
    sum: u128,
}

const SUB: u32 = 256;
const SUB_BITS: u32 = 8;

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: vec![0; (64 * SUB) as usize],
            total: 0,
            max: 0,
            sum: 0,
        }
    }
}

impl Histogram {
    fn index(v: u64) -> usize {
        if v < SUB as u64 {
            return v as usize;
        }
        let msb = 63 - v.leading_zeros();
        let shift = msb - SUB_BITS;
        ((shift + 1) * SUB + ((v >> shift) as u32 & (SUB - 1))) as usize
    }

    fn low(i: usize) -> u64 {
        let i = i as u32;
        if i < SUB {
            return i as u64;
        }
        let shift = i / SUB - 1;
        ((SUB + i % SUB) as u64) << shift
    }

    /// Adds one value.
    #[inline]
    pub fn record(&mut self, v: u64) {
        self.counts[Self::index(v)] += 1;
        self.total += 1;
        self.max = self.max.max(v);
        self.sum += v as u128;
    }

    /// Number of values.
    pub fn count(&self) -> u64 {
        self.total
    }
    /// Largest value (exact).
    pub fn max(&self) -> u64 {
        self.max
    }
    /// Mean (exact).
    pub fn mean(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.sum as f64 / self.total as f64
        }
    }

    /// Width of bucket `i`.
    fn width(i: usize) -> u64 {
        let i = i as u32;
        if i < SUB {
            1
        } else {
            1 << (i / SUB - 1)
        }
    }

    /// The `q`-quantile (0..=1), nearest rank: the middle of the bucket holding it, capped at
    /// the max.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return (Self::low(i) + (Self::width(i) - 1) / 2).min(self.max);
            }
        }
        self.max
    }

    /// `(value, fraction of values in its group of buckets or below)` at the lower edge of
    /// each non-empty group of 8 adjacent buckets (32 points per power of two at most), for
    /// CDF plots.
    pub fn cdf_points(&self) -> Vec<(u64, f64)> {
        const GROUP: usize = 8;
        let mut seen = 0;
        let mut out = Vec::new();
        for (g, chunk) in self.counts.chunks(GROUP).enumerate() {
            let c: u64 = chunk.iter().sum();
            if c > 0 {
                seen += c;
                out.push((
                    Self::low(g * GROUP).min(self.max),
                    seen as f64 / self.total as f64,
                ));
            }
        }
        out
    }
}

/// Whole-run counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Events processed.
    pub events: u64,
    /// Packets serialized onto a link (a packet crossing one link).
    pub packet_hops: u64,
    /// Packets hosts put on the wire.
    pub sent_packets: u64,
    /// Wire bytes hosts put on the wire.
    pub sent_bytes: u64,
    /// Packets that reached their destination host.
    pub delivered_packets: u64,
    /// Wire bytes that reached their destination host.
    pub delivered_bytes: u64,
    /// Packets dropped by full buffers.
    pub dropped_packets: u64,
    /// Wire bytes dropped.
    pub dropped_bytes: u64,
    /// Packets still queued or on a link when the run ended.
    pub in_flight_packets: u64,
    /// Wire bytes still queued or on a link when the run ended.
    pub in_flight_bytes: u64,
    /// CE marks set by switches.
    pub ecn_marks: u64,
    /// Payload bytes delivered in order to receiving applications.
    pub goodput_bytes: u64,
    /// When the last of them was delivered, ps (0: none). Goodput is taken over the run up
    /// to here: a finished flow's sender can keep a timer past its last useful byte (an RTO
    /// in backoff whose ACK was lost), which would otherwise stretch the run and dilute it.
    pub last_goodput_ps: u64,
    /// Data packets (payload-carrying) that reached their destination host, retransmissions
    /// included.
    pub delivered_data_packets: u64,
    /// Data packets senders put on the wire again (fast retransmit or timeout).
    pub retransmitted_packets: u64,
    /// Retransmission timeouts over all flows.
    pub timeouts: u64,
    /// Timeouts that were spurious: when the copy the timeout retransmitted (its first byte)
    /// reached the receiver, the receiver already held that byte, so nothing had been lost;
    /// the original or its acknowledgement was only late. (A copy that is itself dropped
    /// leaves its timeout uncounted here.)
    pub spurious_timeouts: u64,
    /// Payload bytes retransmitted over all flows.
    pub retransmitted_bytes: u64,
    /// Data packets that reached their receiver after a packet of the same flow sent later
    /// (per-packet load balancing reorders; a retransmission, sent later, is not counted).
    pub reordered_packets: u64,
    /// Single-hop signals first-hop switches sent their flows' sources (changes of the
    /// judgment; see [`crate::signal`]).
    pub hop_signals: u64,
    /// Control plane (Flowtune): wire bytes hosts sent to the allocator (notifications and
    /// the ACKs of updates).
    pub control_to_agent_bytes: u64,
    /// Control plane: wire bytes the allocator sent (rate updates and ACKs of notifications).
    pub control_from_agent_bytes: u64,
    /// Control plane: rate updates the allocator sent.
    pub rate_updates: u64,
    /// Control plane: rate updates that arrived and took effect at an endpoint.
    pub rate_updates_applied: u64,
    /// Control plane: flowlets that started.
    pub flowlets: u64,
    /// Control plane: sum over applied updates of the time from the allocator writing the
    /// update to it taking effect at the endpoint, ps.
    pub rate_update_delay_sum_ps: u64,
    /// Control plane: the largest such time, ps.
    pub rate_update_delay_max_ps: u64,
    /// Flows that stalled at least once: held data the receiver had not acknowledged, were
    /// not paced or waiting on their own NIC packets, and neither sent nor heard an ACK for
    /// longer than their retransmission timeout (see `TcpSender::stalled`). Checked at each
    /// flow's timer events and at the end of the run; a correct engine has none.
    pub stalled_flows: u64,
    /// Flows whose payload did not balance at the end of the run: bytes sent (retransmissions
    /// included) = bytes that reached the receiver + dropped + still in the network, with
    /// acknowledged <= delivered in order <= highest sent. A correct engine has none.
    pub unbalanced_flows: u64,
}

/// One output port's statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct PortStats {
    /// Sending node's name.
    pub from: String,
    /// Receiving node's name.
    pub to: String,
    /// Whether a switch owns the port (else a host NIC).
    pub switch: bool,
    /// Link rate, bits per second.
    pub rate_bps: f64,
    /// Buffer, bytes.
    pub buffer_bytes: u64,
    /// Largest backlog seen, bytes.
    pub max_queue_bytes: u64,
    /// Time-averaged backlog over the run, bytes.
    pub mean_queue_bytes: f64,
    /// Fraction of the run the link was sending: bytes whose serialization ended by the end
    /// of the run, over what the link could carry in that time (at most 1).
    pub utilization: f64,
    /// Packets dropped at this port.
    pub drops: u64,
    /// CE marks set at this port.
    pub ecn_marks: u64,
}

/// One sample of one switch port's backlog.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct QueueSample {
    /// Sample time, ps.
    pub time_ps: u64,
    /// Port (link index).
    pub link: u32,
    /// Backlog, bytes.
    pub bytes: u64,
    /// Wire bytes the port had finished serializing by the sample time, since the run began
    /// (differences between samples give the link's utilization over time).
    pub sent_bytes: u64,
}

/// One sample of one switch port's discipline state (`RunOptions::port_state_sample`).
#[derive(Clone, Debug, PartialEq)]
pub struct PortStateSample {
    /// Sample time, ps.
    pub time_ps: u64,
    /// Port (link index).
    pub link: u32,
    /// The discipline's names of `values` (`queue::Discipline::STATE_FIELDS`).
    pub fields: &'static [&'static str],
    /// Its values, one per field.
    pub values: Vec<f64>,
}

impl PortStateSample {
    /// The value of field `name`, if the discipline reports one.
    pub fn get(&self, name: &str) -> Option<f64> {
        let i = self.fields.iter().position(|f| *f == name)?;
        self.values.get(i).copied()
    }
}

/// One incast's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct IncastResult {
    /// Number of senders.
    pub senders: usize,
    /// Rounds whose every block arrived.
    pub rounds_completed: usize,
    /// Block bytes delivered per second of completed rounds, Gb/s.
    pub goodput_gbps: f64,
    /// Timeouts of the incast's connections.
    pub timeouts: u64,
}

/// Everything one scheme's run produced.
#[derive(Clone, Debug)]
pub struct PacketRun {
    /// The scheme's label.
    pub label: String,
    /// One record per sized flow or incast block (finished or not) and per long-lived flow.
    pub records: Vec<FlowRecord>,
    /// Whole-run counters.
    pub counters: Counters,
    /// Queueing delay of every packet at every switch port, ps.
    pub queue_delay: Histogram,
    /// Per-port statistics, indexed by link.
    pub ports: Vec<PortStats>,
    /// Switch-port backlog samples (when sampling was asked for).
    pub queue_samples: Vec<QueueSample>,
    /// Switch ports' discipline state, sampled (`RunOptions::port_state_sample`): every
    /// switch port whose discipline reports one, in time and then link order.
    pub port_state: Vec<PortStateSample>,
    /// Throughput bin width (when asked for).
    pub throughput_bin: Option<Delta>,
    /// `(flow id, payload bytes arriving at the receiver per bin)` of long-lived flows: the
    /// arrival rate, which a link's rate bounds (in-order delivery after a loss releases
    /// buffered bytes in bursts and would show rates above the link's).
    pub throughput: Vec<(u32, Vec<u64>)>,
    /// `(flow id, subflow index, payload bytes per bin)` of each subflow of each multipath
    /// flow (their sum is the flow's row of `throughput`).
    pub subflow_throughput: Vec<(u32, u32, Vec<u64>)>,
    /// One entry per incast workload.
    pub incasts: Vec<IncastResult>,
    /// Simulated span, ps.
    pub simulated_ps: u64,
    /// Wall-clock seconds the run took.
    pub wall_seconds: f64,
    /// The most packets alive at once.
    pub peak_packets: usize,
    /// Flowtune §6.6 measured on the allocator node's iterations, when its scheme asked.
    pub churn: Option<dctc_num::churn::ChurnSummary>,
    /// One file per capture point of `[output] pcap`, in the order the points were given.
    pub captures: Vec<crate::capture::CaptureFile>,
    /// The objective report's trace (`RunOptions::objective`): each open-loop flow's paths,
    /// start and end, and the bits it got in order per interval.
    pub objective: Option<dctc_num::objective::Trace>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantiles_are_within_a_fraction_of_a_percent() {
        let mut h = Histogram::default();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        for q in [0.5, 0.9, 0.99, 0.999] {
            let exact = q * 100_000_000.0;
            let got = h.quantile(q) as f64;
            assert!(
                (got - exact).abs() / exact < 0.002,
                "q {q}: {got} vs {exact}"
            );
        }
        // Queueing delays of a few us (1.2 us = one 1500 B packet at 10 Gb/s).
        let mut d = Histogram::default();
        for k in 0..1000u64 {
            d.record(1_200_000 * (k % 7));
        }
        let exact = 1_200_000.0 * 6.0;
        let got = d.quantile(0.99) as f64;
        assert!((got - exact).abs() / exact < 0.002, "{got} vs {exact}");
        assert_eq!(h.max(), 100_000_000);
        assert!(h.quantile(0.0) <= 1000);
        let mut z = Histogram::default();
        z.record(0);
        z.record(0);
        z.record(5);
        assert_eq!(z.quantile(0.5), 0);
        assert_eq!(z.quantile(1.0), 5);
    }
}
