//! What the real server does to a Service update before validating it: keeps allocated values the
//! client left out, keeps clusterIP and clusterIPs in step, drops fields the new `type` no longer
//! uses (so LoadBalancer -> ClusterIP succeeds), and refuses changes to an assigned cluster IP.

use serde_json::{Value, json};

use crate::status::Cause;

/// The `type`, defaulted the way the server defaults it.
fn type_of(spec: &Value) -> &str {
    spec["type"].as_str().unwrap_or("ClusterIP")
}

/// Every type but ExternalName has a cluster IP (or `None`).
fn needs_cluster_ip(spec: &Value) -> bool {
    type_of(spec) != "ExternalName"
}

/// NodePort and LoadBalancer Services allocate node ports.
pub fn needs_node_port(spec: &Value) -> bool {
    matches!(type_of(spec), "NodePort" | "LoadBalancer")
}

/// LoadBalancer Services with `externalTrafficPolicy: Local` get a health check node port.
pub fn needs_health_check(spec: &Value) -> bool {
    type_of(spec) == "LoadBalancer" && spec["externalTrafficPolicy"] == "Local"
}

/// NodePort and LoadBalancer Services, and ClusterIP Services with external IPs.
pub fn externally_accessible(spec: &Value) -> bool {
    match type_of(spec) {
        "NodePort" | "LoadBalancer" => true,
        "ClusterIP" => spec["externalIPs"]
            .as_array()
            .is_some_and(|a| !a.is_empty()),
        _ => false,
    }
}

fn node_ports(spec: &Value) -> Vec<u64> {
    spec["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["nodePort"].as_u64())
        .filter(|n| *n != 0)
        .collect()
}

fn is_empty_field(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Number(n) => n.as_u64() == Some(0),
        _ => false,
    }
}

fn remove(spec: &mut Value, field: &str) {
    if let Some(m) = spec.as_object_mut() {
        m.remove(field);
    }
}

/// Runs every update step on `svc` (the object as the client sent or the patch produced) against
/// the stored `old`, in the real server's order.
pub fn prepare_update(svc: &mut Value, old: &Value) {
    let old_spec = &old["spec"];
    patch_allocated_values(&mut svc["spec"], old_spec);
    normalize_cluster_ips(&mut svc["spec"], old_spec);
    drop_type_dependent_fields(svc, old);
}

/// Updates that omit allocated values keep the old ones (what `kubectl apply`/replace rely on):
/// cluster IPs while both types use one, node ports (matched by port name, unless another port
/// already uses the old value) while both types use them, the health check port likewise.
fn patch_allocated_values(spec: &mut Value, old: &Value) {
    if needs_cluster_ip(old) && needs_cluster_ip(spec) {
        if is_empty_field(&spec["clusterIP"]) && !is_empty_field(&old["clusterIP"]) {
            spec["clusterIP"] = old["clusterIP"].clone();
        }
        if is_empty_field(&spec["clusterIPs"]) && !is_empty_field(&old["clusterIPs"]) {
            spec["clusterIPs"] = old["clusterIPs"].clone();
        }
    }
    if needs_node_port(old) && needs_node_port(spec) {
        let new_ports = node_ports(spec);
        let used: Vec<u64> = node_ports(old)
            .into_iter()
            .filter(|p| new_ports.contains(p))
            .collect();
        let old_ports = old["ports"].as_array().cloned().unwrap_or_default();
        for p in spec["ports"].as_array_mut().into_iter().flatten() {
            if p["nodePort"].as_u64().unwrap_or(0) != 0 {
                continue;
            }
            let name = p["name"].as_str().unwrap_or_default();
            let old_value = old_ports
                .iter()
                .find(|op| op["name"].as_str().unwrap_or_default() == name)
                .and_then(|op| op["nodePort"].as_u64())
                .filter(|n| *n != 0 && !used.contains(n));
            if let Some(n) = old_value {
                p["nodePort"] = json!(n);
            }
        }
    }
    if needs_health_check(old)
        && needs_health_check(spec)
        && is_empty_field(&spec["healthCheckNodePort"])
        && !is_empty_field(&old["healthCheckNodePort"])
    {
        spec["healthCheckNodePort"] = old["healthCheckNodePort"].clone();
    }
}

