//! Fabric descriptions (as written in a scenario) and the builders that turn them into a
//! [`Topology`]: leaf-spine, 3-tier fat-tree, dumbbell, a non-blocking big switch, a file, or
//! one of the papers' presets.
//!
//! Rates in scenario files are in Gb/s, delays in microseconds, buffers in bytes.

use crate::ids::NodeId;
use crate::topology::{NodeKind, Topology, TopologyError};
use crate::units::checked::{self, SpanRule};
use crate::units::{Delta, Rate};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A fabric as a scenario describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum FabricSpec {
    /// One of the papers' fabrics by name (see [`PRESETS`]).
    Preset {
        /// `flowtune-144`, `tfc-360`, `fq-codel-32`, `dba-144`, `holnet-6x6` or `fb-150`.
        name: String,
    },
    /// Two-tier leaf-spine: every leaf connects to every spine.
    LeafSpine(LeafSpineSpec),
    /// Three-tier k-ary fat-tree (k^3/4 hosts).
    FatTree(FatTreeSpec),
    /// `senders` hosts on one switch, `receivers` hosts on another, one bottleneck cable between.
    Dumbbell(DumbbellSpec),
    /// `ports` hosts on one non-blocking switch: each host has one up- and one down-link at its
    /// port's rate, and nothing else is shared (the coflow literature's "giant switch").
    BigSwitch(BigSwitchSpec),
    /// Nodes and cables from a TOML file (see [`load_fabric_file`]).
    File {
        /// Path of the fabric file, relative to the scenario file.
        path: String,
    },
}

/// Parameters of a leaf-spine fabric.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeafSpineSpec {
    /// Number of racks (leaf switches).
    pub racks: usize,
    /// Hosts under each leaf.
    pub hosts_per_rack: usize,
    /// Number of spine switches.
    pub spines: usize,
    /// Host link rate, Gb/s.
    pub host_rate_gbps: f64,
    /// Leaf-spine link rate, Gb/s. Ignored when `oversubscription` is set.
    pub fabric_rate_gbps: f64,
    /// When set, the leaf-spine rate is chosen so that a leaf's downlink capacity is this many
    /// times its uplink capacity: `hosts_per_rack * host_rate / (spines * oversubscription)`.
    #[serde(default)]
    pub oversubscription: Option<f64>,
    /// Propagation delay of host links, us.
    pub host_link_delay_us: f64,
    /// Propagation delay of leaf-spine links, us.
    pub fabric_link_delay_us: f64,
    /// Host stack delay per one-way trip, us.
    #[serde(default)]
    pub host_delay_us: f64,
    /// Buffer of each leaf port and each host NIC, bytes.
    pub buffer_bytes: u64,
    /// Buffer of each spine port, bytes (default: `buffer_bytes`).
    #[serde(default)]
    pub spine_buffer_bytes: Option<u64>,
}

/// Parameters of a 3-tier fat-tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FatTreeSpec {
    /// Switch radix (even): k pods, k^3/4 hosts.
    pub k: usize,
    /// Rate of every link, Gb/s.
    pub rate_gbps: f64,
    /// Propagation delay of every link, us.
    pub link_delay_us: f64,
    /// Host stack delay per one-way trip, us.
    #[serde(default)]
    pub host_delay_us: f64,
    /// Buffer of every port, bytes.
    pub buffer_bytes: u64,
}

/// Parameters of a dumbbell (single bottleneck).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    /// Hosts on the left switch.
    pub senders: usize,
    /// Hosts on the right switch.
    pub receivers: usize,
    /// Host link rate, Gb/s.
    pub host_rate_gbps: f64,
    /// Rate of the cable between the two switches, Gb/s.
    pub bottleneck_rate_gbps: f64,
    /// Propagation delay of every link, us.
    pub link_delay_us: f64,
    /// Host stack delay per one-way trip, us.
    #[serde(default)]
    pub host_delay_us: f64,
    /// Buffer of every port, bytes.
    pub buffer_bytes: u64,
}

/// Parameters of a non-blocking big switch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BigSwitchSpec {
    /// Number of ports (hosts).
    pub ports: usize,
    /// Rate of every port's up- and down-link, Gb/s; ignored when `port_rates_gbps` is set.
    #[serde(default)]
    pub rate_gbps: Option<f64>,
    /// One rate per port, Gb/s (port `i`'s up- and down-link); overrides `rate_gbps`.
    #[serde(default)]
    pub port_rates_gbps: Option<Vec<f64>>,
    /// Propagation delay of every link, us.
    #[serde(default)]
    pub link_delay_us: f64,
    /// Host stack delay per one-way trip, us.
    #[serde(default)]
    pub host_delay_us: f64,
    /// Buffer of every port, bytes (only packet engines use it; default 1,000,000).
    #[serde(default = "default_big_switch_buffer")]
    pub buffer_bytes: u64,
}

fn default_big_switch_buffer() -> u64 {
    1_000_000
}

/// Bits per second of a "1 Gb/s" port in the Facebook coflow trace's model: 2^30. The trace
/// (coflow-benchmark, used by Varys and Aalo) describes 150 ports but gives no rate in bits;
/// Varys's reference implementation and its coflow simulator count a 1 Gb/s NIC as
/// 1024 x 1,048,576 bits per second (their `nicMbps` default of 1024, times 2^20), and this is
/// the rate at which their CCTs for this trace are computed. DBA §5.1 replays the trace on its
/// own 10 Gb/s leaf-spine instead and says nothing about the trace's port rate.
pub const FB_PORT_BPS: u64 = 1 << 30;

