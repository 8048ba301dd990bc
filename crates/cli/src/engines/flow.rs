//! The flow engine's scenario glue (being built by the flow room).

use crate::output::RunOutput;
use crate::progress::Progress;
use crate::scenario::Scenario;
use anyhow::{bail, Result};

/// Schemes this engine runs, for `dctc list`.
pub(crate) const SCHEMES: &[(&str, &str)] = &[];

/// Checks a scenario for this engine.
pub(crate) fn validate(s: &Scenario) -> Result<()> {
    bail!(
        "{}: the flow engine is not available in this build",
        s.path.display()
    )
}

/// Runs a scenario on this engine.
pub(crate) fn run(s: &Scenario, _progress: &Progress) -> Result<RunOutput> {
    validate(s)?;
    unreachable!()
}

/// `dctc bench` for this engine.
pub(crate) fn bench() -> Result<()> {
    bail!("no benchmark for the flow engine in this build")
}
