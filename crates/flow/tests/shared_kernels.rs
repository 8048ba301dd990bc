//! The flow engine's max-min allocation is dctc-num's: on random coflow sets on a
//! leaf-spine fabric (ECMP routes, shared core links), the `maxmin` policy's from-scratch
//! rates equal `dctc_num::maxmin::weighted_max_min` bit for bit and the slow direct
//! water-filling (`oracle_weighted_max_min`) to 1e-12.

mod common;
use dctc_core::units::SimTime;
use dctc_flow::policy::maxmin::MaxMin;
use dctc_flow::policy::{RatePolicy, View};
use dctc_flow::{make_policy, CoflowInput, FlowInput, PolicyConfig, SimConfig, Simulator};
use dctc_num::maxmin::{oracle_weighted_max_min, weighted_max_min};
use dctc_num::Csr;
use rand::{Rng, SeedableRng};

#[test]
fn maxmin_rates_are_dctc_nums_on_random_instances() {
    // Core links at half the hosts' rate: flows share host and core bottlenecks.
    let net = common::leaf_spine_net(4, 4, 2, 10.0, 5.0);
    let hosts = 16u32;
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5ba2ed);
    let mut flows_checked = 0;
    for case in 0..40 {
        let coflows: Vec<CoflowInput> = (0..rng.random_range(1..12u32))
            .map(|id| CoflowInput {
                id,
                arrival: SimTime::ZERO,
                flows: (0..rng.random_range(1..6))
                    .map(|_| {
                        let src = rng.random_range(0..hosts);
                        let dst = (src + rng.random_range(1..hosts)) % hosts;
                        FlowInput {
                            src,
                            dst,
                            bytes: rng.random_range(1e6..1e9),
                        }
                    })
                    .collect(),
            })
            .collect();
        let policy = make_policy(&PolicyConfig::named("maxmin"), &net, &[]).unwrap();
        let mut sim = Simulator::new(&net, coflows, policy, SimConfig::default());
        sim.advance(SimTime(1), &mut |_| {});
        let active = sim.active_flows();
        let view = View {
            now: sim.now(),
            net: &net,
            flows: &sim.flows,
            coflows: &sim.coflows,
        };
        let mut rates = vec![0.0; active.len()];
        MaxMin::new(net.links()).allocate(&view, &active, &mut rates);
        let routes = Csr::from_rows(active.iter().map(|&f| {
            let hops = sim.flows.hops(f as usize);
            assert!(hops.iter().all(|h| h.coef == 1.0), "single-path routes");
            hops.iter().map(|h| h.link).collect::<Vec<_>>()
        }));
        let n = active.len();
        let (w, cap) = (vec![1.0; n], vec![f64::INFINITY; n]);
        let num = weighted_max_min(&net.cap, &routes, &w, &cap);
        let oracle = oracle_weighted_max_min(&net.cap, &routes, &w, &cap);
        for k in 0..n {
            assert_eq!(rates[k].to_bits(), num[k].to_bits(), "case {case} flow {k}");
            assert!(
                (rates[k] - oracle[k]).abs() <= 1e-12 * oracle[k],
                "case {case} flow {k}: {} vs oracle {}",
                rates[k],
                oracle[k]
            );
            // And what the engine applied at the arrivals.
            let applied = sim.flows.rate[active[k] as usize];
            assert!((applied - oracle[k]).abs() <= 1e-9 * oracle[k]);
        }
        flows_checked += n;
    }
    assert!(flows_checked > 200, "{flows_checked}");
}
