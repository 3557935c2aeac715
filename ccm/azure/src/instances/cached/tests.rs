//! The compact projections against whole documents as `azure-fakes` serves them (`testdata/`) and
//! variants of them: decoding a page straight into the projection gives what projecting the whole
//! document gives, and every reader answers as it does from the whole document.

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::*;
use crate::arm::resources::{NetworkInterface, PublicIpAddress, ScaleSetVm, VirtualMachine};
use crate::instances::machine::{Machine, zone_label};
use crate::instances::{vmas, vmss, vmss_flex};

fn testdata(name: &str) -> Value {
    let text = match name {
        "scale_set_vm" => include_str!("../../arm/resources/testdata/scale_set_vm.json"),
        "virtual_machine" => include_str!("../../arm/resources/testdata/virtual_machine.json"),
        "network_interface" => include_str!("../../arm/resources/testdata/network_interface.json"),
        "public_ip_address" => include_str!("../../arm/resources/testdata/public_ip_address.json"),
        other => panic!("no testdata {other}"),
    };
    serde_json::from_str(text).expect("testdata parses")
}

fn decode<T: DeserializeOwned>(doc: &Value) -> T {
    serde_json::from_value(doc.clone()).expect("decodes")
}

/// A page of `docs` decoded both ways: (whole, compact).
fn both<W: DeserializeOwned, C: DeserializeOwned>(docs: &[Value]) -> (Vec<W>, Vec<C>) {
    let page = json!({ "value": docs });
    let whole: crate::arm::resources::Page<W> = decode(&page);
    let compact: crate::arm::resources::Page<C> = decode(&page);
    (whole.value, compact.value)
}

/// The fake's instance with edits at JSON pointers (`None` removes the member).
fn edited(base: &Value, edits: &[(&str, Option<Value>)]) -> Value {
    let mut doc = base.clone();
    for (pointer, value) in edits {
        let (parent, key) = pointer.rsplit_once('/').expect("pointer");
        let slot = doc.pointer_mut(parent).expect("parent exists");
        match value {
            Some(v) => slot[key] = v.clone(),
            None => {
                slot.as_object_mut().expect("object").remove(key);
            }
        }
    }
    doc
}

fn scale_set_vms() -> Vec<Value> {
    let base = testdata("scale_set_vm");
    let nic = |n: &str, primary: Option<bool>| {
        let mut r = json!({ "id": format!("/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/uniformpool/virtualMachines/1/networkInterfaces/{n}") });
        if let Some(p) = primary {
            r["properties"] = json!({ "primary": p, "deleteOption": "Delete" });
        }
        r
    };
    vec![
        base.clone(),
        edited(
            &base,
            &[
                (
                    "/properties/instanceView/statuses",
                    Some(json!([
                        { "code": "ProvisioningState/succeeded", "level": "Info" },
                        { "code": "PowerState/deallocated", "displayStatus": "VM deallocated" }
                    ])),
                ),
                ("/zones", None),
                (
                    "/properties/instanceView/platformFaultDomain",
                    Some(json!(2)),
                ),
            ],
        ),
        edited(
            &base,
            &[
                ("/properties/instanceView", None),
                ("/sku", None),
                ("/properties/provisioningState", Some(json!("Deleting"))),
                (
                    "/properties/networkProfile/networkInterfaces",
                    Some(json!([nic("a", Some(false)), nic("b", Some(true))])),
                ),
            ],
        ),
        edited(
            &base,
            &[(
                "/properties/networkProfile/networkInterfaces",
                Some(json!([nic("a", None), nic("b", None)])),
            )],
        ),
    ]
}

#[test]
fn scale_set_instances_project_the_same_from_a_page_and_from_whole_documents() {
    let docs = scale_set_vms();
    let (whole, compact) = both::<ScaleSetVm, CachedScaleSetVm>(&docs);
    for (w, c) in whole.iter().zip(&compact) {
        assert_eq!(*c, CachedScaleSetVm::try_from(w).expect("projects"));
        assert_eq!(c.computer_name.as_deref(), w.computer_name());
        assert_eq!(c.power_state.as_deref(), w.power_state());
        let props = w.properties.as_ref().expect("properties");
        assert_eq!(
            c.hardware_profile, props.hardware_profile,
            "sent back whole"
        );
        let profile = c.network_profile_configuration.as_ref().map(Packed::unpack);
        assert_eq!(
            profile.transpose().expect("unpacks"),
            props.network_profile_configuration,
            "edited and sent back whole"
        );
        let primary = props
            .network_profile
            .as_ref()
            .expect("profile")
            .primary_nic_id("n");
        assert_eq!(c.primary_nic.as_deref(), primary.ok());
    }
    assert_eq!(compact[1].power_state.as_deref(), Some("deallocated"));
    assert!(
        compact[2]
            .primary_nic
            .as_deref()
            .is_some_and(|n| n.ends_with("/b"))
    );
    assert_eq!(compact[3].primary_nic, None, "two unflagged NICs: none");
}

