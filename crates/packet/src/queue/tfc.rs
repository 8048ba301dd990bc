//! TFC's switch port (Zhang et al., EuroSys 2016, §4 and §5.2): a FIFO that turns the port's
//! capacity into tokens per time slot, counts the effective flows by the RM-marked packets
//! that pass, writes the window `W = T / E` into passing data packets (the minimum along the
//! path survives), and runs the delay arbiter of §4.6 on RMA-marked ACKs.
//!
//! The time slot is one round of the *delimiter flow*: the first RM packet the port catches
//! names it, and each of its next RM packets ends a slot. At a slot's end (§5.2 Event 1):
//! `rtt_m` = time since the previous delimiter mark, `rtt_b = min(rtt_b, rtt_m)` (full frames
//! only, §4.4), `rho = A / (c x rtt_m)`, the token of eq. (7) smoothed by eq. (8), and
//! `W = T / E`; then `E = 1`. A delimiter that sends no RM for `2^k x rtt_last` (k the
//! consecutive misses, at most 7), or whose last byte passed, is replaced by the next RM
//! packet of any flow.
//!
//! The delay arbiter (§4.6) keeps the windows granted per token period within the token: its
//! counter grows with time, a window under one packet waits until the counter holds a packet
//! and leaves as one packet, a larger one passes and draws the counter down. One departure:
//! the paper lets a larger window pass whole even when the counter cannot cover it; here it is
//! cut to what the counter holds (at least a packet), and once the counter is under a packet
//! every RMA ACK waits its turn. In steady state the counter stays full and nothing changes;
//! it matters when dozens of flows resume at once holding the windows of their last round
//! (incast's next block), which would otherwise all be let through at once.
//!
//! Where the arbiter sits: in the paper at a switch port and acts on the ACKs that arrive
//! on it, i.e. the ACKs of the flows this port's data direction carries. Here queues are per
//! link direction, so the arbiter runs on the port those ACKs leave by (the reverse link,
//! a host NIC when the bottleneck faces a host), paired by the engine with the data
//! direction's port ([`Tfc::meter`]): its counter grows at that port's token rate `T / rtt_b`
//! (eq. (7): `rho0 c / rho`, smoothed) and is capped at one token (`max(T, one packet)`) so an
//! idle spell does not bank an unbounded burst. A port whose data direction allocates nothing
//! (a sender's NIC) meters its own initial token: `rho0 x c`. Growing at `rho0 x c` everywhere,
//! as this port once did, cut the very windows eq. (7) had raised to fill an underused link:
//! one flow got 92% of 10 Gb/s at a 10 us round trip (issue 25).
//!
//! One departure from §5.2: the window written into packets is `T / max(E_last, E_now)`, where
//! `E_now` is the count so far in the current slot, not only `T / E_last`. The paper relies on
//! the handshake's marked SYN being counted a round before the marked empty packet fetches the
//! window (§4.6); hundreds of flows that start (or resume) within one slot would otherwise all
//! be handed the window of the last slot, which counted none of them, and overflow the buffer
//! before the next slot ends. Once the slot ends the two agree.
//!
//! Header fields (in [`HeaderExt`], beside the packet): `flags` carries [`RM`], [`RMA`] and
//! [`LAST`]; `window` carries the window in payload bytes (a sender writes `u64::MAX`, the
//! paper's `0xffff`, each port lowers it to its `W`; the receiver copies it onto the RMA ACK).
//!
//! [`HeaderExt`]: crate::packet::HeaderExt

use super::{Context, Discipline, Enqueued, QueueDisc, QueueParamError};
use crate::engine::{PacketId, PacketPool};
use crate::keys::Range;
use crate::packet::PacketKind;
use dctc_core::error::KeyError;
use dctc_core::units::{Delta, Rate, SimTime};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A port's token, handed to the delay arbiter of the link's other direction ([`Tfc::meter`]).
#[derive(Clone, Debug)]
pub struct TokenFeed(Arc<PublishedToken>);

/// A port's token T and its rate `T / rtt_b` (f64 bits, wire bytes and bytes per second),
/// read by the delay arbiter on the other direction of its link.
#[derive(Debug, Default)]
struct PublishedToken {
    token: AtomicU64,
    rate: AtomicU64,
}

