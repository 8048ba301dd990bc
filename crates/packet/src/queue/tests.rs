use super::*;
use crate::packet::{Packet, PacketKind};
use dctc_core::ids::NodeId;

/// A data packet of `bytes` on the wire, ECN-capable if `ect` (the queue tests' fixture).
pub(crate) fn pkt(pool: &mut PacketPool, bytes: u32, ect: bool) -> PacketId {
    let mut p = Packet::new(0, PacketKind::Data, NodeId(0), NodeId(1));
    p.wire_bytes = bytes;
    p.ecn.ect = ect;
    pool.alloc(p)
}

#[test]
fn droptail_is_fifo_and_drops_the_arrival_that_does_not_fit() {
    let mut pool = PacketPool::default();
    let mut q = DropTail::new(3000);
    let a = pkt(&mut pool, 1500, false);
    let b = pkt(&mut pool, 1500, false);
    let c = pkt(&mut pool, 40, false);
    assert_eq!(
        q.enqueue(a, &mut pool, SimTime(0)),
        Enqueued::Queued { marked: false }
    );
    assert_eq!(
        q.enqueue(b, &mut pool, SimTime(0)),
        Enqueued::Queued { marked: false }
    );
    assert_eq!(q.enqueue(c, &mut pool, SimTime(0)), Enqueued::Dropped(c));
    assert_eq!(q.bytes(), 3000);
    assert_eq!(q.dequeue(&mut pool, SimTime(1)), Some(a));
    assert_eq!(q.dequeue(&mut pool, SimTime(1)), Some(b));
    assert_eq!(q.dequeue(&mut pool, SimTime(1)), None);
    assert_eq!(q.bytes(), 0);
}

#[test]
fn ecn_marks_ect_arrivals_only_above_k() {
    let mut pool = PacketPool::default();
    let mut q = EcnThreshold::new(10_000, 3000);
    let a = pkt(&mut pool, 1500, true);
    let b = pkt(&mut pool, 1500, true);
    let c = pkt(&mut pool, 1500, true);
    let d = pkt(&mut pool, 1500, false);
    assert_eq!(
        q.enqueue(a, &mut pool, SimTime(0)),
        Enqueued::Queued { marked: false }
    );
    // 3000 bytes is not above K.
    assert_eq!(
        q.enqueue(b, &mut pool, SimTime(0)),
        Enqueued::Queued { marked: false }
    );
    assert_eq!(
        q.enqueue(c, &mut pool, SimTime(0)),
        Enqueued::Queued { marked: true }
    );
    assert!(pool[c].ecn.ce && !pool[b].ecn.ce);
    assert_eq!(
        q.enqueue(d, &mut pool, SimTime(0)),
        Enqueued::Queued { marked: false }
    );
    assert!(!pool[d].ecn.ce);
}

#[test]
fn arrival_time_admission_matches_the_stored_queue() {
    let mut pool = PacketPool::default();
    let mut q = EcnThreshold::new(10_000, 3000);
    assert!(q.fifo_at_arrival());
    let a = pkt(&mut pool, 1500, true);
    let mut offer = Offer::of(a, &pool);
    assert_eq!(
        q.admit(&mut offer, &mut pool, 1500),
        Enqueued::Queued { marked: false }
    );
    assert!(!offer.ecn.ce);
    assert_eq!(
        q.admit(&mut offer, &mut pool, 1501),
        Enqueued::Queued { marked: true }
    );
    // The mark travels with the offer; the pool's header is the engine's to update.
    assert!(offer.ecn.ce && !pool[a].ecn.ce);
    assert_eq!(q.admit(&mut offer, &mut pool, 8501), Enqueued::Dropped(a));
    let mut d = DropTail::new(3000);
    let b = pkt(&mut pool, 1500, false);
    let mut offer = Offer::of(b, &pool);
    assert_eq!(
        d.admit(&mut offer, &mut pool, 1500),
        Enqueued::Queued { marked: false }
    );
    assert_eq!(d.admit(&mut offer, &mut pool, 1501), Enqueued::Dropped(b));
}

#[test]
fn the_queue_enum_stays_one_cache_line() {
    // Every port holds a `Queue` and is touched on every hop: the stored-queue disciplines
    // are boxed so the FIFOs decided at arrival keep ports small.
    assert!(
        std::mem::size_of::<Queue>() <= 64,
        "Queue is {} bytes",
        std::mem::size_of::<Queue>()
    );
}
