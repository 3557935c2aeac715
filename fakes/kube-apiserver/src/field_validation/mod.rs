//! Server-side field validation (`?fieldValidation=Strict|Warn|Ignore`): bodies are decoded
//! into their API type like the real server does, unknown and duplicate fields are refused
//! (Strict), reported in `Warning` headers (Warn, the default) or silently dropped (Ignore), with
//! the real server's messages for create/update, each patch type and server-side apply.

mod gofmt;
mod keytree;
mod omitempty;
mod typed;
mod unknown;

use axum::http::HeaderValue;
use axum::response::Response;
use serde_json::{Map, Value, json};

pub use keytree::KeyTree;
pub use omitempty::drop_empty;
pub use unknown::{Finding, PathStyle};

use crate::handlers::Params;
use crate::kinds::KindInfo;
use crate::patch::PatchType;
use crate::status::{ApiError, invalid_value};

/// What to do with unknown or duplicate fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Directive {
    /// Refuse the request.
    Strict,
    /// Accept, drop the fields, and say so in `Warning` headers (the default).
    Warn,
    /// Accept and drop the fields silently.
    Ignore,
}

impl Directive {
    /// Reads `fieldValidation`; absent or empty means Warn, as on the real server.
    pub fn from_params(params: &Params) -> Result<Self, ApiError> {
        match params.get("fieldValidation").map(String::as_str) {
            None | Some("") | Some("Warn") => Ok(Self::Warn),
            Some("Strict") => Ok(Self::Strict),
            Some("Ignore") => Ok(Self::Ignore),
            Some(other) => Err(ApiError::bad_request(format!(
                "fieldValidation: Unsupported value: {other:?}: supported values: \"Ignore\", \"Strict\", \"Warn\""
            ))),
        }
    }
}

/// `Warning` texts to send with a successful response.
pub type Warnings = Vec<String>;

/// Adds one `Warning: 299 - "<text>"` header per warning, quoted like the real server.
pub fn with_warnings(mut response: Response, warnings: &[String]) -> Response {
    for w in warnings {
        if let Ok(v) = HeaderValue::from_str(&warning_header(w)) {
            response.headers_mut().append("warning", v);
        }
    }
    response
}

