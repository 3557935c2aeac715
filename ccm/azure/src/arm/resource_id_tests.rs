//! Tests of [`super`]: examples from the fake's documents and upstream's forms, plus proptests.

use super::*;
use proptest::prelude::*;

const SUB: &str = "0b1f6471-1bf0-4dda-aec3-111122223333";

#[test]
fn parses_a_scale_set_vm_nic_id() {
    let text = format!(
        "/subscriptions/{SUB}/resourceGroups/MC_rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool/virtualMachines/3/networkInterfaces/pool-nic"
    );
    let id: ResourceId = text.parse().unwrap();
    assert_eq!(id.subscription(), SUB);
    assert_eq!(id.resource_group(), Some("MC_rg"));
    assert_eq!(id.namespace(), "Microsoft.Compute");
    assert_eq!(
        id.resource_type(),
        "Microsoft.Compute/virtualMachineScaleSets/virtualMachines/networkInterfaces"
    );
    assert_eq!(id.name(), "pool-nic");
    assert_eq!(
        id.types().collect::<Vec<_>>(),
        [
            ("virtualMachineScaleSets", "pool"),
            ("virtualMachines", "3"),
            ("networkInterfaces", "pool-nic")
        ]
    );
    assert_eq!(id.to_string(), text);
    let vm = id.parent().unwrap();
    assert_eq!(vm.name(), "3");
    assert_eq!(vm.parent().unwrap().name(), "pool");
    assert_eq!(vm.parent().unwrap().parent(), None);
}

#[test]
fn keywords_match_ignoring_case_and_print_as_parsed() {
    let text = format!(
        "/SUBSCRIPTIONS/{SUB}/resourcegroups/Rg/PROVIDERS/microsoft.network/loadBalancers/lb"
    );
    let id: ResourceId = text.parse().unwrap();
    assert_eq!(id.resource_group(), Some("Rg"));
    assert_eq!(id.to_string(), text);
    assert!(id.is_type("Microsoft.Network/loadBalancers"));
    let canonical = ResourceId::new(
        SUB,
        Some("rg"),
        "Microsoft.Network",
        &[("loadBalancers", "LB")],
    )
    .unwrap();
    assert!(id.eq_ignore_case(&canonical));
    assert_ne!(id, canonical);
}

#[test]
fn lb_child_ids_and_subscription_level_ids() {
    let lb = ResourceId::new(
        SUB,
        Some("rg"),
        "Microsoft.Network",
        &[("loadBalancers", "kubernetes")],
    )
    .unwrap();
    let pool = lb.child("backendAddressPools", "kubernetes").unwrap();
    assert_eq!(
        pool.to_string(),
        format!(
            "/subscriptions/{SUB}/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/kubernetes/backendAddressPools/kubernetes"
        )
    );
    assert_eq!(pool.parent().unwrap(), lb);
    let sub_level: ResourceId =
        format!("/subscriptions/{SUB}/providers/Microsoft.Compute/locations/eastus")
            .parse()
            .unwrap();
    assert_eq!(sub_level.resource_group(), None);
    assert_eq!(sub_level.name(), "eastus");
}

#[test]
fn malformed_ids_are_errors_naming_the_input() {
    for bad in [
        "",
        "subscriptions/x/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm",
        "/subscriptions",
        "/subscriptions/x/resourceGroups",
        "/subscriptions/x/resourceGroups/rg",
        "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Compute",
        "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines",
        "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm/",
        "/subscriptions//resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm",
        "/tenants/x/providers/Microsoft.Compute/virtualMachines/vm",
    ] {
        let err = bad.parse::<ResourceId>().unwrap_err();
        assert!(err.to_string().contains(&format!("{bad:?}")), "{err}");
    }
}

#[test]
fn building_from_segments_refuses_embedded_slashes() {
    let err = ResourceId::new(
        SUB,
        Some("rg"),
        "Microsoft.Compute",
        &[("virtualMachines", "a/b")],
    )
    .unwrap_err();
    assert!(err.to_string().contains("contains '/'"), "{err}");
    assert!(ProviderId::for_vm(SUB, "rg/x", "vm").is_err());
}

#[test]
fn vm_provider_id_is_byte_identical_to_upstream() {
    let id: ResourceId = format!("/subscriptions/{SUB}/resourceGroups/MC_My-RG_eastus/providers/Microsoft.Compute/virtualMachines/Agent-VM-0")
        .parse()
        .unwrap();
    let pid = ProviderId::from_resource_id(&id).unwrap();
    assert_eq!(
        pid.to_string(),
        format!(
            "azure:///subscriptions/{SUB}/resourceGroups/mc_my-rg_eastus/providers/Microsoft.Compute/virtualMachines/Agent-VM-0"
        )
    );
    assert_eq!(pid.kind(), NodeIdKind::VirtualMachine);
    assert_eq!(pid.vm_name(), Some("Agent-VM-0"));
    assert_eq!(pid.resource_group(), "mc_my-rg_eastus");
    assert_eq!(pid.scale_set_instance(), None);
    assert_eq!(
        ProviderId::for_vm(SUB, "MC_My-RG_eastus", "Agent-VM-0").unwrap(),
        pid
    );
}

