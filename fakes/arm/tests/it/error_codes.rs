//! The NRP validations whose codes and wording were checked against public NRP answers (see the doc comments in
//! the crate): each test provokes one through the programmatic API and asserts code, status and the wording the
//! real answer carries.

use crate::Fake;
use fake_arm::{ArmConfig, ArmError, ArmState};
use serde_json::{Value, json};

fn state() -> ArmState {
    let s = ArmState::new(ArmConfig::default());
    s.put(&Fake::rg_path("rg"), json!({"location":"eastus"}))
        .unwrap();
    s.put(
        &Fake::net("rg", "virtualNetworks/vnet"),
        json!({"location":"eastus","properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16"]},"subnets":[
            {"name":"nodes","properties":{"addressPrefix":"10.0.0.0/24"}},
            {"name":"pls","properties":{"addressPrefix":"10.0.1.0/24","privateLinkServiceNetworkPolicies":"Disabled"}}]}}),
    )
    .unwrap();
    s
}

fn subnet(name: &str) -> String {
    Fake::net("rg", &format!("virtualNetworks/vnet/subnets/{name}"))
}

fn expect(r: Result<Value, ArmError>, code: &str, wording: &str) -> ArmError {
    let e = r.expect_err(code);
    assert_eq!(e.code(), code, "{}", e.message());
    assert_eq!(e.status().as_u16(), 400, "{code}");
    assert!(e.message().contains(wording), "{code}: {}", e.message());
    e
}

fn nic(ipc_props: Value) -> Value {
    json!({"location":"eastus","properties":{"ipConfigurations":[{"name":"ipc","properties":ipc_props}]}})
}

fn ilb(rules: Value, extra: Value) -> Value {
    let mut props = json!({"frontendIPConfigurations":[{"name":"fe","properties":{"subnet":{"id":subnet("nodes")}}}],
        "backendAddressPools":[{"name":"pool"}],"probes":[{"name":"p","properties":{"protocol":"Tcp","port":10256}}],
        "loadBalancingRules":rules});
    if let (Some(p), Some(e)) = (props.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    json!({"location":"eastus","sku":{"name":"Standard"},"properties":props})
}

fn rule(name: &str, port: u16, backend: u16, floating: bool) -> Value {
    let lb = Fake::net("rg", "loadBalancers/lb");
    json!({"name":name,"properties":{"protocol":"Tcp","frontendPort":port,"backendPort":backend,"enableFloatingIP":floating,
        "frontendIPConfiguration":{"id":format!("{lb}/frontendIPConfigurations/fe")},
        "backendAddressPool":{"id":format!("{lb}/backendAddressPools/pool")},
        "probe":{"id":format!("{lb}/probes/p")}}})
}

#[test]
fn private_ip_codes_match_nrp() {
    let s = state();
    let n = |name: &str| Fake::net("rg", &format!("networkInterfaces/{name}"));
    let stat = |ip: &str| json!({"subnet":{"id":subnet("nodes")},"privateIPAllocationMethod":"Static","privateIPAddress":ip});
    expect(
        s.put(&n("a"), nic(stat("10.0.5.10"))),
        "PrivateIPAddressNotInSubnet",
        "Private static IP address 10.0.5.10 does not belong to the range of subnet prefix 10.0.0.0/24.",
    );
    expect(
        s.put(&n("a"), nic(stat("10.0.0.1"))),
        "PrivateIPAddressInReservedRange",
        "Private static IP address 10.0.0.1 falls within reserved IP range of subnet prefix 10.0.0.0/24.",
    );
    s.put(&n("a"), nic(stat("10.0.0.10"))).unwrap();
    expect(
        s.put(&n("b"), nic(stat("10.0.0.10"))),
        "PrivateIPAddressIsAllocated",
        &format!(
            "is using the private IP address 10.0.0.10 which is already allocated to resource {}/ipConfigurations/ipc.",
            n("a")
        ),
    );
    // Dynamic allocation skips the taken address.
    let v = s
        .put(&n("b"), nic(json!({"subnet":{"id":subnet("nodes")}})))
        .unwrap();
    assert_eq!(
        v["properties"]["ipConfigurations"][0]["properties"]["privateIPAddress"],
        "10.0.0.4"
    );
}

#[test]
fn subnet_prefix_codes_match_nrp() {
    let s = state();
    let vnet = Fake::net("rg", "virtualNetworks/vnet");
    let with = |extra: Value| {
        json!({"location":"eastus","properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16"]},"subnets":[
        {"name":"nodes","properties":{"addressPrefix":"10.0.0.0/24"}}, extra]}})
    };
    expect(
        s.put(
            &vnet,
            with(json!({"name":"x","properties":{"addressPrefix":"10.0.0.128/25"}})),
        ),
        "NetcfgSubnetRangesOverlap",
        "Subnet 'x' is not valid because its IP address range overlaps with that of an existing subnet in virtual network 'vnet'.",
    );
    expect(
        s.put(
            &vnet,
            with(json!({"name":"x","properties":{"addressPrefix":"10.9.0.0/24"}})),
        ),
        "NetcfgSubnetRangeOutsideVnet",
        "Subnet 'x' is not valid because its IP address range is outside the IP address range of virtual network 'vnet'.",
    );
    expect(
        s.put(
            &vnet,
            with(json!({"name":"x","properties":{"addressPrefix":"10.0.3.5/24"}})),
        ),
        "InvalidCIDRNotation",
        "should be 10.0.3.0/24",
    );
}

