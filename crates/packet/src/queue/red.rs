//! RED with ECN (Floyd and Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", 1993; RFC 2309; RFC 3168 §7), in gentle mode (Floyd, "Recommendation on using
//! the gentle_ variant of RED", 2000), as Linux's `sch_red` runs it: a FIFO that keeps an
//! exponentially weighted average of its queue and, while that average lies between two
//! thresholds, marks (ECN-capable arrivals) or drops (the others) each arrival with a
//! probability that grows with the average.
//!
//! Per arrival (Floyd & Jacobson §4, Fig. 2), with `q` the bytes waiting:
//! - the average `avg <- (1 - w_q) avg + w_q q`; an arrival that finds the queue idle since
//!   `t0` instead decays it as if `m = (now - t0) / s` empty slots had passed,
//!   `avg <- (1 - w_q)^m avg`, `s` the transmission time of one full (1500 B) packet;
//! - below `min_th` nothing happens; from `min_th` to `max_th` the base probability is
//!   `p_b = max_p (avg - min_th) / (max_th - min_th)`; in gentle mode it goes on from `max_p`
//!   at `max_th` to 1 at `2 max_th`, `p_b = max_p + (1 - max_p) (avg - max_th) / max_th`
//!   (without gentle mode, and above `2 max_th`, every arrival is marked);
//! - `count`, the arrivals on the ramp since the last mark, spreads the marks evenly:
//!   `p_a = p_b / (1 - count p_b)` (§7), so the gap between marks is uniform up to
//!   `1 / p_b` arrivals (a fraction of about `2 p_b` marked) rather than geometric;
//! - a marked arrival that is ECN-capable gets CE and is queued (RFC 3168 §7: mark where RED
//!   would drop), one that is not is dropped; an arrival that does not fit the buffer is
//!   dropped whatever RED decided. Above the hard threshold ECT packets are still marked,
//!   Linux's default (no `harddrop`).
//!
//! Keys (byte thresholds, as Linux's `limit`, `min`, `max` are bytes): `red_min_bytes`
//! (default 30,000, 20 full packets), `red_max_bytes` (default 90,000: Floyd's advice of
//! `max_th = 3 min_th`), `red_max_p` (0.1), `red_weight` (w_q, 0.002), `red_gentle` (on),
//! `red_ecn` (on: mark ECT packets; off: drop every RED victim).

use super::fifo::{fifo_sizes, Fifo};
use super::{Context, Discipline, Enqueued, QueueDisc};
use crate::engine::{PacketId, PacketPool};
use crate::keys::Range;
use dctc_core::error::KeyError;
use dctc_core::rng::{component_rng, streams, SimRng};
use dctc_core::units::{Rate, SimTime};
use rand::Rng;

/// RED's parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RedParams {
    /// `min_th`, bytes: no marks while the average is below it.
    pub min_th: u64,
    /// `max_th`, bytes: the base probability reaches `max_p` here.
    pub max_th: u64,
    /// `max_p`: the base probability at `max_th`, in (0, 1].
    pub max_p: f64,
    /// `w_q`: the average's weight of each new sample, in (0, 1].
    pub weight: f64,
    /// Gentle mode: the probability ramps from `max_p` to 1 between `max_th` and
    /// `2 max_th` instead of jumping to 1 at `max_th`.
    pub gentle: bool,
    /// Mark ECN-capable packets instead of dropping them (RFC 3168).
    pub ecn: bool,
}

// Validated parameters are finite (never NaN), so equality is an equivalence.
impl Eq for RedParams {}

impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            min_th: 20 * MTU,
            max_th: 60 * MTU,
            max_p: 0.1,
            weight: 0.002,
            gentle: true,
            ecn: true,
        }
    }
}

/// A full packet, bytes: the `s` of the idle decay and the unit of the default thresholds.
const MTU: u64 = 1500;

/// Where an average queue puts an arrival.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Region {
    /// Below `min_th`: never marked.
    Below,
    /// On the ramp: marked with base probability `p_b` (before spreading by `count`).
    Ramp(f64),
    /// Above the ramp: always marked.
    Above,
}

impl RedParams {
    /// The region of an average queue of `avg` bytes, with its base probability `p_b`.
    pub fn region(&self, avg: f64) -> Region {
        let (min, max) = (self.min_th as f64, self.max_th as f64);
        if avg < min {
            Region::Below
        } else if avg < max {
            // Floyd & Jacobson §4: p_b = max_p (avg - min_th) / (max_th - min_th).
            Region::Ramp(self.max_p * (avg - min) / (max - min))
        } else if self.gentle && avg < 2.0 * max {
            // Gentle RED: p_b = max_p + (1 - max_p) (avg - max_th) / max_th.
            Region::Ramp(self.max_p + (1.0 - self.max_p) * (avg - max) / max)
        } else {
            Region::Above
        }
    }

