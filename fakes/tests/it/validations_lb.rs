//! Server-side validations through the real binary over HTTPS: references that must resolve (also
//! across regions), SKU consistency, load-balancing rule and probe checks, the one-LB-per-type rule for
//! NICs and the LB rule limit. Every refusal is checked to leave the stored resources untouched.

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::Session;

const PIP: &str = "Microsoft.Network/publicIPAddresses";
const LB: &str = "Microsoft.Network/loadBalancers";
const NIC: &str = "Microsoft.Network/networkInterfaces";
const SUBNET: &str = "Microsoft.Network/virtualNetworks/k8s-vnet/subnets/k8s-subnet";

fn pip_body(location: &str, sku: &str) -> Value {
    let method = if sku == "Standard" {
        "Static"
    } else {
        "Dynamic"
    };
    json!({"location": location, "sku": {"name": sku},
        "properties": {"publicIPAllocationMethod": method}})
}

/// Creates a public IP and waits for it; returns its id.
async fn pip(s: &Session, name: &str, location: &str, sku: &str) -> String {
    let id = s.id(&format!("{PIP}/{name}"));
    s.put_ok(&id, pip_body(location, sku)).await;
    id
}

/// A load balancer in eastus with one frontend `fe` (public IP or subnet), pool `pool`, a TCP probe
/// `probe` and the given rules (each a `(name, protocol, frontendPort, backendPort)`).
fn lb_body(
    s: &Session,
    lb: &str,
    sku: &str,
    frontend: Value,
    rules: &[(&str, &str, i64, i64)],
) -> Value {
    let lb_id = s.id(&format!("{LB}/{lb}"));
    let rules: Vec<Value> = rules
        .iter()
        .map(|(name, protocol, frontend_port, backend_port)| {
            json!({"name": name, "properties": {
                "frontendIPConfiguration": {"id": format!("{lb_id}/frontendIPConfigurations/fe")},
                "backendAddressPool": {"id": format!("{lb_id}/backendAddressPools/pool")},
                "probe": {"id": format!("{lb_id}/probes/probe")},
                "protocol": protocol, "frontendPort": frontend_port, "backendPort": backend_port}})
        })
        .collect();
    json!({"location": "eastus", "sku": {"name": sku}, "properties": {
        "frontendIPConfigurations": [{"name": "fe", "properties": frontend}],
        "backendAddressPools": [{"name": "pool"}],
        "probes": [{"name": "probe", "properties": {"protocol": "Tcp", "port": 10256}}],
        "loadBalancingRules": rules}})
}

/// PUTs [`lb_body`] of `lb` and asserts ARM refuses it with 400 and `code`; returns the error object.
async fn refused_lb(
    s: &Session,
    lb: &str,
    sku: &str,
    frontend: Value,
    rules: &[(&str, &str, i64, i64)],
    code: &str,
) -> Value {
    let id = s.id(&format!("{LB}/{lb}"));
    let body = lb_body(s, lb, sku, frontend, rules);
    s.refused(Method::PUT, &id, Some(body), 400, code).await
}

/// The seeded cluster LB `kubernetes` as the CCM edits it (GET, modify, PUT): its id, the document read, and a
/// copy with a frontend `svc` on `pip_id` added.
async fn cluster_lb_with_frontend(s: &Session, pip_id: &str) -> (String, Value, Value) {
    let seeded = s.id(&format!("{LB}/kubernetes"));
    let before = s.get(&seeded).await.body;
    let mut doc = before.clone();
    doc["properties"]["frontendIPConfigurations"]
        .as_array_mut()
        .expect("frontendIPConfigurations")
        .push(json!({"name": "svc", "properties": public_frontend(pip_id)}));
    (seeded, before, doc)
}

fn public_frontend(pip_id: &str) -> Value {
    json!({"publicIPAddress": {"id": pip_id}})
}

fn internal_frontend(s: &Session) -> Value {
    json!({"subnet": {"id": s.id(SUBNET)}})
}

