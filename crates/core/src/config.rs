//! What every engine's configuration shares: the error for a value that cannot be used,
//! naming the dotted key path to it and the reason.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_prefixes_the_path() {
        let e = KeyError::new("k_bytes", "must be > 0");
        assert_eq!(e.clone().at("schemes[1]").path, "schemes[1].k_bytes");
        assert_eq!(
            e.clone().at("k_bytes").at("schemes[1]").path,
            "schemes[1].k_bytes.k_bytes"
        );
        assert_eq!(e.clone().at("").path, "k_bytes");
        assert_eq!(
            KeyError::new("[2].size", "x").at("workload").path,
            "workload[2].size"
        );
        assert_eq!(KeyError::new("", "x").at("flow").path, "flow");
        // The reason never changes.
        assert_eq!(e.at("a").at("b").reason, "must be > 0");
    }

    #[test]
    fn display_names_the_path_then_the_reason() {
        assert_eq!(
            KeyError::new("flow.within", "must be > 0").to_string(),
            "flow.within: must be > 0"
        );
        assert_eq!(KeyError::new("", "empty file").to_string(), "empty file");
    }
}
