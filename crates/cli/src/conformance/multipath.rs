//! Many paths: MPTCP takes no more than one TCP on a shared bottleneck, and the load balancers
//! do what they claim with their uplinks (DRILL evens their queues, spraying their bytes,
//! HOLNET's percentages split by capacity).

use super::bench::*;
use super::{Case, Measured};
use dctc_core::fabric::{leaf_spine, LeafSpineSpec};
use dctc_core::topology::{NodeKind, Topology};
use dctc_core::units::Delta;

pub(crate) fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for &(rate, quick_rate) in RATES {
        for (name, quick_s) in [("mptcp", true), ("holnet-mcc", false)] {
            let case = Case::new(
                "multipath",
                "no more than one TCP on a shared bottleneck",
                name,
                format!("{rate} Gb/s bottleneck, 2 subflows over 2 spines vs 1 single-path flow"),
                "the connection's rate / the TCP flow's rate within 0.8..1.25",
                MPTCP_WHY,
                quick_rate && quick_s,
                move || shared_bottleneck(name, rate),
            );
            v.push(match name {
                "mptcp" if rate >= 40.0 => case.known(MPTCP_BEST_PATH),
                "mptcp" => case,
                _ => case.known(MCC_ROOT_TWO),
            });
        }
    }
    for &(rate, quick_rate) in RATES {
        v.push(
            Case::new(
                "multipath",
                "DRILL evens its uplinks' queues",
                "drill",
                format!("{rate} Gb/s leaf-spine, 4 spines, 8 long DCTCP flows rack to rack"),
                "p99 over samples of (largest - smallest uplink queue) <= 2 packets (ECMP's shown)",
                DRILL_WHY,
                quick_rate,
                move || uplinks("drill", rate),
            )
            .known(DRILL_THREE),
        );
        v.push(Case::new(
            "multipath",
            "spraying evens its uplinks' bytes",
            "spray",
            format!("{rate} Gb/s leaf-spine, 4 spines, 8 long DCTCP flows rack to rack"),
            "bytes sent on the most used uplink / the least used <= 1.01",
            SPRAY_WHY,
            quick_rate,
            move || uplinks("spray", rate),
        ));
        v.push(Case::new(
            "multipath",
            "percentages split by capacity",
            "holnet-percentage",
            format!(
                "{rate} Gb/s: uplinks of 2x and 1x the rate, 2 flows rack to rack, uncongested"
            ),
            "bytes on the 2x uplink / on the 1x uplink within 2 +- 2%",
            PERCENTAGE_WHY,
            quick_rate,
            move || percentage_split(rate),
        ));
    }
    v
}

/// A finding of this suite, explained (issue 25, MPTCP): above one TCP where drop-tail's
/// phase effects give a subflow a lower loss rate than the TCP flow.
const MPTCP_BEST_PATH: &str = "MPTCP (LIA) takes 1.31x (40 Gb/s) and 1.33x (100 Gb/s) of the \
    single-path NewReno flow at the loss equilibrium (80 sawteeth; 0.99x and 0.91x at 1 and \
    10 Gb/s). Explained, not a bug: RFC 6356's alpha makes the connection take what one TCP \
    would on its best path (§2 goal 1, §4), which is one TCP's share only when every path \
    loses the same fraction of its packets (goal 2's premise). Here they do not: counted per \
    flow in pcap captures of the bottleneck's inputs and output (second half of each run), \
    the TCP flow loses 8.98e-4 of its packets at 40 Gb/s and the subflows 8.50e-4 and 4.59e-4 \
    (100 Gb/s: 3.67e-4 vs 3.87e-4 and 2.05e-4; 1 Gb/s: 1.70e-3 vs 2.04e-3 and 1.72e-3), since \
    a drop-tail overflow drops the packet that a window's increase adds, TCP's increase is \
    twice the connection's, and the deterministic arrivals through the two spines keep one \
    subflow out of phase with the overflows (Floyd & Jacobson 1992's phase effects; 40 \
    Gb/s: TCP hit in 44 of 58 drop episodes with 43% of the packets). LIA's equilibrium \
    sqrt(p_TCP / p_best subflow) predicts 1.40x and 1.34x (0.99x at 1 Gb/s); with equal \
    loss rates transport::tests' round model gives 1.02x. More send jitter (5 packet times \
    at 40 Gb/s) evens the losses and the ratio falls to 1.07x; the suite keeps its one \
    packet time. Before this change the 400 ms run ended before LIA's loss equilibrium at \
    1 and 10 Gb/s (0.65x, 0.70x: it grows half as fast as TCP until its first losses)";

