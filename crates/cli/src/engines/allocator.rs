//! The allocator engine: Flowtune §6.6, a NUM allocator under flowlet churn with no packet
//! network (`dctc_num::churn`).
//!
//! ```toml
//! engine = "allocator"
//! duration_ms = 2.0
//! [fabric]
//! kind = "preset"
//! name = "flowtune-144"
//! [allocator]
//! iteration_us = 10.0      # one iteration per step (Flowtune: 10 us)
//! loads = [0.4, 0.6, 0.8]  # rerun the workload at each load (overrides workload.load)
//! optimal_every = 10       # optimum for the current flow set every N steps
//! warmup_ms = 0.2          # left out of the averages
//! threshold = 0.01         # update threshold; links allocated at 1 - threshold (§6.4)
//! [[workload]]
//! kind = "poisson"
//! cdf = "fb-web"
//! load = 0.6
//! [[schemes]]
//! name = "ned"             # ned | gradient | fgm | newton-like | dba
//! label = "NED"
//! gamma = 0.4              # optional step factor (ned, gradient, newton-like, dba)
//! ```
//!
//! Summary: `schemes.<label>.load_<pct>.{max_over_allocation_gbps, mean_over_allocation_gbps,
//! f_norm_fraction, u_norm_fraction, raw_fraction, completed, notifications_per_flowlet}`.

use super::engine::Engine;
use crate::limits;
use crate::output::RunOutput;
use crate::progress::Progress;
use crate::records::Records;
use crate::scenario::{Scenario, ScenarioError};
use anyhow::Result;
use dctc_core::config::WorkloadSpec;
use dctc_core::rng::{component_rng, mix64, streams};
use dctc_core::routing::Routing;
use dctc_core::units::SimTime;
use dctc_core::workload::{Cdf, PoissonSpec};
use dctc_num::churn::{self, ChurnConfig, ChurnResult, Flowlet};
use dctc_num::convergence::ConvergenceResult;
use dctc_num::settings::{AllocatorKeys, AllocatorSettings, Mode, SolverKeys};
use dctc_num::solver::AnySolver;
use dctc_report::{Cell, Chart, Report, Section, Series, Table};
use serde_json::{json, Map, Value};

/// Schemes this engine runs, for `dctc list`.
/// Solvers, for `dctc list`.
pub(crate) const SCHEMES: &[(&str, &str)] = dctc_num::solver::SOLVERS;

pub(crate) const WORKLOAD_KINDS: &[&str] = &["poisson"];

pub(crate) struct Plan {
    settings: AllocatorSettings,
    schemes: Vec<(String, AnySolver)>,
    workload: Option<(PoissonSpec, Cdf)>,
    loads: Vec<f64>,
}

/// The `[output]` keys this engine reads: none (its outputs are fixed), so any key there is
/// refused rather than silently ignored.
pub(crate) const OUTPUT_KEYS: &[&str] = &[];

