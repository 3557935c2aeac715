//! Dual-stack subnets: IPv6 ipconfigs get private addresses from the subnet's IPv6 prefix, with the same
//! reservation, conflict and static-address rules as IPv4, and both ipconfigs show in the subnet's back-references.

use crate::{Fake, NET};
use fake_arm::ArmConfig;
use serde_json::{Value, json};

fn ipconfig(name: &str, version: &str, primary: bool, subnet: &str) -> Value {
    json!({"name": name, "properties": {"primary": primary, "privateIPAddressVersion": version, "subnet": {"id": subnet}}})
}

fn nic(ipcs: Vec<Value>) -> Value {
    json!({"location": "eastus", "properties": {"ipConfigurations": ipcs}})
}

fn code(r: Result<Value, fake_arm::ArmError>) -> String {
    match r {
        Ok(v) => panic!("expected an error, got {v}"),
        Err(e) => e.code().to_string(),
    }
}

#[tokio::test]
async fn ipv6_ipconfigs_allocate_from_the_ipv6_prefix() {
    let f = Fake::start(ArmConfig {
        lro_polls_in_progress: 0,
        ..ArmConfig::default()
    })
    .await;
    f.state
        .put(&Fake::rg_path("rg"), json!({"location": "eastus"}))
        .unwrap();
    let vnet = Fake::net("rg", "virtualNetworks/vnet");
    f.state
        .put(
            &vnet,
            json!({"location": "eastus", "properties": {
                "addressSpace": {"addressPrefixes": ["10.0.0.0/16", "fd00:db8::/48"]},
                "subnets": [
                    {"name": "dual", "properties": {"addressPrefixes": ["10.0.0.0/24", "fd00:db8:0:1::/64"]}},
                    {"name": "v4only", "properties": {"addressPrefix": "10.0.1.0/24"}}]}}),
        )
        .unwrap();
    let dual = format!("{vnet}/subnets/dual");
    let a = f
        .state
        .put(
            &Fake::net("rg", "networkInterfaces/a"),
            nic(vec![
                ipconfig("ipconfig1", "IPv4", true, &dual),
                ipconfig("ipconfigv6", "IPv6", false, &dual),
            ]),
        )
        .unwrap();
    let addresses: Vec<&str> = a["properties"]["ipConfigurations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["properties"]["privateIPAddress"].as_str().unwrap())
        .collect();
    assert_eq!(addresses, ["10.0.0.4", "fd00:db8:0:1::4"]);
    // The next dynamic IPv6 address skips the one in use.
    let b = f
        .state
        .put(
            &Fake::net("rg", "networkInterfaces/b"),
            nic(vec![
                ipconfig("ipconfig1", "IPv4", true, &dual),
                ipconfig("ipconfigv6", "IPv6", false, &dual),
            ]),
        )
        .unwrap();
    assert_eq!(
        b["properties"]["ipConfigurations"][1]["properties"]["privateIPAddress"],
        "fd00:db8:0:1::5"
    );

    // Static IPv6 addresses follow the IPv4 rules.
    let static_v6 = |addr: &str| {
        let mut v6 = ipconfig("ipconfigv6", "IPv6", false, &dual);
        v6["properties"]["privateIPAllocationMethod"] = json!("Static");
        v6["properties"]["privateIPAddress"] = json!(addr);
        nic(vec![ipconfig("ipconfig1", "IPv4", true, &dual), v6])
    };
    let c = Fake::net("rg", "networkInterfaces/c");
    for (addr, want) in [
        ("fd00:db8:0:1::4", "PrivateIPAddressIsAllocated"),
        ("fd00:db8:0:1::3", "PrivateIPAddressInReservedRange"),
        ("fd00:db8:0:2::4", "PrivateIPAddressNotInSubnet"),
        ("10.0.0.9", "InvalidPrivateIPAddress"),
    ] {
        assert_eq!(code(f.state.put(&c, static_v6(addr))), want, "{addr}");
    }
    let made = f.state.put(&c, static_v6("fd00:db8:0:1::ff")).unwrap();
    assert_eq!(
        made["properties"]["ipConfigurations"][1]["properties"]["privateIPAddress"],
        "fd00:db8:0:1::ff"
    );
    // An IPv6 ipconfig needs an IPv6 prefix on its subnet.
    let v4only = format!("{vnet}/subnets/v4only");
    assert_eq!(
        code(f.state.put(
            &Fake::net("rg", "networkInterfaces/d"),
            nic(vec![
                ipconfig("ipconfig1", "IPv4", true, &v4only),
                ipconfig("ipconfigv6", "IPv6", false, &v4only),
            ]),
        )),
        "SubnetMissingIPv6AddressPrefix"
    );

    // Deleting a NIC frees its IPv6 address for the next dynamic allocation.
    f.state
        .delete(&Fake::net("rg", "networkInterfaces/a"))
        .unwrap();
    let e = f
        .state
        .put(
            &Fake::net("rg", "networkInterfaces/e"),
            nic(vec![
                ipconfig("ipconfig1", "IPv4", true, &dual),
                ipconfig("ipconfigv6", "IPv6", false, &dual),
            ]),
        )
        .unwrap();
    assert_eq!(
        e["properties"]["ipConfigurations"][1]["properties"]["privateIPAddress"],
        "fd00:db8:0:1::4"
    );

    // The subnet lists both ipconfigs of each NIC, over HTTPS too.
    let (s, v) = f.get(&dual, NET).await;
    assert_eq!(s, 200, "{v}");
    let users: Vec<&str> = v["properties"]["ipConfigurations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            c["id"]
                .as_str()
                .unwrap()
                .rsplit("networkInterfaces/")
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(
        users,
        [
            "b/ipConfigurations/ipconfig1",
            "b/ipConfigurations/ipconfigv6",
            "c/ipConfigurations/ipconfig1",
            "c/ipConfigurations/ipconfigv6",
            "e/ipConfigurations/ipconfig1",
            "e/ipConfigurations/ipconfigv6"
        ]
    );
}
