//! HOLNET's end-to-end controllers (§IV, derived from its sliding-mode NUM controller, eq. 12)
//! reach the NUM optimum of their utilities on the paper's small networks (Fig. 2): CC with
//! weighted alpha-utilities (eq. 19, Fig. 3(b)), CC-CoS with a minimum-rate (RRA) flow
//! (Fig. 3(c)), MCC's multipath flow against a single-path one (eq. 20, Fig. 4(a)). The
//! optimum is crates/num's interior-point reference solver's on the same utilities
//! (`scenarios/holnet/iv-*.num.json`, the problems the §IV scenarios grade against), never the
//! controllers' code.

use super::bench::*;
use super::{Case, Measured};
use dctc_core::topology::{NodeKind, Topology};
use dctc_core::units::Delta;
use dctc_num::spec::ProblemSpec;
use dctc_packet::metrics::PacketRun;

/// The paper ran §IV in ns-3 and gives no TCP or queue settings, so the cases take ns-3's
/// defaults (as the §IV scenarios do): 536-byte segments, an ACK for every second segment or
/// after 200 ms, an initial window of one segment, a 1 s minimum RTO, no timestamp option.
const NS3_TCP: &str = "tcp = { preset = \"linux-like\", mss_bytes = 536, delayed_ack_us = \
    200000.0, initial_cwnd_packets = 1, min_rto_us = 1000000.0, timestamps = false }";

/// ns-3's point-to-point DropTail queue: 100 packets of 536 + 40 bytes.
const NS3_BUFFER: u64 = 100 * (536 + 40);

/// Simulated seconds per case; rates are averaged over the second half.
const SECS: u64 = 20;

/// A fabric from `(a, b, Mb/s, delay us)` cables; names starting with `h` are hosts, added
/// first in the order given by `hosts` (so host i is `hosts[i]`).
fn fabric(hosts: &[&str], cables: &[(&str, &str, f64, f64)]) -> Topology {
    let mut t = Topology::new("holnet-iv", Delta::ZERO);
    for h in hosts {
        t.add_node(NodeKind::Host, *h);
    }
    for &(a, b, mbps, us) in cables {
        let mut node = |n: &str| {
            t.node_by_name(n)
                .unwrap_or_else(|| t.add_node(NodeKind::Switch { tier: 1 }, n))
        };
        let (a, b) = (node(a), node(b));
        let d = Delta::from_us_f64(us);
        t.add_cable(a, b, gbps(mbps / 1e3), d, NS3_BUFFER, NS3_BUFFER);
    }
    t
}

/// HOLNET Fig. 2(a): h0 and h1 share one 100 Mb/s link to h2 (an 8 ms RTT).
fn fig2a() -> Topology {
    fabric(
        &["h0", "h1", "h2"],
        &[
            ("h0", "s0", 1000.0, 1000.0),
            ("h1", "s0", 1000.0, 1000.0),
            ("s0", "s1", 100.0, 2000.0),
            ("s1", "h2", 1000.0, 1000.0),
        ],
    )
}

/// HOLNET Fig. 2(b): flow 1 (h0 -> h2) over a private 60 Mb/s path through `sa` and the
/// 100 Mb/s link s1 -> s2 it shares with flow 2 (h1 -> h3).
fn fig2b() -> Topology {
    fabric(
        &["h0", "h1", "h2", "h3"],
        &[
            ("h0", "sa", 1000.0, 1000.0),
            ("sa", "h2", 60.0, 2000.0),
            ("h0", "s1", 1000.0, 1000.0),
            ("h1", "s1", 1000.0, 1000.0),
            ("s1", "s2", 100.0, 1000.0),
            ("s2", "h2", 1000.0, 1000.0),
            ("s2", "h3", 1000.0, 1000.0),
        ],
    )
}

/// §IV-A's CC table: base utility U_alpha(0.5), user utilities 2 sqrt(x) with R_s 400 and
/// 100 Mb/s, x_0^c = 100 Mb/s.
const CC_FLOWS: &str = r#"flows = [
  { flow = 0, utility = { kind = "holnet", alpha = 0.5, saturated_bps = 4e8, base_center_bps = 1e8, user = { kind = "alpha", alpha = 0.5 } } },
  { flow = 1, utility = { kind = "holnet", alpha = 0.5, saturated_bps = 1e8, base_center_bps = 1e8, user = { kind = "alpha", alpha = 0.5 } } },
]"#;

/// §IV-A's CC-CoS table: base utility U_alpha(0.75); an NRE flow log(1 + x) and an RRA flow
/// with theta = 20 Mb/s, both R_s = 100 Mb/s.
const COS_FLOWS: &str = r#"flows = [
  { flow = 0, utility = { kind = "holnet", alpha = 0.75, saturated_bps = 1e8, base_center_bps = 1e8, user = { kind = "log1p" } } },
  { flow = 1, min_bps = 2e7, utility = { kind = "holnet", alpha = 0.75, saturated_bps = 1e8, base_center_bps = 1e8, user = { kind = "rra", knee_bps = 2e7 } } },
]"#;

