//! Defaulting and validation of Pods and of the workload kinds that embed a pod template
//! (apps/v1 Deployment and DaemonSet) plus policy/v1 PodDisruptionBudget: the required fields,
//! selector rules and defaults the real server applies, so manifests that the real server would
//! reject are rejected here with the same field paths.

use serde_json::{Value, json};

use super::names::{self, NameRule};
use super::set_default;
use crate::status::{Cause, invalid_value, not_supported, required};

/// Pod spec defaults (`SetDefaults_PodSpec`, `SetDefaults_Container`) for the fields
/// controllers and kubectl print.
pub fn default_pod_spec(spec: &mut Value) {
    if !spec.is_object() {
        return;
    }
    set_default(spec, "restartPolicy", json!("Always"));
    set_default(spec, "dnsPolicy", json!("ClusterFirst"));
    set_default(spec, "schedulerName", json!("default-scheduler"));
    set_default(spec, "terminationGracePeriodSeconds", json!(30));
    set_default(spec, "securityContext", json!({}));
    if spec["serviceAccountName"].is_string() {
        set_default(spec, "serviceAccount", spec["serviceAccountName"].clone());
    }
    for list in ["initContainers", "containers"] {
        if let Some(containers) = spec[list].as_array_mut() {
            for c in containers {
                default_container(c);
            }
        }
    }
}

fn default_container(c: &mut Value) {
    if !c.is_object() {
        return;
    }
    set_default(c, "terminationMessagePath", json!("/dev/termination-log"));
    set_default(c, "terminationMessagePolicy", json!("File"));
    if c["imagePullPolicy"].is_null() {
        let image = c["image"].as_str().unwrap_or_default();
        let tag = image.rsplit('/').next().unwrap_or_default();
        let latest = !image.contains('@') && (!tag.contains(':') || tag.ends_with(":latest"));
        c["imagePullPolicy"] = json!(if latest { "Always" } else { "IfNotPresent" });
    }
    if let Some(ports) = c["ports"].as_array_mut() {
        for p in ports {
            set_default(p, "protocol", json!("TCP"));
        }
    }
}

/// Required fields of a pod spec at `at` (e.g. `spec.template.spec`).
pub fn validate_pod_spec(spec: &Value, at: &str) -> Vec<Cause> {
    let mut causes = Vec::new();
    let containers = spec["containers"].as_array();
    if containers.is_none_or(Vec::is_empty) {
        causes.push(required(format!("{at}.containers")));
    }
    let mut seen: Vec<&str> = Vec::new();
    for list in ["initContainers", "containers"] {
        for (i, c) in spec[list].as_array().into_iter().flatten().enumerate() {
            let field = format!("{at}.{list}[{i}]");
            match c["name"].as_str().unwrap_or_default() {
                "" => causes.push(required(format!("{field}.name"))),
                name => {
                    if let Err(why) = names::check(NameRule::Label, name) {
                        causes.push(invalid_value(format!("{field}.name"), &c["name"], &why));
                    } else if seen.contains(&name) {
                        causes.push(Cause {
                            reason: "FieldValueDuplicate".into(),
                            message: format!("Duplicate value: {name:?}"),
                            field: format!("{field}.name"),
                        });
                    }
                    seen.push(name);
                }
            }
            if c["image"].as_str().is_none_or(|i| i.trim().is_empty()) {
                causes.push(required(format!("{field}.image")));
            }
            causes.extend(super::container_ports::validate(c, &field));
        }
    }
    if let Some(policy) = spec["restartPolicy"].as_str()
        && !["Always", "OnFailure", "Never"].contains(&policy)
    {
        causes.push(not_supported(
            format!("{at}.restartPolicy"),
            policy,
            &["Always", "OnFailure", "Never"],
        ));
    }
    causes
}

/// Pods: defaults plus required containers.
pub fn prepare_pod(pod: &mut Value) -> Vec<Cause> {
    if !pod["spec"].is_object() {
        return vec![required("spec")];
    }
    default_pod_spec(&mut pod["spec"]);
    validate_pod_spec(&pod["spec"], "spec")
}

