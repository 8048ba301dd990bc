//! TCP's reliable delivery, shared by every TCP-like scheme. The window itself belongs to
//! the congestion controller ([`super::CongestionControl`]: growth, `ssthresh` on loss and
//! timeout); the RTT estimator is [`super::RttEstimator`].
//!
//! Sender (byte sequence numbers from 0):
//! - sends while the flight fits `min(cwnd, rwnd, max cwnd)`; after the controller's growth
//!   `cwnd` is capped by the max cwnd;
//! - limited transmit on the first two duplicate ACKs (RFC 5681 §3.2 step 1, RFC 3042: one
//!   new segment each while FlightSize <= cwnd + 2 SMSS, cwnd unchanged, and those segments
//!   left out of the FlightSize that sets ssthresh);
//! - fast retransmit on the third duplicate ACK and NewReno fast recovery (RFC 6582: inflate
//!   per duplicate ACK, retransmit on each partial ACK and deflate by the amount acknowledged,
//!   reset the timer on the first partial ACK only, leave with
//!   `cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS)` on a full ACK (option (1)), and no
//!   new recovery unless the ACK covers `recover`);
//! - retransmission timeout (RFC 6298, the estimator's RTO, doubled on each expiry up to
//!   the max; on expiry the controller sets the window, the sender goes back N).
//!   Samples follow Karn's rule (RFC 6298 §3): an ACK that acknowledges any retransmitted byte
//!   gives no sample, unless `TcpConfig::timestamps` (RFC 7323 RTTM: each transmission carries
//!   its own send time, the one exception RFC 6298 §3 allows); the backed-off RTO is kept
//!   until a valid sample arrives (RFC 6298 §5, note after (5.7): the RTO "collapses" only on
//!   a new measurement).
//! - probe mode (pFabric §4.2, `TcpConfig::probe_after_timeouts`): after that many
//!   consecutive timeouts with no ACK between them, each further timeout sends one
//!   header-only probe at `snd_una` instead of going back N; the first ACK ends it.
//! - TCP small queues (`TcpConfig::small_queue_bytes`): new data waits while the flow's
//!   packets still in its host's NIC queue would exceed the limit (the host reports each
//!   packet's departure from the NIC, [`TcpSender::nic_departed`]); fast retransmissions and
//!   limited-transmit segments go out regardless;
//! - window validation (`TcpConfig::cwnd_validation`): an ACK may grow the window only if
//!   the sender's last attempt to send stopped at the window.
//!
//! Receiver: cumulative ACKs, out-of-order data kept as byte ranges, an immediate ACK for
//! out-of-order or hole-filling data, otherwise (with delayed ACKs) one ACK per two segments
//! or at the delayed-ACK timeout. With ECN it echoes CE exactly as DCTCP specifies: when a
//! packet's CE bit differs from the last one seen and an ACK is pending, the pending ACK goes
//! out at once carrying the old state.

use super::{
    AckEvent, AckOut, Cc, CongestionControl, FeedbackEvent, FeedbackSource, LossEvent,
    RttEstimator, Segment, StampEvent, TcpConfig, Window,
};
use crate::packet::HeaderExt;
use dctc_core::units::{Delta, SimTime};

