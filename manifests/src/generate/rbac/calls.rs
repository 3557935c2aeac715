//! The call table: every request the CCM and the CNM make against the Kubernetes API, with the
//! code path that makes it and the source the row was checked against. The manifests deploy the
//! upstream image (kubernetes-sigs/cloud-provider-azure), so every row it needs is here; this
//! project's binaries must run under the same RBAC.
//!
//! Checked against real calls: `ccm/tests/it/rbac.rs` runs this project's `cloud-controller-manager`
//! and `cloud-node-manager` with the generated flags, as their ServiceAccounts, against the
//! embedded API server's audit log, and fails on any call these rows do not allow; the rows no
//! call used are listed there, each with the reason it is kept (upstream-image calls such as
//! endpointslices and Event patches, node deletion that the run does not provoke).
//!
//! Upstream's own ClusterRole (migration.md 1.5) also grants serviceaccounts, persistentvolumes,
//! endpoints, secrets, `nodes: *` and event/service `update`; none of those is called with the
//! flags generated here (see `reference_rules` in the tests for the reason per rule).

use azure_ccm::names::{controllers, leases};

use super::{ApiCall, Caller, Scope};

const CCM_LEASES: &[&str] = &[leases::CLOUD_CONTROLLER_MANAGER];
const MIGRATION_LEASE: &[&str] = &[leases::LEADER_MIGRATION];
/// Verbs of both event recorders: create, and patch for a repeated event. client-go's
/// `tools/record` `recordEvent` calls `sink.Patch` then `sink.Create`, never `Update`.
pub(super) const EVENT_VERBS: &[&str] = &["create", "patch"];

