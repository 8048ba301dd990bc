//! `flowtune`: Flowtune (Perry et al., SIGCOMM 2017) in the fabric. Endpoints tell an
//! allocator node of each flowlet's start and end over control connections; the allocator runs
//! NED + F-NORM every 10 us and sends rate updates back; endpoints pace at their allocated
//! rate with the window open (see `crate::control` and `crate::transport::flowtune`). Switch
//! queues are DropTail. The fabric needs the allocator node
//! (`dctc_core::fabric::attach_allocator`; `dctc` adds it to a scenario's fabric when a scheme
//! needs it).
//!
//! Keys (defaults from §6.2-6.4): `flowtune_threshold` (0.01), `utility` (`"log"`, or
//! `"alpha"` with `utility_alpha`), `normalizer` (`"f-norm"`, `"u-norm"`, `"none"`),
//! `ned_gamma` (0.4), `allocator_interval_us` (10), `flowlet_idle_us` (20),
//! `allocator_gbps` (40). `churn_optimal_every` (off by default) measures every allocator
//! iteration as Flowtune §6.6 does (over-allocation without normalization, F-NORM and U-NORM
//! throughput against the optimum computed every that many iterations), leaving out those
//! before `churn_warmup_us` (0).

use super::{Context, Parts};
use crate::keys::Range;
use crate::queue::Discipline;
use crate::queue::droptail::DropTailParams;

use dctc_core::error::KeyError;
use crate::transport::flowtune::{AllocatorSpec, Flowtune};
use crate::transport::Cc;
use dctc_core::units::Delta;
use dctc_num::normalize::Normalize;
use dctc_num::utility::Utility;

/// Registered name.
pub const NAME: &str = "flowtune";
/// `dctc list` description.
pub const ABOUT: &str =
    "Flowtune: allocator node runs NED + F-NORM every 10 us on flowlets; endpoints pace at the allocated rate";

crate::scheme_config! {
    /// Relative rate change that triggers an update, in [0, 0.5] (default 0.01); links are
    /// allocated at 1 - threshold.
    flowtune_threshold: Option<f64>,
    /// Flowlet utility: `"log"` (proportional fairness, default) or `"alpha"`.
    utility: Option<String>,
    /// alpha of the `"alpha"` utility, positive.
    utility_alpha: Option<f64>,
    /// Normalizer: `"f-norm"` (default), `"u-norm"` or `"none"`.
    normalizer: Option<String>,
    /// NED's gamma, positive (default 0.4).
    ned_gamma: Option<f64>,
    /// Allocator iteration interval, us, positive (default 10).
    allocator_interval_us: Option<f64>,
    /// A flowlet ends after the sender's queue stays empty this long, us, positive
    /// (default 20).
    flowlet_idle_us: Option<f64>,
    /// Rate of the allocator's link to each spine, Gb/s, positive (default 40).
    allocator_gbps: Option<f64>,
    /// Measure Flowtune §6.6 on the allocator's iterations, with the optimum every this many
    /// iterations, positive (default: not measured).
    churn_optimal_every: Option<u64>,
    /// Iterations before this time (us, at least 0) are left out of the churn figures
    /// (default 0; needs `churn_optimal_every`).
    churn_warmup_us: Option<f64>,
}

fn positive(ctx: &Context, key: &str, v: Option<f64>, default: f64) -> Result<f64, KeyError> {
    Ok(ctx.at().number(key, v, Range::POSITIVE)?.unwrap_or(default))
}

/// At most a second.
fn micros(ctx: &Context, key: &str, v: Option<f64>, default: f64) -> Result<Delta, KeyError> {
    let range = Range::open_closed(0.0, 1e6);
    let d = ctx.at().micros(key, v, range)?;
    Ok(d.unwrap_or_else(|| Delta::from_us_f64(default)))
}