fn plan(s: &Scenario) -> Result<Plan, ScenarioError> {
    s.output_spec(OUTPUT_KEYS)?;
    let keys: AllocatorKeys = s.parse(&s.settings, "allocator")?;
    let settings = AllocatorSettings::new(&keys).map_err(|e| s.key_error(e.at("allocator")))?;
    if let Some(us) = settings.iteration_us {
        // One solver iteration per step, each recorded: bound them like a sampled series
        // (the step was checked to be at least 1 ps).
        let step = dctc_core::units::Delta::from_us_f64(us);
        limits::check_samples(s, "allocator.iteration_us", Some(step), s.duration, 1)?;
    }
    if s.schemes.is_empty() {
        return Err(s.error(
            "schemes",
            "list at least one [[schemes]] table (e.g. name = \"ned\")",
        ));
    }
    let mut schemes = Vec::new();
    for (i, v) in s.schemes.iter().enumerate() {
        let key = format!("schemes[{i}]");
        let c: SolverKeys = s.parse(v, &key)?;
        let sv = c.solver().map_err(|e| s.key_error(e.at(&key)))?;
        let label = c.label();
        if schemes.iter().any(|(l, _)| *l == label) {
            return Err(s.error(
                &format!("{key}.label"),
                format!("label `{label}` is used twice"),
            ));
        }
        schemes.push((label, sv));
    }
    if let Mode::Convergence {
        flows,
        max_iterations,
        ..
    } = settings.mode
    {
        check_convergence_work(s, flows, max_iterations, schemes.len())?;
    }
    let topo = s.build_fabric()?;
    // Every flow is routed: a fabric with hosts that cannot reach each other fails here.
    Routing::new(&topo).map_err(|e| s.fabric_error(e))?;
    let Mode::Churn { loads, .. } = &settings.mode else {
        return Ok(Plan {
            settings,
            schemes,
            workload: None,
            loads: Vec::new(),
        });
    };
    if s.workloads.len() != 1 {
        return Err(s.error(
            "workload",
            "list exactly one [[workload]] table (kind = \"poisson\")",
        ));
    }
    let workload = match s.workload_spec(0, WORKLOAD_KINDS)? {
        WorkloadSpec::Poisson(w) => w,
        other => {
            return Err(s.key_error(other.unsupported(WORKLOAD_KINDS).at("workload[0]")));
        }
    };
    workload.validate().map_err(|e| match e {
        dctc_core::workload::WorkloadError::Invalid(e) => s.key_error(e.at("workload[0]")),
        other => s.error("workload[0]", other.to_string()),
    })?;
    let cdf = Cdf::load(&workload.cdf, &s.base_dir)
        .map_err(|e| s.error("workload[0].cdf", e.to_string()))?;
    let loads = if loads.is_empty() {
        crate::warn_load(s, "workload[0].load", workload.load);
        vec![workload.load]
    } else {
        for (k, &load) in loads.iter().enumerate() {
            crate::warn_load(s, &format!("allocator.loads[{k}]"), load);
        }
        loads.clone()
    };
    // Count the arrivals at every load without drawing them.
    for &load in &loads {
        PoissonSpec {
            load,
            ..workload.clone()
        }
        .check_size(&topo, &cdf, SimTime::from_delta(s.duration))
        .map_err(|e| match e {
            dctc_core::workload::WorkloadError::Invalid(e) => s.key_error(e.at("workload[0]")),
            other => s.error("workload[0]", other.to_string()),
        })?;
    }
    Ok(Plan {
        settings,
        schemes,
        workload: Some((workload, cdf)),
        loads,
    })
}

/// Bounds a convergence run before it starts: every iteration is recorded (at most
/// [`limits::MAX_SAMPLES`]), and each costs work over every flow (iterations x flows at most
/// [`limits::MAX_FLOW_ITERATIONS`] per scheme, from a cold start and after the arrival).
fn check_convergence_work(
    s: &Scenario,
    flows: usize,
    cap: usize,
    schemes: usize,
) -> Result<(), ScenarioError> {
    let (flows, cap) = (flows as u64, cap as u64);
    if cap > limits::MAX_SAMPLES {
        return Err(s.error(
            "allocator.max_iterations",
            format!(
                "{cap} iterations would record {cap} errors per scheme, more than the {} dctc records",
                limits::MAX_SAMPLES
            ),
        ));
    }
    // A cold start and an arrival, each up to `cap` iterations over every flow.
    let work = cap.saturating_mul(flows).saturating_mul(2);
    if work > limits::MAX_FLOW_ITERATIONS {
        return Err(s.error(
            "allocator.max_iterations",
            format!(
                "{cap} iterations over {flows} flows are up to {work:.3e} flow updates per scheme ({} in all), more than the {:.0e} dctc runs; lower max_iterations or allocator.flows",
                work.saturating_mul(schemes as u64),
                limits::MAX_FLOW_ITERATIONS as f64
            ),
        ));
    }
    Ok(())
}

fn pct(load: f64) -> String {
    format!("load_{:.0}", load * 100.0)
}

/// The allocator engine.
pub(crate) struct Allocator;

/// What the allocator engine's runs produced (with the fabric's link count).
pub(crate) enum Runs {
    /// Churn runs: (label, load, result) per solver and load.
    Churn(usize, Vec<(String, f64, ChurnResult)>),
    /// Convergence runs, one per solver.
    Convergence(usize, Vec<ConvergenceResult>),
}

