//! `AzureRoutes` against the real fake: batching (one read and one write for concurrent creates),
//! listing with target nodes, deletes, table creation, the 412 retry, unmanaged nodes kept in
//! memory and no write for an unchanged route.

use std::time::Duration;

use ccm_azure::provider::AzureProvider;
use ccm_cloud::{Provider, Route, Routes};
use serde_json::Value;

use crate::cluster::{Cluster, node};
use crate::resource_models::Arm;

const TABLE: &str = "k8s-routetable";

/// A provider on the route table `table` whose batches run every `interval` (the first one
/// `interval` after the first operation) and release their waiters right after the write; its
/// ARM client polls operations every 20 ms.
async fn provider_on(cluster: &Cluster, table: &str, interval: Duration) -> AzureProvider {
    provider_with(
        cluster,
        &format!(r#", "routeTableName": "{table}""#),
        interval,
    )
    .await
}

/// [`provider_on`] with every azure.json key after the common ones given in `extra`.
async fn provider_with(cluster: &Cluster, extra: &str, interval: Duration) -> AzureProvider {
    let mut config = cluster.config(extra);
    config.routes.update_interval = interval;
    config.routes.update_waiting = Duration::ZERO;
    let arm = cluster.fast_arm(&config).await;
    AzureProvider::with_arm(&config, arm)
}

/// [`provider_on`] the fake's table.
async fn provider_every(cluster: &Cluster, interval: Duration) -> AzureProvider {
    provider_on(cluster, TABLE, interval).await
}

/// [`provider_every`] 300 ms.
async fn provider(cluster: &Cluster) -> AzureProvider {
    provider_every(cluster, Duration::from_millis(300)).await
}

fn route(node: &str, cidr: &str) -> Route {
    Route {
        name: String::new(),
        target_node: node.to_string(),
        target_node_addresses: Vec::new(),
        destination_cidr: cidr.parse().expect("cidr"),
        blackhole: false,
    }
}

/// Route-table calls in the journal since the last clear: (method, status).
async fn table_calls(cluster: &Cluster) -> Vec<(String, u64)> {
    let journal = cluster.fake.journal().await;
    journal["entries"]
        .as_array()
        .expect("journal entries")
        .iter()
        .filter(|e| {
            e["path"]
                .as_str()
                .is_some_and(|p| p.to_ascii_lowercase().contains("/routetables/"))
        })
        .map(|e| {
            (
                e["method"].as_str().unwrap_or_default().to_string(),
                e["status"].as_u64().unwrap_or_default(),
            )
        })
        .collect()
}

/// The calls up to the last PUT: what the batch sent. The GET the transport sends after a PUT's
/// asynchronous operation succeeds (its final read of the resource) is not the batch's.
fn batch_calls(calls: &[(String, u64)]) -> Vec<(&str, u64)> {
    let last_put = calls
        .iter()
        .rposition(|(m, _)| m == "PUT")
        .map_or(0, |i| i + 1);
    assert!(
        calls[last_put..]
            .iter()
            .all(|(m, s)| m == "GET" && *s == 200),
        "only the PUT's final read may follow it: {calls:?}"
    );
    calls[..last_put]
        .iter()
        .map(|(m, s)| (m.as_str(), *s))
        .collect()
}

/// The table as ARM holds it now.
async fn table_document(cluster: &Cluster, name: &str) -> Value {
    let arm = Arm::new(&cluster.fake).await;
    arm.get(&format!(
        "/subscriptions/{}/resourceGroups/{}/providers/Microsoft.Network/routeTables/{name}?api-version=2025-05-01",
        cluster.fake.subscription, cluster.resource_group
    ))
    .await
}

fn route_summary(table: &Value) -> Vec<(String, String, String)> {
    table["properties"]["routes"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|r| {
            let p = &r["properties"];
            (
                r["name"].as_str().unwrap_or_default().to_string(),
                p["addressPrefix"].as_str().unwrap_or_default().to_string(),
                format!(
                    "{} {}",
                    p["nextHopType"].as_str().unwrap_or_default(),
                    p["nextHopIpAddress"].as_str().unwrap_or_default()
                ),
            )
        })
        .collect()
}

fn agents(cluster: &Cluster) -> (String, String) {
    let mut names: Vec<String> = cluster
        .node_names()
        .into_iter()
        .filter(|n| n.contains("agentpool"))
        .collect();
    names.sort();
    (names[0].clone(), names[1].clone())
}

async fn private_ip(cluster: &Cluster, node: &str) -> String {
    let described = cluster.described(node).await;
    let text = described.to_string();
    // The fake describes the node with its private address; find the 10.224.x.y one.
    let start = text.find("\"10.224.").expect("private address") + 1;
    let end = start + text[start..].find('"').expect("end of address");
    text[start..end].to_string()
}

#[tokio::test]
async fn concurrent_creates_share_one_read_and_one_write_and_list_with_target_nodes() {
    let cluster = Cluster::start("small.yaml");
    // A whole second between the first operation and its batch: both creates are queued by then.
    let provider = provider_every(&cluster, Duration::from_secs(1)).await;
    let routes = provider.routes().expect("routes offered");
    let (a, b) = agents(&cluster);
    cluster.clear_journal().await;

    let (route_a, route_b) = (route(&a, "10.244.0.0/24"), route(&b, "10.244.1.0/24"));
    let (ra, rb) = tokio::join!(
        routes.create_route("kubernetes", "", &route_a),
        routes.create_route("kubernetes", "", &route_b),
    );
    ra.expect("first waiter released with success");
    rb.expect("second waiter released with success");
    let calls = table_calls(&cluster).await;
    assert_eq!(
        batch_calls(&calls),
        [("GET", 200), ("PUT", 200)],
        "{calls:?}"
    );

    let table = table_document(&cluster, TABLE).await;
    let (ip_a, ip_b) = (
        private_ip(&cluster, &a).await,
        private_ip(&cluster, &b).await,
    );
    let mut summary = route_summary(&table);
    summary.sort();
    assert_eq!(
        summary,
        [
            (
                format!("{a}____102440024"),
                "10.244.0.0/24".to_string(),
                format!("VirtualAppliance {ip_a}")
            ),
            (
                format!("{b}____102441024"),
                "10.244.1.0/24".to_string(),
                format!("VirtualAppliance {ip_b}")
            ),
        ]
    );

    let mut listed: Vec<(String, String, String)> = routes
        .list_routes("kubernetes")
        .await
        .expect("list")
        .into_iter()
        .map(|r| (r.name, r.target_node, r.destination_cidr.to_string()))
        .collect();
    listed.sort();
    assert_eq!(
        listed,
        [
            (
                format!("{a}____102440024"),
                a.clone(),
                "10.244.0.0/24".into()
            ),
            (
                format!("{b}____102441024"),
                b.clone(),
                "10.244.1.0/24".into()
            ),
        ]
    );

    // Deleting one route removes it and keeps the other.
    routes
        .delete_route("kubernetes", &route(&a, "10.244.0.0/24"))
        .await
        .expect("delete");
    let names: Vec<String> = route_summary(&table_document(&cluster, TABLE).await)
        .into_iter()
        .map(|(n, _, _)| n)
        .collect();
    assert_eq!(names, [format!("{b}____102441024")]);
    let listed = routes.list_routes("kubernetes").await.expect("list");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].target_node, b);
}

