//! `cargo run --release -p dctc-num-fast --example vcpu_probe`: how two threads share this
//! machine, for reading the two-thread rows of `BENCHMARKS.md`.
//!
//! - The same work on one thread and on two at once (each its own copy): an FMA dependency
//!   chain, and a read-modify-write stream over a private buffer of 256 KB / 700 KB / 1.8 MB.
//!   Equal times mean two separate cores, L2 included.
//! - A cache-line ping-pong between two threads: the round trip of one line between the cores,
//!   which every barrier and cross-core exchange of `fast::PullParallel` pays. On the shared VM
//!   it is 40-120 ns when the host places the vCPUs close together and 400+ ns when it does not.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

fn chain(n: u64) -> f64 {
    let (mut x, mut y) = (1.0f64, 0.5f64);
    for i in 0..n {
        x = x.mul_add(1.000_000_1, 1e-9);
        y = y.mul_add(0.999_999_9, (i & 1) as f64 * 1e-12);
    }
    x + y
}

fn stream(buf: &mut [f32], reps: usize) -> f32 {
    let mut s = 0.0;
    for _ in 0..reps {
        for v in buf.iter_mut() {
            *v = *v * 1.0001 + 0.5;
        }
        s += buf[7];
    }
    s
}

/// Seconds for `threads` threads to run `work` once each, at the same time.
fn timed(threads: usize, work: impl Fn() + Sync) -> f64 {
    let t0 = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(&work);
        }
    });
    t0.elapsed().as_secs_f64()
}

fn main() {
    for threads in [1, 2] {
        let t = timed(threads, || {
            black_box(chain(400_000_000));
        });
        println!("FMA chain, {threads} thread(s) each doing the same work: {t:.3} s");
    }
    for kb in [256usize, 700, 1800] {
        for threads in [1, 2] {
            let t = timed(threads, || {
                let mut b = vec![1.0f32; kb * 256];
                black_box(stream(&mut b, 24_000_000 / kb));
            });
            println!("stream over {kb} KB per thread, {threads} thread(s): {t:.3} s");
        }
    }
    let line = AtomicU64::new(0);
    let n = 200_000u64;
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..n {
                while line.load(Ordering::Acquire) != 2 * i + 1 {
                    std::hint::spin_loop();
                }
                line.store(2 * i + 2, Ordering::Release);
            }
        });
        let t0 = Instant::now();
        for i in 0..n {
            line.store(2 * i + 1, Ordering::Release);
            while line.load(Ordering::Acquire) != 2 * i + 2 {
                std::hint::spin_loop();
            }
        }
        let ns = t0.elapsed().as_nanos() as f64 / n as f64;
        println!("cache-line ping-pong: {ns:.0} ns per round trip");
    });
}
