//! Schemes: one module each, assembled from parts.
//!
//! A scheme module (`schemes/<name>.rs`) holds its `[[schemes]]` keys as its own
//! `deny_unknown_fields` config (made by `scheme_config!`, which adds the keys every scheme
//! shares), its one-line description, and `parts`, which validates the config and picks the
//! scheme's congestion controller and switch queue discipline. One line of `schemes!` below
//! registers a module: it generates the name lookup, the `dctc list` row ([`SCHEMES`]) and the
//! name written to outputs ([`PacketScheme::name`]).
//!
//! Queue discipline and transport are separate axes: every scheme table may name
//! `transport = "<controller>"` (see [`crate::transport::TRANSPORTS`]) and
//! `queue = "<discipline>"` (see [`QUEUES`]) to replace the scheme's defaults, so "DCTCP over
//! DropTail" is `name = "dctcp", queue = "droptail"`. ECN capability follows the transport.
//!
//! Shared keys: `name`, `label`, `transport`, `queue`, `ecn_k_bytes` (the `ecn` queue's K),
//! `load_balancer`, `tcp`, `subflows` (see [`crate::multipath`]), and the CoDel-family queue keys of [`queue_keys`]
//! (`codel_target_us`, `codel_interval_us`, `codel_ecn`, `fq_buckets`, `fq_quantum_bytes`,
//! `fq_drop_batch`), each valid only where the switch queue uses it, and `buffer_packets`
//! (every switch port's buffer in 1500 B packets, replacing the fabric's: DCTCP with 100- and
//! 1000-packet buffers in the FQ-CoDel paper; it also sets pFabric-tuned TCP's max cwnd) and
//! `nic_queue` (`droptail`, the default, or `switch`: host NICs run the switch ports'
//! discipline with the switches' buffer, as in the ns-2 setups of pFabric and the FQ-CoDel
//! paper; a NIC's buffer is never below its host link's buffer in the fabric).
//!
//! TCP settings layer: the scheme's defaults ([`Parts::tcp`], its paper's tuning), then
//! `[packet].tcp`, then the table's own `tcp`.

use crate::config::{default_ecn_k, smallest_switch_buffer, PacketSettings, TcpKnobs};
use crate::queue::{
    Codel, CodelParams, DropTail, EcnThreshold, FqCodel, FqCodelParams, PFabric, Queue, SfqCodel,
    SfqCodelParams, Tfc, TfcParams, XcpParams, XcpRouter,
};
use crate::transport::{Cc, CongestionControl, TcpConfig, TRANSPORTS};
use dctc_core::config::unknown_name;
use dctc_core::config::KeyError;
use dctc_core::topology::Topology;
use dctc_core::units::{Delta, Rate};

/// Reads one scheme table into a typed config. The binary implements it over its scenario
/// format; errors carry the full key path (`schemes[1].tcp.min_rto_us`) and the reason.
pub trait ParseTable {
    /// The table as `T`.
    fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, KeyError>;
}

/// Which load balancer the switches run.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LbKind {
    /// Per-flow ECMP hashing.
    #[default]
    Ecmp,
    /// Per-packet round-robin spraying.
    Spray,
    /// DRILL(d, m) at every switch (`[packet].drill`).
    Drill,
    /// HOLNET's percentage balancers at the leaves (`[packet].percentage_lb`).
    HolnetPercentage,
}

/// A queue discipline with its parameters, built once per port.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QueueSpec {
    /// Tail drop.
    DropTail,
    /// Tail drop plus CE marks above `k_bytes` (DCTCP's switch).
    Ecn {
        /// Marking threshold K, bytes.
        k_bytes: u64,
    },
    /// CoDel (RFC 8289) over one FIFO of the port's buffer.
    Codel(CodelParams),
    /// FQ-CoDel (RFC 8290); `limit_bytes` becomes the port's buffer.
    FqCodel(FqCodelParams),
    /// sfqCoDel; `limit_bytes` becomes the port's buffer.
    SfqCodel(SfqCodelParams),
    /// pFabric's priority queue (priority dropping) of the port's buffer.
    PFabric,
    /// TFC's port (tokens, effective flows, window, delay arbiter) of the port's buffer.
    Tfc(TfcParams),
    /// XCP's router over a FIFO of the port's buffer (C is the link rate [`QueueSpec::build`] gets).
    Xcp(XcpParams),
    /// HOLNET's FIFO with per-hop congestion bits at 80% of the buffer.
    Holnet,
}

