//! The packet engine's scenario glue: parses `[packet]`, `[[schemes]]`, `[[workload]]` and
//! `[output]`, runs every scheme on the identical flows, and turns the runs into
//! `summary.json`, CSV tables, a console comparison and report sections.

use crate::limits;
use crate::output::{csv_opt, CsvOut, RunOutput};
use crate::progress::Progress;
use crate::scenario::{Scenario, ScenarioError};
use anyhow::Result;
use dctc_core::fabric::FabricSize;
use dctc_core::rng::{component_rng, mix64, streams};
use dctc_core::routing::Routing;
use dctc_core::stats::{Percentiles, SizeBucket, SlowdownSummary};
use dctc_core::topology::Topology;
use dctc_core::units::{Delta, SimTime};
use dctc_core::workload::list::{explicit_flows, read_csv};
use dctc_core::workload::{Cdf, WorkloadError};
use dctc_packet::config::{
    resolve_scheme, IncastSweep, OutputSettings, PacketSettings, SchemeConfig, WorkloadConfig,
};
use dctc_packet::metrics::RunResult;
use dctc_packet::{RunOptions, Scheme, Simulation, Workload};
use dctc_report::{Cell, Chart, Report, Section, Series, Table};
use serde_json::{json, Map, Value};

/// Schemes this engine runs, for `dctc list`.
pub(crate) const SCHEMES: &[(&str, &str)] = dctc_packet::SCHEMES;

/// Everything a run needs, checked.
struct Plan {
    topo: Topology,
    routing: Routing,
    schemes: Vec<Scheme>,
    workload: Workload,
    until: SimTime,
    opts: RunOptions,
    sweep: Option<IncastSweep>,
}

fn workload_error(s: &Scenario, i: usize, e: WorkloadError) -> ScenarioError {
    match e {
        WorkloadError::Invalid { key, reason } => s.error(&format!("workload[{i}].{key}"), reason),
        other => s.error(&format!("workload[{i}]"), other.to_string()),
    }
}

fn micros(
    s: &Scenario,
    key: &str,
    v: Option<f64>,
    default: f64,
) -> Result<Option<Delta>, ScenarioError> {
    let x = v.unwrap_or(default);
    if !(x.is_finite() && x >= 0.0) {
        return Err(s.error(
            key,
            format!("must be a number of microseconds >= 0, got {x}"),
        ));
    }
    Ok((x > 0.0).then(|| Delta::from_us_f64(x)))
}

