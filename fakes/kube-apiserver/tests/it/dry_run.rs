//! `?dryRun=All`: the manifest kinds validate and default through the real request path with
//! `kubectl apply --dry-run=server`, nothing is stored, no version is used, and invalid objects
//! get a 422 Invalid Status naming the field.

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, DeleteParams, PostParams};
use serde_json::json;

use super::fixture::Fixture;

const MANIFESTS: &str = r#"
apiVersion: v1
kind: ServiceAccount
metadata: {name: cloud-node-manager, namespace: kube-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "azure:cloud-node-manager"}
rules:
- apiGroups: [""]
  resources: [nodes, nodes/status]
  verbs: [get, list, watch, patch, update]
- nonResourceURLs: [/healthz]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "azure:cloud-node-manager"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "azure:cloud-node-manager"}
subjects: [{kind: ServiceAccount, name: cloud-node-manager, namespace: kube-system}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: "azure:leases", namespace: kube-system}
rules: [{apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, create, update]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: "azure:leases", namespace: kube-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: "azure:leases"}
subjects: [{kind: ServiceAccount, name: cloud-controller-manager}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cloud-config, namespace: kube-system}
data: {cloud: AzurePublicCloud}
---
apiVersion: v1
kind: Secret
metadata: {name: azure-cloud-provider, namespace: kube-system}
stringData: {cloud-config: "{}"}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: azure-cloud-critical}
value: 1000000000
description: cloud provider components
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: cloud-controller-manager, namespace: kube-system}
spec:
  replicas: 2
  selector: {matchLabels: {component: cloud-controller-manager}}
  template:
    metadata: {labels: {component: cloud-controller-manager}}
    spec:
      priorityClassName: system-node-critical
      serviceAccountName: cloud-controller-manager
      containers:
      - name: cloud-controller-manager
        image: mcr.microsoft.com/oss/kubernetes/azure-cloud-controller-manager:v1.33.0
        command: [cloud-controller-manager]
        args: [--cloud-provider=azure, --leader-elect=true]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: cloud-node-manager, namespace: kube-system}