/// Keeps `clusterIPs` in step with `clusterIP` for clients that only know the singular field.
fn normalize_cluster_ips(spec: &mut Value, old: &Value) {
    if !is_empty_field(&old["clusterIPs"])
        && is_empty_field(&spec["clusterIPs"])
        && spec["clusterIP"] == old["clusterIP"]
    {
        spec["clusterIPs"] = old["clusterIPs"].clone();
    }
    if spec["clusterIP"] != old["clusterIP"] && spec["clusterIPs"] == old["clusterIPs"] {
        if is_empty_field(&spec["clusterIP"]) && !is_empty_field(&old["clusterIP"]) {
            remove(spec, "clusterIPs");
        } else if !is_empty_field(&spec["clusterIP"]) {
            spec["clusterIPs"] = json!([spec["clusterIP"]]);
        }
    }
}

/// Clears the fields the new type does not use, but only those the client left as they were
/// (a value the client changed is validated instead), and the load balancer status of a
/// Service that stops being a LoadBalancer.
fn drop_type_dependent_fields(svc: &mut Value, old: &Value) {
    let old_spec = &old["spec"];
    let spec = &mut svc["spec"];
    if needs_cluster_ip(old_spec) && !needs_cluster_ip(spec) {
        if spec["clusterIP"] == old_spec["clusterIP"]
            && spec["clusterIPs"] == old_spec["clusterIPs"]
        {
            remove(spec, "clusterIP");
            remove(spec, "clusterIPs");
        }
        for field in ["ipFamilies", "ipFamilyPolicy"] {
            if spec[field] == old_spec[field] {
                remove(spec, field);
            }
        }
    }
    let old_node_ports = node_ports(old_spec);
    if needs_node_port(old_spec)
        && !needs_node_port(spec)
        && node_ports(spec).iter().all(|p| old_node_ports.contains(p))
    {
        for p in spec["ports"].as_array_mut().into_iter().flatten() {
            remove(p, "nodePort");
        }
    }
    if needs_health_check(old_spec)
        && !needs_health_check(spec)
        && spec["healthCheckNodePort"] == old_spec["healthCheckNodePort"]
    {
        remove(spec, "healthCheckNodePort");
    }
    let leaves_load_balancer =
        type_of(old_spec) == "LoadBalancer" && type_of(spec) != "LoadBalancer";
    if leaves_load_balancer {
        for field in ["allocateLoadBalancerNodePorts", "loadBalancerClass"] {
            if spec[field] == old_spec[field] {
                remove(spec, field);
            }
        }
    }
    if externally_accessible(old_spec)
        && !externally_accessible(spec)
        && spec["externalTrafficPolicy"] == old_spec["externalTrafficPolicy"]
    {
        remove(spec, "externalTrafficPolicy");
    }
    // The main resource's update keeps the stored status; a status subresource write never
    // changes the type, so only a type change away from LoadBalancer lands here.
    if leaves_load_balancer && svc["status"].is_object() {
        svc["status"]["loadBalancer"] = json!({});
    }
}

