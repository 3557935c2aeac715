//! DELETE: cascade (scale-set instances, resource-group contents), in-use checks against every incoming
//! reference from outside the cascade, and the delete LRO (NIC deletes complete synchronously).

use crate::error::ArmError;
use crate::etag::{self, Preconditions};
use crate::id::{ArmPath, key_of};
use crate::kinds::{Kind, KindId, Provider};
use crate::lro::{OpKind, OpStatus};
use crate::resources;
use crate::store::{Store, find_child};
use crate::write::{
    DeleteOutcome, WriteCtx, WriteVia, addressable, another_operation, embedding_parent,
    method_not_allowed,
};
use http::StatusCode;
use serde_json::{Value, json};
use std::collections::BTreeSet;

impl Store {
    /// DELETE with in-use checks; stored resources go through an LRO unless `cx.sync`.
    pub(crate) fn delete(
        &mut self,
        path: &ArmPath,
        kind: &'static Kind,
        cx: &WriteCtx,
    ) -> Result<DeleteOutcome, ArmError> {
        if kind.id != KindId::ResourceGroup {
            self.require_rg(path)?;
        }
        let id = self.display_id(path, kind);
        let key = key_of(&id);
        if kind.is_embedded() {
            if !kind.writable {
                return Err(method_not_allowed(kind));
            }
            let parent_id = crate::id::parent_of(&id).unwrap_or(&id).to_string();
            let parent_key = key_of(&parent_id);
            let Some(parent) = self.entries.get(&parent_key) else {
                return Ok(DeleteOutcome {
                    status: StatusCode::NO_CONTENT,
                    op: None,
                });
            };
            let coll = kind.last_type();
            let name = path.names.last().cloned().unwrap_or_default();
            if find_child(&parent.doc, coll, &name).is_none() {
                return Ok(DeleteOutcome {
                    status: StatusCode::NO_CONTENT,
                    op: None,
                });
            }
            etag::check(&cx.pre, parent.etag(), kind.provider, &id)?;
            let mut doc = parent.doc.clone();
            if let Some(arr) = doc
                .pointer_mut(&format!("/properties/{coll}"))
                .and_then(Value::as_array_mut)
            {
                arr.retain(|c| {
                    !c.get("name")
                        .and_then(Value::as_str)
                        .is_some_and(|n| n.eq_ignore_ascii_case(&name))
                });
            }
            let (parent_path, parent_kind) = embedding_parent(path, kind)?;
            let sub = WriteCtx {
                cfg: cx.cfg,
                base: cx.base,
                sync: cx.sync,
                api_version: cx.api_version.clone(),
                fail: cx.fail.clone(),
                pre: Preconditions::default(),
            };
            let out = self.put_entry(
                &parent_path,
                parent_kind,
                &parent_id,
                &parent_key,
                doc,
                &sub,
                WriteVia::Child(kind),
            )?;
            return Ok(DeleteOutcome {
                status: if out.op.is_some() {
                    StatusCode::ACCEPTED
                } else {
                    StatusCode::OK
                },
                op: out.op,
            });
        }
        if !kind.writable {
            return Err(method_not_allowed(kind));
        }
        let Some(entry) = self.entries.get(&key) else {
            return Ok(DeleteOutcome {
                status: StatusCode::NO_CONTENT,
                op: None,
            });
        };
        let entry_op = entry.op.clone();
        etag::check(&cx.pre, entry.etag(), kind.provider, &id)?;
        if let Some(op) = entry_op
            .as_ref()
            .and_then(|o| self.ops.get(o))
            .filter(|o| !o.is_done())
        {
            match (&op.kind, kind.provider) {
                (OpKind::Delete { .. }, _) => {
                    let existing = op.id.clone();
                    return Ok(DeleteOutcome {
                        status: StatusCode::ACCEPTED,
                        op: Some(existing),
                    });
                }
                (_, Provider::Compute) => {
                    let old = op.id.clone();
                    let new = uuid::Uuid::new_v4().to_string();
                    self.supersede(&old, &new, kind.provider);
                }
                _ => return Err(another_operation(op, cx.base)),
            }
        }
        let mut cascade: Vec<String> = self
            .entries
            .range(format!("{key}/")..)
            .take_while(|(k, _)| k.starts_with(&format!("{key}/")))
            .map(|(k, _)| k.clone())
            .collect();
        cascade.insert(0, key.clone());
        cascade.extend(resources::dependents(self, &key));
        let mut ids = BTreeSet::new();
        for k in &cascade {
            if let Some(e) = self.entries.get(k) {
                ids.extend(addressable(e.kind, &e.doc));
            }
        }
        self.check_not_referenced(&ids, &cascade, Some((&id, kind.id)))?;
        let sync = cx.sync || crate::completion::delete_is_synchronous(kind.id);
        let op_id = uuid::Uuid::new_v4().to_string();
        self.start_op(
            &op_id,
            kind,
            &key,
            &path.subscription,
            OpKind::Delete {
                keys: cascade.clone(),
            },
            cx,
        );
        if sync {
            self.finish_op(&op_id);
            if cx.sync {
                if let Some(OpStatus::Failed(e)) = self.ops.get(&op_id).map(|o| o.status.clone()) {
                    return Err(e);
                }
                self.ops.remove(&op_id);
                return Ok(DeleteOutcome {
                    status: StatusCode::OK,
                    op: None,
                });
            }
            return Ok(DeleteOutcome {
                status: StatusCode::OK,
                op: Some(op_id),
            });
        }
        if let Some(e) = self.entries.get_mut(&key) {
            e.op = Some(op_id.clone());
            if let Some(props) = e.doc.get_mut("properties").and_then(Value::as_object_mut) {
                props.insert("provisioningState".into(), json!("Deleting"));
            }
            e.rerender();
        }
        Ok(DeleteOutcome {
            status: StatusCode::ACCEPTED,
            op: Some(op_id),
        })
    }
}
