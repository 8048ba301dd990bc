//! The objective report (issue 30) end to end: turning it on changes no other output, it
//! scores schemes whose optimum is known as their designs say (DCTCP and Flowtune near the
//! optimum, pFabric far from it under log utility), and its keys are checked.

mod common;
use common::{assert_key_error, dctc, files_under, stderr, validate_in};
use serde_json::Value;
use std::path::Path;

/// Four long-lived flows from 0 to 6 ms into one receiver of a dumbbell (one 10 Gb/s
/// bottleneck): each one's fair share is a quarter of the link.
const LONG: &str = "{ src = 0, dst = 4, stop_us = 6000 }, { src = 1, dst = 4, stop_us = 6000 },
    { src = 2, dst = 4, stop_us = 6000 }, { src = 3, dst = 4, stop_us = 6000 }";

/// [`LONG`] with one of them joining late and two sized flows.
const MIXED: &str = "{ src = 0, dst = 4, stop_us = 6000 }, { src = 1, dst = 4, stop_us = 6000 },
    { src = 2, dst = 4, stop_us = 6000 }, { src = 3, dst = 4, start_us = 500, stop_us = 6000 },
    { src = 0, dst = 4, size_bytes = 200000, start_us = 1000 },
    { src = 2, dst = 4, size_bytes = 30000, start_us = 3100 }";

/// `flows` on the dumbbell under `schemes`; `output` is the `[output]` table's body.
fn scenario_with(flows: &str, schemes: &str, output: &str) -> String {
    format!(
        r#"
name = "objective"
engine = "packet"
duration_ms = 6
[fabric]
kind = "dumbbell"
senders = 4
receivers = 1
host_rate_gbps = 10
bottleneck_rate_gbps = 10
link_delay_us = 1
buffer_bytes = 200000
[[workload]]
kind = "flows"
flows = [ {flows} ]
{schemes}
[output]
{output}
"#
    )
}

fn scenario(schemes: &str, output: &str) -> String {
    scenario_with(MIXED, schemes, output)
}

fn run(dir: &Path, name: &str, toml: &str) -> Value {
    std::fs::write(dir.join(format!("{name}.toml")), toml).unwrap();
    let o = dctc(
        &["run", &format!("{name}.toml"), "--quiet", "--out", name],
        dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&std::fs::read(dir.join(name).join("summary.json")).unwrap()).unwrap()
}

fn files(dir: &Path) -> Vec<String> {
    files_under(dir).into_keys().collect()
}

/// The summary without what the report adds (and the echo of its keys).
fn without_objective(mut v: Value) -> Value {
    let m = v.as_object_mut().unwrap();
    m.remove("objective_difference");
    m.remove("dctc");
    for (_, s) in m["schemes"].as_object_mut().unwrap().iter_mut() {
        s.as_object_mut().unwrap().remove("objective");
    }
    let out = m["scenario"]["output"].as_object_mut().unwrap();
    out.retain(|k, _| !k.starts_with("objective_"));
    v
}

/// `report.html` without the report's section and its contents line.
fn without_objective_section(html: &str) -> String {
    let start = html.find("<section id=\"objective").expect("the section");
    let end = start + html[start..].find("</section>\n").unwrap() + "</section>\n".len();
    let html = format!("{}{}", &html[..start], &html[end..]);
    let li = html
        .find("<li><a href=\"#objective")
        .expect("its contents line");
    let li_end = li + html[li..].find("</li>\n").unwrap() + "</li>\n".len();
    format!("{}{}", &html[..li], &html[li_end..])
}