    /// The probability of marking an arrival on the ramp with base probability `p_b` when
    /// `count` arrivals have passed unmarked since the last mark (Floyd & Jacobson §7:
    /// `p_a = p_b / (1 - count p_b)`, 1 once `count p_b` reaches 1).
    pub fn mark_probability(p_b: f64, count: u32) -> f64 {
        let spent = count as f64 * p_b;
        if spent >= 1.0 {
            1.0
        } else {
            p_b / (1.0 - spent)
        }
    }
}

/// What RED did to arrivals (cumulative).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RedStats {
    /// ECN-capable arrivals marked CE instead of dropped.
    pub marks: u64,
    /// Arrivals dropped by RED's decision (not by a full buffer).
    pub early_drops: u64,
}

/// RED on one output port.
#[derive(Debug)]
pub struct Red {
    fifo: Fifo,
    params: RedParams,
    /// The average queue, bytes.
    avg: f64,
    /// Arrivals on the ramp since the last mark; `None` below `min_th` (Floyd's -1).
    count: Option<u32>,
    /// When the queue went idle (the last packet's transmission ends), if it is empty.
    idle_since: Option<SimTime>,
    /// Picoseconds to send one byte on the port's link.
    ps_per_byte: f64,
    rng: SimRng,
    stats: RedStats,
}

impl Red {
    /// RED with `params` on a port of `capacity` bytes feeding a link of `rate`; `seed`
    /// keys its random draws.
    pub fn new(capacity: u64, params: RedParams, rate: Rate, seed: u64) -> Red {
        Red {
            fifo: Fifo::new(capacity, 16),
            params,
            avg: 0.0,
            count: None,
            idle_since: None,
            ps_per_byte: 8e12 / rate.bps_f64().max(1.0),
            rng: component_rng(seed, streams::QUEUE),
            stats: RedStats::default(),
        }
    }

    /// The average queue, bytes.
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// Marks and early drops so far.
    pub fn stats(&self) -> RedStats {
        self.stats
    }

    /// Updates the average for an arrival at `now` (Floyd & Jacobson Fig. 2).
    fn average_at(&mut self, now: SimTime) {
        let w = self.params.weight;
        match self.idle_since.take() {
            Some(t0) if self.fifo.is_empty() => {
                // m = (now - q_time) / s: the empty slots an idle link would have sent.
                let s = MTU as f64 * self.ps_per_byte;
                let m = now.saturating_since(t0).0 as f64 / s;
                self.avg *= (1.0 - w).powf(m);
            }
            _ => self.avg += w * (self.fifo.bytes() as f64 - self.avg),
        }
    }

    /// Whether RED picks this arrival, by the average and `count`.
    fn pick(&mut self) -> bool {
        match self.params.region(self.avg) {
            Region::Below => {
                self.count = None;
                false
            }
            Region::Ramp(p_b) => {
                let count = self.count.map_or(0, |c| c + 1);
                let p_a = RedParams::mark_probability(p_b, count);
                let picked = self.rng.random::<f64>() < p_a;
                self.count = Some(if picked { 0 } else { count });
                picked
            }
            Region::Above => {
                self.count = Some(0);
                true
            }
        }
    }
}

impl QueueDisc for Red {
    fn enqueue(&mut self, pkt: PacketId, pool: &mut PacketPool, now: SimTime) -> Enqueued {
        self.average_at(now);
        let picked = self.pick();
        let size = pool[pkt].wire_bytes as u64;
        if !self.fifo.fits(size) {
            return Enqueued::Dropped(pkt);
        }
        let p = &mut pool[pkt];
        let marked = picked && self.params.ecn && p.ecn.ect;
        if picked && !marked {
            self.stats.early_drops += 1;
            return Enqueued::Dropped(pkt);
        }
        if marked {
            p.ecn.ce = true;
            self.stats.marks += 1;
        }
        p.enqueued_at = now;
        self.fifo
            .push(pkt, pool)
            .expect("the arrival fits, checked above");
        Enqueued::Queued { marked }
    }

    fn dequeue(&mut self, pool: &mut PacketPool, now: SimTime) -> Option<PacketId> {
        let p = self.fifo.pop(pool)?;
        if self.fifo.is_empty() {
            // Idle once this packet is on the wire.
            let tx = (pool[p].wire_bytes as f64 * self.ps_per_byte).round() as u64;
            self.idle_since = Some(now + dctc_core::units::Delta(tx));
        }
        Some(p)
    }

