//! Scenario keys as the parts of a run own them.
//!
//! A scheme table (`[[schemes]]`) and the `[packet]` table are read by several parts at once:
//! the scheme's own module, its switch queue discipline, the load balancers, and the keys
//! every scheme shares. Each part declares its keys as one `deny_unknown_fields` struct
//! ([`unit_keys!`](crate::unit_keys)), and the table hands every part exactly the keys it
//! owns ([`ParseTable::parse_keys`]); a key that no part of this scheme owns is refused by
//! [`refuse_unowned`], which says which part would own it. Value checks share the helpers
//! below, so a range reads the same in every part's errors.

use dctc_core::error::{unknown_name, KeyError};
use dctc_core::units::checked::{self, SpanRule};
use dctc_core::units::Delta;
use serde::de::DeserializeOwned;
use std::fmt;

/// Reads one scenario table. The binary implements it over its scenario format; error
/// paths are complete (`schemes[1].tcp.min_rto_us`).
pub trait ParseTable {
    /// The keys present, in a stable order.
    fn keys(&self) -> Vec<String>;
    /// The keys of `names` that are present, as `T` (the others are left out, so a part
    /// sees only the keys it owns).
    fn parse_keys<T: DeserializeOwned>(&self, names: &[&str]) -> Result<T, KeyError>;
}

/// A part's keys: a struct made by [`unit_keys!`](crate::unit_keys), or a pair of them (a
/// discipline made of two, as FQ-CoDel's CoDel keys and bucket keys).
pub trait Keys: Clone + fmt::Debug + Default + PartialEq {
    /// The key names.
    fn names() -> Vec<&'static str>;
    /// Its keys of `table`.
    fn read(table: &impl ParseTable) -> Result<Self, KeyError>;
    /// `self` with every key it leaves unset taken from `defaults` (the `[packet]` table's).
    fn or(&self, defaults: &Self) -> Self;
    /// The JSON Schema of its keys: an object with one property per key, documented by the
    /// key's doc comment (what `dctc schema`, `dctc keys` and `dctc list` show).
    fn schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema;
}

impl<A: Keys, B: Keys> Keys for (A, B) {
    fn names() -> Vec<&'static str> {
        let mut v = A::names();
        v.extend(B::names());
        v
    }
    fn read(table: &impl ParseTable) -> Result<Self, KeyError> {
        Ok((A::read(table)?, B::read(table)?))
    }
    fn or(&self, defaults: &Self) -> Self {
        (self.0.or(&defaults.0), self.1.or(&defaults.1))
    }
    fn schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut s = A::schema(generator);
        let b = B::schema(generator);
        if let (Some(into), Some(from)) = (
            s.get_mut("properties").and_then(|p| p.as_object_mut()),
            b.get("properties").and_then(|p| p.as_object()),
        ) {
            into.extend(from.clone());
        }
        s
    }
}

/// Declares a part's keys: a `deny_unknown_fields` struct whose fields are all optional
/// (absent: the part's default), with its [`Keys`] impl.
///
/// ```ignore
/// dctc_packet::unit_keys! {
///     /// The `ecn` queue's keys.
///     pub struct Keys {
///         /// Marking threshold K, bytes, positive (default: 65 packets at >= 10 Gb/s).
///         ecn_k_bytes: u64,
///     }
/// }
/// ```
#[macro_export]
macro_rules! unit_keys {
    ($(#[$m:meta])* $vis:vis struct $name:ident {
        $($(#[$doc:meta])* $field:ident: $ty:ty,)*
    }) => {
        $(#[$m])*
        #[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        $vis struct $name {
            $($(#[$doc])* #[serde(default)] pub $field: Option<$ty>,)*
        }

        impl $crate::keys::Keys for $name {
            fn names() -> Vec<&'static str> {
                vec![$(stringify!($field)),*]
            }
            fn read(table: &impl $crate::keys::ParseTable) -> Result<Self, dctc_core::error::KeyError> {
                table.parse_keys(&[$(stringify!($field)),*])
            }
            #[allow(clippy::clone_on_copy)]
            fn or(&self, _defaults: &Self) -> Self {
                $name { $($field: self.$field.clone().or_else(|| _defaults.$field.clone()),)* }
            }
            fn schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                generator.subschema_for::<Self>()
            }
        }
    };
}

/// A part without keys.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NoKeys;

impl Keys for NoKeys {
    fn names() -> Vec<&'static str> {
        Vec::new()
    }
    fn read(_table: &impl ParseTable) -> Result<Self, KeyError> {
        Ok(NoKeys)
    }
    fn or(&self, _defaults: &Self) -> Self {
        NoKeys
    }
    fn schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "object", "properties": {}, "additionalProperties": false})
    }
}

