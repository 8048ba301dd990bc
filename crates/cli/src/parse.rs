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
/// nearest valid choice (serde's message lists the choices on its first line).
fn explain(message: &str) -> String {
    let message = message.trim().to_string();
    // The first line only: a nested table's message goes on "\nin `table`", whose name is
    // not one of the choices.
    let first = message.lines().next().unwrap_or_default();
    for what in ["unknown field", "unknown variant"] {
        let Some(rest) = first.strip_prefix(what) else {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        samples: Option<u32>,
        memory: Option<u32>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Outer {
        drill: Option<Inner>,
    }

    #[test]
    fn a_misspelt_key_in_a_sub_table_lists_that_table_s_keys_only() {
        let v: toml::Value = toml::from_str("drill = { sample = 1 }").unwrap();
        let e = parse_value::<Outer>(&v, "packet", "s.toml").unwrap_err();
        assert_eq!(e.key, "packet.drill.sample");
        assert_eq!(
            e.reason,
            "unknown key `sample`, did you mean `samples`? (valid: `samples`, `memory`)"
        );
    }
}
