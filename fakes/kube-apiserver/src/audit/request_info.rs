//! What a request does in Kubernetes terms (verb, resource, subresource, namespace, name), read
//! from the method, path and query exactly as the real server's `RequestInfoFactory.NewRequestInfo`
//! does (k8s.io/apiserver `pkg/endpoints/request/requestinfo.go`), so the audit log names the same
//! verbs an RBAC authorizer would check.

/// The parsed request, as the real server's `RequestInfo`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestInfo {
    /// Whether the path is under `/api` or `/apis` with a resource (else health, discovery, ...).
    pub is_resource_request: bool,
    /// Kubernetes verb (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`,
    /// `deletecollection`); the lowercase HTTP method for non-resource requests.
    pub verb: String,
    /// API group, "" for core.
    pub api_group: String,
    /// API version.
    pub api_version: String,
    /// Namespace ("" when cluster-scoped or across all namespaces).
    pub namespace: String,
    /// Resource plural.
    pub resource: String,
    /// Subresource (`status`, `scale`, ...), "" when none.
    pub subresource: String,
    /// Object name, "" for collections (unless a `metadata.name` field selector names one).
    pub name: String,
}

/// Namespace subresources: `/namespaces/<ns>/status` addresses the Namespace, not a resource.
const NAMESPACE_SUBRESOURCES: &[&str] = &["status", "finalize"];

/// Parses a request the way `NewRequestInfo` does.
pub fn parse(method: &str, path: &str, query: Option<&str>) -> RequestInfo {
    let mut info = RequestInfo {
        verb: method.to_ascii_lowercase(),
        ..RequestInfo::default()
    };
    let parts: Vec<&str> = path
        .trim_matches('/')
        .split('/')
        .filter(|p| !p.is_empty())
        .collect();
    let mut rest: &[&str] = match parts.as_slice() {
        ["api", version, rest @ ..] if !rest.is_empty() => {
            info.api_version = (*version).to_string();
            rest
        }
        ["apis", group, version, rest @ ..] if !rest.is_empty() => {
            info.api_group = (*group).to_string();
            info.api_version = (*version).to_string();
            rest
        }
        _ => return RequestInfo::default_for(method),
    };
    info.is_resource_request = true;
    // `/watch/...` and `/proxy/...` prefixes name the verb themselves.
    let mut proxy = false;
    if let [special @ ("watch" | "proxy"), tail @ ..] = rest {
        if tail.is_empty() {
            return info;
        }
        info.verb = (*special).to_string();
        proxy = *special == "proxy";
        rest = tail;
    } else {
        info.verb = match method {
            "POST" => "create",
            "GET" | "HEAD" => "get",
            "PUT" => "update",
            "PATCH" => "patch",
            "DELETE" => "delete",
            _ => "",
        }
        .to_string();
    }
    if rest.first() == Some(&"namespaces")
        && let Some(ns) = rest.get(1)
    {
        info.namespace = (*ns).to_string();
        if rest.len() > 2 && !NAMESPACE_SUBRESOURCES.contains(&rest[2]) {
            rest = &rest[2..];
        }
    }
    if rest.len() >= 3 && !proxy {
        info.subresource = rest[2].to_string();
    }
    if rest.len() >= 2 {
        info.name = rest[1].to_string();
    }
    if let Some(resource) = rest.first() {
        info.resource = (*resource).to_string();
    }
    let params = query_pairs(query.unwrap_or_default());
    if info.name.is_empty() && info.verb == "get" {
        // Any `watch` value but "false"/"0" means true (ListOptions decoding).
        let watch = params
            .iter()
            .find(|(k, _)| k == "watch")
            .is_some_and(|(_, v)| !matches!(v.to_ascii_lowercase().as_str(), "false" | "0"));
        info.verb = if watch { "watch" } else { "list" }.to_string();
        // A list or watch restricted to one name by `fieldSelector=metadata.name=<n>` carries that
        // name, so `resourceNames` rules apply to it (the comment on the name branch of
        // `ListResource` in `pkg/endpoints/handlers/get.go`).
        if let Some(name) = params
            .iter()
            .find(|(k, _)| k == "fieldSelector")
            .and_then(|(_, v)| exact_name(v))
        {
            info.name = name;
        }
    }
    if info.name.is_empty() && info.verb == "delete" {
        info.verb = "deletecollection".to_string();
    }
    info
}