/// Flowtune's endpoint over DropTail, with its allocator's settings.
pub fn parts(cfg: &Config, ctx: &Context) -> Result<Parts, KeyError> {
    let mut spec = AllocatorSpec::default();
    if let Some(t) = cfg.flowtune_threshold {
        if !(0.0..=0.5).contains(&t) {
            return Err(ctx.error(
                "flowtune_threshold",
                format!("must be in [0, 0.5], got {t}"),
            ));
        }
        spec.threshold = t;
    }
    spec.utility = match cfg.utility.as_deref() {
        None | Some("log") => {
            if cfg.utility_alpha.is_some() {
                return Err(ctx.error("utility_alpha", "applies to utility = \"alpha\" only"));
            }
            Utility::Log { weight: 1.0 }
        }
        Some("alpha") => {
            let alpha = cfg
                .utility_alpha
                .ok_or_else(|| ctx.error("utility_alpha", "utility = \"alpha\" needs alpha"))?;
            let u = Utility::Alpha { weight: 1.0, alpha };
            u.check()
                .map_err(|(k, v)| ctx.error("utility_alpha", format!("{k} must be positive, got {v}")))?;
            u
        }
        Some(other) => {
            return Err(ctx.error(
                "utility",
                format!("unknown utility `{other}`; utilities: log, alpha"),
            ))
        }
    };
    spec.normalizer = match cfg.normalizer.as_deref() {
        None | Some("f-norm") => Normalize::FNorm,
        Some("u-norm") => Normalize::UNorm,
        Some("none") => Normalize::None,
        Some(other) => {
            return Err(ctx.error(
                "normalizer",
                format!("unknown normalizer `{other}`; normalizers: f-norm, u-norm, none"),
            ))
        }
    };
    spec.gamma = positive(ctx, "ned_gamma", cfg.ned_gamma, 0.4)?;
    spec.interval = micros(ctx, "allocator_interval_us", cfg.allocator_interval_us, 10.0)?;
    spec.flowlet_idle = micros(ctx, "flowlet_idle_us", cfg.flowlet_idle_us, 20.0)?;
    spec.link_gbps = positive(ctx, "allocator_gbps", cfg.allocator_gbps, 40.0)?;
    if spec.link_gbps > dctc_core::fabric::MAX_RATE_GBPS {
        return Err(ctx.error(
            "allocator_gbps",
            format!("must be at most {} Gb/s", dctc_core::fabric::MAX_RATE_GBPS),
        ));
    }
    match cfg.churn_optimal_every {
        Some(0) => {
            return Err(ctx.error("churn_optimal_every", "must be positive, got 0"));
        }
        Some(n) if n > 1_000_000 => {
            return Err(ctx.error(
                "churn_optimal_every",
                format!("must be at most 1000000, got {n}"),
            ));
        }
        _ => spec.churn_optimal_every = cfg.churn_optimal_every,
    }
    if let Some(w) = cfg.churn_warmup_us {
        if spec.churn_optimal_every.is_none() {
            return Err(ctx.error(
                "churn_warmup_us",
                "applies only with churn_optimal_every",
            ));
        }
        if !(w.is_finite() && (0.0..=1e6).contains(&w)) {
            return Err(ctx.error(
                "churn_warmup_us",
                format!("must be in [0, 1e6] us, got {w}"),
            ));
        }
        spec.churn_warmup = Delta::from_us_f64(w);
    }
    Ok(Parts {
        nic_switch: false,
        cc: Cc::Flowtune(Flowtune::new(spec)),
        queue: DropTailParams::NAME,
        // Until its first rate a flow is plain TCP; ns-2's initial window of 2 packets (the
        // paper's simulator; the paper gives none) keeps that start from flooding a link the
        // allocator has already given away at 99%.
        tcp: crate::config::TcpKnobs {
            initial_cwnd_packets: Some(2),
            ..Default::default()
        },
    })
}