/// RM (Round Mark): the first data packet a sender sends in each round (TFC §5.1).
pub const RM: u32 = 1 << 0;
/// RMA (Round Mark Acknowledgment): the ACK of an RM packet, carrying its window (§5.3).
pub const RMA: u32 = 1 << 1;
/// The packet carries the last byte its sender has to send (the FIN of §5.2: the port
/// re-picks its delimiter when the delimiter flow's last byte passes).
pub const LAST: u32 = 1 << 2;

/// Largest number of consecutive delimiter misses the back-off counts (TFC §5.2: k <= 7).
pub const MAX_MISSES: u32 = 7;

/// TFC port parameters. The paper's defaults: `rho0 = 0.97`, `alpha = 7/8`, initial
/// `rtt_b = 160 us` (§5.2, §6.1.1).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TfcParams {
    /// Expected link utilization rho0 of eq. (7), in (0, 1.2].
    pub rho0: f64,
    /// Weight alpha of the previous token in eq. (8), in [0, 1).
    pub alpha: f64,
    /// rtt_b before the first measurement (§5.2 Init), positive.
    pub initial_rtt_b: Delta,
    /// Payload bytes of a full segment (one packet of window).
    pub mss: u64,
    /// Header bytes per packet (tokens count wire bytes, windows payload bytes).
    pub header: u64,
    /// Whether this port computes and writes windows (switch ports); host NICs only run the
    /// delay arbiter, as a TFC host's own NIC does not take part in the allocation.
    pub allocate: bool,
    /// Whether the delay arbiter of §4.6 runs (off: RMA ACKs pass with whatever they carry).
    pub delay_arbiter: bool,
}

// The floats are validated finite when the scheme is resolved.
impl Eq for TfcParams {}

impl Default for TfcParams {
    fn default() -> Self {
        TfcParams {
            rho0: 0.97,
            alpha: 7.0 / 8.0,
            initial_rtt_b: Delta::from_us(160),
            mss: dctc_core::stats::MSS_BYTES,
            header: dctc_core::stats::HEADER_BYTES,
            allocate: true,
            delay_arbiter: true,
        }
    }
}

impl TfcParams {
    /// Checks the ranges: rho0 in (0, 1.2], alpha in [0, 1), rtt_b and mss positive.
    pub fn validate(&self) -> Result<(), QueueParamError> {
        let bad = |param, reason| Err(QueueParamError::new(param, reason));
        if !(self.rho0 > 0.0 && self.rho0 <= 1.2) {
            return bad("rho0", "must be in (0, 1.2]");
        }
        if !(self.alpha >= 0.0 && self.alpha < 1.0) {
            return bad("alpha", "must be in [0, 1)");
        }
        if self.initial_rtt_b.0 == 0 {
            return bad("initial_rtt_b_us", "must be positive");
        }
        if self.mss == 0 {
            return bad("mss", "must be positive");
        }
        Ok(())
    }

    /// The same parameters for a host NIC: the delay arbiter only.
    pub fn host_nic(self) -> TfcParams {
        TfcParams {
            allocate: false,
            ..self
        }
    }
}

/// What the port measured at the end of its last time slot (for tests and reports).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TfcSlot {
    /// Effective flows E counted in the slot (eq. (4)).
    pub effective_flows: u64,
    /// The slot's length rtt_m.
    pub rtt_m: Delta,
    /// The minimum delimiter RTT rtt_b.
    pub rtt_b: Delta,
    /// Utilization rho of the slot (eq. (7)); NaN for a round that began at an empty packet,
    /// which leaves the token as it was.
    pub rho: f64,
    /// The token T after eqs. (7) and (8), wire bytes.
    pub token_bytes: f64,
    /// The window W = T / E written into packets, payload bytes.
    pub window: u64,
}

