//! Transports as state machines without I/O (smoltcp's habit): the engine hands a sender an
//! ACK or a timer tick and gets back segments to send; a receiver gets a data segment and
//! returns ACKs; `poll_at()` says when each next needs a tick. Congestion control sits behind
//! [`CongestionControl`], stored in the [`Cc`] enum so calls inline.
//!
//! - [`tcp`]: TCP's reliable-delivery machinery (RFC 5681 / 6582 NewReno loss recovery,
//!   the RTO timer) shared by every TCP-like scheme.
//! - [`rtt`]: the RFC 6298 RTT estimator and RTO.
//! - [`newreno`]: NewReno window control (slow start, congestion avoidance, halving), the
//!   default every other controller builds on.
//! - [`dctcp`]: DCTCP's ECN-fraction estimator and proportional cut.

pub mod coupling;
pub mod rtt;
pub mod tcp;

pub use coupling::Coupling;

pub use rtt::RttEstimator;
pub use tcp::{TcpReceiver, TcpSender};

use crate::packet::HeaderExt;
use dctc_core::units::{Delta, Rate, SimTime};

/// TCP settings of one scheme, in engine units (see `config` for the scenario keys).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Payload bytes per full segment.
    pub mss: u64,
    /// Header bytes per packet.
    pub header: u64,
    /// Initial congestion window, segments.
    pub initial_cwnd_packets: u64,
    /// Largest congestion window, bytes.
    pub max_cwnd_bytes: u64,
    /// Receive window, bytes (caps the flight).
    pub rwnd_bytes: u64,
    /// Lower bound of the retransmission timeout.
    pub min_rto: Delta,
    /// Upper bound of the retransmission timeout (also caps backoff).
    pub max_rto: Delta,
    /// RTO before the first RTT sample.
    pub initial_rto: Delta,
    /// Timer granularity G of RFC 6298.
    pub clock: Delta,
    /// Delayed-ACK timeout; `None` acknowledges every segment at once.
    pub delayed_ack: Option<Delta>,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupack_threshold: u32,
    /// Whether data packets are ECN-capable and receivers echo CE (DCTCP).
    pub ecn: bool,
    /// RTT samples from echoed timestamps (RFC 7323 RTTM, as Linux): every ACK of new data
    /// gives a sample, retransmitted data included, since each transmission carries its own
    /// send time (RFC 6298 §3 allows this exception to Karn's rule). `false`: Karn's rule, no
    /// sample from an ACK that covers retransmitted bytes.
    pub timestamps: bool,
    /// Limited transmit (RFC 5681 §3.2 step 1, a SHOULD; RFC 3042): on the first and second
    /// duplicate ACK, send one segment of new data each if the flight stays within
    /// cwnd + 2 SMSS. Off in both presets: BASELINES.md's tuned TCP does not list it and it
    /// changes incast markedly (far fewer timeouts at high fan-in); a scenario turns it on.
    pub limited_transmit: bool,
    /// Pacing rate of new data: the sender puts one packet's wire time at this rate between
    /// the starts of consecutive new segments. `None`: window-limited only.
    pub pacing: Option<Rate>,
    /// Probe mode (pFabric §4.2): after this many consecutive timeouts with no ACK between
    /// them, each further timeout sends one header-only probe instead of going back N, until
    /// an ACK arrives. `None`: never probe.
    pub probe_after_timeouts: Option<u32>,
    /// TCP small queues (Linux 3.6+, `tcp_limit_output_bytes`): at most this many bytes of
    /// the flow's data packets wait in its host's NIC queue; the sender holds the rest
    /// unsent until earlier packets have left the NIC. `None`: no limit (ns-2's hosts), so
    /// a sender whose own NIC is its bottleneck queues its whole window there.
    pub small_queue_bytes: Option<u64>,
    /// Congestion window validation (RFC 7661 §4's principle; Linux's
    /// `tcp_is_cwnd_limited`): the window grows only on ACKs that arrive while the sender was
    /// limited by it, not by the application, pacing or the small-queue limit. Without it a
    /// sender held back by [`TcpConfig::small_queue_bytes`] grows a window it never uses.
    pub cwnd_validation: bool,
}

