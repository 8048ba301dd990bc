//! `[output] pcap`: the captures read back with tcpdump agree with the run's own records
//! (bytes, sequence and acknowledgment numbers of every flow, CE marks per port), the same
//! seed writes the same bytes, turning captures on changes no other output, and bad keys are
//! refused at their path.

mod common;

use common::{assert_refused, dctc, files_under, run_in, stderr};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Two DCTCP flows into one receiver across a dumbbell whose marking threshold is low enough
/// that the shared port marks: every flow finishes, nothing is dropped.
fn scenario(pcap: &str) -> String {
    format!(
        r#"
name = "cap"
engine = "packet"
duration_ms = 1
[fabric]
kind = "dumbbell"
senders = 2
receivers = 1
host_rate_gbps = 10
bottleneck_rate_gbps = 10
link_delay_us = 1
buffer_bytes = 100000
[[workload]]
kind = "flows"
flows = [ {{ src = 0, dst = 2, size_bytes = 300000 }}, {{ src = 1, dst = 2, size_bytes = 200000, start_us = 3 }} ]
[[schemes]]
name = "dctcp"
ecn_k_bytes = 15000
{pcap}
"#
    )
}

const PCAP: &str = r#"[output]
pcap = { hosts = ["h0", "h1", "h2"], ports = [["left", "right"]] }"#;

