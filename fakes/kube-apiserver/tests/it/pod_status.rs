//! The Pod status subresource through kubectl: `--subresource=status` writes the status only,
//! and the main resource ignores status changes.

use super::fixture::Fixture;

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  nodeName: node-1\n  containers: [{name: c, image: busybox:1.36}]\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pod_status_is_written_through_its_subresource_only() {
    let f = Fixture::start().await;
    f.apply(POD, &[]).await;
    assert_eq!(
        f.get_json(&["pod", "p"]).await["status"]["phase"],
        "Pending"
    );

    f.merge_patch_status(
        "pod",
        "p",
        r#"{"status":{"phase":"Running","podIP":"10.244.0.5","podIPs":[{"ip":"10.244.0.5"}]}}"#,
    )
    .await;
    let live = f.get_json(&["pod", "p"]).await;
    assert_eq!(live["status"]["phase"], "Running");
    assert_eq!(live["status"]["podIP"], "10.244.0.5");
    let table = f
        .kubectl_ok(&["get", "pod", "p", "-o", "wide", "--no-headers"])
        .await;
    assert!(
        table.contains("Running") && table.contains("10.244.0.5"),
        "{table}"
    );

    // A status change sent to the main resource is ignored (the request still succeeds).
    f.merge_patch(
        "pod",
        "p",
        r#"{"metadata":{"labels":{"seen":"yes"}},"status":{"phase":"Failed"}}"#,
    )
    .await;
    let live = f.get_json(&["pod", "p"]).await;
    assert_eq!(live["status"]["phase"], "Running");
    assert_eq!(live["metadata"]["labels"]["seen"], "yes");

    // A spec change sent to the status subresource is ignored too.
    f.merge_patch_status(
        "pod",
        "p",
        r#"{"spec":{"activeDeadlineSeconds":30},"status":{"message":"started"}}"#,
    )
    .await;
    let live = f.get_json(&["pod", "p"]).await;
    assert!(live["spec"]["activeDeadlineSeconds"].is_null(), "{live}");
    assert_eq!(live["status"]["message"], "started");
    assert_eq!(live["status"]["phase"], "Running");
}
