//! What a `[[paper]]` row claims, checked when its file is read and graded against our figures.
//!
//! Every row names its `kind`, and every kind can fail:
//!
//! - `value`: ours within a relative `tolerance` (default [`DEFAULT_TOLERANCE`]) of the paper's
//!   value, `|ours - paper| <= tolerance |paper|`. A zero value is refused: "insensitive" or "on
//!   par" is a `bound` on the size of the effect.
//! - `range`: ours inside `low ..= high`, or within `tolerance` of the nearer end.
//! - `bound`: ours strictly `below` or `above` a limit ("< 0.17%"); with `abs = true`, |ours|
//!   ("insensitive: the effect is under 6%").
//! - `ratio`: a / b of two metrics (or a `relative.<a>_vs_<b>.<figure>` metric, which holds
//!   a / b - 1). The paper's figure is a `factor` (a / b, one number or `[low, high]`) or a
//!   `change` (a / b - 1, "37.1% below" is -0.371), and its side of 1 (of 0) names the winner:
//!   the wrong winner misses whatever the size; the right one holds within `tolerance` of the
//!   figure as the paper states it, and is otherwise `same winner`, counted apart from holds.
//! - `order`: several metrics, smallest first; holds when ours are in the same strict order.
//! - `trend`: a sequence of metrics (one summary's, or, in a paper's `claims.toml`, several
//!   scenarios'): strictly `increasing` or `decreasing` step by step, `flat` (every value within
//!   `band` of their mean), or `not-reduced` (the last at least the first: "the gap is not
//!   reduced").
//!
//! A metric that is absent (or not a finite number) makes the row `missing`, a failure of the
//! row, never a hold.

use crate::parse::{parse_value, ScenarioError};
use dctc_core::error::unknown_name;
use dctc_report::format_num;
use serde::Deserialize;
use serde_json::{json, Value};

/// The relative tolerance of `value`, `range` and `ratio` rows that set none: the project's
/// reading of "by roughly how much".
pub(crate) const DEFAULT_TOLERANCE: f64 = 0.25;

/// The row kinds, as `kind` names them.
pub(crate) const KINDS: &[&str] = &["value", "range", "bound", "ratio", "order", "trend"];

/// Keys every row may carry, whatever its kind.
const COMMON_KEYS: &[&str] = &[
    "kind",
    "label",
    "figure",
    "note",
    "miss_reason",
    "self_check",
];

/// Each kind's own keys.
fn kind_keys(kind: &str) -> &'static [&'static str] {
    match kind {
        "value" => &["metric", "value", "tolerance", "physical_max"],
        "range" => &["metric", "low", "high", "tolerance", "physical_max"],
        "bound" => &["metric", "below", "above", "abs"],
        "ratio" => &["metric", "a", "b", "factor", "change", "tolerance"],
        "order" => &["metrics"],
        "trend" => &["metrics", "direction", "band"],
        _ => &[],
    }
}

/// The three classes a `miss_reason` starts with (issue 24): a bug fixed, a modelling
/// difference, a detail the paper does not give.
pub(crate) const MISS_CLASSES: &[&str] = &["(a) ", "(b) ", "(c) "];

/// A metric a row reads: a dotted path into a run's `summary.json` (`schemes.DCTCP.p99`; a
/// number segment indexes an array), and in a paper's `claims.toml` the scenario (file stem,
/// without `.full`) whose summary it reads: `tweaked-0.01:relative.FQ-CoDel_vs_pFabric.x`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MetricRef {
    /// The scenario named before `:`, in a `claims.toml`.
    pub(crate) scenario: Option<String>,
    /// The dotted path.
    pub(crate) path: String,
}

impl MetricRef {
    /// Parses `text`; `cross_file` says whether the row sits in a `claims.toml`, where every
    /// metric names its scenario, and nowhere else may.
    fn parse(text: &str, cross_file: bool) -> Result<MetricRef, String> {
        let (scenario, path) = match text.split_once(':') {
            Some((s, p)) => (Some(s.to_string()), p.to_string()),
            None => (None, text.to_string()),
        };
        if path.is_empty()
            || path.contains(char::is_whitespace)
            || path.split('.').any(str::is_empty)
        {
            return Err(format!(
                "`{text}` is not a dotted path into summary.json (e.g. `schemes.DCTCP.fct_slowdown.overall.p99`)"
            ));
        }
        match (&scenario, cross_file) {
            (Some(s), false) => Err(format!(
                "`{text}` names another scenario (`{s}:`); only a paper's claims.toml grades one scenario's figures against another's"
            )),
            (None, true) => Err(format!(
                "`{text}` names no scenario: a claims.toml row reads `<scenario>:<path>`, the scenario by its file stem (e.g. `tweaked-0.01:relative.a_vs_b.mean`)"
            )),
            (Some(s), true) if s.is_empty() => {
                Err(format!("`{text}` has an empty scenario name before `:`"))
            }
            _ => Ok(MetricRef { scenario, path }),
        }
    }

    /// As written in the row.
    pub(crate) fn text(&self) -> String {
        match &self.scenario {
            Some(s) => format!("{s}:{}", self.path),
            None => self.path.clone(),
        }
    }

    /// The segments that tell this metric from its siblings: the scenario, then the path's.
    fn segments(&self) -> Vec<&str> {
        self.scenario
            .iter()
            .map(String::as_str)
            .chain(self.path.split('.'))
            .collect()
    }
}

/// Which side of its limit a `bound` puts ours on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// ours < limit.
    Below,
    /// ours > limit.
    Above,
}

/// The paper's figure for a ratio a / b.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum PaperRatio {
    /// a / b in `low ..= high` (one number: `low == high`), "8.6x-10.9x".
    Factor { low: f64, high: f64 },
    /// a / b - 1, "37.1% below" = -0.371.
    Change(f64),
}

/// What a ratio divides.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Operands {
    /// A `relative.<a>_vs_<b>.<figure>` metric, which holds a / b - 1.
    Relative(MetricRef),
    /// Two metrics, a over b.
    Pair(MetricRef, MetricRef),
}

/// The shape a `trend` claims.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Direction {
    /// Each value above the one before.
    Increasing,
    /// Each value below the one before.
    Decreasing,
    /// Every value within this relative band of their mean.
    Flat(f64),
    /// The last value at least the first ("the gap is not reduced").
    NotReduced,
}

/// A claim of one of the kinds in the module doc.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Claim {
    /// The paper's value with a relative tolerance.
    Value {
        metric: MetricRef,
        value: f64,
        tolerance: f64,
        physical_max: Option<f64>,
    },
    /// The paper's range, with a tolerance on its nearer end.
    Range {
        metric: MetricRef,
        low: f64,
        high: f64,
        tolerance: f64,
        physical_max: Option<f64>,
    },
    /// One side of a limit.
    Bound {
        metric: MetricRef,
        side: Side,
        limit: f64,
        abs: bool,
    },
    /// A ratio whose winner is part of the claim.
    Ratio {
        operands: Operands,
        paper: PaperRatio,
        tolerance: f64,
    },
    /// Metrics in strictly increasing order.
    Order { metrics: Vec<MetricRef> },
    /// A sequence with a shape.
    Trend {
        metrics: Vec<MetricRef>,
        direction: Direction,
    },
}

/// One `[[paper]]` row: the claim and what the ledger shows beside it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Row {
    /// What is compared ("DCTCP p99 slowdown over Flowtune's, 1-packet flowlets").
    pub(crate) label: String,
    /// The paper's figure or section ("§6.5 Fig. 8").
    pub(crate) figure: String,
    /// Where the number comes from and why the tolerance is what it is.
    pub(crate) note: String,
    /// Why ours misses: a class ((a), (b) or (c)), one line, and the README section.
    pub(crate) miss_reason: Option<String>,
    /// A check of dctc against itself (an approximation against the exact mode), not a paper
    /// figure: graded, but tallied apart from the paper's claims.
    pub(crate) self_check: bool,
    /// The claim.
    pub(crate) claim: Claim,
}