/// Where a part's keys sit (`schemes[1]`, `packet`): errors name `<at>.<key>`.
#[derive(Copy, Clone, Debug)]
pub struct At<'a>(pub &'a str);

impl At<'_> {
    /// An error at `<at>.<key>`.
    pub fn error(&self, key: &str, reason: impl Into<String>) -> KeyError {
        if self.0.is_empty() {
            KeyError::new(key, reason)
        } else {
            KeyError::new(format!("{}.{key}", self.0), reason)
        }
    }

    /// `v` checked to lie in `range`.
    pub fn number(&self, key: &str, v: Option<f64>, range: Range) -> Result<Option<f64>, KeyError> {
        match v {
            Some(x) if !range.contains(x) => {
                Err(self.error(key, format!("must be {range}, got {x}")))
            }
            v => Ok(v),
        }
    }

    /// `v` microseconds, checked to lie in `range`, as a span in whole picoseconds: a
    /// positive value that rounds to 0 ps, or one longer than a day of simulated time, is
    /// refused naming what it would become ([`checked::span_us`]).
    pub fn micros(
        &self,
        key: &str,
        v: Option<f64>,
        range: Range,
    ) -> Result<Option<Delta>, KeyError> {
        match v {
            Some(x) if !range.contains(x) => {
                let what = if range == Range::POSITIVE {
                    "a positive number of microseconds".to_string()
                } else {
                    format!("a number of microseconds {range}")
                };
                Err(self.error(key, format!("must be {what}, got {x}")))
            }
            Some(x) => {
                let rule = SpanRule::zero_or_more(Delta::MAX_SCENARIO);
                checked::span_us(&self.error(key, "").path, x, rule).map(Some)
            }
            None => Ok(None),
        }
    }

    /// The count `v`, checked to lie in `lo..=hi`.
    pub fn count(
        &self,
        key: &str,
        v: Option<i64>,
        lo: i64,
        hi: i64,
    ) -> Result<Option<u64>, KeyError> {
        match v {
            Some(x) if !(lo..=hi).contains(&x) => {
                let bound = if hi == i64::MAX || hi == u32::MAX as i64 {
                    format!("at least {lo}")
                } else {
                    format!("in {lo}..={hi}")
                };
                Err(self.error(key, format!("must be {bound}, got {x}")))
            }
            v => Ok(v.map(|x| x as u64)),
        }
    }
}

/// An interval of finite numbers a key's value must lie in, written as it reads in errors:
/// `positive`, `>= 0`, `in (0, 1]`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Range {
    lo: f64,
    lo_open: bool,
    hi: f64,
    hi_open: bool,
}

impl Range {
    /// (0, inf).
    pub const POSITIVE: Range = Range::open(0.0, f64::INFINITY);
    /// [0, inf).
    pub const NON_NEGATIVE: Range = Range::closed_open(0.0, f64::INFINITY);
    /// (lo, hi).
    pub const fn open(lo: f64, hi: f64) -> Range {
        Range {
            lo,
            lo_open: true,
            hi,
            hi_open: true,
        }
    }
    /// [lo, hi].
    pub const fn closed(lo: f64, hi: f64) -> Range {
        Range {
            lo,
            lo_open: false,
            hi,
            hi_open: false,
        }
    }
    /// (lo, hi].
    pub const fn open_closed(lo: f64, hi: f64) -> Range {
        Range {
            lo,
            lo_open: true,
            hi,
            hi_open: false,
        }
    }
    /// [lo, hi).
    pub const fn closed_open(lo: f64, hi: f64) -> Range {
        Range {
            lo,
            lo_open: false,
            hi,
            hi_open: true,
        }
    }

