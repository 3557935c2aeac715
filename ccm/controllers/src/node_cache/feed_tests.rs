//! [`NodeFeed`] driven by a scripted watch: one watch however many consumers, each consumer sees
//! every change, a late one every stored Node.

use std::collections::BTreeSet;
use std::time::Duration;

use futures::channel::mpsc;
use futures::{Stream, StreamExt};
use k8s_openapi::api::core::v1::Node;
use kube::ResourceExt;
use kube::runtime::watcher::{self, Event};

use super::{NodeEvent, NodeFeed};
use crate::node_cache::SlimNode;

type Sent = Result<Event<SlimNode>, watcher::Error>;

fn node(name: &str, version: &str) -> SlimNode {
    let mut node = Node::default();
    node.metadata.name = Some(name.to_owned());
    node.metadata.resource_version = Some(version.to_owned());
    SlimNode::from(node)
}

/// The next item (a hang guard, not a timing assertion).
async fn next<T>(stream: &mut (impl Stream<Item = T> + Unpin)) -> T {
    tokio::time::timeout(Duration::from_secs(30), stream.next())
        .await
        .expect("an item within 30 s")
        .expect("the stream goes on")
}

fn label(event: &NodeEvent) -> String {
    match event {
        NodeEvent::Applied(n) => format!(
            "applied {}@{}",
            n.name_any(),
            n.resource_version().unwrap_or_default()
        ),
        NodeEvent::Deleted(n) => format!("deleted {}", n.name_any()),
        NodeEvent::Synced => "synced".to_owned(),
    }
}

fn send(tx: &mpsc::UnboundedSender<Sent>, event: Event<SlimNode>) {
    tx.unbounded_send(Ok(event))
        .expect("the feed reads its watch");
}

#[tokio::test]
async fn two_consumers_share_one_watch_and_a_late_one_sees_every_node() {
    let (tx, rx) = mpsc::unbounded::<Sent>();
    let feed = NodeFeed::from_events(rx.boxed());
    assert_eq!(
        feed.watches_started(),
        0,
        "nothing watched before a consumer"
    );
    let mut applied = Box::pin(feed.applied());
    let mut events = Box::pin(feed.clone().events());
    assert_eq!(feed.watches_started(), 1);

    send(&tx, Event::Init);
    send(&tx, Event::InitApply(node("a", "1")));
    send(&tx, Event::InitApply(node("b", "1")));
    send(&tx, Event::InitDone);
    let listed: BTreeSet<String> = [next(&mut applied).await, next(&mut applied).await]
        .iter()
        .map(|n| n.name_any())
        .collect();
    assert_eq!(listed, BTreeSet::from(["a".to_owned(), "b".to_owned()]));
    assert_eq!(label(&next(&mut events).await), "synced");
    let store = feed.ready().await.expect("listed");
    assert_eq!(store.len(), 2);

    send(&tx, Event::Apply(node("a", "2")));
    send(&tx, Event::Delete(node("b", "1")));
    send(&tx, Event::Apply(node("c", "1")));
    assert_eq!(label(&next(&mut events).await), "applied a@2");
    assert_eq!(label(&next(&mut events).await), "deleted b");
    assert_eq!(label(&next(&mut events).await), "applied c@1");
    let a = next(&mut applied).await;
    assert_eq!(
        (a.name_any(), a.resource_version()),
        ("a".to_owned(), Some("2".to_owned()))
    );
    assert_eq!(
        next(&mut applied).await.name_any(),
        "c",
        "a deletion is no Node to reconcile"
    );

    // A consumer that starts now (a controller started under a lease) gets every stored Node.
    let mut late = Box::pin(feed.applied());
    let replayed: BTreeSet<String> = [next(&mut late).await, next(&mut late).await]
        .iter()
        .map(|n| {
            format!(
                "{}@{}",
                n.name_any(),
                n.resource_version().unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(
        replayed,
        BTreeSet::from(["a@2".to_owned(), "c@1".to_owned()])
    );
    assert_eq!(
        feed.watches_started(),
        1,
        "still one watch for three consumers"
    );
}

#[tokio::test]
async fn a_dropped_consumer_holds_nothing_up() {
    let (tx, rx) = mpsc::unbounded::<Sent>();
    let feed = NodeFeed::from_events(rx.boxed());
    let gone = feed.events();
    let mut kept = Box::pin(feed.events());
    drop(gone);
    send(&tx, Event::Init);
    send(&tx, Event::InitDone);
    send(&tx, Event::Apply(node("a", "1")));
    assert_eq!(label(&next(&mut kept).await), "synced");
    assert_eq!(label(&next(&mut kept).await), "applied a@1");
    assert_eq!(
        feed.shared.subscribers.lock().map(|s| s.len()).unwrap_or(0),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_consumer_waiting_for_the_first_list_is_woken() {
    let (tx, rx) = mpsc::unbounded::<Sent>();
    let feed = NodeFeed::from_events(rx.boxed());
    // Controllers started one after another, each waiting for the list; a subscriber arriving
    // meanwhile checks readiness without waiting.
    let waiters: Vec<_> = (0..4)
        .map(|_| {
            let feed = feed.clone();
            tokio::spawn(async move { feed.ready().await.map(|store| store.len()) })
        })
        .collect();
    tokio::task::yield_now().await;
    let mut events = Box::pin(feed.events());
    send(&tx, Event::Init);
    send(&tx, Event::InitApply(node("a", "1")));
    send(&tx, Event::InitDone);
    assert_eq!(label(&next(&mut events).await), "synced");
    for waiter in waiters {
        let listed = tokio::time::timeout(Duration::from_secs(30), waiter)
            .await
            .expect("woken once the list is complete (hang guard)")
            .expect("the waiter ran")
            .expect("the feed runs");
        assert_eq!(listed, 1);
    }
}