/// Keys every `[[paper]]` row carries besides `kind` (`value`, `range`, `bound`, `ratio`,
/// `order` or `trend`: the module's documentation says what each claims).
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct CommonKeys {
    /// What the row claims, in a few words (names it in the ledger).
    label: String,
    /// Where the paper states it (`Fig. 7`, `§5.2`).
    figure: String,
    /// The paper's wording, and how our setup differs from the paper's.
    note: String,
    /// Why a miss is not a bug: starts with `(a) `, `(b) ` or `(c) ` and points to a section
    /// of the scenario's README.
    #[serde(default)]
    miss_reason: Option<String>,
    /// The row checks our own engine (an invariant), not a figure of the paper (default false).
    #[serde(default)]
    self_check: bool,
}

/// A `value` row's keys.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ValueKeys {
    /// Dotted path into the run's `summary.json` (in a `claims.toml`, `scenario:path`).
    metric: String,
    /// The paper's value, not 0.
    value: f64,
    /// Relative tolerance, positive (default 0.25).
    #[serde(default)]
    tolerance: Option<f64>,
    /// The metric's physical limit (a line rate, a buffer), at least `value`: ours must not
    /// exceed it, whatever the tolerance.
    #[serde(default)]
    physical_max: Option<f64>,
}

/// A `range` row's keys.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RangeKeys {
    /// Dotted path into the run's `summary.json` (in a `claims.toml`, `scenario:path`).
    metric: String,
    /// Low end of the paper's range.
    low: f64,
    /// High end of the paper's range, at least `low`.
    high: f64,
    /// Relative tolerance around the nearer end, positive (default 0.25).
    #[serde(default)]
    tolerance: Option<f64>,
    /// The metric's physical limit (a line rate, a buffer), at least `high`: ours must not
    /// exceed it, whatever the tolerance.
    #[serde(default)]
    physical_max: Option<f64>,
}

/// A `bound` row's keys.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct BoundKeys {
    /// Dotted path into the run's `summary.json` (in a `claims.toml`, `scenario:path`).
    metric: String,
    /// Ours strictly below this (one of `below`, `above`).
    #[serde(default)]
    below: Option<f64>,
    /// Ours strictly above this (one of `below`, `above`).
    #[serde(default)]
    above: Option<f64>,
    /// The bound is on |ours|, and must then be positive (default false).
    #[serde(default)]
    abs: bool,
}

/// A `ratio` row's keys.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RatioKeys {
    /// A `relative.<a>_vs_<b>.<figure>` metric holding a / b - 1 (or give `a` and `b`).
    #[serde(default)]
    metric: Option<String>,
    /// The numerator metric.
    #[serde(default)]
    a: Option<String>,
    /// The denominator metric.
    #[serde(default)]
    b: Option<String>,
    /// The paper's a / b: one number or `[low, high]` (one of `factor`, `change`).
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Value>")]
    factor: Option<toml::Value>,
    /// The paper's a / b - 1 ("37.1% below" is -0.371; one of `factor`, `change`).
    #[serde(default)]
    change: Option<f64>,
    /// Relative tolerance on the figure as the paper states it, positive (default 0.25).
    #[serde(default)]
    tolerance: Option<f64>,
}

/// An `order` row's keys.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct OrderKeys {
    /// Several metrics, smallest first.
    metrics: Vec<String>,
}

/// A `trend` row's keys.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct TrendKeys {
    /// A sequence of metrics (in a `claims.toml`, of several scenarios).
    metrics: Vec<String>,
    /// `increasing`, `decreasing`, `flat` or `not-reduced`.
    direction: String,
    /// `flat`: every value within this relative band of their mean.
    #[serde(default)]
    band: Option<f64>,
}

