//! Network validations over HTTPS: references, in-use deletes, NSG rules, LB rules and SKUs, back-references.

use crate::{Fake, NET, redact};
use serde_json::{Value, json};

fn pip(sku: &str) -> Value {
    json!({"location":"eastus","sku":{"name":sku},"properties":{"publicIPAllocationMethod":"Static"}})
}

fn lb(sku: &str, pip_id: &str) -> Value {
    json!({"location":"eastus","sku":{"name":sku},"properties":{
        "frontendIPConfigurations":[{"name":"fe","properties":{"publicIPAddress":{"id":pip_id}}}],
        "backendAddressPools":[{"name":"pool"}]}})
}

#[tokio::test]
async fn lb_frontend_must_reference_existing_pip_of_same_sku() {
    let f = Fake::seeded(0).await;
    let lb_path = Fake::net("rg", "loadBalancers/lb");
    let pip_id = Fake::net("rg", "publicIPAddresses/pip");
    let (s, _, v) = f.put(&lb_path, NET, lb("Standard", &pip_id)).await;
    assert_eq!(s, 400);
    insta::assert_json_snapshot!("lb_missing_pip", redact(&v));
    f.state
        .put(&pip_id, json!({"location":"eastus","properties":{}}))
        .unwrap();
    let (s, _, v) = f.put(&lb_path, NET, lb("Standard", &pip_id)).await;
    assert_eq!(s, 400);
    insta::assert_json_snapshot!("lb_pip_sku_mismatch", redact(&v));
    let (s, _, _) = f.put(&lb_path, NET, lb("Basic", &pip_id)).await;
    assert_eq!(s, 201);
    let (_, v) = f.get(&pip_id, NET).await;
    assert_eq!(
        v["properties"]["ipConfiguration"]["id"],
        format!("{lb_path}/frontendIPConfigurations/fe")
    );
    let (s, _) = f.delete(&pip_id, NET).await;
    assert_eq!(s, 400);
    let (_, _, v) = f
        .send(
            reqwest::Method::DELETE,
            &format!("{pip_id}?{NET}"),
            None,
            &[],
        )
        .await;
    insta::assert_json_snapshot!("pip_in_use", redact(&v));
    // Removing the LB frees the PIP.
    f.state.delete(&lb_path).unwrap();
    let (_, v) = f.get(&pip_id, NET).await;
    assert!(v["properties"].get("ipConfiguration").is_none());
    assert_eq!(f.delete(&pip_id, NET).await.0, 202);
}

