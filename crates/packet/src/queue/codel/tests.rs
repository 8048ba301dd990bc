use super::*;

const US: u64 = 1_000_000;
/// One 1500 B packet at 10 Gb/s.
const SERVICE: u64 = 1_200_000;

use crate::queue::tests::pkt;

/// What a driven run saw.
#[derive(Default)]
struct Trace {
    /// (time, count after the drop) per dropped packet.
    drops: Vec<(u64, u32)>,
    /// (dequeue time, sojourn) per sent packet.
    sent: Vec<(u64, u64)>,
    /// Packets sent with CE set.
    marked: usize,
    /// Per dropping episode: the count it started with and the count it ended with.
    episodes: Vec<(u32, u32)>,
}

/// Drives `q` as a port that serializes 1500 B packets in `SERVICE` ps: every `gap` ps until
/// `until`, `burst(t)` packets arrive; the port dequeues whenever it is free.
fn drive(q: &mut Codel, gap: u64, burst: impl Fn(u64) -> usize, until: u64, ect: bool) -> Trace {
    let mut pool = PacketPool::default();
    let mut tr = Trace::default();
    let mut dropped = Vec::new();
    let (mut t_arr, mut port_free) = (0u64, 0u64);
    loop {
        if t_arr <= port_free {
            if t_arr >= until {
                break;
            }
            for _ in 0..burst(t_arr) {
                let p = pkt(&mut pool, 1500, ect);
                assert_eq!(
                    q.enqueue(p, &mut pool, SimTime(t_arr)),
                    Enqueued::Queued { marked: false }
                );
            }
            t_arr += gap;
            continue;
        }
        if q.is_empty() {
            port_free = t_arr;
            continue;
        }
        let now = port_free;
        let was_dropping = q.state().dropping();
        let out = q.dequeue(&mut pool, SimTime(now));
        let c = q.state().count();
        if was_dropping {
            // Drops in the dequeue that leaves the dropping state still count.
            tr.episodes.last_mut().unwrap().1 = c;
        } else if q.state().dropping() {
            tr.episodes.push((c, c));
        }
        q.drain_dropped(&mut dropped);
        for d in dropped.drain(..) {
            tr.drops.push((now, q.state().count()));
            pool.free(d);
        }
        match out {
            Some(p) => {
                tr.sent.push((now, now - pool[p].enqueued_at.0));
                tr.marked += pool[p].ecn.ce as usize;
                pool.free(p);
                port_free = now + SERVICE;
            }
            None => port_free = t_arr,
        }
    }
    tr
}

fn big_codel(ecn: bool) -> Codel {
    Codel::new(
        1 << 32,
        CodelParams {
            ecn,
            ..CodelParams::default()
        },
    )
    .unwrap()
}

#[test]
fn two_x_overload_drops_on_the_control_law_schedule() {
    let mut q = big_codel(false);
    let interval = q.params().interval.0 as f64;
    // Arrivals twice as fast as the port drains, for 3 ms.
    let tr = drive(&mut q, SERVICE / 2, |_| 1, 3_000 * US, false);
    assert!(tr.drops.len() > 100, "{} drops", tr.drops.len());
    // The first drop comes one interval after the sojourn first exceeded target (it never
    // falls back below target in this run), at a dequeue.
    let first_above = tr
        .sent
        .iter()
        .find(|&&(_, s)| s >= q.params().target.0)
        .unwrap()
        .0;
    let t1 = tr.drops[0].0;
    assert!(
        t1 >= first_above + q.params().interval.0
            && t1 < first_above + q.params().interval.0 + SERVICE,
        "first drop at {t1}, sojourn above target since {first_above}"
    );
    // RFC 8289 §5.5: after drop j (count = j), the next drop is due at
    // drop_next += interval / sqrt(j + 1), and happens at the first dequeue from then on.
    let mut sched = t1 as f64 + interval;
    for (j, w) in tr.drops.windows(2).enumerate().take(150) {
        let (t, count) = w[1];
        assert_eq!(count as usize, j + 2, "count after drop {}", j + 2);
        assert!(
            t as f64 >= sched - 1_000.0 && (t as f64) < sched + SERVICE as f64 + 1_000.0,
            "drop {} at {t} ps, due at {sched} ps",
            j + 2
        );
        sched += interval / ((j + 2) as f64).sqrt();
    }
}