#[test]
fn turning_the_report_on_changes_no_other_output() {
    let dir = tempfile::tempdir().unwrap();
    let schemes = "[[schemes]]\nname = \"dctcp\"\n[[schemes]]\nname = \"pfabric\"";
    let off = run(
        dir.path(),
        "off",
        &scenario(schemes, "queue_sample_us = 100"),
    );
    let on = run(
        dir.path(),
        "on",
        &scenario(schemes, "queue_sample_us = 100\nobjective_sample_us = 250"),
    );
    let (off_dir, on_dir) = (dir.path().join("off"), dir.path().join("on"));
    let (off_files, on_files) = (files(&off_dir), files(&on_dir));
    for f in &off_files {
        assert!(on_files.contains(f), "{f} missing with the report on");
        let (a, b) = (
            std::fs::read(off_dir.join(f)).unwrap(),
            std::fs::read(on_dir.join(f)).unwrap(),
        );
        match f.as_str() {
            "summary.json" | "report.html" => {}
            _ => assert!(a == b, "{f} differs with the report on"),
        }
    }
    let extra: Vec<_> = on_files.iter().filter(|f| !off_files.contains(f)).collect();
    assert!(extra.contains(&&"objective.csv".to_string()), "{extra:?}");
    assert!(
        extra
            .iter()
            .all(|f| f.as_str() == "objective.csv" || f.contains("charts")),
        "{extra:?}"
    );
    assert_eq!(
        without_objective(off.clone()),
        without_objective(on.clone())
    );
    let html = |d: &Path| std::fs::read_to_string(d.join("report.html")).unwrap();
    assert_eq!(html(&off_dir), without_objective_section(&html(&on_dir)));
    // The report itself: 6 ms at 250 us is 24 intervals (the drain of 0 adds none).
    assert_eq!(on["schemes"]["dctcp"]["objective"]["intervals"], 24);
    let csv = std::fs::read_to_string(on_dir.join("objective.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 2 * 24);
}

#[test]
fn dctcp_and_flowtune_score_near_the_optimum_and_pfabric_far_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let schemes = "[[schemes]]\nname = \"dctcp\"\n[[schemes]]\nname = \"flowtune\"\n\
                   [[schemes]]\nname = \"pfabric\"";
    let v = run(
        dir.path(),
        "s",
        &scenario_with(
            LONG,
            schemes,
            "queue_sample_us = 0\nobjective_sample_us = 500",
        ),
    );
    let o = |s: &str, k: &str| v["schemes"][s]["objective"][k].as_f64().unwrap();
    for s in ["dctcp", "flowtune", "pfabric"] {
        assert_eq!(v["schemes"][s]["objective"]["failed_intervals"], 0);
    }
    // DCTCP shares the bottleneck: every interval's rates near the equal split, the link
    // full (of payload).
    assert!(
        o("dctcp", "efficiency") > 0.98,
        "{}",
        o("dctcp", "efficiency")
    );
    assert!(o("dctcp", "utility_gap_per_flow") < 0.02);
    assert_eq!(o("dctcp", "share_below_2x"), 0.0);
    // Flowtune paces at its allocator's NUM rates, which leave 1% of each link spare (its
    // update threshold of 0.01): the optimum's rates times 0.99, a log gap of ln(1/0.99).
    let eff = o("flowtune", "efficiency");
    assert!((0.975..=1.0).contains(&eff), "{eff}");
    assert!(o("flowtune", "utility_gap_per_flow") < 0.03);
    assert_eq!(o("flowtune", "share_below_2x"), 0.0);
    // pFabric serves the flow with the fewest bytes left (here: the first) and starves the
    // rest: the link is as full, but three flows of four sit far below their proportionally
    // fair share.
    assert!(o("pfabric", "efficiency") > 0.98);
    assert!(o("pfabric", "utility_gap_per_flow") > 1.0);
    assert!(o("pfabric", "share_below_2x") >= 0.7);
    let d = &v["objective_difference"]["flowtune_vs_pfabric"]["fairness_score_per_flow"];
    assert!(d.as_f64().unwrap() > 1.0, "{d}");
}

#[test]
fn max_min_scores_the_same_runs_without_a_utility_gap() {
    let dir = tempfile::tempdir().unwrap();
    let v = run(
        dir.path(),
        "s",
        &scenario(
            "[[schemes]]\nname = \"dctcp\"",
            "objective_sample_us = 500\nobjective_utility = \"max-min\"",
        ),
    );
    let o = &v["schemes"]["dctcp"]["objective"];
    assert_eq!(o["utility"], "max-min");
    assert!(o["utility_gap"].is_null());
    assert!(o["efficiency"].as_f64().unwrap() > 0.97);
}

#[test]
fn bad_objective_keys_are_refused_with_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = |out: &str| scenario("[[schemes]]\nname = \"dctcp\"", out);
    assert_key_error(
        &validate_in(&s("objective_sample_us = 0"), d),
        "output.objective_sample_us",
        "must be",
    );
    assert_key_error(
        &validate_in(&s("objective_sample_us = 0.001"), d),
        "output.objective_sample_us",
        "a period of 1 ns over 6 ms gives 6000000 steps, more than the 100000",
    );
    assert_key_error(
        &validate_in(
            &s("objective_sample_us = 100\nobjective_utility = \"srpt\""),
            d,
        ),
        "output.objective_utility",
        "unknown utility `srpt`",
    );
    assert_key_error(
        &validate_in(
            &s("objective_sample_us = 100\nobjective_utility = \"alpha-fair\""),
            d,
        ),
        "output.objective_alpha",
        "objective_utility = \"alpha-fair\" needs an alpha",
    );
    assert_key_error(
        &validate_in(
            &s("objective_sample_us = 100\nobjective_utility = \"alpha-fair\"\nobjective_alpha = 1"),
            d,
        ),
        "output.objective_alpha",
        "must be above 0",
    );
    assert_key_error(
        &validate_in(&s("objective_sample_us = 100\nobjective_alpha = 2"), d),
        "output.objective_alpha",
        "applies to objective_utility = \"alpha-fair\" only",
    );
    assert_key_error(
        &validate_in(&s("objective_utility = \"log\""), d),
        "output.objective_utility",
        "sets the objective report, which is off: set output.objective_sample_us too",
    );
    let incast = common::TINY.replace(
        "kind = \"flows\"\nflows = [ { src = 0, dst = 1, size_bytes = 30000 } ]",
        "kind = \"incast\"\nsenders = 1\nreceiver = 1\nblock_bytes = 1000\nrounds = 1",
    ) + "[output]\nobjective_sample_us = 10\n";
    assert_key_error(
        &validate_in(&incast, d),
        "output.objective_sample_us",
        "the objective report covers open-loop flows",
    );
}

