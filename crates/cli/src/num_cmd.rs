//! `dctc num`: the NUM allocation engine on its own.
//!
//! `dctc num solve PROBLEM.json [--solver ned|gradient|fgm|newton-like|dba|maxmin|reference]
//! [--iterations N] [--normalize none|u-norm|f-norm]` prints
//! `{"flows":[{"id":..,"rate_bps":..}],"objective":..,"max_overload_bps":..,"iterations":..}`
//! plus `"status"` and, for the iterative solvers and the reference, `"kkt"`: the relative KKT
//! residuals of the answer, behind every `converged` / `solved` (`dctc_num::kkt`). The input
//! and output formats are in `crates/num/README.md`.
//!
//! `maxmin` is weighted max-min with minimum and maximum rates: by water-filling
//! ([`dctc_num::maxmin::bounded_weighted_max_min`]) when every flow has one path, and on flow
//! totals by progressive filling with linear programs
//! ([`dctc_num::maxmin::multipath_max_min`]) when some flow has several (HOLNET's 60/20/80
//! instance: 80 / 80 Mb/s; the split over paths is one of possibly many).

use anyhow::{Context, Result};
use dctc_num::kkt::{self, Residuals};
use dctc_num::maxmin::{bounded_weighted_max_min, multipath_max_min, MaxMinError, MultipathFlow};
use dctc_num::normalize::Normalize;
use dctc_num::reference::{self, Status};
use dctc_num::solver::{run_checked, AnySolver, CheckedStatus, Solver, State};
use dctc_num::spec::ProblemSpec;
use serde_json::json;
use std::path::PathBuf;

/// Arguments of `dctc num`.
#[derive(clap::Args)]
pub(crate) struct NumArgs {
    #[command(subcommand)]
    command: NumCommand,
}

#[derive(clap::Subcommand)]
enum NumCommand {
    /// Solve one NUM problem given as JSON and print the rates as JSON.
    Solve(SolveArgs),
}

#[derive(clap::Args)]
struct SolveArgs {
    /// The problem (JSON; see crates/num/README.md).
    problem: PathBuf,
    /// ned, gradient, fgm, newton-like, dba, maxmin (weighted max-min of flow totals with
    /// min/max rates) or reference.
    #[arg(long, default_value = "ned")]
    solver: String,
    /// Run exactly N iterations (iterative solvers); without it, run until the relative change
    /// of rates and prices is below 1e-9 with KKT residuals within 1e-6, or 1,000,000
    /// iterations.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    iterations: Option<u64>,
    /// none, u-norm or f-norm, applied to the final rates.
    #[arg(long, default_value = "none")]
    normalize: String,
}

/// Iteration cap without `--iterations`.
const CAP: u64 = 1_000_000;

/// Runs `dctc num`.
pub(crate) fn run(args: &NumArgs) -> Result<()> {
    match &args.command {
        NumCommand::Solve(a) => solve(a),
    }
}

