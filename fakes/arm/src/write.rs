//! The write pipeline shared by HTTP PUT/PATCH and the programmatic API: operation conflicts,
//! preconditions, RP-specific preparation, reference validation, in-use checks on removed children,
//! stamping (etag, provisioningState), commit with back-reference refresh, and LRO creation.

use crate::completion;
use crate::config::ArmConfig;
use crate::error::ArmError;
use crate::error_codes;
use crate::etag::{self, Preconditions};
use crate::id::{ArmPath, key_of};
use crate::kinds::{self, Kind, KindId, Provider};
use crate::lro::{OpKind, OpStatus, Operation, now_rfc3339, superseded};
use crate::not_provisioned;
use crate::references::{self, RefKind, in_use_error, owned_by};
use crate::resources;
use crate::store::{Entry, Store, embedded_children, find_child, not_found};
use http::StatusCode;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// Per-request context of a write.
pub(crate) struct WriteCtx<'a> {
    /// Fake configuration.
    pub cfg: &'a ArmConfig,
    /// `https://host` used in URLs placed in messages.
    pub base: &'a str,
    /// Complete synchronously (programmatic API) instead of starting an LRO.
    pub sync: bool,
    /// api-version of the request (echoed in operation URLs).
    pub api_version: String,
    /// Fault injection: the operation ends Failed with this error.
    pub fail: Option<ArmError>,
    /// If-Match / If-None-Match.
    pub pre: Preconditions,
}

/// How a write reaches [`Store::put_entry`]; decides how it meets an operation still running on the resource.
#[derive(Clone, Copy)]
pub(crate) enum WriteVia {
    /// A client PUT of the resource itself: supersedes a running PUT.
    Put,
    /// A PATCH: a non-PUT write, so NRP refuses it while any operation runs (CRP still preempts).
    Patch,
    /// A PUT or DELETE of this embedded child kind, rewriting its parent: a non-PUT write of the parent.
    Child(&'static Kind),
}

/// Result of a PUT/PATCH.
pub(crate) struct WriteOutcome {
    /// 200 or 201.
    pub status: StatusCode,
    /// Response body (the resource or the child).
    pub body: Value,
    /// Operation started, if any.
    pub op: Option<String>,
}

/// Result of a DELETE.
pub(crate) struct DeleteOutcome {
    /// 200, 202 or 204.
    pub status: StatusCode,
    /// Operation started (or already finished, for NIC deletes), if any.
    pub op: Option<String>,
}

/// `true` when a prepared document equals the stored one apart from what every write stamps (etag, state).
fn same_model(stored: &Value, prepared: &Value) -> bool {
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(o) = v.as_object_mut() {
            o.remove("etag");
        }
        if let Some(p) = v.get_mut("properties").and_then(Value::as_object_mut) {
            p.remove("provisioningState");
        }
        v
    };
    strip(stored) == strip(prepared)
}

/// Every id addressable inside a stored document (itself and its embedded children), lower-cased.
pub(crate) fn addressable(kind: KindId, doc: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Some(id) = doc.get("id").and_then(Value::as_str) {
        out.insert(key_of(id));
    }
    for c in embedded_children(doc, kind) {
        if let Some(id) = c.get("id").and_then(Value::as_str) {
            out.insert(key_of(id));
        }
    }
    out
}

pub(crate) fn another_operation(op: &Operation, base: &str) -> ArmError {
    let url = format!(
        "{base}{}",
        op.async_path().unwrap_or_else(|| op.location_path())
    );
    ArmError::nrp(
        error_codes::ANOTHER_OPERATION_IN_PROGRESS,
        format!(
            "Another operation on this or dependent resource is in progress. To retrieve status of the operation use uri: {url}."
        ),
    )
}

