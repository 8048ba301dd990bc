//! One long flow fills the link: the first thing any transport must do. Also the settings
//! every rate-sweeping packet family shares: DCTCP's K, buffers, TCP timers and CoDel's
//! parameters for the path's round trip.

use super::bench::*;
use super::{Case, Measured};
use dctc_core::units::Delta;

/// Every packet scheme `dctc list` prints.
pub(crate) const PACKET_SCHEMES: &[&str] = &[
    "newreno",
    "dctcp",
    "cubic",
    "codel",
    "fq-codel",
    "sfqcodel-cubic",
    "pfabric",
    "tfc",
    "xcp",
    "holnet-uta",
    "flowtune",
    "holnet-cc",
    "holnet-mcc",
    "mptcp",
];

const WHY: &str = "a window-based flow behind a buffer of at least one bandwidth-delay product \
    keeps its bottleneck busy through every back-off (RFC 5681 §3; CUBIC backs off less, RFC 9438 \
    §4.6); DCTCP with K > C RTT / 7 never empties it (DCTCP §3.3); pFabric starts at line rate \
    (§4.2); the explicit schemes allocate the whole link (XCP §3.1, HOLNET eq. 19 and 24 with one \
    flow), TFC rho0 = 0.97 of it (§4.2) and Flowtune 99% (§6.4). An AQM that holds the queue \
    near C x target caps an AIMD flow with back-off beta at U(beta, r), r = target / RTT: the \
    window saws between beta (1 + r) and 1 + r bandwidth-delay products, and the link idles while \
    it is below one (U = 1 once beta (1 + r) >= 1). Measured: the wire bytes the bottleneck sends \
    over the second half of the run over its rate; expected at least 95% of the aim";

/// The utilization an AIMD flow with multiplicative back-off `beta` reaches when an AQM holds
/// the bottleneck queue at `r` bandwidth-delay products: its window saws linearly (one packet
/// per round) from `beta (1 + r)` to `1 + r` BDPs, delivering `min(w, 1)` per round, rounds
/// lasting `max(w, 1)` base RTTs. Time-averaged over one tooth.
pub(crate) fn aimd_utilization(beta: f64, r: f64) -> f64 {
    let (a, b) = (beta * (1.0 + r), 1.0 + r);
    if a >= 1.0 {
        return 1.0;
    }
    // Below one BDP the window grows one packet per base RTT and the link carries w;
    // above, one per w RTTs (the queue stretches the round) and the link is full.
    let sent = (1.0 - a * a) / 2.0 + (b * b - 1.0) / 2.0;
    let time = (1.0 - a) + (b * b - 1.0) / 2.0;
    sent / time
}

/// The path a case runs on: `flows` flows over `links` links of `delay_us` each, the
/// bottleneck at `rate` Gb/s and the hosts' links `host_factor` times faster.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Path {
    pub(crate) rate: f64,
    pub(crate) delay_us: f64,
    pub(crate) links: usize,
    pub(crate) host_factor: f64,
    pub(crate) flows: usize,
}

impl Path {
    /// Across a dumbbell ([`dumbbell`]) whose hosts are 4x the bottleneck, so that it is a
    /// switch port, where each scheme's discipline runs.
    pub(crate) fn dumbbell(rate: f64, delay_us: f64, flows: usize) -> Path {
        Path {
            rate,
            delay_us,
            links: 3,
            host_factor: 4.0,
            flows,
        }
    }

    /// Across one switch ([`star`]) with every link at the rate (TFC's testbed), where a lone
    /// flow's own NIC is its bottleneck.
    pub(crate) fn star(rate: f64, delay_us: f64, flows: usize) -> Path {
        Path {
            rate,
            delay_us,
            links: 2,
            host_factor: 1.0,
            flows,
        }
    }

    /// The empty-network round trip.
    pub(crate) fn rtt(&self) -> Delta {
        base_rtt(self.links, self.rate, self.host_factor, self.delay_us)
    }

    /// DCTCP's K: the larger of C RTT / 7 (DCTCP §3.3, the least that keeps the queue from
    /// emptying) and 65 packets (the paper's 10 Gb/s setting, §4.1).
    pub(crate) fn dctcp_k(&self) -> u64 {
        (bytes_in(self.rate, self.rtt()) / 7 + 1).max(65 * PACKET)
    }

    /// A buffer that holds every scheme's standing queue with room to spare, so the buffer is
    /// not the variable under test: K, two bandwidth-delay products and four packets a flow,
    /// at least 100 packets.
    pub(crate) fn buffer(&self) -> u64 {
        (self.dctcp_k() + 2 * bytes_in(self.rate, self.rtt()) + 4 * self.flows as u64 * PACKET)
            .max(100 * PACKET)
    }

    /// CoDel's interval and target for this path (RFC 8289 §4.2-4.3: the interval about the
    /// worst-case RTT, the target 5% of it), never below the datacenter setting (100 us,
    /// 5 us) the FQ-CoDel paper uses.
    pub(crate) fn codel(&self) -> (f64, f64) {
        let interval = self.rtt().as_us_f64().max(100.0);
        (interval, (interval / 20.0).max(5.0))
    }

