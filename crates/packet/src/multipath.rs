//! Multipath connections: a workload flow run as several subflows, each a TCP connection of
//! its own (own sequence space, window and controller) on a path the source pins, so the
//! path is the scenario's, not an ECMP hash. Any transport may run over subflows (uncoupled
//! subflows are the plain baseline); coupled controllers (MPTCP's LIA, HOLNET's MCC) read
//! the connection's state through [`crate::transport::Coupling`].
//!
//! A scheme table names them with the shared key `subflows`:
//!
//! ```toml
//! subflows = [ { flow = 0, paths = [["h0", "s0", "s1", "h1"], ["h0", "s2", "h1"]] } ]
//! ```
//!
//! Each path lists the nodes from the flow's source host to its destination host, every
//! consecutive pair joined by a link. Data packets follow the path; ACKs return by the
//! fabric's routing. Subflows share one reassembly at the receiver in the sense that the
//! connection's throughput and record are the sum of its subflows'; every subflow is
//! supplied without end, so multipath flows are long-lived (a sized multipath flow, which
//! would need a data scheduler across subflows, is refused).

use dctc_core::error::KeyError;
use dctc_core::ids::LinkId;
use dctc_core::spec::FlowSpec;
use dctc_core::topology::Topology;

/// One `subflows` entry as written.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubflowsSpec {
    /// The workload flow's id (explicit flows are numbered from 0 in the order written).
    pub flow: u32,
    /// One node-name list per subflow, source host first.
    pub paths: Vec<Vec<String>>,
}

/// A flow's subflow paths, resolved to links.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubflowPlan {
    /// The workload flow's id.
    pub flow: u32,
    /// Links of each subflow's path, from the source host to the destination host.
    pub paths: Vec<Vec<LinkId>>,
}

fn err(key: String, reason: impl Into<String>) -> KeyError {
    KeyError::new(key, reason)
}

/// Resolves the `subflows` of the scheme table at `key` on `topo`: every node named, every
/// hop a link, each path from a host to a host; at most one entry per flow. Sorted by flow.
pub fn resolve(
    specs: &[SubflowsSpec],
    topo: &Topology,
    key: &str,
) -> Result<Vec<SubflowPlan>, KeyError> {
    let mut plans: Vec<SubflowPlan> = Vec::with_capacity(specs.len());
    for (i, s) in specs.iter().enumerate() {
        let k = format!("{key}.subflows[{i}]");
        if plans.iter().any(|p| p.flow == s.flow) {
            return Err(err(
                format!("{k}.flow"),
                format!("flow {} has two subflows entries", s.flow),
            ));
        }
        if s.paths.is_empty() {
            return Err(err(format!("{k}.paths"), "list at least one path"));
        }
        let mut paths = Vec::with_capacity(s.paths.len());
        for (j, path) in s.paths.iter().enumerate() {
            let pk = format!("{k}.paths[{j}]");
            if path.len() < 2 {
                return Err(err(pk, "a path names at least two nodes"));
            }
            let mut nodes = Vec::with_capacity(path.len());
            for name in path {
                let n = topo
                    .node_by_name(name)
                    .ok_or_else(|| err(pk.clone(), format!("no node `{name}` in the fabric")))?;
                nodes.push(n);
            }
            for (end, n) in [("first", nodes[0]), ("last", nodes[nodes.len() - 1])] {
                if !topo.is_host(n) {
                    return Err(err(
                        pk,
                        format!("the {end} node `{}` is not a host", topo.node(n).name),
                    ));
                }
            }
            let mut links = Vec::with_capacity(nodes.len() - 1);
            for w in nodes.windows(2) {
                let l = topo.link_between(w[0], w[1]).ok_or_else(|| {
                    err(
                        pk.clone(),
                        format!(
                            "no link from `{}` to `{}`: the path does not connect its endpoints",
                            topo.node(w[0]).name,
                            topo.node(w[1]).name
                        ),
                    )
                })?;
                links.push(l);
            }
            if nodes[1..nodes.len() - 1].iter().any(|&n| topo.is_host(n)) {
                return Err(err(pk, "a path passes through a host"));
            }
            paths.push(links);
        }
        plans.push(SubflowPlan {
            flow: s.flow,
            paths,
        });
    }
    plans.sort_by_key(|p| p.flow);
    Ok(plans)
}