#[tokio::test]
async fn nsg_rule_validations() {
    let f = Fake::seeded(0).await;
    let nsg = Fake::net("rg", "networkSecurityGroups/nsg");
    let rule = |name: &str, prio: i64, dir: &str| json!({"name":name,"properties":{"priority":prio,"direction":dir,"access":"Allow","protocol":"Tcp","sourcePortRange":"*","destinationPortRange":"80","sourceAddressPrefix":"*","destinationAddressPrefix":"*"}});
    let (s, _, v) = f
        .put(
            &nsg,
            NET,
            json!({"location":"eastus","properties":{"securityRules":[rule("a", 99, "Inbound")]}}),
        )
        .await;
    assert_eq!(s, 400);
    insta::assert_json_snapshot!("nsg_priority", v);
    let (s, _, v) = f.put(&nsg, NET, json!({"location":"eastus","properties":{"securityRules":[rule("a", 200, "Inbound"), rule("b", 200, "Inbound")]}})).await;
    assert_eq!(s, 400);
    insta::assert_json_snapshot!("nsg_conflict", v);
    let (s, _, v) = f.put(&nsg, NET, json!({"location":"eastus","properties":{"securityRules":[rule("a", 200, "Inbound"), rule("b", 200, "Outbound")]}})).await;
    assert_eq!(s, 201);
    assert_eq!(
        v["properties"]["defaultSecurityRules"]
            .as_array()
            .unwrap()
            .len(),
        6
    );
    assert_eq!(
        v["properties"]["securityRules"][0]["properties"]["destinationPortRanges"],
        json!([])
    );
    // Child endpoint: a conflicting rule is rejected, a good one shows up in the parent with the parent's etag.
    let (s, _, v) = f
        .put(
            &format!("{nsg}/securityRules/c"),
            NET,
            rule("c", 200, "Outbound"),
        )
        .await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("SecurityRuleConflict"))
    );
    let (s, _, _) = f
        .put(
            &format!("{nsg}/securityRules/c"),
            NET,
            rule("c", 300, "Outbound"),
        )
        .await;
    assert_eq!(s, 201);
    let (_, parent) = f.get(&nsg, NET).await;
    assert_eq!(
        parent["properties"]["securityRules"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        parent["properties"]["securityRules"][2]["etag"],
        parent["etag"]
    );
    let (s, _, v) = f.put(&format!("{nsg}/securityRules/d"), NET, json!({"properties":{"priority":400,"direction":"Inbound","access":"Allow","protocol":"Tcp","sourcePortRange":"*","destinationPortRange":"70000"}})).await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("SecurityRuleInvalidPortRange"))
    );
    // NSG on a subnet cannot be deleted.
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/nodes");
    let (s, _, _) = f
        .put(
            &subnet,
            NET,
            json!({"properties":{"addressPrefix":"10.0.0.0/24","networkSecurityGroup":{"id":nsg}}}),
        )
        .await;
    assert_eq!(s, 200);
    let (_, v) = f.get(&nsg, NET).await;
    assert_eq!(v["properties"]["subnets"][0]["id"], subnet);
    let (_, _, v) = f
        .send(reqwest::Method::DELETE, &format!("{nsg}?{NET}"), None, &[])
        .await;
    insta::assert_json_snapshot!("nsg_in_use", redact(&v));
}

#[tokio::test]
async fn nic_pool_membership_backrefs_and_in_use_checks() {
    let f = Fake::seeded(0).await;
    let pip_id = Fake::net("rg", "publicIPAddresses/pip");
    f.state.put(&pip_id, pip("Standard")).unwrap();
    let lb_path = Fake::net("rg", "loadBalancers/lb");
    f.state.put(&lb_path, lb("Standard", &pip_id)).unwrap();
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/nodes");
    let pool = format!("{lb_path}/backendAddressPools/pool");
    let nic = Fake::net("rg", "networkInterfaces/nic");
    let nic_body = |pools: Value| json!({"location":"eastus","properties":{"ipConfigurations":[{"name":"ipc","properties":{"subnet":{"id":subnet},"loadBalancerBackendAddressPools":pools}}]}});
    let (s, _, v) = f
        .put(
            &nic,
            NET,
            nic_body(json!([{"id": format!("{lb_path}/backendAddressPools/nope")}])),
        )
        .await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("InvalidResourceReference"))
    );
    let (s, _, v) = f.put(&nic, NET, nic_body(json!([{"id": pool}]))).await;
    assert_eq!(s, 201);
    assert_eq!(
        v["properties"]["ipConfigurations"][0]["properties"]["privateIPAddress"],
        "10.0.0.4"
    );
    let (_, lbv) = f.get(&lb_path, NET).await;
    assert_eq!(
        lbv["properties"]["backendAddressPools"][0]["properties"]["backendIPConfigurations"][0]["id"],
        format!("{nic}/ipConfigurations/ipc")
    );
    let (_, sub) = f.get(&subnet, NET).await;
    assert_eq!(
        sub["properties"]["ipConfigurations"][0]["id"],
        format!("{nic}/ipConfigurations/ipc")
    );
    // The pool is in use: deleting it through the child endpoint fails; the subnet cannot go either. (Deleting the
    // whole LB detaches the NIC instead: lb_lifecycle.)
    assert_eq!(f.delete(&pool, NET).await.0, 400);
    let (_, _, v) = f
        .send(
            reqwest::Method::DELETE,
            &format!("{subnet}?{NET}"),
            None,
            &[],
        )
        .await;
    insta::assert_json_snapshot!("subnet_in_use", redact(&v));
    // A second public LB on the same NIC is refused.
    let pip2 = Fake::net("rg", "publicIPAddresses/pip2");
    f.state.put(&pip2, pip("Standard")).unwrap();
    let lb2 = Fake::net("rg", "loadBalancers/lb2");
    f.state.put(&lb2, lb("Standard", &pip2)).unwrap();
    let (s, _, v) = f
        .put(
            &nic,
            NET,
            nic_body(json!([{"id": pool}, {"id": format!("{lb2}/backendAddressPools/pool")}])),
        )
        .await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (
            400,
            Some("NetworkInterfaceUsesMultipleLoadBalancersOfSameType")
        )
    );
    // Leaving the pool frees it.
    let (s, _, _) = f.put(&nic, NET, nic_body(json!([]))).await;
    assert_eq!(s, 200);
    let (_, lbv) = f.get(&lb_path, NET).await;
    assert!(
        lbv["properties"]["backendAddressPools"][0]["properties"]
            .get("backendIPConfigurations")
            .is_none()
    );
    assert_eq!(f.delete(&pool, NET).await.0, 202);
}

