//! Limits on the work a scenario may ask for, checked before anything big is allocated, so
//! that a typo exits 2 at once with the reason (and, for a run too big to hold, the estimated
//! memory) instead of hanging or exhausting memory. The fabric's own limits (hosts, links,
//! rates, delays) are in `dctc_core::fabric`, the simulated-time limit is
//! `dctc_core::units::Delta::MAX_SCENARIO`, the flow-count and input-file limits are in
//! `dctc_core::workload`.

use crate::scenario::{Scenario, ScenarioError};
use dctc_core::fabric::FabricSize;
use dctc_core::units::checked::human_span;
use dctc_core::units::human_bytes;
use dctc_core::units::Delta;

/// Most memory a run may be estimated to need: 16 GB. Above this a run does not fit a
/// typical workstation; the estimate counts the routing tables and the flows, the parts that
/// grow with the fabric and the workload.
pub(crate) const MAX_RUN_BYTES: u64 = 16_000_000_000;

/// Rough memory per flow in an engine (workload entry, sender and receiver state, the
/// finished-flow record), used only for the estimate against [`MAX_RUN_BYTES`].
pub(crate) const BYTES_PER_FLOW: u64 = 1024;

/// Most samples one time series setting may produce in a run (sampling periods times the
/// ports or flows sampled): 20,000,000, about 500 MB of samples. A period of 1 ps over 1 ms on
/// a 144-host fabric would need 10^11.
pub(crate) const MAX_SAMPLES: u64 = 20_000_000;

/// Most steps a periodic process may take in a run (Flowtune's allocator iterations, the
/// percentage balancer's updates): 20,000,000, each costing work over every active flow; the
/// paper's 10 us allocator interval gives 100,000 steps per simulated second. An interval of
/// 1 ps over 1 ms would need 10^9 steps, hours of work.
pub(crate) const MAX_STEPS: u64 = 20_000_000;

/// Most intervals of the objective report (`[output] objective_sample_us`; one NUM optimum
/// solved per interval and scheme) over a run: 100,000. Warm-started, a solve over a few
/// hundred flows takes milliseconds, so this is minutes per scheme at most; 1 us over a
/// simulated second would be 10^6 solves.
pub(crate) const MAX_OBJECTIVE_SOLVES: u64 = 100_000;

/// Most flow updates an allocator convergence run may ask for per solver (iterations x
/// flows): 10^10, a few minutes of work; the paper-sized default (5,000 iterations over 1,000
/// flows, from a cold start and after an arrival) is 10^7.
pub(crate) const MAX_FLOW_ITERATIONS: u64 = 10_000_000_000;

/// Most ticks a flow-engine policy may take in a run (DBA's per-RTT iterations, each over the
/// active flows, while its rates have not converged): 1,000,000,000, over an estimate of how
/// long the run keeps the fabric busy. DBA's 8 us round trip over the full Facebook trace at
/// 10% load (about 2,300 s busy) is 3 x 10^8; a round trip of 1 ps would be 10^12 per second.
pub(crate) const MAX_TICKS: u64 = 1_000_000_000;

/// Refuses a periodic process (at `key`) whose `period` over `span` takes more than
/// [`MAX_STEPS`] steps; the error gives the count.
pub(crate) fn check_steps(
    s: &Scenario,
    key: &str,
    period: Delta,
    span: Delta,
) -> Result<(), ScenarioError> {
    check_periodic(s, key, period, span, MAX_STEPS)
}

/// Refuses a periodic process (at `key`) whose `period` over `span` takes more than `max`
/// steps; the error gives the count.
pub(crate) fn check_periodic(
    s: &Scenario,
    key: &str,
    period: Delta,
    span: Delta,
    max: u64,
) -> Result<(), ScenarioError> {
    let steps = span.ps().div_ceil(period.ps().max(1));
    if steps > max {
        return Err(s.error(
            key,
            format!(
                "a period of {} over {} gives {steps} steps, more than the {max} dctc runs; use a longer period or a shorter run",
                human_span(period),
                human_span(span),
            ),
        ));
    }
    Ok(())
}

/// Refuses a run whose routing tables and flows would need more than [`MAX_RUN_BYTES`].
/// `key` names what to change (the fabric, or the workload when flows dominate).
pub(crate) fn check_memory(
    s: &Scenario,
    size: FabricSize,
    flows: u64,
) -> Result<(), ScenarioError> {
    let routing = size.routing_bytes();
    let flow_bytes = flows.saturating_mul(BYTES_PER_FLOW);
    let total = routing.saturating_add(flow_bytes);
    if total > MAX_RUN_BYTES {
        let key = if routing >= flow_bytes {
            "fabric"
        } else {
            "workload"
        };
        let flows_part = if flows > 0 {
            format!("; about {flows} flows: {}", human_bytes(flow_bytes))
        } else {
            String::new()
        };
        return Err(s.error(
            key,
            format!(
                "this run would need about {} of memory ({} hosts, {} nodes, {} links: {} of routing tables{flows_part}), more than the {} dctc allows",
                human_bytes(total),
                size.hosts,
                size.nodes,
                size.links,
                human_bytes(routing),
                human_bytes(MAX_RUN_BYTES),
            ),
        ));
    }
    Ok(())
}

/// Refuses a sampling period that gives more than [`MAX_SAMPLES`] samples over `span` for
/// `series` sampled things (ports, flows).
pub(crate) fn check_samples(
    s: &Scenario,
    key: &str,
    period: Option<Delta>,
    span: Delta,
    series: u64,
) -> Result<(), ScenarioError> {
    let Some(period) = period else {
        return Ok(());
    };
    let periods = span.ps().div_ceil(period.ps().max(1)).saturating_add(1);
    let samples = periods.saturating_mul(series);
    if samples > MAX_SAMPLES {
        return Err(s.error(
            key,
            format!(
                "a period of {} ps over {} ms for {series} series gives {samples} samples, more than the {MAX_SAMPLES} dctc records; use a longer period",
                period.ps(),
                span.as_secs_f64() * 1e3,
            ),
        ));
    }
    Ok(())
}

/// Most packets the captures of a run may hold (`[output] pcap`: files times `max_packets`):
/// 10,000,000, about 700 MB of pcap files (70 bytes a packet) and as much memory while the
/// run records them.
pub(crate) const MAX_CAPTURED_PACKETS: u64 = 10_000_000;

/// Refuses a `max_packets` (at `key`) of 0, or one that over `files` capture files (points
/// times schemes) could hold more than [`MAX_CAPTURED_PACKETS`].
pub(crate) fn check_captures(
    s: &Scenario,
    key: &str,
    max_packets: u64,
    files: u64,
) -> Result<(), ScenarioError> {
    if max_packets == 0 {
        return Err(s.error(key, "must be at least 1"));
    }
    let total = max_packets.saturating_mul(files);
    if total > MAX_CAPTURED_PACKETS {
        return Err(s.error(
            key,
            format!(
                "{max_packets} packets in each of {files} files (capture points times schemes) is {total}, more than the {MAX_CAPTURED_PACKETS} dctc captures in a run; capture fewer points or packets"
            ),
        ));
    }
    Ok(())
}
