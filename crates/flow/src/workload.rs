//! Workloads for the flow engine: the Facebook coflow trace, synthetic coflows, and Poisson
//! flows (single-flow coflows).
//!
//! **Trace format** (coflow-benchmark): line 1 `<ports> <coflows>`; then one coflow per line:
//! `<id> <arrival ms> <m> <mapper port>*m <r> <reducer port>:<shuffle MB>*r`. A megabyte is
//! 2^20 bytes (as CoflowSim reads it).
//!
//! **From trace to flows (DBA §5.1).** Each coflow has `m x r` flows, one per mapper-reducer
//! pair. Sizes (`sizes`): with `"coflow-mean"` (the default, DBA §5.1: "a coflow's total size
//! and inner flow number ... average flow size") every flow of coflow `k` has mean
//! `S_k / (m r)`; with `"reducer-mean"` the flows into reducer `j` have mean `S_j / m`, which
//! keeps the trace's per-reducer skew. Each coflow draws a coefficient of variation `cv_k`
//! uniformly from `[0, 2 cv]` (mean `cv`; the trace has no per-flow sizes and we do not have
//! Varys's CV CDF, which DBA samples), each flow's size is drawn from
//! `Normal(mean, (cv_k mean)^2)` truncated to positive values (redrawn until positive, up to 32
//! times, else the mean), and the draws of one group (the coflow, or the reducer) are rescaled
//! to sum exactly to its bytes, so the trace's bytes (and hence the load) are kept. Endpoints: `placement = "random"` (DBA:
//! sender and receiver of every flow uniform over the fabric's hosts, distinct), or `"ports"`
//! (port `p` is host `floor(p * hosts / ports)`; a flow whose two ends land on one host goes up
//! that host's link and back down it, as the trace's model sends a mapper's data to a reducer
//! on the same port through the switch). Reducers with no bytes have no flows; a coflow left
//! with no flow at all is dropped and counted ([`TraceBuild`]). **Arrivals** (`arrivals`):
//! `"load"` (the default) compresses (or stretches) arrival times by one factor so that the
//! trace's bytes over its arrival span offer `load x hosts x host rate` (DBA: 1..10 Gb/s per
//! 10 Gb/s server for 10%..100%); `"native"` keeps the trace's own millisecond stamps (and
//! ignores `load`).

use crate::engine::{CoflowInput, FlowInput};
use crate::error::FlowError;
use crate::net::Net;
use dctc_core::config::WorkloadSpec;
use dctc_core::error::KeyError;
use dctc_core::rng::{component_rng, streams};
use dctc_core::units::{Delta, SimTime};
use dctc_core::workload::{Cdf, PoissonSpec, WorkloadError, MAX_FLOWS, MAX_FLOW_BYTES};
use rand::Rng;
use std::path::Path;

pub use dctc_core::workload::coflow::{Arrivals, Placement, SizeModel, SyntheticSpec, TraceSpec};

/// Bytes per trace megabyte.
pub const TRACE_MB: f64 = 1_048_576.0;

/// One coflow line of the trace.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceCoflow {
    /// Coflow id.
    pub id: u32,
    /// Arrival, milliseconds.
    pub arrival_ms: f64,
    /// Mapper ports.
    pub mappers: Vec<u32>,
    /// Reducer ports and their shuffle sizes in MB.
    pub reducers: Vec<(u32, f64)>,
}

/// A parsed coflow trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// Ports of the traced fabric.
    pub ports: u32,
    /// Coflows in file order.
    pub coflows: Vec<TraceCoflow>,
}

impl Trace {
    /// Total shuffle bytes.
    pub fn total_bytes(&self) -> f64 {
        self.coflows
            .iter()
            .flat_map(|c| c.reducers.iter().map(|r| r.1 * TRACE_MB))
            .sum()
    }
}

fn bad(file: &str, line: usize, reason: impl Into<String>) -> WorkloadError {
    WorkloadError::BadLine {
        file: file.to_string(),
        line,
        reason: reason.into(),
    }
}