/// The JSON Schemas of a `[[paper]]` row: the keys every row carries, then each kind's own,
/// from the types that parse them.
pub(crate) fn row_schemas(
    generator: &mut schemars::SchemaGenerator,
) -> (schemars::Schema, Vec<(&'static str, schemars::Schema)>) {
    let kinds = vec![
        ("value", generator.subschema_for::<ValueKeys>()),
        ("range", generator.subschema_for::<RangeKeys>()),
        ("bound", generator.subschema_for::<BoundKeys>()),
        ("ratio", generator.subschema_for::<RatioKeys>()),
        ("order", generator.subschema_for::<OrderKeys>()),
        ("trend", generator.subschema_for::<TrendKeys>()),
    ];
    (generator.subschema_for::<CommonKeys>(), kinds)
}

/// The trend directions, as `direction` names them.
const DIRECTIONS: &[&str] = &["increasing", "decreasing", "flat", "not-reduced"];

/// Parses and checks row `value`, which sits at `key` (`paper[3]`) of `file`. `cross_file`: the
/// row is in a paper's `claims.toml` (its metrics name their scenarios). Errors name the row's
/// key (`paper[3].factor`) and the reason.
pub(crate) fn parse_row(
    value: &toml::Value,
    key: &str,
    file: &str,
    cross_file: bool,
) -> Result<Row, ScenarioError> {
    let err = |k: &str, reason: String| ScenarioError {
        file: file.to_string(),
        key: if k.is_empty() {
            key.to_string()
        } else {
            format!("{key}.{k}")
        },
        reason,
    };
    let Some(table) = value.as_table() else {
        return Err(err("", "must be a table".into()));
    };
    if !table.contains_key("kind") {
        return Err(err(
            "kind",
            format!("missing: every row names its kind, one of {}", list(KINDS)),
        ));
    }
    let Some(kind) = table.get("kind").and_then(toml::Value::as_str) else {
        return Err(err(
            "kind",
            format!("must be a string, one of {}", list(KINDS)),
        ));
    };
    if !KINDS.contains(&kind) {
        return Err(err("kind", unknown_name("kind", kind, KINDS)));
    }
    for k in ["label", "figure", "note"] {
        if !table.contains_key(k) {
            return Err(err(
                k,
                format!("missing: every row needs `{k}` ({})", why_needed(k)),
            ));
        }
    }
    let own_keys = kind_keys(kind);
    let mut common = toml::map::Map::new();
    let mut own = toml::map::Map::new();
    for (k, v) in table {
        if k == "kind" {
            continue;
        } else if COMMON_KEYS.contains(&k.as_str()) {
            common.insert(k.clone(), v.clone());
        } else if own_keys.contains(&k.as_str()) {
            own.insert(k.clone(), v.clone());
        } else {
            let valid: Vec<&str> = COMMON_KEYS.iter().chain(own_keys).copied().collect();
            let mut reason = format!("{} in a `{kind}` row", unknown_name("key", k, &valid));
            if let Some(other) = KINDS.iter().find(|o| kind_keys(o).contains(&k.as_str())) {
                reason.push_str(&format!(" (`{k}` is a key of `{other}` rows)"));
            }
            return Err(err(k, reason));
        }
    }
    let c: CommonKeys = parse_value(&toml::Value::Table(common), key, file)?;
    for (k, text) in [
        ("label", &c.label),
        ("figure", &c.figure),
        ("note", &c.note),
    ] {
        if text.trim().is_empty() {
            return Err(err(k, format!("must not be empty ({})", why_needed(k))));
        }
    }
    if let Some(reason) = &c.miss_reason {
        check_miss_reason(reason).map_err(|r| err("miss_reason", r))?;
    }
    let own = toml::Value::Table(own);
    let metric = |k: &str, text: &str| MetricRef::parse(text, cross_file).map_err(|r| err(k, r));
    let tolerance = |t: Option<f64>| -> Result<f64, ScenarioError> {
        match t {
            None => Ok(DEFAULT_TOLERANCE),
            Some(t) if t > 0.0 && t < 1.0 => Ok(t),
            Some(t) => Err(err(
                "tolerance",
                format!("a relative tolerance lies strictly between 0 and 1, got {t}"),
            )),
        }
    };
    let finite = |k: &str, v: f64| -> Result<f64, ScenarioError> {
        if v.is_finite() {
            Ok(v)
        } else {
            Err(err(k, format!("must be a finite number, got {v}")))
        }
    };
    let claim = match kind {
        "value" => {
            let r: ValueKeys = parse_kind(&own, key, file, kind)?;
            let value = finite("value", r.value)?;
            if value == 0.0 {
                return Err(err("value", "a paper value of 0 has no relative tolerance: state the claim as a bound on the size of the effect (`kind = \"bound\"`, `below = x`, `abs = true`), with the paper's wording in the note".into()));
            }
            let physical_max =
                physical_max(r.physical_max, value).map_err(|r| err("physical_max", r))?;
            Claim::Value {
                metric: metric("metric", &r.metric)?,
                value,
                tolerance: tolerance(r.tolerance)?,
                physical_max,
            }
        }
        "range" => {
            let r: RangeKeys = parse_kind(&own, key, file, kind)?;
            let low = finite("low", r.low)?;
            let high = finite("high", r.high)?;
            if high <= low {
                return Err(err(
                    "high",
                    format!("the top of the paper's range must lie above `low` ({low}), got {high} (one number is a `value` row)"),
                ));
            }
            let physical_max =
                physical_max(r.physical_max, high).map_err(|r| err("physical_max", r))?;
            Claim::Range {
                metric: metric("metric", &r.metric)?,
                low,
                high,
                tolerance: tolerance(r.tolerance)?,
                physical_max,
            }
        }
        "bound" => {
            let r: BoundKeys = parse_kind(&own, key, file, kind)?;
            let (side, limit) = match (r.below, r.above) {
                (Some(x), None) => (Side::Below, finite("below", x)?),
                (None, Some(x)) => (Side::Above, finite("above", x)?),
                (Some(_), Some(_)) => return Err(err(
                    "above",
                    "a bound is one side: `below` or `above`, not both (a range is a `range` row)"
                        .into(),
                )),
                (None, None) => {
                    return Err(err(
                        "below",
                        "missing: a `bound` row needs `below = x` or `above = x`".into(),
                    ))
                }
            };
            if r.abs && limit <= 0.0 {
                return Err(err(
                    if side == Side::Below { "below" } else { "above" },
                    format!("with `abs = true` the bound is on |ours| and must be positive, got {limit}"),
                ));
            }
            Claim::Bound {
                metric: metric("metric", &r.metric)?,
                side,
                limit,
                abs: r.abs,
            }
        }
        "ratio" => {
            let r: RatioKeys = parse_kind(&own, key, file, kind)?;
            let operands = match (&r.metric, &r.a, &r.b) {
                (Some(m), None, None) => {
                    let m = metric("metric", m)?;
                    if !m.path.starts_with("relative.") {
                        return Err(err("metric", format!("a ratio's single metric is a relative figure (`relative.<a>_vs_<b>.<figure>`, a / b - 1), not `{}`; name two metrics with `a` and `b` otherwise", m.path)));
                    }
                    Operands::Relative(m)
                }
                (None, Some(a), Some(b)) => Operands::Pair(metric("a", a)?, metric("b", b)?),
                (Some(_), _, _) => {
                    return Err(err("metric", "a ratio reads either `metric` (a relative figure) or `a` and `b`, not both".into()))
                }
                (None, None, _) => {
                    return Err(err("a", "missing: a `ratio` row needs `a` and `b` (two metrics, a over b) or `metric` (a relative figure)".into()))
                }
                (None, Some(_), None) => {
                    return Err(err("b", "missing: a `ratio` row with `a` needs `b`".into()))
                }
            };
            let tolerance = tolerance(r.tolerance)?;
            let paper = match (&r.factor, r.change) {
                (Some(f), None) => {
                    let (low, high) = factor(f).map_err(|r| err("factor", r))?;
                    // The size is part of the claim: a band that reaches 1 would accept no effect.
                    let (near, reach) = if low > 1.0 {
                        (low, low * (1.0 - tolerance))
                    } else {
                        (high, high * (1.0 + tolerance))
                    };
                    if (low > 1.0 && reach <= 1.0) || (high < 1.0 && reach >= 1.0) {
                        return Err(err("factor", format!(
                            "the band {:.0}% around {} reaches 1 (no effect), so its size could not fail: state the paper's figure as a change (`change = {}`, a / b - 1)",
                            tolerance * 100.0, format_num(near), format_num(near - 1.0)
                        )));
                    }
                    PaperRatio::Factor { low, high }
                }
                (None, Some(c)) => {
                    let c = finite("change", c)?;
                    if c == 0.0 || c <= -1.0 {
                        return Err(err("change", format!("a change a / b - 1 is above -1 and not 0 (its sign names the winner; \"on par\" is a `bound` with `abs = true`), got {c}")));
                    }
                    PaperRatio::Change(c)
                }
                (Some(_), Some(_)) => {
                    return Err(err("change", "the paper's figure is a `factor` (a / b) or a `change` (a / b - 1), not both".into()))
                }
                (None, None) => {
                    return Err(err("factor", "missing: a `ratio` row needs `factor` (a / b: a number or [low, high]) or `change` (a / b - 1)".into()))
                }
            };
            Claim::Ratio {
                operands,
                paper,
                tolerance,
            }
        }
        "order" => {
            let r: OrderKeys = parse_kind(&own, key, file, kind)?;
            Claim::Order {
                metrics: metric_list(&r.metrics, cross_file).map_err(|r| err("metrics", r))?,
            }
        }
        "trend" => {
            let r: TrendKeys = parse_kind(&own, key, file, kind)?;
            let metrics = metric_list(&r.metrics, cross_file).map_err(|r| err("metrics", r))?;
            let direction = match (r.direction.as_str(), r.band) {
                ("flat", Some(b)) if b > 0.0 && b < 1.0 => Direction::Flat(b),
                ("flat", Some(b)) => {
                    return Err(err("band", format!("a relative band lies strictly between 0 and 1, got {b}")))
                }
                ("flat", None) => {
                    return Err(err("band", "missing: a `flat` trend states its relative band (every value within `band` of the mean)".into()))
                }
                (_, Some(_)) if DIRECTIONS.contains(&r.direction.as_str()) => {
                    return Err(err("band", format!("only a `flat` trend has a band, not `{}`", r.direction)))
                }
                ("increasing", None) => Direction::Increasing,
                ("decreasing", None) => Direction::Decreasing,
                ("not-reduced", None) => Direction::NotReduced,
                (d, _) => return Err(err("direction", unknown_name("name", d, DIRECTIONS))),
            };
            Claim::Trend { metrics, direction }
        }
        _ => unreachable!("kind checked above"),
    };
    Ok(Row {
        label: c.label,
        figure: c.figure,
        note: c.note,
        miss_reason: c.miss_reason,
        self_check: c.self_check,
        claim,
    })
}

fn why_needed(key: &str) -> &'static str {
    match key {
        "label" => "what is compared",
        "figure" => "the paper's figure or section",
        _ => "where the paper's number comes from and why the tolerance is what it is, in the paper's words where it gives them",
    }
}

fn list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses a kind's own keys, naming a missing one by its full path.
fn parse_kind<T: serde::de::DeserializeOwned>(
    own: &toml::Value,
    key: &str,
    file: &str,
    kind: &str,
) -> Result<T, ScenarioError> {
    parse_value(own, key, file).map_err(|mut e| {
        if let Some(name) = e
            .reason
            .strip_prefix("missing field `")
            .and_then(|r| r.split('`').next())
        {
            e.key = format!("{key}.{name}");
            e.reason = format!("missing: a `{kind}` row needs `{name}`");
        }
        e
    })
}

/// A `physical_max` must lie above the paper's figure it caps.
fn physical_max(max: Option<f64>, top: f64) -> Result<Option<f64>, String> {
    match max {
        Some(m) if !(m.is_finite() && m >= top) => Err(format!(
            "the physical limit (a line rate, a buffer) must be a number at least the paper's figure ({top}), got {m}"
        )),
        other => Ok(other),
    }
}