/// The papers' fabrics: name, one-line description.
pub const PRESETS: &[(&str, &str)] = &[
    (
        "flowtune-144",
        "pFabric / Flowtune: 9 racks x 16 hosts, 4 spines, 10/40 Gb/s, 1.5 us links, 2 us hosts",
    ),
    (
        "tfc-360",
        "TFC ns-2: 18 racks x 20 hosts, 1 top switch, 1 Gb/s down, 10 Gb/s up, 20 us links",
    ),
    (
        "fq-codel-32",
        "FQ-CoDel: 4 racks x 8 hosts, 2 spines, 10/40 Gb/s, pFabric's 0.2 us links, 2.5 us per host",
    ),
    (
        "dba-144",
        "DBA: 12 ToRs x 12 hosts at 10 Gb/s, 3 cores at 40 Gb/s (1440 Gb/s bisection)",
    ),
    (
        "holnet-6x6",
        "HOLNET: 6 leaves x 24 hosts, 6 spines, 10 Gb/s/10 us hosts, 20 Gb/s/30 us fabric",
    ),
    (
        "fb-150",
        "Facebook coflow trace's model: 150-port non-blocking switch, 2^30 b/s ports, 1 us links",
    ),
];

/// The spec of a named preset, or `None` for an unknown name.
pub fn preset(name: &str) -> Option<FabricSpec> {
    let ls = |racks, hosts_per_rack, spines, host, fabric, hd, fd, host_delay, buf, spine_buf| {
        FabricSpec::LeafSpine(LeafSpineSpec {
            racks,
            hosts_per_rack,
            spines,
            host_rate_gbps: host,
            fabric_rate_gbps: fabric,
            oversubscription: None,
            host_link_delay_us: hd,
            fabric_link_delay_us: fd,
            host_delay_us: host_delay,
            buffer_bytes: buf,
            spine_buffer_bytes: spine_buf,
        })
    };
    Some(match name {
        // pFabric's DCTCP runs used 225 KB per port.
        "flowtune-144" => ls(9, 16, 4, 10.0, 40.0, 1.5, 1.5, 2.0, 225_000, None),
        "tfc-360" => ls(18, 20, 1, 1.0, 10.0, 20.0, 20.0, 0.0, 512_000, None),
        // pFabric's delays (the FQ-CoDel paper keeps them, §4.1): 0.2 us per link and 2.5 us
        // of host processing at each end, 5 us per one-way trip ("10 us spent in the hosts"
        // of pFabric's RTT): 11.6 us of propagation RTT across the spine (the FQ-CoDel
        // paper's "12 us"), 14.68 us with a full packet out and its ACK back (pFabric's
        // "~14.6 us"; ~13.3 us under one leaf).
        "fq-codel-32" => ls(4, 8, 2, 10.0, 40.0, 0.2, 0.2, 5.0, 225_000, None),
        "dba-144" => ls(12, 12, 3, 10.0, 40.0, 1.0, 1.0, 0.0, 1_000_000, None),
        "holnet-6x6" => ls(
            6,
            24,
            6,
            10.0,
            20.0,
            10.0,
            30.0,
            0.0,
            150_000,
            Some(300_000),
        ),
        // The trace's own fabric (see FB_PORT_BPS). It has no propagation delay; 1 us links
        // keep the base RTT (the tick of per-RTT policies) the same as on dba-144.
        "fb-150" => FabricSpec::BigSwitch(BigSwitchSpec {
            ports: 150,
            rate_gbps: Some(FB_PORT_BPS as f64 / 1e9),
            port_rates_gbps: None,
            link_delay_us: 1.0,
            host_delay_us: 0.0,
            buffer_bytes: 1_000_000,
        }),
        _ => return None,
    })
}

/// Most hosts a fabric may have: 1,000,000. The fabric alone then takes a few hundred MB and
/// an engine's per-host state more (routing: [`FabricSize::routing_bytes`]), so larger
/// fabrics cannot be simulated on one machine anyway, and refusing them before building keeps
/// a typo (`k = 1000`: 250 M hosts) from exhausting memory.
pub const MAX_HOSTS: u64 = 1_000_000;

/// Most directed links a fabric may have: 20,000,000 (two per cable), about 1 GB of links and
/// adjacency, for the same reason as [`MAX_HOSTS`].
pub const MAX_LINKS: u64 = 20_000_000;

/// Fastest link rate accepted, Gb/s: 100,000 (100 Tb/s, [`Rate::MAX_SCENARIO`]), beyond any
/// single link built today. Larger values are typos, and rates must stay well inside the `u64`
/// bits-per-second range the engines compute with.
pub const MAX_RATE_GBPS: f64 = 100_000.0;

/// Slowest link rate accepted, Gb/s: 0.001 (1 Mb/s, [`Rate::MIN_SCENARIO`]); a rate that
/// rounds to 0 b/s is a link that never sends.
pub const MIN_RATE_GBPS: f64 = 0.001;

/// Longest propagation or host delay accepted, microseconds: 1,000,000 (1 s). Datacenter
/// links are microseconds and wide-area paths tens of milliseconds; the cap keeps every time
/// computed from delays far from the picosecond clock's 213-day range.
pub const MAX_DELAY_US: f64 = 1e6;

/// How big a fabric is, known before it is built.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FabricSize {
    /// Hosts.
    pub hosts: u64,
    /// Hosts and switches.
    pub nodes: u64,
    /// Directed links (two per cable).
    pub links: u64,
}

impl FabricSize {
    /// The size of a built fabric.
    pub fn of(t: &Topology) -> FabricSize {
        FabricSize {
            hosts: t.hosts().len() as u64,
            nodes: t.nodes().len() as u64,
            links: t.links().len() as u64,
        }
    }

    /// Estimated bytes of the equal-cost routing tables (`crate::routing`) for this fabric,
    /// at their largest: a 16-byte run per switch and anchor (an edge switch, on the generated
    /// fabrics, so at most one per switch), one per host, and each link stored about twice.
    /// Saturates instead of overflowing.
    pub fn routing_bytes(&self) -> u64 {
        let switches = self.nodes.saturating_sub(self.hosts);
        switches
            .saturating_mul(switches)
            .saturating_add(self.hosts)
            .saturating_mul(16)
            .saturating_add(self.links.saturating_mul(8))
    }