#[test]
fn two_x_overload_sojourn_is_brought_back_to_target_and_stays_bounded() {
    let mut q = big_codel(false);
    let until = 100_000 * US;
    let tr = drive(&mut q, SERVICE / 2, |_| 1, until, false);
    // A FIFO would hold half of everything offered: sojourn t / 2, 50 ms by the end. CoDel's
    // drop rate grows until it exceeds the 50% excess, and every dropping episode ends by
    // bringing the sojourn back under target (RFC 8289 §5.5 leaves dropping only then).
    let peak = tr.sent.iter().map(|&(_, s)| s).max().unwrap();
    assert!(peak < 5_000 * US, "peak sojourn {peak} ps");
    let target = q.params().target.0;
    for w in 0..2 {
        let (from, to) = (20_000 * US + 40_000 * US * w, 60_000 * US + 40_000 * US * w);
        let low = tr
            .sent
            .iter()
            .filter(|&&(t, s)| t >= from && t < to && s < target)
            .count();
        assert!(low > 0, "no sojourn under target in [{from}, {to}) ps");
    }
    // The first episode drains the queue only once the drop rate passes the 50% excess:
    // interval / sqrt(count) < one packet time, count > (100 / 1.2)^2 ~ 6944. Later episodes
    // repeat the cycle (RFC 8289 restarts each at the previous episode's drop count).
    let eps = &tr.episodes;
    assert!(eps.len() >= 4, "{eps:?}");
    assert!(eps[0].1 > 6944, "{:?}", eps[0]);
}

#[test]
fn re_entry_resumes_from_count_minus_lastcount_when_recent() {
    let mut q = big_codel(false);
    let tr = drive(&mut q, SERVICE / 2, |_| 1, 100_000 * US, false);
    let eps = &tr.episodes;
    assert!(eps.len() >= 4, "{eps:?}");
    // RFC 8289 §5.5: an episode entered soon after the last one starts at
    // count - lastcount, the drops of the previous episode (when that is above 1).
    for w in eps.windows(2) {
        let (entry, last) = w[0];
        let expect = if last - entry > 1 { last - entry } else { 1 };
        assert_eq!(w[1].0, expect, "{w:?}");
    }
}

#[test]
fn re_entry_after_a_long_quiet_period_starts_from_one() {
    let mut q = big_codel(false);
    // Overload for 1 ms, silence for 4 ms (the queue drains, then > 16 intervals pass),
    // overload again.
    let on = |t: u64| usize::from(!(1_000 * US..5_000 * US).contains(&t));
    let tr = drive(&mut q, SERVICE / 2, on, 6_000 * US, false);
    let eps = &tr.episodes;
    assert_eq!(eps.len(), 2, "{eps:?}");
    assert!(eps[0].1 > 10, "{eps:?}");
    assert_eq!(eps[1].0, 1, "{eps:?}");
    // Overload for 0.4 ms, silence for 1 ms (the queue drains, but the next episode starts
    // within 16 intervals of the last drop): re-entry at the previous episode's drops.
    let mut q = big_codel(false);
    let on = |t: u64| usize::from(!(400 * US..1_400 * US).contains(&t));
    let tr = drive(&mut q, SERVICE / 2, on, 2_000 * US, false);
    let eps = &tr.episodes;
    assert_eq!(eps.len(), 2, "{eps:?}");
    assert!(eps[0].1 - eps[0].0 > 1, "{eps:?}");
    assert_eq!(eps[1].0, eps[0].1 - eps[0].0, "{eps:?}");
}

