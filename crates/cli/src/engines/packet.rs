//! The packet engine's scenario glue: parses `[packet]`, `[[schemes]]`, `[[workload]]` and
//! `[output]`, runs every scheme on the identical flows, and turns the runs into
//! `summary.json`, CSV tables, a console comparison and report sections.

use super::engine::Engine;
use crate::limits;
use crate::output::RunOutput;
use crate::progress::Progress;
use crate::records::Records;
use crate::scenario::{Scenario, ScenarioError};
use anyhow::Result;
use dctc_core::error::KeyError;
use dctc_core::fabric::FabricSize;
use dctc_core::routing::Routing;
use dctc_core::stats::{
    min_samples_for, BucketSlowdown, ByteClasses, Percentiles, SizeBucket, SlowdownSummary,
};
use dctc_core::topology::Topology;
use dctc_core::units::checked::{self, SpanRule};
use dctc_core::units::{Delta, SimTime};
use dctc_packet::config::{IncastSweep, PacketSettings, WorkloadPlan, WORKLOAD_KINDS};
use dctc_packet::keys::ParseTable;
use dctc_packet::metrics::PacketRun;
use dctc_packet::schemes::resolve_scheme;
use dctc_packet::{PacketScheme, RunOptions, Simulation, Workload};
use dctc_report::{Cell, Chart, Report, Section, Series, Table};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Schemes this engine runs, for `dctc list`.
pub(crate) const SCHEMES: &[(&str, &str)] = dctc_packet::SCHEMES;

/// One table of a scenario (a `[[schemes]]` entry, `[packet]`), read with the scenario's
/// key-path errors; each part of the engine takes the keys it owns.
struct SchemeTable<'a> {
    s: &'a Scenario,
    value: &'a toml::Value,
    key: &'a str,
}

impl ParseTable for SchemeTable<'_> {
    fn keys(&self) -> Vec<String> {
        let table = self.value.as_table().into_iter().flatten();
        table.map(|(k, _)| k.clone()).collect()
    }

    fn parse_keys<T: serde::de::DeserializeOwned>(&self, names: &[&str]) -> Result<T, KeyError> {
        let part: toml::Table = (self.value.as_table().into_iter().flatten())
            .filter(|(k, _)| names.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        (self.s)
            .parse(&toml::Value::Table(part), self.key)
            .map_err(|e| KeyError::new(e.key, e.reason))
    }
}

/// Everything a run needs, checked.
pub(crate) struct Plan {
    topo: Topology,
    routing: Routing,
    schemes: Vec<PacketScheme>,
    workload: Workload,
    until: SimTime,
    /// End of the arrivals (`duration_ms`); the drain follows.
    arrivals_until: SimTime,
    opts: RunOptions,
    sweep: Option<IncastSweep>,
    /// Start of the window of `output.rate_average_from_ms`.
    rate_from: Option<SimTime>,
    /// `output.size_classes_bytes`: the byte classes of the slowdown tables.
    classes: ByteClasses,
    /// `output.objective_*`: the objective report, when on.
    objective: Option<crate::objective::ObjectivePlan>,
    /// `output.convergence_window_us`: the window of the join reading, when on.
    convergence_window: Option<Delta>,
    /// The flows of `[packet] warm_start_ms`: run, then left out of every flow figure.
    warm_ids: BTreeSet<u32>,
    /// `output.measure_from_ms`: the start of the measurement window, with the flows that
    /// arrive before it (run, then left out of every flow figure, as the warm start's).
    measure_from: Option<(SimTime, BTreeSet<u32>)>,
}

/// The `[output]` keys this engine reads.
pub(crate) const OUTPUT_KEYS: &[&str] = &[
    "queue_sample_us",
    "throughput_bin_us",
    "rate_average_from_ms",
    "measure_from_ms",
    "size_classes_bytes",
    "pcap",
    "convergence_window_us",
    "port_state_sample_us",
    "objective_sample_us",
    "objective_utility",
    "objective_alpha",
];

/// The span from the start of a run to `until`.
fn span_of(until: SimTime) -> Delta {
    until.saturating_since(SimTime::ZERO)
}

/// An `[output]` period in us (default `default`; 0 turns the series off).
fn micros(
    s: &Scenario,
    key: &str,
    v: Option<f64>,
    default: f64,
) -> Result<Option<Delta>, ScenarioError> {
    let d = checked::span_us(
        key,
        v.unwrap_or(default),
        SpanRule::zero_or_more(Delta::MAX_SCENARIO),
    )
    .map_err(|e| s.key_error(e))?;
    Ok((d > Delta::ZERO).then_some(d))
}

/// Checks a scenario and, when `generate`, draws its flows; without, Poisson arrivals are only
/// counted (so `validate` never generates the workload it checks).
fn plan(s: &Scenario, generate: bool) -> Result<Plan, ScenarioError> {
    let output = s.output_spec(OUTPUT_KEYS)?;
    let mut topo = s.build_fabric()?;
    let packet = SchemeTable {
        s,
        value: &s.settings,
        key: "packet",
    };
    let settings = PacketSettings::read(&packet, &topo).map_err(|e| s.key_error(e))?;
    if s.schemes.is_empty() {
        return Err(s.error(
            "schemes",
            "list at least one [[schemes]] table (e.g. name = \"dctcp\")",
        ));
    }
    let mut schemes: Vec<PacketScheme> = Vec::new();
    for (i, v) in s.schemes.iter().enumerate() {
        let key = format!("schemes[{i}]");
        let table = SchemeTable {
            s,
            value: v,
            key: &key,
        };
        let scheme = resolve_scheme(&table, &settings, &topo, &key).map_err(|e| s.key_error(e))?;
        if schemes.iter().any(|x| x.label == scheme.label) {
            return Err(s.error(
                &format!("{key}.label"),
                format!(
                    "label `{}` is used twice; give each scheme its own label",
                    scheme.label
                ),
            ));
        }
        schemes.push(scheme);
    }
    // Flowtune's allocator joins the fabric when a scheme needs it (its links stay idle for
    // the other schemes of the scenario).
    if let Some((i, spec)) = schemes
        .iter()
        .enumerate()
        .find_map(|(i, x)| x.cc.allocator_spec().map(|a| (i, a)))
    {
        if topo
            .node_by_name(dctc_core::fabric::ALLOCATOR_NODE)
            .is_none()
        {
            dctc_core::fabric::attach_allocator(&mut topo, spec.link_gbps).map_err(|e| {
                match e {
                    // The node's link rate is the scheme's key; the rest is the fabric's.
                    dctc_core::topology::TopologyError::Invalid { key, reason } => {
                        s.error(&format!("schemes[{i}].{key}"), reason)
                    }
                    other => s.fabric_error(other),
                }
            })?;
        }
    }
    let routing = Routing::new(&topo).map_err(|e| s.fabric_error(e))?;
    let arrivals_until = SimTime::from_delta(s.duration);
    let specs = s.workload_specs(WORKLOAD_KINDS)?;
    for (i, spec) in specs.iter().enumerate() {
        if let dctc_core::config::WorkloadSpec::Poisson(p) = spec {
            crate::warn_load(s, &format!("workload[{i}].load"), p.load);
        }
    }
    let mut planned = WorkloadPlan::new(
        &specs,
        &topo,
        &s.base_dir,
        arrivals_until,
        arrivals_until + settings.drain,
        s.seed,
        generate,
    )
    .map_err(|e| s.key_error(e))?;
    planned
        .add_warm_start(&topo, s.seed, settings.warm_start)
        .map_err(|e| s.key_error(e))?;
    let WorkloadPlan {
        workload,
        sweep,
        expected_flows,
        warm_ids,
        ..
    } = planned;
    for (i, scheme) in schemes.iter().enumerate() {
        // A subflow path must join its flow's endpoints (known once the workload is).
        dctc_packet::multipath::check_endpoints(
            &scheme.subflows,
            &workload.flows,
            &topo,
            &format!("schemes[{i}]"),
        )
        .map_err(|e| s.key_error(e))?;
    }
    let until = arrivals_until + settings.drain;
    let mut opts = RunOptions::new(s.seed, until);
    opts.queue_sample = micros(s, "output.queue_sample_us", output.queue_sample_us, 100.0)?;
    opts.throughput_bin = micros(
        s,
        "output.throughput_bin_us",
        output.throughput_bin_us,
        100.0,
    )?;
    let rate_from = match output.rate_average_from_ms {
        None => None,
        Some(_) if opts.throughput_bin.is_none() => {
            return Err(s.error(
                "output.rate_average_from_ms",
                "needs the throughput series (output.throughput_bin_us above 0)",
            ))
        }
        Some(ms) if ms.is_finite() && ms >= 0.0 && ms * 1e-3 < until.as_secs_f64() => {
            Some(SimTime::from_delta(Delta::from_secs_f64(ms * 1e-3)))
        }
        Some(ms) => {
            return Err(s.error(
                "output.rate_average_from_ms",
                format!("must be at least 0 and before the end of the run, got {ms}"),
            ))
        }
    };
    let measure_from = match output.measure_from_ms {
        None => None,
        Some(_) if sweep.is_some() => {
            return Err(s.error(
                "output.measure_from_ms",
                "an incast-sweep's rounds are measured whole; a window applies to arrivals",
            ))
        }
        Some(ms) if ms.is_finite() && ms >= 0.0 && ms * 1e-3 < arrivals_until.as_secs_f64() => {
            let from = SimTime::from_delta(Delta::from_secs_f64(ms * 1e-3));
            let before = (workload.flows.iter())
                .filter(|f| f.start < from && !warm_ids.contains(&f.id.0))
                .map(|f| f.id.0)
                .collect();
            Some((from, before))
        }
        Some(ms) => {
            return Err(s.error(
                "output.measure_from_ms",
                format!(
                    "must be at least 0 and before the arrivals end (duration_ms = {}), got {ms}",
                    arrivals_until.as_secs_f64() * 1e3
                ),
            ))
        }
    };
    if let Some(spec) = &output.pcap {
        let capture = super::pcap::plan(s, spec, &topo, schemes.len(), sweep.is_some())?;
        opts.capture = Some(capture);
    }
    let objective = crate::objective::plan(s, &output, Some(span_of(until)))?;
    if objective.is_some() && (!workload.incasts.is_empty() || sweep.is_some()) {
        return Err(s.error(
            "output.objective_sample_us",
            "the objective report covers open-loop flows (poisson, flows, csv), and this \
             scenario has an incast workload, whose blocks it does not follow",
        ));
    }
    opts.objective = objective.map(|o| o.interval);
    opts.port_state_sample = port_state_sample(s, &output, &schemes, sweep.is_some())?;
    let convergence_window = match micros(
        s,
        "output.convergence_window_us",
        output.convergence_window_us,
        0.0,
    )? {
        None => None,
        Some(w) => match opts.throughput_bin {
            Some(bin) if w.0 % bin.0 == 0 => Some(w),
            Some(bin) => {
                return Err(s.error(
                    "output.convergence_window_us",
                    format!(
                        "must be a whole number of throughput bins ({} us), got {} us",
                        bin.as_us_f64(),
                        w.as_us_f64()
                    ),
                ))
            }
            None => {
                return Err(s.error(
                    "output.convergence_window_us",
                    "needs the throughput series (output.throughput_bin_us above 0)",
                ))
            }
        },
    };
    let classes = match output.size_classes_bytes {
        None => ByteClasses::default(),
        Some(bounds) => ByteClasses::new(bounds)
            .map_err(|reason| s.error("output.size_classes_bytes", reason))?,
    };
    for (i, scheme) in schemes.iter().enumerate() {
        if let Some(spec) = scheme.cc.allocator_spec() {
            limits::check_steps(
                s,
                &format!("schemes[{i}].allocator_interval_us"),
                spec.interval,
                span_of(until),
            )?;
        }
    }
    if let Some(period) = settings.lb_params.percentage.update {
        limits::check_steps(s, "packet.percentage_lb.update_us", period, span_of(until))?;
    }
    let flows = expected_flows.saturating_add(workload.flows.len() as u64);
    limits::check_memory(s, FabricSize::of(&topo), flows)?;
    let span = span_of(until);
    let switch_ports = topo
        .links()
        .iter()
        .filter(|l| !topo.is_host(l.from))
        .count();
    limits::check_samples(
        s,
        "output.queue_sample_us",
        opts.queue_sample,
        span,
        switch_ports as u64,
    )?;
    limits::check_samples(
        s,
        "output.port_state_sample_us",
        opts.port_state_sample,
        span,
        switch_ports as u64,
    )?;
    let long_lived = workload
        .flows
        .iter()
        .filter(|f| f.size_bytes.is_none())
        .count();
    limits::check_samples(
        s,
        "output.throughput_bin_us",
        opts.throughput_bin,
        span,
        long_lived as u64,
    )?;
    Ok(Plan {
        topo,
        routing,
        schemes,
        workload,
        until,
        arrivals_until,
        opts,
        sweep,
        rate_from,
        classes,
        objective,
        convergence_window,
        warm_ids,
        measure_from,
    })
}

