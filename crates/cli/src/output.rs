//! What a run produces and how it reaches the disk: everything is written into a temporary
//! directory next to the destination and renamed into place only when complete, so an
//! interrupted or failed run never leaves a directory that looks finished.

use crate::paper;
use crate::records::Records;
use crate::scenario::Scenario;
use anyhow::{Context, Result};
use dctc_report::Report;
use std::path::{Path, PathBuf};

/// Header of the wall-clock column of console tables. Wall time varies between runs, so it is
/// printed on the console only: the frame drops this column from the report, and no engine puts
/// wall time in `summary.json`, so everything written is byte-identical for one seed.
pub(crate) const WALL_COLUMN: &str = "wall s";

/// A CSV file of text fields built in memory with the csv crate: fields are quoted only where
/// they need it (a comma, quote or line break), lines end in `\n`, as [`Records::to_csv`]
/// writes the engines' tables. `sweep.csv`, whose fields are text as the summaries and the
/// swept values write them, is written with it.
pub(crate) struct CsvOut {
    w: csv::Writer<Vec<u8>>,
}

impl CsvOut {
    /// A file with this header row.
    pub(crate) fn new(header: &[&str]) -> Self {
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        w.write_record(header)
            .expect("writing to memory cannot fail");
        CsvOut { w }
    }

    /// One row, already formatted field by field.
    pub(crate) fn row<I, T>(&mut self, fields: I)
    where
        I: IntoIterator<Item = T>,
        T: AsRef<[u8]>,
    {
        self.w
            .write_record(fields)
            .expect("writing to memory cannot fail");
    }

    /// The file's bytes.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.w.into_inner().expect("writing to memory cannot fail")
    }
}

/// An engine's results for one scenario.
pub(crate) struct RunOutput {
    /// Engine summary; the frame adds `scenario` (the echoed input) and `paper`.
    pub(crate) summary: serde_json::Value,
    /// Tables by file name, e.g. `flows.csv`, written with [`Records::to_csv`].
    pub(crate) tables: Vec<(String, Records)>,
    /// The report; rendered to `report.html` and one SVG per chart.
    pub(crate) report: Report,
    /// Printed to stdout after the run (a comparison table).
    pub(crate) console: String,
    /// Other files by path in the output directory (the packet engine's `pcap/`).
    pub(crate) files: Vec<(String, Vec<u8>)>,
}

/// The finished summary: the engine's, plus the scenario echo and the paper comparison.
pub(crate) fn full_summary(scenario: &Scenario, out: &RunOutput) -> serde_json::Value {
    let mut summary = match &out.summary {
        serde_json::Value::Object(m) => m.clone(),
        other => {
            let mut m = serde_json::Map::new();
            m.insert("result".into(), other.clone());
            m
        }
    };
    summary.insert("scenario".into(), scenario_echo(scenario));
    summary.insert("dctc".into(), crate::provenance::json());
    let value = serde_json::Value::Object(summary.clone());
    summary.insert("paper".into(), paper::compare(&scenario.paper, &value));
    serde_json::Value::Object(summary)
}

/// The scenario as `summary.json` echoes it under `scenario`: the file as parsed, with the
/// name and seed the run used.
pub(crate) fn scenario_echo(scenario: &Scenario) -> serde_json::Value {
    let mut echo = serde_json::to_value(&scenario.raw).unwrap_or(serde_json::Value::Null);
    if let serde_json::Value::Object(m) = &mut echo {
        m.insert("name".into(), scenario.name.clone().into());
        m.insert("seed".into(), scenario.seed.into());
    }
    echo
}

/// The report as `report.html` shows it: the engine's, with the provenance line, without the
/// wall-clock column, and with the paper comparison (from the [`full_summary`]) first.
pub(crate) fn final_report(
    scenario: &Scenario,
    out: &RunOutput,
    summary: &serde_json::Value,
) -> Report {
    let mut report = out.report.clone();
    report.meta = crate::provenance::report_line(scenario.seed);
    for section in &mut report.sections {
        for table in &mut section.tables {
            *table = table.without_column(WALL_COLUMN);
        }
    }
    if let Some(section) = paper::section(&scenario.paper, summary) {
        report.sections.insert(0, section);
    }
    report
}

