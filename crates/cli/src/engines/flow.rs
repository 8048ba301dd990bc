//! The flow engine's scenario glue: parses `[flow]`, `[[schemes]]`, `[[workload]]` and
//! `[output]`, runs every scheme (at every load of a sweep) on the same coflows, and turns the
//! runs into `summary.json`, `coflows.csv` / `flows.csv`, a console table and report sections.
//!
//! ```toml
//! engine = "flow"
//! [fabric]
//! kind = "preset"
//! name = "dba-144"
//! [flow]
//! routing = "ecmp"           # ecmp | hedera | conga | drill
//! loads = [0.5, 1.0]         # optional: rerun the workload at each load
//! mode = "run"               # or "convergence" (DBA Fig. 7)
//! [[workload]]
//! kind = "coflow-trace"      # or "synthetic-coflows", "poisson"
//! path = "../../data/coflow/FB2010-1Hr-150-0.txt"
//! load = 1.0
//! cv = 0.5
//! [[schemes]]
//! name = "dba"               # see `dctc list`
//! epsilon = 0.5
//! routing = "drill"          # optional per-scheme override of [flow] routing
//! ```
//!
//! Summary: `schemes.<label>.<metric>` for one load, `schemes.<label>.load_<pct>.<metric>`
//! for a sweep (`load_100` = load 1.0); `relative.<a>_vs_<b>.avg_cct` (= a / b - 1; likewise
//! `p99_cct`, `throughput`) per load (`relative.load_<pct>....` in a sweep).

use super::engine::Engine;
use crate::limits;
use crate::output::RunOutput;
use crate::progress::Progress;
use crate::records::Records;
use crate::scenario::{Scenario, ScenarioError};
use anyhow::Result;
use dctc_core::config::OutputSpec;
use dctc_core::error::KeyError;
use dctc_core::rng::mix64;
use dctc_core::units::{Delta, SimTime};
use dctc_core::workload::MAX_FLOW_BYTES;
use dctc_flow::convergence::{convergence, Convergence};
use dctc_flow::metrics::CctSummary;
use dctc_flow::policy::ParseTable;
use dctc_flow::settings::{FlowKeys, FlowSettings, Mode};
use dctc_flow::workload::{FlowWorkload, WORKLOAD_KINDS};
use dctc_flow::{
    make_policy, CoflowInput, Net, PolicyConfig, RoutingMode, RunResult, SimConfig, Simulator,
};
use dctc_report::{Cell, Chart, Report, Section, Series, Table};
use serde_json::{json, Map, Value};

/// Schemes this engine runs, for `dctc list`.
pub(crate) const SCHEMES: &[(&str, &str)] = dctc_flow::POLICIES;

/// Flow-level routings, for `dctc list`.
pub(crate) const ROUTINGS: &[(&str, &str)] = dctc_flow::ROUTINGS;

/// The `[output]` keys this engine reads: `flows_csv` (write `flows.csv`, default true; the
/// full trace has 706,397 flows per run), `cdf_points` (points per CCT CDF, default 100) and
/// the objective report's three (`crate::objective`).
pub(crate) const OUTPUT_KEYS: &[&str] = &[
    "flows_csv",
    "cdf_points",
    "objective_sample_us",
    "objective_utility",
    "objective_alpha",
];

/// The keys of a `[[schemes]]` table that `plan` takes out before the policy reads the rest
/// (its own keys: `crate::keys` adds each policy's). `plan` reads these three by name; the
/// key-reference test checks that each is accepted and that no other is.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
pub(crate) struct SchemeKeys {
    /// A registered policy (`dctc list`).
    name: String,
    /// Name in outputs (default: `name`).
    label: Option<String>,
    /// This scheme's routing, overriding `[flow].routing`: `ecmp`, `hedera`, `conga` or
    /// `drill`.
    routing: Option<String>,
}

/// A `[[schemes]]` table's policy keys (`name`, `label` and `routing` taken out), read with
/// the scenario's errors (paths relative to the table; the caller prefixes its place).
struct PolicyTable<'a> {
    value: &'a toml::Value,
}

impl ParseTable for PolicyTable<'_> {
    fn keys(&self) -> Vec<String> {
        self.value
            .as_table()
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default()
    }

    fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, KeyError> {
        crate::scenario::parse_value(self.value, "", "").map_err(|e| KeyError::new(e.key, e.reason))
    }
}

struct Scheme {
    label: String,
    cfg: PolicyConfig,
    routing: RoutingMode,
}

pub(crate) struct Plan {
    net: Net,
    schemes: Vec<Scheme>,
    workloads: Vec<FlowWorkload>,
    loads: Vec<Option<f64>>,
    settings: FlowSettings,
    output: OutputSpec,
    /// `output.objective_*`: the objective report, when on.
    objective: Option<crate::objective::ObjectivePlan>,
    /// A convergence run's results, one per scheme (computed while checking: whether every
    /// flow lasts the window is known only by running the iterations).
    convergence: Option<Vec<Convergence>>,
}

