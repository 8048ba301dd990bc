//! The TFC incast scenario (`scenarios/tfc/incast.toml`), run with fewer rounds, shows the
//! published trend: NewReno's goodput collapses past ~10 senders, DCTCP's holds to a few tens.

use dctc_core::fabric::FabricSpec;
use dctc_core::routing::Routing;
use dctc_core::units::{Delta, SimTime};
use dctc_packet::config::{resolve_scheme, PacketSettings, SchemeConfig, WorkloadConfig};
use dctc_packet::{incast_sweep, RunOptions};
use std::collections::BTreeMap;
use std::path::Path;

#[test]
fn tfc_incast_scenario_shows_newreno_collapse_and_dctcp_holding() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/tfc");
    let text = std::fs::read_to_string(dir.join("incast.toml")).unwrap();
    let raw: toml::Value = toml::from_str(&text).unwrap();
    let fabric: FabricSpec = raw["fabric"].clone().try_into().unwrap();
    let topo = fabric.build(&dir).unwrap();
    let routing = Routing::new(&topo).unwrap();
    let settings: PacketSettings = raw["packet"].clone().try_into().unwrap();
    let WorkloadConfig::IncastSweep(mut sweep) = raw["workload"][0].clone().try_into().unwrap()
    else {
        panic!("the scenario's workload is an incast sweep");
    };
    // 20 rounds instead of the scenario's 50 keep the test near a second.
    sweep.rounds = 20;
    // 64 senders adds time but no new assertion.
    sweep.senders.retain(|&n| n != 64);
    let opts = RunOptions::new(1, SimTime::from_delta(Delta::from_ms(60_000)));
    let mut goodput: BTreeMap<String, BTreeMap<usize, f64>> = BTreeMap::new();
    for (i, v) in raw["schemes"].as_array().unwrap().iter().enumerate() {
        let cfg: SchemeConfig = v.clone().try_into().unwrap();
        let scheme = resolve_scheme(&cfg, &settings, &topo, &format!("schemes[{i}]")).unwrap();
        for (n, r) in incast_sweep(&topo, &routing, &scheme, &sweep, &opts).unwrap() {
            assert_eq!(r.incasts[0].rounds_completed, sweep.rounds);
            goodput
                .entry(scheme.label.clone())
                .or_default()
                .insert(n, r.incasts[0].goodput_gbps);
        }
    }
    eprintln!("{goodput:?}");
    let nr = &goodput["NewReno"];
    let dc = &goodput["DCTCP"];
    assert!(nr[&8] > 0.8, "NewReno, 8 senders: {}", nr[&8]);
    for (&n, &g) in nr.range(12..) {
        assert!(
            g < 0.8 * nr[&8],
            "NewReno should degrade at {n} senders: {g}"
        );
    }
    for (&n, &g) in nr.range(24..) {
        assert!(
            g < 0.5 * nr[&8],
            "NewReno should collapse at {n} senders: {g}"
        );
    }
    for (&n, &g) in dc.range(4..=48) {
        assert!(g > 0.75 * dc[&8], "DCTCP should hold at {n} senders: {g}");
        assert!(
            g > 1.5 * nr[&n].min(0.5),
            "DCTCP should beat NewReno at {n} senders"
        );
    }
    assert!(
        dc[&96] < 0.8 * dc[&8],
        "DCTCP collapses too, eventually: {}",
        dc[&96]
    );
}
