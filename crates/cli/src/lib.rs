//! `dctc`: turns scenario files into per-flow records, summaries, charts and a report.
//!
//! The `dctc` binary is [`main`]; other front ends (the Python package) use [`api`], which runs
//! scenarios and sweeps in memory with the same checks and error messages as the command line.
//!
//! Subcommands: `run`, `sweep`, `validate`, `demo`, `reproduce`, `ledger`, `list`, `bench`, `num`,
//! `completions`, `conformance`. Bad input (a malformed scenario, a missing file, an impossible fabric) prints one clear error naming
//! the file, the key and the reason, exits with status 2, and writes nothing.

#![forbid(unsafe_code)]
// clap prints these doc comments as `--help`, where `out/<name>/` is a placeholder, not HTML.
#![allow(rustdoc::invalid_html_tags)]
// Everything for standard output goes through `emit` / `outln!`, which survive a closed or full
// stdout; `println!` would panic on a broken pipe (`dctc bench | head -1`).
#![deny(clippy::print_stdout)]

/// `println!` through [`emit`]: a closed pipe quietly drops the rest, a failing stdout is
/// reported when the command ends.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::emit(&(format!($($arg)*) + "\n"))
    };
}

pub mod api;
pub mod conformance;
mod engines;
mod interrupt;
mod limits;
mod num_cmd;
mod objective;
mod output;
mod paper;
mod parse;
mod progress;
mod provenance;
pub mod records;
mod scenario;
mod sweep;

use anyhow::{bail, Result};
use clap::{CommandFactory, Parser, Subcommand};
use engines::Engine as _;
use output::RunOutput;
use progress::Progress;
use scenario::{Engine, Scenario};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The embedded default scenario run by `dctc demo`.
const DEMO: &str = include_str!("../../../scenarios/demo.toml");

