//! GET → model → edit one field → PUT against the real `azure-fakes`: the PUT body is the model's
//! serialization, and after the write every member nobody edited is still there. Also creates
//! the types the example topologies do not seed (public IP prefix, private link service) from
//! models.

use ccm_azure::arm::api_versions::{CloudFlavor, ResourceType};
use ccm_azure::arm::resources::envelope::Reference;
use ccm_azure::arm::resources::load_balancer::{
    LoadBalancingRule, LoadBalancingRuleProperties, Probe, ProbeProperties,
};
use ccm_azure::arm::resources::private_link_service::{
    PlsIpConfiguration, PlsIpConfigurationProperties, PrivateLinkServiceProperties,
};
use ccm_azure::arm::resources::public_ip_prefix::PublicIpPrefixProperties;
use ccm_azure::arm::resources::{LoadBalancer, PrivateLinkService, PublicIpPrefix, Sku, Subnet};
use serde::Serialize;
use serde_json::Value;

use crate::fake_azure::FakeAzure;
use crate::resource_models::{Arm, round_trip, with_reader_app};

fn api(t: ResourceType) -> &'static str {
    t.api_version(CloudFlavor::Public)
}

impl Arm<'_> {
    /// PUTs `body` (a model) with `If-Match` when it has an ETag, polls the operation to its end
    /// and returns the resource as a fresh GET sees it.
    pub(crate) async fn put_and_wait<T: Serialize>(
        &self,
        url: &str,
        body: &T,
        etag: Option<&str>,
    ) -> Value {
        let mut request = self
            .fake
            .http
            .put(format!("{}{url}", self.fake.base))
            .bearer_auth(&self.token)
            .json(body);
        if let Some(etag) = etag {
            request = request.header("if-match", etag);
        }
        let response = request.send().await.expect("ARM PUT");
        let status = response.status().as_u16();
        let operation = response
            .headers()
            .get("azure-asyncoperation")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let answer: Value = response.json().await.expect("PUT JSON");
        assert!(matches!(status, 200 | 201), "PUT {url}: {status} {answer}");
        if let Some(operation) = operation {
            // The fake finishes an operation after a fixed number of polls (no timing involved).
            let mut polls = 0;
            loop {
                let state = self.get(&operation).await;
                match state["status"].as_str() {
                    Some("InProgress") => polls += 1,
                    Some("Succeeded") => break,
                    other => panic!("operation for {url} ended {other:?}: {state}"),
                }
                assert!(polls < 50, "operation for {url} never finished");
            }
        }
        self.get(url).await
    }
}

/// `doc` without the members a write legitimately changes.
fn without_volatile(mut doc: Value, edited: &[&str]) -> Value {
    if let Some(map) = doc.as_object_mut() {
        map.remove("etag");
    }
    if let Some(props) = doc["properties"].as_object_mut() {
        props.remove("provisioningState");
        for key in edited {
            props.remove(*key);
        }
    }
    strip_etags(&mut doc);
    doc
}

/// Child etags change with their parent's.
fn strip_etags(doc: &mut Value) {
    match doc {
        Value::Object(map) => {
            map.remove("etag");
            map.values_mut().for_each(strip_etags);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_etags),
        _ => {}
    }
}

