//! The scenario format's reference and JSON Schema, generated from the types that parse it.
//!
//! Every table of a scenario is read by a serde type (`deny_unknown_fields`) that derives
//! `schemars::JsonSchema` beside `Deserialize`: the fabric and workload specs of `dctc-core`,
//! the scheme, queue, balancer and `[packet]` keys that the packet engine's registries
//! (`schemes!`, `disciplines!`, `balancers!`) hand each part, the flow policies of
//! `policies!`, `[flow]`, `[allocator]`, `[output]`, the `[[paper]]` rows. [`sections`] lists
//! those types as the parts of the format they parse, each with where its keys sit and when
//! they apply; [`schema`] composes them into one JSON Schema (`dctc schema`), and [`keys`]
//! walks them into the reference (`dctc keys`, `docs/scenario-keys.md`, the keys `dctc list`
//! shows), so the reference is the parser's own description of itself. A key's meaning is
//! its doc comment; its type comes from the Rust type, its unit from its name's suffix
//! (`_us`, `_bytes`, `_gbps`, ...), and its default and range from the doc comment, which
//! states them in the project's words ("(default 0.7)", "in (0, 1]", "positive").
//! `crates/cli/tests/scenario_keys.rs` holds the reference to the parser both ways.

use crate::engines::{allocator, flow, packet};
use crate::scenario::Engine;
use schemars::generate::SchemaSettings;
use schemars::{Schema, SchemaGenerator};
use serde_json::{json, Map, Value};
use std::fmt::Write as _;

/// One part of the format: a table (or the keys of a table that one part reads) and the
/// schema of its keys.
#[derive(Clone, Debug)]
pub struct Section {
    /// Short id, dotted (`fabric.leaf-spine`, `schemes.packet.dctcp`, `queue.ecn`); `dctc
    /// keys SECTION` selects by it.
    pub id: String,
    /// Where the keys sit, as a `--set` path starts: empty for the top level, `fabric`,
    /// `workload[]`, `schemes[]`, `packet`, `output`, `paper[]`.
    pub table: &'static str,
    /// The engines whose scenarios accept these keys (`packet`, `flow`, `allocator`; empty:
    /// every engine).
    pub engines: Vec<&'static str>,
    /// Keys the table must hold for these keys to apply (`kind = "leaf-spine"`, `name =
    /// "dctcp"`, `queue = "ecn"`), as key and value.
    pub when: Vec<(&'static str, String)>,
    /// One line on when the keys apply.
    pub about: String,
    /// The keys, as a JSON Schema object.
    pub schema: Value,
}

/// One key of the reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// Its section's id.
    pub section: String,
    /// Its path below the section's table: `dctcp_g`, `tcp.min_rto_us`, `flows[].src`.
    pub path: String,
    /// The TOML type (`float`, `integer`, `string`, `bool`, `table`, `array of float`, or the
    /// allowed strings).
    pub ty: String,
    /// Whether the table must hold it.
    pub required: bool,
    /// Its default, as the doc comment states it (empty when it states none).
    pub default: String,
    /// Its unit, from its name's suffix (empty for a plain number or a name).
    pub unit: String,
    /// Its range, as the doc comment or the type states it (empty when neither does).
    pub range: String,
    /// Its doc comment.
    pub meaning: String,
    /// The schema of its value (for examples and checks).
    pub schema: Value,
}

/// The generator every part's schema comes from: draft 7 (what TOML editors' schema support,
/// taplo's included, reads), every subschema inline so each part reads on its own.
fn generator() -> SchemaGenerator {
    SchemaSettings::draft07()
        .with(|s| s.inline_subschemas = true)
        .into_generator()
}

/// A schema as plain JSON, made fit for TOML: TOML has no null, so the `null` that an
/// `Option` adds is dropped, and the `format` of Rust's integer and float types (`uint64`,
/// `double`), which no validator checks, goes too.
fn tidy(s: Schema) -> Value {
    let mut v = s.to_value();
    tidy_value(&mut v);
    v
}

