//! `pfabric`: pFabric (Alizadeh et al., SIGCOMM 2013): switches schedule by priority (the
//! flow's remaining bytes, smallest first, a flow never reordered) and on a full buffer drop
//! the lowest-priority packet (`queue::pfabric`); hosts run minimal rate control
//! ([`crate::transport::pfabric`]).
//!
//! Its TCP defaults (pFabric §4.2), below `[packet].tcp` and the table's `tcp`:
//! - initial window = largest window = the fabric's BDP in packets: the host rate times the
//!   longest base RTT from the first host (one full packet out, its ACK back, on empty
//!   links), to the nearest packet ("start at line rate"; 12 on fq-codel-32, as pFabric's);
//! - no fast retransmit (`dupack_threshold` effectively infinite), loss found by timeout;
//! - a fixed RTO of 45 us (min = max = initial RTO, so no backoff): about 3 RTTs of the
//!   paper's 10 Gb/s fabric, and the value of the pFabric tuning table;
//! - an ACK per packet (no delayed ACK);
//! - probe mode after 5 consecutive timeouts: one header-only probe per RTO until an ACK.
//!
//! The switch buffer is the fabric's unless `buffer_packets` sets it; pFabric's is about
//! 2 x BDP (36 KB at 10 Gb/s in the paper), which the scenarios set.
//!
//! Host NICs run pFabric's queue with the switches' buffer by default (`nic_queue =
//! "switch"`): pFabric's design prioritizes at every port, end hosts included, as its ns-2
//! setup does. On a FIFO NIC a 1-packet flow waits behind its host's other windows past the
//! fixed RTO (issue 25: the Flowtune comparison's 1-packet p99 slowdown 223 with a 1.5 MB
//! DropTail NIC). `nic_queue = "droptail"` restores the FIFO NIC.
//!
//! ACKs rank highest at every pFabric port by default (`pfabric_ack_priority`, see
//! `queue::pfabric`).

use super::{Context, Parts};
use crate::queue::Discipline;
use crate::queue::pfabric::PFabricParams;

use crate::config::TcpKnobs;
use dctc_core::error::KeyError;
use crate::transport::{Cc, PFabricHost};
use dctc_core::routing::Routing;
use dctc_core::stats::{ideal_fct, HEADER_BYTES, MSS_BYTES};
use dctc_core::topology::Topology;
use dctc_core::units::Delta;

/// Registered name.
pub const NAME: &str = "pfabric";
/// `dctc list` description.
pub const ABOUT: &str = "pFabric: priority = remaining bytes, lowest priority dropped when full; hosts start at BDP, 45 us fixed RTO, no fast retransmit, probe mode; NICs run pFabric too, ACKs rank highest";

crate::scheme_config! {}

/// The fixed RTO, us (pFabric §4.2; the pFabric tuning table's minRTO).
pub const RTO_US: f64 = 45.0;
/// Consecutive timeouts before probe mode (pFabric §4.2).
pub const PROBE_AFTER_TIMEOUTS: u32 = 5;

/// The longest empty-network RTT from the first host: a full packet out and its ACK back.
pub fn base_rtt(topo: &Topology) -> Option<Delta> {
    let routing = Routing::new(topo).ok()?;
    let hosts = topo.hosts();
    let src = *hosts.first()?;
    let hops = |from, to| -> Vec<_> {
        routing
            .ecmp_path(topo, from, to, 0)
            .iter()
            .map(|&l| (topo.link(l).rate, topo.link(l).delay))
            .collect()
    };
    hosts
        .iter()
        .skip(1)
        .map(|&dst| {
            ideal_fct(&hops(src, dst), MSS_BYTES, MSS_BYTES, HEADER_BYTES, topo.host_delay)
                + ideal_fct(&hops(dst, src), 0, MSS_BYTES, HEADER_BYTES, topo.host_delay)
        })
        .max()
}

/// The fabric's bandwidth-delay product in full packets, rounded to the nearest (at least 1):
/// the first host's rate times [`base_rtt`]. pFabric's own fabric (14.6 us, 10 Gb/s) has a
/// BDP of 18 KB, 12 packets (its 36 KB buffers are 2 x BDP, and the pFabric tuning table's
/// initial window is 12), which rounding up would make 13.
pub fn bdp_packets(topo: &Topology) -> Option<u64> {
    let rtt = base_rtt(topo)?;
    let rate = topo.host_rate(*topo.hosts().first()?)?;
    let bits = rate.0 as u128 * rtt.0 as u128; // bits x 1e12 (b/s times ps)
    let packet = 8 * 1_000_000_000_000 * (MSS_BYTES + HEADER_BYTES) as u128;
    Some((((bits + packet / 2) / packet) as u64).max(1))
}

/// pFabric's TCP defaults on a fabric whose BDP is `bdp_packets` (see the module doc).
pub fn tcp_knobs(bdp_packets: u64) -> TcpKnobs {
    TcpKnobs {
        initial_cwnd_packets: Some(bdp_packets),
        max_cwnd_packets: Some(bdp_packets),
        dupack_threshold: Some(u32::MAX),
        min_rto_us: Some(RTO_US),
        max_rto_us: Some(RTO_US),
        initial_rto_us: Some(RTO_US),
        delayed_ack_us: Some(0.0),
        probe_after_timeouts: Some(PROBE_AFTER_TIMEOUTS),
        ..TcpKnobs::default()
    }
}

/// pFabric's host over pFabric's switch queue.
pub fn parts(_cfg: &Config, ctx: &Context) -> Result<Parts, KeyError> {
    let bdp = bdp_packets(ctx.topo)
        .ok_or_else(|| ctx.error("name", "pfabric needs a fabric with two connected hosts"))?;
    Ok(Parts {
        nic_switch: true,
        cc: Cc::PFabricHost(PFabricHost::default()),
        queue: PFabricParams::NAME,
        tcp: tcp_knobs(bdp),
    })
}
