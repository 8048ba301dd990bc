//! The allocator engine's scenario glue (being built by the allocator room).

use crate::output::RunOutput;
use crate::progress::Progress;
use crate::scenario::Scenario;
use anyhow::{bail, Result};

/// Schemes this engine runs, for `dctc list`.
pub(crate) const SCHEMES: &[(&str, &str)] = &[
    (
        "ned",
        "Flowtune's Newton-Exact-Diagonal (gamma 0.4, prices start at 1)",
    ),
    ("gradient", "gradient projection on link prices"),
    (
        "fgm",
        "fast weighted gradient (Beck et al. 2014), Nesterov-accelerated",
    ),
    (
        "newton-like",
        "Athuraliya & Low: H_ll estimated from observed rate changes",
    ),
    (
        "dba",
        "DBA: accelerated price update over weighted max-min rates",
    ),
    ("maxmin", "weighted max-min fair by water-filling (exact)"),
    (
        "reference",
        "interior-point reference optimum (any utility, multipath, min/max)",
    ),
];

/// Checks a scenario for this engine.
pub(crate) fn validate(s: &Scenario) -> Result<()> {
    bail!(
        "{}: the allocator engine is not available in this build",
        s.path.display()
    )
}

/// Runs a scenario on this engine.
pub(crate) fn run(s: &Scenario, _progress: &Progress) -> Result<RunOutput> {
    validate(s)?;
    unreachable!()
}

/// `dctc bench num`: Flowtune's §6.1 table rerun on this machine (medians of 2000
/// iterations; one iteration = NED rate update + price update + F-NORM).
pub(crate) fn bench() -> Result<()> {
    let threads = 2;
    println!("Flowtune §6.1 allocator iteration, medians over 2000 iterations (us)");
    println!(
        "{:>6} {:>6} {:>6} {:>10} {:>10} {:>10} {:>12} {:>16}",
        "cores", "nodes", "flows", "Flowtune", "f64 1t", "f32 1t", "f32 2t", "flows/core-us 2t"
    );
    for r in dctc_num::fast::bench_table(threads, 2000) {
        println!(
            "{:>6} {:>6} {:>6} {:>10.2} {:>10.2} {:>10.2} {:>12.2} {:>16.0}",
            r.paper_cores,
            r.nodes,
            r.flows,
            r.paper_us,
            r.f64_1t_us,
            r.f32_1t_us,
            r.f32_mt_us,
            r.flows as f64 / (r.f32_mt_us * r.threads as f64)
        );
    }
    Ok(())
}
