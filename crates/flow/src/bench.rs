//! Speed benchmarks (`dctc bench flow`): the Facebook trace on `dba-144` under a policy, and
//! Poisson web-search flows on a k = 16 fat-tree under `maxmin`.

use crate::engine::{CoflowInput, SimConfig, Simulator};
use crate::error::FlowError;
use crate::net::Net;
use crate::policy::{make_policy, PolicyConfig};
use crate::workload::{
    load_trace, poisson_coflows, Arrivals, BuildTrace, Placement, SizeModel, TraceSpec,
};
use dctc_core::error::unknown_name;
use dctc_core::fabric::{preset, FabricSpec, FatTreeSpec};
use dctc_core::units::SimTime;
use dctc_core::workload::{PairMode, PoissonSpec};
use std::path::Path;
use std::time::Instant;

/// One benchmark's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// What ran.
    pub name: String,
    /// Wall-clock seconds of the simulation (workload generation excluded).
    pub wall_s: f64,
    /// Seconds to build the workload.
    pub setup_s: f64,
    /// Flows simulated.
    pub flows: usize,
    /// Events processed.
    pub events: u64,
    /// Simulated seconds.
    pub sim_s: f64,
    /// Average CCT, seconds.
    pub avg_cct_s: f64,
    /// Flows re-solved, summed over the allocations.
    pub allocated_flows: u64,
    /// `maxmin` bottleneck re-solves tried and applied (the rest fell back to the cut).
    pub bottleneck: (u64, u64),
    /// FNV-1a hash of every flow's and coflow's finish time (ps, in flow / coflow order):
    /// two runs with the same digest finished every flow at the same picosecond.
    pub digest: u64,
}

/// One speed benchmark.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BenchSpec {
    /// Name, for [`bench()`].
    pub name: &'static str,
    /// What it runs.
    pub what: &'static str,
    /// Share run by default by `dctc bench flow`: the full trace takes hours under `maxmin`
    /// and `dba` (BENCHMARKS.md says why), so 10% and 1% of it; all million web-search flows
    /// (about a minute).
    pub default_scale: f64,
}

/// The benchmarks: `trace-maxmin`, `trace-dba`, `websearch-1m`, and `fb150-<policy>` (the
/// trace as recorded, [`fb150_workload`]) for the coflow policies against `maxmin`.
pub const BENCHES: &[BenchSpec] = &[
    BenchSpec {
        name: "trace-maxmin",
        what: "Facebook 1-hour coflow trace on dba-144, load 1.0, maxmin",
        default_scale: 0.1,
    },
    BenchSpec {
        name: "trace-dba",
        what: "Facebook 1-hour coflow trace on dba-144, load 1.0, dba",
        default_scale: 0.01,
    },
    BenchSpec {
        name: "websearch-1m",
        what:
            "1,000,000 Poisson web-search flows on a k=16 fat-tree (1024 hosts), load 0.5, maxmin",
        default_scale: 1.0,
    },
    BenchSpec {
        name: "fb150-maxmin",
        what: "Facebook 1-hour coflow trace as recorded on fb-150, maxmin",
        default_scale: 1.0,
    },
    BenchSpec {
        name: "fb150-varys",
        what: "Facebook 1-hour coflow trace as recorded on fb-150, varys",
        default_scale: 1.0,
    },
    BenchSpec {
        name: "fb150-varys-no-backfill",
        what: "Facebook 1-hour coflow trace as recorded on fb-150, varys-no-backfill",
        default_scale: 1.0,
    },
    BenchSpec {
        name: "fb150-coflow-fifo",
        what: "Facebook 1-hour coflow trace as recorded on fb-150, coflow-fifo",
        default_scale: 1.0,
    },
    BenchSpec {
        name: "fb150-fastpass-f",
        what: "Facebook 1-hour coflow trace as recorded on fb-150, fastpass-f",
        default_scale: 1.0,
    },
    BenchSpec {
        name: "fb150-fastpass-c",
        what: "Facebook 1-hour coflow trace as recorded on fb-150, fastpass-c",
        default_scale: 1.0,
    },
    BenchSpec {
        name: "fb150-baraat",
        what: "Facebook 1-hour coflow trace as recorded on fb-150, baraat",
        default_scale: 1.0,
    },
];

/// Runs benchmark `name`; `trace` is the coflow trace file; `scale` in (0, 1] shrinks the
/// run (fraction of coflows or flows) for quick checks.
pub fn bench(name: &str, trace: &Path, scale: f64) -> Result<BenchResult, FlowError> {
    bench_with_progress(name, trace, scale, |_| {}, |_| {})
}

