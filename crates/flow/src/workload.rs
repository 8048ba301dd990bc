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
//! (port `p` is host `floor(p * hosts / ports)`; flows whose two ends land on one host are
//! dropped). **Load:** arrival times are compressed (or stretched) by one factor so that the
//! trace's bytes over its arrival span offer `load x hosts x host rate` (DBA: 1..10 Gb/s per
//! 10 Gb/s server for 10%..100%).

use crate::engine::{CoflowInput, FlowInput};
use crate::net::Net;
use crate::FlowError;
use dctc_core::rng::{component_rng, streams};
use dctc_core::units::{Delta, SimTime};
use dctc_core::workload::{Cdf, PoissonSpec, WorkloadError};
use rand::Rng;
use serde::Deserialize;
use std::path::Path;

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
    let mut coflows = Vec::with_capacity(count);
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
        let mut mappers = Vec::with_capacity(m);
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
        let mut reducers = Vec::with_capacity(r);
        for _ in 0..r {
            let t = next("all reducers")?;
            let (p, mb) = t.split_once(':').ok_or_else(|| {
                bad(
                    file,
                    ln,
                    format!("reducer `{t}` must be `<port>:<megabytes>`"),
                )
            })?;
            let p = port(p, "reducer")?;
            let mb: f64 = mb
                .parse()
                .map_err(|_| bad(file, ln, format!("shuffle size `{mb}` is not a number")))?;
            if !(mb.is_finite() && mb >= 0.0) {
                return Err(bad(file, ln, format!("shuffle size `{mb}` must be >= 0")));
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

/// Reads (at most [`dctc_core::workload::MAX_INPUT_BYTES`]) and parses a trace file.
pub fn load_trace(path: &Path) -> Result<Trace, WorkloadError> {
    let text = dctc_core::workload::read_input_file(path).map_err(|e| WorkloadError::File {
        file: path.display().to_string(),
        reason: e.to_string(),
    })?;
    parse_trace(&path.display().to_string(), &text)
}

/// Where trace endpoints go.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// Every flow's sender and receiver uniform over the hosts (DBA §5.1).
    #[default]
    Random,
    /// Trace port `p` -> host `floor(p * hosts / ports)`.
    Ports,
}

/// Around which mean a trace coflow's flow sizes are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SizeModel {
    /// Every flow of a coflow around the coflow's total over its flow count (DBA §5.1).
    #[default]
    CoflowMean,
    /// The flows into one reducer around that reducer's bytes over the mapper count.
    ReducerMean,
}

/// How to turn a trace into coflows (`kind = "coflow-trace"`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Trace file, relative to the scenario.
    pub path: String,
    /// Offered load as a fraction of the hosts' total link rate (0.1..1 in DBA).
    #[serde(default = "one")]
    pub load: f64,
    /// Mean coefficient of variation of flow sizes within a coflow.
    #[serde(default = "half")]
    pub cv: f64,
    /// Around which mean flow sizes are drawn (default: the coflow's, as DBA §5.1).
    #[serde(default)]
    pub sizes: SizeModel,
    /// Endpoint placement.
    #[serde(default)]
    pub placement: Placement,
    /// Use only the first this many coflows (after `skip_coflows`), e.g. for short CI runs.
    #[serde(default)]
    pub max_coflows: Option<usize>,
    /// Skip this many coflows at the start of the trace.
    #[serde(default)]
    pub skip_coflows: usize,
    /// Narrow wide coflows for quick runs: keep at most this many mappers per coflow (the
    /// first ones); each reducer's bytes are spread over the kept mappers.
    #[serde(default)]
    pub max_mappers: Option<usize>,
    /// Keep at most this many reducers per coflow (the first ones), their sizes scaled up so
    /// the coflow's total is kept.
    #[serde(default)]
    pub max_reducers: Option<usize>,
    /// Multiply every shuffle size by this (e.g. 0.01 for a quick run); applied before the
    /// load scaling, so the load is kept.
    #[serde(default = "one")]
    pub size_scale: f64,
}

fn one() -> f64 {
    1.0
}
fn half() -> f64 {
    0.5
}

impl TraceSpec {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), FlowError> {
        if !(self.load.is_finite() && self.load > 0.0 && self.load <= 2.0) {
            return Err(FlowError::invalid(
                "load",
                format!("must be in (0, 2], got {}", self.load),
            ));
        }
        if !(self.cv.is_finite() && self.cv >= 0.0) {
            return Err(FlowError::invalid(
                "cv",
                format!("must be >= 0, got {}", self.cv),
            ));
        }
        if !(self.size_scale.is_finite() && self.size_scale > 0.0) {
            return Err(FlowError::invalid("size_scale", "must be > 0"));
        }
        if self.max_mappers == Some(0) || self.max_reducers == Some(0) {
            return Err(FlowError::invalid("max_mappers", "must be at least 1"));
        }
        if self.max_coflows == Some(0) {
            return Err(FlowError::invalid("max_coflows", "must be at least 1"));
        }
        Ok(())
    }

    /// The coflows for `net`.
    pub fn build(
        &self,
        trace: &Trace,
        net: &Net,
        seed: u64,
    ) -> Result<Vec<CoflowInput>, FlowError> {
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
                    if src == dst {
                        continue;
                    }
                    flows.push(FlowInput {
                        src,
                        dst,
                        bytes: bytes.max(1.0),
                    });
                }
            }
            if flows.is_empty() {
                continue;
            }
            raw_arrivals.push(c.arrival_ms * 1e-3);
            out.push(CoflowInput {
                id: c.id,
                arrival: SimTime::ZERO,
                flows,
            });
        }
        if out.is_empty() {
            return Err(FlowError::invalid(
                "path",
                "no coflow has a flow between two hosts",
            ));
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
        Ok(out)
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

/// Synthetic coflows (`kind = "synthetic-coflows"`): Poisson arrivals at a load, width
/// (flows per coflow) uniform in `[width_min, width_max]`, flow sizes from a CDF, endpoints
/// uniform over the hosts.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyntheticSpec {
    /// Number of coflows.
    pub coflows: usize,
    /// Offered load (fraction of the hosts' total link rate).
    pub load: f64,
    /// Fewest flows per coflow.
    pub width_min: usize,
    /// Most flows per coflow.
    pub width_max: usize,
    /// Flow-size CDF: a built-in name (`websearch`, `datamining`, `fb-web`, ...) or a file.
    pub cdf: String,
}

impl SyntheticSpec {
    /// The coflows for `net`.
    pub fn build(
        &self,
        net: &Net,
        base_dir: &Path,
        seed: u64,
    ) -> Result<Vec<CoflowInput>, FlowError> {
        if self.coflows == 0 {
            return Err(FlowError::invalid("coflows", "must be at least 1"));
        }
        if self.width_min == 0 || self.width_max < self.width_min {
            return Err(FlowError::invalid(
                "width_min",
                "need 1 <= width_min <= width_max",
            ));
        }
        if !(self.load.is_finite() && self.load > 0.0) {
            return Err(FlowError::invalid("load", "must be > 0"));
        }
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
