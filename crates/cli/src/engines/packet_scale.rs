//! `dctc bench packet --scale`: the packet engine at datacenter scale (issue 26). Each row is
//! a DCTCP permutation on a k-ary fat-tree ([`dctc_packet::bench::scale_bench`]), run in a
//! process of its own (`--scale-row K:US`) so that its peak memory is its own; with
//! `--valgrind`, the same row again under callgrind, counting the event loop's instructions
//! and simulated cache misses, which do not move with the load of a shared machine.

use anyhow::{bail, Context, Result};
use dctc_core::units::Delta;
use dctc_packet::bench::{scale_bench, SCALE_ROWS};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Simulated cache of the valgrind rows: 32 KB 8-way L1 (instructions and data) and a 1 MB
/// 8-way last level, fixed so that counts compare across machines (valgrind would otherwise
/// copy the host's, and a shared 480 MB L3 would hide every miss).
const CACHES: [&str; 3] = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=1048576,8,64"];

/// Simulated span of a valgrind row of fat-tree `k` unless `--valgrind-us` says otherwise:
/// 1 ms up to k = 16, 0.25 ms beyond (callgrind runs about 90 times slower than the CPU).
fn valgrind_us(k: usize) -> u64 {
    if k <= 16 {
        1_000
    } else {
        250
    }
}

/// Default span of a row of fat-tree `k` given on the command line: as in [`SCALE_ROWS`].
fn default_us(k: usize) -> u64 {
    if k <= 16 {
        10_000
    } else {
        1_000
    }
}

/// `--scale-row K:US`: runs one row here and prints it as `key=value` pairs on one line.
pub(crate) fn row(spec: &str) -> Result<()> {
    let (k, us) = parse_row(spec)?;
    let r = scale_bench(k, Delta::from_us(us), 1);
    let c = &r.result.counters;
    outln!(
        "k={k} us={us} hosts={} events={} hops={} delivered={} cpu_s={:.6} setup_s={:.6} wall_s={:.6} rss={}",
        r.flows,
        r.events,
        r.packet_hops,
        c.delivered_data_packets,
        r.cpu_seconds.unwrap_or(f64::NAN),
        r.setup_cpu_seconds.unwrap_or(f64::NAN),
        r.wall_seconds,
        r.peak_rss_bytes.unwrap_or(0),
    );
    Ok(())
}

fn parse_row(spec: &str) -> Result<(usize, u64)> {
    let parsed = spec
        .split_once(':')
        .and_then(|(k, us)| Some((k.parse().ok()?, us.parse().ok()?)));
    match parsed {
        Some((k, us)) if k >= 2 && k % 2 == 0 && us > 0 => Ok((k, us)),
        _ => bail!("--scale-row: expected K:US with an even K >= 2 and US > 0, got `{spec}`"),
    }
}

/// CPU microseconds per delivered packet of a row that ran `cpu` seconds and delivered
/// `delivered` packets; `None` when the row cannot say (nothing delivered, or no CPU reading).
/// The thread CPU clock (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`) resolves nanoseconds, so
/// a short row is timed as it ran, if noisily.
fn cpu_per_packet(cpu: f64, delivered: f64) -> Option<f64> {
    (delivered >= 1.0 && cpu > 0.0 && cpu.is_finite()).then(|| cpu * 1e6 / delivered)
}

/// One child's line, as key -> value.
type Fields = BTreeMap<String, String>;

fn fields(line: &str) -> Fields {
    line.split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn num(f: &Fields, key: &str) -> f64 {
    f.get(key).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN)
}

