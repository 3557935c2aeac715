//! watch: chunked `{"type":..,"object":..}` lines. Starts from current state (resourceVersion
//! unset or "0", or sendInitialEvents=true with an initial-events-end bookmark) or resumes after
//! a resourceVersion (ERROR 410 Expired when older than the kept history); bookmarks when allowed;
//! `timeoutSeconds`; selector transitions turn MODIFIED into ADDED/DELETED like the real cache.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use super::read::Selectors;
use super::{AppState, Params, Target, wants_table};
use crate::kinds::KindInfo;
use crate::status::ApiError;
use crate::store::{Change, EventType};
use crate::table;

/// Starts a watch stream.
pub fn watch(
    app: &AppState,
    target: &Target,
    params: &Params,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let info = target.info();
    let mut selectors = Selectors::from_params(target, params)?;
    if let Some(name) = &target.name {
        // GET .../name?watch=true watches one object.
        let text = format!("metadata.name={name}");
        selectors.fields =
            crate::selectors::FieldSelector::parse(&text, info).map_err(ApiError::bad_request)?;
    }
    let flag = |k: &str| params.get(k).is_some_and(|v| v == "true" || v == "1");
    let bookmarks = flag("allowWatchBookmarks");
    let send_initial = flag("sendInitialEvents");
    let since = match params.get("resourceVersion").map(String::as_str) {
        _ if send_initial => None,
        None | Some("" | "0") => None,
        Some(rv) => Some(
            rv.parse::<u64>()
                .map_err(|_| ApiError::bad_request(format!("invalid resource version {rv:?}")))?,
        ),
    };
    let timeout = match params.get("timeoutSeconds") {
        Some(t) => Duration::from_secs(t.parse::<u64>().map_err(|_| {
            ApiError::bad_request("timeoutSeconds: must be a non-negative integer")
        })?),
        None => app.default_watch_timeout,
    };
    let render = Render {
        info,
        table: wants_table(headers),
        include: table::include_object(params.get("includeObject").map(String::as_str)),
    };
    let (tx, rx) = mpsc::channel::<Result<Bytes, Infallible>>(64);
    match app
        .store
        .subscribe(target.kind, target.namespace.as_deref(), since)
    {
        Ok(sub) => {
            let store = app.store.clone();
            let interval = app.bookmark_interval;
            tokio::spawn(async move {
                let mut w = Writer {
                    tx,
                    render,
                    first: true,
                };
                let _ = w
                    .run(
                        sub,
                        &selectors,
                        &store,
                        bookmarks,
                        send_initial,
                        interval,
                        timeout,
                    )
                    .await;
            });
        }
        Err(e) if e.code == 410 => {
            let line = event_line("ERROR", &e.to_status());
            tokio::spawn(async move {
                let _ = tx.send(Ok(line)).await;
            });
        }
        Err(e) => return Err(e),
    }
    let mut r = (StatusCode::OK, Body::from_stream(ReceiverStream::new(rx))).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Ok(r)
}

#[derive(Debug, Clone, Copy)]
struct Render {
    info: &'static KindInfo,
    table: bool,
    include: table::IncludeObject,
}

struct Writer {
    tx: mpsc::Sender<Result<Bytes, Infallible>>,
    render: Render,
    first: bool,
}

/// The client went away.
struct Closed;

