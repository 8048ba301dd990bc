//! `dctc ledger` and `dctc reproduce` end to end on a tiny synthetic paper: every row graded
//! (a hold, a miss with its reason, a same-winner ratio, a reversed ratio, a missing metric,
//! an order), cross-file claims and untested headlines, rows of files the mode does not take,
//! the tally, FIDELITY.md's header, byte-identical reruns, and bad input refused.

mod common;

use common::{dctc, stderr, stdout};
use serde_json::Value;
use std::path::Path;

/// A packet scenario on a 4-host leaf-spine whose `flows` flows all finish within 2 ms, so
/// the figures the rows read are exact: `hosts` = 4, `flows_completed` = the number of flows,
/// `fct_us.small_completed` = 1 (one flow under 100 KB).
fn scenario(flows: &str, rows: &str) -> String {
    format!(
        r#"engine = "packet"
duration_ms = 2.0
[fabric]
kind = "leaf-spine"
racks = 2
hosts_per_rack = 2
spines = 1
host_rate_gbps = 10.0
fabric_rate_gbps = 10.0
host_link_delay_us = 1.0
fabric_link_delay_us = 1.0
buffer_bytes = 100000
[[workload]]
kind = "flows"
flows = [{flows}]
[[schemes]]
name = "dctcp"
label = "A"
{rows}"#
    )
}

const TWO_FLOWS: &str = "{ src = 0, dst = 2, start_us = 0, size_bytes = 100000 }, { src = 1, dst = 3, start_us = 0, size_bytes = 30000 }";
const ONE_FLOW: &str = "{ src = 1, dst = 3, start_us = 0, size_bytes = 30000 }";

fn row(kind: &str, keys: &str) -> String {
    format!("[[paper]]\nkind = \"{kind}\"\nlabel = \"{kind} row\"\nfigure = \"Fig. 1\"\nnote = \"a test row\"\n{keys}\n")
}

const README_REASON: &str = "(b) a tiny fabric has 4 hosts, see scenarios/tiny/README.md#hosts";

/// Writes the synthetic paper `tiny` under `dir/scen` and returns the scenarios folder.
fn write_paper(dir: &Path, claims: &str) -> std::path::PathBuf {
    let scen = dir.join("scen");
    let tiny = scen.join("tiny");
    std::fs::create_dir_all(&tiny).unwrap();
    let a_rows = [
        row("value", "metric = \"schemes.A.flows_completed\"\nvalue = 2"),
        row(
            "value",
            &format!("metric = \"schemes.A.hosts\"\nvalue = 8\nmiss_reason = \"{README_REASON}\""),
        ),
        // 4 hosts over 2 flows = 2: the winner (a > b) is right, the size (4x) is not.
        row("ratio", "a = \"schemes.A.hosts\"\nb = \"schemes.A.flows_completed\"\nfactor = 4.0"),
        // The reversed claim (a < b) misses whatever the size.
        row("ratio", "a = \"schemes.A.hosts\"\nb = \"schemes.A.flows_completed\"\nfactor = 0.5"),
        row("value", "metric = \"schemes.A.no_such_metric\"\nvalue = 1"),
        row(
            "order",
            "metrics = [\"schemes.A.fct_us.small_completed\", \"schemes.A.flows_completed\", \"schemes.A.hosts\"]",
        ),
        row("bound", "metric = \"schemes.A.drops.fraction_of_sent\"\nbelow = 0.001"),
    ]
    .concat();
    std::fs::write(tiny.join("a.toml"), scenario(TWO_FLOWS, &a_rows)).unwrap();
    std::fs::write(
        tiny.join("a.full.toml"),
        scenario(
            TWO_FLOWS,
            &row("value", "metric = \"schemes.A.hosts\"\nvalue = 4"),
        ),
    )
    .unwrap();
    std::fs::write(
        tiny.join("b.toml"),
        scenario(
            ONE_FLOW,
            &row("value", "metric = \"schemes.A.flows_completed\"\nvalue = 1"),
        ),
    )
    .unwrap();
    // No row, no claim reads it: the ledger does not run it.
    std::fs::write(tiny.join("c.toml"), scenario(ONE_FLOW, "")).unwrap();
    std::fs::write(tiny.join("claims.toml"), claims).unwrap();
    scen
}