impl TcpConfig {
    /// pFabric's tuned TCP (BASELINES.md, pFabric Table 2): minRTO 45 us, maxRTO 2 s, initial
    /// RTO 45 us, clock 1 us, delayed ACK 6 us, receive window 1e6 B, initial cwnd 12
    /// packets, max cwnd = switch buffer in packets - 1.
    pub fn pfabric_tuned(switch_buffer_bytes: u64) -> TcpConfig {
        let mss = dctc_core::stats::MSS_BYTES;
        let header = dctc_core::stats::HEADER_BYTES;
        let max_pkts = (switch_buffer_bytes / (mss + header))
            .saturating_sub(1)
            .max(2);
        TcpConfig {
            mss,
            header,
            initial_cwnd_packets: 12,
            max_cwnd_bytes: max_pkts * mss,
            rwnd_bytes: 1_000_000,
            min_rto: Delta::from_us(45),
            max_rto: Delta::from_ms(2000),
            initial_rto: Delta::from_us(45),
            clock: Delta::from_us(1),
            delayed_ack: Some(Delta::from_us(6)),
            dupack_threshold: 3,
            ecn: false,
            // Karn's rule, RFC 6298 §3's default (BASELINES.md names no timestamps).
            timestamps: false,
            limited_transmit: false,
            pacing: None,
            probe_after_timeouts: None,
            // ns-2's TCP, which the pFabric and FQ-CoDel papers ran: neither.
            small_queue_bytes: None,
            cwnd_validation: false,
        }
    }

    /// A stock-kernel TCP as on TFC's testbed: minRTO 200 ms, initial RTO 1 s (RFC 6298),
    /// max RTO 60 s, 1 ms clock, initial window 10, no delayed ACK (request/response traffic
    /// runs in quick-ACK mode), no window cap beyond a 16 MB receive window, RTT samples from
    /// timestamps (Linux's default `tcp_timestamps = 1`), and the host stack's limits on a
    /// sender's own queue: TCP small queues at Linux 3.6's 128 KB and a window that grows only
    /// while it is used (see [`TcpConfig::small_queue_bytes`]; without them a lone sender
    /// whose NIC is its bottleneck parked a megabyte in its 1000-packet NIC queue, which no
    /// ECN mark or loss reported, and which flooded the shared port when a second flow
    /// joined: `scenarios/tfc/README.md`).
    pub fn linux_like() -> TcpConfig {
        TcpConfig {
            mss: dctc_core::stats::MSS_BYTES,
            header: dctc_core::stats::HEADER_BYTES,
            initial_cwnd_packets: 10,
            max_cwnd_bytes: u64::MAX / 4,
            rwnd_bytes: 16 << 20,
            min_rto: Delta::from_ms(200),
            max_rto: Delta::from_ms(60_000),
            initial_rto: Delta::from_ms(1000),
            clock: Delta::from_ms(1),
            delayed_ack: None,
            dupack_threshold: 3,
            ecn: false,
            timestamps: true,
            limited_transmit: false,
            pacing: None,
            probe_after_timeouts: None,
            small_queue_bytes: Some(LINUX_TSQ_BYTES),
            cwnd_validation: true,
        }
    }
}

/// Linux's `tcp_limit_output_bytes` as TCP small queues introduced it (3.6, 2012): 128 KB.
/// Later kernels allow about 1 ms at the flow's pacing rate, capped at 256 KB (4.x) or 1 MB
/// (5.x); 128 KB is about 1 ms at 1 Gb/s, the TFC testbed's rate.
pub const LINUX_TSQ_BYTES: u64 = 128 << 10;

