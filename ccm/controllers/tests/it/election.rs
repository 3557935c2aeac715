//! Two electors on one Lease of the real embedded API server: one leader at a time, failover after
//! the holder stops renewing, hand-over at once on release, and the on-lost signal.

use std::time::Duration;

use ccm_controllers::leader::{ElectionConfig, LeaderHandle, LeaderState};
use tokio::time::timeout;

use crate::api_server::ApiServer;
use crate::proxy::Proxy;
use crate::run_log::{LeaseHistory, PATIENCE, RunLog, StandInController};

const NS: &str = "kube-system";
const LEASE: &str = "cloud-controller-manager";

/// Short timings so failover tests take seconds; valid by client-go's rules.
fn fast(identity: &str) -> ElectionConfig {
    let mut config = ElectionConfig::new(NS, LEASE, identity);
    config.lease_duration = Duration::from_secs(4);
    config.renew_deadline = Duration::from_secs(3);
    config.retry_period = Duration::from_millis(500);
    config
}

async fn leading(handle: &LeaderHandle) {
    timeout(PATIENCE, handle.leading())
        .await
        .expect("never became leader")
        .expect("election ended");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_leader_at_a_time_and_failover_after_the_holder_stops_renewing() {
    let server = ApiServer::start();
    let history = LeaseHistory::watch(server.client().await, NS, LEASE);
    let log = RunLog::default();

    let a = LeaderHandle::spawn(server.client().await, fast("host-a_1")).unwrap();
    leading(&a).await;
    let work_a = StandInController::start("a", &log, a.subscribe(), LeaderState::is_leading);

    let b = LeaderHandle::spawn(server.client().await, fast("host-b_2")).unwrap();
    let work_b = StandInController::start("b", &log, b.subscribe(), LeaderState::is_leading);
    // b observes a as the holder and stays standby while a renews.
    let mut b_state = b.subscribe();
    timeout(
        PATIENCE,
        b_state.wait_for(|s| {
            *s == LeaderState::Standby {
                holder: Some("host-a_1".into()),
            }
        }),
    )
    .await
    .expect("b never observed a")
    .unwrap();
    history
        .wait_for("a renews", |r| {
            r.is_held_by("host-a_1") && r.renew_time != r.acquire_time
        })
        .await;
    assert_eq!(
        b.state(),
        LeaderState::Standby {
            holder: Some("host-a_1".into())
        }
    );

    // a stops renewing (crash: its work ends, the handle is dropped without release).
    log.wait_started("a").await;
    work_a.stop().await;
    drop(a);
    leading(&b).await;
    log.wait_started("b").await;
    let taken = history
        .wait_for("b holds", |r| r.is_held_by("host-b_2"))
        .await;
    assert_eq!(taken.transitions, 1, "{taken:?}");

    work_b.stop().await;
    b.shutdown().await;
    history.wait_for("released", |r| r.holder.is_none()).await;
    history.assert_safe_handovers();
    log.assert_never_overlapping();
    assert_eq!(
        (log.runs_of("a"), log.runs_of("b")),
        (1, 1),
        "{:#?}",
        log.runs()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn release_on_shutdown_lets_the_standby_acquire_at_once() {
    let server = ApiServer::start();
    let history = LeaseHistory::watch(server.client().await, NS, LEASE);
    let log = RunLog::default();
    // A long lease: a standby that waited for expiry would need 60 s.
    let slow = |id: &str| {
        let mut c = fast(id);
        c.lease_duration = Duration::from_secs(60);
        c.renew_deadline = Duration::from_secs(40);
        c
    };
    let a = LeaderHandle::spawn(server.client().await, slow("host-a_1")).unwrap();
    leading(&a).await;
    let work_a = StandInController::start("a", &log, a.subscribe(), LeaderState::is_leading);
    let b = LeaderHandle::spawn(server.client().await, slow("host-b_2")).unwrap();
    let work_b = StandInController::start("b", &log, b.subscribe(), LeaderState::is_leading);
    let mut b_state = b.subscribe();
    timeout(
        PATIENCE,
        b_state.wait_for(|s| matches!(s, LeaderState::Standby { holder: Some(_) })),
    )
    .await
    .expect("b never observed a")
    .unwrap();

    // Graceful shutdown: work stops first, then the lease is released.
    log.wait_started("a").await;
    work_a.stop().await;
    assert_eq!(a.shutdown().await, LeaderState::Stopped);
    let released = history.wait_for("released", |r| r.holder.is_none()).await;
    assert_eq!(released.lease_duration_seconds, 1);
    assert_eq!(released.transitions, 0);

    leading(&b).await;
    let taken = history
        .wait_for("b holds", |r| r.is_held_by("host-b_2"))
        .await;
    assert_eq!(taken.transitions, 1);
    log.wait_started("b").await;
    let waited = taken
        .acquire_time
        .unwrap()
        .duration_since(released.renew_time.unwrap());
    assert!(
        waited < k8s_openapi::jiff::SignedDuration::from_secs(60),
        "b waited for expiry ({waited:?}) instead of taking the released lease"
    );
    work_b.stop().await;
    drop(b);
    history.assert_safe_handovers();
    log.assert_never_overlapping();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leadership_is_lost_when_renewal_fails_for_the_renew_deadline() {
    let mut server = ApiServer::start();
    let a = LeaderHandle::spawn(server.client().await, fast("host-a_1")).unwrap();
    leading(&a).await;
    server.kill();
    timeout(PATIENCE, a.lost())
        .await
        .expect("no on-lost signal");
    assert_eq!(a.state(), LeaderState::Lost);
    assert_eq!(a.shutdown().await, LeaderState::Lost);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partitioned_leader_stops_before_the_standby_takes_over() {
    let server = ApiServer::start();
    let proxy = Proxy::start(server.addr().await).await;
    let history = LeaseHistory::watch(server.client().await, NS, LEASE);
    let log = RunLog::default();
    // Renew deadline + retry (3.5 s) well inside the lease (6 s), as 10 s + 2 s inside 15 s.
    let partitionable = |id: &str| {
        let mut c = fast(id);
        c.lease_duration = Duration::from_secs(6);
        c
    };
    // a reaches the API server only through the proxy; b directly.
    let a = LeaderHandle::spawn(
        server.client_via(proxy.addr).await,
        partitionable("host-a_1"),
    )
    .unwrap();
    leading(&a).await;
    let work_a = StandInController::start("a", &log, a.subscribe(), LeaderState::is_leading);
    log.wait_started("a").await;
    let b = LeaderHandle::spawn(server.client().await, partitionable("host-b_2")).unwrap();
    let work_b = StandInController::start("b", &log, b.subscribe(), LeaderState::is_leading);
    let mut b_state = b.subscribe();
    timeout(
        PATIENCE,
        b_state.wait_for(|s| {
            *s == LeaderState::Standby {
                holder: Some("host-a_1".into()),
            }
        }),
    )
    .await
    .expect("b never observed a")
    .unwrap();

    // a is cut off: it cannot renew, signals the loss and its work stops; b takes over later.
    proxy.cut();
    timeout(PATIENCE, a.lost())
        .await
        .expect("no on-lost signal");
    leading(&b).await;
    log.wait_started("b").await;
    work_a.stop().await;
    work_b.stop().await;
    b.shutdown().await;
    history.wait_for("released", |r| r.holder.is_none()).await;
    history.assert_safe_handovers();
    log.assert_never_overlapping();
}
