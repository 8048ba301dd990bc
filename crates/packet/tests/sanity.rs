mod common;
use common::*;
use dctc_packet::{Scheme, Workload};

#[test]
fn one_sized_flow_completes() {
    let t = bell(1, 1, 10.0, 225_000);
    for scheme in [Scheme::newreno(tuned(&t)), Scheme::dctcp(tuned(&t), 97_500)] {
        let wl = Workload { flows: vec![sized_flow(&t, 0, 0, 1, 0, 1_000_000)], incasts: vec![] };
        let r = run(&t, &scheme, &wl, 10_000);
        let rec = &r.records[0];
        eprintln!("{rec:?} {:?}", r.counters);
        assert!(rec.fct_us.is_some());
    }
}