#[tokio::test]
async fn an_unchanged_route_sends_no_write() {
    let cluster = Cluster::start("small.yaml");
    let provider = provider(&cluster).await;
    let routes = provider.routes().expect("routes");
    let (a, _) = agents(&cluster);
    let r = route(&a, "10.244.0.0/24");
    routes
        .create_route("kubernetes", "", &r)
        .await
        .expect("create");
    cluster.clear_journal().await;
    routes
        .create_route("kubernetes", "", &r)
        .await
        .expect("again");
    let calls = table_calls(&cluster).await;
    assert!(
        !calls.iter().any(|(m, _)| m == "PUT"),
        "unchanged route must not be written: {calls:?}"
    );
}

#[tokio::test]
async fn a_missing_table_is_created_with_the_route() {
    let cluster = Cluster::start("small.yaml");
    let provider = provider_on(&cluster, "fresh-rt", Duration::from_millis(300)).await;
    let routes = provider.routes().expect("routes");
    assert!(
        routes
            .list_routes("kubernetes")
            .await
            .expect("list")
            .is_empty()
    );
    let (a, _) = agents(&cluster);
    routes
        .create_route("kubernetes", "", &route(&a, "10.244.3.0/24"))
        .await
        .expect("create");
    let table = table_document(&cluster, "fresh-rt").await;
    assert_eq!(table["location"], cluster.location.as_str());
    let names: Vec<String> = route_summary(&table)
        .into_iter()
        .map(|(n, _, _)| n)
        .collect();
    assert_eq!(names, [format!("{a}____102443024")]);
}

#[tokio::test]
async fn a_stale_etag_is_reread_and_written_once_more() {
    let cluster = Cluster::start("small.yaml");
    let ours = provider(&cluster).await;
    let theirs = provider(&cluster).await;
    let (a, b) = agents(&cluster);
    let routes = ours.routes().expect("routes");
    routes
        .create_route("kubernetes", "", &route(&a, "10.244.0.0/24"))
        .await
        .expect("create");
    // Another writer changes the table after we cached it: our cached ETag is now stale.
    theirs
        .routes()
        .expect("routes")
        .create_route("kubernetes", "", &route(&b, "10.244.1.0/24"))
        .await
        .expect("other writer");
    cluster.clear_journal().await;
    routes
        .create_route("kubernetes", "", &route(&a, "10.244.7.0/24"))
        .await
        .expect("create after 412");
    let calls = table_calls(&cluster).await;
    assert_eq!(
        batch_calls(&calls),
        [("PUT", 412), ("GET", 200), ("PUT", 200)],
        "{calls:?}"
    );
    let mut names: Vec<String> = route_summary(&table_document(&cluster, TABLE).await)
        .into_iter()
        .map(|(n, _, _)| n)
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            format!("{a}____102440024"),
            format!("{a}____102447024"),
            format!("{b}____102441024")
        ],
        "the other writer's route survives"
    );
}

