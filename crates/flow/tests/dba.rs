//! DBA against the optimum of its problem (2).

mod common;
use common::dba144;
use dctc_core::units::SimTime;
use dctc_flow::convergence::convergence;
use dctc_flow::{CoflowInput, FlowInput, PolicyConfig};

/// A few coflows of different sizes and widths, big enough that nothing ends in 60 RTTs.
fn static_set() -> Vec<CoflowInput> {
    let mut out = Vec::new();
    type Spec<'a> = (u32, &'a [(u32, u32)], f64);
    let specs: [Spec; 4] = [
        (0, &[(0, 20), (1, 20), (2, 33)], 4e8),
        (1, &[(13, 20), (14, 40)], 1e8),
        (2, &[(25, 33), (26, 50), (27, 20), (0, 60)], 8e8),
        (3, &[(40, 1), (41, 2)], 2e8),
    ];
    for (id, pairs, bytes) in specs {
        out.push(CoflowInput {
            id,
            arrival: SimTime::ZERO,
            flows: pairs
                .iter()
                .enumerate()
                .map(|(k, &(s, d))| FlowInput {
                    src: s,
                    dst: d,
                    bytes: bytes * (1.0 + 0.3 * k as f64),
                })
                .collect(),
        });
    }
    out
}

#[test]
fn dba_converges_to_dba_ideal_rates_on_a_static_flow_set() {
    let net = dba144();
    let cfg = PolicyConfig::new(dctc_flow::PolicyKeys::Dba(
        dctc_flow::policy::dba::DbaConfig {
            remaining_time: Some("exact".into()),
            ..Default::default()
        },
    ));
    let c = convergence(&net, static_set(), &cfg, 60, 0.01).unwrap();
    let last = c.rates.last().unwrap();
    for (i, (&r, &o)) in last.iter().zip(&c.ideal).enumerate() {
        assert!(
            (r - o).abs() <= 0.01 * o,
            "flow {i}: dba {r:.4e} vs ideal {o:.4e}; settle {:?}",
            c.settle
        );
    }
    let settled = c.all_settled().expect("every flow settles");
    assert!(settled <= 40, "{:?}", c.settle);
    assert!(c.median_settle() <= 10.0, "{:?}", c.settle);
}