/// Runs `program args` and returns the `key=value` line it printed.
fn run_child(program: &Path, args: &[String]) -> Result<Fields> {
    let out = Command::new(program)
        .args(args)
        .output()
        .with_context(|| format!("running {}", program.display()))?;
    if !out.status.success() {
        bail!(
            "{} {} failed ({}): {}",
            program.display(),
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .rev()
        .find(|l| l.starts_with("k="))
        .with_context(|| format!("no result line from {}", program.display()))?;
    Ok(fields(line))
}

/// Callgrind's totals of the event loop: instructions, L1 misses (instruction and data) and
/// last-level misses.
struct Counts {
    ir: f64,
    l1: f64,
    ll: f64,
}

/// Runs row `k` over `us` under callgrind, counting only inside the event loop
/// (`Simulation::run_events`); returns its counts and the row's line.
fn valgrind_row(exe: &Path, k: usize, us: u64) -> Result<(Counts, Fields)> {
    let file = std::env::temp_dir().join(format!("dctc-scale-{}-{k}-{us}.cg", std::process::id()));
    let mut args: Vec<String> = vec![
        "--tool=callgrind".into(),
        "--cache-sim=yes".into(),
        "--collect-atstart=no".into(),
        "--toggle-collect=*run_events*".into(),
        format!("--callgrind-out-file={}", file.display()),
    ];
    args.extend(CACHES.iter().map(|s| s.to_string()));
    args.push(exe.display().to_string());
    args.extend(["bench", "packet", "--scale-row"].map(String::from));
    args.push(format!("{k}:{us}"));
    let line = run_child(Path::new("valgrind"), &args)?;
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("reading callgrind's output {}", file.display()))?;
    let _ = std::fs::remove_file(&file);
    let names: Vec<&str> = text
        .lines()
        .find_map(|l| l.strip_prefix("events:"))
        .context("callgrind output without `events:`")?
        .split_whitespace()
        .collect();
    let totals: Vec<f64> = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("totals:")
                .or_else(|| l.strip_prefix("summary:"))
        })
        .context("callgrind output without totals")?
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(0.0))
        .collect();
    let get = |name: &str| {
        names
            .iter()
            .position(|n| *n == name)
            .and_then(|i| totals.get(i).copied())
            .unwrap_or(0.0)
    };
    let counts = Counts {
        ir: get("Ir"),
        l1: get("I1mr") + get("D1mr") + get("D1mw"),
        ll: get("ILmr") + get("DLmr") + get("DLmw"),
    };
    Ok((counts, line))
}

