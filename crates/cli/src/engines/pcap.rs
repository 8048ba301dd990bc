//! `[output] pcap`: the packet engine's captures, checked against the fabric, and their files
//! (`pcap/<scheme>/<point>.pcap`, one per host or switch port, and `pcap/hosts`, the
//! addresses' names). What the frames hold is in [`dctc_packet::capture`].

use crate::limits;
use crate::scenario::{Scenario, ScenarioError};
use dctc_core::config::PcapSpec;
use dctc_core::error::nearest;
use dctc_core::topology::Topology;
use dctc_packet::capture::{write_pcap, CapturePoint, CaptureSpec};
use dctc_packet::metrics::PacketRun;

/// Packets a file holds when `max_packets` is not given.
const DEFAULT_MAX_PACKETS: u64 = 100_000;

/// `unknown {noun} `{bad}``, with the nearest of `valid` and a few of them.
fn unknown(noun: &str, bad: &str, valid: &[&str]) -> String {
    let some = valid
        .iter()
        .take(6)
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>();
    let more = if valid.len() > some.len() {
        format!(", ... ({} in all)", valid.len())
    } else {
        String::new()
    };
    let hint = nearest(bad, valid)
        .map(|v| format!(", did you mean `{v}`?"))
        .unwrap_or_default();
    format!(
        "unknown {noun} `{bad}`{hint} (the fabric's {noun}s: {}{more})",
        some.join(", ")
    )
}

/// The capture of `spec` on `topo` for `schemes` runs, checked: hosts and ports must be the
/// fabric's, each named once, and the packets of all files within [`limits`].
pub(crate) fn plan(
    s: &Scenario,
    spec: &PcapSpec,
    topo: &Topology,
    schemes: usize,
    sweep: bool,
) -> Result<CaptureSpec, ScenarioError> {
    if sweep {
        return Err(s.error(
            "output.pcap",
            "an incast sweep runs one simulation per sender count; capture one of them as a run of its own (`kind = \"incast\"`)",
        ));
    }
    if spec.hosts.is_empty() && spec.ports.is_empty() {
        return Err(s.error(
            "output.pcap",
            "name at least one host (`hosts = [\"h0\"]`) or switch port (`ports = [[\"leaf0\", \"spine0\"]]`)",
        ));
    }
    let mut points = Vec::new();
    let host_names: Vec<&str> = (topo.hosts().iter())
        .map(|&h| topo.node(h).name.as_str())
        .collect();
    for (i, name) in spec.hosts.iter().enumerate() {
        let key = format!("output.pcap.hosts[{i}]");
        let Some(h) = topo.node_by_name(name).filter(|&n| topo.is_host(n)) else {
            return Err(s.error(&key, unknown("host", name, &host_names)));
        };
        if spec.hosts[..i].contains(name) {
            return Err(s.error(&key, format!("host `{name}` is named twice")));
        }
        points.push(CapturePoint::host(topo, h));
    }
    let node_names: Vec<&str> = topo.nodes().iter().map(|n| n.name.as_str()).collect();
    let mut seen = Vec::new();
    for (i, pair) in spec.ports.iter().enumerate() {
        let key = format!("output.pcap.ports[{i}]");
        let [from, to] = pair.as_slice() else {
            return Err(s.error(
                &key,
                format!(
                    "a port is `[from, to]`, two node names (as `from` and `to` in ports.csv), got {} names",
                    pair.len()
                ),
            ));
        };
        let node = |j: usize, name: &str| {
            topo.node_by_name(name)
                .ok_or_else(|| s.error(&format!("{key}[{j}]"), unknown("node", name, &node_names)))
        };
        let (a, b) = (node(0, from)?, node(1, to)?);
        let Some(link) = topo.link_between(a, b) else {
            let next: Vec<&str> = (topo.out_links(a).iter())
                .map(|&l| topo.node(topo.link(l).to).name.as_str())
                .collect();
            return Err(s.error(
                &key,
                format!(
                    "no link from `{from}` to `{to}` (`{from}` links to {})",
                    next.iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        };
        if topo.is_host(a) {
            return Err(s.error(
                &key,
                format!("`{from}` is a host: capture it with `hosts = [\"{from}\"]`"),
            ));
        }
        if seen.contains(&link) {
            return Err(s.error(&key, format!("port `{from}` -> `{to}` is named twice")));
        }
        seen.push(link);
        points.push(CapturePoint::port(topo, link));
    }
    let max = spec.max_packets.unwrap_or(DEFAULT_MAX_PACKETS);
    let files = (points.len() * schemes) as u64;
    limits::check_captures(s, "output.pcap.max_packets", max, files)?;
    Ok(CaptureSpec {
        points,
        max_packets: u32::try_from(max).expect("check_captures bounds it"),
    })
}

/// `name` as one component of a file path: characters other than ASCII letters, digits, `.`,
/// `_` and `-` become `_` (a name of dots only too), and a name taken already gets `-2`,
/// `-3`, ... .
fn file_name(name: &str, taken: &mut Vec<String>) -> String {
    let mut base: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if base.chars().all(|c| c == '.') {
        base = base.replace('.', "_") + "_";
    }
    let mut out = base.clone();
    let mut k = 2;
    while taken.contains(&out) {
        out = format!("{base}-{k}");
        k += 1;
    }
    taken.push(out.clone());
    out
}

/// The capture files of `runs` (`pcap/<scheme>/<point>.pcap` and `pcap/hosts`), and a line
/// per file for the console; nothing when the runs captured nothing.
pub(crate) fn files(topo: &Topology, runs: &[PacketRun]) -> (Vec<(String, Vec<u8>)>, String) {
    let mut files = Vec::new();
    let mut console = String::new();
    if runs.iter().all(|r| r.captures.is_empty()) {
        return (files, console);
    }
    let mut dirs = Vec::new();
    for r in runs {
        let dir = file_name(&r.label, &mut dirs);
        let mut names = Vec::new();
        for c in &r.captures {
            let path = format!("pcap/{dir}/{}.pcap", file_name(&c.name, &mut names));
            let bytes = write_pcap(c, Vec::new()).expect("writing to memory cannot fail");
            let cut = if c.capped {
                " (cut at output.pcap.max_packets)"
            } else {
                ""
            };
            console.push_str(&format!("{path}: {} packets{cut}\n", c.packets.len()));
            files.push((path, bytes));
        }
    }
    files.push((
        "pcap/hosts".into(),
        dctc_packet::capture::hosts_file(topo).into_bytes(),
    ));
    (files, console)
}

#[cfg(test)]
mod tests {
    use super::file_name;

    #[test]
    fn file_names_are_one_safe_component_each_and_distinct() {
        let mut taken = Vec::new();
        assert_eq!(file_name("dctcp", &mut taken), "dctcp");
        assert_eq!(file_name("a/b c", &mut taken), "a_b_c");
        assert_eq!(file_name("a b/c", &mut taken), "a_b_c-2");
        assert_eq!(file_name("..", &mut taken), "___");
        assert_eq!(file_name("dctcp", &mut taken), "dctcp-2");
    }
}
