//! Columns and cells per kind, following kubectl's/the API server's built-in printers.

use serde_json::{Value, json};

use crate::kinds::KindInfo;
use crate::timestamps::age;

/// One column definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// Header text (kubectl upper-cases it).
    pub name: &'static str,
    /// `string`, `integer` or `date`.
    pub ty: &'static str,
    /// `name` for the name column, else empty.
    pub format: &'static str,
    /// Short description.
    pub description: &'static str,
    /// 0 = always shown, 1 = only with `-o wide`.
    pub priority: u8,
}

const fn col(name: &'static str, priority: u8) -> Column {
    Column {
        name,
        ty: "string",
        format: "",
        description: "",
        priority,
    }
}

const NAME: Column = Column {
    name: "Name",
    ty: "string",
    format: "name",
    description: "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.",
    priority: 0,
};

const AGE: Column = Column {
    name: "Age",
    ty: "string",
    format: "",
    description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
    priority: 0,
};

/// The columns for a kind.
pub fn columns(info: &KindInfo) -> Vec<Column> {
    match info.kind {
        "Namespace" => vec![NAME, col("Status", 0), AGE],
        "Node" => vec![
            NAME,
            col("Status", 0),
            col("Roles", 0),
            AGE,
            col("Version", 0),
            col("Internal-IP", 1),
            col("External-IP", 1),
            col("OS-Image", 1),
            col("Kernel-Version", 1),
            col("Container-Runtime", 1),
        ],
        "Service" => vec![
            NAME,
            col("Type", 0),
            col("Cluster-IP", 0),
            col("External-IP", 0),
            col("Port(s)", 0),
            AGE,
            col("Selector", 1),
        ],
        "Endpoints" => vec![NAME, col("Endpoints", 0), AGE],
        "EndpointSlice" => vec![
            NAME,
            col("AddressType", 0),
            col("Ports", 0),
            col("Endpoints", 0),
            AGE,
        ],
        "Event" => vec![
            col("Last Seen", 0),
            col("Type", 0),
            col("Reason", 0),
            col("Object", 0),
            col("Message", 0),
            col("Source", 1),
            col("First Seen", 1),
            col("Count", 1),
            Column {
                priority: 1,
                ..NAME
            },
        ],
        "Lease" => vec![NAME, col("Holder", 0), AGE],
        "ConfigMap" => vec![NAME, col("Data", 0), AGE],
        "Secret" => vec![NAME, col("Type", 0), col("Data", 0), AGE],
        "ServiceAccount" => vec![NAME, col("Secrets", 0), AGE],
        "Pod" => vec![
            NAME,
            col("Ready", 0),
            col("Status", 0),
            col("Restarts", 0),
            AGE,
            col("IP", 1),
            col("Node", 1),
            col("Nominated Node", 1),
            col("Readiness Gates", 1),
        ],
        "Role" | "ClusterRole" => vec![
            NAME,
            Column {
                ty: "date",
                ..col("Created At", 0)
            },
        ],
        "RoleBinding" | "ClusterRoleBinding" => vec![
            NAME,
            col("Role", 0),
            AGE,
            col("Users", 1),
            col("Groups", 1),
            col("ServiceAccounts", 1),
        ],
        "Deployment" => vec![
            NAME,
            col("Ready", 0),
            col("Up-to-date", 0),
            col("Available", 0),
            AGE,
            col("Containers", 1),
            col("Images", 1),
            col("Selector", 1),
        ],
        "DaemonSet" => vec![
            NAME,
            col("Desired", 0),
            col("Current", 0),
            col("Ready", 0),
            col("Up-to-date", 0),
            col("Available", 0),
            col("Node Selector", 0),
            AGE,
            col("Containers", 1),
            col("Images", 1),
            col("Selector", 1),
        ],
        "PodDisruptionBudget" => vec![
            NAME,
            col("Min Available", 0),
            col("Max Unavailable", 0),
            col("Allowed Disruptions", 0),
            AGE,
        ],
        "PriorityClass" => vec![
            NAME,
            col("Value", 0),
            col("Global-Default", 0),
            AGE,
            col("PreemptionPolicy", 0),
        ],
        _ => vec![NAME, AGE],
    }
}

fn s(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn or_none(text: String) -> String {
    if text.is_empty() {
        "<none>".into()
    } else {
        text
    }
}

fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or(0)
}

fn len(v: &Value) -> usize {
    v.as_array()
        .map(Vec::len)
        .or_else(|| v.as_object().map(serde_json::Map::len))
        .unwrap_or(0)
}

fn join_map(v: &Value) -> String {
    v.as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k}={}", s(v)))
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default()
}