/// A segment a sender wants on the wire. A segment with `len == 0` is a probe: an empty
/// control packet to the receiver, which answers with a pure ACK echoing the probe's header
/// (TFC's marked empty packet that fetches the first window; see
/// [`CongestionControl::probe_first`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// First payload byte.
    pub seq: u64,
    /// Payload bytes (0: a probe).
    pub len: u64,
    /// Whether these bytes were sent before.
    pub retransmit: bool,
}

/// An acknowledgement a receiver wants on the wire.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AckOut {
    /// Next byte expected (cumulative).
    pub ack: u64,
    /// ECN-echo.
    pub ece: bool,
    /// Timestamp echoed for the sender's RTT sample.
    pub ts_echo: SimTime,
}

/// The window state congestion control acts on, in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// Congestion window.
    pub cwnd: u64,
    /// Slow-start threshold.
    pub ssthresh: u64,
    /// Segment size.
    pub mss: u64,
    /// A pacing rate for new data set by the controller (Flowtune's allocated rate, a rate
    /// controller's output); overrides `TcpConfig::pacing` while `Some`.
    pub pacing: Option<Rate>,
}

impl Window {
    /// A window of `cwnd` bytes, slow-start threshold `ssthresh`, segment size `mss`, no pacing.
    pub fn new(cwnd: u64, ssthresh: u64, mss: u64) -> Window {
        Window {
            cwnd,
            ssthresh,
            mss,
            pacing: None,
        }
    }
}

/// What congestion control learns from an ACK that acknowledges new data.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AckEvent {
    /// When the ACK arrived.
    pub now: SimTime,
    /// Bytes newly acknowledged.
    pub acked: u64,
    /// The ACK carried ECN-echo.
    pub ece: bool,
    /// `snd_una` after the ACK.
    pub snd_una: u64,
    /// Highest byte sent so far.
    pub snd_max: u64,
    /// Whether the sender is in fast recovery (then the sender, not the controller, sets the
    /// window: RFC 6582's inflation and deflation).
    pub in_recovery: bool,
}

#[cfg(test)]
impl AckEvent {
    /// A plain ACK at time zero that newly acknowledges `acked` bytes (no ECN-echo, not in
    /// recovery): what a controller's unit tests feed it.
    pub(crate) fn acking(acked: u64) -> AckEvent {
        AckEvent {
            now: SimTime::ZERO,
            acked,
            ece: false,
            snd_una: 0,
            snd_max: 0,
            in_recovery: false,
        }
    }
}

/// A loss the sender detected: three duplicate ACKs (fast retransmit) or a timeout.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LossEvent {
    /// When the loss was detected.
    pub now: SimTime,
    /// FlightSize at detection (RFC 5681 eq. (4)), bytes, without limited-transmit segments.
    pub flight: u64,
    /// A timeout that fired during fast recovery (the recovery failed): the congestion event
    /// `on_loss` already answered, and `cwnd` is inflated by the duplicate ACKs (RFC 6582
    /// step 4). Always false for `on_loss`.
    pub in_recovery: bool,
}

/// What a controller that writes header fields learns about a data packet it may stamp.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StampEvent {
    /// When the packet leaves the sender.
    pub now: SimTime,
    /// Its first payload byte.
    pub seq: u64,
    /// Its payload bytes (0 for a probe).
    pub len: u64,
    /// Whether these bytes were sent before.
    pub retransmit: bool,
    /// Bytes from `seq` to the end of what the application has supplied so far (pFabric's
    /// priority: the flow's remaining size).
    pub remaining: u64,
    /// The first unacknowledged byte.
    pub snd_una: u64,
}

/// Where header feedback reached the sender from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FeedbackSource {
    /// An ACK (data or probe), echoing the header of the packet it answers as rewritten by
    /// the switches on the way, and rewritten again by those on the way back.
    Ack,
    /// A control packet addressed to the sender.
    Control,
    /// The flow's first-hop switch, directly and off the data path (single-hop signaling,
    /// [`CongestionControl::hop_signal`]): `ext.flags` holds its judgment.
    Switch,
}

