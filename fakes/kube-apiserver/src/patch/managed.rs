//! `metadata.managedFields` bookkeeping for non-apply writes (create, update, patch): the writer
//! gains the fields it changed and every other manager loses them, as the real server does.

use serde_json::{Value, json};

use super::fieldset::{self, FieldSet};

/// One `managedFields` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Field manager name.
    pub manager: String,
    /// `Apply` or `Update`.
    pub operation: String,
    /// apiVersion the fields were written with.
    pub api_version: String,
    /// RFC 3339 time of the last change by this manager.
    pub time: String,
    /// `status` for writes through the status subresource.
    pub subresource: Option<String>,
    /// Owned fields.
    pub fields: FieldSet,
}

impl Entry {
    fn same_slot(&self, manager: &str, operation: &str, subresource: Option<&str>) -> bool {
        self.manager == manager
            && self.operation == operation
            && self.subresource.as_deref() == subresource
    }

    /// The manager as conflicts print it: `"m"` or `"m" using v1`.
    pub fn describe(&self) -> String {
        if self.operation == "Update" {
            format!("{:?} using {}", self.manager, self.api_version)
        } else {
            format!("{:?}", self.manager)
        }
    }
}

/// Reads the entries of an object.
pub fn read(object: &Value) -> Vec<Entry> {
    object["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| Entry {
            manager: e["manager"].as_str().unwrap_or_default().to_string(),
            operation: e["operation"].as_str().unwrap_or("Update").to_string(),
            api_version: e["apiVersion"].as_str().unwrap_or_default().to_string(),
            time: e["time"].as_str().unwrap_or_default().to_string(),
            subresource: e["subresource"].as_str().map(str::to_string),
            fields: fieldset::decode(&e["fieldsV1"]),
        })
        .collect()
}

/// Writes entries back (empty ones dropped).
pub fn write(object: &mut Value, entries: Vec<Entry>) {
    let list: Vec<Value> = entries
        .into_iter()
        .filter(|e| !e.fields.is_empty())
        .map(|e| {
            let mut v = json!({
                "manager": e.manager,
                "operation": e.operation,
                "apiVersion": e.api_version,
                "time": e.time,
                "fieldsType": "FieldsV1",
                "fieldsV1": fieldset::encode(&e.fields),
            });
            if let Some(s) = e.subresource {
                v["subresource"] = json!(s);
            }
            v
        })
        .collect();
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        if list.is_empty() {
            meta.remove("managedFields");
        } else {
            meta.insert("managedFields".into(), Value::Array(list));
        }
    }
}

/// Updates `new`'s managedFields for a non-apply write by `manager` (old = None on create).
pub fn record_update(
    kind: &str,
    old: Option<&Value>,
    new: &mut Value,
    manager: &str,
    subresource: Option<&str>,
    now: &str,
) {
    let mut entries = old.map(read).unwrap_or_default();
    let before = old.map(|o| fieldset::leaves(kind, o)).unwrap_or_default();
    let after = fieldset::leaves(kind, new);
    let changed: FieldSet = after
        .iter()
        .filter(|(p, v)| before.get(*p) != Some(*v))
        .map(|(p, _)| p.clone())
        .collect();
    for e in &mut entries {
        e.fields
            .retain(|p| after.contains_key(p) && !changed.contains(p));
    }
    if !changed.is_empty() {
        let api_version = new["apiVersion"].as_str().unwrap_or_default().to_string();
        match entries
            .iter_mut()
            .find(|e| e.same_slot(manager, "Update", subresource))
        {
            Some(e) => {
                e.fields.extend(changed);
                e.time = now.to_string();
                e.api_version = api_version;
            }
            None => entries.push(Entry {
                manager: manager.to_string(),
                operation: "Update".into(),
                api_version,
                time: now.to_string(),
                subresource: subresource.map(str::to_string),
                fields: changed,
            }),
        }
    }
    write(new, entries);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updater_takes_changed_fields_from_others() {
        let mut first = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"x": "1", "y": "1"}});
        record_update("ConfigMap", None, &mut first, "alice", None, "t0");
        let mut second = first.clone();
        second["data"]["x"] = json!("2");
        record_update("ConfigMap", Some(&first), &mut second, "bob", None, "t1");
        let entries = read(&second);
        assert_eq!(entries.len(), 2);
        assert_eq!(
            fieldset::encode(&entries[0].fields),
            json!({"f:data": {"f:y": {}}})
        );
        assert_eq!(
            fieldset::encode(&entries[1].fields),
            json!({"f:data": {"f:x": {}}})
        );
        assert_eq!(entries[1].describe(), "\"bob\" using v1");
    }
}