fn tidy_value(v: &mut Value) {
    match v {
        Value::Object(o) => {
            o.remove("format");
            o.remove("$schema");
            if let Some(Value::Array(types)) = o.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let t = types[0].clone();
                    o.insert("type".into(), t);
                }
            }
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(alts)) = o.get_mut(key) {
                    alts.retain(|a| a.get("type").is_none_or(|t| t != "null"));
                    if alts.len() == 1 {
                        let only = alts.remove(0);
                        o.remove(key);
                        if let Value::Object(inner) = only {
                            for (k, val) in inner {
                                o.entry(k).or_insert(val);
                            }
                        }
                    }
                }
            }
            // A table's default is its keys' defaults, stated with each key.
            if o.get("default")
                .is_some_and(|d| d.is_null() || d.is_object())
            {
                o.remove("default");
            }
            if let Some(Value::Array(values)) = o.get_mut("enum") {
                values.retain(|v| !v.is_null());
            }
            for (_, child) in o.iter_mut() {
                tidy_value(child);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(tidy_value),
        _ => {}
    }
}

/// The properties of an object schema (empty for a schema without).
fn properties(s: &Value) -> Map<String, Value> {
    s.get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// An object schema of `props`, refusing other keys, `required` those named.
fn object(props: Map<String, Value>, required: &[String], description: &str) -> Value {
    let mut o = json!({
        "type": "object",
        "properties": props,
        "additionalProperties": false,
    });
    if !required.is_empty() {
        o["required"] = json!(required);
    }
    if !description.is_empty() {
        o["description"] = json!(description);
    }
    o
}

fn required_of(s: &Value) -> Vec<String> {
    s.get("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The variants of an internally tagged enum's schema (`kind = "..."`), by tag value, with
/// the tag's own property taken out.
fn tagged_variants(s: &Value, tag: &str) -> Vec<(String, Value)> {
    let alts = s
        .get("oneOf")
        .or_else(|| s.get("anyOf"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    alts.into_iter()
        .filter_map(|mut v| {
            let name = v
                .pointer(&format!("/properties/{tag}/const"))
                .or_else(|| v.pointer(&format!("/properties/{tag}/enum/0")))
                .and_then(Value::as_str)?
                .to_string();
            if let Some(p) = v.get_mut("properties").and_then(Value::as_object_mut) {
                p.remove(tag);
            }
            if let Some(Value::Array(r)) = v.get_mut("required") {
                r.retain(|k| k != tag);
            }
            Some((name, v))
        })
        .collect()
}

fn engines_running(kind: &str) -> Vec<Engine> {
    let mut e = Vec::new();
    if dctc_packet::config::WORKLOAD_KINDS.contains(&kind) {
        e.push(Engine::Packet);
    }
    if dctc_flow::workload::WORKLOAD_KINDS.contains(&kind) {
        e.push(Engine::Flow);
    }
    if allocator::WORKLOAD_KINDS.contains(&kind) {
        e.push(Engine::Allocator);
    }
    e
}

/// The switch queue a packet scheme runs unless its table names one, as the scheme's own
/// `parts` says on a small fabric.
pub fn default_queue(scheme: &str) -> Option<&'static str> {
    let topo = dctc_core::fabric::dumbbell(&dctc_core::fabric::DumbbellSpec {
        senders: 2,
        receivers: 2,
        host_rate_gbps: 10.0,
        bottleneck_rate_gbps: 10.0,
        link_delay_us: 1.0,
        host_delay_us: 1.0,
        buffer_bytes: 300_000,
    })
    .ok()?;
    let table = toml::Value::Table(toml::Table::from_iter([(
        "name".to_string(),
        toml::Value::String(scheme.into()),
    )]));
    let settings = dctc_packet::config::PacketSettings::default();
    let s = dctc_packet::schemes::resolve_scheme(&Table(table), &settings, &topo, "").ok()?;
    Some(s.switch_queue.name())
}

/// A scheme table as the packet engine's parts read it.
struct Table(toml::Value);

impl dctc_packet::keys::ParseTable for Table {
    fn keys(&self) -> Vec<String> {
        self.0
            .as_table()
            .into_iter()
            .flatten()
            .map(|(k, _)| k.clone())
            .collect()
    }

    fn parse_keys<T: serde::de::DeserializeOwned>(
        &self,
        names: &[&str],
    ) -> Result<T, dctc_core::error::KeyError> {
        let part: toml::Table = (self.0.as_table().into_iter().flatten())
            .filter(|(k, _)| names.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        crate::parse::parse_value(&toml::Value::Table(part), "", "")
            .map_err(|e| dctc_core::error::KeyError::new(e.key, e.reason))
    }
}

/// Every part of the format, in the order the reference lists them.
pub fn sections() -> Vec<Section> {
    let mut g = generator();
    let mut out = Vec::new();
    let mut push = |id: String,
                    table: &'static str,
                    engines: Vec<Engine>,
                    when: Vec<(&'static str, String)>,
                    about: String,
                    schema: Value| {
        out.push(Section {
            id,
            table,
            engines: engines.into_iter().map(engine_name).collect(),
            when,
            about,
            schema,
        })
    };
    let top = tidy(crate::scenario::top_schema(&mut g));
    push(
        "scenario".into(),
        "",
        vec![],
        vec![],
        "The top level of every scenario file; its tables have sections of their own.".into(),
        top,
    );
    let fabric = tidy(g.subschema_for::<dctc_core::fabric::FabricSpec>());
    for (kind, s) in tagged_variants(&fabric, "kind") {
        let about = s
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        push(
            format!("fabric.{kind}"),
            "fabric",
            vec![],
            vec![("kind", kind)],
            about,
            s,
        );
    }
    let workload = tidy(g.subschema_for::<dctc_core::config::WorkloadSpec>());
    for (kind, s) in tagged_variants(&workload, "kind") {
        let about = s
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let engines = engines_running(&kind);
        push(
            format!("workload.{kind}"),
            "workload[]",
            engines,
            vec![("kind", kind)],
            about,
            s,
        );
    }
    // Packet engine: the keys every scheme shares, each scheme's own, each queue's.
    let common = tidy(g.subschema_for::<dctc_packet::schemes::CommonKeys>());
    push(
        "schemes.packet".into(),
        "schemes[]",
        vec![Engine::Packet],
        vec![],
        "Every packet scheme table: the keys every scheme shares.".into(),
        common,
    );
    let abouts: std::collections::BTreeMap<&str, &str> =
        dctc_packet::SCHEMES.iter().copied().collect();
    for (name, s) in dctc_packet::schemes::scheme_schemas(&mut g) {
        let queue = default_queue(name).unwrap_or("?");
        push(
            format!("schemes.packet.{name}"),
            "schemes[]",
            vec![Engine::Packet],
            vec![("name", name.to_string())],
            format!(
                "{} (switch queue `{queue}` unless `queue` names another).",
                abouts.get(name).copied().unwrap_or_default()
            ),
            tidy(s),
        );
    }
    let queue_abouts: std::collections::BTreeMap<&str, &str> =
        dctc_packet::queue::QUEUES.iter().copied().collect();
    for (name, s) in dctc_packet::queue::QueueSpec::schemas(&mut g) {
        push(
            format!("queue.{name}"),
            "schemes[]",
            vec![Engine::Packet],
            vec![("queue", name.to_string())],
            format!(
                "{}. In a scheme table whose switch queue is `{name}` (named by `queue`, or the scheme's default), and in `[packet]` as the default of every such scheme.",
                queue_abouts.get(name).copied().unwrap_or_default()
            ),
            tidy(s),
        );
    }
    push(
        "packet".into(),
        "packet",
        vec![Engine::Packet],
        vec![],
        "`[packet]`: defaults for every scheme, and the load balancers' settings; it also takes any key of the `queue.*` sections, as the default of every scheme whose queue reads it.".into(),
        tidy(dctc_packet::config::PacketSettings::schema(&mut g)),
    );
    // Flow engine.
    let flow_common = tidy(g.subschema_for::<flow::SchemeKeys>());
    push(
        "schemes.flow".into(),
        "schemes[]",
        vec![Engine::Flow],
        vec![],
        "Every flow-engine scheme table: the keys every policy shares.".into(),
        flow_common,
    );
    let policy_abouts: std::collections::BTreeMap<&str, &str> =
        dctc_flow::POLICIES.iter().copied().collect();
    for (name, s) in dctc_flow::policy::PolicyKeys::schemas(&mut g) {
        push(
            format!("schemes.flow.{name}"),
            "schemes[]",
            vec![Engine::Flow],
            vec![("name", name.to_string())],
            policy_abouts.get(name).copied().unwrap_or_default().into(),
            tidy(s),
        );
    }
    push(
        "flow".into(),
        "flow",
        vec![Engine::Flow],
        vec![],
        "`[flow]`: the flow engine's settings.".into(),
        tidy(g.subschema_for::<dctc_flow::settings::FlowKeys>()),
    );
    // Allocator engine.
    push(
        "schemes.allocator".into(),
        "schemes[]",
        vec![Engine::Allocator],
        vec![],
        "Every allocator-engine scheme table: a NUM solver.".into(),
        tidy(g.subschema_for::<dctc_num::settings::SolverKeys>()),
    );
    push(
        "allocator".into(),
        "allocator",
        vec![Engine::Allocator],
        vec![],
        "`[allocator]`: the allocator engine's settings.".into(),
        tidy(g.subschema_for::<dctc_num::settings::AllocatorKeys>()),
    );
    // `[output]`: one type, each engine reading its own keys.
    let output = tidy(g.subschema_for::<dctc_core::config::OutputSpec>());
    for (engine, keys) in [
        (Engine::Packet, packet::OUTPUT_KEYS),
        (Engine::Flow, flow::OUTPUT_KEYS),
        (Engine::Allocator, allocator::OUTPUT_KEYS),
    ] {
        let mut props = properties(&output);
        props.retain(|k, _| keys.contains(&k.as_str()));
        let name = engine_name(engine);
        push(
            format!("output.{name}"),
            "output",
            vec![engine],
            vec![],
            format!("`[output]` of a {name}-engine scenario: what it records beside its results."),
            object(props, &[], ""),
        );
    }
    // `[[paper]]` rows.
    let (row, kinds) = crate::paper::claims::row_schemas(&mut g);
    push(
        "paper".into(),
        "paper[]",
        vec![],
        vec![],
        "Every `[[paper]]` row: a claim of the paper, graded against ours; `kind` picks its own keys.".into(),
        tidy(row),
    );
    for (kind, s) in kinds {
        push(
            format!("paper.{kind}"),
            "paper[]",
            vec![],
            vec![("kind", kind.to_string())],
            format!("A `{kind}` row's own keys."),
            tidy(s),
        );
    }
    out
}

/// An engine as scenarios name it.
fn engine_name(e: Engine) -> &'static str {
    match e {
        Engine::Packet => "packet",
        Engine::Flow => "flow",
        Engine::Allocator => "allocator",
    }
}

/// Every key of `sections`, walked into nested tables (`tcp.min_rto_us`) and tables in
/// arrays (`flows[].src`).
pub fn keys(sections: &[Section]) -> Vec<Key> {
    let mut out = Vec::new();
    for s in sections {
        walk(&s.id, "", &s.schema, &mut out);
    }
    out
}

fn walk(section: &str, prefix: &str, schema: &Value, out: &mut Vec<Key>) {
    let required = required_of(schema);
    for (name, p) in properties(schema) {
        let path = format!("{prefix}{name}");
        let meaning = clean(p.get("description").and_then(Value::as_str).unwrap_or(""));
        out.push(Key {
            section: section.to_string(),
            path: path.clone(),
            ty: type_of(&p),
            required: required.contains(&name),
            default: default_of(&p, &meaning),
            unit: unit_of(&name, &meaning),
            range: range_of(&p, &meaning),
            meaning,
            schema: p.clone(),
        });
        // A table of keys (not a free map), or an array of them: their keys too.
        let inner = match p.get("type").and_then(Value::as_str) {
            Some("array") => p.get("items").map(|i| (i.clone(), "[]")),
            _ => Some((p.clone(), "")),
        };
        if let Some((inner, mark)) = inner {
            if inner.get("properties").is_some() {
                walk(section, &format!("{path}{mark}."), &inner, out);
            } else {
                // A tagged table (`utility = { kind = "alpha", ... }`): every variant's keys.
                for (tag, v) in tagged_variants(&inner, "kind") {
                    let mut keys = Vec::new();
                    walk(section, &format!("{path}{mark}."), &v, &mut keys);
                    for mut k in keys {
                        k.meaning = format!("(kind = \"{tag}\") {}", k.meaning);
                        if !out
                            .iter()
                            .any(|o: &Key| o.section == k.section && o.path == k.path)
                        {
                            out.push(k);
                        } else if let Some(o) = out
                            .iter_mut()
                            .find(|o| o.section == k.section && o.path == k.path)
                        {
                            o.meaning = format!("{}; {}", o.meaning, k.meaning);
                            o.required = false;
                        }
                    }
                }
            }
        }
    }
}

/// A doc comment as one line, rustdoc's link brackets dropped.
fn clean(doc: &str) -> String {
    let one = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    one.replace("[`", "`").replace("`]", "`")
}

/// The TOML type of a value schema.
fn type_of(p: &Value) -> String {
    if let Some(c) = p.get("const") {
        return c.to_string();
    }
    if let Some(Value::Array(e)) = p.get("enum") {
        return e
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(" | ");
    }
    match p.get("type") {
        Some(Value::String(t)) => match t.as_str() {
            "number" => "float".into(),
            "integer" => "integer".into(),
            "boolean" => "bool".into(),
            "string" => "string".into(),
            "object" => "table".into(),
            "array" => match p.get("items") {
                Some(i) => format!("array of {}", type_of(i)),
                None => "array".into(),
            },
            other => other.into(),
        },
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ if p.get("oneOf").is_some() || p.get("anyOf").is_some() => {
            let kinds: Vec<String> = tagged_variants(p, "kind")
                .into_iter()
                .map(|(k, _)| format!("\"{k}\""))
                .collect();
            if kinds.is_empty() {
                "any".into()
            } else {
                format!("table (kind = {})", kinds.join(" | "))
            }
        }
        _ => "any".into(),
    }
}

/// Unit suffixes of key names, the project's convention, and the unit each names.
const UNITS: &[(&str, &str)] = &[
    ("_us", "us"),
    ("_ms", "ms"),
    ("_s", "s"),
    ("_bytes", "bytes"),
    ("_gbps", "Gb/s"),
    ("_mbps", "Mb/s"),
    ("_bps", "b/s"),
    ("_packets", "packets"),
    ("_pkts", "packets"),
];

fn unit_of(name: &str, meaning: &str) -> String {
    if let Some((_, u)) = UNITS.iter().find(|(suffix, _)| name.ends_with(suffix)) {
        return u.to_string();
    }
    // A key without a unit suffix whose doc names one: ", ms." / ", bytes," as the docs
    // write it.
    for (_, u) in UNITS {
        if meaning.contains(&format!(", {u},")) || meaning.contains(&format!(", {u}.")) {
            return u.to_string();
        }
    }
    String::new()
}

/// The default a schema gives, else the doc comment's "(default X)" / "default: X" / "default
/// X;" phrase.
fn default_of(p: &Value, meaning: &str) -> String {
    if let Some(d) = p.get("default") {
        return d.to_string();
    }
    let lower = meaning.to_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find("default") {
        let at = from + i;
        from = at + 7;
        // "default" as its own word, opening a statement of the default.
        let before = lower[..at].trim_end();
        let after = &meaning[at + 7..];
        if after.starts_with('s') || after.starts_with("ed") {
            continue;
        }
        if !(before.is_empty()
            || before.ends_with('(')
            || before.ends_with(';')
            || before.ends_with(',')
            || before.ends_with('.'))
        {
            continue;
        }
        // "`x` (default)" / "`x` (default, as published)": the name just before.
        if after.starts_with(')') || after.starts_with(',') {
            let head = meaning[..at].trim_end().trim_end_matches('(').trim_end();
            if let Some(name) = head.strip_suffix('`').and_then(|h| h.rsplit('`').next()) {
                return format!("`{name}`");
            }
            continue;
        }
        let after = after.trim_start_matches(':').trim_start();
        let mut depth = 0;
        let mut end = after.len();
        for (j, c) in after.char_indices() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' if depth == 0 => {
                    end = j;
                    break;
                }
                ')' | ']' => depth -= 1,
                ';' if depth == 0 => {
                    end = j;
                    break;
                }
                '.' if depth == 0 && after[j + 1..].starts_with(' ') => {
                    end = j;
                    break;
                }
                _ => {}
            }
        }
        let d = after[..end].trim().trim_end_matches('.').trim();
        if !d.is_empty() {
            return d.to_string();
        }
    }
    String::new()
}

/// The range the doc comment states ("positive", "in (0, 1]", ">= 0", "at least 1",
/// "1..=8"), else the one the schema's type implies (an unsigned integer: ">= 0").
fn range_of(p: &Value, meaning: &str) -> String {
    let m = meaning;
    // An interval "in (a, b]" / "in [a, b)".
    for (i, _) in m.match_indices("in ") {
        let rest = &m[i + 3..];
        if rest.starts_with('(') || rest.starts_with('[') {
            if let Some(end) = rest.find([')', ']']) {
                let interval = &rest[..=end];
                if interval.contains(',') && interval.len() < 40 {
                    return interval.to_string();
                }
            }
        }
    }
    for word in m.split([',', ';', '(', ')']) {
        let w = word.trim().trim_end_matches('.');
        let lw = w.to_lowercase();
        if lw == "positive" || lw == "non-negative" || lw.starts_with(">= ") || lw.starts_with("> ")
        {
            return w.to_string();
        }
        if (lw.starts_with("at least ") || lw.starts_with("at most ") || lw.starts_with("above "))
            && w.len() < 40
        {
            return w.to_string();
        }
        if let Some(r) = w
            .split_whitespace()
            .find(|t| t.contains("..=") && t.chars().next().is_some_and(|c| c.is_ascii_digit()))
        {
            return r.to_string();
        }
    }
    if let Some(min) = p.get("minimum") {
        return format!(">= {min}");
    }
    String::new()
}

/// The whole scenario format as one JSON Schema (draft 7), from [`sections`]: the top level
/// with each table's schema put in. A scheme table is checked against the keys of its
/// engine's schemes: the shared ones, its own (chosen by `name`) and, since `queue` may name
/// any discipline, every discipline's; `dctc validate` is the exact check.
pub fn schema() -> Value {
    let secs = sections();
    let by_id = |id: &str| -> &Section {
        secs.iter()
            .find(|s| s.id == id)
            .unwrap_or_else(|| panic!("no section {id}"))
    };
    let mut top = by_id("scenario").schema.clone();
    let queue_props: Map<String, Value> = secs
        .iter()
        .filter(|s| s.id.starts_with("queue."))
        .flat_map(|s| properties(&s.schema))
        .collect();
    let variants = |prefix: &str, tag: &str, extra: &Map<String, Value>, shared: Option<&Value>| {
        secs.iter()
            .filter(|s| {
                s.id.starts_with(prefix) && s.id.matches('.').count() == prefix.matches('.').count()
            })
            .map(|s| {
                let mut props = shared.map(properties).unwrap_or_default();
                props.extend(properties(&s.schema));
                for (k, v) in extra {
                    props.entry(k.clone()).or_insert_with(|| v.clone());
                }
                let value = &s.when[0].1;
                props.insert(
                    tag.to_string(),
                    json!({"const": value, "description": s.about}),
                );
                let mut req = shared.map(required_of).unwrap_or_default();
                req.extend(required_of(&s.schema));
                if !req.contains(&tag.to_string()) {
                    req.push(tag.to_string());
                }
                object(props, &req, &s.about)
            })
            .collect::<Vec<_>>()
    };
    let fabric = json!({"oneOf": variants("fabric.", "kind", &Map::new(), None), "description": "The fabric: `kind` picks one of these."});
    let workload = json!({"type": "array", "items": {"oneOf": variants("workload.", "kind", &Map::new(), None)}});
    let packet_schemes = variants(
        "schemes.packet.",
        "name",
        &queue_props,
        Some(&by_id("schemes.packet").schema),
    );
    let flow_schemes = variants(
        "schemes.flow.",
        "name",
        &Map::new(),
        Some(&by_id("schemes.flow").schema),
    );
    let mut scheme_alts = packet_schemes;
    scheme_alts.extend(flow_schemes);
    scheme_alts.push(by_id("schemes.allocator").schema.clone());
    let schemes = json!({"type": "array", "items": {"anyOf": scheme_alts}});
    let mut packet_table = by_id("packet").schema.clone();
    if let Some(p) = packet_table
        .get_mut("properties")
        .and_then(Value::as_object_mut)
    {
        for (k, v) in &queue_props {
            p.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    let output_props: Map<String, Value> = secs
        .iter()
        .filter(|s| s.id.starts_with("output."))
        .flat_map(|s| properties(&s.schema))
        .collect();
    let output = object(output_props, &[], "What the engine records beside its results; each engine reads its own keys (see `dctc keys output`).");
    let row = by_id("paper");
    let paper_rows = variants("paper.", "kind", &Map::new(), Some(&row.schema));
    let paper = json!({"type": "array", "items": {"oneOf": paper_rows}});
    let tables = [
        ("fabric", fabric),
        ("workload", workload),
        ("schemes", schemes),
        ("packet", packet_table),
        ("flow", by_id("flow").schema.clone()),
        ("allocator", by_id("allocator").schema.clone()),
        ("output", output),
        ("paper", paper),
    ];
    if let Some(p) = top.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, mut s) in tables {
            if let (Some(Value::String(d)), Value::Object(o)) =
                (p[name].get("description").cloned(), &mut s)
            {
                o.entry("description").or_insert(Value::String(d));
            }
            p.insert(name.to_string(), s);
        }
    }
    let mut root = Map::new();
    root.insert(
        "$schema".into(),
        json!("http://json-schema.org/draft-07/schema#"),
    );
    root.insert("title".into(), json!("dctc scenario"));
    if let Value::Object(o) = top {
        for (k, v) in o {
            if k != "title" {
                root.insert(k, v);
            }
        }
    }
    Value::Object(root)
}

/// Whether section `id` is selected by `filter`: the id itself, a section below it
/// (`schemes` selects `schemes.packet.dctcp`), or one whose last part it names (`dctcp`).
pub fn selects(id: &str, filter: &str) -> bool {
    id == filter
        || id.starts_with(&format!("{filter}."))
        || id.split('.').any(|part| part == filter)
}

fn engines_text(s: &Section) -> String {
    if s.engines.is_empty() {
        return "every engine".into();
    }
    format!("engine = {}", s.engines.join(" | "))
}

fn where_text(s: &Section) -> String {
    let table = if s.table.is_empty() {
        "the top level".to_string()
    } else if let Some(t) = s.table.strip_suffix("[]") {
        format!("each `[[{t}]]` table")
    } else {
        format!("`[{}]`", s.table)
    };
    let when: Vec<String> = s
        .when
        .iter()
        .map(|(k, v)| format!("{k} = \"{v}\""))
        .collect();
    if when.is_empty() {
        table
    } else {
        format!("{table} with {}", when.join(", "))
    }
}

/// The reference as Markdown (`docs/scenario-keys.md`): one table per section.
pub fn markdown() -> String {
    let secs = sections();
    let keys = keys(&secs);
    let mut out = String::from(
        "# Scenario keys\n\n<!-- Generated by `dctc keys --markdown` from the types that parse scenarios; do not edit (crates/cli/tests/scenario_keys.rs checks it). -->\n\nEvery key a scenario file may hold, by the part of the format that reads it. Type comes from the parsing type; unit from the key's suffix; default, range and meaning from the key's documentation. `dctc keys [SECTION]` prints the same on the terminal, `dctc schema` the JSON Schema (see the README for editor set-up), and `dctc validate` is the exact check.\n\n",
    );
    out.push_str("Sections:");
    for s in &secs {
        let _ = write!(out, " [`{}`](#{}),", s.id, anchor(&s.id));
    }
    out.pop();
    out.push_str("\n\n");
    for s in &secs {
        let _ = writeln!(out, "## `{}`\n", s.id);
        let _ = writeln!(out, "{}\n", s.about);
        let _ = writeln!(out, "In {} ({}).\n", where_text(s), engines_text(s));
        let own: Vec<&Key> = keys.iter().filter(|k| k.section == s.id).collect();
        if own.is_empty() {
            out.push_str("No keys of its own.\n\n");
            continue;
        }
        out.push_str(
            "| key | type | default | unit | range | meaning |\n|---|---|---|---|---|---|\n",
        );
        for k in own {
            let default = if k.required {
                "required".to_string()
            } else {
                k.default.clone()
            };
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} | {} |",
                k.path,
                cell(&k.ty),
                cell(&default),
                cell(&k.unit),
                cell(&k.range),
                cell(&k.meaning)
            );
        }
        out.push('\n');
    }
    out
}

