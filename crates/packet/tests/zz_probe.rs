use dctc_core::fabric::FabricSpec;
use dctc_core::routing::Routing;
use dctc_core::units::{Delta, SimTime};
use dctc_packet::config::{resolve_scheme, PacketSettings, SchemeConfig, WorkloadConfig};
use dctc_packet::{incast_sweep, RunOptions};
use std::path::Path;

#[test]
#[ignore]
fn probe() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/tfc");
    let text = std::fs::read_to_string(dir.join("incast.toml")).unwrap();
    let raw: toml::Value = toml::from_str(&text).unwrap();
    let fabric: FabricSpec = raw["fabric"].clone().try_into().unwrap();
    let topo = fabric.build(&dir).unwrap();
    let routing = Routing::new(&topo).unwrap();
    let settings: PacketSettings = raw["packet"].clone().try_into().unwrap();
    let WorkloadConfig::IncastSweep(mut sweep) = raw["workload"][0].clone().try_into().unwrap()
    else {
        panic!()
    };
    sweep.rounds = std::env::var("ROUNDS")
        .map(|x| x.parse().unwrap())
        .unwrap_or(50);
    let opts = RunOptions::new(1, SimTime::from_delta(Delta::from_ms(600_000)));
    for (i, v) in raw["schemes"].as_array().unwrap().iter().enumerate() {
        let cfg: SchemeConfig = v.clone().try_into().unwrap();
        let scheme = resolve_scheme(&cfg, &settings, &topo, &format!("schemes[{i}]")).unwrap();
        for (n, r) in incast_sweep(&topo, &routing, &scheme, &sweep, &opts).unwrap() {
            eprintln!(
                "{} n={n:3} goodput {:.3} TO {} drops {}",
                scheme.label,
                r.incasts[0].goodput_gbps,
                r.incasts[0].timeouts,
                r.counters.dropped_packets
            );
        }
    }
}
