//! The policy registry's machinery: the `policies!` macro that one line per policy feeds, the
//! scheme table as a policy sees it ([`PolicyConfig`], [`ParseTable`]), and [`make_policy`].

use super::{PolicyKeys, RatePolicy};
use crate::error::FlowError;
use crate::net::Net;
use dctc_core::error::{nearest, unknown_name, KeyError};
use serde::de::{DeserializeOwned, Visitor};
use serde::Deserialize;

/// Registers policies, one line each:
/// `"name" => Variant(ConfigType) = module::build, module::ABOUT;`. Generates [`PolicyKeys`]
/// (one variant per policy, holding its config), [`super::POLICIES`] (the `dctc list` rows)
/// and the name lookups.
macro_rules! policies {
    ($($name:literal => $variant:ident($config:ty) = $build:path, $about:path;)*) => {
        /// Policy names and one-line descriptions.
        pub const POLICIES: &[(&str, &str)] = &[$(($name, $about)),*];

        /// A registered policy with its own keys.
        #[derive(Clone, Debug, PartialEq)]
        pub enum PolicyKeys {
            $(
                #[doc = concat!("`", $name, "`.")]
                $variant($config),
            )*
        }

        impl PolicyKeys {
            /// The registered name.
            pub fn name(&self) -> &'static str {
                match self {
                    $(PolicyKeys::$variant(_) => $name,)*
                }
            }

            /// Policy `name` with every key at its default; `None` for an unknown name.
            pub fn default_for(name: &str) -> Option<PolicyKeys> {
                match name {
                    $($name => Some(PolicyKeys::$variant(<$config>::default())),)*
                    _ => None,
                }
            }

            /// Policy `name` from its keys in `table`; `None` for an unknown name.
            fn parse_named(
                name: &str,
                table: &impl registry::ParseTable,
            ) -> Option<Result<PolicyKeys, FlowError>> {
                match name {
                    $($name => Some(
                        registry::parse_keys::<$config>($name, table).map(PolicyKeys::$variant),
                    ),)*
                    _ => None,
                }
            }

            /// Every policy's name and the JSON Schema of its own keys.
            pub fn schemas(
                generator: &mut schemars::SchemaGenerator,
            ) -> Vec<(&'static str, schemars::Schema)> {
                vec![$(($name, generator.subschema_for::<$config>()),)*]
            }

            /// Builds the policy.
            fn build(
                &self,
                ctx: &registry::BuildContext<'_>,
            ) -> Result<Box<dyn RatePolicy>, FlowError> {
                match self {
                    $(PolicyKeys::$variant(c) => $build(c, ctx),)*
                }
            }
        }
    };
}
pub(super) use policies;

/// What a policy is built for: the fabric and the workload's coflow sizes (bytes; Baraat
/// sets its heavy threshold from them).
#[derive(Copy, Clone, Debug)]
pub struct BuildContext<'a> {
    /// The fabric.
    pub net: &'a Net,
    /// Every coflow's total size in the workload, bytes.
    pub coflow_sizes: &'a [f64],
}

/// The config of a policy without keys.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoKeys {}

/// A `[[schemes]]` table's policy keys (every key but `name`, `label` and `routing`), read by
/// the binary over its scenario format.
pub trait ParseTable {
    /// The keys present, in a stable order.
    fn keys(&self) -> Vec<String>;
    /// The keys as `T`; error paths are relative to the table (`utility.alpha`).
    fn parse<T: DeserializeOwned>(&self) -> Result<T, KeyError>;
}

/// A `[[schemes]]` entry: a policy with its own keys, and its label in outputs.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyConfig {
    /// Label in outputs (default: the name).
    pub label: Option<String>,
    /// The policy and its keys.
    pub keys: PolicyKeys,
}

impl PolicyConfig {
    /// The policy `keys` with no label.
    pub fn new(keys: PolicyKeys) -> PolicyConfig {
        PolicyConfig { label: None, keys }
    }

    /// Policy `name` with every key at its default; an unknown name is an error at `name`
    /// listing the valid ones.
    pub fn from_name(name: &str) -> Result<PolicyConfig, FlowError> {
        PolicyKeys::default_for(name)
            .map(PolicyConfig::new)
            .ok_or_else(|| unknown_policy(name))
    }