    /// Refuses a fabric larger than [`MAX_HOSTS`] or [`MAX_LINKS`]; `key` names the parameter
    /// that sets the size.
    pub fn check(&self, key: &str) -> Result<(), TopologyError> {
        if self.hosts > MAX_HOSTS {
            return Err(TopologyError::invalid(
                key,
                format!(
                    "the fabric would have {} hosts, more than the {MAX_HOSTS} dctc accepts (its routing tables alone would take about {})",
                    self.hosts,
                    crate::units::human_bytes(self.routing_bytes())
                ),
            ));
        }
        if self.links > MAX_LINKS {
            return Err(TopologyError::invalid(
                key,
                format!(
                    "the fabric would have {} links, more than the {MAX_LINKS} dctc accepts",
                    self.links
                ),
            ));
        }
        Ok(())
    }
}

/// A link rate in Gb/s, checked in the engines' whole b/s ([`checked::rate_gbps`]).
fn rate(key: &str, gbps: f64) -> Result<Rate, TopologyError> {
    checked::rate_gbps(key, gbps).map_err(TopologyError::from)
}

/// A propagation or host delay in us: 0, or at least 1 ps, at most [`MAX_DELAY_US`].
fn delay(key: &str, us: f64) -> Result<Delta, TopologyError> {
    let max = Delta::from_us(MAX_DELAY_US as u64);
    checked::span_us(key, us, SpanRule::zero_or_more(max)).map_err(TopologyError::from)
}

fn positive(key: &str, n: usize) -> Result<usize, TopologyError> {
    if n == 0 {
        return Err(TopologyError::invalid(key, "must be at least 1"));
    }
    Ok(n)
}

/// Largest port buffer a scenario may give: 1 TB, far above any switch's; the engines
/// compute thresholds as percentages of a buffer in `u64` bytes.
pub const MAX_BUFFER_BYTES: u64 = 1_000_000_000_000;

fn buffer(key: &str, bytes: u64) -> Result<u64, TopologyError> {
    if bytes < 1500 {
        return Err(TopologyError::invalid(
            key,
            format!("buffer must hold at least one 1500 B packet, got {bytes}"),
        ));
    }
    if bytes > MAX_BUFFER_BYTES {
        return Err(TopologyError::invalid(
            key,
            format!("{bytes} bytes is more than the {MAX_BUFFER_BYTES} (1 TB) a buffer may hold"),
        ));
    }
    Ok(bytes)
}

impl FabricSpec {
    /// The fabric's size from its parameters alone, without building it; `None` for a fabric
    /// file or an unknown preset. Saturates instead of overflowing.
    pub fn size(&self) -> Option<FabricSize> {
        let m = |a: usize, b: usize| (a as u64).saturating_mul(b as u64);
        match self {
            FabricSpec::Preset { name } => preset(name)?.size(),
            FabricSpec::LeafSpine(l) => {
                let hosts = m(l.racks, l.hosts_per_rack);
                let fabric = m(l.racks, l.spines);
                Some(FabricSize {
                    hosts,
                    nodes: hosts
                        .saturating_add(l.racks as u64)
                        .saturating_add(l.spines as u64),
                    links: hosts.saturating_add(fabric).saturating_mul(2),
                })
            }
            FabricSpec::FatTree(f) => {
                let half = f.k / 2;
                let hosts = m(f.k, half).saturating_mul(half as u64);
                Some(FabricSize {
                    hosts,
                    nodes: hosts
                        .saturating_add(m(f.k, half).saturating_mul(2))
                        .saturating_add(m(half, half)),
                    // Host cables, edge-aggregation and aggregation-core cables: k (k/2)^2 each.
                    links: hosts.saturating_mul(3).saturating_mul(2),
                })
            }
            FabricSpec::Dumbbell(d) => {
                let hosts = (d.senders as u64).saturating_add(d.receivers as u64);
                Some(FabricSize {
                    hosts,
                    nodes: hosts.saturating_add(2),
                    links: hosts.saturating_add(1).saturating_mul(2),
                })
            }
            FabricSpec::BigSwitch(b) => {
                let hosts = b.ports as u64;
                Some(FabricSize {
                    hosts,
                    nodes: hosts.saturating_add(1),
                    links: hosts.saturating_mul(2),
                })
            }
            FabricSpec::File { .. } => None,
        }
    }

    /// Builds the fabric. `base_dir` resolves relative file paths.
    pub fn build(&self, base_dir: &Path) -> Result<Topology, TopologyError> {
        match self {
            FabricSpec::Preset { name } => {
                let spec = preset(name).ok_or_else(|| {
                    let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
                    TopologyError::invalid(
                        "name",
                        format!("unknown preset `{name}`; presets: {}", names.join(", ")),
                    )
                })?;
                let mut t = spec.build(base_dir)?;
                t.name = name.clone();
                Ok(t)
            }
            FabricSpec::LeafSpine(s) => leaf_spine(s),
            FabricSpec::FatTree(s) => fat_tree(s),
            FabricSpec::Dumbbell(s) => dumbbell(s),
            FabricSpec::BigSwitch(s) => big_switch(s),
            FabricSpec::File { path } => load_fabric_file(&base_dir.join(path)),
        }
    }
}