/// A TFC port: FIFO, token and window computation, delay arbiter.
#[derive(Debug)]
pub struct Tfc {
    params: TfcParams,
    fifo: VecDeque<PacketId>,
    /// The delay arbiter's queue of RMA ACKs waiting for the counter.
    held: VecDeque<PacketId>,
    bytes: u64,
    capacity: u64,
    /// Link rate c, bytes per second (set when the port is attached to its link).
    rate_bytes_per_s: f64,
    /// Delimiter flow, `None` while catching one.
    delimiter: Option<u32>,
    /// Start of the current slot (the delimiter's last mark).
    t_start: SimTime,
    /// Whether the mark that started the slot was a full frame.
    start_full: bool,
    /// E of the current slot.
    effective: u64,
    /// E of the last completed slot.
    effective_last: u64,
    /// A: data bytes arrived in the current slot.
    arrived: u64,
    rtt_b: Delta,
    /// rtt_m of the last completed slot (rtt_last of §5.2's re-pick timer).
    rtt_last: Delta,
    /// Consecutive delimiter misses k.
    misses: u32,
    /// When the delimiter is given up (`NEVER` while catching).
    deadline: SimTime,
    /// Token T, wire bytes.
    token: f64,
    /// Window W, payload bytes.
    window: u64,
    last_slot: Option<TfcSlot>,
    /// Delay arbiter counter, wire bytes (may go negative after large windows).
    counter: f64,
    counter_at: SimTime,
    /// What this port publishes of its token for the arbiter on the link's other direction.
    published: Arc<PublishedToken>,
    /// The token of the port whose data this port's RMA ACKs answer (the other direction of
    /// the link, see [`Tfc::meter`]); `None`: this port's own.
    peer: Option<Arc<PublishedToken>>,
    /// Slots completed (delimiter rounds).
    slots: u64,
}

impl Tfc {
    /// A TFC port with a `capacity`-byte buffer on a link of `rate` (its capacity c).
    pub fn new(capacity: u64, params: TfcParams, rate: Rate) -> Result<Self, QueueParamError> {
        params.validate()?;
        let mut q = Tfc {
            params,
            fifo: VecDeque::with_capacity(16),
            held: VecDeque::new(),
            bytes: 0,
            capacity,
            rate_bytes_per_s: 0.0,
            delimiter: None,
            t_start: SimTime::ZERO,
            start_full: false,
            effective: 1,
            effective_last: 1,
            arrived: 0,
            rtt_b: params.initial_rtt_b,
            rtt_last: params.initial_rtt_b,
            misses: 0,
            deadline: SimTime::NEVER,
            token: 0.0,
            window: 0,
            last_slot: None,
            counter: 0.0,
            counter_at: SimTime::ZERO,
            published: Arc::default(),
            peer: None,
            slots: 0,
        };
        q.set_rate(rate);
        Ok(q)
    }

    fn set_rate(&mut self, rate: Rate) {
        self.rate_bytes_per_s = rate.bps_f64() / 8.0;
        // §5.2 Init: rtt_b = 160 us, E = 1; the token before any slot is rho0 x c x rtt_b.
        self.token = self.params.rho0 * self.rate_bytes_per_s * self.rtt_b.as_secs_f64();
        self.window = self.window_of(self.token, self.effective);
        self.publish();
        self.counter = self.counter_cap();
    }

    /// Lets this port's delay arbiter meter the windows of the port `data` (the other direction
    /// of the same link, whose data packets the RMA ACKs leaving here answer): its counter
    /// grows at that port's token rate and holds at most that port's token. The engine pairs
    /// the two directions of every link whose ports are both TFC's (`data.token_feed()`).
    pub fn meter(&mut self, data: TokenFeed) {
        self.peer = Some(data.0);
    }

    /// This port's token as the arbiter on the other direction of its link reads it
    /// ([`Tfc::meter`]).
    pub fn token_feed(&self) -> TokenFeed {
        TokenFeed(Arc::clone(&self.published))
    }

    /// Publishes the token and its rate `T / rtt_b` for the arbiter of the paired port.
    fn publish(&self) {
        let rate = self.token / self.rtt_b.as_secs_f64();
        self.published.token.store(self.token.to_bits(), Ordering::Relaxed);
        self.published.rate.store(rate.to_bits(), Ordering::Relaxed);
    }

    /// The token T (wire bytes) and its rate (wire bytes per second) the arbiter meters:
    /// the paired data port's, else this port's own.
    fn metered(&self) -> (f64, f64) {
        let p = self.peer.as_ref().unwrap_or(&self.published);
        (
            f64::from_bits(p.token.load(Ordering::Relaxed)),
            f64::from_bits(p.rate.load(Ordering::Relaxed)),
        )
    }

    /// The port's parameters.
    pub fn params(&self) -> &TfcParams {
        &self.params
    }

    /// The window W now written into passing data packets, payload bytes.
    pub fn window(&self) -> u64 {
        self.window
    }