#[derive(Parser)]
#[command(
    name = "dctc",
    version,
    about = "Datacenter traffic-control workbench: run schemes side by side on the same fabrics and workloads",
    after_help = "Examples:\n  dctc demo\n  dctc run scenarios/tfc/queue.toml\n  dctc reproduce tfc"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario and write out/<name>/ (summary.json, CSV tables, charts, report.html).
    #[command(
        after_help = "Examples:\n  dctc run scenarios/demo.toml\n  dctc run scenarios/tfc/queue.toml --out out/tfc-queue --seed 7\n  dctc run my.toml --quiet --force --out out/mine"
    )]
    Run {
        /// Scenario file (TOML).
        scenario: PathBuf,
        /// Output directory (default: out/<scenario name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Override the scenario's seed.
        #[arg(long)]
        seed: Option<u64>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Replace `--out` even if it is a directory dctc did not write (never `.`, `..`, `/`,
        /// the home directory or an ancestor of the working directory).
        #[arg(long)]
        force: bool,
    },
    /// Run a scenario for every combination of `--set` values into DIR/<point>/, in parallel,
    /// plus DIR/sweep.csv (one row per point and scheme). Rerun to resume.
    #[command(
        after_help = "Examples:\n  dctc sweep scenarios/demo.toml --set workload[0].load=0.3,0.6,0.8\n  dctc sweep scenarios/demo.toml --set seed=1..5 --jobs 2 --out out/seeds\n  dctc sweep scenarios/tfc/queue.toml --set schemes[0].ecn_k_bytes=15000,30000"
    )]
    Sweep(sweep::SweepArgs),
    /// Check a scenario (or a paper's claims.toml) without running it.
    #[command(
        after_help = "Examples:\n  dctc validate scenarios/demo.toml\n  dctc validate scenarios/tfc/claims.toml"
    )]
    Validate {
        /// Scenario file (TOML), or a paper's `claims.toml`.
        scenario: PathBuf,
    },
    /// Run the embedded default scenario: DCTCP vs NewReno on a 144-host leaf-spine.
    #[command(after_help = "Examples:\n  dctc demo\n  dctc demo --print > my.toml")]
    Demo {
        /// Output directory (default: out/demo).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print the embedded scenario instead of running it.
        #[arg(long)]
        print: bool,
        /// Replace `--out` even if it is a directory dctc did not write.
        #[arg(long)]
        force: bool,
    },
    /// Rerun a paper's experiments: every scenario in scenarios/<paper>/, then its ledger
    /// (every claim graded, the cross-file claims of its claims.toml, its untested headlines).
    #[command(
        after_help = "Examples:\n  dctc reproduce tfc\n  dctc reproduce flowtune --full --out out/flowtune-full"
    )]
    Reproduce {
        /// flowtune, tfc, fq-codel, dba or holnet.
        paper: String,
        /// Run the full versions (`*.full.toml`) instead of the short ones.
        #[arg(long)]
        full: bool,
        /// Parent directory for the outputs (default: out/<paper>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Where the scenario folders are (default: ./scenarios, else the source tree's).
        #[arg(long)]
        scenarios: Option<PathBuf>,
        /// Replace output directories even if dctc did not write them.
        #[arg(long)]
        force: bool,
    },
    /// Grade every paper's claims in one ledger: runs each paper's graded scenarios and writes
    /// DIR/ledger.md, DIR/ledger.json and DIR/report.html.
    #[command(
        after_help = "Examples:\n  dctc ledger --out out/ledger\n  dctc ledger --paper tfc --fidelity FIDELITY.md\n  dctc ledger --fidelity FIDELITY.md --render"
    )]
    Ledger(paper::run::LedgerArgs),
    /// List fabrics, workloads and schemes with one-line descriptions.
    #[command(after_help = "Examples:\n  dctc list\n  dctc list | grep -i pfabric")]
    List,
    /// Measure speed: events/s and packet-hops/s of the packet engine, and the other engines.
    #[command(after_help = "Examples:\n  dctc bench packet\n  dctc bench all")]
    Bench {
        /// packet, flow, num or all.
        #[arg(default_value = "packet")]
        engine: String,
        /// packet only: the datacenter-scale rows instead (a DCTCP permutation on fat-trees
        /// of k = 8 to 32, 128 to 8,192 hosts): CPU per delivered packet, ns per event, peak
        /// memory, and with --valgrind instructions and cache misses per delivered packet.
        #[arg(long)]
        scale: bool,
        /// With --scale: only these fat-tree sizes (even k, comma separated).
        #[arg(long, value_delimiter = ',', requires = "scale")]
        k: Vec<usize>,
        /// With --scale: simulated microseconds of every row (default: 10,000 up to k = 16,
        /// 1,000 beyond).
        #[arg(long, requires = "scale")]
        us: Option<u64>,
        /// With --scale: also count instructions and L1 / LL cache misses per delivered packet
        /// in the event loop under valgrind (callgrind; deterministic, unlike CPU time), over
        /// --valgrind-us of simulated time per row.
        #[arg(long, requires = "scale")]
        valgrind: bool,
        /// With --valgrind: simulated microseconds of each valgrind run (default 1,000 up to
        /// k = 16, 250 beyond).
        #[arg(long, requires = "valgrind")]
        valgrind_us: Option<u64>,
        /// One scale row in this process, for `--scale` (which runs each row in a process of
        /// its own, so that peak memory is the row's): `K:US`.
        #[arg(long, hide = true)]
        scale_row: Option<String>,
    },
    /// The NUM allocation engine on its own.
    #[command(
        after_help = "Examples:\n  dctc num solve crates/num/examples/parking-lot.json\n  dctc num solve crates/num/examples/parking-lot.json --solver reference"
    )]
    Num(num_cmd::NumArgs),
    /// Print a shell completion script for bash, zsh, fish, elvish or powershell.
    #[command(
        after_help = "Examples:\n  dctc completions bash > ~/.local/share/bash-completion/completions/dctc\n  dctc completions zsh > ~/.zfunc/_dctc\n  dctc completions fish > ~/.config/fish/completions/dctc.fish"
    )]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Run the conformance suite: small scenarios with known right outcomes for every scheme
    /// and policy, at several link rates, round trips and flow counts; prints a table and
    /// exits 1 if a case fails.
    #[command(
        after_help = "Examples:\n  dctc conformance --quick\n  dctc conformance --scheme dctcp --why\n  dctc conformance --family fair"
    )]
    Conformance {
        /// Only this scheme or flow policy (a name `dctc list` prints).
        #[arg(long)]
        scheme: Option<String>,
        /// Only this family of cases.
        #[arg(long)]
        family: Option<String>,
        /// Only the quick set (the cases CI runs as tests).
        #[arg(long)]
        quick: bool,
        /// Also print why each check expects what it does.
        #[arg(long)]
        why: bool,
    },
}

