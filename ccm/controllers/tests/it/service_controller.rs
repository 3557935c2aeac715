//! The service controller against the embedded API server (a real process) with the in-memory
//! load balancer.

use std::sync::Arc;
use std::time::Duration;

use ccm_cloud::Retry;
use ccm_controllers::service::{ServiceController, ServiceControllerConfig, ServiceMetrics};
use ccm_names::finalizers::LOAD_BALANCER_CLEANUP;
use ccm_names::labels::EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Event, Node, Service};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt};
use serde_json::json;

use crate::kube_api::{KubeApi, wait_for};
use crate::memory_cloud::{LbCall, MemoryCloud};

fn config() -> ServiceControllerConfig {
    ServiceControllerConfig {
        node_sync_period: Duration::from_millis(500),
        min_retry_delay: Duration::from_millis(100),
        max_retry_delay: Duration::from_secs(2),
        ..ServiceControllerConfig::default()
    }
}

fn spawn(client: &Client, cloud: &Arc<MemoryCloud>, config: ServiceControllerConfig) {
    let controller = ServiceController::new(
        client.clone(),
        cloud.clone(),
        config,
        ServiceMetrics::default(),
    )
    .unwrap();
    tokio::spawn(controller.run());
}

async fn create_node(client: &Client, name: &str) {
    let node: Node = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name},
        "spec": {"providerID": format!("memory:///instances/{name}")},
    }))
    .unwrap();
    Api::<Node>::all(client.clone())
        .create(&PostParams::default(), &node)
        .await
        .unwrap();
}

async fn create_service(client: &Client, name: &str, class: Option<&str>) {
    let mut spec = json!({"type": "LoadBalancer", "ports": [{"port": 80, "protocol": "TCP"}]});
    if let Some(class) = class {
        spec["loadBalancerClass"] = json!(class);
    }
    let service: Service = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }))
    .unwrap();
    Api::<Service>::namespaced(client.clone(), "default")
        .create(&PostParams::default(), &service)
        .await
        .unwrap();
}

async fn get(client: &Client, name: &str) -> Option<Service> {
    Api::<Service>::namespaced(client.clone(), "default")
        .get_opt(name)
        .await
        .unwrap()
}

fn ingress_ips(service: &Service) -> Vec<String> {
    service
        .status
        .as_ref()
        .and_then(|s| s.load_balancer.as_ref())
        .and_then(|l| l.ingress.as_ref())
        .map(|i| i.iter().filter_map(|i| i.ip.clone()).collect())
        .unwrap_or_default()
}

async fn wait_for_ingress(client: &Client, name: &str) -> Vec<String> {
    wait_for(&format!("ingress of {name}"), || async {
        let ips = ingress_ips(&get(client, name).await?);
        (!ips.is_empty()).then_some(ips)
    })
    .await
}

/// `(type, message)` of the Events about Service `name` with `reason`, all from
/// `service-controller`.
async fn events(client: &Client, name: &str, reason: &str) -> Vec<(String, String)> {
    Api::<Event>::namespaced(client.clone(), "default")
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|e| e.involved_object.name.as_deref() == Some(name))
        .filter(|e| e.involved_object.kind.as_deref() == Some("Service"))
        .filter(|e| e.reason.as_deref() == Some(reason))
        .inspect(|e| {
            let source = e.source.as_ref().and_then(|s| s.component.as_deref());
            assert_eq!(source, Some("service-controller"));
        })
        .map(|e| (e.type_.unwrap_or_default(), e.message.unwrap_or_default()))
        .collect()
}

