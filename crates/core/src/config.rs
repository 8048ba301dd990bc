//! What every engine's configuration shares: the `[[workload]]` tables ([`WorkloadSpec`])
//! and the `[output]` table ([`OutputSpec`]) as scenarios write them. Each engine turns the
//! kinds and keys it runs into its own checked plan; a value that cannot be used is a
//! [`KeyError`].

use crate::error::{unknown_name, KeyError};
use crate::workload::coflow::{SyntheticSpec, TraceSpec};
use crate::workload::list::ExplicitFlow;
use crate::workload::{IncastSpec, IncastSweep, PoissonSpec};
use serde::Deserialize;

/// One `[[workload]]` table as every engine reads it, chosen by `kind`. Each engine runs the
/// kinds it lists (`dctc_packet::config::WORKLOAD_KINDS`, `dctc_flow::workload::WORKLOAD_KINDS`)
/// and turns them into its own checked plan; a kind it does not run is a [`KeyError`] at
/// `kind` ([`WorkloadSpec::unsupported`]).
#[derive(Clone, Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum WorkloadSpec {
    /// Poisson arrivals at a load (packet, flow and allocator engines).
    Poisson(PoissonSpec),
    /// Closed-loop incast (packet engine).
    Incast(IncastSpec),
    /// Explicit flows: long-lived flows with start and stop, or sized flows (packet engine).
    Flows {
        /// The flows.
        flows: Vec<ExplicitFlow>,
    },
    /// A CSV flow list (`src,dst,size_bytes,start_us[,stop_us,coflow]`; packet engine).
    Csv {
        /// Path relative to the scenario.
        path: String,
    },
    /// One incast run per sender count (TFC Fig. 12a); the scenario's only workload (packet
    /// engine).
    IncastSweep(IncastSweep),
    /// A recorded coflow trace (flow engine).
    CoflowTrace(TraceSpec),
    /// Synthetic coflows (flow engine).
    SyntheticCoflows(SyntheticSpec),
}

impl WorkloadSpec {
    /// Every kind, as scenarios name them.
    pub const KINDS: &'static [&'static str] = &[
        "poisson",
        "incast",
        "flows",
        "csv",
        "incast-sweep",
        "coflow-trace",
        "synthetic-coflows",
    ];

    /// The `kind` this table was read as.
    pub fn kind(&self) -> &'static str {
        match self {
            WorkloadSpec::Poisson(_) => "poisson",
            WorkloadSpec::Incast(_) => "incast",
            WorkloadSpec::Flows { .. } => "flows",
            WorkloadSpec::Csv { .. } => "csv",
            WorkloadSpec::IncastSweep(_) => "incast-sweep",
            WorkloadSpec::CoflowTrace(_) => "coflow-trace",
            WorkloadSpec::SyntheticCoflows(_) => "synthetic-coflows",
        }
    }

    /// The error for a kind an engine does not run, `valid` being the kinds it does; the path
    /// is relative to the workload's table.
    pub fn unsupported(&self, valid: &[&str]) -> KeyError {
        KeyError::new("kind", unknown_name("name", self.kind(), valid))
    }
}

/// The `[output]` table: what the engines record beside their results. Each engine reads only
/// its own keys (the packet engine the first seven, the flow engine the next two, both the
/// objective report's three); `dctc`
/// checks the table's keys against the running engine's list before reading it, so a key of
/// another engine is refused with the nearest valid name ([`unknown_name`]).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Packet engine: interval of switch-queue samples, us (default 100; 0 disables).
    #[serde(default)]
    pub queue_sample_us: Option<f64>,
    /// Packet engine: bin of long-lived flows' throughput series, us (default 100; 0
    /// disables).
    #[serde(default)]
    pub throughput_bin_us: Option<f64>,
    /// Packet engine: when set, `summary.json` gives each long-lived flow's (and subflow's)
    /// mean rate from this time to the end of the run, and their ratios (`mean_rate_mbps`,
    /// `subflow_mean_rate_mbps`, `rate_ratio_<a>_<b>`), ms.
    #[serde(default)]
    pub rate_average_from_ms: Option<f64>,
    /// Packet engine: the start of the measurement window, ms, in [0, duration_ms): the flow
    /// figures (`flows.csv`, FCTs, slowdowns) count only the flows that arrive from it on,
    /// and `arrival_utilization` covers it to the end of the arrivals, so a warm-up
    /// transient is left out; `summary.json` gives it as `measure_from_ms` (default: from 0).
    #[serde(default)]
    pub measure_from_ms: Option<f64>,
    /// Packet engine: upper bounds of the flow-size classes in bytes that summaries, reports
    /// and sweeps report slowdown by, beside the packet buckets (default `[100000, 10000000]`:
    /// (0, 100 KB], (100 KB, 10 MB], > 10 MB).
    #[serde(default)]
    pub size_classes_bytes: Option<Vec<u64>>,
    /// Packet engine: packet captures, one pcap file per host or switch port named (see
    /// [`PcapSpec`]).
    #[serde(default)]
    pub pcap: Option<PcapSpec>,
    /// Packet engine: when set, `summary.json`'s `convergence` (long-lived flows into one
    /// receiver, joining and leaving) also gives `joins`: after each join, the time until every
    /// active flow's rate over a window of this length is within 10% of 1/N of what the N
    /// active flows got together in it (windows slide by the throughput bin, which must divide
    /// it), us.
    #[serde(default)]
    pub convergence_window_us: Option<f64>,
    /// Packet engine: interval of samples of every switch port's queue-discipline state, us
    /// (off when absent or 0; only disciplines that report one: TFC's last time slot, E,
    /// rtt_m, rtt_b, rho, T, W): written to `port_state.csv` and summarized per port in
    /// `summary.json` (`port_state`: quantiles over the run and medians between the changes
    /// of the long-lived flows).
    #[serde(default)]
    pub port_state_sample_us: Option<f64>,
    /// Flow engine: write `flows.csv` (default true; the full trace has 706,397 flows per
    /// run).
    #[serde(default)]
    pub flows_csv: Option<bool>,
    /// Flow engine: points per CCT CDF (default 100).
    #[serde(default)]
    pub cdf_points: Option<usize>,
    /// Packet and flow engines: interval of the objective report, us (off when absent): every
    /// interval, the rates the flows got against the NUM optimum for the same flows
    /// (`dctc_num::objective`), written to `objective.csv` and summarized per scheme.
    #[serde(default)]
    pub objective_sample_us: Option<f64>,
    /// The objective report's utility: `log` (default), `alpha-fair` or `max-min`.
    #[serde(default)]
    pub objective_utility: Option<String>,
    /// The alpha of `objective_utility = "alpha-fair"` (positive, not 1).
    #[serde(default)]
    pub objective_alpha: Option<f64>,
}