/// Checks `plans` (of the scheme table at `key`) against the workload: each names a
/// long-lived flow whose source and destination its paths join.
pub fn check_endpoints(
    plans: &[SubflowPlan],
    flows: &[FlowSpec],
    topo: &Topology,
    key: &str,
) -> Result<(), KeyError> {
    for (i, p) in plans.iter().enumerate() {
        let k = format!("{key}.subflows[{i}]");
        let Some(f) = flows.iter().find(|f| f.id.0 == p.flow) else {
            return Err(err(
                format!("{k}.flow"),
                format!("no workload flow has id {}", p.flow),
            ));
        };
        if f.size_bytes.is_some() {
            return Err(err(
                format!("{k}.flow"),
                format!(
                    "flow {} is sized; multipath flows must be long-lived (no size_bytes)",
                    p.flow
                ),
            ));
        }
        for (j, path) in p.paths.iter().enumerate() {
            let from = topo.link(path[0]).from;
            let to = topo.link(path[path.len() - 1]).to;
            if from != f.src || to != f.dst {
                return Err(err(
                    format!("{k}.paths[{j}]"),
                    format!(
                        "the path runs from `{}` to `{}` but flow {} runs from `{}` to `{}`: it does not connect the flow's endpoints",
                        topo.node(from).name,
                        topo.node(to).name,
                        p.flow,
                        topo.node(f.src).name,
                        topo.node(f.dst).name
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dctc_core::fabric::{dumbbell, DumbbellSpec};

    fn topo() -> Topology {
        // h0, h1 on s0; h2 on s1 (dumbbell names: hosts h*, switches s0/s1... by index).
        dumbbell(&DumbbellSpec {
            senders: 2,
            receivers: 1,
            host_rate_gbps: 1.0,
            bottleneck_rate_gbps: 1.0,
            link_delay_us: 1.0,
            host_delay_us: 0.0,
            buffer_bytes: 100_000,
        })
        .unwrap()
    }

    fn spec(paths: &[&[&str]]) -> Vec<SubflowsSpec> {
        vec![SubflowsSpec {
            flow: 0,
            paths: paths
                .iter()
                .map(|p| p.iter().map(|s| s.to_string()).collect())
                .collect(),
        }]
    }

    #[test]
    fn paths_resolve_to_links_and_bad_ones_name_their_key() {
        let t = topo();
        let name = |i: usize| t.node(t.hosts()[i]).name.clone();
        let (h0, h1, h2) = (name(0), name(1), name(2));
        let sw: Vec<String> = t
            .nodes()
            .iter()
            .filter(|n| !t.is_host(t.node_by_name(&n.name).unwrap()))
            .map(|n| n.name.clone())
            .collect();
        let (s0, s1) = (sw[0].as_str(), sw[1].as_str());
        let good = resolve(&spec(&[&[&h0, s0, s1, &h2]]), &t, "schemes[0]").unwrap();
        assert_eq!(good[0].paths[0].len(), 3);
        assert_eq!(t.link(good[0].paths[0][0]).from, t.hosts()[0]);
        let e = resolve(&spec(&[&[&h0, s1, &h2]]), &t, "schemes[0]").unwrap_err();
        assert_eq!(e.path, "schemes[0].subflows[0].paths[0]");
        assert!(e.reason.contains("does not connect"), "{}", e.reason);
        let e = resolve(&spec(&[&[&h0, s0, s1, &h2], &[&h0, "nowhere"]]), &t, "k").unwrap_err();
        assert_eq!(e.path, "k.subflows[0].paths[1]");
        let e = resolve(&spec(&[&[&h0, s0, &h1, s0]]), &t, "k").unwrap_err();
        assert!(e.reason.contains("not a host"), "{}", e.reason);
        let e = resolve(&spec(&[]), &t, "k").unwrap_err();
        assert_eq!(e.path, "k.subflows[0].paths");
    }
}
