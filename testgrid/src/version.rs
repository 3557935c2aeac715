//! The "Commit" column header TestGrid derives from started/finished metadata.

use serde_json::{Map, Value};

/// Picks the version string like TestGrid's `metadata.Version`: first non-empty of a fixed list
/// of keys, cut after the last `+` and to 9 characters; `missing` when none is set.
pub fn commit_header(started: &Map<String, Value>, finished: &Map<String, Value>) -> String {
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
    let Some(version) = candidates.into_iter().flatten().next() else {
        return "missing".to_owned();
    };
    let after_plus = version
        .rsplit_once('+')
        .map_or(version.as_str(), |(_, tail)| tail);
    after_plus.chars().take(9).collect()
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
        let started = obj(json!({"repo-version": "v1.31.0-alpha.0.5+0123456789abc"}));
        assert_eq!(commit_header(&started, &Map::new()), "012345678");
        let finished = obj(json!({"metadata": {"job-version": "v1.34.2"}}));
        assert_eq!(commit_header(&started, &finished), "012345678");
        assert_eq!(commit_header(&Map::new(), &finished), "v1.34.2");
        assert_eq!(commit_header(&Map::new(), &Map::new()), "missing");
    }
}