/// tcpdump, where Debian puts it (`.ci/run` installs it); `None` when it is not installed.
fn tcpdump() -> Option<PathBuf> {
    let found = Command::new("tcpdump").arg("--version").output().is_ok();
    if found {
        return Some(PathBuf::from("tcpdump"));
    }
    ["/usr/sbin/tcpdump", "/usr/bin/tcpdump"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// One packet as `tcpdump -nn -tt --nano -S -v` prints it.
#[derive(Debug, Clone)]
struct Seen {
    ns: u64,
    ce: bool,
    ect: bool,
    /// `address.port`
    from: String,
    to: String,
    flags: String,
    /// `seq a:b` (data) as (a, b).
    seq: Option<(u64, u64)>,
    ack: Option<u64>,
}

/// The packets of `file`, read by tcpdump (absolute sequence numbers, nanoseconds).
fn read_back(tcpdump: &Path, file: &Path) -> Vec<Seen> {
    let out = Command::new(tcpdump)
        .args(["-r"])
        .arg(file)
        .args(["-nn", "-tt", "--nano", "-S", "-v"])
        .output()
        .expect("tcpdump runs");
    assert!(
        out.status.success(),
        "tcpdump -r {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut seen = Vec::new();
    // -v prints the IP header on one line and the TCP header, indented, on the next.
    for pair in lines.chunks(2) {
        let [ip, tcp] = pair else {
            panic!("odd tcpdump output: {pair:?}")
        };
        let (secs, frac) = ip
            .split_whitespace()
            .next()
            .unwrap()
            .split_once('.')
            .unwrap();
        assert_eq!(frac.len(), 9, "nanosecond stamps: {ip}");
        let ns = secs.parse::<u64>().unwrap() * 1_000_000_000 + frac.parse::<u64>().unwrap();
        // tcpdump checks the IP checksum, and the TCP one of a segment it holds whole (an ACK).
        assert!(
            !ip.contains("incorrect") && !tcp.contains("incorrect"),
            "a bad checksum: {ip} {tcp}"
        );
        let (addrs, rest) = tcp.trim().split_once(": ").unwrap();
        let (from, to) = addrs.split_once(" > ").unwrap();
        let field = |name: &str| {
            rest.split(", ")
                .find_map(|f| f.strip_prefix(name))
                .map(str::to_string)
        };
        seen.push(Seen {
            ns,
            ce: ip.contains(",CE"),
            ect: ip.contains("ECT(0)"),
            from: from.into(),
            to: to.into(),
            flags: field("Flags ").unwrap(),
            seq: field("seq ").map(|s| {
                let (a, b) = s.split_once(':').unwrap();
                (a.parse().unwrap(), b.parse().unwrap())
            }),
            ack: field("ack ").map(|a| a.parse().unwrap()),
        });
    }
    seen
}

/// Rows of a CSV file as maps from column to field.
fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            header
                .iter()
                .zip(l.split(','))
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn captures_read_back_with_tcpdump_match_the_runs_records() {
    let Some(tcpdump) = tcpdump() else {
        eprintln!(
            "\n\n*** SKIPPED: tcpdump is not installed, so the pcap read-back test did not run \
             (`apt-get install tcpdump`; .ci/run installs it). ***\n"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let o = run_in(&scenario(PCAP), dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.path().join("out/cap");
    let caps = out.join("pcap/dctcp");
    // The names file maps the fabric's nodes to the captures' addresses.
    let hosts = std::fs::read_to_string(out.join("pcap/hosts")).unwrap();
    let ip: BTreeMap<String, String> = hosts
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (a, n) = l.split_once('\t').unwrap();
            (n.to_string(), a.to_string())
        })
        .collect();
    assert_eq!(ip["h0"], "10.0.0.1");
    let flows = csv_rows(&out.join("flows.csv"));
    let ports = csv_rows(&out.join("ports.csv"));
    assert!(ports.iter().all(|p| p["drops"] == "0"), "a lossless run");
    let read = |name: &str| read_back(&tcpdump, &caps.join(format!("{name}.pcap")));
    let rx = read("h2");
    assert_eq!(flows.len(), 2);
    for f in &flows {
        let (id, size): (u64, u64) = (f["id"].parse().unwrap(), f["size"].parse().unwrap());
        assert!(!f["finish_us"].is_empty(), "flow {id} finishes");
        let resent: u64 = f["retransmitted_bytes"].parse().unwrap();
        let sender = format!("{}.{}", ip[&format!("h{}", f["src"])], 1024 + id);
        let receiver = format!("{}.5001", ip[&format!("h{}", f["dst"])]);
        let tx = read(&format!("h{}", f["src"]));
        // The sender's data: every byte of the flow once, plus what it retransmitted.
        let data = |pkts: &[Seen]| -> Vec<(u64, u64)> {
            pkts.iter()
                .filter(|p| p.from == sender && p.to == receiver)
                .map(|p| p.seq.expect("data carries seq a:b"))
                .collect()
        };
        let sent = data(&tx);
        let bytes: u64 = sent.iter().map(|(a, b)| b - a).sum();
        assert_eq!(bytes, size + resent, "flow {id}: payload sent");
        assert_eq!(sent.iter().map(|s| s.0).min(), Some(0), "flow {id}");
        assert_eq!(sent.iter().map(|s| s.1).max(), Some(size), "flow {id}");
        let mut covered = sent.clone();
        covered.sort();
        let mut next = 0;
        for (a, b) in covered {
            assert!(a <= next, "flow {id}: a hole before {a}");
            next = next.max(b);
        }
        assert_eq!(next, size);
        assert!(
            tx.iter().filter(|p| p.from == sender).all(|p| p.ect),
            "DCTCP's data is ECN-capable"
        );
        // Lossless: the receiver's capture holds the same data, and its ACKs end at the size.
        assert_eq!(data(&rx).len(), sent.len(), "flow {id}: data received");
        let acks: Vec<u64> = rx
            .iter()
            .filter(|p| p.from == receiver && p.to == sender)
            .map(|p| p.ack.unwrap())
            .collect();
        assert!(acks.windows(2).all(|w| w[0] <= w[1]), "cumulative ACKs");
        assert_eq!(acks.last(), Some(&size), "flow {id}: the last ACK");
        // The sender hears the same ACKs.
        let heard = tx.iter().filter(|p| p.from == receiver).count();
        assert_eq!(heard, acks.len(), "flow {id}: ACKs heard");
    }
    // CE marks: the port's capture shows each mark ports.csv counts, and so does the
    // receiver's (one marking port, nothing dropped); DCTCP echoes them.
    let marks = |from: &str, to: &str| -> usize {
        let row = ports.iter().find(|p| p["from"] == from && p["to"] == to);
        row.unwrap()["ecn_marks"].parse().unwrap()
    };
    let total: usize = ports
        .iter()
        .map(|p| p["ecn_marks"].parse::<usize>().unwrap())
        .sum();
    assert!(total > 10, "the run marks ({total})");
    assert_eq!(total, marks("left", "right"), "one marking port");
    let port = read("left-right");
    assert_eq!(port.iter().filter(|p| p.ce).count(), total);
    assert_eq!(rx.iter().filter(|p| p.ce).count(), total);
    let echoes = rx.iter().filter(|p| p.flags.contains('E')).count();
    assert!(echoes > 0, "ACKs echo CE");
    // Time order; the first packet leaves at 0, and the second flow's at 3 us.
    for name in ["h0", "h1", "h2", "left-right"] {
        let pkts = read(name);
        assert!(
            pkts.windows(2).all(|w| w[0].ns <= w[1].ns),
            "{name} in time order"
        );
    }
    assert_eq!(read("h0")[0].ns, 0);
    assert_eq!(read("h1")[0].ns, 3_000);
}

#[test]
fn captures_are_reproducible_and_change_no_other_output() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("on.toml"), scenario(PCAP)).unwrap();
    std::fs::write(dir.path().join("off.toml"), scenario("")).unwrap();
    for (file, out) in [("on.toml", "a"), ("on.toml", "b"), ("off.toml", "c")] {
        let o = dctc(&["run", file, "--quiet", "--out", out], dir.path());
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let [a, b, c] = ["a", "b", "c"].map(|d| files_under(&dir.path().join(d)));
    let pcaps: Vec<&String> = a.keys().filter(|k| k.starts_with("pcap/")).collect();
    assert_eq!(pcaps.len(), 5, "{pcaps:?}");
    for k in pcaps {
        assert!(a[k] == b[k], "{k}: same seed, same bytes");
    }
    // Without captures: the same files, byte for byte, but pcap/ and the scenario's echo.
    let others: Vec<&String> = a.keys().filter(|k| !k.starts_with("pcap/")).collect();
    assert_eq!(others, c.keys().collect::<Vec<_>>());
    for k in others {
        if k == "summary.json" {
            let parse = |m: &BTreeMap<String, Vec<u8>>| -> serde_json::Value {
                serde_json::from_slice(&m[k]).unwrap()
            };
            let (mut on, off) = (parse(&a), parse(&c));
            let echo = on["scenario"].as_object_mut().unwrap();
            assert!(echo.remove("output").is_some());
            assert_eq!(on, off, "summary.json but the echo of [output]");
        } else {
            assert!(a[k] == c[k], "{k} changed with captures on");
        }
    }
}

#[test]
fn bad_capture_keys_are_refused_at_their_path() {
    let cases = [
        (
            r#"hosts = ["h9"]"#,
            "`output.pcap.hosts[0]`: unknown host `h9` (the fabric's hosts: `h0`, `h1`, `h2`)",
        ),
        (
            r#"hosts = ["left"]"#,
            "`output.pcap.hosts[0]`: unknown host `left`",
        ),
        (
            r#"hosts = ["h0", "h0"]"#,
            "`output.pcap.hosts[1]`: host `h0` is named twice",
        ),
        (
            r#"ports = [["left"]]"#,
            "`output.pcap.ports[0]`: a port is `[from, to]`",
        ),
        (
            r#"ports = [["left", "rihgt"]]"#,
            "`output.pcap.ports[0][1]`: unknown node `rihgt`, did you mean `right`?",
        ),
        (
            r#"ports = [["right", "h0"]]"#,
            "`output.pcap.ports[0]`: no link from `right` to `h0`",
        ),
        (
            r#"ports = [["h0", "left"]]"#,
            "`output.pcap.ports[0]`: `h0` is a host",
        ),
        (
            r#"hosts = ["h0"], max_packets = 0"#,
            "`output.pcap.max_packets`: must be at least 1",
        ),
        (
            r#"hosts = ["h0"], max_packets = 10000001"#,
            "`output.pcap.max_packets`: 10000001 packets in each of 1 files",
        ),
        (r#"hosts = ["h0"], max_pakets = 5"#, "max_pakets"),
        ("", "`output.pcap`: name at least one host"),
    ];
    for (keys, want) in cases {
        let dir = tempfile::tempdir().unwrap();
        let text = scenario(&format!("[output]\npcap = {{ {keys} }}"));
        let o = run_in(&text, dir.path());
        assert_refused(&o, want, dir.path(), keys);
    }
    // The flow engine has no captures.
    let dir = tempfile::tempdir().unwrap();
    let flow = scenario(PCAP).replace("engine = \"packet\"", "engine = \"flow\"");
    let o = run_in(&flow, dir.path());
    assert_refused(&o, "output.pcap", dir.path(), "flow engine");
}