#[test]
fn machines_of_scale_set_instances_read_off_the_projection() {
    let docs = scale_set_vms();
    let (whole, compact) = both::<ScaleSetVm, CachedScaleSetVm>(&docs);
    let node = "uniformpool000001";
    let m = Machine::from_scale_set_vm(&compact[0], node).expect("machine");
    assert_eq!(
        m.provider_id,
        "azure:///subscriptions/0b1f6471-1bf0-4dda-aec3-111122223333/resourceGroups/mixed-nodes-rg/providers/Microsoft.Compute/virtualMachineScaleSets/uniformpool/virtualMachines/1"
    );
    assert_eq!(m.instance_type, "Standard_D2s_v3");
    assert_eq!(
        (m.region.as_str(), m.zone.as_str()),
        ("eastus2", "eastus2-2")
    );
    assert!(!m.is_shutdown() && !m.is_deleting());
    let w = &whole[1];
    let m = Machine::from_scale_set_vm(&compact[1], node).expect("machine");
    let view = w.properties.as_ref().and_then(|p| p.instance_view.as_ref());
    assert_eq!(
        m.zone,
        zone_label("eastus2", None, view.and_then(|v| v.platform_fault_domain))
    );
    assert_eq!(m.zone, "2");
    assert!(m.is_shutdown());
    let m = Machine::from_scale_set_vm(&compact[2], node).expect("machine");
    assert_eq!(
        m.instance_type, "Standard_D2s_v3",
        "hardwareProfile without a SKU"
    );
    assert!(m.is_deleting() && !m.is_shutdown());
    assert_eq!(
        Machine::from_scale_set_vm(&compact[3], node)
            .unwrap_err()
            .to_string(),
        "failed to find a primary nic for the vm. vmname=\"uniformpool000001\""
    );
    assert!(vmss::find(&compact, "UNIFORMPOOL000001").is_some());
    assert_eq!(
        vmss::find_by_instance_id(&compact, "1").and_then(|v| v.computer_name.as_deref()),
        whole[0].computer_name()
    );
}