fn calls_for(cloud: &MemoryCloud, key: &str) -> Vec<LbCall> {
    cloud
        .lb_calls()
        .into_iter()
        .filter(|c| match c {
            LbCall::Ensure(k, _) | LbCall::Update(k, _) | LbCall::Delete(k) => k == key,
        })
        .collect()
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

#[tokio::test]
async fn load_balancer_follows_the_service_type() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    create_node(&api.client, "n1").await;
    spawn(&api.client, &cloud, config());
    create_service(&api.client, "web", None).await;

    assert_eq!(wait_for_ingress(&api.client, "web").await, ["20.0.0.1"]);
    let service = get(&api.client, "web").await.unwrap();
    assert!(
        service
            .finalizers()
            .iter()
            .any(|f| f == LOAD_BALANCER_CLEANUP)
    );
    assert_eq!(
        calls_for(&cloud, "default/web"),
        [LbCall::Ensure("default/web".into(), strings(&["n1"]))]
    );
    assert_eq!(
        events(&api.client, "web", "EnsuringLoadBalancer").await,
        [("Normal".into(), "Ensuring load balancer".into())]
    );
    assert_eq!(
        events(&api.client, "web", "EnsuredLoadBalancer").await,
        [("Normal".into(), "Ensured load balancer".into())]
    );
    // The resource-locker Lease was created for the call and released after it.
    let lease = Api::<Lease>::namespaced(api.client.clone(), "kube-system")
        .get("aks-managed-resource-locker")
        .await
        .unwrap()
        .spec
        .unwrap();
    assert_eq!(lease.lease_duration_seconds, Some(900));
    assert_eq!(lease.holder_identity.unwrap_or_default(), "");

    let patch = json!({"spec": {"type": "ClusterIP", "ports": [{"port": 80, "protocol": "TCP"}]}});
    Api::<Service>::namespaced(api.client.clone(), "default")
        .patch("web", &PatchParams::default(), &Patch::Merge(patch))
        .await
        .unwrap();
    let cleaned = wait_for("finalizer removed", || async {
        let service = get(&api.client, "web").await?;
        (!service
            .finalizers()
            .iter()
            .any(|f| f == LOAD_BALANCER_CLEANUP))
        .then_some(service)
    })
    .await;
    assert!(!cloud.has_lb("default/web"));
    assert!(calls_for(&cloud, "default/web").contains(&LbCall::Delete("default/web".into())));
    let cleared = wait_for("status cleared", || async {
        let service = get(&api.client, "web").await?;
        ingress_ips(&service).is_empty().then_some(service)
    })
    .await;
    assert_eq!(cleared.spec.unwrap().type_.as_deref(), Some("ClusterIP"));
    assert!(ingress_ips(&cleaned).len() <= 1);
    assert_eq!(
        events(&api.client, "web", "DeletingLoadBalancer").await,
        [("Normal".into(), "Deleting load balancer".into())]
    );
    assert_eq!(
        events(&api.client, "web", "DeletedLoadBalancer").await,
        [("Normal".into(), "Deleted load balancer".into())]
    );
    // Our own finalizer and status writes never make a sync fail (e.g. on a stale version).
    assert!(
        events(&api.client, "web", "SyncLoadBalancerFailed")
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn deleted_service_loses_its_load_balancer_before_it_goes() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    create_node(&api.client, "n1").await;
    spawn(&api.client, &cloud, config());
    create_service(&api.client, "web", None).await;
    wait_for_ingress(&api.client, "web").await;

    Api::<Service>::namespaced(api.client.clone(), "default")
        .delete("web", &DeleteParams::default())
        .await
        .unwrap();
    wait_for("service gone", || async {
        get(&api.client, "web").await.is_none().then_some(())
    })
    .await;
    // The object can only be gone once the finalizer was removed, which follows the delete.
    assert!(!cloud.has_lb("default/web"));
    assert_eq!(
        calls_for(&cloud, "default/web").last(),
        Some(&LbCall::Delete("default/web".into()))
    );
}

#[tokio::test]
async fn classed_services_are_never_touched() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    create_node(&api.client, "n1").await;
    spawn(&api.client, &cloud, config());
    create_service(&api.client, "other", Some("example.com/other-lb")).await;
    create_service(&api.client, "probe", None).await;
    wait_for_ingress(&api.client, "probe").await;

    let other = get(&api.client, "other").await.unwrap();
    assert!(other.finalizers().is_empty());
    assert!(ingress_ips(&other).is_empty());
    assert!(calls_for(&cloud, "default/other").is_empty());
    assert!(
        events(&api.client, "other", "EnsuringLoadBalancer")
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn retryable_cloud_errors_are_retried_until_they_succeed() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    create_node(&api.client, "n1").await;
    cloud.fail_lb("default/web", 1, Retry::Backoff);
    cloud.fail_lb("default/web", 1, Retry::After(Duration::from_millis(200)));
    spawn(&api.client, &cloud, config());
    create_service(&api.client, "web", None).await;

    wait_for_ingress(&api.client, "web").await;
    assert_eq!(calls_for(&cloud, "default/web").len(), 3);
    let failures = events(&api.client, "web", "SyncLoadBalancerFailed").await;
    assert_eq!(failures.len(), 2, "{failures:?}");
    assert_eq!(failures[0].0, "Warning");
    assert!(
        failures[0]
            .1
            .starts_with("Error syncing load balancer: failed to ensure load balancer: "),
        "{failures:?}"
    );
}

#[tokio::test]
async fn non_retryable_cloud_error_is_reported_without_a_busy_loop() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    create_node(&api.client, "n1").await;
    // Only one failure is scripted: any retry would succeed and show up.
    cloud.fail_lb("default/bad", 1, Retry::Never);
    let config = ServiceControllerConfig {
        max_retry_delay: Duration::from_secs(3600),
        ..config()
    };
    spawn(&api.client, &cloud, config);
    create_service(&api.client, "bad", None).await;
    let failures = wait_for("SyncLoadBalancerFailed", || async {
        let found = events(&api.client, "bad", "SyncLoadBalancerFailed").await;
        (!found.is_empty()).then_some(found)
    })
    .await;
    assert_eq!(failures[0].0, "Warning");

    // The worker moves on to other Services meanwhile.
    create_service(&api.client, "probe", None).await;
    wait_for_ingress(&api.client, "probe").await;
    create_service(&api.client, "probe2", None).await;
    wait_for_ingress(&api.client, "probe2").await;
    assert_eq!(calls_for(&cloud, "default/bad").len(), 1);
    assert!(ingress_ips(&get(&api.client, "bad").await.unwrap()).is_empty());
}

