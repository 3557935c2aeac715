//! [`NodeFeed`]: the process's one Node watch and store. Created once by the host with the
//! process's watch config, started by the first consumer that needs it and kept running for the
//! life of the process (across lease changes and provider reloads), so a controller that
//! (re)starts reads a warm store instead of listing every Node again.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use futures::channel::mpsc;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use kube::Client;
use kube::api::Api;
use kube::runtime::reflector::store::Writer;
use kube::runtime::reflector::{ObjectRef, Store};
use kube::runtime::{WatchStreamExt, watcher};
use tokio::sync::watch;
use tokio::task::AbortHandle;

use super::SlimNode;

/// Nodes per page of the watch's initial list (and of a relist). kube-runtime's default is 500
/// (client-go's pager too); the client reads a whole page's JSON before decoding it, and a
/// kubelet's Node is 10-15 KiB of JSON (managedFields, 25+ images), so a page of 500 holds
/// ~6.5 MiB of text at once. 100 holds ~1.3 MiB for 4 more LISTs per 500 Nodes (50 at 5000
/// Nodes, once at start and on a relist): a few seconds at most under the default 20 QPS.
pub const WATCH_PAGE_SIZE: u32 = 100;

/// What a subscriber of the feed is told.
#[derive(Clone, Debug)]
pub enum NodeEvent {
    /// A Node was added or changed; the Node as now stored.
    Applied(Arc<SlimNode>),
    /// A Node was deleted; its last state.
    Deleted(Arc<SlimNode>),
    /// The store holds a complete list (after the initial list or a relist, or already when the
    /// subscriber arrived): take every stored Node as applied. Nodes deleted while the watch was
    /// down are simply absent.
    Synced,
}

/// Why the feed's store cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum NodeFeedError {
    /// The watch task ended before the first complete list.
    #[error("the Node watch stopped before its first list")]
    Stopped,
}

type Events = BoxStream<'static, Result<watcher::Event<SlimNode>, watcher::Error>>;
type Pending = (Writer<SlimNode>, Events, watch::Sender<bool>);
type Subscribers = Arc<Mutex<Vec<Subscriber>>>;

/// Where a subscriber is told.
enum Subscriber {
    /// Every event, queued.
    Events(mpsc::UnboundedSender<NodeEvent>),
    /// Only that something changed: one pending signal at most, however many events.
    Changes(mpsc::Sender<()>),
}

impl Subscriber {
    /// Tells the subscriber; `false` once it is gone.
    fn tell(&mut self, event: &NodeEvent) -> bool {
        match self {
            Subscriber::Events(tx) => tx.unbounded_send(event.clone()).is_ok(),
            Subscriber::Changes(tx) => match tx.try_send(()) {
                Ok(()) => true,
                Err(error) => error.is_full(),
            },
        }
    }
}

/// One watch of the process's Nodes, decoded slim, one store, any number of subscribers. Cheap to
/// clone; every clone is the same feed.
#[derive(Clone)]
pub struct NodeFeed {
    shared: Arc<Shared>,
}

