//! `holnet-cc`: HOLNET's end-to-end CC / CC-CoS controllers (HOLNET §IV-A, eq. (19)) over
//! DropTail switch queues. Each flow's base utility `w U_alpha` and class of service come
//! from the per-flow table `flows` (keyed by workload flow id), with the utility written as
//! in `dctc num` problems and weighted by crates/num (the `holnet` kind computes the
//! center-of-utility weight, eq. (4), (9)):
//!
//! ```toml
//! [[schemes]]
//! name = "holnet-cc"
//! flows = [
//!   { flow = 0, utility = { kind = "holnet", alpha = 0.5, saturated_bps = 4e8,
//!     base_center_bps = 1e8, user = { kind = "alpha", alpha = 0.5 } } },
//!   { flow = 1, min_bps = 2e7, utility = { kind = "alpha", alpha = 0.75, weight = 3.6 } },
//! ]
//! ```
//!
//! Keys: `flows[i].flow`, `.utility`, `.min_bps` (theta, default 0), `.max_bps` (Theta,
//! default none); `utility` (flows not listed, default `log x`, weight 1);
//! `gamma` (default 1/2), `rate_unit_bps` (the rate unit of the marginal utility, default
//! 1e6: Mb/s, the paper's), `r_max` (`r_max^CoS`, default 3 as in the paper), `r_min`
//! (default 1/2).

use super::{Context, Parts};
use crate::keys::Range;
use crate::queue::Discipline;
use crate::queue::droptail::DropTailParams;

use dctc_core::error::KeyError;
use crate::transport::holnet_cc::{CosBounds, FlowParams};
use crate::transport::{Cc, HolnetCc};
use dctc_num::spec::UtilitySpec;
use dctc_num::utility::Utility;
use std::sync::Arc;

/// Registered name.
pub const NAME: &str = "holnet-cc";
/// `dctc list` description.
pub const ABOUT: &str =
    "HOLNET CC/CC-CoS (eq. 19): per-flow alpha-utility weights and minimum rates, loss-inferred congestion, DropTail";

/// One row of the per-flow table.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowEntry {
    /// Workload flow id.
    pub flow: u32,
    /// Base utility (`alpha` or `log` with a weight, or `holnet` from a user utility).
    pub utility: UtilitySpec,
    /// Minimum rate theta, b/s.
    #[serde(default)]
    pub min_bps: Option<f64>,
    /// Maximum rate Theta, b/s.
    #[serde(default)]
    pub max_bps: Option<f64>,
}

crate::scheme_config! {
    /// Per-flow utilities and classes of service.
    flows: Vec<FlowEntry>,
    /// Utility of flows not in `flows`.
    utility: Option<UtilitySpec>,
    /// gamma of z = gamma W^alpha (default 0.5).
    gamma: Option<f64>,
    /// Rate unit of the marginal utility, b/s (default 1e6).
    rate_unit_bps: Option<f64>,
    /// r_max^CoS, above 1 (default 3).
    r_max: Option<f64>,
    /// r_min^CoS, in (0, 1) (default 0.5).
    r_min: Option<f64>,
}

fn positive(ctx: &Context, key: &str, v: Option<f64>, default: f64) -> Result<f64, KeyError> {
    Ok(ctx.at().number(key, v, Range::POSITIVE)?.unwrap_or(default))
}

