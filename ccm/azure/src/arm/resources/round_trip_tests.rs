//! Proptests: documents captured from `azure-fakes` (`testdata/`, one per modelled type), with
//! random unknown members injected at every object level, come back unchanged through the models.

use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::*;

/// Parses, reserializes and compares as JSON values.
fn round_trips<T: DeserializeOwned + Serialize>(doc: &Value) -> Result<(), String> {
    let typed: T = serde_json::from_value(doc.clone()).map_err(|e| e.to_string())?;
    let back = serde_json::to_value(&typed).map_err(|e| e.to_string())?;
    if &back == doc {
        Ok(())
    } else {
        Err(format!("changed:\n{back}\nexpected:\n{doc}"))
    }
}

/// [`round_trips`] for a load balancer, whose pools' read-only `backendIPConfigurations` are
/// dropped on purpose (see [`load_balancer::BackendAddressPoolProperties`]).
fn load_balancer_round_trips(doc: &Value) -> Result<(), String> {
    let mut expected = doc.clone();
    let pools = expected
        .pointer_mut("/properties/backendAddressPools")
        .and_then(Value::as_array_mut);
    for pool in pools.into_iter().flatten() {
        if let Some(props) = pool.get_mut("properties").and_then(Value::as_object_mut) {
            props.remove("backendIPConfigurations");
        }
    }
    let typed: LoadBalancer = serde_json::from_value(doc.clone()).map_err(|e| e.to_string())?;
    let back = serde_json::to_value(&typed).map_err(|e| e.to_string())?;
    if back == expected {
        Ok(())
    } else {
        Err(format!("changed:\n{back}\nexpected:\n{expected}"))
    }
}

type Check = fn(&Value) -> Result<(), String>;

/// Each fixture with the model it belongs to.
fn fixtures() -> Vec<(&'static str, &'static str, Check)> {
    vec![
        (
            "virtual_machine",
            include_str!("testdata/virtual_machine.json"),
            round_trips::<VirtualMachine>,
        ),
        (
            "scale_set",
            include_str!("testdata/scale_set.json"),
            round_trips::<VirtualMachineScaleSet>,
        ),
        (
            "scale_set_vm",
            include_str!("testdata/scale_set_vm.json"),
            round_trips::<ScaleSetVm>,
        ),
        (
            "availability_set",
            include_str!("testdata/availability_set.json"),
            round_trips::<AvailabilitySet>,
        ),
        (
            "network_interface",
            include_str!("testdata/network_interface.json"),
            round_trips::<NetworkInterface>,
        ),
        (
            "public_ip_address",
            include_str!("testdata/public_ip_address.json"),
            round_trips::<PublicIpAddress>,
        ),
        (
            "public_ip_prefix",
            include_str!("testdata/public_ip_prefix.json"),
            round_trips::<PublicIpPrefix>,
        ),
        (
            "load_balancer",
            include_str!("testdata/load_balancer.json"),
            load_balancer_round_trips,
        ),
        (
            "security_group",
            include_str!("testdata/security_group.json"),
            round_trips::<NetworkSecurityGroup>,
        ),
        (
            "route_table",
            include_str!("testdata/route_table.json"),
            round_trips::<RouteTable>,
        ),
        (
            "virtual_network",
            include_str!("testdata/virtual_network.json"),
            round_trips::<VirtualNetwork>,
        ),
        (
            "private_link_service",
            include_str!("testdata/private_link_service.json"),
            round_trips::<PrivateLinkService>,
        ),
        (
            "provider_metadata",
            include_str!("testdata/provider_metadata.json"),
            round_trips::<ResourceProvider>,
        ),
    ]
}

fn parse(name: &str, text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("testdata/{name}.json: {e}"))
}

/// Adds `extras` to every object in `doc` whose index (walk order) is selected by `mask`,
/// except inside `tags` (a string-to-string map in ARM).
fn inject(doc: &mut Value, extras: &Map<String, Value>, mask: &[bool], counter: &mut usize) {
    match doc {
        Value::Object(map) => {
            let selected = mask
                .get(*counter % mask.len().max(1))
                .copied()
                .unwrap_or(true);
            *counter += 1;
            for (key, value) in map.iter_mut() {
                if key != "tags" {
                    inject(value, extras, mask, counter);
                }
            }
            if selected {
                for (key, value) in extras {
                    map.insert(key.clone(), value.clone());
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                inject(item, extras, mask, counter);
            }
        }
        _ => {}
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1.0e9f64..1.0e9).prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("[a-zA-Z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Unknown member names: ARM-like camelCase, never one the models know (they never start with
/// `zz`).
fn extras() -> impl Strategy<Value = Map<String, Value>> {
    proptest::collection::btree_map("zz[a-zA-Z0-9]{0,10}", json_value(), 1..4)
        .prop_map(|m| m.into_iter().collect())
}

#[test]
fn every_fixture_round_trips_as_captured() {
    for (name, text, check) in fixtures() {
        check(&parse(name, text)).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn pool_members_listed_by_arm_are_neither_kept_nor_sent() {
    let doc = parse("load_balancer", include_str!("testdata/load_balancer.json"));
    let listed = doc
        .pointer("/properties/backendAddressPools/0/properties/backendIPConfigurations")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    assert!(listed > 0, "the fixture lists pool members");
    let lb: LoadBalancer = serde_json::from_value(doc).unwrap();
    let sent = serde_json::to_value(&lb).unwrap();
    assert_eq!(
        sent.pointer("/properties/backendAddressPools/0/properties/backendIPConfigurations"),
        None
    );
}

#[test]
fn a_dropped_member_is_detected() {
    // The comparison itself must see a loss: a model without the catch-all would fail here.
    let doc = parse("load_balancer", include_str!("testdata/load_balancer.json"));
    let mut lb: LoadBalancer = serde_json::from_value(doc.clone()).unwrap();
    assert!(
        lb.properties
            .as_ref()
            .unwrap()
            .extra
            .contains_key("resourceGuid")
    );
    lb.properties.as_mut().unwrap().extra.clear();
    assert_ne!(serde_json::to_value(&lb).unwrap(), doc);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_unknown_members_survive_at_every_level(
        extras in extras(),
        mask in proptest::collection::vec(any::<bool>(), 1..8),
    ) {
        for (name, text, check) in fixtures() {
            let mut doc = parse(name, text);
            let mut counter = 0;
            inject(&mut doc, &extras, &mask, &mut counter);
            if let Err(e) = check(&doc) {
                prop_assert!(false, "{}: {}", name, e);
            }
        }
    }
}