/// `output.port_state_sample_us`: the interval of the switch ports' discipline-state samples,
/// off when absent or 0; refused where no scheme's switch discipline reports a state, or for
/// an incast sweep (whose runs record none).
fn port_state_sample(
    s: &Scenario,
    output: &dctc_core::config::OutputSpec,
    schemes: &[PacketScheme],
    sweep: bool,
) -> Result<Option<Delta>, ScenarioError> {
    const KEY: &str = "output.port_state_sample_us";
    let Some(period) = micros(s, KEY, output.port_state_sample_us, 0.0)? else {
        return Ok(None);
    };
    if sweep {
        return Err(s.error(
            KEY,
            "an incast-sweep records no per-port state; sample it in a scenario of one incast",
        ));
    }
    if schemes
        .iter()
        .all(|x| x.switch_queue.state_fields().is_empty())
    {
        let names: Vec<String> = dctc_packet::queue::QueueSpec::reporting_state()
            .iter()
            .map(|n| format!("`{n}`"))
            .collect();
        return Err(s.error(
            KEY,
            format!(
                "no scheme's switch queue reports a state to sample (the disciplines that do: {})",
                names.join(", ")
            ),
        ));
    }
    Ok(Some(period))
}

/// The packet engine.
pub(crate) struct Packet;

/// What the packet engine's runs produced.
pub(crate) enum Runs {
    /// One run per scheme.
    Schemes(Vec<PacketRun>),
    /// An incast sweep: per scheme, one run per sender count.
    Sweep(Vec<Vec<(usize, PacketRun)>>),
}

impl Engine for Packet {
    type Plan = Plan;
    type Runs = Runs;

    fn plan(s: &Scenario, generate: bool) -> Result<Plan, ScenarioError> {
        plan(s, generate)
    }

    fn execute(s: &Scenario, p: &Plan, progress: &Progress) -> Result<Runs> {
        if let Some(sw) = &p.sweep {
            return Ok(Runs::Sweep(sweep_runs(s, p, sw, progress)?));
        }
        let mut results = Vec::new();
        for scheme in &p.schemes {
            progress.begin(&scheme.label, p.until.0);
            let sim = Simulation::new(&p.topo, &p.routing, scheme, &p.workload, p.opts.clone())
                .map_err(|e| s.error("workload", e.to_string()))?;
            let mut run = sim.run(&mut |t| progress.set(t.0));
            // A warm start's flows began before the run: their times say nothing. Those that
            // arrive before the measurement window are the warm-up's.
            let before_window = p.measure_from.as_ref().map(|(_, before)| before);
            run.records.retain(|x| {
                !p.warm_ids.contains(&x.id) && !before_window.is_some_and(|b| b.contains(&x.id))
            });
            results.push(run);
            progress.finish();
        }
        Ok(Runs::Schemes(results))
    }

    fn render(s: &Scenario, p: &Plan, runs: Runs) -> RunOutput {
        match (runs, &p.sweep) {
            (Runs::Sweep(points), Some(sw)) => render_sweep(s, p, sw, &points),
            (Runs::Schemes(results), _) => render(s, p, &results),
            (Runs::Sweep(_), None) => unreachable!("a sweep's runs come from its plan"),
        }
    }
}

/// Slowdown statistics of `p` (completed flows) beside the `unfinished` ones; the
/// percentiles are null when no flow completed.
fn pct_json(p: &Percentiles, unfinished: usize, unfinished_bytes: u64) -> Value {
    let v = |x: f64| if p.count > 0 { json!(x) } else { Value::Null };
    json!({ "count": p.count, "unfinished": unfinished, "unfinished_bytes": unfinished_bytes,
            "p50": v(p.p50), "p99": v(p.p99), "p999": v(p.p999), "mean": v(p.mean), "max": v(p.max) })
}

/// A size bucket's or byte class's statistics; null when it holds no flow at all.
fn bucket_json(b: &BucketSlowdown) -> Value {
    if b.is_empty() {
        Value::Null
    } else {
        pct_json(&b.completed, b.unfinished, b.unfinished_bytes)
    }
}

/// A percentile for a table: a number, or "-" without samples, or the number marked with
/// `*` when the sample is too small for the quantile (fewer than 1 / (1 - q) values).
fn pct_cell(v: f64, count: usize, q: f64) -> Cell {
    if count == 0 {
        Cell::Text("-".into())
    } else if count < min_samples_for(q) {
        Cell::Text(format!("{}*", dctc_report::format_num(v)))
    } else {
        Cell::Num(v)
    }
}

/// The footnote for [`pct_cell`]'s mark.
const FEW_SAMPLES: &str = "* fewer than 100 (p99) or 1000 (p99.9) completed flows: the value is \
     the largest sample or next to it, not a tail estimate.";

/// What a nonzero "stalled" count means (the report says it where a scheme has any).
const STALLED: &str = "Stalled: flows that at some point held data their receiver had not \
     acknowledged, were neither paced nor waiting on their own NIC, and neither sent a packet nor \
     heard an ACK for longer than their retransmission timeout, which would have fired by then. A \
     correct engine has none: each one is a stuck flow to investigate.";

/// The warning for a run whose per-flow byte ledger did not balance (an engine bug).
const UNBALANCED: &str = "! engine invariant broken: some flows' bytes sent did not equal bytes \
     arrived + dropped + still in the network (summary.json: unbalanced_flows); please report it.";

/// The switch port every scheme's queue and utilization charts show: the one with the largest
/// time-averaged backlog summed over the schemes (link indices are the same in every run).
fn common_port(results: &[PacketRun]) -> Option<usize> {
    let first = results.first()?;
    (0..first.ports.len())
        .filter(|&i| first.ports[i].switch)
        .map(|i| {
            let sum: f64 = results.iter().map(|r| r.ports[i].mean_queue_bytes).sum();
            (i, sum)
        })
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(i, _)| i)
}

fn scheme_summary(p: &Plan, scheme: &PacketScheme, r: &PacketRun) -> Value {
    let slow = SlowdownSummary::with_classes(&r.records, &p.classes);
    let buckets = |list: &[BucketSlowdown]| {
        let by: Map<String, Value> = list
            .iter()
            .map(|b| (b.bucket.clone(), bucket_json(b)))
            .collect();
        Value::Object(by)
    };
    let secs = (r.simulated_ps as f64 * 1e-12).max(1e-12);
    let qd = &r.queue_delay;
    let us = |ps: u64| ps as f64 / 1e6;
    let c = &r.counters;
    // Flowtune §6.5 Fig. 10: dropped bytes over the bytes hosts put on the wire.
    let frac = |part: u64, whole: u64| {
        if whole == 0 {
            0.0
        } else {
            part as f64 / whole as f64
        }
    };
    let incasts: Vec<Value> = r
        .incasts
        .iter()
        .map(|i| {
            json!({ "senders": i.senders, "rounds_completed": i.rounds_completed,
                    "goodput_gbps": i.goodput_gbps, "timeouts": i.timeouts })
        })
        .collect();
    let switch_ports: Vec<_> = r.ports.iter().filter(|x| x.switch).collect();
    let max_util = switch_ports
        .iter()
        .map(|x| x.utilization)
        .fold(0.0, f64::max);
    let max_queue = switch_ports
        .iter()
        .map(|x| x.max_queue_bytes)
        .max()
        .unwrap_or(0);
    let busiest = r
        .ports
        .iter()
        .enumerate()
        .filter(|(_, x)| x.switch)
        .max_by(|a, b| a.1.mean_queue_bytes.total_cmp(&b.1.mean_queue_bytes))
        .map(|(i, _)| i);
    let busiest_mean = busiest.map_or(0.0, |i| r.ports[i].mean_queue_bytes);
    let busiest_samples: Vec<f64> = r
        .queue_samples
        .iter()
        .filter(|x| Some(x.link as usize) == busiest)
        .map(|x| x.bytes as f64)
        .collect();
    let busiest_p = Percentiles::of(&busiest_samples);
    let mut summary = json!({
        "scheme": scheme.name,
        "ecn_k_bytes": scheme.ecn_k_bytes(),
        "flows_completed": slow.overall.count,
        "flows_unfinished": slow.unfinished,
        "long_lived_flows": r.records.iter().filter(|x| x.size == 0).count(),
        "flows_unfinished_bytes": slow.unfinished_bytes,
        "fct_slowdown": { "overall": pct_json(&slow.overall, slow.unfinished, slow.unfinished_bytes),
                          "by_size": buckets(&slow.by_size), "by_bytes": buckets(&slow.by_bytes) },
        "queue_delay_us": { "p50": us(qd.quantile(0.5)), "p99": us(qd.quantile(0.99)), "max": us(qd.max()), "mean": qd.mean() / 1e6 },
        "drops": { "packets": c.dropped_packets, "bytes": c.dropped_bytes, "fraction_of_sent": frac(c.dropped_bytes, c.sent_bytes) },
        "ecn_marks": c.ecn_marks,
        "goodput_gbps": goodput_gbps(c, secs),
        "long_flow_throughput_gbps": long_flow_throughput_gbps(&r.records),
        "switch_buffer_bytes": scheme.switch_buffer_bytes,
        "timeouts": c.timeouts,
        "spurious_timeouts": c.spurious_timeouts,
        "stalled_flows": c.stalled_flows,
        "unbalanced_flows": c.unbalanced_flows,
        "delivered_data_packets": c.delivered_data_packets,
        "retransmitted_packets": c.retransmitted_packets,
        "retransmitted_bytes": c.retransmitted_bytes,
        "reordered_packets": c.reordered_packets,
        "fct_us": super::fct::fct_json(&r.records),
        "max_switch_link_utilization": max_util,
        "max_switch_queue_bytes": max_queue,
        "busiest_switch_port": busiest.map(|i| format!("{} -> {}", r.ports[i].from, r.ports[i].to)),
        "busiest_switch_port_mean_queue_bytes": busiest_mean,
        "busiest_switch_port_sampled_queue_bytes": { "p50": busiest_p.p50, "p99": busiest_p.p99, "max": busiest_p.max },
        "incast": incasts,
        "events": c.events,
        "packet_hops": c.packet_hops,
        "simulated_ms": r.simulated_ps as f64 * 1e-9,
        "hosts": p.topo.hosts().len(),
    });
    if let dctc_packet::queue::QueueSpec::Tfc(t) = scheme.switch_queue {
        // TFC's switch parameters as resolved (defaults filled).
        summary["tfc"] = json!({ "rho0": t.rho0, "alpha": t.alpha,
            "initial_rtt_b_us": t.initial_rtt_b.as_us_f64(), "delay_arbiter": t.delay_arbiter });
    }
    if scheme.cc.allocator_spec().is_some() {
        summary["control_plane"] = control_json(p, r);
    }
    if let (Some(from), Some(obj)) = (p.rate_from, summary.as_object_mut()) {
        mean_rates(r, from, obj);
    }
    if let Some(u) = arrival_utilization(p, r) {
        summary["arrival_utilization"] = u;
    }
    if !p.warm_ids.is_empty() {
        summary["warm_start_flows"] = json!(p.warm_ids.len());
    }
    if let Some((from, before)) = &p.measure_from {
        summary["measure_from_ms"] = json!(from.0 as f64 / 1e9);
        summary["flows_before_window"] = json!(before.len());
    }
    if let Some(bin) = r.throughput_bin {
        if let Some(mut c) = convergence(&p.topo, &p.workload.flows, &r.throughput, bin) {
            if let Some(w) = p.convergence_window {
                c["joins"] = join_convergence(&p.workload.flows, &r.throughput, bin, w);
            }
            summary["convergence"] = c;
        }
    }
    if !r.port_state.is_empty() {
        summary["port_state"] = port_state_json(p, r);
    }
    summary
}

