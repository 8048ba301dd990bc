//! A CSV flow list (`kind = "csv"`): parsing it against a small fabric never panics, and every
//! flow it accepts lies on the fabric and starts before the run ends.
#![no_main]

use dctc_core::fabric::{preset, FabricSpec};
use dctc_core::units::SimTime;
use dctc_core::workload::list::parse_csv;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let topo = preset("fq-codel-32")
        .and_then(|f: FabricSpec| f.build(Path::new(".")).ok())
        .expect("a preset builds");
    let end = SimTime(1_000_000_000); // 1 ms
    if let Ok(flows) = parse_csv(&topo, "<fuzz>", text, 0, end) {
        for f in flows {
            assert!(topo.is_host(f.src) && topo.is_host(f.dst) && f.src != f.dst);
            assert!(f.start < end);
        }
    }
});