/// Parses a coflow-benchmark trace; `file` names it in errors.
pub fn parse_trace(file: &str, text: &str) -> Result<Trace, WorkloadError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let (hl, header) = lines.next().ok_or_else(|| bad(file, 1, "empty file"))?;
    let h: Vec<&str> = header.split_whitespace().collect();
    if h.len() != 2 {
        return Err(bad(
            file,
            hl,
            format!("header must be `<ports> <coflows>`, got `{header}`"),
        ));
    }
    let ports: u32 = h[0]
        .parse()
        .map_err(|_| bad(file, hl, format!("ports `{}` is not a whole number", h[0])))?;
    let count: usize = h[1].parse().map_err(|_| {
        bad(
            file,
            hl,
            format!("coflow count `{}` is not a whole number", h[1]),
        )
    })?;
    if ports == 0 {
        return Err(bad(file, hl, "ports must be at least 1"));
    }
    // Counts come from the file: reserve no more than its lines could hold (a header of
    // 10^18 coflows must not allocate them).
    let mut coflows = Vec::with_capacity(count.min(text.lines().count()));
    for (ln, line) in lines {
        let tok: Vec<&str> = line.split_whitespace().collect();
        let mut pos = 0usize;
        let mut next = |what: &str| -> Result<&str, WorkloadError> {
            let t = tok
                .get(pos)
                .copied()
                .ok_or_else(|| bad(file, ln, format!("line ends before {what}")))?;
            pos += 1;
            Ok(t)
        };
        let id: u32 = {
            let t = next("the coflow id")?;
            t.parse()
                .map_err(|_| bad(file, ln, format!("coflow id `{t}` is not a whole number")))?
        };
        let arrival_ms: f64 = {
            let t = next("the arrival time")?;
            let v: f64 = t
                .parse()
                .map_err(|_| bad(file, ln, format!("arrival `{t}` is not a number")))?;
            if !(v.is_finite() && v >= 0.0) {
                return Err(bad(file, ln, format!("arrival `{t}` must be >= 0")));
            }
            // Native arrivals are simulated times: at most the day a scenario may last.
            let max_ms = Delta::MAX_SCENARIO.as_secs_f64() * 1e3;
            if v > max_ms {
                return Err(bad(
                    file,
                    ln,
                    format!(
                        "arrival `{t}` ms is later than the {max_ms} ms (one day) dctc simulates"
                    ),
                ));
            }
            v
        };
        let port = |t: &str, what: &str| -> Result<u32, WorkloadError> {
            let p: u32 = t
                .parse()
                .map_err(|_| bad(file, ln, format!("{what} port `{t}` is not a whole number")))?;
            if p >= ports {
                return Err(bad(
                    file,
                    ln,
                    format!("{what} port {p} is outside 0..{ports}"),
                ));
            }
            Ok(p)
        };
        let m: usize = {
            let t = next("the mapper count")?;
            t.parse().map_err(|_| {
                bad(
                    file,
                    ln,
                    format!("mapper count `{t}` is not a whole number"),
                )
            })?
        };
        if m == 0 {
            return Err(bad(file, ln, "a coflow needs at least one mapper"));
        }
        let mut mappers = Vec::with_capacity(m.min(tok.len()));
        for _ in 0..m {
            let t = next("all mapper ports")?;
            mappers.push(port(t, "mapper")?);
        }
        let r: usize = {
            let t = next("the reducer count")?;
            t.parse().map_err(|_| {
                bad(
                    file,
                    ln,
                    format!("reducer count `{t}` is not a whole number"),
                )
            })?
        };
        if r == 0 {
            return Err(bad(file, ln, "a coflow needs at least one reducer"));
        }
        let mut reducers = Vec::with_capacity(r.min(tok.len()));
        for _ in 0..r {
            let t = next("all reducers")?;
            let (p, raw) = t.split_once(':').ok_or_else(|| {
                bad(
                    file,
                    ln,
                    format!("reducer `{t}` must be `<port>:<megabytes>`"),
                )
            })?;
            let p = port(p, "reducer")?;
            let mb: f64 = raw
                .parse()
                .map_err(|_| bad(file, ln, format!("shuffle size `{raw}` is not a number")))?;
            if !(mb.is_finite() && mb >= 0.0) {
                return Err(bad(file, ln, format!("shuffle size `{raw}` must be >= 0")));
            }
            if mb * TRACE_MB > MAX_FLOW_BYTES as f64 {
                return Err(bad(
                    file,
                    ln,
                    format!(
                        "shuffle size `{raw}` MB is more than the {} a flow may carry",
                        dctc_core::units::human_bytes(MAX_FLOW_BYTES)
                    ),
                ));
            }
            reducers.push((p, mb));
        }
        if pos != tok.len() {
            return Err(bad(
                file,
                ln,
                format!("{} extra fields after the reducers", tok.len() - pos),
            ));
        }
        coflows.push(TraceCoflow {
            id,
            arrival_ms,
            mappers,
            reducers,
        });
    }
    if coflows.len() != count {
        return Err(bad(
            file,
            hl,
            format!("header says {count} coflows, file has {}", coflows.len()),
        ));
    }
    Ok(Trace { ports, coflows })
}