/// Builds a utility and checks it is one eq. (19) can run: alpha-fair or log, alpha > 0,
/// weight > 0. Returns it with its `R_s` where the spec names one.
fn utility(ctx: &Context, key: &str, spec: &UtilitySpec) -> Result<(Utility, Option<f64>), KeyError> {
    if let UtilitySpec::Holnet {
        alpha,
        saturated_bps,
        ..
    } = *spec
    {
        if !(alpha.is_finite() && alpha > 0.0) {
            return Err(ctx.error(&format!("{key}.alpha"), format!("must be positive, got {alpha}")));
        }
        if !(saturated_bps.is_finite() && saturated_bps > 0.0) {
            return Err(ctx.error(
                &format!("{key}.saturated_bps"),
                format!("must be positive, got {saturated_bps}"),
            ));
        }
    }
    if let UtilitySpec::Alpha { alpha, .. } = *spec {
        if !(alpha.is_finite() && alpha > 0.0) {
            return Err(ctx.error(&format!("{key}.alpha"), format!("must be positive, got {alpha}")));
        }
    }
    let u = spec
        .build(key)
        .map_err(|e| ctx.error(key, e.to_string()))?;
    if let Err((what, v)) = u.check() {
        return Err(ctx.error(&format!("{key}.{what}"), format!("bad value {v}")));
    }
    let u = match u.canonical() {
        c @ (Utility::Alpha { .. } | Utility::Log { .. }) => c,
        _ => {
            return Err(ctx.error(
                &format!("{key}.kind"),
                "HOLNET CC runs an alpha-fair base utility: use `alpha`, `log` or `holnet`",
            ))
        }
    };
    let rs = match *spec {
        UtilitySpec::Holnet { saturated_bps, .. } => Some(saturated_bps),
        _ => None,
    };
    Ok((u, rs))
}