/// Header feedback arriving at a sender (see [`CongestionControl::on_feedback`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FeedbackEvent {
    /// When it arrived.
    pub now: SimTime,
    /// The header fields it carries.
    pub ext: HeaderExt,
    /// An ACK, a control packet or the first-hop switch.
    pub source: FeedbackSource,
    /// The ACK that carried the fields (its cumulative ACK and timestamp echo); `None` for
    /// control packets and switch signals.
    pub ack: Option<AckOut>,
}

/// Congestion control owns the window (smoltcp's `Controller` habit): the sender tells it of
/// every ACK of new data, every loss and every timeout, and it sets `cwnd` and `ssthresh`.
/// The sender keeps reliable delivery only: what to (re)send, fast recovery's inflation and
/// deflation (RFC 6582), the cwnd cap and the RTO timer.
///
/// The loss and timeout hooks default to NewReno's response (RFC 5681 eq. (4)); growth has no
/// default because it needs state ([`NewReno`] is the reusable growth rule).
pub trait CongestionControl {
    /// An ACK of new data arrived. Grow (or cut) the window; outside recovery the sender then
    /// caps `cwnd` at the configured maximum. `rtt` already holds this ACK's sample, if any.
    fn on_ack(&mut self, w: &mut Window, ev: &AckEvent, rtt: &RttEstimator);

    /// Three duplicate ACKs: set `ssthresh` (the sender then enters fast recovery with
    /// `cwnd = ssthresh + 3 SMSS`, RFC 5681 §3.2 step 3).
    fn on_loss(&mut self, w: &mut Window, ev: &LossEvent) {
        // RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2 SMSS).
        w.ssthresh = (ev.flight / 2).max(2 * w.mss);
    }

    /// The retransmission timer expired: set `ssthresh` and the loss window.
    fn on_timeout(&mut self, w: &mut Window, ev: &LossEvent) {
        // RFC 5681 eq. (4) and §3.1: cwnd = LW = 1 SMSS.
        w.ssthresh = (ev.flight / 2).max(2 * w.mss);
        w.cwnd = w.mss;
    }

    /// Whether data packets are ECN-capable and receivers echo CE (sets `TcpConfig::ecn`).
    fn ecn_capable(&self) -> bool {
        false
    }

    /// Whether this controller uses per-packet header fields ([`HeaderExt`]). Only then does
    /// the engine zero each packet's fields at creation, call [`CongestionControl::stamp`] on
    /// data packets, echo a data packet's fields on the ACK it triggers (with delayed ACKs,
    /// those of the latest data packet), and hand arriving fields to
    /// [`CongestionControl::on_feedback`]; other schemes pay nothing for the fields.
    fn uses_header(&self) -> bool {
        false
    }

    /// A data packet (or probe) is about to leave: write the fields switches and the
    /// receiver will see (pFabric's priority, TFC's RM mark, XCP's H_cwnd and H_rtt). The
    /// fields arrive zeroed.
    fn stamp(&mut self, _w: &Window, _ev: &StampEvent, _ext: &mut HeaderExt) {}

    /// Header feedback arrived on an ACK or a control packet, before the ACK itself is
    /// processed: set the window or pacing rate from it (TFC's window, XCP's feedback,
    /// Flowtune's rate).
    fn on_feedback(&mut self, _w: &mut Window, _ev: &FeedbackEvent, _rtt: &RttEstimator) {}

    /// The receiver holds `pending`, the fields of an earlier data packet that no ACK has
    /// carried yet (a delayed ACK will cover both), and data packet `arrived` comes in: the
    /// fields its next ACK echoes. The latest packet's by default; TFC keeps an RM packet's
    /// until an ACK carries them (§5.3: the ACK of the RM packet is its RMA).
    fn echo_merge(&self, _pending: &HeaderExt, arrived: &HeaderExt) -> HeaderExt {
        *arrived
    }

