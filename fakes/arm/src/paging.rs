//! Collection listing (RG, subscription, scale-set, scale-set-wide NIC/public IP and embedded-child scopes, `$filter` on the flexible
//! scale-set id, `$expand=instanceView`) and `nextLink` paging with an opaque `$skipToken`.

use crate::error::ArmError;
use crate::error_codes;
use crate::id::{ArmPath, key_of};
use crate::kinds::{self, KindId};
use crate::state::with_instance_view;
use crate::store::{Store, not_found};
use serde_json::Value;

/// Every item of a collection in key order, as `(key, document)`.
pub(crate) fn collect(
    store: &Store,
    path: &ArmPath,
    expand_iv: bool,
    vmss_filter: Option<&str>,
) -> Result<Vec<(String, Value)>, ArmError> {
    let sub_prefix = format!("/subscriptions/{}/", path.subscription.to_ascii_lowercase());
    if path.namespace.is_none() {
        if !path.is_collection() {
            return Err(ArmError::new(
                error_codes::INVALID_RESOURCE_TYPE,
                "The path does not name a collection.",
            ));
        }
        let prefix = format!("{sub_prefix}resourcegroups/");
        return Ok(store
            .entries
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .filter(|(_, e)| e.kind == KindId::ResourceGroup)
            .map(|(k, e)| (k.clone(), e.doc.clone()))
            .collect());
    }
    let kind = kinds::lookup(&path.type_key()).ok_or_else(|| {
        ArmError::new(
            error_codes::INVALID_RESOURCE_TYPE,
            format!(
                "The resource type '{}' could not be found.",
                path.types.join("/")
            ),
        )
    })?;
    if !path.is_collection() {
        return Err(ArmError::new(
            error_codes::INVALID_RESOURCE_TYPE,
            "The path does not name a collection.",
        ));
    }
    let render = |e: &crate::store::Entry| {
        if expand_iv {
            with_instance_view(e)
        } else {
            e.doc.clone()
        }
    };
    if path.names.is_empty() {
        // Top-level collection at RG or subscription scope.
        if path.resource_group.is_some() {
            store.require_rg(path)?;
        }
        let scope_prefix = match &path.resource_group {
            Some(rg) => format!("{sub_prefix}resourcegroups/{}/", rg.to_ascii_lowercase()),
            None => sub_prefix.clone(),
        };
        let type_suffix = format!("/providers/{}", kind.full_type().to_ascii_lowercase());
        let mut out = Vec::new();
        for (k, e) in store
            .entries
            .range(scope_prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&scope_prefix))
        {
            if e.kind != kind.id {
                continue;
            }
            let Some((head, _name)) = k.rsplit_once('/') else {
                continue;
            };
            if !head.ends_with(&type_suffix) {
                continue;
            }
            if let Some(f) = vmss_filter {
                let member = e
                    .doc
                    .pointer("/properties/virtualMachineScaleSet/id")
                    .and_then(Value::as_str)
                    .is_some_and(|v| key_of(v) == key_of(f));
                if !member {
                    continue;
                }
            }
            out.push((k.clone(), render(e)));
        }
        return Ok(out);
    }
    store.require_rg(path)?;
    let parent_path = ArmPath {
        types: path.types[..path.names.len()].to_vec(),
        ..path.clone()
    };
    let parent_kind = kinds::lookup(&parent_path.type_key())
        .ok_or_else(|| ArmError::new(error_codes::INVALID_RESOURCE_TYPE, "Unknown parent type."))?;
    let parent_id = store.display_id(&parent_path, parent_kind);
    let parent_key = key_of(&parent_id);
    if store.object(&parent_key).is_none() {
        return Err(not_found(store, &parent_path, parent_kind, &parent_id));
    }
    if kinds::is_scale_set_wide_view(kind) {
        // Every instance's NICs (or public IPs) of the scale set, in instance order.
        let prefix = format!("{parent_key}/virtualmachines/");
        let mut out: Vec<(u64, String, Value)> = store
            .entries
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .filter(|(_, e)| e.kind == kind.id)
            .map(|(k, e)| {
                let instance = k[prefix.len()..]
                    .split('/')
                    .next()
                    .and_then(|i| i.parse::<u64>().ok())
                    .unwrap_or(0);
                (instance, k.clone(), render(e))
            })
            .collect();
        out.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        return Ok(out
            .into_iter()
            .enumerate()
            .map(|(i, (_, _, v))| (format!("{prefix}{i:012}"), v))
            .collect());
    }
    let Some(parent) = store.entries.get(&parent_key) else {
        // Stored resources under an embedded child (a scale-set ipconfig's public IPs).
        let prefix = format!("{parent_key}/{}/", kind.last_type().to_ascii_lowercase());
        return Ok(store
            .entries
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .filter(|(k, e)| e.kind == kind.id && !k[prefix.len()..].contains('/'))
            .map(|(k, e)| (k.clone(), render(e)))
            .collect());
    };
    if kind.is_embedded() {
        let items = parent
            .doc
            .pointer(&format!("/properties/{}", kind.last_type()))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        return Ok(items
            .into_iter()
            .enumerate()
            .map(|(i, v)| (format!("{parent_key}/{i:08}"), v))
            .collect());
    }
    let prefix = format!("{parent_key}/{}/", kind.last_type().to_ascii_lowercase());
    let mut out: Vec<(String, Value)> = store
        .entries
        .range(prefix.clone()..)
        .take_while(|(k, _)| k.starts_with(&prefix))
        .filter(|(k, e)| e.kind == kind.id && !k[prefix.len()..].contains('/'))
        .map(|(k, e)| (k.clone(), render(e)))
        .collect();
    if kind.id == KindId::VmssVm {
        out.sort_by_key(|(k, _)| {
            k.rsplit('/')
                .next()
                .and_then(|i| i.parse::<u64>().ok())
                .unwrap_or(0)
        });
        for (i, (k, _)) in out.iter_mut().enumerate() {
            *k = format!("{prefix}{i:012}");
        }
    }
    Ok(out)
}

