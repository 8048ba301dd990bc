//! XCP's router (Katabi, Handley, Rohrs, SIGCOMM 2002) as a queue discipline of one output
//! port: a FIFO whose data packets leave with their congestion header's feedback lowered to
//! what this link allows.
//!
//! The congestion header rides in [`HeaderExt`]: `window` is H_cwnd (the sender's congestion
//! window, bytes), `aux` is H_rtt (the sender's RTT estimate, nanoseconds; 0 while it has
//! none) and `feedback` is H_feedback (the window change the sender asks for, bytes; each
//! router on the path lowers it to its own feedback, so the sender gets the minimum along
//! the path). ACKs carry the echoed header back and are never rewritten.
//!
//! Every control interval `d` (the mean RTT of the flows seen in the last interval, each flow
//! counted once per RTT) the router computes the aggregate feedback from the spare bandwidth
//! and the persistent queue (efficiency controller, XCP §3.5 eq. (1)), adds the shuffled
//! traffic that moves bandwidth between flows (fairness controller, §3.6 eq. (2)), and turns
//! both into the per-packet constants ξ_p and ξ_n (§3.6). Each departing data packet then
//! gets `p_i - n_i`: its share of the positive pool, equal per flow, and of the negative
//! pool, proportional to its flow's throughput.

use super::fifo::{fifo_sizes, Fifo};
use super::{Context, Discipline, Enqueued, QueueDisc};
use crate::engine::{PacketId, PacketPool};
use crate::keys::Range;
use crate::packet::{HeaderExt, PacketKind};
use dctc_core::error::KeyError;
use dctc_core::units::{Delta, Rate, SimTime};

/// XCP's router constants.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct XcpParams {
    /// α of the efficiency controller: the share of spare bandwidth handed out per interval
    /// (XCP: 0.4, stable with β for any delay and capacity, §4).
    pub alpha: f64,
    /// β of the efficiency controller: the share of the persistent queue drained per
    /// interval (XCP: 0.226).
    pub beta: f64,
    /// γ of the fairness controller: the share of input traffic reallocated per interval
    /// (XCP: 0.1).
    pub gamma: f64,
    /// The control interval before any packet has carried an RTT (replaced by the flows'
    /// mean RTT after the first interval that saw one; 10 us, a datacenter RTT).
    pub initial_interval: Delta,
    /// A floor under the control interval (zero: none, XCP §3.5's d is the flows' mean
    /// RTT). ns-2's XCP router, which the Flowtune paper ran, floors it at 1 ms
    /// (`XCP_MIN_INTERVAL`), 50 times this fabric's RTT; a reading, never the default.
    pub min_interval: Delta,
}

// Validated parameters are finite (never NaN), so equality is an equivalence.
impl Eq for XcpParams {}

impl Default for XcpParams {
    fn default() -> Self {
        XcpParams {
            alpha: 0.4,
            beta: 0.226,
            gamma: 0.1,
            initial_interval: Delta::from_us(10),
            min_interval: Delta::ZERO,
        }
    }
}

impl XcpParams {
    /// Checks the constants: α and β in (0, 1) with α < π / (4 √2) ≈ 0.555 and β = α² √2
    /// the stability condition of XCP §4 (Theorem 1: stable if 0 < α < π/(4√2) and
    /// β = α² √2); β itself is only required to lie in (0, 1), since the paper's 0.226 is
    /// α² √2 rounded; γ in (0, 1]; a positive initial interval. The error names the field.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let bound = std::f64::consts::PI / (4.0 * std::f64::consts::SQRT_2);
        if !(self.alpha > 0.0 && self.alpha < bound) {
            return Err((
                "alpha",
                format!(
                    "must be in (0, {bound:.4}) (XCP §4: 0 < alpha < pi / (4 sqrt 2)), got {}",
                    self.alpha
                ),
            ));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(("beta", format!("must be in (0, 1), got {}", self.beta)));
        }
        if !(self.gamma > 0.0 && self.gamma <= 1.0) {
            return Err(("gamma", format!("must be in (0, 1], got {}", self.gamma)));
        }
        if self.initial_interval.0 == 0 {
            return Err(("initial_interval_us", "must be positive".into()));
        }
        Ok(())
    }
}

/// What the router measured over one control interval.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
struct Sums {
    /// Input traffic, bytes (y · d): every packet, ACKs included, since all use the link.
    input_bytes: f64,
    /// Σ s_i over data packets that carry a congestion header (H_rtt > 0): the traffic
    /// feedback can reach.
    data_bytes: f64,
    /// Σ s_i rtt_i / cwnd_i (seconds): each flow adds about `d` per interval.
    rtt_by_cwnd: f64,
    /// Σ s_i rtt_i² / cwnd_i (seconds²): each flow adds about `d rtt_i`.
    rtt2_by_cwnd: f64,
    /// Smallest queue an arrival found, bytes (the persistent queue Q).
    min_queue: u64,
}

