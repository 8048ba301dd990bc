//! The standard speed workload (`dctc bench`): the `flowtune-144` fabric, web-search flows at
//! 0.6 load, DCTCP, pFabric-tuned TCP, a given span of simulated time; [`bench_scheme`] runs
//! the same workload under another of [`BENCH_SCHEMES`] (one row per queue discipline).
//! [`scale_bench`] is the datacenter-scale row (`dctc bench packet --scale`): a DCTCP
//! permutation on a k-ary fat-tree, from 128 to thousands of hosts.

use crate::metrics::PacketRun;
use crate::sim::PacketScheme;
use crate::sim::{RunOptions, Simulation, Workload};
use crate::transport::TcpConfig;
use dctc_core::fabric::{fat_tree, preset, FatTreeSpec};
use dctc_core::ids::FlowId;
use dctc_core::rng::{component_rng, streams};
use dctc_core::routing::Routing;
use dctc_core::spec::FlowSpec;
use dctc_core::topology::Topology;
use dctc_core::units::{Delta, SimTime};
use dctc_core::workload::{Cdf, PairMode, PoissonSpec};
use rand::seq::SliceRandom;
use std::path::Path;

/// What the benchmark measured.
#[derive(Clone, Debug)]
pub struct BenchReport {
    /// Simulated span.
    pub simulated: Delta,
    /// Flows offered.
    pub flows: usize,
    /// Events processed.
    pub events: u64,
    /// Packets serialized onto links.
    pub packet_hops: u64,
    /// Wall seconds of the event loop.
    pub wall_seconds: f64,
    /// Events per wall second.
    pub events_per_sec: f64,
    /// Packet-hops per wall second.
    pub packet_hops_per_sec: f64,
    /// CPU seconds the simulating thread ran (its thread CPU clock), which on a
    /// shared machine is less than the wall time.
    pub cpu_seconds: Option<f64>,
    /// Peak resident memory of the process (VmHWM), bytes, where /proc offers it.
    pub peak_rss_bytes: Option<u64>,
    /// CPU seconds of the setup before the event loop (fabric, routing, endpoints), where
    /// /proc offers them; `None` for the rows that do not measure it.
    pub setup_cpu_seconds: Option<f64>,
    /// The run itself.
    pub result: PacketRun,
}