impl RequestInfo {
    fn default_for(method: &str) -> Self {
        RequestInfo {
            verb: method.to_ascii_lowercase(),
            ..RequestInfo::default()
        }
    }
}

/// `metadata.name=<n>` (or `==`) as the only term of a field selector.
fn exact_name(selector: &str) -> Option<String> {
    if selector.contains(',') {
        return None;
    }
    let value = selector
        .strip_prefix("metadata.name==")
        .or_else(|| selector.strip_prefix("metadata.name="))?;
    (!value.is_empty() && !value.contains('/')).then(|| value.to_string())
}

/// Decoded `key=value` pairs of a query string.
fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 3;
                    }
                    Err(_) => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verb(method: &str, path: &str, query: Option<&str>) -> String {
        parse(method, path, query).verb
    }

    #[test]
    fn verbs_follow_the_method_and_whether_a_name_is_given() {
        assert_eq!(verb("GET", "/api/v1/nodes", None), "list");
        assert_eq!(verb("GET", "/api/v1/nodes", Some("watch=true")), "watch");
        assert_eq!(verb("GET", "/api/v1/nodes", Some("watch=1")), "watch");
        assert_eq!(verb("GET", "/api/v1/nodes", Some("watch=false")), "list");
        assert_eq!(verb("GET", "/api/v1/nodes/n1", None), "get");
        assert_eq!(verb("GET", "/api/v1/nodes/n1", Some("watch=true")), "get");
        assert_eq!(verb("GET", "/api/v1/watch/nodes", None), "watch");
        assert_eq!(verb("POST", "/api/v1/namespaces/d/events", None), "create");
        assert_eq!(verb("PUT", "/api/v1/nodes/n1", None), "update");
        assert_eq!(verb("PATCH", "/api/v1/nodes/n1/status", None), "patch");
        assert_eq!(verb("DELETE", "/api/v1/nodes/n1", None), "delete");
        assert_eq!(verb("DELETE", "/api/v1/nodes", None), "deletecollection");
        assert_eq!(verb("GET", "/healthz", None), "get");
        assert!(!parse("GET", "/apis/apps/v1", None).is_resource_request);
        assert!(!parse("GET", "/api", None).is_resource_request);
    }

    #[test]
    fn resources_namespaces_names_and_subresources() {
        let i = parse(
            "PATCH",
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l",
            None,
        );
        assert_eq!(
            (
                i.api_group.as_str(),
                i.api_version.as_str(),
                i.namespace.as_str(),
                i.resource.as_str(),
                i.name.as_str(),
                i.subresource.as_str()
            ),
            (
                "coordination.k8s.io",
                "v1",
                "kube-system",
                "leases",
                "l",
                ""
            )
        );
        let s = parse("PATCH", "/api/v1/namespaces/d/services/web/status", None);
        assert_eq!(
            (s.resource.as_str(), s.subresource.as_str()),
            ("services", "status")
        );
        // A Namespace is its own namespace; its status is a subresource of it.
        let ns = parse("PUT", "/api/v1/namespaces/x/finalize", None);
        assert_eq!(
            (
                ns.namespace.as_str(),
                ns.resource.as_str(),
                ns.name.as_str(),
                ns.subresource.as_str()
            ),
            ("x", "namespaces", "x", "finalize")
        );
        let w = parse("GET", "/api/v1/watch/namespaces/d/pods/p", None);
        assert_eq!((w.verb.as_str(), w.name.as_str()), ("watch", "p"));
    }

    #[test]
    fn a_metadata_name_field_selector_names_the_object() {
        let i = parse(
            "GET",
            "/api/v1/nodes",
            Some("fieldSelector=metadata.name%3Dnode-1&watch=true"),
        );
        assert_eq!((i.verb.as_str(), i.name.as_str()), ("watch", "node-1"));
        let other = parse(
            "GET",
            "/api/v1/pods",
            Some("fieldSelector=spec.nodeName%3Dn"),
        );
        assert_eq!(other.name, "");
        let two = parse(
            "GET",
            "/api/v1/nodes",
            Some("fieldSelector=metadata.name%3Dn,spec.unschedulable%3Dfalse"),
        );
        assert_eq!(two.name, "");
    }
}