#[tokio::test]
async fn node_set_changes_update_each_load_balancer_once() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    create_node(&api.client, "n1").await;
    create_node(&api.client, "n2").await;
    spawn(&api.client, &cloud, config());
    create_service(&api.client, "a", None).await;
    create_service(&api.client, "b", None).await;
    wait_for_ingress(&api.client, "a").await;
    wait_for_ingress(&api.client, "b").await;

    let updated_with = |nodes: &'static [&'static str]| {
        let cloud = cloud.clone();
        async move {
            let want = strings(nodes);
            ["default/a", "default/b"].iter().all(|k| {
                calls_for(&cloud, k).contains(&LbCall::Update(k.to_string(), want.clone()))
            })
        }
    };

    create_node(&api.client, "n3").await;
    wait_for("update with n3", || async {
        updated_with(&["n1", "n2", "n3"]).await.then_some(())
    })
    .await;

    let label = json!({"metadata": {"labels": {EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS: "true"}}});
    Api::<Node>::all(api.client.clone())
        .patch("n2", &PatchParams::default(), &Patch::Merge(label))
        .await
        .unwrap();
    wait_for("update without n2", || async {
        updated_with(&["n1", "n3"]).await.then_some(())
    })
    .await;

    // A node outside the stable set (no providerID) changes nothing; a later real change is the
    // sync point proving no duplicate update happened meanwhile.
    let node: Node = serde_json::from_value(json!({"metadata": {"name": "bare"}})).unwrap();
    Api::<Node>::all(api.client.clone())
        .create(&PostParams::default(), &node)
        .await
        .unwrap();
    create_node(&api.client, "n4").await;
    wait_for("update with n4", || async {
        updated_with(&["n1", "n3", "n4"]).await.then_some(())
    })
    .await;
    for key in ["default/a", "default/b"] {
        let updates: Vec<_> = calls_for(&cloud, key)
            .into_iter()
            .filter(|c| matches!(c, LbCall::Update(..)))
            .collect();
        assert_eq!(updates.len(), 3, "{key}: {updates:?}");
    }
    let updated = events(&api.client, "a", "UpdatedLoadBalancer").await;
    assert_eq!(updated.len(), 3);
    assert_eq!(
        updated[0],
        (
            "Normal".into(),
            "Updated load balancer with new hosts".into()
        )
    );
}