#[cfg(test)]
mod tests {
    use crate::config::PacketSettings;
    use dctc_core::error::KeyError;
    use crate::sim::PacketScheme;
use crate::schemes::resolve_scheme;
    use crate::transport::Cc;
    use dctc_core::fabric::{preset, FabricSpec};
    use dctc_num::normalize::Normalize;
    use dctc_num::utility::Utility;


    fn resolve(src: &str) -> Result<PacketScheme, KeyError> {
        let FabricSpec::LeafSpine(s) = preset("flowtune-144").unwrap() else {
            unreachable!()
        };
        let t = dctc_core::fabric::leaf_spine(&s).unwrap();
        let table = crate::toml_table::TomlTable::new(&format!("name = \"flowtune\"\n{src}"), "schemes[0]");
        resolve_scheme(&table, &PacketSettings::default(), &t, "schemes[0]")
    }

    #[test]
    fn defaults_are_the_papers_and_keys_are_validated() {
        let s = resolve("").unwrap();
        let spec = s.cc.allocator_spec().unwrap();
        assert_eq!(spec.threshold, 0.01);
        assert_eq!(spec.gamma, 0.4);
        assert_eq!(spec.interval.0, 10_000_000);
        assert_eq!(spec.normalizer, Normalize::FNorm);
        assert_eq!(spec.utility, Utility::Log { weight: 1.0 });
        assert_eq!(spec.link_gbps, 40.0);
        assert_eq!(spec.churn_optimal_every, None);
        assert!(matches!(s.cc, Cc::Flowtune(_)));
        let s = resolve(
            "flowtune_threshold = 0.05\nutility = \"alpha\"\nutility_alpha = 2.0\nnormalizer = \"u-norm\"\nflowlet_idle_us = 50",
        )
        .unwrap();
        let spec = s.cc.allocator_spec().unwrap();
        assert_eq!(spec.threshold, 0.05);
        assert_eq!(spec.normalizer, Normalize::UNorm);
        assert_eq!(spec.utility, Utility::Alpha { weight: 1.0, alpha: 2.0 });
        assert_eq!(spec.flowlet_idle.0, 50_000_000);
        let s = resolve("churn_optimal_every = 5\nchurn_warmup_us = 200").unwrap();
        let spec = s.cc.allocator_spec().unwrap();
        assert_eq!(spec.churn_optimal_every, Some(5));
        assert_eq!(spec.churn_warmup.0, 200_000_000);
        // Other schemes have no allocator.
        assert!(Cc::from_name("dctcp").unwrap().allocator_spec().is_none());
        for (src, key) in [
            ("flowtune_threshold = 0.7", "flowtune_threshold"),
            ("flowtune_threshold = -0.1", "flowtune_threshold"),
            ("utility = \"max-min\"", "utility"),
            ("utility = \"alpha\"", "utility_alpha"),
            ("utility = \"alpha\"\nutility_alpha = -1.0", "utility_alpha"),
            ("utility_alpha = 2.0", "utility_alpha"),
            ("normalizer = \"z-norm\"", "normalizer"),
            ("ned_gamma = 0.0", "ned_gamma"),
            ("allocator_interval_us = -1.0", "allocator_interval_us"),
            ("flowlet_idle_us = 0.0", "flowlet_idle_us"),
            ("allocator_gbps = 1e9", "allocator_gbps"),
            ("churn_optimal_every = 0", "churn_optimal_every"),
            ("churn_optimal_every = 2000000", "churn_optimal_every"),
            ("churn_warmup_us = 100", "churn_warmup_us"),
            ("churn_optimal_every = 1\nchurn_warmup_us = -1", "churn_warmup_us"),
        ] {
            let e = resolve(src).unwrap_err();
            assert_eq!(e.path, format!("schemes[0].{key}"), "{src}: {e:?}");
        }
        let e = resolve("dctcp_g = 0.5").unwrap_err();
        assert!(e.reason.contains("a key of scheme `dctcp`"), "{e:?}");
    }
}