/// A finding of this suite, explained (issue 25, HOLNET MCC): eq. (20) with each subflow
/// inferring its own path's congestion takes sqrt(n) TCPs on one bottleneck.
const MCC_ROOT_TWO: &str = "HOLNET MCC takes 1.33x (1 Gb/s), 1.19x (10), 1.60x (40) and \
    1.33x (100 Gb/s) of the single-path MCC flow (Reno's AIMD) at the loss equilibrium. \
    Explained, the design's: eq. (20) grows a subflow by gamma eps x_l / x a round trip (the \
    connection by one segment, as one TCP) and a congestion event on path l cuts x_l alone; \
    §IV-A/B infer cg_l from path l's own losses, so two subflows through one bottleneck are \
    two paths each hearing its own losses, where the fluid model's cg_l (the link's \
    indicator for every path through it) would cut them together and share evenly. At equal \
    loss rates p each of n subflows settles where 1 - e^(-eps/x) = p x / n: x = sqrt(n eps \
    / p), sqrt(n) = 1.41 times one path's (transport::tests' round model through the \
    controller: 1.42x); the drop-tail phase effects of MPTCP's finding move it either way. \
    The paper's own MCC run (Fig. 4(a)) shows the same direction: the single-path flow below \
    its optimum (73 vs 80 Mb/s)";

/// A finding of this suite, explained (issue 25, DRILL): the band is tighter than DRILL(2, 1).
const DRILL_THREE: &str = "DRILL: the sending leaf's uplink backlogs are 3.0 packets apart at \
    p99 at 1, 10 and 100 Gb/s (ECMP 22-67), one more than the 2 of the band. Explained, not a \
    bug: DRILL(2, 1) alone, fed four FIFO ports at 97.5% load with no transport or fabric, keeps \
    them 2.6-3.1 packets apart at p99 (lb::drill's test drives its own pick(); a Python model \
    agrees), since half its decisions miss the shortest port and memory keeps the last choice; \
    sampling all four gives 1. The sample and DRILL read the same backlog (unfinished work, the \
    packet in service by what is left of it). The band of 2 is this suite's reading of 'a packet \
    or two', not a figure of the DRILL paper";

const MPTCP_WHY: &str = "RFC 6356 §2 goals 1-2: a multipath connection should do at least as \
    well as one TCP flow on its best path and take no more from a shared bottleneck than one \
    TCP flow would (LIA's coupled increase: its aggregate grows as one Reno; HOLNET MCC, eq. \
    20, is AIMD over its paths). Two racks of two hosts and two spines, fabric links twice the \
    host links: both subflows (one per spine) and a single-path flow of the same controller \
    (Reno's AIMD on one path) from the other host meet at the receiver's host link. Measured: \
    the connection's rate over the single-path flow's, over the \
    second half of a run of 80 of the single-path flow's sawteeth (a buffer of one BDP, at \
    least 100 packets), so that it measures the loss equilibrium where RFC 6356's shares \
    hold; expected about 1 (0.8..1.25 leaves room for AIMD's sawteeth)";

/// The buffer of the shared bottleneck case: one bandwidth-delay product, at least 100
/// packets (the drop-tail rule of thumb, and small enough that the run holds many loss
/// episodes at every rate).
fn bottleneck_buffer(rate: f64) -> u64 {
    bytes_in(rate, base_rtt(4, rate, 1.0, 1.0)).max(100 * PACKET)
}

/// How long the shared bottleneck case runs: 80 sawteeth of the single-path flow (as the
/// `fair` family's AIMD runs), so that the second half, where the rates are measured, holds
/// 40 loss episodes or so: LIA's equality with TCP is that of a loss equilibrium (RFC 6356
/// §3-4), and before its first losses a connection of two subflows grows half as fast as
/// TCP (`transport::mptcp`'s test). The TCP flow and the connection share the path's BDP
/// plus buffer; a tooth regrows half of the TCP's half, one packet a round of the base RTT
/// plus the buffer's drain time.
fn bottleneck_run(rate: f64) -> Delta {
    let rtt = base_rtt(4, rate, 1.0, 1.0);
    let buffer = bottleneck_buffer(rate);
    let window = (bytes_in(rate, rtt) + buffer) / PACKET / 2;
    let round = rtt + gbps(rate).tx_time(buffer);
    (round * (40 * window)).max(Delta::from_ms(20))
}

/// One multipath connection (subflows over both spines) and one NewReno flow into one host.
fn shared_bottleneck(name: &str, rate: f64) -> Measured {
    shared_bottleneck_with(name, rate, "")
}