#[tokio::test]
async fn edits_through_models_keep_everything_else() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = FakeAzure::start(&with_reader_app("mixed.yaml", dir.path()), &[]);
    let arm = Arm::new(&fake).await;
    let sub = &fake.subscription;
    let nodes_rg = format!("/subscriptions/{sub}/resourceGroups/mixed-nodes-rg/providers");
    let net = api(ResourceType::VirtualNetworks);

    // Subnet: disable PLS network policies (what the CCM does before creating a PLS).
    let subnet_id = format!(
        "/subscriptions/{sub}/resourceGroups/mixed-network-rg/providers/Microsoft.Network/virtualNetworks/mixed-vnet/subnets/ilb"
    );
    let subnet_url = format!("{subnet_id}?api-version={net}");
    let before = arm.get(&subnet_url).await;
    let mut subnet: Subnet = round_trip(&before, "subnet");
    let props = subnet.properties.as_mut().expect("subnet properties");
    assert_eq!(
        props.private_link_service_network_policies.as_deref(),
        Some("Enabled")
    );
    props.private_link_service_network_policies = Some("Disabled".into());
    let after = arm
        .put_and_wait(&subnet_url, &subnet, subnet.etag.as_deref())
        .await;
    let subnet_after: Subnet = round_trip(&after, "subnet after PUT");
    assert_eq!(
        subnet_after
            .properties
            .as_ref()
            .and_then(|p| p.private_link_service_network_policies.as_deref()),
        Some("Disabled")
    );
    assert_eq!(
        without_volatile(after, &["privateLinkServiceNetworkPolicies"]),
        without_volatile(before, &["privateLinkServiceNetworkPolicies"]),
        "the subnet PUT from the model dropped or changed other members"
    );

    // Load balancer: add a probe and a rule on the internal frontend; the pool's members, the
    // frontend and everything else stay.
    let lb_id = format!("{nodes_rg}/Microsoft.Network/loadBalancers/kubernetes-internal");
    let lb_url = format!("{lb_id}?api-version={}", api(ResourceType::LoadBalancers));
    let before = arm.get(&lb_url).await;
    let mut lb: LoadBalancer = round_trip(&before, "lb");
    let props = lb.properties.as_mut().expect("lb properties");
    let probe_id = format!("{lb_id}/probes/a1b2-TCP-80");
    props.probes.get_or_insert_with(Vec::new).push(Probe {
        name: Some("a1b2-TCP-80".into()),
        properties: Some(ProbeProperties {
            protocol: Some("Tcp".into()),
            port: Some(30080),
            interval_in_seconds: Some(5),
            number_of_probes: Some(2),
            ..Default::default()
        }),
        ..Default::default()
    });
    props
        .load_balancing_rules
        .get_or_insert_with(Vec::new)
        .push(LoadBalancingRule {
            name: Some("a1b2-TCP-80".into()),
            properties: Some(LoadBalancingRuleProperties {
                frontend_ip_configuration: Some(Reference::to(format!(
                    "{lb_id}/frontendIPConfigurations/ilb-frontend"
                ))),
                backend_address_pool: Some(Reference::to(format!(
                    "{lb_id}/backendAddressPools/kubernetes"
                ))),
                probe: Some(Reference::to(probe_id.clone())),
                protocol: Some("Tcp".into()),
                frontend_port: Some(80),
                backend_port: Some(80),
                enable_floating_ip: Some(true),
                idle_timeout_in_minutes: Some(4),
                load_distribution: Some("Default".into()),
                ..Default::default()
            }),
            ..Default::default()
        });
    let after = arm.put_and_wait(&lb_url, &lb, lb.etag.as_deref()).await;
    let lb_after: LoadBalancer = round_trip(&after, "lb after PUT");
    let props_after = lb_after.properties.as_ref().expect("properties");
    let rule = &props_after.load_balancing_rules.as_ref().expect("rules")[0];
    assert_eq!(
        rule.properties
            .as_ref()
            .and_then(|p| p.probe.as_ref())
            .and_then(|p| p.id.as_deref()),
        Some(probe_id.as_str())
    );
    let pool_before =
        &before["properties"]["backendAddressPools"][0]["properties"]["backendIPConfigurations"];
    let pool_after =
        &after["properties"]["backendAddressPools"][0]["properties"]["backendIPConfigurations"];
    assert!(pool_before.as_array().is_some_and(|a| !a.is_empty()));
    assert_eq!(pool_after, pool_before, "pool members survive the LB PUT");
    let mut frontend_after = after["properties"]["frontendIPConfigurations"][0].clone();
    let mut frontend_before = before["properties"]["frontendIPConfigurations"][0].clone();
    for f in [&mut frontend_after, &mut frontend_before] {
        strip_etags(f);
        if let Some(p) = f["properties"].as_object_mut() {
            p.remove("loadBalancingRules");
        }
    }
    assert_eq!(
        frontend_after, frontend_before,
        "the frontend survives the LB PUT"
    );
    assert_eq!(
        without_volatile(
            after,
            &[
                "probes",
                "loadBalancingRules",
                "frontendIPConfigurations",
                "backendAddressPools"
            ]
        ),
        without_volatile(
            before,
            &[
                "probes",
                "loadBalancingRules",
                "frontendIPConfigurations",
                "backendAddressPools"
            ]
        ),
    );

    // A public IP prefix created from its model.
    let prefix_url = format!(
        "{nodes_rg}/Microsoft.Network/publicIPPrefixes/svc-prefix?api-version={}",
        api(ResourceType::PublicIpPrefixes)
    );
    let prefix = PublicIpPrefix {
        location: Some("eastus2".into()),
        sku: Some(Sku {
            name: Some("Standard".into()),
            tier: Some("Regional".into()),
            ..Default::default()
        }),
        properties: Some(PublicIpPrefixProperties {
            prefix_length: Some(30),
            public_ip_address_version: Some("IPv4".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    let created: PublicIpPrefix = round_trip(
        &arm.put_and_wait(&prefix_url, &prefix, None).await,
        "prefix",
    );
    let created = created.properties.expect("prefix properties");
    assert!(
        created
            .ip_prefix
            .as_deref()
            .is_some_and(|p| p.ends_with("/30")),
        "{created:?}"
    );

    // A private link service on the internal frontend, created from its model.
    let pls_url = format!(
        "{nodes_rg}/Microsoft.Network/privateLinkServices/pls-ilb-frontend?api-version={}",
        api(ResourceType::PrivateLinkServices)
    );
    let pls = PrivateLinkService {
        location: Some("eastus2".into()),
        tags: Some(
            [(
                "k8s-azure-owner-service".to_string(),
                "default/svc".to_string(),
            )]
            .into(),
        ),
        properties: Some(PrivateLinkServiceProperties {
            load_balancer_frontend_ip_configurations: Some(vec![Reference::to(format!(
                "{lb_id}/frontendIPConfigurations/ilb-frontend"
            ))]),
            ip_configurations: Some(vec![PlsIpConfiguration {
                name: Some("pls-ipconfig".into()),
                properties: Some(PlsIpConfigurationProperties {
                    primary: Some(true),
                    private_ip_allocation_method: Some("Dynamic".into()),
                    private_ip_address_version: Some("IPv4".into()),
                    subnet: Some(Reference::to(subnet_id.clone())),
                    ..Default::default()
                }),
                ..Default::default()
            }]),
            enable_proxy_protocol: Some(false),
            ..Default::default()
        }),
        ..Default::default()
    };
    let created: PrivateLinkService =
        round_trip(&arm.put_and_wait(&pls_url, &pls, None).await, "pls");
    let alias = created.properties.and_then(|p| p.alias).expect("alias");
    assert!(alias.starts_with("pls-ilb-frontend."), "{alias}");
}