    /// Whether the flow's first-hop switch signals this controller directly (HOLNET's
    /// single-hop signaling, see [`crate::signal`]) and what it reports: each change arrives
    /// through [`CongestionControl::on_feedback`] from [`FeedbackSource::Switch`]. None by
    /// default.
    fn hop_signal(&self) -> Option<crate::signal::HopSignal> {
        None
    }

    /// Whether a sender with nothing in flight starts by sending a probe (an empty control
    /// packet, [`Segment`] with `len == 0`) and holds its data until feedback answers it
    /// (TFC §4.5: the marked empty packet that fetches the first window). A lost probe is
    /// sent again when the retransmission timer expires.
    fn probe_first(&self) -> bool {
        false
    }

    /// Asked when a probe is answered: whether to send one more probe before data (TFC: the
    /// first probe plays the handshake's marked SYN, which switches count but give no window;
    /// the second fetches the window, §4.6). Never by default.
    fn probe_again(&mut self) -> bool {
        false
    }

    /// Whether three duplicate ACKs trigger fast retransmit and recovery (default true);
    /// HOLNET-UTA turns it off and recovers by the timeout only (§V).
    fn fast_retransmit(&self) -> bool {
        true
    }
    /// The controller is about to run for flow `flow` (the workload's flow id): a scheme
    /// with per-flow parameters picks this flow's here. Called once, before the flow starts.
    fn for_flow(&mut self, _flow: u32) {}

    /// This subflow of a multipath connection is about to see an ACK or a timer: `c`
    /// describes all the connection's subflows (coupled controllers read it).
    fn couple(&mut self, _c: &Coupling) {}
}