/// Four 10 MB flows into port 4 of a 5-port 10 Gb/s big switch, all at time 0 (one coflow
/// each: mapper on port k, reducer on port 4), as a coflow trace.
const FOUR_INTO_ONE: &str =
    "5 4\n1 0 1 0 1 4:10.0\n2 0 1 1 1 4:10.0\n3 0 1 2 1 4:10.0\n4 0 1 3 1 4:10.0\n";

/// A flow-engine scenario over [`FOUR_INTO_ONE`] (written beside it as `four.txt`) on
/// `fabric`; `extra` goes after the workload table (schemes, `[flow]`, `[output]`).
fn flow_scenario(dir: &Path, fabric: &str, extra: &str) -> String {
    std::fs::write(dir.join("four.txt"), FOUR_INTO_ONE).unwrap();
    format!(
        r#"
name = "objective-flow"
engine = "flow"
duration_ms = 10
[fabric]
{fabric}
[[workload]]
kind = "coflow-trace"
path = "four.txt"
placement = "ports"
arrivals = "native"
sizes = "reducer-mean"
cv = 0
{extra}
"#
    )
}

const BIG_SWITCH: &str = "kind = \"big-switch\"\nports = 5\nrate_gbps = 10";

#[test]
fn flow_engine_max_min_on_one_link_is_the_optimum_and_fifo_is_far_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let schemes = "[[schemes]]\nname = \"maxmin\"\n[[schemes]]\nname = \"coflow-fifo\"\n\
                   [[schemes]]\nname = \"fastpass-f\"";
    for utility in ["log", "max-min"] {
        let toml = flow_scenario(
            dir.path(),
            BIG_SWITCH,
            &format!("{schemes}\n[output]\nobjective_sample_us = 1000\nobjective_utility = \"{utility}\""),
        );
        let v = run(dir.path(), utility, &toml);
        let o = |s: &str, k: &str| v["schemes"][s]["objective"][k].as_f64().unwrap();
        // max-min: the four share the receiver's link at 2.5 Gb/s until they end together.
        assert_eq!(v["schemes"]["maxmin"]["objective"]["failed_intervals"], 0);
        assert!((o("maxmin", "efficiency") - 1.0).abs() < 1e-6, "{utility}");
        assert_eq!(o("maxmin", "share_below_2x"), 0.0);
        assert!((o("maxmin", "fairness_score_per_flow") - 2.5f64.log2()).abs() < 1e-9);
        // The coflow FIFO and the strict-priority greedy serve one flow at a time: the link as
        // full, three of four flows starved while they wait.
        for s in ["coflow-fifo", "fastpass-f"] {
            assert!((o(s, "efficiency") - 1.0).abs() < 1e-6, "{s} {utility}");
            assert!(o(s, "share_starved") > 0.5, "{s}");
        }
        if utility == "max-min" {
            assert!(v["schemes"]["maxmin"]["objective"]["utility_gap"].is_null());
            continue;
        }
        assert!(o("maxmin", "utility_gap_per_flow").abs() < 1e-6);
        // The first interval, closed form: one flow at 10 Gb/s and three at the floor (one
        // 1500 B packet per ms) against four at 2.5 Gb/s.
        let floor: f64 = 1500.0 * 8.0 / 1e-3;
        let want = ((2.5e9f64 / 10e9).ln() + 3.0 * (2.5e9 / floor).ln()) / 4.0;
        let csv = std::fs::read_to_string(dir.path().join(utility).join("objective.csv")).unwrap();
        let first = csv
            .lines()
            .find(|l| l.starts_with("coflow-fifo,0,"))
            .expect("the fifo's first interval");
        let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        let col = header
            .iter()
            .position(|&h| h == "utility_gap_per_flow")
            .unwrap();
        let got: f64 = first.split(',').nth(col).unwrap().parse().unwrap();
        assert!((got - want).abs() < 1e-6 * want, "{got} vs {want}");
        let d = &v["objective_difference"]["maxmin_vs_coflow-fifo"]["fairness_score_per_flow"];
        assert!(d.as_f64().unwrap() > 1.0, "{d}");
    }
}

