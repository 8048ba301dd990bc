//! The round-trip-time estimator and retransmission timeout of RFC 6298.
//!
//! `SRTT` and `RTTVAR` with alpha = 1/8 and beta = 1/4 (RFC 6298 §2.3),
//! `RTO = SRTT + max(G, 4 RTTVAR)` clamped to `[min_rto, max_rto]`, the first sample setting
//! `SRTT = R`, `RTTVAR = R / 2` (§2.2). The backoff doubles the RTO on each expiry up to the
//! max (§5.5) and ends only on a new valid sample (§5, note after (5.7)). Which ACKs give
//! samples (Karn's rule or timestamps) is the sender's business; this type only folds them.
//! It also keeps the latest and the smallest sample, which delay-based controllers and
//! HyStart++ read.

use super::TcpConfig;
use dctc_core::units::Delta;

/// RFC 6298 state of one connection.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RttEstimator {
    srtt: Option<Delta>,
    rttvar: Delta,
    rto: Delta,
    backoff: u32,
    latest: Option<Delta>,
    min: Option<Delta>,
}

impl RttEstimator {
    /// No sample yet: the RTO is `cfg.initial_rto` (RFC 6298 §2.1).
    pub fn new(cfg: &TcpConfig) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Delta::ZERO,
            rto: cfg.initial_rto,
            backoff: 0,
            latest: None,
            min: None,
        }
    }

    /// Folds a valid sample `r` in (RFC 6298 §2.2-2.4) and ends any backoff.
    pub fn sample(&mut self, cfg: &TcpConfig, r: Delta) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Delta(r.0 / 2);
            }
            Some(srtt) => {
                // RFC 6298 (2.3): RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'|, SRTT <- 7/8 SRTT + 1/8 R'.
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = Delta((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(Delta((7 * srtt.0 + r.0) / 8));
            }
        }
        let srtt = self.srtt.expect("set above");
        // RFC 6298 (2.3)/(2.4): RTO = SRTT + max(G, K RTTVAR), K = 4, clamped.
        let rto = srtt.0 + cfg.clock.0.max(4 * self.rttvar.0);
        self.rto = Delta(rto.clamp(cfg.min_rto.0, cfg.max_rto.0));
        self.backoff = 0;
        self.latest = Some(r);
        self.min = Some(self.min.map_or(r, |m| m.min(r)));
    }

    /// The RTO expired: double it for the next attempt (RFC 6298 (5.5)).
    pub fn back_off(&mut self) {
        self.backoff += 1;
    }

    /// The current timeout including backoff, capped at `cfg.max_rto`.
    pub fn rto(&self, cfg: &TcpConfig) -> Delta {
        let shifted = self.rto.0.saturating_mul(1u64 << self.backoff.min(40));
        Delta(shifted.min(cfg.max_rto.0))
    }

    /// Smoothed RTT, once there is a sample.
    pub fn srtt(&self) -> Option<Delta> {
        self.srtt
    }
    /// RTT variation.
    pub fn rttvar(&self) -> Delta {
        self.rttvar
    }
    /// The most recent sample.
    pub fn latest(&self) -> Option<Delta> {
        self.latest
    }
    /// The smallest sample so far.
    pub fn min_rtt(&self) -> Option<Delta> {
        self.min
    }
    /// Expiries since the last valid sample.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> TcpConfig {
        TcpConfig::pfabric_tuned(1_000_000)
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar_then_ewma() {
        let c = TcpConfig {
            min_rto: Delta::from_us(1),
            ..cfg()
        };
        let mut e = RttEstimator::new(&c);
        assert_eq!(e.rto(&c), c.initial_rto);
        e.sample(&c, Delta::from_us(100));
        assert_eq!(e.srtt(), Some(Delta::from_us(100)));
        assert_eq!(e.rttvar(), Delta::from_us(50));
        // RTO = 100 + 4 * 50 = 300 us.
        assert_eq!(e.rto(&c), Delta::from_us(300));
        e.sample(&c, Delta::from_us(20));
        // RTTVAR = (3 * 50 + 80) / 4 = 57.5, SRTT = (7 * 100 + 20) / 8 = 90.
        assert_eq!(e.rttvar(), Delta::from_ns(57_500));
        assert_eq!(e.srtt(), Some(Delta::from_us(90)));
        assert_eq!(e.latest(), Some(Delta::from_us(20)));
        assert_eq!(e.min_rtt(), Some(Delta::from_us(20)));
    }

    #[test]
    fn backoff_doubles_up_to_the_max_and_a_sample_ends_it() {
        let c = TcpConfig {
            max_rto: Delta::from_us(200),
            ..cfg()
        };
        let mut e = RttEstimator::new(&c);
        e.back_off();
        assert_eq!(e.rto(&c), Delta::from_us(90));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(&c), Delta::from_us(200));
        e.sample(&c, Delta::from_us(10));
        assert_eq!(e.backoff(), 0);
        // 10 + max(1, 20) = 30 us, below min RTO 45 us.
        assert_eq!(e.rto(&c), Delta::from_us(45));
    }
}