    /// Whether `x` is finite and inside.
    pub fn contains(&self, x: f64) -> bool {
        let above = if self.lo_open {
            x > self.lo
        } else {
            x >= self.lo
        };
        let below = if self.hi_open {
            x < self.hi
        } else {
            x <= self.hi
        };
        x.is_finite() && above && below
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.lo, self.lo_open, self.hi.is_infinite()) {
            (0.0, true, true) => write!(f, "positive"),
            (lo, false, true) => write!(f, ">= {lo}"),
            (lo, true, true) => write!(f, "above {lo}"),
            _ => write!(
                f,
                "in {}{}, {}{}",
                if self.lo_open { '(' } else { '[' },
                self.lo,
                self.hi,
                if self.hi_open { ')' } else { ']' }
            ),
        }
    }
}

/// Refuses the first key of `given` outside `valid` (the keys of the parts this table
/// runs, which `runs` names: ``scheme `tfc` or its `tfc` switch queue``). A key another
/// registered part owns (`others`: each part as an error names it, and its keys) says
/// whose it is; any other key is a misspelling, answered with the nearest valid one.
pub fn refuse_unowned(
    at: At,
    given: &[String],
    valid: &[&str],
    runs: &str,
    others: &[(String, Vec<&'static str>)],
) -> Result<(), KeyError> {
    let Some(k) = given.iter().find(|k| !valid.contains(&k.as_str())) else {
        return Ok(());
    };
    let elsewhere: Vec<&str> = others
        .iter()
        .filter(|(_, keys)| keys.contains(&k.as_str()))
        .map(|(what, _)| what.as_str())
        .collect();
    if elsewhere.is_empty() {
        return Err(at.error(k, unknown_name("key", k, valid)));
    }
    Err(at.error(
        k,
        format!(
            "not a key of {runs}; it is a key of {}",
            elsewhere.join(", ")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_read_as_they_check() {
        assert_eq!(Range::POSITIVE.to_string(), "positive");
        assert_eq!(Range::NON_NEGATIVE.to_string(), ">= 0");
        assert_eq!(Range::open_closed(0.0, 1.0).to_string(), "in (0, 1]");
        assert_eq!(Range::closed_open(0.0, 1.0).to_string(), "in [0, 1)");
        assert!(Range::open_closed(0.0, 1.0).contains(1.0));
        assert!(!Range::open_closed(0.0, 1.0).contains(0.0));
        assert!(!Range::POSITIVE.contains(f64::INFINITY));
        assert!(!Range::NON_NEGATIVE.contains(f64::NAN));
        let at = At("schemes[0]");
        let e = at
            .number("g", Some(1.5), Range::open_closed(0.0, 1.0))
            .unwrap_err();
        assert_eq!(e.path, "schemes[0].g");
        assert_eq!(e.reason, "must be in (0, 1], got 1.5");
        let e = at.count("n", Some(0), 1, 65_536).unwrap_err();
        assert_eq!(e.reason, "must be in 1..=65536, got 0");
        assert_eq!(at.count("n", Some(7), 1, i64::MAX).unwrap(), Some(7));
        // Positive, but 0 ps in the engines' unit: refused, naming what it becomes.
        let e = at
            .micros("t_us", Some(1e-300), Range::POSITIVE)
            .unwrap_err();
        assert_eq!(e.path, "schemes[0].t_us");
        assert!(e.reason.contains("is 0 ps"), "{}", e.reason);
        let e = at.micros("t_us", Some(1e300), Range::POSITIVE).unwrap_err();
        assert!(e.reason.contains("longer than"), "{}", e.reason);
        assert_eq!(
            at.micros("t_us", Some(2.5), Range::POSITIVE).unwrap(),
            Some(Delta::from_ns(2500))
        );
    }

    #[test]
    fn an_unowned_key_names_its_owner_or_the_nearest_valid_key() {
        let others = vec![("the `ecn` queue".to_string(), vec!["ecn_k_bytes"])];
        let given = |k: &str| vec!["label".to_string(), k.to_string()];
        let valid = ["label", "queue"];
        let runs = "scheme `newreno` or its `droptail` switch queue";
        assert!(refuse_unowned(At("s"), &given("queue"), &valid, runs, &others).is_ok());
        let e = refuse_unowned(At("s"), &given("ecn_k_bytes"), &valid, runs, &others).unwrap_err();
        assert_eq!(e.path, "s.ecn_k_bytes");
        assert_eq!(
            e.reason,
            "not a key of scheme `newreno` or its `droptail` switch queue; it is a key of the `ecn` queue"
        );
        let e = refuse_unowned(At("s"), &given("labl"), &valid, runs, &others).unwrap_err();
        assert!(e.reason.contains("did you mean `label`"), "{e}");
    }
}
