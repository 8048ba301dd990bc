//! `[output] port_state_sample_us` (switch ports' discipline state, TFC Figs. 6-7) and
//! `convergence_window_us` (time to the fair share after each join, TFC Fig. 10): what they
//! write, that a run with them is the run without, and the errors of their keys.

mod common;

use serde_json::Value;
use std::path::Path;

/// Two long flows into h0 on one 1 Gb/s switch (TFC's testbed port), `schemes` and `output`
/// appended.
fn scenario(schemes: &str, output: &str) -> String {
    format!(
        r#"
name = "s"
engine = "packet"
duration_ms = 10.0
[fabric]
kind = "leaf-spine"
racks = 1
hosts_per_rack = 3
spines = 1
host_rate_gbps = 1.0
fabric_rate_gbps = 1.0
host_link_delay_us = 10.0
fabric_link_delay_us = 10.0
host_delay_us = 5.0
buffer_bytes = 256000
[packet]
tcp = {{ preset = "linux-like" }}
[[workload]]
kind = "flows"
flows = [
  {{ src = 1, dst = 0, start_us = 0, stop_us = 10000 }},
  {{ src = 2, dst = 0, start_us = 4000, stop_us = 10000 }},
]
{schemes}
[output]
{output}
"#
    )
}

const TFC: &str = "[[schemes]]\nname = \"tfc\"\nlabel = \"TFC\"\n";

fn summary(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("out/s/summary.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn port_state_samples_tfcs_slots_and_leaves_the_run_as_it_was() {
    let with = tempfile::tempdir().unwrap();
    let o = common::run_in(&scenario(TFC, "port_state_sample_us = 100"), with.path());
    assert!(o.status.success(), "{}", common::stderr(&o));
    let csv = std::fs::read_to_string(with.path().join("out/s/port_state.csv")).unwrap();
    assert!(csv.starts_with(
        "scheme,time_us,from,to,slots,effective_flows,rtt_m_us,rtt_b_us,rho,token_bytes,window_bytes\n"
    ));
    let s = summary(with.path());
    let port = &s["schemes"]["TFC"]["port_state"]["leaf0->h0"];
    // The empty-network round trip of a full frame (README, "rtt_b and N_e").
    assert_eq!(port["rtt_b_us"]["p50"], 74.64);
    // Two phases: one flow, then two (each span between the long-lived flows' changes).
    let phases = port["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 2);
    assert_eq!(phases[0]["active_flows"], 1);
    assert_eq!(phases[1]["active_flows"], 2);
    assert_eq!(phases[0]["effective_flows"]["p50"], 1.0);
    assert_eq!(phases[1]["effective_flows"]["p50"], 2.0);
    // The same run without the samples: the same flows, ports and queues, byte for byte.
    let without = tempfile::tempdir().unwrap();
    let o = common::run_in(&scenario(TFC, ""), without.path());
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(!without.path().join("out/s/port_state.csv").exists());
    assert!(summary(without.path())["schemes"]["TFC"]
        .get("port_state")
        .is_none());
    for f in ["flows.csv", "ports.csv", "queues.csv", "throughput.csv"] {
        let read = |d: &Path| std::fs::read(d.join("out/s").join(f)).unwrap();
        assert_eq!(read(with.path()), read(without.path()), "{f}");
    }
}

#[test]
fn convergence_window_times_each_join_to_the_fair_share() {
    let dir = tempfile::tempdir().unwrap();
    let output = "throughput_bin_us = 100\nconvergence_window_us = 1000";
    let o = common::run_in(&scenario(TFC, output), dir.path());
    assert!(o.status.success(), "{}", common::stderr(&o));
    let joins = &summary(dir.path())["schemes"]["TFC"]["convergence"]["joins"];
    // One join that leaves two flows (the first flow alone is no sharing).
    let times = joins["after_each_join_us"].as_array().unwrap();
    assert_eq!(times.len(), 1, "{joins}");
    let t = times[0].as_f64().unwrap();
    // TFC: a round trip is 75 us; the newcomer's two probe rounds, then its share.
    assert!(t > 0.0 && t <= 300.0, "{joins}");
    assert_eq!(joins["unsettled"], 0);
    assert_eq!(joins["window_us"], 1000.0);
}

#[test]
fn bad_port_state_and_convergence_keys_exit_2_naming_the_key() {
    let dctcp = "[[schemes]]\nname = \"dctcp\"\n";
    for (schemes, output, want) in [
        (
            dctcp,
            "port_state_sample_us = 100",
            "`output.port_state_sample_us`: no scheme's switch queue reports a state to sample (the disciplines that do: `tfc`)",
        ),
        (TFC, "port_state_sample_us = -5", "`output.port_state_sample_us`"),
        (
            TFC,
            "port_state_sample_us = 0.000001",
            "`output.port_state_sample_us`",
        ),
        (
            TFC,
            "throughput_bin_us = 100\nconvergence_window_us = 150",
            "`output.convergence_window_us`: must be a whole number of throughput bins (100 us), got 150 us",
        ),
        (
            TFC,
            "throughput_bin_us = 0\nconvergence_window_us = 1000",
            "`output.convergence_window_us`: needs the throughput series",
        ),
        (TFC, "port_state_sample = 100", "did you mean `port_state_sample_us`"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let o = common::run_in(&scenario(schemes, output), dir.path());
        common::assert_refused(&o, want, dir.path(), output);
    }
}