/// Checks a scenario and, when `generate`, draws its flows; without, Poisson arrivals are only
/// counted (so `validate` never generates the workload it checks).
fn plan(s: &Scenario, generate: bool) -> Result<Plan, ScenarioError> {
    let settings: PacketSettings = s.parse(&s.settings, "packet")?;
    let output: OutputSettings = s.parse(&s.output, "output")?;
    let topo = s
        .fabric
        .build(&s.base_dir)
        .map_err(|e| s.error("fabric", e.to_string()))?;
    let routing = Routing::new(&topo).map_err(|e| s.error("fabric", e.to_string()))?;
    if s.schemes.is_empty() {
        return Err(s.error(
            "schemes",
            "list at least one [[schemes]] table (e.g. name = \"dctcp\")",
        ));
    }
    let mut schemes: Vec<Scheme> = Vec::new();
    for (i, v) in s.schemes.iter().enumerate() {
        let key = format!("schemes[{i}]");
        let cfg: SchemeConfig = s.parse(v, &key)?;
        let scheme =
            resolve_scheme(&cfg, &settings, &topo, &key).map_err(|e| s.error(&e.key, e.reason))?;
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
    let drain = match settings.drain_ms {
        None => Delta::ZERO,
        Some(x) if x.is_finite() && x >= 0.0 && x * 1e-3 <= Delta::MAX_SCENARIO.as_secs_f64() => {
            Delta::from_secs_f64(x * 1e-3)
        }
        Some(x) => {
            return Err(s.error(
                "packet.drain_ms",
                format!("must be between 0 and one day (86400000 ms), got {x}"),
            ))
        }
    };
    let arrivals_until = SimTime::from_delta(s.duration);
    let mut workload = Workload::default();
    let mut next_id = 0u32;
    let mut sweep = None;
    let mut expected_flows = 0u64;
    let n_hosts = topo.hosts().len();
    if s.workloads.is_empty() {
        return Err(s.error("workload", "list at least one [[workload]] table"));
    }
    for (i, v) in s.workloads.iter().enumerate() {
        let key = format!("workload[{i}]");
        let cfg: WorkloadConfig = s.parse(v, &key)?;
        let flows = match cfg {
            WorkloadConfig::Poisson(spec) => {
                let cdf = Cdf::load(&spec.cdf, &s.base_dir)
                    .map_err(|e| s.error(&format!("{key}.cdf"), e.to_string()))?;
                let count = spec
                    .check_size(&topo, &cdf, arrivals_until)
                    .map_err(|e| workload_error(s, i, e))?;
                expected_flows = expected_flows.saturating_add(count);
                if generate {
                    let mut rng = component_rng(mix64(s.seed ^ i as u64), streams::WORKLOAD);
                    spec.generate(&topo, &cdf, arrivals_until, next_id, &mut rng)
                        .map_err(|e| workload_error(s, i, e))?
                } else {
                    Vec::new()
                }
            }
            WorkloadConfig::Incast(spec) => {
                spec.validate(n_hosts)
                    .map_err(|e| workload_error(s, i, e))?;
                workload.incasts.push(spec);
                Vec::new()
            }
            WorkloadConfig::Flows { flows } => {
                explicit_flows(&topo, &flows, next_id).map_err(|e| match e {
                    WorkloadError::Invalid { key: k, reason } => {
                        s.error(&format!("{key}.{k}"), reason)
                    }
                    other => s.error(&key, other.to_string()),
                })?
            }
            WorkloadConfig::Csv { path } => read_csv(&topo, &s.base_dir.join(&path), next_id)
                .map_err(|e| s.error(&format!("{key}.path"), e.to_string()))?,
            WorkloadConfig::IncastSweep(sw) => {
                if s.workloads.len() > 1 {
                    return Err(s.error(
                        &format!("{key}.kind"),
                        "an incast-sweep must be the scenario's only workload",
                    ));
                }
                sw.validate(n_hosts)
                    .map_err(|e| s.error(&format!("{key}.{}", e.key), e.reason))?;
                sweep = Some(sw);
                Vec::new()
            }
        };
        next_id += flows.len() as u32;
        workload.flows.extend(flows);
    }
    if workload.flows.is_empty()
        && workload.incasts.is_empty()
        && sweep.is_none()
        && (generate || expected_flows == 0)
    {
        return Err(s.error(
            "workload",
            "the workloads produce no flows within duration_ms (raise the load or the duration)",
        ));
    }
    let until = arrivals_until + drain;
    let mut opts = RunOptions::new(s.seed, until);
    opts.queue_sample = micros(s, "output.queue_sample_us", output.queue_sample_us, 100.0)?;
    opts.throughput_bin = micros(
        s,
        "output.throughput_bin_us",
        output.throughput_bin_us,
        100.0,
    )?;
    let flows = expected_flows.saturating_add(workload.flows.len() as u64);
    limits::check_memory(s, FabricSize::of(&topo), flows)?;
    let span = until.checked_since(SimTime::ZERO).unwrap_or(Delta::ZERO);
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
        opts,
        sweep,
    })
}

/// Checks a scenario for this engine.
pub(crate) fn validate(s: &Scenario) -> Result<()> {
    plan(s, false)?;
    Ok(())
}

/// Runs a scenario on this engine.
pub(crate) fn run(s: &Scenario, progress: &Progress) -> Result<RunOutput> {
    let p = plan(s, true)?;
    if let Some(sw) = &p.sweep {
        return run_sweep(s, &p, sw, progress);
    }
    let mut results = Vec::new();
    for scheme in &p.schemes {
        progress.begin(&scheme.label, p.until.0);
        let sim = Simulation::new(&p.topo, &p.routing, scheme, &p.workload, p.opts.clone())
            .map_err(|e| s.error("workload", e.to_string()))?;
        results.push(sim.run(&mut |t| progress.set(t.0)));
        progress.finish();
    }
    Ok(render(s, &p, &results))
}

