//! `dctc num`: the NUM allocation engine on its own.
//!
//! `dctc num solve PROBLEM.json [--solver ned|gradient|fgm|newton-like|dba|maxmin|reference]
//! [--iterations N] [--normalize none|u-norm|f-norm]` prints
//! `{"flows":[{"id":..,"rate_bps":..}],"objective":..,"max_overload_bps":..,"iterations":..}`
//! plus `"status"`. The input format is in `crates/num/README.md`.
//!
//! `maxmin` is weighted max-min by water-filling with minimum and maximum rates
//! ([`dctc_num::maxmin::bounded_weighted_max_min`]; weights from the utilities). A multipath
//! flow is water-filled path by path: each path is a flow of its own with the flow's weight,
//! minimum and maximum divided equally among its paths. That is max-min over subflows, not over
//! flow totals (HOLNET's 60/20/80 instance gets 93.3 / 66.7 Mb/s, not 80 / 80), and the output
//! then carries a `"note"` saying so.

use anyhow::{Context, Result};
use dctc_num::maxmin::{bounded_weighted_max_min, MaxMinError};
use dctc_num::normalize::Normalize;
use dctc_num::reference::{self, Status};
use dctc_num::solver::{run_to_convergence, AnySolver, RunStatus, Solver, State};
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
    /// ned, gradient, fgm, newton-like, dba, maxmin (weighted max-min with min/max rates;
    /// multipath flows path by path, see crates/num/README.md) or reference.
    #[arg(long, default_value = "ned")]
    solver: String,
    /// Run exactly N iterations (iterative solvers); without it, run until the relative change
    /// of rates and prices is below 1e-9 or 1,000,000 iterations.
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
    let text = std::fs::read_to_string(&a.problem)
        .with_context(|| format!("cannot read {}", a.problem.display()))?;
    let de = &mut serde_json::Deserializer::from_str(&text);
    let spec: ProblemSpec = serde_path_to_error::deserialize(de)
        .map_err(|e| anyhow::anyhow!("{}: `{}`: {}", a.problem.display(), e.path(), e.inner()))?;
    let mut problem = spec
        .build()
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.problem.display()))?;
    problem.prepare();
    let (mut sub_rate, iterations, status): (Vec<f64>, u64, String) = match a.solver.as_str() {
        "reference" => {
            let sol = reference::solve(&mut problem);
            let status = match sol.status {
                Status::Solved => "solved",
                Status::Infeasible => "infeasible",
                Status::MaxIterations => "max_iterations",
                Status::NumericalError => "numerical_error",
            };
            (
                sol.sub_rate_bps,
                u64::from(sol.newton_steps),
                status.to_string(),
            )
        }
        "maxmin" => {
            let unit = problem.rate_unit();
            let ns = problem.subflow_count();
            let (mut weights, mut lo, mut hi) = (vec![0.0; ns], vec![0.0; ns], vec![0.0; ns]);
            for s in 0..ns {
                let f = problem.subflow_owner(s);
                let share = 1.0 / problem.subflows(f).len() as f64;
                weights[s] = problem.utilities()[f].weight() * share;
                lo[s] = problem.min_bps()[f] / unit * share;
                hi[s] = problem.max_bps()[f] / unit * share;
            }
            let r = bounded_weighted_max_min(
                problem.capacity_scaled(),
                problem.paths(),
                &weights,
                &lo,
                &hi,
            )
            .map_err(|e| match e {
                MaxMinError::InfeasibleMinimum { link, required, .. } => anyhow::anyhow!(
                    "{}: link `{}`: --solver maxmin splits each multipath flow's min_bps \
                     equally over its paths, and those shares need {:e} b/s on this link, more \
                     than its capacity {:e} b/s (the reference solver splits minimums freely)",
                    a.problem.display(),
                    problem.link_names()[link],
                    required * unit,
                    problem.capacity_bps()[link]
                ),
                MaxMinError::BadBounds { flow, .. } => anyhow::anyhow!(
                    "{}: flow `{}`: bad rate bounds",
                    a.problem.display(),
                    problem.flow_names()[problem.subflow_owner(flow)]
                ),
            })?;
            (
                r.iter().map(|x| x * unit).collect(),
                1,
                "solved".to_string(),
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
            let status = match a.iterations {
                Some(n) => {
                    for _ in 0..n {
                        solver.iterate(&mut problem, &mut state);
                    }
                    "fixed_iterations"
                }
                None => {
                    match run_to_convergence(&mut solver, &mut problem, &mut state, 1e-9, CAP) {
                        RunStatus::Converged => "converged",
                        RunStatus::MaxIterations => "max_iterations",
                        RunStatus::NumericalError => "numerical_error",
                    }
                }
            };
            (
                state.sub_rates_bps(&problem),
                state.iterations,
                status.to_string(),
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
    let mut out = json!({
        "flows": flows,
        "objective": problem.objective(&flow_rate),
        "max_overload_bps": problem.max_overload_bps(&sub_rate),
        "iterations": iterations,
        "solver": a.solver,
        "status": status,
    });
    if a.solver == "maxmin" && !problem.is_single_path() {
        out["note"] = json!(
            "multipath flows were water-filled path by path (weight, min_bps and max_bps split \
             equally over the paths): max-min over subflows, not over flow totals"
        );
    }
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