/// `factor = 2.35` or `factor = [8.6, 10.9]`: positive, upwards, on one side of 1.
fn factor(v: &toml::Value) -> Result<(f64, f64), String> {
    let num = |v: &toml::Value| v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
    let (low, high) = match v {
        toml::Value::Array(a) if a.len() == 2 => match (num(&a[0]), num(&a[1])) {
            (Some(l), Some(h)) => (l, h),
            _ => return Err(format!("must be a number or [low, high], got {v}")),
        },
        _ => match num(v) {
            Some(f) => (f, f),
            None => return Err(format!("must be a number or [low, high], got {v}")),
        },
    };
    if !(low.is_finite() && high.is_finite() && low > 0.0) {
        return Err(format!(
            "a factor a / b is a positive finite number, got {v}"
        ));
    }
    if high < low {
        return Err(format!("a range [low, high] runs upwards, got {v}"));
    }
    if low <= 1.0 && high >= 1.0 {
        return Err(format!(
            "a factor names the winner by its side of 1 (above: a > b; below: a < b), and {v} reaches 1; \"on par\" is a `bound` with `abs = true`"
        ));
    }
    Ok((low, high))
}

fn metric_list(texts: &[String], cross_file: bool) -> Result<Vec<MetricRef>, String> {
    if texts.len() < 2 {
        return Err(format!("needs at least two metrics, got {}", texts.len()));
    }
    let metrics = texts
        .iter()
        .map(|t| MetricRef::parse(t, cross_file))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, m) in metrics.iter().enumerate() {
        if metrics[..i].contains(m) {
            return Err(format!("`{}` appears twice", m.text()));
        }
    }
    Ok(metrics)
}

/// A `miss_reason`: one line, its class first, and the README section that explains it.
fn check_miss_reason(text: &str) -> Result<(), String> {
    if text.contains('\n') {
        return Err("one line, please (the README section holds the explanation)".into());
    }
    if !MISS_CLASSES.iter().any(|c| text.starts_with(c)) {
        return Err(format!("starts with its class: \"(a) \" a bug, fixed; \"(b) \" a modelling difference; \"(c) \" a detail the paper does not give; got `{text}`"));
    }
    if !text.contains("README.md#") {
        return Err(format!("points to the README section that explains the miss (`... see scenarios/<paper>/README.md#<section>`), got `{text}`"));
    }
    Ok(())
}

/// How ours compares with the paper's claim.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The claim holds.
    Holds,
    /// A ratio with the paper's winner, by a size outside the tolerance; never a hold.
    SameWinner,
    /// The claim fails.
    Misses,
    /// A metric the claim reads is absent: a failure of the row.
    Missing,
}

impl Verdict {
    /// The word shown in tables and JSON.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::SameWinner => "same winner",
            Verdict::Misses => "misses",
            Verdict::Missing => "missing",
        }
    }

    fn of(holds: bool) -> Verdict {
        if holds {
            Verdict::Holds
        } else {
            Verdict::Misses
        }
    }
}

/// The rule, for reports.
pub(crate) const RULE: &str = "Each row is one claim of the paper, of a kind that can fail. \
     value: ours within the row's relative tolerance of the paper's value (25% unless the row \
     says otherwise: the project's reading of \"by roughly how much\"), and at most its physical \
     limit when it has one. range: ours inside it, or within the tolerance of its nearer end. \
     bound: ours strictly on the paper's side of its limit (\"|ours|\" bounds the size of an \
     effect the paper calls insensitive or on par). ratio: a / b of two schemes, whose winner is \
     the claim's: the wrong winner misses whatever the size; the right one holds within the \
     tolerance of the paper's factor (\"x\") or change (\"%\"), and is otherwise \"same winner\", \
     counted apart and never as a hold. order: ours in the paper's strict order. trend: a \
     sequence that rises or falls at every step, stays within a band of its mean (flat), or ends \
     no lower than it starts (not reduced). \"missing\": the run has no such metric, a failure.";

/// Our side of a graded row.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ours {
    /// The metric (value, range, bound).
    One(f64),
    /// a / b (ratio).
    Ratio(f64),
    /// The metrics in the row's order (order, trend).
    Many(Vec<f64>),
}

/// A row graded against one run (or, for a claims.toml row, several).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Graded {
    /// The verdict.
    pub(crate) verdict: Verdict,
    /// Our figures; None when a metric is missing.
    pub(crate) ours: Option<Ours>,
    /// The metrics that were missing, as written in the row.
    pub(crate) missing: Vec<String>,
}

impl Row {
    /// The metrics this row reads.
    pub(crate) fn metrics(&self) -> Vec<&MetricRef> {
        match &self.claim {
            Claim::Value { metric, .. }
            | Claim::Range { metric, .. }
            | Claim::Bound { metric, .. } => vec![metric],
            Claim::Ratio { operands, .. } => match operands {
                Operands::Relative(m) => vec![m],
                Operands::Pair(a, b) => vec![a, b],
            },
            Claim::Order { metrics } | Claim::Trend { metrics, .. } => metrics.iter().collect(),
        }
    }