/// Queue disciplines a scheme table may name with `queue = "..."`: name, description.
pub const QUEUES: &[(&str, &str)] = &[
    (
        "droptail",
        "FIFO, drops arrivals that do not fit the buffer",
    ),
    (
        "ecn",
        "FIFO that sets CE on ECN-capable arrivals above K bytes (`ecn_k_bytes`)",
    ),
    (
        "codel",
        "CoDel (RFC 8289): drops at dequeue once sojourn stays above codel_target_us for codel_interval_us",
    ),
    (
        "fq-codel",
        "FQ-CoDel (RFC 8290): fq_buckets hashed flows, DRR with fq_quantum_bytes, new-flow priority, CoDel per bucket",
    ),
    (
        "sfqcodel",
        "stochastic fair queueing (round robin, no new-flow priority) with CoDel per bucket",
    ),
    (
        "pfabric",
        "pFabric (SIGCOMM 2013): highest priority out first, lowest-priority packet dropped when full",
    ),
    (
        "tfc",
        "TFC (EuroSys 2016): FIFO writing W = T/E into data packets, delay arbiter on RMA ACKs",
    ),
    (
        "xcp",
        "XCP router (SIGCOMM 2002): FIFO writing per-packet window feedback (xcp_alpha, xcp_beta)",
    ),
    (
        "holnet",
        "FIFO that sets a per-hop congestion bit on data packets once the queue reaches 80% of the buffer (HOLNET)",
    ),
];

impl QueueSpec {
    /// The discipline of a port with a `buffer_bytes` buffer feeding a link of `rate` (the
    /// capacity that rate-based disciplines, TFC's tokens and XCP's spare bandwidth, compute
    /// with); `seed` keys the flow hash of the hashed-bucket disciplines (see
    /// [`QueueSpec::port_seed`]).
    ///
    /// Panics on parameters [`resolve_scheme`] would have refused (a buffer below one 1500 B
    /// packet for the CoDel family and pFabric).
    pub fn build(&self, buffer_bytes: u64, seed: u64, rate: Rate) -> Queue {
        let checked = "queue parameters are validated when the scheme is resolved";
        match *self {
            QueueSpec::DropTail => Queue::DropTail(DropTail::new(buffer_bytes)),
            QueueSpec::Ecn { k_bytes } => Queue::Ecn(EcnThreshold::new(buffer_bytes, k_bytes)),
            QueueSpec::Codel(p) => {
                Queue::Codel(Box::new(Codel::new(buffer_bytes, p).expect(checked)))
            }
            QueueSpec::FqCodel(p) => Queue::FqCodel(Box::new(
                FqCodel::new(
                    FqCodelParams {
                        limit_bytes: buffer_bytes,
                        ..p
                    },
                    seed,
                )
                .expect(checked),
            )),
            QueueSpec::SfqCodel(p) => Queue::SfqCodel(Box::new(
                SfqCodel::new(
                    SfqCodelParams {
                        limit_bytes: buffer_bytes,
                        ..p
                    },
                    seed,
                )
                .expect(checked),
            )),
            QueueSpec::PFabric => {
                Queue::PFabric(Box::new(PFabric::new(buffer_bytes).expect(checked)))
            }
            QueueSpec::Tfc(p) => {
                Queue::Tfc(Box::new(Tfc::new(buffer_bytes, p, rate).expect(checked)))
            }
            QueueSpec::Xcp(p) => Queue::Xcp(Box::new(XcpRouter::new(buffer_bytes, rate, p))),
            QueueSpec::Holnet => Queue::Holnet(crate::queue::HolnetMark::new(buffer_bytes)),
        }
    }

    /// The hash key of port (link) `link` in a run seeded with `run_seed`: drawn from the
    /// queue stream of `dctc_core::rng` and mixed with the link index, so which flows share
    /// a bucket is reproducible per port and differs between ports.
    pub fn port_seed(run_seed: u64, link: usize) -> u64 {
        use rand::Rng;
        let key: u64 =
            dctc_core::rng::component_rng(run_seed, dctc_core::rng::streams::QUEUE).random();
        dctc_core::rng::mix64(key ^ dctc_core::rng::mix64(link as u64))
    }