struct Shared {
    store: Store<SlimNode>,
    /// Whether the store holds a complete list. Ours rather than `Store::wait_until_ready`:
    /// kube-runtime's readiness is a oneshot that wakes only the last of several tasks waiting
    /// at once (and a `now_or_never` check takes the waiter's place), so with many consumers of
    /// one store, every consumer waits here and reaches the store (and the `Controller`s, which
    /// wait on it too) only once it is complete.
    ready: watch::Receiver<bool>,
    /// The writer, the (lazy) watch and the readiness signal until the first consumer starts them.
    pending: Mutex<Option<Pending>>,
    subscribers: Subscribers,
    /// How many watch tasks were started (one at most).
    started: AtomicUsize,
    task: Mutex<Option<AbortHandle>>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        if let Some(task) = lock(&self.task).take() {
            task.abort();
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl NodeFeed {
    /// A feed of the Nodes `config` selects (nothing is requested before a consumer starts it).
    pub fn new(client: Client, config: watcher::Config) -> NodeFeed {
        let events = watcher(Api::<SlimNode>::all(client), config)
            .default_backoff()
            .boxed();
        NodeFeed::from_events(events)
    }

    /// The watch config of a process: every Node, or only `node_name` (cloud-node-manager's
    /// field selector), in list pages of [`WATCH_PAGE_SIZE`].
    pub fn watch_config(node_name: Option<&str>) -> watcher::Config {
        let config = watcher::Config::default().page_size(WATCH_PAGE_SIZE);
        match node_name {
            Some(name) => config.fields(&format!("metadata.name={name}")),
            None => config,
        }
    }

    /// A feed over any stream of watch events (tests drive it without a server).
    pub fn from_events(events: Events) -> NodeFeed {
        let writer = Writer::default();
        let (ready_tx, ready) = watch::channel(false);
        NodeFeed {
            shared: Arc::new(Shared {
                store: writer.as_reader(),
                ready,
                pending: Mutex::new(Some((writer, events, ready_tx))),
                subscribers: Arc::default(),
                started: AtomicUsize::new(0),
                task: Mutex::new(None),
            }),
        }
    }

    /// The store (filled once the feed is started; see [`NodeFeed::ready`]).
    pub fn store(&self) -> Store<SlimNode> {
        self.shared.store.clone()
    }

    /// How many watches this feed started: 0 before its first consumer, 1 after.
    pub fn watches_started(&self) -> usize {
        self.shared.started.load(Ordering::SeqCst)
    }

    /// Starts the watch unless it runs already (needs a tokio runtime).
    pub fn start(&self) {
        let Some((writer, events, ready)) = lock(&self.shared.pending).take() else {
            return;
        };
        self.shared.started.fetch_add(1, Ordering::SeqCst);
        let subscribers = Arc::clone(&self.shared.subscribers);
        let task = tokio::spawn(drive(events, writer, ready, subscribers));
        *lock(&self.shared.task) = Some(task.abort_handle());
    }

    /// Starts the feed and waits for its first complete list (any number of tasks may wait).
    pub async fn ready(&self) -> Result<Store<SlimNode>, NodeFeedError> {
        self.start();
        let mut ready = self.shared.ready.clone();
        ready
            .wait_for(|complete| *complete)
            .await
            .map_err(|_| NodeFeedError::Stopped)?;
        Ok(self.store())
    }

    /// Starts the feed and subscribes: every event from now on, first [`NodeEvent::Synced`] when
    /// the store is already complete (a consumer that starts late sees every Node). Each
    /// subscriber has its own queue, so a slow one never holds up the others or the watch; the
    /// queue holds `Arc`s of stored Nodes. Dropping the stream unsubscribes.
    pub fn events(&self) -> impl Stream<Item = NodeEvent> + Send + 'static {
        let (tx, rx) = mpsc::unbounded();
        let complete = self.subscribe(Subscriber::Events(tx));
        futures::stream::iter(complete.then_some(NodeEvent::Synced)).chain(rx)
    }

    /// Starts the feed and subscribes to a signal per burst of changes (an applied or deleted
    /// Node, a complete list), first one when the store is already complete. Nothing is queued
    /// while the subscriber is busy but one pending signal, so a consumer that only recomputes
    /// from the store (the service controller's node sync) holds no old Node alive.
    pub fn changes(&self) -> impl Stream<Item = ()> + Send + 'static {
        let (tx, rx) = mpsc::channel(0);
        let complete = self.subscribe(Subscriber::Changes(tx));
        futures::stream::iter(complete.then_some(())).chain(rx)
    }

    /// Registers `subscriber`, starts the feed; whether the store was already complete.
    fn subscribe(&self, subscriber: Subscriber) -> bool {
        lock(&self.shared.subscribers).push(subscriber);
        self.start();
        // Subscribed before the check: a list completing in between is seen twice, never missed.
        *self.shared.ready.borrow()
    }

    /// [`NodeFeed::events`] as the Nodes to reconcile: each applied Node, and every stored Node
    /// on [`NodeEvent::Synced`] (a `Controller::for_shared_stream` trigger).
    pub fn applied(&self) -> impl Stream<Item = Arc<SlimNode>> + Send + 'static {
        let store = self.store();
        self.events().flat_map(move |event| {
            futures::stream::iter(match event {
                NodeEvent::Applied(node) => vec![node],
                NodeEvent::Synced => store.state(),
                NodeEvent::Deleted(_) => Vec::new(),
            })
        })
    }
}

/// Applies each watch event to the store, then tells every live subscriber.
async fn drive(
    mut events: Events,
    mut writer: Writer<SlimNode>,
    ready: watch::Sender<bool>,
    subscribers: Subscribers,
) {
    let store = writer.as_reader();
    while let Some(event) = events.next().await {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                tracing::warn!(%error, "Node watch failed; retrying");
                continue;
            }
        };
        writer.apply_watcher_event(&event);
        let told = match event {
            watcher::Event::Apply(node) => store
                .get(&ObjectRef::from_obj(&node))
                .map(NodeEvent::Applied),
            watcher::Event::Delete(node) => Some(NodeEvent::Deleted(Arc::new(node))),
            watcher::Event::InitDone => {
                ready.send_replace(true);
                Some(NodeEvent::Synced)
            }
            watcher::Event::Init | watcher::Event::InitApply(_) => None,
        };
        if let Some(told) = told {
            lock(&subscribers).retain_mut(|subscriber| subscriber.tell(&told));
        }
    }
}

#[cfg(test)]
#[path = "feed_tests.rs"]
mod tests;