/// One port's XCP router over a FIFO.
#[derive(Debug)]
pub struct XcpRouter {
    fifo: Fifo,
    params: XcpParams,
    /// Link capacity C, bytes per second.
    capacity_bytes_per_s: f64,
    /// The current control interval d.
    interval: Delta,
    /// When the current interval ends; `NEVER` while the port is idle.
    next_tick: SimTime,
    sums: Sums,
    /// ξ_p of the last interval (XCP §3.6), bytes per second².
    xi_pos: f64,
    /// ξ_n of the last interval (XCP §3.6), per second.
    xi_neg: f64,
    /// Aggregate feedback φ of the last interval, bytes (for tests and inspection).
    phi: f64,
}

impl XcpRouter {
    /// A router on a link of `rate` with a `buffer_bytes` buffer.
    pub fn new(buffer_bytes: u64, rate: Rate, params: XcpParams) -> Self {
        XcpRouter {
            fifo: Fifo::new(buffer_bytes, 16),
            params,
            capacity_bytes_per_s: rate.bps_f64() / 8.0,
            interval: params.initial_interval,
            next_tick: SimTime::NEVER,
            sums: Sums {
                min_queue: u64::MAX,
                ..Sums::default()
            },
            xi_pos: 0.0,
            xi_neg: 0.0,
            phi: 0.0,
        }
    }

    /// The control interval in force.
    pub fn interval(&self) -> Delta {
        self.interval
    }

    /// The aggregate feedback φ of the last interval, bytes.
    pub fn aggregate_feedback(&self) -> f64 {
        self.phi
    }

    /// The feedback, bytes, this router gives a packet of `size` bytes whose header says
    /// `cwnd` bytes and `rtt_s` seconds: p_i - n_i (XCP §3.6).
    pub fn feedback_for(&self, size: f64, cwnd: f64, rtt_s: f64) -> f64 {
        if rtt_s <= 0.0 || cwnd <= 0.0 {
            return 0.0;
        }
        // XCP §3.6: p_i = ξ_p rtt_i² s_i / cwnd_i.
        let pos = self.xi_pos * rtt_s * rtt_s * size / cwnd;
        // XCP §3.6: n_i = ξ_n rtt_i s_i.
        let neg = self.xi_neg * rtt_s * size;
        pos - neg
    }

    /// Ends the control interval: computes φ, h, ξ_p and ξ_n from what it measured and
    /// sets the next interval to the flows' mean RTT.
    fn end_interval(&mut self) {
        let d = self.interval.as_secs_f64();
        let s = self.sums;
        let q = if s.min_queue == u64::MAX {
            0.0
        } else {
            s.min_queue as f64
        };
        // Spare bandwidth S = C - y (bytes per second; negative when over-subscribed).
        let spare = self.capacity_bytes_per_s - s.input_bytes / d;
        // XCP eq. (1): φ = α d S - β Q.
        let phi = self.params.alpha * d * spare - self.params.beta * q;
        // XCP eq. (2): h = max(0, γ y - |φ|), y the input traffic of the interval (the XCP
        // traffic: ACKs carry no feedback and cannot be shuffled).
        let h = (self.params.gamma * s.data_bytes - phi.abs()).max(0.0);
        // XCP §3.6: ξ_p = (h + max(φ, 0)) / (d Σ rtt_i s_i / cwnd_i).
        self.xi_pos = if s.rtt_by_cwnd > 0.0 {
            (h + phi.max(0.0)) / (d * s.rtt_by_cwnd)
        } else {
            0.0
        };
        // XCP §3.6: ξ_n = (h + max(-φ, 0)) / (d Σ s_i), the sum over packets that can carry
        // feedback, so ACK bytes on the link do not dilute it.
        self.xi_neg = if s.data_bytes > 0.0 {
            (h + (-phi).max(0.0)) / (d * s.data_bytes)
        } else {
            0.0
        };
        self.phi = phi;
        // d = the flows' mean RTT: Σ s rtt² / cwnd over Σ s rtt / cwnd weighs each flow once.
        if s.rtt_by_cwnd > 0.0 {
            let mean = s.rtt2_by_cwnd / s.rtt_by_cwnd;
            let ps = (mean * 1e12).round().max(1.0) as u64;
            self.interval = Delta(ps).max(self.params.min_interval);
        }
        self.sums = Sums {
            min_queue: u64::MAX,
            ..Sums::default()
        };
    }

    /// Queues `pkt` if it fits the buffer (tail drop otherwise).
    fn push(&mut self, pkt: PacketId, pool: &PacketPool) -> Enqueued {
        match self.fifo.push(pkt, pool) {
            Ok(()) => Enqueued::Queued { marked: false },
            Err(p) => Enqueued::Dropped(p),
        }
    }