fn marked_for_deletion(kind: &Kind, name: &str, path: &ArmPath) -> ArmError {
    let msg = if kind.id == KindId::VmssVm {
        let vmss = path.names.first().cloned().unwrap_or_default();
        format!(
            "'Put on Virtual Machine Scale Set VM Instance' is not allowed on Virtual Machine Scale Set '{vmss}' since it is marked for deletion. For more information on your operations, please refer to https://aka.ms/activitylog."
        )
    } else {
        format!(
            "Operation 'PUT' is not allowed on '{name}' since it is marked for deletion. You can only retry the Delete operation (or wait for an ongoing one to complete)."
        )
    };
    ArmError::new(error_codes::OPERATION_NOT_ALLOWED, msg)
}

/// The missing-reference error, also used for a reference to a resource in another region. Verified: 400 with
/// this wording in cloud-provider-azure `pkg/retry` comments, terraform-provider-azurerm issue logs, and the AKS
/// "Troubleshoot the InvalidResourceReference error code" article (whose documented cause includes a VNet in a
/// different region than the scale set).
fn invalid_reference(to: &str, from: &str) -> ArmError {
    ArmError::nrp(
        error_codes::INVALID_RESOURCE_REFERENCE,
        format!(
            "Resource {to} referenced by resource {from} was not found. Please make sure that the referenced resource exists, and that both resources are in the same region."
        ),
    )
}

/// References a whole-LB delete removes instead of refusing: NRP drops the NIC ipconfig associations with the
/// LB's pools (and, [infer], its inbound NAT rules) when the LB goes; only scale-set models block it.
fn detached_with_lb(kind: RefKind) -> bool {
    matches!(kind, RefKind::PoolMember | RefKind::NatRuleMember)
}

impl Store {
    /// Fails with the in-use error if anything outside `removed_owners` references one of `ids`.
    pub(crate) fn check_not_referenced(
        &self,
        ids: &BTreeSet<String>,
        removed_owners: &[String],
        whole: Option<(&str, KindId)>,
    ) -> Result<(), ArmError> {
        let external = |owner: &String| {
            !removed_owners
                .iter()
                .any(|r| owner == r || owner.starts_with(&format!("{r}/")))
        };
        let whole_lb = matches!(whole, Some((_, KindId::LoadBalancer)));
        if let Some((lb_id, KindId::LoadBalancer)) = whole {
            let mut children = Vec::new();
            let mut vmss = None;
            for id in ids {
                for (owner, r) in self.index.incoming(id) {
                    if external(owner) && r.kind == RefKind::ScaleSetModel {
                        children.push(crate::id::last_name(&r.to).to_string());
                        vmss.get_or_insert_with(|| r.from.clone());
                    }
                }
            }
            if let Some(vmss) = vmss {
                children.dedup();
                return Err(references::lb_in_use_by_vmss(lb_id, &children, &vmss));
            }
            for id in ids {
                if let Some((_, r)) = self
                    .index
                    .incoming(id)
                    .find(|(o, r)| external(o) && r.kind == RefKind::PlsFrontend)
                {
                    return Err(references::lb_in_use_by_pls(lb_id, &r.from));
                }
            }
        }
        for id in ids {
            let users: Vec<&references::Ref> = self
                .index
                .incoming(id)
                .filter(|(o, r)| external(o) && !(whole_lb && detached_with_lb(r.kind)))
                .map(|(_, r)| r)
                .collect();
            if !users.is_empty() {
                let target = self
                    .object(id)
                    .and_then(|o| o.get("id"))
                    .and_then(Value::as_str)
                    .unwrap_or(id)
                    .to_string();
                return Err(in_use_error(&target, &users));
            }
        }
        Ok(())
    }

    fn check_running_op(
        &mut self,
        key: &str,
        kind: &Kind,
        path: &ArmPath,
        is_put: bool,
        cx: &WriteCtx,
    ) -> Result<Option<String>, ArmError> {
        let Some(op_id) = self.entries.get(key).and_then(|e| e.op.clone()) else {
            return Ok(None);
        };
        let Some(op) = self.ops.get(&op_id) else {
            return Ok(None);
        };
        if op.is_done() {
            return Ok(None);
        }
        let deleting = matches!(op.kind, OpKind::Delete { .. });
        if deleting {
            if kind.provider == Provider::Compute {
                return Err(marked_for_deletion(
                    kind,
                    path.names.last().map(String::as_str).unwrap_or(""),
                    path,
                ));
            }
            return Err(another_operation(op, cx.base));
        }
        if is_put && !kind.is_embedded() {
            return Ok(Some(op_id));
        }
        if kind.provider == Provider::Compute {
            return Ok(Some(op_id));
        }
        Err(another_operation(op, cx.base))
    }