    /// Policy `name` with every key at its default. Panics on an unknown name (for names
    /// written in code; input goes through [`PolicyConfig::from_name`] or
    /// [`PolicyConfig::parse`]).
    pub fn named(name: &str) -> PolicyConfig {
        PolicyConfig::from_name(name).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Policy `name` labelled `label`, its keys read from `table`. A key the policy does not
    /// have is an error at that key; so is a bad value (its path below the table).
    pub fn parse(
        name: &str,
        label: Option<String>,
        table: &impl ParseTable,
    ) -> Result<PolicyConfig, FlowError> {
        let keys = PolicyKeys::parse_named(name, table).ok_or_else(|| unknown_policy(name))??;
        Ok(PolicyConfig { label, keys })
    }

    /// The registered name.
    pub fn name(&self) -> &'static str {
        self.keys.name()
    }

    /// The label in outputs.
    pub fn label(&self) -> String {
        self.label
            .clone()
            .unwrap_or_else(|| self.name().to_string())
    }
}

fn unknown_policy(name: &str) -> FlowError {
    let names: Vec<&str> = super::POLICIES.iter().map(|p| p.0).collect();
    FlowError::invalid("name", unknown_name("policy", name, &names))
}

/// Reads policy `name`'s config `C` from `table`: every key must be one of `C`'s fields.
pub(super) fn parse_keys<C: DeserializeOwned>(
    name: &str,
    table: &impl ParseTable,
) -> Result<C, FlowError> {
    let fields = field_names::<C>();
    for key in table.keys() {
        if !fields.contains(&key.as_str()) {
            let valid = if fields.is_empty() {
                "it has none".to_string()
            } else {
                format!("its keys: {}", fields.join(", "))
            };
            let hint = match nearest(key.as_str(), fields) {
                Some(near) => format!(", did you mean `{near}`?"),
                None => String::new(),
            };
            return Err(FlowError::invalid(
                key,
                format!("does not apply to policy `{name}`{hint} ({valid})"),
            ));
        }
    }
    Ok(table.parse::<C>()?)
}

/// The field names of a struct config `C`, as its `Deserialize` impl declares them.
fn field_names<C: DeserializeOwned>() -> &'static [&'static str] {
    let mut fields: &'static [&'static str] = &[];
    // The probe records the fields and refuses to go on: the error is expected.
    let _ = C::deserialize(FieldProbe(&mut fields));
    fields
}

/// A deserializer that only records the field list a struct asks for.
struct FieldProbe<'a>(&'a mut &'static [&'static str]);

impl<'de> serde::Deserializer<'de> for FieldProbe<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = fields;
        Err(serde::de::Error::custom("fields recorded"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// Builds the policy `cfg` names for `net`; `coflow_sizes` (bytes, the whole workload) lets
/// Baraat set its heavy threshold. Out-of-range values are errors at their key.
pub fn make_policy(
    cfg: &PolicyConfig,
    net: &Net,
    coflow_sizes: &[f64],
) -> Result<Box<dyn RatePolicy>, FlowError> {
    cfg.keys.build(&BuildContext { net, coflow_sizes })
}

#[cfg(test)]
mod tests {
    use super::super::{baraat::BaraatConfig, dba::DbaConfig};
    use super::*;

    #[test]
    fn field_names_come_from_the_config_types() {
        assert!(field_names::<NoKeys>().is_empty());
        assert_eq!(
            field_names::<BaraatConfig>(),
            &["heavy_bytes", "heavy_percentile"]
        );
        let dba = field_names::<DbaConfig>();
        assert!(
            dba.contains(&"epsilon") && dba.contains(&"momentum"),
            "{dba:?}"
        );
    }

    #[test]
    fn every_registered_name_round_trips() {
        for (name, _) in super::super::POLICIES {
            let c = PolicyConfig::from_name(name).unwrap();
            assert_eq!(c.name(), *name);
            assert_eq!(c.label(), *name);
        }
        let e = PolicyConfig::from_name("pfabric").err().unwrap();
        assert!(e.to_string().contains("unknown policy `pfabric`"), "{e}");
    }
}