/// The trace benchmarks' workload: the first `scale` of the coflow trace at `trace` on
/// `dba-144`, load 1.0, seed 1, the default size model with coefficient of variation 0.5.
pub fn trace_workload(trace: &Path, scale: f64) -> Result<(Net, Vec<CoflowInput>), FlowError> {
    let topo = preset("dba-144")
        .expect("preset")
        .build(Path::new("."))
        .map_err(|e| FlowError::Fabric(e.to_string()))?;
    let net = Net::new(topo)?;
    let tr = load_trace(trace)?;
    let n = ((tr.coflows.len() as f64 * scale).ceil() as usize).max(1);
    let spec = TraceSpec {
        path: trace.display().to_string(),
        load: 1.0,
        cv: 0.5,
        sizes: Default::default(),
        placement: Default::default(),
        max_coflows: Some(n),
        skip_coflows: 0,
        max_mappers: None,
        max_reducers: None,
        size_scale: 1.0,
        arrivals: Default::default(),
    };
    let coflows = spec.build(&tr, &net, 1)?;
    Ok((net, coflows))
}

/// The trace as recorded (the first `scale` of its coflows): `fb-150` (150 ports on one
/// non-blocking switch at 2^30 b/s), each trace port on its own host, native arrival times,
/// every flow into a reducer the same size (the reducer's bytes over the mapper count, cv 0).
pub fn fb150_workload(trace: &Path, scale: f64) -> Result<(Net, Vec<CoflowInput>), FlowError> {
    let topo = preset("fb-150")
        .expect("preset")
        .build(Path::new("."))
        .map_err(|e| FlowError::Fabric(e.to_string()))?;
    let net = Net::new(topo)?;
    let tr = load_trace(trace)?;
    let n = ((tr.coflows.len() as f64 * scale).ceil() as usize).max(1);
    let spec = TraceSpec {
        path: trace.display().to_string(),
        load: 1.0,
        cv: 0.0,
        sizes: SizeModel::ReducerMean,
        placement: Placement::Ports,
        max_coflows: Some(n),
        skip_coflows: 0,
        max_mappers: None,
        max_reducers: None,
        size_scale: 1.0,
        arrivals: Arrivals::Native,
    };
    let coflows = spec.build(&tr, &net, 1)?;
    Ok((net, coflows))
}

/// [`bench()`], telling `start` the last arrival time once the workload is built (a run's
/// natural progress target) and `progress` the simulated time every few thousand events.
pub fn bench_with_progress(
    name: &str,
    trace: &Path,
    scale: f64,
    start: impl FnOnce(SimTime),
    progress: impl FnMut(SimTime),
) -> Result<BenchResult, FlowError> {
    let t0 = Instant::now();
    let (net, coflows, policy) = match name {
        "trace-maxmin" | "trace-dba" => {
            let (net, coflows) = trace_workload(trace, scale)?;
            let policy = if name == "trace-dba" { "dba" } else { "maxmin" };
            (net, coflows, policy)
        }
        fb if fb.starts_with("fb150-") && BENCHES.iter().any(|b| b.name == fb) => {
            let (net, coflows) = fb150_workload(trace, scale)?;
            (net, coflows, &fb["fb150-".len()..])
        }
        "websearch-1m" => {
            let topo = FabricSpec::FatTree(FatTreeSpec {
                k: 16,
                rate_gbps: 10.0,
                link_delay_us: 1.0,
                host_delay_us: 0.0,
                buffer_bytes: 1_000_000,
            })
            .build(Path::new("."))
            .map_err(|e| FlowError::Fabric(e.to_string()))?;
            let net = Net::new(topo)?;
            let spec = PoissonSpec {
                cdf: "websearch".into(),
                load: 0.5,
                pairs: PairMode::Any,
                max_flows: Some(((1_000_000.0 * scale) as usize).max(1)),
            };
            let coflows = poisson_coflows(&spec, &net, Path::new("."), SimTime::NEVER, 1)?;
            (net, coflows, "maxmin")
        }
        other => {
            let names: Vec<&str> = BENCHES.iter().map(|b| b.name).collect();
            return Err(FlowError::invalid(
                "bench",
                unknown_name("benchmark", other, &names),
            ));
        }
    };
    let flows: usize = coflows.iter().map(|c| c.flows.len()).sum();
    let sizes: Vec<f64> = coflows
        .iter()
        .map(|c| c.flows.iter().map(|f| f.bytes).sum())
        .collect();
    let policy = make_policy(&PolicyConfig::named(policy), &net, &sizes)?;
    let setup_s = t0.elapsed().as_secs_f64();
    start(
        coflows
            .iter()
            .map(|c| c.arrival)
            .max()
            .unwrap_or(SimTime::ZERO),
    );
    let t1 = Instant::now();
    let mut sim = Simulator::new(&net, coflows, policy, SimConfig::default());
    let res = sim.run(progress);
    let wall_s = t1.elapsed().as_secs_f64();
    let (tries, applied, _) = sim.bottleneck_stats();
    let digest = finish_digest(&sim);
    Ok(BenchResult {
        name: name.to_string(),
        wall_s,
        setup_s,
        flows,
        events: res.events,
        sim_s: res.end_s,
        avg_cct_s: res.summary().avg_cct_s,
        allocated_flows: res.allocated_flows,
        bottleneck: (tries, applied),
        digest,
    })
}

/// FNV-1a over the finish times (ps) of every flow, then every coflow.
fn finish_digest(sim: &Simulator<'_>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let times = sim.flows.finish.iter().chain(sim.coflows.finish.iter());
    for t in times {
        for b in t.ps().to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}