impl Writer {
    async fn send(&mut self, ty: &str, obj: &Arc<Value>) -> Result<(), Closed> {
        let line = if self.render.table && ty != "BOOKMARK" {
            let rv = obj["metadata"]["resourceVersion"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let t = table::render(
                self.render.info,
                std::slice::from_ref(obj),
                self.render.include,
                &rv,
                None,
                self.first,
            );
            self.first = false;
            event_line(ty, &t)
        } else {
            event_line(ty, obj)
        };
        self.tx.send(Ok(line)).await.map_err(|_| Closed)
    }

    async fn bookmark(&mut self, rv: u64, initial_end: bool) -> Result<(), Closed> {
        let mut meta = json!({"resourceVersion": rv.to_string()});
        if initial_end {
            meta["annotations"] = json!({"k8s.io/initial-events-end": "true"});
        }
        let obj = Arc::new(
            json!({"kind": self.render.info.kind, "apiVersion": self.render.info.api_version(), "metadata": meta}),
        );
        self.send("BOOKMARK", &obj).await
    }

    #[allow(clippy::too_many_arguments)]
    async fn run(
        &mut self,
        mut sub: crate::store::Subscription,
        selectors: &Selectors,
        store: &crate::store::Store,
        bookmarks: bool,
        send_initial: bool,
        interval: Duration,
        timeout: Duration,
    ) -> Result<(), Closed> {
        for obj in std::mem::take(&mut sub.initial) {
            if selectors.matches(&obj) {
                self.send("ADDED", &obj).await?;
            }
        }
        if send_initial && bookmarks {
            self.bookmark(sub.rv, true).await?;
        }
        for change in std::mem::take(&mut sub.replay) {
            if let Some((ty, obj)) = visible(&change, selectors) {
                self.send(ty, &obj).await?;
            }
        }
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
        loop {
            tokio::select! {
                () = &mut deadline => return Ok(()),
                () = self.tx.closed() => return Err(Closed),
                msg = sub.live.recv() => match msg {
                    Some(change) => {
                        if let Some((ty, obj)) = visible(&change, selectors) {
                            self.send(ty, &obj).await?;
                        }
                    }
                    // Closed by the store: too slow or server shutting down.
                    None => return Ok(()),
                },
                _ = tick.tick(), if bookmarks => {
                    // Only when every change up to the current version was delivered.
                    if let Some(rv) = store.read(|s| sub.live.is_empty().then(|| s.rv())) {
                        self.bookmark(rv, false).await?;
                    }
                }
            }
        }
    }
}

/// The event a watcher with `selectors` sees for `change`, if any.
pub fn visible(change: &Change, selectors: &Selectors) -> Option<(&'static str, Arc<Value>)> {
    let now = selectors.matches(&change.object);
    match change.event {
        EventType::Added => now.then(|| ("ADDED", change.object.clone())),
        EventType::Deleted => {
            let before = change.prev.as_ref().is_none_or(|p| selectors.matches(p));
            (before || now).then(|| ("DELETED", change.object.clone()))
        }
        EventType::Modified => {
            let before = change.prev.as_ref().is_some_and(|p| selectors.matches(p));
            match (before, now) {
                (true, true) => Some(("MODIFIED", change.object.clone())),
                (false, true) => Some(("ADDED", change.object.clone())),
                (true, false) => Some(("DELETED", change.object.clone())),
                (false, false) => None,
            }
        }
    }
}

fn event_line(ty: &str, obj: &Value) -> Bytes {
    let mut out = Vec::with_capacity(512);
    out.extend_from_slice(b"{\"type\":\"");
    out.extend_from_slice(ty.as_bytes());
    out.extend_from_slice(b"\",\"object\":");
    let _ = serde_json::to_writer(&mut out, obj);
    out.extend_from_slice(b"}\n");
    Bytes::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selectors::{FieldSelector, LabelSelector};

    fn change(event: EventType, prev: Option<Value>, obj: Value) -> Change {
        Change {
            rv: 2,
            kind: 0,
            namespace: String::new(),
            name: "x".into(),
            event,
            object: Arc::new(obj),
            prev: prev.map(Arc::new),
        }
    }

    #[test]
    fn selector_transitions() {
        let sel = Selectors {
            labels: LabelSelector::parse("app=web").unwrap(),
            fields: FieldSelector::default(),
        };
        let web = json!({"metadata": {"labels": {"app": "web"}}});
        let other = json!({"metadata": {"labels": {"app": "db"}}});
        assert_eq!(
            visible(
                &change(EventType::Modified, Some(other.clone()), web.clone()),
                &sel
            )
            .unwrap()
            .0,
            "ADDED"
        );
        assert_eq!(
            visible(
                &change(EventType::Modified, Some(web.clone()), other.clone()),
                &sel
            )
            .unwrap()
            .0,
            "DELETED"
        );
        assert!(
            visible(
                &change(EventType::Modified, Some(other.clone()), other.clone()),
                &sel
            )
            .is_none()
        );
        assert_eq!(
            visible(&change(EventType::Deleted, Some(web.clone()), web), &sel)
                .unwrap()
                .0,
            "DELETED"
        );
        assert!(visible(&change(EventType::Added, None, other), &sel).is_none());
    }
}
