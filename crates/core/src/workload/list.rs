//! Explicit flow lists: long-lived flows with start and stop times (convergence experiments)
//! and CSV files.
//!
//! CSV columns (header required): `src,dst,size_bytes,start_us` and optionally `stop_us` and
//! `coflow`. `src` and `dst` are host indices; an empty `size_bytes` means a long-lived flow,
//! which then needs `stop_us`.

use super::WorkloadError;
use crate::ids::{CoflowId, FlowId};
use crate::spec::FlowSpec;
use crate::topology::Topology;
use crate::units::checked::{self, SpanRule};
use crate::units::{Delta, SimTime};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One long-lived (or sized) flow given explicitly in a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExplicitFlow {
    /// Sender host index.
    pub src: usize,
    /// Receiver host index.
    pub dst: usize,
    /// Start time, us.
    #[serde(default)]
    pub start_us: f64,
    /// Stop time, us (long-lived flows stop sending then).
    #[serde(default)]
    pub stop_us: Option<f64>,
    /// Bytes to send; absent for a long-lived flow.
    #[serde(default)]
    pub size_bytes: Option<u64>,
    /// Coflow the flow belongs to.
    #[serde(default)]
    pub coflow: Option<u32>,
}

impl ExplicitFlow {
    /// Checks the flow against the fabric and a run that ends at `end`, and turns it into a
    /// [`FlowSpec`]; `key` names it in errors (e.g. `flows[3]`). A flow that would start at
    /// or after `end` never starts, and is refused.
    pub fn to_spec(
        &self,
        topo: &Topology,
        id: FlowId,
        key: &str,
        end: SimTime,
    ) -> Result<FlowSpec, WorkloadError> {
        let n = topo.hosts().len();
        let host = |field: &str, i: usize| {
            if i < n {
                Ok(topo.hosts()[i])
            } else {
                Err(WorkloadError::invalid(
                    format!("{key}.{field}"),
                    format!("host index {i} but the fabric has {n} hosts"),
                ))
            }
        };
        let (src, dst) = (host("src", self.src)?, host("dst", self.dst)?);
        if src == dst {
            return Err(WorkloadError::invalid(
                format!("{key}.dst"),
                "a flow needs two different hosts",
            ));
        }
        let time = |field: &str, us: f64| {
            checked::span_us(
                &format!("{key}.{field}"),
                us,
                SpanRule::zero_or_more(Delta(u64::MAX)),
            )
            .map(SimTime::from_delta)
            .map_err(WorkloadError::Invalid)
        };
        let late = self.start_us.is_finite() && self.start_us * 1e6 >= end.0 as f64;
        let start = if late {
            end
        } else {
            time("start_us", self.start_us)?
        };
        if start >= end {
            return Err(WorkloadError::invalid(
                format!("{key}.start_us"),
                format!(
                    "{:e} us is at or after the end of the run ({} us): the flow would never start",
                    self.start_us,
                    end.as_us_f64()
                ),
            ));
        }
        let stop = self.stop_us.map(|s| time("stop_us", s)).transpose()?;
        if let Some(stop) = stop {
            if stop <= start {
                return Err(WorkloadError::invalid(
                    format!("{key}.stop_us"),
                    "must be after start_us",
                ));
            }
        }
        match (self.size_bytes, stop) {
            (Some(0), _) => {
                return Err(WorkloadError::invalid(
                    format!("{key}.size_bytes"),
                    "must be positive",
                ))
            }
            (Some(b), _) if b > super::MAX_FLOW_BYTES => {
                return Err(WorkloadError::invalid(
                    format!("{key}.size_bytes"),
                    format!(
                        "{b} bytes is more than the {} a flow may carry",
                        crate::units::human_bytes(super::MAX_FLOW_BYTES)
                    ),
                ))
            }
            (None, None) => {
                return Err(WorkloadError::invalid(
                    format!("{key}.stop_us"),
                    "a long-lived flow (no size_bytes) needs a stop time",
                ))
            }
            _ => {}
        }
        Ok(FlowSpec {
            id,
            src,
            dst,
            size_bytes: self.size_bytes,
            start,
            stop,
            coflow: self.coflow.map(CoflowId),
        })
    }
}