    pub(crate) fn supersede(
        &mut self,
        old_id: &str,
        new_id: &str,
        provider: Provider,
    ) -> Option<Value> {
        let op = self.ops.get_mut(old_id)?;
        let previous = match &op.kind {
            OpKind::Put { previous } => previous.clone(),
            OpKind::Delete { .. } => None,
        };
        op.status = OpStatus::Canceled(superseded(provider, old_id, new_id));
        op.end_time = Some(now_rfc3339());
        previous
    }

    /// PUT (create-or-update) of a stored resource or an embedded child.
    pub(crate) fn put(
        &mut self,
        path: &ArmPath,
        kind: &'static Kind,
        body: Value,
        cx: &WriteCtx,
    ) -> Result<WriteOutcome, ArmError> {
        if kind.id != KindId::ResourceGroup {
            self.require_rg(path)?;
        }
        if !body.is_object() {
            return Err(ArmError::new(
                error_codes::INVALID_REQUEST_CONTENT,
                "The request content was invalid and could not be deserialized: the body must be a JSON object.",
            ));
        }
        let id = self.display_id(path, kind);
        if kind.is_embedded() {
            return self.put_child(path, kind, &id, body, cx);
        }
        if !kind.writable {
            return Err(method_not_allowed(kind));
        }
        let key = key_of(&id);
        resources::check_client_writable(self, kind.id, &key)?;
        self.put_entry(path, kind, &id, &key, body, cx, WriteVia::Put)
    }

