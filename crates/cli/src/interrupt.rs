//! Ctrl-C during the final write of a run's results: while results are being written into
//! their hidden `.NAME.partial-PID` directory, SIGINT is deferred to the next file boundary,
//! where the partial directory is removed and dctc exits with status 130. Outside that window
//! SIGINT keeps its usual action (the process ends at once; nothing is half-written then).
//! Directories left by a harder kill are removed by the next run
//! ([`crate::output::clean_stale_partials`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Set by the signal handler; read at file boundaries.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// The partial directory to remove on interrupt.
static GUARDED: Mutex<Option<PathBuf>> = Mutex::new(None);

#[cfg(unix)]
extern "C" fn on_sigint(_: libc::c_int) {
    // Only an atomic store: the one thing a signal handler may safely do here.
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// The SIGINT disposition before [`guard`], restored by [`unguard`] (a run started with
/// SIGINT ignored, e.g. under `nohup`, keeps ignoring it).
#[cfg(unix)]
static PREVIOUS: Mutex<Option<libc::sighandler_t>> = Mutex::new(None);

#[cfg(unix)]
fn set_handler(deferred: bool) {
    let mut previous = PREVIOUS.lock().unwrap_or_else(|e| e.into_inner());
    if deferred {
        let handler = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // SAFETY: `on_sigint` only stores to an atomic, which is async-signal-safe.
        let old = unsafe { libc::signal(libc::SIGINT, handler) };
        if old == libc::SIG_IGN {
            // SIGINT was ignored: keep ignoring it rather than act on it here.
            // SAFETY: setting the ignore disposition has no handler to be unsafe in.
            unsafe {
                libc::signal(libc::SIGINT, libc::SIG_IGN);
            }
        } else if old != libc::SIG_ERR {
            *previous = Some(old);
        }
    } else if let Some(old) = previous.take() {
        // SAFETY: restores the disposition `signal` returned above.
        unsafe {
            libc::signal(libc::SIGINT, old);
        }
    }
}

#[cfg(not(unix))]
fn set_handler(_deferred: bool) {}

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