#[test]
fn load_balancer_codes_match_nrp() {
    let s = state();
    let lb = Fake::net("rg", "loadBalancers/lb");
    expect(
        s.put(
            &lb,
            ilb(
                json!([rule("a", 80, 8080, false), rule("b", 81, 8080, false)]),
                json!({}),
            ),
        ),
        "RulesUseSameBackendPortProtocolAndPool",
        "with floating IP disabled use the same protocol Tcp and backend port 8080, and must not be used with the same backend address pool",
    );
    // Floating IP on either rule lifts the restriction.
    s.put(
        &lb,
        ilb(
            json!([rule("a", 80, 8080, true), rule("b", 81, 8080, false)]),
            json!({}),
        ),
    )
    .unwrap();
    expect(
        s.put(&lb, json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"backendAddressPools":[{"name":"pool"}]}})),
        "LoadBalancerWithoutFrontendIPCantHaveChildResources",
        "does not have Frontend IP Configuration, but it has other child resources. This setup is not supported.",
    );
    expect(
        s.put(&lb, json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"frontendIPConfigurations":[{"name":"fe"}]}})),
        "FrontendIPConfigHasNoSubnetOrPublicIP",
        "/frontendIPConfigurations/fe must reference either a Subnet or a Public IP Address.",
    );
    let outbound = json!({"outboundRules":[{"name":"o","properties":{"protocol":"All","frontendIPConfigurations":[{"id":format!("{lb}/frontendIPConfigurations/fe")}],
        "backendAddressPool":{"id":format!("{lb}/backendAddressPools/pool")}}}]});
    expect(
        s.put(&lb, ilb(json!([rule("a", 80, 80, true)]), outbound.clone())),
        "LoadBalancingRuleMustDisableSNATSinceSameFrontendIPConfigurationIsReferencedByOutboundRule",
        "disableOutboundSnat",
    );
    let mut ok = rule("a", 80, 80, true);
    ok["properties"]["disableOutboundSnat"] = json!(true);
    s.put(&lb, ilb(json!([ok]), outbound)).unwrap();
}

#[test]
fn public_ip_codes_match_nrp() {
    let s = state();
    let pip = Fake::net("rg", "publicIPAddresses/pip");
    expect(
        s.put(&pip, json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"publicIPAllocationMethod":"Dynamic"}})),
        "StandardAndStandardV2SkuPublicIPAddressesMustBeStatic",
        &format!("Standard sku publicIp {pip} must have AllocationMethod set to Static."),
    );
    s.put(&pip, json!({"location":"eastus","sku":{"name":"Standard"}}))
        .unwrap();
    let lb = Fake::net("rg", "loadBalancers/lb");
    let fe = |n: &str| json!({"name":n,"properties":{"publicIPAddress":{"id":pip}}});
    expect(
        s.put(&lb, json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"frontendIPConfigurations":[fe("a"),fe("b")]}})),
        "PublicIPReferencedByMultipleIPConfigs",
        &format!("Public ip address {pip} is referenced by multiple ipconfigs in resource {lb}."),
    );
}

