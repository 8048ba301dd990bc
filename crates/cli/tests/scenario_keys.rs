//! The key reference (`dctc keys`, `docs/scenario-keys.md`) and the JSON Schema (`dctc
//! schema`) against the parser, both ways: every key a shipped scenario uses is in the
//! reference; every key the reference offers is accepted by the parser in a scenario of its
//! section, and a key it does not offer is refused; the Markdown is what the code generates
//! now; the schema accepts every shipped scenario and refuses a misspelt key.

use dctc_cli::keys::{self, Key, Section};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use toml::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every shipped scenario (claims files are another format, checked by the ledger's tests).
fn shipped() -> Vec<PathBuf> {
    fn visit(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.path());
        for e in entries {
            let p = e.path();
            if p.is_dir() && p.file_name().is_some_and(|n| n != "fabrics") {
                visit(&p, out);
            } else if p.extension().is_some_and(|x| x == "toml")
                && p.file_name().is_some_and(|n| n != "claims.toml")
            {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    visit(&root().join("scenarios"), &mut out);
    assert!(out.len() > 50, "found {} scenarios", out.len());
    out
}

/// The sections whose keys a table of a scenario may hold: `table` is where it sits
/// (`schemes[]`, `packet`, ...), `value` the table itself.
fn sections_for(engine: &str, table: &str, value: &Value) -> Vec<String> {
    let get = |k: &str| {
        value
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    match table {
        "" => vec!["scenario".into()],
        "fabric" => vec![format!("fabric.{}", get("kind"))],
        "workload[]" => vec![format!("workload.{}", get("kind"))],
        "schemes[]" => match engine {
            "packet" => {
                let name = get("name");
                let queue = match get("queue") {
                    q if q.is_empty() => keys::default_queue(&name).unwrap_or("?").to_string(),
                    q => q,
                };
                vec![
                    "schemes.packet".into(),
                    format!("schemes.packet.{name}"),
                    format!("queue.{queue}"),
                ]
            }
            "flow" => vec![
                "schemes.flow".into(),
                format!("schemes.flow.{}", get("name")),
            ],
            _ => vec!["schemes.allocator".into()],
        },
        "packet" => {
            let mut v = vec!["packet".to_string()];
            v.extend(
                keys::sections()
                    .into_iter()
                    .filter(|s| s.id.starts_with("queue."))
                    .map(|s| s.id),
            );
            v
        }
        "output" => vec![format!("output.{engine}")],
        "paper[]" => vec!["paper".into(), format!("paper.{}", get("kind"))],
        other => vec![other.to_string()],
    }
}

/// The key paths of `value` below `prefix`, descending into the sub-tables (and arrays of
/// tables) that the reference describes key by key.
fn paths(value: &Value, prefix: &str, known: &BTreeSet<String>, out: &mut Vec<String>) {
    let Some(t) = value.as_table() else { return };
    for (k, v) in t {
        let path = format!("{prefix}{k}");
        out.push(path.clone());
        let below = format!("{path}.");
        let below_array = format!("{path}[].");
        if known.iter().any(|p| p.starts_with(&below)) && v.is_table() {
            paths(v, &below, known, out);
        } else if known.iter().any(|p| p.starts_with(&below_array)) {
            for item in v.as_array().into_iter().flatten() {
                paths(item, &below_array, known, out);
            }
        }
    }
}

/// The keys of the reference by section, as paths.
fn known_in(all: &[Key], sections: &[String]) -> BTreeSet<String> {
    all.iter()
        .filter(|k| sections.contains(&k.section))
        .map(|k| k.path.clone())
        .collect()
}

#[test]
fn every_key_a_shipped_scenario_uses_is_in_the_reference() {
    let all = keys::keys(&keys::sections());
    let mut checked = 0;
    let mut missing = Vec::new();
    for file in shipped() {
        let text = std::fs::read_to_string(&file).unwrap();
        let doc: Value = toml::from_str(&text).unwrap();
        let engine = doc
            .get("engine")
            .and_then(Value::as_str)
            .unwrap_or("packet");
        let mut tables: Vec<(&str, &Value)> = vec![("", &doc)];
        for (name, table) in [
            ("fabric", "fabric"),
            ("packet", "packet"),
            ("flow", "flow"),
            ("allocator", "allocator"),
            ("output", "output"),
        ] {
            if let Some(v) = doc.get(name) {
                tables.push((table, v));
            }
        }
        for (name, table) in [
            ("workload", "workload[]"),
            ("schemes", "schemes[]"),
            ("paper", "paper[]"),
        ] {
            for v in doc
                .get(name)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                tables.push((table, v));
            }
        }
        for (table, value) in tables {
            let secs = sections_for(engine, table, value);
            let known = known_in(&all, &secs);
            let mut used = Vec::new();
            paths(value, "", &known, &mut used);
            for p in used {
                checked += 1;
                // The tag keys that choose a section are its `when`, not one of its keys.
                // So is the `kind` of a tagged sub-table (`utility = { kind = "alpha" }`),
                // whose keys the reference lists by kind.
                let tag = (p == "kind" && !table.is_empty())
                    || p.strip_suffix(".kind").is_some_and(|parent| {
                        known.iter().any(|k| k.starts_with(&format!("{parent}.")))
                    });
                if !known.contains(&p) && !tag {
                    missing.push(format!(
                        "{}: {table} {p} (sections {secs:?})",
                        file.display()
                    ));
                }
            }
        }
    }
    assert!(checked > 1000, "only {checked} keys checked");
    assert!(
        missing.is_empty(),
        "keys not in the reference:\n{}",
        missing.join("\n")
    );
}

const DUMBBELL: &str = r#"kind = "dumbbell"
senders = 2
receivers = 2
host_rate_gbps = 10.0
bottleneck_rate_gbps = 10.0
link_delay_us = 1.0
host_delay_us = 1.0
buffer_bytes = 300000
"#;

/// A small valid scenario of `engine`.
fn base(engine: &str) -> Value {
    let text = match engine {
        "packet" => format!(
            // 20 ms: a Poisson web-search workload at load 0.3 draws flows within it.
            r#"name = "k"
engine = "packet"
duration_ms = 20.0
[fabric]
{DUMBBELL}
[[workload]]
kind = "flows"
flows = [{{ src = 0, dst = 2, size_bytes = 15000, start_us = 0.0 }}]
[[schemes]]
name = "newreno"
"#
        ),
        "flow" => r#"name = "k"
engine = "flow"
duration_ms = 1.0
[fabric]
kind = "big-switch"
ports = 4
rate_gbps = 10.0
[[workload]]
kind = "synthetic-coflows"
coflows = 4
load = 0.5
cdf = "websearch"
width_min = 1
width_max = 2
[[schemes]]
name = "maxmin"
"#
        .to_string(),
        _ => r#"name = "k"
engine = "allocator"
duration_ms = 0.2
[fabric]
kind = "leaf-spine"
racks = 2
hosts_per_rack = 2
spines = 2
host_rate_gbps = 10.0
fabric_rate_gbps = 10.0
host_link_delay_us = 1.0
fabric_link_delay_us = 1.0
buffer_bytes = 300000
[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.3
[[schemes]]
name = "ned"
"#
        .to_string(),
    };
    toml::from_str(&text).unwrap()
}

/// Sets `key` of the table `doc` (toml's `doc[key] = ...` panics on a key the table lacks).
fn put(doc: &mut Value, key: &str, value: Value) {
    doc.as_table_mut()
        .expect("a table")
        .insert(key.into(), value);
}

fn table(text: &str) -> Value {
    toml::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A valid table of each tagged kind (fabric and workload kinds, `[[paper]]` rows).
fn kind_table(section: &str) -> Option<Value> {
    let data = root().join("data").display().to_string();
    let fabrics = root().join("scenarios/holnet/fabrics/iv-a.toml");
    let text = match section {
        "fabric.preset" => "kind = \"preset\"\nname = \"fq-codel-32\"".to_string(),
        "fabric.leaf-spine" => return Some(base("allocator")["fabric"].clone()),
        "fabric.fat-tree" => "kind = \"fat-tree\"\nk = 4\nrate_gbps = 10.0\nlink_delay_us = 1.0\nbuffer_bytes = 300000".into(),
        "fabric.dumbbell" => DUMBBELL.into(),
        "fabric.big-switch" => "kind = \"big-switch\"\nports = 4\nrate_gbps = 10.0".into(),
        "fabric.file" => format!("kind = \"file\"\npath = \"{}\"", fabrics.display()),
        "workload.poisson" => "kind = \"poisson\"\ncdf = \"websearch\"\nload = 0.3".into(),
        "workload.incast" => "kind = \"incast\"\nsenders = 2\nblock_bytes = 3000\nrounds = 2".into(),
        "workload.flows" => "kind = \"flows\"\nflows = [{ src = 0, dst = 2, size_bytes = 15000, start_us = 0.0 }]".into(),
        "workload.csv" => return None,
        "workload.incast-sweep" => "kind = \"incast-sweep\"\nsenders = [2]\nblock_bytes = 3000\nrounds = 2".into(),
        "workload.coflow-trace" => format!("kind = \"coflow-trace\"\npath = \"{data}/coflow/FB2010-1Hr-150-0.txt\"\nmax_coflows = 3\nsize_scale = 0.001"),
        "workload.synthetic-coflows" => "kind = \"synthetic-coflows\"\ncoflows = 4\nload = 0.5\ncdf = \"websearch\"\nwidth_min = 1\nwidth_max = 2".into(),
        "paper" | "paper.value" => PAPER_ROW.to_string() + "kind = \"value\"\nmetric = \"m\"\nvalue = 1.0",
        "paper.range" => PAPER_ROW.to_string() + "kind = \"range\"\nmetric = \"m\"\nlow = 1.0\nhigh = 2.0",
        "paper.bound" => PAPER_ROW.to_string() + "kind = \"bound\"\nmetric = \"m\"\nbelow = 1.0",
        "paper.ratio" => PAPER_ROW.to_string() + "kind = \"ratio\"\na = \"m\"\nb = \"n\"\nfactor = 2.0",
        "paper.order" => PAPER_ROW.to_string() + "kind = \"order\"\nmetrics = [\"m\", \"n\"]",
        "paper.trend" => PAPER_ROW.to_string() + "kind = \"trend\"\nmetrics = [\"m\", \"n\"]\ndirection = \"increasing\"",
        _ => return None,
    };
    Some(table(&text))
}

const PAPER_ROW: &str = "label = \"l\"\nfigure = \"Fig. 1\"\nnote = \"n\"\n";

/// A scenario in which the keys of `s` apply, and the table (as a path of keys and array
/// indices) they go in; `None` for a section no small scenario can hold (a CSV file).
fn scenario_for(s: &Section) -> Option<(Value, Vec<PathStep>)> {
    let engine = s.engines.first().copied().unwrap_or("packet");
    let mut doc = base(engine);
    let when = |k: &str| s.when.iter().find(|w| w.0 == k).map(|w| w.1.clone());
    let steps = match s.table {
        "" => vec![],
        "fabric" => {
            put(&mut doc, "fabric", kind_table(&s.id)?);
            vec![PathStep::Key("fabric".into())]
        }
        "workload[]" => {
            if s.id == "workload.incast-sweep" || s.id == "workload.incast" {
                // The closed-loop incast senders need the first hosts free of other flows.
            }
            put(&mut doc, "workload", Value::Array(vec![kind_table(&s.id)?]));
            vec![PathStep::Key("workload".into()), PathStep::Index(0)]
        }
        "schemes[]" => {
            // toml's `value[key] = ...` panics on a key the table lacks: insert instead.
            let mut multipath = false;
            let scheme = doc["schemes"][0].as_table_mut().expect("a scheme table");
            if let Some(name) = when("name") {
                scheme.insert("name".into(), Value::String(name.clone()));
                if name == "holnet-mcc" || name == "mptcp" {
                    scheme.insert("subflows".into(), table(SUBFLOWS)["subflows"].clone());
                    multipath = true;
                }
            }
            if let Some(q) = when("queue") {
                scheme.insert("queue".into(), Value::String(q));
            }
            // Multipath flows are long-lived: the base flow loses its size.
            if multipath {
                if let Some(f) = doc["workload"][0]["flows"][0].as_table_mut() {
                    f.remove("size_bytes");
                    f.insert("stop_us".into(), Value::Float(100.0));
                }
            }
            vec![PathStep::Key("schemes".into()), PathStep::Index(0)]
        }
        "paper[]" => {
            put(&mut doc, "paper", Value::Array(vec![kind_table(&s.id)?]));
            vec![PathStep::Key("paper".into()), PathStep::Index(0)]
        }
        t => {
            doc.as_table_mut()?
                .insert(t.to_string(), Value::Table(Default::default()));
            vec![PathStep::Key(t.to_string())]
        }
    };
    Some((doc, steps))
}

const SUBFLOWS: &str = "subflows = [{ flow = 0, paths = [[\"h0\", \"left\", \"right\", \"h2\"]] }]";

#[derive(Clone, Debug)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn at<'a>(doc: &'a mut Value, steps: &[PathStep]) -> &'a mut Value {
    let mut v = doc;
    for s in steps {
        v = match s {
            PathStep::Key(k) => v
                .as_table_mut()
                .unwrap()
                .entry(k.clone())
                .or_insert(Value::Table(Default::default())),
            PathStep::Index(i) => &mut v.as_array_mut().unwrap()[*i],
        };
    }
    v
}

/// Sets `path` (`a`, `a.b`, `a[].b`) below `table` to `value`, making the tables on the way.
fn set(table: &mut Value, path: &str, value: Value) {
    let (head, rest) = match path.split_once('.') {
        None => {
            table
                .as_table_mut()
                .unwrap()
                .insert(path.to_string(), value);
            return;
        }
        Some(x) => x,
    };
    let t = table.as_table_mut().unwrap();
    if let Some(name) = head.strip_suffix("[]") {
        let arr = t
            .entry(name.to_string())
            .or_insert_with(|| Value::Array(vec![Value::Table(Default::default())]));
        if arr.as_array().is_none_or(Vec::is_empty) {
            *arr = Value::Array(vec![Value::Table(Default::default())]);
        }
        set(&mut arr.as_array_mut().unwrap()[0], rest, value);
    } else {
        let sub = t
            .entry(head.to_string())
            .or_insert_with(|| Value::Table(Default::default()));
        if !sub.is_table() {
            *sub = Value::Table(Default::default());
        }
        set(sub, rest, value);
    }
}

/// Values to try for a key, the first the parser takes being its example: the named
/// values its type allows, else a few of its type.
fn candidates(k: &Key) -> Vec<Value> {
    let s = &k.schema;
    if let Some(c) = s.get("const") {
        return vec![json_to_toml(c)];
    }
    if let Some(e) = s.get("enum").and_then(|e| e.as_array()) {
        return e.iter().map(json_to_toml).collect();
    }
    let name = k.path.rsplit('.').next().unwrap_or(&k.path);
    if let Some(v) = EXAMPLES.iter().find(|(n, _)| *n == name || *n == k.path) {
        return vec![table(&format!("v = {}", v.1))["v"].clone()];
    }
    let floats = [0.5, 1.0, 0.1, 2.0, 10.0, 100.0, 0.01, 1000.0, 1e6];
    let ints = [1i64, 2, 4, 10, 100, 1000, 1500, 100000, 1500000];
    match s.get("type").and_then(|t| t.as_str()) {
        Some("number") => floats.iter().map(|&f| Value::Float(f)).collect(),
        Some("integer") => ints.iter().map(|&i| Value::Integer(i)).collect(),
        Some("boolean") => vec![Value::Boolean(true), Value::Boolean(false)],
        Some("string") => vec![Value::String("x".into())],
        Some("object") => vec![Value::Table(Default::default())],
        Some("array") => {
            let item = s
                .get("items")
                .and_then(|i| i.get("type"))
                .and_then(|t| t.as_str());
            match item {
                Some("number") => vec![
                    Value::Array(vec![Value::Float(0.5)]),
                    Value::Array(vec![Value::Float(1.0), Value::Float(0.5)]),
                ],
                Some("integer") => vec![
                    Value::Array(vec![Value::Integer(2)]),
                    Value::Array(vec![Value::Integer(100000), Value::Integer(10000000)]),
                ],
                Some("string") => vec![Value::Array(vec![Value::String("x".into())])],
                _ => vec![Value::Array(vec![])],
            }
        }
        _ => vec![
            Value::Integer(1),
            Value::Float(0.5),
            Value::String("x".into()),
        ],
    }
}

/// Examples for keys whose type alone does not give a value the parser takes (a name from
/// a list, a table of a fixed shape), by key name or full path.
const EXAMPLES: &[(&str, &str)] = &[
    ("queue", "\"ecn\""),
    ("transport", "\"dctcp\""),
    ("nic_queue", "\"switch\""),
    ("preset", "\"pfabric-tuned\""),
    ("routing", "\"ecmp\""),
    ("cdf", "\"websearch\""),
    ("arrivals", "\"native\""),
    (
        "subflows",
        "[{ flow = 0, paths = [[\"h0\", \"left\", \"right\", \"h2\"]] }]",
    ),
    ("subflows[].flow", "0"),
    (
        "subflows[].paths",
        "[[\"h0\", \"left\", \"right\", \"h2\"]]",
    ),
    ("name", "\"newreno\""),
    ("label", "\"x\""),
    ("direction", "\"increasing\""),
    ("factor", "2.0"),
];

fn json_to_toml(v: &serde_json::Value) -> Value {
    table(&format!("v = {v}"))["v"].clone()
}

/// Whether the parser took the scenario; else its error (key, reason).
fn check(doc: &Value) -> Result<(), (String, String)> {
    let text = toml::to_string(doc).unwrap();
    let s = dctc_cli::api::parse(&text, "<k>", &root(), None)
        .map_err(|e| (e.key.clone(), e.reason.clone()))?;
    dctc_cli::api::validate(&s).map_err(|e| match dctc_cli::api::scenario_error(&e) {
        Some(se) => (se.key.clone(), se.reason.clone()),
        None => (String::new(), format!("{e:#}")),
    })
}

/// Whether an error refuses a key as unknown (rather than a value of it).
fn refuses_key(reason: &str) -> bool {
    [
        "unknown field",
        "unknown key",
        "not a key of",
        "does not apply",
        "do not apply",
    ]
    .iter()
    .any(|p| reason.contains(p))
}

/// The full path of `key` in a scenario whose section table is at `steps`.
fn full_path(steps: &[PathStep], key: &str) -> String {
    let mut out = String::new();
    for s in steps {
        match s {
            PathStep::Key(k) if out.is_empty() => out.push_str(k),
            PathStep::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            PathStep::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    let key = key.replace("[].", "[0].");
    if out.is_empty() {
        key
    } else {
        format!("{out}.{key}")
    }
}

#[test]
fn every_key_of_the_reference_is_accepted_and_no_other() {
    let sections = keys::sections();
    let all = keys::keys(&sections);
    let mut accepted = 0;
    let mut recognized = Vec::new();
    let mut failures = Vec::new();
    for s in &sections {
        let Some((doc, steps)) = scenario_for(s) else {
            continue;
        };
        if let Err(e) = check(&doc) {
            failures.push(format!("{}: the base scenario is refused: {e:?}", s.id));
            continue;
        }
        // A key the reference does not offer is refused, naming it.
        let mut bad = doc.clone();
        set(at(&mut bad, &steps), "not_a_key_xyz", Value::Integer(1));
        match check(&bad) {
            Err((_, reason)) if refuses_key(&reason) || reason.contains("not_a_key_xyz") => {}
            other => failures.push(format!(
                "{}: an unknown key is not refused: {other:?}",
                s.id
            )),
        }
        for k in all.iter().filter(|k| k.section == s.id) {
            if s.when.iter().any(|w| w.0 == k.path) {
                continue;
            }
            let mut last = None;
            let mut ok = false;
            // A key of one kind of a tagged sub-table (`utility.alpha`) goes in a table of
            // that kind.
            let tag = k
                .meaning
                .strip_prefix("(kind = \"")
                .and_then(|m| m.split('"').next());
            // An engine's own table (`flow`, `allocator`) is accepted only by that engine.
            let doc = match (s.table, k.path.as_str()) {
                ("", engine @ ("flow" | "allocator")) => base(engine),
                _ => doc.clone(),
            };
            for v in candidates(k) {
                let mut d = doc.clone();
                if let (Some(tag), Some((parent, _))) = (tag, k.path.rsplit_once('.')) {
                    set(
                        at(&mut d, &steps),
                        &format!("{parent}.kind"),
                        Value::String(tag.into()),
                    );
                }
                set(at(&mut d, &steps), &k.path, v.clone());
                match check(&d) {
                    Ok(()) => {
                        ok = true;
                        break;
                    }
                    Err(e) => last = Some((v, e)),
                }
            }
            if ok {
                accepted += 1;
                continue;
            }
            let (v, (key, reason)) = last.expect("at least one candidate");
            // No example passed; the key is still the parser's if it judged the value there.
            let here = full_path(&steps, &k.path);
            if refuses_key(&reason) && key.starts_with(&here)
                || key.is_empty() && refuses_key(&reason)
            {
                failures.push(format!(
                    "{} {}: refused as a key: {key}: {reason} (value {v})",
                    s.id, k.path
                ));
            } else if !key.is_empty() && (key.starts_with(&here) || here.starts_with(&key)) {
                recognized.push(format!("{} {} = {v}: {key}: {reason}", s.id, k.path));
            } else {
                failures.push(format!(
                    "{} {}: no example passes; last {v}: `{key}`: {reason}",
                    s.id, k.path
                ));
            }
        }
    }
    eprintln!(
        "{accepted} keys accepted with an example; {} recognized with a value error:\n{}",
        recognized.len(),
        recognized.join("\n")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(accepted > 150, "only {accepted} keys accepted");
}

#[test]
fn the_markdown_reference_is_what_the_code_generates() {
    let path = root().join("docs/scenario-keys.md");
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    let now = keys::markdown();
    if written != now {
        if std::env::var_os("DCTC_BLESS").is_some() {
            std::fs::write(&path, &now).unwrap();
        } else {
            panic!(
                "docs/scenario-keys.md is stale: regenerate it with `dctc keys --markdown > docs/scenario-keys.md` (or DCTC_BLESS=1 cargo test -p dctc --test scenario_keys)"
            );
        }
    }
}

#[test]
fn the_schema_accepts_every_shipped_scenario_and_refuses_a_misspelt_key() {
    let schema = keys::schema();
    let validator = jsonschema::draft7::new(&schema).expect("a valid draft 7 schema");
    for file in shipped() {
        let doc: Value = toml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let json = serde_json::to_value(&doc).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{}: {}",
            file.display(),
            errors.join("; ")
        );
    }
    let mut doc = base("packet");
    let json = serde_json::to_value(&doc).unwrap();
    assert!(validator.is_valid(&json));
    for (table, key) in [
        ("", "duraton_ms"),
        ("fabric", "bufer_bytes"),
        ("schemes", "dctcp_gg"),
    ] {
        let mut d = doc.clone();
        match table {
            "" => set(&mut d, key, Value::Float(1.0)),
            "schemes" => set(&mut d["schemes"][0], key, Value::Float(1.0)),
            t => set(&mut d[t], key, Value::Float(1.0)),
        }
        assert!(
            !validator.is_valid(&serde_json::to_value(&d).unwrap()),
            "{table}.{key} passes the schema"
        );
    }
    // A wrong type is caught too.
    set(&mut doc, "duration_ms", Value::String("long".into()));
    assert!(!validator.is_valid(&serde_json::to_value(&doc).unwrap()));
}

#[test]
fn dctc_keys_selects_sections_and_names_the_valid_ones() {
    let text = keys::text(Some("dctcp")).unwrap();
    assert!(
        text.contains("schemes.packet.dctcp") && text.contains("dctcp_g"),
        "{text}"
    );
    assert!(!text.contains("cubic_beta"), "{text}");
    let e = keys::text(Some("dctpc")).unwrap_err();
    assert!(
        e.contains("did you mean `dctcp`") || e.contains("sections:"),
        "{e}"
    );
}