impl Engine for Allocator {
    type Plan = Plan;
    type Runs = Runs;

    fn plan(s: &Scenario, _generate: bool) -> Result<Plan, ScenarioError> {
        plan(s)
    }

    fn execute(s: &Scenario, p: &Plan, progress: &Progress) -> Result<Runs> {
        churn_runs(s, p, progress)
    }

    fn render(s: &Scenario, p: &Plan, runs: Runs) -> RunOutput {
        match runs {
            Runs::Churn(links, results) => render_churn(s, p, links, results),
            Runs::Convergence(links, r) => render_convergence(s, p, links, &r),
        }
    }
}

/// Every solver at every load under flowlet churn (or, in convergence mode, every solver's
/// convergence).
fn churn_runs(s: &Scenario, p: &Plan, progress: &Progress) -> Result<Runs> {
    let topo = s.build_fabric()?;
    let routing = Routing::new(&topo).map_err(|e| s.fabric_error(e))?;
    let capacity: Vec<f64> = topo.links().iter().map(|l| l.rate.bps_f64()).collect();
    let Mode::Churn { config, .. } = &p.settings.mode else {
        let runs = convergence_runs(s, p, &topo, &routing, &capacity, progress)?;
        return Ok(Runs::Convergence(capacity.len(), runs));
    };
    let (workload, cdf) = p.workload.as_ref().expect("churn mode has a workload");
    let cfg = ChurnConfig {
        duration_s: s.duration.as_secs_f64(),
        ..config.clone()
    };
    let until = SimTime::from_delta(s.duration);
    let mut results: Vec<(String, f64, ChurnResult)> = Vec::new();
    for &load in &p.loads {
        let spec = PoissonSpec {
            load,
            ..workload.clone()
        };
        let mut rng = component_rng(s.seed, streams::WORKLOAD);
        let flows = spec
            .generate(&topo, cdf, until, 0, &mut rng)
            .map_err(|e| s.error("workload[0]", e.to_string()))?;
        let flowlets: Vec<Flowlet> = flows
            .iter()
            .map(|f| Flowlet {
                start_s: f.start.as_secs_f64(),
                bytes: f.size_bytes.unwrap_or(0) as f64,
                path: routing
                    .ecmp_path(&topo, f.src, f.dst, mix64(s.seed ^ u64::from(f.id.0)))
                    .iter()
                    .map(|l| l.index())
                    .collect(),
            })
            .collect();
        for (label, solver) in &p.schemes {
            let mut solver = solver.clone();
            progress.begin(&format!("{label} @ {:.0}%", load * 100.0), 1);
            let r = churn::run(&capacity, &flowlets, &mut solver, &cfg)
                .map_err(|e| s.error("fabric", e.to_string()))?;
            progress.set(1);
            results.push((label.clone(), load, r));
        }
    }
    Ok(Runs::Churn(capacity.len(), results))
}