/// The sending half of a TCP connection.
#[derive(Clone, Debug)]
pub struct TcpSender {
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    app_end: u64,
    win: Window,
    dupacks: u32,
    /// Bytes sent by limited transmit since the last ACK of new data.
    limited_bytes: u64,
    in_recovery: bool,
    recover: Option<u64>,
    partial_seen: bool,
    rtt: RttEstimator,
    /// End of the highest byte range ever retransmitted (Karn's rule).
    rtx_high: u64,
    rto_at: SimTime,
    /// Pacing: earliest time of the next new segment (`ZERO` when not pacing).
    next_send: SimTime,
    /// Data and window wait for `next_send`.
    paced_wait: bool,
    /// A probe is out ([`CongestionControl::probe_first`]); data waits for its answer.
    awaiting_probe: bool,
    /// When the probe now out was first sent.
    probe_sent: SimTime,
    /// The connection's probe went out (a connection probes once, before its first byte).
    probed: bool,
    cc: Cc,
    /// Payload bytes sent more than once.
    pub retransmitted_bytes: u64,
    /// Retransmission timeouts.
    pub timeouts: u32,
    /// Timeouts since the last ACK arrived (probe mode counts them).
    consecutive_timeouts: u32,
    /// In probe mode: one header-only probe per RTO until an ACK arrives.
    probing: bool,
    /// Wire bytes of this flow's data packets still in its host's NIC queue (counted only
    /// under `TcpConfig::small_queue_bytes`).
    nic_queued: u64,
    /// New data waits for the NIC queue to drain below `TcpConfig::small_queue_bytes`.
    nic_wait: bool,
    /// The last `send` stopped because the window was full (window validation).
    cwnd_limited: bool,
    /// When the sender last put a packet on the wire or heard an ACK (stall detection).
    last_activity: SimTime,
}

impl TcpSender {
    /// A sender with nothing to send yet.
    pub fn new(cfg: &TcpConfig, cc: Cc) -> Self {
        TcpSender {
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end: 0,
            win: Window::new(
                (cfg.initial_cwnd_packets * cfg.mss).min(cfg.max_cwnd_bytes),
                u64::MAX,
                cfg.mss,
            ),
            dupacks: 0,
            limited_bytes: 0,
            in_recovery: false,
            recover: None,
            partial_seen: false,
            rtt: RttEstimator::new(cfg),
            rtx_high: 0,
            rto_at: SimTime::NEVER,
            next_send: SimTime::ZERO,
            paced_wait: false,
            awaiting_probe: false,
            probe_sent: SimTime::ZERO,
            // A controller that does not probe starts as if its probe were answered, so
            // `send` asks the controller once, here, not per call.
            probed: !cc.probe_first(),
            cc,
            retransmitted_bytes: 0,
            timeouts: 0,
            consecutive_timeouts: 0,
            probing: false,
            nic_queued: 0,
            nic_wait: false,
            cwnd_limited: true,
            last_activity: SimTime::ZERO,
        }
    }

    /// The application hands over `bytes` more to send (`u64::MAX`: send until closed).
    pub fn supply(&mut self, bytes: u64) {
        self.app_end = self.app_end.saturating_add(bytes);
    }

    /// The application stops: nothing beyond what was already sent will be.
    pub fn close(&mut self) {
        self.app_end = self.app_end.min(self.snd_max);
    }