const CLAIMS: &str = r#"
[[paper]]
kind = "ratio"
label = "two flows over one"
figure = "Fig. 2"
note = "a cross-file ratio"
a = "a:schemes.A.flows_completed"
b = "b:schemes.A.flows_completed"
factor = 2.0

[[paper]]
kind = "trend"
label = "completions grow with the flows"
figure = "Fig. 2"
note = "a cross-file trend"
metrics = ["b:schemes.A.flows_completed", "a:schemes.A.flows_completed"]
direction = "increasing"

[[untested]]
headline = "a testbed figure"
figure = "Fig. 3"
reason = "no testbed in dctc"
"#;

fn ledger_json(dir: &Path, out: &str) -> Value {
    let text = std::fs::read_to_string(dir.join(out).join("ledger.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// id -> verdict of the graded rows of the only paper.
fn verdicts(v: &Value) -> Vec<(String, String)> {
    v["papers"][0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_string(),
                r["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_ledger_grades_every_row_tallies_and_reruns_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_paper(dir, CLAIMS);
    let o = dctc(
        &[
            "ledger",
            "--paper",
            "tiny",
            "--scenarios",
            "scen",
            "--out",
            "out/l",
            "--fidelity",
            "FID.md",
            "--quiet",
        ],
        dir,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = ledger_json(dir, "out/l");
    assert_eq!(v["mode"], "short");
    let want = [
        ("tiny/a#1", "holds"),
        ("tiny/a#2", "misses"),
        ("tiny/a#3", "same winner"),
        ("tiny/a#4", "misses"),
        ("tiny/a#5", "missing"),
        ("tiny/a#6", "holds"),
        ("tiny/a#7", "holds"),
        ("tiny/b#1", "holds"),
        ("tiny/claims#1", "holds"),
        ("tiny/claims#2", "holds"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(verdicts(&v), want);
    let rows = &v["papers"][0]["rows"];
    assert_eq!(rows[2]["ours"], 2.0);
    assert_eq!(rows[2]["paper"], "hosts/flows_completed 4x");
    assert_eq!(rows[1]["miss_reason"], README_REASON);
    assert_eq!(rows[0]["run"], "short");
    assert_eq!(rows[0]["file"], "tiny/a.toml");
    assert_eq!(rows[8]["file"], "tiny/claims.toml");
    assert_eq!(
        rows[5]["ours_text"],
        "fct_us.small_completed 1 < flows_completed 2 < hosts 4"
    );
    let t = &v["tally"];
    assert_eq!(t["holds"], 6);
    assert_eq!(t["same_winner"], 1);
    assert_eq!(t["same_winner_unexplained"], 1);
    assert_eq!(t["misses"], 2);
    assert_eq!(t["misses_explained"], 1);
    assert_eq!(t["misses_unexplained"], 1);
    assert_eq!(t["missing"], 1);
    assert_eq!(t["untested"], 1);
    assert_eq!(t["not_run"], 1);
    // The full file's row is listed, ungraded; the rowless file did not run.
    assert_eq!(v["papers"][0]["not_run"][0]["id"], "tiny/a.full#1");
    assert_eq!(v["papers"][0]["ungraded_scenarios"][0], "tiny/c.toml");
    assert_eq!(v["papers"][0]["untested"][0]["id"], "tiny/untested#1");
    let out = stdout(&o);
    assert!(!out.contains("tiny/c "), "{out}");
    assert!(
        out.contains("10 paper claims graded: 6 hold, 1 same winner (0 explained, 1 unexplained), 2 miss (1 explained, 1 unexplained), 1 missing; 1 untested headlines"),
        "{out}"
    );

    // FIDELITY.md: a table naming what produced each paper's part, then the tally and the
    // paper's section as ledger.md has it; the paper's record beside it.
    let fid = std::fs::read_to_string(dir.join("FID.md")).unwrap();
    let md = std::fs::read_to_string(dir.join("out/l/ledger.md")).unwrap();
    assert!(
        fid.contains("| tiny | short | `")
            && fid.contains(
                "`dctc ledger --paper tiny --scenarios scen --out out/l --fidelity FID.md --quiet`"
            ),
        "{fid}"
    );
    let section = &md[md.find("\n## tiny").unwrap()..];
    assert!(fid.ends_with(section), "{fid}");
    assert!(fid.contains("**10 paper claims graded: 6 hold, 1 same winner"));
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("fidelity/tiny.json")).unwrap())
            .unwrap();
    assert_eq!(record["ledger"]["rows"].as_array().unwrap().len(), 10);
    assert_eq!(record["ledger"]["rows"][0]["verdict"], "holds");
    assert_eq!(record["mode"], "short");
    // --render rebuilds the same file from the record, running nothing.
    std::fs::write(
        dir.join("FID.md"),
        format!("{}\n<!-- merge debris -->", fid),
    )
    .unwrap();
    let o = dctc(&["ledger", "--fidelity", "FID.md", "--render"], dir);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(dir.join("FID.md")).unwrap(), fid);
    for id in [
        "tiny/a#5",
        "tiny/claims#2",
        "tiny/untested#1",
        "tiny/a.full#1",
    ] {
        assert!(md.contains(&format!("| {id} |")), "{id}");
    }
    let html = std::fs::read_to_string(dir.join("out/l/report.html")).unwrap();
    // The report's table names rows within their paper's section; the reasons table in full.
    assert!(html.contains("<td>claims#1</td>") && html.contains("<td>tiny/a#3</td>"));
    assert!(html.contains("same winner") && html.contains(README_REASON));

    // Same seeds, same ledger, byte for byte (FIDELITY.md's header aside).
    let o = dctc(
        &[
            "ledger",
            "--paper",
            "tiny",
            "--scenarios",
            "scen",
            "--out",
            "out/l2",
            "--fidelity",
            "FID.md",
            "--quiet",
        ],
        dir,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for f in ["ledger.json", "ledger.md", "report.html"] {
        assert_eq!(
            std::fs::read(dir.join("out/l").join(f)).unwrap(),
            std::fs::read(dir.join("out/l2").join(f)).unwrap(),
            "{f}"
        );
    }

    // --full takes a.full.toml where it exists, and lists a.toml's rows ungraded.
    let o = dctc(
        &[
            "ledger",
            "--full",
            "--paper",
            "tiny",
            "--scenarios",
            "scen",
            "--out",
            "out/f",
            "--fidelity",
            "FID.md",
            "--quiet",
        ],
        dir,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = ledger_json(dir, "out/f");
    assert_eq!(v["mode"], "full");
    let ids: Vec<String> = verdicts(&v).into_iter().map(|(id, _)| id).collect();
    assert_eq!(
        ids,
        [
            "tiny/a.full#1",
            "tiny/b#1",
            "tiny/claims#1",
            "tiny/claims#2"
        ]
    );
    let rows = &v["papers"][0]["rows"];
    assert_eq!(rows[0]["run"], "full");
    assert_eq!(rows[0]["verdict"], "holds");
    // The claims read a.full and b: one full file, one short.
    assert_eq!(rows[2]["run"], "short+full");
    assert_eq!(v["papers"][0]["not_run"].as_array().unwrap().len(), 7);
    // The full record sits beside the short one; FID.md grades each row by its file's mode,
    // once: a's 7 rows by the short run, a.full's by the full run, the claims by the full run.
    assert!(dir.join("fidelity/tiny.json").is_file());
    assert!(dir.join("fidelity/tiny.full.json").is_file());
    let fid = std::fs::read_to_string(dir.join("FID.md")).unwrap();
    assert!(
        fid.contains("| tiny | short | `") && fid.contains("| tiny | full | `"),
        "{fid}"
    );
    assert!(fid.contains("**11 paper claims graded"), "{fid}");
    assert!(fid.contains("| holds | full: tiny/a.full.toml |"), "{fid}");
    assert!(fid.contains("| short+full: tiny/claims.toml |"), "{fid}");
    assert!(!fid.contains("Rows no run here graded"), "{fid}");

    // --skip leaves a file out, its rows not run, and the record says why.
    let o = dctc(
        &[
            "ledger",
            "--full",
            "--paper",
            "tiny",
            "--scenarios",
            "scen",
            "--out",
            "out/s",
            "--fidelity",
            "FID.md",
            "--skip",
            "tiny/a.full=estimated 3 CPU hours",
            "--quiet",
        ],
        dir,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let fid = std::fs::read_to_string(dir.join("FID.md")).unwrap();
    assert!(
        fid.contains("full run: `tiny/a.full.toml` left out of this run: estimated 3 CPU hours"),
        "{fid}"
    );
    assert!(fid.contains("**10 paper claims graded"), "{fid}");
    assert!(fid.contains("| tiny/a.full#1 |"), "{fid}");
    // A --skip naming no file the run takes is refused before anything runs.
    for bad in ["tiny/nope=slow", "tiny/a.full", "a.full=slow"] {
        let o = dctc(
            &[
                "ledger",
                "--full",
                "--paper",
                "tiny",
                "--scenarios",
                "scen",
                "--out",
                "out/x",
                "--skip",
                bad,
            ],
            dir,
        );
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(stderr(&o).contains("--skip"), "{}", stderr(&o));
        assert!(!dir.join("out/x").exists());
    }
}

#[test]
fn reproduce_ends_with_the_papers_ledger() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_paper(dir, CLAIMS);
    let o = dctc(
        &["reproduce", "tiny", "--scenarios", "scen", "--out", "out/r"],
        dir,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let ledger = &out[out.find("Ledger of tiny").expect("a ledger at the end")..];
    for id in ["tiny/a#3", "tiny/b#1", "tiny/claims#2", "tiny/untested#1"] {
        assert!(ledger.contains(id), "{id} in {ledger}");
    }
    // Every scenario ran (c too, which has no row), claims.toml is no scenario.
    for name in ["a", "b", "c"] {
        assert!(
            dir.join("out/r").join(name).join("summary.json").is_file(),
            "{name}"
        );
    }
    assert!(!dir.join("out/r/claims").exists());
    assert!(
        ledger.contains("10 paper claims graded: 6 hold, 1 same winner (0 explained, 1 unexplained), 2 miss (1 explained, 1 unexplained), 1 missing; 1 untested headlines"),
        "{ledger}"
    );
    assert!(
        ledger.contains("Scenario files without a [[paper]] row: tiny/c.toml"),
        "{ledger}"
    );
}

#[test]
fn bad_claims_and_destinations_are_refused_before_any_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // A claim naming a scenario the folder does not have.
    write_paper(dir, &CLAIMS.replace("\"b:schemes", "\"z:schemes"));
    let o = dctc(
        &[
            "ledger",
            "--paper",
            "tiny",
            "--scenarios",
            "scen",
            "--out",
            "out/l",
        ],
        dir,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("claims.toml: `paper[0].b`") && err.contains("unknown scenario `z`"),
        "{err}"
    );
    assert!(!dir.join("out").exists());
    let o = dctc(&["validate", "scen/tiny/claims.toml"], dir);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = dctc(
        &["reproduce", "tiny", "--scenarios", "scen", "--out", "out/r"],
        dir,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(!dir.join("out").exists());

    // A misspelt key of an untested headline.
    write_paper(
        dir,
        &CLAIMS.replace("reason = \"no testbed", "raeson = \"no testbed"),
    );
    let o = dctc(&["validate", "scen/tiny/claims.toml"], dir);
    assert!(
        stderr(&o).contains("`untested[0].raeson`"),
        "{}",
        stderr(&o)
    );

    // A scenario row without its kind.
    write_paper(dir, CLAIMS);
    let a = dir.join("scen/tiny/a.toml");
    let text = std::fs::read_to_string(&a).unwrap();
    std::fs::write(&a, text.replacen("kind = \"value\"\n", "", 1)).unwrap();
    let o = dctc(
        &[
            "ledger",
            "--paper",
            "tiny",
            "--scenarios",
            "scen",
            "--out",
            "out/l",
        ],
        dir,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`paper[0].kind`: missing"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("out").exists());

    // An output directory dctc did not write, and a FIDELITY file it did not write.
    write_paper(dir, CLAIMS);
    std::fs::create_dir_all(dir.join("mine")).unwrap();
    let o = dctc(
        &[
            "ledger",
            "--paper",
            "tiny",
            "--scenarios",
            "scen",
            "--out",
            "mine",
        ],
        dir,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("was not written by dctc"),
        "{}",
        stderr(&o)
    );
    std::fs::write(dir.join("notes.md"), "my notes\n").unwrap();
    let o = dctc(
        &[
            "ledger",
            "--paper",
            "tiny",
            "--scenarios",
            "scen",
            "--out",
            "out/l",
            "--fidelity",
            "notes.md",
        ],
        dir,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--fidelity notes.md"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.md")).unwrap(),
        "my notes\n"
    );
    assert!(!dir.join("out/l").exists());
}
