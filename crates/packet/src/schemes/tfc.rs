//! `tfc`: TFC (Zhang et al., EuroSys 2016): switch ports turn capacity into tokens per round of
//! a delimiter flow, count effective flows by RM-marked packets and write `W = T / E` into
//! data packets; senders mark one packet per round and take the window RMA ACKs carry; a delay
//! arbiter holds ACKs whose window is under one packet (see `queue::tfc`, `transport::tfc`).

use super::{Context, Parts, QueueName};
use dctc_core::config::KeyError;
use crate::queue::TfcParams;
use crate::transport::{Cc, Tfc};
use dctc_core::units::Delta;

/// Registered name.
pub const NAME: &str = "tfc";
/// `dctc list` description.
pub const ABOUT: &str = "TFC: tokens T = rho0 c rtt_b (adjusted, eq. 7-8) shared as W = T/E among RM-counted flows, delay arbiter for windows under a packet; keys rho0 (0.97), alpha (7/8), initial_rtt_b_us (160), delay_arbiter (true)";

crate::scheme_config! {
    /// Expected link utilization rho0 of eq. (7), in (0, 1.2] (default 0.97).
    rho0: Option<f64>,
    /// Weight alpha of the previous token in eq. (8), in [0, 1) (default 7/8).
    alpha: Option<f64>,
    /// rtt_b before the first measurement, microseconds, positive (default 160).
    initial_rtt_b_us: Option<f64>,
    /// Whether switches run the delay arbiter of §4.6 (default true).
    delay_arbiter: Option<bool>,
}

/// TFC's host over TFC switch ports.
pub fn parts(cfg: &Config, ctx: &Context) -> Result<Parts, KeyError> {
    let d = TfcParams::default();
    let rho0 = cfg.rho0.unwrap_or(d.rho0);
    if !(rho0 > 0.0 && rho0 <= 1.2) {
        return Err(ctx.error("rho0", format!("must be in (0, 1.2], got {rho0}")));
    }
    let alpha = cfg.alpha.unwrap_or(d.alpha);
    if !(0.0..1.0).contains(&alpha) {
        return Err(ctx.error("alpha", format!("must be in [0, 1), got {alpha}")));
    }
    let initial_rtt_b = match cfg.initial_rtt_b_us {
        None => d.initial_rtt_b,
        Some(us) => dctc_core::units::checked::span_us(
            "initial_rtt_b_us",
            us,
            dctc_core::units::checked::SpanRule::positive(Delta::from_ms(1000)),
        )
        .map_err(|e| ctx.error("initial_rtt_b_us", e.reason))?,
    };
    if initial_rtt_b.0 == 0 {
        return Err(ctx.error("initial_rtt_b_us", "must be at least one picosecond"));
    }
    let params = TfcParams {
        rho0,
        alpha,
        initial_rtt_b,
        delay_arbiter: cfg.delay_arbiter.unwrap_or(d.delay_arbiter),
        ..d
    };
    Ok(Parts {
        cc: Cc::Tfc(Tfc::default()),
        queue: QueueName::Tfc(params),
        tcp: Default::default(),
    })
}

/// TFC with `tcp` and switch parameters `params` (their `mss` and `header` come from `tcp`):
/// TFC ports at switches, the delay arbiter alone at host NICs.
pub fn scheme(tcp: crate::transport::TcpConfig, params: TfcParams) -> super::PacketScheme {
    let params = TfcParams {
        mss: tcp.mss,
        header: tcp.header,
        ..params
    };
    let mut s = super::PacketScheme::assemble(
        NAME,
        tcp,
        Cc::Tfc(Tfc::default()),
        super::QueueSpec::Tfc(params),
    );
    s.host_queue = super::QueueSpec::Tfc(params.host_nic());
    s
}
