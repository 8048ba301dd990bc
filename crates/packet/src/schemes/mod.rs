//! Schemes: one module each, assembled from parts.
//!
//! A scheme module (`schemes/<name>.rs`) holds its own `[[schemes]]` keys as a
//! `deny_unknown_fields` config (made by `scheme_config!`), its one-line description, and
//! `parts`, which validates the config and names the scheme's congestion controller, its
//! switch queue discipline and its TCP defaults. One line of `schemes!` below registers a
//! module: it generates the name lookup, the `dctc list` row ([`SCHEMES`]) and the name
//! written to outputs ([`PacketScheme::name`]).
//!
//! A scheme table is read by the parts it assembles, each taking the keys it owns: the
//! keys every scheme shares ([`CommonKeys`]), the scheme module's own, and its switch
//! queue discipline's (`crate::queue`, e.g. `codel_target_us` for CoDel). A key none of
//! them owns is refused, naming the part that would own it. Queue discipline and transport
//! are separate axes: every scheme table may name `transport = "<controller>"` (see
//! [`crate::transport::TRANSPORTS`]) and `queue = "<discipline>"` (see
//! [`crate::queue::QUEUES`]) to replace the scheme's defaults, so "DCTCP over DropTail" is
//! `name = "dctcp", queue = "droptail"`. ECN capability follows the transport.
//!
//! TCP settings layer: the scheme's defaults ([`Parts::tcp`], its paper's tuning), then
//! `[packet].tcp`, then the table's own `tcp`. Queue keys layer the same way: `[packet]`
//! may set any discipline's key for every scheme whose queue uses it.

use crate::config::{smallest_switch_buffer, PacketSettings, TcpKnobs};
use crate::keys::{refuse_unowned, At, ParseTable};
use crate::lb::LbKind;
use crate::multipath::SubflowsSpec;
use crate::queue::{self, QueueSpec, QUEUES};
use crate::sim::PacketScheme;
use crate::transport::{Cc, TcpConfig, TRANSPORTS};
use dctc_core::error::{unknown_name, KeyError};
use dctc_core::topology::Topology;
use dctc_core::units::Rate;

/// What a scheme module contributes: its defaults on the transport and queue axes.
#[derive(Clone, Debug, PartialEq)]
pub struct Parts {
    /// Congestion controller (with its parameters).
    pub cc: Cc,
    /// Switch queue discipline, by name (`<Params as Discipline>::NAME`); its parameters
    /// come from its own keys.
    pub queue: &'static str,
    /// The scheme's TCP defaults (its paper's settings), below `[packet].tcp` and the
    /// table's own `tcp`: a key set in either replaces the default.
    pub tcp: TcpKnobs,
    /// The scheme's design runs its switch discipline at host NICs too, so `nic_queue`
    /// defaults to `"switch"` (pFabric: §4.1 and its ns-2 setup put the priority queue, with
    /// the switches' small buffer, on every port); otherwise `"droptail"`.
    pub nic_switch: bool,
}

/// The keys every scheme table accepts.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommonKeys {
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
    /// Load balancer (overrides `[packet]`).
    #[serde(default)]
    pub load_balancer: Option<LbKind>,
    /// TCP overrides of `[packet].tcp`.
    #[serde(default)]
    pub tcp: TcpKnobs,
    /// Every switch port's buffer, in 1500 B packets (default: the fabric's buffers).
    #[serde(default)]
    pub buffer_packets: Option<i64>,
    /// Host NICs run the discipline's NIC rule (`droptail`: DropTail unless the discipline
    /// must act there) or the `switch` ports' discipline with the switches' buffer, as the
    /// ns-2 setups of pFabric and the FQ-CoDel paper do. Default: `switch` for a scheme whose
    /// design puts its discipline at hosts ([`Parts::nic_switch`]: pFabric), else `droptail`.
    #[serde(default)]
    pub nic_queue: Option<String>,
    /// Flows run as subflows, each on a path pinned by the source (see
    /// [`crate::multipath`]).
    #[serde(default)]
    pub subflows: Vec<SubflowsSpec>,
}