fn plan(s: &Scenario) -> Result<Plan, ScenarioError> {
    let keys: FlowKeys = s.parse(&s.settings, "flow")?;
    let settings = FlowSettings::new(&keys).map_err(|e| s.key_error(e.at("flow")))?;
    let output = s.output_spec(OUTPUT_KEYS)?;
    if let Some(n) = output.cdf_points {
        if n as u64 > crate::limits::MAX_SAMPLES {
            return Err(s.error(
                "output.cdf_points",
                format!(
                    "{n} is more than the {} points dctc records",
                    crate::limits::MAX_SAMPLES
                ),
            ));
        }
    }
    let topo = s.build_fabric()?;
    let net = Net::new(topo).map_err(|e| s.error("fabric", e.to_string()))?;
    let convergence = settings.convergence();
    // A run's length is known only by estimate: each load's is checked with the coflows.
    let objective = crate::objective::plan(s, &output, None)?;
    if objective.is_some() && convergence {
        return Err(s.error(
            "output.objective_sample_us",
            "the objective report scores a run's flows; mode = \"convergence\" runs DBA's \
             iterations without a run (its convergence.csv is the comparison with the optimum)",
        ));
    }
    if s.schemes.is_empty() {
        return Err(s.error(
            "schemes",
            "list at least one [[schemes]] table (e.g. name = \"dba\")",
        ));
    }
    let mut schemes: Vec<Scheme> = Vec::new();
    for (i, v) in s.schemes.iter().enumerate() {
        let key = format!("schemes[{i}]");
        let mut table = v.clone();
        let Some(keys) = table.as_table_mut() else {
            return Err(s.error(&key, "must be a table"));
        };
        let mut string_key = |name: &str| match keys.remove(name) {
            Some(toml::Value::String(x)) => Ok(Some(x)),
            Some(_) => Err(s.error(&format!("{key}.{name}"), "must be a string")),
            None => Ok(None),
        };
        let routing = match string_key("routing")? {
            Some(r) => (settings.routing_named(&r)).map_err(|e| s.key_error(e.at(&key)))?,
            None => settings.routing.clone(),
        };
        let Some(name) = string_key("name")? else {
            return Err(s.error(&key, "missing field `name`"));
        };
        let label = string_key("label")?;
        let cfg = PolicyConfig::parse(&name, label, &PolicyTable { value: &table })
            .map_err(|e| flow_error(s, &key, e))?;
        make_policy(&cfg, &net, &[]).map_err(|e| flow_error(s, &key, e))?;
        if convergence && cfg.name() != "dba" {
            return Err(s.error(
                &format!("{key}.name"),
                "convergence mode runs policy `dba` only",
            ));
        }
        let label = cfg.label();
        if schemes.iter().any(|x| x.label == label) {
            return Err(s.error(
                &format!("{key}.label"),
                format!("label `{label}` is used twice; give each scheme its own label"),
            ));
        }
        schemes.push(Scheme {
            label,
            cfg,
            routing,
        });
    }
    if s.workloads.is_empty() {
        return Err(s.error("workload", "list at least one [[workload]] table"));
    }
    let mut workloads = Vec::new();
    for (i, spec) in s.workload_specs(WORKLOAD_KINDS)?.iter().enumerate() {
        use dctc_core::config::WorkloadSpec as W;
        if let W::Poisson(dctc_core::workload::PoissonSpec { load, .. })
        | W::CoflowTrace(dctc_core::workload::coflow::TraceSpec { load, .. })
        | W::SyntheticCoflows(dctc_core::workload::coflow::SyntheticSpec { load, .. }) = spec
        {
            crate::warn_load(s, &format!("workload[{i}].load"), *load);
        }
        let w = FlowWorkload::new(spec, &s.base_dir)
            .map_err(|e| s.key_error(e.at(&format!("workload[{i}]"))))?;
        workloads.push(w);
    }
    // Bound what the workloads will generate, without generating it: Poisson arrivals are
    // counted at every load the run sweeps, synthetic coflows by their widest size.
    let until = SimTime::from_delta(s.duration);
    for (i, w) in workloads.iter().enumerate() {
        w.check_size(&net, &s.base_dir, until, &settings.loads)
            .map_err(|e| s.key_error(e.at(&format!("workload[{i}]"))))?;
    }
    for (k, &l) in settings.loads.iter().enumerate() {
        crate::warn_load(s, &format!("flow.loads[{k}]"), l);
    }
    let loads = if settings.loads.is_empty() {
        vec![None]
    } else {
        settings.loads.iter().map(|&l| Some(l)).collect()
    };
    let mut plan = Plan {
        net,
        schemes,
        workloads,
        loads,
        settings,
        output,
        objective,
        convergence: None,
    };
    // Everything the run draws is drawn here too, and dropped: a workload, a load or a scheme
    // the run would refuse is refused when the scenario is checked. The run draws it again
    // (the same function, the same seeds).
    if convergence {
        plan.convergence = Some(converge(s, &plan)?);
    } else {
        for &load in &plan.loads {
            let (coflows, _) = build_coflows(s, &plan, load)?;
            check_run(s, &plan, &coflows, load)?;
        }
    }
    Ok(plan)
}

/// The policy of every scheme on `coflows` (as the run builds it), and the run's periodic
/// work bounded before it starts, over an estimate of how long the coflows keep the fabric
/// busy: Hedera's rescheduling rounds (one per period while flows are active, at most
/// [`limits::MAX_STEPS`]), a policy's ticks (DBA's per-RTT iterations, which go on while
/// its rates have not converged: at most [`limits::MAX_TICKS`]) and the objective report's
/// solves (at most [`limits::MAX_OBJECTIVE_SOLVES`]; a run that outlasts the estimate stops
/// recording there, and says so).
fn check_run(
    s: &Scenario,
    p: &Plan,
    coflows: &[CoflowInput],
    load: Option<f64>,
) -> Result<(), ScenarioError> {
    let sizes = coflow_sizes(coflows);
    let span = busy_estimate(&p.net, coflows);
    let at_load = match load {
        Some(l) => format!(" at load {l:?}"),
        None => String::new(),
    };
    if let Some(o) = &p.objective {
        crate::objective::check_span(s, o.interval, span)
            .map_err(|e| estimated(e, span, &at_load))?;
    }
    for (i, sc) in p.schemes.iter().enumerate() {
        let key = format!("schemes[{i}]");
        let policy = make_policy(&sc.cfg, &p.net, &sizes).map_err(|e| flow_error(s, &key, e))?;
        if let Some(period) = policy.tick_period() {
            let key = match &sc.cfg.keys {
                dctc_flow::PolicyKeys::Dba(k) if k.rtt_us.is_some() => format!("{key}.rtt_us"),
                _ => key.clone(),
            };
            limits::check_periodic(s, &key, period, span, limits::MAX_TICKS)
                .map_err(|e| estimated(e, span, &at_load))?;
        }
        if let RoutingMode::Hedera { period, .. } = sc.routing {
            let key = if s.schemes[i].get("routing").is_some() {
                format!("{key}.routing")
            } else {
                "flow.hedera_period_ms".into()
            };
            limits::check_steps(s, &key, period, span).map_err(|e| estimated(e, span, &at_load))?;
        }
    }
    Ok(())
}

