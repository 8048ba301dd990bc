//! Progress on stderr for long runs: simulated time against the target, with an ETA. Drawn
//! only when stderr is a terminal, so logs and CI output stay clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A progress bar over simulated time. Cheap to update; engines call [`Progress::set`] every
/// few thousand events.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar that draws when stderr is a terminal and `enabled` is true.
    pub(crate) fn new(enabled: bool) -> Progress {
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr_with_hz(4));
            bar.set_style(
                ProgressStyle::with_template("{msg:>14} [{bar:32}] {pos:>9}/{len} us simulated, {elapsed} elapsed, ETA {eta}")
                    .expect("valid template")
                    .progress_chars("=> "),
            );
            bar
        });
        Progress { bar }
    }

    /// A bar over `total` sweep points (when stderr is a terminal and `enabled` is true);
    /// advanced with [`Progress::inc`].
    pub(crate) fn points(enabled: bool, total: u64) -> Progress {
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
        Progress { bar }
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
    }

    /// Reports that simulated time reached `now_ps`.
    pub(crate) fn set(&self, now_ps: u64) {
        if let Some(b) = &self.bar {
            b.set_position(now_ps / 1_000_000);
        }
    }

    /// Clears the bar.
    pub(crate) fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