/// Deployments and DaemonSets: defaults, a required selector that matches the template labels,
/// a valid pod template, and an immutable selector.
pub fn prepare_workload(kind: &str, obj: &mut Value, old: Option<&Value>) -> Vec<Cause> {
    if !obj["spec"].is_object() {
        obj["spec"] = json!({});
    }
    let spec = &mut obj["spec"];
    match kind {
        "Deployment" => {
            set_default(spec, "replicas", json!(1));
            set_default(spec, "revisionHistoryLimit", json!(10));
            set_default(spec, "progressDeadlineSeconds", json!(600));
            if spec["strategy"]["type"].is_null() {
                spec["strategy"]["type"] = json!("RollingUpdate");
            }
            if spec["strategy"]["type"] == "RollingUpdate" {
                set_default(
                    &mut spec["strategy"],
                    "rollingUpdate",
                    json!({"maxSurge": "25%", "maxUnavailable": "25%"}),
                );
            }
        }
        _ => {
            set_default(spec, "revisionHistoryLimit", json!(10));
            if spec["updateStrategy"]["type"].is_null() {
                spec["updateStrategy"]["type"] = json!("RollingUpdate");
            }
            if spec["updateStrategy"]["type"] == "RollingUpdate" {
                set_default(
                    &mut spec["updateStrategy"],
                    "rollingUpdate",
                    json!({"maxSurge": 0, "maxUnavailable": 1}),
                );
            }
        }
    }
    if spec["template"]["spec"].is_object() {
        default_pod_spec(&mut spec["template"]["spec"]);
    }
    let spec = &obj["spec"];
    let mut causes = Vec::new();
    if let Some(r) = spec["replicas"].as_i64()
        && r < 0
    {
        causes.push(invalid_value(
            "spec.replicas",
            &spec["replicas"],
            "must be greater than or equal to 0",
        ));
    }
    let selector = &spec["selector"];
    let match_labels = selector["matchLabels"].as_object();
    let has_expressions = selector["matchExpressions"]
        .as_array()
        .is_some_and(|e| !e.is_empty());
    if !selector.is_object() {
        causes.push(required("spec.selector"));
    } else if match_labels.is_none_or(|m| m.is_empty()) && !has_expressions {
        causes.push(invalid_value(
            "spec.selector",
            selector,
            &format!("empty selector is invalid for {}", kind.to_lowercase()),
        ));
    }
    let template = &spec["template"];
    if !template.is_object() {
        causes.push(required("spec.template"));
    } else {
        let labels = template["metadata"]["labels"].as_object();
        if let Some(wanted) = match_labels {
            let matches = wanted
                .iter()
                .all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v));
            if !matches {
                causes.push(invalid_value(
                    "spec.template.metadata.labels",
                    &template["metadata"]["labels"],
                    "`selector` does not match template `labels`",
                ));
            }
        }
        if template["spec"].is_object() {
            causes.extend(validate_pod_spec(&template["spec"], "spec.template.spec"));
        } else {
            causes.push(required("spec.template.spec.containers"));
        }
        if kind == "DaemonSet"
            && let Some(policy) = template["spec"]["restartPolicy"].as_str()
            && policy != "Always"
        {
            causes.push(not_supported(
                "spec.template.spec.restartPolicy",
                policy,
                &["Always"],
            ));
        }
    }
    if let Some(old) = old
        && old["spec"]["selector"] != spec["selector"]
    {
        causes.push(invalid_value(
            "spec.selector",
            &spec["selector"],
            "field is immutable",
        ));
    }
    causes
}

/// PodDisruptionBudgets: minAvailable and maxUnavailable are exclusive.
pub fn prepare_pdb(obj: &mut Value) -> Vec<Cause> {
    let spec = &obj["spec"];
    let mut causes = Vec::new();
    if !spec["minAvailable"].is_null() && !spec["maxUnavailable"].is_null() {
        causes.push(invalid_value(
            "spec",
            spec,
            "minAvailable and maxUnavailable cannot be both set",
        ));
    }
    for field in ["minAvailable", "maxUnavailable"] {
        let v = &spec[field];
        let ok = match v {
            Value::Null => true,
            Value::Number(n) => n.as_i64().is_some_and(|n| n >= 0),
            Value::String(s) => s
                .strip_suffix('%')
                .and_then(|p| p.parse::<u32>().ok())
                .is_some_and(|p| p <= 100),
            _ => false,
        };
        if !ok {
            causes.push(invalid_value(
                format!("spec.{field}"),
                v,
                "must be a non-negative integer or a percentage between 0% and 100%",
            ));
        }
    }
    if !obj["spec"].is_object() {
        obj["spec"] = json!({});
    }
    causes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deploy() -> Value {
        json!({"spec": {"selector": {"matchLabels": {"app": "a"}},
            "template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "img:1"}]}}}})
    }

    #[test]
    fn deployment_defaults_and_required_fields() {
        let mut ok = deploy();
        assert!(prepare_workload("Deployment", &mut ok, None).is_empty());
        assert_eq!(ok["spec"]["replicas"], 1);
        assert_eq!(ok["spec"]["strategy"]["rollingUpdate"]["maxSurge"], "25%");
        let c = &ok["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(c["imagePullPolicy"], "IfNotPresent");
        assert_eq!(ok["spec"]["template"]["spec"]["dnsPolicy"], "ClusterFirst");

        let mut bad = json!({"spec": {"template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c"}]}}}});
        let fields: Vec<String> = prepare_workload("Deployment", &mut bad, None)
            .into_iter()
            .map(|c| c.field)
            .collect();
        assert_eq!(
            fields,
            vec!["spec.selector", "spec.template.spec.containers[0].image"]
        );
    }

    #[test]
    fn selector_must_match_and_is_immutable() {
        let mut mismatch = deploy();
        mismatch["spec"]["template"]["metadata"]["labels"]["app"] = json!("b");
        let causes = prepare_workload("DaemonSet", &mut mismatch, None);
        assert_eq!(causes[0].field, "spec.template.metadata.labels");
        let old = deploy();
        let mut changed = deploy();
        changed["spec"]["selector"]["matchLabels"]["tier"] = json!("x");
        changed["spec"]["template"]["metadata"]["labels"]["tier"] = json!("x");
        let causes = prepare_workload("Deployment", &mut changed, Some(&old));
        assert_eq!(causes.len(), 1);
        assert!(causes[0].message.ends_with("field is immutable"));
    }

    #[test]
    fn pods_and_pdbs() {
        let mut pod = json!({"spec": {"containers": [{"name": "c", "image": "x"}, {"name": "c", "image": "y:latest"}]}});
        let causes = prepare_pod(&mut pod);
        assert_eq!(causes[0].field, "spec.containers[1].name");
        assert_eq!(pod["spec"]["containers"][1]["imagePullPolicy"], "Always");
        let mut pdb = json!({"spec": {"minAvailable": 1, "maxUnavailable": "150%"}});
        let fields: Vec<String> = prepare_pdb(&mut pdb).into_iter().map(|c| c.field).collect();
        assert_eq!(fields, vec!["spec", "spec.maxUnavailable"]);
    }
}
