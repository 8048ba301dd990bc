//! Progress for long runs: simulated time against the target, with an ETA. The command line
//! draws a bar on stderr only when stderr is a terminal, so logs and CI output stay clean; a
//! front end (Python) can instead receive the same progress through a [`Hook`].

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Receives progress: `(label, done, total)`, where `label` names the phase (a scheme, or
/// `"points"` for a sweep) and `done` of `total` is simulated microseconds (a run) or finished
/// points (a sweep). Called from the thread that runs the engine, at most about once per
/// percent of each phase, never with `done` decreasing inside a phase.
pub type Hook<'a> = dyn Fn(&str, u64, u64) + Send + Sync + 'a;

/// A phase reported to a [`Hook`]: its label, its length, and 1 + the last percent reported
/// (0: nothing reported yet).
struct Phase {
    label: String,
    total: u64,
    reported: AtomicU64,
}

/// A progress bar over simulated time. Cheap to update; engines call [`Progress::set`] every
/// few thousand events.
pub(crate) struct Progress<'h> {
    bar: Option<ProgressBar>,
    hook: Option<&'h Hook<'h>>,
    phase: Mutex<Option<Phase>>,
}

impl<'h> Progress<'h> {
    /// Progress reported to `hook` rather than drawn.
    pub(crate) fn hooked(hook: &'h Hook<'h>) -> Progress<'h> {
        Progress {
            bar: None,
            hook: Some(hook),
            phase: Mutex::new(None),
        }
    }

    /// Tells the hook, if any, that `done` of the phase's `total` is reached, when that moved
    /// the reported percent.
    fn report(&self, done: u64) {
        let Some(hook) = self.hook else { return };
        let phase = self.phase.lock().unwrap_or_else(|e| e.into_inner());
        let Some(p) = phase.as_ref() else { return };
        let done = done.min(p.total);
        let percent = done.saturating_mul(100) / p.total.max(1);
        if p.reported.fetch_max(percent + 1, Ordering::Relaxed) < percent + 1 {
            hook(&p.label, done, p.total);
        }
    }

    /// A bar that draws when stderr is a terminal and `enabled` is true.
    pub(crate) fn new(enabled: bool) -> Progress<'static> {
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr_with_hz(4));
            bar.set_style(
                ProgressStyle::with_template("{msg:>14} [{bar:32}] {pos:>9}/{len} us simulated, {elapsed} elapsed, ETA {eta}")
                    .expect("valid template")
                    .progress_chars("=> "),
            );
            bar
        });
        Progress {
            bar,
            hook: None,
            phase: Mutex::new(None),
        }
    }

    /// A bar over `total` sweep points (when stderr is a terminal and `enabled` is true);
    /// advanced with [`Progress::inc`].
    pub(crate) fn points(enabled: bool, total: u64) -> Progress<'static> {
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(4));
            bar.set_style(
                ProgressStyle::with_template(
                    "sweep [{bar:32}] {pos}/{len} points, {elapsed} elapsed, ETA {eta}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar
        });
        Progress {
            bar,
            hook: None,
            phase: Mutex::new(None),
        }
    }

    /// Counts one more finished point.
    pub(crate) fn inc(&self) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    /// Starts a phase (e.g. one scheme) that runs to `total_ps` of simulated time.
    pub(crate) fn begin(&self, label: &str, total_ps: u64) {
        if let Some(b) = &self.bar {
            b.set_message(label.to_string());
            b.set_length((total_ps / 1_000_000).max(1));
            b.set_position(0);
            b.reset_eta();
        }
        if self.hook.is_some() {
            let total = (total_ps / 1_000_000).max(1);
            *self.phase.lock().unwrap_or_else(|e| e.into_inner()) = Some(Phase {
                label: label.to_string(),
                total,
                reported: AtomicU64::new(0),
            });
            self.report(0);
        }
    }

    /// Reports that simulated time reached `now_ps`.
    pub(crate) fn set(&self, now_ps: u64) {
        if let Some(b) = &self.bar {
            b.set_position(now_ps / 1_000_000);
        }
        self.report(now_ps / 1_000_000);
    }

    /// Clears the bar.
    pub(crate) fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
        self.report(u64::MAX);
    }
}
