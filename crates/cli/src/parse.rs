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
    let (inner, message) = match deserialize::<T>(value) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    // serde_path_to_error cannot see inside a table it had to buffer (an internally tagged
    // enum: `[fabric]` by `kind`, `[[workload]]`), so a wrong value there is reported at the
    // table: find the field that causes the error instead.
    let inner = match at_path(value, &inner) {
        Some(table @ toml::Value::Table(_)) if !message.starts_with("missing field") => {
            match culprit::<T>(value, &inner, table, &message) {
                Some(below) => join_path(&inner, &below),
                None => inner,
            }
        }
        _ => inner,
    };
    let mut path = match (key.is_empty(), inner.is_empty()) {
        (true, _) => inner,
        (false, true) => key.to_string(),
        (false, false) if inner.starts_with('[') => format!("{key}{inner}"),
        (false, false) => format!("{key}.{inner}"),
    };
    if path == "." {
        path.clear();
    }
    Err(ScenarioError {
        file: file.to_string(),
        key: path,
        reason: explain(&message),
    })
}

/// `value` as `T`, or the path (empty for `value` itself) and message of the error.
fn deserialize<T: DeserializeOwned>(value: &toml::Value) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize(value.clone()).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        (path, e.into_inner().to_string())
    })
}

/// `a` joined to the relative path `b` (`x` + `y` = `x.y`, `x` + `[2].y` = `x[2].y`).
fn join_path(a: &str, b: &str) -> String {
    if a.is_empty() || b.starts_with('[') {
        format!("{a}{b}")
    } else {
        format!("{a}.{b}")
    }
}

/// One step of a path as serde_path_to_error writes it.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The steps of `workload[1].flows[0].x`.
fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, mut rest) = part.split_at(part.find('[').unwrap_or(part.len()));
        if !name.is_empty() {
            out.push(Step::Key(name));
        }
        while let Some(close) = rest.find(']') {
            if let Ok(i) = rest[1..close].parse() {
                out.push(Step::Index(i));
            }
            rest = &rest[close + 1..];
        }
    }
    out
}

fn at_path<'a>(value: &'a toml::Value, path: &str) -> Option<&'a toml::Value> {
    steps(path)
        .into_iter()
        .try_fold(value, |v, step| match step {
            Step::Key(k) => v.get(k),
            Step::Index(i) => v.get(i),
        })
}

fn at_path_mut<'a>(value: &'a mut toml::Value, path: &str) -> Option<&'a mut toml::Value> {
    steps(path)
        .into_iter()
        .try_fold(value, |v, step| match step {
            Step::Key(k) => v.get_mut(k),
            Step::Index(i) => v.get_mut(i),
        })
}

/// The key that tags the scenario's tagged tables (`[fabric]`, `[[workload]]`).
const TAG: &str = "kind";

/// Most leaves [`culprit`] tries: past this a table (a long explicit flow list) is searched
/// only at its first level, so an error never costs more than a few thousand parses.
const MAX_CULPRIT_LEAVES: usize = 2000;

/// The key below `table` (at `at` in `root`) whose value causes `message`: the last leaf, in
/// the order serde reads them, whose removal changes the error. Serde stops at the wrong
/// value, so removing a leaf read after it changes nothing; removing one read before it
/// changes the error only if that leaf's table is then missing a field, reported when the
/// table ends, which is before the wrong value only for a table read before it (an earlier
/// flow of a list), never its own.
fn culprit<T: DeserializeOwned>(
    root: &toml::Value,
    at: &str,
    table: &toml::Value,
    message: &str,
) -> Option<String> {
    let mut leaves = Vec::new();
    collect_leaves(table, String::new(), &mut leaves);
    if leaves.len() > MAX_CULPRIT_LEAVES {
        leaves = table
            .as_table()
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default();
    }
    // The tag of a tagged table is read before the rest whatever its place, so it is the
    // culprit only of an error about itself.
    let tag_error = message.starts_with("unknown variant") || message.contains("`kind`");
    leaves.into_iter().rev().find(|leaf| {
        if leaf == TAG && !tag_error {
            return false;
        }
        let mut doc = root.clone();
        let (parent, last) = match leaf.rfind(['.', '[']) {
            Some(i) if leaf[i..].starts_with('.') => (join_path(at, &leaf[..i]), &leaf[i + 1..]),
            Some(_) => return false,
            None => (at.to_string(), leaf.as_str()),
        };
        let removed = at_path_mut(&mut doc, &parent)
            .and_then(toml::Value::as_table_mut)
            .and_then(|t| t.remove(last))
            .is_some();
        removed
            && match deserialize::<T>(&doc) {
                Ok(_) => true,
                Err((_, m)) => m != message,
            }
    })
}

/// The paths of the scalar leaves below `v` (keys of tables, tables in arrays), in order; an
/// array of scalars is one leaf.
fn collect_leaves(v: &toml::Value, prefix: String, out: &mut Vec<String>) {
    match v {
        toml::Value::Table(t) => {
            for (k, x) in t {
                collect_leaves(x, join_path(&prefix, k), out);
            }
        }
        toml::Value::Array(a) if a.iter().all(toml::Value::is_table) && !a.is_empty() => {
            for (i, x) in a.iter().enumerate() {
                collect_leaves(x, format!("{prefix}[{i}]"), out);
            }
        }
        _ => out.push(prefix),
    }
    if out.len() > MAX_CULPRIT_LEAVES {
        out.truncate(MAX_CULPRIT_LEAVES + 1);
    }
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
