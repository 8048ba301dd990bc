//! Fabrics and coflow helpers shared by the flow tests.
#![allow(dead_code)] // each test file uses some of them

use dctc_core::fabric::preset;
use dctc_core::topology::{NodeKind, Topology};
use dctc_core::units::{Delta, Rate, SimTime};
use dctc_flow::{CoflowInput, FlowInput, Net, RunResult};
use std::path::Path;

/// `g` Gb/s as a [`Rate`].
pub(crate) fn gbps(g: f64) -> Rate {
    Rate((g * 1e9).round() as u64)
}

/// A giant switch: `n` hosts on one switch, every host link `g` Gb/s, 1 us delay.
pub(crate) fn star(n: usize, g: f64) -> Net {
    let mut t = Topology::new("star", Delta::ZERO);
    let sw = t.add_node(NodeKind::Switch { tier: 1 }, "sw");
    for i in 0..n {
        let h = t.add_node(NodeKind::Host, format!("h{i}"));
        t.add_cable(h, sw, gbps(g), Delta::from_us(1), 100_000, 100_000);
    }
    Net::new(t).unwrap()
}

/// A leaf-spine fabric as a [`Net`]: `racks` racks of `hosts` hosts, `spines` spines, host
/// links at `host` and fabric links at `fabric` Gb/s, every link 1 us, 100 kB buffers.
pub(crate) fn leaf_spine_net(
    racks: usize,
    hosts: usize,
    spines: usize,
    host: f64,
    fabric: f64,
) -> Net {
    let t = dctc_core::fabric::leaf_spine(&dctc_core::fabric::LeafSpineSpec {
        racks,
        hosts_per_rack: hosts,
        spines,
        host_rate_gbps: host,
        fabric_rate_gbps: fabric,
        oversubscription: None,
        host_link_delay_us: 1.0,
        fabric_link_delay_us: 1.0,
        host_delay_us: 0.0,
        buffer_bytes: 100_000,
        spine_buffer_bytes: None,
    })
    .unwrap();
    Net::new(t).unwrap()
}

/// Parking lot: switches S0 - S1 - S2, cable S0-S1 at `c1`, S1-S2 at `c2` Gb/s; two hosts on
/// every switch with 100 Gb/s links (never a bottleneck). Hosts: 0, 1 on S0; 2, 3 on S1;
/// 4, 5 on S2.
pub(crate) fn parking_lot(c1: f64, c2: f64) -> Net {
    let mut t = Topology::new("parking-lot", Delta::ZERO);
    let s: Vec<_> = (0..3)
        .map(|i| t.add_node(NodeKind::Switch { tier: 1 }, format!("s{i}")))
        .collect();
    for (i, &sw) in s.iter().enumerate() {
        for j in 0..2 {
            let h = t.add_node(NodeKind::Host, format!("h{}", 2 * i + j));
            t.add_cable(h, sw, gbps(100.0), Delta::from_us(1), 100_000, 100_000);
        }
    }
    t.add_cable(s[0], s[1], gbps(c1), Delta::from_us(1), 100_000, 100_000);
    t.add_cable(s[1], s[2], gbps(c2), Delta::from_us(1), 100_000, 100_000);
    Net::new(t).unwrap()
}

/// DBA Fig. 1(a): every link capacity 1. Three senders each under its own leaf (hosts 0, 1,
/// 2), three receivers under one leaf (hosts 3, 4, 5); all leaves hang off one core switch, so
/// the three flows have distinct edge links and all meet on core -> receiver-leaf.
pub(crate) fn fig1_fabric() -> Net {
    let mut t = Topology::new("dba-fig1", Delta::ZERO);
    let core = t.add_node(NodeKind::Switch { tier: 2 }, "core");
    let leaves: Vec<_> = (0..4)
        .map(|i| t.add_node(NodeKind::Switch { tier: 1 }, format!("leaf{i}")))
        .collect();
    for &l in &leaves {
        t.add_cable(l, core, gbps(1.0), Delta::from_us(1), 100_000, 100_000);
    }
    for i in 0..6 {
        let h = t.add_node(NodeKind::Host, format!("h{i}"));
        let leaf = leaves[i.min(3)];
        t.add_cable(h, leaf, gbps(1.0), Delta::from_us(1), 100_000, 100_000);
    }
    Net::new(t).unwrap()
}

/// The dba-144 preset as a flow-level network.
pub(crate) fn dba144() -> Net {
    Net::new(preset("dba-144").unwrap().build(Path::new(".")).unwrap()).unwrap()
}

/// A `[[schemes]]` table's policy keys written in TOML, for [`dctc_flow::PolicyConfig::parse`].
pub(crate) struct TomlKeys(pub(crate) toml::Value);

impl TomlKeys {
    /// From TOML text (the keys only: no `name`, `label` or `routing`).
    pub(crate) fn new(text: &str) -> TomlKeys {
        TomlKeys(toml::Value::Table(toml::from_str(text).expect("TOML")))
    }
}

impl dctc_flow::policy::ParseTable for TomlKeys {
    fn keys(&self) -> Vec<String> {
        self.0
            .as_table()
            .expect("a table")
            .keys()
            .cloned()
            .collect()
    }

    fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, dctc_core::error::KeyError> {
        self.0
            .clone()
            .try_into()
            .map_err(|e| dctc_core::error::KeyError::new("", e.to_string()))
    }
}

/// One data unit of the coflow oracles: what a 1 Gb/s link carries in one millisecond.
pub(crate) const UNIT: f64 = 125_000.0;
/// One time unit of the coflow oracles, seconds.
pub(crate) const TU: f64 = 1e-3;

/// Coflow `id` arriving at `at` time units, its flows `(src, dst, data units)`.
pub(crate) fn coflow(id: u32, at: f64, flows: &[(u32, u32, f64)]) -> CoflowInput {
    CoflowInput {
        id,
        arrival: SimTime::from_delta(Delta::from_secs_f64(at * TU)),
        flows: flows
            .iter()
            .map(|&(src, dst, u)| FlowInput {
                src,
                dst,
                bytes: u * UNIT,
            })
            .collect(),
    }
}

/// Every coflow's completion time, in time units.
pub(crate) fn ccts(r: &RunResult) -> Vec<f64> {
    r.coflows.iter().map(|c| c.cct_s.unwrap() / TU).collect()
}