    /// The token T now, wire bytes.
    pub fn token_bytes(&self) -> f64 {
        self.token
    }

    /// rtt_b now.
    pub fn rtt_b(&self) -> Delta {
        self.rtt_b
    }

    /// E counted so far in the current slot.
    pub fn effective_flows_now(&self) -> u64 {
        self.effective
    }

    /// The delimiter flow, if one is caught.
    pub fn delimiter(&self) -> Option<u32> {
        self.delimiter
    }

    /// The last completed slot's measurements.
    pub fn last_slot(&self) -> Option<TfcSlot> {
        self.last_slot
    }

    /// Slots completed so far.
    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// RMA ACKs waiting in the delay arbiter.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    fn wire_per_packet(&self) -> f64 {
        (self.params.mss + self.params.header) as f64
    }

    /// W = T / E (eq. (5)), turned from wire bytes into the payload bytes a sender's window
    /// counts; at least one byte so a window is never zero.
    fn window_of(&self, token: f64, effective: u64) -> u64 {
        let per_flow_wire = token / effective.max(1) as f64;
        let payload = per_flow_wire * self.params.mss as f64 / self.wire_per_packet();
        (payload as u64).max(1)
    }

    fn counter_cap(&self) -> f64 {
        self.metered().0.max(self.wire_per_packet())
    }

    /// Arms the re-pick timer: `2^(k+1) x rtt_last` from now (§5.2: 2x at the first miss,
    /// 4x at the second, ...).
    fn arm_deadline(&mut self, now: SimTime) {
        let k = (self.misses + 1).min(MAX_MISSES);
        self.deadline = now + self.rtt_last * (1u64 << k);
    }

    /// §5.2 Event 1 for a data (or empty marked) packet arriving at `now`.
    fn on_data(&mut self, flow: u32, wire: u64, payload: u64, flags: u32, now: SimTime) {
        self.arrived += wire;
        if flags & RM != 0 {
            match self.delimiter {
                None => {
                    // Catch a (new) delimiter: the slot starts at its mark.
                    self.delimiter = Some(flow);
                    self.t_start = now;
                    self.start_full = payload >= self.params.mss;
                    self.effective = 1;
                    self.arrived = 0;
                    self.arm_deadline(now);
                }
                Some(d) if d == flow => self.end_slot(now, payload),
                Some(_) => {
                    self.effective += 1;
                    if self.effective > self.effective_last {
                        // More flows than the last slot counted have marked already: share
                        // the token among those counted so far (see the module doc).
                        self.window = self.window_of(self.token, self.effective);
                    }
                }
            }
        }
        if flags & LAST != 0 && self.delimiter == Some(flow) {
            // The delimiter's FIN: catch the next RM packet of any flow.
            self.delimiter = None;
            self.deadline = SimTime::NEVER;
        }
    }

    fn end_slot(&mut self, now: SimTime, payload: u64) {
        let rtt_m = now.saturating_since(self.t_start);
        if rtt_m.0 == 0 {
            return;
        }
        // §4.4: only full frames measure rtt_b (store-and-forward time depends on size), so
        // both marks that bound the round must be full.
        let full = payload >= self.params.mss;
        if full && self.start_full {
            self.rtt_b = self.rtt_b.min(rtt_m);
        }
        let c = self.rate_bytes_per_s;
        if !self.start_full {
            // A round that began at an empty packet (a new flow's window fetch) counts E but
            // carries almost no data: its rho says nothing about the link's use, so the token
            // stays as it was.
            self.finish_slot(now, rtt_m, full, f64::NAN);
            return;
        }
        // TFC eq. (7): rho[n] = A[n] / (c x rtt_m[n]); T[n] = c x rtt_b[n] x rho0 / rho[n].
        let rho = self.arrived as f64 / (c * rtt_m.as_secs_f64());
        let pipe = c * self.rtt_b.as_secs_f64();
        let mut t_new = pipe * self.params.rho0 / rho.max(f64::MIN_POSITIVE);
        // Our bound (the paper gives none): a token above the pipe plus the buffer can only
        // overflow it; a nearly idle slot (rho ~ 0) would otherwise give an unbounded window.
        t_new = t_new.min(pipe + self.capacity as f64);
        // TFC eq. (8): T[n] = alpha x T[n-1] + (1 - alpha) x T[n].
        self.token = self.params.alpha * self.token + (1.0 - self.params.alpha) * t_new;
        self.finish_slot(now, rtt_m, full, rho);
    }

    fn finish_slot(&mut self, now: SimTime, rtt_m: Delta, full: bool, rho: f64) {
        // TFC eq. (5): W[n+1] = T[n] / E[n].
        self.window = self.window_of(self.token, self.effective);
        self.publish();
        self.last_slot = Some(TfcSlot {
            effective_flows: self.effective,
            rtt_m,
            rtt_b: self.rtt_b,
            rho,
            token_bytes: self.token,
            window: self.window,
        });
        self.slots += 1;
        self.rtt_last = rtt_m;
        self.misses = 0;
        self.effective_last = self.effective;
        self.effective = 1;
        self.arrived = 0;
        self.t_start = now;
        self.start_full = full;
        self.arm_deadline(now);
    }

    /// The delimiter missed its deadline: catch the next RM packet of any flow, and back off
    /// the next deadline (k + 1, at most 7).
    fn on_deadline(&mut self) {
        self.delimiter = None;
        self.deadline = SimTime::NEVER;
        self.misses = (self.misses + 1).min(MAX_MISSES);
    }

    fn accrue(&mut self, now: SimTime) {
        let dt = now.saturating_since(self.counter_at).as_secs_f64();
        self.counter_at = now;
        let (token, rate) = self.metered();
        let cap = token.max(self.wire_per_packet());
        if self.counter < cap {
            self.counter = (self.counter + rate * dt).min(cap);
        }
    }

    /// Moves held ACKs the counter now covers onto the FIFO, each rewritten to one packet.
    fn release(&mut self, pool: &mut PacketPool) {
        let one = self.wire_per_packet();
        while self.counter >= one {
            let Some(p) = self.held.pop_front() else {
                break;
            };
            pool.ext(p).window = self.params.mss;
            self.counter -= one;
            self.fifo.push_back(p);
        }
    }

    fn next_release(&self) -> SimTime {
        if self.held.is_empty() {
            return SimTime::NEVER;
        }
        let short = (self.wire_per_packet() - self.counter).max(0.0);
        let rate = self.metered().1;
        // Round up to the next picosecond so the counter has grown enough when it fires.
        let wait_ps = (short / rate * 1e12).ceil() as u64;
        self.counter_at + Delta(wait_ps.max(1))
    }
}