/// The public IP is not attached to anything.
async fn assert_unattached(s: &Session, pip_id: &str) {
    let now = s.get(pip_id).await.body;
    assert!(
        now["properties"].get("ipConfiguration").is_none(),
        "refused write left no back-reference: {now}"
    );
}

#[tokio::test]
async fn references_must_resolve() {
    let s = Session::small(&["--lro-polls", "0"]).await;
    let missing_pip = s.id(&format!("{PIP}/nope"));
    let lb = s.id(&format!("{LB}/svc-lb"));
    let error = refused_lb(
        &s,
        "svc-lb",
        "Standard",
        public_frontend(&missing_pip),
        &[],
        "InvalidResourceReference",
    )
    .await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("Resource {missing_pip} referenced by resource ")),
        "{error}"
    );
    assert_eq!(s.get(&lb).await.status, 404, "nothing created");

    let missing_subnet = s.id("Microsoft.Network/virtualNetworks/k8s-vnet/subnets/nope");
    refused_lb(
        &s,
        "svc-lb",
        "Standard",
        json!({"subnet": {"id": missing_subnet}}),
        &[],
        "InvalidResourceReference",
    )
    .await;
    assert_eq!(s.get(&lb).await.status, 404, "nothing created");

    // NIC ipconfig → subnet, pool, public IP.
    let nic = s.id(&format!("{NIC}/extra-nic"));
    let ipconfig = |extra: Value| {
        let mut props = json!({"subnet": {"id": s.id(SUBNET)}});
        for (k, v) in extra.as_object().unwrap() {
            props[k] = v.clone();
        }
        json!({"location": "eastus", "properties": {"ipConfigurations": [{"name": "ipconfig1", "properties": props}]}})
    };
    for broken in [
        json!({"subnet": {"id": missing_subnet}}),
        json!({"loadBalancerBackendAddressPools": [{"id": s.id(&format!("{LB}/kubernetes/backendAddressPools/nope"))}]}),
        json!({"loadBalancerBackendAddressPools": [{"id": s.id(&format!("{LB}/nope/backendAddressPools/kubernetes"))}]}),
        json!({"publicIPAddress": {"id": missing_pip}}),
    ] {
        s.refused(
            Method::PUT,
            &nic,
            Some(ipconfig(broken)),
            400,
            "InvalidResourceReference",
        )
        .await;
        assert_eq!(s.get(&nic).await.status, 404, "nothing created");
    }

    // Rule → probe that the LB does not have (the CCM's GET-modify-PUT of the cluster LB).
    let svc_pip = pip(&s, "svc-pip", "eastus", "Standard").await;
    let (seeded, before, mut doc) = cluster_lb_with_frontend(&s, &svc_pip).await;
    doc["properties"]["loadBalancingRules"] = json!([{"name": "svc-80", "properties": {
        "frontendIPConfiguration": {"id": format!("{seeded}/frontendIPConfigurations/svc")},
        "backendAddressPool": {"id": format!("{seeded}/backendAddressPools/kubernetes")},
        "probe": {"id": format!("{seeded}/probes/nope")},
        "protocol": "Tcp", "frontendPort": 80, "backendPort": 80}}]);
    s.refused(
        Method::PUT,
        &seeded,
        Some(doc),
        400,
        "InvalidResourceReference",
    )
    .await;
    assert_eq!(s.get(&seeded).await.body, before, "cluster LB unchanged");
    assert_unattached(&s, &svc_pip).await;
}

#[tokio::test]
async fn references_across_regions_are_refused() {
    let s = Session::small(&["--lro-polls", "0"]).await;
    let west = pip(&s, "west-pip", "westus", "Standard").await;
    let lb = s.id(&format!("{LB}/svc-lb"));
    let error = refused_lb(
        &s,
        "svc-lb",
        "Standard",
        public_frontend(&west),
        &[],
        "InvalidResourceReference",
    )
    .await;
    assert!(
        error["message"].as_str().unwrap().contains("same region"),
        "{error}"
    );
    assert_eq!(s.get(&lb).await.status, 404, "nothing created");
    assert_unattached(&s, &west).await;

    // A westus NIC cannot sit in the eastus VNet's subnet.
    let nic = s.id(&format!("{NIC}/west-nic"));
    s.refused(
        Method::PUT,
        &nic,
        Some(
            json!({"location": "westus", "properties": {"ipConfigurations": [
            {"name": "ipconfig1", "properties": {"subnet": {"id": s.id(SUBNET)}}}]}}),
        ),
        400,
        "InvalidResourceReference",
    )
    .await;
    assert_eq!(s.get(&nic).await.status, 404, "nothing created");
}

