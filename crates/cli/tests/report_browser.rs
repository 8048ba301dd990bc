//! The report as a reader sees it: a small packet run's `summary.json` says what its numbers
//! mean, and its `report.html`, rendered by headless Chromium, shows every table in full
//! and a drawn mark in every chart.
//!
//! Needs `chromium` (Debian's package; `.ci/run` installs it). Without it the browser half
//! prints a skip line, except under CI (`CI` set), where a missing browser fails the test.

use std::path::{Path, PathBuf};
use std::process::Command;

const SCENARIO: &str = r#"
name = "browser"
description = "two schemes on a small web-search run"
seed = 3
engine = "packet"
duration_ms = 1.0
[fabric]
kind = "preset"
name = "flowtune-144"
[packet]
drain_ms = 1.0
tcp = { preset = "pfabric-tuned" }
[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.5
[[schemes]]
name = "dctcp"
label = "DCTCP"
ecn_k_bytes = 97500
[[schemes]]
name = "newreno"
label = "NewReno"
[output]
queue_sample_us = 20
[[paper]]
kind = "value"
figure = "Fig. 0"
label = "DCTCP p99 slowdown"
metric = "schemes.DCTCP.fct_slowdown.overall.p99"
value = 10.0
note = "a made-up reference value for the test, with a note as long as the ones the shipped scenarios carry, which say where the figure comes from and how ours is measured"
[[paper]]
kind = "bound"
figure = "none: a self check of this test's setup"
label = "the run reaches its load: DCTCP's p99 slowdown"
metric = "schemes.DCTCP.fct_slowdown.overall.p99"
below = 0.5
note = "a bound no slowdown can meet, so that the row misses and shows its reason"
miss_reason = "(c) a made-up reason with a long unbroken pointer, as the shipped rows carry, see scenarios/holnet/README.md#v-utas-margins-over-drill-and-dctcp-ecmp-at-heavy-load"
"#;

/// Measures the rendered page and appends its verdicts in a `<pre id="dctc-check">`.
const CHECK: &str = r#"<script>
(function () {
  var out = [];
  var pageW = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > pageW + 1)
    out.push('PAGE-SCROLLS ' + document.documentElement.scrollWidth + ' > ' + pageW);
  document.querySelectorAll('main, section, figure, table, td, th').forEach(function (e) {
    if (e.scrollWidth > e.clientWidth + 1)
      out.push('OVERFLOW ' + e.tagName + ' "' + e.textContent.slice(0, 40) + '" ' + e.scrollWidth + ' > ' + e.clientWidth);
  });
  document.querySelectorAll('table').forEach(function (t) {
    var r = t.getBoundingClientRect();
    var box = t.parentElement.getBoundingClientRect();
    if (r.right > box.right + 1 || r.right > pageW + 1)
      out.push('TABLE-CUT "' + t.caption.textContent + '" right ' + r.right + ' > ' + Math.min(box.right, pageW));
  });
  var svgs = document.querySelectorAll('svg');
  svgs.forEach(function (s) {
    var marks = 0;
    s.querySelectorAll('g.series path, g.series rect, g.series circle').forEach(function (m) {
      var b = m.getBBox();
      if (b.width > 0 || b.height > 0) marks++;
    });
    if (marks === 0) out.push('EMPTY-CHART "' + s.getAttribute('aria-label') + '"');
  });
  var pre = document.createElement('pre');
  pre.id = 'dctc-check';
  pre.textContent = 'CHECKED svgs=' + svgs.length + ' tables=' + document.querySelectorAll('table').length + '\n' + out.join('\n') + '\nEND-CHECK';
  document.body.appendChild(pre);
})();
</script>"#;

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            let ok = Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success());
            ok.then(|| PathBuf::from(name))
        })
}