    fifo_sizes!(fifo);
}

crate::unit_keys! {
    /// The `red` queue's keys.
    pub struct Keys {
        /// `min_th`, bytes, positive (default 30,000: 20 full packets).
        red_min_bytes: u64,
        /// `max_th`, bytes, above `red_min_bytes` (default 90,000: 3 min_th).
        red_max_bytes: u64,
        /// `max_p`, in (0, 1] (default 0.1).
        red_max_p: f64,
        /// `w_q`, the average's weight, in (0, 1] (default 0.002).
        red_weight: f64,
        /// Gentle mode (default true).
        red_gentle: bool,
        /// Mark ECN-capable packets instead of dropping them (default true).
        red_ecn: bool,
    }
}

impl Discipline for RedParams {
    const NAME: &'static str = "red";
    const ABOUT: &'static str = "RED (RFC 2309) in gentle mode: marks ECN-capable arrivals (RFC 3168), drops others, with a probability rising with the average queue";
    type Keys = Keys;
    type Queue = Box<Red>;
    fn resolve(keys: &Keys, ctx: &Context) -> Result<Self, KeyError> {
        let d = RedParams::default();
        let at = ctx.at;
        let min_th = keys.red_min_bytes.unwrap_or(d.min_th);
        if min_th == 0 {
            return Err(at.error("red_min_bytes", "must be positive"));
        }
        let max_th = keys.red_max_bytes.unwrap_or(d.max_th);
        if max_th <= min_th {
            let reason = format!("must be above red_min_bytes ({min_th}), got {max_th}");
            return Err(at.error("red_max_bytes", reason));
        }
        let unit = Range::open_closed(0.0, 1.0);
        Ok(RedParams {
            min_th,
            max_th,
            max_p: at.number("red_max_p", keys.red_max_p, unit)?.unwrap_or(d.max_p),
            weight: at.number("red_weight", keys.red_weight, unit)?.unwrap_or(d.weight),
            gentle: keys.red_gentle.unwrap_or(d.gentle),
            ecn: keys.red_ecn.unwrap_or(d.ecn),
        })
    }
    fn build(&self, buffer_bytes: u64, seed: u64, rate: Rate) -> Box<Red> {
        Box::new(Red::new(buffer_bytes, *self, rate, seed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, PacketKind};
    use dctc_core::ids::NodeId;
    use dctc_core::units::Delta;

    fn pkt(pool: &mut PacketPool, ect: bool) -> PacketId {
        crate::queue::tests::pkt(pool, 1500, ect)
    }

    #[test]
    fn base_probability_follows_the_linear_and_gentle_ramps() {
        // min_th 30 KB, max_th 90 KB, max_p 0.1 (the defaults).
        let p = RedParams::default();
        assert_eq!(p.region(29_999.0), Region::Below);
        assert_eq!(p.region(30_000.0), Region::Ramp(0.0));
        // Halfway up the ramp: 0.1 x 30,000 / 60,000.
        assert_eq!(p.region(60_000.0), Region::Ramp(0.05));
        // Gentle: max_p at max_th, then halfway to 2 max_th: 0.1 + 0.9 x 45,000 / 90,000.
        assert_eq!(p.region(90_000.0), Region::Ramp(0.1));
        assert_eq!(p.region(135_000.0), Region::Ramp(0.55));
        assert_eq!(p.region(180_000.0), Region::Above);
        // Without gentle mode everything from max_th up is marked.
        let hard = RedParams {
            gentle: false,
            ..p
        };
        assert_eq!(hard.region(90_000.0), Region::Above);
    }

    #[test]
    fn count_spreads_the_marks_as_floyd_and_jacobson_section_7() {
        // p_a = p_b / (1 - count p_b), by hand for p_b = 0.05.
        let pa = |count| RedParams::mark_probability(0.05, count);
        assert_eq!(pa(0), 0.05);
        assert!((pa(10) - 0.1).abs() < 1e-12);
        assert!((pa(15) - 0.2).abs() < 1e-12);
        assert_eq!(pa(20), 1.0);
        assert_eq!(pa(25), 1.0);
    }

    #[test]
    fn the_average_is_an_ewma_and_decays_over_idle_time() {
        let mut pool = PacketPool::default();
        let params = RedParams {
            weight: 0.5,
            ..RedParams::default()
        };
        // 12 Gb/s: one 1500 B packet takes 1 us.
        let mut q = Red::new(1_000_000, params, Rate::gbps(12), 1);
        let t = |us| SimTime::from_delta(Delta::from_us(us));
        // Arrivals find 0, 1500 and 3000 B queued: avg = 0, 750, 1875.
        for (i, want) in [0.0, 750.0, 1875.0].into_iter().enumerate() {
            q.enqueue(pkt(&mut pool, true), &mut pool, t(i as u64));
            assert_eq!(q.average(), want);
        }
        // Drained at 10 us: the last packet is on the wire until 11 us.
        for _ in 0..3 {
            q.dequeue(&mut pool, t(10));
        }
        // An arrival at 15 us finds 4 us of idle link: four full packets' time, so
        // avg = 1875 (1 - 0.5)^4.
        q.enqueue(pkt(&mut pool, true), &mut pool, t(15));
        assert!((q.average() - 1875.0 / 16.0).abs() < 1e-9, "{}", q.average());
    }

    /// Offers `n` arrivals at a queue whose average is pinned at `avg` (a queue of `avg`
    /// bytes with the weight 1), dequeuing after each; returns (queued and marked, dropped).
    fn offer_at(avg: u64, ect: bool, n: usize) -> (usize, usize) {
        let mut pool = PacketPool::default();
        let params = RedParams {
            weight: 1.0,
            ..RedParams::default()
        };
        let mut q = Red::new(10_000_000, params, Rate::gbps(10), 7);
        while q.bytes() < avg {
            // The standing queue, put in past RED.
            let mut p = Packet::new(0, PacketKind::Ack, NodeId(0), NodeId(1));
            p.wire_bytes = (avg - q.bytes()).min(1500) as u32;
            let id = pool.alloc(p);
            q.fifo.push(id, &pool).unwrap();
        }
        let (mut marked, mut dropped) = (0, 0);
        for _ in 0..n {
            // The queue holds `avg` bytes at every arrival: the average does too.
            let a = pkt(&mut pool, ect);
            match q.enqueue(a, &mut pool, SimTime::ZERO) {
                Enqueued::Queued { marked: m } => {
                    marked += m as usize;
                    assert_eq!(pool[a].ecn.ce, m);
                    // Take the arrival back out of the tail to keep the queue at `avg`.
                    let mut rest = Vec::new();
                    while let Some(x) = q.dequeue(&mut pool, SimTime::ZERO) {
                        rest.push(x);
                    }
                    rest.pop();
                    for x in rest {
                        q.fifo.push(x, &pool).unwrap();
                    }
                }
                Enqueued::Dropped(_) => dropped += 1,
            }
            assert_eq!(q.bytes(), avg);
        }
        (marked, dropped)
    }

    #[test]
    fn on_the_ramp_ect_arrivals_are_marked_about_twice_p_b_and_others_dropped() {
        // avg 60 KB: p_b = 0.05, gaps uniform on 1..19 arrivals, a tenth marked (a plain
        // Bernoulli(p_b) would mark a twentieth).
        let n = 20_000;
        let (marked, dropped) = offer_at(60_000, true, n);
        let share = marked as f64 / n as f64;
        assert!((share - 0.1).abs() < 0.01, "{share}");
        assert_eq!(dropped, 0);
        // Non-ECT arrivals are dropped instead, as often.
        let (marked, dropped) = offer_at(60_000, false, n);
        let share = dropped as f64 / n as f64;
        assert!((share - 0.1).abs() < 0.01, "{share}");
        assert_eq!(marked, 0);
        // Below min_th nothing, above 2 max_th everything.
        assert_eq!(offer_at(20_000, true, 1000), (0, 0));
        assert_eq!(offer_at(200_000, true, 1000), (1000, 0));
    }

    #[test]
    fn keys_resolve_with_floyds_defaults_and_bad_values_name_their_key() {
        let ctx = Context {
            at: crate::keys::At("schemes[0]"),
            buffer_bytes: 225_000,
            mss: 1460,
            header: 40,
            host_rate: Rate::gbps(10),
        };
        assert_eq!(RedParams::resolve(&Keys::default(), &ctx), Ok(RedParams::default()));
        let bad = [
            (Keys { red_min_bytes: Some(0), ..Keys::default() }, "red_min_bytes"),
            (Keys { red_min_bytes: Some(9_000), red_max_bytes: Some(9_000), ..Keys::default() }, "red_max_bytes"),
            (Keys { red_max_p: Some(0.0), ..Keys::default() }, "red_max_p"),
            (Keys { red_weight: Some(1.5), ..Keys::default() }, "red_weight"),
        ];
        for (keys, key) in bad {
            let e = RedParams::resolve(&keys, &ctx).unwrap_err();
            assert_eq!(e.path, format!("schemes[0].{key}"));
        }
    }
}