#[test]
fn in_use_codes_match_nrp() {
    let s = state();
    // Route table: the message names only the table.
    let rt = Fake::net("rg", "routeTables/rt");
    s.put(&rt, json!({"location":"eastus"})).unwrap();
    s.put(
        &subnet("nodes"),
        json!({"properties":{"addressPrefix":"10.0.0.0/24","routeTable":{"id":rt}}}),
    )
    .unwrap();
    let e = s.delete(&rt).unwrap_err();
    assert_eq!(
        (e.code(), e.message()),
        (
            "InUseRouteTableCannotBeDeleted",
            "Route table rt is in use and cannot be deleted."
        )
    );
    // NSG used by a scale-set model.
    let nsg = Fake::net("rg", "networkSecurityGroups/nsg");
    s.put(&nsg, json!({"location":"eastus"})).unwrap();
    let vmss = Fake::cmp("rg", "virtualMachineScaleSets/ss");
    s.put(&vmss, json!({"location":"eastus","sku":{"name":"Standard_D2s_v3","capacity":1},"properties":{"virtualMachineProfile":{"networkProfile":{"networkInterfaceConfigurations":[
        {"name":"nic","properties":{"primary":true,"networkSecurityGroup":{"id":nsg},"ipConfigurations":[{"name":"ipc","properties":{"subnet":{"id":subnet("nodes")}}}]}}]}}}})).unwrap();
    let e = s.delete(&nsg).unwrap_err();
    assert_eq!(
        e.code(),
        "NetworkSecurityGroupInUseByVirtualMachineScaleSet"
    );
    assert_eq!(
        e.message(),
        format!(
            "Cannot delete network security group {nsg} since it is in use by virtual machine scale set {vmss}."
        )
    );
    // Load balancer whose frontend a private link service uses.
    let lb = Fake::net("rg", "loadBalancers/lb");
    s.put(&lb, ilb(json!([]), json!({}))).unwrap();
    let pls = Fake::net("rg", "privateLinkServices/pls");
    let pls_body = |sub: &str| {
        json!({"location":"eastus","properties":{"loadBalancerFrontendIpConfigurations":[{"id":format!("{lb}/frontendIPConfigurations/fe")}],
        "ipConfigurations":[{"name":"nat","properties":{"subnet":{"id":subnet(sub)}}}]}})
    };
    expect(
        s.put(&pls, pls_body("nodes")),
        "PrivateLinkServiceCannotBeCreatedInSubnetThatHasNetworkPoliciesEnabled",
        &format!(
            "Private link service {pls} cannot be created in a subnet {} since it has private link service network policies enabled.",
            subnet("nodes")
        ),
    );
    s.put(&pls, pls_body("pls")).unwrap();
    let e = s.delete(&lb).unwrap_err();
    assert_eq!(e.code(), "CannotDeleteLoadBalancerWithPrivateLinkService");
    assert_eq!(
        e.message(),
        format!(
            "Cannot delete load balancer {lb} since it is referenced by private link service {pls}. Please delete private link service prior to deleting load balancer."
        )
    );
    let e = s
        .put(&subnet("pls"), json!({"properties":{"addressPrefix":"10.0.1.0/24","privateLinkServiceNetworkPolicies":"Enabled"}}))
        .unwrap_err();
    assert_eq!(
        e.code(),
        "PrivateLinkServiceNetworkPoliciesCannotBeEnabledOnPrivateLinkServiceSubnet"
    );
    s.delete(&pls).unwrap();
    s.delete(&lb).unwrap();
}

#[test]
fn nic_in_two_internal_load_balancers_is_rejected() {
    let s = state();
    for name in ["a", "b"] {
        let mut body = ilb(json!([]), json!({}));
        body["properties"]["frontendIPConfigurations"][0]["properties"]["privateIPAddress"] =
            json!(null);
        s.put(&Fake::net("rg", &format!("loadBalancers/{name}")), body)
            .unwrap();
    }
    let pool = |lb: &str| json!({"id": Fake::net("rg", &format!("loadBalancers/{lb}/backendAddressPools/pool"))});
    let e = s
        .put(
            &Fake::net("rg", "networkInterfaces/n"),
            nic(json!({"subnet":{"id":subnet("nodes")},"loadBalancerBackendAddressPools":[pool("a"), pool("b")]})),
        )
        .unwrap_err();
    assert_eq!(e.code(), "AnotherInternalLoadBalancerExists");
}