#[test]
fn flow_engine_turning_the_report_on_changes_no_other_output() {
    let dir = tempfile::tempdir().unwrap();
    let body = "[[schemes]]\nname = \"maxmin\"\n[[schemes]]\nname = \"varys\"\n\
                [flow]\nloads = [0.5, 1.0]\n[output]\nflows_csv = true";
    let off = run(
        dir.path(),
        "off",
        &flow_scenario(dir.path(), BIG_SWITCH, body),
    );
    let on = run(
        dir.path(),
        "on",
        &flow_scenario(
            dir.path(),
            BIG_SWITCH,
            &format!("{body}\nobjective_sample_us = 2000"),
        ),
    );
    let (off_dir, on_dir) = (dir.path().join("off"), dir.path().join("on"));
    let (off_files, on_files) = (files(&off_dir), files(&on_dir));
    for f in &off_files {
        assert!(on_files.contains(f), "{f} missing with the report on");
        if !matches!(f.as_str(), "summary.json" | "report.html") {
            let same =
                std::fs::read(off_dir.join(f)).unwrap() == std::fs::read(on_dir.join(f)).unwrap();
            assert!(same, "{f} differs with the report on");
        }
    }
    let html = |d: &Path| std::fs::read_to_string(d.join("report.html")).unwrap();
    assert_eq!(html(&off_dir), without_objective_section(&html(&on_dir)));
    // A sweep: each load's run has its report, the differences are per load.
    let strip = |mut v: Value| {
        let m = v.as_object_mut().unwrap();
        m.remove("objective_difference");
        m.remove("dctc");
        for (_, s) in m["schemes"].as_object_mut().unwrap().iter_mut() {
            for (_, at) in s.as_object_mut().unwrap().iter_mut() {
                at.as_object_mut().unwrap().remove("objective");
            }
        }
        let out = m["scenario"]["output"].as_object_mut().unwrap();
        out.retain(|k, _| !k.starts_with("objective_"));
        v
    };
    assert_eq!(strip(off), strip(on.clone()));
    for load in ["load_50", "load_100"] {
        let o = &on["schemes"]["maxmin"][load]["objective"];
        assert!(
            (o["efficiency"].as_f64().unwrap() - 1.0).abs() < 1e-6,
            "{o}"
        );
        assert!(on["objective_difference"][load]["maxmin_vs_varys"].is_object());
    }
    let csv = std::fs::read_to_string(on_dir.join("objective.csv")).unwrap();
    assert!(csv.starts_with("scheme,load,start_us,"), "{csv}");
}