/// Set once standard output is closed or failing: later output is dropped.
static STDOUT_FAILED: AtomicBool = AtomicBool::new(false);
/// The first stdout error other than a closed pipe, reported when the command ends.
static STDOUT_ERROR: Mutex<Option<String>> = Mutex::new(None);

/// Prints `text` to standard output. A closed pipe (`dctc ... | head -1`) silently drops the
/// rest of the output; any other failure (a full disk, `> /dev/full`) is remembered and
/// reported as an error when the command ends. Work goes on either way, so results already
/// headed for disk are never lost to a console problem.
pub(crate) fn emit(text: &str) {
    if STDOUT_FAILED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        STDOUT_FAILED.store(true, Ordering::Relaxed);
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            let mut first = STDOUT_ERROR.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert_with(|| e.to_string());
        }
    }
}

/// The `dctc` command line: parses the arguments, runs the subcommand, and returns status 2
/// with one `error: ...` line on bad input.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Conformance {
            scheme,
            family,
            quick,
            why,
        } => {
            let filter = conformance::Filter {
                scheme,
                family,
                quick,
            };
            match conformance_cmd(&filter, why) {
                Ok(true) => Ok(()),
                Ok(false) => return ExitCode::from(1),
                Err(e) => Err(e),
            }
        }
        command => dispatch(command),
    };
    let stdout_error = STDOUT_ERROR
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    match result {
        Ok(()) => match stdout_error {
            None => ExitCode::SUCCESS,
            Some(e) => {
                eprintln!("error: cannot write to standard output: {e} (results, if any, were written to disk first)");
                ExitCode::from(2)
            }
        },
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn dispatch(command: Command) -> Result<()> {
    match command {
        Command::Run {
            scenario,
            out,
            seed,
            quiet,
            force,
        } => {
            let s = Scenario::load(&scenario, seed)?;
            run_and_write(&s, out, !quiet, force).map(drop)
        }
        Command::Sweep(args) => sweep::run(&args),
        Command::Validate { scenario } => {
            if scenario.file_name() == Some(paper::ledger::CLAIMS_FILE.as_ref()) {
                let n = paper::ledger::validate_claims(&scenario)?;
                emit(&format!("{}: ok ({n})\n", scenario.display()));
                return Ok(());
            }
            let s = Scenario::load(&scenario, None)?;
            validate(&s)?;
            emit(&format!(
                "{}: ok ({:?} engine, {} scheme(s))\n",
                scenario.display(),
                s.engine,
                s.schemes.len()
            ));
            Ok(())
        }
        Command::Demo { out, print, force } => {
            if print {
                emit(DEMO);
                return Ok(());
            }
            let cwd = std::env::current_dir()?;
            let s = Scenario::from_str(DEMO, Path::new("<embedded demo>"), &cwd, None)?;
            run_and_write(&s, out, true, force).map(drop)
        }
        Command::Reproduce {
            paper,
            full,
            out,
            scenarios,
            force,
        } => paper::run::reproduce(&paper, full, out, scenarios, force),
        Command::Ledger(args) => paper::run::ledger(&args),
        Command::List => {
            emit(&engines::list());
            Ok(())
        }
        Command::Bench {
            engine,
            scale,
            k,
            us,
            valgrind,
            valgrind_us,
            scale_row,
        } => match (scale_row, scale) {
            (Some(row), _) => engines::packet_scale::row(&row),
            (None, true) if engine == "packet" => {
                engines::packet_scale::table(&k, us, valgrind.then_some(valgrind_us))
            }
            (None, true) => bail!("--scale is a packet benchmark: `dctc bench packet --scale`"),
            (None, false) => engines::bench(&engine),
        },
        Command::Num(args) => num_cmd::run(&args),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "dctc", &mut script);
            emit(&String::from_utf8_lossy(&script));
            Ok(())
        }
        Command::Conformance { .. } => unreachable!("main runs the suite"),
    }
}

