//! Leader Migration enforced across a "kube-controller-manager" stand-in and a
//! "cloud-controller-manager" stand-in (each a main-lease + migration-lease pair) on the real
//! embedded API server: a migrated controller never runs in both at once.

use std::time::Duration;

use ccm_controllers::leader::{ElectionConfig, LeaderHandle};
use ccm_controllers::migration::{
    Classification, ControllerClass, GateState, LeaderMigrationConfig, LeaseGate, classify,
};
use k8s_openapi::api::coordination::v1::Lease;
use kube::Api;
use tokio::time::timeout;

use crate::api_server::ApiServer;
use crate::run_log::{LeaseHistory, PATIENCE, RunLog, StandInController};

const NS: &str = "kube-system";
const KCM: &str = "kube-controller-manager";
const CCM: &str = "cloud-controller-manager";
/// The service controller under its ≥1.28 canonical name, in both managers.
const SERVICE: &str = "service-lb-controller";
/// A controller not in the default config (runs under the main lease).
const CLOUD_NODE: &str = "cloud-node-controller";

fn election(lease: &str, identity: &str) -> ElectionConfig {
    let mut config = ElectionConfig::new(NS, lease, identity);
    config.lease_duration = Duration::from_secs(4);
    config.renew_deadline = Duration::from_secs(3);
    config.retry_period = Duration::from_millis(500);
    config
}

/// One manager process stand-in: its gate and its stand-in controllers.
struct Manager {
    gate: LeaseGate,
    work: Vec<StandInController>,
}

impl Manager {
    async fn start(server: &ApiServer, component: &str, identity: &str, log: &RunLog) -> Manager {
        let config = LeaderMigrationConfig::built_in_default();
        let classes: Classification = classify(
            Some(&config),
            component,
            &[SERVICE, CLOUD_NODE],
            NS,
            component,
        );
        assert_eq!(classes.class_of(SERVICE), Some(&ControllerClass::Migrated));
        assert_eq!(
            classes.class_of(CLOUD_NODE),
            Some(&ControllerClass::NotMigrated)
        );
        let main = election(component, identity);
        let migration = main.for_lease(config.leader_name.clone());
        let gate = LeaseGate::spawn(server.client().await, main, Some(migration)).unwrap();
        let work = classes
            .controllers
            .iter()
            .map(|(name, class)| {
                let class = class.clone();
                StandInController::start(
                    &format!("{identity}/{name}"),
                    log,
                    gate.subscribe(),
                    move |s: &GateState| s.may_run(&class),
                )
            })
            .collect();
        Manager { gate, work }
    }

    async fn wait(&self, what: &str, pred: impl Fn(&GateState) -> bool) {
        let mut rx = self.gate.subscribe();
        timeout(PATIENCE, rx.wait_for(|s| pred(s)))
            .await
            .unwrap_or_else(|_| panic!("{what}: not reached"))
            .unwrap();
    }

    /// SIGTERM: stop the controllers, then release both leases.
    async fn stop(self) {
        for w in self.work {
            w.stop().await;
        }
        self.gate.shutdown().await;
    }

    /// Crash: the controllers stop with the process, the leases are not released.
    async fn crash(self) {
        for w in self.work {
            w.stop().await;
        }
        drop(self.gate);
    }
}

