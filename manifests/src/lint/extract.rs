//! Finds component command lines in a file: containers of Pods and workload templates, the
//! feature gates of a KubeletConfiguration, or the flags of a kubelet/systemd flags file.

use std::path::Path;

use serde_json::Value;

use super::LintError;
use crate::component::Component;

/// Where an invocation's flags came from; decides which checks apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A real command line (container command/args, systemd unit, env file): every check.
    CommandLine,
    /// Settings translated from a configuration file (KubeletConfiguration `featureGates`): only
    /// the checks of what is present. Required command-line flags such as the kubelet's
    /// `--cloud-provider` live in the unit that passes `--config`, not in the file.
    ConfigFile,
}

/// One component command line found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// Object and container, or "flags file".
    pub location: String,
    /// Component.
    pub component: Component,
    /// Command line or configuration file.
    pub source: Source,
    /// `(--flag, value)` pairs in order; bare boolean flags have no value.
    pub flags: Vec<(String, Option<String>)>,
}

impl Invocation {
    /// Last value of a flag (later flags win, as with pflag); `Some(None)` for a bare flag.
    pub fn get(&self, flag: &str) -> Option<Option<&str>> {
        self.flags
            .iter()
            .rev()
            .find(|(f, _)| f == flag)
            .map(|(_, v)| v.as_deref())
    }

    /// Flag as a boolean (`--x` or `--x=true`), if present.
    pub fn bool(&self, flag: &str) -> Option<bool> {
        self.get(flag)
            .map(|v| v.is_none_or(|v| v.eq_ignore_ascii_case("true")))
    }
}

/// Extracts invocations; errors when the file is neither Kubernetes YAML nor a flags file.
pub fn extract(path: &Path, text: &str) -> Result<Vec<Invocation>, LintError> {
    let docs: Result<Vec<Value>, _> = serde_saphyr::from_multiple(text);
    if let Ok(docs) = docs
        && docs.iter().any(|d| d.get("kind").is_some())
    {
        let mut out = Vec::new();
        for doc in &docs {
            from_object(doc, &mut out);
        }
        return Ok(out);
    }
    from_flags_file(path, text)
}

