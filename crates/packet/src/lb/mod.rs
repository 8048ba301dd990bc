//! Load balancers: which of the equal-cost next hops a packet takes at a node. One file per
//! balancer; [`Balancer`] is the closed set the engine dispatches on. A balancer sees the
//! packet and the live queue length of each candidate port, so queue-aware per-packet schemes
//! (DRILL, HOLNET's percentage balancer) and flowlet schemes (CONGA) fit the same hook.

pub use drill::{Drill, DrillParams};
pub use ecmp::Ecmp;
pub use percentage::{Percentage, PercentageParams};
pub use spray::Spray;

use crate::keys::{Keys, ParseTable};
use crate::packet::Packet;
use dctc_core::error::KeyError;
use dctc_core::ids::{LinkId, NodeId};
use dctc_core::routing::Routing;
use dctc_core::topology::Topology;
use dctc_core::units::{Delta, SimTime};

/// What a balancer's periodic update reads of one port.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PortLoad {
    /// Bytes waiting or being serialized.
    pub backlog: u64,
    /// The port's buffer, bytes.
    pub buffer: u64,
}

/// Picks one of the candidate next hops.
pub trait LoadBalancer {
    /// Index into `candidates` (non-empty, equal-cost next hops of `at` toward `pkt.dst`);
    /// `queue_bytes(link)` is the live backlog of a candidate's port.
    fn pick(
        &mut self,
        at: NodeId,
        pkt: &Packet,
        candidates: &[LinkId],
        queue_bytes: &dyn Fn(LinkId) -> u64,
    ) -> usize;

    /// Whether [`LoadBalancer::pick`] reads `queue_bytes` (DRILL): the engine then settles
    /// the candidates' ports before each pick. False by default.
    fn reads_backlog(&self) -> bool {
        false
    }

    /// How often [`LoadBalancer::on_update`] runs (`None`: never; the default).
    fn update_period(&self) -> Option<Delta> {
        None
    }

    /// A periodic update (HOLNET's percentage balancer): `ports(link)` is any port's load now.
    fn on_update(&mut self, _now: SimTime, _ports: &dyn Fn(LinkId) -> PortLoad) {}
}

/// A load balancer as a registered unit.
///
/// Its module (`lb/<name>.rs`) declares the balancer, its `[packet]` keys and this impl;
/// one line of `balancers!` registers it: that line declares the module, the
/// [`LbKind`] and [`Balancer`] variants, the dispatch, the `load_balancer = "<name>"` value
/// scheme tables and `[packet]` accept, the `[packet]` keys the table hands it, and its
/// `dctc list` row ([`LOAD_BALANCERS`]).
pub trait BalancerUnit: LoadBalancer + Sized {
    /// Its name: `load_balancer = "<NAME>"`, `dctc list`.
    const NAME: &'static str;
    /// One line for `dctc list`.
    const ABOUT: &'static str;
    /// Its `[packet]` keys: a balancer with parameters owns one sub-table (`drill = { ...
    /// }`), made by [`unit_keys!`](crate::unit_keys).
    type Keys: Keys;
    /// Its checked parameters.
    type Params: Clone + std::fmt::Debug + Default + PartialEq;
    /// Checks its keys on `topo` (errors at `packet.<key>`). Every balancer's keys are
    /// checked, whichever the schemes run.
    fn resolve(keys: &Self::Keys, topo: &Topology) -> Result<Self::Params, KeyError>;
    /// The balancer of one run.
    fn build(params: &Self::Params, ctx: &Build) -> Result<Self, String>;
}

/// What a balancer is built on.
pub struct Build<'a> {
    /// The fabric.
    pub topo: &'a Topology,
    /// Its routes.
    pub routing: &'a Routing,
    /// The run's seed.
    pub seed: u64,
}

