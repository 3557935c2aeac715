//! The migration users hit, through the real `azure-fakes serve`: a Service first reconciled by
//! the in-tree profile (`InTreeCompat::ALL`: legacy PIP tags, per-Service NSG rules, TCP probe
//! for an `appProtocol: http` port, `numberOfProbes`), then by today's CCM (defaults), then
//! deleted by the CCM. The PIP and its address stay, the legacy NSG rule is replaced by the
//! consolidated one, the probe is updated, and nothing tagged is left after the delete.

use ccm_azure::config::InTreeCompat;
use ccm_azure::provider::AzureProvider;
use ccm_cloud::LoadBalancer;
use serde_json::Value;

use crate::lb_services::{Bed, CLUSTER, SMALL, ingress_ips, service};

const UID: &str = "0c0c0c0c-1111-2222-3333-444455556666";

/// The Service's PIPs (the topology has an outbound PIP too).
async fn service_pips(bed: &Bed, base: &str) -> Vec<Value> {
    bed.pips()
        .await
        .into_iter()
        .filter(|p| p["name"].as_str().is_some_and(|n| n.ends_with(base)))
        .collect()
}

fn names(rules: &[Value]) -> Vec<String> {
    rules
        .iter()
        .filter_map(|r| r["name"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn the_ccm_takes_over_what_the_in_tree_profile_wrote_and_cleans_it_all_up() {
    let bed = Bed::start("small.yaml", SMALL).await;
    let base = ccm_azure::loadbalancer::names::base_name(UID);
    let mut svc = service("web", UID, &[], &[(80, 30080)]);
    if let Some(port) = svc
        .spec
        .as_mut()
        .and_then(|s| s.ports.as_mut())
        .and_then(|p| p.first_mut())
    {
        port.app_protocol = Some("http".to_string());
    }

    let mut config = bed.cluster.config(SMALL);
    config.load_balancer.in_tree = InTreeCompat::ALL;
    let in_tree = AzureProvider::with_arm(&config, bed.cluster.fast_arm(&config).await);
    let before = in_tree
        .load_balancers()
        .ensure_load_balancer(CLUSTER, &svc, &crate::cluster::refs(&bed.nodes))
        .await
        .expect("in-tree ensure");
    let pips = service_pips(&bed, &base).await;
    assert_eq!(pips.len(), 1, "{pips:?}");
    let pip = pips[0].clone();
    assert_eq!(pip["tags"]["service"], "default/web");
    assert_eq!(pip["tags"]["kubernetes-cluster-name"], CLUSTER);
    assert!(pip["tags"].get("k8s-azure-service").is_none(), "{pip}");
    let legacy_rule = format!("{base}-TCP-80-Internet");
    assert!(names(&bed.nsg_rules().await).contains(&legacy_rule));
    let lb = bed.get(&format!("loadBalancers/{CLUSTER}")).await;
    let probe = &lb["properties"]["probes"][0]["properties"];
    assert_eq!(probe["protocol"], "Tcp", "{probe}");
    assert_eq!(probe["numberOfProbes"], 2, "{probe}");

    // Today's CCM (defaults) on the same resources.
    let after = bed.ensure(&svc).await;
    assert_eq!(ingress_ips(&after), ingress_ips(&before), "same address");
    let pips = bed.pips().await;
    assert_eq!(
        pips.len(),
        2,
        "outbound + the Service's, no second one: {pips:?}"
    );
    let pips = service_pips(&bed, &base).await;
    assert_eq!(pips[0]["id"], pip["id"], "same PIP");
    assert_eq!(pips[0]["tags"]["k8s-azure-service"], "default/web");
    let rules = names(&bed.nsg_rules().await);
    assert!(!rules.contains(&legacy_rule), "legacy rule left: {rules:?}");
    assert!(
        rules
            .iter()
            .any(|r| r.starts_with("k8s-azure-lb_allow_IPv4_")),
        "{rules:?}"
    );
    let lb = bed.get(&format!("loadBalancers/{CLUSTER}")).await;
    let probe = &lb["properties"]["probes"][0]["properties"];
    assert_eq!(probe["protocol"], "Http", "{probe}");
    assert_eq!(probe["requestPath"], "/", "{probe}");

    // The CCM deletes it: no tagged PIP, no rule of the Service, no frontend.
    bed.delete(&svc).await;
    let tagged: Vec<Value> = bed
        .pips()
        .await
        .into_iter()
        .filter(|p| {
            p["tags"].get("k8s-azure-service").is_some() || p["tags"].get("service").is_some()
        })
        .collect();
    assert!(tagged.is_empty(), "{tagged:?}");
    let rules = names(&bed.nsg_rules().await);
    assert!(
        !rules
            .iter()
            .any(|r| r.starts_with(&base) || r.starts_with("k8s-azure-lb")),
        "{rules:?}"
    );
    let lb = bed.get(&format!("loadBalancers/{CLUSTER}")).await;
    let frontends = lb["properties"]["frontendIPConfigurations"].to_string();
    assert!(!frontends.contains(&base), "{frontends}");
}
