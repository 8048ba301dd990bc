//! `cargo run --release -p dctc-packet --example bench -- [MS] [SCHEME]`: the `dctc bench`
//! workload for MS simulated milliseconds (default 100) under SCHEME, one of
//! `dctc_packet::bench::BENCH_SCHEMES` (default `dctcp`, the reference row).
use dctc_core::units::Delta;

fn main() {
    let ms: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100);
    let scheme = std::env::args().nth(2).unwrap_or_else(|| "dctcp".into());
    if !dctc_packet::bench::BENCH_SCHEMES.contains(&scheme.as_str()) {
        eprintln!(
            "no bench scheme `{scheme}`; one of: {}",
            dctc_packet::bench::BENCH_SCHEMES.join(", ")
        );
        std::process::exit(2);
    }
    let r = dctc_packet::bench::bench_scheme(Delta::from_ms(ms), 1, &scheme);
    println!(
        "{scheme}: {ms} ms simulated, {} flows: {} events, {} packet-hops in {:.3} s: {:.2} M events/s, {:.2} M packet-hops/s; CPU {:.3} s: {:.2} M packet-hops/CPU-s; peak RSS {:.1} MB, drops {}, completed {}",
        r.flows,
        r.events,
        r.packet_hops,
        r.wall_seconds,
        r.events_per_sec / 1e6,
        r.packet_hops_per_sec / 1e6,
        r.cpu_seconds.unwrap_or(f64::NAN),
        r.packet_hops as f64 / r.cpu_seconds.unwrap_or(f64::NAN) / 1e6,
        r.peak_rss_bytes.unwrap_or(0) as f64 / 1e6,
        r.result.counters.dropped_packets,
        r.result.records.iter().filter(|x| x.fct_us.is_some()).count(),
    );
}
