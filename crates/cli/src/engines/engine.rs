//! The trait every engine module implements, so that `dctc` can check, run and render a
//! scenario without knowing the engine's own tables.

use crate::output::RunOutput;
use crate::progress::Progress;
use crate::scenario::{Scenario, ScenarioError};
use anyhow::Result;

/// What `dctc` needs of an engine. Its module implements it; `dctc` dispatches on the
/// scenario's `engine` and never reaches into the engine's own tables or keys.
pub(crate) trait Engine {
    /// A scenario checked for this engine: everything its runs need.
    type Plan;
    /// What its runs produced.
    type Runs;

    /// Checks `s`; with `generate`, also draws its workload (checking alone never does).
    fn plan(s: &Scenario, generate: bool) -> Result<Self::Plan, ScenarioError>;

    /// Runs every scheme of a checked scenario.
    fn execute(s: &Scenario, plan: &Self::Plan, progress: &Progress) -> Result<Self::Runs>;

    /// The runs as `summary.json`, tables, console text and report.
    fn render(s: &Scenario, plan: &Self::Plan, runs: Self::Runs) -> RunOutput;

    /// Checks `s` without running it.
    fn validate(s: &Scenario) -> Result<()> {
        Self::plan(s, false)?;
        Ok(())
    }

    /// Runs `s`.
    fn run(s: &Scenario, progress: &Progress) -> Result<RunOutput> {
        let plan = Self::plan(s, true)?;
        let runs = Self::execute(s, &plan, progress)?;
        Ok(Self::render(s, &plan, runs))
    }
}
