//! ARM resource-id parsing: splits a path into subscription, resource group, provider namespace and
//! `(type, name)` pairs, matching the literal segments case-insensitively like ARM does.

use crate::error::ArmError;
use crate::error_codes;

/// A parsed ARM path: a resource id (`types.len() == names.len()`) or a collection (`one more type than names`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArmPath {
    /// Subscription id as sent.
    pub subscription: String,
    /// Resource group name as sent, if the path is RG-scoped.
    pub resource_group: Option<String>,
    /// `true` for `/subscriptions/{s}/resourceGroups` (the RG collection) and `.../resourceGroups/{rg}` itself.
    pub is_rg_path: bool,
    /// Provider namespace as sent (`Microsoft.Network`, `microsoft.Compute`...).
    pub namespace: Option<String>,
    /// Type segments as sent, outermost first.
    pub types: Vec<String>,
    /// Name segments as sent, outermost first.
    pub names: Vec<String>,
}

impl ArmPath {
    /// Parses `/subscriptions/...`; trailing slashes are ignored.
    pub fn parse(path: &str) -> Result<Self, ArmError> {
        let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let bad = || {
            ArmError::new(
                error_codes::INVALID_RESOURCE_ID,
                format!("The resource id '{path}' is not a valid ARM resource id."),
            )
        };
        if segs.len() < 2 || !segs[0].eq_ignore_ascii_case("subscriptions") {
            return Err(bad());
        }
        let mut out = ArmPath {
            subscription: segs[1].to_string(),
            resource_group: None,
            is_rg_path: false,
            namespace: None,
            types: Vec::new(),
            names: Vec::new(),
        };
        let mut i = 2;
        if i < segs.len() && segs[i].eq_ignore_ascii_case("resourceGroups") {
            out.is_rg_path = true;
            if i + 1 < segs.len() {
                out.resource_group = Some(segs[i + 1].to_string());
            }
            i += 2;
        }
        if i >= segs.len() {
            return Ok(out);
        }
        if !segs[i].eq_ignore_ascii_case("providers") || i + 1 >= segs.len() {
            return Err(bad());
        }
        out.is_rg_path = false;
        out.namespace = Some(segs[i + 1].to_string());
        let rest = &segs[i + 2..];
        if rest.is_empty() {
            return Err(bad());
        }
        for pair in rest.chunks(2) {
            out.types.push(pair[0].to_string());
            if let Some(name) = pair.get(1) {
                out.names.push((*name).to_string());
            }
        }
        Ok(out)
    }

    /// `true` when the path names a collection (ends with a type segment).
    pub fn is_collection(&self) -> bool {
        if self.namespace.is_none() {
            return self.is_rg_path && self.resource_group.is_none();
        }
        self.types.len() > self.names.len()
    }

    /// Lower-cased `namespace/type1/type2...`, the key of the kind registry.
    pub fn type_key(&self) -> String {
        let mut key = self
            .namespace
            .clone()
            .unwrap_or_default()
            .to_ascii_lowercase();
        for t in &self.types {
            key.push('/');
            key.push_str(&t.to_ascii_lowercase());
        }
        key
    }
}

/// Lower-cases an id for use as a storage key (ARM ids are case-insensitive).
pub fn key_of(id: &str) -> String {
    let trimmed = id.trim_end_matches('/');
    trimmed.to_ascii_lowercase()
}

/// Returns the parent id of an id by dropping the last `/type/name` pair (or `None` at the top-level resource).
pub fn parent_of(id: &str) -> Option<&str> {
    let path = ArmPath::parse(id).ok()?;
    if path.names.len() < 2 {
        return None;
    }
    let mut cut = id.trim_end_matches('/');
    for _ in 0..2 {
        cut = &cut[..cut.rfind('/')?];
    }
    Some(cut)
}

/// Last path segment (the resource name) of an id.
pub fn last_name(id: &str) -> &str {
    id.trim_end_matches('/').rsplit('/').next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_child_resource_ids_case_insensitively() {
        let p = ArmPath::parse("/SUBSCRIPTIONS/s/resourcegroups/RG/providers/microsoft.Network/loadBalancers/lb/backendAddressPools/p").unwrap();
        assert_eq!(p.resource_group.as_deref(), Some("RG"));
        assert_eq!(
            p.type_key(),
            "microsoft.network/loadbalancers/backendaddresspools"
        );
        assert_eq!(p.names, vec!["lb", "p"]);
        assert!(!p.is_collection());
    }

    #[test]
    fn recognises_collections_and_rg_paths() {
        assert!(
            ArmPath::parse(
                "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers"
            )
            .unwrap()
            .is_collection()
        );
        assert!(
            ArmPath::parse("/subscriptions/s/resourcegroups")
                .unwrap()
                .is_collection()
        );
        let rg = ArmPath::parse("/subscriptions/s/resourcegroups/x").unwrap();
        assert!(rg.is_rg_path && !rg.is_collection());
        assert!(ArmPath::parse("/foo/bar").is_err());
        assert!(ArmPath::parse("/subscriptions/s/resourceGroups/rg/providers").is_err());
    }

    #[test]
    fn parent_drops_one_pair() {
        assert_eq!(
            parent_of("/subscriptions/s/resourceGroups/rg/providers/N/a/x/b/y"),
            Some("/subscriptions/s/resourceGroups/rg/providers/N/a/x")
        );
        assert_eq!(
            parent_of("/subscriptions/s/resourceGroups/rg/providers/N/a/x"),
            None
        );
    }

    proptest! {
        #[test]
        fn parse_never_panics(s in "(/[a-zA-Z.]{0,6}){0,10}") {
            let _ = ArmPath::parse(&s);
        }
    }
}
