//! Pod spec validation through kubectl: Pods and workload templates without containers,
//! duplicate container names and out-of-range ports are refused with the real field paths.

use super::fixture::Fixture;

async fn refused(f: &Fixture, yaml: &str) -> String {
    let out = f.kubectl_stdin(&["apply", "-f", "-"], Some(yaml)).await;
    assert!(!out.status.success(), "accepted:\n{yaml}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pod_specs_are_validated() {
    let f = Fixture::start().await;
    let err = refused(
        &f,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: []\n",
    )
    .await;
    assert!(
        err.contains(r#"The Pod "p" is invalid: spec.containers: Required value"#),
        "{err}"
    );

    let deploy = "apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers: CONTAINERS
";
    let err = refused(&f, &deploy.replace("CONTAINERS", "[]")).await;
    assert!(
        err.contains("spec.template.spec.containers: Required value"),
        "{err}"
    );

    let dup = "[{name: c, image: i}, {name: c, image: i}]";
    let err = refused(&f, &deploy.replace("CONTAINERS", dup)).await;
    assert!(
        err.contains(r#"spec.template.spec.containers[1].name: Duplicate value: "c""#),
        "{err}"
    );

    let ports = "[{name: c, image: i, ports: [{containerPort: 0}, {containerPort: 70000, protocol: ICMP}]}]";
    let err = refused(&f, &deploy.replace("CONTAINERS", ports)).await;
    for want in [
        "spec.template.spec.containers[0].ports[0].containerPort: Required value",
        "spec.template.spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
        r#"spec.template.spec.containers[0].ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP""#,
    ] {
        assert!(err.contains(want), "{want} missing from {err}");
    }

    let ok = "[{name: c, image: i, ports: [{containerPort: 8080, name: http}]}]";
    f.apply(&deploy.replace("CONTAINERS", ok), &[]).await;
    f.server.shutdown().await.unwrap();
}
