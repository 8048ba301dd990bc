//! Ctrl-C during the final write of a run's results: while results are being written into
//! their hidden `.NAME.partial-PID` directory, SIGINT is deferred to the next file boundary,
//! where the partial directory is removed and dctc exits with status 130. Outside that window
//! SIGINT ends the process at once with status 130 (nothing is half-written then).
//! Directories left by a harder kill are removed by the next run
//! ([`crate::output::clean_stale_partials`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once};

/// Set by the handler when SIGINT arrives while a partial directory is being written.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// Whether a partial directory is being written (SIGINT is deferred only then).
static DEFERRING: AtomicBool = AtomicBool::new(false);
/// The partial directory to remove on interrupt.
static GUARDED: Mutex<Option<PathBuf>> = Mutex::new(None);
/// The handler is installed once per process.
static INSTALL: Once = Once::new();

/// Installs the SIGINT handler. `ctrlc` runs it on a thread of its own (not in signal context),
/// so it may exit the process: at once outside the write window (what SIGINT's default action
/// would do, with status 130), or at the next file boundary inside it.
fn set_handler(deferred: bool) {
    DEFERRING.store(deferred, Ordering::SeqCst);
    INSTALL.call_once(|| {
        // If a handler cannot be installed, SIGINT keeps its default action: the run ends at
        // once and the next run removes the partial directory.
        let _ = ctrlc::set_handler(|| {
            if DEFERRING.load(Ordering::SeqCst) {
                INTERRUPTED.store(true, Ordering::SeqCst);
            } else {
                std::process::exit(130);
            }
        });
    });
}

/// Defers SIGINT while `partial` is being written.
pub(crate) fn guard(partial: &Path) {
    *GUARDED.lock().unwrap_or_else(|e| e.into_inner()) = Some(partial.to_path_buf());
    set_handler(true);
}

/// If SIGINT arrived, removes the partial directory and exits with status 130.
pub(crate) fn checkpoint() {
    if INTERRUPTED.load(Ordering::SeqCst) {
        let partial = GUARDED.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(p) = partial {
            if std::fs::remove_dir_all(&p).is_ok() {
                eprintln!(
                    "interrupted: removed the partial results in {}",
                    p.display()
                );
            }
        }
        std::process::exit(130);
    }
}

/// Ends the deferral; a SIGINT that came after the last file boundary takes effect now.
pub(crate) fn unguard() {
    set_handler(false);
    checkpoint();
    *GUARDED.lock().unwrap_or_else(|e| e.into_inner()) = None;
}
