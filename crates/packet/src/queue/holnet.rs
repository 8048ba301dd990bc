//! HOLNET's congestion marking (HOLNET §V, "Congestion Detection"): a FIFO output port is
//! congested when its queue reaches `p_q` = 80% of its buffer; packets still enter until the
//! buffer overflows. Each data packet carries one congestion bit per switch hop in
//! `HeaderExt::flags` (bit k: the k-th switch the packet crossed was congested when it arrived)
//! and the hop count in `HeaderExt::aux`; the receiver echoes them to the sender, whose
//! controller reads the hops it listens to (HOLNET-UTA: the first-hop node). ACKs are not
//! marked. HOLNET-UTA with the single-hop signal (its default) reads no header fields and
//! runs over plain DropTail ports instead (`schemes::holnet_uta`).

use super::fifo::{ArrivalFifo, ArrivalRule};
use super::{Context, Discipline, Offer};
use crate::engine::PacketPool;
use crate::keys::NoKeys;
use crate::packet::PacketKind;
use dctc_core::error::KeyError;
use dctc_core::units::Rate;

/// HOLNET's threshold: a queue at 80% of its buffer is congested (`p_q = 80`).
pub const CONGESTED_PERCENT: u64 = 80;

/// The marking rule: this hop's bit on a data packet once the queue reaches 80%.
#[derive(Debug, Default)]
pub struct HopBits;

impl ArrivalRule for HopBits {
    /// Sets this hop's bit on a data packet when `queued` bytes (the arrival included) reach
    /// 80% of the buffer, and counts the hop.
    #[inline]
    fn accept(&mut self, offer: &mut Offer, pool: &mut PacketPool, queued: u64, cap: u64) -> bool {
        let pkt = offer.pkt;
        if pool[pkt].kind != PacketKind::Data {
            return false;
        }
        let congested = queued * 100 >= CONGESTED_PERCENT * cap;
        let ext = pool.ext(pkt);
        let hop = ext.aux;
        if congested && hop < 32 {
            ext.flags |= 1 << hop;
        }
        ext.aux = hop.saturating_add(1);
        false
    }
}

/// DropTail plus per-hop congestion bits.
pub type HolnetMark = ArrivalFifo<HopBits>;

impl HolnetMark {
    /// A queue of `capacity` bytes.
    pub fn new(capacity: u64) -> Self {
        ArrivalFifo::with_rule(capacity, HopBits)
    }
}

/// HOLNET's marking has no parameters: 80% of the port's buffer.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct HolnetParams;

impl Discipline for HolnetParams {
    const NAME: &'static str = "holnet";
    const ABOUT: &'static str = "FIFO that sets a per-hop congestion bit on data packets once the queue reaches 80% of the buffer (HOLNET)";
    type Keys = NoKeys;
    type Queue = HolnetMark;
    fn resolve(_keys: &NoKeys, _ctx: &Context) -> Result<Self, KeyError> {
        Ok(HolnetParams)
    }
    fn build(&self, buffer_bytes: u64, _seed: u64, _rate: Rate) -> HolnetMark {
        HolnetMark::new(buffer_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::PacketId;
    use crate::packet::Packet;
    use crate::queue::{Enqueued, QueueDisc};
    use dctc_core::units::SimTime;
    use dctc_core::ids::NodeId;

    fn pkt(pool: &mut PacketPool, kind: PacketKind) -> PacketId {
        let mut p = Packet::new(0, kind, NodeId(0), NodeId(1));
        p.wire_bytes = 1500;
        let id = pool.alloc(p);
        *pool.ext(id) = Default::default();
        id
    }

    #[test]
    fn a_hop_past_80_percent_sets_its_bit_and_every_hop_counts() {
        let mut pool = PacketPool::with_capacity(16);
        let mut q = HolnetMark::new(10_000);
        // Hop 0 at 70% after the arrival: no bit.
        let a = pkt(&mut pool, PacketKind::Data);
        q.admit(&mut Offer::of(a, &pool), &mut pool, 5_500);
        assert_eq!((pool.ext(a).flags, pool.ext(a).aux), (0, 1));
        // The same packet at hop 1, a port at 80%: bit 1.
        let mut q2 = HolnetMark::new(10_000);
        q2.admit(&mut Offer::of(a, &pool), &mut pool, 6_500);
        assert_eq!((pool.ext(a).flags, pool.ext(a).aux), (0b10, 2));
        // ACKs pass unmarked; an arrival that does not fit is dropped.
        let k = pkt(&mut pool, PacketKind::Ack);
        q.admit(&mut Offer::of(k, &pool), &mut pool, 8_000);
        assert_eq!((pool.ext(k).flags, pool.ext(k).aux), (0, 0));
        assert_eq!(
            q.admit(&mut Offer::of(k, &pool), &mut pool, 9_000),
            Enqueued::Dropped(k)
        );
        // The stored path marks the same way: the fifth packet brings the queue to 75%, the
        // sixth to 90%.
        let mut q3 = HolnetMark::new(10_000);
        let ids: Vec<PacketId> = (0..6).map(|_| pkt(&mut pool, PacketKind::Data)).collect();
        for &x in &ids {
            q3.enqueue(x, &mut pool, SimTime::ZERO);
        }
        assert_eq!(pool.ext(ids[4]).flags, 0);
        assert_eq!(pool.ext(ids[5]).flags, 1);
    }
}