/// Warns, once, of an offered load above 1 (a Poisson workload's, up to 1.5; a coflow
/// workload's or a flow-engine sweep's, up to 10): legal, but the hosts are then offered more
/// than their links can send, so the backlog grows for the whole run; most likely a slip.
pub(crate) fn warn_load(s: &Scenario, key: &str, load: f64) {
    if load > 1.0 {
        s.warn(
            key,
            format!("load {load} offers the hosts more than their links can send: the backlog grows for the whole run"),
        );
    }
}

/// `dctc conformance`: runs the selected cases on every core, prints the table (and the
/// reasons with `why`). Returns whether every case passed; bad filters are errors.
fn conformance_cmd(filter: &conformance::Filter, why: bool) -> Result<bool> {
    let all = conformance::cases();
    if let Some(s) = &filter.scheme {
        if !all.iter().any(|c| c.scheme == *s) {
            let names = conformance::covered();
            bail!(
                "--scheme: no conformance case for `{s}`; schemes and policies: {}",
                names.join(", ")
            );
        }
    }
    if let Some(f) = &filter.family {
        if !conformance::FAMILIES.iter().any(|(n, _)| n == f) {
            let names: Vec<&str> = conformance::FAMILIES.iter().map(|x| x.0).collect();
            bail!("--family: no family `{f}`; families: {}", names.join(", "));
        }
    }
    let selected: Vec<&conformance::Case> = all.iter().filter(|c| filter.selects(c)).collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let counter = std::sync::atomic::AtomicUsize::new(0);
    let total = selected.len();
    let results = conformance::run_all(&selected, threads, &|c, m| {
        let k = counter.fetch_add(1, Ordering::Relaxed) + 1;
        eprintln!(
            "[{k}/{total}] {} {} {} ({}): {} {}",
            c.verdict(m),
            c.family,
            c.scheme,
            c.setting,
            m.value,
            c.expected
        );
    });
    let mut text = conformance::table(&selected, &results).to_text();
    let unexpected = selected
        .iter()
        .zip(&results)
        .filter(|(c, m)| !c.as_expected(m))
        .count();
    let known = selected
        .iter()
        .zip(&results)
        .filter(|(c, m)| c.known_failure.is_some() && !m.pass)
        .count();
    text.push_str(&format!(
        "\n{} cases: {} pass or are known failures ({known} known failures fail), {unexpected} fail\n",
        results.len(),
        results.len() - unexpected
    ));
    let known_list = conformance::known_failures(&selected);
    if !known_list.is_empty() {
        text.push_str("\nKnown failures (findings left to other changes):\n");
        text.push_str(&known_list);
    }
    if why {
        text.push_str("\nWhy each check expects what it does:\n");
        text.push_str(&conformance::reasons(&selected));
    }
    emit(&text);
    Ok(unexpected == 0)
}

fn validate(s: &Scenario) -> Result<()> {
    if s.duration < dctc_core::units::Delta::from_us(1) {
        s.warn(
            "duration_ms",
            format!(
                "{} of simulated time is shorter than a microsecond: no packet crosses a datacenter link in it",
                dctc_core::units::checked::human_span(s.duration)
            ),
        );
    }
    // The fabric is common to every engine: check it here so each engine need not. Its size
    // is checked from the parameters first, so a fabric too big to hold is never built.
    if let Some(size) = s.fabric.size() {
        limits::check_memory(s, size, 0)?;
    }
    let topo = s.build_fabric()?;
    limits::check_memory(s, dctc_core::fabric::FabricSize::of(&topo), 0)?;
    match s.engine {
        Engine::Packet => engines::packet::Packet::validate(s),
        Engine::Flow => engines::flow::Flow::validate(s),
        Engine::Allocator => engines::allocator::Allocator::validate(s),
    }
}