/// `output.port_state_sample_us` in `summary.json`, per switch port that reported a state,
/// keyed `<from>-><to>` (a metric path's segment: `port_state.leaf0->h5.rtt_b_us.p50`): the
/// number of samples; each field's p10, p50, p90, min, max and mean over the run; and
/// `phases`, one per span between changes of the long-lived flows (each start and stop, the
/// run's start and end), with the long-lived flows active in it and each field's median over
/// the samples taken in it (null without samples): a figure like TFC Fig. 7, which steps the
/// flow count, reads one number per step. NaN values (a TFC slot with no rho) are left out.
fn port_state_json(p: &Plan, r: &PacketRun) -> Value {
    use dctc_core::stats::percentile_sorted;
    let long: Vec<_> = (p.workload.flows.iter())
        .filter(|f| f.size_bytes.is_none())
        .collect();
    let mut bounds: Vec<u64> = vec![0, r.simulated_ps];
    for f in &long {
        bounds.push(f.start.0);
        bounds.extend(f.stop.map(|t| t.0));
    }
    bounds.retain(|&t| t <= r.simulated_ps);
    bounds.sort_unstable();
    bounds.dedup();
    let sorted = |mut v: Vec<f64>| {
        v.retain(|x| !x.is_nan());
        v.sort_by(f64::total_cmp);
        v
    };
    // One pass groups the samples by port (each port's stay in time order): filtering the
    // whole series once per port would cost ports x samples.
    let mut by_link: std::collections::BTreeMap<u32, Vec<_>> = Default::default();
    for x in &r.port_state {
        by_link.entry(x.link).or_default().push(x);
    }
    let mut out = Map::new();
    for (l, samples) in by_link {
        let fields = samples[0].fields;
        let column = |k: usize, from: u64, to: u64| {
            sorted(
                (samples.iter())
                    .filter(|x| x.time_ps >= from && x.time_ps < to)
                    .filter_map(|x| x.values.get(k).copied())
                    .collect(),
            )
        };
        let mut port = Map::new();
        port.insert("samples".into(), json!(samples.len()));
        for (k, name) in fields.iter().enumerate() {
            let v = column(k, 0, u64::MAX);
            let q = |x: f64| {
                if v.is_empty() {
                    Value::Null
                } else {
                    json!(percentile_sorted(&v, x))
                }
            };
            let mean = (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
            port.insert(
                (*name).into(),
                json!({ "p10": q(0.1), "p50": q(0.5), "p90": q(0.9), "min": q(0.0),
                        "max": q(1.0), "mean": mean }),
            );
        }
        let phases: Vec<Value> = bounds
            .windows(2)
            .map(|w| {
                let (from, to) = (w[0], w[1]);
                let active = long
                    .iter()
                    .filter(|f| f.start.0 <= from && f.stop.is_none_or(|t| t.0 > from))
                    .count();
                let n = samples
                    .iter()
                    .filter(|x| x.time_ps >= from && x.time_ps < to)
                    .count();
                let mut ph = Map::new();
                ph.insert("from_ms".into(), json!(from as f64 / 1e9));
                ph.insert("to_ms".into(), json!(to as f64 / 1e9));
                ph.insert("active_flows".into(), json!(active));
                ph.insert("samples".into(), json!(n));
                for (k, name) in fields.iter().enumerate() {
                    let v = column(k, from, to);
                    let (median, mean) = match v.is_empty() {
                        true => (None, None),
                        false => (
                            Some(percentile_sorted(&v, 0.5)),
                            Some(v.iter().sum::<f64>() / v.len() as f64),
                        ),
                    };
                    ph.insert((*name).into(), json!({ "p50": median, "mean": mean }));
                }
                Value::Object(ph)
            })
            .collect();
        port.insert("phases".into(), Value::Array(phases));
        let stats = &r.ports[l as usize];
        out.insert(format!("{}->{}", stats.from, stats.to), Value::Object(port));
    }
    Value::Object(out)
}

/// How busy the fabric was while flows arrived: wire bits the sampled switch ports finished
/// sending from the start (of the run, or of the measurement window `output.measure_from_ms`:
/// its first queue sample at or after it) to the last queue sample at or before the end of
/// the arrivals, over what they could carry in that time, for the ports between switches (a
/// leaf-spine's uplinks and downlinks) and the ports toward hosts apart. A scenario that
/// grades a claim "at heavy load" reads it to show the load its run reached (the drain after
/// the arrivals would dilute a whole-run figure); a `queue_sample_us` that divides
/// `duration_ms` (and the window's start) puts a sample at each end. `None` without samples
/// in that window.
fn arrival_utilization(p: &Plan, r: &PacketRun) -> Option<Value> {
    let from = p.measure_from.as_ref().map(|(t, _)| t.0);
    let start = match from {
        None => 0,
        Some(f) => (r.queue_samples.iter())
            .map(|x| x.time_ps)
            .filter(|&t| t >= f && t < p.arrivals_until.0)
            .min()?,
    };
    let end = r
        .queue_samples
        .iter()
        .map(|x| x.time_ps)
        .filter(|&t| t > start && t <= p.arrivals_until.0)
        .max()?;
    // Bits each sampled port had sent by the window's start (none at the run's).
    let mut sent_before: BTreeMap<u32, u64> = BTreeMap::new();
    if start > 0 {
        for x in r.queue_samples.iter().filter(|x| x.time_ps == start) {
            sent_before.insert(x.link, x.sent_bytes);
        }
    }
    // Per class: bits sent, and the links' capacity in bits per second.
    let mut sent = [0.0f64; 2];
    let mut capacity = [0.0f64; 2];
    for x in r.queue_samples.iter().filter(|x| x.time_ps == end) {
        let link = p.topo.link(dctc_core::ids::LinkId(x.link));
        if p.topo.is_host(link.from) {
            continue; // a host's NIC, when a scenario samples one: not the fabric's
        }
        let class = usize::from(p.topo.is_host(link.to));
        let before = sent_before.get(&x.link).copied().unwrap_or(0);
        sent[class] += x.sent_bytes.saturating_sub(before) as f64 * 8.0;
        capacity[class] += link.rate.bps_f64();
    }
    let secs = (end - start) as f64 / 1e12;
    let util = |k: usize| (capacity[k] > 0.0).then(|| sent[k] / (capacity[k] * secs));
    let mut out = json!({
        "until_ms": end as f64 / 1e9,
        "switch_to_switch": util(0),
        "switch_to_host": util(1),
    });
    if from.is_some() {
        out["from_ms"] = json!(start as f64 / 1e9);
    }
    Some(out)
}

/// How far a share may stray from 1/N and still count as fair in [`convergence`]: the
/// reading of Flowtune §6.3's "N flows each get 1/N of bandwidth" that the README has used
/// since the first runs (Flowtune's own allocation sits 1% below the link, its payload 2.7%
/// below the wire rate: both well inside).
const FAIR_SHARE_TOLERANCE: f64 = 0.1;

/// Flowtune §6.3 (Fig. 4): long-lived flows into one receiver that join and leave at set
/// instants. After each change (a start or a stop; none when no flow is left), the time from
/// the change to the start of the first whole throughput bin in which every active flow's
/// rate is within [`FAIR_SHARE_TOLERANCE`] of 1/N of the receiver's link, N the active
/// flows: the figure's own reading, at its bins' resolution (the paper bins by 100 us, "within
/// 100 us" of a change). A change after which no bin before the next change is fair counts
/// as the whole interval, a lower bound on its time (`unsettled` counts them). `None` unless
/// there are at least two long-lived flows, all to one receiver, with a stop time.
fn convergence(
    topo: &Topology,
    flows: &[dctc_core::spec::FlowSpec],
    throughput: &[(u32, Vec<u64>)],
    bin: Delta,
) -> Option<Value> {
    let long: Vec<_> = flows.iter().filter(|f| f.size_bytes.is_none()).collect();
    let dst = long.first()?.dst;
    if long.len() < 2 || long.iter().any(|f| f.dst != dst || f.stop.is_none()) {
        return None;
    }
    let link = topo.links().iter().find(|l| l.to == dst)?;
    let w = bin.0.max(1);
    let series = |id: u32| throughput.iter().find(|(i, _)| *i == id).map(|(_, b)| b);
    let mut changes: Vec<u64> = long
        .iter()
        .flat_map(|f| [f.start.0, f.stop.map_or(0, |t| t.0)])
        .collect();
    changes.sort_unstable();
    changes.dedup();
    let (mut times, mut unsettled) = (Vec::new(), 0u32);
    for (k, &t) in changes.iter().enumerate() {
        let active: Vec<u32> = long
            .iter()
            .filter(|f| f.start.0 <= t && f.stop.is_some_and(|s| s.0 > t))
            .map(|f| f.id.0)
            .collect();
        let Some(&next) = changes.get(k + 1) else {
            break;
        };
        if active.is_empty() {
            continue;
        }
        let share = link.rate.bps_f64() / active.len() as f64;
        let fair = |j: usize| {
            active.iter().all(|id| {
                let bytes = series(*id).and_then(|b| b.get(j)).copied().unwrap_or(0);
                let bps = bytes as f64 * 8.0 / bin.as_secs_f64();
                (bps - share).abs() <= FAIR_SHARE_TOLERANCE * share
            })
        };
        let first = t.div_ceil(w);
        let time_ps = match (first..next / w).map(|j| j as usize).find(|&j| fair(j)) {
            Some(j) => j as u64 * w - t,
            None => {
                unsettled += 1;
                next - t
            }
        };
        times.push(time_ps as f64 / 1e6);
    }
    let worst = times.iter().copied().fold(0.0, f64::max);
    Some(json!({
        "share_tolerance": FAIR_SHARE_TOLERANCE,
        "after_each_change_us": times,
        "worst_us": worst,
        "unsettled": unsettled,
    }))
}

/// `output.convergence_window_us` (TFC §6.1.2 Fig. 10, "they can get their fair share of
/// bandwidth in one round"), on [`convergence`]'s scenarios: after each start of a long-lived
/// flow that leaves two or more active, the time from the start to the first window of
/// `window` (starting at a bin boundary at or after it, ending by the next change) in which
/// every active flow's rate is within [`FAIR_SHARE_TOLERANCE`] of 1/N of what the N active
/// flows got together in that window. The share is of what they got, not of the link: the
/// claim is about how the link is shared, and the schemes hold the link at different levels
/// (TFC at rho0 = 97% by design). Windows slide by one bin, so the time has the bin's
/// resolution while each rate is averaged over the window (a 1 Gb/s link shared by five
/// carries 17 packets per flow per ms, so one packet is 6% of a 1 ms rate). A join after
/// which no window is fair counts as the whole interval to the next change, a lower bound on
/// its time (`unsettled`). `mean_us` averages the joins' times, `worst_us` is their largest.
fn join_convergence(
    flows: &[dctc_core::spec::FlowSpec],
    throughput: &[(u32, Vec<u64>)],
    bin: Delta,
    window: Delta,
) -> Value {
    let long: Vec<_> = flows.iter().filter(|f| f.size_bytes.is_none()).collect();
    let w = bin.0.max(1);
    let k = (window.0 / w).max(1) as usize;
    let series = |id: u32| throughput.iter().find(|(i, _)| *i == id).map(|(_, b)| b);
    let bytes = |id: u32, from: usize| -> u64 {
        series(id).map_or(0, |b| b.iter().skip(from).take(k).sum())
    };
    let mut changes: Vec<u64> = long
        .iter()
        .flat_map(|f| [f.start.0, f.stop.map_or(0, |t| t.0)])
        .collect();
    changes.sort_unstable();
    changes.dedup();
    let (mut times, mut unsettled) = (Vec::new(), 0u32);
    for f in &long {
        let t = f.start.0;
        let active: Vec<u32> = long
            .iter()
            .filter(|g| g.start.0 <= t && g.stop.is_some_and(|s| s.0 > t))
            .map(|g| g.id.0)
            .collect();
        let Some(&next) = changes.iter().find(|&&c| c > t) else {
            continue;
        };
        if active.len() < 2 {
            continue;
        }
        let fair = |j: usize| {
            let got: Vec<f64> = active.iter().map(|&id| bytes(id, j) as f64).collect();
            let share = got.iter().sum::<f64>() / got.len() as f64;
            share > 0.0
                && got
                    .iter()
                    .all(|x| (x - share).abs() <= FAIR_SHARE_TOLERANCE * share)
        };
        let first = t.div_ceil(w) as usize;
        let last = (next / w) as usize; // windows end by the next change
        let time_ps = match (first..=last.saturating_sub(k)).find(|&j| fair(j)) {
            Some(j) => j as u64 * w - t,
            None => {
                unsettled += 1;
                next - t
            }
        };
        times.push(time_ps as f64 / 1e6);
    }
    let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
    let worst = times.iter().copied().fold(0.0, f64::max);
    json!({
        "window_us": window.as_us_f64(),
        "share_tolerance": FAIR_SHARE_TOLERANCE,
        "after_each_join_us": times,
        "mean_us": mean,
        "worst_us": worst,
        "unsettled": unsettled,
    })
}

/// Payload delivered in order, Gb/s, over the run up to the last delivery (a run of `secs`
/// simulated seconds can go on past it with nothing left to deliver: timers of finished
/// flows, or an idle tail before the horizon).
fn goodput_gbps(c: &dctc_packet::metrics::Counters, secs: f64) -> f64 {
    let span = if c.last_goodput_ps > 0 {
        c.last_goodput_ps as f64 * 1e-12
    } else {
        secs
    };
    c.goodput_bytes as f64 * 8.0 / span / 1e9
}

/// Flowtune's control traffic (§6.4): bytes to and from the allocator, also as a fraction of
/// the network's capacity (the sum of the hosts' link rates over the run), and its updates.
fn control_json(p: &Plan, r: &PacketRun) -> Value {
    let c = &r.counters;
    let secs = (r.simulated_ps as f64 * 1e-12).max(1e-12);
    let capacity_bps: f64 = p
        .topo
        .hosts()
        .iter()
        .filter_map(|&h| p.topo.host_rate(h))
        .map(|x| x.bps_f64())
        .sum();
    let frac = |bytes: u64| bytes as f64 * 8.0 / secs / capacity_bps.max(1.0);
    let mut out = json!({
        "to_allocator_bytes": c.control_to_agent_bytes,
        "from_allocator_bytes": c.control_from_agent_bytes,
        "to_allocator_fraction_of_capacity": frac(c.control_to_agent_bytes),
        "from_allocator_fraction_of_capacity": frac(c.control_from_agent_bytes),
        "fraction_of_capacity": frac(c.control_to_agent_bytes + c.control_from_agent_bytes),
        "rate_updates": c.rate_updates,
        "rate_updates_applied": c.rate_updates_applied,
        "rate_update_delay_mean_us": c.rate_update_delay_sum_ps as f64
            / c.rate_updates_applied.max(1) as f64
            / 1e6,
        "rate_update_delay_max_us": c.rate_update_delay_max_ps as f64 / 1e6,
        "flowlets": c.flowlets,
    });
    if let Some(ch) = &r.churn {
        // Flowtune §6.6 on the allocator node's iterations (scheme key `churn_optimal_every`).
        out["churn"] = json!({
            "iterations": ch.steps,
            "optimum_iterations": ch.optimum_steps,
            "mean_flowlets": ch.mean_flows,
            "max_over_allocation_gbps": ch.max_over_allocation_bps / 1e9,
            "mean_over_allocation_gbps": ch.mean_over_allocation_bps / 1e9,
            "f_norm_fraction": ch.f_norm_fraction,
            "u_norm_fraction": ch.u_norm_fraction,
            "raw_fraction": ch.raw_fraction,
        });
    }
    out
}

/// Flowtune §6.6 measured inside the run, for the schemes that asked: the columns of the
/// allocator engine's churn table, so the two read side by side.
fn churn_section(results: &[PacketRun]) -> Option<Section> {
    let mut t = Table::new(
        "Allocator iterations under flowlet churn in the fabric (Flowtune §6.6)",
        [
            "scheme",
            "iterations",
            "mean flowlets",
            "max over-allocation Gb/s",
            "mean over-allocation Gb/s",
            "F-NORM / optimal",
            "U-NORM / optimal",
            "raw / optimal",
        ],
    );
    for r in results {
        let Some(ch) = &r.churn else { continue };
        t.push_row(vec![
            Cell::Text(r.label.clone()),
            Cell::Num(ch.steps as f64),
            Cell::Num(ch.mean_flows),
            Cell::Num(ch.max_over_allocation_bps / 1e9),
            Cell::Num(ch.mean_over_allocation_bps / 1e9),
            Cell::Num(ch.f_norm_fraction),
            Cell::Num(ch.u_norm_fraction),
            Cell::Num(ch.raw_fraction),
        ]);
    }
    if t.rows.is_empty() {
        return None;
    }
    Some(
        Section::new("Normalization under churn, in the fabric (Flowtune §6.6)")
            .with_paragraph(
                "Every iteration of the allocator node, on the flowlets the endpoints reported: the \
                 over-allocation of NED's un-normalized rates (sum over links of load above capacity) \
                 and the total F-NORM, U-NORM and raw rate as a fraction of the optimum of the same \
                 flowlet set (NED run to convergence on a copy), as the allocator engine's churn \
                 scenario measures the allocator alone.",
            )
            .with_table(t),
    )
}

/// Mean rate in Mb/s of a throughput series over its complete bins from `from` to the end.
fn mean_mbps(bins: &[u64], bin: Delta, from: SimTime, end_ps: u64) -> f64 {
    let w = bin.0.max(1);
    let first = from.0.div_ceil(w) as usize;
    let last = (end_ps / w) as usize;
    if last <= first {
        return 0.0;
    }
    let bytes: u64 = bins.iter().take(last).skip(first).sum();
    bytes as f64 * 8.0 / ((last - first) as f64 * bin.as_secs_f64()) / 1e6
}

/// `output.rate_average_from_ms`: each long-lived flow's and subflow's mean rate from `from`
/// on (`mean_rate_mbps.<id>`, `subflow_mean_rate_mbps.<id>/<k>`), and every ratio of two
/// flows' rates (`rate_ratio_<a>_<b>`, up to 8 flows).
fn mean_rates(r: &PacketRun, from: SimTime, out: &mut Map<String, Value>) {
    let Some(bin) = r.throughput_bin else {
        return;
    };
    let rates: Vec<(u32, f64)> = r
        .throughput
        .iter()
        .map(|(id, b)| (*id, mean_mbps(b, bin, from, r.simulated_ps)))
        .collect();
    let mut m = Map::new();
    for (id, x) in &rates {
        m.insert(id.to_string(), json!(x));
    }
    out.insert("mean_rate_mbps".into(), Value::Object(m));
    let mut sub = Map::new();
    for (id, k, b) in &r.subflow_throughput {
        sub.insert(
            format!("{id}/{k}"),
            json!(mean_mbps(b, bin, from, r.simulated_ps)),
        );
    }
    if !sub.is_empty() {
        out.insert("subflow_mean_rate_mbps".into(), Value::Object(sub));
    }
    if rates.len() <= 8 {
        for (a, xa) in &rates {
            for (b, xb) in &rates {
                if a != b && *xb > 0.0 {
                    out.insert(format!("rate_ratio_{a}_{b}"), json!(xa / xb));
                }
            }
        }
    }
}

/// `flows.csv`: one row per flow (the issue's columns), plus the sender count for incast
/// sweeps (`senders`, when given for every row).
fn flows_table<'a>(
    rows: impl Iterator<Item = (&'a dctc_core::stats::FlowRecord, Option<usize>)>,
    senders_column: bool,
) -> Records {
    let rows: Vec<_> = rows.collect();
    let table = Records::new()
        .uint("id", rows.iter().map(|(f, _)| u64::from(f.id)))
        .uint("src", rows.iter().map(|(f, _)| f.src as u64))
        .uint("dst", rows.iter().map(|(f, _)| f.dst as u64))
        .uint("size", rows.iter().map(|(f, _)| f.size))
        .float("start_us", rows.iter().map(|(f, _)| f.start_us))
        .opt_float("finish_us", rows.iter().map(|(f, _)| f.finish_us))
        .opt_float("fct_us", rows.iter().map(|(f, _)| f.fct_us))
        .float("ideal_fct_us", rows.iter().map(|(f, _)| f.ideal_fct_us))
        .opt_float("slowdown", rows.iter().map(|(f, _)| f.slowdown))
        .uint(
            "retransmitted_bytes",
            rows.iter().map(|(f, _)| f.retransmitted_bytes),
        )
        .uint("timeouts", rows.iter().map(|(f, _)| u64::from(f.timeouts)))
        .text("scheme", rows.iter().map(|(f, _)| f.scheme.as_str()));
    if senders_column {
        table.uint(
            "senders",
            rows.iter().map(|(_, n)| n.unwrap_or_default() as u64),
        )
    } else {
        table
    }
}

fn render(s: &Scenario, p: &Plan, results: &[PacketRun]) -> RunOutput {
    let evaluated = objective_evals(p, results);
    let evals: Vec<&crate::objective::Evaluated> = evaluated.iter().collect();
    let mut schemes = Map::new();
    for (k, (scheme, r)) in p.schemes.iter().zip(results).enumerate() {
        let mut summary = scheme_summary(p, scheme, r);
        if let (Some(o), Some(e)) = (&p.objective, evals.get(k).copied()) {
            summary["objective"] = crate::objective::summary_json(o, e);
        }
        schemes.insert(scheme.label.clone(), summary);
    }
    // The longest run's span: a run with no event left ends before `until`.
    let simulated_ps = results.iter().map(|r| r.simulated_ps).max().unwrap_or(0);
    let mut summary = json!({
        "engine": "packet",
        "fabric": p.topo.name,
        "hosts": p.topo.hosts().len(),
        "flows_offered": p.workload.flows.len(),
        "incasts": p.workload.incasts.len(),
        "simulated_ms": simulated_ps as f64 * 1e-9,
        "schemes": Value::Object(schemes.clone()),
        "relative": relative(&schemes),
    });
    if p.objective.is_some() {
        summary["objective_difference"] = crate::objective::differences(&evals);
    }
    let (mut console, main) = comparison_section(s, p, results, &schemes, simulated_ps);
    let mut sections = vec![main];
    sections.extend(size_section(p, results));
    sections.push(queue_delay_section(results));
    sections.extend(churn_section(results));
    sections.extend(throughput_section(results));
    if let Some((text, sec)) = incast_section(results) {
        console.push('\n');
        console.push_str(&text);
        sections.push(sec);
    }
    sections.extend(port_section(results));
    let mut tables = tables(results);
    if let Some(o) = &p.objective {
        console.push('\n');
        console.push_str(&crate::objective::console(o, &evals));
        sections.push(crate::objective::section(o, &evals));
        tables.push(("objective.csv".to_string(), crate::objective::table(&evals)));
    }
    let mut report = Report::new(format!("dctc: {}", s.name), s.description.clone());
    for sec in sections {
        report.push_section(sec);
    }
    let (files, written) = super::pcap::files(&p.topo, results);
    if !written.is_empty() {
        console.push('\n');
        console.push_str(&written);
    }
    RunOutput {
        summary,
        tables,
        report,
        console,
        files,
    }
}

/// The objective report of each scheme's run (empty when off). Capacities are in payload
/// bits: a link's rate times MSS / (MSS + headers), the most goodput full-size packets carry,
/// so that a scheme that fills a link with them scores an efficiency of 1.
fn objective_evals(p: &Plan, results: &[PacketRun]) -> Vec<crate::objective::Evaluated> {
    let Some(o) = &p.objective else {
        return Vec::new();
    };
    p.schemes
        .iter()
        .zip(results)
        .filter_map(|(scheme, r)| {
            let trace = r.objective.as_ref()?;
            let payload = scheme.tcp.mss as f64 / (scheme.tcp.mss + scheme.tcp.header) as f64;
            let capacity: Vec<f64> = (p.topo.links().iter())
                .map(|l| l.rate.0 as f64 * payload)
                .collect();
            Some(crate::objective::evaluate_run(
                o,
                &scheme.label,
                trace,
                &capacity,
                r.wall_seconds,
            ))
        })
        .collect()
}

/// `flows.csv`, `ports.csv`, and `queues.csv` and `throughput.csv` when the runs sampled
/// queues and long-lived flows.
fn tables(results: &[PacketRun]) -> Vec<(String, Records)> {
    let flows = flows_table(
        results
            .iter()
            .flat_map(|r| r.records.iter().map(|f| (f, None))),
        false,
    );
    let mut tables = vec![
        ("flows.csv".to_string(), flows),
        ("ports.csv".to_string(), ports_table(results)),
    ];
    if results.iter().any(|r| !r.queue_samples.is_empty()) {
        let rows: Vec<_> = results
            .iter()
            .flat_map(|r| {
                r.queue_samples
                    .iter()
                    .map(move |x| (r.label.as_str(), x, &r.ports[x.link as usize]))
            })
            .collect();
        let q = Records::new()
            .text("scheme", rows.iter().map(|(l, _, _)| *l))
            .float(
                "time_us",
                rows.iter().map(|(_, x, _)| x.time_ps as f64 / 1e6),
            )
            .text("from", rows.iter().map(|(_, _, p)| p.from.as_str()))
            .text("to", rows.iter().map(|(_, _, p)| p.to.as_str()))
            .uint("bytes", rows.iter().map(|(_, x, _)| x.bytes));
        tables.push(("queues.csv".into(), q));
    }
    if results.iter().any(|r| !r.throughput.is_empty()) {
        // (label, flow, bin start ps, bin, bytes in the bin)
        let mut rows = Vec::new();
        for r in results {
            let bin = r.throughput_bin.unwrap_or(Delta::from_us(100));
            for (id, bins) in &r.throughput {
                for (k, b) in bins.iter().enumerate() {
                    rows.push((r.label.as_str(), *id, k as u64 * bin.0, bin, *b));
                }
            }
        }
        let t = Records::new()
            .text("scheme", rows.iter().map(|r| r.0))
            .uint("flow", rows.iter().map(|r| u64::from(r.1)))
            .float("bin_start_us", rows.iter().map(|r| r.2 as f64 / 1e6))
            .float(
                "gbps",
                rows.iter()
                    .map(|r| r.4 as f64 * 8.0 / r.3.as_secs_f64() / 1e9),
            );
        tables.push(("throughput.csv".into(), t));
    }
    if results.iter().any(|r| !r.port_state.is_empty()) {
        tables.push(("port_state.csv".into(), port_state_table(results)));
    }
    tables
}

/// `port_state.csv`: every discipline-state sample of every run, one column per field (the
/// union of the runs' fields in the order first met; empty where a run's discipline has no
/// such field, or its value is not a number).
fn port_state_table(results: &[PacketRun]) -> Records {
    let rows: Vec<_> = results
        .iter()
        .flat_map(|r| {
            (r.port_state.iter()).map(move |x| (r.label.as_str(), x, &r.ports[x.link as usize]))
        })
        .collect();
    let mut fields: Vec<&str> = Vec::new();
    for (_, x, _) in &rows {
        for f in x.fields {
            if !fields.contains(f) {
                fields.push(f);
            }
        }
    }
    let mut t = Records::new()
        .text("scheme", rows.iter().map(|(l, _, _)| *l))
        .float(
            "time_us",
            rows.iter().map(|(_, x, _)| x.time_ps as f64 / 1e6),
        )
        .text("from", rows.iter().map(|(_, _, p)| p.from.as_str()))
        .text("to", rows.iter().map(|(_, _, p)| p.to.as_str()));
    for f in fields {
        let values = rows
            .iter()
            .map(|(_, x, _)| x.get(f).filter(|v| !v.is_nan()));
        t = t.opt_float(f, values);
    }
    t
}

/// `ports.csv`: every port of every run.
fn ports_table(results: &[PacketRun]) -> Records {
    let port_rows: Vec<_> = results
        .iter()
        .flat_map(|r| r.ports.iter().map(move |x| (r.label.as_str(), x)))
        .collect();
    Records::new()
        .text("scheme", port_rows.iter().map(|(l, _)| *l))
        .text("from", port_rows.iter().map(|(_, x)| x.from.as_str()))
        .text("to", port_rows.iter().map(|(_, x)| x.to.as_str()))
        .flag("switch", port_rows.iter().map(|(_, x)| x.switch))
        .uint(
            "buffer_bytes",
            port_rows.iter().map(|(_, x)| x.buffer_bytes),
        )
        .uint(
            "max_queue_bytes",
            port_rows.iter().map(|(_, x)| x.max_queue_bytes),
        )
        .fixed(
            "mean_queue_bytes",
            1,
            port_rows.iter().map(|(_, x)| x.mean_queue_bytes),
        )
        .fixed(
            "utilization",
            6,
            port_rows.iter().map(|(_, x)| x.utilization),
        )
        .uint("drops", port_rows.iter().map(|(_, x)| x.drops))
        .uint("ecn_marks", port_rows.iter().map(|(_, x)| x.ecn_marks))
}

/// The console's comparison table and the report's first section: the schemes side by side
/// (their `summary.json` entries `schemes`), and their losses.
fn comparison_section(
    s: &Scenario,
    p: &Plan,
    results: &[PacketRun],
    schemes: &Map<String, Value>,
    simulated_ps: u64,
) -> (String, Section) {
    let table = comparison_table(p, results, schemes);
    let mut console = table.to_text();
    let unfinished_any = results
        .iter()
        .any(|r| SlowdownSummary::of(&r.records).unfinished > 0);
    let spurious_any = results.iter().any(|r| r.counters.spurious_timeouts > 0);
    let stalled_any = results.iter().any(|r| r.counters.stalled_flows > 0);
    let unbalanced_any = results.iter().any(|r| r.counters.unbalanced_flows > 0);
    let mut main = Section::new("Comparison").with_paragraph(format!(
        "{} on {} ({} hosts), {} flows offered{}, {:.3} ms simulated. FCT slowdown = FCT / empty-network FCT \
         (host delay + per-hop propagation and store-and-forward of the first packet + the rest at the bottleneck rate), \
         over completed flows; \"unfinished\" flows had not completed when the run ended and are in no percentile.",
        s.description.trim(),
        p.topo.name,
        p.topo.hosts().len(),
        p.workload.flows.len(),
        if p.workload.incasts.is_empty() { String::new() } else { format!(" plus {} incast(s)", p.workload.incasts.len()) },
        simulated_ps as f64 * 1e-9
    ));
    if unfinished_any {
        main.push_paragraph(
            "Unfinished flows are mostly the largest ones, started late in the run: the slowdown \
             percentiles under-state what these would add.",
        );
    }
    if spurious_any {
        main.push_paragraph(
            "Spurious timeouts: the retransmission timer fired although the receiver already held the \
             byte it retransmits (its acknowledgement was still queued or in flight), so nothing had been \
             lost. Many of them mean the minimum RTO is shorter than the fabric's queueing delay.",
        );
    }
    if stalled_any {
        main.push_paragraph(STALLED);
    }
    if unbalanced_any {
        main.push_paragraph(UNBALANCED);
        console.push_str(UNBALANCED);
        console.push('\n');
    }
    if let Some((from, before)) = &p.measure_from {
        let text = format!(
            "Measured from {} ms (output.measure_from_ms): the flow figures count the flows that \
             arrived from then to the end of the arrivals; the {} that arrived before ran but are \
             left out, and the fabric utilization over the arrivals covers the same window.",
            from.0 as f64 / 1e9,
            before.len()
        );
        main.push_paragraph(text.clone());
        console.push_str(&text);
        console.push('\n');
    }
    main.push_paragraph(FEW_SAMPLES);
    console.push_str(FEW_SAMPLES);
    console.push('\n');
    main.push_table(table.without_column("events"));
    main.push_chart(losses_chart(results));
    (console, main)
}

/// The comparison table: one row per scheme, from its summary entry and its run.
fn comparison_table(p: &Plan, results: &[PacketRun], schemes: &Map<String, Value>) -> Table {
    let mut table = Table::new(
        "Schemes on identical arrivals",
        [
            "scheme",
            "done",
            "unfinished",
            "slowdown p50",
            "p99",
            "p99.9",
            "queue p99 us",
            "drops",
            "ECN marks",
            "timeouts",
            "spurious timeouts",
            "stalled",
            "retx packets",
            "goodput Gb/s",
            "events",
            crate::output::WALL_COLUMN,
        ],
    );
    for (scheme, r) in p.schemes.iter().zip(results) {
        let v = &schemes[&scheme.label];
        let n = |path: &[&str]| {
            let mut x = v;
            for k in path {
                x = &x[*k];
            }
            Cell::Num(x.as_f64().unwrap_or(f64::NAN))
        };
        let slow = SlowdownSummary::of(&r.records);
        let o = &slow.overall;
        table.push_row(vec![
            Cell::Text(scheme.label.clone()),
            Cell::Num(o.count as f64),
            Cell::Num(slow.unfinished as f64),
            pct_cell(o.p50, o.count, 0.5),
            pct_cell(o.p99, o.count, 0.99),
            pct_cell(o.p999, o.count, 0.999),
            n(&["queue_delay_us", "p99"]),
            n(&["drops", "packets"]),
            n(&["ecn_marks"]),
            n(&["timeouts"]),
            n(&["spurious_timeouts"]),
            n(&["stalled_flows"]),
            n(&["retransmitted_packets"]),
            n(&["goodput_gbps"]),
            Cell::Num(r.counters.events as f64),
            Cell::Num(r.wall_seconds),
        ]);
    }
    table
}

/// Drops, timeouts and retransmissions per scheme (linear counts).
fn losses_chart(results: &[PacketRun]) -> Chart {
    let labels: Vec<String> = results.iter().map(|r| r.label.clone()).collect();
    let mut losses = Chart::bars(
        "Drops, timeouts and retransmissions per scheme",
        "scheme",
        "count (packets or timeouts)",
        labels,
    );
    type Counter = fn(&dctc_packet::metrics::Counters) -> u64;
    let counters: [(&str, Counter); 4] = [
        ("dropped packets", |c| c.dropped_packets),
        ("timeouts", |c| c.timeouts),
        ("spurious timeouts", |c| c.spurious_timeouts),
        ("retransmitted packets", |c| c.retransmitted_packets),
    ];
    for (name, get) in counters {
        let v: Vec<f64> = results.iter().map(|r| get(&r.counters) as f64).collect();
        losses.push_series(Series::from_values(name, &v));
    }
    losses
}

/// FCT slowdown by flow size (when some sized flow completed): a table and bars per size
/// bucket in packets and per byte class, then CDFs and FCT against size.
fn size_section(p: &Plan, results: &[PacketRun]) -> Option<Section> {
    let slows: Vec<SlowdownSummary> = results
        .iter()
        .map(|r| SlowdownSummary::with_classes(&r.records, &p.classes))
        .collect();
    if !slows.iter().any(|x| x.overall.count > 0) {
        return None;
    }
    let mut sec = Section::new("FCT slowdown by flow size").with_paragraph(FEW_SAMPLES);
    for unit in [SizeUnit::Bytes, SizeUnit::Packets] {
        let (table, p99, p50) = size_classes(results, &slows, unit);
        sec.push_table(table);
        sec.push_chart(p99);
        sec.push_chart(p50);
    }
    sec.push_chart(slowdown_cdf("all sizes", results, |_| true));
    for b in SizeBucket::ALL {
        let any = results.iter().any(|r| {
            r.records
                .iter()
                .any(|x| x.size > 0 && SizeBucket::of(x.size) == b)
        });
        if any {
            sec.push_chart(slowdown_cdf(
                &format!("{} packets", b.label()),
                results,
                move |x| SizeBucket::of(x.size) == b,
            ));
        }
    }
    for (what, q) in [("median", 0.5), ("p99", 0.99)] {
        sec.push_chart(fct_vs_size(results, what, q));
    }
    Some(sec)
}

/// How a size table splits flows: the literature's byte classes or buckets in packets.
#[derive(Clone, Copy)]
enum SizeUnit {
    Bytes,
    Packets,
}

impl SizeUnit {
    fn classes(self, s: &SlowdownSummary) -> &[BucketSlowdown] {
        match self {
            SizeUnit::Bytes => &s.by_bytes,
            SizeUnit::Packets => &s.by_size,
        }
    }

    /// A class's label in a chart or table.
    fn label(self, class: &str) -> String {
        match self {
            SizeUnit::Bytes => class.to_string(),
            SizeUnit::Packets => format!("{class} pkts"),
        }
    }

    fn axis(self) -> &'static str {
        match self {
            SizeUnit::Bytes => "flow size class (bytes; KB = 1000 B)",
            SizeUnit::Packets => "flow size (packets of 1460 B)",
        }
    }

    /// A chart's or table's title: `what` per class of this unit.
    fn title(self, what: &str) -> String {
        match self {
            SizeUnit::Bytes => format!("{what} per size class in bytes"),
            SizeUnit::Packets => format!("{what} per flow size"),
        }
    }

    fn column(self) -> &'static str {
        match self {
            SizeUnit::Bytes => "class (bytes)",
            SizeUnit::Packets => "bucket (packets)",
        }
    }
}