/// Builds a leaf-spine fabric. Hosts are `h0..`, leaves `leaf0..`, spines `spine0..`; host `i`
/// sits in rack `i / hosts_per_rack`.
pub fn leaf_spine(s: &LeafSpineSpec) -> Result<Topology, TopologyError> {
    positive("racks", s.racks)?;
    positive("hosts_per_rack", s.hosts_per_rack)?;
    positive("spines", s.spines)?;
    let host_rate = rate("host_rate_gbps", s.host_rate_gbps)?;
    let fabric_rate = match s.oversubscription {
        Some(o) if !(o.is_finite() && o > 0.0) => {
            return Err(TopologyError::invalid(
                "oversubscription",
                format!("must be positive, got {o}"),
            ))
        }
        Some(o) => {
            let gbps = s.hosts_per_rack as f64 * s.host_rate_gbps / (s.spines as f64 * o);
            rate("oversubscription", gbps).map_err(|e| match e {
                TopologyError::Invalid { key, reason } => TopologyError::Invalid {
                    key,
                    reason: format!("{o:e} makes the leaf-spine rate {gbps:e} Gb/s: {reason}"),
                },
                other => other,
            })?
        }
        None => rate("fabric_rate_gbps", s.fabric_rate_gbps)?,
    };
    let host_delay_link = delay("host_link_delay_us", s.host_link_delay_us)?;
    let fabric_delay = delay("fabric_link_delay_us", s.fabric_link_delay_us)?;
    let host_delay = delay("host_delay_us", s.host_delay_us)?;
    let buf = buffer("buffer_bytes", s.buffer_bytes)?;
    let spine_buf = buffer(
        "spine_buffer_bytes",
        s.spine_buffer_bytes.unwrap_or(s.buffer_bytes),
    )?;
    FabricSpec::LeafSpine(s.clone())
        .size()
        .expect("generated fabrics have a size")
        .check("racks")?;
    let name = format!("leaf-spine {}x{}x{}", s.racks, s.hosts_per_rack, s.spines);
    let mut t = Topology::new(name, host_delay);
    let hosts: Vec<_> = (0..s.racks * s.hosts_per_rack)
        .map(|i| t.add_node(NodeKind::Host, format!("h{i}")))
        .collect();
    let leaves: Vec<_> = (0..s.racks)
        .map(|i| t.add_node(NodeKind::Switch { tier: 1 }, format!("leaf{i}")))
        .collect();
    let spines: Vec<_> = (0..s.spines)
        .map(|i| t.add_node(NodeKind::Switch { tier: 2 }, format!("spine{i}")))
        .collect();
    for (i, &h) in hosts.iter().enumerate() {
        t.add_cable(
            h,
            leaves[i / s.hosts_per_rack],
            host_rate,
            host_delay_link,
            buf,
            buf,
        );
    }
    for &l in &leaves {
        for &sp in &spines {
            t.add_cable(l, sp, fabric_rate, fabric_delay, buf, spine_buf);
        }
    }
    Ok(t)
}

/// Name of the allocator node [`attach_allocator`] adds.
pub const ALLOCATOR_NODE: &str = "allocator";

/// Adds Flowtune's allocator (§6.2) to a built fabric: a [`NodeKind::Controller`] node named
/// [`ALLOCATOR_NODE`] with a cable of `rate_gbps` to every switch of the highest tier (the
/// spines of a leaf-spine), each with the propagation delay and buffer of an existing cable
/// into that switch. Routing treats it like a host, so host-to-host paths do not change.
/// Fails on a fabric without switches or one that already has the node.
pub fn attach_allocator(t: &mut Topology, rate_gbps: f64) -> Result<NodeId, TopologyError> {
    let r = rate("allocator_gbps", rate_gbps)?;
    if t.node_by_name(ALLOCATOR_NODE).is_some() {
        return Err(TopologyError::invalid(
            "allocator_gbps",
            format!("the fabric already has a node named `{ALLOCATOR_NODE}`"),
        ));
    }
    let tier_of = |k: NodeKind| match k {
        NodeKind::Switch { tier } => Some(tier),
        _ => None,
    };
    let top = t.nodes().iter().filter_map(|n| tier_of(n.kind)).max();
    let Some(top) = top else {
        return Err(TopologyError::invalid(
            "allocator_gbps",
            "the fabric has no switch to attach the allocator to",
        ));
    };
    let spines: Vec<(NodeId, Delta, u64)> = (0..t.nodes().len())
        .map(NodeId::from_index)
        .filter(|&v| tier_of(t.node(v).kind) == Some(top))
        .map(|v| {
            // The delay and buffer of the switch's first port.
            let l = t.out_links(v).first().map(|l| t.link(*l).clone());
            let (delay, buf) = l.map_or((Delta::ZERO, 1500), |l| (l.delay, l.buffer_bytes));
            (v, delay, buf)
        })
        .collect();
    let a = t.add_node(NodeKind::Controller, ALLOCATOR_NODE);
    for (sp, delay, buf) in spines {
        t.add_cable(a, sp, r, delay, buf, buf);
    }
    Ok(a)
}