/// Reads (at most [`dctc_core::input::MAX_INPUT_BYTES`]) and parses a trace file.
pub fn load_trace(path: &Path) -> Result<Trace, WorkloadError> {
    let text = dctc_core::input::read_input_file(path).map_err(|e| WorkloadError::File {
        file: path.display().to_string(),
        reason: e.to_string(),
    })?;
    parse_trace(&path.display().to_string(), &text)
}

/// Coflows built from a trace, and what could not be carried.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceBuild {
    /// The coflows.
    pub coflows: Vec<CoflowInput>,
    /// Coflows of the selection that have no flow at all (every reducer has 0 bytes), dropped.
    pub dropped_coflows: usize,
    /// Mapper-reducer pairs not turned into flows (their reducer has 0 bytes).
    pub dropped_flows: usize,
}

/// Coflows from a trace: the flow engine's side of core's [`TraceSpec`].
pub trait BuildTrace {
    /// The coflows for `net`.
    fn build(&self, trace: &Trace, net: &Net, seed: u64) -> Result<Vec<CoflowInput>, FlowError>;
    /// The coflows for `net`, with the count of what was dropped.
    fn build_counted(&self, trace: &Trace, net: &Net, seed: u64) -> Result<TraceBuild, FlowError>;
}

impl BuildTrace for TraceSpec {
    fn build(&self, trace: &Trace, net: &Net, seed: u64) -> Result<Vec<CoflowInput>, FlowError> {
        Ok(self.build_counted(trace, net, seed)?.coflows)
    }

