use super::*;
use crate::packet::{Packet, PacketKind};
use crate::queue::{SfqCodel, SfqCodelParams};
use dctc_core::ids::NodeId;

/// Picoseconds to serialize one byte at 10 Gb/s.
pub(crate) const PS_PER_BYTE: u64 = 800;
const US: u64 = 1_000_000;

pub(crate) fn pkt(pool: &mut PacketPool, flow: u32, hash: u64, bytes: u32) -> PacketId {
    let mut p = Packet::new(flow, PacketKind::Data, NodeId(0), NodeId(1));
    p.wire_bytes = bytes;
    p.hash = hash;
    pool.alloc(p)
}

/// A backlogged flow: keeps `window` packets of `bytes` in the queue, replacing each packet
/// sent or dropped at once.
#[derive(Copy, Clone)]
pub(crate) struct Long {
    pub(crate) hash: u64,
    pub(crate) bytes: u32,
    pub(crate) window: usize,
}

/// A sparse flow: one packet of `bytes` every `period` ps from `start`.
#[derive(Copy, Clone)]
pub(crate) struct Sparse {
    pub(crate) hash: u64,
    pub(crate) bytes: u32,
    pub(crate) period: u64,
    pub(crate) start: u64,
}

/// What the port sent.
pub(crate) struct Trace {
    /// Bytes sent per long flow.
    pub(crate) long_bytes: Vec<u64>,
    /// Packets dropped per long flow.
    pub(crate) long_drops: Vec<u64>,
    /// Waits of the sparse flow's packets (ps), in order.
    pub(crate) sparse_waits: Vec<u64>,
    /// Sparse packets dropped.
    pub(crate) sparse_drops: u64,
}

/// Drives `q` as a 10 Gb/s port for `until` ps: flows `0..longs.len()` are `longs`, flow
/// `longs.len()` is `sparse`.
pub(crate) fn drive(q: &mut impl QueueDisc, longs: &[Long], sparse: Sparse, until: u64) -> Trace {
    let mut pool = PacketPool::default();
    let s = longs.len() as u32;
    let mut tr = Trace {
        long_bytes: vec![0; longs.len()],
        long_drops: vec![0; longs.len()],
        sparse_waits: Vec::new(),
        sparse_drops: 0,
    };
    let mut dropped = Vec::new();
    let offer = |q: &mut dyn FnMut(PacketId, &mut PacketPool) -> Enqueued,
                 pool: &mut PacketPool,
                 flow: u32,
                 dropped: &mut Vec<PacketId>| {
        let (hash, bytes) = if flow == s {
            (sparse.hash, sparse.bytes)
        } else {
            (longs[flow as usize].hash, longs[flow as usize].bytes)
        };
        let p = pkt(pool, flow, hash, bytes);
        if let Enqueued::Dropped(d) = q(p, pool) {
            dropped.push(d);
        }
    };
    let mut resend = vec![0usize; longs.len()];
    let mut next_sparse = sparse.start;
    let mut port_free = 0u64;
    for (f, l) in longs.iter().enumerate() {
        for _ in 0..l.window {
            offer(
                &mut |p, pool| q.enqueue(p, pool, SimTime(0)),
                &mut pool,
                f as u32,
                &mut dropped,
            );
        }
    }
    while port_free < until {
        if next_sparse <= port_free {
            let t = next_sparse;
            offer(
                &mut |p, pool| q.enqueue(p, pool, SimTime(t)),
                &mut pool,
                s,
                &mut dropped,
            );
            next_sparse += sparse.period;
        } else {
            let now = port_free;
            let out = q.dequeue(&mut pool, SimTime(now));
            match out {
                Some(p) => {
                    let (flow, bytes) = (pool[p].flow, pool[p].wire_bytes as u64);
                    if flow == s {
                        tr.sparse_waits.push(now - pool[p].enqueued_at.0);
                    } else {
                        tr.long_bytes[flow as usize] += bytes;
                        for _ in 0..1 + std::mem::take(&mut resend[flow as usize]) {
                            offer(
                                &mut |p, pool| q.enqueue(p, pool, SimTime(now)),
                                &mut pool,
                                flow,
                                &mut dropped,
                            );
                        }
                    }
                    pool.free(p);
                    port_free = now + bytes * PS_PER_BYTE;
                }
                None => port_free = next_sparse,
            }
        }
        q.drain_dropped(&mut dropped);
        // A backlogged sender retransmits what was dropped, with its next packet.
        for d in dropped.drain(..) {
            let flow = pool[d].flow;
            pool.free(d);
            if flow == s {
                tr.sparse_drops += 1;
            } else {
                tr.long_drops[flow as usize] += 1;
                resend[flow as usize] += 1;
            }
        }
    }
    tr
}