/// A step-count error of [`limits::check_steps`] over [`busy_estimate`], saying so.
fn estimated(mut e: ScenarioError, span: Delta, at_load: &str) -> ScenarioError {
    e.reason = format!(
        "{} (the coflows{at_load} keep the fabric busy for about {} by the run's estimate: the last arrival, then their bytes over the hosts' links)",
        e.reason,
        dctc_core::units::checked::human_span(span)
    );
    e
}

/// Bytes of each coflow, as the policies see them.
fn coflow_sizes(coflows: &[CoflowInput]) -> Vec<f64> {
    coflows
        .iter()
        .map(|c| c.flows.iter().map(|f| f.bytes).sum())
        .collect()
}

/// How long `coflows` keep the fabric busy, estimated before running: the last arrival, then
/// the longer of all their bytes over every host's up-link together and the largest flow
/// alone over its sender's link (the least any work-conserving policy can take).
fn busy_estimate(net: &Net, coflows: &[CoflowInput]) -> Delta {
    let last = coflows
        .iter()
        .map(|c| c.arrival)
        .max()
        .unwrap_or(SimTime::ZERO);
    let up = |h: u32| net.cap[net.host_up[h as usize] as usize];
    let total_cap: f64 = (0..net.host_up.len() as u32).map(up).sum();
    let (mut bytes, mut alone) = (0.0f64, 0.0f64);
    for f in coflows.iter().flat_map(|c| &c.flows) {
        bytes += f.bytes;
        alone = alone.max(f.bytes * 8.0 / up(f.src));
    }
    let drain = (bytes * 8.0 / total_cap.max(1.0)).max(alone);
    last.saturating_since(SimTime::ZERO)
        .saturating_add(Delta::from_secs_f64(drain))
}

/// DBA's convergence for every scheme (each runs policy `dba`), on the first load's
/// coflows with their sizes multiplied so that none ends inside the window, after bounding
/// what the iterations record.
fn converge(s: &Scenario, p: &Plan) -> Result<Vec<Convergence>, ScenarioError> {
    let Mode::Convergence {
        iterations,
        within,
        size_factor: factor,
        ..
    } = p.settings.mode
    else {
        unreachable!("converge runs convergence scenarios")
    };
    if iterations as u64 > limits::MAX_STEPS {
        return Err(s.error(
            "flow.iterations",
            format!(
                "{iterations} is more than the {} iterations dctc runs",
                limits::MAX_STEPS
            ),
        ));
    }
    let (mut coflows, _) = build_coflows(s, p, p.loads[0])?;
    let flows: u64 = coflows.iter().map(|c| c.flows.len() as u64).sum();
    // convergence.csv has a row per scheme, iteration and flow.
    let rows = (iterations as u64 + 1)
        .saturating_mul(flows)
        .saturating_mul(p.schemes.len() as u64);
    if rows > limits::MAX_SAMPLES {
        return Err(s.error(
            "flow.iterations",
            format!(
                "{iterations} iterations of {flows} flows for {} scheme(s) give {rows} rates, more than the {} dctc records; run fewer iterations or flows",
                p.schemes.len(),
                limits::MAX_SAMPLES
            ),
        ));
    }
    for c in &mut coflows {
        for f in &mut c.flows {
            f.bytes *= factor;
        }
    }
    p.schemes
        .iter()
        .enumerate()
        .map(|(i, sc)| {
            convergence(&p.net, coflows.clone(), &sc.cfg, iterations, within).map_err(|e| {
                match e {
                    // Flows that end inside the window: the workload (scaled) is too small.
                    dctc_flow::FlowError::Invalid(e) if e.path == "workload" => s.error(
                        "flow.size_factor",
                        format!("{} (scheme `{}`)", e.reason, sc.label),
                    ),
                    other => flow_error(s, &format!("schemes[{i}]"), other),
                }
            })
        })
        .collect()
}

/// A flow-crate error about the table at `key`: an invalid value keeps its own path below it.
fn flow_error(s: &Scenario, key: &str, e: dctc_flow::FlowError) -> ScenarioError {
    match e {
        dctc_flow::FlowError::Invalid(e) => s.key_error(e.at(key)),
        other => s.error(key, other.to_string()),
    }
}

/// What a workload could not carry: `(workload key, flows dropped, coflows dropped)`.
pub(crate) type Dropped = Vec<(String, usize, usize)>;

/// The warning lines for dropped flows, one per workload that lost some.
fn dropped_lines(d: &Dropped) -> String {
    d.iter()
        .map(|(key, flows, coflows)| {
            format!(
                "warning: {key}: {flows} flows ({coflows} whole coflows) dropped: their reducers have 0 bytes\n"
            )
        })
        .collect()
}