#[tokio::test]
async fn skus_must_match() {
    let s = Session::small(&["--lro-polls", "0"]).await;
    let dynamic = s.id(&format!("{PIP}/dynamic-pip"));
    let error = s
        .refused(
            Method::PUT,
            &dynamic,
            Some(json!({"location": "eastus", "sku": {"name": "Standard"},
                "properties": {"publicIPAllocationMethod": "Dynamic"}})),
            400,
            "StandardAndStandardV2SkuPublicIPAddressesMustBeStatic",
        )
        .await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("must have AllocationMethod set to Static"),
        "{error}"
    );
    assert_eq!(s.get(&dynamic).await.status, 404, "nothing created");

    let basic = pip(&s, "basic-pip", "eastus", "Basic").await;
    let lb = s.id(&format!("{LB}/svc-lb"));
    let error = refused_lb(
        &s,
        "svc-lb",
        "Standard",
        public_frontend(&basic),
        &[],
        "PublicIPAndLBSkuDoNotMatch",
    )
    .await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("Standard sku load balancer"),
        "{error}"
    );
    assert_eq!(s.get(&lb).await.status, 404, "nothing created");

    // The same mix on the seeded Standard LB leaves it as it was.
    let (seeded, before, doc) = cluster_lb_with_frontend(&s, &basic).await;
    s.refused(
        Method::PUT,
        &seeded,
        Some(doc),
        400,
        "PublicIPAndLBSkuDoNotMatch",
    )
    .await;
    assert_eq!(s.get(&seeded).await.body, before, "cluster LB unchanged");
    assert_unattached(&s, &basic).await;

    // And the other way round: a Basic LB cannot use a Standard public IP.
    let standard = pip(&s, "standard-pip", "eastus", "Standard").await;
    refused_lb(
        &s,
        "svc-lb",
        "Basic",
        public_frontend(&standard),
        &[],
        "PublicIPAndLBSkuDoNotMatch",
    )
    .await;
    assert_unattached(&s, &standard).await;
}

