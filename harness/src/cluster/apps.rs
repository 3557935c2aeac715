//! Entra applications added to a topology before the fake starts, so each component signs in as
//! its own app and the fake's journal (`clientId` per entry) tells their ARM calls apart. One
//! function for every caller instead of a copy per test suite.

/// A client-secret app registration in the fake's Entra ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntraApp {
    /// Display name (topology `apps[].name`).
    pub name: String,
    /// Application (client) id.
    pub client_id: String,
    /// Client secret.
    pub secret: String,
}

impl EntraApp {
    /// An app from its three fields.
    pub fn new(name: &str, client_id: &str, secret: &str) -> Self {
        Self {
            name: name.to_string(),
            client_id: client_id.to_string(),
            secret: secret.to_string(),
        }
    }

    /// The app as a topology `apps:` list item (two-space indent, as the examples use).
    fn yaml_item(&self) -> String {
        format!(
            "  - name: {}\n    clientId: {}\n    secret: {}\n",
            self.name, self.client_id, self.secret
        )
    }
}

/// The topology `text` with `apps` added to its top-level `apps:` list (created at the end when
/// the topology has none; an inline empty `apps: []` is replaced). The rest of the text is kept
/// byte for byte, comments included; a JSON topology gets them in its object instead.
pub fn with_apps(text: &str, apps: &[EntraApp]) -> String {
    let items: String = apps.iter().map(EntraApp::yaml_item).collect();
    if items.is_empty() {
        return text.to_string();
    }
    // A topology in JSON form (a scenario's inline topology): appending YAML lines to it would
    // break it, so the apps go into the JSON object.
    if let Ok(serde_json::Value::Object(mut doc)) = serde_json::from_str(text) {
        let mut list: Vec<serde_json::Value> = apps
            .iter()
            .map(|a| serde_json::json!({"name": a.name, "clientId": a.client_id, "secret": a.secret}))
            .collect();
        if let Some(serde_json::Value::Array(existing)) = doc.remove("apps") {
            list.extend(existing);
        }
        doc.insert("apps".into(), serde_json::Value::Array(list));
        return serde_json::Value::Object(doc).to_string();
    }
    let mut out = String::with_capacity(text.len() + items.len() + 8);
    let mut added = false;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end();
        if !added && (bare == "apps:" || bare == "apps: []") {
            out.push_str("apps:\n");
            out.push_str(&items);
            added = true;
        } else {
            out.push_str(line);
        }
    }
    if !added {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("apps:\n");
        out.push_str(&items);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app() -> EntraApp {
        EntraApp::new("ccm", "11111111-1111-1111-1111-111111111111", "s")
    }

    #[test]
    fn joins_an_existing_list_first() {
        let text = "tenantId: t\napps:\n  - name: old\n    clientId: c\n    secret: x\nvms: []\n";
        let out = with_apps(text, &[app()]);
        assert_eq!(
            out,
            "tenantId: t\napps:\n  - name: ccm\n    clientId: 11111111-1111-1111-1111-111111111111\n    secret: s\n  - name: old\n    clientId: c\n    secret: x\nvms: []\n"
        );
    }

    #[test]
    fn creates_the_list_when_missing_or_inline_empty() {
        let appended = with_apps("tenantId: t", &[app()]);
        assert!(
            appended.starts_with("tenantId: t\napps:\n  - name: ccm\n"),
            "{appended}"
        );
        let replaced = with_apps("apps: []\nvms: []\n", &[app()]);
        assert!(replaced.starts_with("apps:\n  - name: ccm\n"), "{replaced}");
        assert!(replaced.ends_with("secret: s\nvms: []\n"), "{replaced}");
    }

    #[test]
    fn a_json_topology_gets_the_apps_in_its_object() {
        let out = with_apps(
            r#"{"tenantId": "t", "apps": [{"name": "old", "clientId": "c", "secret": "x"}]}"#,
            &[app()],
        );
        let doc: serde_json::Value = serde_json::from_str(&out).expect("still JSON");
        let names: Vec<&str> = doc["apps"]
            .as_array()
            .expect("apps")
            .iter()
            .filter_map(|a| a["name"].as_str())
            .collect();
        assert_eq!(names, ["ccm", "old"]);
        assert_eq!(
            doc["apps"][0]["clientId"],
            "11111111-1111-1111-1111-111111111111"
        );
        assert_eq!(doc["tenantId"], "t");
    }

    #[test]
    fn an_indented_apps_key_is_not_the_top_level_list() {
        let out = with_apps("x:\n  apps:\n", &[app()]);
        assert!(
            out.starts_with("x:\n  apps:\napps:\n  - name: ccm"),
            "{out}"
        );
    }
}