/// The size classes' table (completed and unfinished flows with their bytes, percentiles) and
/// their p99 and median bars (an empty class gets no bar, not a bar of height 0).
fn size_classes(
    results: &[PacketRun],
    slows: &[SlowdownSummary],
    unit: SizeUnit,
) -> (Table, Chart, Chart) {
    let Some(first) = slows.first() else {
        unreachable!("a size section has a run")
    };
    let cats: Vec<String> = unit
        .classes(first)
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let empty = slows
                .iter()
                .all(|x| unit.classes(x)[i].completed.count == 0);
            if empty {
                format!("{} (no flows)", unit.label(&b.bucket))
            } else {
                unit.label(&b.bucket)
            }
        })
        .collect();
    let mut p99 = Chart::bars(
        unit.title("p99 FCT slowdown"),
        unit.axis(),
        "p99 slowdown (FCT / ideal FCT)",
        cats.clone(),
    );
    let mut p50 = Chart::bars(
        unit.title("Median FCT slowdown"),
        unit.axis(),
        "p50 slowdown (FCT / ideal FCT)",
        cats,
    );
    let mut table = Table::new(
        unit.title("FCT slowdown") + " (completed flows; unfinished ones beside them)",
        [
            "scheme",
            unit.column(),
            "completed",
            "unfinished",
            "unfinished MB",
            "p50",
            "p99",
            "p99.9",
            "mean",
        ],
    );
    for (r, slow) in results.iter().zip(slows) {
        let classes = unit.classes(slow);
        // An empty class gets no bar (not a bar of height 0).
        let bars = |f: fn(&Percentiles) -> f64| -> Vec<(f64, f64)> {
            classes
                .iter()
                .enumerate()
                .filter(|(_, b)| b.completed.count > 0)
                .map(|(i, b)| (i as f64, f(&b.completed)))
                .collect()
        };
        p99.push_series(Series::new(r.label.clone(), bars(|x| x.p99)));
        p50.push_series(Series::new(r.label.clone(), bars(|x| x.p50)));
        for b in classes {
            let c = &b.completed;
            if b.is_empty() {
                table.push_row(vec![
                    Cell::Text(r.label.clone()),
                    Cell::Text(b.bucket.clone()),
                    Cell::Text("no flows".into()),
                ]);
                continue;
            }
            table.push_row(vec![
                Cell::Text(r.label.clone()),
                Cell::Text(b.bucket.clone()),
                Cell::Num(c.count as f64),
                Cell::Num(b.unfinished as f64),
                Cell::Num(b.unfinished_bytes as f64 / 1e6),
                pct_cell(c.p50, c.count, 0.5),
                pct_cell(c.p99, c.count, 0.99),
                pct_cell(c.p999, c.count, 0.999),
                if c.count > 0 {
                    Cell::Num(c.mean)
                } else {
                    Cell::Text("-".into())
                },
            ]);
        }
    }
    (table, p99, p50)
}

