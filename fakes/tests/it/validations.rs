//! Server-side validations through the real binary over HTTPS: network security group rules (priority
//! range, per-direction uniqueness, port-range forms, singular/plural exclusivity) and the NSG and
//! route-table size limits. Every refusal is checked to leave the stored resource untouched.
//! Load balancer, NIC and reference checks are in `validations_lb`; deletes, provisioning states,
//! scale-set instances and operation conflicts in `validations_lifecycle`.

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::Session;

const NSG: &str = "Microsoft.Network/networkSecurityGroups";

/// An allow-TCP rule with singular prefixes and ports.
fn rule(name: &str, priority: i64, direction: &str, port: &str) -> Value {
    json!({"name": name, "properties": {"priority": priority, "direction": direction, "access": "Allow",
        "protocol": "Tcp", "sourceAddressPrefix": "*", "sourcePortRange": "*",
        "destinationAddressPrefix": "*", "destinationPortRange": port}})
}

fn nsg_body(rules: Vec<Value>) -> Value {
    json!({"location": "eastus", "properties": {"securityRules": rules}})
}

fn rule_names(nsg: &Value) -> Vec<&str> {
    nsg["properties"]["securityRules"]
        .as_array()
        .expect("securityRules")
        .iter()
        .map(|r| r["name"].as_str().expect("rule name"))
        .collect()
}

#[tokio::test]
async fn nsg_priority_must_be_100_to_4096() {
    let s = Session::small(&["--lro-polls", "0"]).await;
    let seeded = s.id(&format!("{NSG}/k8s-nsg"));
    let before = s.get(&seeded).await.body;
    for priority in [0, 99, 4097, 65000] {
        let error = s
            .refused(
                Method::PUT,
                &format!("{seeded}/securityRules/bad"),
                Some(rule("bad", priority, "Inbound", "80")),
                400,
                "SecurityRuleInvalidPriority",
            )
            .await;
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("Value provided: {priority}"))
                && message.contains("Allowed range 100-4096"),
            "{message}"
        );
    }
    assert_eq!(s.get(&seeded).await.body, before, "seeded NSG unchanged");
    assert_eq!(
        s.get(&format!("{seeded}/securityRules/bad")).await.status,
        404
    );

    let fresh = s.id(&format!("{NSG}/range-nsg"));
    s.refused(
        Method::PUT,
        &fresh,
        Some(nsg_body(vec![rule("too-high", 4097, "Inbound", "80")])),
        400,
        "SecurityRuleInvalidPriority",
    )
    .await;
    assert_eq!(s.get(&fresh).await.status, 404, "nothing created");

    let created = s
        .put_ok(
            &fresh,
            nsg_body(vec![
                rule("lowest", 100, "Inbound", "80"),
                rule("highest", 4096, "Inbound", "443"),
            ]),
        )
        .await;
    assert_eq!(
        rule_names(&created),
        ["lowest", "highest"],
        "bounds accepted"
    );
}

#[tokio::test]
async fn nsg_priority_is_unique_per_direction_only() {
    let s = Session::small(&["--lro-polls", "0"]).await;
    let fresh = s.id(&format!("{NSG}/conflict-nsg"));
    let error = s
        .refused(
            Method::PUT,
            &fresh,
            Some(nsg_body(vec![
                rule("first", 200, "Inbound", "80"),
                rule("second", 200, "Inbound", "443"),
            ])),
            400,
            "SecurityRuleConflict",
        )
        .await;
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "Security rule first conflicts with rule second. Rules cannot have the same Priority and Direction."
        ),
        "{message}"
    );
    assert_eq!(s.get(&fresh).await.status, 404, "nothing created");

    // Same priority in both directions is fine, in one body or rule by rule on the child endpoint.
    let both = s
        .put_ok(
            &fresh,
            nsg_body(vec![
                rule("in", 200, "Inbound", "80"),
                rule("out", 200, "Outbound", "80"),
            ]),
        )
        .await;
    assert_eq!(rule_names(&both), ["in", "out"]);

    let seeded = s.id(&format!("{NSG}/k8s-nsg"));
    s.put_ok(
        &format!("{seeded}/securityRules/allow-http"),
        rule("allow-http", 300, "Inbound", "80"),
    )
    .await;
    let before = s.get(&seeded).await.body;
    let error = s
        .refused(
            Method::PUT,
            &format!("{seeded}/securityRules/allow-https"),
            Some(rule("allow-https", 300, "Inbound", "443")),
            400,
            "SecurityRuleConflict",
        )
        .await;
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("allow-http") && message.contains("allow-https"),
        "names both rules: {message}"
    );
    assert_eq!(s.get(&seeded).await.body, before, "seeded NSG unchanged");
    assert_eq!(
        s.get(&format!("{seeded}/securityRules/allow-https"))
            .await
            .status,
        404
    );
    s.put_ok(
        &format!("{seeded}/securityRules/egress"),
        rule("egress", 300, "Outbound", "443"),
    )
    .await;
    let after = s.get(&seeded).await.body;
    assert_eq!(rule_names(&after), ["allow-http", "egress"]);
}