/// Registers congestion controllers, one line each: `"name" => module::Type: "about",` for
/// `Type` in `transport/<module>.rs` (which must be `Default`, the controller with its paper's
/// parameters); a line may carry attributes (`#[cfg(test)]` for a test-only controller). Declares the module, re-exports the type, and generates the [`Cc`] enum (calls dispatch by `match` and inline, no
/// `Box<dyn>` on the per-ACK path), its name lookup and [`TRANSPORTS`].
macro_rules! controllers {
    ($($(#[$attr:meta])* $name:literal => $m:ident::$variant:ident: $about:literal,)*) => {
        $($(#[$attr])* pub mod $m; $(#[$attr])* pub use $m::$variant;)*

        /// A congestion controller of any registered kind.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Cc {
            $($(#[$attr])* #[doc = $about] $variant($variant),)*
        }

        /// Registered transports (`transport = "..."` in a scheme table): name, description.
        pub const TRANSPORTS: &[(&str, &str)] = &[$($(#[$attr])* ($name, $about),)*];

        impl Cc {
            /// The controller registered as `name`, with its default parameters.
            pub fn from_name(name: &str) -> Option<Cc> {
                match name {
                    $($(#[$attr])* $name => Some(Cc::$variant(<$variant>::default())),)*
                    _ => None,
                }
            }

            /// Its registered name.
            pub fn name(&self) -> &'static str {
                match self {
                    $($(#[$attr])* Cc::$variant(_) => $name,)*
                }
            }
        }

        impl CongestionControl for Cc {
            #[inline]
            fn on_ack(&mut self, w: &mut Window, ev: &AckEvent, rtt: &RttEstimator) {
                match self {
                    $($(#[$attr])* Cc::$variant(c) => c.on_ack(w, ev, rtt),)*
                }
            }
            fn on_loss(&mut self, w: &mut Window, ev: &LossEvent) {
                match self {
                    $($(#[$attr])* Cc::$variant(c) => c.on_loss(w, ev),)*
                }
            }
            fn on_timeout(&mut self, w: &mut Window, ev: &LossEvent) {
                match self {
                    $($(#[$attr])* Cc::$variant(c) => c.on_timeout(w, ev),)*
                }
            }
            fn ecn_capable(&self) -> bool {
                match self {
                    $($(#[$attr])* Cc::$variant(c) => c.ecn_capable(),)*
                }
            }
            fn uses_header(&self) -> bool {
                match self {
                    $($(#[$attr])* Cc::$variant(c) => c.uses_header(),)*
                }
            }
            #[inline]
            fn stamp(&mut self, w: &Window, ev: &StampEvent, ext: &mut HeaderExt) {
                match self {
                    $($(#[$attr])* Cc::$variant(c) => c.stamp(w, ev, ext),)*
                }
            }
            #[inline]
            fn on_feedback(&mut self, w: &mut Window, ev: &FeedbackEvent, rtt: &RttEstimator) {
                match self {
                    $($(#[$attr])* Cc::$variant(c) => c.on_feedback(w, ev, rtt),)*
                }
            }
            fn echo_merge(&self, pending: &HeaderExt, arrived: &HeaderExt) -> HeaderExt {
                match self {
                    $($(#[$attr])* Cc::$variant(c) => c.echo_merge(pending, arrived),)*
                }
            }
            fn hop_signal(&self) -> Option<crate::signal::HopSignal> {
                match self {
                    $($(#[$attr])* Cc::$variant(c) => c.hop_signal(),)*
                }
            }
            fn probe_first(&self) -> bool {
                match self {
                    $($(#[$attr])* Cc::$variant(c) => c.probe_first(),)*
                }
            }
            fn probe_again(&mut self) -> bool {
                match self {
                    $($(#[$attr])* Cc::$variant(c) => c.probe_again(),)*
                }
            }
            fn fast_retransmit(&self) -> bool {
                match self {
                    $($(#[$attr])* Cc::$variant(c) => c.fast_retransmit(),)*
                }
            }
            fn for_flow(&mut self, flow: u32) {
                match self {
                    $($(#[$attr])* Cc::$variant(c) => c.for_flow(flow),)*
                }
            }
            fn couple(&mut self, cp: &Coupling) {
                match self {
                    $($(#[$attr])* Cc::$variant(c) => c.couple(cp),)*
                }
            }
        }
    };
}

controllers! {
    "newreno" => newreno::NewReno: "NewReno: slow start, congestion avoidance, halving on loss (RFC 5681/6582)",
    "dctcp" => dctcp::Dctcp: "DCTCP: ECN-echo fraction alpha, cwnd x (1 - alpha/2) once per window",
    "cubic" => cubic::Cubic: "CUBIC (RFC 9438) with HyStart++ (RFC 9406)",
    "tfc" => tfc::Tfc: "TFC host: one RM mark per round, cwnd = the window RMA ACKs carry, probes for its first window",
    "xcp" => xcp::Xcp: "XCP sender: stamps H_cwnd, H_rtt, H_feedback; cwnd += echoed router feedback",
    "holnet-uta" => holnet_uta::HolnetUta: "HOLNET-UTA (eq. 24-25, r = w = 1): Reno utility driven by the first-hop node's congestion bit; no fast retransmit, go-back-N timeouts without a cut",
    "pfabric" => pfabric::PFabricHost: "pFabric host: TCP window growth, timeout-only loss recovery, cwnd 1 and ssthresh / 2 on timeout",
    "flowtune" => flowtune::Flowtune: "Flowtune endpoint: TCP until the allocator's first rate, then an open window paced at the allocated rate",
    "holnet-cc" => holnet_cc::HolnetCc: "HOLNET CC/CC-CoS (eq. 19): alpha-utility window control, class-of-service r, loss-inferred congestion",
    "holnet-mcc" => holnet_mcc::HolnetMcc: "HOLNET MCC (eq. 20): coupled multipath window control, AIMD on one path",
    "mptcp" => mptcp::Mptcp: "MPTCP coupled increase (RFC 6356 LIA) over NewReno loss recovery",
    #[cfg(test)]
    "test-feedback" => test_feedback::TestFeedback: "test only: probes first, stamps and checks header echoes",
}

pub use holnet_uta::UtaFeedback;

#[cfg(test)]
mod tests;