/// The output of a churn run: per scheme and load the over-allocation and the fractions of
/// the optimum, Flowtune Figs. 12 and 13, and every iteration in `steps.csv`.
fn render_churn(
    s: &Scenario,
    p: &Plan,
    links: usize,
    results: Vec<(String, f64, ChurnResult)>,
) -> RunOutput {
    let mut schemes = Map::new();
    let mut table = Table::new(
        "Over-allocation without normalization and throughput as a fraction of the optimum",
        [
            "scheme",
            "load",
            "max over-allocation Gb/s",
            "mean over-allocation Gb/s",
            "F-NORM / optimal",
            "U-NORM / optimal",
            "raw / optimal",
            "flowlets done",
            "notifications / flowlet",
        ],
    );
    let mut over_chart = Chart::line(
        "Max over-allocation without normalization (Flowtune Fig. 12)",
        "load (fraction of capacity)",
        "over-allocation (Gb/s)",
    );
    let mut frac_chart = Chart::line(
        "Throughput as a fraction of optimal (Flowtune Fig. 13)",
        "load (fraction of capacity)",
        "fraction of optimal",
    );
    for (label, _) in &p.schemes {
        let mut over = Vec::new();
        let mut fnorm = Vec::new();
        let mut unorm = Vec::new();
        let mut entry = Map::new();
        for (_, load, r) in results.iter().filter(|(l, _, _)| l == label) {
            entry.insert(
                pct(*load),
                json!({
                    "max_over_allocation_gbps": r.max_over_allocation_bps / 1e9,
                    "mean_over_allocation_gbps": r.mean_over_allocation_bps / 1e9,
                    "f_norm_fraction": r.f_norm_fraction,
                    "u_norm_fraction": r.u_norm_fraction,
                    "raw_fraction": r.raw_fraction,
                    "completed": r.completed,
                    "notifications_per_flowlet": r.notifications_per_flowlet,
                }),
            );
            table.rows.push(vec![
                Cell::Text(label.clone()),
                Cell::Num(*load),
                Cell::Num(r.max_over_allocation_bps / 1e9),
                Cell::Num(r.mean_over_allocation_bps / 1e9),
                Cell::Num(r.f_norm_fraction),
                Cell::Num(r.u_norm_fraction),
                Cell::Num(r.raw_fraction),
                Cell::Num(r.completed as f64),
                Cell::Num(r.notifications_per_flowlet),
            ]);
            over.push((*load, r.max_over_allocation_bps / 1e9));
            fnorm.push((*load, r.f_norm_fraction));
            unorm.push((*load, r.u_norm_fraction));
        }
        schemes.insert(label.clone(), Value::Object(entry));
        over_chart.series.push(Series::new(label.clone(), over));
        frac_chart
            .series
            .push(Series::new(format!("{label} F-NORM"), fnorm));
        frac_chart
            .series
            .push(Series::new(format!("{label} U-NORM"), unorm));
    }
    let section = Section::new("Normalization under churn (Flowtune §6.6)")
        .with_paragraph(churn_paragraph(s, p, links))
        .with_table(table.clone())
        .with_chart(over_chart)
        .with_chart(over_time_chart(p, &results))
        .with_chart(frac_chart);
    let report = Report::new(s.name.clone(), s.description.clone()).with_section(section);
    RunOutput {
        summary: json!({ "schemes": schemes }),
        tables: vec![("steps.csv".into(), steps_csv(p, &results))],
        report,
        console: table.to_text(),
        files: Vec::new(),
    }
}

/// What the churn runs did: the fabric, the workload, the iteration period and the optimum's.
fn churn_paragraph(s: &Scenario, p: &Plan, links: usize) -> String {
    let Mode::Churn { config, .. } = &p.settings.mode else {
        unreachable!("churn_paragraph describes churn runs")
    };
    format!(
        "{} fabric links, Poisson flowlets from `{}`, one iteration every {} us for {} ms; \
         flowlets drain at their F-NORM rates. The optimum is NED run to convergence on the \
         current flow set every {} iterations.",
        links,
        p.workload.as_ref().map(|w| w.0.cdf.as_str()).unwrap_or("-"),
        p.settings.iteration_us.unwrap_or(10.0),
        s.duration.as_secs_f64() * 1e3,
        config.optimal_every
    )
}

/// The over-allocation of every scheme over time at the highest load.
fn over_time_chart(p: &Plan, results: &[(String, f64, ChurnResult)]) -> Chart {
    let top = p.loads.iter().cloned().fold(0.0, f64::max);
    let mut chart = Chart::line(
        format!("Over-allocation over time at load {top}"),
        "time (us)",
        "over-allocation (Gb/s)",
    );
    for (label, _) in &p.schemes {
        for (_, _, r) in results.iter().filter(|(l, x, _)| l == label && *x == top) {
            chart.series.push(Series::new(
                label.clone(),
                r.steps
                    .iter()
                    .map(|st| (st.time_s * 1e6, st.over_allocation_bps / 1e9))
                    .collect(),
            ));
        }
    }
    chart
}