/// Jain's fairness index of `x`.
pub(crate) fn jain(x: &[u64]) -> f64 {
    let s: f64 = x.iter().map(|&v| v as f64).sum();
    let s2: f64 = x.iter().map(|&v| (v as f64) * (v as f64)).sum();
    s * s / (x.len() as f64 * s2)
}

/// `n` flow hashes that land in distinct buckets under `bucket_of`.
pub(crate) fn distinct_hashes(n: usize, bucket_of: impl Fn(u64) -> u32) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    let mut h = 1u64;
    while out.len() < n {
        if out.iter().all(|&o| bucket_of(o) != bucket_of(h)) {
            out.push(h);
        }
        h += 1;
    }
    out
}

fn fq(params: FqCodelParams) -> FqCodel {
    FqCodel::new(params, 7).unwrap()
}

#[test]
fn sparse_flow_skips_the_backlog_and_long_flows_share_bytes_equally() {
    let mut q = fq(FqCodelParams::default());
    let h = distinct_hashes(3, |x| q.bucket_of(x));
    // Two backlogged flows with different packet sizes (packet round robin would give the
    // 1500 B flow three times the bytes of the 500 B one), one 200 B packet every 50 us.
    let longs = [
        Long {
            hash: h[0],
            bytes: 1500,
            window: 20,
        },
        Long {
            hash: h[1],
            bytes: 500,
            window: 60,
        },
    ];
    let sparse = Sparse {
        hash: h[2],
        bytes: 200,
        period: 50 * US,
        start: 3 * US + 100_000,
    };
    let tr = drive(&mut q, &longs, sparse, 20_000 * US);
    // New-flow priority (RFC 8290 §4.2): a sparse packet waits at most for the packet being
    // serialized, less than one quantum per active flow (2 x 1500 B = 2.4 us).
    let quantum_per_flow = 2 * 1500 * PS_PER_BYTE;
    let one_packet = 1500 * PS_PER_BYTE;
    assert!(tr.sparse_waits.len() >= 399, "{}", tr.sparse_waits.len());
    let worst = *tr.sparse_waits.iter().max().unwrap();
    assert!(worst < quantum_per_flow, "worst sparse wait {worst} ps");
    assert!(worst <= one_packet, "worst sparse wait {worst} ps");
    assert_eq!(tr.sparse_drops, 0);
    // DRR shares bytes, not packets: within 5%, Jain >= 0.99.
    let (a, b) = (tr.long_bytes[0] as f64, tr.long_bytes[1] as f64);
    assert!((a / b - 1.0).abs() < 0.05, "bytes {a} vs {b}");
    assert!(jain(&tr.long_bytes) >= 0.99);
    // The long flows did build a standing queue, and CoDel acted on them.
    assert!(q.stats().codel.drops > 0);
}

#[test]
fn a_full_buffer_drops_from_the_head_of_the_fattest_bucket() {
    let mut pool = PacketPool::default();
    let mut q = fq(FqCodelParams {
        limit_packets: 20,
        ..FqCodelParams::default()
    });
    let h = distinct_hashes(3, |x| q.bucket_of(x));
    let put = |q: &mut FqCodel, pool: &mut PacketPool, flow: u32, bytes| {
        let p = pkt(pool, flow, h[flow as usize], bytes);
        (p, q.enqueue(p, pool, SimTime(0)))
    };
    let a: Vec<_> = (0..13).map(|_| put(&mut q, &mut pool, 0, 1500).0).collect();
    // Flow 1 has more packets but fewer bytes than flow 0.
    let b: Vec<_> = (0..6).map(|_| put(&mut q, &mut pool, 1, 400).0).collect();
    let (s, r) = put(&mut q, &mut pool, 2, 200);
    assert_eq!(r, Enqueued::Queued { marked: false });
    assert_eq!(q.len(), 20);
    // The 21st packet (flow 1) overflows: Linux's batch drops from flow 0's head until half
    // its 19500 bytes are gone: 7 packets.
    let (_, r) = put(&mut q, &mut pool, 1, 400);
    let mut gone = vec![match r {
        Enqueued::Dropped(d) => d,
        other => panic!("{other:?}"),
    }];
    q.drain_dropped(&mut gone);
    gone.sort_by_key(|p| p.0);
    assert_eq!(gone, a[..7].to_vec());
    assert_eq!(q.len(), 14);
    assert_eq!(q.bucket_bytes(q.bucket_of(h[0])), 6 * 1500);
    assert_eq!(q.bucket_bytes(q.bucket_of(h[1])), 7 * 400);
    assert_eq!(q.bucket_bytes(q.bucket_of(h[2])), 200);
    assert_eq!(q.stats().overflow_drops, 7);
    // Everything else leaves in order; the sparse packet is still there.
    let mut out = Vec::new();
    while let Some(p) = q.dequeue(&mut pool, SimTime(1)) {
        out.push(p);
    }
    assert!(out.contains(&s));
    assert!(b.iter().all(|p| out.contains(p)));
    assert_eq!(out.len(), 14);
}

