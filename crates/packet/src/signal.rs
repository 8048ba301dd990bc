//! Single-hop signaling: a flow's first-hop switch tells the flow's source host directly
//! whether the flow's path is congested there (HOLNET eq. 12: `r_out` "is determined by the
//! congestion information fed back from the first hop node (i.e., a top-of-rack (ToR)
//! switch ...), a per-flow-based single-hop signaling").
//!
//! A controller asks for it with [`crate::transport::CongestionControl::hop_signal`]. Each
//! time the first-hop switch forwards one of the flow's data packets it judges the flow's way
//! out (Table II): its own output port on the packet's path ([`LOCAL`]) and that port's next
//! hop, the next switch's port toward the destination ([`NEXT_HOP`]; congested if any of them
//! is). A port is congested once its backlog reaches `congested_percent` of its buffer (§V:
//! 80%). The switch keeps the judgment it last sent each flow and signals only a change, so a
//! steady state costs nothing; the source hears the same sequence of states a per-packet
//! report would give, since signals of one flow arrive in the order they were sent.
//!
//! The signal reaches the source one propagation delay of the switch-to-host link after the
//! judgment, as a control frame off the data path: it does not wait in the host downlink's
//! queue and takes no bandwidth from it (see the scenario notes for why). The next switch's
//! ports are read at the instant of the judgment, as the percentage balancer reads them.

/// [`HopSignal::hops`] bit: the first-hop switch's own output port on the packet's path.
pub const LOCAL: u32 = 1;
/// [`HopSignal::hops`] bit: that port's next hop (the next switch's ports toward the
/// destination).
pub const NEXT_HOP: u32 = 2;

/// Bits of a flow index in a packed signal ([`pack`]); the two above carry the flags.
const FLOW_BITS: u32 = 30;

/// Flow index `flow` and its judgment `flags` ([`LOCAL`], [`NEXT_HOP`]) in one word, so the
/// signal's event stays eight bytes.
#[inline]
pub(crate) fn pack(flow: u32, flags: u32) -> u32 {
    debug_assert!(flow < 1 << FLOW_BITS && flags <= (LOCAL | NEXT_HOP));
    flow | flags << FLOW_BITS
}

/// The flow index and flags of a packed signal.
#[inline]
pub(crate) fn unpack(word: u32) -> (u32, u32) {
    (word & ((1 << FLOW_BITS) - 1), word >> FLOW_BITS)
}

/// What a controller asks its flows' first-hop switch to report.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HopSignal {
    /// Which judgments count: [`LOCAL`], [`NEXT_HOP`] or both. The signal carries them as
    /// the same bits in `HeaderExt::flags`.
    pub hops: u32,
    /// A port is congested when its backlog reaches this percentage of its buffer.
    pub congested_percent: u64,
    /// How far [`NEXT_HOP`] looks. `false`: the next switch's own ports toward the
    /// destination. `true`: Table II applied at every node on the way, each node's state
    /// being its port's or its own next hop's, so the next hop counts as congested when any
    /// port from it to the destination host is (the per-hop reports composed).
    pub downstream: bool,
}

/// The first-hop switches' per-flow signaling state of one run.
#[derive(Clone, Debug)]
pub(crate) struct FirstHopSignals {
    pub(crate) spec: HopSignal,
    /// Per flow index, the flags its source last heard (0, nothing congested, at the start).
    last: Vec<u8>,
    /// Per port (link index), set by the fabric: the unfinished work in ps at which a FIFO
    /// port with a whole number of ps per byte is congested ([`Self::congested_bytes`] times
    /// its ps per byte); `u64::MAX` for other ports, judged by their backlog.
    pub(crate) congested_left: Vec<u64>,
}

impl FirstHopSignals {
    /// Signaling for `n_flows` flows (fewer than 2^30, which no run's memory reaches).
    pub(crate) fn new(spec: HopSignal, n_flows: usize) -> FirstHopSignals {
        assert!(n_flows < 1 << FLOW_BITS, "too many flows to signal");
        FirstHopSignals {
            spec,
            last: vec![0; n_flows],
            congested_left: Vec::new(),
        }
    }

    /// Flows it keeps state for.
    #[inline]
    pub(crate) fn flows(&self) -> usize {
        self.last.len()
    }

    /// Whether a port with `backlog` bytes in a `buffer`-byte buffer is congested.
    #[inline]
    pub(crate) fn congested(&self, backlog: u64, buffer: u64) -> bool {
        backlog * 100 >= self.spec.congested_percent * buffer
    }

    /// The fewest bytes of backlog that are congested in a `buffer`-byte buffer: `backlog`
    /// is congested exactly when `backlog >= congested_bytes(buffer)` (the ceiling of
    /// `congested_percent x buffer / 100`).
    #[inline]
    pub(crate) fn congested_bytes(&self, buffer: u64) -> u64 {
        (self.spec.congested_percent * buffer).div_ceil(100)
    }

    /// The switch judged flow `flow`'s path `flags`: returns the flags to signal when they
    /// differ from what the source last heard.
    #[inline]
    pub(crate) fn judge(&mut self, flow: u32, flags: u32) -> Option<u32> {
        let flags = flags & self.spec.hops;
        let last = &mut self.last[flow as usize];
        if u32::from(*last) == flags {
            return None;
        }
        *last = flags as u8;
        Some(flags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_changes_of_the_requested_hops_are_signaled() {
        let mut s = FirstHopSignals::new(
            HopSignal {
                hops: LOCAL,
                congested_percent: 80,
                downstream: false,
            },
            2,
        );
        assert!(!s.congested(79_999, 100_000));
        assert!(s.congested(80_000, 100_000));
        // The threshold in bytes agrees with the test, whole or not.
        for buffer in [0, 1, 99, 100, 101, 12_345, 100_000, 123_457] {
            let t = s.congested_bytes(buffer);
            assert!(s.congested(t, buffer), "{buffer}");
            assert!(t == 0 || !s.congested(t - 1, buffer), "{buffer}");
        }
        // Nothing congested is what a source assumes at the start: no signal.
        assert_eq!(s.judge(0, 0), None);
        // The next hop alone is not asked for.
        assert_eq!(s.judge(0, NEXT_HOP), None);
        assert_eq!(s.judge(0, LOCAL | NEXT_HOP), Some(LOCAL));
        assert_eq!(s.judge(0, LOCAL), None);
        // Flows are judged apart.
        assert_eq!(s.judge(1, LOCAL), Some(LOCAL));
        assert_eq!(s.judge(0, 0), Some(0));
        assert_eq!(s.judge(1, LOCAL), None);
        for (f, flags) in [(0, 0), (7, LOCAL), ((1 << 30) - 1, LOCAL | NEXT_HOP)] {
            assert_eq!(unpack(pack(f, flags)), (f, flags));
        }
    }
}