    /// Bytes the application has supplied so far.
    pub fn supplied(&self) -> u64 {
        self.app_end
    }
    /// Supplied bytes never sent yet (the sender's queue).
    pub fn unsent(&self) -> u64 {
        self.app_end.saturating_sub(self.snd_max)
    }
    /// Bytes acknowledged.
    pub fn acked(&self) -> u64 {
        self.snd_una
    }
    /// Highest byte sent + 1.
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    /// Whether every byte the application supplied has been acknowledged.
    pub fn is_idle(&self) -> bool {
        self.snd_una >= self.app_end
    }
    /// The window state.
    pub fn window(&self) -> Window {
        self.win
    }
    /// The congestion controller.
    pub fn cc(&self) -> &Cc {
        &self.cc
    }
    /// The congestion controller, to hand it per-flow parameters or coupling.
    pub fn cc_mut(&mut self) -> &mut Cc {
        &mut self.cc
    }
    /// The RTT estimator.
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// Whether the sender is in probe mode ([`TcpConfig::probe_after_timeouts`]).
    pub fn is_probing(&self) -> bool {
        self.probing
    }
    /// Whether new data waits for the flow's packets to leave its host's NIC
    /// ([`TcpConfig::small_queue_bytes`]).
    pub fn nic_waiting(&self) -> bool {
        self.nic_wait
    }
    /// Wire bytes of this flow's data packets in its host's NIC queue, as the sender counts
    /// them under [`TcpConfig::small_queue_bytes`].
    pub fn nic_queued(&self) -> u64 {
        self.nic_queued
    }
    /// `bytes` of this flow's data packets (wire bytes) left the host's NIC queue (sent on,
    /// or dropped there). Under [`TcpConfig::small_queue_bytes`] the host reports every data
    /// packet the sender produced, once; then [`TcpSender::send`] may send what waited.
    pub fn nic_departed(&mut self, bytes: u64) {
        debug_assert!(
            bytes <= self.nic_queued,
            "more bytes left the NIC than entered it"
        );
        self.nic_queued -= bytes.min(self.nic_queued);
    }
    /// Payload bytes this sender put on the wire, retransmissions included (every byte below
    /// `snd_max` went once, and each resend is counted in `retransmitted_bytes`).
    pub fn sent_payload(&self) -> u64 {
        self.snd_max + self.retransmitted_bytes
    }
    /// Whether the sender is stalled at `now`: it holds data the application supplied and the
    /// receiver has not acknowledged, nothing holds it back legitimately (a paced send not yet
    /// due, its own packets still in the host's NIC), and it has neither sent a packet nor
    /// heard an ACK for longer than its retransmission timeout, which whenever data is
    /// outstanding would have fired by then. A correct sender is never stalled: with data
    /// and an open window it sends at once, and otherwise its timer acts within one RTO.
    pub fn stalled(&self, cfg: &TcpConfig, now: SimTime) -> bool {
        if self.snd_una >= self.app_end || self.nic_wait {
            return false;
        }
        if self.paced_wait && now <= self.next_send {
            return false;
        }
        now.checked_since(self.last_activity)
            .is_some_and(|idle| idle > self.current_rto(cfg))
    }
    /// A data segment of `len` payload bytes goes to the NIC: counted under small queues.
    #[inline]
    fn count_in_nic(&mut self, cfg: &TcpConfig, len: u64) {
        if cfg.small_queue_bytes.is_some() {
            self.nic_queued += len + cfg.header;
        }
    }
    /// The current retransmission timeout including backoff.
    pub fn current_rto(&self, cfg: &TcpConfig) -> Delta {
        self.rtt.rto(cfg)
    }
    /// When the sender next needs [`TcpSender::on_timer`]: the RTO, or the paced send time
    /// when data and window wait for it.
    pub fn poll_at(&self) -> SimTime {
        if self.paced_wait {
            self.rto_at.min(self.next_send)
        } else {
            self.rto_at
        }
    }

    fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// Whether the controller uses per-packet header fields (see
    /// [`CongestionControl::uses_header`]).
    pub fn uses_header(&self) -> bool {
        self.cc.uses_header()
    }

    /// The header fields the receiver echoes when data packet `arrived` comes in while
    /// `pending` waits for an ACK (see [`CongestionControl::echo_merge`]).
    pub fn echo_merge(&self, pending: &HeaderExt, arrived: &HeaderExt) -> HeaderExt {
        self.cc.echo_merge(pending, arrived)
    }

    /// Lets the controller write the header fields of a segment this sender just produced.
    pub fn stamp(&mut self, now: SimTime, seg: &Segment, ext: &mut HeaderExt) {
        let ev = StampEvent {
            now,
            seq: seg.seq,
            len: seg.len,
            retransmit: seg.retransmit,
            remaining: self.app_end.saturating_sub(seg.seq),
            snd_una: self.snd_una,
        };
        self.cc.stamp(&self.win, &ev, ext);
    }