/// `steps.csv`: every iteration of every run, in the order of the schemes, then of the loads.
fn steps_csv(p: &Plan, results: &[(String, f64, ChurnResult)]) -> Records {
    let mut steps: Vec<(&str, f64, &dctc_num::churn::StepRecord)> = Vec::new();
    for (label, _) in &p.schemes {
        for (_, load, r) in results.iter().filter(|(l, _, _)| l == label) {
            steps.extend(r.steps.iter().map(|st| (label.as_str(), *load, st)));
        }
    }
    let gbps = |f: fn(&dctc_num::churn::StepRecord) -> f64| steps.iter().map(move |s| f(s.2) / 1e9);
    Records::new()
        .text("scheme", steps.iter().map(|s| s.0))
        .float("load", steps.iter().map(|s| s.1))
        .fixed("time_us", 1, steps.iter().map(|s| s.2.time_s * 1e6))
        .uint("flows", steps.iter().map(|s| s.2.flows as u64))
        .float("over_allocation_gbps", gbps(|st| st.over_allocation_bps))
        .float("raw_gbps", gbps(|st| st.raw_bps))
        .float("f_norm_gbps", gbps(|st| st.f_norm_bps))
        .float("u_norm_gbps", gbps(|st| st.u_norm_bps))
        .opt_float(
            "optimal_gbps",
            steps.iter().map(|s| {
                let o = s.2.optimal_bps;
                (!o.is_nan()).then(|| o / 1e9)
            }),
        )
}

/// Convergence mode: `flows` random host pairs (ECMP paths, log utilities), then one more.
/// Every solver's convergence on random flows from a cold start and after one arrival.
fn convergence_runs(
    s: &Scenario,
    p: &Plan,
    topo: &dctc_core::topology::Topology,
    routing: &Routing,
    capacity: &[f64],
    progress: &Progress,
) -> Result<Vec<ConvergenceResult>> {
    use dctc_num::{NumFlow, Problem, Utility};
    let Mode::Convergence {
        flows: n,
        tolerance,
        max_iterations: cap,
    } = p.settings.mode
    else {
        unreachable!("convergence_runs runs convergence scenarios")
    };
    let hosts = topo.hosts();
    let unit = capacity.iter().cloned().fold(1.0, f64::max);
    let mut problem = Problem::new(unit);
    for (l, &c) in capacity.iter().enumerate() {
        problem
            .add_link(format!("l{l}"), c)
            .map_err(|e| s.error("fabric", e.to_string()))?;
    }
    // Deterministic uniform pairs from the seed (hash of seed and flow number).
    let random_flow = |i: usize| {
        let h = mix64(s.seed.wrapping_mul(0x9e37_79b9) ^ mix64(i as u64));
        let a = (h % hosts.len() as u64) as usize;
        let mut b = (mix64(h) % (hosts.len() as u64 - 1)) as usize;
        if b >= a {
            b += 1;
        }
        let path: Vec<usize> = routing
            .ecmp_path(topo, hosts[a], hosts[b], mix64(s.seed ^ i as u64))
            .iter()
            .map(|l| l.index())
            .collect();
        NumFlow::new(format!("f{i}"), path, Utility::Log { weight: 1.0 })
    };
    for i in 0..n {
        problem
            .add_flow(random_flow(i))
            .map_err(|e| s.error("allocator.flows", e.to_string()))?;
    }
    let arrival = random_flow(n);
    let mut runs = Vec::new();
    for (label, solver) in &p.schemes {
        progress.begin(label, 1);
        runs.push(dctc_num::convergence::run(
            &problem,
            arrival.clone(),
            solver,
            tolerance,
            cap,
        ));
        progress.set(1);
    }
    Ok(runs)
}