/// A public Standard LB `name` with one pool, one probe and the given rules (built with `rule_on`).
fn public_lb(s: &ArmState, name: &str, rules: Value) {
    let pip = Fake::net("rg", &format!("publicIPAddresses/{name}-pip"));
    s.put(&pip, json!({"location":"eastus","sku":{"name":"Standard"}}))
        .unwrap();
    s.put(
        &Fake::net("rg", &format!("loadBalancers/{name}")),
        json!({"location":"eastus","sku":{"name":"Standard"},"properties":{
            "frontendIPConfigurations":[{"name":"fe","properties":{"publicIPAddress":{"id":pip}}}],
            "backendAddressPools":[{"name":"pool"}],"probes":[{"name":"p","properties":{"protocol":"Tcp","port":10256}}],
            "loadBalancingRules":rules}}),
    )
    .unwrap();
}

fn rule_on(lb: &str, name: &str, backend: u16, floating: bool) -> Value {
    let mut r = rule(name, backend, backend, floating);
    let lb_id = Fake::net("rg", &format!("loadBalancers/{lb}"));
    let p = &mut r["properties"];
    p["frontendIPConfiguration"]["id"] = json!(format!("{lb_id}/frontendIPConfigurations/fe"));
    p["backendAddressPool"]["id"] = json!(format!("{lb_id}/backendAddressPools/pool"));
    p["probe"]["id"] = json!(format!("{lb_id}/probes/p"));
    r
}

fn pool_of(lb: &str) -> Value {
    json!({"id": Fake::net("rg", &format!("loadBalancers/{lb}/backendAddressPools/pool"))})
}

#[test]
fn rules_of_two_public_lbs_on_one_ipconfig_conflict() {
    let s = state();
    public_lb(&s, "a", json!([rule_on("a", "web", 8080, false)]));
    public_lb(&s, "b", json!([rule_on("b", "web", 8080, false)]));
    let n = Fake::net("rg", "networkInterfaces/n");
    let ipc = format!("{n}/ipConfigurations/ipc");
    let e = expect(
        s.put(
            &n,
            nic(json!({"subnet":{"id":subnet("nodes")},"loadBalancerBackendAddressPools":[pool_of("a"), pool_of("b")]})),
        ),
        "RulesOfSameLoadBalancerTypeUseSameBackendPortProtocolAndIPConfig",
        "with floating IP disabled use the same backend port 8080 and protocol Tcp, and must not be used with the same backend IP",
    );
    assert_eq!(
        e.message(),
        format!(
            "Load balancer rules {} and {} with floating IP disabled use the same backend port 8080 and protocol Tcp, and must not be used with the same backend IP {ipc}.",
            Fake::net("rg", "loadBalancers/a/loadBalancingRules/web"),
            Fake::net("rg", "loadBalancers/b/loadBalancingRules/web")
        )
    );
    // Without a colliding rule the NIC still may not join two public LBs.
    public_lb(&s, "b", json!([rule_on("b", "web", 9090, false)]));
    let e = expect(
        s.put(
            &n,
            nic(json!({"subnet":{"id":subnet("nodes")},"loadBalancerBackendAddressPools":[pool_of("a"), pool_of("b")]})),
        ),
        "NetworkInterfaceUsesMultipleLoadBalancersOfSameType",
        "references more than one load balancer of the same type (internal or public): ",
    );
    assert!(
        e.message().ends_with(&format!(
            "{}, {}.",
            Fake::net("rg", "loadBalancers/a"),
            Fake::net("rg", "loadBalancers/b")
        )),
        "{}",
        e.message()
    );
    // Floating IP lifts the port conflict (the LB-count rule still applies).
    public_lb(&s, "b", json!([rule_on("b", "web", 8080, true)]));
    expect(
        s.put(
            &n,
            nic(json!({"subnet":{"id":subnet("nodes")},"loadBalancerBackendAddressPools":[pool_of("a"), pool_of("b")]})),
        ),
        "NetworkInterfaceUsesMultipleLoadBalancersOfSameType",
        "(internal or public)",
    );
}