    /// Header feedback arrived (on `ack`, before [`TcpSender::on_ack`], or on a control
    /// packet): the controller acts on it, and a pending probe counts as answered. The caller
    /// then calls [`TcpSender::on_ack`] or [`TcpSender::send`].
    ///
    /// While a probe is out, an ACK echoing a time before the probe was first sent answers an
    /// earlier packet (the previous probe, when its answer came late and a retransmission's
    /// answer moved the sender on): it is neither the probe's answer nor news for the
    /// controller, as a duplicate SYN-ACK is none to an established connection.
    pub fn on_feedback(
        &mut self,
        now: SimTime,
        ext: &HeaderExt,
        source: FeedbackSource,
        ack: Option<AckOut>,
    ) {
        if self.awaiting_probe && ack.is_some_and(|a| a.ts_echo < self.probe_sent) {
            return;
        }
        let ev = FeedbackEvent {
            now,
            ext: *ext,
            source,
            ack,
        };
        self.cc.on_feedback(&mut self.win, &ev, &self.rtt);
        if self.awaiting_probe {
            self.awaiting_probe = false;
            if self.cc.probe_again() {
                // The next `send` probes once more before any data.
                self.probed = false;
            }
            if self.snd_una >= self.snd_max {
                self.rto_at = SimTime::NEVER;
            }
        }
    }

    /// Sends what the windows allow, and with pacing (`Window::pacing`, else
    /// `TcpConfig::pacing`) no earlier than one packet's time at the pacing rate after the
    /// previous one. A controller that probes first sends a probe before the first byte.
    pub fn send(&mut self, cfg: &TcpConfig, now: SimTime, out: &mut Vec<Segment>) {
        if self.awaiting_probe {
            return;
        }
        if !self.probed && self.snd_nxt < self.app_end {
            self.send_probe(cfg, now, out);
            return;
        }
        self.paced_wait = false;
        self.nic_wait = false;
        self.cwnd_limited = false;
        let sent_before = out.len();
        // Two copies of the loop, so a run without small queues pays nothing for them.
        if cfg.small_queue_bytes.is_some() {
            self.send_segments::<true>(cfg, now, out);
        } else {
            self.send_segments::<false>(cfg, now, out);
        }
        if out.len() > sent_before {
            self.last_activity = now;
        }
    }

    /// `send`'s loop: segments while the windows (and with `SMALL_QUEUES`, the flow's share
    /// of its NIC queue) allow.
    #[inline(always)]
    fn send_segments<const SMALL_QUEUES: bool>(
        &mut self,
        cfg: &TcpConfig,
        now: SimTime,
        out: &mut Vec<Segment>,
    ) {
        let wnd = self.win.cwnd.min(cfg.rwnd_bytes).min(cfg.max_cwnd_bytes);
        let pacing = self.win.pacing.or(cfg.pacing);
        let nic_limit = cfg.small_queue_bytes.unwrap_or(u64::MAX);
        while self.snd_nxt < self.app_end {
            let len = cfg.mss.min(self.app_end - self.snd_nxt);
            let in_flight = self.snd_nxt - self.snd_una;
            if in_flight > 0 && in_flight + len > wnd {
                self.cwnd_limited = true;
                break;
            }
            // TCP small queues: one packet always fits an empty share of the NIC.
            if SMALL_QUEUES && self.nic_queued > 0 && self.nic_queued + len + cfg.header > nic_limit
            {
                self.nic_wait = true;
                break;
            }
            if let Some(rate) = pacing {
                if now < self.next_send {
                    self.paced_wait = true;
                    break;
                }
                // The next packet leaves one wire time at the pacing rate later.
                self.next_send = self.next_send.max(now) + rate.tx_time(len + cfg.header);
            }
            let retransmit = self.snd_nxt < self.snd_max;
            if retransmit {
                self.retransmitted_bytes += len;
                self.rtx_high = self.rtx_high.max(self.snd_nxt + len);
            }
            out.push(Segment {
                seq: self.snd_nxt,
                len,
                retransmit,
            });
            if SMALL_QUEUES {
                self.nic_queued += len + cfg.header;
            }
            self.snd_nxt += len;
            self.snd_max = self.snd_max.max(self.snd_nxt);
            if self.rto_at == SimTime::NEVER {
                self.rto_at = now + self.current_rto(cfg);
            }
        }
    }

    /// Sends a probe (an empty segment) and arms the retransmission timer for it.
    fn send_probe(&mut self, cfg: &TcpConfig, now: SimTime, out: &mut Vec<Segment>) {
        if !self.awaiting_probe {
            // Its first transmission (a retransmission's answer may echo the original).
            self.probe_sent = now;
        }
        self.awaiting_probe = true;
        self.probed = true;
        self.last_activity = now;
        out.push(Segment {
            seq: self.snd_nxt,
            len: 0,
            retransmit: false,
        });
        self.rto_at = now + self.current_rto(cfg);
    }