/// Writes `out` for `scenario` into `dir` atomically (temp dir + rename). Replaces an existing
/// `dir` only as [`check_destination`] allows. Returns the final path.
pub(crate) fn write_run(
    dir: &Path,
    scenario: &Scenario,
    out: &RunOutput,
    force: bool,
) -> Result<PathBuf> {
    let summary = full_summary(scenario, out);
    let report = final_report(scenario, out, &summary);
    let mut files: Vec<(String, Vec<u8>)> = vec![
        (
            "summary.json".into(),
            (serde_json::to_string_pretty(&summary)? + "\n").into_bytes(),
        ),
        ("report.html".into(), report.to_html().into_bytes()),
    ];
    files.extend(
        out.tables
            .iter()
            .map(|(name, t)| (name.clone(), t.to_csv())),
    );
    for (name, svg) in dctc_report::write_svg_files(&report) {
        files.push((format!("charts/{name}"), svg.into_bytes()));
    }
    files.extend(out.files.iter().cloned());
    write_atomically(dir, &files, force)?;
    Ok(dir.to_path_buf())
}

/// Name of the marker file dctc writes into every output directory. Only a directory holding
/// it is replaced by a later run without `--force`.
pub(crate) const MARKER: &str = ".dctc-output";

/// Contents of [`MARKER`].
const MARKER_TEXT: &str = "This directory was written by dctc; a later run may replace it whole.\n";

/// Writes [`MARKER`] into the existing directory `dir`, so later runs may write into it.
pub(crate) fn mark(dir: &Path) -> Result<()> {
    std::fs::write(dir.join(MARKER), MARKER_TEXT)
        .with_context(|| format!("cannot write {}", dir.join(MARKER).display()))
}

/// Why an output directory cannot be used.
fn refuse(dir: &Path, reason: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("output directory {}: {reason}", dir.display())
}

/// The parent of `dir` (`.` for a bare name) and its last component.
fn split(dir: &Path) -> Result<(PathBuf, String)> {
    let leaf =
        match dir.components().next_back() {
            Some(std::path::Component::Normal(s)) => s.to_string_lossy().into_owned(),
            _ => return Err(refuse(
                dir,
                "ends in `.`, `..` or `/`: refusing to replace it, even with --force; name a new directory",
            )),
        };
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    Ok((parent, leaf))
}

