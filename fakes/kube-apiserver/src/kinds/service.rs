//! Service defaulting, validation and allocation as the real API server does it on create and
//! update: type, protocols, targetPort, sessionAffinity, traffic policies, IP families, cluster
//! IPs, node ports and the health check node port.

use std::net::Ipv4Addr;

use serde_json::{Value, json};

use super::service_alloc::{Claims, NODE_PORT_MAX, NODE_PORT_MIN, ServiceAllocations};
use super::service_update::{self, externally_accessible, needs_health_check, needs_node_port};
use super::set_default;
use crate::status::{Cause, forbidden, invalid_value, not_supported, required};
use crate::store::ObjectKey;

/// Defaults, validates and allocates for a Service being created (`old = None`) or updated.
pub fn prepare(
    alloc: &mut ServiceAllocations,
    key: &ObjectKey,
    svc: &mut Value,
    old: Option<&Value>,
) -> Result<(), Vec<Cause>> {
    if !svc["spec"].is_object() {
        svc["spec"] = json!({});
    }
    if let Some(old) = old {
        service_update::prepare_update(svc, old);
    }
    apply_defaults(&mut svc["spec"]);
    default_ip_mode(svc);
    let mut causes = validate(&svc["spec"]);
    if let Some(old) = old {
        causes.extend(service_update::validate_update(&svc["spec"], &old["spec"]));
    }
    if !causes.is_empty() {
        return Err(causes);
    }
    let claims = allocate(alloc, key, &mut svc["spec"])?;
    alloc.set(key, claims);
    Ok(())
}

/// `status.loadBalancer.ingress[].ipMode` defaults to `VIP` for an entry with an `ip` on a
/// LoadBalancer Service (`SetDefaults_Service` in pkg/apis/core/v1/defaults.go, behind the
/// `LoadBalancerIPMode` gate, on by default since 1.30).
fn default_ip_mode(svc: &mut Value) {
    if svc["spec"]["type"] != "LoadBalancer" {
        return;
    }
    let Some(ingress) = svc["status"]["loadBalancer"]["ingress"].as_array_mut() else {
        return;
    };
    for entry in ingress {
        if entry["ip"].as_str().is_some_and(|ip| !ip.is_empty()) {
            set_default(entry, "ipMode", json!("VIP"));
        }
    }
}

fn apply_defaults(spec: &mut Value) {
    set_default(spec, "type", json!("ClusterIP"));
    let ty = spec["type"].as_str().unwrap_or("ClusterIP").to_string();
    if ty == "ExternalName" {
        return;
    }
    set_default(spec, "sessionAffinity", json!("None"));
    set_default(spec, "internalTrafficPolicy", json!("Cluster"));
    if needs_node_port(spec) {
        set_default(spec, "externalTrafficPolicy", json!("Cluster"));
    }
    if ty == "LoadBalancer" {
        set_default(spec, "allocateLoadBalancerNodePorts", json!(true));
    }
    if let Some(ports) = spec["ports"].as_array_mut() {
        for p in ports {
            set_default(p, "protocol", json!("TCP"));
            if p["targetPort"].is_null() {
                p["targetPort"] = p["port"].clone();
            }
        }
    }
}