    fn build_counted(&self, trace: &Trace, net: &Net, seed: u64) -> Result<TraceBuild, FlowError> {
        self.validate()?;
        let hosts = net.hosts() as u32;
        if hosts < 2 {
            return Err(FlowError::invalid("fabric", "needs at least two hosts"));
        }
        let end = self
            .max_coflows
            .map(|m| (self.skip_coflows + m).min(trace.coflows.len()))
            .unwrap_or(trace.coflows.len());
        let sel = trace.coflows.get(self.skip_coflows..end).unwrap_or(&[]);
        if sel.is_empty() {
            return Err(FlowError::invalid("skip_coflows", "no coflows left to use"));
        }
        let mut size_rng = component_rng(seed, streams::COFLOW);
        let mut place_rng = component_rng(seed, streams::WORKLOAD);
        let mut out = Vec::with_capacity(sel.len());
        let mut raw_arrivals = Vec::with_capacity(sel.len());
        let mut native_ps = Vec::with_capacity(sel.len());
        let (mut dropped_flows, mut dropped_coflows) = (0usize, 0usize);
        for c in sel {
            let cv = if self.cv > 0.0 {
                size_rng.random_range(0.0..=2.0 * self.cv)
            } else {
                0.0
            };
            let mappers = &c.mappers[..c.mappers.len().min(self.max_mappers.unwrap_or(usize::MAX))];
            let reducers = &c.reducers[..c
                .reducers
                .len()
                .min(self.max_reducers.unwrap_or(usize::MAX))];
            let all_mb: f64 = c.reducers.iter().map(|r| r.1).sum();
            let kept_mb: f64 = reducers.iter().map(|r| r.1).sum();
            let widen = if kept_mb > 0.0 { all_mb / kept_mb } else { 1.0 };
            let m = mappers.len();
            // Bytes per kept reducer, then every flow's size in reducer-major order.
            let totals: Vec<f64> = reducers
                .iter()
                .map(|r| (r.1 * widen * TRACE_MB * self.size_scale).max(0.0))
                .collect();
            let mut draw = |n: usize, total: f64| -> Vec<f64> {
                let mean = total / n as f64;
                let mut sizes: Vec<f64> = (0..n)
                    .map(|_| truncated_normal(&mut size_rng, mean, cv * mean))
                    .collect();
                let sum: f64 = sizes.iter().sum();
                for s in &mut sizes {
                    *s *= total / sum;
                }
                sizes
            };
            let live = totals.iter().filter(|&&t| t > 0.0).count();
            let sizes: Vec<f64> = match self.sizes {
                SizeModel::ReducerMean => totals
                    .iter()
                    .filter(|&&t| t > 0.0)
                    .flat_map(|&t| draw(m, t))
                    .collect(),
                SizeModel::CoflowMean if live > 0 => draw(m * live, totals.iter().sum()),
                SizeModel::CoflowMean => Vec::new(),
            };
            let mut flows = Vec::with_capacity(m * live);
            let mut next_size = sizes.into_iter();
            for (&(rport, _), &total) in reducers.iter().zip(&totals) {
                if total <= 0.0 {
                    dropped_flows += m;
                    continue;
                }
                for &mport in mappers {
                    let bytes = next_size.next().expect("one size per flow");
                    let (src, dst) = match self.placement {
                        Placement::Random => {
                            let s = place_rng.random_range(0..hosts);
                            let mut d = place_rng.random_range(0..hosts - 1);
                            if d >= s {
                                d += 1;
                            }
                            (s, d)
                        }
                        Placement::Ports => {
                            let map =
                                |p: u32| (p as u64 * hosts as u64 / trace.ports as u64) as u32;
                            (map(mport), map(rport))
                        }
                    };
                    flows.push(FlowInput {
                        src,
                        dst,
                        bytes: bytes.max(1.0),
                    });
                }
            }
            if flows.is_empty() {
                dropped_coflows += 1;
                continue;
            }
            raw_arrivals.push(c.arrival_ms * 1e-3);
            native_ps.push((c.arrival_ms * 1e9).round() as u64);
            out.push(CoflowInput {
                id: c.id,
                arrival: SimTime::ZERO,
                flows,
            });
        }
        if out.is_empty() {
            return Err(FlowError::invalid(
                "path",
                "no coflow has a flow (every selected reducer has 0 bytes)",
            ));
        }
        if self.arrivals == Arrivals::Native {
            for (c, &ps) in out.iter_mut().zip(&native_ps) {
                c.arrival = SimTime(ps);
            }
            return Ok(TraceBuild {
                coflows: out,
                dropped_coflows,
                dropped_flows,
            });
        }
        // Load scaling: one time factor for all arrivals.
        let first = raw_arrivals.iter().copied().fold(f64::INFINITY, f64::min);
        let last = raw_arrivals.iter().copied().fold(0.0, f64::max);
        let bytes: f64 = out
            .iter()
            .flat_map(|c| c.flows.iter().map(|f| f.bytes))
            .sum();
        let host_rate = net.cap[net.host_up[0] as usize];
        let target = self.load * hosts as f64 * host_rate;
        let factor = if last > first {
            (bytes * 8.0 / (last - first)) / target
        } else {
            1.0
        };
        for (c, &a) in out.iter_mut().zip(&raw_arrivals) {
            c.arrival = SimTime::from_delta(Delta::from_secs_f64((a - first) * factor));
        }
        Ok(TraceBuild {
            coflows: out,
            dropped_coflows,
            dropped_flows,
        })
    }
}

fn truncated_normal<R: Rng + ?Sized>(rng: &mut R, mean: f64, sd: f64) -> f64 {
    if sd <= 0.0 {
        return mean;
    }
    for _ in 0..32 {
        // Box-Muller.
        let u1: f64 = 1.0 - rng.random::<f64>();
        let u2: f64 = rng.random();
        let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        let x = mean + sd * z;
        if x > 0.0 {
            return x;
        }
    }
    mean
}

/// Coflows drawn from a [`SyntheticSpec`]: the flow engine's side of core's spec.
pub trait BuildSynthetic {
    /// The coflows for `net`.
    fn build(&self, net: &Net, base_dir: &Path, seed: u64) -> Result<Vec<CoflowInput>, FlowError>;
}

impl BuildSynthetic for SyntheticSpec {
    fn build(&self, net: &Net, base_dir: &Path, seed: u64) -> Result<Vec<CoflowInput>, FlowError> {
        self.validate()?;
        let cdf = Cdf::load(&self.cdf, base_dir)?;
        let hosts = net.hosts() as u32;
        let mut rng = component_rng(seed, streams::COFLOW);
        let mean_width = (self.width_min + self.width_max) as f64 / 2.0;
        let host_rate = net.cap[net.host_up[0] as usize];
        let per_sec = self.load * hosts as f64 * host_rate / (8.0 * mean_width * cdf.mean_bytes());
        let mut t = 0.0f64;
        let mut out = Vec::with_capacity(self.coflows);
        for id in 0..self.coflows {
            let u: f64 = rng.random();
            t += -(1.0 - u).ln() / per_sec;
            let w = rng.random_range(self.width_min..=self.width_max);
            let flows = (0..w)
                .map(|_| {
                    let s = rng.random_range(0..hosts);
                    let mut d = rng.random_range(0..hosts - 1);
                    if d >= s {
                        d += 1;
                    }
                    FlowInput {
                        src: s,
                        dst: d,
                        bytes: cdf.sample(&mut rng) as f64,
                    }
                })
                .collect();
            out.push(CoflowInput {
                id: id as u32,
                arrival: SimTime::from_delta(Delta::from_secs_f64(t)),
                flows,
            });
        }
        Ok(out)
    }
}