spec:
  selector: {matchLabels: {k8s-app: cloud-node-manager}}
  template:
    metadata: {labels: {k8s-app: cloud-node-manager}}
    spec:
      hostNetwork: true
      tolerations: [{operator: Exists}]
      containers:
      - name: cloud-node-manager
        image: mcr.microsoft.com/oss/kubernetes/azure-cloud-node-manager:v1.33.0
        env: [{name: NODE_NAME, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: cloud-controller-manager, namespace: kube-system}
spec:
  minAvailable: 1
  selector: {matchLabels: {component: cloud-controller-manager}}
---
apiVersion: v1
kind: Pod
metadata: {name: kube-controller-manager, namespace: kube-system, labels: {component: kube-controller-manager, tier: control-plane}}
spec:
  hostNetwork: true
  priorityClassName: system-node-critical
  containers:
  - name: kube-controller-manager
    image: registry.k8s.io/kube-controller-manager:v1.33.0
    command: [kube-controller-manager, --cloud-provider=external]
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_dry_run_of_manifests_stores_nothing() {
    let f = Fixture::start().await;
    let before_rv = f.server.store().read(|s| s.rv());
    let before = f.server.all_objects().len();
    let out = f.apply(MANIFESTS, &["--dry-run=server"]).await;
    for created in [
        "serviceaccount/cloud-node-manager created (server dry run)",
        "clusterrole.rbac.authorization.k8s.io/azure:cloud-node-manager created (server dry run)",
        "clusterrolebinding.rbac.authorization.k8s.io/azure:cloud-node-manager created (server dry run)",
        "role.rbac.authorization.k8s.io/azure:leases created (server dry run)",
        "rolebinding.rbac.authorization.k8s.io/azure:leases created (server dry run)",
        "configmap/cloud-config created (server dry run)",
        "secret/azure-cloud-provider created (server dry run)",
        "priorityclass.scheduling.k8s.io/azure-cloud-critical created (server dry run)",
        "deployment.apps/cloud-controller-manager created (server dry run)",
        "daemonset.apps/cloud-node-manager created (server dry run)",
        "poddisruptionbudget.policy/cloud-controller-manager created (server dry run)",
        "pod/kube-controller-manager created (server dry run)",
    ] {
        assert!(out.contains(created), "missing {created:?} in:\n{out}");
    }
    assert_eq!(f.server.store().read(|s| s.rv()), before_rv);
    assert_eq!(f.server.all_objects().len(), before);

    // The same file applies for real, and a dry-run delete and a dry-run update keep it.
    f.apply(MANIFESTS, &[]).await;
    let stored_rv = f.server.store().read(|s| s.rv());
    let out = f
        .kubectl_ok(&[
            "delete",
            "-n",
            "kube-system",
            "deploy/cloud-controller-manager",
            "--dry-run=server",
        ])
        .await;
    assert!(out.contains("(server dry run)"), "{out}");
    f.apply(
        &MANIFESTS.replace("replicas: 2", "replicas: 3"),
        &["--dry-run=server"],
    )
    .await;
    f.apply(
        MANIFESTS,
        &["--server-side", "--force-conflicts", "--dry-run=server"],
    )
    .await;
    assert_eq!(f.server.store().read(|s| s.rv()), stored_rv);
    let replicas = f
        .kubectl_ok(&[
            "get",
            "-n",
            "kube-system",
            "deploy/cloud-controller-manager",
            "-o",
            "jsonpath={.spec.replicas}",
        ])
        .await;
    assert_eq!(replicas, "2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_objects_get_422_naming_the_field() {
    let f = Fixture::start().await;
    let bad = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ds, namespace: kube-system}\nspec:\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers: [{name: c}]\n";
    let out = f
        .kubectl_stdin(&["apply", "--dry-run=server", "-f", "-"], Some(bad))
        .await;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("The DaemonSet \"ds\" is invalid: \n* spec.selector: Required value\n* spec.template.spec.containers[0].image: Required value"),
        "{err}"
    );

    let bad_binding = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}\nsubjects: [{kind: ServiceAccount, name: sa}]\n";
    let out = f
        .kubectl_stdin(&["apply", "--dry-run=server", "-f", "-"], Some(bad_binding))
        .await;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("subjects[0].namespace: Required value"),
        "{err}"
    );

    // The Status itself, through kube-rs with dryRun: 422, reason Invalid, causes with fields.
    let api: Api<Deployment> = Api::namespaced(f.client().await, "default");
    let deploy: Deployment = serde_json::from_value(json!({"metadata": {"name": "Bad_Name"},
        "spec": {"selector": {"matchLabels": {"app": "a"}},
                 "template": {"metadata": {"labels": {"app": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}))
    .unwrap();
    let pp = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    let status = match api.create(&pp, &deploy).await.unwrap_err() {
        kube::Error::Api(s) => s,
        other => panic!("{other}"),
    };
    assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"));
    let details = status.details.unwrap();
    assert_eq!(
        (details.kind.as_str(), details.group.as_str()),
        ("Deployment", "apps")
    );
    let fields: Vec<&str> = details.causes.iter().map(|c| c.field.as_str()).collect();
    assert_eq!(fields, ["metadata.name", "spec.template.metadata.labels"]);

    // A valid dry-run create returns the defaulted object and stores nothing.
    let mut ok = deploy.clone();
    ok.metadata.name = Some("ok".into());
    ok.spec
        .as_mut()
        .unwrap()
        .template
        .metadata
        .as_mut()
        .unwrap()
        .labels = Some([("app".to_string(), "a".to_string())].into());
    let rv = f.server.store().read(|s| s.rv());
    let returned = api.create(&pp, &ok).await.unwrap();
    let spec = returned.spec.unwrap();
    assert_eq!(spec.replicas, Some(1));
    assert_eq!(spec.revision_history_limit, Some(10));
    assert!(returned.metadata.uid.is_some());
    assert!(api.get_opt("ok").await.unwrap().is_none());
    assert_eq!(f.server.store().read(|s| s.rv()), rv);
    let gone = match api
        .delete(
            "ok",
            &DeleteParams {
                dry_run: true,
                ..DeleteParams::default()
            },
        )
        .await
    {
        Err(kube::Error::Api(s)) => s.code,
        other => panic!("{other:?}"),
    };
    assert_eq!(gone, 404);
}