    /// The kind, as `kind` names it.
    pub(crate) fn kind(&self) -> &'static str {
        match self.claim {
            Claim::Value { .. } => "value",
            Claim::Range { .. } => "range",
            Claim::Bound { .. } => "bound",
            Claim::Ratio { .. } => "ratio",
            Claim::Order { .. } => "order",
            Claim::Trend { .. } => "trend",
        }
    }

    /// Grades the row; `read` gives our figure for a metric (None when absent).
    pub(crate) fn grade(&self, read: &dyn Fn(&MetricRef) -> Option<f64>) -> Graded {
        let values: Vec<Option<f64>> = self
            .metrics()
            .into_iter()
            .map(|m| read(m).filter(|v| v.is_finite()))
            .collect();
        let missing: Vec<String> = self
            .metrics()
            .into_iter()
            .zip(&values)
            .filter(|(_, v)| v.is_none())
            .map(|(m, _)| m.text())
            .collect();
        if !missing.is_empty() {
            return Graded {
                verdict: Verdict::Missing,
                ours: None,
                missing,
            };
        }
        let v: Vec<f64> = values.into_iter().flatten().collect();
        let (verdict, ours) = match &self.claim {
            Claim::Value {
                value,
                tolerance,
                physical_max,
                ..
            } => {
                let o = v[0];
                let holds = (o - value).abs() <= tolerance * value.abs()
                    && physical_max.is_none_or(|m| o <= m);
                (Verdict::of(holds), Ours::One(o))
            }
            Claim::Range {
                low,
                high,
                tolerance,
                physical_max,
                ..
            } => {
                let o = v[0];
                let holds =
                    within_range(o, *low, *high, *tolerance) && physical_max.is_none_or(|m| o <= m);
                (Verdict::of(holds), Ours::One(o))
            }
            Claim::Bound {
                side, limit, abs, ..
            } => {
                let o = v[0];
                let x = if *abs { o.abs() } else { o };
                let holds = match side {
                    Side::Below => x < *limit,
                    Side::Above => x > *limit,
                };
                (Verdict::of(holds), Ours::One(o))
            }
            Claim::Ratio {
                operands,
                paper,
                tolerance,
            } => {
                let r = match operands {
                    Operands::Relative(_) => v[0] + 1.0,
                    Operands::Pair(..) => v[0] / v[1],
                };
                if !r.is_finite() {
                    // b is 0: no ratio to grade.
                    return Graded {
                        verdict: Verdict::Missing,
                        ours: None,
                        missing: vec![format!(
                            "{} (a / b is not finite)",
                            self.metrics()[1].text()
                        )],
                    };
                }
                let verdict = match *paper {
                    PaperRatio::Factor { low, high } => {
                        let winner = if low > 1.0 { r > 1.0 } else { r < 1.0 };
                        if !winner {
                            Verdict::Misses
                        } else if within_range(r, low, high, *tolerance) {
                            Verdict::Holds
                        } else {
                            Verdict::SameWinner
                        }
                    }
                    PaperRatio::Change(c) => {
                        let ours = r - 1.0;
                        if ours * c <= 0.0 {
                            Verdict::Misses
                        } else if (ours - c).abs() <= tolerance * c.abs() {
                            Verdict::Holds
                        } else {
                            Verdict::SameWinner
                        }
                    }
                };
                (verdict, Ours::Ratio(r))
            }
            Claim::Order { .. } => {
                let holds = v.windows(2).all(|w| w[0] < w[1]);
                (Verdict::of(holds), Ours::Many(v))
            }
            Claim::Trend { direction, .. } => {
                let holds = match direction {
                    Direction::Increasing => v.windows(2).all(|w| w[1] > w[0]),
                    Direction::Decreasing => v.windows(2).all(|w| w[1] < w[0]),
                    Direction::Flat(band) => {
                        let mean = v.iter().sum::<f64>() / v.len() as f64;
                        v.iter().all(|x| (x - mean).abs() <= band * mean.abs())
                    }
                    Direction::NotReduced => v[v.len() - 1] >= v[0],
                };
                (Verdict::of(holds), Ours::Many(v))
            }
        };
        Graded {
            verdict,
            ours: Some(ours),
            missing: Vec::new(),
        }
    }

    /// The paper's side as the claim reads: "0.85", "0.997, tol 1%" (a tolerance other than
    /// the default), "< 0.0017", "|ours| < 0.06", "DCTCP/Flowtune 8.6x-10.9x",
    /// "dba vs varys -37.1%", "a < b < c".
    pub(crate) fn paper_text(&self) -> String {
        // The default tolerance goes without saying (the rule states it); another is shown.
        let tol = |t: f64| {
            if t == DEFAULT_TOLERANCE {
                String::new()
            } else {
                format!(", tol {}%", format_num(t * 100.0))
            }
        };
        let cap = |m: Option<f64>| {
            m.map(|m| format!(", at most {}", format_num(m)))
                .unwrap_or_default()
        };
        match &self.claim {
            Claim::Value {
                value,
                tolerance,
                physical_max,
                ..
            } => format!(
                "{}{}{}",
                format_num(*value),
                tol(*tolerance),
                cap(*physical_max)
            ),
            Claim::Range {
                low,
                high,
                tolerance,
                physical_max,
                ..
            } => format!(
                "{}{}{}",
                span(format_num(*low), format_num(*high), *low < 0.0),
                tol(*tolerance),
                cap(*physical_max)
            ),
            Claim::Bound {
                side, limit, abs, ..
            } => format!(
                "{}{} {}",
                if *abs { "|ours| " } else { "" },
                if *side == Side::Below { "<" } else { ">" },
                format_num(*limit)
            ),
            Claim::Ratio {
                operands,
                paper,
                tolerance,
            } => {
                let (a, b) = ratio_names(operands);
                match paper {
                    PaperRatio::Factor { low, high } if low == high => {
                        format!("{a}/{b} {}x{}", format_num(*low), tol(*tolerance))
                    }
                    PaperRatio::Factor { low, high } => format!(
                        "{a}/{b} {}x-{}x{}",
                        format_num(*low),
                        format_num(*high),
                        tol(*tolerance)
                    ),
                    PaperRatio::Change(c) => {
                        format!("{a} vs {b} {}{}", percent(*c), tol(*tolerance))
                    }
                }
            }
            Claim::Order { metrics } => short_names(metrics).join(" < "),
            Claim::Trend { metrics, direction } => {
                let names = short_names(metrics);
                match direction {
                    Direction::Increasing => names.join(" < "),
                    Direction::Decreasing => names.join(" > "),
                    Direction::Flat(b) => format!(
                        "flat within {}% of the mean over {}",
                        format_num(b * 100.0),
                        names.join(", ")
                    ),
                    Direction::NotReduced => {
                        format!("not reduced: {} >= {}", names[names.len() - 1], names[0])
                    }
                }
            }
        }
    }

    /// Our side, as [`Row::paper_text`] reads: "9.8x", "-14.7%", "FQ-CoDel 1.2 < pFabric 1.5",
    /// "0.43, 0.41, 0.37", or "missing: <metric>".
    pub(crate) fn ours_text(&self, g: &Graded) -> String {
        let Some(ours) = &g.ours else {
            return format!("missing: {}", g.missing.join(", "));
        };
        match (ours, &self.claim) {
            (Ours::One(o), _) => format_num(*o),
            (
                Ours::Ratio(r),
                Claim::Ratio {
                    paper: PaperRatio::Change(_),
                    ..
                },
            ) => percent(r - 1.0),
            (Ours::Ratio(r), _) => format!("{}x", format_num(*r)),
            (Ours::Many(v), Claim::Order { metrics }) => {
                let names = short_names(metrics);
                let mut by: Vec<(f64, &String)> = v.iter().copied().zip(&names).collect();
                by.sort_by(|x, y| x.0.total_cmp(&y.0));
                let mut s = String::new();
                for (i, (x, n)) in by.iter().enumerate() {
                    if i > 0 {
                        s.push_str(if by[i - 1].0 == *x { " = " } else { " < " });
                    }
                    s.push_str(&format!("{n} {}", format_num(*x)));
                }
                s
            }
            (Ours::Many(v), _) => v
                .iter()
                .map(|x| format_num(*x))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }

    /// The figure a chart draws for the paper (a range at its middle), and for ours; None for
    /// bounds, orders and trends, which have no single number.
    pub(crate) fn chart_values(&self, g: &Graded) -> Option<(f64, Option<f64>)> {
        let ours = match &g.ours {
            Some(Ours::One(o)) => Some(*o),
            Some(Ours::Ratio(r)) => Some(match self.claim {
                Claim::Ratio {
                    paper: PaperRatio::Change(_),
                    ..
                } => r - 1.0,
                _ => *r,
            }),
            _ => None,
        };
        let paper = match &self.claim {
            Claim::Value { value, .. } => *value,
            Claim::Range { low, high, .. } => 0.5 * (low + high),
            Claim::Ratio { paper, .. } => match *paper {
                PaperRatio::Factor { low, high } => 0.5 * (low + high),
                PaperRatio::Change(c) => c,
            },
            _ => return None,
        };
        Some((paper, ours))
    }

    /// The row and its grade as JSON (`summary.json`'s `paper`, the ledger's rows).
    pub(crate) fn to_json(&self, g: &Graded) -> Value {
        let ours = match &g.ours {
            None => Value::Null,
            Some(Ours::One(o)) | Some(Ours::Ratio(o)) => json!(o),
            Some(Ours::Many(v)) => json!(v),
        };
        let mut o = json!({
            "label": self.label,
            "figure": self.figure,
            "kind": self.kind(),
            "metrics": self.metrics().iter().map(|m| m.text()).collect::<Vec<_>>(),
            "paper": self.paper_text(),
            "ours": ours,
            "ours_text": self.ours_text(g),
            "verdict": g.verdict.label(),
            "note": self.note,
        });
        if let Some(r) = &self.miss_reason {
            o["miss_reason"] = json!(r);
        }
        if self.self_check {
            o["self_check"] = json!(true);
        }
        o
    }
}

/// Inside `low ..= high`, or within `tolerance` of the nearer end.
fn within_range(o: f64, low: f64, high: f64, tolerance: f64) -> bool {
    if (low..=high).contains(&o) {
        return true;
    }
    let end = if o < low { low } else { high };
    (o - end).abs() <= tolerance * end.abs()
}

fn span(low: String, high: String, negative: bool) -> String {
    if negative {
        format!("{low} to {high}")
    } else {
        format!("{low}-{high}")
    }
}

/// A change as a signed percentage: "+5.3%", "-37.1%".
fn percent(c: f64) -> String {
    let p = format_num(c * 100.0);
    if c > 0.0 {
        format!("+{p}%")
    } else {
        format!("{p}%")
    }
}