fn solve(a: &SolveArgs) -> Result<()> {
    let normalize = match a.normalize.as_str() {
        "none" => Normalize::None,
        "u-norm" => Normalize::UNorm,
        "f-norm" => Normalize::FNorm,
        other => anyhow::bail!("--normalize: unknown `{other}`; choose none, u-norm or f-norm"),
    };
    if !matches!(a.solver.as_str(), "reference" | "maxmin")
        && AnySolver::by_name(&a.solver).is_none()
    {
        anyhow::bail!(
            "--solver: unknown `{}`; choose ned, gradient, fgm, newton-like, dba, maxmin or reference",
            a.solver
        );
    }
    let text = dctc_core::input::read_input_file(&a.problem)
        .with_context(|| format!("cannot read {}", a.problem.display()))?;
    let de = &mut serde_json::Deserializer::from_str(&text);
    let spec: ProblemSpec = serde_path_to_error::deserialize(de)
        .map_err(|e| anyhow::anyhow!("{}: `{}`: {}", a.problem.display(), e.path(), e.inner()))?;
    let mut problem = spec
        .build()
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.problem.display()))?;
    problem.prepare();
    let (mut sub_rate, iterations, status, kkt): (Vec<f64>, u64, String, Option<Residuals>) =
        match a.solver.as_str() {
            "reference" => {
                let sol = reference::solve(&mut problem);
                let status = match sol.status {
                    Status::Solved => "solved",
                    Status::Infeasible => "infeasible",
                    Status::MaxIterations => "max_iterations",
                    Status::NumericalError => "numerical_error",
                    Status::Inaccurate => "inaccurate",
                };
                let kkt = matches!(sol.status, Status::Solved | Status::Inaccurate)
                    .then_some(sol.residuals);
                (
                    sol.sub_rate_bps,
                    u64::from(sol.newton_steps),
                    status.to_string(),
                    kkt,
                )
            }
            "maxmin" => {
                let unit = problem.rate_unit();
                let cap = problem.capacity_scaled();
                let r = if problem.is_single_path() {
                    let weights: Vec<f64> =
                        problem.utilities().iter().map(|u| u.weight()).collect();
                    let lo: Vec<f64> = problem.min_bps().iter().map(|m| m / unit).collect();
                    let hi: Vec<f64> = problem.max_bps().iter().map(|m| m / unit).collect();
                    bounded_weighted_max_min(cap, problem.paths(), &weights, &lo, &hi)
                } else {
                    let flows: Vec<MultipathFlow> = (0..problem.flows())
                        .map(|f| MultipathFlow {
                            paths: problem
                                .subflows(f)
                                .map(|s| {
                                    problem.paths().row(s).iter().map(|&l| l as usize).collect()
                                })
                                .collect(),
                            weight: problem.utilities()[f].weight(),
                            min: problem.min_bps()[f] / unit,
                            max: problem.max_bps()[f] / unit,
                        })
                        .collect();
                    multipath_max_min(cap, &flows)
                }
                .map_err(|e| match e {
                    MaxMinError::InfeasibleMinimum { link, .. } => anyhow::anyhow!(
                        "{}: link `{}`: minimum rates exceed its capacity",
                        a.problem.display(),
                        problem.link_names()[link],
                    ),
                    MaxMinError::BadBounds { flow, .. } => anyhow::anyhow!(
                        "{}: flow `{}`: bad rate bounds",
                        a.problem.display(),
                        problem.flow_names()[flow]
                    ),
                    MaxMinError::NoFeasiblePoint => anyhow::anyhow!(
                        "{}: the minimum rates cannot all be met over the flows' paths",
                        a.problem.display()
                    ),
                })?;
                (
                    r.iter().map(|x| x * unit).collect(),
                    1,
                    "solved".to_string(),
                    None,
                )
            }
            name => {
                let mut solver = AnySolver::by_name(name).with_context(|| {
                format!(
                    "--solver: unknown `{name}`; choose ned, gradient, fgm, newton-like, dba, maxmin or reference"
                )
            })?;
                solver
                    .check(&problem)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", a.problem.display()))?;
                let mut state = State::new(&problem, solver.initial_price());
                let (status, residuals) = match a.iterations {
                    Some(n) => {
                        for _ in 0..n {
                            solver.iterate(&mut problem, &mut state);
                        }
                        problem.prepare();
                        let r = kkt::residuals(
                            &problem,
                            &state.sub_rate,
                            &state.prices,
                            kkt::TOLERANCE,
                        );
                        ("fixed_iterations", r)
                    }
                    None => {
                        let out = run_checked(
                            &mut solver,
                            &mut problem,
                            &mut state,
                            1e-9,
                            kkt::TOLERANCE,
                            CAP,
                        );
                        let status = match out.status {
                            CheckedStatus::Converged => "converged",
                            CheckedStatus::MaxIterations => "max_iterations",
                            CheckedStatus::NumericalError => "numerical_error",
                            CheckedStatus::Stalled => "stalled",
                        };
                        (status, out.residuals)
                    }
                };
                (
                    state.sub_rates_bps(&problem),
                    state.iterations,
                    status.to_string(),
                    Some(residuals),
                )
            }
        };
    normalize.apply(problem.capacity_bps(), problem.paths(), &mut sub_rate);
    let mut flow_rate = vec![0.0; problem.flows()];
    for (s, x) in sub_rate.iter().enumerate() {
        flow_rate[problem.subflow_owner(s)] += x;
    }
    let flows: Vec<serde_json::Value> = problem
        .flow_names()
        .iter()
        .enumerate()
        .map(|(f, id)| {
            let mut v = json!({"id": id, "rate_bps": flow_rate[f]});
            if problem.subflows(f).len() > 1 {
                let subs: Vec<f64> = problem.subflows(f).map(|s| sub_rate[s]).collect();
                v["subflow_rate_bps"] = json!(subs);
            }
            v
        })
        .collect();
    let out = json!({
        "flows": flows,
        "objective": problem.objective(&flow_rate),
        "max_overload_bps": problem.max_overload_bps(&sub_rate),
        "iterations": iterations,
        "solver": a.solver,
        "status": status,
    });
    let mut out = out;
    if let Some(r) = kkt {
        out["kkt"] = kkt_json(&r);
    }
    crate::emit(&(serde_json::to_string_pretty(&out)? + "\n"));
    Ok(())
}

/// The `"kkt"` object: the three relative residuals of the solver's own rates and prices
/// (before `--normalize`), the tolerance behind `converged` / `solved`, and the largest
/// residual by name (the one to blame when the status is not a success).
fn kkt_json(r: &Residuals) -> serde_json::Value {
    let num = |v: f64| if v.is_finite() { json!(v) } else { json!(null) };
    let (name, value) = r.largest();
    json!({
        "primal": num(r.primal),
        "complementarity": num(r.complementarity),
        "stationarity": num(r.stationarity),
        "tolerance": kkt::TOLERANCE,
        "largest": name,
        "largest_value": num(value),
        "within_tolerance": r.within(kkt::TOLERANCE),
    })
}