/// Peak resident set size of this process from `/proc/self/status` (Linux only).
pub fn peak_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Nanoseconds the calling thread has spent on a CPU: `clock_gettime` of the thread's CPU
/// clock, which the kernel reads from the scheduler's running sum at the instant of the call
/// (nanosecond resolution, unlike `/proc/thread-self/schedstat`'s tick-sampled figure).
/// `None` where the platform has no such clock.
pub fn thread_cpu_ns() -> Option<u64> {
    #[cfg(unix)]
    {
        use nix::time::{clock_gettime, ClockId};
        let t = clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID).ok()?;
        let (s, ns) = (
            u64::try_from(t.tv_sec()).ok()?,
            u64::try_from(t.tv_nsec()).ok()?,
        );
        Some(s * 1_000_000_000 + ns)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Schemes [`bench_scheme`] can run: DCTCP (the reference row) and one per further
/// discipline, each with its registry defaults.
pub const BENCH_SCHEMES: &[&str] = &[
    "dctcp",
    "codel",
    "fq-codel",
    "sfqcodel-cubic",
    "pfabric",
    "tfc",
    "xcp",
    "dctcp-drill",
    "holnet-uta",
    "flowtune",
];

/// Runs the standard workload for `simulated` with `seed` under DCTCP (K = 97.5 KB).
pub fn bench(simulated: Delta, seed: u64) -> BenchReport {
    bench_scheme(simulated, seed, "dctcp")
}

/// Runs the standard workload under `name`, one of [`BENCH_SCHEMES`] (panics otherwise).
pub fn bench_scheme(simulated: Delta, seed: u64, name: &str) -> BenchReport {
    use crate::queue::{CodelParams, FqCodelParams, SfqCodelParams};
    use crate::queue::{DropTailParams, PFabricParams, QueueSpec};
    use crate::schemes::{codel, flowtune, fq_codel, pfabric, sfqcodel_cubic};
    use crate::transport::{Cc, Cubic, NewReno};
    let mut topo = preset("flowtune-144")
        .expect("preset exists")
        .build(Path::new("."))
        .expect("preset builds");
    if name == flowtune::NAME {
        // Flowtune's allocator and its links are part of what the row measures.
        dctc_core::fabric::attach_allocator(&mut topo, 40.0).expect("leaf-spine has spines");
    }
    let routing = Routing::new(&topo).expect("preset is connected");
    let cdf = Cdf::builtin("websearch").expect("built-in CDF");
    let until = SimTime::from_delta(simulated);
    let spec = PoissonSpec {
        cdf: "websearch".into(),
        load: 0.6,
        pairs: PairMode::Any,
        max_flows: None,
    };
    let flows = spec
        .generate(
            &topo,
            &cdf,
            until,
            0,
            &mut component_rng(seed, streams::WORKLOAD),
        )
        .expect("valid spec");
    let n = flows.len();
    let buffer = topo
        .links()
        .iter()
        .map(|l| l.buffer_bytes)
        .min()
        .unwrap_or(0);
    let tcp = TcpConfig::pfabric_tuned(buffer);
    let newreno = Cc::NewReno(NewReno::default());
    let scheme = match name {
        "dctcp" => PacketScheme::dctcp(tcp, 97_500),
        codel::NAME => PacketScheme::assemble(
            codel::NAME,
            tcp,
            newreno,
            QueueSpec::Codel(CodelParams::default()),
        ),
        fq_codel::NAME => PacketScheme::assemble(
            fq_codel::NAME,
            tcp,
            newreno,
            QueueSpec::FqCodel(FqCodelParams::default()),
        ),
        sfqcodel_cubic::NAME => PacketScheme::assemble(
            sfqcodel_cubic::NAME,
            tcp,
            Cc::Cubic(Cubic::default()),
            QueueSpec::SfqCodel(SfqCodelParams::default()),
        ),
        pfabric::NAME => {
            // pFabric's hosts and 2 x BDP switch buffers, as the pfabric scheme resolves them.
            let bdp = pfabric::bdp_packets(&topo).expect("preset has hosts");
            let buffer = 2 * bdp * crate::schemes::PACKET_BYTES;
            let tcp = pfabric::tcp_knobs(bdp)
                .resolve(buffer, "bench")
                .expect("pFabric's defaults resolve");
            let mut s = PacketScheme::assemble(
                pfabric::NAME,
                tcp,
                Cc::PFabricHost(Default::default()),
                QueueSpec::PFabric(PFabricParams::default()),
            );
            s.switch_buffer_bytes = Some(buffer);
            s
        }
        crate::schemes::tfc::NAME => {
            crate::schemes::tfc::scheme(tcp, crate::queue::TfcParams::default())
        }
        crate::schemes::xcp::NAME => {
            let host_rate = topo.hosts().first().and_then(|&h| topo.host_rate(h));
            let q = QueueSpec::Xcp(crate::queue::XcpParams::default());
            let mut s = PacketScheme::assemble(
                crate::schemes::xcp::NAME,
                tcp,
                Cc::Xcp(crate::transport::Xcp::new(host_rate)),
                q,
            );
            s.host_queue = q;
            s
        }
        "dctcp-drill" => PacketScheme {
            lb: crate::lb::LbKind::Drill,
            ..PacketScheme::dctcp(tcp, 97_500)
        },
        crate::schemes::holnet_uta::NAME => PacketScheme {
            lb: crate::lb::LbKind::HolnetPercentage,
            ..PacketScheme::assemble(
                crate::schemes::holnet_uta::NAME,
                tcp,
                Cc::HolnetUta(Default::default()),
                // As `holnet-uta` builds it: its default single-hop signal needs no marking
                // queue (`schemes::holnet_uta::parts`).
                QueueSpec::DropTail(DropTailParams),
            )
        },
        flowtune::NAME => {
            // As in the scenarios: ns-2's initial window of 2 until the first rate.
            let tcp = TcpConfig {
                initial_cwnd_packets: 2,
                ..tcp
            };
            PacketScheme::assemble(
                flowtune::NAME,
                tcp,
                Cc::Flowtune(Default::default()),
                QueueSpec::DropTail(DropTailParams),
            )
        }
        other => panic!("no bench scheme `{other}`; see BENCH_SCHEMES"),
    };
    let workload = Workload {
        flows,
        incasts: Vec::new(),
    };
    let sim = Simulation::new(
        &topo,
        &routing,
        &scheme,
        &workload,
        RunOptions::new(seed, until),
    )
    .expect("valid workload");
    timed_run(sim, simulated, n, None)
}

/// Runs `sim` (of `flows` flows, for `simulated`) and reports it: CPU of the event loop, and
/// of the setup since `setup_started` (a [`thread_cpu_ns`] reading) when given.
fn timed_run(
    sim: Simulation<'_>,
    simulated: Delta,
    flows: usize,
    setup_started: Option<u64>,
) -> BenchReport {
    let cpu0 = thread_cpu_ns();
    let result = sim.run(&mut |_| {});
    let cpu1 = thread_cpu_ns();
    let secs = |a: Option<u64>, b: Option<u64>| match (a, b) {
        (Some(a), Some(b)) => Some((b - a) as f64 * 1e-9),
        _ => None,
    };
    let wall = result.wall_seconds.max(1e-9);
    BenchReport {
        simulated,
        flows,
        events: result.counters.events,
        packet_hops: result.counters.packet_hops,
        wall_seconds: result.wall_seconds,
        events_per_sec: result.counters.events as f64 / wall,
        packet_hops_per_sec: result.counters.packet_hops as f64 / wall,
        cpu_seconds: secs(cpu0, cpu1),
        peak_rss_bytes: peak_rss_bytes(),
        setup_cpu_seconds: secs(setup_started, cpu0),
        result,
    }
}

/// The scale benchmark's rows: fat-tree `k` and simulated microseconds. 10 ms up to k = 16
/// (1,024 hosts), 1 ms beyond (issue 26's settings), and k = 8 also over 1 ms, the span
/// the largest rows are compared with.
pub const SCALE_ROWS: &[(usize, u64)] = &[
    (8, 10_000),
    (12, 10_000),
    (16, 10_000),
    (8, 1_000),
    (24, 1_000),
    (32, 1_000),
];

/// A random permutation of `topo`'s hosts with no host mapped to itself: host `i` sends one
/// long-lived flow (id `i`, from time zero) to host `perm[i]`. Seeded by `seed`'s workload
/// stream; reshuffled until no host is its own destination (about e shuffles).
pub fn permutation(topo: &Topology, seed: u64) -> Vec<FlowSpec> {
    let hosts = topo.hosts();
    assert!(hosts.len() >= 2, "a permutation needs two hosts");
    let mut rng = component_rng(seed, streams::WORKLOAD);
    let mut perm: Vec<usize> = (0..hosts.len()).collect();
    loop {
        perm.shuffle(&mut rng);
        if perm.iter().enumerate().all(|(i, &j)| i != j) {
            break;
        }
    }
    perm.iter()
        .enumerate()
        .map(|(i, &j)| FlowSpec {
            id: FlowId(i as u32),
            src: hosts[i],
            dst: hosts[j],
            size_bytes: None,
            start: SimTime::ZERO,
            stop: None,
            coflow: None,
        })
        .collect()
}

/// Packets of a full-size segment on the wire (MSS + headers): the unit of the scale
/// benchmark's buffers.
const SCALE_PACKET: u64 = crate::schemes::PACKET_BYTES;

/// The scale benchmark (issue 26): DCTCP on a k-ary fat-tree (10 Gb/s, 1 us links, no host
/// delay, 100-packet buffers, K = 15 packets), every host sending one long-lived flow to a
/// random other host ([`permutation`]), pFabric-tuned TCP, for `simulated`. The setup (fabric,
/// routing, endpoints) is timed apart from the event loop.
pub fn scale_bench(k: usize, simulated: Delta, seed: u64) -> BenchReport {
    let cpu_start = thread_cpu_ns();
    let topo = fat_tree(&FatTreeSpec {
        k,
        rate_gbps: 10.0,
        link_delay_us: 1.0,
        host_delay_us: 0.0,
        buffer_bytes: 100 * SCALE_PACKET,
    })
    .expect("an even k builds");
    let routing = Routing::new(&topo).expect("a fat-tree is connected");
    let flows = permutation(&topo, seed);
    let n = flows.len();
    let scheme = PacketScheme::dctcp(
        TcpConfig::pfabric_tuned(100 * SCALE_PACKET),
        15 * SCALE_PACKET,
    );
    let workload = Workload {
        flows,
        incasts: Vec::new(),
    };
    let until = SimTime::from_delta(simulated);
    let sim = Simulation::new(
        &topo,
        &routing,
        &scheme,
        &workload,
        RunOptions::new(seed, until),
    )
    .expect("valid workload");
    timed_run(sim, simulated, n, cpu_start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_permutation_sends_from_and_to_every_host_once_and_never_to_itself() {
        let topo = fat_tree(&FatTreeSpec {
            k: 4,
            rate_gbps: 10.0,
            link_delay_us: 1.0,
            host_delay_us: 0.0,
            buffer_bytes: 150_000,
        })
        .unwrap();
        let hosts = topo.hosts();
        for seed in 0..50 {
            let flows = permutation(&topo, seed);
            assert_eq!(flows.len(), hosts.len());
            let mut dsts: Vec<_> = flows.iter().map(|f| f.dst).collect();
            dsts.sort();
            assert_eq!(dsts, hosts.to_vec(), "every host receives once");
            for (i, f) in flows.iter().enumerate() {
                assert_eq!(f.src, hosts[i]);
                assert_ne!(f.src, f.dst);
                assert!(f.size_bytes.is_none() && f.start == SimTime::ZERO);
            }
            assert_eq!(flows, permutation(&topo, seed), "seeded");
        }
        assert_ne!(permutation(&topo, 1), permutation(&topo, 2));
    }
}