    /// Its name in [`QUEUES`].
    pub fn name(&self) -> &'static str {
        match self {
            QueueSpec::DropTail => "droptail",
            QueueSpec::Ecn { .. } => "ecn",
            QueueSpec::Codel(_) => "codel",
            QueueSpec::FqCodel(_) => "fq-codel",
            QueueSpec::SfqCodel(_) => "sfqcodel",
            QueueSpec::PFabric => "pfabric",
            QueueSpec::Tfc(_) => "tfc",
            QueueSpec::Xcp(_) => "xcp",
            QueueSpec::Holnet => "holnet",
        }
    }
}

/// A scheme with every setting resolved: what one run needs.
#[derive(Clone, Debug, PartialEq)]
pub struct PacketScheme {
    /// Registered name (written to outputs).
    pub name: &'static str,
    /// Label in outputs (unique within a scenario).
    pub label: String,
    /// TCP settings.
    pub tcp: TcpConfig,
    /// A fresh congestion controller; every flow starts from a clone.
    pub cc: Cc,
    /// Queue discipline of switch ports.
    pub switch_queue: QueueSpec,
    /// Queue discipline of host NICs.
    pub host_queue: QueueSpec,
    /// Load balancer.
    pub lb: LbKind,
    /// Host NIC queue size, bytes.
    pub nic_buffer_bytes: u64,
    /// Per-host send jitter: each packet a host sends arrives up to this much later at the
    /// first switch (uniform, seeded, order kept); zero: off.
    pub send_jitter: Delta,
    /// Switch-port buffer replacing the fabric's (`buffer_packets`), bytes; `None`: the
    /// fabric's per-link buffers.
    pub switch_buffer_bytes: Option<u64>,
    /// Parameters of the balancers that take any (DRILL, HOLNET's percentage balancer).
    pub lb_params: crate::lb::LbParams,
    /// Flows run as subflows on pinned paths (the `subflows` key), sorted by flow id.
    pub subflows: Vec<crate::multipath::SubflowPlan>,
}

/// Bytes of one full packet on the wire: what `buffer_packets` counts.
pub const PACKET_BYTES: u64 = dctc_core::stats::MSS_BYTES + dctc_core::stats::HEADER_BYTES;

/// Host NIC queue default: Linux's 1000-packet txqueue of 1500 B frames.
pub const DEFAULT_NIC_BUFFER: u64 = 1_500_000;

impl PacketScheme {
    /// `cc` with `tcp` over `switch_queue`, DropTail NICs, ECMP; ECN capability from `cc`.
    pub fn assemble(name: &'static str, tcp: TcpConfig, cc: Cc, switch_queue: QueueSpec) -> Self {
        PacketScheme {
            name,
            label: name.into(),
            tcp: TcpConfig {
                ecn: cc.ecn_capable(),
                ..tcp
            },
            cc,
            switch_queue,
            host_queue: QueueSpec::DropTail,
            lb: LbKind::Ecmp,
            nic_buffer_bytes: DEFAULT_NIC_BUFFER,
            send_jitter: Delta::ZERO,
            switch_buffer_bytes: None,
            lb_params: Default::default(),
            subflows: Vec::new(),
        }
    }

    /// NewReno with `tcp`, DropTail everywhere.
    pub fn newreno(tcp: TcpConfig) -> Self {
        Self::assemble(
            newreno::NAME,
            tcp,
            Cc::NewReno(Default::default()),
            QueueSpec::DropTail,
        )
    }

    /// DCTCP with `tcp` and switch threshold `k_bytes`.
    pub fn dctcp(tcp: TcpConfig, k_bytes: u64) -> Self {
        Self::assemble(
            dctcp::NAME,
            tcp,
            Cc::Dctcp(Default::default()),
            QueueSpec::Ecn { k_bytes },
        )
    }

    /// A fresh congestion controller for one flow.
    #[inline]
    pub fn new_cc(&self) -> Cc {
        self.cc.clone()
    }

