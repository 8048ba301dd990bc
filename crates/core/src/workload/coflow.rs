//! Coflow workloads' scenario keys: a recorded coflow trace (`kind = "coflow-trace"`) and
//! synthetic coflows (`kind = "synthetic-coflows"`). The flow engine turns them into coflows
//! (`dctc_flow::workload`, which also describes the trace format and the size model).

use crate::error::KeyError;
use serde::Deserialize;

/// The largest offered load a coflow workload or a flow-engine load sweep accepts: the trace's
/// arrivals compressed so that it offers up to 10x what the hosts can send (above 1 the hosts
/// are oversubscribed and the backlog grows; a larger figure is most likely a percentage).
pub const MAX_LOAD: f64 = 10.0;

/// Where trace endpoints go.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// Every flow's sender and receiver uniform over the hosts (DBA §5.1).
    #[default]
    Random,
    /// Trace port `p` -> host `floor(p * hosts / ports)`.
    Ports,
}

/// Around which mean a trace coflow's flow sizes are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SizeModel {
    /// Every flow of a coflow around the coflow's total over its flow count (DBA §5.1).
    #[default]
    CoflowMean,
    /// The flows into one reducer around that reducer's bytes over the mapper count.
    ReducerMean,
}

/// When trace coflows arrive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Arrivals {
    /// Scaled by one factor so that the trace offers `load` (DBA §5.1).
    #[default]
    Load,
    /// At the trace's own times (its millisecond stamps); `load` is ignored.
    Native,
}

/// How to turn a trace into coflows (`kind = "coflow-trace"`).
#[derive(Clone, Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Trace file, relative to the scenario.
    pub path: String,
    /// Offered load as a fraction of the hosts' total link rate (0.1..1 in DBA); used with
    /// `arrivals = "load"`.
    #[serde(default = "one")]
    pub load: f64,
    /// Arrival times: scaled to `load` (default) or the trace's own.
    #[serde(default)]
    pub arrivals: Arrivals,
    /// Mean coefficient of variation of flow sizes within a coflow.
    #[serde(default = "half")]
    pub cv: f64,
    /// Around which mean flow sizes are drawn (default: the coflow's, as DBA §5.1).
    #[serde(default)]
    pub sizes: SizeModel,
    /// Endpoint placement.
    #[serde(default)]
    pub placement: Placement,
    /// Use only the first this many coflows (after `skip_coflows`), e.g. for short CI runs.
    #[serde(default)]
    pub max_coflows: Option<usize>,
    /// Skip this many coflows at the start of the trace.
    #[serde(default)]
    pub skip_coflows: usize,
    /// Narrow wide coflows for quick runs: keep at most this many mappers per coflow (the
    /// first ones); each reducer's bytes are spread over the kept mappers.
    #[serde(default)]
    pub max_mappers: Option<usize>,
    /// Keep at most this many reducers per coflow (the first ones), their sizes scaled up so
    /// the coflow's total is kept.
    #[serde(default)]
    pub max_reducers: Option<usize>,
    /// Multiply every shuffle size by this (e.g. 0.01 for a quick run); applied before the
    /// load scaling, so the load is kept.
    #[serde(default = "one")]
    pub size_scale: f64,
}

fn one() -> f64 {
    1.0
}
fn half() -> f64 {
    0.5
}

impl TraceSpec {
    /// Checks the parameters; paths are relative to the workload's table.
    pub fn validate(&self) -> Result<(), KeyError> {
        if !(self.load.is_finite() && self.load > 0.0 && self.load <= MAX_LOAD) {
            return Err(KeyError::new(
                "load",
                format!("must be in (0, {MAX_LOAD}], got {}", self.load),
            ));
        }
        if !(self.cv.is_finite() && self.cv >= 0.0) {
            return Err(KeyError::new(
                "cv",
                format!("must be >= 0, got {}", self.cv),
            ));
        }
        if !(self.size_scale.is_finite() && self.size_scale > 0.0) {
            return Err(KeyError::new("size_scale", "must be > 0"));
        }
        if self.max_mappers == Some(0) || self.max_reducers == Some(0) {
            return Err(KeyError::new("max_mappers", "must be at least 1"));
        }
        if self.max_coflows == Some(0) {
            return Err(KeyError::new("max_coflows", "must be at least 1"));
        }
        Ok(())
    }
}

/// Synthetic coflows (`kind = "synthetic-coflows"`): Poisson arrivals at a load, width
/// (flows per coflow) uniform in `[width_min, width_max]`, flow sizes from a CDF, endpoints
/// uniform over the hosts.
#[derive(Clone, Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SyntheticSpec {
    /// Number of coflows.
    pub coflows: usize,
    /// Offered load (fraction of the hosts' total link rate).
    pub load: f64,
    /// Fewest flows per coflow.
    pub width_min: usize,
    /// Most flows per coflow.
    pub width_max: usize,
    /// Flow-size CDF: a built-in name (`websearch`, `datamining`, `fb-web`, ...) or a file.
    pub cdf: String,
}

impl SyntheticSpec {
    /// Checks the parameters; paths are relative to the workload's table.
    pub fn validate(&self) -> Result<(), KeyError> {
        if self.coflows == 0 {
            return Err(KeyError::new("coflows", "must be at least 1"));
        }
        if self.width_min == 0 || self.width_max < self.width_min {
            return Err(KeyError::new(
                "width_min",
                "need 1 <= width_min <= width_max",
            ));
        }
        if !(self.load.is_finite() && self.load > 0.0) {
            return Err(KeyError::new("load", "must be > 0"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_spec_defaults_and_checks() {
        let t: TraceSpec = toml::from_str("path = \"t\"").unwrap();
        assert_eq!((t.load, t.cv, t.size_scale), (1.0, 0.5, 1.0));
        assert_eq!(t.arrivals, Arrivals::Load);
        assert!(t.validate().is_ok());
        let bad = TraceSpec {
            size_scale: 0.0,
            ..t.clone()
        };
        assert_eq!(bad.validate().unwrap_err().path, "size_scale");
        let bad = TraceSpec {
            max_reducers: Some(0),
            ..t
        };
        assert_eq!(bad.validate().unwrap_err().path, "max_mappers");
    }

    #[test]
    fn synthetic_spec_checks_its_widths() {
        let s = SyntheticSpec {
            coflows: 3,
            load: 0.5,
            width_min: 4,
            width_max: 2,
            cdf: "websearch".into(),
        };
        assert_eq!(s.validate().unwrap_err().path, "width_min");
        let s = SyntheticSpec { width_max: 4, ..s };
        assert!(s.validate().is_ok());
        assert_eq!(
            SyntheticSpec { coflows: 0, ..s }
                .validate()
                .unwrap_err()
                .path,
            "coflows"
        );
    }
}