/// Checks that results may be written to `dir`, before any work is done:
///
/// - never `.`, `..`, `/`, the home directory, the working directory or one of its ancestors,
///   even with `force` (paths are compared canonicalized, so `a/..` or a symlink to one of
///   them is caught too);
/// - an existing `dir` is replaced only if it is a directory dctc wrote (it holds [`MARKER`]),
///   or with `force`;
/// - the parent is created if missing and must accept a new directory (probed by creating and
///   removing the hidden temporary directory the results are first written to).
///
/// Also removes partial directories left behind in the parent by interrupted runs
/// ([`clean_stale_partials`]).
pub(crate) fn check_destination(dir: &Path, force: bool) -> Result<()> {
    let (parent, leaf) = split(dir)?;
    let forbidden = |canon: &Path| -> Option<&'static str> {
        if canon.parent().is_none() {
            return Some("is the root directory");
        }
        if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
            if std::fs::canonicalize(&home).is_ok_and(|h| h == canon) {
                return Some("is the home directory");
            }
        }
        if let Ok(cwd) = std::env::current_dir().and_then(std::fs::canonicalize) {
            if cwd == canon {
                return Some("is the current directory");
            }
            if cwd.starts_with(canon) {
                return Some("contains the current directory");
            }
        }
        None
    };
    match std::fs::symlink_metadata(dir) {
        Ok(meta) => {
            if let Ok(canon) = std::fs::canonicalize(dir) {
                if let Some(why) = forbidden(&canon) {
                    return Err(refuse(
                        dir,
                        format!("{why}; refusing to replace it, even with --force"),
                    ));
                }
            }
            if meta.is_dir() {
                if !force && !dir.join(MARKER).is_file() {
                    return Err(refuse(
                        dir,
                        format!("exists and was not written by dctc (no {MARKER} file in it); choose another --out, or pass --force to replace it whole"),
                    ));
                }
            } else if meta.file_type().is_symlink() {
                // A symlink is replaced by the results, never followed.
                if !force {
                    return Err(refuse(dir, "is a symbolic link; pass --force to replace the link (its target is left alone)"));
                }
            } else {
                return Err(refuse(dir, "exists and is not a directory"));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(refuse(dir, format!("cannot be created: {e}"))),
    }
    std::fs::create_dir_all(&parent)
        .map_err(|e| refuse(dir, format!("cannot create {}: {e}", parent.display())))?;
    if let Ok(canon) = std::fs::canonicalize(&parent) {
        // `--out x/..`-like names resolve here: `dir` itself may not exist yet.
        let target = canon.join(&leaf);
        if let Some(why) = forbidden(&target) {
            return Err(refuse(
                dir,
                format!("{why}; refusing to replace it, even with --force"),
            ));
        }
    }
    clean_stale_partials(&parent);
    let probe = partial_path(&parent, &leaf);
    std::fs::create_dir(&probe)
        .and_then(|()| std::fs::write(probe.join(MARKER), MARKER_TEXT))
        .map_err(|e| refuse(dir, format!("cannot write into {}: {e}", parent.display())))?;
    std::fs::remove_dir_all(&probe).ok();
    Ok(())
}

/// Refuses to replace `dir` when one of the run's `inputs` (its scenario, a fabric, trace,
/// CSV or CDF file) lies inside it: the results would delete the file they came from.
pub(crate) fn refuse_inputs_inside(dir: &Path, inputs: &[PathBuf]) -> Result<()> {
    let Ok(canon) = std::fs::canonicalize(dir) else {
        return Ok(()); // Nothing is inside a directory that does not exist yet.
    };
    for input in inputs {
        if std::fs::canonicalize(input).is_ok_and(|f| f.starts_with(&canon)) {
            return Err(refuse(
                dir,
                format!(
                    "holds {}, an input of this run; writing the results replaces the directory and would delete it (move the file out, or choose another --out)",
                    input.display()
                ),
            ));
        }
    }
    Ok(())
}

/// An output directory held for writing: while a `DirLock` lives, no other dctc process
/// writes that directory, nor one inside it. The lock is the OS's advisory lock on the hidden
/// file `.NAME.lock` beside the directory (which holds the holder's pid and command line): it
/// goes with the process, however the process ends, so a lock left by a dead process is free
/// again (its file is reused).
#[derive(Debug)]
pub(crate) struct DirLock {
    file: std::fs::File,
    path: PathBuf,
}

impl Drop for DirLock {
    fn drop(&mut self) {
        // Removed while still held: a process that opened the file before this point finds,
        // once it holds the lock, that the path no longer leads to its file, and starts over.
        std::fs::remove_file(&self.path).ok();
        let _ = self.file.unlock();
    }
}

/// The lock file of `parent/leaf`.
fn lock_path(parent: &Path, leaf: &str) -> PathBuf {
    parent.join(format!(".{leaf}.lock"))
}

/// Takes the lock of output directory `dir` (see [`DirLock`]), before anything is written:
/// fails at once, naming the holder, when another dctc process writes `dir` or a directory
/// that contains it. The parent of `dir` is created if missing.
pub(crate) fn lock(dir: &Path) -> Result<DirLock> {
    let (parent, leaf) = split(dir)?;
    // Before creating anything: a refused run leaves no directory behind.
    check_enclosing_locks(dir, &parent)?;
    std::fs::create_dir_all(&parent)
        .map_err(|e| refuse(dir, format!("cannot create {}: {e}", parent.display())))?;
    let path = lock_path(&parent, &leaf);
    loop {
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| refuse(dir, format!("cannot create {}: {e}", path.display())))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(refuse(dir, busy(&path)));
            }
            Err(std::fs::TryLockError::Error(e)) if e.kind() == std::io::ErrorKind::Unsupported => {
                // No advisory locks on this file system: go by the pid in the file.
                if let Some(pid) = holder(&path).and_then(|h| h.0.parse::<u32>().ok()) {
                    if pid != std::process::id() && process_alive(pid) {
                        return Err(refuse(dir, busy(&path)));
                    }
                }
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(refuse(dir, format!("cannot lock {}: {e}", path.display())));
            }
        }
        if !same_file(&file, &path) {
            continue; // Its holder removed it as we opened it: take the new one.
        }
        use std::io::Write;
        let command: Vec<String> = std::env::args().collect();
        file.set_len(0)
            .and_then(|()| write!(file, "{}\n{}\n", std::process::id(), command.join(" ")))
            .map_err(|e| refuse(dir, format!("cannot write {}: {e}", path.display())))?;
        return Ok(DirLock { file, path });
    }
}

