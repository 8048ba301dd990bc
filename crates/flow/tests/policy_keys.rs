//! Each policy owns its keys: a `[[schemes]]` key is read by the named policy's own config,
//! and a key it does not have is an error at that key.

mod common;
use common::TomlKeys;
use dctc_flow::policy::dba::DbaConfig;
use dctc_flow::{FlowError, PolicyConfig, PolicyKeys, POLICIES};

fn parse(name: &str, keys: &str) -> Result<PolicyConfig, FlowError> {
    PolicyConfig::parse(name, None, &TomlKeys::new(keys))
}

fn key_error(r: Result<PolicyConfig, FlowError>) -> (String, String) {
    match r {
        Err(FlowError::Invalid(e)) => (e.path, e.reason),
        other => panic!("not a key error: {other:?}"),
    }
}

#[test]
fn a_policys_own_keys_reach_its_config() {
    let c = parse("dba", "epsilon = 0.25\nmomentum = \"standard\"\nlag = 2").unwrap();
    assert_eq!(
        c.keys,
        PolicyKeys::Dba(DbaConfig {
            epsilon: Some(0.25),
            momentum: Some("standard".into()),
            lag: Some(2),
            ..DbaConfig::default()
        })
    );
    assert_eq!(c.name(), "dba");
    let c = PolicyConfig::parse(
        "baraat",
        Some("b".into()),
        &TomlKeys::new("heavy_bytes = 5.0"),
    )
    .unwrap();
    assert_eq!(c.label(), "b");
    match c.keys {
        PolicyKeys::Baraat(k) => assert_eq!(k.heavy_bytes, Some(5.0)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_policy_parses_with_no_keys() {
    for (name, _) in POLICIES {
        let c = parse(name, "").unwrap();
        assert_eq!(c, PolicyConfig::named(name));
    }
}

#[test]
fn a_key_of_another_policy_is_an_error_at_that_key() {
    // A key of dba given to maxmin (no keys at all), to dba-ideal (which has epsilon but not
    // gamma) and to baraat.
    let (path, reason) = key_error(parse("maxmin", "epsilon = 0.5"));
    assert_eq!(path, "epsilon");
    assert!(
        reason.contains("does not apply to policy `maxmin`") && reason.contains("it has none"),
        "{reason}"
    );
    assert!(parse("dba-ideal", "epsilon = 0.5").is_ok());
    let (path, reason) = key_error(parse("dba-ideal", "epsilon = 0.5\ngamma = 1e-18"));
    assert_eq!(path, "gamma");
    assert!(
        reason.contains("`dba-ideal`") && reason.contains("epsilon, resolve_fraction"),
        "{reason}"
    );
    let (path, _) = key_error(parse("baraat", "utility = { kind = \"log\" }"));
    assert_eq!(path, "utility");
    // A misspelt key is refused the same way, with the nearest of that policy's keys.
    let (path, reason) = key_error(parse("dba", "epsilom = 0.5"));
    assert_eq!(path, "epsilom");
    assert!(reason.contains("did you mean `epsilon`?"), "{reason}");
    // A key far from every key of the policy gets no suggestion.
    let (_, reason) = key_error(parse("dba", "zzz = 0.5"));
    assert!(!reason.contains("did you mean"), "{reason}");
}

#[test]
fn a_bad_value_and_an_unknown_name_are_errors() {
    assert!(matches!(
        parse("dba", "epsilon = \"half\""),
        Err(FlowError::Invalid(_))
    ));
    let (path, reason) = key_error(parse("pfabric", ""));
    assert_eq!(path, "name");
    assert!(reason.contains("unknown policy `pfabric`") && reason.contains("varys"));
    let (_, reason) = key_error(parse("varsy", ""));
    assert!(reason.contains("did you mean `varys`?"), "{reason}");
}