/// [`shared_bottleneck`] with `extra` `[[schemes]]` keys (the sabotaged variants).
pub(crate) fn shared_bottleneck_with(name: &str, rate: f64, extra: &str) -> Measured {
    let t = |gbps_fabric| {
        leaf_spine(&LeafSpineSpec {
            racks: 2,
            hosts_per_rack: 2,
            spines: 2,
            host_rate_gbps: rate,
            fabric_rate_gbps: gbps_fabric,
            oversubscription: None,
            host_link_delay_us: 1.0,
            fabric_link_delay_us: 1.0,
            host_delay_us: HOST_DELAY_US,
            buffer_bytes: bottleneck_buffer(rate),
            spine_buffer_bytes: None,
        })
        .expect("a valid leaf-spine")
    };
    let mut topo = t(2.0 * rate);
    let keys = format!(
        "subflows = [ {{ flow = 0, paths = [[\"h0\", \"leaf0\", \"spine0\", \"leaf1\", \"h2\"], [\"h0\", \"leaf0\", \"spine1\", \"leaf1\", \"h2\"]] }} ]\n{extra}"
    );
    let packet = format!(
        "tcp = {{ min_rto_us = 60, initial_rto_us = 60, rwnd_bytes = 1000000000 }}\nsend_jitter_us = {}",
        gbps(rate).tx_time(PACKET).as_us_f64()
    );
    // One scheme runs every flow of a run, so the single-path flow runs the same controller
    // on one path, which is Reno's AIMD (LIA with one subflow: RFC 6356 §3; MCC: §IV-B).
    let s = scheme(name, &keys, &packet, &mut topo);
    let until = bottleneck_run(rate);
    let end = until.as_us_f64();
    let flows = vec![
        long_flow(&topo, 0, 0, 2, 0.0, end),
        long_flow(&topo, 1, 1, 2, 0.0, end),
    ];
    let rec = Record {
        bin: Some(Delta(until.0 / 100)),
        ..Record::default()
    };
    let r = simulate(&topo, &s, flows, until, &rec);
    let x = rates(&r, Delta(until.0 / 2), until);
    let ratio = x[0] / x[1];
    Measured::new(
        format!(
            "connection {:.3} Gb/s, TCP {:.3} Gb/s, ratio {ratio:.2}",
            x[0] / 1e9,
            x[1] / 1e9
        ),
        (0.8..=1.25).contains(&ratio),
    )
}

const DRILL_WHY: &str = "DRILL §3 (Ghorbani et al. 2017): each switch sends each packet to the \
    shortest of d = 2 random queues and the m = 1 shortest it remembers, which keeps a leaf's \
    uplink queues within a packet or two of each other (the power of two choices with memory); \
    per-flow ECMP leaves them as uneven as its hash. Two racks of eight hosts, four spines at the \
    host rate (2:1 oversubscribed, so the uplinks are the bottleneck), eight long DCTCP flows \
    rack to rack. Measured: at every queue sample of the second half, the largest minus the \
    smallest of the sending leaf's four uplink backlogs, and its 99th percentile";

const SPRAY_WHY: &str = "Per-packet round robin over the equal-cost next hops sends each uplink \
    the same number of packets, within one per packet size, whatever the flows. Same fabric and \
    flows as DRILL's case. Measured: the wire bytes each of the sending leaf's uplinks sent, the \
    largest over the smallest";