fn service_runs(log: &RunLog) -> RunLog {
    let only = RunLog::default();
    for run in log.runs().into_iter().filter(|r| r.who.ends_with(SERVICE)) {
        only.push(run);
    }
    only
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kcm_and_ccm_never_both_run_a_migrated_controller() {
    let server = ApiServer::start();
    let history = LeaseHistory::watch(
        server.client().await,
        NS,
        "cloud-provider-extraction-migration",
    );
    let log = RunLog::default();

    // N: the KCM holds its main lease and then the migration lease.
    let kcm = Manager::start(&server, KCM, "kcm-a", &log).await;
    kcm.wait("kcm holds both", |s| s.main && s.migration).await;
    log.wait_started(&format!("kcm-a/{SERVICE}")).await;
    // N+1: the CCM takes its own main lease (its non-migrated controllers run) but not the migration one.
    let ccm = Manager::start(&server, CCM, "ccm-a", &log).await;
    ccm.wait("ccm holds main", |s| s.main).await;
    history
        .wait_for("kcm renews the migration lease", |r| {
            r.is_held_by("kcm-a") && r.renew_time != r.acquire_time
        })
        .await;
    assert!(!ccm.gate.subscribe().borrow().migration);
    log.wait_started(&format!("ccm-a/{CLOUD_NODE}")).await;

    // Rolling upgrade: the KCM is stopped gracefully; the CCM takes the migrated controllers over.
    kcm.stop().await;
    ccm.wait("ccm holds both", |s| s.main && s.migration).await;
    log.wait_started(&format!("ccm-a/{SERVICE}")).await;
    // Rollback: a KCM comes back and waits; the CCM crashes; the KCM takes over after expiry.
    let kcm_b = Manager::start(&server, KCM, "kcm-b", &log).await;
    kcm_b.wait("kcm-b holds main", |s| s.main).await;
    ccm.crash().await;
    kcm_b
        .wait("kcm-b holds both", |s| s.main && s.migration)
        .await;
    log.wait_started(&format!("kcm-b/{SERVICE}")).await;
    kcm_b.stop().await;
    history
        .wait_for("released", |r| r.holder.is_none() && r.transitions == 2)
        .await;

    let service = service_runs(&log);
    let owners: Vec<String> = service.runs().into_iter().map(|r| r.who).collect();
    assert_eq!(
        owners,
        [
            format!("kcm-a/{SERVICE}"),
            format!("ccm-a/{SERVICE}"),
            format!("kcm-b/{SERVICE}")
        ]
    );
    service.assert_never_overlapping();
    history.assert_safe_handovers();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn losing_the_api_server_is_the_on_lost_signal_for_the_gate() {
    let mut server = ApiServer::start();
    let log = RunLog::default();
    let ccm = Manager::start(&server, CCM, "ccm-a", &log).await;
    ccm.wait("holds both", |s| s.main && s.migration).await;
    server.kill();
    let lost = timeout(PATIENCE, ccm.gate.lost())
        .await
        .expect("no on-lost signal");
    assert!(lost.starts_with("kube-system/"), "{lost}");
    let state = ccm.gate.subscribe().borrow().clone();
    assert!(
        !state.may_run(&ControllerClass::NotMigrated) && !state.may_run(&ControllerClass::Migrated)
    );
    ccm.crash().await;
    assert!(
        log.runs().iter().all(|r| r.end.is_some()),
        "{:#?}",
        log.runs()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_migration_lease_is_not_campaigned_for_without_the_main_lease() {
    let server = ApiServer::start();
    let main_history = LeaseHistory::watch(server.client().await, NS, CCM);
    // Another CCM replica holds the main lease.
    let other = LeaderHandle::spawn(server.client().await, election(CCM, "ccm-a")).unwrap();
    timeout(PATIENCE, other.leading())
        .await
        .expect("ccm-a never led")
        .unwrap();
    let log = RunLog::default();
    let ccm_b = Manager::start(&server, CCM, "ccm-b", &log).await;
    // While ccm-a renews several times, ccm-b campaigns for the main lease only.
    main_history
        .wait_for("ccm-a leads", |r| r.is_held_by("ccm-a"))
        .await;
    let seen = main_history.records().len();
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while main_history.records().len() < seen + 4 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "ccm-a stopped renewing"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let leases: Api<Lease> = Api::namespaced(server.client().await, NS);
    let migration = leases
        .get_opt("cloud-provider-extraction-migration")
        .await
        .unwrap();
    assert!(
        migration.is_none(),
        "campaigned without the main lease: {migration:?}"
    );
    assert_eq!(
        ccm_b.gate.subscribe().borrow().clone(),
        GateState::default()
    );
    assert!(log.runs().is_empty(), "{:#?}", log.runs());
    ccm_b.stop().await;
    other.shutdown().await;
    main_history.assert_safe_handovers();
}