    /// A fresh congestion controller for workload flow `flow`, with that flow's parameters
    /// where the scheme has per-flow ones.
    pub fn cc_for_flow(&self, flow: u32) -> Cc {
        let mut cc = self.cc.clone();
        cc.for_flow(flow);
        cc
    }

    /// The switches' ECN marking threshold, if they mark.
    pub fn ecn_k_bytes(&self) -> Option<u64> {
        match self.switch_queue {
            QueueSpec::Ecn { k_bytes } => Some(k_bytes),
            _ => None,
        }
    }
}

/// What a scheme module contributes: its defaults on the transport and queue axes.
#[derive(Clone, Debug, PartialEq)]
pub struct Parts {
    /// Congestion controller (with its parameters).
    pub cc: Cc,
    /// Switch queue discipline; `Ecn` takes its K from the shared key.
    pub queue: QueueName,
    /// The scheme's TCP defaults (its paper's settings), below `[packet].tcp` and the
    /// table's own `tcp`: a key set in either replaces the default.
    pub tcp: TcpKnobs,
}

/// A queue discipline by name, before its parameters are resolved.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QueueName {
    /// `droptail`.
    DropTail,
    /// `ecn`.
    Ecn,
    /// `codel`.
    Codel,
    /// `fq-codel`.
    FqCodel,
    /// `sfqcodel`.
    SfqCodel,
    /// `pfabric`.
    PFabric,
    /// `tfc`, with its parameters (the `tfc` scheme's keys, or the defaults).
    Tfc(TfcParams),
    /// `xcp`, with its router constants.
    Xcp(XcpParams),
    /// `holnet`.
    Holnet,
}

/// The keys every scheme table accepts, as `scheme_config!` adds them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CommonKeys {
    /// A registered scheme name.
    pub name: String,
    /// Name in outputs (default: `name`).
    pub label: Option<String>,
    /// A registered transport replacing the scheme's controller.
    pub transport: Option<String>,
    /// A queue discipline replacing the scheme's switch queue.
    pub queue: Option<String>,
    /// K of the `ecn` queue, bytes.
    pub ecn_k_bytes: Option<u64>,
    /// Load balancer (overrides `[packet]`).
    pub load_balancer: Option<LbKind>,
    /// TCP overrides of `[packet].tcp`.
    pub tcp: TcpKnobs,
    /// The CoDel-family queue keys.
    pub queue_keys: queue_keys::QueueKeys,
    /// Switch buffers in packets of 1500 B, replacing the fabric's.
    pub buffer_packets: Option<i64>,
    /// Host NIC discipline: `droptail` (default) or `switch` (the switch ports' one).
    pub nic_queue: Option<String>,
    /// Flows run as subflows on pinned paths.
    pub subflows: Vec<crate::multipath::SubflowsSpec>,
}