#[test]
fn overflow_under_load_never_drops_the_sparse_flow() {
    let mut q = fq(FqCodelParams {
        limit_packets: 50,
        drop_batch: 1,
        ..FqCodelParams::default()
    });
    let h = distinct_hashes(3, |x| q.bucket_of(x));
    let longs = [
        Long {
            hash: h[0],
            bytes: 1500,
            window: 40,
        },
        Long {
            hash: h[1],
            bytes: 1500,
            window: 40,
        },
    ];
    let sparse = Sparse {
        hash: h[2],
        bytes: 1500,
        period: 20 * US,
        start: 0,
    };
    let tr = drive(&mut q, &longs, sparse, 5_000 * US);
    assert!(q.stats().overflow_drops > 100, "{:?}", q.stats());
    assert_eq!(tr.sparse_drops, 0);
    assert_eq!(tr.sparse_waits.len(), 250);
}

#[test]
fn bucket_assignment_is_reproducible_per_seed_and_differs_across_seeds() {
    let p = FqCodelParams::default();
    let map = |seed| {
        let q = FqCodel::new(p, seed).unwrap();
        (0..10_000u64)
            .map(|i| q.bucket_of(mix64(i)))
            .collect::<Vec<_>>()
    };
    let (a, a2, b) = (map(1), map(1), map(2));
    assert_eq!(a, a2);
    let same = a.iter().zip(&b).filter(|(x, y)| x == y).count();
    // Independent hashes agree with probability 1/1024: about 10 of 10000.
    assert!(same < 100, "{same} of 10000 hashes in the same bucket");
    // Every bucket is used and none is overloaded (mean 9.8 per bucket).
    let mut count = vec![0u32; 1024];
    for &x in &a {
        count[x as usize] += 1;
    }
    assert!(
        count.iter().all(|&c| c > 0 && c < 30),
        "{:?}",
        count.iter().max()
    );
}

#[test]
fn new_flow_that_empties_moves_to_old_flows_and_is_not_new_again() {
    let mut pool = PacketPool::default();
    let mut q = fq(FqCodelParams::default());
    let h = distinct_hashes(3, |x| q.bucket_of(x));
    // Flow 0 backlogged, with its quantum spent so it sits on old-flows.
    let a: Vec<_> = (0..4)
        .map(|_| {
            let p = pkt(&mut pool, 0, h[0], 1500);
            q.enqueue(p, &mut pool, SimTime(0));
            p
        })
        .collect();
    assert_eq!(q.dequeue(&mut pool, SimTime(0)), Some(a[0]));
    // Flow 1 arrives: new, served first.
    let b1 = pkt(&mut pool, 1, h[1], 100);
    q.enqueue(b1, &mut pool, SimTime(1));
    assert_eq!(q.dequeue(&mut pool, SimTime(1)), Some(b1));
    // The next dequeue finds flow 1 empty: it moves to the tail of old-flows (RFC 8290
    // §4.2), not off the lists; flow 0 sends.
    assert_eq!(q.dequeue(&mut pool, SimTime(2)), Some(a[1]));
    // So when flow 1 sends again it is not new: a flow 2 arriving after it is served first.
    let b2 = pkt(&mut pool, 1, h[1], 100);
    q.enqueue(b2, &mut pool, SimTime(3));
    let c = pkt(&mut pool, 2, h[2], 100);
    q.enqueue(c, &mut pool, SimTime(3));
    assert_eq!(q.dequeue(&mut pool, SimTime(3)), Some(c));
    // Flow 0, out of credit, gets a quantum and goes behind flow 1 on old-flows.
    assert_eq!(q.dequeue(&mut pool, SimTime(4)), Some(b2));
    assert_eq!(q.dequeue(&mut pool, SimTime(5)), Some(a[2]));
}