fn run_engine(s: &Scenario, progress: &Progress) -> Result<RunOutput> {
    match s.engine {
        Engine::Packet => engines::packet::Packet::run(s, progress),
        Engine::Flow => engines::flow::Flow::run(s, progress),
        Engine::Allocator => engines::allocator::Allocator::run(s, progress),
    }
}

/// Validates `s`, takes the lock of its output directory, checks that it can be written,
/// runs, writes the results, and only then prints the console tables. Returns the run's
/// full summary.
fn run_and_write(
    s: &Scenario,
    out: Option<PathBuf>,
    show_progress: bool,
    force: bool,
) -> Result<serde_json::Value> {
    validate(s)?;
    let dir = out.unwrap_or_else(|| Path::new("out").join(&s.name));
    let _lock = output::lock(&dir)?;
    check_output(s, &dir, force)?;
    run_into(s, &dir, show_progress, force)
}

/// Checks that the results of `s` may replace `dir`: [`output::check_destination`], and no
/// input file of `s` inside it.
pub(crate) fn check_output(s: &Scenario, dir: &Path, force: bool) -> Result<()> {
    output::check_destination(dir, force)?;
    output::refuse_inputs_inside(dir, &s.input_files())
}

/// Runs the validated `s` into `dir`, whose lock the caller holds and which it checked with
/// [`check_output`].
pub(crate) fn run_into(
    s: &Scenario,
    dir: &Path,
    show_progress: bool,
    force: bool,
) -> Result<serde_json::Value> {
    let progress = Progress::new(show_progress);
    let result = run_engine(s, &progress);
    progress.finish();
    let result = result?;
    let dir = output::write_run(dir, s, &result, force)?;
    let mut text = result.console.clone();
    let summary = output::full_summary(s, &result);
    if let Some(t) = paper::table(&s.paper, &summary) {
        text.push_str(&format!("\n{}\n", t.to_text()));
    }
    text.push_str(&format!("wrote {}\n", dir.join("report.html").display()));
    emit(&text);
    Ok(summary)
}

fn scenarios_root(explicit: Option<PathBuf>) -> Result<PathBuf> {
    if let Some(p) = explicit {
        return Ok(p);
    }
    let local = PathBuf::from("scenarios");
    if local.is_dir() {
        return Ok(local);
    }
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    if source.is_dir() {
        return Ok(source);
    }
    bail!("no scenarios folder here or in the source tree; pass --scenarios DIR")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every subcommand's `--help` ends with examples, and each example parses as the command
    /// line it shows, naming files the source tree has.
    #[test]
    fn every_help_ends_with_examples_that_parse() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let cli = Cli::command();
        let mut seen = 0;
        for cmd in std::iter::once(&cli).chain(cli.get_subcommands()) {
            let help = cmd
                .get_after_help()
                .unwrap_or_else(|| panic!("`{}` has no examples", cmd.get_name()))
                .to_string();
            let examples: Vec<&str> = help
                .strip_prefix("Examples:\n")
                .unwrap_or_else(|| panic!("`{}`: {help}", cmd.get_name()))
                .lines()
                .collect();
            assert!(!examples.is_empty(), "{}", cmd.get_name());
            for line in examples {
                // The command itself, before any redirection or pipe.
                let words: Vec<&str> = line
                    .split_whitespace()
                    .take_while(|w| !matches!(*w, ">" | "|"))
                    .collect();
                assert_eq!(words.first(), Some(&"dctc"), "{line}");
                if cmd.get_name() != "dctc" {
                    assert_eq!(words.get(1), Some(&cmd.get_name()), "{line}");
                }
                if let Err(e) = Cli::try_parse_from(&words) {
                    panic!("example `{line}` does not parse: {e}");
                }
                for w in &words {
                    if w.starts_with("scenarios/") || w.starts_with("crates/") {
                        assert!(
                            root.join(w).exists(),
                            "example `{line}` names a missing {w}"
                        );
                    }
                }
                seen += 1;
            }
        }
        assert!(seen > 20, "{seen} examples");
    }
}