    fn retransmit_head(&mut self, cfg: &TcpConfig, out: &mut Vec<Segment>) {
        let len = cfg.mss.min(self.snd_max - self.snd_una);
        if len == 0 {
            return;
        }
        self.retransmitted_bytes += len;
        self.rtx_high = self.rtx_high.max(self.snd_una + len);
        out.push(Segment {
            seq: self.snd_una,
            len,
            retransmit: true,
        });
        self.count_in_nic(cfg, len);
    }

    /// An ACK arrived: `ack` is the next byte the receiver expects.
    pub fn on_ack(&mut self, cfg: &TcpConfig, now: SimTime, ack: &AckOut, out: &mut Vec<Segment>) {
        // Any ACK shows the path delivers again: leave probe mode, and the go-back-N restart
        // the last timeout began resumes below (`send` from `snd_una` with the timeout's window).
        self.last_activity = now;
        self.consecutive_timeouts = 0;
        self.probing = false;
        let a = ack.ack.min(self.snd_max);
        if a > self.snd_una {
            let acked = a - self.snd_una;
            // Karn's rule (RFC 6298 §3): no sample from an ACK covering retransmitted bytes,
            // unless timestamps tell the transmissions apart; a valid sample also ends the
            // backoff (RFC 6298 §5, note after (5.7)).
            if cfg.timestamps || self.snd_una >= self.rtx_high {
                if let Some(r) = now.checked_since(ack.ts_echo) {
                    self.rtt.sample(cfg, r);
                }
            }
            self.snd_una = a;
            if self.snd_nxt < a {
                // After a go-back-N restart the receiver may already hold later data.
                self.snd_nxt = a;
            }
            let ev = AckEvent {
                now,
                acked,
                ece: ack.ece,
                snd_una: a,
                snd_max: self.snd_max,
                in_recovery: self.in_recovery,
            };
            let before = self.win.cwnd;
            self.cc.on_ack(&mut self.win, &ev, &self.rtt);
            if cfg.cwnd_validation && !self.cwnd_limited {
                // Window validation: a window the sender did not fill does not grow (the
                // controller may still cut it: DCTCP's marks, a rate's window).
                self.win.cwnd = self.win.cwnd.min(before);
            }
            let mut restart_timer = true;
            if self.in_recovery {
                if self.recover.is_some_and(|r| a >= r) {
                    // RFC 6582 step 3, full acknowledgment, option (1):
                    // cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
                    self.in_recovery = false;
                    self.dupacks = 0;
                    self.win.cwnd = self.win.ssthresh.min(self.flight().max(cfg.mss) + cfg.mss);
                } else {
                    // Partial acknowledgment: retransmit the next hole, deflate by the amount
                    // acknowledged, add back one SMSS if at least one was acknowledged.
                    self.retransmit_head(cfg, out);
                    let back = if acked >= cfg.mss { cfg.mss } else { 0 };
                    self.win.cwnd = (self.win.cwnd.saturating_sub(acked) + back).max(cfg.mss);
                    restart_timer = !self.partial_seen;
                    self.partial_seen = true;
                }
            } else {
                self.dupacks = 0;
                self.limited_bytes = 0;
                self.win.cwnd = self.win.cwnd.min(cfg.max_cwnd_bytes);
            }
            // RFC 6298 §5.2 / 5.3.
            if self.snd_una >= self.snd_max {
                self.rto_at = SimTime::NEVER;
            } else if restart_timer {
                self.rto_at = now + self.current_rto(cfg);
            }
        } else if a == self.snd_una && self.snd_max > self.snd_una {
            self.dupacks += 1;
            if self.in_recovery {
                // RFC 6582 step 4: inflate by one SMSS per duplicate.
                self.win.cwnd += cfg.mss;
            } else if self.dupacks < cfg.dupack_threshold && self.dupacks <= 2 {
                if cfg.limited_transmit {
                    self.limited_transmit(cfg, now, out);
                }
            } else if self.dupacks == cfg.dupack_threshold
                && self.cc.fast_retransmit()
                && self.recover.is_none_or(|r| a >= r)
            {
                // RFC 6582 step 2: fast retransmit, enter fast recovery, only if the ACK
                // "covers more than recover". RFC 6582's `recover` is the highest sequence
                // number sent (`snd_max - 1`); ours is stored exclusive (`snd_max`), so that
                // test reads `a >= recover` here (as the full-ACK test below reads `a >= r`).
                // A loss of the first segment sent after a recovery or timeout then gets fast
                // retransmit instead of waiting for an RTO.
                // RFC 5681 eq. (4), FlightSize without limited-transmit segments (§3.2).
                let flight = self.flight() - self.limited_bytes.min(self.flight());
                self.cc.on_loss(
                    &mut self.win,
                    &LossEvent {
                        now,
                        flight,
                        in_recovery: false,
                    },
                );
                self.limited_bytes = 0;
                self.recover = Some(self.snd_max);
                self.in_recovery = true;
                self.partial_seen = false;
                self.retransmit_head(cfg, out);
                self.win.cwnd = self.win.ssthresh + 3 * cfg.mss;
            }
        }
        self.send(cfg, now, out);
    }