fn pct_json(p: &Percentiles) -> Value {
    json!({ "count": p.count, "p50": p.p50, "p99": p.p99, "p999": p.p999, "mean": p.mean, "max": p.max })
}

fn scheme_summary(p: &Plan, scheme: &Scheme, r: &RunResult) -> Value {
    let sized: Vec<_> = r.records.iter().filter(|x| x.size > 0).collect();
    let completed = sized.iter().filter(|x| x.fct_us.is_some()).count();
    let slow = SlowdownSummary::of(&r.records);
    let mut by_size = Map::new();
    for (label, pc) in &slow.by_size {
        by_size.insert(label.clone(), pct_json(pc));
    }
    let secs = (r.simulated_ps as f64 * 1e-12).max(1e-12);
    let qd = &r.queue_delay;
    let us = |ps: u64| ps as f64 / 1e6;
    let c = &r.counters;
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
    json!({
        "scheme": match scheme.kind { dctc_packet::SchemeKind::NewReno => "newreno", dctc_packet::SchemeKind::Dctcp => "dctcp" },
        "ecn_k_bytes": scheme.ecn_k_bytes,
        "flows_completed": completed,
        "flows_unfinished": sized.len() - completed,
        "long_lived_flows": r.records.iter().filter(|x| x.size == 0).count(),
        "fct_slowdown": { "overall": pct_json(&slow.overall), "by_size": Value::Object(by_size) },
        "queue_delay_us": { "p50": us(qd.quantile(0.5)), "p99": us(qd.quantile(0.99)), "max": us(qd.max()), "mean": qd.mean() / 1e6 },
        "drops": { "packets": c.dropped_packets, "bytes": c.dropped_bytes },
        "ecn_marks": c.ecn_marks,
        "goodput_gbps": c.goodput_bytes as f64 * 8.0 / secs / 1e9,
        "timeouts": c.timeouts,
        "retransmitted_bytes": c.retransmitted_bytes,
        "max_switch_link_utilization": max_util,
        "max_switch_queue_bytes": max_queue,
        "busiest_switch_port": busiest.map(|i| format!("{} -> {}", r.ports[i].from, r.ports[i].to)),
        "busiest_switch_port_mean_queue_bytes": busiest_mean,
        "busiest_switch_port_sampled_queue_bytes": { "p50": busiest_p.p50, "p99": busiest_p.p99, "max": busiest_p.max },
        "incast": incasts,
        "events": c.events,
        "packet_hops": c.packet_hops,
        "wall_seconds": r.wall_seconds,
        "simulated_ms": r.simulated_ps as f64 * 1e-9,
        "hosts": p.topo.hosts().len(),
    })
}

/// `flows.csv`: one row per flow (the issue's columns), plus the sender count for incast
/// sweeps. Written with the csv crate so that a scheme label holding a comma or a quote stays
/// one field.
fn flows_csv<'a>(
    rows: impl Iterator<Item = (&'a dctc_core::stats::FlowRecord, Option<usize>)>,
    senders_column: bool,
) -> Vec<u8> {
    let mut header = vec![
        "id",
        "src",
        "dst",
        "size",
        "start_us",
        "finish_us",
        "fct_us",
        "ideal_fct_us",
        "slowdown",
        "retransmitted_bytes",
        "timeouts",
        "scheme",
    ];
    if senders_column {
        header.push("senders");
    }
    let mut w = CsvOut::new(&header);
    for (f, senders) in rows {
        let mut record = vec![
            f.id.to_string(),
            f.src.to_string(),
            f.dst.to_string(),
            f.size.to_string(),
            f.start_us.to_string(),
            csv_opt(f.finish_us),
            csv_opt(f.fct_us),
            f.ideal_fct_us.to_string(),
            csv_opt(f.slowdown),
            f.retransmitted_bytes.to_string(),
            f.timeouts.to_string(),
            f.scheme.clone(),
        ];
        record.extend(senders.map(|n| n.to_string()));
        w.row(&record);
    }
    w.into_bytes()
}