impl QueueDisc for Tfc {
    fn enqueue(&mut self, pkt: PacketId, pool: &mut PacketPool, now: SimTime) -> Enqueued {
        let p = pool[pkt];
        let size = p.wire_bytes as u64;
        if self.bytes + size > self.capacity {
            return Enqueued::Dropped(pkt);
        }
        self.bytes += size;
        if p.kind == PacketKind::Ack {
            let ext = pool.ext(pkt);
            if ext.flags & (RM | RMA) != 0 {
                // The receiver echoed an RM packet's header: this is its RMA ACK (§5.3).
                ext.flags |= RMA;
            }
            if self.params.delay_arbiter && ext.flags & RMA != 0 {
                self.accrue(now);
                let one = self.wire_per_packet();
                let wire = ext.window as f64 * one / self.params.mss as f64;
                if !self.held.is_empty() || self.counter < one {
                    // §4.6: wait for the counter to hold a packet; leave with one packet.
                    self.held.push_back(pkt);
                    return Enqueued::Queued { marked: false };
                }
                if wire < one {
                    // §4.6: a window under one packet becomes one packet.
                    ext.window = self.params.mss;
                    self.counter -= one;
                } else if wire <= self.counter {
                    // Larger windows pass and draw the counter down by what they allow.
                    self.counter -= wire;
                } else {
                    // Ours: a window beyond what the counter holds is cut to the counter, so
                    // the windows granted per token stay within the token (see the module
                    // doc); the paper lets it pass whole.
                    ext.window =
                        ((self.counter / one * self.params.mss as f64) as u64).max(self.params.mss);
                    self.counter = 0.0;
                }
            }
        } else if self.params.allocate && matches!(p.kind, PacketKind::Data | PacketKind::Control) {
            let flags = pool.ext(pkt).flags;
            self.on_data(p.flow, size, p.payload as u64, flags, now);
            let ext = pool.ext(pkt);
            ext.window = ext.window.min(self.window);
        }
        self.fifo.push_back(pkt);
        Enqueued::Queued { marked: false }
    }