    fn put_child(
        &mut self,
        path: &ArmPath,
        kind: &'static Kind,
        id: &str,
        mut body: Value,
        cx: &WriteCtx,
    ) -> Result<WriteOutcome, ArmError> {
        if !kind.writable {
            return Err(method_not_allowed(kind));
        }
        let parent_id = crate::id::parent_of(id).unwrap_or(id).to_string();
        let parent_key = key_of(&parent_id);
        let (parent_path, parent_kind) = embedding_parent(path, kind)?;
        let Some(parent) = self.entries.get(&parent_key) else {
            return Err(not_found(self, &parent_path, parent_kind, &parent_id));
        };
        let coll = kind.last_type();
        let name = path.names.last().cloned().unwrap_or_default();
        let existed = find_child(&parent.doc, coll, &name).is_some();
        let mut parent_doc = parent.doc.clone();
        body["name"] = json!(
            find_child(&parent.doc, coll, &name)
                .and_then(|c| c.get("name"))
                .cloned()
                .unwrap_or(json!(name))
        );
        if let Some(obj) = body.as_object_mut() {
            obj.remove("etag");
        }
        let arr = parent_doc
            .pointer_mut(&format!("/properties/{coll}"))
            .and_then(Value::as_array_mut);
        match arr {
            Some(arr) => match arr.iter_mut().find(|c| {
                c.get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|n| n.eq_ignore_ascii_case(&name))
            }) {
                Some(slot) => *slot = body,
                None => arr.push(body),
            },
            None => {
                if let Some(props) = parent_doc
                    .get_mut("properties")
                    .and_then(Value::as_object_mut)
                {
                    props.insert(coll.to_string(), json!([body]));
                }
            }
        }
        let out = self.put_entry(
            &parent_path,
            parent_kind,
            &parent_id,
            &parent_key,
            parent_doc,
            cx,
            WriteVia::Child(kind),
        )?;
        let child = find_child(&out.body, coll, &name)
            .cloned()
            .unwrap_or(Value::Null);
        Ok(WriteOutcome {
            status: if existed {
                StatusCode::OK
            } else {
                StatusCode::CREATED
            },
            body: child,
            op: out.op,
        })
    }

    /// Shared body of PUT for stored entries (also used by PATCH and child writes with the merged parent).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn put_entry(
        &mut self,
        path: &ArmPath,
        kind: &'static Kind,
        id: &str,
        key: &str,
        body: Value,
        cx: &WriteCtx,
        via: WriteVia,
    ) -> Result<WriteOutcome, ArmError> {
        let (op_kind, is_put) = match via {
            WriteVia::Put => (kind, true),
            WriteVia::Patch => (kind, false),
            WriteVia::Child(child) => (child, false),
        };
        let superseding = self.check_running_op(key, op_kind, path, is_put, cx)?;
        let existing = self.entries.get(key);
        etag::check(&cx.pre, existing.and_then(Entry::etag), kind.provider, id)?;
        let existed = existing.is_some();
        let previous = existing.map(|e| e.doc.clone());
        let mut doc = resources::prepare(self, kind, path, id, existing, body, cx)?;
        // Validate references.
        let refs = references::extract(kind.id, &doc);
        let own_ids = addressable(kind.id, &doc);
        for r in &refs {
            let to = key_of(&r.to);
            // A private link service's NIC is created by the write itself (after_commit).
            if own_ids.contains(&to) || r.kind == RefKind::PlsNic {
                continue;
            }
            if owned_by(&to, key) {
                return Err(invalid_reference(&r.to, &r.from));
            }
            match self.owner_key(&to) {
                None => return Err(invalid_reference(&r.to, &r.from)),
                Some(owner) => {
                    if let Some(e) = self.entries.get(&owner) {
                        // NRP/CRP resolve references within one region: a resource in another location is
                        // "not found" (same InvalidResourceReference; the message names the region rule).
                        let here = doc.get("location").and_then(Value::as_str).unwrap_or("");
                        if !here.is_empty() && !e.location().is_empty() && e.location() != here {
                            return Err(invalid_reference(&r.to, &r.from));
                        }
                        // A dependency not in Succeeded state (the answers and their sources: `not_provisioned`).
                        if let Some(err) = not_provisioned::check(
                            self,
                            r,
                            &owner,
                            id,
                            kind.provider == Provider::Network,
                        ) {
                            return Err(err);
                        }
                    }
                }
            }
        }
        resources::validate_references(self, kind, key, &doc, &refs)?;
        if let Some(prev) = &previous {
            let removed: BTreeSet<String> = addressable(kind.id, prev)
                .difference(&own_ids)
                .cloned()
                .collect();
            // NRP validates the new document as a whole: the resource's own old references (a rule the same PUT
            // removes) do not hold a removed child; the new document's references were resolved above.
            self.check_not_referenced(&removed, &[key.to_string()], None)?;
        }
        // Stamp and commit.
        let op_id = uuid::Uuid::new_v4().to_string();
        let previous = match superseding.as_deref() {
            Some(old) => self.supersede(old, &op_id, kind.provider).or(previous),
            None => previous,
        };
        let unchanged = is_put
            && completion::noop_put_is_synchronous(kind.id)
            && previous.as_ref().is_some_and(|p| same_model(p, &doc));
        let sync = cx.sync || unchanged || completion::put_is_synchronous(kind.id);
        let state = if sync {
            "Succeeded"
        } else if existed || kind.provider == Provider::Network {
            "Updating"
        } else {
            "Creating"
        };
        let stored_version = self.entries.get(key).map(|e| e.version).unwrap_or(0);
        // An unchanged model keeps its CRP etag ([infer]: the etag counts model changes).
        let version = stored_version + u64::from(!unchanged);
        let tag = match kind.provider {
            Provider::Network => Some(etag::new_nrp()),
            Provider::Compute if resources::has_crp_etag(kind.id) => Some(etag::crp(version)),
            _ => None,
        };
        resources::stamp(&mut doc, kind.id, tag.as_deref(), state);
        let iv = resources::initial_instance_view(
            kind.id,
            &doc,
            self.entries.get(key).and_then(|e| e.instance_view.clone()),
        );
        self.commit(key, kind.id, doc, iv);
        if let Some(e) = self.entries.get_mut(key) {
            e.version = version;
        }
        resources::after_commit(self, kind, key, cx)?;
        let op = if sync {
            if let Some(e) = self.entries.get_mut(key) {
                e.op = None;
            }
            resources::on_provisioned(self, key);
            None
        } else {
            self.start_op(
                &op_id,
                kind,
                key,
                &path.subscription,
                OpKind::Put { previous },
                cx,
            );
            if let Some(e) = self.entries.get_mut(key) {
                e.op = Some(op_id.clone());
            }
            Some(op_id)
        };
        let body = self
            .entries
            .get(key)
            .map(|e| e.doc.clone())
            .unwrap_or(Value::Null);
        let status = if existed || completion::create_answers_200(kind.id) {
            StatusCode::OK
        } else {
            StatusCode::CREATED
        };
        Ok(WriteOutcome { status, body, op })
    }

    /// PATCH: tags replace; for Compute models other top-level fields merge. Network tag updates are synchronous.
    pub(crate) fn patch(
        &mut self,
        path: &ArmPath,
        kind: &'static Kind,
        body: Value,
        cx: &WriteCtx,
    ) -> Result<WriteOutcome, ArmError> {
        self.require_rg(path)?;
        let id = self.display_id(path, kind);
        let key = key_of(&id);
        let Some(entry) = self.entries.get(&key) else {
            return Err(not_found(self, path, kind, &id));
        };
        if kind.is_embedded() {
            return Err(method_not_allowed(kind));
        }
        let mut merged = entry.doc.clone();
        if let Some(tags) = body.get("tags") {
            merged["tags"] = tags.clone();
        }
        if kind.provider == Provider::Compute {
            for field in ["properties", "sku", "identity", "zones", "plan"] {
                if let Some(v) = body.get(field) {
                    merge(&mut merged[field], v);
                }
            }
        }
        let sync = cx.sync || kind.provider != Provider::Compute;
        let sub = WriteCtx {
            cfg: cx.cfg,
            base: cx.base,
            sync,
            api_version: cx.api_version.clone(),
            fail: cx.fail.clone(),
            pre: cx.pre.clone(),
        };
        let mut out = self.put_entry(path, kind, &id, &key, merged, &sub, WriteVia::Patch)?;
        out.status = StatusCode::OK;
        Ok(out)
    }
}