/// The coflows of every workload at `load` (when set), renumbered so ids are unique, and what
/// each workload dropped (only workloads that dropped something are listed).
fn build_coflows(
    s: &Scenario,
    p: &Plan,
    load: Option<f64>,
) -> Result<(Vec<CoflowInput>, Dropped), ScenarioError> {
    let mut all = Vec::new();
    let mut dropped = Dropped::new();
    let until = SimTime::from_delta(s.duration);
    for (i, w) in p.workloads.iter().enumerate() {
        let key = format!("workload[{i}]");
        let seed = mix64(s.seed ^ i as u64);
        let (mut cf, dropped_flows, dropped_coflows) = w
            .coflows(&p.net, &s.base_dir, until, load, seed)
            .map_err(|e| flow_error(s, &key, e))?;
        if let Some(f) = cf
            .iter()
            .flat_map(|c| &c.flows)
            .find(|f| f.bytes.is_nan() || f.bytes > MAX_FLOW_BYTES as f64)
        {
            return Err(s.error(
                &key,
                format!(
                    "draws a flow of {:e} bytes, more than the {} a flow may carry",
                    f.bytes,
                    dctc_core::units::human_bytes(MAX_FLOW_BYTES)
                ),
            ));
        }
        let last = cf.iter().map(|c| c.arrival).max().unwrap_or(SimTime::ZERO);
        if last > SimTime::from_delta(Delta::MAX_SCENARIO) {
            let (at, what) = match load {
                Some(l) => ("flow.loads".to_string(), format!("load {l:?}")),
                None => (format!("{key}.load"), "its load".to_string()),
            };
            return Err(s.error(
                &at,
                format!(
                    "{key}: {what} spreads the arrivals over {}, beyond the one day of simulated time dctc runs; raise the load",
                    if last == SimTime::NEVER {
                        "more than 200 days".to_string()
                    } else {
                        dctc_core::units::checked::human_span(last.saturating_since(SimTime::ZERO))
                    }
                ),
            ));
        }
        if dropped_flows > 0 {
            dropped.push((key.clone(), dropped_flows, dropped_coflows));
        }
        let base = all.len() as u32;
        if p.workloads.len() > 1 {
            for (k, c) in cf.iter_mut().enumerate() {
                c.id = base + k as u32;
            }
        }
        all.extend(cf);
    }
    if all.is_empty() {
        return Err(s.error(
            "workload",
            "the workloads produce no coflows (raise the load or duration_ms)",
        ));
    }
    Ok((all, dropped))
}

pub(crate) struct Run {
    label: String,
    load: Option<f64>,
    result: RunResult,
    /// The objective report of this run, when on.
    objective: Option<crate::objective::Evaluated>,
    summary: CctSummary,
    /// Throughput over what the hosts can send together (`host_capacity_gbps`).
    utilization: f64,
    wall_s: f64,
}

/// What the fabric's hosts can send together, Gb/s: the sum of their access-link rates (the
/// bisection of a non-blocking fabric), the denominator of a run's `utilization`.
fn host_capacity_gbps(net: &Net) -> f64 {
    let topo = &net.topo;
    topo.hosts()
        .iter()
        .filter_map(|&h| topo.host_rate(h))
        .map(|r| r.bps_f64() / 1e9)
        .sum()
}

fn load_key(l: f64) -> String {
    format!("load_{}", (l * 100.0).round() as i64)
}

/// The flow engine.
pub(crate) struct Flow;

/// What the flow engine's runs produced.
pub(crate) enum Runs {
    /// Every scheme at every load, and the flows the workloads could not carry.
    Loads {
        /// The runs, load by load, scheme by scheme.
        runs: Vec<Run>,
        /// What the workloads dropped.
        dropped: Dropped,
    },
    /// DBA's convergence, per scheme.
    Convergence(Vec<Convergence>),
}

impl Engine for Flow {
    type Plan = Plan;
    type Runs = Runs;

    fn plan(s: &Scenario, _generate: bool) -> Result<Plan, ScenarioError> {
        plan(s)
    }

    fn execute(s: &Scenario, p: &Plan, progress: &Progress) -> Result<Runs> {
        if p.settings.convergence() {
            return Ok(Runs::Convergence(convergence_runs(s, p)?));
        }
        // Arrivals stop at the workloads' end; every run goes on until its last coflow ends.
        let until = SimTime::NEVER;
        let mut runs = Vec::new();
        let mut dropped = Dropped::new();
        for &load in &p.loads {
            let (coflows, d) = build_coflows(s, p, load)?;
            if dropped.is_empty() {
                dropped = d;
            }
            let sizes: Vec<f64> = coflows
                .iter()
                .map(|c| c.flows.iter().map(|f| f.bytes).sum())
                .collect();
            let last_arrival = coflows
                .iter()
                .map(|c| c.arrival)
                .max()
                .unwrap_or(SimTime::ZERO);
            for sc in &p.schemes {
                let policy = make_policy(&sc.cfg, &p.net, &sizes)
                    .map_err(|e| s.error("schemes", e.to_string()))?;
                let cfg = SimConfig {
                    routing: sc.routing.clone(),
                    seed: s.seed,
                    until,
                    audit: false,
                };
                let name = match load {
                    Some(l) => format!("{} @ {:.0}%", sc.label, l * 100.0),
                    None => sc.label.clone(),
                };
                progress.begin(&name, last_arrival.ps().max(1));
                let t0 = std::time::Instant::now();
                let mut sim = Simulator::new(&p.net, coflows.clone(), policy, cfg);
                if let Some(o) = &p.objective {
                    sim.record_objective(o.interval, limits::MAX_OBJECTIVE_SOLVES);
                }
                let result = sim.run(|t| progress.set(t.ps()));
                progress.finish();
                let wall_s = t0.elapsed().as_secs_f64();
                // Fluid capacities: a link carries its full rate.
                let objective = p.objective.as_ref().zip(sim.take_objective()).map(
                    |(o, (trace, truncated))| {
                        let mut e = crate::objective::evaluate_run(
                            o, &sc.label, &trace, &p.net.cap, wall_s,
                        );
                        e.load = load;
                        e.truncated = truncated;
                        e
                    },
                );
                let summary = result.summary();
                let capacity = host_capacity_gbps(&p.net);
                runs.push(Run {
                    label: sc.label.clone(),
                    load,
                    objective,
                    result,
                    utilization: if capacity > 0.0 {
                        summary.throughput_gbps / capacity
                    } else {
                        0.0
                    },
                    summary,
                    wall_s,
                });
            }
        }
        Ok(Runs::Loads { runs, dropped })
    }

