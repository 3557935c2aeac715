//! Private link services over HTTPS: the NIC NRP creates with them (name, group, back-reference, addresses),
//! its read-only-ness, and its removal with the service.

use crate::{Fake, NET};
use fake_arm::ArmConfig;
use serde_json::{Value, json};

async fn fake() -> Fake {
    let f = Fake::start(ArmConfig::default()).await;
    f.state
        .put(&Fake::rg_path("rg"), json!({"location":"eastus"}))
        .unwrap();
    f.state
        .put(
            &Fake::net("rg", "virtualNetworks/vnet"),
            json!({"location":"eastus","properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16"]},"subnets":[
                {"name":"nodes","properties":{"addressPrefix":"10.0.0.0/24"}},
                {"name":"pls","properties":{"addressPrefix":"10.0.1.0/24","privateLinkServiceNetworkPolicies":"Disabled"}}]}}),
        )
        .unwrap();
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/nodes");
    f.state
        .put(
            &Fake::net("rg", "loadBalancers/lb"),
            json!({"location":"eastus","sku":{"name":"Standard"},"properties":{
                "frontendIPConfigurations":[{"name":"fe","properties":{"subnet":{"id":subnet}}}]}}),
        )
        .unwrap();
    f
}

fn pls_body(ipcs: &[&str]) -> Value {
    let fe = Fake::net("rg", "loadBalancers/lb/frontendIPConfigurations/fe");
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/pls");
    let ipcs: Vec<Value> = ipcs
        .iter()
        .map(|n| json!({"name":n,"properties":{"subnet":{"id":subnet}}}))
        .collect();
    json!({"location":"eastus","properties":{"loadBalancerFrontendIpConfigurations":[{"id":fe}],"ipConfigurations":ipcs}})
}

#[tokio::test]
async fn pls_gets_a_read_only_nic_that_goes_with_it() {
    let f = fake().await;
    let pls = Fake::net("rg", "privateLinkServices/myPls");
    let (s, _, created) = f.put(&pls, NET, pls_body(&["nat"])).await;
    assert_eq!(s, 201);
    // The create answer already names the NIC: `<pls name>.nic.<guid>` in the PLS's group.
    let nic = created["properties"]["networkInterfaces"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let prefix = Fake::net("rg", "networkInterfaces/myPls.nic.");
    assert!(nic.starts_with(&prefix), "{nic}");
    assert!(uuid::Uuid::parse_str(&nic[prefix.len()..]).is_ok(), "{nic}");
    assert!(
        created["properties"]["alias"]
            .as_str()
            .unwrap()
            .starts_with("mypls."),
        "alias uses the lower-cased name: {}",
        created["properties"]["alias"]
    );
    // The NIC carries the PLS NAT address and points back at the PLS; the subnet lists its ipconfig.
    let (s, nic_doc) = f.get(&nic, NET).await;
    assert_eq!(s, 200);
    assert_eq!(nic_doc["properties"]["privateLinkService"]["id"], pls);
    assert_eq!(
        nic_doc["properties"]["ipConfigurations"][0]["properties"]["privateIPAddress"],
        "10.0.1.4"
    );
    let (_, subnet) = f
        .get(&Fake::net("rg", "virtualNetworks/vnet/subnets/pls"), NET)
        .await;
    assert_eq!(
        subnet["properties"]["ipConfigurations"][0]["id"],
        format!("{nic}/ipConfigurations/nat")
    );
    // Re-PUTting the PLS keeps its NIC, its address and the NIC's etag; a client-sent networkInterfaces is ignored.
    let mut again = pls_body(&["nat", "nat2"]);
    again["properties"]["networkInterfaces"] =
        json!([{"id": Fake::net("rg", "networkInterfaces/other")}]);
    let (s, _, v) = f.put(&pls, NET, again).await;
    assert_eq!(s, 200);
    assert_eq!(v["properties"]["networkInterfaces"][0]["id"], nic);
    let (_, nic_after) = f.get(&nic, NET).await;
    assert_eq!(
        nic_after["properties"]["ipConfigurations"][0]["properties"]["privateIPAddress"],
        "10.0.1.4"
    );
    assert_eq!(
        nic_after["properties"]["ipConfigurations"][1]["properties"]["privateIPAddress"],
        "10.0.1.5"
    );
    // The NIC's addresses are taken: a NIC asking for one statically is refused.
    let (s, _, v) = f
        .put(
            &Fake::net("rg", "networkInterfaces/n"),
            NET,
            json!({"location":"eastus","properties":{"ipConfigurations":[{"name":"ipc","properties":{
                "subnet":{"id":Fake::net("rg", "virtualNetworks/vnet/subnets/pls")},
                "privateIPAllocationMethod":"Static","privateIPAddress":"10.0.1.4"}}]}}),
        )
        .await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("PrivateIPAddressIsAllocated"))
    );
    // A client cannot rewrite or delete the NIC on its own.
    let (s, _, v) = f.put(&nic, NET, nic_after.clone()).await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("CannotModifyNicAttachedToPrivateLinkService"))
    );
    assert_eq!(
        v["error"]["message"],
        format!(
            "Network interface {nic} is linked to a private link service {pls}. It can not be modified by user."
        )
    );
    let (s, _, v) = f
        .send(reqwest::Method::DELETE, &format!("{nic}?{NET}"), None, &[])
        .await;
    assert_eq!((s, v["error"]["code"].as_str()), (400, Some("NicInUse")));
    assert_eq!(
        v["error"]["message"],
        format!(
            "Network Interface {nic} is used by existing resource {pls}. In order to delete the network interface, it must be dissociated from the resource. To learn more, see aka.ms/deletenic."
        )
    );
    // Tags stay editable.
    let (s, v) = f.patch(&nic, NET, json!({"tags":{"team":"net"}})).await;
    assert_eq!((s, &v["tags"]["team"]), (200, &json!("net")));
    // Deleting the PLS takes the NIC with it and frees the subnet.
    let (s, h) = f.delete(&pls, NET).await;
    assert_eq!(s, 202);
    f.poll(h["azure-asyncoperation"].to_str().unwrap()).await;
    assert_eq!(f.get(&nic, NET).await.0, 404);
    let (_, subnet) = f
        .get(&Fake::net("rg", "virtualNetworks/vnet/subnets/pls"), NET)
        .await;
    assert!(subnet["properties"].get("ipConfigurations").is_none());
}