/// Turns explicit flows into specs with ids from `first_id`, sorted by start time, for a run
/// that ends at `end`.
pub fn explicit_flows(
    topo: &Topology,
    flows: &[ExplicitFlow],
    first_id: u32,
    end: SimTime,
) -> Result<Vec<FlowSpec>, WorkloadError> {
    let mut out = flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            f.to_spec(
                topo,
                FlowId(first_id + i as u32),
                &format!("flows[{i}]"),
                end,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    out.sort_by_key(|f| (f.start, f.id));
    Ok(out)
}

/// Reads a CSV flow list (see the module docs) for a run that ends at `end`.
pub fn read_csv(
    topo: &Topology,
    path: &Path,
    first_id: u32,
    end: SimTime,
) -> Result<Vec<FlowSpec>, WorkloadError> {
    let file = path.display().to_string();
    let text = crate::input::read_input_file(path).map_err(|e| WorkloadError::File {
        file: file.clone(),
        reason: e.to_string(),
    })?;
    parse_csv(topo, &file, &text, first_id, end)
}

/// Parses CSV flow list `text` (see the module docs) for a run that ends at `end`; `file`
/// names it in errors.
pub fn parse_csv(
    topo: &Topology,
    file: &str,
    text: &str,
    first_id: u32,
    end: SimTime,
) -> Result<Vec<FlowSpec>, WorkloadError> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut flows = Vec::new();
    for (i, row) in reader.deserialize::<ExplicitFlow>().enumerate() {
        // Header is line 1, so record i is on line i + 2.
        let line = i + 2;
        let bad = |reason: String| WorkloadError::BadLine {
            file: file.to_string(),
            line,
            reason,
        };
        let f = row.map_err(|e| bad(e.to_string()))?;
        let id = u32::try_from(i)
            .ok()
            .and_then(|i| first_id.checked_add(i))
            .ok_or_else(|| bad("more flows than flow ids".into()))?;
        let spec = f
            .to_spec(topo, FlowId(id), "flow", end)
            .map_err(|e| bad(e.to_string()))?;
        flows.push(spec);
    }
    flows.sort_by_key(|f| (f.start, f.id));
    Ok(flows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::preset;

    fn topo() -> Topology {
        preset("flowtune-144")
            .unwrap()
            .build(Path::new("."))
            .unwrap()
    }

    #[test]
    fn csv_rows_become_flows_and_bad_rows_name_their_line() {
        let t = topo();
        let dir = std::env::temp_dir().join(format!("dctc-csv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("flows.csv");
        std::fs::write(
            &p,
            "src,dst,size_bytes,start_us,stop_us\n0,1,1000,5,\n2,3,,0,100\n",
        )
        .unwrap();
        let flows = read_csv(&t, &p, 0, SimTime::NEVER).unwrap();
        assert_eq!(flows.len(), 2);
        assert_eq!(flows[0].size_bytes, None);
        assert_eq!(flows[0].stop, Some(SimTime(100_000_000)));
        assert_eq!(flows[1].size_bytes, Some(1000));
        std::fs::write(&p, "src,dst,size_bytes,start_us\n0,1,1000,5\n0,999,10,0\n").unwrap();
        let e = read_csv(&t, &p, 0, SimTime::NEVER).unwrap_err();
        assert!(matches!(e, WorkloadError::BadLine { line: 3, .. }), "{e}");
        assert!(e.to_string().contains("host index 999"), "{e}");
        // A flow starting after the run ends, or at a time that is no number of picoseconds.
        std::fs::write(&p, "src,dst,size_bytes,start_us\n0,1,1000,5\n0,2,10,1e20\n").unwrap();
        let e = read_csv(&t, &p, 0, SimTime(1_000_000_000)).unwrap_err();
        assert!(matches!(e, WorkloadError::BadLine { line: 3, .. }), "{e}");
        assert!(e.to_string().contains("the flow would never start"), "{e}");
        std::fs::write(&p, "src,dst,size_bytes,start_us\n0,1,1000,1e-300\n").unwrap();
        let e = read_csv(&t, &p, 0, SimTime::NEVER).unwrap_err();
        assert!(e.to_string().contains("is 0 ps"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn long_lived_flow_needs_a_stop() {
        let t = topo();
        let f = ExplicitFlow {
            src: 0,
            dst: 1,
            start_us: 0.0,
            stop_us: None,
            size_bytes: None,
            coflow: None,
        };
        let e = explicit_flows(&t, std::slice::from_ref(&f), 0, SimTime::NEVER).unwrap_err();
        assert_eq!(
            e.to_string(),
            "flows[0].stop_us: a long-lived flow (no size_bytes) needs a stop time"
        );
        let late = ExplicitFlow {
            start_us: 1e20,
            size_bytes: Some(1000),
            ..f
        };
        let end = SimTime(1_000_000_000);
        let e = explicit_flows(&t, std::slice::from_ref(&late), 0, end).unwrap_err();
        assert!(
            e.to_string().starts_with(
                "flows[0].start_us: 1e20 us is at or after the end of the run (1000 us)"
            ),
            "{e}"
        );
        let on_time = ExplicitFlow {
            start_us: 999.0,
            ..late
        };
        assert_eq!(explicit_flows(&t, &[on_time], 0, end).unwrap().len(), 1);
    }
}