#[tokio::test]
async fn rules_need_a_unique_frontend_protocol_and_port() {
    let s = Session::small(&["--lro-polls", "0"]).await;
    let svc_pip = pip(&s, "svc-pip", "eastus", "Standard").await;
    let lb = s.id(&format!("{LB}/svc-lb"));
    let error = refused_lb(
        &s,
        "svc-lb",
        "Standard",
        public_frontend(&svc_pip),
        &[("tcp-80", "Tcp", 80, 80), ("tcp-80-again", "Tcp", 80, 8080)],
        "RulesUseSameFrontendIpConfigurationAndPort",
    )
    .await;
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("/loadBalancingRules/tcp-80 ")
            && message.contains("/loadBalancingRules/tcp-80-again "),
        "{message}"
    );
    assert_eq!(s.get(&lb).await.status, 404, "nothing created");
    assert_unattached(&s, &svc_pip).await;

    // TCP and UDP on the same port are distinct rules.
    let created = s
        .put_ok(
            &lb,
            lb_body(
                &s,
                "svc-lb",
                "Standard",
                public_frontend(&svc_pip),
                &[("tcp-80", "Tcp", 80, 80), ("udp-80", "Udp", 80, 80)],
            ),
        )
        .await;
    assert_eq!(
        created["properties"]["loadBalancingRules"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // Adding a duplicate to the existing LB (GET-modify-PUT, as the CCM does) is refused too.
    let mut doc = created.clone();
    let rules = doc["properties"]["loadBalancingRules"]
        .as_array_mut()
        .unwrap();
    let mut duplicate = rules[0].clone();
    duplicate["name"] = json!("tcp-80-again");
    duplicate.as_object_mut().unwrap().remove("id");
    duplicate["properties"]["backendPort"] = json!(9090);
    rules.push(duplicate);
    s.refused(
        Method::PUT,
        &lb,
        Some(doc),
        400,
        "RulesUseSameFrontendIpConfigurationAndPort",
    )
    .await;
    assert_eq!(s.get(&lb).await.body, created, "LB unchanged");
}

#[tokio::test]
async fn ha_ports_only_on_internal_load_balancers() {
    let s = Session::small(&["--lro-polls", "0"]).await;
    let svc_pip = pip(&s, "svc-pip", "eastus", "Standard").await;
    let lb = s.id(&format!("{LB}/public-ha"));
    refused_lb(
        &s,
        "public-ha",
        "Standard",
        public_frontend(&svc_pip),
        &[("ha", "All", 0, 0)],
        "HaPortsRuleNotSupportedOnLoadBalancer",
    )
    .await;
    assert_eq!(s.get(&lb).await.status, 404, "nothing created");
    assert_unattached(&s, &svc_pip).await;

    let internal = s.id(&format!("{LB}/internal-ha"));
    let created = s
        .put_ok(
            &internal,
            lb_body(
                &s,
                "internal-ha",
                "Standard",
                internal_frontend(&s),
                &[("ha", "All", 0, 0)],
            ),
        )
        .await;
    assert_eq!(
        created["properties"]["loadBalancingRules"][0]["properties"]["protocol"],
        "All"
    );
}

#[tokio::test]
async fn probes_and_the_rules_using_them() {
    let s = Session::small(&["--lro-polls", "0"]).await;
    let lb = s.id(&format!("{LB}/probe-lb"));
    for (probe, error_mentions) in [
        (
            json!({"protocol": "Tcp", "port": 10256, "requestPath": "/healthz"}),
            "requestPath is only allowed for Http and Https",
        ),
        (
            json!({"protocol": "Http", "port": 10256}),
            "must specify requestPath",
        ),
    ] {
        let mut body = lb_body(&s, "probe-lb", "Standard", internal_frontend(&s), &[]);
        body["properties"]["probes"][0]["properties"] = probe;
        let error = s
            .refused(Method::PUT, &lb, Some(body), 400, "InvalidProbeRequestPath")
            .await;
        assert!(
            error["message"].as_str().unwrap().contains(error_mentions),
            "{error}"
        );
        assert_eq!(s.get(&lb).await.status, 404, "nothing created");
    }
    let mut http = lb_body(&s, "probe-lb", "Standard", internal_frontend(&s), &[]);
    http["properties"]["probes"][0]["properties"] =
        json!({"protocol": "Http", "port": 10256, "requestPath": "/healthz"});
    let owner = s.put_ok(&lb, http).await;

    // A rule of another LB cannot use this LB's probe.
    let other = s.id(&format!("{LB}/other-lb"));
    let mut body = lb_body(
        &s,
        "other-lb",
        "Standard",
        internal_frontend(&s),
        &[("tcp-80", "Tcp", 80, 80)],
    );
    body["properties"]["loadBalancingRules"][0]["properties"]["probe"]["id"] =
        json!(format!("{lb}/probes/probe"));
    let error = s
        .refused(
            Method::PUT,
            &other,
            Some(body),
            400,
            "InvalidResourceReference",
        )
        .await;
    assert!(
        error["message"].as_str().unwrap().starts_with(&format!(
            "Resource {lb}/probes/probe referenced by resource "
        )),
        "{error}"
    );
    assert_eq!(s.get(&other).await.status, 404, "nothing created");
    assert_eq!(s.get(&lb).await.body, owner, "probe owner unchanged");
}

#[tokio::test]
async fn nic_joins_at_most_one_load_balancer_per_type() {
    let s = Session::small(&["--lro-polls", "0"]).await;
    let other_pip = pip(&s, "other-pip", "eastus", "Standard").await;
    let other = s.id(&format!("{LB}/other-public"));
    s.put_ok(
        &other,
        lb_body(
            &s,
            "other-public",
            "Standard",
            public_frontend(&other_pip),
            &[],
        ),
    )
    .await;
    let pool_of = |lb: &str, pool: &str| json!({"id": s.id(&format!("{LB}/{lb}/backendAddressPools/{pool}"))});

    // The agent NIC is in the cluster's public LB already.
    let agent = s.id(&format!("{NIC}/k8s-agentpool-0-0-nic"));
    let before = s.get(&agent).await.body;
    let mut doc = before.clone();
    doc["properties"]["ipConfigurations"][0]["properties"]["loadBalancerBackendAddressPools"]
        .as_array_mut()
        .unwrap()
        .push(pool_of("other-public", "pool"));
    let error = s
        .refused(
            Method::PUT,
            &agent,
            Some(doc),
            400,
            "NetworkInterfaceUsesMultipleLoadBalancersOfSameType",
        )
        .await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("more than one load balancer of the same type"),
        "{error}"
    );
    assert_eq!(s.get(&agent).await.body, before, "NIC unchanged");
    let pool = s
        .get(&format!("{other}/backendAddressPools/pool"))
        .await
        .body;
    assert!(
        pool["properties"].get("backendIPConfigurations").is_none(),
        "{pool}"
    );

    // Two internal LBs are refused too; one public plus one internal is fine.
    for name in ["ilb-a", "ilb-b"] {
        s.put_ok(
            &s.id(&format!("{LB}/{name}")),
            lb_body(&s, name, "Standard", internal_frontend(&s), &[]),
        )
        .await;
    }
    let master = s.id(&format!("{NIC}/k8s-master-0-nic"));
    let before = s.get(&master).await.body;
    let with_pools = |pools: Value| {
        let mut doc = before.clone();
        doc["properties"]["ipConfigurations"][0]["properties"]["loadBalancerBackendAddressPools"] =
            pools;
        doc
    };
    s.refused(
        Method::PUT,
        &master,
        Some(with_pools(json!([
            pool_of("ilb-a", "pool"),
            pool_of("ilb-b", "pool")
        ]))),
        400,
        "AnotherInternalLoadBalancerExists",
    )
    .await;
    assert_eq!(s.get(&master).await.body, before, "NIC unchanged");
    let joined = s
        .put_ok(
            &master,
            with_pools(json!([
                pool_of("kubernetes", "kubernetes"),
                pool_of("ilb-a", "pool")
            ])),
        )
        .await;
    assert_eq!(
        joined["properties"]["ipConfigurations"][0]["properties"]["loadBalancerBackendAddressPools"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

/// Load-balancing and inbound NAT rules share the per-LB limit of 1500.
#[tokio::test]
async fn load_balancer_holds_at_most_1500_rules() {
    let s = Session::small(&["--lro-polls", "0"]).await;
    let svc_pip = pip(&s, "svc-pip", "eastus", "Standard").await;
    let lb = s.id(&format!("{LB}/big-lb"));
    let names: Vec<String> = (0..1501).map(|i| format!("r{i}")).collect();
    let rules = |n: usize| -> Vec<(&str, &str, i64, i64)> {
        names[..n]
            .iter()
            .enumerate()
            .map(|(i, name)| (name.as_str(), "Tcp", 1000 + i as i64, 1000 + i as i64))
            .collect()
    };
    let with_nat = |lb_rules: usize, nat_rules: usize| {
        let mut body = lb_body(
            &s,
            "big-lb",
            "Standard",
            public_frontend(&svc_pip),
            &rules(lb_rules),
        );
        body["properties"]["inboundNatRules"] = (0..nat_rules)
            .map(|i| {
                json!({"name": format!("ssh-{i}"), "properties": {
                "frontendIPConfiguration": {"id": format!("{lb}/frontendIPConfigurations/fe")},
                "protocol": "Tcp", "frontendPort": 20000 + i, "backendPort": 22}})
            })
            .collect();
        body
    };
    for (lb_rules, nat_rules) in [(1501, 0), (1, 1500)] {
        s.refused(
            Method::PUT,
            &lb,
            Some(with_nat(lb_rules, nat_rules)),
            400,
            "LoadBalancerRulesLimitReached",
        )
        .await;
        assert_eq!(s.get(&lb).await.status, 404, "nothing created");
    }
    let full = s.put_ok(&lb, with_nat(1, 1499)).await;
    assert_eq!(
        full["properties"]["inboundNatRules"]
            .as_array()
            .unwrap()
            .len(),
        1499
    );
    assert_eq!(
        s.get(&svc_pip).await.body["properties"]["ipConfiguration"]["id"],
        format!("{lb}/frontendIPConfigurations/fe")
    );
}

/// Fact sheet 2.11 item 6: a VM's NICs cannot span two public LBs (NRP's exact code is unverified, so
/// only the status is asserted).
#[tokio::test]
async fn vm_nics_cannot_span_two_public_load_balancers() {
    let s = Session::small(&["--lro-polls", "0"]).await;
    let other_pip = pip(&s, "other-pip", "eastus", "Standard").await;
    s.put_ok(
        &s.id(&format!("{LB}/other-public")),
        lb_body(
            &s,
            "other-public",
            "Standard",
            public_frontend(&other_pip),
            &[],
        ),
    )
    .await;
    let mut nics = Vec::new();
    for (nic, lb, pool) in [
        ("nic-a", "kubernetes", "kubernetes"),
        ("nic-b", "other-public", "pool"),
    ] {
        let id = s.id(&format!("{NIC}/{nic}"));
        s.put_ok(
            &id,
            json!({"location": "eastus", "properties": {"ipConfigurations": [{"name": "ipconfig1", "properties": {
                "subnet": {"id": s.id(SUBNET)},
                "loadBalancerBackendAddressPools": [{"id": s.id(&format!("{LB}/{lb}/backendAddressPools/{pool}"))}]}}]}}),
        )
        .await;
        nics.push(id);
    }
    let vm = s.id("Microsoft.Compute/virtualMachines/two-nic-vm");
    let reply = s
        .send(
            Method::PUT,
            &vm,
            Some(json!({"location": "eastus", "properties": {
                "hardwareProfile": {"vmSize": "Standard_D2s_v3"},
                "networkProfile": {"networkInterfaces": [
                    {"id": nics[0], "properties": {"primary": true}},
                    {"id": nics[1], "properties": {"primary": false}}]}}})),
        )
        .await;
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(s.get(&vm).await.status, 404, "nothing created");

    // The same span reached from the other side: the VM holds both NICs, then one NIC moves into the second LB.
    let nic_b = json!({"location": "eastus", "properties": {"ipConfigurations": [{"name": "ipconfig1", "properties": {
        "subnet": {"id": s.id(SUBNET)}}}]}});
    s.put_ok(&nics[1], nic_b).await;
    s.put_ok(
        &vm,
        json!({"location": "eastus", "properties": {
            "hardwareProfile": {"vmSize": "Standard_D2s_v3"},
            "networkProfile": {"networkInterfaces": [
                {"id": nics[0], "properties": {"primary": true}},
                {"id": nics[1], "properties": {"primary": false}}]}}}),
    )
    .await;
    let joined = json!({"location": "eastus", "properties": {"ipConfigurations": [{"name": "ipconfig1", "properties": {
        "subnet": {"id": s.id(SUBNET)},
        "loadBalancerBackendAddressPools": [{"id": s.id(&format!("{LB}/other-public/backendAddressPools/pool"))}]}}]}});
    let reply = s.send(Method::PUT, &nics[1], Some(joined)).await;
    assert_eq!(reply.status, 400, "{}", reply.body);
    let stored = s.get(&nics[1]).await.body;
    assert!(
        stored
            .pointer("/properties/ipConfigurations/0/properties/loadBalancerBackendAddressPools")
            .is_none_or(|p| p.as_array().is_some_and(Vec::is_empty)),
        "the refused NIC PUT changed nothing: {stored}"
    );
}