/// Every call the CCM and the CNM make against the Kubernetes API.
pub static API_CALLS: &[ApiCall] = &[
    ApiCall {
        caller: Caller::Informers,
        group: "",
        resource: "nodes",
        verbs: &["get", "list", "watch"],
        names: &[],
        scope: Scope::Cluster,
        why: "node informer shared by every controller; taint helpers GET the Node before patching",
        source: "anchor controllermanager.go CreateControllerContext, provider/azure.go SetInformers; cloud-provider node/helpers/taints.go",
    },
    ApiCall {
        caller: Caller::Informers,
        group: "",
        resource: "services",
        verbs: &["get", "list", "watch"],
        names: &[],
        scope: Scope::Cluster,
        why: "service informer of the service controller and the provider's service lister",
        source: "provider/azure.go SetInformers (serviceLister); azure_local_services.go getLatestService",
    },
    ApiCall {
        caller: Caller::Informers,
        group: "discovery.k8s.io",
        resource: "endpointslices",
        verbs: &["get", "list", "watch"],
        names: &[],
        scope: Scope::Cluster,
        why: "EndpointSlice informer: backend pools of externalTrafficPolicy=Local services with multiple standard LBs (get adds nothing to list)",
        source: "provider/azure_local_services.go setUpEndpointSlicesInformer; migration.md 1.5 upstream role",
    },
    ApiCall {
        caller: Caller::EventRecorder,
        group: "",
        resource: "events",
        verbs: EVENT_VERBS,
        names: &[],
        scope: Scope::Cluster,
        why: "core/v1 Events of both images (this project's binaries create each Event once; the upstream recorder also patches repeats): service-controller, route_controller, cloud-node-lifecycle-controller, cidrAllocator, azure-cloud-provider, leader election, CNM cloud-node-controller",
        source: "client-go tools/record (EventSinkImpl on CoreV1().Events); options.go createRecorder; provider/azure.go Initialize; migration.md 1.5 and 6.1",
    },
    ApiCall {
        caller: Caller::Controller(controllers::SERVICE_LB),
        group: "",
        resource: "services/status",
        verbs: &["patch"],
        names: &[],
        scope: Scope::Cluster,
        why: "write status.loadBalancer.ingress and the load-balancer-cleanup finalizer",
        source: "cloud-provider service/helpers PatchService (Patch on subresource \"status\", metadata included)",
    },
    ApiCall {
        caller: Caller::Controller(controllers::SERVICE_LB),
        group: "",
        resource: "services",
        verbs: &["patch"],
        names: &[],
        scope: Scope::Cluster,
        why: "upstream role parity: the upstream ClusterRole grants services patch; neither image's finalizer path needs it (both patch services/status), kept for the upstream image's other Service writes",
        source: "migration.md 1.5 upstream role; not called by this project's CCM (ccm/tests/it/rbac.rs audit log)",
    },
    ApiCall {
        caller: Caller::Controller(controllers::SERVICE_LB),
        group: "coordination.k8s.io",
        resource: "leases",
        verbs: &["get", "update"],
        names: &[leases::AZURE_RESOURCE_LOCKER],
        scope: Scope::KubeSystem,
        why: "hold aks-managed-resource-locker around every LB reconcile",
        source: "anchor-ccm.md 1.2 and 4.1",
    },
    ApiCall {
        caller: Caller::Controller(controllers::SERVICE_LB),
        group: "coordination.k8s.io",
        resource: "leases",
        verbs: &["create"],
        names: &[],
        scope: Scope::KubeSystem,
        why: "create aks-managed-resource-locker when missing (create cannot be name-restricted)",
        source: "anchor-ccm.md 4.1; RBAC: resourceNames cannot restrict create",
    },
    ApiCall {
        caller: Caller::Controller(controllers::NODE_ROUTE),
        group: "",
        resource: "nodes/status",
        verbs: &["patch"],
        names: &[],
        scope: Scope::Cluster,
        why: "set the NetworkUnavailable condition (RouteCreated/NoRouteCreated)",
        source: "cloud-provider controllers/route route_controller.go (SetNodeCondition); migration.md 6.4",
    },
    ApiCall {
        caller: Caller::Controller(controllers::CLOUD_NODE_LIFECYCLE),
        group: "",
        resource: "nodes",
        verbs: &["delete"],
        names: &[],
        scope: Scope::Cluster,
        why: "delete NotReady Nodes whose VM no longer exists",
        source: "cloud-provider controllers/nodelifecycle; migration.md 6.2",
    },
    ApiCall {
        caller: Caller::Controller(controllers::CLOUD_NODE_LIFECYCLE),
        group: "",
        resource: "nodes",
        verbs: &["patch"],
        names: &[],
        scope: Scope::Cluster,
        why: "add/remove the shutdown and out-of-service taints (strategic merge patch, never update)",
        source: "cloud-provider node/helpers/taints.go PatchNodeTaints; provider/azure.go updateNodeTaint",
    },
    ApiCall {
        caller: Caller::Controller(controllers::NODE_IPAM),
        group: "",
        resource: "nodes",
        verbs: &["patch"],
        names: &[],
        scope: Scope::Cluster,
        why: "write spec.podCIDRs of new Nodes (--allocate-node-cidrs=true only)",
        source: "anchor pkg/nodeipam/ipam/range_allocator.go updateCIDRsAllocation (PatchNodeCIDRs)",
    },
    ApiCall {
        caller: Caller::LeaderElection,
        group: "coordination.k8s.io",
        resource: "leases",
        verbs: &["get", "update"],
        names: CCM_LEASES,
        scope: Scope::KubeSystem,
        why: "renew the cloud-controller-manager lease",
        source: "anchor controllermanager.go (resourcelock leases, name cloud-controller-manager)",
    },
    ApiCall {
        caller: Caller::LeaderElection,
        group: "coordination.k8s.io",
        resource: "leases",
        verbs: &["create"],
        names: &[],
        scope: Scope::KubeSystem,
        why: "create the lease on first start",
        source: "client-go leaderelection LeaseLock.Create",
    },
    ApiCall {
        caller: Caller::LeaderMigration,
        group: "coordination.k8s.io",
        resource: "leases",
        verbs: &["get", "update"],
        names: MIGRATION_LEASE,
        scope: Scope::KubeSystem,
        why: "campaign for cloud-provider-extraction-migration",
        source: "migration.md 2.4 and 2.5 step 1",
    },
    ApiCall {
        caller: Caller::LeaderMigration,
        group: "coordination.k8s.io",
        resource: "leases",
        verbs: &["create"],
        names: &[],
        scope: Scope::KubeSystem,
        why: "create the migration lease if KCM has not",
        source: "migration.md 2.5 step 1",
    },
    ApiCall {
        caller: Caller::CloudNodeManager,
        group: "",
        resource: "nodes",
        verbs: &["get", "list", "watch"],
        names: &[],
        scope: Scope::Cluster,
        why: "watch its own Node (field selector metadata.name)",
        source: "anchor-ccm.md 1.4; migration.md 1.6 upstream role",
    },
    ApiCall {
        caller: Caller::CloudNodeManager,
        group: "",
        resource: "nodes",
        verbs: &["patch", "update"],
        names: &[],
        scope: Scope::Cluster,
        why: "set providerID and labels, remove the uninitialized taint (ours: one merge patch guarded by the cached resourceVersion; upstream's image: a full Node update)",
        source: "anchor-ccm.md 1.4 steps (b)-(e); migration.md 1.6 upstream role",
    },
    ApiCall {
        caller: Caller::CloudNodeManager,
        group: "",
        resource: "nodes/status",
        verbs: &["patch"],
        names: &[],
        scope: Scope::Cluster,
        why: "write status.addresses and NetworkUnavailable (--wait-routes)",
        source: "anchor-ccm.md 1.4 steps (a), (f) and loop 2; migration.md 1.6",
    },
];
