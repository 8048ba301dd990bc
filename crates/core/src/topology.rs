//! A fabric as a graph of nodes joined by directed links.
//!
//! Every physical cable is two [`Link`]s, one per direction, each with its own output queue
//! (rate, propagation delay, buffer). Hosts are numbered densely in the order they were added;
//! `host_index` maps a host's [`NodeId`] back to that number.

use crate::ids::{LinkId, NodeId};
use crate::units::{Delta, Rate};
use serde::Serialize;
use thiserror::Error;

/// What a node is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeKind {
    /// An end host with one or more NICs.
    Host,
    /// A switch; `tier` 1 is the edge (leaf / ToR), higher tiers are closer to the core.
    Switch {
        /// 1 = leaf / edge, 2 = spine / aggregation, 3 = core.
        tier: u8,
    },
    /// A non-host endpoint such as Flowtune's allocator.
    Controller,
}

/// A node of the fabric.
#[derive(Clone, Debug, Serialize)]
pub struct Node {
    /// Host, switch or controller.
    pub kind: NodeKind,
    /// A readable, unique name (`h3`, `leaf0`, `spine2`, ...).
    pub name: String,
}

/// One direction of a cable, with the output queue that feeds it.
#[derive(Clone, Debug, Serialize)]
pub struct Link {
    /// The node whose output port this is.
    pub from: NodeId,
    /// The node at the far end.
    pub to: NodeId,
    /// Line rate.
    pub rate: Rate,
    /// Propagation delay.
    pub delay: Delta,
    /// Output buffer of the port feeding this link, in bytes.
    pub buffer_bytes: u64,
    /// The link in the other direction of the same cable.
    pub reverse: LinkId,
}

/// Why a fabric cannot be built.
#[derive(Debug, Error, PartialEq)]
pub enum TopologyError {
    /// A parameter is out of range.
    #[error("{key}: {reason}")]
    Invalid {
        /// The parameter.
        key: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Two nodes share a name.
    #[error("node name `{0}` is used twice")]
    DuplicateName(String),
    /// A link names a node that does not exist.
    #[error("link {index}: unknown node `{name}`")]
    UnknownNode {
        /// Position of the link in the file.
        index: usize,
        /// The name that matched no node.
        name: String,
    },
    /// Some pair of hosts has no path.
    #[error("host `{from}` cannot reach host `{to}`")]
    Disconnected {
        /// Source host name.
        from: String,
        /// Destination host name.
        to: String,
    },
    /// The fabric file could not be read or parsed.
    #[error("{0}")]
    File(String),
}

impl From<crate::error::KeyError> for TopologyError {
    fn from(e: crate::error::KeyError) -> Self {
        TopologyError::Invalid {
            key: e.path,
            reason: e.reason,
        }
    }
}

impl TopologyError {
    /// An `Invalid` error for `key`.
    pub fn invalid(key: impl Into<String>, reason: impl Into<String>) -> Self {
        TopologyError::Invalid {
            key: key.into(),
            reason: reason.into(),
        }
    }
}

/// A fabric: nodes, directed links, and which hosts exist.
#[derive(Clone, Debug, Serialize)]
pub struct Topology {
    /// A short name for reports (`leaf-spine 9x16x4`, a preset name, a file name).
    pub name: String,
    nodes: Vec<Node>,
    links: Vec<Link>,
    #[serde(skip)]
    out_links: Vec<Vec<LinkId>>,
    hosts: Vec<NodeId>,
    #[serde(skip)]
    host_index: Vec<Option<u32>>,
    /// Delay a packet spends in a host's stack each time a host sends it (once per one-way
    /// trip). Flowtune's "server delay".
    pub host_delay: Delta,
}

impl Topology {
    /// An empty fabric.
    pub fn new(name: impl Into<String>, host_delay: Delta) -> Self {
        Topology {
            name: name.into(),
            nodes: Vec::new(),
            links: Vec::new(),
            out_links: Vec::new(),
            hosts: Vec::new(),
            host_index: Vec::new(),
            host_delay,
        }
    }