impl OutputSpec {
    /// Every key, as scenarios name them.
    pub const KEYS: &'static [&'static str] = &[
        "queue_sample_us",
        "throughput_bin_us",
        "rate_average_from_ms",
        "measure_from_ms",
        "size_classes_bytes",
        "pcap",
        "convergence_window_us",
        "port_state_sample_us",
        "flows_csv",
        "cdf_points",
        "objective_sample_us",
        "objective_utility",
        "objective_alpha",
    ];
}

/// `[output] pcap = { hosts = [...], ports = [...], max_packets = N }`: the packet engine
/// writes one pcap file per point under `pcap/<scheme>/`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    /// Hosts by name (`"h0"`): every packet leaving or reaching each.
    #[serde(default)]
    pub hosts: Vec<String>,
    /// Switch ports as `[from, to]` node names (`["leaf0", "spine1"]`, the `from` and `to` of
    /// `ports.csv`): every packet the port sends.
    #[serde(default)]
    pub ports: Vec<Vec<String>>,
    /// Most packets in one file, its first ones in time (default 100,000).
    #[serde(default)]
    pub max_packets: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_prefixes_the_path() {
        let e = KeyError::new("k_bytes", "must be > 0");
        assert_eq!(e.clone().at("schemes[1]").path, "schemes[1].k_bytes");
        assert_eq!(
            e.clone().at("k_bytes").at("schemes[1]").path,
            "schemes[1].k_bytes.k_bytes"
        );
        assert_eq!(e.clone().at("").path, "k_bytes");
        assert_eq!(
            KeyError::new("[2].size", "x").at("workload").path,
            "workload[2].size"
        );
        assert_eq!(KeyError::new("", "x").at("flow").path, "flow");
        // The reason never changes.
        assert_eq!(e.at("a").at("b").reason, "must be > 0");
    }

    #[test]
    fn display_names_the_path_then_the_reason() {
        assert_eq!(
            KeyError::new("flow.within", "must be > 0").to_string(),
            "flow.within: must be > 0"
        );
        assert_eq!(KeyError::new("", "empty file").to_string(), "empty file");
    }

    #[test]
    fn workload_spec_reads_every_kind_and_names_it() {
        let read = |text: &str| toml::from_str::<WorkloadSpec>(text).map(|w| w.kind());
        assert_eq!(
            read("kind = \"poisson\"\ncdf = \"websearch\"\nload = 0.5"),
            Ok("poisson")
        );
        assert_eq!(read("kind = \"csv\"\npath = \"f.csv\""), Ok("csv"));
        assert_eq!(
            read("kind = \"coflow-trace\"\npath = \"t.txt\""),
            Ok("coflow-trace")
        );
        assert_eq!(
            read("kind = \"incast-sweep\"\nsenders = [2]\nblock_bytes = 1\nrounds = 1"),
            Ok("incast-sweep")
        );
        assert!(read("kind = \"csv\"\npath = \"f.csv\"\nextra = 1").is_err());
        assert!(read("kind = \"poison\"").is_err());
        assert_eq!(WorkloadSpec::KINDS.len(), 7);
        let w: WorkloadSpec = toml::from_str("kind = \"flows\"\nflows = []").unwrap();
        let e = w.unsupported(&["poisson"]);
        assert_eq!(e.path, "kind");
        assert_eq!(e.reason, "unknown name `flows` (valid: `poisson`)");
    }

    #[test]
    fn output_keys_of_no_engine_are_refused() {
        assert!(toml::from_str::<OutputSpec>("flows = 1").is_err());
    }
}