#[test]
fn flow_engine_sprayed_flows_are_scored_over_their_paths() {
    // Two leaves of two hosts under two spines, hosts at 10 Gb/s, leaf-spine links at 5:
    // hosts 0 and 1 send to hosts 2 and 3 (the other leaf), each spread over both spines
    // (DRILL). Their leaf's two 5 Gb/s up-links carry half of each: 5 Gb/s each, which is
    // also the optimum over their two paths. On one path (the same first spine for both) the
    // optimum would be 2.5 Gb/s each: an efficiency of 2.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("two.txt"),
        "4 2\n1 0 1 0 1 2:10.0\n2 0 1 1 1 3:10.0\n",
    )
    .unwrap();
    let toml = r#"
name = "objective-drill"
engine = "flow"
duration_ms = 10
[fabric]
kind = "leaf-spine"
racks = 2
spines = 2
hosts_per_rack = 2
host_rate_gbps = 10
fabric_rate_gbps = 5
buffer_bytes = 100000
fabric_link_delay_us = 1
host_link_delay_us = 1
[[workload]]
kind = "coflow-trace"
path = "two.txt"
placement = "ports"
arrivals = "native"
sizes = "reducer-mean"
cv = 0
[flow]
routing = "drill"
[[schemes]]
name = "maxmin"
[output]
objective_sample_us = 1000
"#;
    for utility in ["log", "max-min"] {
        let v = run(
            dir.path(),
            utility,
            &format!("{toml}objective_utility = \"{utility}\"\n"),
        );
        let o = &v["schemes"]["maxmin"]["objective"];
        assert_eq!(o["failed_intervals"], 0, "{o}");
        let eff = o["efficiency"].as_f64().unwrap();
        assert!((eff - 1.0).abs() < 1e-6, "{utility}: {o}");
        let score = o["fairness_score_per_flow"].as_f64().unwrap();
        assert!((score - 5f64.log2()).abs() < 1e-9, "{utility}: {o}");
    }
}

#[test]
fn flow_engine_objective_keys_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = |extra: &str| {
        flow_scenario(
            d,
            BIG_SWITCH,
            &format!("[[schemes]]\nname = \"maxmin\"\n{extra}"),
        )
    };
    // By the estimate (the largest flow alone on its sender's link: 10 MB at 10 Gb/s, 8.4
    // ms), 50 ns intervals are 167,773 solves.
    assert_key_error(
        &validate_in(&s("[output]\nobjective_sample_us = 0.05"), d),
        "output.objective_sample_us",
        "a period of 50 ns over 8.388608 ms gives 167773 steps, more than the 100000 dctc runs; use a longer period or a shorter run (the coflows keep the fabric busy for about 8.388608 ms by the run's estimate",
    );
    assert_key_error(
        &validate_in(&s("[output]\nobjective_utility = \"log\""), d),
        "output.objective_utility",
        "sets the objective report, which is off",
    );
    let conv = "[flow]\nmode = \"convergence\"\n[output]\nobjective_sample_us = 100";
    let conv = flow_scenario(
        d,
        BIG_SWITCH,
        &format!("[[schemes]]\nname = \"dba\"\n{conv}"),
    );
    assert_key_error(
        &validate_in(&conv, d),
        "output.objective_sample_us",
        "the objective report scores a run's flows; mode = \"convergence\" runs DBA's iterations without a run",
    );
}