#[tokio::test]
async fn unmanaged_nodes_keep_their_routes_in_memory() {
    let cluster = Cluster::start("small.yaml");
    let provider = provider(&cluster).await;
    provider.azure_routes().node_updated(&node(
        "on-prem-1",
        &[("kubernetes.azure.com/managed", "false")],
    ));
    let routes = provider.routes().expect("routes");
    cluster.clear_journal().await;
    let r = route("on-prem-1", "10.244.9.0/24");
    routes
        .create_route("kubernetes", "", &r)
        .await
        .expect("create");
    let listed = routes.list_routes("kubernetes").await.expect("list");
    assert!(
        listed
            .iter()
            .any(|l| l.target_node == "on-prem-1" && l.destination_cidr == r.destination_cidr),
        "{listed:?}"
    );
    assert!(
        !table_calls(&cluster).await.iter().any(|(m, _)| m == "PUT"),
        "no ARM write for an unmanaged node"
    );
    routes.delete_route("kubernetes", &r).await.expect("delete");
    let listed = routes.list_routes("kubernetes").await.expect("list");
    assert!(!listed.iter().any(|l| l.target_node == "on-prem-1"));
}

#[tokio::test]
async fn a_throttled_write_fails_every_waiter_of_the_batch_as_retryable() {
    let cluster = Cluster::start("small.yaml");
    let provider = provider_every(&cluster, Duration::from_secs(1)).await;
    let routes = provider.routes().expect("routes");
    let (a, b) = agents(&cluster);
    let (status, body) = cluster
        .fake
        .admin(
            reqwest::Method::POST,
            "/admin/faults",
            Some(serde_json::json!({
                "method": "PUT", "path": "/subscriptions/**/routeTables/k8s-routetable",
                "fault": {"kind": "throttle", "retryAfterSecs": 7}, "count": 1
            })),
        )
        .await;
    assert!(status < 300, "fault refused: {status} {body}");
    let (route_a, route_b) = (route(&a, "10.244.0.0/24"), route(&b, "10.244.1.0/24"));
    let (ra, rb) = tokio::join!(
        routes.create_route("kubernetes", "", &route_a),
        routes.create_route("kubernetes", "", &route_b),
    );
    for result in [ra, rb] {
        let error = result.expect_err("the batch's PUT was throttled");
        assert!(error.is_retryable(), "{error}");
        assert_eq!(error.retry_after(), Some(Duration::from_secs(7)), "{error}");
    }
    let calls = table_calls(&cluster).await;
    assert_eq!(
        calls.iter().filter(|(m, _)| m == "PUT").count(),
        1,
        "one batch, one write, no blind 429 retry: {calls:?}"
    );
}

#[tokio::test]
async fn a_route_of_a_family_the_node_lacks_is_refused_before_any_write() {
    let cluster = Cluster::start("small.yaml");
    let provider = provider(&cluster).await;
    let routes = provider.routes().expect("routes");
    let (a, _) = agents(&cluster);
    cluster.clear_journal().await;
    let error = routes
        .create_route("kubernetes", "", &route(&a, "fd00:10:244::/64"))
        .await
        .expect_err("the node has no IPv6 address");
    assert!(
        error.to_string().contains("no private IPv6 address"),
        "{error}"
    );
    assert!(error.is_retryable(), "the NIC may gain an address: {error}");
    assert_eq!(
        table_calls(&cluster).await,
        [],
        "nothing queued, nothing sent"
    );
}

#[tokio::test]
async fn listing_tags_the_table_in_the_cluster_resource_group_once() {
    let cluster = Cluster::start("small.yaml");
    let extra = format!(r#", "routeTableName": "{TABLE}", "tags": "env=prod,team=net""#);
    let provider = provider_with(&cluster, &extra, Duration::from_millis(300)).await;
    let routes = provider.routes().expect("routes");
    cluster.clear_journal().await;
    routes.list_routes("kubernetes").await.expect("list");
    let table = table_document(&cluster, TABLE).await;
    assert_eq!(table["tags"]["env"], "prod", "{table}");
    assert_eq!(table["tags"]["team"], "net", "{table}");
    let puts = |calls: &[(String, u64)]| calls.iter().filter(|(m, _)| m == "PUT").count();
    assert_eq!(puts(&table_calls(&cluster).await), 1);
    cluster.clear_journal().await;
    routes.list_routes("kubernetes").await.expect("list again");
    assert_eq!(
        puts(&table_calls(&cluster).await),
        0,
        "tags already in place"
    );
}
