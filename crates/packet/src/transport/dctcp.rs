//! DCTCP's sender (Alizadeh et al., SIGCOMM 2010; BASELINES.md).
//!
//! Once per window of data (when `snd_una` reaches the `snd_max` recorded at the window's
//! start; the first window ends at sequence 0, `SND.NXT` when the connection starts, as in
//! RFC 8257 §3.3 and Linux's `dctcp_init`, so alpha first updates on the first ACK) the
//! fraction F of acknowledged bytes that carried ECN-echo updates
//! `alpha <- (1 - g) alpha + g F` (DCTCP eq. (1), g = 1/16, alpha starts at 1). On an ECN-echo,
//! at most once per window, `cwnd <- cwnd (1 - alpha / 2)` (DCTCP eq. (2)) and ssthresh
//! follows it. Otherwise the window grows as NewReno's, and loss and timeout are NewReno's.

use super::{AckEvent, CongestionControl, LossEvent, NewReno, RttEstimator, Window};

/// DCTCP's estimator state.
#[derive(Clone, Debug, PartialEq)]
pub struct Dctcp {
    /// Estimated fraction of marked bytes.
    pub alpha: f64,
    /// Estimation gain g.
    pub g: f64,
    window_end: u64,
    acked: u64,
    marked: u64,
    cut_until: Option<u64>,
    reno: NewReno,
}

impl Dctcp {
    /// A fresh estimator with gain `g`; alpha starts at 1.
    pub fn new(g: f64) -> Self {
        Dctcp {
            alpha: 1.0,
            g,
            window_end: 0,
            acked: 0,
            marked: 0,
            cut_until: None,
            reno: NewReno::default(),
        }
    }
}

impl Default for Dctcp {
    fn default() -> Self {
        Dctcp::new(1.0 / 16.0)
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, w: &mut Window, ev: &AckEvent, _rtt: &RttEstimator) {
        self.acked += ev.acked;
        if ev.ece {
            self.marked += ev.acked;
        }
        // The window ends when snd_una reaches its end (Linux: `!before(snd_una, next_seq)`).
        if ev.snd_una >= self.window_end {
            // DCTCP eq. (1): alpha <- (1 - g) alpha + g F.
            let f = self.marked as f64 / self.acked.max(1) as f64;
            self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            self.acked = 0;
            self.marked = 0;
            self.window_end = ev.snd_max;
        }
        let may_cut = self.cut_until.is_none_or(|u| ev.snd_una > u);
        if ev.ece && may_cut && !ev.in_recovery {
            // DCTCP eq. (2): cwnd <- cwnd (1 - alpha / 2), once per window.
            let cut = (w.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64;
            // Linux keeps at least two segments after a DCTCP cut.
            w.cwnd = cut.max(2 * w.mss);
            w.ssthresh = w.cwnd;
            self.cut_until = Some(ev.snd_max);
            return;
        }
        if !ev.in_recovery {
            self.reno.grow(w, ev.acked);
        }
    }

    fn on_timeout(&mut self, w: &mut Window, ev: &LossEvent) {
        self.reno.on_timeout(w, ev);
    }

    fn ecn_capable(&self) -> bool {
        true
    }
}
