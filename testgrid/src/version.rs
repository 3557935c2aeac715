//! Column header values TestGrid derives from started/finished metadata: the "Commit" header
//! and every other configured `column_header` (`convertResult` in `pkg/updater/gcs.go`).

use serde_json::{Map, Value};

/// What TestGrid shows for a header it has no value for (on a finished build).
const MISSING: &str = "missing";

/// The header name whose value falls back to the derived version.
pub const COMMIT_HEADER: &str = "Commit";

/// Picks the version string like TestGrid's `metadata.Version` (`metadata/job.go`): first
/// non-empty of a fixed list of keys, then `strings.SplitN(val, "+", 2)` keeps what follows the
/// FIRST `+`, cut to 9 bytes; `None` where TestGrid says `missing`.
fn version(started: &Map<String, Value>, finished: &Map<String, Value>) -> Option<String> {
    let meta = finished.get("metadata").and_then(Value::as_object);
    let from = |obj: Option<&Map<String, Value>>, key: &str| {
        obj.and_then(|o| o.get(key))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let candidates = [
        from(Some(finished), "job-version"),
        from(Some(started), "job-version"),
        from(Some(started), "repo-version"),
        from(Some(finished), "repo-version"),
        from(meta, "revision"),
        from(meta, "repo-commit"),
        from(meta, "job-version"),
        from(Some(started), "repo-commit"),
    ];
    let version = candidates.into_iter().flatten().next()?;
    let after_plus = version
        .split_once('+')
        .map_or(version.as_str(), |(_, tail)| tail);
    // Go's `val[:9]` cuts bytes; a split character is replaced (Go would keep the broken byte).
    let cut = &after_plus.as_bytes()[..after_plus.len().min(9)];
    Some(String::from_utf8_lossy(cut).into_owned())
}

/// The value TestGrid shows under configured header `header`: a string of that name in
/// finished.json's metadata, else for `Commit` the derived version, else `missing`, which stays
/// blank while the build is running (`convertResult` in `pkg/updater/gcs.go`).
pub fn header_value(
    header: &str,
    started: &Map<String, Value>,
    finished: &Map<String, Value>,
    running: bool,
) -> String {
    let own = finished
        .get("metadata")
        .and_then(Value::as_object)
        .and_then(|m| m.get(header))
        .and_then(Value::as_str);
    if let Some(value) = own {
        return value.to_owned();
    }
    let derived = (header == COMMIT_HEADER)
        .then(|| version(started, finished))
        .flatten();
    match derived {
        Some(v) => v,
        None if running => String::new(),
        None => MISSING.to_owned(),
    }
}

/// Whether a header value is TestGrid's `missing`.
pub fn is_missing(value: &str) -> bool {
    value == MISSING
}

/// The `Commit` header as TestGrid fills it: a string `Commit` in finished.json's metadata
/// wins (uncut), else the version, else `missing`, which stays blank while the build runs.
pub fn commit_header(
    started: &Map<String, Value>,
    finished: &Map<String, Value>,
    running: bool,
) -> String {
    header_value(COMMIT_HEADER, started, finished, running)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn follows_testgrid_precedence_and_cutting() {
        let none = Map::new();
        let started = obj(json!({"repo-version": "v1.31.0-alpha.0.5+0123456789abc"}));
        assert_eq!(commit_header(&started, &none, false), "012345678");
        let finished = obj(json!({"metadata": {"job-version": "v1.34.2"}}));
        assert_eq!(commit_header(&started, &finished, false), "012345678");
        assert_eq!(commit_header(&none, &finished, false), "v1.34.2");
        assert_eq!(commit_header(&none, &none, false), "missing");
        assert_eq!(commit_header(&none, &none, true), "");
    }

    #[test]
    fn version_keeps_what_follows_the_first_plus() {
        let none = Map::new();
        let finished =
            obj(json!({"metadata": {"job-version": "v1.34.0-alpha.1+3f2a9c1e77b0+dirty"}}));
        assert_eq!(commit_header(&none, &finished, false), "3f2a9c1e7");
    }

    #[test]
    fn other_headers_come_from_metadata_strings_or_read_missing() {
        let none = Map::new();
        let finished = obj(json!({"metadata": {"ccm-version": "0.1.0", "n": 3}}));
        assert_eq!(
            header_value("ccm-version", &none, &finished, false),
            "0.1.0"
        );
        assert_eq!(header_value("n", &none, &finished, false), "missing");
        assert_eq!(header_value("other", &none, &finished, true), "");
    }

    #[test]
    fn metadata_commit_overrides_the_version_uncut() {
        let started = obj(json!({"repo-version": "v1.31.0+0123456789abc"}));
        let finished = obj(json!({"metadata": {"Commit": "0123456789abcdef+x"}}));
        assert_eq!(
            commit_header(&started, &finished, false),
            "0123456789abcdef+x"
        );
        let not_string = obj(json!({"metadata": {"Commit": 7}}));
        assert_eq!(commit_header(&started, &not_string, false), "012345678");
    }
}
