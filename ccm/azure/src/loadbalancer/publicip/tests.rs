//! PIP plan cases: creation body, adoption of in-tree PIPs (current and legacy tags), sharing,
//! user-assigned PIPs, DNS labels, release on delete.

use std::collections::BTreeMap;

use super::plan::{PipContext, PipError, plan};
use crate::arm::resources::public_ip_address::PublicIpAddress;
use crate::loadbalancer::names;
use crate::loadbalancer::service::{IpFamily, LbService};

const UID: &str = "1a2b3c4d-5e6f-7081-92a3-b4c5d6e7f809";
const UID_B: &str = "99999999-5e6f-7081-92a3-b4c5d6e7f809";

pub(crate) fn service(name: &str, uid: &str) -> LbService {
    LbService::minimal("default", name, uid)
}

fn ctx() -> PipContext {
    PipContext {
        cluster_name: "kubernetes".to_string(),
        resource_group: "rg".to_string(),
        location: "eastus".to_string(),
        zones: vec!["1".to_string(), "2".to_string(), "3".to_string()],
        standard_sku: true,
        config_tags: BTreeMap::from([("team".to_string(), "net".to_string())]),
        system_tags: Vec::new(),
        ip_tag_mutation: false,
        legacy_tag_keys: false,
    }
}

/// A PIP as ARM lists it after the in-tree provider created it.
fn listed(name: &str, ip: &str, tags: &[(&str, &str)]) -> PublicIpAddress {
    serde_json::from_value(serde_json::json!({
        "id": format!("/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/publicIPAddresses/{name}"),
        "name": name,
        "location": "eastus",
        "etag": "W/\"1\"",
        "sku": {"name": "Standard", "tier": "Regional"},
        "zones": ["1", "2", "3"],
        "tags": tags.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>(),
        "properties": {
            "provisioningState": "Succeeded",
            "publicIPAllocationMethod": "Static",
            "publicIPAddressVersion": "IPv4",
            "ipAddress": ip,
            "idleTimeoutInMinutes": 4
        }
    }))
    .expect("pip json")
}

#[test]
fn a_new_public_service_creates_one_standard_static_zonal_pip() {
    let svc = service("web", UID);
    let plan = plan(&svc, true, &ctx(), &[]).expect("plan");
    assert_eq!(plan.wanted.len(), 1);
    assert!(plan.updates.is_empty() && plan.deletes.is_empty());
    insta::assert_json_snapshot!(plan.wanted[0].write.as_ref().expect("create"));
}

#[test]
fn an_in_tree_pip_is_adopted_without_a_write() {
    let svc = service("web", UID);
    let name = format!("kubernetes-{}", names::base_name(UID));
    let pip = listed(
        &name,
        "20.1.2.3",
        &[
            ("k8s-azure-service", "default/web"),
            ("k8s-azure-cluster-name", "kubernetes"),
            ("team", "net"),
        ],
    );
    let plan = plan(&svc, true, &ctx(), &[pip]).expect("plan");
    assert_eq!(plan.wanted[0].name, name);
    assert_eq!(plan.wanted[0].write, None, "nothing differs: no PUT");
    assert!(plan.updates.is_empty() && plan.deletes.is_empty());
}

#[test]
fn a_managed_pip_left_failed_is_put_again_a_user_pip_is_not() {
    let svc = service("web", UID);
    let name = format!("kubernetes-{}", names::base_name(UID));
    let tags = [
        ("k8s-azure-service", "default/web"),
        ("k8s-azure-cluster-name", "kubernetes"),
        ("team", "net"),
    ];
    let mut pip = listed(&name, "20.1.2.3", &tags);
    let props = pip.properties.as_mut().expect("properties");
    props.provisioning_state = Some("Failed".into());
    props.ip_address = None;
    let p = plan(&svc, true, &ctx(), std::slice::from_ref(&pip)).expect("plan");
    let write = p.wanted[0]
        .write
        .as_ref()
        .expect("a failed PIP is put again");
    assert_eq!(write.id, pip.id, "the same PIP");
    // A user-assigned PIP (no service tag) in the failed state is not ours to write.
    let mut user = listed("user-pip", "20.1.2.4", &[("owner", "me")]);
    user.properties
        .as_mut()
        .expect("properties")
        .provisioning_state = Some("Failed".into());
    let mut pinned = service("web", UID);
    pinned.public_ip.names.v4 = Some("user-pip".to_string());
    let p = plan(&pinned, true, &ctx(), &[user]).expect("plan");
    assert_eq!(p.wanted[0].write, None);
}