/// The CDF of queueing delay at switch ports, one series per scheme.
fn queue_delay_section(results: &[PacketRun]) -> Section {
    let mut cdf = Chart::step(
        "Queueing delay at switch ports (CDF over packets)",
        "queueing delay (us)",
        "fraction of packets",
    )
    .with_log(true, false);
    for r in results {
        let pts = r
            .queue_delay
            .cdf_points()
            .into_iter()
            .map(|(ps, f)| ((ps as f64 / 1e6).max(1e-3), f))
            .collect();
        cdf.push_series(Series::new(r.label.clone(), pts));
    }
    Section::new("Queueing delay").with_paragraph(
        "Time from a packet's arrival at a switch output port to the start of its transmission; \
         packets that found the port idle count as 1 ns on the log axis.",
    ).with_chart(cdf)
}

/// Per-flow throughput over time of the long-lived flows, a chart per scheme.
fn throughput_section(results: &[PacketRun]) -> Option<Section> {
    if results.iter().all(|r| r.throughput.is_empty()) {
        return None;
    }
    let mut sec = Section::new("Throughput over time (long-lived flows)").with_paragraph(
            "Payload bytes arriving at each flow's receiver per bin (the arrival rate, which the \
             links' rates bound). Bytes the receiver releases in order after recovering a loss arrive \
             in a burst; counted that way a 10 Gb/s link would seem to carry more than 10 Gb/s.",
        );
    for r in results {
        let bin = r.throughput_bin.unwrap_or(Delta::from_us(100));
        let mut ch = Chart::line(
            format!("{}: per-flow throughput (arrival rate)", r.label),
            "time (ms)",
            "throughput (Gb/s)",
        );
        for (id, bins) in &r.throughput {
            let pts = bins
                .iter()
                .enumerate()
                .map(|(k, b)| {
                    (
                        (k as u64 * bin.0) as f64 * 1e-9,
                        *b as f64 * 8.0 / bin.as_secs_f64() / 1e9,
                    )
                })
                .collect();
            ch.push_series(Series::new(format!("flow {id}"), pts));
        }
        sec.push_chart(ch);
    }
    Some(sec)
}

