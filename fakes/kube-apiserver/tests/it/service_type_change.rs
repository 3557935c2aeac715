//! Changing a Service's type: the fields the new type does not use are dropped (kubectl merge
//! patch and kube-rs replace both succeed), their node ports are freed, the load balancer status
//! goes, and an assigned cluster IP stays immutable.

use k8s_openapi::api::core::v1::Service;
use kube::api::{Api, PostParams};
use serde_json::json;

use super::fixture::Fixture;

const LB: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  type: LoadBalancer
  externalTrafficPolicy: Local
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 8080}]
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_merge_patch_turns_a_load_balancer_into_cluster_ip() {
    let f = Fixture::start().await;
    f.apply(LB, &[]).await;
    f.merge_patch_status(
        "svc",
        "web",
        r#"{"status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.4"}]}}}"#,
    )
    .await;
    let before = f.get_json(&["svc", "web"]).await;
    let node_port = before["spec"]["ports"][0]["nodePort"].as_u64().unwrap();

    f.merge_patch("svc", "web", r#"{"spec":{"type":"ClusterIP"}}"#)
        .await;
    let after = f.get_json(&["svc", "web"]).await;
    let spec = &after["spec"];
    assert_eq!(spec["type"], "ClusterIP");
    assert!(spec["ports"][0]["nodePort"].is_null(), "{spec}");
    for gone in [
        "healthCheckNodePort",
        "externalTrafficPolicy",
        "allocateLoadBalancerNodePorts",
    ] {
        assert!(spec[gone].is_null(), "{gone} kept: {spec}");
    }
    assert_eq!(spec["clusterIP"], before["spec"]["clusterIP"]);
    // The real server clears the load balancer status of a Service that stops being one.
    assert_eq!(after["status"]["loadBalancer"], json!({}), "{after}");

    // The freed node port can be claimed by another Service.
    let claim = format!(
        "apiVersion: v1\nkind: Service\nmetadata: {{name: other, namespace: default}}\nspec:\n  type: NodePort\n  ports: [{{port: 80, nodePort: {node_port}}}]\n"
    );
    f.apply(&claim, &[]).await;

    // Adding a node port to a ClusterIP Service is still refused.
    let out = f
        .kubectl(&[
            "patch",
            "svc",
            "web",
            "--type=json",
            "-p",
            r#"[{"op":"add","path":"/spec/ports/0/nodePort","value":31000}]"#,
        ])
        .await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"
        ),
        "{err}"
    );

    // An assigned cluster IP is immutable.
    let out = f
        .kubectl(&[
            "patch",
            "svc",
            "web",
            "--type=merge",
            "-p",
            r#"{"spec":{"clusterIP":"10.0.200.200"}}"#,
        ])
        .await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(r#"spec.clusterIPs[0]: Invalid value: []string{"10.0.200.200"}: may not change once set"#),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_rs_replace_changes_the_type_both_ways() {
    let f = Fixture::start().await;
    let api: Api<Service> = Api::namespaced(f.client().await, "default");
    let lb: Service = serde_json::from_value(json!({"metadata": {"name": "web"},
        "spec": {"type": "LoadBalancer", "externalTrafficPolicy": "Local", "ports": [{"name": "http", "port": 80}]}}))
    .unwrap();
    let created = api.create(&PostParams::default(), &lb).await.unwrap();
    let spec = created.spec.clone().unwrap();
    assert!(spec.health_check_node_port.is_some());

    let mut cluster_ip = created.clone();
    if let Some(spec) = cluster_ip.spec.as_mut() {
        spec.type_ = Some("ClusterIP".into());
    }
    let replaced = api
        .replace("web", &PostParams::default(), &cluster_ip)
        .await
        .unwrap();
    let spec = replaced.spec.unwrap();
    assert_eq!(spec.type_.as_deref(), Some("ClusterIP"));
    assert_eq!(spec.ports.unwrap()[0].node_port, None);
    assert_eq!(spec.health_check_node_port, None);
    assert_eq!(spec.external_traffic_policy, None);
    assert_eq!(spec.allocate_load_balancer_node_ports, None);
    assert_eq!(spec.cluster_ip, created.spec.unwrap().cluster_ip);

    // And back: the LoadBalancer gets fresh node ports and its defaults again.
    let mut back = api.get("web").await.unwrap();
    if let Some(spec) = back.spec.as_mut() {
        spec.type_ = Some("LoadBalancer".into());
    }
    let spec = api
        .replace("web", &PostParams::default(), &back)
        .await
        .unwrap()
        .spec
        .unwrap();
    assert!(spec.ports.unwrap()[0].node_port.is_some());
    assert_eq!(spec.external_traffic_policy.as_deref(), Some("Cluster"));
}