/// Refuses `dir` when a directory containing it is held by another dctc process (a sweep
/// writing its points): probes each enclosing directory's lock without taking it.
fn check_enclosing_locks(dir: &Path, parent: &Path) -> Result<()> {
    let Some(canon) = resolve(parent) else {
        return Ok(());
    };
    let mut here = Some(canon.as_path());
    while let Some(d) = here {
        if let (Some(up), Some(name)) = (d.parent(), d.file_name()) {
            let path = lock_path(up, &name.to_string_lossy());
            if let Ok(file) = std::fs::File::open(&path) {
                let mine = holder(&path).is_some_and(|h| h.0 == std::process::id().to_string());
                if !mine
                    && matches!(
                        file.try_lock_shared(),
                        Err(std::fs::TryLockError::WouldBlock)
                    )
                {
                    return Err(refuse(
                        dir,
                        format!("is inside {}, which {}", d.display(), busy(&path)),
                    ));
                }
            }
        }
        here = d.parent();
    }
    Ok(())
}

/// `path` made absolute with its longest existing part canonicalized (symlinks followed) and
/// the rest, which does not exist yet, appended (`..` taken lexically): a directory still to
/// be created may sit inside a locked one whose holder has not written it yet.
fn resolve(path: &Path) -> Option<PathBuf> {
    let abs = std::env::current_dir().ok()?.join(path);
    let mut rest = Vec::new();
    let mut existing = abs.as_path();
    let canon = loop {
        if let Ok(c) = std::fs::canonicalize(existing) {
            break c;
        }
        rest.push(existing.file_name()?.to_os_string());
        existing = existing.parent()?;
    };
    let mut out = canon;
    for part in rest.iter().rev() {
        match part.to_str() {
            Some("..") => {
                out.pop();
            }
            Some(".") => {}
            _ => out.push(part),
        }
    }
    Some(out)
}

/// The pid and command line a lock file names, if it names them.
fn holder(path: &Path) -> Option<(String, String)> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    let pid = lines.next()?.trim().to_string();
    (!pid.is_empty()).then(|| (pid, lines.next().unwrap_or("").to_string()))
}

/// Why a locked directory cannot be written: who holds it.
fn busy(path: &Path) -> String {
    let who = match holder(path) {
        Some((pid, command)) if !command.is_empty() => format!("dctc process {pid} (`{command}`)"),
        Some((pid, _)) => format!("dctc process {pid}"),
        None => "another dctc process".into(),
    };
    format!(
        "is being written by {who} (lock {}); wait for it to finish, or choose another --out",
        path.display()
    )
}