/// Builds a k-ary fat-tree (Al-Fares et al.): k pods of k/2 edge and k/2 aggregation switches,
/// (k/2)^2 cores, k/2 hosts per edge switch.
pub fn fat_tree(s: &FatTreeSpec) -> Result<Topology, TopologyError> {
    if s.k < 2 || !s.k.is_multiple_of(2) {
        return Err(TopologyError::invalid(
            "k",
            format!("must be even and >= 2, got {}", s.k),
        ));
    }
    let r = rate("rate_gbps", s.rate_gbps)?;
    let d = delay("link_delay_us", s.link_delay_us)?;
    let hd = delay("host_delay_us", s.host_delay_us)?;
    let buf = buffer("buffer_bytes", s.buffer_bytes)?;
    FabricSpec::FatTree(s.clone())
        .size()
        .expect("generated fabrics have a size")
        .check("k")?;
    let half = s.k / 2;
    let mut t = Topology::new(format!("fat-tree k={}", s.k), hd);
    let hosts: Vec<_> = (0..s.k * half * half)
        .map(|i| t.add_node(NodeKind::Host, format!("h{i}")))
        .collect();
    let edges: Vec<_> = (0..s.k * half)
        .map(|i| t.add_node(NodeKind::Switch { tier: 1 }, format!("edge{i}")))
        .collect();
    let aggs: Vec<_> = (0..s.k * half)
        .map(|i| t.add_node(NodeKind::Switch { tier: 2 }, format!("agg{i}")))
        .collect();
    let cores: Vec<_> = (0..half * half)
        .map(|i| t.add_node(NodeKind::Switch { tier: 3 }, format!("core{i}")))
        .collect();
    for (i, &h) in hosts.iter().enumerate() {
        t.add_cable(h, edges[i / half], r, d, buf, buf);
    }
    for pod in 0..s.k {
        for e in 0..half {
            for a in 0..half {
                t.add_cable(edges[pod * half + e], aggs[pod * half + a], r, d, buf, buf);
            }
        }
        // Aggregation switch `a` of every pod connects to cores a*half .. a*half + half.
        for a in 0..half {
            for c in 0..half {
                t.add_cable(aggs[pod * half + a], cores[a * half + c], r, d, buf, buf);
            }
        }
    }
    Ok(t)
}

/// Builds a dumbbell: senders `h0..h{senders-1}` on switch `left`, receivers after them on
/// `right`, one cable `left`-`right` at the bottleneck rate.
pub fn dumbbell(s: &DumbbellSpec) -> Result<Topology, TopologyError> {
    positive("senders", s.senders)?;
    positive("receivers", s.receivers)?;
    let hr = rate("host_rate_gbps", s.host_rate_gbps)?;
    let br = rate("bottleneck_rate_gbps", s.bottleneck_rate_gbps)?;
    let d = delay("link_delay_us", s.link_delay_us)?;
    let hd = delay("host_delay_us", s.host_delay_us)?;
    let buf = buffer("buffer_bytes", s.buffer_bytes)?;
    FabricSpec::Dumbbell(s.clone())
        .size()
        .expect("generated fabrics have a size")
        .check("senders")?;
    let mut t = Topology::new(format!("dumbbell {}x{}", s.senders, s.receivers), hd);
    let hosts: Vec<_> = (0..s.senders + s.receivers)
        .map(|i| t.add_node(NodeKind::Host, format!("h{i}")))
        .collect();
    let left = t.add_node(NodeKind::Switch { tier: 1 }, "left");
    let right = t.add_node(NodeKind::Switch { tier: 1 }, "right");
    for (i, &h) in hosts.iter().enumerate() {
        let sw = if i < s.senders { left } else { right };
        t.add_cable(h, sw, hr, d, buf, buf);
    }
    t.add_cable(left, right, br, d, buf, buf);
    Ok(t)
}