/// The two sides of a ratio, named for people: `relative.DCTCP_vs_Flowtune.p99` gives
/// ("DCTCP", "Flowtune"); two paths give what tells them apart.
fn ratio_names(operands: &Operands) -> (String, String) {
    match operands {
        Operands::Relative(m) => m
            .path
            .split('.')
            .find_map(|seg| seg.split_once("_vs_"))
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .unwrap_or_else(|| ("a".into(), "b".into())),
        Operands::Pair(a, b) => {
            let n = short_names(&[a.clone(), b.clone()]);
            (n[0].clone(), n[1].clone())
        }
    }
}

/// What tells metrics apart: their segments without the ones all share at both ends
/// (`schemes.pFabric.p99`, `schemes.DCTCP.p99` -> `pFabric`, `DCTCP`).
fn short_names(metrics: &[MetricRef]) -> Vec<String> {
    let segs: Vec<Vec<&str>> = metrics.iter().map(MetricRef::segments).collect();
    let shortest = segs.iter().map(Vec::len).min().unwrap_or(0);
    let same_at = |pos: &dyn Fn(usize) -> usize| {
        segs.iter()
            .all(|s| s[pos(s.len())] == segs[0][pos(segs[0].len())])
    };
    let mut head = 0;
    while head < shortest && same_at(&|_| head) {
        head += 1;
    }
    let mut tail = 0;
    while tail < shortest - head && same_at(&|len| len - 1 - tail) {
        tail += 1;
    }
    // Bare indices (`phases.10`, `phases.11`) read as numbers compared ("10 > 11"): keep the
    // shared segment that says what they index.
    let numeric = segs.iter().all(|s| {
        head + tail < s.len()
            && s[head..s.len() - tail]
                .iter()
                .all(|x| x.parse::<f64>().is_ok())
    });
    if numeric && head > 0 {
        head -= 1;
    }
    segs.iter()
        .zip(metrics)
        .map(|(s, m)| {
            let mid = &s[head..s.len() - tail];
            if mid.is_empty() {
                m.text()
            } else {
                mid.join(".")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses one row from TOML text (the keys of one `[[paper]]` table).
    fn row(text: &str) -> Result<Row, ScenarioError> {
        row_in(text, false)
    }

    fn row_in(text: &str, cross_file: bool) -> Result<Row, ScenarioError> {
        let v: toml::Value = toml::from_str(text).unwrap();
        parse_row(&v, "paper[0]", "s.toml", cross_file)
    }

    const COMMON: &str = "label = \"x\"\nfigure = \"Fig. 1\"\nnote = \"why\"\n";

    #[test]
    fn short_names_keep_what_bare_indices_index() {
        let m = |p: &str| MetricRef::parse(p, false).unwrap();
        let names = short_names(&[
            m("schemes.TFC.phases.10.mean"),
            m("schemes.TFC.phases.11.mean"),
        ]);
        assert_eq!(names, ["phases.10", "phases.11"]);
        let names = short_names(&[m("schemes.pFabric.p99"), m("schemes.DCTCP.p99")]);
        assert_eq!(names, ["pFabric", "DCTCP"]);
    }

    fn ok(kind_and_keys: &str) -> Row {
        row(&format!("{COMMON}{kind_and_keys}")).unwrap()
    }

    fn err_key(text: &str) -> String {
        row(&format!("{COMMON}{text}")).unwrap_err().key
    }

    /// Grades `r` with the figures of `v` (a JSON object of paths).
    fn grade(r: &Row, v: &Value) -> Graded {
        r.grade(&|m| crate::paper::lookup(v, &m.path).and_then(Value::as_f64))
    }

    #[test]
    fn a_value_holds_within_its_tolerance_and_refuses_zero() {
        let r = ok("kind = \"value\"\nmetric = \"m\"\nvalue = 140.0");
        assert_eq!(grade(&r, &json!({"m": 175.0})).verdict, Verdict::Holds);
        assert_eq!(grade(&r, &json!({"m": 105.0})).verdict, Verdict::Holds);
        assert_eq!(grade(&r, &json!({"m": 176.0})).verdict, Verdict::Misses);
        // Same sign, a tenth of the size: no longer a half-verdict, a miss.
        assert_eq!(grade(&r, &json!({"m": 14.0})).verdict, Verdict::Misses);
        assert_eq!(grade(&r, &json!({})).verdict, Verdict::Missing);
        assert_eq!(grade(&r, &json!({"m": "x"})).verdict, Verdict::Missing);
        assert_eq!(r.paper_text(), "140");
        let tight = ok("kind = \"value\"\nmetric = \"m\"\nvalue = 0.997\ntolerance = 0.01");
        assert_eq!(grade(&tight, &json!({"m": 0.99})).verdict, Verdict::Holds);
        assert_eq!(grade(&tight, &json!({"m": 0.947})).verdict, Verdict::Misses);
        assert_eq!(tight.paper_text(), "0.997, tol 1%");
        assert_eq!(
            err_key("kind = \"value\"\nmetric = \"m\"\nvalue = 0.0"),
            "paper[0].value"
        );
        for t in ["0.0", "1.0", "-0.1", "nan"] {
            assert_eq!(
                err_key(&format!(
                    "kind = \"value\"\nmetric = \"m\"\nvalue = 1.0\ntolerance = {t}"
                )),
                "paper[0].tolerance"
            );
        }
    }

    #[test]
    fn a_physical_limit_caps_the_band() {
        // TFC: 800-900 Mb/s on a 1 Gb/s link; 25% above 0.9 would accept 1.125 Gb/s.
        let r = ok("kind = \"range\"\nmetric = \"g\"\nlow = 0.8\nhigh = 0.9\nphysical_max = 1.0");
        assert_eq!(grade(&r, &json!({"g": 0.85})).verdict, Verdict::Holds);
        assert_eq!(grade(&r, &json!({"g": 0.99})).verdict, Verdict::Holds);
        assert_eq!(grade(&r, &json!({"g": 1.05})).verdict, Verdict::Misses);
        assert_eq!(grade(&r, &json!({"g": 0.61})).verdict, Verdict::Holds);
        assert_eq!(grade(&r, &json!({"g": 0.59})).verdict, Verdict::Misses);
        assert_eq!(r.paper_text(), "0.8-0.9, at most 1");
        assert_eq!(
            err_key("kind = \"range\"\nmetric = \"g\"\nlow = 0.8\nhigh = 0.9\nphysical_max = 0.5"),
            "paper[0].physical_max"
        );
        assert_eq!(
            err_key("kind = \"range\"\nmetric = \"g\"\nlow = 0.9\nhigh = 0.8"),
            "paper[0].high"
        );
        let v = ok("kind = \"value\"\nmetric = \"g\"\nvalue = 9.0\nphysical_max = 10.0");
        assert_eq!(grade(&v, &json!({"g": 10.5})).verdict, Verdict::Misses);
        assert_eq!(grade(&v, &json!({"g": 10.0})).verdict, Verdict::Holds);
    }

    #[test]
    fn a_bound_holds_strictly_on_its_side_and_abs_bounds_an_effect() {
        let r = ok("kind = \"bound\"\nmetric = \"m\"\nbelow = 0.0017");
        assert_eq!(grade(&r, &json!({"m": 0.0016})).verdict, Verdict::Holds);
        assert_eq!(grade(&r, &json!({"m": 0.0017})).verdict, Verdict::Misses);
        assert_eq!(r.paper_text(), "< 0.0017");
        let a = ok("kind = \"bound\"\nmetric = \"m\"\nabove = 80.0");
        assert_eq!(grade(&a, &json!({"m": 83.9})).verdict, Verdict::Holds);
        assert_eq!(grade(&a, &json!({"m": 79.0})).verdict, Verdict::Misses);
        // A zero-valued claim ("insensitive") bounds the size of the effect, either sign.
        let z = ok("kind = \"bound\"\nmetric = \"m\"\nbelow = 0.06\nabs = true");
        assert_eq!(grade(&z, &json!({"m": -0.05})).verdict, Verdict::Holds);
        assert_eq!(grade(&z, &json!({"m": 0.05})).verdict, Verdict::Holds);
        assert_eq!(grade(&z, &json!({"m": -0.07})).verdict, Verdict::Misses);
        assert_eq!(z.paper_text(), "|ours| < 0.06");
        assert_eq!(
            err_key("kind = \"bound\"\nmetric = \"m\"\nbelow = 1.0\nabove = 0.0"),
            "paper[0].above"
        );
        assert_eq!(
            err_key("kind = \"bound\"\nmetric = \"m\""),
            "paper[0].below"
        );
        assert_eq!(
            err_key("kind = \"bound\"\nmetric = \"m\"\nbelow = 0.0\nabs = true"),
            "paper[0].below"
        );
    }

    #[test]
    fn a_reversed_factor_misses_and_a_wrong_size_is_same_winner() {
        // Flowtune §6.5: XCP's 1-packet p99 is 2.35x Flowtune's.
        let r = ok("kind = \"ratio\"\nmetric = \"relative.XCP_vs_Flowtune.p99\"\nfactor = 2.35");
        let at = |x: f64| {
            grade(
                &r,
                &json!({"relative": {"XCP_vs_Flowtune": {"p99": x - 1.0}}}),
            )
        };
        assert_eq!(at(2.35).verdict, Verdict::Holds);
        assert_eq!(at(2.9).verdict, Verdict::Holds);
        assert_eq!(at(3.0).verdict, Verdict::SameWinner);
        assert_eq!(at(1.1).verdict, Verdict::SameWinner);
        // XCP better than Flowtune: the wrong winner misses, whatever the size.
        assert_eq!(at(1.0 / 2.35).verdict, Verdict::Misses);
        assert_eq!(at(0.99).verdict, Verdict::Misses);
        assert_eq!(at(1.0).verdict, Verdict::Misses);
        assert_eq!(at(2.35).ours, Some(Ours::Ratio(2.35)));
        assert_eq!(r.paper_text(), "XCP/Flowtune 2.35x");
        assert_eq!(r.ours_text(&at(0.5)), "0.5x");
        // Two metrics, a over b, against a range.
        let p = ok(
            "kind = \"ratio\"\na = \"s.DCTCP.p99\"\nb = \"s.Flowtune.p99\"\nfactor = [8.6, 10.9]",
        );
        let v = |d: f64, f: f64| json!({"s": {"DCTCP": {"p99": d}, "Flowtune": {"p99": f}}});
        assert_eq!(grade(&p, &v(98.0, 10.0)).verdict, Verdict::Holds);
        assert_eq!(grade(&p, &v(136.0, 10.0)).verdict, Verdict::Holds);
        assert_eq!(grade(&p, &v(140.0, 10.0)).verdict, Verdict::SameWinner);
        assert_eq!(grade(&p, &v(10.0, 98.0)).verdict, Verdict::Misses);
        assert_eq!(grade(&p, &v(10.0, 0.0)).verdict, Verdict::Missing);
        assert_eq!(p.paper_text(), "DCTCP/Flowtune 8.6x-10.9x");
        // A factor below 1 names b the larger.
        let below = ok("kind = \"ratio\"\na = \"s.x\"\nb = \"s.y\"\nfactor = 0.4");
        assert_eq!(
            grade(&below, &json!({"s": {"x": 1.0, "y": 2.5}})).verdict,
            Verdict::Holds
        );
        assert_eq!(
            grade(&below, &json!({"s": {"x": 2.5, "y": 1.0}})).verdict,
            Verdict::Misses
        );
    }

    #[test]
    fn a_change_grades_its_sign_then_its_size() {
        // DBA Fig. 4(a): average CCT 37.1% below Varys.
        let r = ok("kind = \"ratio\"\nmetric = \"relative.dba_vs_varys.avg\"\nchange = -0.371");
        let at = |c: f64| grade(&r, &json!({"relative": {"dba_vs_varys": {"avg": c}}}));
        assert_eq!(at(-0.30).verdict, Verdict::Holds);
        assert_eq!(at(-0.147).verdict, Verdict::SameWinner);
        assert_eq!(at(-0.0037).verdict, Verdict::SameWinner);
        assert_eq!(at(0.003).verdict, Verdict::Misses);
        assert_eq!(at(0.0).verdict, Verdict::Misses);
        assert_eq!(r.paper_text(), "dba vs varys -37.1%");
        assert_eq!(r.ours_text(&at(-0.147)), "-14.7%");
        assert_eq!(r.ours_text(&at(0.053)), "+5.3%");
    }

    #[test]
    fn bad_ratios_name_their_key() {
        let k = |t: &str| err_key(&format!("kind = \"ratio\"\n{t}"));
        // A factor band that reaches 1 could not fail on size: state a change.
        assert_eq!(
            k("metric = \"relative.a_vs_b.x\"\nfactor = 1.048"),
            "paper[0].factor"
        );
        assert_eq!(
            k("metric = \"relative.a_vs_b.x\"\nfactor = [0.8, 1.2]"),
            "paper[0].factor"
        );
        assert_eq!(
            k("metric = \"relative.a_vs_b.x\"\nfactor = [3.0, 2.0]"),
            "paper[0].factor"
        );
        assert_eq!(
            k("metric = \"relative.a_vs_b.x\"\nfactor = \"2x\""),
            "paper[0].factor"
        );
        assert_eq!(k("metric = \"relative.a_vs_b.x\""), "paper[0].factor");
        assert_eq!(
            k("metric = \"relative.a_vs_b.x\"\nfactor = 2.0\nchange = 1.0"),
            "paper[0].change"
        );
        assert_eq!(
            k("metric = \"relative.a_vs_b.x\"\nchange = 0.0"),
            "paper[0].change"
        );
        assert_eq!(
            k("metric = \"schemes.a.x\"\nfactor = 2.0"),
            "paper[0].metric"
        );
        assert_eq!(k("a = \"schemes.a.x\"\nfactor = 2.0"), "paper[0].b");
        assert_eq!(
            k("metric = \"relative.a_vs_b.x\"\na = \"s.a\"\nb = \"s.b\"\nfactor = 2.0"),
            "paper[0].metric"
        );
        assert!(row(&format!(
            "{COMMON}kind = \"ratio\"\nmetric = \"relative.a_vs_b.x\"\nchange = 0.048"
        ))
        .is_ok());
    }

    #[test]
    fn an_order_holds_only_in_the_papers_strict_order() {
        let r =
            ok("kind = \"order\"\nmetrics = [\"s.pFabric.m\", \"s.FQ-CoDel.m\", \"s.DCTCP.m\"]");
        let v = |p: f64, f: f64, d: f64| json!({"s": {"pFabric": {"m": p}, "FQ-CoDel": {"m": f}, "DCTCP": {"m": d}}});
        assert_eq!(grade(&r, &v(1.0, 1.2, 3.0)).verdict, Verdict::Holds);
        assert_eq!(grade(&r, &v(1.3, 1.2, 3.0)).verdict, Verdict::Misses);
        assert_eq!(grade(&r, &v(1.2, 1.2, 3.0)).verdict, Verdict::Misses);
        assert_eq!(r.paper_text(), "pFabric < FQ-CoDel < DCTCP");
        assert_eq!(
            r.ours_text(&grade(&r, &v(1.3, 1.2, 3.0))),
            "FQ-CoDel 1.2 < pFabric 1.3 < DCTCP 3"
        );
        assert_eq!(
            err_key("kind = \"order\"\nmetrics = [\"a\"]"),
            "paper[0].metrics"
        );
        assert_eq!(
            err_key("kind = \"order\"\nmetrics = [\"a\", \"a\"]"),
            "paper[0].metrics"
        );
    }

    #[test]
    fn a_trend_holds_only_with_its_shape() {
        let t = |dir: &str, extra: &str| {
            ok(&format!("kind = \"trend\"\nmetrics = [\"g.0\", \"g.1\", \"g.2\", \"g.3\"]\ndirection = \"{dir}\"\n{extra}"))
        };
        let v = |g: [f64; 4]| json!({"g": g});
        let shrinking = v([0.5, 0.3, 0.2, 0.1]);
        let flat = v([0.43, 0.41, 0.37, 0.44]);
        assert_eq!(
            grade(&t("decreasing", ""), &shrinking).verdict,
            Verdict::Holds
        );
        assert_eq!(grade(&t("decreasing", ""), &flat).verdict, Verdict::Misses);
        // Equal neighbours are no decrease (FQ-CoDel's ~0 gap at every share).
        assert_eq!(
            grade(&t("decreasing", ""), &v([-0.001, -0.001, 0.0, 0.002])).verdict,
            Verdict::Misses
        );
        assert_eq!(
            grade(&t("increasing", ""), &v([0.1, 0.2, 0.3, 0.4])).verdict,
            Verdict::Holds
        );
        assert_eq!(
            grade(&t("increasing", ""), &shrinking).verdict,
            Verdict::Misses
        );
        assert_eq!(
            grade(&t("flat", "band = 0.15"), &flat).verdict,
            Verdict::Holds
        );
        assert_eq!(
            grade(&t("flat", "band = 0.15"), &shrinking).verdict,
            Verdict::Misses
        );
        assert_eq!(
            grade(&t("not-reduced", ""), &v([0.431, 0.406, 0.366, 0.732])).verdict,
            Verdict::Holds
        );
        assert_eq!(
            grade(&t("not-reduced", ""), &shrinking).verdict,
            Verdict::Misses
        );
        assert_eq!(
            grade(&t("increasing", ""), &json!({"g": [1.0, 2.0]})).verdict,
            Verdict::Missing
        );
        // Bare indices keep the name of what they index ("0 > 1" would read as false).
        assert_eq!(t("decreasing", "").paper_text(), "g.0 > g.1 > g.2 > g.3");
        assert_eq!(
            t("decreasing", "").ours_text(&grade(&t("decreasing", ""), &shrinking)),
            "0.5, 0.3, 0.2, 0.1"
        );
        let k = |d: &str, extra: &str| {
            err_key(&format!(
                "kind = \"trend\"\nmetrics = [\"a\", \"b\"]\ndirection = \"{d}\"\n{extra}"
            ))
        };
        assert_eq!(k("flat", ""), "paper[0].band");
        assert_eq!(k("flat", "band = 1.5"), "paper[0].band");
        assert_eq!(k("increasing", "band = 0.1"), "paper[0].band");
        assert_eq!(k("shrinking", ""), "paper[0].direction");
    }

    #[test]
    fn cross_file_metrics_belong_to_claims_files_only() {
        let text = format!("{COMMON}kind = \"trend\"\nmetrics = [\"tweaked-0.01:relative.a_vs_b.m\", \"tweaked-0.1:relative.a_vs_b.m\"]\ndirection = \"decreasing\"");
        let e = row_in(&text, false).unwrap_err();
        assert_eq!(e.key, "paper[0].metrics");
        assert!(e.reason.contains("claims.toml"), "{e}");
        let r = row_in(&text, true).unwrap();
        assert_eq!(r.metrics()[0].scenario.as_deref(), Some("tweaked-0.01"));
        assert_eq!(r.paper_text(), "tweaked-0.01 > tweaked-0.1");
        let e = row_in(
            &format!("{COMMON}kind = \"value\"\nmetric = \"a.b\"\nvalue = 1.0"),
            true,
        )
        .unwrap_err();
        assert_eq!(e.key, "paper[0].metric");
    }

    #[test]
    fn common_keys_are_required_and_unknown_keys_are_named() {
        let e = row("label = \"x\"\nfigure = \"f\"\nnote = \"n\"\nmetric = \"m\"\nvalue = 1.0")
            .unwrap_err();
        assert_eq!(e.key, "paper[0].kind");
        assert!(e.reason.contains("`ratio`"), "{e}");
        let e = row("kind = \"valeu\"\nlabel = \"x\"\nfigure = \"f\"\nnote = \"n\"").unwrap_err();
        assert_eq!(e.key, "paper[0].kind");
        assert!(e.reason.contains("did you mean `value`"), "{e}");
        for k in ["label", "figure", "note"] {
            let text = format!("{COMMON}kind = \"value\"\nmetric = \"m\"\nvalue = 1.0")
                .replace(&format!("{k} = "), "dropped = ");
            let e = row(&text).unwrap_err();
            assert_eq!(e.key, format!("paper[0].{k}"), "{e}");
            let text = format!("{COMMON}kind = \"value\"\nmetric = \"m\"\nvalue = 1.0").replace(
                &format!(
                    "{k} = \"{}\"",
                    match k {
                        "label" => "x",
                        "figure" => "Fig. 1",
                        _ => "why",
                    }
                ),
                &format!("{k} = \" \""),
            );
            assert_eq!(row(&text).unwrap_err().key, format!("paper[0].{k}"));
        }
        let e = row(&format!(
            "{COMMON}kind = \"value\"\nmetric = \"m\"\nvalue = 1.0\nfactr = 2.0"
        ))
        .unwrap_err();
        assert_eq!(e.key, "paper[0].factr");
        let e = row(&format!(
            "{COMMON}kind = \"value\"\nmetric = \"m\"\nvalue = 1.0\nfactor = 2.0"
        ))
        .unwrap_err();
        assert_eq!(e.key, "paper[0].factor");
        assert!(
            e.reason.contains("`factor` is a key of `ratio` rows"),
            "{e}"
        );
        let e = row(&format!("{COMMON}kind = \"value\"\nmetric = \"m\"")).unwrap_err();
        assert_eq!(e.key, "paper[0].value");
        assert!(e.reason.contains("needs `value`"), "{e}");
        let e = row(&format!(
            "{COMMON}kind = \"value\"\nmetric = \"m\"\nvalue = \"big\""
        ))
        .unwrap_err();
        assert_eq!(e.key, "paper[0].value");
    }

    #[test]
    fn a_miss_reason_names_its_class_and_its_readme_section() {
        let base = format!("{COMMON}kind = \"value\"\nmetric = \"m\"\nvalue = 1.0\n");
        let good =
            "(b) the paper's testbed NIC pauses; ours does not, see scenarios/tfc/README.md#incast";
        let r = row(&format!("{base}miss_reason = \"{good}\"")).unwrap();
        assert_eq!(r.miss_reason.as_deref(), Some(good));
        for bad in [
            "no class, see README.md#x",
            "(d) other, see README.md#x",
            "(a) fixed, no pointer",
        ] {
            assert_eq!(
                row(&format!("{base}miss_reason = \"{bad}\""))
                    .unwrap_err()
                    .key,
                "paper[0].miss_reason",
                "{bad}"
            );
        }
    }

    #[test]
    fn json_carries_kind_claim_and_verdict() {
        let r =
            ok("kind = \"ratio\"\nmetric = \"relative.a_vs_b.m\"\nfactor = 2.0\nself_check = true");
        let g = grade(&r, &json!({"relative": {"a_vs_b": {"m": 1.5}}}));
        let j = r.to_json(&g);
        assert_eq!(j["kind"], "ratio");
        assert_eq!(j["paper"], "a/b 2x");
        assert_eq!(j["ours"], json!(2.5));
        assert_eq!(j["ours_text"], "2.5x");
        assert_eq!(j["verdict"], "holds");
        assert_eq!(j["self_check"], true);
        assert_eq!(j["metrics"], json!(["relative.a_vs_b.m"]));
        let missing = grade(&r, &json!({}));
        assert_eq!(r.to_json(&missing)["ours"], Value::Null);
        assert_eq!(r.ours_text(&missing), "missing: relative.a_vs_b.m");
    }
}
