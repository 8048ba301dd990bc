//! Criterion benches of the hot paths: the event queue, the packet pool, a queue discipline,
//! and a short end-to-end run.

use criterion::{criterion_group, criterion_main, Criterion};
use dctc_core::ids::NodeId;
use dctc_core::units::{Delta, SimTime};
use dctc_packet::engine::PacketPool;
use dctc_packet::packet::{Packet, PacketKind};
use dctc_packet::queue::{EcnThreshold, QueueDisc};
use dctc_packet::sim::{Event, EventQueue, HeapEventQueue};
use std::hint::black_box;

macro_rules! steady_state {
    ($c:expr, $name:expr, $q:expr) => {
        // 4096 pending events: pop one, push one 1-17 us later (packet-level spacing).
        $c.bench_function($name, |b| {
            let mut q = $q;
            let mut x = 12345u64;
            for i in 0..4096u64 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                q.push(SimTime(i * 1000 + (x >> 50)), Event::Arrive(i as u32));
            }
            b.iter(|| {
                let (t, ev) = q.pop().expect("non-empty");
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                q.push(SimTime(t.0 + 1_000_000 + (x >> 44)), ev);
                black_box(t)
            })
        });
    };
}

fn event_queue(c: &mut Criterion) {
    steady_state!(
        c,
        "event_queue_wheel_pop_push_4096",
        EventQueue::with_capacity(8192)
    );
    steady_state!(
        c,
        "event_queue_binary_heap_pop_push_4096",
        HeapEventQueue::with_capacity(8192)
    );
}

fn pool_and_queue(c: &mut Criterion) {
    c.bench_function("pool_alloc_enqueue_dequeue_free", |b| {
        let mut pool = PacketPool::with_capacity(1024);
        let mut q = EcnThreshold::new(1_000_000, 100_000);
        let mut p = Packet::new(0, PacketKind::Data, NodeId(0), NodeId(1));
        p.wire_bytes = 1500;
        p.ecn.ect = true;
        for _ in 0..32 {
            let id = pool.alloc(p);
            q.enqueue(id, &mut pool, SimTime::ZERO);
        }
        b.iter(|| {
            let id = pool.alloc(p);
            black_box(q.enqueue(id, &mut pool, SimTime::ZERO));
            let out = q.dequeue(&mut pool, SimTime::ZERO).expect("non-empty");
            pool.free(out);
        })
    });
}

fn end_to_end(c: &mut Criterion) {
    let mut g = c.benchmark_group("end_to_end");
    g.sample_size(10);
    g.bench_function("flowtune144_websearch_0.6_dctcp_1ms", |b| {
        b.iter(|| black_box(dctc_packet::bench::bench(Delta::from_ms(1), 1).packet_hops))
    });
    g.finish();
}

#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, event_queue, pool_and_queue, end_to_end);
}

criterion_main!(group::benches);