#[test]
fn internal_and_public_lbs_may_share_a_backend_port() {
    let s = state();
    public_lb(&s, "pub", json!([rule_on("pub", "web", 8080, false)]));
    let mut ilb_body = ilb(json!([rule("web", 8080, 8080, false)]), json!({}));
    ilb_body["properties"]["frontendIPConfigurations"][0]["properties"]["privateIPAddress"] =
        json!(null);
    s.put(&Fake::net("rg", "loadBalancers/lb"), ilb_body)
        .unwrap();
    s.put(
        &Fake::net("rg", "networkInterfaces/n"),
        nic(json!({"subnet":{"id":subnet("nodes")},"loadBalancerBackendAddressPools":[pool_of("pub"), pool_of("lb")]})),
    )
    .unwrap();
}

#[test]
fn nat_rules_of_one_lb_on_one_ipconfig_conflict() {
    let s = state();
    let pip = Fake::net("rg", "publicIPAddresses/pip");
    s.put(&pip, json!({"location":"eastus","sku":{"name":"Standard"}}))
        .unwrap();
    let lb = Fake::net("rg", "loadBalancers/lb");
    let nat = |name: &str, front: u16| {
        json!({"name":name,"properties":{"protocol":"Tcp","frontendPort":front,"backendPort":3389,
            "frontendIPConfiguration":{"id":format!("{lb}/frontendIPConfigurations/fe")}}})
    };
    s.put(
        &lb,
        json!({"location":"eastus","sku":{"name":"Standard"},"properties":{
        "frontendIPConfigurations":[{"name":"fe","properties":{"publicIPAddress":{"id":pip}}}],
        "inboundNatRules":[nat("rdp0", 50001), nat("rdp1", 50002)]}}),
    )
    .unwrap();
    let n = Fake::net("rg", "networkInterfaces/n");
    expect(
        s.put(
            &n,
            nic(json!({"subnet":{"id":subnet("nodes")},"loadBalancerInboundNatRules":[
                {"id":format!("{lb}/inboundNatRules/rdp0")},{"id":format!("{lb}/inboundNatRules/rdp1")}]})),
        ),
        "RulesUseSameBackendPortProtocolAndIPConfig",
        &format!(
            "Load balancer rules {lb}/inboundNatRules/rdp0 and {lb}/inboundNatRules/rdp1 with floating IP disabled use the same backend port 3389 and protocol Tcp, and must not be used with the same backend IP {n}/ipConfigurations/ipc."
        ),
    );
}

#[test]
fn outbound_rules_may_not_share_a_frontend_and_protocol() {
    let s = state();
    let lb = Fake::net("rg", "loadBalancers/lb");
    let out = |name: &str, proto: &str| {
        json!({"name":name,"properties":{"protocol":proto,"frontendIPConfigurations":[{"id":format!("{lb}/frontendIPConfigurations/fe")}],
            "backendAddressPool":{"id":format!("{lb}/backendAddressPools/pool")}}})
    };
    expect(
        s.put(
            &lb,
            ilb(
                json!([]),
                json!({"outboundRules":[out("o1", "Tcp"), out("o2", "All")]}),
            ),
        ),
        "MoreThanOneOutboundRuleUsingSameFrontendIPConfigurationAndProtocolIsNotSupported",
        &format!(
            "Is is not supported to have more than a single outbound rule using frontendIPConfiguration {lb}/frontendIPConfigurations/fe with same or overlapping protocol. This frontendIPConfiguration is used by the following outbound rules: {lb}/outboundRules/o1,{lb}/outboundRules/o2"
        ),
    );
    // Disjoint protocols may share the frontend.
    s.put(
        &lb,
        ilb(
            json!([]),
            json!({"outboundRules":[out("o1", "Tcp"), out("o2", "Udp")]}),
        ),
    )
    .unwrap();
}

#[test]
fn frontend_with_both_subnet_and_public_ip_is_rejected() {
    let s = state();
    let pip = Fake::net("rg", "publicIPAddresses/pip");
    s.put(&pip, json!({"location":"eastus","sku":{"name":"Standard"}}))
        .unwrap();
    let lb = Fake::net("rg", "loadBalancers/lb");
    expect(
        s.put(&lb, json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"frontendIPConfigurations":[
            {"name":"fe","properties":{"publicIPAddress":{"id":pip},"subnet":{"id":subnet("nodes")}}}]}})),
        "FrontendIPConfigHasBothSubnetAndPublicIP",
        &format!(
            "Frontend IP Configuration {lb}/frontendIPConfigurations/fe must not reference both a Subnet and a Public IP Address."
        ),
    );
}
