use super::*;
use dctc_core::fabric::preset;
use drill::DrillKnobs;
use percentage::PercentageKnobs;

fn knobs(initial: Vec<f64>) -> PercentageKnobs {
    PercentageKnobs {
        initial: Some(initial),
        ..Default::default()
    }
}

/// The `[packet]` keys of the balancers with `drill` and `percentage_lb` as given.
fn resolve(
    drill: Option<&DrillKnobs>,
    pct: Option<&PercentageKnobs>,
    topo: &Topology,
) -> Result<LbParams, KeyError> {
    let keys = LbKeys {
        drill: drill::Keys {
            drill: drill.cloned(),
        },
        percentage: percentage::Keys {
            percentage_lb: pct.cloned(),
        },
        ..Default::default()
    };
    LbParams::resolve(&keys, topo)
}

#[test]
fn a_percentage_vector_must_sum_to_one_and_fit_the_leaves() {
    let topo = preset("holnet-6x6")
        .unwrap()
        .build(std::path::Path::new("."))
        .unwrap();
    let ok = resolve(None, Some(&knobs(vec![1.0 / 6.0; 6])), &topo).unwrap();
    assert_eq!(ok.percentage.initial.unwrap().len(), 6);
    let e = resolve(None, Some(&knobs(vec![0.2; 6])), &topo).unwrap_err();
    assert_eq!(e.path, "packet.percentage_lb.initial");
    assert!(e.reason.contains("sum to 1"), "{}", e.reason);
    let e = resolve(None, Some(&knobs(vec![0.5, 0.5])), &topo).unwrap_err();
    assert_eq!(e.path, "packet.percentage_lb.initial");
    assert!(e.reason.contains("6 uplinks"), "{}", e.reason);
    let e = resolve(
        None,
        Some(&knobs(vec![1.5, -0.5, 0.0, 0.0, 0.0, 0.0])),
        &topo,
    )
    .unwrap_err();
    assert!(e.reason.contains(">= 0"), "{}", e.reason);
}

#[test]
fn out_of_range_parameters_name_their_key() {
    let topo = preset("holnet-6x6")
        .unwrap()
        .build(std::path::Path::new("."))
        .unwrap();
    let cases = [
        (
            PercentageKnobs {
                r_min: Some(1.0),
                ..Default::default()
            },
            "r_min",
        ),
        (
            PercentageKnobs {
                r_max: Some(0.9),
                ..Default::default()
            },
            "r_max",
        ),
        (
            PercentageKnobs {
                gain: Some(0.0),
                ..Default::default()
            },
            "gain",
        ),
        (
            PercentageKnobs {
                update_us: Some(-1.0),
                ..Default::default()
            },
            "update_us",
        ),
        (
            PercentageKnobs {
                congested_fraction: Some(1.2),
                ..Default::default()
            },
            "congested_fraction",
        ),
    ];
    for (k, key) in cases {
        let e = resolve(None, Some(&k), &topo).unwrap_err();
        assert_eq!(e.path, format!("packet.percentage_lb.{key}"));
    }
    let d = DrillKnobs {
        samples: Some(0),
        memory: None,
    };
    assert_eq!(
        resolve(Some(&d), None, &topo).unwrap_err().path,
        "packet.drill.samples"
    );
    let d = DrillKnobs {
        samples: None,
        memory: Some(99),
    };
    assert_eq!(
        resolve(Some(&d), None, &topo).unwrap_err().path,
        "packet.drill.memory"
    );
}