/// Hex-encodes the last key of a page as the opaque `$skipToken`.
pub(crate) fn token_for(key: &str) -> String {
    key.bytes().map(|b| format!("{b:02x}")).collect()
}

/// Decodes a `$skipToken`.
pub(crate) fn key_from_token(token: &str) -> Option<String> {
    if !token.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..token.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(token.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

/// One page: items after the token's key, at most `page_size`, plus the token of the next page if more remain.
pub(crate) fn page(
    items: Vec<(String, Value)>,
    token: Option<&str>,
    page_size: usize,
) -> Result<(Vec<Value>, Option<String>), ArmError> {
    let after = match token {
        Some(t) => Some(key_from_token(t).ok_or_else(|| {
            ArmError::new(
                error_codes::INVALID_SKIP_TOKEN,
                format!("The skip token '{t}' is invalid."),
            )
        })?),
        None => None,
    };
    let mut rest: Vec<(String, Value)> = items
        .into_iter()
        .filter(|(k, _)| after.as_ref().is_none_or(|a| k > a))
        .collect();
    let size = page_size.max(1);
    let next = if rest.len() > size {
        Some(token_for(&rest[size - 1].0))
    } else {
        None
    };
    rest.truncate(size);
    Ok((rest.into_iter().map(|(_, v)| v).collect(), next))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn paging_visits_every_item_once(n in 0usize..40, size in 1usize..7) {
            let items: Vec<(String, Value)> = (0..n).map(|i| (format!("k{i:03}"), Value::from(i))).collect();
            let mut seen = Vec::new();
            let mut token = None;
            loop {
                let (vals, next) = page(items.clone(), token.as_deref(), size).unwrap();
                prop_assert!(vals.len() <= size);
                seen.extend(vals);
                match next { Some(t) => token = Some(t), None => break }
            }
            prop_assert_eq!(seen, items.into_iter().map(|(_, v)| v).collect::<Vec<_>>());
        }
    }
}
