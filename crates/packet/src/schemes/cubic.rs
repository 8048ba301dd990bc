//! `cubic`: CUBIC (RFC 9438) with HyStart++ (RFC 9406) over DropTail switch queues, Linux's
//! defaults: `cubic_beta` 0.7, `cubic_c` 0.4, `fast_convergence` and `hystart` on.

use super::{Context, Parts};
use crate::keys::Range;
use crate::queue::Discipline;
use crate::queue::droptail::DropTailParams;

use dctc_core::error::KeyError;
use crate::transport::{Cc, Cubic};

/// Registered name.
pub const NAME: &str = "cubic";
/// `dctc list` description.
pub const ABOUT: &str =
    "CUBIC (RFC 9438: beta 0.7, C 0.4, fast convergence, Reno-friendly region; HyStart++ RFC 9406) over DropTail";

crate::scheme_config! {
    /// beta_cubic, in (0, 1) (default 0.7).
    cubic_beta: Option<f64>,
    /// C, segments per s^3, positive (default 0.4).
    cubic_c: Option<f64>,
    /// Fast convergence (default on).
    fast_convergence: Option<bool>,
    /// HyStart++ in slow start (default on).
    hystart: Option<bool>,
}

/// CUBIC's controller over DropTail.
pub fn parts(cfg: &Config, ctx: &Context) -> Result<Parts, KeyError> {
    let mut c = Cubic::default();
    let at = ctx.at();
    c.beta = (at.number("cubic_beta", cfg.cubic_beta, Range::open(0.0, 1.0))?).unwrap_or(c.beta);
    c.c = (at.number("cubic_c", cfg.cubic_c, Range::POSITIVE)?).unwrap_or(c.c);
    if let Some(f) = cfg.fast_convergence {
        c.fast_convergence = f;
    }
    if let Some(h) = cfg.hystart {
        c.hystart = h;
    }
    Ok(Parts {
        nic_switch: false,
        cc: Cc::Cubic(c),
        queue: DropTailParams::NAME,
        tcp: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PacketSettings;
    use crate::sim::PacketScheme;
use crate::schemes::resolve_scheme;
    use crate::sim::{RunOptions, Simulation, Workload};
    use crate::transport::TcpConfig;
    use dctc_core::fabric::{dumbbell, DumbbellSpec};
    use dctc_core::ids::FlowId;
    use dctc_core::routing::Routing;
    use dctc_core::spec::FlowSpec;
    use dctc_core::units::{Delta, SimTime};


    fn topo() -> dctc_core::topology::Topology {
        // The 5 Gb/s bottleneck, not the senders' NICs, is where the queue builds.
        dumbbell(&DumbbellSpec {
            senders: 2,
            receivers: 1,
            host_rate_gbps: 10.0,
            bottleneck_rate_gbps: 5.0,
            link_delay_us: 1.5,
            host_delay_us: 2.0,
            buffer_bytes: 225_000,
        })
        .unwrap()
    }

    fn resolve(src: &str) -> Result<PacketScheme, KeyError> {
        let t = crate::toml_table::TomlTable::new(src, "schemes[0]");
        resolve_scheme(&t, &PacketSettings::default(), &topo(), "schemes[0]")
    }

    #[test]
    fn keys_resolve_and_bad_values_are_named() {
        let s = resolve("name = \"cubic\"").unwrap();
        assert_eq!(s.cc, Cc::Cubic(Cubic::default()));
        assert_eq!(s.ecn_k_bytes(), None);
        assert!(!s.tcp.ecn);
        let s = resolve("name = \"cubic\"\ncubic_beta = 0.8\nhystart = false").unwrap();
        let Cc::Cubic(c) = s.cc else { unreachable!() };
        assert_eq!((c.beta, c.hystart, c.fast_convergence), (0.8, false, true));
        let e = resolve("name = \"cubic\"\ncubic_beta = 1.0").unwrap_err();
        assert_eq!(e.path, "schemes[0].cubic_beta");
        let e = resolve("name = \"cubic\"\ncubic_c = -1.0").unwrap_err();
        assert_eq!(e.path, "schemes[0].cubic_c");
        let e = resolve("name = \"cubic\"\ndctcp_g = 0.5").unwrap_err();
        assert!(e.reason.contains("a key of scheme `dctcp`"), "{e}");
    }

    #[test]
    fn two_cubic_flows_on_a_bottleneck_converge_to_fair_shares() {
        let t = topo();
        let mut tcp = TcpConfig::pfabric_tuned(225_000);
        // No window cap: the flows' windows are CUBIC's alone.
        tcp.max_cwnd_bytes = u64::MAX / 4;
        tcp.rwnd_bytes = u64::MAX / 4;
        let scheme = PacketScheme::assemble(
            NAME,
            tcp,
            Cc::Cubic(Cubic::default()),
            crate::schemes::QueueSpec::DropTail(DropTailParams),
        );
        let us = |x: u64| SimTime::from_delta(Delta::from_us(x));
        let flow = |id: u32, src: usize, start: u64| FlowSpec {
            id: FlowId(id),
            src: t.hosts()[src],
            dst: t.hosts()[2],
            size_bytes: None,
            start: us(start),
            stop: None,
            coflow: None,
        };
        // The second flow starts once the first owns the link.
        let wl = Workload {
            flows: vec![flow(0, 0, 0), flow(1, 1, 5_000)],
            incasts: Vec::new(),
        };
        let end = 60_000u64;
        let mut opts = RunOptions::new(1, us(end));
        opts.throughput_bin = Some(Delta::from_ms(1));
        let routing = Routing::new(&t).unwrap();
        let r = Simulation::new(&t, &routing, &scheme, &wl, opts)
            .unwrap()
            .run(&mut |_| {});
        // Last half of the run, per flow.
        let share = |i: usize| -> f64 {
            let bins = &r.throughput[i].1;
            bins.iter().skip(30).take(30).sum::<u64>() as f64
        };
        let (a, b) = (share(0), share(1));
        let jain = (a + b).powi(2) / (2.0 * (a * a + b * b));
        let gbps = (a + b) * 8.0 / 0.030 / 1e9;
        eprintln!("cubic shares {a} {b}, Jain {jain:.4}, {gbps:.2} Gb/s");
        assert!(jain >= 0.95, "Jain {jain}: {a} vs {b}");
        assert!(gbps > 4.5, "the pair fills the link: {gbps} Gb/s");
        assert!(r.counters.dropped_packets > 0, "CUBIC probes until loss");
    }
}