/// §IV-B's MCC: flow 0's two pinned paths.
const MCC_PATHS: &str =
    r#"subflows = [ { flow = 0, paths = [["h0", "sa", "h2"], ["h0", "s1", "s2", "h2"]] } ]"#;

/// One §IV experiment: the fabric, the scheme, and the NUM problem whose optimum it must reach.
#[derive(Copy, Clone)]
struct Experiment {
    scheme: &'static str,
    keys: &'static str,
    fabric: fn() -> Topology,
    /// Long flows `(src, dst)` by host index, all from 0.
    flows: &'static [(usize, usize)],
    /// Whether flow 0 runs two subflows (measured per subflow: x11, x12, then x2).
    multipath: bool,
    /// The NUM problem (crates/num's JSON), its flows in the order measured.
    problem: &'static str,
}

const IV_A_CC: Experiment = Experiment {
    scheme: "holnet-cc",
    keys: CC_FLOWS,
    fabric: fig2a,
    flows: &[(0, 2), (1, 2)],
    multipath: false,
    problem: include_str!("../../../../scenarios/holnet/iv-a-cc.num.json"),
};

const IV_A_COS: Experiment = Experiment {
    scheme: "holnet-cc",
    keys: COS_FLOWS,
    fabric: fig2a,
    flows: &[(0, 2), (1, 2)],
    multipath: false,
    problem: include_str!("../../../../scenarios/holnet/iv-a-cos.num.json"),
};

const IV_B_MCC: Experiment = Experiment {
    scheme: "holnet-mcc",
    keys: MCC_PATHS,
    fabric: fig2b,
    flows: &[(0, 2), (1, 3)],
    multipath: true,
    problem: include_str!("../../../../scenarios/holnet/iv-b-mcc.num.json"),
};

/// The optimum of `e`'s NUM problem by the reference solver, Mb/s: flow rates, or for a
/// multipath experiment flow 0's subflow rates then the others'.
fn optimum(e: &Experiment) -> Vec<f64> {
    let spec: ProblemSpec = serde_json::from_str(e.problem).expect("the §IV problems parse");
    let mut p = spec.build().expect("the §IV problems build");
    let sol = dctc_num::reference::solve(&mut p);
    let rates = if e.multipath {
        &sol.sub_rate_bps
    } else {
        &sol.flow_rate_bps
    };
    rates.iter().map(|r| r / 1e6).collect()
}

/// Mean rate of `bins` (bytes per bin of `bin`) over the second half of the run, Mb/s.
fn second_half_mbps(bins: &[u64], bin: Delta) -> f64 {
    let n = (Delta::from_ms(SECS * 1000).0 / bin.0) as usize;
    let sum: u64 = bins.iter().skip(n / 2).take(n - n / 2).sum();
    sum as f64 * 8.0 / ((n - n / 2) as f64 * bin.as_secs_f64()) / 1e6
}

/// Runs `e` under `scheme` with `keys` and returns the measured rates (as [`optimum`]), Mb/s.
fn run(e: &Experiment, scheme_name: &str, keys: &str) -> Vec<f64> {
    let mut t = (e.fabric)();
    let s = scheme(scheme_name, keys, NS3_TCP, &mut t);
    let end = (SECS * 1_000_000) as f64;
    let flows = (e.flows.iter().enumerate())
        .map(|(i, &(a, b))| long_flow(&t, i as u32, a, b, 0.0, end))
        .collect();
    let bin = Delta::from_ms(10);
    let rec = Record {
        bin: Some(bin),
        ..Record::default()
    };
    let r: PacketRun = simulate(&t, &s, flows, Delta::from_ms(SECS * 1000), &rec);
    let flow = |id: u32| {
        let (_, bins) = (r.throughput.iter().find(|x| x.0 == id)).expect("every flow is binned");
        second_half_mbps(bins, bin)
    };
    if e.multipath {
        let sub = |k: u32| {
            let (_, _, bins) = (r.subflow_throughput.iter())
                .find(|x| x.0 == 0 && x.1 == k)
                .expect("every subflow is binned");
            second_half_mbps(bins, bin)
        };
        vec![sub(0), sub(1), flow(1)]
    } else {
        (0..e.flows.len() as u32).map(flow).collect()
    }
}

