//! The "Commit" column header TestGrid derives from started/finished metadata.

use serde_json::{Map, Value};

/// What TestGrid shows for a header it has no value for (on a finished build).
const MISSING: &str = "missing";

/// Picks the version string like TestGrid's `metadata.Version`: first non-empty of a fixed list
/// of keys, cut after the last `+` and to 9 characters; `None` where TestGrid says `missing`.
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
        .rsplit_once('+')
        .map_or(version.as_str(), |(_, tail)| tail);
    Some(after_plus.chars().take(9).collect())
}

/// The `Commit` header as TestGrid fills it: a string `Commit` in finished.json's metadata
/// wins (uncut), else the version, else `missing`, which stays blank while the build runs.
pub fn commit_header(
    started: &Map<String, Value>,
    finished: &Map<String, Value>,
    running: bool,
) -> String {
    let own = finished
        .get("metadata")
        .and_then(Value::as_object)
        .and_then(|m| m.get("Commit"))
        .and_then(Value::as_str);
    if let Some(commit) = own {
        return commit.to_owned();
    }
    match version(started, finished) {
        Some(v) => v,
        None if running => String::new(),
        None => MISSING.to_owned(),
    }
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