/// Whether `path` still leads to the open `file`.
#[cfg(unix)]
fn same_file(file: &std::fs::File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Whether `path` still leads to the open `file` (assumed where it cannot be told).
#[cfg(not(unix))]
fn same_file(_file: &std::fs::File, path: &Path) -> bool {
    path.exists()
}

/// The hidden directory results are written to before the rename into `parent/leaf`.
fn partial_path(parent: &Path, leaf: &str) -> PathBuf {
    parent.join(format!(".{leaf}.partial-{}", std::process::id()))
}

/// Whether process `pid` is running. Where this cannot be told (no `/proc`), every process
/// counts as running, so nothing is removed.
fn process_alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return true;
    }
    proc.join(pid.to_string()).exists()
}

/// Removes `.NAME.partial-PID` directories in `parent` that an interrupted dctc left behind:
/// only those holding [`MARKER`] (so nothing of the user's is touched) whose process is gone.
pub(crate) fn clean_stale_partials(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix('.')
            .and_then(|n| n.rsplit_once(".partial-"))
            .and_then(|(_, pid)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let path = e.path();
        if pid != std::process::id()
            && !process_alive(pid)
            && e.file_type().is_ok_and(|t| t.is_dir())
            && path.join(MARKER).is_file()
        {
            std::fs::remove_dir_all(&path).ok();
        }
    }
}

/// Writes `files` (relative names, `/` for subdirectories) as the complete contents of `dir`,
/// with [`MARKER`]. `dir` is checked with [`check_destination`] first.
pub(crate) fn write_atomically(dir: &Path, files: &[(String, Vec<u8>)], force: bool) -> Result<()> {
    check_destination(dir, force)?;
    let (parent, leaf) = split(dir)?;
    let tmp = partial_path(&parent, &leaf);
    crate::interrupt::guard(&tmp);
    let result = (|| -> Result<()> {
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp)?;
        }
        std::fs::create_dir_all(&tmp)
            .with_context(|| format!("cannot create {}", tmp.display()))?;
        // The marker goes first: a partial directory without it is never cleaned up.
        std::fs::write(tmp.join(MARKER), MARKER_TEXT)
            .with_context(|| format!("cannot write {}", tmp.join(MARKER).display()))?;
        for (name, bytes) in files {
            let path = tmp.join(name);
            if let Some(p) = path.parent() {
                std::fs::create_dir_all(p)
                    .with_context(|| format!("cannot create {}", p.display()))?;
            }
            std::fs::write(&path, bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
            crate::interrupt::checkpoint();
        }
        if std::fs::symlink_metadata(dir).is_ok() {
            if dir.is_dir() && !dir.is_symlink() {
                std::fs::remove_dir_all(dir)
            } else {
                std::fs::remove_file(dir)
            }
            .with_context(|| format!("cannot replace {}", dir.display()))?;
        }
        std::fs::rename(&tmp, dir)
            .with_context(|| format!("cannot move results into {}", dir.display()))?;
        Ok(())
    })();
    crate::interrupt::unguard();
    if result.is_err() {
        std::fs::remove_dir_all(&tmp).ok();
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_the_directory_whole() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("run");
        write_atomically(
            &dir,
            &[
                ("a.txt".into(), b"1".to_vec()),
                ("sub/b.txt".into(), b"2".to_vec()),
            ],
            false,
        )
        .unwrap();
        assert_eq!(std::fs::read(dir.join("sub/b.txt")).unwrap(), b"2");
        write_atomically(&dir, &[("c.txt".into(), b"3".to_vec())], false).unwrap();
        assert!(!dir.join("a.txt").exists(), "old contents must be gone");
        assert!(dir.join("c.txt").exists());
        let leftovers: Vec<_> = std::fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    }

    #[test]
    fn csv_out_quotes_only_fields_that_need_it() {
        let mut c = CsvOut::new(&["scheme", "value"]);
        c.row(["plain", "1.5"]);
        c.row(["a,b", "say \"hi\""]);
        c.row(["", "x"]);
        let text = String::from_utf8(c.into_bytes()).unwrap();
        assert_eq!(
            text,
            "scheme,value\nplain,1.5\n\"a,b\",\"say \"\"hi\"\"\"\n,x\n"
        );
    }
}