    fn render(s: &Scenario, p: &Plan, runs: Runs) -> RunOutput {
        let (runs, dropped) = match runs {
            Runs::Loads { runs, dropped } => (runs, dropped),
            Runs::Convergence(c) => return render_convergence(s, p, &c),
        };
        let mut out = render(s, p, &runs);
        if !dropped.is_empty() {
            out.console = dropped_lines(&dropped) + &out.console;
            if let Value::Object(m) = &mut out.summary {
                let v: Vec<Value> = dropped
                .iter()
                .map(|(k, f, c)| json!({"workload": k, "flows": f, "coflows": c, "reason": "reducer has 0 bytes"}))
                .collect();
                m.insert("dropped".into(), Value::Array(v));
            }
        }
        out
    }
}

/// A statistic over `n` finished items: `null` when there are none (not 0.0).
fn stat_or_null(n: usize, v: f64) -> Value {
    if n == 0 {
        Value::Null
    } else {
        json!(v)
    }
}

fn summary_json(r: &Run) -> Value {
    let x = &r.summary;
    let done_flows = r.result.flows.iter().filter(|f| f.fct_s.is_some()).count();
    let mut m = json!({
        "coflows": x.coflows,
        "finished": x.finished,
        "avg_cct_s": stat_or_null(x.finished, x.avg_cct_s),
        "p50_cct_s": stat_or_null(x.finished, x.p50_cct_s),
        "p99_cct_s": stat_or_null(x.finished, x.p99_cct_s),
        "max_cct_s": stat_or_null(x.finished, x.max_cct_s),
        "avg_slowdown": stat_or_null(x.finished, x.avg_slowdown),
        "avg_fct_s": stat_or_null(done_flows, x.avg_fct_s),
        "p99_fct_s": stat_or_null(done_flows, x.p99_fct_s),
        "throughput_gbps": x.throughput_gbps,
        "utilization": r.utilization,
        "makespan_s": x.makespan_s,
        "flows": r.result.flows.len(),
        "events": r.result.events,
        "allocations": r.result.allocations,
        "mean_component_flows": if r.result.allocations > 0 { r.result.allocated_flows as f64 / r.result.allocations as f64 } else { 0.0 },
        "ticks": r.result.ticks,
        "routing": r.result.routing,
        "policy": r.result.policy,
    });
    if let Value::Object(o) = &mut m {
        for (k, v) in &r.result.extra {
            o.insert(k.clone(), json!(v));
        }
    }
    m
}

fn ratio(a: f64, b: f64) -> Value {
    if b > 0.0 {
        json!(a / b - 1.0)
    } else {
        Value::Null
    }
}

fn relative(runs: &[&Run]) -> Value {
    let mut m = Map::new();
    for a in runs {
        for b in runs {
            if a.label == b.label {
                continue;
            }
            m.insert(
                format!("{}_vs_{}", a.label, b.label),
                json!({
                    "avg_cct": ratio(a.summary.avg_cct_s, b.summary.avg_cct_s),
                    "p99_cct": ratio(a.summary.p99_cct_s, b.summary.p99_cct_s),
                    "throughput": ratio(a.summary.throughput_gbps, b.summary.throughput_gbps),
                }),
            );
        }
    }
    Value::Object(m)
}

fn render(s: &Scenario, p: &Plan, runs: &[Run]) -> RunOutput {
    let table = cct_table(runs);
    let mut console = table.to_text();
    let mut report = Report::new(
        format!("{} (flow engine)", s.name),
        format!(
            "{} — fabric {}, {} hosts, base RTT {:.1} us, seed {}",
            s.description,
            p.net.topo.name,
            p.net.hosts(),
            p.net.rtt.as_us_f64(),
            s.seed
        ),
    );
    report.push_section(cct_section(p, runs, table));
    let mut tables = tables(p, runs);
    if let Some(o) = &p.objective {
        let evals: Vec<&crate::objective::Evaluated> =
            runs.iter().filter_map(|r| r.objective.as_ref()).collect();
        console.push('\n');
        console.push_str(&crate::objective::console(o, &evals));
        report.push_section(crate::objective::section(o, &evals));
        tables.push(("objective.csv".to_string(), crate::objective::table(&evals)));
    }
    RunOutput {
        summary: summary(p, runs),
        tables,
        report,
        console,
        files: Vec::new(),
    }
}

/// Whether the scenario sweeps loads (then the summary and charts are keyed by load).
fn is_sweep(p: &Plan) -> bool {
    p.loads.len() > 1 || p.loads[0].is_some()
}

/// `summary.json`: per scheme (per load in a sweep) its statistics, and every pair's
/// relative CCT and throughput.
fn summary(p: &Plan, runs: &[Run]) -> Value {
    let sweep = is_sweep(p);
    let mut schemes = Map::new();
    let mut rel = Map::new();
    let mut diff = Map::new();
    let run_json = |r: &Run| {
        let mut v = summary_json(r);
        if let (Some(o), Some(e)) = (&p.objective, &r.objective) {
            v["objective"] = crate::objective::summary_json(o, e);
        }
        v
    };
    for sc in &p.schemes {
        let mine: Vec<&Run> = runs.iter().filter(|r| r.label == sc.label).collect();
        if sweep {
            let mut by = Map::new();
            for r in &mine {
                by.insert(load_key(r.load.unwrap_or(1.0)), run_json(r));
            }
            schemes.insert(sc.label.clone(), Value::Object(by));
        } else if let Some(r) = mine.first() {
            schemes.insert(sc.label.clone(), run_json(r));
        }
    }
    for &load in &p.loads {
        let at: Vec<&Run> = runs.iter().filter(|r| r.load == load).collect();
        let evals: Vec<&crate::objective::Evaluated> =
            at.iter().filter_map(|r| r.objective.as_ref()).collect();
        let pairs = [
            (&mut rel, relative(&at)),
            (&mut diff, crate::objective::differences(&evals)),
        ];
        for (into, v) in pairs {
            match load {
                Some(l) => {
                    into.insert(load_key(l), v);
                }
                None => {
                    if let Value::Object(o) = v {
                        into.extend(o);
                    }
                }
            }
        }
    }
    let mut out = json!({
        "engine": "flow",
        "fabric": p.net.topo.name,
        "hosts": p.net.hosts(),
        "base_rtt_us": p.net.rtt.as_us_f64(),
        "loads": p.loads.iter().map(|l| l.map_or(Value::Null, |x| json!(x))).collect::<Vec<_>>(),
        "schemes": Value::Object(schemes),
        "relative": Value::Object(rel),
    });
    if p.objective.is_some() {
        out["objective_difference"] = Value::Object(diff);
    }
    out
}

