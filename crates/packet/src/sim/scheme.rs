//! A scheme with every setting resolved: what one run needs. The scheme modules
//! (`crate::schemes`) resolve a scenario table into one; the simulator builds its ports,
//! balancer and endpoints from it.

use crate::lb::{LbKind, LbParams};
use crate::multipath::SubflowPlan;
use crate::queue::QueueSpec;
use crate::transport::{Cc, CongestionControl, TcpConfig};
use dctc_core::units::Delta;

/// A scheme with every setting resolved.
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
    pub lb_params: LbParams,
    /// Flows run as subflows on pinned paths (the `subflows` key), sorted by flow id.
    pub subflows: Vec<SubflowPlan>,
}

/// Host NIC queue default: Linux's 1000-packet txqueue of 1500 B frames.
pub const DEFAULT_NIC_BUFFER: u64 = 1_500_000;

impl PacketScheme {
    /// `cc` with `tcp` over `switch_queue`, host NICs by the discipline's NIC rule
    /// ([`QueueSpec::host_nic`]: DropTail unless it must act there too), ECMP; ECN
    /// capability from `cc`.
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
            host_queue: switch_queue.host_nic(),
            lb: LbKind::default(),
            nic_buffer_bytes: DEFAULT_NIC_BUFFER,
            send_jitter: Delta::ZERO,
            switch_buffer_bytes: None,
            lb_params: Default::default(),
            subflows: Vec::new(),
        }
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
            QueueSpec::Ecn(p) => Some(p.k_bytes),
            _ => None,
        }
    }
}
