//! Scenario files: the common part every engine shares, and typed parsing of the rest with
//! errors that name the file, the key path and the reason (with the nearest valid key when a
//! name is misspelt).

use dctc_core::config::{OutputSpec, WorkloadSpec};

use dctc_core::error::{unknown_name, KeyError};

pub(crate) use crate::parse::parse_value;
pub use crate::parse::ScenarioError;
use dctc_core::fabric::FabricSpec;
use dctc_core::topology::{Topology, TopologyError};
use dctc_core::units::checked::{self, SpanRule};
use dctc_core::units::Delta;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Which engine runs a scenario.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Engine {
    /// The packet-level simulator (`dctc-packet`).
    Packet,
    /// The flow-level simulator (`dctc-flow`).
    Flow,
    /// The NUM allocator on its own (`dctc-num`), e.g. Flowtune's churn experiment.
    Allocator,
}

/// The top level of a scenario file: what every engine shares, and the tables its engine reads.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    /// Names the output directory: letters, digits, '-', '_' or '.' (default: the file stem).
    #[serde(default)]
    name: Option<String>,
    /// Free text for the report.
    #[serde(default)]
    description: String,
    /// Master seed of the run; every random draw derives from it (default 1).
    #[serde(default = "default_seed")]
    seed: u64,
    /// Which engine runs the scenario: `packet`, `flow` or `allocator`.
    engine: Engine,
    /// Simulated time, ms, positive.
    duration_ms: f64,
    /// The fabric (see the `fabric` sections).
    #[schemars(with = "serde_json::Value")]
    fabric: FabricSpec,
    /// The workloads, one table each (see the `workload` sections).
    #[serde(default)]
    #[schemars(with = "Vec<serde_json::Value>")]
    workload: Vec<toml::Value>,
    /// The schemes compared, one table each (see the `schemes` sections of the engine).
    #[serde(default)]
    #[schemars(with = "Vec<serde_json::Value>")]
    schemes: Vec<toml::Value>,
    /// Packet engine settings (see the `packet` section).
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Value>")]
    packet: Option<toml::Value>,
    /// Flow engine settings (see the `flow` section).
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Value>")]
    flow: Option<toml::Value>,
    /// Allocator engine settings (see the `allocator` section).
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Value>")]
    allocator: Option<toml::Value>,
    /// What the engine records beside its results (see the `output` sections).
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Value>")]
    output: Option<toml::Value>,
    /// The paper's claims, graded beside ours, one row each (see the `paper` sections).
    #[serde(default)]
    #[schemars(with = "Vec<serde_json::Value>")]
    paper: Vec<toml::Value>,
}

/// The JSON Schema of the top level of a scenario, from the type that parses it; its tables
/// are left open (`crate::keys` puts in each table's own schema).
pub(crate) fn top_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    generator.subschema_for::<RawScenario>()
}

fn default_seed() -> u64 {
    1
}

/// A scenario with its common part checked.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The file it came from (or `<embedded demo>`).
    pub(crate) path: PathBuf,
    /// Directory that relative paths in the scenario resolve against.
    pub(crate) base_dir: PathBuf,
    /// Name (default: the file stem); names the output directory.
    pub(crate) name: String,
    /// Free text for the report.
    pub(crate) description: String,
    /// Master seed of the run.
    pub(crate) seed: u64,
    /// Which engine runs it.
    pub(crate) engine: Engine,
    /// Simulated time.
    pub(crate) duration: Delta,
    /// The fabric.
    pub(crate) fabric: FabricSpec,
    /// `[[workload]]` tables, parsed by the engine.
    pub(crate) workloads: Vec<toml::Value>,
    /// `[[schemes]]` tables, parsed by the engine.
    pub(crate) schemes: Vec<toml::Value>,
    /// The engine's own table (`[packet]`, `[flow]` or `[allocator]`); empty when absent.
    pub(crate) settings: toml::Value,
    /// `[output]`; empty when absent.
    pub(crate) output: toml::Value,
    /// The paper's claims, graded beside ours (`[[paper]]` rows).
    pub(crate) paper: Vec<crate::paper::claims::Row>,
    /// The whole file as parsed, echoed into `summary.json`.
    pub(crate) raw: toml::Value,
}