fn containers(pod_spec: &Value) -> (String, String) {
    let list = pod_spec["containers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let names: Vec<String> = list.iter().map(|c| s(&c["name"])).collect();
    let images: Vec<String> = list.iter().map(|c| s(&c["image"])).collect();
    (names.join(","), images.join(","))
}

/// Cells for one object, in column order.
pub fn cells(info: &KindInfo, o: &Value) -> Vec<Value> {
    let name = json!(s(&o["metadata"]["name"]));
    let created = s(&o["metadata"]["creationTimestamp"]);
    let a = json!(age(&created));
    let spec = &o["spec"];
    let status = &o["status"];
    match info.kind {
        "Namespace" => vec![name, json!(s(&status["phase"])), a],
        "Node" => {
            let (internal, external) = node_ips(status);
            vec![
                name,
                json!(node_status(o)),
                json!(node_roles(o)),
                a,
                json!(s(&status["nodeInfo"]["kubeletVersion"])),
                json!(or_none(internal)),
                json!(or_none(external)),
                json!(or_none(s(&status["nodeInfo"]["osImage"]))),
                json!(or_none(s(&status["nodeInfo"]["kernelVersion"]))),
                json!(or_none(s(&status["nodeInfo"]["containerRuntimeVersion"]))),
            ]
        }
        "Service" => vec![
            name,
            json!(s(&spec["type"])),
            json!(or_none(s(&spec["clusterIP"]))),
            json!(service_external_ip(o)),
            json!(service_ports(spec)),
            a,
            json!(or_none(join_map(&spec["selector"]))),
        ],
        "Endpoints" => vec![name, json!(endpoints_text(o)), a],
        "EndpointSlice" => {
            let ports: Vec<String> = o["ports"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| s(&p["port"]))
                .collect();
            let addrs: Vec<String> = o["endpoints"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|e| e["addresses"].as_array().cloned().unwrap_or_default())
                .map(|a| s(&a))
                .collect();
            vec![
                name,
                json!(s(&o["addressType"])),
                json!(or_none(ports.join(","))),
                json!(abbreviate(&addrs)),
                a,
            ]
        }
        "Event" => {
            let regarding = if o["regarding"].is_object() {
                &o["regarding"]
            } else {
                &o["involvedObject"]
            };
            let last = [
                &o["lastTimestamp"],
                &o["deprecatedLastTimestamp"],
                &o["eventTime"],
                &o["metadata"]["creationTimestamp"],
            ]
            .into_iter()
            .map(s)
            .find(|t| !t.is_empty())
            .unwrap_or_default();
            let source = if o["source"]["component"].is_string() {
                s(&o["source"]["component"])
            } else {
                s(&o["reportingController"])
            };
            let note = if o["note"].is_string() {
                s(&o["note"])
            } else {
                s(&o["message"])
            };
            vec![
                json!(age(&last)),
                json!(s(&o["type"])),
                json!(s(&o["reason"])),
                json!(format!(
                    "{}/{}",
                    s(&regarding["kind"]).to_lowercase(),
                    s(&regarding["name"])
                )),
                json!(note),
                json!(source),
                json!(age(&s(&o["firstTimestamp"]))),
                json!(o["count"].as_i64().unwrap_or(1)),
                name,
            ]
        }
        "Lease" => vec![name, json!(s(&spec["holderIdentity"])), a],
        "ConfigMap" => vec![name, json!(len(&o["data"]) + len(&o["binaryData"])), a],
        "Secret" => vec![name, json!(s(&o["type"])), json!(len(&o["data"])), a],
        "ServiceAccount" => vec![name, json!(len(&o["secrets"])), a],
        "Pod" => {
            let total = len(&spec["containers"]);
            let statuses = status["containerStatuses"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let ready = statuses.iter().filter(|c| c["ready"] == true).count();
            let restarts: i64 = statuses.iter().map(|c| int(&c["restartCount"])).sum();
            let phase = if o["metadata"]["deletionTimestamp"].is_string() {
                "Terminating".to_string()
            } else if status["reason"].is_string() {
                s(&status["reason"])
            } else {
                s(&status["phase"])
            };
            vec![
                name,
                json!(format!("{ready}/{total}")),
                json!(phase),
                json!(restarts),
                a,
                json!(or_none(s(&status["podIP"]))),
                json!(or_none(s(&spec["nodeName"]))),
                json!(or_none(s(&status["nominatedNodeName"]))),
                json!("<none>"),
            ]
        }
        "Role" | "ClusterRole" => vec![name, json!(created)],
        "RoleBinding" | "ClusterRoleBinding" => {
            let subjects = o["subjects"].as_array().cloned().unwrap_or_default();
            let of = |k: &str| {
                subjects
                    .iter()
                    .filter(|x| x["kind"] == k)
                    .map(|x| {
                        if k == "ServiceAccount" {
                            format!("{}/{}", s(&x["namespace"]), s(&x["name"]))
                        } else {
                            s(&x["name"])
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            vec![
                name,
                json!(format!(
                    "{}/{}",
                    s(&o["roleRef"]["kind"]),
                    s(&o["roleRef"]["name"])
                )),
                a,
                json!(of("User")),
                json!(of("Group")),
                json!(of("ServiceAccount")),
            ]
        }
        "Deployment" => {
            let (c, i) = containers(&spec["template"]["spec"]);
            vec![
                name,
                json!(format!(
                    "{}/{}",
                    int(&status["readyReplicas"]),
                    spec["replicas"].as_i64().unwrap_or(1)
                )),
                json!(int(&status["updatedReplicas"])),
                json!(int(&status["availableReplicas"])),
                a,
                json!(c),
                json!(i),
                json!(or_none(join_map(&spec["selector"]["matchLabels"]))),
            ]
        }
        "DaemonSet" => {
            let (c, i) = containers(&spec["template"]["spec"]);
            vec![
                name,
                json!(int(&status["desiredNumberScheduled"])),
                json!(int(&status["currentNumberScheduled"])),
                json!(int(&status["numberReady"])),
                json!(int(&status["updatedNumberScheduled"])),
                json!(int(&status["numberAvailable"])),
                json!(or_none(join_map(&spec["template"]["spec"]["nodeSelector"]))),
                a,
                json!(c),
                json!(i),
                json!(or_none(join_map(&spec["selector"]["matchLabels"]))),
            ]
        }
        "PodDisruptionBudget" => {
            let na = |v: &Value| if v.is_null() { "N/A".to_string() } else { s(v) };
            vec![
                name,
                json!(na(&spec["minAvailable"])),
                json!(na(&spec["maxUnavailable"])),
                json!(int(&status["disruptionsAllowed"])),
                a,
            ]
        }
        "PriorityClass" => vec![
            name,
            json!(int(&o["value"])),
            json!(o["globalDefault"].as_bool().unwrap_or(false)),
            a,
            json!(s(&o["preemptionPolicy"])),
        ],
        _ => vec![name, a],
    }
}

fn node_status(o: &Value) -> String {
    let ready = o["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Ready")
        .map(|c| s(&c["status"]));
    let mut text = match ready.as_deref() {
        Some("True") => "Ready".to_string(),
        Some("False") => "NotReady".to_string(),
        _ => "Unknown".to_string(),
    };
    if o["spec"]["unschedulable"] == true {
        text.push_str(",SchedulingDisabled");
    }
    text
}

fn node_roles(o: &Value) -> String {
    let mut roles: Vec<String> = Vec::new();
    for (k, v) in o["metadata"]["labels"].as_object().into_iter().flatten() {
        if let Some(role) = k.strip_prefix("node-role.kubernetes.io/") {
            if !role.is_empty() {
                roles.push(role.to_string());
            }
        } else if k == "kubernetes.io/role" {
            roles.push(s(v));
        }
    }
    roles.sort();
    or_none(roles.join(","))
}

fn node_ips(status: &Value) -> (String, String) {
    let find = |t: &str| {
        status["addresses"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|a| a["type"] == t)
            .map(|a| s(&a["address"]))
            .unwrap_or_default()
    };
    (find("InternalIP"), find("ExternalIP"))
}

fn service_external_ip(o: &Value) -> String {
    let spec = &o["spec"];
    let mut ips: Vec<String> = spec["externalIPs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(s)
        .collect();
    match spec["type"].as_str() {
        Some("LoadBalancer") => {
            for ing in o["status"]["loadBalancer"]["ingress"]
                .as_array()
                .into_iter()
                .flatten()
            {
                ips.push(if ing["ip"].is_string() {
                    s(&ing["ip"])
                } else {
                    s(&ing["hostname"])
                });
            }
            if ips.is_empty() {
                "<pending>".into()
            } else {
                ips.join(",")
            }
        }
        Some("ExternalName") => s(&spec["externalName"]),
        _ => or_none(ips.join(",")),
    }
}

fn service_ports(spec: &Value) -> String {
    let parts: Vec<String> = spec["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let proto = p["protocol"].as_str().unwrap_or("TCP");
            match p["nodePort"].as_i64().filter(|n| *n != 0) {
                Some(np) => format!("{}:{np}/{proto}", s(&p["port"])),
                None => format!("{}/{proto}", s(&p["port"])),
            }
        })
        .collect();
    or_none(parts.join(","))
}

fn endpoints_text(o: &Value) -> String {
    let mut list = Vec::new();
    for subset in o["subsets"].as_array().into_iter().flatten() {
        let ports: Vec<String> = subset["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| s(&p["port"]))
            .collect();
        for addr in subset["addresses"].as_array().into_iter().flatten() {
            if ports.is_empty() {
                list.push(s(&addr["ip"]));
            }
            for p in &ports {
                list.push(format!("{}:{p}", s(&addr["ip"])));
            }
        }
    }
    abbreviate(&list)
}

fn abbreviate(list: &[String]) -> String {
    match list.len() {
        0 => "<none>".into(),
        n if n > 3 => format!("{} + {} more...", list[..3].join(","), n - 3),
        _ => list.join(","),
    }
}