    /// RFC 5681 §3.2 step 1 (RFC 3042): one segment of previously unsent data, if the receive
    /// window allows and FlightSize stays within cwnd + 2 SMSS; cwnd does not change.
    fn limited_transmit(&mut self, cfg: &TcpConfig, now: SimTime, out: &mut Vec<Segment>) {
        if self.snd_nxt != self.snd_max || self.snd_nxt >= self.app_end {
            return;
        }
        let len = cfg.mss.min(self.app_end - self.snd_nxt);
        let after = self.flight() + len;
        if after > self.win.cwnd + 2 * cfg.mss || after > cfg.rwnd_bytes {
            return;
        }
        out.push(Segment {
            seq: self.snd_nxt,
            len,
            retransmit: false,
        });
        self.count_in_nic(cfg, len);
        self.snd_nxt += len;
        self.snd_max = self.snd_nxt;
        self.limited_bytes += len;
        if self.rto_at == SimTime::NEVER {
            self.rto_at = now + self.current_rto(cfg);
        }
    }

    /// A timer tick; sends paced data that is due, retransmits if the RTO expired.
    pub fn on_timer(&mut self, cfg: &TcpConfig, now: SimTime, out: &mut Vec<Segment>) {
        if self.paced_wait && now >= self.next_send && now < self.rto_at {
            self.send(cfg, now, out);
            return;
        }
        if now < self.rto_at {
            return;
        }
        self.rto_at = SimTime::NEVER;
        if self.awaiting_probe {
            // The probe or its answer was lost: back off and probe again.
            self.rtt.back_off();
            self.send_probe(cfg, now, out);
            return;
        }
        if self.snd_una >= self.snd_max {
            return;
        }
        // RFC 5681 §3.1 eq. (4) (the controller) and RFC 6298 §5.5-5.6.
        self.timeouts += 1;
        let ev = LossEvent {
            now,
            flight: self.flight(),
            in_recovery: self.in_recovery,
        };
        self.cc.on_timeout(&mut self.win, &ev);
        self.in_recovery = false;
        self.dupacks = 0;
        self.limited_bytes = 0;
        self.recover = Some(self.snd_max);
        self.rtt.back_off();
        self.snd_nxt = self.snd_una;
        self.consecutive_timeouts += 1;
        if cfg
            .probe_after_timeouts
            .is_some_and(|n| self.consecutive_timeouts >= n)
        {
            // Probe mode (pFabric §4.2): a header-only packet at `snd_una` that the receiver
            // answers at once (it holds nothing new), one per RTO, instead of full segments a
            // congested path would drop again.
            self.probing = true;
            self.last_activity = now;
            out.push(Segment {
                seq: self.snd_una,
                len: 0,
                retransmit: true,
            });
            self.rto_at = now + self.current_rto(cfg);
            return;
        }
        self.send(cfg, now, out);
    }
}