/// `299 - "unknown field \"spec.x\""`.
pub fn warning_header(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    for c in text.chars() {
        if c == '"' || c == '\\' {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    format!("299 - \"{quoted}\"")
}

/// Decodes `obj` as `info`'s type when its apiVersion/kind allow it (mismatches are reported
/// by the write path itself); `None` when there is nothing to compare against.
fn known_fields(info: &KindInfo, obj: &Value) -> Result<Option<Value>, String> {
    let api_version = info.api_version();
    let fields = [("apiVersion", api_version.as_str()), ("kind", info.kind)];
    let mut filled = None;
    for (field, want) in fields {
        match obj.get(field).and_then(Value::as_str) {
            None | Some("") => {
                let copy = filled.get_or_insert_with(|| obj.clone());
                copy[field] = json!(want);
            }
            Some(got) if got != want => return Ok(None),
            Some(_) => {}
        }
    }
    typed::round_trip(info, filled.as_ref().unwrap_or(obj))
}

fn messages(findings: &[Finding]) -> Vec<String> {
    findings.iter().map(Finding::message).collect()
}

/// Create and update (POST/PUT) bodies: type errors and, per `directive`, unknown or duplicate
/// fields are refused with the decoder's 400; otherwise unknown fields are dropped from `obj`.
pub fn check_object(
    info: &KindInfo,
    body: &[u8],
    obj: &mut Value,
    directive: Directive,
) -> Result<Warnings, ApiError> {
    let cannot_handle = |why: String| {
        ApiError::bad_request(format!(
            "{kind} in version {version:?} cannot be handled as a {kind}: {why}",
            kind = info.kind,
            version = info.version
        ))
    };
    let Some(known) = known_fields(info, obj).map_err(cannot_handle)? else {
        return Ok(Vec::new());
    };
    let found = match (directive, KeyTree::parse(body)) {
        (Directive::Ignore, _) | (_, Err(_)) => Vec::new(),
        (_, Ok(tree)) => unknown::findings(&tree, &known, PathStyle::Decoder),
    };
    unknown::prune(obj, &known);
    match directive {
        Directive::Strict if !found.is_empty() => Err(cannot_handle(format!(
            "strict decoding error: {}",
            messages(&found).join(", ")
        ))),
        Directive::Ignore | Directive::Strict => Ok(Vec::new()),
        Directive::Warn => Ok(messages(&found)),
    }
}

/// Problems in the patch document itself: duplicate keys (merge and strategic patches), or
/// unknown and duplicate operation fields of a JSON patch.
fn patch_findings(ty: PatchType, body: &[u8]) -> Vec<String> {
    let Ok(tree) = KeyTree::parse(body) else {
        return Vec::new();
    };
    match ty {
        PatchType::Json => {
            let KeyTree::Array(ops) = tree else {
                return Vec::new();
            };
            let mut found = Vec::new();
            for (i, op) in ops.iter().enumerate() {
                let KeyTree::Object(entries) = op else {
                    continue;
                };
                let mut seen: Vec<&str> = Vec::new();
                for (key, _) in entries {
                    let path = format!("[{i}].{key}");
                    if !["op", "path", "from", "value"].contains(&key.as_str()) {
                        if !seen.contains(&key.as_str()) {
                            found.push(format!("json patch unknown field {path:?}"));
                        }
                    } else if seen.contains(&key.as_str()) {
                        found.push(format!("json patch duplicate field {path:?}"));
                    }
                    seen.push(key);
                }
            }
            found
        }
        _ => {
            let Ok(patch) = serde_json::from_slice::<Value>(body) else {
                return Vec::new();
            };
            messages(&unknown::findings(&tree, &patch, PathStyle::Decoder))
        }
    }
}

/// JSON, merge and strategic patches: `patched` is the object after the patch. Type errors and,
/// per `directive`, problems of the patch or unknown fields of the result are refused with the
/// real server's 422 on the `patch` field; otherwise unknown fields are dropped from `patched`.
pub fn check_patched(
    info: &KindInfo,
    ty: PatchType,
    body: &[u8],
    patched: &mut Value,
    directive: Directive,
) -> Result<Warnings, ApiError> {
    let shown = || match ty {
        PatchType::Strategic => {
            gofmt::go_value(&serde_json::from_slice(body).unwrap_or(Value::Null))
        }
        _ => sorted(patched).to_string(),
    };
    let refuse = |why: String, shown: String| {
        ApiError::invalid(
            "",
            "",
            "",
            vec![invalid_value("patch", &Value::String(shown), &why)],
        )
    };
    let known = match known_fields(info, patched) {
        Ok(Some(k)) => k,
        Ok(None) => return Ok(Vec::new()),
        Err(e) => return Err(refuse(e, shown())),
    };
    let mut found = Vec::new();
    if directive != Directive::Ignore {
        found = patch_findings(ty, body);
        found.extend(messages(&unknown::findings(
            &KeyTree::of_sorted(patched),
            &known,
            PathStyle::Decoder,
        )));
    }
    if directive == Directive::Strict && !found.is_empty() {
        let why = format!("strict decoding error: {}", found.join(", "));
        return Err(refuse(why, shown()));
    }
    unknown::prune(patched, &known);
    Ok(if directive == Directive::Warn {
        found
    } else {
        Vec::new()
    })
}

/// Server-side apply: the applied configuration must fit the schema whatever `fieldValidation`
/// says; otherwise the real server fails with structured-merge-diff's error (an unclassified 500).
pub fn check_apply(info: &KindInfo, config: &Value) -> Result<(), ApiError> {
    let meta = &config["metadata"];
    let fail = |why: String| {
        ApiError::unclassified(format!(
            "failed to create typed patch object ({}/{}; {}/{}, Kind={}): {why}",
            meta["namespace"].as_str().unwrap_or_default(),
            meta["name"].as_str().unwrap_or_default(),
            info.group,
            info.version,
            info.kind
        ))
    };
    let Some(known) = known_fields(info, config).map_err(fail)? else {
        return Ok(());
    };
    let errors: Vec<String> =
        unknown::findings(&KeyTree::of(config), &known, PathStyle::Apply(info.kind))
            .into_iter()
            .filter_map(|f| match f {
                Finding::Unknown(p) => Some(format!("{p}: field not declared in schema")),
                Finding::Duplicate(_) => None,
            })
            .collect();
    match errors.as_slice() {
        [] => Ok(()),
        [one] => Err(fail(one.clone())),
        many => Err(fail(format!("errors:\n  {}", many.join("\n  ")))),
    }
}

/// A copy with every object's keys sorted, as Go's encoder writes a decoded map.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), sorted(&m[k]));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::{KINDS, by_kind};

    fn deployment() -> &'static KindInfo {
        &KINDS[by_kind("apps/v1", "Deployment").unwrap()]
    }

    const BODY: &str = r#"{"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "d", "labels": {"any": "label"}},
        "spec": {"replicaz": 1, "paused": true, "paused": false,
          "template": {"spec": {"containers": [{"name": "c", "image": "i", "bogus": 1}]}}}}"#;

    #[test]
    fn strict_refuses_with_the_decoder_message() {
        let mut obj: Value = serde_json::from_str(BODY).unwrap();
        let err =
            check_object(deployment(), BODY.as_bytes(), &mut obj, Directive::Strict).unwrap_err();
        assert_eq!(err.code, 400);
        assert_eq!(
            err.message,
            r#"Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replicaz", duplicate field "spec.paused", unknown field "spec.template.spec.containers[0].bogus""#
        );
    }

    #[test]
    fn warn_and_ignore_drop_unknown_fields() {
        for (directive, warnings) in [(Directive::Warn, 3), (Directive::Ignore, 0)] {
            let mut obj: Value = serde_json::from_str(BODY).unwrap();
            let said = check_object(deployment(), BODY.as_bytes(), &mut obj, directive).unwrap();
            assert_eq!(said.len(), warnings);
            assert!(obj["spec"].get("replicaz").is_none());
            assert!(
                obj["spec"]["template"]["spec"]["containers"][0]
                    .get("bogus")
                    .is_none()
            );
            assert_eq!(obj["metadata"]["labels"]["any"], "label");
        }
    }

    #[test]
    fn type_errors_are_refused_in_every_mode() {
        let body = br#"{"spec": {"replicas": "two"}}"#;
        let mut obj: Value = serde_json::from_slice(body).unwrap();
        let err = check_object(deployment(), body, &mut obj, Directive::Ignore).unwrap_err();
        assert!(
            err.message
                .starts_with(r#"Deployment in version "v1" cannot be handled as a Deployment: "#)
        );
    }

    #[test]
    fn patches_report_patch_problems_then_sorted_unknowns() {
        let body = br#"{"spec": {"zeta": 1, "paused": true, "paused": false, "alpha": 2}}"#;
        let mut patched = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d"}, "spec": {"zeta": 1, "paused": false, "alpha": 2}});
        let err = check_patched(
            deployment(),
            PatchType::Strategic,
            body,
            &mut patched.clone(),
            Directive::Strict,
        )
        .unwrap_err();
        assert_eq!(err.code, 422);
        assert_eq!(
            err.message,
            r#" "" is invalid: patch: Invalid value: "map[spec:map[alpha:2 paused:false zeta:1]]": strict decoding error: duplicate field "spec.paused", unknown field "spec.alpha", unknown field "spec.zeta""#
        );
        let warned = check_patched(
            deployment(),
            PatchType::Merge,
            body,
            &mut patched,
            Directive::Warn,
        )
        .unwrap();
        assert_eq!(warned.len(), 3);
        assert!(patched["spec"].get("zeta").is_none());
    }

    #[test]
    fn json_patch_operations_are_checked() {
        let body = br#"[{"op": "add", "path": "/spec/paused", "value": true, "foo": 1},
            {"op": "add", "path": "/a", "path": "/spec/paused", "value": false}]"#;
        assert_eq!(
            patch_findings(PatchType::Json, body),
            vec![
                r#"json patch unknown field "[0].foo""#,
                r#"json patch duplicate field "[1].path""#
            ]
        );
    }

    #[test]
    fn apply_names_the_field_not_declared_in_schema() {
        let config = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "namespace": "ns"}, "spec": {"replicaz": 1}});
        let err = check_apply(deployment(), &config).unwrap_err();
        assert_eq!(err.code, 500);
        assert_eq!(
            err.message,
            "failed to create typed patch object (ns/d; apps/v1, Kind=Deployment): .spec.replicaz: field not declared in schema"
        );
    }

    #[test]
    fn warning_headers_are_quoted() {
        assert_eq!(
            warning_header(r#"unknown field "spec.x""#),
            r#"299 - "unknown field \"spec.x\"""#
        );
        let p: Params = [("fieldValidation".to_string(), "Loose".to_string())].into();
        assert_eq!(Directive::from_params(&p).unwrap_err().code, 400);
    }
}
