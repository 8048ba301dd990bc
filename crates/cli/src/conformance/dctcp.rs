//! DCTCP's queue stays in the band its analysis gives around K: N flows on one bottleneck,
//! and flows joining one by one on a port as fast as the hosts (TFC's testbed, where a lone
//! flow's own NIC is its bottleneck).

use super::bench::*;
use super::fill::Path;
use super::{Case, Measured};
use dctc_core::units::Delta;

const WHY: &str = "DCTCP §3.3 (Alizadeh et al. 2010; RFC 8257 §3): N flows of critical window \
    W* = (C RTT + K) / N each grow a packet a round until marks, which take a round to act, so \
    synchronized flows peak the queue at Q_max = K + N packets (flows out of phase at K + 2N: a \
    flow cuts at most once a window, so one that just cut grows a second round), and each cut of (W* + 1) alpha / 2 packets, alpha \
    solving alpha^2 (1 - alpha/4) = (2 W* + 1) / (W* + 1)^2 (its eq. 11), saws it down by \
    A = N (W* + 1) alpha / 2: the queue stays in [Q_max - A, Q_max]. Windows are whole packets, \
    so each flow may sit up to one below the fluid window (N packets off the low end), and the \
    backlog counts the packet in service (one on the high end). DCTCP keeps at least 2 packets \
    a flow (RFC 8257 §3.3, Linux), so once W* < 3 the flows saw between 2 and 3 packets and the \
    queue between 2N - C RTT and 3N - C RTT packets; the band then covers both. Measured: the \
    1st and 99th percentiles of the bottleneck backlog sampled over the second half of the run, \
    and the drops in that half; expected within the band and none";