    /// Adds a node and returns its id.
    pub fn add_node(&mut self, kind: NodeKind, name: impl Into<String>) -> NodeId {
        let id = NodeId::from_index(self.nodes.len());
        self.nodes.push(Node {
            kind,
            name: name.into(),
        });
        self.out_links.push(Vec::new());
        if kind == NodeKind::Host {
            self.host_index.push(Some(self.hosts.len() as u32));
            self.hosts.push(id);
        } else {
            self.host_index.push(None);
        }
        id
    }

    /// Adds a cable between `a` and `b`: two directed links with the same rate and delay.
    /// `buffer_a` is the buffer of `a`'s port (feeding `a -> b`), `buffer_b` that of `b`'s.
    /// Returns `(a -> b, b -> a)`.
    pub fn add_cable(
        &mut self,
        a: NodeId,
        b: NodeId,
        rate: Rate,
        delay: Delta,
        buffer_a: u64,
        buffer_b: u64,
    ) -> (LinkId, LinkId) {
        let ab = LinkId::from_index(self.links.len());
        let ba = LinkId::from_index(self.links.len() + 1);
        self.links.push(Link {
            from: a,
            to: b,
            rate,
            delay,
            buffer_bytes: buffer_a,
            reverse: ba,
        });
        self.links.push(Link {
            from: b,
            to: a,
            rate,
            delay,
            buffer_bytes: buffer_b,
            reverse: ab,
        });
        self.out_links[a.index()].push(ab);
        self.out_links[b.index()].push(ba);
        (ab, ba)
    }

    /// All nodes, indexed by [`NodeId`].
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }
    /// One node.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }
    /// All directed links, indexed by [`LinkId`].
    pub fn links(&self) -> &[Link] {
        &self.links
    }
    /// One link.
    pub fn link(&self, id: LinkId) -> &Link {
        &self.links[id.index()]
    }
    /// Links leaving `node`.
    pub fn out_links(&self, node: NodeId) -> &[LinkId] {
        &self.out_links[node.index()]
    }
    /// Hosts in order; a host's position here is its host index.
    pub fn hosts(&self) -> &[NodeId] {
        &self.hosts
    }
    /// The host index of `node`, if it is a host.
    pub fn host_index(&self, node: NodeId) -> Option<usize> {
        self.host_index[node.index()].map(|i| i as usize)
    }
    /// Whether `node` is a host.
    pub fn is_host(&self, node: NodeId) -> bool {
        self.host_index[node.index()].is_some()
    }
    /// The switch a host hangs off (its first NIC's peer): the host's rack for leaf-spine and
    /// fat-tree fabrics.
    pub fn edge_switch(&self, host: NodeId) -> Option<NodeId> {
        self.out_links[host.index()]
            .first()
            .map(|l| self.links[l.index()].to)
    }
    /// The rate of a host's first NIC.
    pub fn host_rate(&self, host: NodeId) -> Option<Rate> {
        self.out_links[host.index()]
            .first()
            .map(|l| self.links[l.index()].rate)
    }
    /// The link from `a` to `b`, if they are adjacent.
    pub fn link_between(&self, a: NodeId, b: NodeId) -> Option<LinkId> {
        self.out_links[a.index()]
            .iter()
            .copied()
            .find(|l| self.links[l.index()].to == b)
    }
    /// Looks a node up by name.
    pub fn node_by_name(&self, name: &str) -> Option<NodeId> {
        self.nodes
            .iter()
            .position(|n| n.name == name)
            .map(NodeId::from_index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cables_make_two_links_that_know_each_other() {
        let mut t = Topology::new("t", Delta::ZERO);
        let h = t.add_node(NodeKind::Host, "h0");
        let s = t.add_node(NodeKind::Switch { tier: 1 }, "s0");
        let (up, down) = t.add_cable(h, s, Rate::gbps(10), Delta::from_us(1), 100, 200);
        assert_eq!(t.link(up).reverse, down);
        assert_eq!(t.link(down).reverse, up);
        assert_eq!(t.link(up).buffer_bytes, 100);
        assert_eq!(t.link(down).buffer_bytes, 200);
        assert_eq!(t.edge_switch(h), Some(s));
        assert_eq!(t.host_index(h), Some(0));
        assert_eq!(t.host_index(s), None);
        assert_eq!(t.link_between(s, h), Some(down));
    }
}