fn run_scenario(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("s.toml"), SCENARIO).unwrap();
    let out = dir.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_dctc"))
        .args(["run", "s.toml", "--out"])
        .arg(&out)
        .current_dir(dir)
        .output()
        .expect("dctc runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

#[test]
fn summary_and_report_say_what_their_numbers_mean_and_render_fully() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run_scenario(tmp.path());
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();

    // Provenance.
    assert_eq!(summary["dctc"]["version"], env!("CARGO_PKG_VERSION"));
    let commit = summary["dctc"]["commit"].as_str().unwrap();
    assert!(!commit.is_empty());
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains(&format!(
            "seed 3 \u{b7} dctc {} (commit {commit})",
            env!("CARGO_PKG_VERSION")
        )),
        "the report shows seed and version"
    );

    for (label, s) in summary["schemes"].as_object().unwrap() {
        let slow = &s["fct_slowdown"];
        // Web search has no one-packet flows: the bucket is "no flows", not zeros.
        assert_eq!(slow["by_size"]["1"], serde_json::Value::Null, "{label}");
        let overall = &slow["overall"];
        let (done, unfinished) = (
            overall["count"].as_u64().unwrap(),
            overall["unfinished"].as_u64().unwrap(),
        );
        assert_eq!(done, s["flows_completed"].as_u64().unwrap(), "{label}");
        assert_eq!(unfinished, s["flows_unfinished"].as_u64().unwrap());
        assert!(done > 0, "{label}");
        // Buckets add up to the totals.
        let (mut d, mut u) = (0, 0);
        for b in slow["by_size"].as_object().unwrap().values() {
            if !b.is_null() {
                d += b["count"].as_u64().unwrap();
                u += b["unfinished"].as_u64().unwrap();
            }
        }
        assert_eq!((d, u), (done, unfinished), "{label}");
        assert!(s["delivered_data_packets"].as_u64().unwrap() > 0, "{label}");
        assert!(s["retransmitted_packets"].is_u64(), "{label}");
        assert!(
            s["spurious_timeouts"].as_u64().unwrap() <= s["timeouts"].as_u64().unwrap(),
            "{label}"
        );
        let u = s["max_switch_link_utilization"].as_f64().unwrap();
        assert!(u > 0.0 && u <= 1.0, "{label}: {u}");
        // The engine's per-flow invariants: no stuck flow, every flow's bytes balance.
        assert_eq!(s["stalled_flows"].as_u64(), Some(0), "{label}");
        assert_eq!(s["unbalanced_flows"].as_u64(), Some(0), "{label}");
    }
    let verdict = summary["paper"][0]["verdict"].as_str().unwrap();
    assert!(["holds", "misses"].contains(&verdict), "{verdict}");
    assert_eq!(summary["paper"][0]["kind"], "value");
    assert!(html.contains(verdict));
    // The comparison table counts stalled flows.
    assert!(
        html.contains(">stalled</th>"),
        "the report's table has a stalled column"
    );

    // The browser half.
    let Some(browser) = chromium() else {
        if std::env::var_os("CI").is_some() {
            panic!("CI is set but no chromium is installed: .ci/run installs it (apt-get install -y chromium)");
        }
        eprintln!(
            "SKIPPED the headless-Chromium half: no chromium on PATH (apt-get install -y chromium)"
        );
        return;
    };
    let checked = out.join("checked.html");
    std::fs::write(
        &checked,
        html.replace("</body>", &format!("{CHECK}\n</body>")),
    )
    .unwrap();
    let profile = tmp.path().join("profile");
    let o = Command::new(&browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1280,2000",
            "--virtual-time-budget=2000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", checked.display()))
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&o.stdout);
    // The verdict element (the script's own text also holds the word).
    let start = dom.find("<pre id=\"dctc-check\">").unwrap_or_else(|| {
        panic!(
            "the checking script left no verdict; chromium said:\n{}",
            String::from_utf8_lossy(&o.stderr)
        )
    });
    let end = dom[start..].find("END-CHECK").unwrap() + start;
    let verdict = dom[start..end].trim_start_matches("<pre id=\"dctc-check\">");
    let mut lines = verdict.lines();
    let head = lines.next().unwrap();
    let problems: Vec<&str> = lines.filter(|l| !l.trim().is_empty()).collect();
    assert!(problems.is_empty(), "{head}\n{}", problems.join("\n"));
    // Every chart the report has was measured, and there are several of each.
    let svgs: usize = head
        .split_whitespace()
        .find_map(|w| w.strip_prefix("svgs="))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(svgs, html.matches("<svg ").count());
    assert!(svgs >= 8, "{head}");
    // Every table was measured too, among them the comparison and the slowdown per byte
    // class and per packet bucket.
    let tables: usize = head
        .split_whitespace()
        .find_map(|w| w.strip_prefix("tables="))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(tables, html.matches("<table").count(), "{head}");
    assert!(tables >= 4, "{head}");
}