/// `coflows.csv`, and `flows.csv` unless `[output] flows_csv = false`.
fn tables(p: &Plan, runs: &[Run]) -> Vec<(String, Records)> {
    let rows: Vec<_> = runs
        .iter()
        .flat_map(|r| r.result.coflows.iter().map(move |c| (r, c)))
        .collect();
    let coflows = Records::new()
        .text("scheme", rows.iter().map(|(r, _)| r.label.as_str()))
        .opt_float("load", rows.iter().map(|(r, _)| r.load))
        .uint("id", rows.iter().map(|(_, c)| u64::from(c.id)))
        .float("arrival_s", rows.iter().map(|(_, c)| c.arrival_s))
        .opt_float("finish_s", rows.iter().map(|(_, c)| c.finish_s))
        .opt_float("cct_s", rows.iter().map(|(_, c)| c.cct_s))
        .float("ideal_s", rows.iter().map(|(_, c)| c.ideal_s))
        .uint("flows", rows.iter().map(|(_, c)| u64::from(c.flows)))
        .float("bytes", rows.iter().map(|(_, c)| c.bytes));
    let mut tables = vec![("coflows.csv".to_string(), coflows)];
    if p.output.flows_csv.unwrap_or(true) {
        let rows: Vec<_> = runs
            .iter()
            .flat_map(|r| r.result.flows.iter().map(move |f| (r, f)))
            .collect();
        let flows = Records::new()
            .text("scheme", rows.iter().map(|(r, _)| r.label.as_str()))
            .opt_float("load", rows.iter().map(|(r, _)| r.load))
            .uint("id", rows.iter().map(|(_, f)| u64::from(f.id)))
            .uint("coflow", rows.iter().map(|(_, f)| u64::from(f.coflow)))
            .uint("src", rows.iter().map(|(_, f)| u64::from(f.src)))
            .uint("dst", rows.iter().map(|(_, f)| u64::from(f.dst)))
            .float("bytes", rows.iter().map(|(_, f)| f.bytes))
            .float("start_s", rows.iter().map(|(_, f)| f.start_s))
            .opt_float("finish_s", rows.iter().map(|(_, f)| f.finish_s))
            .opt_float("fct_s", rows.iter().map(|(_, f)| f.fct_s))
            .float("ideal_s", rows.iter().map(|(_, f)| f.ideal_s));
        tables.push(("flows.csv".to_string(), flows));
    }
    tables
}

/// The console's and the report's table: one row per run.
fn cct_table(runs: &[Run]) -> Table {
    let mut table = Table::new(
        "Coflow completion times",
        [
            "scheme",
            "load",
            "routing",
            "coflows",
            "done",
            "avg CCT s",
            "p50 s",
            "p99 s",
            "avg slowdown",
            "throughput Gb/s",
            "utilization",
            "events",
            crate::output::WALL_COLUMN,
        ],
    );
    for r in runs {
        table.push_row(vec![
            Cell::Text(r.label.clone()),
            r.load.map_or(Cell::Text("-".into()), Cell::Num),
            Cell::Text(r.result.routing.clone()),
            Cell::Num(r.summary.coflows as f64),
            Cell::Num(r.summary.finished as f64),
            Cell::Num(r.summary.avg_cct_s),
            Cell::Num(r.summary.p50_cct_s),
            Cell::Num(r.summary.p99_cct_s),
            Cell::Num(r.summary.avg_slowdown),
            Cell::Num(r.summary.throughput_gbps),
            Cell::Num(r.utilization),
            Cell::Num(r.result.events as f64),
            Cell::Num(r.wall_s),
        ]);
    }
    table
}

/// The report's one section: the table, the CCT and throughput curves over load in a sweep,
/// and CCT CDFs at up to three loads.
fn cct_section(p: &Plan, runs: &[Run], table: Table) -> Section {
    let mut sec = Section::new("Coflow completion times").with_table(table);
    if is_sweep(p) {
        let mut avg = Chart::line(
            "Average CCT vs load",
            "load (fraction of capacity)",
            "average CCT (s)",
        );
        let mut p99 = Chart::line(
            "99th percentile CCT vs load",
            "load (fraction of capacity)",
            "p99 CCT (s)",
        );
        let mut thr = Chart::line(
            "Throughput vs load",
            "load (fraction of capacity)",
            "bytes / makespan (Gb/s)",
        );
        for sc in &p.schemes {
            let pts = |f: &dyn Fn(&Run) -> f64| -> Vec<(f64, f64)> {
                runs.iter()
                    .filter(|r| r.label == sc.label)
                    .map(|r| (r.load.unwrap_or(1.0), f(r)))
                    .collect()
            };
            avg.push_series(Series::new(&sc.label, pts(&|r| r.summary.avg_cct_s)));
            p99.push_series(Series::new(&sc.label, pts(&|r| r.summary.p99_cct_s)));
            thr.push_series(Series::new(&sc.label, pts(&|r| r.summary.throughput_gbps)));
        }
        sec.push_chart(avg);
        sec.push_chart(p99);
        sec.push_chart(thr);
    }
    let cdf_points = p.output.cdf_points.unwrap_or(100);
    let cdf_loads: Vec<Option<f64>> = if p.loads.len() <= 3 {
        p.loads.clone()
    } else {
        vec![
            p.loads[0],
            p.loads[p.loads.len() / 2],
            p.loads[p.loads.len() - 1],
        ]
    };
    for load in cdf_loads {
        let title = match load {
            Some(l) => format!("CCT CDF at {:.0}% load", l * 100.0),
            None => "CCT CDF".to_string(),
        };
        let mut cdf = Chart::step(title, "CCT (s)", "fraction of coflows").with_log(true, false);
        for r in runs.iter().filter(|r| r.load == load) {
            let pts: Vec<(f64, f64)> = r
                .result
                .cct_cdf(cdf_points)
                .into_iter()
                .filter(|x| x.0 > 0.0)
                .collect();
            cdf.push_series(Series::new(&r.label, pts));
        }
        sec.push_chart(cdf);
    }
    sec.push_paragraph(
        "CCT: arrival of a coflow's flows to the last byte of its last flow (fluid model, no \
         propagation delay). Slowdown: CCT over the coflow's time alone on the fabric. \
         Throughput: bytes delivered / (last completion - first arrival).",
    );
    sec
}