/// The receiving half of a TCP connection.
#[derive(Clone, Debug, Default)]
pub struct TcpReceiver {
    rcv_nxt: u64,
    /// Out-of-order byte ranges above `rcv_nxt`, sorted and disjoint.
    ooo: Vec<(u64, u64)>,
    pending: u32,
    pending_ts: SimTime,
    delack_at: Option<SimTime>,
    ce_state: bool,
}

impl TcpReceiver {
    /// Bytes received in order.
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }

    /// When the receiver next needs [`TcpReceiver::on_timer`].
    pub fn poll_at(&self) -> SimTime {
        self.delack_at.unwrap_or(SimTime::NEVER)
    }

    /// A probe (an empty control packet) arrived: answer at once with a pure ACK echoing its
    /// timestamp (this also sends any delayed ACK pending).
    pub fn on_probe(&mut self, ts: SimTime, out: &mut Vec<AckOut>) {
        self.ack_now(ts, out);
    }

    fn ack_now(&mut self, ts_echo: SimTime, out: &mut Vec<AckOut>) {
        out.push(AckOut {
            ack: self.rcv_nxt,
            ece: self.ce_state,
            ts_echo,
        });
        self.pending = 0;
        self.delack_at = None;
    }

    /// A data segment arrived. Returns the bytes newly delivered in order.
    #[allow(clippy::too_many_arguments)]
    pub fn on_data(
        &mut self,
        cfg: &TcpConfig,
        now: SimTime,
        seq: u64,
        len: u64,
        ce: bool,
        ts: SimTime,
        out: &mut Vec<AckOut>,
    ) -> u64 {
        if cfg.ecn && ce != self.ce_state {
            // DCTCP's two-state ACK machine: flush the pending ACK with the old CE state.
            if self.pending > 0 {
                let echo = self.pending_ts;
                self.ack_now(echo, out);
            }
            self.ce_state = ce;
        }
        let before = self.rcv_nxt;
        let end = seq + len;
        if end <= self.rcv_nxt {
            // A duplicate: acknowledge at once so the sender learns where we are.
            self.ack_now(ts, out);
            return 0;
        }
        let had_holes = !self.ooo.is_empty();
        if seq <= self.rcv_nxt {
            self.rcv_nxt = end;
            while let Some(&(s, e)) = self.ooo.first() {
                if s > self.rcv_nxt {
                    break;
                }
                self.rcv_nxt = self.rcv_nxt.max(e);
                self.ooo.remove(0);
            }
        } else {
            self.insert_range(seq, end);
        }
        if self.pending == 0 {
            self.pending_ts = ts;
        }
        self.pending += 1;
        let out_of_order = seq > before || had_holes;
        match cfg.delayed_ack {
            Some(d) if !out_of_order && self.pending < 2 => {
                if self.delack_at.is_none() {
                    self.delack_at = Some(now + d);
                }
            }
            _ => {
                let echo = if out_of_order { ts } else { self.pending_ts };
                self.ack_now(echo, out);
            }
        }
        self.rcv_nxt - before
    }

    fn insert_range(&mut self, s: u64, e: u64) {
        let i = self.ooo.partition_point(|r| r.1 < s);
        let mut j = i;
        let (mut s2, mut e2) = (s, e);
        while j < self.ooo.len() && self.ooo[j].0 <= e2 {
            s2 = s2.min(self.ooo[j].0);
            e2 = e2.max(self.ooo[j].1);
            j += 1;
        }
        self.ooo.splice(i..j, std::iter::once((s2, e2)));
    }

    /// A timer tick; sends a delayed ACK if due.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<AckOut>) {
        if self.delack_at.is_some_and(|t| t <= now) {
            if self.pending > 0 {
                let echo = self.pending_ts;
                self.ack_now(echo, out);
            } else {
                self.delack_at = None;
            }
        }
    }
}
