//! Restarts over the same data file: objects, resourceVersions and Service allocations survive,
//! and a kube-rs reflector keeps working across the restart.

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Service};
use kube::api::{Api, PostParams};
use kube::runtime::{WatchStreamExt, reflector, watcher};
use serde_json::json;

use super::fixture::{Fixture, eventually};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_and_watchers_survive_a_restart() {
    let f = Fixture::start().await;
    let client = f.client().await;
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let svcs: Api<Service> = Api::namespaced(client.clone(), "default");
    let svc: Service = serde_json::from_value(json!({"metadata": {"name": "lb"},
        "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}}))
    .unwrap();
    let first = svcs.create(&PostParams::default(), &svc).await.unwrap();

    let (reader, writer) = reflector::store::<ConfigMap>();
    let stream = watcher(cms.clone(), watcher::Config::default())
        .default_backoff()
        .reflect(writer)
        .applied_objects();
    let task = tokio::spawn(async move {
        futures::pin_mut!(stream);
        while stream.next().await.is_some() {}
    });
    let c: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "one"}})).unwrap();
    let one = cms.create(&PostParams::default(), &c).await.unwrap();
    reader.wait_until_ready().await.unwrap();
    eventually("the first object in the cache", || {
        let r = reader.clone();
        async move { r.len() == 1 }
    })
    .await;

    let f = f.restart().await;
    // Same client (same URL, CA and credentials) keeps working.
    let kept = cms.get("one").await.unwrap();
    assert_eq!(kept.metadata.uid, one.metadata.uid);
    let c: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "two"}})).unwrap();
    let two = cms.create(&PostParams::default(), &c).await.unwrap();
    let rv = |m: &ConfigMap| -> u64 {
        m.metadata
            .resource_version
            .as_deref()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!(
        rv(&two) > rv(&one),
        "resourceVersions keep counting upwards"
    );
    // Allocations were restored: a second LoadBalancer gets different IPs and ports.
    let mut second = svc.clone();
    second.metadata.name = Some("lb2".into());
    let second = svcs.create(&PostParams::default(), &second).await.unwrap();
    let (a, b) = (first.spec.unwrap(), second.spec.unwrap());
    assert_ne!(a.cluster_ip, b.cluster_ip);
    assert_ne!(a.ports.unwrap()[0].node_port, b.ports.unwrap()[0].node_port);
    eventually(
        "the reflector to see the object created after the restart",
        || {
            let r = reader.clone();
            async move { r.len() == 2 }
        },
    )
    .await;
    task.abort();
    f.server.shutdown().await.unwrap();
}