#[tokio::test]
async fn failed_pls_update_rolls_its_nic_back() {
    let f = fake().await;
    let pls = Fake::net("rg", "privateLinkServices/p");
    f.state.put(&pls, pls_body(&["nat"])).unwrap();
    let nic = f.state.get(&pls).unwrap()["properties"]["networkInterfaces"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let ipconfigs = |f: &Fake| {
        f.state.get(&nic).unwrap()["properties"]["ipConfigurations"]
            .as_array()
            .unwrap()
            .len()
    };
    // An update whose operation fails (fault injection) restores the PLS and, with it, the NIC.
    let (s, path) = f
        .put_forcing_failure(&pls, NET, pls_body(&["nat", "nat2"]))
        .await;
    assert_eq!(s, 200);
    assert_eq!(ipconfigs(&f), 2, "the NIC follows the running update");
    let mut status = Value::Null;
    for _ in 0..10 {
        status = f.send(reqwest::Method::GET, &path, None, &[]).await.2;
        if status["status"] != "InProgress" {
            break;
        }
    }
    assert_eq!(status["status"], "Failed");
    assert_eq!(ipconfigs(&f), 1, "rolled back with the PLS");
}

#[tokio::test]
async fn pls_returns_references_not_echoes() {
    let f = fake().await;
    let pls = Fake::net("rg", "privateLinkServices/refs");
    let fe = Fake::net("rg", "loadBalancers/lb/frontendIPConfigurations/fe");
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/pls");
    // The Go SDK sends the whole frontend and subnet objects it read (as in the recorded CCM traffic).
    let body = json!({"location":"eastus","properties":{
        "loadBalancerFrontendIpConfigurations":[{"id":fe,"name":"fe","etag":"W/\"x\"",
            "properties":{"privateIPAllocationMethod":"Dynamic"}}],
        "ipConfigurations":[{"name":"nat","properties":{"primary":true,
            "subnet":{"id":subnet,"name":"pls","properties":{"addressPrefix":"10.0.1.0/24"}}}}]}});
    let (s, _, created) = f.put(&pls, NET, body.clone()).await;
    assert_eq!(s, 201);
    for v in [created, f.get(&pls, NET).await.1] {
        let p = &v["properties"];
        assert_eq!(
            p["loadBalancerFrontendIpConfigurations"],
            json!([{"id": fe}])
        );
        let ipc = &p["ipConfigurations"][0]["properties"];
        assert_eq!(ipc["subnet"], json!({"id": subnet}));
        assert!(ipc.get("privateIPAddress").is_none(), "{ipc}");
        assert!(
            p.get("autoApproval").is_none() && p.get("visibility").is_none(),
            "{p}"
        );
    }
    // A second PUT keeps the NAT address the NIC holds.
    let (s, _, _) = f.put(&pls, NET, body).await;
    assert_eq!(s, 200);
    let (_, v) = f.get(&pls, NET).await;
    let nic = v["properties"]["networkInterfaces"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, nic_doc) = f.get(&nic, NET).await;
    assert_eq!(
        nic_doc["properties"]["ipConfigurations"][0]["properties"]["privateIPAddress"],
        "10.0.1.4"
    );
}
