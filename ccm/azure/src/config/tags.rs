//! `tags` (`a=b,c=d`), `tagsMap` and `systemTags`: the tags put on the resources the CCM creates,
//! and the one reconcile every tagged resource (LB, PIP, route table) shares.

use std::collections::BTreeMap;

use super::error::ConfigError;
use super::origin::Origin;

/// Merges `tags` and `tagsMap` (the map wins on a shared key); keys and values are trimmed.
/// A pair without exactly one `=` or with an empty key is refused (upstream logs and skips it).
pub fn parse_tags(
    tags: Option<&str>,
    tags_map: Option<&BTreeMap<String, String>>,
    origin: &Origin,
) -> Result<BTreeMap<String, String>, ConfigError> {
    let mut out = BTreeMap::new();
    for pair in tags
        .unwrap_or("")
        .split(',')
        .filter(|pair| !pair.trim().is_empty())
    {
        let mut parts = pair.split('=');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(key), Some(value), None) if !key.trim().is_empty() => {
                out.insert(key.trim().to_string(), value.trim().to_string());
            }
            _ => {
                return Err(ConfigError::InvalidValue {
                    origin: Box::new(origin.clone()),
                    key: "tags".to_string(),
                    value: format!("{pair:?}"),
                    accepted: "comma-separated key=value pairs with non-empty keys".to_string(),
                });
            }
        }
    }
    for (key, value) in tags_map.into_iter().flatten() {
        if !key.trim().is_empty() {
            out.insert(key.trim().to_string(), value.trim().to_string());
        }
    }
    Ok(out)
}

/// `systemTags`: comma-separated tag key prefixes the CCM never removes.
pub fn parse_system_tags(system_tags: Option<&str>) -> Vec<String> {
    system_tags
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|key| !key.is_empty())
        .map(str::to_string)
        .collect()
}

/// Makes `current` carry every `expected` tag (keys matched case-insensitively, values compared
/// case-insensitively as upstream does); with `system_tags` set, also removes keys that are
/// neither expected nor under one of its prefixes. True when anything changed.
pub fn reconcile_tags(
    current: &mut BTreeMap<String, String>,
    expected: &BTreeMap<String, String>,
    system_tags: &[String],
) -> bool {
    let mut changed = false;
    for (key, value) in expected {
        let existing = current
            .keys()
            .find(|k| k.eq_ignore_ascii_case(key))
            .cloned();
        match existing {
            Some(k) => {
                if !current[&k].eq_ignore_ascii_case(value) {
                    current.insert(k, value.clone());
                    changed = true;
                }
            }
            None => {
                current.insert(key.clone(), value.clone());
                changed = true;
            }
        }
    }
    if !system_tags.is_empty() {
        let doomed: Vec<String> = current
            .keys()
            .filter(|k| !expected.keys().any(|e| e.eq_ignore_ascii_case(k)))
            .filter(|k| {
                !system_tags.iter().any(|prefix| {
                    k.to_ascii_lowercase()
                        .starts_with(&prefix.to_ascii_lowercase())
                })
            })
            .cloned()
            .collect();
        for key in doomed {
            current.remove(&key);
            changed = true;
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_and_map_merge_with_the_map_winning() {
        let map = BTreeMap::from([("team".to_string(), "net".to_string())]);
        let tags = parse_tags(
            Some(" team = core , env=prod"),
            Some(&map),
            &Origin::File("azure.json".into()),
        )
        .expect("parses");
        assert_eq!(tags["team"], "net");
        assert_eq!(tags["env"], "prod");
    }

    #[test]
    fn a_malformed_pair_is_refused() {
        let err =
            parse_tags(Some("a=b,c"), None, &Origin::File("azure.json".into())).expect_err("no =");
        assert!(
            err.to_string()
                .contains("key `tags` has invalid value \"c\""),
            "{err}"
        );
        assert_eq!(parse_system_tags(Some("a, b,,")), vec!["a", "b"]);
    }

    #[test]
    fn reconcile_adds_and_overwrites_and_removes_only_under_system_tags() {
        let mut t = tags(&[("Owner", "ALICE"), ("keep", "1"), ("aks-managed-x", "y")]);
        let expected = tags(&[("owner", "alice"), ("team", "net")]);
        assert!(reconcile_tags(&mut t, &expected, &[]));
        assert_eq!(t.get("Owner").map(String::as_str), Some("ALICE"));
        assert_eq!(t.get("team").map(String::as_str), Some("net"));
        assert!(!reconcile_tags(&mut t, &expected, &[]));
        assert!(reconcile_tags(
            &mut t,
            &expected,
            &["aks-managed".to_string()]
        ));
        assert_eq!(
            t,
            tags(&[("Owner", "ALICE"), ("team", "net"), ("aks-managed-x", "y")])
        );
    }

    fn tags(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }
}