/// The band: every rate within 10 Mb/s (10% of the 100 Mb/s bottleneck) of its optimum. The
/// paper's own controllers land inside it (§IV-A: ratio 3.61 for the optimum's 4, 78.3 / 21.7
/// Mb/s; CC-CoS 5.24 for 5.59; §IV-B: x2 73 for 80, the largest miss, "the faster flow senses
/// more congestion"), and a window-based translation cannot fill the link ("the aggregated
/// flow rate is less than the link bandwidth").
const BAND_MBPS: f64 = 10.0;

fn measure(e: &Experiment, scheme_name: &str, keys: &str) -> Measured {
    let want = optimum(e);
    let got = run(e, scheme_name, keys);
    let ok = (got.iter().zip(&want)).all(|(g, w)| (g - w).abs() <= BAND_MBPS);
    let list = |v: &[f64]| {
        (v.iter().map(|x| format!("{x:.1}")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Measured::new(format!("{} Mb/s", list(&got)), ok)
}

const WHY: &str = "HOLNET (§III, eq. 12): the sliding-mode controllers drive the rates to the \
    optimum of the NUM problem of the flows' utilities; §IV derives CC (eq. 19) and MCC (eq. \
    20) from it and tests them on Fig. 2's networks: weighted alpha-utilities (optimum 80 / 20 \
    Mb/s, Fig. 3(b)), an NRE and an RRA flow (15.2 / 84.8, Fig. 3(c)), a two-path flow beside a \
    one-path flow (x11 60, x12 20, x2 80, Fig. 4(a)). Expected: crates/num's reference optimum \
    of the same problem; every rate within 10 Mb/s of it over the second half of a 20 s run \
    (the paper's own results all fall inside: 3.61 for 4, 5.24 for 5.59, x2 73 for 80). ns-3's \
    TCP defaults and 100-packet DropTail queues, as the paper's simulator had them";

/// A finding of the §IV scenarios (scenarios/holnet/README.md, "§IV-A CC: the DropTail
/// loss-event bias"), pinned there by a unit test of eq. (19) on a fluid link.
const LOSS_EVENT_BIAS: &str = "HOLNET CC/MCC: a DropTail overflow drops about one packet, from \
    a flow picked by its share of the arrivals, so the faster flow hears more loss events and \
    eq. (19)/(20) settle short of the optimum (§IV-A: 66.3 / 26.7 Mb/s, ratio 2.48 for 4, toward \
    the loss-event value 1.56; §IV-B: x2 69 for 80), the bias §IV names for its 3.61 and 73, \
    stronger here; on a fluid link where every flow hears the link eq. (19) reaches 4 \
    (scenarios/holnet/README.md#iv-a-cc-the-droptail-loss-event-bias)";

pub(crate) fn cases() -> Vec<Case> {
    let experiments: [(&str, Experiment, &str, Option<&'static str>); 3] = [
        (
            "CC reaches the weighted NUM optimum",
            IV_A_CC,
            "Fig. 2(a), 100 Mb/s, 2 flows, U_alpha(0.5), R_s 400 / 100 Mb/s",
            Some(LOSS_EVENT_BIAS),
        ),
        (
            "CC-CoS reaches the NUM optimum",
            IV_A_COS,
            "Fig. 2(a), 100 Mb/s, NRE log(1 + x) + RRA theta 20 Mb/s",
            None,
        ),
        (
            "MCC reaches the multipath NUM optimum",
            IV_B_MCC,
            "Fig. 2(b), 60 Mb/s private path + 100 Mb/s shared link",
            Some(LOSS_EVENT_BIAS),
        ),
    ];
    experiments
        .into_iter()
        .map(|(check, e, setting, known)| {
            let want = optimum(&e);
            let names = if e.multipath {
                "x11, x12, x2"
            } else {
                "x1, x2"
            };
            let list = (want.iter().map(|x| format!("{x:.1}")))
                .collect::<Vec<_>>()
                .join(", ");
            let c = Case::new(
                "holnet",
                check,
                e.scheme,
                setting,
                format!("{names} within {BAND_MBPS} Mb/s of the optimum {list} Mb/s"),
                WHY,
                false,
                move || measure(&e, e.scheme, e.keys),
            );
            match known {
                Some(finding) => c.known(finding),
                None => c,
            }
        })
        .collect()
}

/// A broken HOLNET: CC deaf to its flows' utilities (its table dropped, so both flows run
/// the default log utility and split the link evenly), on the CC-CoS case.
pub(crate) fn sabotaged() -> Vec<Case> {
    vec![Case::new(
        "holnet",
        "CC-CoS reaches the NUM optimum",
        "holnet-cc ignoring its utilities",
        "Fig. 2(a), 100 Mb/s, NRE log(1 + x) + RRA theta 20 Mb/s",
        "fails: x1, x2 near 50 / 50",
        "sabotaged",
        false,
        || measure(&IV_A_COS, "holnet-cc", ""),
    )]
}
