//! Typed parsing of scenario TOML with errors that name the file, the key path and the
//! reason, with the nearest valid key or name when one is misspelt ([`parse_value`],
//! [`ScenarioError`]). A leaf: the scenario, its `[[paper]]` rows and the ledger all parse
//! through it.

use dctc_core::error::unknown_name;
use serde::de::DeserializeOwned;
use std::fmt;

/// A scenario that cannot be used: which file, which key, why.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    /// The scenario file.
    pub file: String,
    /// Dotted key path (empty for the file as a whole).
    pub key: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}: {}", self.file, self.reason)
        } else {
            write!(f, "{}: `{}`: {}", self.file, self.key, self.reason)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Parses `value` into `T`. Errors carry `file`, the full key path below `key`, and for an
/// unknown key or name, the nearest valid one.
pub(crate) fn parse_value<T: DeserializeOwned>(
    value: &toml::Value,
    key: &str,
    file: &str,
) -> Result<T, ScenarioError> {
    serde_path_to_error::deserialize(value.clone()).map_err(|e| {
        let inner = e.path().to_string();
        let mut path = match (key.is_empty(), inner == ".") {
            (true, _) => inner.clone(),
            (false, true) => key.to_string(),
            (false, false) => format!("{key}.{inner}"),
        };
        if path == "." {
            path.clear();
        }
        ScenarioError {
            file: file.to_string(),
            key: path,
            reason: explain(&e.into_inner().to_string()),
        }
    })
}

/// Rewrites serde's "unknown field `x`, expected one of `a`, `b`" into a message that names the
/// nearest valid choice.
fn explain(message: &str) -> String {
    let message = message.trim().to_string();
    for what in ["unknown field", "unknown variant"] {
        let Some(rest) = message.strip_prefix(what) else {
            continue;
        };
        let names: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
        let Some((bad, valid)) = names.split_first() else {
            continue;
        };
        let noun = if what == "unknown field" {
            "key"
        } else {
            "name"
        };
        return unknown_name(noun, bad, valid);
    }
    message
}