    /// Rewrites the congestion header of a departing data packet: H_feedback becomes the
    /// smaller of its own value and this router's feedback.
    #[inline]
    fn stamp(&self, ext: &mut HeaderExt, size: f64) {
        let fb = self.feedback_for(size, ext.window as f64, ext.aux as f64 * 1e-9);
        if fb < ext.feedback {
            ext.feedback = fb;
        }
    }
}

impl QueueDisc for XcpRouter {
    fn enqueue(&mut self, pkt: PacketId, pool: &mut PacketPool, now: SimTime) -> Enqueued {
        let size = pool[pkt].wire_bytes as f64;
        let data = pool[pkt].kind == PacketKind::Data;
        let queued = self.fifo.bytes();
        if self.next_tick == SimTime::NEVER {
            if !data {
                // A port that carries only ACKs has nothing to control: no timer.
                return self.push(pkt, pool);
            }
            // The first data arrival on an idle port starts an interval.
            self.next_tick = now + self.interval;
        }
        let s = &mut self.sums;
        s.input_bytes += size;
        s.min_queue = s.min_queue.min(queued);
        if data {
            let ext = pool.ext(pkt);
            let (cwnd, rtt) = (ext.window as f64, ext.aux as f64 * 1e-9);
            if cwnd > 0.0 && rtt > 0.0 {
                s.data_bytes += size;
                s.rtt_by_cwnd += size * rtt / cwnd;
                s.rtt2_by_cwnd += size * rtt * rtt / cwnd;
            }
        }
        self.push(pkt, pool)
    }

    fn dequeue(&mut self, pool: &mut PacketPool, _now: SimTime) -> Option<PacketId> {
        let p = self.fifo.pop(pool)?;
        if pool[p].kind == PacketKind::Data {
            let size = pool[p].wire_bytes as f64;
            self.stamp(pool.ext(p), size);
        }
        Some(p)
    }

    fifo_sizes!(fifo);

    fn poll_at(&self) -> SimTime {
        self.next_tick
    }

    fn on_timer(&mut self, _pool: &mut PacketPool, now: SimTime) {
        if now < self.next_tick {
            return;
        }
        let idle = self.sums.data_bytes == 0.0 && self.fifo.is_empty();
        self.end_interval();
        // An idle port stops its timer; the next arrival starts a fresh interval.
        self.next_tick = if idle {
            SimTime::NEVER
        } else {
            now + self.interval
        };
    }
}

crate::unit_keys! {
    /// The `xcp` router's keys.
    pub struct Keys {
        /// α of the efficiency controller, in (0, π / (4√2)) (default 0.4).
        xcp_alpha: f64,
        /// β of the efficiency controller, in (0, 1) (default 0.226).
        xcp_beta: f64,
        /// The first control interval, before any packet has carried an RTT, microseconds,
        /// positive (default 10; ns-2's XCP: 50,000).
        xcp_initial_interval_us: f64,
        /// A floor under the control interval, none at 0 (XCP §3.5: the flows' mean RTT;
        /// ns-2's XCP: 1,000), microseconds, non-negative (default 0).
        xcp_min_interval_us: f64,
    }
}

impl Discipline for XcpParams {
    const NAME: &'static str = "xcp";
    const ABOUT: &'static str = "XCP router (SIGCOMM 2002): FIFO writing per-packet window feedback";
    type Keys = Keys;
    type Queue = Box<XcpRouter>;
    fn resolve(keys: &Keys, ctx: &Context) -> Result<Self, KeyError> {
        let d = XcpParams::default();
        let at = ctx.at;
        let initial = at.micros(
            "xcp_initial_interval_us",
            keys.xcp_initial_interval_us,
            Range::open_closed(0.0, 1e6),
        )?;
        let floor = at.micros(
            "xcp_min_interval_us",
            keys.xcp_min_interval_us,
            Range::closed(0.0, 1e6),
        )?;
        let p = XcpParams {
            alpha: keys.xcp_alpha.unwrap_or(d.alpha),
            beta: keys.xcp_beta.unwrap_or(d.beta),
            initial_interval: initial.unwrap_or(d.initial_interval),
            min_interval: floor.unwrap_or(d.min_interval),
            ..d
        };
        p.validate()
            .map_err(|(field, reason)| ctx.at.error(&format!("xcp_{field}"), reason))?;
        Ok(p)
    }
    /// C is the port's link rate.
    fn build(&self, buffer_bytes: u64, _seed: u64, rate: Rate) -> Box<XcpRouter> {
        Box::new(XcpRouter::new(buffer_bytes, rate, *self))
    }
    /// XCP controls every link it crosses, host NICs included (one sender's flows share it).
    fn host_nic(&self) -> Option<Self> {
        Some(*self)
    }
}

#[cfg(test)]
#[path = "xcp/tests.rs"]
mod tests;
