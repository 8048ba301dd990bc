//! Schemes this engine runs, resolved from scenario settings into engine values.

use crate::transport::{Cc, Dctcp, NewReno, TcpConfig};

/// Registered packet-level schemes: name, one-line description (for `dctc list`).
pub const SCHEMES: &[(&str, &str)] = &[
    (
        "newreno",
        "TCP NewReno (RFC 5681/6582, RFC 6298 RTO) over DropTail switch queues",
    ),
    (
        "dctcp",
        "DCTCP: ECN marks above K at switches, per-window alpha (g = 1/16), cwnd x (1 - alpha/2)",
    ),
];

/// Which transport family a scheme uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SchemeKind {
    /// TCP NewReno, DropTail queues.
    NewReno,
    /// DCTCP, ECN-threshold queues.
    Dctcp,
}

impl SchemeKind {
    /// Looks a registered name up.
    pub fn from_name(name: &str) -> Option<SchemeKind> {
        match name {
            "newreno" => Some(SchemeKind::NewReno),
            "dctcp" => Some(SchemeKind::Dctcp),
            _ => None,
        }
    }
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
}

/// A scheme with every setting resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Scheme {
    /// Transport family.
    pub kind: SchemeKind,
    /// Label in outputs (unique within a scenario).
    pub label: String,
    /// TCP settings.
    pub tcp: TcpConfig,
    /// ECN marking threshold K at switch ports (DCTCP), bytes.
    pub ecn_k_bytes: Option<u64>,
    /// DCTCP's gain g.
    pub dctcp_g: f64,
    /// Load balancer.
    pub lb: LbKind,
    /// Host NIC queue size, bytes.
    pub nic_buffer_bytes: u64,
}

impl Scheme {
    /// NewReno with `tcp`, DropTail everywhere.
    pub fn newreno(tcp: TcpConfig) -> Scheme {
        Scheme {
            kind: SchemeKind::NewReno,
            label: "newreno".into(),
            tcp: TcpConfig { ecn: false, ..tcp },
            ecn_k_bytes: None,
            dctcp_g: 1.0 / 16.0,
            lb: LbKind::Ecmp,
            nic_buffer_bytes: DEFAULT_NIC_BUFFER,
        }
    }

    /// DCTCP with `tcp` and switch threshold `k_bytes`.
    pub fn dctcp(tcp: TcpConfig, k_bytes: u64) -> Scheme {
        Scheme {
            kind: SchemeKind::Dctcp,
            label: "dctcp".into(),
            tcp: TcpConfig { ecn: true, ..tcp },
            ecn_k_bytes: Some(k_bytes),
            dctcp_g: 1.0 / 16.0,
            lb: LbKind::Ecmp,
            nic_buffer_bytes: DEFAULT_NIC_BUFFER,
        }
    }

    /// A fresh congestion controller for one flow.
    pub fn new_cc(&self) -> Cc {
        match self.kind {
            SchemeKind::NewReno => Cc::NewReno(NewReno),
            SchemeKind::Dctcp => Cc::Dctcp(Dctcp::new(self.dctcp_g)),
        }
    }
}

/// Host NIC queue default: Linux's 1000-packet txqueue of 1500 B frames.
pub const DEFAULT_NIC_BUFFER: u64 = 1_500_000;