/// An assigned cluster IP may not change, except to or from ExternalName (causes as the real
/// server words them).
pub fn validate_update(spec: &Value, old: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    if !needs_cluster_ip(spec) || !needs_cluster_ip(old) {
        return causes;
    }
    let ips = |s: &Value| -> Vec<String> {
        s["clusterIPs"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    let (new_ips, old_ips) = (ips(spec), ips(old));
    let headless = |v: &[String]| v.len() == 1 && v[0] == "None";
    if headless(&new_ips) && headless(&old_ips) {
        return causes;
    }
    let shown = format!(
        "[]string{{{}}}",
        new_ips
            .iter()
            .map(|ip| format!("{ip:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let changed = |i: usize| Cause {
        reason: "FieldValueInvalid".into(),
        message: format!("Invalid value: {shown}: may not change once set"),
        field: format!("spec.clusterIPs[{i}]"),
    };
    if new_ips.is_empty() && !old_ips.is_empty() {
        causes.push(Cause {
            reason: "FieldValueInvalid".into(),
            message: format!("Invalid value: {shown}: primary clusterIP can not be unset"),
            field: "spec.clusterIPs[0]".into(),
        });
    } else if new_ips.len() == old_ips.len() {
        for (i, ip) in old_ips.iter().enumerate() {
            if *ip != new_ips[i] {
                causes.push(changed(i));
            }
        }
    } else if let (Some(new0), Some(old0)) = (new_ips.first(), old_ips.first())
        && new0 != old0
    {
        causes.push(changed(0));
    }
    causes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lb_local() -> Value {
        json!({"spec": {"type": "LoadBalancer", "externalTrafficPolicy": "Local", "clusterIP": "10.0.0.5",
            "clusterIPs": ["10.0.0.5"], "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
            "allocateLoadBalancerNodePorts": true, "healthCheckNodePort": 30001,
            "ports": [{"name": "http", "port": 80, "protocol": "TCP", "nodePort": 30000}]},
            "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}})
    }

    #[test]
    fn leaving_load_balancer_drops_what_the_client_left_unchanged() {
        let old = lb_local();
        let mut new = old.clone();
        new["spec"]["type"] = json!("ClusterIP");
        prepare_update(&mut new, &old);
        let spec = &new["spec"];
        for gone in [
            "externalTrafficPolicy",
            "allocateLoadBalancerNodePorts",
            "healthCheckNodePort",
        ] {
            assert!(spec[gone].is_null(), "{gone} kept: {spec}");
        }
        assert!(spec["ports"][0]["nodePort"].is_null(), "{spec}");
        assert_eq!(spec["clusterIP"], "10.0.0.5");
        assert_eq!(new["status"]["loadBalancer"], json!({}));
    }

    #[test]
    fn a_new_node_port_on_a_cluster_ip_service_is_kept_for_validation() {
        let old = lb_local();
        let mut new = old.clone();
        new["spec"]["type"] = json!("ClusterIP");
        new["spec"]["ports"][0]["nodePort"] = json!(31999);
        prepare_update(&mut new, &old);
        assert_eq!(new["spec"]["ports"][0]["nodePort"], 31999);
    }

    #[test]
    fn to_external_name_clears_the_cluster_ip() {
        let old = lb_local();
        let mut new = old.clone();
        new["spec"]["type"] = json!("ExternalName");
        new["spec"]["externalName"] = json!("example.com");
        prepare_update(&mut new, &old);
        assert!(new["spec"]["clusterIP"].is_null() && new["spec"]["clusterIPs"].is_null());
        assert!(new["spec"]["ipFamilies"].is_null());
    }

    #[test]
    fn node_ports_are_carried_by_port_name() {
        let old = lb_local();
        let mut new =
            json!({"spec": {"type": "NodePort", "ports": [{"name": "http", "port": 8080}]}});
        prepare_update(&mut new, &old);
        assert_eq!(new["spec"]["ports"][0]["nodePort"], 30000);
        assert_eq!(new["spec"]["clusterIP"], "10.0.0.5");
    }

    #[test]
    fn changing_an_assigned_cluster_ip_is_refused() {
        let old = lb_local();
        let mut new = old.clone();
        new["spec"]["clusterIP"] = json!("10.0.0.9");
        prepare_update(&mut new, &old);
        let causes = validate_update(&new["spec"], &old["spec"]);
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "spec.clusterIPs[0]");
        assert_eq!(
            causes[0].message,
            "Invalid value: []string{\"10.0.0.9\"}: may not change once set"
        );
        let mut external = old.clone();
        external["spec"]["type"] = json!("ExternalName");
        external["spec"]["clusterIP"] = json!("");
        assert!(validate_update(&external["spec"], &old["spec"]).is_empty());
    }
}
