//! kube-rs against the server: optimistic concurrency, finalizers, paging, watch semantics
//! (resume, 410 Gone, bookmarks, timeouts) and watcher/reflector recovery from a forced 410.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{
    Api, DeleteParams, GetParams, ListParams, Patch, PatchParams, PostParams, VersionMatch,
    WatchEvent, WatchParams,
};
use kube::runtime::{WatchStreamExt, reflector, watcher};
use serde_json::json;

use super::fixture::{Fixture, eventually};

fn cm(name: &str) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name}, "data": {"v": "0"}})).unwrap()
}

fn api_error(e: kube::Error) -> Box<kube::core::Status> {
    match e {
        kube::Error::Api(s) => s,
        other => panic!("expected an API error, got {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_racing_writers_get_exactly_one_conflict() {
    let f = Fixture::start().await;
    let api: Api<ConfigMap> = Api::namespaced(f.client().await, "default");
    let created = api
        .create(&PostParams::default(), &cm("race"))
        .await
        .unwrap();
    assert!(created.metadata.uid.is_some());
    assert!(created.metadata.creation_timestamp.is_some());
    for round in 0..5 {
        let base = api.get("race").await.unwrap();
        let writers = (0..2).map(|w| {
            let api = api.clone();
            let mut next = base.clone();
            next.data = Some([("v".to_string(), format!("{round}-{w}"))].into());
            tokio::spawn(async move { api.replace("race", &PostParams::default(), &next).await })
        });
        let results = futures::future::join_all(writers).await;
        let (ok, err): (Vec<_>, Vec<_>) = results
            .into_iter()
            .map(|r| r.unwrap())
            .partition(Result::is_ok);
        assert_eq!((ok.len(), err.len()), (1, 1), "round {round}");
        let status = api_error(err.into_iter().next().unwrap().unwrap_err());
        assert_eq!((status.code, status.reason.as_str()), (409, "Conflict"));
        assert!(status.message.contains("the object has been modified"));
    }
    // generateName gives unique names.
    let mut generated = cm("");
    generated.metadata.name = None;
    generated.metadata.generate_name = Some("gen-".into());
    let a = api
        .create(&PostParams::default(), &generated)
        .await
        .unwrap();
    let b = api
        .create(&PostParams::default(), &generated)
        .await
        .unwrap();
    let (a, b) = (a.metadata.name.unwrap(), b.metadata.name.unwrap());
    assert!(a.starts_with("gen-") && a.len() == 9, "{a}");
    assert_ne!(a, b);
    // A second create of an existing name is AlreadyExists.
    let dup = api_error(
        api.create(&PostParams::default(), &cm("race"))
            .await
            .unwrap_err(),
    );
    assert_eq!((dup.code, dup.reason.as_str()), (409, "AlreadyExists"));
    let missing = api_error(api.get("nope").await.unwrap_err());
    assert_eq!((missing.code, missing.reason.as_str()), (404, "NotFound"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finalizer_holds_an_object_until_removed() {
    let f = Fixture::start().await;
    let api: Api<ConfigMap> = Api::namespaced(f.client().await, "default");
    let mut held = cm("held");
    held.metadata.finalizers = Some(vec!["example.com/cleanup".into()]);
    api.create(&PostParams::default(), &held).await.unwrap();
    let deleted = api.delete("held", &DeleteParams::default()).await.unwrap();
    let still = deleted
        .left()
        .expect("object returned while finalizers remain");
    assert!(still.metadata.deletion_timestamp.is_some());
    let live = api.get("held").await.unwrap();
    assert!(live.metadata.deletion_timestamp.is_some());
    // Ordinary updates still work on a terminating object; the finalizer is what holds it.
    let pp = PatchParams::default();
    api.patch("held", &pp, &Patch::Merge(json!({"data": {"v": "1"}})))
        .await
        .unwrap();
    assert!(api.get_opt("held").await.unwrap().is_some());
    api.patch(
        "held",
        &pp,
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .unwrap();
    assert!(api.get_opt("held").await.unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_paging_and_watch_semantics() {
    // Bookmarks every 100 ms so the 2 s watch below must carry some.
    let f = Fixture::start_with(|c| c.bookmark_interval = Duration::from_millis(100)).await;
    let api: Api<ConfigMap> = Api::namespaced(f.client().await, "default");
    for i in 0..25 {
        let mut c = cm(&format!("cm-{i:02}"));
        c.metadata.labels = Some([("parity".to_string(), (i % 2).to_string())].into());
        api.create(&PostParams::default(), &c).await.unwrap();
    }
    let first = api.list(&ListParams::default().limit(10)).await.unwrap();
    assert_eq!(first.items.len(), 10);
    assert_eq!(first.metadata.remaining_item_count, Some(15));
    let token = first.metadata.continue_.clone().unwrap();
    // Writes after the first page do not show up in later pages (consistent snapshot).
    api.create(&PostParams::default(), &cm("cm-99"))
        .await
        .unwrap();
    let mut names: Vec<String> = first
        .items
        .iter()
        .map(|c| c.metadata.name.clone().unwrap())
        .collect();
    let mut next = Some(token);
    while let Some(t) = next {
        let page = api
            .list(&ListParams::default().limit(10).continue_token(&t))
            .await
            .unwrap();
        names.extend(page.items.iter().map(|c| c.metadata.name.clone().unwrap()));
        next = page.metadata.continue_.filter(|c| !c.is_empty());
    }
    let expected: Vec<String> = (0..25).map(|i| format!("cm-{i:02}")).collect();
    assert_eq!(names, expected);
    let odd = api
        .list(&ListParams::default().labels("parity=1"))
        .await
        .unwrap();
    assert_eq!(odd.items.len(), 12);
    let named = api
        .list(&ListParams::default().fields("metadata.name=cm-03"))
        .await
        .unwrap();
    assert_eq!(named.items.len(), 1);

    // Resume a watch from a list's resourceVersion: only later changes arrive.
    let rv = api
        .list(&ListParams::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    api.patch(
        "cm-00",
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"v": "1"}})),
    )
    .await
    .unwrap();
    let mut stream = api
        .watch(&WatchParams::default().timeout(2), &rv)
        .await
        .unwrap()
        .boxed();
    let modified_rv: u64 = match stream.try_next().await.unwrap() {
        Some(WatchEvent::Modified(c)) => {
            assert_eq!(c.metadata.name.as_deref(), Some("cm-00"));
            c.metadata.resource_version.unwrap().parse().unwrap()
        }
        other => panic!("expected MODIFIED, got {other:?}"),
    };
    // timeoutSeconds ends the stream; until then only bookmarks arrive, at least one, each at a
    // version no older than what the watch already delivered.
    let rest = tokio::time::timeout(Duration::from_secs(10), stream.try_collect::<Vec<_>>())
        .await
        .expect("watch ended by timeoutSeconds")
        .unwrap();
    assert!(!rest.is_empty(), "no bookmark in the watch");
    for event in &rest {
        match event {
            WatchEvent::Bookmark(b) => {
                let rv: u64 = b.metadata.resource_version.parse().unwrap();
                assert!(rv >= modified_rv, "bookmark {rv} before {modified_rv}");
            }
            other => panic!("expected only bookmarks, got {other:?}"),
        }
    }

    // After expiry, resuming from the old version is an ERROR event with 410 Gone.
    f.server.expire_watches();
    let mut stream = api
        .watch(&WatchParams::default().timeout(2), &rv)
        .await
        .unwrap()
        .boxed();
    match stream.try_next().await.unwrap() {
        Some(WatchEvent::Error(s)) => {
            assert_eq!((s.code, s.reason.as_str()), (410, "Expired"));
        }
        other => panic!("expected a 410 ERROR event, got {other:?}"),
    }
    // A continue token from before the expiry is 410 too.
    let page = api.list(&ListParams::default().limit(5)).await.unwrap();
    f.server.expire_watches();
    let gone = api_error(
        api.list(
            &ListParams::default()
                .limit(5)
                .continue_token(page.metadata.continue_.as_deref().unwrap()),
        )
        .await
        .unwrap_err(),
    );
    assert_eq!(gone.code, 410);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_lists_end_their_initial_events_with_a_bookmark() {
    let f = Fixture::start().await;
    let api: Api<ConfigMap> = Api::namespaced(f.client().await, "default");
    for name in ["a", "b"] {
        api.create(&PostParams::default(), &cm(name)).await.unwrap();
    }
    // sendInitialEvents=true, allowWatchBookmarks=true, resourceVersionMatch=NotOlderThan.
    let mut stream = api
        .watch(&WatchParams::streaming_lists().timeout(10), "")
        .await
        .unwrap()
        .boxed();
    let mut added = Vec::new();
    let bookmark = loop {
        match stream.try_next().await.unwrap() {
            Some(WatchEvent::Added(c)) => added.push(c.metadata.name.unwrap()),
            Some(WatchEvent::Bookmark(b)) => break b,
            other => panic!("expected initial ADDED events then a bookmark, got {other:?}"),
        }
    };
    assert_eq!(added, ["a", "b"]);
    assert_eq!(
        bookmark
            .metadata
            .annotations
            .get("k8s.io/initial-events-end")
            .map(String::as_str),
        Some("true")
    );
    let rv = bookmark.metadata.resource_version.clone();
    // The bookmark's version is the state the initial events show: later writes come after it.
    api.create(&PostParams::default(), &cm("c")).await.unwrap();
    match stream.try_next().await.unwrap() {
        Some(WatchEvent::Added(c)) => {
            assert_eq!(c.metadata.name.as_deref(), Some("c"));
            let later: u64 = c.metadata.resource_version.unwrap().parse().unwrap();
            assert!(later > rv.parse::<u64>().unwrap());
        }
        other => panic!("expected ADDED c, got {other:?}"),
    }

    // kube-rs's watcher in streaming-list mode finishes its initial sync on that bookmark.
    let initial = watcher(api.clone(), watcher::Config::default().streaming_lists())
        .take_while(|e| futures::future::ready(!matches!(e, Ok(watcher::Event::InitDone))))
        .try_collect::<Vec<_>>();
    let events = tokio::time::timeout(Duration::from_secs(30), initial)
        .await
        .expect("the watcher saw the initial-events-end bookmark")
        .unwrap();
    let applied = events
        .iter()
        .filter(|e| matches!(e, watcher::Event::InitApply(_)))
        .count();
    assert_eq!(applied, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_at_a_future_resource_version_time_out() {
    let f = Fixture::start().await;
    // kube-rs retries 504s (honouring Retry-After) by default; this test wants the answer.
    let mut config = f.client_config().await;
    config.default_retry = false;
    let api: Api<ConfigMap> = Api::namespaced(kube::Client::try_from(config).unwrap(), "default");
    api.create(&PostParams::default(), &cm("now"))
        .await
        .unwrap();
    let current: u64 = api
        .list(&ListParams::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap()
        .parse()
        .unwrap();
    let future = (current + 1000).to_string();
    let check = |e: kube::Error| {
        let s = api_error(e);
        assert_eq!((s.code, s.reason.as_str()), (504, "Timeout"));
        assert_eq!(
            s.message,
            format!("Timeout: Too large resource version: {future}, current: {current}")
        );
        let details = s.details.expect("details");
        assert_eq!(details.retry_after_seconds, 1);
        assert_eq!(details.causes[0].reason, "ResourceVersionTooLarge");
    };
    for lp in [
        ListParams::default().at(&future),
        ListParams::default()
            .at(&future)
            .matching(VersionMatch::NotOlderThan),
        ListParams::default()
            .at(&future)
            .matching(VersionMatch::Exact),
    ] {
        check(api.list(&lp).await.unwrap_err());
    }
    check(
        api.get_with("now", &GetParams::at(&future))
            .await
            .unwrap_err(),
    );
    // The current version itself is fine.
    let rv = current.to_string();
    api.get_with("now", &GetParams::at(&rv)).await.unwrap();
    api.list(&ListParams::default().at(&rv).matching(VersionMatch::Exact))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watcher_and_reflector_survive_a_forced_410() {
    let f = Fixture::start().await;
    let api: Api<ConfigMap> = Api::namespaced(f.client().await, "default");
    api.create(&PostParams::default(), &cm("before"))
        .await
        .unwrap();

    let (reader, writer) = reflector::store::<ConfigMap>();
    let inits = Arc::new(AtomicUsize::new(0));
    let counted = inits.clone();
    let stream = watcher(api.clone(), watcher::Config::default().any_semantic())
        .default_backoff()
        .inspect(move |e| {
            if matches!(e, Ok(watcher::Event::Init)) {
                counted.fetch_add(1, Ordering::SeqCst);
            }
        })
        .reflect(writer)
        .applied_objects();
    let task = tokio::spawn(async move {
        futures::pin_mut!(stream);
        while stream.next().await.is_some() {}
    });
    reader.wait_until_ready().await.unwrap();
    assert_eq!(reader.len(), 1);

    f.server.expire_watches();
    // Changes after the expiry are seen only through the re-list the 410 forces.
    api.create(&PostParams::default(), &cm("after"))
        .await
        .unwrap();
    api.delete("before", &DeleteParams::default())
        .await
        .unwrap();
    eventually("the reflector to re-list", || {
        let reader = reader.clone();
        async move {
            let names: Vec<String> = reader
                .state()
                .iter()
                .map(|c| c.metadata.name.clone().unwrap())
                .collect();
            names == ["after"]
        }
    })
    .await;
    assert!(inits.load(Ordering::SeqCst) >= 2, "the watcher re-listed");
    task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn namespace_deletion_waits_for_its_content() {
    use k8s_openapi::api::core::v1::Namespace;
    let f = Fixture::start().await;
    let client = f.client().await;
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": "team"}})).unwrap();
    namespaces
        .create(&PostParams::default(), &ns)
        .await
        .unwrap();
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "team");
    let mut held = cm("held");
    held.metadata.finalizers = Some(vec!["example.com/cleanup".into()]);
    api.create(&PostParams::default(), &held).await.unwrap();
    api.create(&PostParams::default(), &cm("plain"))
        .await
        .unwrap();

    namespaces
        .delete("team", &DeleteParams::default())
        .await
        .unwrap();
    let terminating = namespaces.get("team").await.unwrap();
    assert_eq!(
        terminating.status.unwrap().phase.as_deref(),
        Some("Terminating")
    );
    assert!(api.get_opt("plain").await.unwrap().is_none());
    let refused = api_error(
        api.create(&PostParams::default(), &cm("new"))
            .await
            .unwrap_err(),
    );
    assert_eq!((refused.code, refused.reason.as_str()), (403, "Forbidden"));
    assert!(refused.message.contains("because it is being terminated"));

    api.patch(
        "held",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .unwrap();
    assert!(namespaces.get_opt("team").await.unwrap().is_none());
}
