//! Load balancer changes a CCM makes across a Service's life: an LB PUT that drops a rule together with the
//! frontend and probe it used, and a whole-LB delete while NICs are still in its pools.

use crate::{Fake, NET};
use serde_json::{Value, json};

fn pip_body() -> Value {
    json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"publicIPAllocationMethod":"Static"}})
}

/// A Standard LB with one frontend, probe and rule per service name in `services`, and one shared pool.
fn lb_body(lb: &str, services: &[&str]) -> Value {
    let fes: Vec<Value> = services
        .iter()
        .map(|s| json!({"name": s, "properties": {"publicIPAddress": {"id": Fake::net("rg", &format!("publicIPAddresses/{s}"))}}}))
        .collect();
    let probes: Vec<Value> = services
        .iter()
        .map(|s| json!({"name": s, "properties": {"protocol": "Tcp", "port": 30080}}))
        .collect();
    let rules: Vec<Value> = services
        .iter()
        .map(|s| (s, if *s == "a" { 80 } else { 81 }))
        .map(|(s, port)| {
            json!({"name": s, "properties": {
            "frontendIPConfiguration": {"id": format!("{lb}/frontendIPConfigurations/{s}")},
            "backendAddressPool": {"id": format!("{lb}/backendAddressPools/pool")},
            "probe": {"id": format!("{lb}/probes/{s}")},
            "protocol": "Tcp", "frontendPort": port, "backendPort": port}})
        })
        .collect();
    json!({"location":"eastus","sku":{"name":"Standard"},"properties":{
        "frontendIPConfigurations": fes, "backendAddressPools": [{"name":"pool"}],
        "probes": probes, "loadBalancingRules": rules}})
}

#[tokio::test]
async fn lb_put_dropping_rule_frontend_and_probe_together_succeeds() {
    let f = Fake::seeded(0).await;
    for s in ["a", "b"] {
        f.state
            .put(
                &Fake::net("rg", &format!("publicIPAddresses/{s}")),
                pip_body(),
            )
            .unwrap();
    }
    let lb = Fake::net("rg", "loadBalancers/kubernetes");
    let (s, _, _) = f.put(&lb, NET, lb_body(&lb, &["a", "b"])).await;
    assert_eq!(s, 201);
    // Service `a` goes: its rule, frontend and probe leave in one PUT.
    let (s, _, v) = f.put(&lb, NET, lb_body(&lb, &["b"])).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = f.get(&lb, NET).await;
    assert_eq!(
        v["properties"]["frontendIPConfigurations"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(v["properties"]["probes"][0]["name"], "b");
    // The freed public IP can go.
    assert_eq!(
        f.delete(&Fake::net("rg", "publicIPAddresses/a"), NET)
            .await
            .0,
        202
    );
    // A frontend still used by a rule that stays is refused.
    let mut body = lb_body(&lb, &["b"]);
    body["properties"]["frontendIPConfigurations"] = json!([{"name":"other","properties":{"publicIPAddress":{"id":Fake::net("rg","publicIPAddresses/b")}}}]);
    let (s, _, v) = f.put(&lb, NET, body).await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("InvalidResourceReference")),
        "{v}"
    );
}

#[tokio::test]
async fn lb_put_removing_a_pool_nics_use_is_refused() {
    let f = Fake::seeded(0).await;
    f.state
        .put(&Fake::net("rg", "publicIPAddresses/a"), pip_body())
        .unwrap();
    let lb = Fake::net("rg", "loadBalancers/kubernetes");
    f.state.put(&lb, lb_body(&lb, &["a"])).unwrap();
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/nodes");
    let nic = Fake::net("rg", "networkInterfaces/nic");
    f.state
        .put(&nic, json!({"location":"eastus","properties":{"ipConfigurations":[{"name":"ipc","properties":{
            "subnet":{"id":subnet},
            "loadBalancerBackendAddressPools":[{"id":format!("{lb}/backendAddressPools/pool")}]}}]}}))
        .unwrap();
    let mut body = lb_body(&lb, &["a"]);
    body["properties"]["loadBalancingRules"] = json!([]);
    body["properties"]["backendAddressPools"] = json!([]);
    let (s, _, v) = f.put(&lb, NET, body).await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("LoadBalancerInUseByNetworkInterface")),
        "{v}"
    );
}

#[tokio::test]
async fn lb_delete_detaches_nic_pools_and_nat_rules() {
    let f = Fake::seeded(0).await;
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/nodes");
    let lb = Fake::net("rg", "loadBalancers/kubernetes-internal");
    f.state
        .put(
            &lb,
            json!({"location":"eastus","sku":{"name":"Standard"},"properties":{
                "frontendIPConfigurations":[{"name":"fe","properties":{"subnet":{"id":subnet}}}],
                "backendAddressPools":[{"name":"pool"}],
                "inboundNatRules":[{"name":"ssh","properties":{
                    "frontendIPConfiguration":{"id":format!("{lb}/frontendIPConfigurations/fe")},
                    "protocol":"Tcp","frontendPort":2222,"backendPort":22}}]}}),
        )
        .unwrap();
    // A second LB's pool stays on the NIC.
    f.state
        .put(&Fake::net("rg", "publicIPAddresses/a"), pip_body())
        .unwrap();
    let public = Fake::net("rg", "loadBalancers/kubernetes");
    f.state.put(&public, lb_body(&public, &["a"])).unwrap();
    let nic = Fake::net("rg", "networkInterfaces/nic");
    f.state
        .put(&nic, json!({"location":"eastus","properties":{"ipConfigurations":[{"name":"ipc","properties":{
            "subnet":{"id":subnet},
            "loadBalancerBackendAddressPools":[
                {"id":format!("{lb}/backendAddressPools/pool")},
                {"id":format!("{public}/backendAddressPools/pool")}],
            "loadBalancerInboundNatRules":[{"id":format!("{lb}/inboundNatRules/ssh")}]}}]}}))
        .unwrap();
    let (_, before) = f.get(&nic, NET).await;
    let (s, h) = f.delete(&lb, NET).await;
    assert_eq!(s, 202);
    f.poll(h["azure-asyncoperation"].to_str().unwrap()).await;
    assert_eq!(f.get(&lb, NET).await.0, 404);
    let (_, after) = f.get(&nic, NET).await;
    let p = &after["properties"]["ipConfigurations"][0]["properties"];
    assert_eq!(
        p["loadBalancerBackendAddressPools"],
        json!([{"id": format!("{public}/backendAddressPools/pool")}])
    );
    assert_eq!(p["loadBalancerInboundNatRules"], json!([]));
    assert_ne!(before["etag"], after["etag"]);
    // The remaining LB still lists the NIC.
    let (_, v) = f.get(&public, NET).await;
    assert_eq!(
        v["properties"]["backendAddressPools"][0]["properties"]["backendIPConfigurations"][0]["id"],
        format!("{nic}/ipConfigurations/ipc")
    );
}