#[test]
fn bad_parameters_name_the_field() {
    let d = FqCodelParams::default();
    let err = |p: FqCodelParams| FqCodel::new(p, 0).unwrap_err().param;
    assert_eq!(err(FqCodelParams { buckets: 0, ..d }), "buckets");
    assert_eq!(
        err(FqCodelParams {
            buckets: 70_000,
            ..d
        }),
        "buckets"
    );
    assert_eq!(err(FqCodelParams { quantum: 0, ..d }), "quantum");
    assert_eq!(
        err(FqCodelParams {
            limit_bytes: 1000,
            ..d
        }),
        "limit_bytes"
    );
    assert_eq!(
        err(FqCodelParams {
            limit_packets: 0,
            ..d
        }),
        "limit_packets"
    );
    assert_eq!(err(FqCodelParams { drop_batch: 0, ..d }), "drop_batch");
    let mut codel = d.codel;
    codel.target = dctc_core::units::Delta::ZERO;
    assert_eq!(err(FqCodelParams { codel, ..d }), "target");
    let e = SfqCodel::new(
        SfqCodelParams {
            quantum: 0,
            ..SfqCodelParams::default()
        },
        0,
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "quantum: must be positive");
}

/// What a port did in one step of [`replay`]: the packet sent (flow, sequence number) and
/// the packets dropped or marked (the same), in order.
type Step = (Option<(u32, u64)>, Vec<(u32, u64)>, u64);

/// Offers `q` a bursty mix of `flows` flows (phases of overload, light load and silence of
/// random lengths, so buckets fill, drop, go idle for more or less than 16 CoDel intervals
/// and come back) and serves one packet per 1500 B slot at 10 Gb/s; returns every step.
fn replay(q: &mut FlowQueues, flows: u32, seed: u64) -> Vec<Step> {
    let mut pool = PacketPool::default();
    let mut seq = vec![0u64; flows as usize];
    let mut out = Vec::new();
    let mut dropped = Vec::new();
    let mut r = seed;
    let mut draw = |n: u64| {
        r = mix64(r.wrapping_add(0x9e37_79b9_7f4a_7c15));
        r % n
    };
    let slot = 1500 * PS_PER_BYTE;
    let mut t = 0u64;
    for _ in 0..40 {
        // Per mille chance per flow per slot of a burst of 1-4 packets.
        let rate = [0, 5, 20, 150, 400][draw(5) as usize];
        let steps = 50 + draw(2500);
        for _ in 0..steps {
            t += slot;
            let now = SimTime(t);
            let mut gone = Vec::new();
            for f in 0..flows {
                if draw(1000) >= rate {
                    continue;
                }
                for _ in 0..1 + draw(4) {
                    let bytes = [64, 600, 1500][draw(3) as usize] as u32;
                    let p = pkt(&mut pool, f, mix64(f as u64 + 1), bytes);
                    pool[p].seq = seq[f as usize];
                    pool[p].ecn.ect = f % 2 == 0;
                    seq[f as usize] += 1;
                    if let Enqueued::Dropped(d) = q.enqueue(p, &mut pool, now) {
                        dropped.push(d);
                    }
                }
            }
            let sent = q.dequeue(&mut pool, now);
            q.drain_dropped(&mut dropped);
            for d in dropped.drain(..) {
                gone.push((pool[d].flow, pool[d].seq));
                pool.free(d);
            }
            let sent = sent.map(|p| {
                let id = (pool[p].flow, pool[p].seq);
                pool.free(p);
                id
            });
            out.push((sent, gone, q.take_marks()));
        }
    }
    // Silence for more than 16 intervals, then each flow sends one packet that leaves at
    // once: every bucket ends idle with a state as good as new.
    t += 2_000 * slot;
    for f in 0..flows {
        let p = pkt(&mut pool, f, mix64(f as u64 + 1), 64);
        let now = SimTime(t);
        assert_eq!(
            q.enqueue(p, &mut pool, now),
            Enqueued::Queued { marked: false }
        );
        let mut sent = Vec::new();
        while let Some(p) = q.dequeue(&mut pool, now) {
            sent.push((pool[p].flow, pool[p].seq));
            pool.free(p);
        }
        out.push((None, sent, q.take_marks()));
    }
    out
}