impl Scenario {
    /// Reads and checks a scenario file. `seed` overrides the file's seed.
    pub(crate) fn load(path: &Path, seed: Option<u64>) -> Result<Scenario, ScenarioError> {
        let text = dctc_core::input::read_input_file(path).map_err(|e| ScenarioError {
            file: path.display().to_string(),
            key: String::new(),
            reason: format!("cannot read: {e}"),
        })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Scenario::from_str(&text, path, &base, seed)
    }

    /// Parses scenario text; `path` names it in errors and gives the default name.
    pub(crate) fn from_str(
        text: &str,
        path: &Path,
        base_dir: &Path,
        seed: Option<u64>,
    ) -> Result<Scenario, ScenarioError> {
        Scenario::from_source(text, path, base_dir, seed, None)
    }

    /// [`Scenario::from_str`], with `default_name` (when given) instead of the file stem as
    /// the name of a scenario without `name`: text that never was a file has no stem.
    pub(crate) fn from_source(
        text: &str,
        path: &Path,
        base_dir: &Path,
        seed: Option<u64>,
        default_name: Option<&str>,
    ) -> Result<Scenario, ScenarioError> {
        let file = path.display().to_string();
        let raw: toml::Value = toml::from_str(text).map_err(|e| ScenarioError {
            file: file.clone(),
            key: String::new(),
            reason: format!("not valid TOML: {}", e.to_string().trim()),
        })?;
        let r: RawScenario = parse_value(&raw, "", &file)?;
        let err = |key: &str, reason: String| ScenarioError {
            file: file.clone(),
            key: key.into(),
            reason,
        };
        let duration = checked::span_ms(
            "duration_ms",
            r.duration_ms,
            SpanRule::positive(Delta::MAX_SCENARIO),
        )
        .map_err(|e| err(&e.path, e.reason))?;
        let name = r
            .name
            .or(default_name.map(str::to_string))
            .unwrap_or_else(|| {
                path.file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "scenario".into())
            });
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            || name.starts_with('.')
        {
            return Err(err("name", format!("`{name}` must be letters, digits, '-', '_' or '.' (it names the output directory)")));
        }
        let paper = r
            .paper
            .iter()
            .enumerate()
            .map(|(i, row)| {
                crate::paper::claims::parse_row(row, &format!("paper[{i}]"), &file, false)
            })
            .collect::<Result<Vec<_>, _>>()?;
        for (i, s) in r.schemes.iter().enumerate() {
            if !s.is_table() {
                return Err(err(&format!("schemes[{i}]"), "must be a table".into()));
            }
            // Names and labels head CSV rows and report columns in every engine's output.
            for key in ["name", "label"] {
                if let Some(text) = s.get(key).and_then(toml::Value::as_str) {
                    if text.is_empty() || text.contains([',', '"', '\n', '\r']) {
                        return Err(err(
                            &format!("schemes[{i}].{key}"),
                            format!("`{text}` must be non-empty, without commas, quotes or line breaks (it names CSV rows)"),
                        ));
                    }
                }
            }
        }
        let (settings, unused) = match r.engine {
            Engine::Packet => (
                r.packet,
                [
                    ("flow", r.flow.is_some()),
                    ("allocator", r.allocator.is_some()),
                ],
            ),
            Engine::Flow => (
                r.flow,
                [
                    ("packet", r.packet.is_some()),
                    ("allocator", r.allocator.is_some()),
                ],
            ),
            Engine::Allocator => (
                r.allocator,
                [("packet", r.packet.is_some()), ("flow", r.flow.is_some())],
            ),
        };
        if let Some((table, _)) = unused.iter().find(|(_, present)| *present) {
            return Err(err(table, format!("this scenario runs on the {:?} engine; `[{table}]` settings do not apply to it", r.engine)));
        }
        Ok(Scenario {
            path: path.to_path_buf(),
            base_dir: base_dir.to_path_buf(),
            name,
            description: r.description,
            seed: seed.unwrap_or(r.seed),
            engine: r.engine,
            duration,
            fabric: r.fabric,
            workloads: r.workload,
            schemes: r.schemes,
            settings: settings.unwrap_or_else(empty_table),
            output: r.output.unwrap_or_else(empty_table),
            paper,
            raw,
        })
    }

    /// Parses part of this scenario into `T`; `key` is where `value` sits (e.g. `schemes[1]`).
    pub(crate) fn parse<T: DeserializeOwned>(
        &self,
        value: &toml::Value,
        key: &str,
    ) -> Result<T, ScenarioError> {
        parse_value(value, key, &self.path.display().to_string())
    }

    /// `[[workload]]` table `i` as the shared spec. Its `kind` is checked against `kinds` (the
    /// engine's) first, so that an error lists only the kinds this engine runs.
    pub(crate) fn workload_spec(
        &self,
        i: usize,
        kinds: &[&str],
    ) -> Result<WorkloadSpec, ScenarioError> {
        let key = format!("workload[{i}]");
        let value = &self.workloads[i];
        if let Some(kind) = value.get("kind").and_then(toml::Value::as_str) {
            if !kinds.contains(&kind) {
                return Err(self.error(&format!("{key}.kind"), unknown_name("name", kind, kinds)));
            }
        }
        self.parse(value, &key)
    }

    /// Every `[[workload]]` table, in order; see [`Scenario::workload_spec`].
    pub(crate) fn workload_specs(
        &self,
        kinds: &[&str],
    ) -> Result<Vec<WorkloadSpec>, ScenarioError> {
        (0..self.workloads.len())
            .map(|i| self.workload_spec(i, kinds))
            .collect()
    }

    /// `[output]` as the shared spec, its keys checked against `keys` (the engine's) first.
    pub(crate) fn output_spec(&self, keys: &[&str]) -> Result<OutputSpec, ScenarioError> {
        if let Some(table) = self.output.as_table() {
            if let Some(k) = table.keys().find(|k| !keys.contains(&k.as_str())) {
                return Err(self.error(&format!("output.{k}"), unknown_name("key", k, keys)));
            }
        }
        self.parse(&self.output, "output")
    }

    /// A [`ScenarioError`] from an engine's [`KeyError`], whose path is already complete.
    pub(crate) fn key_error(&self, e: KeyError) -> ScenarioError {
        self.error(&e.path, e.reason)
    }

    /// A [`ScenarioError`] from a fabric that cannot be built: a parameter's error names it
    /// (`fabric.host_rate_gbps`); a fabric file's, the file (`fabric.path`) and its own key.
    pub(crate) fn fabric_error(&self, e: TopologyError) -> ScenarioError {
        match (&self.fabric, e) {
            (FabricSpec::File { path }, e) => self.error(
                "fabric.path",
                format!("{}: {e}", self.base_dir.join(path).display()),
            ),
            (_, TopologyError::Invalid { key, reason }) => {
                self.error(&format!("fabric.{key}"), reason)
            }
            (_, e) => self.error("fabric", e.to_string()),
        }
    }

    /// The fabric, built; errors as [`Scenario::fabric_error`].
    pub(crate) fn build_fabric(&self) -> Result<Topology, ScenarioError> {
        self.fabric
            .build(&self.base_dir)
            .map_err(|e| self.fabric_error(e))
    }

    /// The files this scenario reads: the scenario itself, a fabric file, and each
    /// workload's trace, CSV or CDF file (built-in CDF names are not files).
    pub(crate) fn input_files(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        if self.path.is_file() {
            out.push(self.path.clone());
        }
        if let FabricSpec::File { path } = &self.fabric {
            out.push(self.base_dir.join(path));
        }
        for w in &self.workloads {
            if let Some(p) = w.get("path").and_then(toml::Value::as_str) {
                out.push(self.base_dir.join(p));
            }
            if let Some(c) = w.get("cdf").and_then(toml::Value::as_str) {
                if dctc_core::workload::Cdf::builtin(c).is_none() {
                    out.push(self.base_dir.join(c));
                }
            }
        }
        out
    }

    /// Prints `warning: FILE: `KEY`: REASON` on stderr for a value that is legal but most
    /// likely a slip, once per process however often the scenario is checked (`validate`,
    /// then the run, or every point of a sweep).
    pub(crate) fn warn(&self, key: &str, reason: impl Into<String>) {
        static PRINTED: std::sync::Mutex<std::collections::BTreeSet<String>> =
            std::sync::Mutex::new(std::collections::BTreeSet::new());
        let text = format!("warning: {}", self.error(key, reason));
        let mut printed = PRINTED.lock().unwrap_or_else(|e| e.into_inner());
        if printed.insert(text.clone()) {
            eprintln!("{text}");
        }
    }

    /// A [`ScenarioError`] for `key` of this scenario.
    pub(crate) fn error(&self, key: &str, reason: impl Into<String>) -> ScenarioError {
        ScenarioError {
            file: self.path.display().to_string(),
            key: key.into(),
            reason: reason.into(),
        }
    }
}

