//! `tfc`: TFC (Zhang et al., EuroSys 2016): switch ports turn capacity into tokens per round of
//! a delimiter flow, count effective flows by RM-marked packets and write `W = T / E` into
//! data packets; senders mark one packet per round and take the window RMA ACKs carry; a delay
//! arbiter holds ACKs whose window is under one packet (see `queue::tfc`, `transport::tfc`).

use super::{Context, Parts};
use crate::queue::{Discipline, QueueSpec, TfcParams};
use crate::transport::{Cc, Tfc};
use dctc_core::error::KeyError;

/// Registered name.
pub const NAME: &str = "tfc";
/// `dctc list` description.
pub const ABOUT: &str = "TFC: tokens T = rho0 c rtt_b (adjusted, eq. 7-8) shared as W = T/E among RM-counted flows, delay arbiter for windows under a packet; keys (of the `tfc` queue) rho0 (0.97), alpha (7/8), initial_rtt_b_us (160), delay_arbiter (true)";

crate::scheme_config! {}

/// TFC's host over TFC switch ports (whose keys, `rho0`, `alpha`, `initial_rtt_b_us` and
/// `delay_arbiter`, are the `tfc` queue's: `queue::tfc`).
pub fn parts(_cfg: &Config, _ctx: &Context) -> Result<Parts, KeyError> {
    Ok(Parts {
        nic_switch: false,
        cc: Cc::Tfc(Tfc::default()),
        queue: TfcParams::NAME,
        tcp: Default::default(),
    })
}

/// TFC with `tcp` and switch parameters `params` (their `mss` and `header` come from `tcp`):
/// TFC ports at switches, the delay arbiter alone at host NICs.
pub fn scheme(tcp: crate::transport::TcpConfig, params: TfcParams) -> crate::sim::PacketScheme {
    let params = TfcParams {
        mss: tcp.mss,
        header: tcp.header,
        ..params
    };
    crate::sim::PacketScheme::assemble(NAME, tcp, Cc::Tfc(Tfc::default()), QueueSpec::Tfc(params))
}