/// A bucket's slot is given back only when its state is as good as new, so the discipline
/// does exactly what it does with a state kept per bucket: same packets sent, dropped and
/// marked, step by step, for FQ-CoDel and sfqCoDel, with and without ECN, and with many
/// flows sharing few buckets. And the slots do get reused.
#[test]
fn giving_idle_buckets_state_back_changes_nothing() {
    for (fq, ecn, buckets, seed) in [
        (true, false, 1024, 1),
        (true, true, 16, 2),
        (false, false, 8, 3),
        (false, true, 1024, 4),
    ] {
        let make = || {
            FlowQueues::new(
                buckets,
                1500,
                200 * 1500,
                150,
                if fq { 64 } else { 1 },
                CodelParams {
                    ecn,
                    ..CodelParams::default()
                },
                seed,
                fq,
            )
        };
        let (mut kept, mut given) = (make(), make());
        kept.keep_slots();
        let a = replay(&mut kept, 40, seed);
        let b = replay(&mut given, 40, seed);
        assert_eq!(a.len(), b.len());
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            assert_eq!(x, y, "step {i} (fq {fq}, ecn {ecn}, buckets {buckets})");
        }
        assert_eq!(kept.stats(), given.stats());
        let s = given.stats();
        assert!(
            s.overflow_drops > 0 && s.codel.drops + s.codel.marks > 0,
            "{s:?}"
        );
        if ecn {
            assert!(s.codel.marks > 0, "{s:?}");
        }
        // At the end `given` has given every slot back; `kept` still holds them all.
        assert_eq!(given.slots_held(), 0);
        assert!(kept.slots_held() >= 8, "{}", kept.slots_held());
    }
}

/// Flows that come and go one at a time reuse one slot however many buckets they hash to.
#[test]
fn flows_one_after_another_share_one_slot() {
    let mut pool = PacketPool::default();
    let mut q = fq(FqCodelParams::default());
    for f in 0..200u32 {
        let now = SimTime(f as u64 * 10 * US);
        let p = pkt(&mut pool, f, mix64(f as u64), 1500);
        assert_eq!(
            q.enqueue(p, &mut pool, now),
            Enqueued::Queued { marked: false }
        );
        assert_eq!(q.dequeue(&mut pool, now), Some(p));
        // Empty: the bucket moves to old-flows, then leaves the lists.
        assert_eq!(q.dequeue(&mut pool, now), None);
        pool.free(p);
    }
    assert_eq!(q.q.slots.len(), 1);
    assert_eq!(q.q.slots_held(), 0);
}

/// A slot records its bucket in 16 bits: with 65,536 buckets, the last bucket's slot is
/// given back to that bucket's entry, and no other entry is touched.
#[test]
fn the_last_of_65536_buckets_gives_its_slot_back() {
    let mut pool = PacketPool::default();
    let mut q = fq(FqCodelParams {
        buckets: MAX_BUCKETS,
        ..FqCodelParams::default()
    });
    let last = MAX_BUCKETS - 1;
    let hashes: Vec<u64> = [last, 0, 255, 256]
        .iter()
        .map(|&b| (1u64..).find(|&h| q.q.bucket_of(h) == b).unwrap())
        .collect();
    for (f, &h) in hashes.iter().enumerate() {
        let now = SimTime(f as u64 * 10 * US);
        let p = pkt(&mut pool, f as u32, h, 1500);
        assert_eq!(
            q.enqueue(p, &mut pool, now),
            Enqueued::Queued { marked: false }
        );
        assert_eq!(q.q.slots_held(), 1);
        assert_eq!(q.dequeue(&mut pool, now), Some(p));
        assert_eq!(q.dequeue(&mut pool, now), None);
        pool.free(p);
        assert_eq!(q.q.slots_held(), 0);
        assert!(q.q.slot_of.iter().all(|&s| s == NIL), "flow {f}");
    }
}

/// The fields every packet touches sit in the first two cache lines of the boxed state, and
/// the last bucket's slot with what the engine collects after each call in the third.
#[test]
fn hot_fields_fill_the_first_two_cache_lines() {
    use std::mem::{align_of, offset_of};
    assert_eq!(align_of::<FlowQueues>(), 64);
    assert_eq!(offset_of!(FlowQueues, bytes), 64);
    assert!(offset_of!(FlowQueues, new_flow_priority) < 128);
    assert_eq!(offset_of!(FlowQueues, recent), 128);
    assert!(offset_of!(FlowQueues, marks_taken) + 8 <= 192);
    assert_eq!(offset_of!(FqCodel, q), 0);
}

#[test]
fn a_bucket_is_one_cache_line() {
    // Each bucket's state in a line of its own: its CoDel state packs into 32 bytes, the
    // slot's bucket into 16 bits.
    assert_eq!(std::mem::size_of::<crate::queue::codel::CodelState>(), 32);
    assert_eq!(std::mem::size_of::<Bucket>(), 64);
    assert_eq!(std::mem::align_of::<Bucket>(), 64);
}