#[test]
fn vms_project_the_same_from_a_page_and_from_whole_documents() {
    let base = testdata("virtual_machine");
    let flex = edited(
        &base,
        &[
            ("/name", Some(json!("flexpool_1a2b3c"))),
            (
                "/properties/osProfile/computerName",
                Some(json!("flexpool000001")),
            ),
            ("/properties/availabilitySet", None),
            (
                "/properties/virtualMachineScaleSet",
                Some(
                    json!({ "id": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/flexpool" }),
                ),
            ),
            ("/properties/instanceView/platformFaultDomain", None),
            ("/properties/platformFaultDomain", Some(json!(1))),
            ("/zones", Some(json!(["3"]))),
        ],
    );
    let stopped = edited(
        &base,
        &[(
            "/properties/instanceView/statuses",
            Some(json!([{ "code": "PowerState/stopped" }, { "code": "PowerState/running" }])),
        )],
    );
    let (whole, compact) = both::<VirtualMachine, CachedVm>(&[base, flex, stopped]);
    for (w, c) in whole.iter().zip(&compact) {
        assert_eq!(*c, CachedVm::from(w));
        assert_eq!(c.vm_size.as_deref(), w.vm_size());
        assert_eq!(c.computer_name.as_deref(), w.computer_name());
        assert_eq!(c.scale_set_id.as_deref(), w.scale_set_id());
        assert_eq!(c.power_state.as_deref(), w.power_state());
    }
    let m = Machine::from_vm(
        vmas::find(&compact, "VMAS-AGENT-0").expect("vmas"),
        "vmas-agent-0",
    )
    .expect("machine");
    assert_eq!(m.instance_type, "Standard_D2s_v3");
    assert_eq!(
        m.primary_nic,
        "/subscriptions/0b1f6471-1bf0-4dda-aec3-111122223333/resourceGroups/mixed-nodes-rg/providers/Microsoft.Network/networkInterfaces/vmas-agent-0-nic"
    );
    assert_eq!(m.zone, "0");
    let flex = vmss_flex::find(&compact, "flexpool000001").expect("flex member");
    let m = Machine::from_vm(flex, "flexpool000001").expect("machine");
    assert_eq!(m.zone, "eastus2-3");
    let m = Machine::from_vm(&compact[2], "vmas-agent-0").expect("machine");
    assert!(m.is_shutdown(), "the first PowerState status wins");
}

fn nics() -> Vec<Value> {
    let base = testdata("network_interface");
    let config = |name: &str, extra: Value| {
        let mut props =
            json!({ "privateIPAllocationMethod": "Dynamic", "provisioningState": "Succeeded" });
        for (k, v) in extra.as_object().expect("object") {
            props[k] = v.clone();
        }
        json!({ "name": name, "id": format!("/nic/ipConfigurations/{name}"), "etag": "W/\"1\"", "properties": props })
    };
    let dual = edited(
        &base,
        &[(
            "/properties/ipConfigurations",
            Some(json!([
                config(
                    "v6",
                    json!({ "privateIPAddress": "fd00::5", "privateIPAddressVersion": "IPv6",
                                      "publicIPAddress": { "id": "/pip/v6" } })
                ),
                config(
                    "primary",
                    json!({ "primary": true, "privateIPAddress": "10.0.0.5",
                                           "publicIPAddress": { "id": "/pip/v4" } })
                ),
                config("v6-empty", json!({ "privateIPAddressVersion": "IPv6" }))
            ])),
        )],
    );
    let unflagged = edited(
        &base,
        &[(
            "/properties/ipConfigurations",
            Some(json!([config("a", json!({})), config("b", json!({}))])),
        )],
    );
    let bare = edited(&base, &[("/properties/ipConfigurations", None)]);
    vec![base, dual, unflagged, bare]
}

#[test]
fn nics_select_the_same_ipconfigs_as_whole_documents() {
    let (whole, compact) = both::<NetworkInterface, CachedNic>(&nics());
    let name = |c: Option<&CachedIpConfig>| c.and_then(|c| c.name.clone());
    for (w, c) in whole.iter().zip(&compact) {
        assert_eq!(*c, CachedNic::from(w));
        match (w.primary_ip_configuration(), c.primary_ip_configuration()) {
            (Ok(wp), Ok(cp)) => {
                assert_eq!(wp.name, cp.name);
                let wp = wp.properties.as_ref().expect("properties");
                assert_eq!(wp.private_ip_address, cp.private_ip_address);
                let pip = wp.public_ip_address.as_ref().and_then(|r| r.id.clone());
                assert_eq!(pip, cp.public_ip_id);
            }
            (we, ce) => assert_eq!(we.err(), ce.err()),
        }
        for ipv6 in [false, true] {
            let wf = w.ip_configuration_of_family(ipv6);
            let cf = c.ip_configuration_of_family(ipv6);
            assert_eq!(
                wf.as_ref().ok().and_then(|c| c.name.clone()),
                name(cf.as_ref().ok().copied())
            );
            assert_eq!(wf.err(), cf.err());
        }
    }
    let dual = &compact[1];
    assert_eq!(
        name(dual.primary_ip_configuration().ok()).as_deref(),
        Some("primary")
    );
    assert_eq!(
        name(dual.ip_configuration_of_family(true).ok()).as_deref(),
        Some("v6")
    );
    assert_eq!(
        crate::routes::next_hop::first_private_ip(dual, true).as_deref(),
        Some("fd00::5")
    );
}

#[test]
fn public_ips_keep_their_id_and_address() {
    let base = testdata("public_ip_address");
    let unassigned = edited(&base, &[("/properties/ipAddress", None)]);
    let (whole, compact) = both::<PublicIpAddress, CachedPublicIp>(&[base, unassigned]);
    for (w, c) in whole.iter().zip(&compact) {
        assert_eq!(*c, CachedPublicIp::from(w));
    }
    assert_eq!(compact[0].ip_address.as_deref(), Some("20.0.0.2"));
    assert_eq!(compact[1].ip_address, None);
}