fn anchor(id: &str) -> String {
    id.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect::<String>()
        .to_lowercase()
}

fn cell(s: &str) -> String {
    if s.is_empty() {
        "".into()
    } else {
        s.replace('|', "\\|")
    }
}

/// The reference as text for a terminal, the sections `filter` selects (all with `None`);
/// `Err` lists the section ids when it selects none.
pub fn text(filter: Option<&str>) -> Result<String, String> {
    let secs = sections();
    let keys = keys(&secs);
    let chosen: Vec<&Section> = secs
        .iter()
        .filter(|s| filter.is_none_or(|f| selects(&s.id, f)))
        .collect();
    if chosen.is_empty() {
        let ids: Vec<&str> = secs.iter().map(|s| s.id.as_str()).collect();
        let f = filter.unwrap_or_default();
        return Err(format!(
            "no section `{f}`{}; sections: {}",
            dctc_core::error::nearest(f, &ids)
                .map(|n| format!(" (did you mean `{n}`?)"))
                .unwrap_or_default(),
            ids.join(", ")
        ));
    }
    let mut out = String::new();
    for s in chosen {
        let _ = writeln!(out, "{}: {}", s.id, s.about);
        let _ = writeln!(out, "  in {} ({})", where_text(s), engines_text(s));
        for k in keys.iter().filter(|k| k.section == s.id) {
            let mut facts = vec![k.ty.clone()];
            if k.required {
                facts.push("required".into());
            } else if !k.default.is_empty() {
                facts.push(format!("default {}", k.default));
            }
            if !k.unit.is_empty() {
                facts.push(k.unit.clone());
            }
            if !k.range.is_empty() {
                facts.push(k.range.clone());
            }
            let _ = writeln!(out, "  {} ({}): {}", k.path, facts.join("; "), k.meaning);
        }
        out.push('\n');
    }
    Ok(out)
}

/// One line per key of section `id`, `name (default X)`, for `dctc list`.
pub fn brief(id: &str, keys: &[Key]) -> Vec<String> {
    keys.iter()
        .filter(|k| k.section == id && !k.path.contains('.'))
        .map(|k| match k.default.is_empty() {
            true => k.path.clone(),
            false => format!("{} (default {})", k.path, k.default),
        })
        .collect()
}