fn validate(spec: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let ty = spec["type"].as_str().unwrap_or_default();
    let types = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
    if !types.contains(&ty) {
        causes.push(not_supported("spec.type", ty, &types));
        return causes;
    }
    let ports = spec["ports"].as_array().cloned().unwrap_or_default();
    if ty != "ExternalName" && ports.is_empty() && spec["clusterIP"] != "None" {
        causes.push(required("spec.ports"));
    }
    for (i, p) in ports.iter().enumerate() {
        let port = p["port"].as_u64().unwrap_or(0);
        if !(1..=65535).contains(&port) {
            causes.push(invalid_value(
                format!("spec.ports[{i}].port"),
                &p["port"],
                "must be between 1 and 65535, inclusive",
            ));
        }
        let proto = p["protocol"].as_str().unwrap_or_default();
        let protocols = ["SCTP", "TCP", "UDP"];
        if !protocols.contains(&proto) {
            causes.push(not_supported(
                format!("spec.ports[{i}].protocol"),
                proto,
                &protocols,
            ));
        }
        if ports.len() > 1 && p["name"].as_str().unwrap_or_default().is_empty() {
            causes.push(required(format!("spec.ports[{i}].name")));
        }
        let node_port = p["nodePort"].as_u64().unwrap_or(0);
        if node_port != 0 && ty == "ClusterIP" {
            causes.push(forbidden(
                format!("spec.ports[{i}].nodePort"),
                "may not be used when `type` is 'ClusterIP'",
            ));
        }
        if node_port != 0
            && !(u64::from(NODE_PORT_MIN)..=u64::from(NODE_PORT_MAX)).contains(&node_port)
        {
            causes.push(invalid_value(
                format!("spec.ports[{i}].nodePort"),
                &p["nodePort"],
                &format!("provided port is not in the valid range. The range of valid ports is {NODE_PORT_MIN}-{NODE_PORT_MAX}"),
            ));
        }
    }
    causes.extend(validate_type_dependent(spec, ty));
    causes
}

/// Fields only some types may carry (what an update that changes the type must drop).
fn validate_type_dependent(spec: &Value, ty: &str) -> Vec<Cause> {
    let mut causes = Vec::new();
    let policy = &spec["externalTrafficPolicy"];
    if !externally_accessible(spec) {
        if !policy.is_null() {
            causes.push(invalid_value(
                "spec.externalTrafficPolicy",
                policy,
                "may only be set for externally-accessible services",
            ));
        }
    } else if let Some(policy) = policy.as_str()
        && !["Cluster", "Local"].contains(&policy)
    {
        causes.push(not_supported(
            "spec.externalTrafficPolicy",
            policy,
            &["Cluster", "Local"],
        ));
    }
    let health_check = &spec["healthCheckNodePort"];
    if !needs_health_check(spec) && health_check.as_u64().unwrap_or(0) != 0 {
        causes.push(invalid_value(
            "spec.healthCheckNodePort",
            health_check,
            "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
        ));
    }
    if ty != "LoadBalancer" {
        for field in ["allocateLoadBalancerNodePorts", "loadBalancerClass"] {
            if !spec[field].is_null() {
                causes.push(forbidden(
                    format!("spec.{field}"),
                    "may only be used when `type` is 'LoadBalancer'",
                ));
            }
        }
    }
    causes
}

