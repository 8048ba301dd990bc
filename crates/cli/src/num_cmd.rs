//! `dctc num` (being built by the num room).

use anyhow::{bail, Result};

/// Arguments of `dctc num`.
#[derive(clap::Args)]
pub(crate) struct NumArgs {}

/// Runs `dctc num`.
pub(crate) fn run(_args: &NumArgs) -> Result<()> {
    bail!("`dctc num` is not available in this build")
}