/// DBA's convergence for every scheme, as the plan computed it (see [`converge`]), after
/// saying what the workloads dropped.
fn convergence_runs(s: &Scenario, p: &Plan) -> Result<Vec<Convergence>> {
    let (_, dropped) = build_coflows(s, p, p.loads[0])?;
    if !dropped.is_empty() {
        eprint!("{}", dropped_lines(&dropped));
    }
    Ok(p.convergence
        .clone()
        .expect("a convergence plan holds its results"))
}

/// The output of a convergence run: per scheme, the RTTs until each flow settles near the
/// optimum, and the tracked flows' rates per iteration.
fn render_convergence(s: &Scenario, p: &Plan, runs: &[Convergence]) -> RunOutput {
    let Mode::Convergence {
        iterations,
        within,
        track,
        ..
    } = p.settings.mode
    else {
        unreachable!("render_convergence renders convergence scenarios")
    };
    let mut schemes = Map::new();
    let mut report = Report::new(
        format!("{} (flow engine, convergence)", s.name),
        format!(
            "{} — fabric {}, base RTT {:.1} us",
            s.description,
            p.net.topo.name,
            p.net.rtt.as_us_f64()
        ),
    );
    let mut table = Table::new(
        "RTTs until a flow's rate stays within the band around the optimum of problem (2)",
        [
            "scheme",
            "flows",
            "settled",
            "median RTTs",
            "p90 RTTs",
            "max RTTs",
        ],
    );
    for (sc, c) in p.schemes.iter().zip(runs) {
        let n = c.ideal.len();
        let mut settled: Vec<f64> = c
            .settle
            .iter()
            .filter_map(|x| x.map(|v| v as f64))
            .collect();
        settled.sort_by(f64::total_cmp);
        let pct = |q: f64| {
            if settled.is_empty() {
                Value::Null
            } else {
                json!(dctc_core::stats::percentile_sorted(&settled, q))
            }
        };
        schemes.insert(
            sc.label.clone(),
            json!({
                "flows": n,
                "settled_fraction": settled.len() as f64 / n.max(1) as f64,
                "median_rtts": pct(0.5),
                "p90_rtts": pct(0.9),
                "max_rtts": settled.last().copied(),
                "median_rtts_unsettled_as_window": c.median_settle(),
                "rtt_us": c.rtt_s * 1e6,
                "iterations": iterations,
                "within": within,
            }),
        );
        table.push_row(vec![
            Cell::Text(sc.label.clone()),
            Cell::Num(n as f64),
            Cell::Num(settled.len() as f64),
            pct(0.5).as_f64().map_or(Cell::Text("-".into()), Cell::Num),
            pct(0.9).as_f64().map_or(Cell::Text("-".into()), Cell::Num),
            settled
                .last()
                .map_or(Cell::Text("-".into()), |&x| Cell::Num(x)),
        ]);
        let chart = rates_chart(&sc.label, c, track, iterations);
        report.push_section(Section::new(format!("Convergence of {}", sc.label)).with_chart(chart));
    }
    let console = table.to_text();
    report
        .sections
        .insert(0, Section::new("Convergence").with_table(table));
    RunOutput {
        summary: json!({
            "engine": "flow",
            "mode": "convergence",
            "fabric": p.net.topo.name,
            "base_rtt_us": p.net.rtt.as_us_f64(),
            "schemes": Value::Object(schemes),
        }),
        tables: vec![("convergence.csv".to_string(), convergence_csv(p, runs))],
        report,
        console,
        files: Vec::new(),
    }
}

/// `convergence.csv`: every scheme's every flow's rate at every iteration, beside its optimum.
fn convergence_csv(p: &Plan, runs: &[Convergence]) -> Records {
    // (scheme, iteration, flow, rate Gb/s, optimum Gb/s)
    let mut conv: Vec<(&str, usize, usize, f64, f64)> = Vec::new();
    for (sc, c) in p.schemes.iter().zip(runs) {
        for (k, rates) in c.rates.iter().enumerate() {
            for (i, r) in rates.iter().enumerate() {
                conv.push((&sc.label, k, i, r / 1e9, c.ideal[i] / 1e9));
            }
        }
    }
    Records::new()
        .text("scheme", conv.iter().map(|r| r.0))
        .uint("iteration", conv.iter().map(|r| r.1 as u64))
        .uint("flow", conv.iter().map(|r| r.2 as u64))
        .float("rate_gbps", conv.iter().map(|r| r.3))
        .float("ideal_gbps", conv.iter().map(|r| r.4))
}

/// One scheme's chart: `track` flows (spread over the flow list) and their optimum.
fn rates_chart(label: &str, c: &Convergence, track: usize, iterations: usize) -> Chart {
    let n = c.ideal.len();
    let mut chart = Chart::line(
        format!("{label}: flow rates per iteration (dashed = optimum)"),
        "iteration (RTTs)",
        "rate (Gb/s)",
    );
    let step = (n / track.max(1)).max(1);
    for i in (0..n).step_by(step).take(track) {
        chart.push_series(Series::new(
            format!("flow {i}"),
            c.rates
                .iter()
                .enumerate()
                .map(|(k, r)| (k as f64, r[i] / 1e9))
                .collect(),
        ));
        chart.push_series(Series::new(
            format!("flow {i} optimum"),
            vec![
                (0.0, c.ideal[i] / 1e9),
                (iterations as f64, c.ideal[i] / 1e9),
            ],
        ));
    }
    chart
}