fn allocate(
    alloc: &ServiceAllocations,
    key: &ObjectKey,
    spec: &mut Value,
) -> Result<Claims, Vec<Cause>> {
    let ty = spec["type"].as_str().unwrap_or_default().to_string();
    let mut claims = Claims::default();
    let mut causes = Vec::new();
    if ty == "ExternalName" {
        return Ok(claims);
    }
    match spec["clusterIP"].as_str().unwrap_or_default() {
        "None" => {
            spec["clusterIPs"] = json!(["None"]);
        }
        "" => match alloc.next_ip(&[]) {
            Some(ip) => {
                spec["clusterIP"] = json!(ip.to_string());
                spec["clusterIPs"] = json!([ip.to_string()]);
                claims.ips.push(ip);
            }
            None => causes.push(Cause { reason: "FieldValueInvalid".into(), message: "failed to allocate a serviceIP: range is full".into(), field: "spec.clusterIPs".into() }),
        },
        text => match text.parse::<Ipv4Addr>() {
            Ok(ip) if !alloc.cidr.contains(ip) => causes.push(invalid_value(
                "spec.clusterIPs",
                &json!([text]),
                &format!("failed to allocate IP {ip}: the provided IP ({ip}) is not in the valid range. The range of valid IPs is {}", alloc.cidr),
            )),
            Ok(ip) if alloc.ip_taken(ip, key) => causes.push(invalid_value(
                "spec.clusterIPs",
                &json!([text]),
                &format!("failed to allocate IP {ip}: provided IP is already allocated"),
            )),
            Ok(ip) => {
                spec["clusterIPs"] = json!([ip.to_string()]);
                claims.ips.push(ip);
            }
            Err(_) => causes.push(invalid_value("spec.clusterIP", &json!(text), "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")),
        },
    }
    set_default(spec, "ipFamilies", json!(["IPv4"]));
    set_default(spec, "ipFamilyPolicy", json!("SingleStack"));
    let wants_node_ports = ty == "NodePort"
        || (ty == "LoadBalancer" && spec["allocateLoadBalancerNodePorts"] != json!(false));
    if let Some(ports) = spec["ports"].as_array_mut() {
        for (i, p) in ports.iter_mut().enumerate() {
            let given = chosen_port(&p["nodePort"]);
            if given != 0 {
                let field = format!("spec.ports[{i}].nodePort");
                causes.extend(claim_chosen_port(alloc, key, &mut claims, given, field));
            } else if wants_node_ports {
                match alloc.next_port(&claims.ports) {
                    Some(port) => {
                        p["nodePort"] = json!(port);
                        claims.ports.push(port);
                    }
                    None => causes.push(invalid_value(
                        format!("spec.ports[{i}].nodePort"),
                        &json!(0),
                        "failed to allocate a nodePort: range is full",
                    )),
                }
            }
        }
    }
    if needs_health_check(spec) {
        let given = chosen_port(&spec["healthCheckNodePort"]);
        if given != 0 {
            let field = "spec.healthCheckNodePort";
            causes.extend(claim_chosen_port(alloc, key, &mut claims, given, field));
        } else if let Some(port) = alloc.next_port(&claims.ports) {
            spec["healthCheckNodePort"] = json!(port);
            claims.ports.push(port);
        }
    } else if let Some(map) = spec.as_object_mut() {
        map.remove("healthCheckNodePort");
    }
    if causes.is_empty() {
        Ok(claims)
    } else {
        Err(causes)
    }
}

/// A port field as the client wrote it (0 when absent or out of range: allocate one).
fn chosen_port(v: &Value) -> u16 {
    v.as_u64().and_then(|n| u16::try_from(n).ok()).unwrap_or(0)
}

