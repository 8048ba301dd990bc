//! One module per engine, each implementing [`Engine`] (check a scenario, run its schemes,
//! render the runs); plus the catalogue printed by `dctc list` and the `dctc bench` dispatch.

pub(crate) mod allocator;
mod engine;
pub(crate) mod fct;
pub(crate) mod flow;
pub(crate) mod packet;
pub(crate) mod packet_scale;
mod pcap;

pub(crate) use engine::Engine;

use anyhow::{bail, Result};
use dctc_core::fabric::PRESETS;
use dctc_core::workload::cdf::BUILTIN;
use std::fmt::Write;

fn section(out: &mut String, title: &str, rows: &[(&str, impl AsRef<str>)]) {
    let _ = writeln!(out, "{title}:");
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    for (name, what) in rows {
        let _ = writeln!(out, "  {name:width$}  {}", what.as_ref());
    }
    out.push('\n');
}

/// The text of `dctc list`.
pub(crate) fn list() -> String {
    let mut out = String::new();
    section(
        &mut out,
        "Fabric presets ([fabric] kind = \"preset\", name = ...)",
        PRESETS,
    );
    section(
        &mut out,
        "Fabric kinds ([fabric] kind = ...)",
        &[
            ("preset", "one of the presets above"),
            (
                "leaf-spine",
                "racks x hosts_per_rack, spines; optional oversubscription",
            ),
            ("fat-tree", "3-tier k-ary fat-tree"),
            ("dumbbell", "senders and receivers across one bottleneck"),
            ("file", "nodes and links from a TOML file"),
        ],
    );
    let cdfs: Vec<(&str, &str)> = BUILTIN.iter().map(|b| (b.0, b.1)).collect();
    section(&mut out, "Flow-size CDFs (cdf = ...)", &cdfs);
    // A scheme's or policy's row lists its own keys with their defaults (`dctc keys NAME`
    // tells more), and a packet scheme's its switch queue.
    let secs = crate::keys::sections();
    let keys = crate::keys::keys(&secs);
    let with_keys = |id: String, about: &str| -> String {
        let own = crate::keys::brief(&id, &keys);
        match own.is_empty() {
            true => about.to_string(),
            false => format!("{about}; keys: {}", own.join(", ")),
        }
    };
    let schemes: Vec<(&str, String)> = (packet::SCHEMES.iter())
        .map(|(name, about)| {
            let queue = crate::keys::default_queue(name).unwrap_or("?");
            let about = format!("{about}; switch queue `{queue}`");
            (*name, with_keys(format!("schemes.packet.{name}"), &about))
        })
        .collect();
    section(
        &mut out,
        "Packet-level schemes (engine = \"packet\")",
        &schemes,
    );
    let policies: Vec<(&str, String)> = (flow::SCHEMES.iter())
        .map(|(name, about)| (*name, with_keys(format!("schemes.flow.{name}"), about)))
        .collect();
    section(
        &mut out,
        "Flow-level policies (engine = \"flow\")",
        &policies,
    );
    section(
        &mut out,
        "Flow-level routing ([flow] routing = ...)",
        flow::ROUTINGS,
    );
    section(
        &mut out,
        "NUM solvers (dctc num solve --solver ...)",
        allocator::SCHEMES,
    );
    // A discipline's row lists its keys (any scheme table, or `[packet]` for all).
    let keys = dctc_packet::queue::QueueSpec::keys();
    let queues: Vec<(&str, String)> = (dctc_packet::queue::QUEUES.iter())
        .zip(&keys)
        .map(|((name, about), (_, keys))| match keys.is_empty() {
            true => (*name, about.to_string()),
            false => (*name, format!("{about}; keys: {}", keys.join(", "))),
        })
        .collect();
    section(
        &mut out,
        "Packet-level queue disciplines (queue = ...)",
        &queues,
    );
    section(
        &mut out,
        "Packet-level load balancers (load_balancer = ...)",
        dctc_packet::lb::LOAD_BALANCERS,
    );
    out
}

/// `dctc bench ENGINE`.
pub(crate) fn bench(engine: &str) -> Result<()> {
    match engine {
        "packet" => packet::bench(),
        "flow" => flow::bench(),
        "num" => allocator::bench(),
        "all" => {
            packet::bench()?;
            flow::bench()?;
            allocator::bench()
        }
        other => bail!("unknown bench `{other}`; choose packet, flow, num or all"),
    }
}
