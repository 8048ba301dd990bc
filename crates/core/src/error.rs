//! The error every engine reports for a scenario value it cannot use ([`KeyError`]: the
//! dotted key path and the reason), and how a name outside a fixed list is answered
//! ([`unknown_name`], with the nearest valid choice). A leaf: every module may use it.

use std::fmt;

/// A configuration value that cannot be used: where it sits and why.
///
/// A part that validates its own table reports paths relative to that table (`k_bytes`); the
/// caller that knows where the table sits prefixes them with [`KeyError::at`]
/// (`schemes[1]` + `k_bytes` -> `schemes[1].k_bytes`), so the message names the full key path
/// of the scenario file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyError {
    /// Dotted key path (`schemes[1].k_bytes`); empty for the table as a whole.
    pub path: String,
    /// What is wrong (`must be > 0`).
    pub reason: String,
}

impl KeyError {
    /// An error at `path`.
    pub fn new(path: impl Into<String>, reason: impl Into<String>) -> KeyError {
        KeyError {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// The same error seen from the table at `prefix`: `prefix` joined to the path with a dot,
    /// or directly before an index (`[2]`); an empty path becomes `prefix` itself.
    pub fn at(mut self, prefix: &str) -> KeyError {
        self.path = if prefix.is_empty() {
            self.path
        } else if self.path.is_empty() {
            prefix.to_string()
        } else if self.path.starts_with('[') {
            format!("{prefix}{}", self.path)
        } else {
            format!("{prefix}.{}", self.path)
        };
        self
    }
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.reason)
        } else {
            write!(f, "{}: {}", self.path, self.reason)
        }
    }
}

impl std::error::Error for KeyError {}

/// "unknown name `x`, did you mean `y`? (valid: `a`, `b`)": how every engine and the cli
/// report a scenario value outside a fixed list (`noun` says what was named: `key`, `name`,
/// `scheme`, `policy`, ...). The suggestion is left out when no valid choice is near
/// ([`nearest`]).
pub fn unknown_name(noun: &str, bad: &str, valid: &[&str]) -> String {
    if valid.is_empty() {
        return format!("unknown {noun} `{bad}`: none is allowed here");
    }
    let list = valid
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match nearest(bad, valid) {
        Some(v) => format!("unknown {noun} `{bad}`, did you mean `{v}`? (valid: {list})"),
        None => format!("unknown {noun} `{bad}` (valid: {list})"),
    }
}

/// The valid choice most like `bad` (Jaro-Winkler similarity), if it is near enough (0.8) to
/// be a likely misspelling.
pub fn nearest<'a>(bad: &str, valid: &[&'a str]) -> Option<&'a str> {
    valid
        .iter()
        .map(|v| (strsim::jaro_winkler(bad, v), *v))
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .filter(|(score, _)| *score >= 0.8)
        .map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_suggest_only_a_near_choice() {
        let valid = ["queue_sample_us", "throughput_bin_us"];
        assert_eq!(
            unknown_name("key", "queue_sample_s", &valid),
            "unknown key `queue_sample_s`, did you mean `queue_sample_us`? \
             (valid: `queue_sample_us`, `throughput_bin_us`)"
        );
        assert_eq!(
            unknown_name("key", "flows_csv", &valid),
            "unknown key `flows_csv` (valid: `queue_sample_us`, `throughput_bin_us`)"
        );
        assert!(unknown_name("key", "x", &[]).contains("none is allowed"));
        assert_eq!(nearest("dctpc", &["dctcp", "pfabric"]), Some("dctcp"));
        assert_eq!(nearest("zzz", &["dctcp", "pfabric"]), None);
    }
}