#[tokio::test]
async fn nsg_port_ranges_are_star_port_or_low_high() {
    let s = Session::small(&["--lro-polls", "0"]).await;
    let seeded = s.id(&format!("{NSG}/k8s-nsg"));
    let before = s.get(&seeded).await.body;
    for bad in ["65536", "10-5", "http", "1-2-3", "-1", "80-70000"] {
        let error = s
            .refused(
                Method::PUT,
                &format!("{seeded}/securityRules/bad"),
                Some(rule("bad", 500, "Inbound", bad)),
                400,
                "SecurityRuleInvalidPortRange",
            )
            .await;
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("Value provided: {bad}.")),
            "{message}"
        );
    }
    let mut plural = rule("bad", 500, "Inbound", "");
    let props = plural["properties"].as_object_mut().unwrap();
    props.remove("destinationPortRange");
    props.insert("destinationPortRanges".into(), json!(["80", "70000"]));
    s.refused(
        Method::PUT,
        &format!("{seeded}/securityRules/bad"),
        Some(plural),
        400,
        "SecurityRuleInvalidPortRange",
    )
    .await;
    assert_eq!(s.get(&seeded).await.body, before, "seeded NSG unchanged");

    let mut ranges = rule("ranges", 140, "Inbound", "");
    let props = ranges["properties"].as_object_mut().unwrap();
    props.remove("destinationPortRange");
    props.insert(
        "destinationPortRanges".into(),
        json!(["80", "443", "8000-8080"]),
    );
    let created = s
        .put_ok(
            &s.id(&format!("{NSG}/ports-nsg")),
            nsg_body(vec![
                rule("any", 100, "Inbound", "*"),
                rule("one", 110, "Inbound", "80"),
                rule("span", 120, "Inbound", "1000-2000"),
                rule("all", 130, "Inbound", "0-65535"),
                ranges,
            ]),
        )
        .await;
    let rules = created["properties"]["securityRules"].as_array().unwrap();
    assert_eq!(rules.len(), 5);
    assert_eq!(
        rules[0]["properties"]["destinationPortRanges"],
        json!([]),
        "singular form echoed with an empty plural"
    );
    assert_eq!(
        rules[4]["properties"]["destinationPortRanges"],
        json!(["80", "443", "8000-8080"])
    );
}