/// Registers the balancers, one line each: `Variant(module::Type)` for `lb/<module>.rs`,
/// whose `Type` implements [`BalancerUnit`].
macro_rules! balancers {
    ($($(#[$doc:meta])* $v:ident($m:ident::$t:ident),)*) => {
        $(pub mod $m;)*

        /// Which load balancer the switches run.
        #[derive(Copy, Clone, Debug, PartialEq, Eq)]
        pub enum LbKind {
            $($(#[$doc])* $v,)*
        }

        /// The balancers this build knows.
        #[derive(Debug, Clone)]
        pub enum Balancer {
            $($(#[$doc])* $v($m::$t),)*
        }

        /// Load balancers a scheme (or `[packet]`) may name with `load_balancer = "..."`:
        /// name, description.
        pub const LOAD_BALANCERS: &[(&str, &str)] = &[
            $((<$m::$t as BalancerUnit>::NAME, <$m::$t as BalancerUnit>::ABOUT),)*
        ];

        /// The names of [`LOAD_BALANCERS`].
        const LB_NAMES: &[&str] = &[$(<$m::$t as BalancerUnit>::NAME,)*];

        /// Every balancer's `[packet]` keys.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct LbKeys {
            $(
                #[doc = concat!("The `", stringify!($m), "` balancer's.")]
                pub $m: <$m::$t as BalancerUnit>::Keys,
            )*
        }

        /// Every balancer's checked parameters.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct LbParams {
            $(
                #[doc = concat!("The `", stringify!($m), "` balancer's.")]
                pub $m: <$m::$t as BalancerUnit>::Params,
            )*
        }

        impl LbKeys {
            /// Every balancer's keys in `table`.
            pub fn read(table: &impl ParseTable) -> Result<LbKeys, KeyError> {
                Ok(LbKeys { $($m: Keys::read(table)?,)* })
            }

            /// Every balancer's `[packet]` keys as JSON Schemas, one per balancer.
            pub fn schemas(generator: &mut schemars::SchemaGenerator) -> Vec<schemars::Schema> {
                vec![$(<<$m::$t as BalancerUnit>::Keys as Keys>::schema(generator),)*]
            }

            /// Every balancer's key names.
            pub fn names() -> Vec<&'static str> {
                let mut v = Vec::new();
                $(v.extend(<<$m::$t as BalancerUnit>::Keys as Keys>::names());)*
                v
            }
        }

        impl LbParams {
            /// Every balancer's keys checked on `topo`.
            pub fn resolve(keys: &LbKeys, topo: &Topology) -> Result<LbParams, KeyError> {
                Ok(LbParams { $($m: <$m::$t as BalancerUnit>::resolve(&keys.$m, topo)?,)* })
            }
        }

        impl LbKind {
            /// The balancer named `name`.
            pub fn from_name(name: &str) -> Option<LbKind> {
                $(if name == <$m::$t as BalancerUnit>::NAME {
                    return Some(LbKind::$v);
                })*
                None
            }

            /// Its name in [`LOAD_BALANCERS`].
            pub fn name(&self) -> &'static str {
                match self {
                    $(LbKind::$v => <$m::$t as BalancerUnit>::NAME,)*
                }
            }

            /// This balancer of one run, with its parameters of `params`.
            pub fn build(&self, params: &LbParams, ctx: &Build) -> Result<Balancer, String> {
                Ok(match self {
                    $(LbKind::$v => Balancer::$v(<$m::$t as BalancerUnit>::build(&params.$m, ctx)?),)*
                })
            }
        }

        impl Balancer {
            /// [`LoadBalancer::pick`] of the balancers other than ECMP, out of line: ECMP's
            /// hash is the common per-hop case and inlines into the forwarding path, which
            /// these would bloat.
            #[inline(never)]
            fn pick_other(
                &mut self,
                at: NodeId,
                pkt: &Packet,
                candidates: &[LinkId],
                queue_bytes: &dyn Fn(LinkId) -> u64,
            ) -> usize {
                match self {
                    $(Balancer::$v(b) => b.pick(at, pkt, candidates, queue_bytes),)*
                }
            }
        }

        impl LoadBalancer for Balancer {
            #[inline]
            fn pick(
                &mut self,
                at: NodeId,
                pkt: &Packet,
                candidates: &[LinkId],
                queue_bytes: &dyn Fn(LinkId) -> u64,
            ) -> usize {
                match self {
                    Balancer::Ecmp(b) => b.pick(at, pkt, candidates, queue_bytes),
                    _ => self.pick_other(at, pkt, candidates, queue_bytes),
                }
            }

            fn reads_backlog(&self) -> bool {
                match self {
                    $(Balancer::$v(b) => b.reads_backlog(),)*
                }
            }

            fn update_period(&self) -> Option<Delta> {
                match self {
                    $(Balancer::$v(b) => b.update_period(),)*
                }
            }

            fn on_update(&mut self, now: SimTime, ports: &dyn Fn(LinkId) -> PortLoad) {
                match self {
                    $(Balancer::$v(b) => b.on_update(now, ports),)*
                }
            }
        }
    };
}

balancers! {
    /// Per-flow ECMP hashing (the default).
    Ecmp(ecmp::Ecmp),
    /// Per-packet round robin.
    Spray(spray::Spray),
    /// DRILL(d, m) at every switch (`[packet].drill`).
    Drill(drill::Drill),
    /// HOLNET's percentage balancers at the leaves (`[packet].percentage_lb`).
    HolnetPercentage(percentage::Percentage),
}

impl Default for LbKind {
    /// ECMP, whose per-hop pick the forwarding path inlines.
    fn default() -> Self {
        LbKind::Ecmp
    }
}

/// `load_balancer`: one of the registered names.
impl schemars::JsonSchema for LbKind {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LbKind".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "enum": LB_NAMES})
    }
}

impl<'de> serde::Deserialize<'de> for LbKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        LbKind::from_name(&name).ok_or_else(|| serde::de::Error::unknown_variant(&name, LB_NAMES))
    }
}

#[cfg(test)]
mod tests;