#[test]
fn legacy_tags_are_migrated_on_the_same_pip() {
    let svc = service("web", UID);
    let name = format!("kubernetes-{}", names::base_name(UID));
    let pip = listed(
        &name,
        "20.1.2.3",
        &[
            ("service", "default/web"),
            ("kubernetes-cluster-name", "kubernetes"),
        ],
    );
    let plan = plan(&svc, true, &ctx(), &[pip]).expect("plan");
    let write = plan.wanted[0].write.as_ref().expect("tags migrate");
    assert_eq!(
        write.id,
        plan.wanted[0].current.as_ref().unwrap().id,
        "same PIP"
    );
    let tags = write.tags.as_ref().unwrap();
    assert_eq!(tags["k8s-azure-service"], "default/web");
    assert_eq!(tags["k8s-azure-cluster-name"], "kubernetes");
    assert!(!tags.contains_key("service"), "one service list left");
    assert!(plan.deletes.is_empty());
}

#[test]
fn deleting_the_only_user_deletes_the_pip_but_a_shared_one_is_only_unbound() {
    let svc = service("web", UID);
    let name = format!("kubernetes-{}", names::base_name(UID));
    let own = listed(
        &name,
        "20.1.2.3",
        &[
            ("k8s-azure-service", "default/web"),
            ("k8s-azure-cluster-name", "kubernetes"),
        ],
    );
    let p = plan(&svc, false, &ctx(), std::slice::from_ref(&own)).expect("plan");
    assert_eq!(p.deletes.len(), 1);
    assert!(p.wanted.is_empty());

    let shared = listed(
        &name,
        "20.1.2.3",
        &[
            ("k8s-azure-service", "default/web,default/api"),
            ("k8s-azure-cluster-name", "kubernetes"),
        ],
    );
    let p = plan(&svc, false, &ctx(), &[shared]).expect("plan");
    assert!(p.deletes.is_empty());
    assert_eq!(
        p.updates[0].tags.as_ref().unwrap()["k8s-azure-service"],
        "default/api"
    );
}

#[test]
fn a_second_service_pinning_the_ip_shares_the_pip() {
    let mut api = service("api", UID_B);
    api.requested_ips.v4 = Some("20.1.2.3".parse().unwrap());
    let name = format!("kubernetes-{}", names::base_name(UID));
    let pip = listed(
        &name,
        "20.1.2.3",
        &[
            ("k8s-azure-service", "default/web"),
            ("k8s-azure-cluster-name", "kubernetes"),
        ],
    );
    let p = plan(&api, true, &ctx(), &[pip]).expect("plan");
    assert_eq!(p.wanted[0].name, name);
    let tags = p.wanted[0].write.as_ref().unwrap().tags.clone().unwrap();
    assert_eq!(tags["k8s-azure-service"], "default/web,default/api");
}

#[test]
fn a_pinned_ip_without_pip_is_an_error() {
    let mut api = service("api", UID_B);
    api.requested_ips.v4 = Some("20.9.9.9".parse().unwrap());
    let err = plan(&api, true, &ctx(), &[]).unwrap_err();
    assert!(matches!(err, PipError::PinnedIpNotFound { .. }));
    assert!(err.to_string().contains("20.9.9.9"), "{err}");
}

#[test]
fn a_user_pip_is_used_but_never_retagged_or_deleted() {
    let mut svc = service("web", UID);
    svc.public_ip.names.v4 = Some("my-ip".to_string());
    let user = listed("my-ip", "20.5.5.5", &[("owner", "me")]);
    let p = plan(&svc, true, &ctx(), std::slice::from_ref(&user)).expect("plan");
    assert_eq!(p.wanted[0].write, None);
    let p = plan(&svc, false, &ctx(), &[user]).expect("plan");
    assert!(p.deletes.is_empty() && p.updates.is_empty());
    svc.public_ip.names.v4 = Some("missing".to_string());
    assert!(matches!(
        plan(&svc, true, &ctx(), &[]),
        Err(PipError::NamedPipMissing { .. })
    ));
}

#[test]
fn dns_label_tags_and_prefix_on_creation() {
    let mut svc = service("web", UID);
    svc.families = vec![IpFamily::V4, IpFamily::V6];
    svc.public_ip.dns_label = Some("myapp".to_string());
    svc.public_ip.tags = BTreeMap::from([("Team".to_string(), "web".to_string())]);
    svc.public_ip.prefix_ids.v6 = Some(
        "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/publicIPPrefixes/pfx6"
            .to_string(),
    );
    svc.public_ip.ip_tags = vec![("RoutingPreference".to_string(), "Internet".to_string())];
    let p = plan(&svc, true, &ctx(), &[]).expect("plan");
    let bodies: Vec<_> = p.wanted.iter().map(|w| w.write.clone().unwrap()).collect();
    insta::assert_json_snapshot!(bodies);
}

