use super::*;
use crate::packet::{Packet, PacketKind};
use dctc_core::ids::NodeId;

fn pkt(pool: &mut PacketPool, flow: u32, priority: u64, bytes: u32) -> PacketId {
    let mut p = Packet::new(flow, PacketKind::Data, NodeId(0), NodeId(1));
    p.wire_bytes = bytes;
    let id = pool.alloc(p);
    pool.ext(id).priority = priority;
    id
}

fn drain(q: &mut PFabric, pool: &mut PacketPool) -> Vec<PacketId> {
    let mut out = Vec::new();
    while let Some(p) = q.dequeue(pool, SimTime(1)) {
        out.push(p);
    }
    assert_eq!(q.bytes(), 0);
    out
}

#[test]
fn dequeue_order_is_by_priority() {
    let mut pool = PacketPool::default();
    let mut q = PFabric::new(36_000).unwrap();
    let prios = [50_000u64, 3_000, 700_000, 1_500, 20_000];
    let ids: Vec<_> = prios
        .iter()
        .enumerate()
        .map(|(f, &pr)| {
            let p = pkt(&mut pool, f as u32, pr, 1500);
            assert_eq!(
                q.enqueue(p, &mut pool, SimTime(0)),
                Enqueued::Queued { marked: false }
            );
            p
        })
        .collect();
    assert_eq!(
        drain(&mut q, &mut pool),
        vec![ids[3], ids[1], ids[4], ids[0], ids[2]]
    );
}

#[test]
fn a_flow_is_not_reordered_even_when_its_later_packet_has_higher_priority() {
    let mut pool = PacketPool::default();
    let mut q = PFabric::new(36_000).unwrap();
    // Flow 0's priority drops as it sends (remaining bytes shrink): its later packets carry
    // smaller values. Flow 1 sits between them.
    let a1 = pkt(&mut pool, 0, 9_000, 1500);
    let b = pkt(&mut pool, 1, 5_000, 1500);
    let a2 = pkt(&mut pool, 0, 1_500, 1500);
    for p in [a1, b, a2] {
        q.enqueue(p, &mut pool, SimTime(0));
    }
    // a2 is the most urgent, so flow 0 goes first, but with its earliest packet a1.
    assert_eq!(drain(&mut q, &mut pool), vec![a1, a2, b]);
}

#[test]
fn a_full_buffer_drops_the_lowest_priority_packet() {
    let mut pool = PacketPool::default();
    let mut q = PFabric::new(4_500).unwrap();
    let a = pkt(&mut pool, 0, 10_000, 1500);
    let big = pkt(&mut pool, 1, 900_000, 1500);
    let c = pkt(&mut pool, 2, 20_000, 1500);
    for p in [a, big, c] {
        assert_eq!(
            q.enqueue(p, &mut pool, SimTime(0)),
            Enqueued::Queued { marked: false }
        );
    }
    // A more urgent arrival pushes out the queued lowest-priority packet.
    let d = pkt(&mut pool, 3, 5_000, 1500);
    assert_eq!(q.enqueue(d, &mut pool, SimTime(1)), Enqueued::Dropped(big));
    // A less urgent arrival than everything queued is itself dropped.
    let e = pkt(&mut pool, 4, 800_000, 1500);
    assert_eq!(q.enqueue(e, &mut pool, SimTime(2)), Enqueued::Dropped(e));
    assert_eq!((q.len(), q.bytes()), (3, 4_500));
    // An urgent 1500 B arrival into a 1600 B buffer holding two 700 B packets: both must
    // go, the least urgent first.
    let mut q = PFabric::new(1_600).unwrap();
    let s1 = pkt(&mut pool, 5, 70_000, 700);
    let s2 = pkt(&mut pool, 6, 60_000, 700);
    q.enqueue(s1, &mut pool, SimTime(0));
    q.enqueue(s2, &mut pool, SimTime(0));
    let f = pkt(&mut pool, 7, 100, 1500);
    assert_eq!(q.enqueue(f, &mut pool, SimTime(1)), Enqueued::Dropped(s1));
    let mut rest = Vec::new();
    q.drain_dropped(&mut rest);
    assert_eq!(rest, vec![s2]);
    assert_eq!(drain(&mut q, &mut pool), vec![f]);
}

#[test]
fn a_buffer_smaller_than_one_packet_is_refused() {
    let e = PFabric::new(1_000).unwrap_err();
    assert_eq!(e.param, "buffer_bytes");
    assert!(PFabric::new(1_500).is_ok());
}

#[test]
fn equal_priorities_send_the_earliest_and_drop_the_latest() {
    let mut pool = PacketPool::default();
    // Room for three 1500 B packets.
    let mut q = PFabric::new(4_500).unwrap();
    // Flows 0, 1, 2 at one priority, then flow 3 at the same priority overflows the buffer:
    // the latest arrival (flow 3's) is the one dropped.
    let ids: Vec<_> = (0..4).map(|f| pkt(&mut pool, f, 7_000, 1500)).collect();
    for &p in &ids[..3] {
        assert_eq!(
            q.enqueue(p, &mut pool, SimTime(0)),
            Enqueued::Queued { marked: false }
        );
    }
    assert_eq!(
        q.enqueue(ids[3], &mut pool, SimTime(0)),
        Enqueued::Dropped(ids[3])
    );
    // A dequeue takes the earliest of the tied packets; after it, flow 1's is the earliest.
    assert_eq!(q.dequeue(&mut pool, SimTime(1)), Some(ids[0]));
    let late = pkt(&mut pool, 4, 7_000, 1500);
    q.enqueue(late, &mut pool, SimTime(2));
    assert_eq!(drain(&mut q, &mut pool), vec![ids[1], ids[2], late]);
}