impl CommonKeys {
    /// The key names.
    pub const KEYS: &'static [&'static str] = &[
        "name",
        "label",
        "transport",
        "queue",
        "load_balancer",
        "tcp",
        "buffer_packets",
        "nic_queue",
        "subflows",
    ];
}

/// Declares a scheme module's `Config`: its own keys (besides [`CommonKeys`]), with
/// `deny_unknown_fields`, and their names.
#[macro_export]
macro_rules! scheme_config {
    ($($(#[$doc:meta])* $field:ident: $ty:ty,)*) => {
        /// This scheme's own `[[schemes]]` keys.
        #[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct Config {
            $($(#[$doc])* #[serde(default)] pub $field: $ty,)*
        }

        impl Config {
            /// The key names.
            pub const KEYS: &'static [&'static str] = &[$(stringify!($field)),*];
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

        /// Every scheme's name and own keys.
        fn scheme_keys() -> Vec<(&'static str, &'static [&'static str])> {
            vec![$(($m::NAME, $m::Config::KEYS),)*]
        }

        /// Every scheme's name and the JSON Schema of its own keys (its `Config`).
        pub fn scheme_schemas(
            generator: &mut schemars::SchemaGenerator,
        ) -> Vec<(&'static str, schemars::Schema)> {
            vec![$(($m::NAME, generator.subschema_for::<$m::Config>()),)*]
        }

        /// Parses and validates the own keys of scheme `name` and its `parts`; with its name
        /// as written to outputs and its key names. `None` if no scheme has that name.
        fn parse_named(
            name: &str,
            table: &impl ParseTable,
            ctx: &Context,
        ) -> Option<Result<(Parts, &'static str, &'static [&'static str]), KeyError>> {
            $(if name == $m::NAME {
                let cfg = table.parse_keys::<$m::Config>($m::Config::KEYS);
                return Some(cfg.and_then(|cfg| Ok(($m::parts(&cfg, ctx)?, $m::NAME, $m::Config::KEYS))));
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
        At(self.key).error(field, reason)
    }

    /// Where the table sits, for the shared value checks (`ctx.at().number(...)`).
    pub fn at(&self) -> At<'_> {
        At(self.key)
    }
}

/// Bytes of one full packet on the wire: what `buffer_packets` counts.
pub const PACKET_BYTES: u64 = dctc_core::stats::MSS_BYTES + dctc_core::stats::HEADER_BYTES;

impl PacketScheme {
    /// NewReno with `tcp`, DropTail everywhere.
    pub fn newreno(tcp: TcpConfig) -> Self {
        let q = QueueSpec::DropTail(queue::droptail::DropTailParams);
        Self::assemble(newreno::NAME, tcp, Cc::NewReno(Default::default()), q)
    }

    /// DCTCP with `tcp` and switch threshold `k_bytes`.
    pub fn dctcp(tcp: TcpConfig, k_bytes: u64) -> Self {
        let q = QueueSpec::Ecn(queue::ecn::EcnParams { k_bytes });
        Self::assemble(dctcp::NAME, tcp, Cc::Dctcp(Default::default()), q)
    }
}

/// Resolves one `[[schemes]]` table; `key` (e.g. `schemes[1]`) prefixes error paths.
pub fn resolve_scheme(
    table: &impl ParseTable,
    settings: &PacketSettings,
    topo: &Topology,
    key: &str,
) -> Result<PacketScheme, KeyError> {
    let at = At(key);
    let common: CommonKeys = table.parse_keys(CommonKeys::KEYS)?;
    let ctx = Context {
        settings,
        topo,
        key,
    };
    let (parts, name, own) = parse_named(&common.name, table, &ctx).unwrap_or_else(|| {
        let names: Vec<&str> = SCHEMES.iter().map(|s| s.0).collect();
        Err(at.error("name", unknown_name("scheme", &common.name, &names)))
    })?;
    let queue = common.queue.as_deref().unwrap_or(parts.queue);
    refuse_unowned_keys(table, at, name, own, queue)?;
    let switch_buffer = match common.buffer_packets {
        None => None,
        Some(n) if (1..=1_000_000_000).contains(&n) => Some(n as u64 * PACKET_BYTES),
        Some(n) => {
            let reason = format!("must be at least one 1500 B packet, got {n}");
            return Err(at.error("buffer_packets", reason));
        }
    };
    let buffer = switch_buffer.unwrap_or_else(|| smallest_switch_buffer(topo));
    // Scheme defaults, then `[packet].tcp`, then the table's `tcp`.
    let knobs = parts.tcp.overridden_by(&settings.tcp);
    let tcp = knobs
        .overridden_by(&common.tcp)
        .resolve(buffer, &format!("{key}.tcp"))?;
    let cc = match &common.transport {
        None => parts.cc,
        Some(t) => Cc::from_name(t).ok_or_else(|| {
            let names: Vec<&str> = TRANSPORTS.iter().map(|s| s.0).collect();
            at.error("transport", unknown_name("transport", t, &names))
        })?,
    };
    let host_rate = topo.hosts().first().and_then(|&h| topo.host_rate(h));
    let qctx = queue::Context {
        at,
        buffer_bytes: buffer,
        mss: tcp.mss,
        header: tcp.header,
        host_rate: host_rate.unwrap_or(Rate::gbps(10)),
    };
    let switch_queue = QueueSpec::resolve(queue, table, &settings.queues, &qctx)
        .expect("refuse_unowned_keys checked the name")?;
    let mut s = PacketScheme::assemble(name, tcp, cc, switch_queue);
    s.label = common.label.unwrap_or_else(|| name.to_string());
    s.lb = common
        .load_balancer
        .or(settings.load_balancer)
        .unwrap_or_default();
    s.lb_params = settings.lb_params.clone();
    s.nic_buffer_bytes = settings
        .nic_buffer_bytes
        .unwrap_or(crate::sim::DEFAULT_NIC_BUFFER);
    s.switch_buffer_bytes = switch_buffer;
    s.send_jitter = settings.send_jitter;
    let nic_default = if parts.nic_switch {
        "switch"
    } else {
        "droptail"
    };
    match common.nic_queue.as_deref().unwrap_or(nic_default) {
        "droptail" => {}
        "switch" => {
            // Every port runs the scheme's discipline, hosts' too (as the ns-2 setups of
            // pFabric and the FQ-CoDel paper do), with the switches' buffer.
            s.host_queue = s.switch_queue;
            if settings.nic_buffer_bytes.is_none() {
                s.nic_buffer_bytes = buffer;
            }
        }
        q => {
            let reason = unknown_name("NIC queue", q, &["droptail", "switch"]);
            return Err(at.error("nic_queue", reason));
        }
    }
    s.subflows = crate::multipath::resolve(&common.subflows, topo, key)?;
    Ok(s)
}

/// Refuses an unknown `queue` name, and any key of `table` that neither every scheme, the
/// scheme `name` (whose own keys are `own`) nor its switch queue `queue` owns.
fn refuse_unowned_keys(
    table: &impl ParseTable,
    at: At,
    name: &str,
    own: &[&'static str],
    queue: &str,
) -> Result<(), KeyError> {
    let queues = QueueSpec::keys();
    let Some((_, queue_keys)) = queues.iter().find(|q| q.0 == queue) else {
        let names: Vec<&str> = QUEUES.iter().map(|q| q.0).collect();
        return Err(at.error("queue", unknown_name("queue", queue, &names)));
    };
    let valid: Vec<&str> = [CommonKeys::KEYS, own, queue_keys].concat();
    let mut others: Vec<(String, Vec<&'static str>)> = queues
        .iter()
        .map(|(q, keys)| (format!("the `{q}` queue (queue = \"{q}\")"), keys.clone()))
        .collect();
    others.extend(
        scheme_keys()
            .into_iter()
            .map(|(n, keys)| (format!("scheme `{n}`"), keys.to_vec())),
    );
    let runs = format!("scheme `{name}` or its `{queue}` switch queue");
    refuse_unowned(at, &table.keys(), &valid, &runs, &others)
}

#[cfg(test)]
mod tests;
