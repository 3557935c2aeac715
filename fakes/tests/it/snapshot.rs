//! Snapshot and restore: through the admin API, and `--state` across a SIGTERM restart.

use reqwest::Method;
use serde_json::json;

use crate::support::{Fake, NET_API, small_topology};

async fn create_pip(fake: &Fake, token: &str, name: &str) {
    let pip = format!(
        "{}?{NET_API}",
        fake.rg_path(&format!("Microsoft.Network/publicIPAddresses/{name}"))
    );
    let body = json!({"location": "eastus", "sku": {"name": "Standard"}, "properties": {"publicIPAllocationMethod": "Static"}});
    let created = fake.arm(token, Method::PUT, &pip, Some(body)).await;
    assert_eq!(created.status(), 201);
}

#[tokio::test]
async fn admin_snapshot_restores_an_earlier_state() {
    let fake = Fake::start(&[]);
    let token = fake.token().await;
    let (status, before) = fake.admin(Method::GET, "/admin/state", None).await;
    assert_eq!(status, 200);
    assert!(
        !before.to_string().contains(crate::support::CLIENT_SECRET),
        "secrets only as digests"
    );
    create_pip(&fake, &token, "later").await;
    let pip = format!(
        "{}?{NET_API}",
        fake.rg_path("Microsoft.Network/publicIPAddresses/later")
    );
    assert_eq!(
        fake.arm(&token, Method::GET, &pip, None).await.status(),
        200
    );
    let (status, _) = fake.admin(Method::PUT, "/admin/state", Some(before)).await;
    assert_eq!(status, 204);
    assert_eq!(
        fake.arm(&token, Method::GET, &pip, None).await.status(),
        404
    );
    let token = fake.token().await;
    assert!(
        !token.is_empty(),
        "the restored registry still knows the app"
    );

    let file = fake.dir.path().join("snap.json");
    let (status, saved) = fake
        .admin(
            Method::POST,
            "/admin/state/save",
            Some(json!({"path": file})),
        )
        .await;
    assert_eq!(status, 200, "{saved}");
    create_pip(&fake, &token, "after-save").await;
    let (status, _) = fake
        .admin(
            Method::POST,
            "/admin/state/load",
            Some(json!({"path": file})),
        )
        .await;
    assert_eq!(status, 200);
    let after = format!(
        "{}?{NET_API}",
        fake.rg_path("Microsoft.Network/publicIPAddresses/after-save")
    );
    assert_eq!(
        fake.arm(&token, Method::GET, &after, None).await.status(),
        404
    );
    let message = fake
        .admin_refused(
            Method::PUT,
            "/admin/state",
            Some(json!({"version": 7, "arm": {}, "entra": {}})),
        )
        .await;
    assert!(message.contains("'version'"), "{message}");
}

#[tokio::test]
async fn state_file_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let state_arg = state.to_str().unwrap().to_string();
    let fake = Fake::start_in(dir, &small_topology(), &["--state", &state_arg]);
    let token = fake.token().await;
    create_pip(&fake, &token, "kept").await;
    assert!(!state.exists(), "written at shutdown, not before");
    let (status, dir) = fake.terminate();
    assert!(status.success(), "SIGTERM is a clean shutdown: {status:?}");
    assert!(state.exists());
    let again = Fake::start_in(dir, &small_topology(), &["--state", &state_arg]);
    assert_eq!(
        again
            .printed
            .iter()
            .filter(|l| l.starts_with("imds "))
            .count(),
        3,
        "nodes still listed"
    );
    let reused = again.arm(&token, Method::GET, &again.rg_url(), None).await;
    assert_eq!(
        reused.status(),
        200,
        "the signing key in the TLS dir keeps old tokens valid"
    );
    let pip = format!(
        "{}?{NET_API}",
        again.rg_path("Microsoft.Network/publicIPAddresses/kept")
    );
    assert_eq!(
        again.arm(&token, Method::GET, &pip, None).await.status(),
        200
    );
}
