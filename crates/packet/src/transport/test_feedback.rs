//! A controller that exists only in tests, to check the engine's header-feedback path: it
//! probes before its first byte, stamps a marker and the remaining size on every data packet,
//! checks that feedback echoes them, and paces at a fixed rate once answered.

use super::{
    AckEvent, CongestionControl, FeedbackEvent, FeedbackSource, RttEstimator, StampEvent, Window,
};
use crate::packet::HeaderExt;
use dctc_core::units::{Rate, SimTime};

/// The marker stamped into `HeaderExt::aux`.
pub const MARK: u32 = 0xD07C;

/// Counts what it saw; the window stays at its initial value.
#[derive(Clone, Debug, PartialEq)]
pub struct TestFeedback {
    /// Probes stamped.
    pub probes: u64,
    /// Data packets stamped.
    pub stamped: u64,
    /// Feedback that came on ACKs.
    pub acks: u64,
    /// Feedback that came on control packets.
    pub controls: u64,
    /// Feedback whose marker was not the one stamped.
    pub bad_echo: u64,
    /// `priority` of the latest feedback (the remaining size the sender stamped).
    pub last_priority: u64,
    /// When the first data packet was stamped and the first feedback arrived.
    pub first_data: SimTime,
    /// When the first feedback arrived.
    pub first_feedback: SimTime,
    /// The pacing rate set on the first feedback.
    pub pace: Rate,
}

impl Default for TestFeedback {
    fn default() -> Self {
        TestFeedback {
            probes: 0,
            stamped: 0,
            acks: 0,
            controls: 0,
            bad_echo: 0,
            last_priority: 0,
            first_data: SimTime::NEVER,
            first_feedback: SimTime::NEVER,
            pace: Rate::mbps(2_500),
        }
    }
}

impl CongestionControl for TestFeedback {
    fn on_ack(&mut self, _w: &mut Window, _ev: &AckEvent, _rtt: &RttEstimator) {}

    fn uses_header(&self) -> bool {
        true
    }

    fn probe_first(&self) -> bool {
        true
    }

    fn stamp(&mut self, _w: &Window, ev: &StampEvent, ext: &mut HeaderExt) {
        assert_eq!(*ext, HeaderExt::default(), "fields arrive zeroed");
        ext.aux = MARK;
        ext.priority = ev.remaining;
        if ev.len == 0 {
            self.probes += 1;
        } else {
            self.stamped += 1;
            self.first_data = self.first_data.min(ev.now);
        }
    }

    fn on_feedback(&mut self, w: &mut Window, ev: &FeedbackEvent, _rtt: &RttEstimator) {
        match ev.source {
            FeedbackSource::Ack => self.acks += 1,
            FeedbackSource::Control => self.controls += 1,
            FeedbackSource::Switch => {}
        }
        self.bad_echo += (ev.ext.aux != MARK) as u64;
        self.last_priority = ev.ext.priority;
        self.first_feedback = self.first_feedback.min(ev.now);
        w.pacing = Some(self.pace);
    }
}