fn empty_table() -> toml::Value {
    toml::Value::Table(toml::map::Map::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "t"
engine = "packet"
duration_ms = 2.0
[fabric]
kind = "preset"
name = "flowtune-144"
[[schemes]]
name = "dctcp"
"#;

    fn load(text: &str) -> Result<Scenario, ScenarioError> {
        Scenario::from_str(text, Path::new("s.toml"), Path::new("."), None)
    }

    #[test]
    fn good_scenario_parses_with_defaults() {
        let s = load(GOOD).unwrap();
        assert_eq!(s.name, "t");
        assert_eq!(s.seed, 1);
        assert_eq!(s.engine, Engine::Packet);
        assert_eq!(s.duration, Delta::from_ms(2));
        assert_eq!(s.schemes.len(), 1);
        assert!(s.settings.as_table().unwrap().is_empty());
    }

    #[test]
    fn unknown_top_level_key_suggests_the_nearest() {
        let e = load(&GOOD.replace("duration_ms", "duraton_ms")).unwrap_err();
        assert_eq!(e.file, "s.toml");
        assert!(e.reason.contains("did you mean `duration_ms`"), "{e}");
    }

    #[test]
    fn unknown_engine_lists_the_valid_ones() {
        let e = load(&GOOD.replace("\"packet\"", "\"pakcet\"")).unwrap_err();
        assert_eq!(e.key, "engine");
        assert!(e.reason.contains("did you mean `packet`"), "{e}");
    }

    #[test]
    fn nested_keys_carry_their_path() {
        let e = load(&GOOD.replace(
            "name = \"flowtune-144\"",
            "name = \"flowtune-144\"\nbuffer = 3",
        ))
        .unwrap_err();
        assert!(e.key.starts_with("fabric"), "{e}");
        assert!(e.reason.contains("buffer"), "{e}");
    }

    #[test]
    fn a_wrong_value_inside_a_tagged_table_names_its_field_not_the_table() {
        let leaf = r#"
name = "t"
engine = "packet"
duration_ms = 2.0
[fabric]
kind = "leaf-spine"
racks = 2
hosts_per_rack = 4
spines = 2
host_rate_gbps = 10.0
fabric_rate_gbps = 40.0
host_link_delay_us = 1.0
fabric_link_delay_us = 1.0
buffer_bytes = 225000
[[schemes]]
name = "dctcp"
"#;
        assert!(load(leaf).is_ok());
        let e = load(&leaf.replace("buffer_bytes = 225000", "buffer_bytes = \"x\"")).unwrap_err();
        assert_eq!(e.key, "fabric.buffer_bytes", "{e}");
        assert!(e.reason.contains("invalid type: string"), "{e}");
        // Two wrong values: the one the message is about.
        let e = load(
            &leaf
                .replace("racks = 2", "racks = 2.5")
                .replace("buffer_bytes = 225000", "buffer_bytes = -1"),
        )
        .unwrap_err();
        assert!(e.reason.contains("2.5") || e.reason.contains("-1"), "{e}");
        let field = if e.reason.contains("2.5") {
            "racks"
        } else {
            "buffer_bytes"
        };
        assert_eq!(e.key, format!("fabric.{field}"), "{e}");
        // A missing field stays at the table, whose message names it.
        let e = load(&leaf.replace("spines = 2\n", "")).unwrap_err();
        assert_eq!(e.key, "fabric", "{e}");
        assert!(e.reason.contains("missing field `spines`"), "{e}");
        // Inside a workload table, and in a list of flows inside it.
        let s = load(&format!(
            "{GOOD}[[workload]]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 1, size_bytes = 1, start_us = 0.0 }}, {{ src = 0, dst = 1, size_bytes = 1, start_us = \"soon\" }}]\n[[workload]]\nkind = \"poisson\"\ncdf = \"websearch\"\nload = \"high\"\n"
        ))
        .unwrap();
        let e = s.workload_spec(0, &["flows"]).unwrap_err();
        assert_eq!(e.key, "workload[0].flows[1].start_us", "{e}");
        let e = s.workload_spec(1, &["poisson"]).unwrap_err();
        assert_eq!(e.key, "workload[1].load", "{e}");
    }

    #[test]
    fn bad_values_are_rejected() {
        let e = load(&GOOD.replace("2.0", "-1.0")).unwrap_err();
        assert_eq!(e.key, "duration_ms");
        let e = load(&GOOD.replace("name = \"t\"", "name = \"../x\"")).unwrap_err();
        assert_eq!(e.key, "name");
        let e = load("engine = [").unwrap_err();
        assert!(e.reason.starts_with("not valid TOML"), "{e}");
        let e = load(&format!("{GOOD}\n[flow]\nx = 1\n")).unwrap_err();
        assert_eq!(e.key, "flow");
        let e = load(&GOOD.replace(
            "name = \"dctcp\"",
            "name = \"dctcp\"\nlabel = \"DCTCP, K=65\"",
        ))
        .unwrap_err();
        assert_eq!(e.key, "schemes[0].label");
        assert!(e.reason.contains("commas"), "{e}");
    }

    #[test]
    fn workload_kinds_and_output_keys_are_checked_against_the_engines_lists() {
        let text = format!("{GOOD}[[workload]]\nkind = \"incst\"\n[output]\ncdf_points = 3\n");
        let s = load(&text).unwrap();
        let e = s.workload_spec(0, &["poisson", "incast"]).unwrap_err();
        assert_eq!(e.key, "workload[0].kind");
        assert_eq!(
            e.reason,
            "unknown name `incst`, did you mean `incast`? (valid: `poisson`, `incast`)"
        );
        let e = s.output_spec(&["queue_sample_us"]).unwrap_err();
        assert_eq!(e.key, "output.cdf_points");
        assert_eq!(
            e.reason,
            "unknown key `cdf_points` (valid: `queue_sample_us`)"
        );
        assert_eq!(s.output_spec(&["cdf_points"]).unwrap().cdf_points, Some(3));
        let s = load(&text.replace("\"incst\"", "\"flows\"\nflows = []")).unwrap();
        assert_eq!(s.workload_specs(&["flows"]).unwrap()[0].kind(), "flows");
    }

    #[test]
    fn engine_sections_parse_with_full_paths() {
        #[derive(Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Scheme {
            name: String,
            ecn_k_bytes: Option<u64>,
        }
        let s = load(&GOOD.replace("name = \"dctcp\"", "name = \"dctcp\"\necn_k = 5")).unwrap();
        let e = s.parse::<Scheme>(&s.schemes[0], "schemes[0]").unwrap_err();
        assert_eq!(e.key, "schemes[0].ecn_k");
        assert!(e.reason.contains("did you mean `ecn_k_bytes`"), "{e}");
        assert_eq!(
            e.to_string(),
            format!("s.toml: `schemes[0].ecn_k`: {}", e.reason)
        );
    }
}