/// Declares a scheme module's `Config`: the shared keys ([`CommonKeys`]) plus the fields
/// given, with `deny_unknown_fields`, so an unknown key is an error naming it.
#[macro_export]
macro_rules! scheme_config {
    ($($(#[$doc:meta])* $field:ident: $ty:ty,)*) => {
        /// This scheme's `[[schemes]]` keys.
        #[derive(Clone, Debug, Default, PartialEq, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Config {
            /// A registered scheme name.
            pub name: String,
            /// Name in outputs (default: `name`).
            #[serde(default)]
            pub label: Option<String>,
            /// A registered transport replacing the scheme's controller.
            #[serde(default)]
            pub transport: Option<String>,
            /// A queue discipline replacing the scheme's switch queue.
            #[serde(default)]
            pub queue: Option<String>,
            /// K of the `ecn` queue, bytes.
            #[serde(default)]
            pub ecn_k_bytes: Option<u64>,
            /// Load balancer (overrides `[packet]`).
            #[serde(default)]
            pub load_balancer: Option<$crate::schemes::LbKind>,
            /// TCP overrides of `[packet].tcp`.
            #[serde(default)]
            pub tcp: $crate::config::TcpKnobs,
            /// CoDel's target (sojourn) in microseconds, positive (default 5).
            #[serde(default)]
            pub codel_target_us: Option<f64>,
            /// CoDel's interval in microseconds, above the target (default 100).
            #[serde(default)]
            pub codel_interval_us: Option<f64>,
            /// CoDel CE-marks ECN-capable packets instead of dropping them (default off).
            #[serde(default)]
            pub codel_ecn: Option<bool>,
            /// Hash buckets of `fq-codel` / `sfqcodel`, 1..=65536 (default 1024).
            #[serde(default)]
            pub fq_buckets: Option<i64>,
            /// DRR quantum of `fq-codel` / `sfqcodel`, bytes, positive (default 1500).
            #[serde(default)]
            pub fq_quantum_bytes: Option<i64>,
            /// Most packets one `fq-codel` overflow drops from the fattest bucket (default 64).
            #[serde(default)]
            pub fq_drop_batch: Option<i64>,
            /// Every switch port's buffer, in 1500 B packets (default: the fabric's buffers).
            #[serde(default)]
            pub buffer_packets: Option<i64>,
            /// Host NICs run `droptail` (default) or the `switch` ports' discipline.
            #[serde(default)]
            pub nic_queue: Option<String>,
            /// Flows run as subflows, each on a path pinned by the source.
            #[serde(default)]
            pub subflows: Vec<$crate::multipath::SubflowsSpec>,
            $($(#[$doc])* #[serde(default)] pub $field: $ty,)*
        }

        impl Config {
            /// The shared keys.
            pub fn common(&self) -> $crate::schemes::CommonKeys {
                $crate::schemes::CommonKeys {
                    name: self.name.clone(),
                    label: self.label.clone(),
                    transport: self.transport.clone(),
                    queue: self.queue.clone(),
                    ecn_k_bytes: self.ecn_k_bytes,
                    load_balancer: self.load_balancer,
                    tcp: self.tcp.clone(),
                    queue_keys: $crate::schemes::queue_keys::QueueKeys {
                        codel_target_us: self.codel_target_us,
                        codel_interval_us: self.codel_interval_us,
                        codel_ecn: self.codel_ecn,
                        fq_buckets: self.fq_buckets,
                        fq_quantum_bytes: self.fq_quantum_bytes,
                        fq_drop_batch: self.fq_drop_batch,
                    },
                    buffer_packets: self.buffer_packets,
                    nic_queue: self.nic_queue.clone(),
                    subflows: self.subflows.clone(),
                }
            }
        }
    };
}

/// Registers scheme modules, one line each: `module,` for `schemes/<module>.rs`, which
/// defines `NAME`, `ABOUT`, `Config` (by `scheme_config!`) and
/// `parts(&Config, &Context) -> Result<Parts, KeyError>`.
macro_rules! schemes {
    ($($(#[$doc:meta])* $m:ident,)*) => {
        $($(#[$doc])* pub mod $m;)*

        /// Registered schemes: name, one-line description (for `dctc list`).
        pub const SCHEMES: &[(&str, &str)] = &[$(($m::NAME, $m::ABOUT),)*];

        /// Parses and validates the table of scheme `name`: its shared keys, its `parts`, and
        /// its name as written to outputs. `None` if no scheme has that name.
        fn parse_named(
            name: &str,
            table: &impl ParseTable,
            ctx: &Context,
        ) -> Option<Result<(CommonKeys, Parts, &'static str), KeyError>> {
            $(if name == $m::NAME {
                return Some(table.parse::<$m::Config>().and_then(|cfg| {
                    let parts = $m::parts(&cfg, ctx)?;
                    Ok((cfg.common(), parts, $m::NAME))
                }));
            })*
            None
        }
    };
}

schemes! {
    /// TCP NewReno over DropTail.
    newreno,
    /// DCTCP over an ECN threshold.
    dctcp,
    /// CUBIC over DropTail.
    cubic,
    /// NewReno over CoDel.
    codel,
    /// FQ-CoDel with NewReno.
    fq_codel,
    /// CUBIC over sfqCoDel.
    sfqcodel_cubic,
    /// pFabric: priority queues and minimal rate control.
    pfabric,
    /// TFC: token flow control at switch ports, RM-marking hosts.
    tfc,
    /// XCP senders over XCP routers.
    xcp,
    /// HOLNET-UTA over HOLNET's congestion-marking queues.
    holnet_uta,
    /// Flowtune: allocator node, paced endpoints.
    flowtune,
    /// HOLNET CC / CC-CoS.
    holnet_cc,
    /// HOLNET MCC.
    holnet_mcc,
    /// MPTCP (LIA).
    mptcp,
}

pub mod queue_keys;

/// What a scheme's `parts` may read besides its own keys.
pub struct Context<'a> {
    /// `[packet]` defaults.
    pub settings: &'a PacketSettings,
    /// The fabric.
    pub topo: &'a Topology,
    /// Where the table sits (`schemes[1]`), to prefix error paths.
    pub key: &'a str,
}

impl Context<'_> {
    /// An error at `<key>.<field>`.
    pub fn error(&self, field: &str, reason: impl Into<String>) -> KeyError {
        KeyError::new(format!("{}.{field}", self.key), reason)
    }
}

/// Just the `name` key (the rest is read once the scheme is known).
#[derive(serde::Deserialize)]
struct NameOnly {
    name: String,
}

/// Resolves one `[[schemes]]` table; `key` (e.g. `schemes[1]`) prefixes error paths.
pub fn resolve_scheme(
    table: &impl ParseTable,
    settings: &PacketSettings,
    topo: &Topology,
    key: &str,
) -> Result<PacketScheme, KeyError> {
    let NameOnly { name } = table.parse()?;
    let ctx = Context {
        settings,
        topo,
        key,
    };
    let (common, parts, name) = parse_named(&name, table, &ctx).unwrap_or_else(|| {
        let names: Vec<&str> = SCHEMES.iter().map(|s| s.0).collect();
        Err(ctx.error("name", unknown_name("scheme", &name, &names)))
    })?;
    let switch_buffer = match common.buffer_packets {
        None => None,
        Some(n) if (1..=1_000_000_000).contains(&n) => Some(n as u64 * PACKET_BYTES),
        Some(n) => {
            return Err(ctx.error(
                "buffer_packets",
                format!("must be at least one 1500 B packet, got {n}"),
            ))
        }
    };
    let buffer = switch_buffer.unwrap_or_else(|| smallest_switch_buffer(topo));
    // Scheme defaults, then `[packet].tcp`, then the table's `tcp`.
    let knobs = parts
        .tcp
        .overridden_by(&settings.tcp)
        .overridden_by(&common.tcp);
    let tcp = knobs.resolve(buffer, &format!("{key}.tcp"))?;
    let cc = match &common.transport {
        None => parts.cc,
        Some(t) => Cc::from_name(t).ok_or_else(|| {
            let names: Vec<&str> = TRANSPORTS.iter().map(|s| s.0).collect();
            ctx.error("transport", unknown_name("transport", t, &names))
        })?,
    };
    let queue = match common.queue.as_deref() {
        None => parts.queue,
        Some("droptail") => QueueName::DropTail,
        Some("ecn") => QueueName::Ecn,
        Some("codel") => QueueName::Codel,
        Some("fq-codel") => QueueName::FqCodel,
        Some("sfqcodel") => QueueName::SfqCodel,
        Some("pfabric") => QueueName::PFabric,
        Some("tfc") => QueueName::Tfc(match parts.queue {
            QueueName::Tfc(p) => p,
            _ => TfcParams::default(),
        }),
        Some("xcp") => QueueName::Xcp(XcpParams::default()),
        Some("holnet") => QueueName::Holnet,
        Some(q) => {
            let names: Vec<&str> = QUEUES.iter().map(|s| s.0).collect();
            return Err(ctx.error("queue", unknown_name("queue", q, &names)));
        }
    };
    if matches!(
        queue,
        QueueName::DropTail
            | QueueName::Ecn
            | QueueName::Tfc(_)
            | QueueName::Xcp(_)
            | QueueName::Holnet
    ) {
        queue_keys::refuse_all(queue, &common.queue_keys, &ctx)?;
    }
    let switch_queue = match queue {
        QueueName::Xcp(p) => {
            if common.ecn_k_bytes.is_some() {
                return Err(ctx.error(
                    "ecn_k_bytes",
                    format!(
                        "`{name}` runs on XCP routers; ecn_k_bytes applies to the `ecn` queue only"
                    ),
                ));
            }
            QueueSpec::Xcp(p)
        }
        QueueName::Codel | QueueName::FqCodel | QueueName::SfqCodel | QueueName::PFabric => {
            if common.ecn_k_bytes.is_some() {
                return Err(ctx.error(
                    "ecn_k_bytes",
                    format!(
                        "`{name}` runs on `{}` switch queues; ecn_k_bytes applies to the `ecn` queue only",
                        queue_keys::queue_name(queue)
                    ),
                ));
            }
            queue_keys::resolve(queue, &common.queue_keys, buffer, &ctx)?
        }
        QueueName::Holnet => {
            if common.ecn_k_bytes.is_some() {
                return Err(ctx.error(
                    "ecn_k_bytes",
                    format!("`{name}` runs on `holnet` switch queues; ecn_k_bytes applies to the `ecn` queue only"),
                ));
            }
            QueueSpec::Holnet
        }
        QueueName::DropTail => {
            if common.ecn_k_bytes.is_some() {
                return Err(ctx.error(
                    "ecn_k_bytes",
                    format!(
                        "`{name}` runs on DropTail switch queues; ecn_k_bytes applies to the `ecn` queue only"
                    ),
                ));
            }
            QueueSpec::DropTail
        }
        QueueName::Tfc(p) => {
            if common.ecn_k_bytes.is_some() {
                return Err(ctx.error(
                    "ecn_k_bytes",
                    format!("`{name}` runs on TFC switch queues; ecn_k_bytes applies to the `ecn` queue only"),
                ));
            }
            QueueSpec::Tfc(TfcParams {
                mss: tcp.mss,
                header: tcp.header,
                ..p
            })
        }
        QueueName::Ecn => {
            let host_rate = topo
                .hosts()
                .first()
                .and_then(|&h| topo.host_rate(h))
                .unwrap_or(Rate::gbps(10));
            let k = common
                .ecn_k_bytes
                .or(settings.ecn_k_bytes)
                .unwrap_or_else(|| default_ecn_k(host_rate));
            if k == 0 {
                return Err(ctx.error("ecn_k_bytes", "must be positive"));
            }
            QueueSpec::Ecn { k_bytes: k }
        }
    };
    let mut s = PacketScheme::assemble(name, tcp, cc, switch_queue);
    if let QueueSpec::Tfc(p) = switch_queue {
        // TFC's delay arbiter also runs where ACKs leave a receiving host (see queue::tfc).
        s.host_queue = QueueSpec::Tfc(p.host_nic());
    }
    if let QueueSpec::Xcp(p) = switch_queue {
        // XCP controls every link it crosses, host NICs included (one sender's flows share it).
        s.host_queue = QueueSpec::Xcp(p);
    }
    s.label = common.label.clone().unwrap_or_else(|| name.to_string());
    s.lb = common
        .load_balancer
        .or(settings.load_balancer)
        .unwrap_or_default();
    s.lb_params = crate::lb::LbParams::resolve(
        settings.drill.as_ref(),
        settings.percentage_lb.as_ref(),
        topo,
    )?;
    s.nic_buffer_bytes = settings.nic_buffer_bytes.unwrap_or(DEFAULT_NIC_BUFFER);
    s.switch_buffer_bytes = switch_buffer;
    match common.nic_queue.as_deref() {
        None | Some("droptail") => {}
        Some("switch") => {
            // Every port runs the scheme's discipline, hosts' too (as the ns-2 setups of
            // pFabric and the FQ-CoDel paper do), with the switches' buffer.
            s.host_queue = s.switch_queue;
            if settings.nic_buffer_bytes.is_none() {
                s.nic_buffer_bytes = buffer;
            }
        }
        Some(q) => {
            return Err(ctx.error(
                "nic_queue",
                unknown_name("NIC queue", q, &["droptail", "switch"]),
            ));
        }
    }
    s.subflows = crate::multipath::resolve(&common.subflows, topo, key)?;
    s.send_jitter = match settings.send_jitter_us {
        None => Delta::ZERO,
        Some(us) => dctc_core::units::checked::span_us(
            "packet.send_jitter_us",
            us,
            dctc_core::units::checked::SpanRule::zero_or_more(Delta::from_ms(1000)),
        )?,
    };
    if s.nic_buffer_bytes < 1500 {
        return Err(KeyError::new(
            "packet.nic_buffer_bytes",
            "must hold at least one 1500 B packet",
        ));
    }
    Ok(s)
}

#[cfg(test)]
mod tests;