#[test]
fn a_dns_label_owned_by_another_service_is_refused() {
    let mut api = service("api", UID_B);
    api.requested_ips.v4 = Some("20.1.2.3".parse().unwrap());
    api.public_ip.dns_label = Some("mine".to_string());
    let pip = listed(
        "kubernetes-x",
        "20.1.2.3",
        &[
            ("k8s-azure-service", "default/web"),
            ("k8s-azure-dns-label-service", "default/web"),
        ],
    );
    assert!(matches!(
        plan(&api, true, &ctx(), &[pip]),
        Err(PipError::DnsLabelTaken { .. })
    ));
}

#[test]
fn an_internal_service_releases_its_old_public_ip() {
    let mut svc = service("web", UID);
    let name = format!("kubernetes-{}", names::base_name(UID));
    let own = listed(&name, "20.1.2.3", &[("k8s-azure-service", "default/web")]);
    svc.internal = true;
    let p = plan(&svc, true, &ctx(), &[own]).expect("plan");
    assert!(p.wanted.is_empty());
    assert_eq!(p.deletes.len(), 1);
}

#[test]
fn other_services_and_other_clusters_are_left_alone() {
    let svc = service("web", UID);
    let others = [
        listed("a", "20.0.0.1", &[("k8s-azure-service", "default/other")]),
        listed(
            "b",
            "20.0.0.2",
            &[
                ("k8s-azure-service", "default/web"),
                ("k8s-azure-cluster-name", "another"),
            ],
        ),
        listed("k8s-outbound-pip", "20.0.0.3", &[]),
    ];
    let p = plan(&svc, false, &ctx(), &others).expect("plan");
    assert!(p.deletes.is_empty() && p.updates.is_empty());
}

/// The in-tree profile's context: ownership tags under the legacy keys.
fn in_tree_ctx() -> PipContext {
    PipContext {
        legacy_tag_keys: true,
        ..ctx()
    }
}

#[test]
fn the_in_tree_profile_writes_legacy_keys_and_adopts_its_own_pip_without_a_write() {
    let mut svc = service("web", UID);
    svc.public_ip.dns_label = Some("myapp".to_string());
    let p = plan(&svc, true, &in_tree_ctx(), &[]).expect("plan");
    let created = p.wanted[0].write.as_ref().expect("create");
    let tags = created.tags.clone().expect("tags");
    assert_eq!(
        tags,
        BTreeMap::from([
            (
                "kubernetes-cluster-name".to_string(),
                "kubernetes".to_string()
            ),
            (
                "kubernetes-dns-label-service".to_string(),
                "default/web".to_string()
            ),
            ("service".to_string(), "default/web".to_string()),
            ("team".to_string(), "net".to_string()),
        ])
    );
    let name = p.wanted[0].name.clone();
    let pairs: Vec<(&str, &str)> = tags.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut existing = listed(&name, "20.1.2.3", &pairs);
    existing.properties.as_mut().expect("props").dns_settings = created
        .properties
        .as_ref()
        .and_then(|p| p.dns_settings.clone());
    let again = plan(&svc, true, &in_tree_ctx(), std::slice::from_ref(&existing)).expect("plan");
    assert_eq!(again.wanted[0].write, None, "its own PIP needs no PUT");

    // Today's CCM takes the same PIP over: same id, tags moved to the current keys.
    let ccm = plan(&svc, true, &ctx(), std::slice::from_ref(&existing)).expect("plan");
    let write = ccm.wanted[0].write.as_ref().expect("tags migrate");
    assert_eq!(write.id, existing.id);
    let tags = write.tags.as_ref().expect("tags");
    assert_eq!(tags["k8s-azure-service"], "default/web");
    assert_eq!(tags["k8s-azure-cluster-name"], "kubernetes");
    assert_eq!(tags["k8s-azure-dns-label-service"], "default/web");
    assert!(!tags.contains_key("service"));

    // Deleting with the in-tree profile deletes the PIP it alone used.
    let gone = plan(&svc, false, &in_tree_ctx(), std::slice::from_ref(&existing)).expect("plan");
    assert_eq!(gone.deletes.len(), 1);
}
