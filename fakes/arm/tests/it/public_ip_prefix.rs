//! Public IP prefixes: served like public IPs, allocate an `ipPrefix`, hand out addresses to the public IPs that
//! reference them, list those back, and refuse deletion while used (issue 9 item 11).

use crate::{Fake, NET, redact};
use serde_json::{Value, json};

fn pip_body(prefix: &str) -> Value {
    json!({"location":"eastus","sku":{"name":"Standard"},"properties":{
        "publicIPAllocationMethod":"Static","publicIPPrefix":{"id":prefix}}})
}

#[tokio::test]
async fn prefix_lifecycle_and_addresses_from_it() {
    let f = Fake::seeded(1).await;
    let prefix = Fake::net("rg", "publicIPPrefixes/pfx");
    let (s, _, v) = f
        .put(
            &prefix,
            NET,
            json!({"location":"eastus","sku":{"name":"Standard"},"properties":{}}),
        )
        .await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("InvalidPublicIpPrefixLength"))
    );
    let (s, h, v) = f
        .put(
            &prefix,
            NET,
            json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"prefixLength":31}}),
        )
        .await;
    assert_eq!(s, 201);
    assert_eq!(v["properties"]["provisioningState"], "Updating");
    assert!(h.get("azure-asyncoperation").is_some());
    let (s, v) = f.get(&prefix, NET).await;
    assert_eq!(s, 200);
    assert_eq!(v["type"], "Microsoft.Network/publicIPPrefixes");
    assert_eq!(v["sku"], json!({"name":"Standard","tier":"Regional"}));
    assert_eq!(v["properties"]["ipPrefix"], "52.160.0.0/31");
    assert_eq!(v["properties"]["publicIPAddressVersion"], "IPv4");
    let (s, list) = f.get(&Fake::net("rg", "publicIPPrefixes"), NET).await;
    assert_eq!(s, 200);
    assert_eq!(list["value"][0]["id"], prefix);
    // A second prefix gets the next block.
    let other = Fake::net("rg", "publicIPPrefixes/other");
    f.put(
        &other,
        NET,
        json!({"location":"eastus","properties":{"prefixLength":28}}),
    )
    .await;
    assert_eq!(
        f.get(&other, NET).await.1["properties"]["ipPrefix"],
        "52.160.0.16/28"
    );
    // The reference is validated.
    let (s, _, v) = f
        .put(
            &Fake::net("rg", "publicIPAddresses/nope"),
            NET,
            pip_body(&Fake::net("rg", "publicIPPrefixes/missing")),
        )
        .await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("InvalidResourceReference"))
    );
    // Public IPs take the prefix's addresses, lowest first, and the prefix lists them.
    let mut pips = Vec::new();
    for (i, want) in ["52.160.0.0", "52.160.0.1"].iter().enumerate() {
        let pip = Fake::net("rg", &format!("publicIPAddresses/p{i}"));
        let (s, _, _) = f.put(&pip, NET, pip_body(&prefix)).await;
        assert_eq!(s, 201);
        let (_, v) = f.get(&pip, NET).await;
        assert_eq!(v["properties"]["ipAddress"], *want);
        assert_eq!(v["properties"]["publicIPPrefix"], json!({"id": prefix}));
        pips.push(pip);
    }
    let (_, v) = f.get(&prefix, NET).await;
    assert_eq!(
        v["properties"]["publicIPAddresses"],
        json!([{"id": pips[0]}, {"id": pips[1]}])
    );
    // Full.
    let (s, _, v) = f
        .put(
            &Fake::net("rg", "publicIPAddresses/p2"),
            NET,
            pip_body(&prefix),
        )
        .await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("PublicIpPrefixOutOfIpAddressesForPublicIp"))
    );
    // In use: the delete is refused until the public IPs are gone.
    let (_, _, v) = f
        .send(
            reqwest::Method::DELETE,
            &format!("{prefix}?{NET}"),
            None,
            &[],
        )
        .await;
    insta::assert_json_snapshot!("prefix_in_use", redact(&v));
    for pip in &pips {
        let (s, h) = f.delete(pip, NET).await;
        assert_eq!(s, 202);
        f.poll(h["azure-asyncoperation"].to_str().unwrap()).await;
    }
    let (s, h) = f.delete(&prefix, NET).await;
    assert_eq!(s, 202);
    f.poll(h["azure-asyncoperation"].to_str().unwrap()).await;
    assert_eq!(f.get(&prefix, NET).await.0, 404);
}
