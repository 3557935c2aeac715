//! Two `cloud-controller-manager` replicas and a crash: the leader is SIGKILLed (no release), the
//! standby takes the Lease once the dead leader's last renewal has expired, and at no moment do
//! two replicas act. Checked from the Lease's own history (watched: every holder, acquireTime,
//! renewTime and leaseTransitions) and from the fake ARM's journal, where each replica's writes
//! carry the `userAgent` of its azure.json. The graceful (SIGTERM) hand-over is in
//! `cloud_controller_manager.rs`.

use fake_process::{LeaseHistory, LeaseRecord, overlaps, writes_by, writes_out_of_turn};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Node, Service};
use k8s_openapi::jiff::SignedDuration;
use kube::Api;
use kube::api::PostParams;

use crate::ccm_services::web;
use crate::cloud_controller_manager::{Manager, holder_of, wait_for};
use crate::processes::{
    ingress_ip, load_balancer_service, small_azure_json, small_cluster, tainted_node, tcp_port,
};

const LEASE: &str = "cloud-controller-manager";
/// Short but valid timings (lease > renew deadline > 1.2 × retry), so the test is fast.
const LEASE_SECONDS: i64 = 6;
const RENEW_SECONDS: i64 = 4;
const RETRY_SECONDS: i64 = 1;

fn election_flags() -> [String; 3] {
    [
        format!("--leader-elect-lease-duration={LEASE_SECONDS}s"),
        format!("--leader-elect-renew-deadline={RENEW_SECONDS}s"),
        format!("--leader-elect-retry-period={RETRY_SECONDS}s"),
    ]
}

/// The Lease as it is now.
async fn current(leases: &Api<Lease>) -> LeaseRecord {
    LeaseRecord::of(&leases.get(LEASE).await.expect("get lease"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_leader_is_replaced_after_its_lease_expires_and_never_overlaps() {
    let (fake, api) = small_cluster().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (agent_a, agent_b) = ("ccm-replica-a", "ccm-replica-b");
    let client = api.client().await;
    let leases: Api<Lease> = Api::namespaced(client.clone(), "kube-system");
    let nodes: Api<Node> = Api::all(client.clone());
    let history = LeaseHistory::record(client.clone(), "kube-system", LEASE);
    let flags = election_flags();
    let extra: Vec<&str> = flags.iter().map(String::as_str).collect();

    // Replica A leads alone first, so its identity is known; B then stands by.
    let a = Manager::start(
        &fake,
        &api,
        &small_azure_json(&fake, dir.path(), Some(agent_a)),
        &extra,
    );
    let identity_a = wait_for("replica A leads", &[&a], || holder_of(&leases, LEASE)).await;
    let b = Manager::start(
        &fake,
        &api,
        &small_azure_json(&fake, dir.path(), Some(agent_b)),
        &extra,
    );

    // A's service controller gives `web` its Azure IP (ARM writes with A's user agent).
    let services: Api<Service> = Api::namespaced(client.clone(), "default");
    services
        .create(&PostParams::default(), &web())
        .await
        .expect("service");
    wait_for("A gives web its IP", &[&a, &b], || {
        ingress_ip(&services, "web")
    })
    .await;
    let writes = fake.arm_writes().await;
    assert!(
        writes_by(&writes, agent_a) > 0,
        "the ARM client did not send azure.json's userAgent: {writes:#?}"
    );
    assert_eq!(holder_of(&leases, LEASE).await, Some(identity_a.clone()));

    // Crash: A dies holding the Lease. Its last renewal stays in the Lease until B takes it.
    let exit = a.kill();
    assert!(!exit.success(), "{exit:?}");
    let last_of_a = current(&leases).await;
    assert_eq!(last_of_a.holder.as_deref(), Some(identity_a.as_str()));
    let last_renew_a = last_of_a.renew.expect("renewTime");

    let identity_b = wait_for("replica B takes over", &[&b], || async {
        holder_of(&leases, LEASE).await.filter(|h| *h != identity_a)
    })
    .await;
    let taken = current(&leases).await;
    assert_eq!(taken.holder.as_deref(), Some(identity_b.as_str()));
    assert_eq!(
        taken.transitions,
        last_of_a.transitions + 1,
        "leaseTransitions: {last_of_a:?} -> {taken:?}"
    );
    let acquired_b = taken.acquire.expect("acquireTime");
    // Not before A's lease expired (A did not release it) ...
    let expiry_a = last_renew_a + SignedDuration::from_secs(LEASE_SECONDS);
    assert!(
        acquired_b >= expiry_a,
        "B acquired at {acquired_b}, before A's lease expired at {expiry_a}"
    );
    // ... and within the lease duration plus the standby's polling slack: it sees A's last
    // renewal within one jittered retry (≤ 2.2 × retry), may wait one more after the expiry, and
    // each attempt may take up to the renew deadline.
    let slack = SignedDuration::from_secs_f64(2.0 * 2.2 * RETRY_SECONDS as f64)
        + SignedDuration::from_secs(RENEW_SECONDS);
    let latest = expiry_a + slack;
    assert!(
        acquired_b <= latest,
        "B acquired at {acquired_b}, later than {latest} (A's last renewal {last_renew_a})"
    );

    // B carries on: a new Service gets its IP through B.
    services
        .create(
            &PostParams::default(),
            &load_balancer_service("api", vec![tcp_port("http", 8080, 30081)]),
        )
        .await
        .expect("service");
    wait_for("B gives api its IP", &[&b], || ingress_ip(&services, "api")).await;
    // And initialises a new Node.
    nodes
        .create(&PostParams::default(), &tainted_node("k8s-master-0"))
        .await
        .expect("node");
    wait_for("B initialises the Node", &[&b], || async {
        nodes
            .get("k8s-master-0")
            .await
            .ok()
            .and_then(|n| n.spec?.provider_id)
    })
    .await;

    // The Lease history: A, then B, never both.
    let tenures = history.tenures();
    let holders: Vec<&str> = tenures.iter().map(|t| t.holder.as_str()).collect();
    assert_eq!(
        holders,
        [identity_a.as_str(), identity_b.as_str()],
        "{tenures:#?}"
    );
    assert!(!tenures[0].released, "SIGKILL cannot release: {tenures:#?}");
    let problems = overlaps(&tenures);
    assert!(
        problems.is_empty(),
        "{problems:#?}\n{:#?}",
        history.records()
    );

    // The journal: every ARM write between two holder changes comes from the holder only, and
    // A's last write precedes B's acquisition.
    let writes = fake.arm_writes().await;
    assert!(
        writes_by(&writes, agent_a) > 0 && writes_by(&writes, agent_b) > 0,
        "{writes:#?}"
    );
    let turns = [(agent_a, tenures[0].acquired), (agent_b, acquired_b)];
    let problems = writes_out_of_turn(&writes, &turns);
    assert!(problems.is_empty(), "{problems:#?}\n{tenures:#?}");
    let exit = b.terminate();
    assert!(exit.success(), "{exit:?}\n{}", b.logs());
}
