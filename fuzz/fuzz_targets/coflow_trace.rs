//! A coflow trace (coflow-benchmark format): parsing never panics, and a parsed trace builds
//! into coflows on a small fabric (or is refused) without a panic.
#![no_main]

use dctc_core::fabric::preset;
use dctc_flow::workload::{parse_trace, BuildTrace, TraceSpec};
use dctc_flow::Net;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(trace) = parse_trace("<fuzz>", text) else {
        return;
    };
    let topo = preset("fq-codel-32")
        .and_then(|f| f.build(Path::new(".")).ok())
        .expect("a preset builds");
    let net = Net::new(topo).expect("a preset routes");
    let spec = TraceSpec {
        path: String::new(),
        load: 0.5,
        arrivals: Default::default(),
        cv: 0.5,
        sizes: Default::default(),
        placement: Default::default(),
        max_coflows: Some(64),
        skip_coflows: 0,
        max_mappers: Some(16),
        max_reducers: Some(16),
        size_scale: 1.0,
    };
    if let Ok(coflows) = spec.build(&trace, &net, 1) {
        for f in coflows.iter().flat_map(|c| &c.flows) {
            assert!(f.bytes > 0.0 && f.bytes.is_finite());
        }
    }
});
