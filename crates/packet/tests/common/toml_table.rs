//! Scenario tables written as TOML, read the way the binary reads them (the unit tests of
//! the crate include this file too).
#![allow(dead_code, unreachable_pub)]

use dctc_core::error::KeyError;
use dctc_core::topology::Topology;
use dctc_packet::config::PacketSettings;
use dctc_packet::keys::ParseTable;
use dctc_packet::schemes::resolve_scheme;
use dctc_packet::PacketScheme;

/// A TOML table sitting at `at` in a scenario (`schemes[0]`, `packet`).
pub struct TomlTable {
    /// The table.
    pub value: toml::Value,
    /// Where it sits.
    pub at: String,
}

impl TomlTable {
    /// The table written `src`, at `at`.
    pub fn new(src: &str, at: &str) -> TomlTable {
        TomlTable::of(toml::from_str(src).expect("valid TOML"), at)
    }

    /// The table `value`, at `at`.
    pub fn of(value: toml::Value, at: &str) -> TomlTable {
        TomlTable {
            value,
            at: at.to_string(),
        }
    }
}

impl ParseTable for TomlTable {
    fn keys(&self) -> Vec<String> {
        self.value
            .as_table()
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default()
    }

    fn parse_keys<T: serde::de::DeserializeOwned>(&self, names: &[&str]) -> Result<T, KeyError> {
        let part: toml::Table = self
            .value
            .as_table()
            .into_iter()
            .flatten()
            .filter(|(k, _)| names.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        toml::Value::Table(part)
            .try_into()
            .map_err(|e: toml::de::Error| KeyError::new(self.at.clone(), e.message().to_string()))
    }
}

/// The `[packet]` table written `src`, checked on `topo`.
pub fn settings(src: &str, topo: &Topology) -> Result<PacketSettings, KeyError> {
    PacketSettings::read(&TomlTable::new(src, "packet"), topo)
}

/// The scheme table written `src` at `schemes[0]`, resolved on `topo` under `settings`.
pub fn scheme_with(
    src: &str,
    settings: &PacketSettings,
    topo: &Topology,
) -> Result<PacketScheme, KeyError> {
    resolve_scheme(
        &TomlTable::new(src, "schemes[0]"),
        settings,
        topo,
        "schemes[0]",
    )
}

/// The scheme table written `src` at `schemes[0]`, resolved on `topo` with an empty
/// `[packet]`.
pub fn scheme(src: &str, topo: &Topology) -> Result<PacketScheme, KeyError> {
    scheme_with(src, &PacketSettings::default(), topo)
}