/// Eight long DCTCP flows from rack 0 to rack 1 over four spines under balancer `lb`: DRILL's
/// queue imbalance (and ECMP's for contrast), or spraying's byte split.
fn uplinks(lb: &str, rate: f64) -> Measured {
    let topo = leaf_spine(&LeafSpineSpec {
        racks: 2,
        hosts_per_rack: 8,
        spines: 4,
        host_rate_gbps: rate,
        fabric_rate_gbps: rate,
        oversubscription: None,
        host_link_delay_us: 1.0,
        fabric_link_delay_us: 1.0,
        host_delay_us: HOST_DELAY_US,
        buffer_bytes: 300 * PACKET,
        spine_buffer_bytes: None,
    })
    .expect("a valid leaf-spine");
    let ups: Vec<u32> = (0..4)
        .map(|s| link(&topo, "leaf0", &format!("spine{s}")))
        .collect();
    let until = Delta::from_ms(4);
    let rec = Record {
        sample: Some(Delta(until.0 / 2000)),
        links: ups.clone(),
        ..Record::default()
    };
    let run = |lb: &str| {
        let mut t = topo.clone();
        let s = scheme("dctcp", &format!("load_balancer = \"{lb}\""), "", &mut t);
        let end = until.as_us_f64();
        let flows = (0..8)
            .map(|i| long_flow(&t, i as u32, i, 8 + i, 0.0, end))
            .collect();
        simulate(&t, &s, flows, until, &rec)
    };
    let imbalance = |r: &dctc_packet::metrics::PacketRun| {
        let half = until.0 / 2;
        let mut by_time: std::collections::BTreeMap<u64, Vec<u64>> = Default::default();
        for s in r.queue_samples.iter().filter(|s| s.time_ps >= half) {
            by_time.entry(s.time_ps).or_default().push(s.bytes);
        }
        let spread: Vec<f64> = by_time
            .values()
            .filter(|v| v.len() == 4)
            .map(|v| (v.iter().max().unwrap_or(&0) - v.iter().min().unwrap_or(&0)) as f64)
            .collect();
        quantile(&spread, 0.99) / PACKET as f64
    };
    let r = run(lb);
    if lb == "spray" {
        let sent: Vec<u64> = r
            .queue_samples
            .iter()
            .filter(|s| s.time_ps == r.queue_samples.last().map_or(0, |l| l.time_ps))
            .map(|s| s.sent_bytes)
            .collect();
        let (lo, hi) = (
            *sent.iter().min().unwrap_or(&0) as f64,
            *sent.iter().max().unwrap_or(&0) as f64,
        );
        let ratio = hi / lo.max(1.0);
        return Measured::new(
            format!("bytes largest / smallest {ratio:.4}"),
            ratio <= 1.01,
        );
    }
    let drill = imbalance(&r);
    let ecmp = imbalance(&run("ecmp"));
    Measured::new(
        format!("p99 imbalance {drill:.1} packets (ECMP {ecmp:.1})"),
        drill <= 2.0,
    )
}

const PERCENTAGE_WHY: &str = "HOLNET §V, eq. 16-18: a leaf's percentages toward a destination \
    leaf start proportional to its uplinks' capacities and hold while nothing is congested \
    (Table II: r_in = r_out = 1, every rate trend zero), and packets follow them (a smooth \
    weighted round robin). Two leaves, two spines: leaf0's uplink to spine0 at twice the host \
    rate, to spine1 at the host rate; two long flows rack to rack use two thirds of the uplinks' \
    capacity, so no queue nears 80%. Measured: the wire bytes each uplink sent, their ratio";

/// Two long flows from rack 0 to rack 1 over uplinks of 2x and 1x the host rate.
fn percentage_split(rate: f64) -> Measured {
    let mut t = Topology::new("two-speed uplinks", Delta::from_us_f64(HOST_DELAY_US));
    let buffer = 300 * PACKET;
    let d = Delta::from_us(1);
    let leaves: Vec<_> = (0..2)
        .map(|i| t.add_node(NodeKind::Switch { tier: 1 }, format!("leaf{i}")))
        .collect();
    let spines: Vec<_> = (0..2)
        .map(|i| t.add_node(NodeKind::Switch { tier: 2 }, format!("spine{i}")))
        .collect();
    for (i, &leaf) in leaves.iter().enumerate() {
        for j in 0..2 {
            let h = t.add_node(NodeKind::Host, format!("h{}", 2 * i + j));
            t.add_cable(h, leaf, gbps(rate), d, buffer, buffer);
        }
        t.add_cable(leaf, spines[0], gbps(2.0 * rate), d, buffer, buffer);
        t.add_cable(leaf, spines[1], gbps(rate), d, buffer, buffer);
    }
    let s = scheme("dctcp", "load_balancer = \"holnet-percentage\"", "", &mut t);
    let until = Delta::from_ms(4);
    let ups = vec![link(&t, "leaf0", "spine0"), link(&t, "leaf0", "spine1")];
    let rec = Record {
        sample: Some(Delta(until.0 / 100)),
        links: ups,
        ..Record::default()
    };
    let end = until.as_us_f64();
    let flows = vec![
        long_flow(&t, 0, 0, 2, 0.0, end),
        long_flow(&t, 1, 1, 3, 0.0, end),
    ];
    let r = simulate(&t, &s, flows, until, &rec);
    let last = r.queue_samples.last().map_or(0, |l| l.time_ps);
    let sent: Vec<u64> = r
        .queue_samples
        .iter()
        .filter(|s| s.time_ps == last)
        .map(|s| s.sent_bytes)
        .collect();
    let ratio = sent[0] as f64 / sent[1].max(1) as f64;
    Measured::new(
        format!("2x / 1x uplink bytes {ratio:.3}"),
        (ratio - 2.0).abs() <= 0.04,
    )
}