    /// The `[[schemes]]` keys of `name` on this path: DCTCP's K, CoDel's parameters, HOLNET
    /// CC's rate unit (its §IV links carry 100 units: 100 Mb/s in Mb/s).
    pub(crate) fn keys(&self, name: &str) -> String {
        match name {
            "dctcp" => format!("ecn_k_bytes = {}", self.dctcp_k()),
            "codel" | "fq-codel" | "sfqcodel-cubic" => {
                let (interval, target) = self.codel();
                format!("codel_interval_us = {interval}\ncodel_target_us = {target}")
            }
            "holnet-cc" => format!("rate_unit_bps = {}", self.rate * 1e9 / 100.0),
            _ => String::new(),
        }
    }

    /// The `[packet]` table: TCP timers and windows for this path. The minimum and initial
    /// RTO are 3 round trips (at least 45 us), as the presets' 45 us are for their 15 us
    /// fabrics (the pFabric tuning; pFabric §4.2: "about 3 RTTs", its RTO fixed there), and
    /// the receive window never limits.
    pub(crate) fn packet(&self, name: &str) -> String {
        let rto = self.rto_us(name);
        let fixed = if name == "pfabric" {
            format!(", max_rto_us = {rto}")
        } else {
            String::new()
        };
        format!(
            "tcp = {{ min_rto_us = {rto}, initial_rto_us = {rto}, rwnd_bytes = 1000000000{fixed} }}"
        )
    }

    /// The minimum (pFabric: fixed) RTO, us: 3 round trips, at least the presets' 45 us
    /// (pFabric's exactly 3, §4.2).
    pub(crate) fn rto_us(&self, name: &str) -> f64 {
        let three = 3.0 * self.rtt().as_us_f64();
        if name == "pfabric" {
            three
        } else {
            three.max(45.0)
        }
    }

    /// The bandwidth-delay product in full packets.
    pub(crate) fn bdp_packets(&self) -> u64 {
        bytes_in(self.rate, self.rtt()) / PACKET
    }

    /// How long to run: slow start, then a steady state long enough that its second half holds
    /// whole sawteeth: an AIMD window that halves regrows one packet per round, so a tooth
    /// lasts about BDP / 2 rounds. 300 rounds or two BDPs' worth of rounds, at least 4 ms.
    pub(crate) fn duration(&self) -> Delta {
        (self.rtt() * self.bdp_packets().saturating_mul(2).max(300)).max(Delta::from_ms(4))
    }

    /// The setting column: rate, round trip, flows.
    pub(crate) fn label(&self) -> String {
        format!(
            "{} Gb/s, RTT {:.0} us, {} flow{}",
            self.rate,
            self.rtt().as_us_f64(),
            self.flows,
            if self.flows == 1 { "" } else { "s" }
        )
    }
}

/// Link delays every rate-sweeping family runs at, us, and whether each is quick: 1 us (a
/// 10-45 us round trip, a datacenter's) and 20 us (120-160 us, a WAN-ish fabric).
pub(crate) const DELAYS: &[(f64, bool)] = &[(1.0, true), (20.0, false)];

/// What one flow should fill of the link under `name` on `p`: (aim, as text).
pub(crate) fn aim(name: &str, p: &Path) -> (f64, String) {
    match name {
        "tfc" => (0.97, " x rho0 0.97".into()),
        "flowtune" => (0.99, " x 0.99".into()),
        "codel" | "fq-codel" | "sfqcodel-cubic" => {
            let beta = if name == "sfqcodel-cubic" { 0.7 } else { 0.5 };
            let r = p.codel().1 / p.rtt().as_us_f64();
            let u = aimd_utilization(beta, r);
            (u, format!(" x U({beta}, {r:.3}) = {:.3}", 0.95 * u))
        }
        _ => (1.0, String::new()),
    }
}

pub(crate) fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for &name in PACKET_SCHEMES {
        for &(rate, quick_rate) in RATES {
            for &(delay_us, quick_delay) in DELAYS {
                let p = Path::dumbbell(rate, delay_us, 1);
                let (aim, aim_text) = aim(name, &p);
                let case = Case::new(
                    "fill",
                    "one flow fills the link",
                    name,
                    p.label(),
                    format!("utilization >= 0.95{aim_text}"),
                    WHY,
                    quick_rate && quick_delay,
                    move || one_flow(name, p, aim),
                );
                v.push(case);
            }
        }
    }
    v
}

/// One long flow across a dumbbell whose hosts are 4x the bottleneck (so the bottleneck is a
/// switch port, where each scheme's discipline runs).
fn one_flow(name: &str, p: Path, aim: f64) -> Measured {
    let mut t = dumbbell(1, 1, p.rate, p.host_factor, p.delay_us, p.buffer());
    let s = scheme(name, &p.keys(name), &p.packet(name), &mut t);
    let until = p.duration();
    let l = link(&t, "left", "right");
    let rec = Record {
        sample: Some(Delta(until.0 / 100)),
        links: vec![l],
        ..Record::default()
    };
    let flows = vec![long_flow(&t, 0, 0, 1, 0.0, until.as_us_f64())];
    let r = simulate(&t, &s, flows, until, &rec);
    let u = utilization(&r, l, gbps(p.rate), Delta(until.0 / 2), until);
    Measured::new(format!("{u:.3}"), u >= 0.95 * aim)
}
