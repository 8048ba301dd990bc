//! The FQ-CoDel paper's scenarios: every shipped one validates, and bad values of the keys it
//! added (`buffer_packets`, `nic_queue`, `tcp.probe_after_timeouts`, the `pfabric` scheme
//! name, a paper row's key) exit 2 naming the key, writing nothing.

use std::path::Path;
use std::process::{Command, Output};

fn repo() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn dctc(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dctc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("dctc runs")
}

fn scenario(scheme: &str, extra: &str) -> String {
    format!(
        r#"
name = "t"
engine = "packet"
duration_ms = 0.2
[fabric]
kind = "preset"
name = "fq-codel-32"
[[workload]]
kind = "poisson"
cdf = "datamining"
load = 0.6
[[schemes]]
name = "dctcp"
[[schemes]]
{scheme}
{extra}
"#
    )
}

#[test]
fn every_fq_codel_scenario_validates() {
    let dir = repo().join("scenarios/fq-codel");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            let o = dctc(&["validate", p.to_str().unwrap()], &dir);
            assert!(
                o.status.success(),
                "{}: {}",
                p.display(),
                String::from_utf8_lossy(&o.stderr)
            );
            n += 1;
        }
    }
    assert!(n >= 5, "{n} scenarios");
}

#[test]
fn bad_new_keys_exit_2_naming_the_key_and_write_nothing() {
    for (scheme, extra, want) in [
        ("name = \"dctcp\"", "buffer_packets = 0", "schemes[1].buffer_packets"),
        ("name = \"dctcp\"", "buffer_packets = -100", "schemes[1].buffer_packets"),
        ("name = \"dctcp\"", "buffer_packet = 100", "buffer_packets"),
        ("name = \"pfabrc\"", "", "did you mean `pfabric`"),
        ("name = \"fq-codel\"", "nic_queue = \"swich\"", "did you mean `switch`"),
        ("name = \"pfabric\"", "fq_buckets = 0", "schemes[1].fq_buckets"),
        (
            "name = \"pfabric\"",
            "tcp = { probe_after_timeouts = 0 }",
            "schemes[1].tcp.probe_after_timeouts",
        ),
        (
            "name = \"fq-codel\"",
            "[[paper]]\nkind = \"bound\"\nlabel = \"x\"\nfigure = \"Fig. 3\"\nnote = \"n\"\nmetric = \"relative.a_vs_b.mean_slowdown\"\nbellow = 0.0",
            "paper[0].bellow",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.toml"), scenario(scheme, extra)).unwrap();
        let o = dctc(&["run", "s.toml"], dir.path());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra}: {err}");
        assert!(err.contains(want), "{extra}: wanted {want} in {err}");
        assert!(!dir.path().join("out").exists(), "{extra}: no output");
    }
}