#[test]
fn no_drops_while_sojourn_stays_under_target() {
    // Three packets every three packet times: sojourn at most 2.4 us < 5 us.
    let mut q = big_codel(false);
    let tr = drive(&mut q, 3 * SERVICE, |_| 3, 20_000 * US, false);
    assert!(tr.sent.iter().all(|&(_, s)| s < 5 * US));
    let bursts = (20_000 * US).div_ceil(3 * SERVICE) as usize;
    assert_eq!(tr.sent.len(), 3 * bursts);
    assert!(tr.drops.is_empty());
    // Bursts of 40 every 400 us: sojourn above target, but for less than one interval.
    let mut q = big_codel(false);
    let tr = drive(&mut q, 400 * US, |_| 40, 20_000 * US, false);
    assert!(tr.sent.iter().any(|&(_, s)| s > 40 * US));
    assert!(tr.drops.is_empty(), "{} drops", tr.drops.len());
    // Bursts of 200 keep it above target for longer than an interval: CoDel drops.
    let mut q = big_codel(false);
    let tr = drive(&mut q, 400 * US, |_| 200, 20_000 * US, false);
    assert!(!tr.drops.is_empty());
}

#[test]
fn never_drops_when_at_most_one_mtu_remains() {
    let mut pool = PacketPool::default();
    let mut q = big_codel(false);
    let ps: Vec<_> = (0..3).map(|_| pkt(&mut pool, 1500, false)).collect();
    for &p in &ps {
        q.enqueue(p, &mut pool, SimTime(0));
    }
    // Sojourn 500 us > target with 3000 B behind: the interval starts.
    assert_eq!(q.dequeue(&mut pool, SimTime(500 * US)), Some(ps[0]));
    // 200 us later (past the interval) the sojourn is 700 us, but one MTU remains.
    assert_eq!(q.dequeue(&mut pool, SimTime(700 * US)), Some(ps[1]));
    assert_eq!(q.dequeue(&mut pool, SimTime(701 * US)), Some(ps[2]));
    assert_eq!(q.stats().drops, 0);
    assert!(!q.state().dropping());
}

#[test]
fn ecn_marks_capable_packets_instead_of_dropping() {
    let mut q = big_codel(true);
    let tr = drive(&mut q, SERVICE / 2, |_| 1, 3_000 * US, true);
    assert!(tr.drops.is_empty());
    assert!(tr.marked > 100, "{} marked", tr.marked);
    assert_eq!(tr.marked as u64, q.stats().marks);
    // Not ECN-capable: dropped even with the option on.
    let mut q = big_codel(true);
    let tr = drive(&mut q, SERVICE / 2, |_| 1, 3_000 * US, false);
    assert_eq!(tr.marked, 0);
    assert!(tr.drops.len() > 100);
}

#[test]
fn tail_drops_when_the_buffer_is_full() {
    let mut pool = PacketPool::default();
    let mut q = Codel::new(3000, CodelParams::default()).unwrap();
    let ps: Vec<_> = (0..3).map(|_| pkt(&mut pool, 1500, false)).collect();
    assert_eq!(
        q.enqueue(ps[0], &mut pool, SimTime(0)),
        Enqueued::Queued { marked: false }
    );
    q.enqueue(ps[1], &mut pool, SimTime(0));
    assert_eq!(
        q.enqueue(ps[2], &mut pool, SimTime(0)),
        Enqueued::Dropped(ps[2])
    );
    assert_eq!((q.len(), q.bytes()), (2, 3000));
}

#[test]
fn bad_parameters_name_the_field() {
    let d = CodelParams::default();
    let err = |p: CodelParams, cap: u64| Codel::new(cap, p).unwrap_err().param;
    assert_eq!(
        err(
            CodelParams {
                target: Delta::ZERO,
                ..d
            },
            1 << 20
        ),
        "target"
    );
    assert_eq!(
        err(
            CodelParams {
                interval: Delta::ZERO,
                ..d
            },
            1 << 20
        ),
        "interval"
    );
    assert_eq!(
        err(
            CodelParams {
                target: Delta::from_us(100),
                ..d
            },
            1 << 20
        ),
        "target"
    );
    assert_eq!(err(d, 1499), "buffer_bytes");
    assert!(Codel::new(1500, d).is_ok());
    assert_eq!(
        CodelParams {
            target: Delta::ZERO,
            ..d
        }
        .validate()
        .unwrap_err()
        .to_string(),
        "target: must be positive"
    );
}