/// Builds a non-blocking big switch: hosts `h0..h{ports-1}` on switch `switch`, host `i` on
/// one cable at port `i`'s rate. Every path is host up-link, host down-link.
pub fn big_switch(s: &BigSwitchSpec) -> Result<Topology, TopologyError> {
    positive("ports", s.ports)?;
    FabricSpec::BigSwitch(s.clone())
        .size()
        .expect("generated fabrics have a size")
        .check("ports")?;
    let rates: Vec<Rate> = match (&s.port_rates_gbps, s.rate_gbps) {
        (Some(list), _) => {
            if list.len() != s.ports {
                return Err(TopologyError::invalid(
                    "port_rates_gbps",
                    format!("has {} rates for {} ports", list.len(), s.ports),
                ));
            }
            list.iter()
                .enumerate()
                .map(|(i, &g)| rate(&format!("port_rates_gbps[{i}]"), g))
                .collect::<Result<_, _>>()?
        }
        (None, Some(g)) => vec![rate("rate_gbps", g)?; s.ports],
        (None, None) => {
            return Err(TopologyError::invalid(
                "rate_gbps",
                "missing: give `rate_gbps` or `port_rates_gbps`",
            ))
        }
    };
    let d = delay("link_delay_us", s.link_delay_us)?;
    let hd = delay("host_delay_us", s.host_delay_us)?;
    let buf = buffer("buffer_bytes", s.buffer_bytes)?;
    let mut t = Topology::new(format!("big-switch {}", s.ports), hd);
    let hosts: Vec<_> = (0..s.ports)
        .map(|i| t.add_node(NodeKind::Host, format!("h{i}")))
        .collect();
    let sw = t.add_node(NodeKind::Switch { tier: 1 }, "switch");
    for (&h, &r) in hosts.iter().zip(&rates) {
        t.add_cable(h, sw, r, d, buf, buf);
    }
    Ok(t)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FabricFile {
    #[serde(default)]
    host_delay_us: f64,
    nodes: Vec<FileNode>,
    links: Vec<FileLink>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileNode {
    name: String,
    kind: FileNodeKind,
    #[serde(default = "default_tier")]
    tier: u8,
}

fn default_tier() -> u8 {
    1
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
enum FileNodeKind {
    Host,
    Switch,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileLink {
    a: String,
    b: String,
    rate_gbps: f64,
    delay_us: f64,
    buffer_bytes: u64,
}

/// Reads a fabric file:
///
/// ```toml
/// host_delay_us = 2.0
/// nodes = [ { name = "h0", kind = "host" }, { name = "s0", kind = "switch", tier = 1 } ]
/// links = [ { a = "h0", b = "s0", rate_gbps = 10, delay_us = 1.5, buffer_bytes = 225000 } ]
/// ```
///
/// Every link is a cable (both directions, same buffer at both ends).
pub fn load_fabric_file(path: &Path) -> Result<Topology, TopologyError> {
    let text = crate::input::read_input_file(path)
        .map_err(|e| TopologyError::File(format!("{}: {e}", path.display())))?;
    let file: FabricFile = toml::from_str(&text)
        .map_err(|e| TopologyError::File(format!("{}: {e}", path.display())))?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "custom".into());
    let mut t = Topology::new(name, delay("host_delay_us", file.host_delay_us)?);
    FabricSize {
        hosts: file.nodes.len() as u64,
        nodes: file.nodes.len() as u64,
        links: (file.links.len() as u64).saturating_mul(2),
    }
    .check("nodes")?;
    for n in &file.nodes {
        if t.node_by_name(&n.name).is_some() {
            return Err(TopologyError::DuplicateName(n.name.clone()));
        }
        let kind = match n.kind {
            FileNodeKind::Host => NodeKind::Host,
            FileNodeKind::Switch => NodeKind::Switch { tier: n.tier },
        };
        t.add_node(kind, n.name.clone());
    }
    for (i, l) in file.links.iter().enumerate() {
        let find = |name: &str| {
            t.node_by_name(name)
                .ok_or_else(|| TopologyError::UnknownNode {
                    index: i,
                    name: name.to_string(),
                })
        };
        let (a, b) = (find(&l.a)?, find(&l.b)?);
        let key = |k: &str| format!("links[{i}].{k}");
        if a == b {
            return Err(TopologyError::invalid(
                key("b"),
                format!("link from `{}` to itself (a self-loop)", l.a),
            ));
        }
        let r = rate(&key("rate_gbps"), l.rate_gbps)?;
        let d = delay(&key("delay_us"), l.delay_us)?;
        let buf = buffer(&key("buffer_bytes"), l.buffer_bytes)?;
        t.add_cable(a, b, r, d, buf, buf);
    }
    if t.hosts().is_empty() {
        return Err(TopologyError::invalid("nodes", "the fabric has no host"));
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allocator_hangs_off_every_spine_and_leaves_host_routes_alone() {
        use crate::routing::Routing;
        let spec = FabricSpec::Preset {
            name: "flowtune-144".into(),
        };
        let plain = spec.build(Path::new(".")).unwrap();
        let mut t = plain.clone();
        let a = attach_allocator(&mut t, 40.0).unwrap();
        assert_eq!(t.node(a).kind, NodeKind::Controller);
        assert_eq!(t.hosts().len(), 144, "the allocator is not a host");
        assert_eq!(t.out_links(a).len(), 4);
        for l in t.out_links(a) {
            let l = t.link(*l);
            assert_eq!(l.rate, Rate::gbps(40));
            assert_eq!(t.node(l.to).kind, NodeKind::Switch { tier: 2 });
            assert_eq!(l.delay, Delta::from_us_f64(1.5));
        }
        let (r0, r1) = (Routing::new(&plain).unwrap(), Routing::new(&t).unwrap());
        // Host-to-host next hops are the same at every node of the plain fabric.
        for &dst in plain.hosts().iter().step_by(7) {
            for v in 0..plain.nodes().len() {
                let v = NodeId::from_index(v);
                assert_eq!(r0.next_hops(&plain, v, dst), r1.next_hops(&t, v, dst));
            }
        }
        // Routable like a host: a host reaches it in 3 hops over any of the 4 spines, and it
        // reaches every host in 3 hops.
        let h = t.hosts()[20];
        assert_eq!(r1.distance(&t, h, a), Some(3));
        let leaf = t.edge_switch(h).unwrap();
        assert_eq!(r1.next_hops(&t, leaf, a).len(), 4);
        assert_eq!(r1.distance(&t, a, h), Some(3));
        assert_eq!(r1.next_hops(&t, a, h).len(), 4);
        assert_eq!(r1.destinations().last(), Some(&a));
        // Twice is refused, and so is a fabric with no switch.
        assert!(attach_allocator(&mut t, 40.0).is_err());
        let mut empty = Topology::new("x", Delta::ZERO);
        empty.add_node(NodeKind::Host, "h0");
        assert!(attach_allocator(&mut empty, 40.0).is_err());
        assert!(attach_allocator(&mut plain.clone(), 0.0).is_err());
    }

    #[test]
    fn flowtune_preset_has_144_hosts_and_the_papers_rates() {
        let t = FabricSpec::Preset {
            name: "flowtune-144".into(),
        }
        .build(Path::new("."))
        .unwrap();
        assert_eq!(t.hosts().len(), 144);
        assert_eq!(t.nodes().len(), 144 + 9 + 4);
        // 144 host cables + 9 * 4 leaf-spine cables, two links each.
        assert_eq!(t.links().len(), 2 * (144 + 36));
        assert_eq!(t.host_rate(t.hosts()[0]), Some(Rate::gbps(10)));
        assert_eq!(t.host_delay, Delta::from_us(2));
        let leaf0 = t.edge_switch(t.hosts()[0]).unwrap();
        let up = t
            .out_links(leaf0)
            .iter()
            .find(|l| !t.is_host(t.link(**l).to))
            .unwrap();
        assert_eq!(t.link(*up).rate, Rate::gbps(40));
    }

    #[test]
    fn fb_150_is_a_150_port_big_switch_at_2_pow_30() {
        let t = FabricSpec::Preset {
            name: "fb-150".into(),
        }
        .build(Path::new("."))
        .unwrap();
        assert_eq!(t.hosts().len(), 150);
        assert_eq!(t.nodes().len(), 151);
        assert_eq!(t.links().len(), 300);
        for &h in t.hosts() {
            assert_eq!(t.host_rate(h), Some(Rate(1 << 30)));
            let up = t.out_links(h)[0];
            assert_eq!(t.link(t.link(up).reverse).rate, Rate(1 << 30));
        }
        assert_eq!(t.name, "fb-150");
    }

    #[test]
    fn big_switch_per_port_rates_and_errors() {
        let mut s = BigSwitchSpec {
            ports: 3,
            rate_gbps: Some(10.0),
            port_rates_gbps: Some(vec![1.0, 2.0, 4.0]),
            link_delay_us: 1.0,
            host_delay_us: 0.0,
            buffer_bytes: 100_000,
        };
        let t = big_switch(&s).unwrap();
        let rates: Vec<_> = t.hosts().iter().map(|&h| t.host_rate(h)).collect();
        assert_eq!(
            rates,
            vec![
                Some(Rate::gbps(1)),
                Some(Rate::gbps(2)),
                Some(Rate::gbps(4))
            ]
        );
        assert_eq!(
            FabricSpec::BigSwitch(s.clone()).size(),
            Some(FabricSize::of(&t))
        );
        s.port_rates_gbps = Some(vec![1.0, f64::NAN, 4.0]);
        let e = big_switch(&s).unwrap_err().to_string();
        assert!(e.starts_with("port_rates_gbps[1]:"), "{e}");
        s.port_rates_gbps = Some(vec![1.0]);
        let e = big_switch(&s).unwrap_err().to_string();
        assert!(
            e.starts_with("port_rates_gbps:") && e.contains("1 rates for 3"),
            "{e}"
        );
        s.port_rates_gbps = None;
        s.rate_gbps = Some(0.0);
        assert!(big_switch(&s)
            .unwrap_err()
            .to_string()
            .starts_with("rate_gbps:"));
        s.rate_gbps = None;
        assert!(big_switch(&s)
            .unwrap_err()
            .to_string()
            .starts_with("rate_gbps:"));
        s.rate_gbps = Some(1.0);
        s.ports = 0;
        assert!(big_switch(&s)
            .unwrap_err()
            .to_string()
            .starts_with("ports:"));
        s.ports = 2_000_000;
        assert!(big_switch(&s)
            .unwrap_err()
            .to_string()
            .starts_with("ports:"));
        // From TOML, as a scenario writes it.
        let spec: FabricSpec =
            toml::from_str("kind = \"big-switch\"\nports = 4\nrate_gbps = 10.0").unwrap();
        assert_eq!(spec.build(Path::new(".")).unwrap().hosts().len(), 4);
        assert!(
            toml::from_str::<FabricSpec>("kind = \"big-switch\"\nports = 4\nrate = 1").is_err()
        );
    }

    #[test]
    fn every_preset_builds() {
        for (name, _) in PRESETS {
            let t = preset(name).unwrap().build(Path::new(".")).unwrap();
            assert!(!t.hosts().is_empty(), "{name}");
        }
        assert!(preset("nope").is_none());
    }

    #[test]
    fn fq_codel_32_has_pfabrics_round_trip_times() {
        use crate::routing::Routing;
        use crate::stats::{ideal_fct, HEADER_BYTES, MSS_BYTES};
        let t = preset("fq-codel-32")
            .unwrap()
            .build(Path::new("."))
            .unwrap();
        assert_eq!(t.hosts().len(), 32);
        let routing = Routing::new(&t).unwrap();
        let hops = |a: usize, b: usize| -> Vec<(Rate, Delta)> {
            let (a, b) = (t.hosts()[a], t.hosts()[b]);
            routing
                .ecmp_path(&t, a, b, 0)
                .iter()
                .map(|&l| (t.link(l).rate, t.link(l).delay))
                .collect()
        };
        // Propagation only: host delays and link delays, out and back.
        let prop = |a, b| {
            t.host_delay.0 * 2
                + hops(a, b)
                    .iter()
                    .chain(&hops(b, a))
                    .map(|h| h.1 .0)
                    .sum::<u64>()
        };
        // A full packet out and a header-only ACK back, on empty links.
        let rtt = |a, b| {
            ideal_fct(
                &hops(a, b),
                MSS_BYTES,
                MSS_BYTES,
                HEADER_BYTES,
                t.host_delay,
            ) + ideal_fct(&hops(b, a), 0, MSS_BYTES, HEADER_BYTES, t.host_delay)
        };
        // Hosts 0 and 31 sit under different leaves (4 hops), 0 and 1 under one (2 hops).
        // FQ-CoDel paper §4.2: "the RTT propagation delay between any two host ... is 12 us";
        // pFabric's fabric: 11.6 us (10 us in the hosts, eight 0.2 us link crossings).
        assert_eq!(prop(0, 31), Delta::from_ns(11_600).0);
        assert_eq!(prop(0, 1), Delta::from_ns(10_800).0);
        // pFabric §5: "~14.6 us" across the spine, "~13.3 us" under a leaf, transmission
        // included: 1.2 us per 1500 B packet at 10 Gb/s, 0.3 us at 40 Gb/s.
        assert_eq!(rtt(0, 31), Delta::from_ns(14_680));
        assert_eq!(rtt(0, 1), Delta::from_ns(13_264));
    }

    #[test]
    fn fat_tree_k4_has_16_hosts_20_switches() {
        let t = fat_tree(&FatTreeSpec {
            k: 4,
            rate_gbps: 10.0,
            link_delay_us: 1.0,
            host_delay_us: 0.0,
            buffer_bytes: 100_000,
        })
        .unwrap();
        assert_eq!(t.hosts().len(), 16);
        assert_eq!(t.nodes().len() - 16, 20);
        // 16 host + 16 edge-agg + 16 agg-core cables.
        assert_eq!(t.links().len(), 2 * 48);
    }

    #[test]
    fn oversubscription_sets_the_fabric_rate() {
        let mut s = match preset("dba-144").unwrap() {
            FabricSpec::LeafSpine(s) => s,
            _ => unreachable!(),
        };
        s.oversubscription = Some(4.0);
        let t = leaf_spine(&s).unwrap();
        let leaf = t.edge_switch(t.hosts()[0]).unwrap();
        let up = t
            .out_links(leaf)
            .iter()
            .map(|l| t.link(*l))
            .find(|l| !t.is_host(l.to))
            .unwrap();
        assert_eq!(up.rate, Rate::gbps(10)); // 12 * 10 / (3 * 4)
    }

    #[test]
    fn bad_parameters_name_the_key() {
        let mut s = match preset("flowtune-144").unwrap() {
            FabricSpec::LeafSpine(s) => s,
            _ => unreachable!(),
        };
        s.host_rate_gbps = -1.0;
        let e = leaf_spine(&s).unwrap_err();
        assert!(e.to_string().starts_with("host_rate_gbps:"), "{e}");
        s.host_rate_gbps = 10.0;
        s.spines = 0;
        assert!(leaf_spine(&s)
            .unwrap_err()
            .to_string()
            .starts_with("spines:"));
        let e = FabricSpec::Preset { name: "x".into() }
            .build(Path::new("."))
            .unwrap_err();
        assert!(e.to_string().contains("flowtune-144"), "{e}");
    }

    #[test]
    fn huge_fabrics_are_refused_before_building() {
        // k = 1000: 250 M hosts. Refused from the parameters, with the routing estimate.
        let e = fat_tree(&FatTreeSpec {
            k: 1000,
            rate_gbps: 10.0,
            link_delay_us: 1.0,
            host_delay_us: 0.0,
            buffer_bytes: 100_000,
        })
        .unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with("k:") && msg.contains("250000000 hosts"),
            "{msg}"
        );
        assert!(msg.ends_with("TB)"), "{msg}");
        let mut s = match preset("flowtune-144").unwrap() {
            FabricSpec::LeafSpine(s) => s,
            _ => unreachable!(),
        };
        s.racks = 10_000;
        s.hosts_per_rack = 1_000; // 10 M hosts
        let e = leaf_spine(&s).unwrap_err().to_string();
        assert!(e.contains("10000000 hosts"), "{e}");
        // Sizes from parameters match what the builders make.
        for spec in [
            preset("holnet-6x6").unwrap(),
            FabricSpec::FatTree(FatTreeSpec {
                k: 6,
                rate_gbps: 10.0,
                link_delay_us: 1.0,
                host_delay_us: 0.0,
                buffer_bytes: 100_000,
            }),
            FabricSpec::Dumbbell(DumbbellSpec {
                senders: 3,
                receivers: 2,
                host_rate_gbps: 10.0,
                bottleneck_rate_gbps: 1.0,
                link_delay_us: 1.0,
                host_delay_us: 0.0,
                buffer_bytes: 100_000,
            }),
        ] {
            let t = spec.build(Path::new(".")).unwrap();
            assert_eq!(spec.size(), Some(FabricSize::of(&t)), "{spec:?}");
        }
    }

    #[test]
    fn rates_and_delays_beyond_physical_sense_are_refused() {
        let mut s = match preset("flowtune-144").unwrap() {
            FabricSpec::LeafSpine(s) => s,
            _ => unreachable!(),
        };
        s.host_rate_gbps = 1e308;
        let e = leaf_spine(&s).unwrap_err().to_string();
        assert!(
            e.starts_with("host_rate_gbps:") && e.contains("100 Tb/s"),
            "{e}"
        );
        s.host_rate_gbps = 100_000.0; // exactly the cap is accepted
        leaf_spine(&s).unwrap();
        s.host_link_delay_us = 1e300;
        let e = leaf_spine(&s).unwrap_err().to_string();
        assert!(e.starts_with("host_link_delay_us:"), "{e}");
    }

    #[test]
    fn fabric_file_self_loop_and_endless_input_are_refused() {
        let dir = tempfile_dir("selfloop");
        let p = dir.join("f.toml");
        std::fs::write(
            &p,
            r#"nodes = [{name="a", kind="host"}, {name="s", kind="switch"}, {name="b", kind="host"}]
links = [{a="a", b="s", rate_gbps=10, delay_us=1, buffer_bytes=100000},
         {a="s", b="s", rate_gbps=10, delay_us=1, buffer_bytes=100000},
         {a="s", b="b", rate_gbps=1, delay_us=1, buffer_bytes=100000}]"#,
        )
        .unwrap();
        let e = load_fabric_file(&p).unwrap_err().to_string();
        assert!(
            e.starts_with("links[1].b:") && e.contains("self-loop"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).ok();
        if Path::new("/dev/zero").exists() {
            let e = load_fabric_file(Path::new("/dev/zero"))
                .unwrap_err()
                .to_string();
            assert!(e.contains("/dev/zero") && e.contains("64 MiB"), "{e}");
        }
    }

    fn tempfile_dir(tag: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("dctc-fabric-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn fabric_file_round_trip_and_errors() {
        let dir = std::env::temp_dir().join(format!("dctc-fabric-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f.toml");
        std::fs::write(
            &p,
            r#"nodes = [{name="a", kind="host"}, {name="s", kind="switch"}, {name="b", kind="host"}]
links = [{a="a", b="s", rate_gbps=10, delay_us=1, buffer_bytes=100000},
         {a="s", b="b", rate_gbps=1, delay_us=1, buffer_bytes=100000}]"#,
        )
        .unwrap();
        let t = load_fabric_file(&p).unwrap();
        assert_eq!(t.hosts().len(), 2);
        assert_eq!(t.links().len(), 4);
        std::fs::write(
            &p,
            r#"nodes = [{name="a", kind="host"}]
links = [{a="a", b="zz", rate_gbps=10, delay_us=1, buffer_bytes=100000}]"#,
        )
        .unwrap();
        assert_eq!(
            load_fabric_file(&p).unwrap_err(),
            TopologyError::UnknownNode {
                index: 0,
                name: "zz".into()
            }
        );
        assert!(matches!(
            load_fabric_file(&dir.join("missing.toml")),
            Err(TopologyError::File(_))
        ));
        std::fs::remove_dir_all(&dir).ok();
    }
}
