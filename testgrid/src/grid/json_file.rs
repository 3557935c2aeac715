//! Reading `started.json`/`finished.json` with the strictness of TestGrid's Go decoder.

use std::path::Path;

use serde_json::{Map, Value};

/// Outcome of reading one of the JSON metadata files.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonFile {
    /// Not there.
    Missing,
    /// Empty (nothing but white space): Go's decoder says `io.EOF`, which TestGrid's
    /// `readResult` (`pkg/updater/read.go`) records as "Malformed artifacts".
    Empty,
    /// Unreadable, cut short, not JSON, or a field of the wrong type: TestGrid fails to download
    /// the column. The text is what follows `decode: ` in TestGrid's error.
    Invalid(String),
    /// A decoded object.
    Object(Map<String, Value>),
}

/// Reads and decodes `dir/name`, then checks field types the Go struct would reject.
pub fn read(dir: &Path, name: &str, typed: &[(&str, FieldType)]) -> JsonFile {
    let bytes = match std::fs::read(dir.join(name)) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return JsonFile::Missing,
        Err(e) => return JsonFile::Invalid(format!("cannot read: {e}")),
    };
    // util/gcs/read.go `readJSON` decodes with `json.NewDecoder(r).Decode`: an empty stream is
    // `io.EOF` (malformed), a stream cut short `io.ErrUnexpectedEOF` ("unexpected EOF"), which
    // readResult does not treat as malformed but as a failed download.
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return JsonFile::Empty;
    }
    let value: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) if e.is_eof() => return JsonFile::Invalid("unexpected EOF".to_owned()),
        Err(e) => return JsonFile::Invalid(format!("not valid JSON: {e}")),
    };
    let Value::Object(map) = value else {
        return JsonFile::Invalid(format!("top level is {}, expected an object", kind(&value)));
    };
    for (key, ty) in typed {
        if let Some(v) = map.get(*key)
            && !v.is_null()
            && !ty.accepts(v)
        {
            return JsonFile::Invalid(format!(
                "field {key:?} is {} {v}, expected {}",
                kind(v),
                ty.describe()
            ));
        }
    }
    JsonFile::Object(map)
}

/// Go types of the fields TestGrid decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// `int64` (epoch seconds): no strings, no fractions.
    Int64,
    /// `*bool`.
    Bool,
    /// `string`.
    Str,
    /// `map[string]string`.
    StrMap,
    /// `map[string]interface{}`.
    Object,
}

impl FieldType {
    fn accepts(self, v: &Value) -> bool {
        match self {
            FieldType::Int64 => v.is_i64(),
            FieldType::Bool => v.is_boolean(),
            FieldType::Str => v.is_string(),
            FieldType::StrMap => v
                .as_object()
                .is_some_and(|m| m.values().all(|x| x.is_string() || x.is_null())),
            FieldType::Object => v.is_object(),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            FieldType::Int64 => "an integer (epoch seconds)",
            FieldType::Bool => "true or false",
            FieldType::Str => "a string",
            FieldType::StrMap => "an object of strings",
            FieldType::Object => "an object",
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a fractional number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Fields of `started.json` and their Go types.
pub const STARTED_FIELDS: &[(&str, FieldType)] = &[
    ("timestamp", FieldType::Int64),
    ("node", FieldType::Str),
    ("pull", FieldType::Str),
    ("repos", FieldType::StrMap),
    ("repo-commit", FieldType::Str),
    ("repo-version", FieldType::Str),
    ("job-version", FieldType::Str),
    ("metadata", FieldType::Object),
];

/// Fields of `finished.json` and their Go types.
pub const FINISHED_FIELDS: &[(&str, FieldType)] = &[
    ("timestamp", FieldType::Int64),
    ("passed", FieldType::Bool),
    ("result", FieldType::Str),
    ("revision", FieldType::Str),
    ("job-version", FieldType::Str),
    ("repo-version", FieldType::Str),
    ("metadata", FieldType::Object),
];

/// Fields of `podinfo.json` whose type TestGrid's decoder checks at the top level (the pod
/// itself is a Kubernetes object).
pub const PODINFO_FIELDS: &[(&str, FieldType)] = &[("pod", FieldType::Object)];

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(text: &str, fields: &[(&str, FieldType)]) -> JsonFile {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.json"), text).unwrap();
        read(dir.path(), "f.json", fields)
    }

    #[test]
    fn classifies_like_testgrid() {
        assert_eq!(
            read(Path::new("/nonexistent"), "f.json", &[]),
            JsonFile::Missing
        );
        assert_eq!(read_str("", STARTED_FIELDS), JsonFile::Empty);
        assert_eq!(read_str(" \n", STARTED_FIELDS), JsonFile::Empty);
        assert_eq!(
            read_str(r#"{"timestamp": 1"#, STARTED_FIELDS),
            JsonFile::Invalid("unexpected EOF".into())
        );
        assert!(matches!(
            read_str(r#"{"timestamp": "1767225600"}"#, STARTED_FIELDS),
            JsonFile::Invalid(_)
        ));
        assert!(matches!(
            read_str(r#"{"timestamp": 1767225600.5}"#, STARTED_FIELDS),
            JsonFile::Invalid(_)
        ));
        assert!(matches!(
            read_str(r#"{"passed": "true"}"#, FINISHED_FIELDS),
            JsonFile::Invalid(_)
        ));
        assert!(matches!(
            read_str("[]", FINISHED_FIELDS),
            JsonFile::Invalid(_)
        ));
        assert!(matches!(
            read_str(r#"{"timestamp": 1, "x": "y"}"#, STARTED_FIELDS),
            JsonFile::Object(_)
        ));
    }
}