/// The output of convergence runs: iterations to the optimum per solver, and the cold
/// start's rate error.
fn render_convergence(
    s: &Scenario,
    p: &Plan,
    links: usize,
    runs: &[ConvergenceResult],
) -> RunOutput {
    let Mode::Convergence {
        flows: n,
        tolerance,
        max_iterations: cap,
    } = p.settings.mode
    else {
        unreachable!("render_convergence renders convergence scenarios")
    };
    let mut table = Table::new(
        format!("Iterations to within {tolerance} of the optimum ({n} flows, F-NORM rates)"),
        [
            "scheme",
            "cold: utility",
            "cold: every rate",
            "after one arrival: utility",
            "after one arrival: every rate",
        ],
    );
    let mut chart = Chart::line(
        "Largest relative rate error from a cold start (F-NORM rates)",
        "iteration (count)",
        "max |x - x*| / x* (fraction)",
    );
    chart.y_log = true;
    let mut schemes = Map::new();
    let show = |r: Option<usize>| match r {
        Some(i) => Cell::Num(i as f64),
        None => Cell::Text(format!("> {cap}")),
    };
    for ((label, _), r) in p.schemes.iter().zip(runs) {
        schemes.insert(
            label.clone(),
            json!({
                "cold_iterations_utility": r.cold.utility,
                "cold_iterations_rates": r.cold.rates,
                "arrival_iterations_utility": r.arrival.utility,
                "arrival_iterations_rates": r.arrival.rates,
            }),
        );
        table.rows.push(vec![
            Cell::Text(label.clone()),
            show(r.cold.utility),
            show(r.cold.rates),
            show(r.arrival.utility),
            show(r.arrival.rates),
        ]);
        let step = (r.cold_rate_error.len() / 400).max(1);
        chart.series.push(Series::new(
            label.clone(),
            r.cold_rate_error
                .iter()
                .enumerate()
                .step_by(step)
                .map(|(i, e)| ((i + 1) as f64, e.max(1e-12)))
                .collect(),
        ));
    }
    let section = Section::new("Convergence (NED vs Gradient vs FGM vs Newton-like)")
        .with_paragraph(format!(
            "{n} flows between random host pairs ({} links), log utilities, prices starting at \
             the solver's initial value; then one more flow joins the converged allocation. \
             Utility criterion: |U - U*| <= {tolerance} S with S = sum_f U'_f(x*_f) x*_f (here \
             the number of flows: the weighted mean of log(x / x*) within {tolerance}; against \
             {tolerance} |U*|, a sum of logs of rates in b/s, every solver met it at its first \
             iteration); rate criterion: every F-NORM rate within {tolerance} of its optimum \
             (NED to 1e-11).",
            links
        ))
        .with_table(table.clone())
        .with_chart(chart);
    RunOutput {
        summary: json!({ "schemes": schemes }),
        tables: Vec::new(),
        report: Report::new(s.name.clone(), s.description.clone()).with_section(section),
        console: table.to_text(),
        files: Vec::new(),
    }
}

/// `dctc bench num`: Flowtune's §6.1 table rerun on this machine (medians of 2000
/// iterations; one iteration = NED rate update + price update + F-NORM), Flowtune's column
/// beside ours (see `crates/num/BENCHMARKS.md`).
pub(crate) fn bench() -> Result<()> {
    let threads = 2;
    let rows = dctc_num_fast::bench_table(threads, 2000);
    let kernel = rows.first().map_or("-", |r| r.kernel.name());
    outln!(
        "Flowtune §6.1 allocator iteration, medians over 2000 iterations (us); pull layout, \
         {kernel} kernel; push = the previous layout, same rounds; f/c-us = flows per core-us"
    );
    outln!(
        "{:>6} {:>6} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>11} {:>11} {:>9}",
        "cores",
        "nodes",
        "flows",
        "Flowtune",
        "FT f/c-us",
        "push f32",
        "f64 1t",
        "f32 1t",
        "f32 2t",
        "f/c-us 1t",
        "f/c-us 2t",
        "best/FT"
    );
    for r in &rows {
        outln!(
            "{:>6} {:>6} {:>6} {:>9.2} {:>9.1} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>11.0} {:>11.0} {:>9.2}",
            r.paper_cores,
            r.nodes,
            r.flows,
            r.paper_us,
            r.paper_flows_per_core_us(),
            r.push_f32_1t_us,
            r.f64_1t_us,
            r.f32_1t_us,
            r.f32_mt_us,
            r.flows_per_core_us_1t(),
            r.flows_per_core_us(),
            r.best_us() / r.paper_us
        );
    }
    Ok(())
}
