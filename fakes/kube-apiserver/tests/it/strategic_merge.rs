//! Strategic merge patches of core kinds through kubectl's default `kubectl patch`: Service
//! ports merge by `port`, Pod containers by `name`, ServiceAccount secrets by `name`.

use serde_json::json;

use super::fixture::Fixture;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn core_kind_lists_merge_by_their_keys() {
    let f = Fixture::start().await;
    f.apply(
        "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: default}\nspec:\n  selector: {app: s}\n  ports: [{name: http, port: 80}, {name: metrics, port: 9090}]\n",
        &[],
    )
    .await;
    // The element with port 9090 is patched in place; the other one stays.
    f.kubectl_ok(&[
        "patch",
        "svc",
        "s",
        "-p",
        r#"{"spec":{"ports":[{"port":9090,"targetPort":9091}]}}"#,
    ])
    .await;
    let ports = f.get_json(&["svc", "s"]).await["spec"]["ports"].clone();
    assert_eq!(ports.as_array().unwrap().len(), 2, "{ports}");
    assert_eq!(ports[0]["name"], "http");
    assert_eq!(ports[1]["name"], "metrics");
    assert_eq!(ports[1]["targetPort"], 9091);
    // `$patch: delete` removes by key.
    f.kubectl_ok(&[
        "patch",
        "svc",
        "s",
        "-p",
        r#"{"spec":{"ports":[{"port":80,"$patch":"delete"}]}}"#,
    ])
    .await;
    let ports = f.get_json(&["svc", "s"]).await["spec"]["ports"].clone();
    assert_eq!(ports.as_array().unwrap().len(), 1, "{ports}");
    assert_eq!(ports[0]["port"], 9090);

    f.apply(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  containers: [{name: app, image: \"nginx:1.27\"}, {name: sidecar, image: \"busybox:1.36\"}]\n",
        &[],
    )
    .await;
    f.kubectl_ok(&[
        "patch",
        "pod",
        "p",
        "-p",
        r#"{"spec":{"containers":[{"name":"sidecar","image":"busybox:1.37"}]}}"#,
    ])
    .await;
    let containers = f.get_json(&["pod", "p"]).await["spec"]["containers"].clone();
    let images: Vec<(&str, &str)> = containers
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["image"].as_str().unwrap()))
        .collect();
    assert_eq!(images, [("app", "nginx:1.27"), ("sidecar", "busybox:1.37")]);

    f.apply(
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: robot, namespace: default}\nsecrets: [{name: first}]\n",
        &[],
    )
    .await;
    f.kubectl_ok(&[
        "patch",
        "sa",
        "robot",
        "-p",
        r#"{"secrets":[{"name":"second"}]}"#,
    ])
    .await;
    let secrets = f.get_json(&["sa", "robot"]).await["secrets"].clone();
    assert_eq!(secrets, json!([{"name": "first"}, {"name": "second"}]));
}