/// JSON merge of `patch` into `target` (objects merge recursively, everything else replaces).
pub(crate) fn merge(target: &mut Value, patch: &Value) {
    match (target.as_object_mut(), patch.as_object()) {
        (Some(t), Some(p)) => {
            for (k, v) in p {
                merge(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        _ => *target = patch.clone(),
    }
}

/// The path and kind of the stored resource that embeds the child at `path` (PUT and DELETE of a child
/// rewrite the parent); `kind` is the child's, named in the error when the parent type is not served.
pub(crate) fn embedding_parent(
    path: &ArmPath,
    kind: &Kind,
) -> Result<(ArmPath, &'static Kind), ArmError> {
    let parent_path = ArmPath {
        names: path.names[..path.names.len().saturating_sub(1)].to_vec(),
        types: path.types[..path.types.len().saturating_sub(1)].to_vec(),
        ..path.clone()
    };
    let parent_kind =
        kinds::lookup(&parent_path.type_key()).ok_or_else(|| method_not_allowed(kind))?;
    Ok((parent_path, parent_kind))
}

/// ARM's 405 for a method the resource type does not serve.
pub(crate) fn method_not_allowed(kind: &Kind) -> ArmError {
    ArmError::new(
        error_codes::METHOD_NOT_ALLOWED,
        format!(
            "The requested method is not allowed on resource type '{}'.",
            kind.full_type()
        ),
    )
}