/// DCTCP's alpha at the critical window `w` (packets): the root in (0, 1] of
/// `alpha^2 (1 - alpha/4) = (2w + 1) / (w + 1)^2` (DCTCP eq. 11), by bisection.
fn alpha(w: f64) -> f64 {
    let rhs = (2.0 * w + 1.0) / ((w + 1.0) * (w + 1.0));
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if mid * mid * (1.0 - mid / 4.0) < rhs {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// DCTCP's band on `p` in bytes, `(low, high)` (see [`WHY`]).
pub(crate) fn band(p: &Path) -> (f64, f64) {
    let pkt = PACKET as f64;
    let k = p.dctcp_k() as f64 / pkt;
    let (n, bdp) = (p.flows as f64, p.bdp_packets() as f64);
    let w = (bdp + k) / n;
    let q_max = k + n;
    let amplitude = n * (w + 1.0) * alpha(w) / 2.0;
    let (mut low, mut high) = (q_max - amplitude - n, q_max + n + 1.0);
    if w < 3.0 {
        low = low.min(2.0 * n - bdp - 1.0);
        high = high.max(3.0 * n - bdp + 1.0);
    }
    (low.max(0.0) * pkt, high * pkt)
}

pub(crate) fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for &(rate, quick_rate) in RATES {
        for (delay_us, quick_delay) in [(1.0, true), (20.0, false)] {
            for (flows, quick_n) in [(2, false), (8, true), (16, false), (64, true)] {
                let p = Path::dumbbell(rate, delay_us, flows);
                let (lo, hi) = band(&p);
                v.push(Case::new(
                    "dctcp",
                    "queue in DCTCP's band",
                    "dctcp",
                    format!("{}, K {:.0} KB", p.label(), p.dctcp_k() as f64 / 1e3),
                    format!(
                        "p1..p99 within {:.1}..{:.1} KB, no drop in the second half",
                        lo / 1e3,
                        hi / 1e3
                    ),
                    WHY,
                    quick_rate && quick_delay && quick_n,
                    move || queue_band(p),
                ));
            }
        }
        let p = Path::star(rate, 10.0, 4);
        v.push(Case::new(
            "dctcp",
            "flows joining hold the band",
            "dctcp",
            format!("{}, joining, linux-like, hosts at link rate", p.label()),
            "no drop; queue in band over the last 40% of each shared phase; every flow delivers in every tenth of a phase",
            JOIN_WHY,
            true,
            move || joining(p),
        ));
    }
    v
}

/// How long DCTCP takes to settle on `p`: its estimator averages over 1/g = 16 rounds and a
/// window regrows a packet a round, so 300 rounds or four critical windows' worth, at a round
/// stretched by K's queue; at least 4 ms.
fn settle(p: &Path) -> Delta {
    let round = p.rtt() + gbps(p.rate).tx_time(p.dctcp_k());
    let w = (p.bdp_packets() + p.dctcp_k() / PACKET) / p.flows as u64;
    (round * (4 * w).max(300)).max(Delta::from_ms(4))
}

/// `p.flows` flows from as many senders to one receiver across a dumbbell (hosts 4x the
/// bottleneck), joining over the first tenth of the run; the band over its second half.
fn queue_band(p: Path) -> Measured {
    queue_band_with(p, "")
}

/// [`queue_band`] with `extra` keys on the scheme's table (a sabotaged variant's, in tests).
pub(crate) fn queue_band_with(p: Path, extra: &str) -> Measured {
    let n = p.flows;
    let mut t = dumbbell(n, 1, p.rate, p.host_factor, p.delay_us, p.buffer());
    let keys = format!("{}\n{extra}", p.keys("dctcp"));
    let s = scheme("dctcp", &keys, &p.packet("dctcp"), &mut t);
    let until = settle(&p) * 2;
    let l = link(&t, "left", "right");
    let rec = Record {
        sample: Some(Delta(until.0 / 2000)),
        links: vec![l],
        ..Record::default()
    };
    let end = until.as_us_f64();
    let flows: Vec<_> = (0..n)
        .map(|i| long_flow(&t, i as u32, i, n, i as f64 * end / 10.0 / n as f64, end))
        .collect();
    let r = simulate(&t, &s, flows.clone(), until, &rec);
    // Drops in the second half: the run is deterministic, so its first half is the run to
    // half time (slow start may drop; DCTCP's claim is for the steady state).
    let half = simulate(&t, &s, flows, Delta(until.0 / 2), &Record::default());
    let q = queue(&r, l, Delta(until.0 / 2), until);
    let (p1, p99) = (quantile(&q, 0.01), quantile(&q, 0.99));
    let (lo, hi) = band(&p);
    let drops = r.counters.dropped_packets - half.counters.dropped_packets;
    Measured::new(
        format!(
            "p1 {:.1} KB, p99 {:.1} KB, {drops} drops in it",
            p1 / 1e3,
            p99 / 1e3
        ),
        p1 >= lo && p99 <= hi && drops == 0,
    )
}

const JOIN_WHY: &str = "the same band, phase by phase, as flows join a port no faster than the \
    hosts: a lone flow's own NIC is then its bottleneck, and a Linux host holds its queue there \
    to TCP small queues' limit with a window that grows only while used (Linux 3.6+; without \
    them the lone window parked in the NIC floods the port when the next flow joins: issue 25, \
    tfc/convergence). Four flows join a switch (all links at the rate) one phase apart, \
    `linux-like` TCP; each phase lasts twice DCTCP's settling time (16 rounds of its estimator, \
    a critical window's regrowth, the TSQ backlog's drain)";

/// Four flows joining a switch one phase apart, every link at `p.rate` (TFC's testbed at 1
/// Gb/s), `linux-like` TCP: no drop, the band over the last 40% of each phase, and no flow
/// without delivery for a tenth of a phase once a tenth has passed since it joined.
fn joining(p: Path) -> Measured {
    let n = p.flows;
    // The port holds DCTCP's band and one flow's small-queue share, what a Linux host may have
    // below TCP when the next flow joins.
    let buffer = p.buffer() + dctc_packet::transport::LINUX_TSQ_BYTES;
    let mut t = star(n + 1, p.rate, p.delay_us, buffer);
    let s = scheme(
        "dctcp",
        &p.keys("dctcp"),
        "tcp = { preset = \"linux-like\" }",
        &mut t,
    );
    // Long enough for the lone flow to fill its share of the NIC and settle, and for each
    // join's transient: the TSQ backlog to drain, then DCTCP to settle.
    let tsq = gbps(p.rate).tx_time(dctc_packet::transport::LINUX_TSQ_BYTES);
    let phase = (settle(&p) + tsq) * 2;
    let until = phase * n as u64;
    let l = link(&t, "sw", "h0");
    let tenth = Delta(phase.0 / 10);
    let rec = Record {
        bin: Some(tenth),
        sample: Some(Delta(phase.0 / 500)),
        links: vec![l],
    };
    let flows = (0..n)
        .map(|i| {
            let start = (phase * i as u64).as_us_f64();
            long_flow(&t, i as u32, i + 1, 0, start, until.as_us_f64())
        })
        .collect();
    let r = simulate(&t, &s, flows, until, &rec);
    let mut worst = (0.0f64, String::new());
    let mut ok = r.counters.dropped_packets == 0;
    // From the second phase: alone, a flow's bottleneck is its own NIC, not the port.
    for k in 1..n {
        let phase_p = Path { flows: k + 1, ..p };
        let (lo, hi) = band(&phase_p);
        let from = phase * k as u64 + Delta(phase.0 * 6 / 10);
        let q = queue(&r, l, from, phase * (k as u64 + 1));
        let (p1, p99) = (quantile(&q, 0.01), quantile(&q, 0.99));
        if p1 < lo || p99 > hi {
            ok = false;
        }
        let excess = (p99 / hi).max(lo / p1.max(1.0));
        if excess > worst.0 {
            worst = (
                excess,
                format!(
                    "{} flows p1..p99 {:.1}..{:.1} KB",
                    k + 1,
                    p1 / 1e3,
                    p99 / 1e3
                ),
            );
        }
    }
    let mut starved = 0;
    for (f, bins) in &r.throughput {
        // From a tenth after the flow joins to the end.
        let first = *f as usize * 10 + 1;
        starved += (first..10 * n)
            .filter(|&b| bins.get(b).copied().unwrap_or(0) == 0)
            .count();
    }
    ok &= starved == 0;
    Measured::new(
        format!(
            "{} drops; {}; {starved} starved tenths",
            r.counters.dropped_packets, worst.1
        ),
        ok,
    )
}