/// The incast table (console text and report section), when the runs had incasts.
fn incast_section(results: &[PacketRun]) -> Option<(String, Section)> {
    if results.iter().all(|r| r.incasts.is_empty()) {
        return None;
    }
    let mut t = Table::new(
        "Incast (closed loop: next round when every block arrived)",
        ["scheme", "senders", "rounds", "goodput Gb/s", "timeouts"],
    );
    for r in results {
        for i in &r.incasts {
            t.push_row(vec![
                Cell::Text(r.label.clone()),
                Cell::Num(i.senders as f64),
                Cell::Num(i.rounds_completed as f64),
                Cell::Num(i.goodput_gbps),
                Cell::Num(i.timeouts as f64),
            ]);
        }
    }
    Some((t.to_text(), Section::new("Incast").with_table(t)))
}

/// One switch port's backlog and utilization over time, the same port for every scheme,
/// and the mean utilization of all switch ports (when the runs sampled queues).
fn port_section(results: &[PacketRun]) -> Option<Section> {
    let port =
        common_port(results).filter(|_| results.iter().any(|r| !r.queue_samples.is_empty()))?;
    let name = format!(
        "{} -> {}",
        results[0].ports[port].from, results[0].ports[port].to
    );
    let mut q = Chart::line(
        format!("Backlog of switch port {name}"),
        "time (ms)",
        "queue (KB)",
    );
    let mut u = Chart::line(
        format!("Utilization of switch port {name}"),
        "time (ms)",
        "utilization (fraction of link rate)",
    );
    let mut all = Chart::line(
        "Mean utilization of all switch ports",
        "time (ms)",
        "utilization (fraction of capacity)",
    );
    for r in results {
        all.push_series(Series::new(r.label.clone(), fabric_utilization_series(r)));
        let mine: Vec<_> = r
            .queue_samples
            .iter()
            .filter(|x| x.link as usize == port)
            .collect();
        q.push_series(Series::new(
            r.label.clone(),
            mine.iter()
                .map(|x| (x.time_ps as f64 * 1e-9, x.bytes as f64 / 1e3))
                .collect(),
        ));
        u.push_series(Series::new(
            r.label.clone(),
            utilization_series(&mine, r.ports[port].rate_bps),
        ));
    }
    Some(
        Section::new("Queues and utilization")
                .with_paragraph(format!(
                    "Switch port {name}, the one with the largest time-averaged backlog summed over the \
                     schemes, for every scheme. Utilization: bytes the port finished sending per interval \
                     over what the link could carry (intervals of about 1/100 of the run); the last chart sums every \
                     switch port."
                ))
                .with_chart(q)
                .with_chart(u)
                .with_chart(all),
    )
}

/// The CDF of FCT slowdown over the completed sized flows `keep` selects, one series per
/// scheme (log x: slowdowns span 1 to hundreds).
fn slowdown_cdf(
    what: &str,
    results: &[PacketRun],
    keep: impl Fn(&dctc_core::stats::FlowRecord) -> bool,
) -> Chart {
    let mut ch = Chart::step(
        format!("CDF of FCT slowdown, {what}"),
        "FCT slowdown (FCT / ideal FCT)",
        "fraction of completed flows",
    )
    .with_log(true, false);
    for r in results {
        let mut v: Vec<f64> = r
            .records
            .iter()
            .filter(|x| x.size > 0 && keep(x))
            .filter_map(|x| x.slowdown)
            .collect();
        v.sort_by(f64::total_cmp);
        let n = v.len() as f64;
        let pts = v
            .iter()
            .enumerate()
            .map(|(i, &x)| (x, (i + 1) as f64 / n))
            .collect();
        ch.push_series(Series::new(format!("{} (n = {})", r.label, v.len()), pts));
    }
    ch
}

/// The `q`-quantile of FCT against flow size, in size bins of a quarter decade (log axes),
/// one series per scheme.
fn fct_vs_size(results: &[PacketRun], what: &str, q: f64) -> Chart {
    let mut ch = Chart::line(
        format!("{what} FCT vs flow size (completed flows, quarter-decade size bins)"),
        "flow size (bytes)",
        format!("{what} FCT (us)"),
    )
    .with_log(true, true);
    for r in results {
        let mut bins: std::collections::BTreeMap<i64, Vec<f64>> = Default::default();
        for x in r.records.iter().filter(|x| x.size > 0) {
            if let Some(f) = x.fct_us {
                let k = ((x.size as f64).log10() * 4.0).floor() as i64;
                bins.entry(k).or_default().push(f);
            }
        }
        let pts = bins
            .iter_mut()
            .map(|(k, v)| {
                v.sort_by(f64::total_cmp);
                (
                    10f64.powf((*k as f64 + 0.5) / 4.0),
                    dctc_core::stats::percentile_sorted(v, q),
                )
            })
            .collect();
        ch.push_series(Series::new(r.label.clone(), pts));
    }
    ch
}

/// Mean utilization of all sampled switch ports over time: bytes they finished sending per
/// interval over what they could carry together, about 100 intervals over the run.
fn fabric_utilization_series(r: &PacketRun) -> Vec<(f64, f64)> {
    // Samples come time by time, every sampled port at each time.
    let mut totals: Vec<(u64, u64)> = Vec::new();
    let mut links = std::collections::BTreeSet::new();
    for x in &r.queue_samples {
        links.insert(x.link);
        match totals.last_mut() {
            Some((t, sum)) if *t == x.time_ps => *sum += x.sent_bytes,
            _ => totals.push((x.time_ps, x.sent_bytes)),
        }
    }
    let capacity: f64 = links.iter().map(|&l| r.ports[l as usize].rate_bps).sum();
    let step = totals.len().div_ceil(100).max(1);
    let picked: Vec<_> = totals.iter().step_by(step).collect();
    picked
        .windows(2)
        .filter_map(|w| {
            let dt = (w[1].0 - w[0].0) as f64 * 1e-12;
            let bits = (w[1].1 - w[0].1) as f64 * 8.0;
            (dt > 0.0 && capacity > 0.0).then(|| (w[0].0 as f64 * 1e-9, bits / (capacity * dt)))
        })
        .collect()
}

/// Utilization over time from one port's samples of bytes sent: about 100 intervals over the
/// run, each `(interval start ms, sent bits / (rate x interval))`.
fn utilization_series(
    samples: &[&dctc_packet::metrics::QueueSample],
    rate_bps: f64,
) -> Vec<(f64, f64)> {
    let step = samples.len().div_ceil(100).max(1);
    let picked: Vec<_> = samples.iter().step_by(step).collect();
    picked
        .windows(2)
        .filter_map(|w| {
            let dt = (w[1].time_ps - w[0].time_ps) as f64 * 1e-12;
            let bits = (w[1].sent_bytes - w[0].sent_bytes) as f64 * 8.0;
            (dt > 0.0).then(|| (w[0].time_ps as f64 * 1e-9, bits / (rate_bps * dt)))
        })
        .collect()
}