#[tokio::test]
async fn lb_rule_validations() {
    let f = Fake::seeded(0).await;
    let pip_id = Fake::net("rg", "publicIPAddresses/pip");
    f.state.put(&pip_id, pip("Standard")).unwrap();
    let lb_path = Fake::net("rg", "loadBalancers/lb");
    let fe = format!("{lb_path}/frontendIPConfigurations/fe");
    let pool = format!("{lb_path}/backendAddressPools/pool");
    let probe = format!("{lb_path}/probes/p");
    let rule = |name: &str, proto: &str, port: i64| json!({"name":name,"properties":{"frontendIPConfiguration":{"id":fe},"backendAddressPool":{"id":pool},"probe":{"id":probe},"protocol":proto,"frontendPort":port,"backendPort":port}});
    let body = |rules: Value, probe_body: Value| {
        json!({"location":"eastus","sku":{"name":"Standard"},"properties":{
        "frontendIPConfigurations":[{"name":"fe","properties":{"publicIPAddress":{"id":pip_id}}}],
        "backendAddressPools":[{"name":"pool"}],"probes":[probe_body],"loadBalancingRules":rules}})
    };
    let tcp_probe = json!({"name":"p","properties":{"protocol":"Tcp","port":80}});
    let (s, _, v) = f
        .put(
            &lb_path,
            NET,
            body(
                json!([rule("a", "Tcp", 80), rule("b", "Tcp", 80)]),
                tcp_probe.clone(),
            ),
        )
        .await;
    assert_eq!(s, 400);
    insta::assert_json_snapshot!("lb_duplicate_rule", redact(&v));
    let (s, _, v) = f
        .put(
            &lb_path,
            NET,
            body(json!([rule("ha", "All", 0)]), tcp_probe.clone()),
        )
        .await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("HaPortsRuleNotSupportedOnLoadBalancer"))
    );
    let (s, _, v) = f
        .put(
            &lb_path,
            NET,
            body(
                json!([rule("a", "Tcp", 80)]),
                json!({"name":"p","properties":{"protocol":"Http","port":80}}),
            ),
        )
        .await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("InvalidProbeRequestPath"))
    );
    let (s, _, v) = f
        .put(
            &lb_path,
            NET,
            body(
                json!([rule("a", "Tcp", 80), rule("b", "Udp", 80)]),
                tcp_probe,
            ),
        )
        .await;
    assert_eq!(s, 201);
    assert_eq!(
        v["properties"]["probes"][0]["properties"]["loadBalancingRules"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        v["properties"]["frontendIPConfigurations"][0]["properties"]["loadBalancingRules"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}
