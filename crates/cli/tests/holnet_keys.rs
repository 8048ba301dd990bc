//! Bad HOLNET / multipath keys in a packet scheme table exit 2, name the key and write
//! nothing: a subflow path that does not connect its flow's endpoints, theta above R_s,
//! alpha <= 0, a segment size out of range, a rate-averaging window outside the run or without a throughput series,
//! a warm start without a Poisson workload, a measurement window outside the arrivals.

mod common;

use std::path::Path;
use std::process::Output;

fn run(scheme: &str, dir: &Path) -> Output {
    let scenario = format!(
        r#"
name = "t"
engine = "packet"
duration_ms = 1.0
[fabric]
kind = "dumbbell"
senders = 2
receivers = 2
host_rate_gbps = 1.0
bottleneck_rate_gbps = 0.1
link_delay_us = 10.0
buffer_bytes = 100000
[[workload]]
kind = "flows"
flows = [ {{ src = 0, dst = 2, start_us = 0, stop_us = 1000 }}, {{ src = 1, dst = 3, start_us = 0, stop_us = 1000 }} ]
[[schemes]]
{scheme}
"#
    );
    common::run_in(&scenario, dir)
}

#[test]
fn bad_holnet_and_subflow_keys_exit_2_naming_the_key() {
    let nre = r#"{ kind = "holnet", alpha = 0.5, saturated_bps = 1e8, user = { kind = "log1p" } }"#;
    for (scheme, want) in [
        (
            // Flow 0 runs from host 0 to host 2; this path ends at host 3.
            "name = \"mptcp\"\nsubflows = [ { flow = 0, paths = [[\"h0\", \"left\", \"right\", \"h3\"]] } ]"
                .to_string(),
            "schemes[0].subflows[0].paths[0]",
        ),
        (
            "name = \"holnet-mcc\"\nsubflows = [ { flow = 0, paths = [[\"h0\", \"right\", \"h2\"]] } ]"
                .to_string(),
            "schemes[0].subflows[0].paths[0]",
        ),
        (
            format!("name = \"holnet-cc\"\nflows = [ {{ flow = 1, min_bps = 2e8, utility = {nre} }} ]"),
            "schemes[0].flows[0].min_bps",
        ),
        (
            "name = \"holnet-cc\"\nflows = [ { flow = 0, utility = { kind = \"alpha\", alpha = -0.5 } } ]"
                .to_string(),
            "schemes[0].flows[0].utility.alpha",
        ),
        (
            "name = \"newreno\"\n[packet]\nsend_jitter_us = -1.0".to_string(),
            "packet.send_jitter_us",
        ),
        (
            "name = \"newreno\"\n[packet]\nsend_jitter_us = 2e6".to_string(),
            "packet.send_jitter_us",
        ),
        (
            // The §IV scenarios set ns-3's 536-byte segments; below that is refused.
            "name = \"newreno\"\ntcp = { mss_bytes = 100 }".to_string(),
            "schemes[0].tcp.mss_bytes",
        ),
        (
            // The scenario's flows are listed: a warm start would start nothing.
            "name = \"newreno\"\n[packet]\nwarm_start_ms = 5.0".to_string(),
            "packet.warm_start_ms",
        ),
        (
            // The arrivals end at 1 ms: a window must start before.
            "name = \"newreno\"\n[output]\nmeasure_from_ms = 1.0".to_string(),
            "output.measure_from_ms",
        ),
        (
            "name = \"newreno\"\n[output]\nmeasure_from_ms = -0.5".to_string(),
            "output.measure_from_ms",
        ),
        (
            "name = \"newreno\"\n[output]\nrate_average_from_ms = 5.0".to_string(),
            "output.rate_average_from_ms",
        ),
        (
            "name = \"newreno\"\n[output]\nthroughput_bin_us = 0\nrate_average_from_ms = 0.5"
                .to_string(),
            "output.rate_average_from_ms",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let o = run(&scheme, dir.path());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{scheme}: {err}");
        assert!(err.contains(want), "{scheme}: wanted {want} in {err}");
        assert!(!dir.path().join("out").exists(), "{scheme}: no output");
    }
}

#[test]
fn a_misspelt_uta_feedback_exits_2_naming_the_key_and_the_readings() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(
        "name = \"holnet-uta\"\nfeedback = \"first-hop-chained\"",
        dir.path(),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("schemes[0].feedback"), "{err}");
    for reading in [
        "`first-hop`",
        "`first-hop-queue`",
        "`first-hop-chain`",
        "`first-hop-echo`",
        "`every-hop`",
    ] {
        assert!(err.contains(reading), "{reading} not offered: {err}");
    }
    assert!(!dir.path().join("out").exists(), "no output");
}