fn render(s: &Scenario, p: &Plan, results: &[RunResult]) -> RunOutput {
    let mut schemes = Map::new();
    for (scheme, r) in p.schemes.iter().zip(results) {
        schemes.insert(scheme.label.clone(), scheme_summary(p, scheme, r));
    }
    let summary = json!({
        "engine": "packet",
        "fabric": p.topo.name,
        "hosts": p.topo.hosts().len(),
        "flows_offered": p.workload.flows.len(),
        "incasts": p.workload.incasts.len(),
        "simulated_ms": p.until.0 as f64 * 1e-9,
        "schemes": Value::Object(schemes.clone()),
    });

    let flows = flows_csv(
        results
            .iter()
            .flat_map(|r| r.records.iter().map(|f| (f, None))),
        false,
    );
    let mut ports = CsvOut::new(&[
        "scheme",
        "from",
        "to",
        "switch",
        "buffer_bytes",
        "max_queue_bytes",
        "mean_queue_bytes",
        "utilization",
        "drops",
        "ecn_marks",
    ]);
    for r in results {
        for x in &r.ports {
            ports.row([
                r.label.clone(),
                x.from.to_string(),
                x.to.to_string(),
                x.switch.to_string(),
                x.buffer_bytes.to_string(),
                x.max_queue_bytes.to_string(),
                format!("{:.1}", x.mean_queue_bytes),
                format!("{:.6}", x.utilization),
                x.drops.to_string(),
                x.ecn_marks.to_string(),
            ]);
        }
    }
    let mut files = vec![
        ("flows.csv".to_string(), flows),
        ("ports.csv".to_string(), ports.into_bytes()),
    ];
    if results.iter().any(|r| !r.queue_samples.is_empty()) {
        let mut q = CsvOut::new(&["scheme", "time_us", "from", "to", "bytes"]);
        for r in results {
            for x in &r.queue_samples {
                let port = &r.ports[x.link as usize];
                q.row([
                    r.label.clone(),
                    (x.time_ps as f64 / 1e6).to_string(),
                    port.from.to_string(),
                    port.to.to_string(),
                    x.bytes.to_string(),
                ]);
            }
        }
        files.push(("queues.csv".into(), q.into_bytes()));
    }
    let has_long = results.iter().any(|r| !r.throughput.is_empty());
    if has_long {
        let mut t = CsvOut::new(&["scheme", "flow", "bin_start_us", "gbps"]);
        for r in results {
            let bin = r.throughput_bin.unwrap_or(Delta::from_us(100));
            for (id, bins) in &r.throughput {
                for (k, b) in bins.iter().enumerate() {
                    t.row([
                        r.label.clone(),
                        id.to_string(),
                        ((k as u64 * bin.0) as f64 / 1e6).to_string(),
                        (*b as f64 * 8.0 / bin.as_secs_f64() / 1e9).to_string(),
                    ]);
                }
            }
        }
        files.push(("throughput.csv".into(), t.into_bytes()));
    }

    // Comparison table (console and report).
    let mut table = Table::new(
        "Schemes on identical arrivals",
        [
            "scheme",
            "done",
            "unfinished",
            "slowdown p50",
            "p99",
            "p99.9",
            "mean",
            "queue p99 us",
            "queue max us",
            "drops",
            "ECN marks",
            "timeouts",
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
        table.push_row(vec![
            Cell::Text(scheme.label.clone()),
            n(&["flows_completed"]),
            n(&["flows_unfinished"]),
            n(&["fct_slowdown", "overall", "p50"]),
            n(&["fct_slowdown", "overall", "p99"]),
            n(&["fct_slowdown", "overall", "p999"]),
            n(&["fct_slowdown", "overall", "mean"]),
            n(&["queue_delay_us", "p99"]),
            n(&["queue_delay_us", "max"]),
            n(&["drops", "packets"]),
            n(&["ecn_marks"]),
            n(&["timeouts"]),
            n(&["goodput_gbps"]),
            Cell::Num(r.counters.events as f64),
            Cell::Num(r.wall_seconds),
        ]);
    }
    let mut console = table.to_text();
    let mut main = Section::new("Comparison").with_paragraph(format!(
        "{} on {} ({} hosts), {} flows offered{}, {:.3} ms simulated. FCT slowdown = FCT / empty-network FCT \
         (host delay + per-hop propagation and store-and-forward of the first packet + the rest at the bottleneck rate).",
        s.description.trim(),
        p.topo.name,
        p.topo.hosts().len(),
        p.workload.flows.len(),
        if p.workload.incasts.is_empty() { String::new() } else { format!(" plus {} incast(s)", p.workload.incasts.len()) },
        p.until.0 as f64 * 1e-9
    ));
    main.push_table(table);

    // Slowdown per size bucket.
    let cats: Vec<String> = SizeBucket::ALL
        .iter()
        .map(|b| format!("{} pkts", b.label()))
        .collect();
    let mut p99 = Chart::bars(
        "p99 FCT slowdown per flow size",
        "flow size (packets of 1460 B)",
        "p99 slowdown",
        cats.clone(),
    )
    .with_log(false, true);
    let mut p50 = Chart::bars(
        "Median FCT slowdown per flow size",
        "flow size (packets of 1460 B)",
        "p50 slowdown",
        cats,
    )
    .with_log(false, true);
    let mut bucket_table = Table::new(
        "FCT slowdown per size bucket (p50 / p99 / count)",
        ["scheme", "bucket", "count", "p50", "p99", "p99.9", "mean"],
    );
    for r in results {
        let slow = SlowdownSummary::of(&r.records);
        let v99: Vec<f64> = slow.by_size.iter().map(|(_, x)| x.p99).collect();
        let v50: Vec<f64> = slow.by_size.iter().map(|(_, x)| x.p50).collect();
        p99.push_series(Series::from_values(r.label.clone(), &v99));
        p50.push_series(Series::from_values(r.label.clone(), &v50));
        for (label, x) in &slow.by_size {
            bucket_table.push_row(vec![
                Cell::Text(r.label.clone()),
                Cell::Text(label.clone()),
                Cell::Num(x.count as f64),
                Cell::Num(x.p50),
                Cell::Num(x.p99),
                Cell::Num(x.p999),
                Cell::Num(x.mean),
            ]);
        }
    }
    let any_sized = results
        .iter()
        .any(|r| r.records.iter().any(|x| x.size > 0 && x.fct_us.is_some()));
    let mut sections = vec![main];
    if any_sized {
        sections.push(
            Section::new("FCT slowdown by flow size")
                .with_chart(p99)
                .with_chart(p50)
                .with_table(bucket_table),
        );
    }
    // Queueing delay CDF.
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
    sections.push(Section::new("Queueing delay").with_paragraph(
        "Time from a packet's arrival at a switch output port to the start of its transmission; \
         packets that found the port idle count as 1 ns on the log axis.",
    ).with_chart(cdf));
    // Throughput over time of long-lived flows.
    if has_long {
        let mut sec = Section::new("Throughput over time (long-lived flows)");
        for r in results {
            let bin = r.throughput_bin.unwrap_or(Delta::from_us(100));
            let mut ch = Chart::line(
                format!("{}: per-flow throughput", r.label),
                "time (ms)",
                "Gb/s",
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
        sections.push(sec);
    }
    // Incast.
    if results.iter().any(|r| !r.incasts.is_empty()) {
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
        console.push('\n');
        console.push_str(&t.to_text());
        sections.push(Section::new("Incast").with_table(t));
    }
    // Busiest switch port's queue over time.
    if results.iter().any(|r| !r.queue_samples.is_empty()) {
        let mut ch = Chart::line(
            "Backlog of the busiest switch port",
            "time (ms)",
            "queue (KB)",
        );
        for r in results {
            let Some((busiest, _)) = r
                .ports
                .iter()
                .enumerate()
                .filter(|(_, x)| x.switch)
                .max_by(|a, b| a.1.mean_queue_bytes.total_cmp(&b.1.mean_queue_bytes))
            else {
                continue;
            };
            let pts = r
                .queue_samples
                .iter()
                .filter(|x| x.link as usize == busiest)
                .map(|x| (x.time_ps as f64 * 1e-9, x.bytes as f64 / 1e3))
                .collect();
            let port = &r.ports[busiest];
            ch.push_series(Series::new(
                format!("{} ({} -> {})", r.label, port.from, port.to),
                pts,
            ));
        }
        sections.push(Section::new("Queues").with_chart(ch));
    }
    let mut report = Report::new(format!("dctc: {}", s.name), s.description.clone());
    for sec in sections {
        report.push_section(sec);
    }
    RunOutput {
        summary,
        files,
        report,
        console,
    }
}

fn run_sweep(s: &Scenario, p: &Plan, sw: &IncastSweep, progress: &Progress) -> Result<RunOutput> {
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
    for (scheme, points) in p.schemes.iter().zip(&per_scheme) {
        let mut rows = Vec::new();
        let mut by_n = Map::new();
        let mut series = Vec::new();
        let (mut events, mut wall) = (0u64, 0.0f64);
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
            wall += r.wall_seconds;
            rows.push(json!({ "senders": n, "rounds_completed": inc.rounds_completed, "goodput_gbps": inc.goodput_gbps,
                "timeouts": inc.timeouts, "drops": r.counters.dropped_packets, "max_queue_bytes": maxq }));
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
                "events": events, "wall_seconds": wall,
            }),
        );
    }
    let summary = json!({
        "engine": "packet", "fabric": p.topo.name, "hosts": p.topo.hosts().len(),
        "block_bytes": sw.block_bytes, "rounds": sw.rounds, "schemes": Value::Object(schemes),
    });
    let mut csv = CsvOut::new(&[
        "scheme",
        "senders",
        "rounds_completed",
        "goodput_gbps",
        "timeouts",
        "drops",
    ]);
    for (scheme, points) in p.schemes.iter().zip(&per_scheme) {
        for (n, r) in points {
            let inc = &r.incasts[0];
            csv.row([
                scheme.label.clone(),
                n.to_string(),
                inc.rounds_completed.to_string(),
                inc.goodput_gbps.to_string(),
                inc.timeouts.to_string(),
                r.counters.dropped_packets.to_string(),
            ]);
        }
    }
    let flows = flows_csv(
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
    Ok(RunOutput {
        summary,
        files: vec![
            ("incast.csv".into(), csv.into_bytes()),
            ("flows.csv".into(), flows),
        ],
        report,
        console,
    })
}

/// `dctc bench` for this engine: flowtune-144, web search at 0.6 load, DCTCP, 100 ms.
pub(crate) fn bench() -> Result<()> {
    let r = dctc_packet::bench::bench(Delta::from_ms(100), 1);
    println!("packet engine: flowtune-144, websearch at 0.6 load, DCTCP (K = 97.5 KB), pFabric-tuned TCP, 100 ms simulated, one core");
    println!("  flows offered      {}", r.flows);
    println!("  events             {}", r.events);
    println!("  packet-hops        {}", r.packet_hops);
    println!("  wall               {:.3} s", r.wall_seconds);
    println!("  events/s           {:.3} M", r.events_per_sec / 1e6);
    println!("  packet-hops/s      {:.3} M", r.packet_hops_per_sec / 1e6);
    if let Some(cpu) = r.cpu_seconds {
        println!(
            "  thread CPU time    {cpu:.3} s ({:.3} M packet-hops per CPU second)",
            r.packet_hops as f64 / cpu / 1e6
        );
    }
    match r.peak_rss_bytes {
        Some(b) => println!("  peak memory (VmHWM) {:.1} MB", b as f64 / 1e6),
        None => println!("  peak memory        unavailable (no /proc/self/status)"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::flows_csv;
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
        let bytes = flows_csv(std::iter::once((&f, Some(8))), true);
        let mut r = csv::Reader::from_reader(bytes.as_slice());
        assert_eq!(r.headers().unwrap().len(), 13);
        let row = r.records().next().unwrap().unwrap();
        assert_eq!(row.len(), 13);
        assert_eq!(&row[11], "DCTCP, K=65 \"tuned\"");
        assert_eq!(&row[5], "", "unfinished flows leave finish_us empty");
        assert_eq!(&row[12], "8");
    }

    #[test]
    fn validate_counts_poisson_arrivals_without_drawing_them() {
        let text = r#"
engine = "packet"
duration_ms = 2.0
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
        let s = crate::scenario::Scenario::from_str(
            text,
            std::path::Path::new("s.toml"),
            std::path::Path::new("."),
            None,
        )
        .unwrap();
        assert!(super::plan(&s, false).unwrap().workload.flows.is_empty());
        assert!(!super::plan(&s, true).unwrap().workload.flows.is_empty());
    }
}