/// Poisson flows (core's [`PoissonSpec`]) as single-flow coflows, arrivals in `[0, until)`.
pub fn poisson_coflows(
    spec: &PoissonSpec,
    net: &Net,
    base_dir: &Path,
    until: SimTime,
    seed: u64,
) -> Result<Vec<CoflowInput>, FlowError> {
    let cdf = Cdf::load(&spec.cdf, base_dir)?;
    let mut rng = component_rng(seed, streams::WORKLOAD);
    let flows = spec.generate(&net.topo, &cdf, until, 0, &mut rng)?;
    Ok(flows
        .into_iter()
        .map(|f| CoflowInput {
            id: f.id.0,
            arrival: f.start,
            flows: vec![FlowInput {
                src: net.topo.host_index(f.src).expect("host") as u32,
                dst: net.topo.host_index(f.dst).expect("host") as u32,
                bytes: f.size_bytes.unwrap_or(1) as f64,
            }],
        })
        .collect())
}

/// Workload kinds the flow engine runs, in the order its errors list them.
pub const WORKLOAD_KINDS: &[&str] = &["coflow-trace", "synthetic-coflows", "poisson"];

/// One `[[workload]]` table of the flow engine, checked (a trace read and parsed once).
#[derive(Clone, Debug, PartialEq)]
pub enum FlowWorkload {
    /// A recorded coflow trace.
    Trace {
        /// How to turn it into coflows.
        spec: TraceSpec,
        /// The parsed file.
        trace: Trace,
    },
    /// Synthetic coflows.
    Synthetic(SyntheticSpec),
    /// Poisson flows, one coflow each.
    Poisson(PoissonSpec),
}

impl FlowWorkload {
    /// Checks `spec` for the flow engine and reads its trace; files are relative to
    /// `base_dir`, error paths to the workload's table.
    pub fn new(spec: &WorkloadSpec, base_dir: &Path) -> Result<FlowWorkload, KeyError> {
        match spec {
            WorkloadSpec::CoflowTrace(t) => {
                t.validate()?;
                let path = base_dir.join(&t.path);
                if !path.is_file() {
                    return Err(KeyError::new(
                        "path",
                        format!("no such file: {}", path.display()),
                    ));
                }
                // Parsed now so that a malformed line fails `validate` too.
                let trace = load_trace(&path).map_err(|e| KeyError::new("path", e.to_string()))?;
                Ok(FlowWorkload::Trace {
                    spec: t.clone(),
                    trace,
                })
            }
            WorkloadSpec::Poisson(p) => {
                p.validate().map_err(workload_key_error)?;
                // Read now so that a malformed file fails `validate` too.
                Cdf::load(&p.cdf, base_dir).map_err(|e| KeyError::new("cdf", e.to_string()))?;
                Ok(FlowWorkload::Poisson(p.clone()))
            }
            WorkloadSpec::SyntheticCoflows(s) => {
                s.validate()?;
                Cdf::load(&s.cdf, base_dir).map_err(|e| KeyError::new("cdf", e.to_string()))?;
                Ok(FlowWorkload::Synthetic(s.clone()))
            }
            other => Err(other.unsupported(WORKLOAD_KINDS)),
        }
    }

    /// Bounds what the workload will generate at its own load and at each of `loads`,
    /// without generating it: Poisson arrivals are counted over `[0, until)`, synthetic
    /// coflows by their widest size. Error paths are relative to the workload's table.
    pub fn check_size(
        &self,
        net: &Net,
        base_dir: &Path,
        until: SimTime,
        loads: &[f64],
    ) -> Result<(), KeyError> {
        match self {
            FlowWorkload::Poisson(p) => {
                let cdf =
                    Cdf::load(&p.cdf, base_dir).map_err(|e| KeyError::new("cdf", e.to_string()))?;
                for &load in std::iter::once(&p.load).chain(loads) {
                    let spec = PoissonSpec { load, ..p.clone() };
                    spec.check_size(&net.topo, &cdf, until)
                        .map_err(workload_key_error)?;
                }
            }
            FlowWorkload::Synthetic(sp) => {
                if (sp.coflows as u64).saturating_mul(sp.width_max as u64) > MAX_FLOWS {
                    return Err(KeyError::new(
                        "coflows",
                        format!(
                            "{} coflows of up to {} flows are more than the {MAX_FLOWS} flows dctc generates",
                            sp.coflows, sp.width_max
                        ),
                    ));
                }
            }
            FlowWorkload::Trace { .. } => {}
        }
        Ok(())
    }