/// Claims a node port the client chose (a `nodePort` or the `healthCheckNodePort`); the real server
/// refuses one that another service, or another port of this one, already holds.
fn claim_chosen_port(
    alloc: &ServiceAllocations,
    key: &ObjectKey,
    claims: &mut Claims,
    port: u16,
    field: impl Into<String>,
) -> Option<Cause> {
    if alloc.port_taken(port, key) || claims.ports.contains(&port) {
        return Some(invalid_value(
            field,
            &json!(port),
            "provided port is already allocated",
        ));
    }
    claims.ports.push(port);
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::service_alloc::ServiceCidr;

    fn key(n: &str) -> ObjectKey {
        ("default".into(), n.into())
    }

    #[test]
    fn load_balancer_local_gets_everything_allocated() {
        let mut a = ServiceAllocations::new(ServiceCidr::default());
        let mut svc = json!({"spec": {"type": "LoadBalancer", "externalTrafficPolicy": "Local", "ports": [{"port": 80}]}});
        prepare(&mut a, &key("a"), &mut svc, None).unwrap();
        let spec = &svc["spec"];
        let ip: Ipv4Addr = spec["clusterIP"].as_str().unwrap().parse().unwrap();
        assert!(a.cidr.contains(ip) && ip != a.cidr.first(), "{ip}");
        assert_eq!(spec["clusterIPs"], json!([ip.to_string()]));
        let node_port = spec["ports"][0]["nodePort"].as_u64().unwrap();
        let health = spec["healthCheckNodePort"].as_u64().unwrap();
        for p in [node_port, health] {
            assert!((30000..=32767).contains(&p), "{p}");
        }
        assert_ne!(node_port, health);
        assert_eq!(spec["ports"][0]["targetPort"], 80);
        assert_eq!(spec["ports"][0]["protocol"], "TCP");
        assert_eq!(spec["allocateLoadBalancerNodePorts"], true);
        assert_eq!(spec["sessionAffinity"], "None");
        assert_eq!(spec["ipFamilyPolicy"], "SingleStack");
    }

    #[test]
    fn duplicate_node_port_is_invalid_and_updates_keep_allocations() {
        let mut a = ServiceAllocations::new(ServiceCidr::default());
        let mut first =
            json!({"spec": {"type": "NodePort", "ports": [{"port": 80, "nodePort": 30080}]}});
        prepare(&mut a, &key("a"), &mut first, None).unwrap();
        let mut clash =
            json!({"spec": {"type": "NodePort", "ports": [{"port": 80, "nodePort": 30080}]}});
        let causes = prepare(&mut a, &key("b"), &mut clash, None).unwrap_err();
        assert_eq!(
            causes[0].message,
            "Invalid value: 30080: provided port is already allocated"
        );
        let mut update = json!({"spec": {"type": "NodePort", "ports": [{"port": 80}]}});
        prepare(&mut a, &key("a"), &mut update, Some(&first)).unwrap();
        assert_eq!(update["spec"]["ports"][0]["nodePort"], 30080);
        assert_eq!(update["spec"]["clusterIP"], first["spec"]["clusterIP"]);
        let mut bad =
            json!({"spec": {"type": "NodePort", "ports": [{"port": 80, "nodePort": 80}]}});
        assert!(prepare(&mut a, &key("c"), &mut bad, None).is_err());
    }

    #[test]
    fn load_balancer_to_cluster_ip_succeeds_and_frees_the_node_ports() {
        let mut a = ServiceAllocations::new(ServiceCidr::default());
        let mut lb = json!({"spec": {"type": "LoadBalancer", "externalTrafficPolicy": "Local", "ports": [{"port": 80}]}});
        prepare(&mut a, &key("a"), &mut lb, None).unwrap();
        let mut cluster_ip = lb.clone();
        cluster_ip["spec"]["type"] = json!("ClusterIP");
        prepare(&mut a, &key("a"), &mut cluster_ip, Some(&lb)).unwrap();
        assert!(cluster_ip["spec"]["ports"][0]["nodePort"].is_null());
        for p in [
            &lb["spec"]["ports"][0]["nodePort"],
            &lb["spec"]["healthCheckNodePort"],
        ] {
            let p = u16::try_from(p.as_u64().unwrap()).unwrap();
            assert!(!a.port_taken(p, &key("b")), "{p}");
        }
        assert_eq!(cluster_ip["spec"]["clusterIP"], lb["spec"]["clusterIP"]);

        // A value the client set itself is validated, not dropped.
        let mut with_port = cluster_ip.clone();
        with_port["spec"]["ports"][0]["nodePort"] = json!(30500);
        let causes = prepare(&mut a, &key("a"), &mut with_port, Some(&cluster_ip)).unwrap_err();
        assert_eq!(causes[0].field, "spec.ports[0].nodePort");
        let mut with_policy = cluster_ip.clone();
        with_policy["spec"]["externalTrafficPolicy"] = json!("Local");
        let causes = prepare(&mut a, &key("a"), &mut with_policy, Some(&cluster_ip)).unwrap_err();
        assert_eq!(
            causes[0].message,
            "Invalid value: \"Local\": may only be set for externally-accessible services"
        );
    }

    #[test]
    fn load_balancer_ingress_ips_default_to_vip_mode() {
        let mut a = ServiceAllocations::new(ServiceCidr::default());
        let mut svc = json!({"spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}});
        prepare(&mut a, &key("a"), &mut svc, None).unwrap();
        let mut status = svc.clone();
        status["status"] = json!({"loadBalancer": {"ingress": [{"ip": "20.1.2.3"},
            {"hostname": "lb.example"}, {"ip": "20.1.2.4", "ipMode": "Proxy"}]}});
        prepare(&mut a, &key("a"), &mut status, Some(&svc)).unwrap();
        assert_eq!(
            status["status"]["loadBalancer"]["ingress"],
            json!([{"ip": "20.1.2.3", "ipMode": "VIP"}, {"hostname": "lb.example"},
                {"ip": "20.1.2.4", "ipMode": "Proxy"}])
        );
    }
}