#[tokio::test]
async fn nsg_singular_and_plural_forms_are_exclusive() {
    let s = Session::small(&["--lro-polls", "0"]).await;
    let seeded = s.id(&format!("{NSG}/k8s-nsg"));
    let before = s.get(&seeded).await.body;
    let both = |single: &str, one: &str, plural: &str, many: Value| {
        let mut r = rule("both", 600, "Inbound", "80");
        r["properties"][single] = json!(one);
        r["properties"][plural] = many;
        r
    };
    for (body, mentions) in [
        (
            both(
                "destinationPortRange",
                "80",
                "destinationPortRanges",
                json!(["443"]),
            ),
            "cannot specify both destinationPortRange and destinationPortRanges",
        ),
        (
            both(
                "sourcePortRange",
                "*",
                "sourcePortRanges",
                json!(["1024-65535"]),
            ),
            "cannot specify both sourcePortRange and sourcePortRanges",
        ),
        (
            both(
                "sourceAddressPrefix",
                "10.0.0.0/8",
                "sourceAddressPrefixes",
                json!(["10.1.0.0/16"]),
            ),
            "cannot specify both sourceAddressPrefix and sourceAddressPrefixes",
        ),
        (
            both(
                "destinationAddressPrefix",
                "*",
                "destinationAddressPrefixes",
                json!(["10.2.0.0/16"]),
            ),
            "cannot specify both destinationAddressPrefix and destinationAddressPrefixes",
        ),
    ] {
        let error = s
            .refused(
                Method::PUT,
                &format!("{seeded}/securityRules/both"),
                Some(body),
                400,
                "SecurityRuleParameterContainsUnsupportedValue",
            )
            .await;
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(mentions), "{message}");
    }
    // Service tags and '*' exist only in the singular prefix field.
    let mut tag_in_plural = rule("tag", 600, "Inbound", "80");
    let props = tag_in_plural["properties"].as_object_mut().unwrap();
    props.remove("sourceAddressPrefix");
    props.insert(
        "sourceAddressPrefixes".into(),
        json!(["10.0.0.0/8", "Internet"]),
    );
    let error = s
        .refused(
            Method::PUT,
            &format!("{seeded}/securityRules/tag"),
            Some(tag_in_plural),
            400,
            "SecurityRuleParameterContainsUnsupportedValue",
        )
        .await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .ends_with("Unsupported value used: Internet."),
        "{error}"
    );
    assert_eq!(s.get(&seeded).await.body, before, "seeded NSG unchanged");

    let mut plural_only = rule("plural", 600, "Inbound", "80");
    let props = plural_only["properties"].as_object_mut().unwrap();
    props.remove("sourceAddressPrefix");
    props.insert(
        "sourceAddressPrefixes".into(),
        json!(["10.0.0.0/8", "192.168.0.0/16"]),
    );
    let accepted = s
        .put_ok(&format!("{seeded}/securityRules/plural"), plural_only)
        .await;
    assert_eq!(
        accepted["properties"]["sourceAddressPrefixes"],
        json!(["10.0.0.0/8", "192.168.0.0/16"])
    );
    assert!(accepted["properties"].get("sourceAddressPrefix").is_none());
}

#[tokio::test]
async fn nsg_holds_at_most_1000_rules() {
    let s = Session::small(&["--lro-polls", "0"]).await;
    let rules = |n: i64| -> Vec<Value> {
        (0..n)
            .map(|i| rule(&format!("r{i}"), 100 + i, "Inbound", "80"))
            .collect()
    };
    let nsg = s.id(&format!("{NSG}/big-nsg"));
    s.refused(
        Method::PUT,
        &nsg,
        Some(nsg_body(rules(1001))),
        400,
        "SecurityRulesLimitReached",
    )
    .await;
    assert_eq!(s.get(&nsg).await.status, 404, "nothing created");

    let full = s.put_ok(&nsg, nsg_body(rules(1000))).await;
    assert_eq!(rule_names(&full).len(), 1000);
    s.refused(
        Method::PUT,
        &format!("{nsg}/securityRules/one-more"),
        Some(rule("one-more", 2000, "Inbound", "80")),
        400,
        "SecurityRulesLimitReached",
    )
    .await;
    assert_eq!(s.get(&nsg).await.body, full, "full NSG unchanged");
}

#[tokio::test]
async fn route_table_holds_at_most_400_routes() {
    let s = Session::small(&["--lro-polls", "0"]).await;
    let routes = |n: usize| -> Vec<Value> {
        (0..n)
            .map(|i| {
                json!({"name": format!("node-{i}"), "properties": {
                    "addressPrefix": format!("10.{}.{}.0/24", 100 + i / 256, i % 256),
                    "nextHopType": "VirtualAppliance", "nextHopIpAddress": "10.224.0.4"}})
            })
            .collect()
    };
    let table = s.id("Microsoft.Network/routeTables/big-rt");
    let body = |n| json!({"location": "eastus", "properties": {"routes": routes(n)}});
    s.refused(
        Method::PUT,
        &table,
        Some(body(401)),
        400,
        "RouteTableRoutesLimitReached",
    )
    .await;
    assert_eq!(s.get(&table).await.status, 404, "nothing created");
    let full = s.put_ok(&table, body(400)).await;
    assert_eq!(full["properties"]["routes"].as_array().unwrap().len(), 400);
}