/// Runs an incast sweep: per scheme, one simulation per sender count.
fn sweep_runs(
    s: &Scenario,
    p: &Plan,
    sw: &IncastSweep,
    progress: &Progress,
) -> Result<Vec<Vec<(usize, PacketRun)>>> {
    let mut per_scheme = Vec::new();
    for scheme in &p.schemes {
        let mut points = Vec::new();
        for &n in &sw.senders {
            progress.begin(&format!("{} n={n}", scheme.label), p.until.0);
            let wl = Workload {
                flows: Vec::new(),
                incasts: vec![sw.point(n)],
            };
            let sim = Simulation::new(&p.topo, &p.routing, scheme, &wl, p.opts.clone())
                .map_err(|e| s.error("workload", e.to_string()))?;
            points.push((n, sim.run(&mut |t| progress.set(t.0))));
            progress.finish();
        }
        per_scheme.push(points);
    }
    Ok(per_scheme)
}

/// The output of an incast sweep: goodput against senders per scheme.
fn render_sweep(
    s: &Scenario,
    p: &Plan,
    sw: &IncastSweep,
    per_scheme: &[Vec<(usize, PacketRun)>],
) -> RunOutput {
    let mut schemes = Map::new();
    let mut table = Table::new(
        format!(
            "Incast goodput vs senders ({} B blocks, {} rounds per point)",
            sw.block_bytes, sw.rounds
        ),
        [
            "scheme",
            "senders",
            "rounds done",
            "goodput Gb/s",
            "timeouts",
            "drops",
            "max queue KB",
            "events",
            crate::output::WALL_COLUMN,
        ],
    );
    let mut chart = Chart::line("Incast goodput", "senders", "goodput (Gb/s)");
    for (scheme, points) in p.schemes.iter().zip(per_scheme) {
        let mut rows = Vec::new();
        let mut by_n = Map::new();
        let mut series = Vec::new();
        let mut events = 0u64;
        // Stalled flows (issue 25's invariant), summed over the sweep's points.
        let mut stalled = 0u64;
        for (n, r) in points {
            let inc = &r.incasts[0];
            let maxq = r
                .ports
                .iter()
                .filter(|x| x.switch)
                .map(|x| x.max_queue_bytes)
                .max()
                .unwrap_or(0);
            events += r.counters.events;
            stalled += r.counters.stalled_flows;
            rows.push(json!({ "senders": n, "rounds_completed": inc.rounds_completed, "goodput_gbps": inc.goodput_gbps,
                "timeouts": inc.timeouts, "drops": r.counters.dropped_packets, "max_queue_bytes": maxq,
                "stalled_flows": r.counters.stalled_flows }));
            by_n.insert(format!("n{n}"), json!(inc.goodput_gbps));
            series.push((*n as f64, inc.goodput_gbps));
            table.push_row(vec![
                Cell::Text(scheme.label.clone()),
                Cell::Num(*n as f64),
                Cell::Num(inc.rounds_completed as f64),
                Cell::Num(inc.goodput_gbps),
                Cell::Num(inc.timeouts as f64),
                Cell::Num(r.counters.dropped_packets as f64),
                Cell::Num(maxq as f64 / 1e3),
                Cell::Num(r.counters.events as f64),
                Cell::Num(r.wall_seconds),
            ]);
        }
        chart.push_series(Series::new(scheme.label.clone(), series));
        schemes.insert(
            scheme.label.clone(),
            json!({
                "incast_sweep": rows, "incast_goodput_gbps": Value::Object(by_n),
                "events": events, "stalled_flows": stalled,
            }),
        );
    }
    let summary = json!({
        "engine": "packet", "fabric": p.topo.name, "hosts": p.topo.hosts().len(),
        "block_bytes": sw.block_bytes, "rounds": sw.rounds, "schemes": Value::Object(schemes),
    });
    let flows = flows_table(
        per_scheme
            .iter()
            .flat_map(|points| points.iter())
            .flat_map(|(n, r)| r.records.iter().map(move |f| (f, Some(*n)))),
        true,
    );
    let console = table.to_text();
    let report = Report::new(format!("dctc: {}", s.name), s.description.clone()).with_section(
        Section::new("Incast")
            .with_paragraph(format!(
                "{} senders answer one receiver with a {} B block each; the next request goes out when every block has arrived (TFC §6.1). \
                 Goodput = block bytes delivered / time from the first request to the last block. Fabric: {}.",
                sw.senders.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "), sw.block_bytes, p.topo.name))
            .with_chart(chart)
            .with_table(table),
    );
    RunOutput {
        summary,
        tables: vec![
            ("incast.csv".into(), incast_csv(p, per_scheme)),
            ("flows.csv".into(), flows),
        ],
        report,
        console,
        files: Vec::new(),
    }
}

/// `incast.csv`: one row per scheme and sender count.
fn incast_csv(p: &Plan, per_scheme: &[Vec<(usize, PacketRun)>]) -> Records {
    let rows: Vec<_> = p
        .schemes
        .iter()
        .zip(per_scheme)
        .flat_map(|(scheme, points)| points.iter().map(move |(n, r)| (scheme, *n, r)))
        .collect();
    Records::new()
        .text("scheme", rows.iter().map(|(s, _, _)| s.label.as_str()))
        .uint("senders", rows.iter().map(|(_, n, _)| *n as u64))
        .uint(
            "rounds_completed",
            rows.iter()
                .map(|(_, _, r)| r.incasts[0].rounds_completed as u64),
        )
        .float(
            "goodput_gbps",
            rows.iter().map(|(_, _, r)| r.incasts[0].goodput_gbps),
        )
        .uint(
            "timeouts",
            rows.iter().map(|(_, _, r)| r.incasts[0].timeouts),
        )
        .uint(
            "drops",
            rows.iter().map(|(_, _, r)| r.counters.dropped_packets),
        )
}

/// `dctc bench` for this engine: flowtune-144, web search at 0.6 load, DCTCP, 100 ms.
pub(crate) fn bench() -> Result<()> {
    let r = dctc_packet::bench::bench(Delta::from_ms(100), 1);
    outln!("packet engine: flowtune-144, websearch at 0.6 load, DCTCP (K = 97.5 KB), pFabric-tuned TCP, 100 ms simulated, one core");
    outln!("  flows offered      {}", r.flows);
    outln!("  events             {}", r.events);
    outln!("  packet-hops        {}", r.packet_hops);
    outln!("  wall               {:.3} s", r.wall_seconds);
    outln!("  events/s           {:.3} M", r.events_per_sec / 1e6);
    outln!("  packet-hops/s      {:.3} M", r.packet_hops_per_sec / 1e6);
    if let Some(cpu) = r.cpu_seconds {
        outln!(
            "  thread CPU time    {cpu:.3} s ({:.3} M packet-hops per CPU second)",
            r.packet_hops as f64 / cpu / 1e6
        );
    }
    match r.peak_rss_bytes {
        Some(b) => outln!("  peak memory (VmHWM) {:.1} MB", b as f64 / 1e6),
        None => outln!("  peak memory        unavailable (no /proc/self/status)"),
    }
    // One row per further queue discipline, as a ratio to the DCTCP run above.
    let base = r.cpu_seconds.unwrap_or(r.wall_seconds);
    outln!("  same workload per discipline (time / DCTCP's, same process):");
    for &name in &dctc_packet::bench::BENCH_SCHEMES[1..] {
        let s = dctc_packet::bench::bench_scheme(Delta::from_ms(100), 1, name);
        let t = s.cpu_seconds.unwrap_or(s.wall_seconds);
        outln!(
            "  {name:<16} {t:.3} s, {} packet-hops, {} events: {:.2}x DCTCP",
            s.packet_hops,
            s.events,
            t / base
        );
    }
    Ok(())
}

/// Mean throughput of completed flows over 1000 packets (the `>1000` bucket), Gb/s: each
/// flow's size in bits over its FCT (the FQ-CoDel paper's long-flow throughput, §4.1); null
/// when none completed.
fn long_flow_throughput_gbps(records: &[dctc_core::stats::FlowRecord]) -> Value {
    let tputs: Vec<f64> = records
        .iter()
        .filter(|f| {
            dctc_core::stats::SizeBucket::of(f.size) == dctc_core::stats::SizeBucket::Over1000
        })
        .filter(|f| f.size > 0)
        .filter_map(|f| {
            f.fct_us
                .filter(|&t| t > 0.0)
                .map(|t| f.size as f64 * 8.0 / t / 1e3)
        })
        .collect();
    if tputs.is_empty() {
        Value::Null
    } else {
        json!(tputs.iter().sum::<f64>() / tputs.len() as f64)
    }
}

/// Every ordered pair of schemes, `relative.<a>_vs_<b>.<figure>` = a / b - 1 (null when
/// either is missing or b is 0): mean and p99 slowdown of 1-packet flows, p99 slowdown of the
/// 1-10, 10-100 and 100-1000 packet buckets, overall mean slowdown, long-flow throughput, p99
/// switch queueing delay, and HOLNET's mean / p99 / small / huge FCT. The papers' "A beats B"
/// claims read from these (a `[[paper]]` row with `factor = true` reads one as a / b).
fn relative(schemes: &Map<String, Value>) -> Value {
    let figures: [(&str, &str); 12] = [
        ("mean_slowdown_1pkt", "fct_slowdown.by_size.1.mean"),
        ("p99_slowdown_1pkt", "fct_slowdown.by_size.1.p99"),
        // Flowtune §6.5's buckets (Fig. 8).
        ("p99_slowdown_1_10pkt", "fct_slowdown.by_size.1-10.p99"),
        ("p99_slowdown_10_100pkt", "fct_slowdown.by_size.10-100.p99"),
        (
            "p99_slowdown_100_1000pkt",
            "fct_slowdown.by_size.100-1000.p99",
        ),
        ("p99_queue_delay", "queue_delay_us.p99"),
        ("mean_slowdown", "fct_slowdown.overall.mean"),
        ("long_flow_throughput", "long_flow_throughput_gbps"),
        // HOLNET §V's figures (see `fct::fct_json`).
        ("avg_fct", "fct_us.mean"),
        ("p99_fct", "fct_us.p99"),
        ("small_avg_fct", "fct_us.small_mean"),
        ("huge_avg_fct", "fct_us.huge_mean"),
    ];
    let mut out = Map::new();
    for (a, va) in schemes {
        for (b, vb) in schemes {
            if a == b {
                continue;
            }
            let mut pair = Map::new();
            for (name, path) in figures {
                let x = crate::paper::lookup(va, path).and_then(Value::as_f64);
                let y = crate::paper::lookup(vb, path).and_then(Value::as_f64);
                let v = match (x, y) {
                    (Some(x), Some(y)) if y != 0.0 => json!(x / y - 1.0),
                    _ => Value::Null,
                };
                pair.insert(name.to_string(), v);
            }
            out.insert(format!("{a}_vs_{b}"), Value::Object(pair));
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::{convergence, flows_table, goodput_gbps};
    use dctc_core::ids::FlowId;
    use dctc_core::spec::FlowSpec;
    use dctc_core::units::{Delta, SimTime};
    use dctc_packet::metrics::Counters;

    #[test]
    fn convergence_is_the_first_fair_bin_after_each_change() {
        let topo = dctc_core::fabric::preset("flowtune-144")
            .unwrap()
            .build(std::path::Path::new("."))
            .unwrap();
        let h = topo.hosts();
        let flow = |id: u32, src: usize, start_us: u64, stop_us: u64| FlowSpec {
            id: FlowId(id),
            src: h[src],
            dst: h[0],
            size_bytes: None,
            start: SimTime::from_delta(Delta::from_us(start_us)),
            stop: Some(SimTime::from_delta(Delta::from_us(stop_us))),
            coflow: None,
        };
        // Flow 0 alone for 0-300 us, flow 1 with it for 300-600 us; 100 us bins on a
        // 10 Gb/s receiver link: a full share is 125,000 bytes a bin, half is 62,500.
        let flows = [flow(0, 16, 0, 600), flow(1, 32, 300, 600)];
        let (full, half) = (125_000, 62_500);
        let series = |a: [u64; 6], b: [u64; 6]| vec![(0, a.to_vec()), (1, b.to_vec())];
        let bin = Delta::from_us(100);
        // Alone: fair in its first bin (0 us); with two, the first bin after the join is
        // off by 20% (outside 10%), the next within 8%: 100 us.
        let t = series(
            [full, full, full, 75_000, 67_000, half],
            [0, 0, 0, 50_000, 58_000, half],
        );
        let c = convergence(&topo, &flows, &t, bin).unwrap();
        assert_eq!(c["after_each_change_us"], serde_json::json!([0.0, 100.0]));
        assert_eq!(c["worst_us"], 100.0);
        assert_eq!(c["unsettled"], 0);
        // Never fair after the join: the whole 300 us interval, counted unsettled.
        let t = series([full, full, full, full, full, full], [0, 0, 0, 0, 0, 0]);
        let c = convergence(&topo, &flows, &t, bin).unwrap();
        assert_eq!(c["after_each_change_us"], serde_json::json!([0.0, 300.0]));
        assert_eq!(c["unsettled"], 1);
        // Fewer than two long-lived flows, or two receivers: no figure.
        assert!(convergence(&topo, &flows[..1], &t, bin).is_none());
        let mut two = flows;
        two[1].dst = h[5];
        assert!(convergence(&topo, &two, &t, bin).is_none());
    }

    #[test]
    fn goodput_is_taken_up_to_the_last_delivery_not_the_run_end() {
        // 1 Gb delivered, the last byte at 0.5 s of a run that went on to 1 s (a finished
        // flow's retransmission timer still pending): 2 Gb/s, not 1.
        let c = Counters {
            goodput_bytes: 125_000_000,
            last_goodput_ps: 500_000_000_000,
            ..Default::default()
        };
        assert_eq!(goodput_gbps(&c, 1.0), 2.0);
        // Nothing delivered: 0 over the run.
        assert_eq!(goodput_gbps(&Counters::default(), 1.0), 0.0);
    }
    use crate::records::Values;
    use dctc_core::stats::FlowRecord;

    #[test]
    fn flows_csv_keeps_a_label_with_a_comma_in_one_field() {
        let f = FlowRecord {
            id: 3,
            src: 1,
            dst: 2,
            size: 1460,
            start_us: 1.5,
            finish_us: None,
            fct_us: None,
            ideal_fct_us: 7.4,
            slowdown: None,
            retransmitted_bytes: 0,
            timeouts: 0,
            scheme: "DCTCP, K=65 \"tuned\"".into(),
        };
        let table = flows_table(std::iter::once((&f, Some(8))), true);
        assert_eq!(
            table.column("finish_us").map(|c| &c.values),
            Some(&Values::Float {
                values: vec![None],
                decimals: None
            })
        );
        assert_eq!(
            table.column("size").map(|c| &c.values),
            Some(&Values::UInt(vec![1460]))
        );
        let bytes = table.to_csv();
        let mut r = csv::Reader::from_reader(bytes.as_slice());
        assert_eq!(r.headers().unwrap().len(), 13);
        let row = r.records().next().unwrap().unwrap();
        assert_eq!(row.len(), 13);
        assert_eq!(&row[11], "DCTCP, K=65 \"tuned\"");
        assert_eq!(&row[5], "", "unfinished flows leave finish_us empty");
        assert_eq!(&row[12], "8");
    }

    #[test]
    fn validate_counts_many_poisson_arrivals_without_drawing_them_and_draws_a_few() {
        let text = r#"
engine = "packet"
duration_ms = 2000.0
[fabric]
kind = "preset"
name = "flowtune-144"
[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.3
[[schemes]]
name = "dctcp"
"#;
        let load = |text: &str| {
            crate::scenario::Scenario::from_str(
                text,
                std::path::Path::new("s.toml"),
                std::path::Path::new("."),
                None,
            )
            .unwrap()
        };
        // About 65,000 arrivals: counted.
        let s = load(text);
        let counted = super::plan(&s, false).unwrap();
        assert!(counted.workload.flows.is_empty());
        // About 65: drawn, as the run draws them, so an empty draw is refused by both.
        let s = load(&text.replace("2000.0", "2.0"));
        let checked = super::plan(&s, false).unwrap();
        let run = super::plan(&s, true).unwrap();
        assert!(!checked.workload.flows.is_empty());
        assert_eq!(checked.workload.flows, run.workload.flows);
    }

    /// Parses scenario `text` (as if read from `./s.toml`), runs it quietly and returns its
    /// summary.
    fn summary_of(text: &str) -> serde_json::Value {
        let s = crate::scenario::Scenario::from_str(
            text,
            std::path::Path::new("s.toml"),
            std::path::Path::new("."),
            None,
        )
        .unwrap();
        <super::Packet as crate::engines::Engine>::run(&s, &crate::progress::Progress::new(false))
            .unwrap()
            .summary
    }

    /// Two racks of one host under one spine (10 Gb/s hosts, 20 Gb/s fabric links, 1 us
    /// each), 1 ms of drain: the fabric of the utilization tests below.
    const TWO_RACKS: &str = r#"
[fabric]
kind = "leaf-spine"
racks = 2
hosts_per_rack = 1
spines = 1
host_rate_gbps = 10.0
fabric_rate_gbps = 20.0
host_link_delay_us = 1.0
fabric_link_delay_us = 1.0
buffer_bytes = 200000
[packet]
drain_ms = 1.0
"#;

    /// Runs a one-flow scenario on [`TWO_RACKS`]: the flow crosses one uplink and one spine
    /// downlink of the four switch-to-switch ports, and one of the two ports toward hosts.
    fn one_flow(sample_us: f64, duration_ms: f64, stop_us: f64) -> serde_json::Value {
        let text = format!(
            r#"
engine = "packet"
duration_ms = {duration_ms}
{TWO_RACKS}[[workload]]
kind = "flows"
flows = [{{ src = 0, dst = 1, start_us = 0, stop_us = {stop_us} }}]
[[schemes]]
name = "newreno"
[output]
queue_sample_us = {sample_us}
"#
        );
        summary_of(&text)["schemes"]["newreno"]["arrival_utilization"].clone()
    }

    #[test]
    fn arrival_utilization_counts_the_arrival_window_not_the_drain() {
        // One flow fills its 10 Gb/s host link for the 4 ms of arrivals, then stops: the
        // uplink and the spine's port toward the receiver carry half their 20 Gb/s, the
        // other two fabric ports nothing (a quarter of the switch-to-switch capacity), and
        // the receiver's downlink nearly all of its 10 Gb/s (half of the two host ports'),
        // less slow start. The ACKs (a 40-byte header per 1500-byte packet, 2.7%) ride the
        // reverse ports: at most 0.25 + 0.5 x 0.027 / 2 and 0.5 + 0.027 / 2. The drain
        // after 4 ms, idle, does not dilute it.
        let u = one_flow(1000.0, 4.0, 4000.0);
        assert_eq!(u["until_ms"], 4.0);
        let ss = u["switch_to_switch"].as_f64().unwrap();
        let sh = u["switch_to_host"].as_f64().unwrap();
        assert!((0.2..=0.257).contains(&ss), "{ss}");
        assert!((0.4..=0.514).contains(&sh), "{sh}");
        // The last sample at or before the end of the arrivals (3 ms, with 1.5 ms samples).
        let u = one_flow(1500.0, 4.0, 4000.0);
        assert_eq!(u["until_ms"], 3.0);
        // A flow stopped at 2 ms: half the window busy.
        let half = one_flow(1000.0, 4.0, 2000.0)["switch_to_switch"]
            .as_f64()
            .unwrap();
        assert!((half - ss / 2.0).abs() < 0.02, "{half} vs {ss}");
        // No sample inside the arrivals (one every 5 ms, the first at 0): none.
        assert!(one_flow(5000.0, 4.0, 4000.0).is_null());
    }

    /// Runs Poisson web-search arrivals for 5 ms on two racks of four hosts under one spine
    /// (2:1, as HOLNET's fabric), with `warm` as `[packet] warm_start_ms` when given.
    fn poisson_run(warm: Option<f64>) -> serde_json::Value {
        let warm = warm.map_or(String::new(), |ms| format!("warm_start_ms = {ms}"));
        let text = format!(
            r#"
engine = "packet"
duration_ms = 5.0
seed = 3
[fabric]
kind = "leaf-spine"
racks = 2
hosts_per_rack = 4
spines = 1
host_rate_gbps = 10.0
fabric_rate_gbps = 20.0
host_link_delay_us = 1.0
fabric_link_delay_us = 1.0
buffer_bytes = 200000
[packet]
drain_ms = 1.0
{warm}
[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.4
pairs = "inter-rack"
[[schemes]]
name = "dctcp"
[output]
queue_sample_us = 5000
"#
        );
        summary_of(&text)["schemes"]["dctcp"].clone()
    }

    #[test]
    fn a_warm_start_loads_the_fabric_from_the_start_and_leaves_its_flows_out() {
        // Web-search's largest flow (29 MB) takes 39 ms at 0.6 x 10 Gb/s: 50 ms gives the
        // steady state.
        let (cold, warm) = (poisson_run(None), poisson_run(Some(50.0)));
        let flows = |x: &serde_json::Value| {
            x["flows_completed"].as_u64().unwrap() + x["flows_unfinished"].as_u64().unwrap()
        };
        let n = warm["warm_start_flows"].as_u64().unwrap();
        assert!(n > 0);
        assert!(cold.get("warm_start_flows").is_none());
        // The same arrivals, and only they, in the flow figures.
        assert_eq!(flows(&cold), flows(&warm));
        assert_eq!(cold["fct_us"]["completed"], cold["flows_completed"]);
        assert_eq!(warm["fct_us"]["completed"], warm["flows_completed"]);
        // The fabric carries more over the 5 ms of arrivals: the warm flows were there at 0.
        let util = |x: &serde_json::Value| {
            x["arrival_utilization"]["switch_to_switch"]
                .as_f64()
                .unwrap()
        };
        assert!(
            util(&warm) > util(&cold) + 0.1,
            "{} vs {}",
            util(&warm),
            util(&cold)
        );
    }

    /// [`TWO_RACKS`], 4 ms of arrivals: a 30 KB flow at 0, another at 2.5 ms and a
    /// long-lived one from 2 to 4 ms, with `extra` in `[output]`.
    fn windowed(extra: &str) -> serde_json::Value {
        let text = format!(
            r#"
engine = "packet"
duration_ms = 4.0
{TWO_RACKS}[[workload]]
kind = "flows"
flows = [{{ src = 0, dst = 1, size_bytes = 30000 }},
         {{ src = 0, dst = 1, size_bytes = 30000, start_us = 2500 }},
         {{ src = 1, dst = 0, start_us = 2000, stop_us = 4000 }}]
[[schemes]]
name = "newreno"
[output]
queue_sample_us = 1000
{extra}
"#
        );
        summary_of(&text)["schemes"]["newreno"].clone()
    }

    #[test]
    fn a_measurement_window_leaves_out_earlier_arrivals_and_measures_utilization_over_it() {
        let (whole, window) = (windowed(""), windowed("measure_from_ms = 2.0"));
        // The flow that arrived at 0 ran in both, and counts only in the whole run.
        assert_eq!(whole["flows_completed"], 2);
        assert_eq!(window["flows_completed"], 1);
        assert_eq!(window["fct_us"]["completed"], 1);
        assert_eq!(window["flows_before_window"], 1);
        assert_eq!(window["measure_from_ms"], 2.0);
        assert!(whole.get("measure_from_ms").is_none());
        // The long-lived flow fills its host link from 2 ms: the window (2-4 ms) reads about
        // a quarter of the four fabric ports (at most 0.25, its ACKs 0.007 and the 30 KB flow
        // 0.003 more), the whole arrivals (0-4 ms) about half that.
        let u = |x: &serde_json::Value| {
            x["arrival_utilization"]["switch_to_switch"]
                .as_f64()
                .unwrap()
        };
        assert_eq!(window["arrival_utilization"]["from_ms"], 2.0);
        assert_eq!(window["arrival_utilization"]["until_ms"], 4.0);
        assert!(whole["arrival_utilization"].get("from_ms").is_none());
        assert!((0.2..=0.261).contains(&u(&window)), "{}", u(&window));
        assert!(
            (u(&whole) - u(&window) / 2.0).abs() < 0.02,
            "{} vs {}",
            u(&whole),
            u(&window)
        );
    }
}