fn from_object(doc: &Value, out: &mut Vec<Invocation>) {
    let kind = doc.get("kind").and_then(Value::as_str).unwrap_or_default();
    let name = doc
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("<unnamed>");
    let ns = doc.pointer("/metadata/namespace").and_then(Value::as_str);
    let object = match ns {
        Some(ns) => format!("{kind} {ns}/{name}"),
        None => format!("{kind} {name}"),
    };
    let pod_spec = match kind {
        "Pod" => doc.get("spec"),
        "Deployment" | "DaemonSet" | "StatefulSet" | "ReplicaSet" | "Job" => {
            doc.pointer("/spec/template/spec")
        }
        "CronJob" => doc.pointer("/spec/jobTemplate/spec/template/spec"),
        "List" => {
            for item in doc
                .get("items")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                from_object(item, out);
            }
            return;
        }
        "KubeletConfiguration" => {
            if let Some(gates) = doc.get("featureGates").and_then(Value::as_object) {
                let value = gates
                    .iter()
                    .map(|(k, v)| {
                        format!(
                            "{k}={}",
                            v.as_bool().map_or_else(|| v.to_string(), |b| b.to_string())
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(",");
                out.push(Invocation {
                    location: format!("{object} featureGates"),
                    component: Component::Kubelet,
                    source: Source::ConfigFile,
                    flags: vec![("--feature-gates".to_string(), Some(value))],
                });
            }
            return;
        }
        _ => None,
    };
    let Some(spec) = pod_spec else { return };
    for list in ["initContainers", "containers"] {
        for c in spec
            .get(list)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let strings = |key: &str| -> Vec<String> {
                c.get(key)
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let command = strings("command");
            let args = strings("args");
            let cname = c.get("name").and_then(Value::as_str).unwrap_or("<unnamed>");
            let image = c.get("image").and_then(Value::as_str).unwrap_or_default();
            let component = command
                .first()
                .and_then(|p| Component::detect(p))
                .or_else(|| Component::detect(cname))
                .or_else(|| Component::detect(image));
            let Some(component) = component else { continue };
            let mut tokens = command;
            tokens.extend(args);
            out.push(Invocation {
                location: format!("{object}, container {cname}"),
                component,
                source: Source::CommandLine,
                flags: parse_flags(&tokens),
            });
        }
    }
}

fn from_flags_file(path: &Path, text: &str) -> Result<Vec<Invocation>, LintError> {
    let joined = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| l.trim_end().strip_suffix('\\').unwrap_or(l.trim_end()))
        .collect::<Vec<_>>()
        .join(" ");
    let tokens: Vec<String> = joined
        .replace(['"', '\''], " ")
        .split_whitespace()
        .map(|t| match t.find("=--") {
            Some(i) => t[i + 1..].to_string(),
            None => t.to_string(),
        })
        .collect();
    let component = tokens
        .iter()
        .filter(|t| !t.starts_with('-'))
        .map(|t| t.strip_prefix("ExecStart=").unwrap_or(t))
        .find_map(Component::detect)
        .or_else(|| {
            let stem = path
                .file_name()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            Component::ALL.into_iter().find(|c| stem.contains(c.name()))
        });
    let flags = parse_flags(&tokens);
    match component {
        Some(component) if !flags.is_empty() => {
            Ok(vec![Invocation {
                location: "flags file".to_string(),
                component,
                source: Source::CommandLine,
                flags,
            }])
        }
        _ => Err(LintError::Unrecognised {
            path: path.to_path_buf(),
            reason: "not a Kubernetes manifest (no `kind`) and not a recognisable flags file. Accepted: YAML with Pod, \
                     Deployment, DaemonSet, StatefulSet, ReplicaSet, Job, CronJob, List or KubeletConfiguration objects; \
                     or a flags file (systemd unit/drop-in, env file) that names the binary \
                     (e.g. ExecStart=/usr/bin/kubelet ...) or whose file name contains the component name"
                .to_string(),
        }),
    }
}

/// Parses `--a=b`, `--a b` and bare `--a` forms.
fn parse_flags(tokens: &[String]) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        if let Some(body) = t
            .strip_prefix("--")
            .or_else(|| t.strip_prefix('-').filter(|b| !b.is_empty()))
        {
            let dashed = format!("--{}", body.split('=').next().unwrap_or(body));
            if let Some((_, v)) = body.split_once('=') {
                out.push((dashed, Some(v.to_string())));
            } else if let Some(next) = tokens.get(i + 1).filter(|n| !n.starts_with('-')) {
                out.push((dashed, Some(next.clone())));
                i += 1;
            } else {
                out.push((dashed, None));
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_containers_of_workloads_with_names() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ccm, namespace: kube-system}\nspec:\n  template:\n    spec:\n      containers:\n      - name: main\n        image: mcr.microsoft.com/oss/kubernetes/azure-cloud-controller-manager:v1.33.1\n        args: [\"--cloud-provider=azure\", \"--v\", \"2\", \"--leader-elect\"]\n";
        let inv = extract(Path::new("x.yaml"), text).unwrap();
        assert_eq!(inv.len(), 1);
        assert_eq!(inv[0].component, Component::CloudControllerManager);
        assert_eq!(
            inv[0].location,
            "Deployment kube-system/ccm, container main"
        );
        assert_eq!(inv[0].get("--v"), Some(Some("2")));
        assert_eq!(inv[0].bool("--leader-elect"), Some(true));
    }

    #[test]
    fn reads_systemd_and_env_flag_files() {
        let unit = "[Service]\nExecStart=/usr/bin/kubelet \\\n  --cloud-provider=azure \\\n  --node-ip 10.0.0.4\n";
        let inv = extract(Path::new("20-kubelet.conf"), unit).unwrap();
        assert_eq!(inv[0].component, Component::Kubelet);
        assert_eq!(inv[0].get("--node-ip"), Some(Some("10.0.0.4")));
        let env = "KUBELET_FLAGS=\"--cloud-provider=external --cloud-config=/etc/kubernetes/azure.json\"\n";
        let inv = extract(Path::new("/etc/default/kubelet"), env).unwrap();
        assert_eq!(
            inv[0].get("--cloud-config"),
            Some(Some("/etc/kubernetes/azure.json"))
        );
        assert!(extract(Path::new("notes.txt"), "hello world").is_err());
    }

    #[test]
    fn kubelet_configuration_gates_are_marked_as_a_config_file() {
        let text = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfeatureGates:\n  DisableCloudProviders: true\n";
        let inv = extract(Path::new("kubelet-config.yaml"), text).unwrap();
        assert_eq!(inv.len(), 1);
        assert_eq!(inv[0].source, Source::ConfigFile);
        assert_eq!(
            inv[0].get("--feature-gates"),
            Some(Some("DisableCloudProviders=true"))
        );
        let unit = "ExecStart=/usr/bin/kubelet --cloud-provider=external\n";
        let inv = extract(Path::new("kubelet.service"), unit).unwrap();
        assert_eq!(inv[0].source, Source::CommandLine);
    }
}