    fn dequeue(&mut self, pool: &mut PacketPool, _now: SimTime) -> Option<PacketId> {
        let p = self.fifo.pop_front()?;
        self.bytes -= pool[p].wire_bytes as u64;
        Some(p)
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Packets waiting, held ACKs included (so the engine keeps polling the port).
    fn len(&self) -> usize {
        self.fifo.len() + self.held.len()
    }

    fn capacity(&self) -> u64 {
        self.capacity
    }

    fn poll_at(&self) -> SimTime {
        self.deadline.min(self.next_release())
    }

    /// The last completed slot ([`Tfc::last_slot`]) in the order of
    /// [`TfcParams::STATE_FIELDS`]; nothing before the first slot or at a host NIC.
    fn state(&self, out: &mut Vec<f64>) -> bool {
        let Some(s) = self.last_slot.filter(|_| self.params.allocate) else {
            return false;
        };
        out.extend([
            self.slots as f64,
            s.effective_flows as f64,
            s.rtt_m.as_us_f64(),
            s.rtt_b.as_us_f64(),
            s.rho,
            s.token_bytes,
            s.window as f64,
        ]);
        true
    }

    fn on_timer(&mut self, pool: &mut PacketPool, now: SimTime) {
        if now >= self.deadline {
            self.on_deadline();
        }
        if !self.held.is_empty() {
            self.accrue(now);
            self.release(pool);
        }
    }
}

crate::unit_keys! {
    /// The `tfc` queue's keys.
    pub struct Keys {
        /// Expected link utilization rho0 of eq. (7), in (0, 1.2] (default 0.97).
        rho0: f64,
        /// Weight alpha of the previous token in eq. (8), in [0, 1) (default 7/8).
        alpha: f64,
        /// rtt_b before the first measurement, microseconds, positive (default 160).
        initial_rtt_b_us: f64,
        /// Whether switches run the delay arbiter of §4.6 (default true).
        delay_arbiter: bool,
    }
}

impl Discipline for TfcParams {
    const NAME: &'static str = "tfc";
    const ABOUT: &'static str = "TFC (EuroSys 2016): FIFO writing W = T/E into data packets, delay arbiter on RMA ACKs";
    type Keys = Keys;
    type Queue = Box<Tfc>;
    /// The keys over the paper's defaults; `mss` and `header` are the scheme's.
    fn resolve(keys: &Keys, ctx: &Context) -> Result<Self, KeyError> {
        let d = TfcParams::default();
        let at = ctx.at;
        let rho0 = at.number("rho0", keys.rho0, Range::open_closed(0.0, 1.2))?;
        let alpha = at.number("alpha", keys.alpha, Range::closed_open(0.0, 1.0))?;
        let rtt_b = at.micros("initial_rtt_b_us", keys.initial_rtt_b_us, Range::open(0.0, 1e9))?;
        if rtt_b == Some(Delta::ZERO) {
            return Err(at.error("initial_rtt_b_us", "must be at least one picosecond"));
        }
        Ok(TfcParams {
            rho0: rho0.unwrap_or(d.rho0),
            alpha: alpha.unwrap_or(d.alpha),
            initial_rtt_b: rtt_b.unwrap_or(d.initial_rtt_b),
            delay_arbiter: keys.delay_arbiter.unwrap_or(d.delay_arbiter),
            mss: ctx.mss,
            header: ctx.header,
            ..d
        })
    }
    fn build(&self, buffer_bytes: u64, _seed: u64, rate: Rate) -> Box<Tfc> {
        Box::new(Tfc::new(buffer_bytes, *self, rate).expect("checked when the scheme was resolved"))
    }
    /// TFC's delay arbiter also runs where ACKs leave a receiving host (see the module doc).
    fn host_nic(&self) -> Option<Self> {
        Some(TfcParams::host_nic(*self))
    }
    /// The last completed slot's measurements ([`TfcSlot`]), `slots` the slots completed so
    /// far; `rho` is NaN for a slot that began at an empty packet (left blank in CSV).
    const STATE_FIELDS: &'static [&'static str] = &[
        "slots",
        "effective_flows",
        "rtt_m_us",
        "rtt_b_us",
        "rho",
        "token_bytes",
        "window_bytes",
    ];
}

#[cfg(test)]
#[path = "tfc/tests.rs"]
mod tests;