/// `dctc bench` for this engine: the benchmarks of `dctc_flow::bench`, each at its default
/// scale (`BenchSpec::default_scale`) or at `DCTC_FLOW_BENCH_SCALE` (one share for all); the
/// `fb150-*` rows also print their time as a ratio to `fb150-maxmin`'s (at the same scale).
pub(crate) fn bench() -> Result<()> {
    let trace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/coflow/FB2010-1Hr-150-0.txt");
    let forced: Option<f64> = match std::env::var("DCTC_FLOW_BENCH_SCALE") {
        Err(_) => None,
        Ok(v) => match v.parse::<f64>() {
            Ok(x) if x > 0.0 && x <= 1.0 => Some(x),
            _ => anyhow::bail!(
                "DCTC_FLOW_BENCH_SCALE: `{v}` is not a fraction in (0, 1] (the share of the \
                 trace's coflows or of the million flows to run)"
            ),
        },
    };
    match forced {
        Some(x) if x >= 1.0 => eprintln!(
            "note: at full size the trace benchmarks take hours under maxmin and dba \
             (BENCHMARKS.md); DCTC_FLOW_BENCH_SCALE=0.05 runs 5% of each"
        ),
        Some(_) => {}
        None => {
            let shares: Vec<String> = dctc_flow::bench::BENCHES
                .iter()
                .map(|b| format!("{} at scale {}", b.name, b.default_scale))
                .collect();
            eprintln!(
                "note: running {} (the full trace takes hours); DCTC_FLOW_BENCH_SCALE=1 runs \
                 everything at full size",
                shares.join(", ")
            )
        }
    }
    let progress = Progress::new(true);
    // The fb150 rows are read as ratios to `fb150-maxmin` in the same process.
    let mut fb150_maxmin_s: Option<(f64, f64)> = None;
    for b in dctc_flow::bench::BENCHES {
        let (name, what) = (b.name, b.what);
        let scale = forced.unwrap_or(b.default_scale);
        outln!("flow engine: {what} (scale {scale}), one core");
        let r = dctc_flow::bench::bench_with_progress(
            name,
            &trace,
            scale,
            |last| progress.begin(name, last.ps().max(1)),
            |t| progress.set(t.ps()),
        )?;
        progress.finish();
        outln!("  flows              {}", r.flows);
        outln!("  events             {}", r.events);
        outln!("  simulated          {:.3} s", r.sim_s);
        outln!("  setup              {:.3} s", r.setup_s);
        outln!("  wall               {:.3} s", r.wall_s);
        outln!("  average CCT        {:.4} s", r.avg_cct_s);
        if name == "fb150-maxmin" {
            fb150_maxmin_s = Some((scale, r.wall_s));
        } else if let (true, Some((s, m))) = (name.starts_with("fb150-"), fb150_maxmin_s) {
            if s == scale {
                outln!("  vs fb150-maxmin    {:.2}x", r.wall_s / m.max(1e-9));
            } else {
                outln!("  vs fb150-maxmin    (ran at another scale: {s})");
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dctc_flow::metrics::{CoflowRecord, FlowRecordOut};

    fn run_with(finished: bool) -> Run {
        let done = finished.then_some(2.0);
        let result = RunResult {
            policy: "maxmin".into(),
            routing: "ecmp".into(),
            coflows: vec![CoflowRecord {
                id: 0,
                arrival_s: 0.0,
                finish_s: done,
                cct_s: done,
                ideal_s: 1.0,
                flows: 1,
                bytes: 1e6,
            }],
            flows: vec![FlowRecordOut {
                id: 0,
                coflow: 0,
                src: 0,
                dst: 1,
                bytes: 1e6,
                start_s: 0.0,
                finish_s: done,
                fct_s: done,
                ideal_s: 1.0,
            }],
            events: 1,
            allocations: 0,
            allocated_flows: 0,
            ticks: 0,
            reroutes: 0,
            end_s: 2.0,
            extra: Vec::new(),
        };
        let summary = result.summary();
        Run {
            label: "x".into(),
            load: None,
            result,
            objective: None,
            summary,
            utilization: 0.25,
            wall_s: 0.0,
        }
    }

    #[test]
    fn utilization_is_over_what_the_hosts_can_send_together() {
        // dba-144: 144 hosts at 10 Gb/s; fb-150: 150 ports at 2^30 b/s.
        for (name, want) in [("dba-144", 1440.0), ("fb-150", 150.0 * 1.073741824)] {
            let topo = dctc_core::fabric::preset(name)
                .unwrap()
                .build(std::path::Path::new("."))
                .unwrap();
            let got = host_capacity_gbps(&Net::new(topo).unwrap());
            assert!((got - want).abs() < 1e-9 * want, "{name}: {got}");
        }
    }

    #[test]
    fn averages_are_null_when_nothing_finished() {
        let v = summary_json(&run_with(false));
        for k in ["avg_cct_s", "p99_cct_s", "avg_slowdown", "avg_fct_s"] {
            assert_eq!(v[k], Value::Null, "{k}: {v}");
        }
        assert_eq!(v["finished"], json!(0));
        let v = summary_json(&run_with(true));
        assert_eq!(v["avg_slowdown"], json!(2.0));
        assert_eq!(v["avg_cct_s"], json!(2.0));
        assert_eq!(v["avg_fct_s"], json!(2.0));
        assert_eq!(v["utilization"], json!(0.25));
    }

    #[test]
    fn dropped_flows_make_a_warning_line() {
        let d = vec![("workload[0]".to_string(), 4, 1)];
        let w = dropped_lines(&d);
        assert!(
            w.starts_with("warning: workload[0]: 4 flows (1 whole coflows) dropped"),
            "{w}"
        );
        assert!(dropped_lines(&Vec::new()).is_empty());
    }
}