#[tokio::test]
async fn a_lease_held_by_another_component_blocks_cloud_calls_until_released() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    create_node(&api.client, "n1").await;
    let leases: Api<Lease> = Api::namespaced(api.client.clone(), "kube-system");
    let lease: Lease = serde_json::from_value(json!({
        "metadata": {"name": "aks-managed-resource-locker"},
        "spec": {"holderIdentity": "aks-rp", "leaseDurationSeconds": 900,
                 "renewTime": Timestamp::now().to_string()},
    }))
    .unwrap();
    leases.create(&PostParams::default(), &lease).await.unwrap();
    spawn(&api.client, &cloud, config());
    create_service(&api.client, "web", None).await;

    let failures = wait_for("lease contention reported", || async {
        let found = events(&api.client, "web", "SyncLoadBalancerFailed").await;
        (!found.is_empty()).then_some(found)
    })
    .await;
    assert!(failures[0].1.contains("aks-rp"), "{failures:?}");
    assert!(
        failures[0].1.contains("has not expired yet"),
        "{failures:?}"
    );
    assert!(cloud.lb_calls().is_empty());

    let release = json!({"spec": {"holderIdentity": null}});
    leases
        .patch(
            "aks-managed-resource-locker",
            &PatchParams::default(),
            &Patch::Merge(release),
        )
        .await
        .unwrap();
    wait_for_ingress(&api.client, "web").await;
    assert_eq!(calls_for(&cloud, "default/web").len(), 1);
    // Released again after the call.
    let lease = leases.get("aks-managed-resource-locker").await.unwrap();
    let holder = lease
        .spec
        .and_then(|s| s.holder_identity)
        .unwrap_or_default();
    assert_eq!(holder, "");
}

#[tokio::test]
async fn failed_backend_update_is_reported_and_the_service_resynced() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    create_node(&api.client, "n1").await;
    spawn(&api.client, &cloud, config());
    create_service(&api.client, "web", None).await;
    wait_for_ingress(&api.client, "web").await;

    cloud.fail_lb("default/web", 1, Retry::Backoff);
    create_node(&api.client, "n2").await;
    let failures = wait_for("UpdateLoadBalancerFailed", || async {
        let found = events(&api.client, "web", "UpdateLoadBalancerFailed").await;
        (!found.is_empty()).then_some(found)
    })
    .await;
    assert_eq!(
        failures[0],
        (
            "Warning".into(),
            "Error updating load balancer with new hosts [n1 n2] [node names limited, total \
             number of nodes: 2], error: memory cloud: load balancer of default/web failed"
                .into()
        )
    );
    // The Service goes back to its queue and a full ensure gives the load balancer the new set.
    let both = LbCall::Ensure("default/web".into(), strings(&["n1", "n2"]));
    wait_for("ensure with both nodes", || async {
        calls_for(&cloud, "default/web")
            .contains(&both)
            .then_some(())
    })
    .await;
}

#[tokio::test]
async fn the_service_cache_is_handed_to_whoever_asked_for_it() {
    let api = KubeApi::start().await;
    let cloud = Arc::new(MemoryCloud::default());
    create_node(&api.client, "n1").await;
    let (tx, rx) = std::sync::mpsc::channel();
    let controller = ServiceController::new(
        api.client.clone(),
        cloud.clone(),
        config(),
        ServiceMetrics::default(),
    )
    .unwrap()
    .on_service_store(move |store| {
        let _ = tx.send(store);
    });
    tokio::spawn(controller.run());
    create_service(&api.client, "web", None).await;
    wait_for_ingress(&api.client, "web").await;
    let store = rx
        .recv_timeout(Duration::from_secs(5))
        .expect("store handed over");
    let names: Vec<String> = store.state().iter().map(|s| s.name_any()).collect();
    assert!(names.contains(&"web".to_string()), "{names:?}");
    // The server tracks field ownership; the cache drops it (nothing reads it).
    let served = get(&api.client, "web").await.expect("web");
    assert!(
        served
            .metadata
            .managed_fields
            .is_some_and(|m| !m.is_empty())
    );
    let cached = store.state();
    assert!(cached.iter().all(|s| s.metadata.managed_fields.is_none()));
}