    /// The coflows on `net` at `load` (the workload's own when `None`), drawn from `seed`,
    /// Poisson arrivals in `[0, until)`; with the trace's dropped `(flows, coflows)`.
    pub fn coflows(
        &self,
        net: &Net,
        base_dir: &Path,
        until: SimTime,
        load: Option<f64>,
        seed: u64,
    ) -> Result<(Vec<CoflowInput>, usize, usize), FlowError> {
        Ok(match self {
            FlowWorkload::Trace { spec, trace } => {
                let mut t = spec.clone();
                if let Some(l) = load {
                    t.load = l;
                }
                let b = t.build_counted(trace, net, seed)?;
                (b.coflows, b.dropped_flows, b.dropped_coflows)
            }
            FlowWorkload::Synthetic(sp) => {
                let mut sp = sp.clone();
                if let Some(l) = load {
                    sp.load = l;
                }
                (sp.build(net, base_dir, seed)?, 0, 0)
            }
            FlowWorkload::Poisson(sp) => {
                let mut sp = sp.clone();
                if let Some(l) = load {
                    sp.load = l;
                }
                (poisson_coflows(&sp, net, base_dir, until, seed)?, 0, 0)
            }
        })
    }
}

/// A workload error as a key error relative to the workload's table (an error of the
/// table as a whole has an empty path).
fn workload_key_error(e: WorkloadError) -> KeyError {
    match e {
        WorkloadError::Invalid(e) => e,
        other => KeyError::new("", other.to_string()),
    }
}

#[cfg(test)]
mod plan_tests {
    use super::*;

    fn spec(src: &str) -> WorkloadSpec {
        toml::from_str(src).unwrap()
    }

    #[test]
    fn a_flow_workload_is_checked_with_paths_below_its_table() {
        let e = FlowWorkload::new(&spec("kind = \"csv\"\npath = \"f.csv\""), Path::new("."))
            .unwrap_err();
        assert_eq!(e.path, "kind");
        assert!(e.reason.contains("`coflow-trace`"), "{e}");
        let e = FlowWorkload::new(
            &spec("kind = \"coflow-trace\"\npath = \"no-such-trace.txt\""),
            Path::new("."),
        )
        .unwrap_err();
        assert_eq!(e.path, "path");
        assert!(e.reason.starts_with("no such file"), "{e}");
        let e = FlowWorkload::new(
            &spec("kind = \"poisson\"\ncdf = \"websearch\"\nload = 0.0"),
            Path::new("."),
        )
        .unwrap_err();
        assert_eq!(e.path, "load");
        let synthetic =
            "kind = \"synthetic-coflows\"\ncoflows = 2\nload = 0.5\nwidth_min = 3\nwidth_max = 1\ncdf = \"websearch\"";
        let e = FlowWorkload::new(&spec(synthetic), Path::new(".")).unwrap_err();
        assert_eq!(e.path, "width_min");
        let ok = FlowWorkload::new(&spec(&synthetic.replace("= 1\n", "= 4\n")), Path::new("."));
        assert!(matches!(ok, Ok(FlowWorkload::Synthetic(_))), "{ok:?}");
        // A CDF file is read when the workload is checked, not first when coflows are drawn.
        let dir = std::env::temp_dir().join(format!("dctc-flow-cdf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("bad.cdf"), "100 0.5\n50 1\n").unwrap();
        let bad = synthetic
            .replace("= 1\n", "= 4\n")
            .replace("websearch", "bad.cdf");
        let e = FlowWorkload::new(&spec(&bad), &dir).unwrap_err();
        assert_eq!(e.path, "cdf");
        assert!(e.reason.contains("must not decrease"), "{e}");
        let poisson = "kind = \"poisson\"\ncdf = \"bad.cdf\"\nload = 0.5";
        assert_eq!(
            FlowWorkload::new(&spec(poisson), &dir).unwrap_err().path,
            "cdf"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