fn valgrind_present() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `dctc bench packet --scale`: the rows of [`SCALE_ROWS`] (or fat-trees `ks` over `us`),
/// each in its own process; with `valgrind` (its span in us, default [`VALGRIND_US`]) the
/// same rows under callgrind.
pub(crate) fn table(ks: &[usize], us: Option<u64>, valgrind: Option<Option<u64>>) -> Result<()> {
    let rows: Vec<(usize, u64)> = if ks.is_empty() {
        SCALE_ROWS
            .iter()
            .map(|&(k, d)| (k, us.unwrap_or(d)))
            .collect()
    } else {
        ks.iter()
            .map(|&k| (k, us.unwrap_or(default_us(k))))
            .collect()
    };
    for &(k, us) in &rows {
        parse_row(&format!("{k}:{us}"))?;
    }
    let exe = std::env::current_exe().context("finding the dctc binary")?;
    outln!("packet engine at scale: DCTCP permutation (every host one long-lived flow to a random other host) on k-ary fat-trees, 10 Gb/s, 1 us links, 100-packet buffers, K = 15 packets, pFabric-tuned TCP; one core, each row in its own process");
    outln!(
        "{:>4} {:>6} {:>7} {:>12} {:>11} {:>7} {:>9} {:>10} {:>8} {:>8} {:>9}",
        "k",
        "hosts",
        "sim ms",
        "events",
        "delivered",
        "ev/pkt",
        "ns/event",
        "CPU us/pkt",
        "vs first",
        "setup s",
        "peak MB"
    );
    // CPU per delivered packet of each row so far, for the ratio to the first row of the
    // same span (the flatness figure: the largest fabric against the smallest).
    let mut per_pkt: Vec<(u64, f64)> = Vec::new();
    // Rows too short to time.
    let mut short = 0;
    for &(k, us) in &rows {
        let f = run_child(
            &exe,
            &[
                "bench".into(),
                "packet".into(),
                "--scale-row".into(),
                format!("{k}:{us}"),
            ],
        )?;
        let (events, delivered, cpu) = (num(&f, "events"), num(&f, "delivered"), num(&f, "cpu_s"));
        let lead = format!(
            "{k:>4} {:>6} {:>7} {:>12} {:>11}",
            num(&f, "hosts"),
            us as f64 / 1e3,
            events,
            delivered
        );
        let tail = format!("{:>8.3} {:>9.1}", num(&f, "setup_s"), num(&f, "rss") / 1e6);
        let Some(us_pkt) = cpu_per_packet(cpu, delivered) else {
            short += 1;
            outln!(
                "{lead} {:>7} {:>9} {:>10} {:>8} {tail}  too short to time",
                "-",
                "-",
                "-",
                "-"
            );
            continue;
        };
        let first = per_pkt.iter().find(|r| r.0 == us).map_or(us_pkt, |r| r.1);
        per_pkt.push((us, us_pkt));
        outln!(
            "{lead} {:>7.2} {:>9.1} {:>10.3} {:>7.2}x {tail}",
            events / delivered,
            cpu * 1e9 / events,
            us_pkt,
            us_pkt / first,
        );
    }
    outln!("(vs first: CPU per delivered packet over that of the first row with the same span)");
    if short > 0 {
        outln!("(too short to time: no packet delivered, or no thread CPU reading: a longer --us)");
    }
    let Some(vus) = valgrind else {
        return Ok(());
    };
    if !valgrind_present() {
        bail!("--valgrind: no `valgrind` on the PATH");
    }
    outln!(
        "event loop under callgrind (caches {}): per delivered packet",
        CACHES.join(" ")
    );
    outln!(
        "{:>4} {:>6} {:>7} {:>11} {:>12} {:>10} {:>10}",
        "k",
        "hosts",
        "sim us",
        "delivered",
        "instr/pkt",
        "L1 miss",
        "LL miss"
    );
    let mut seen = Vec::new();
    for &(k, _) in &rows {
        if seen.contains(&k) {
            continue;
        }
        seen.push(k);
        let us = vus.unwrap_or(valgrind_us(k));
        let (c, f) = valgrind_row(&exe, k, us)?;
        let d = num(&f, "delivered");
        if d.is_nan() || d < 1.0 {
            outln!(
                "{k:>4} {:>6} {us:>7} {:>11}  no packet delivered: a longer --valgrind-us",
                num(&f, "hosts"),
                d
            );
            continue;
        }
        outln!(
            "{k:>4} {:>6} {us:>7} {:>11} {:>12.0} {:>10.1} {:>10.1}",
            num(&f, "hosts"),
            d,
            c.ir / d,
            c.l1 / d,
            c.ll / d
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_spec_is_an_even_k_and_a_positive_span() {
        assert_eq!(parse_row("8:1000").unwrap(), (8, 1000));
        for bad in ["7:1000", "8:0", "8", "x:1", "0:5"] {
            assert!(parse_row(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_row_too_short_to_time_has_no_cpu_per_packet() {
        assert_eq!(cpu_per_packet(0.5, 1000.0), Some(500.0));
        // Nothing delivered, a zero or unresolved CPU reading, a missing field.
        assert_eq!(cpu_per_packet(0.5, 0.0), None);
        assert_eq!(cpu_per_packet(0.0, 413.0), None);
        // The clock resolves nanoseconds: 2 ms of CPU is a reading.
        assert_eq!(cpu_per_packet(0.002, 400.0), Some(5.0));
        assert_eq!(cpu_per_packet(f64::INFINITY, 413.0), None);
        assert_eq!(cpu_per_packet(f64::NAN, 413.0), None);
        assert_eq!(cpu_per_packet(0.5, f64::NAN), None);
    }

    #[test]
    fn a_child_line_reads_as_fields() {
        let f = fields("k=8 us=1000 delivered=12 cpu_s=0.5");
        assert_eq!(num(&f, "delivered"), 12.0);
        assert_eq!(num(&f, "cpu_s"), 0.5);
        assert!(num(&f, "missing").is_nan());
    }
}