/// The CC / CC-CoS controller with its per-flow table, over DropTail.
pub fn parts(cfg: &Config, ctx: &Context) -> Result<Parts, KeyError> {
    let mut cc = HolnetCc::default();
    cc.gamma = positive(ctx, "gamma", cfg.gamma, cc.gamma)?;
    cc.rate_unit_bps = positive(ctx, "rate_unit_bps", cfg.rate_unit_bps, cc.rate_unit_bps)?;
    let r_max = positive(ctx, "r_max", cfg.r_max, 3.0)?;
    if r_max <= 1.0 {
        return Err(ctx.error("r_max", format!("r_max^CoS must be above 1, got {r_max}")));
    }
    let r_min = positive(ctx, "r_min", cfg.r_min, 0.5)?;
    if r_min >= 1.0 {
        return Err(ctx.error("r_min", format!("r_min^CoS must be below 1, got {r_min}")));
    }
    cc.cos = CosBounds {
        r_max,
        r_min,
        ..CosBounds::default()
    };
    if let Some(u) = &cfg.utility {
        cc.utility = utility(ctx, "utility", u)?.0;
    }
    let mut table = Vec::with_capacity(cfg.flows.len());
    for (i, e) in cfg.flows.iter().enumerate() {
        let key = format!("flows[{i}]");
        if cfg.flows[..i].iter().any(|x| x.flow == e.flow) {
            return Err(ctx.error(&format!("{key}.flow"), format!("flow {} is listed twice", e.flow)));
        }
        let (u, rs) = utility(ctx, &format!("{key}.utility"), &e.utility)?;
        let theta = match e.min_bps {
            None => 0.0,
            Some(t) if t.is_finite() && t >= 0.0 => t,
            Some(t) => return Err(ctx.error(&format!("{key}.min_bps"), format!("must be >= 0, got {t}"))),
        };
        let max = match e.max_bps {
            None => f64::INFINITY,
            Some(t) if t.is_finite() && t > 0.0 => t,
            Some(t) => return Err(ctx.error(&format!("{key}.max_bps"), format!("must be positive, got {t}"))),
        };
        if let Some(rs) = rs.filter(|&rs| theta > rs) {
            return Err(ctx.error(
                &format!("{key}.min_bps"),
                format!("theta {theta} b/s is above the flow's saturated rate R_s {rs} b/s"),
            ));
        }
        if theta > max {
            return Err(ctx.error(
                &format!("{key}.min_bps"),
                format!("theta {theta} b/s is above max_bps {max} b/s"),
            ));
        }
        table.push((
            e.flow,
            FlowParams {
                utility: u,
                cos: CosBounds {
                    theta_bps: theta,
                    max_bps: max,
                    r_max,
                    r_min,
                },
            },
        ));
    }
    table.sort_by_key(|e| e.0);
    cc.per_flow = Arc::new(table);
    Ok(Parts {
        nic_switch: false,
        cc: Cc::HolnetCc(cc),
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
    use dctc_core::fabric::{dumbbell, DumbbellSpec};


    fn resolve(src: &str) -> Result<PacketScheme, KeyError> {
        let t = dumbbell(&DumbbellSpec {
            senders: 2,
            receivers: 1,
            host_rate_gbps: 1.0,
            bottleneck_rate_gbps: 0.1,
            link_delay_us: 100.0,
            host_delay_us: 0.0,
            buffer_bytes: 100_000,
        })
        .unwrap();
        let table = crate::toml_table::TomlTable::new(src, "schemes[0]");
        resolve_scheme(&table, &PacketSettings::default(), &t, "schemes[0]")
    }

    const NRE: &str = r#"{ kind = "holnet", alpha = 0.5, saturated_bps = 4e8, user = { kind = "alpha", alpha = 0.5 } }"#;

    #[test]
    fn per_flow_weights_come_from_the_center_of_utility() {
        let s = resolve(&format!(
            "name = \"holnet-cc\"\nflows = [{{ flow = 3, utility = {NRE} }}, {{ flow = 1, min_bps = 2e7, utility = {{ kind = \"alpha\", alpha = 0.75, weight = 2.0 }} }}]"
        ))
        .unwrap();
        let Cc::HolnetCc(c) = s.cc_for_flow(3) else {
            unreachable!()
        };
        // HOLNET eq. (4), (9): U = 2 sqrt(x), R_s = 400 Mb/s -> x^c = 133.3 Mb/s, base 1 Mb/s.
        let w = (400.0f64 / 3.0).sqrt();
        assert!((c.utility.weight() - w).abs() < 1e-6 * w, "{:?}", c.utility);
        assert_eq!(c.cos.theta_bps, 0.0);
        let Cc::HolnetCc(c) = s.cc_for_flow(1) else {
            unreachable!()
        };
        assert_eq!(c.alpha(), 0.75);
        assert_eq!((c.cos.theta_bps, c.cos.r_max), (2e7, 3.0));
        // A flow not in the table keeps the default.
        let Cc::HolnetCc(c) = s.cc_for_flow(0) else {
            unreachable!()
        };
        assert_eq!(c.utility, Utility::Log { weight: 1.0 });
    }

    #[test]
    fn bad_per_flow_values_name_their_key() {
        let e = resolve(&format!(
            "name = \"holnet-cc\"\nflows = [{{ flow = 0, min_bps = 5e8, utility = {NRE} }}]"
        ))
        .unwrap_err();
        assert_eq!(e.path, "schemes[0].flows[0].min_bps");
        assert!(e.reason.contains("above the flow's saturated rate"), "{}", e.reason);
        let e = resolve(
            "name = \"holnet-cc\"\nflows = [{ flow = 0, utility = { kind = \"alpha\", alpha = 0.0 } }]",
        )
        .unwrap_err();
        assert_eq!(e.path, "schemes[0].flows[0].utility.alpha");
        let e = resolve(
            "name = \"holnet-cc\"\nflows = [{ flow = 0, utility = { kind = \"holnet\", alpha = -1.0, saturated_bps = 1e8, user = { kind = \"log1p\" } } }]",
        )
        .unwrap_err();
        assert_eq!(e.path, "schemes[0].flows[0].utility.alpha");
        let e = resolve("name = \"holnet-cc\"\nr_max = 0.5").unwrap_err();
        assert_eq!(e.path, "schemes[0].r_max");
        let e = resolve(&format!(
            "name = \"holnet-cc\"\nflows = [{{ flow = 0, utility = {NRE} }}, {{ flow = 0, utility = {NRE} }}]"
        ))
        .unwrap_err();
        assert_eq!(e.path, "schemes[0].flows[1].flow");
    }
}