#[test]
fn scale_set_provider_id_is_byte_identical_to_upstream() {
    let pid = ProviderId::for_scale_set_vm(SUB, "K8S-RG", "uniformpool", "10").unwrap();
    let text = format!(
        "azure:///subscriptions/{SUB}/resourceGroups/k8s-rg/providers/Microsoft.Compute/virtualMachineScaleSets/uniformpool/virtualMachines/10"
    );
    assert_eq!(pid.to_string(), text);
    assert_eq!(pid.kind(), NodeIdKind::ScaleSetVm);
    assert_eq!(pid.scale_set_instance(), Some(("uniformpool", "10")));
    assert_eq!(pid.vm_name(), None);
    let parsed: ProviderId = text.parse().unwrap();
    assert_eq!(parsed, pid);
    assert_eq!(parsed.to_string(), text);
}

#[test]
fn scale_set_provider_id_accepts_the_name_underscore_id_form() {
    let text = format!(
        "azure:///subscriptions/{SUB}/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool/virtualMachines/pool_7"
    );
    let pid: ProviderId = text.parse().unwrap();
    assert_eq!(pid.scale_set_instance(), Some(("pool", "7")));
    assert_eq!(pid.to_string(), text);
}

#[test]
fn parsing_keeps_the_casing_it_was_given() {
    // A node registered by an older CCM may carry an upper-case RG: parse/print must not alter it.
    let text = format!(
        "azure:///subscriptions/{SUB}/resourceGroups/RG/providers/Microsoft.Compute/virtualMachines/vm"
    );
    assert_eq!(text.parse::<ProviderId>().unwrap().to_string(), text);
}

#[test]
fn non_node_provider_ids_are_refused() {
    for bad in [
        format!(
            "/subscriptions/{SUB}/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm"
        ),
        format!(
            "azure://subscriptions/{SUB}/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm"
        ),
        format!("azure:///subscriptions/{SUB}/providers/Microsoft.Compute/virtualMachines/vm"),
        format!(
            "azure:///subscriptions/{SUB}/resourceGroups/rg/providers/Microsoft.Network/networkInterfaces/nic"
        ),
        format!(
            "azure:///subscriptions/{SUB}/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/ss"
        ),
        format!(
            "azure:///subscriptions/{SUB}/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/ss/virtualMachines/abc"
        ),
        format!(
            "azure:///subscriptions/{SUB}/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/ss/virtualMachines/other_1"
        ),
        "kind://node".to_string(),
        "aws:///us-east-1a/i-0123".to_string(),
    ] {
        let err = bad.parse::<ProviderId>().unwrap_err();
        assert!(
            err.to_string().contains("invalid providerID"),
            "{bad}: {err}"
        );
    }
}

fn segment() -> impl Strategy<Value = String> {
    "[A-Za-z0-9._()-][A-Za-z0-9._() -]{0,20}"
}

fn id_parts() -> impl Strategy<Value = (String, Option<String>, String, Vec<(String, String)>)> {
    (
        segment(),
        proptest::option::of(segment()),
        "[A-Za-z]{1,10}\\.[A-Za-z]{1,10}",
        proptest::collection::vec((segment(), segment()), 1..4),
    )
}

proptest! {
    #[test]
    fn random_ids_round_trip((sub, rg, ns, types) in id_parts()) {
        let pairs: Vec<(&str, &str)> = types.iter().map(|(t, n)| (t.as_str(), n.as_str())).collect();
        let id = ResourceId::new(&sub, rg.as_deref(), &ns, &pairs).unwrap();
        let text = id.to_string();
        let back: ResourceId = text.parse().unwrap();
        prop_assert_eq!(&back, &id);
        prop_assert_eq!(back.to_string(), text);
        prop_assert_eq!(back.subscription(), sub.as_str());
        prop_assert_eq!(back.resource_group(), rg.as_deref());
        prop_assert_eq!(back.namespace(), ns.as_str());
        prop_assert_eq!(back.types().map(|(t, n)| (t.to_string(), n.to_string())).collect::<Vec<_>>(), types);
    }

    #[test]
    fn random_provider_ids_round_trip(sub in segment(), rg in segment(), name in segment(), ss in segment(), instance in 0u32..100_000) {
        let vm = ProviderId::for_vm(&sub, &rg, &name).unwrap();
        prop_assert_eq!(vm.resource_group(), rg.to_lowercase());
        prop_assert_eq!(vm.to_string().parse::<ProviderId>().unwrap(), vm.clone());
        prop_assert_eq!(vm.vm_name(), Some(name.as_str()));
        let instance = instance.to_string();
        let uniform = ProviderId::for_scale_set_vm(&sub, &rg, &ss, &instance).unwrap();
        let back: ProviderId = uniform.to_string().parse().unwrap();
        prop_assert_eq!(back.scale_set_instance(), Some((ss.as_str(), instance.as_str())));
        prop_assert_eq!(back.to_string(), uniform.to_string());
    }

    #[test]
    fn random_strings_never_panic(text in "\\PC{0,120}") {
        if let Ok(id) = text.parse::<ResourceId>() {
            prop_assert_eq!(id.to_string(), text.clone());
            let _ = (id.resource_type(), id.parent(), id.name());
        }
        if let Ok(pid) = text.parse::<ProviderId>() {
            prop_assert_eq!(pid.to_string(), text.clone());
            let _ = (pid.kind(), pid.vm_name(), pid.scale_set_instance());
        }
    }

    #[test]
    fn random_slash_strings_never_panic(parts in proptest::collection::vec("(subscriptions|resourceGroups|providers|virtualMachines|[a-z_0-9]{0,4})", 0..12)) {
        let text = format!("/{}", parts.join("/"));
        let _ = text.parse::<ResourceId>();
        let _ = format!("azure://{text}").parse::<ProviderId>();
    }
}
