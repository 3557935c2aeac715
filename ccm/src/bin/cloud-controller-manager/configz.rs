//! `/configz`: the component configuration, under upstream's key
//! `cloudcontrollermanager.config.k8s.io` (anchor-ccm.md §1.2). Only flag values are shown: the
//! cloud config (which holds credentials) never appears, only its path or Secret coordinates.
//!
//! **[infer]** the field names follow upstream's internal `CloudControllerManagerConfiguration`
//! (`Generic`, `KubeCloudShared`, `ServiceController`, `NodeController`,
//! `NodeStatusUpdateFrequency`), which has no
//! JSON tags; only the fields this binary knows are listed.

use azure_ccm::go_duration::format;
use serde_json::{Value, json};

use crate::flags::Flags;

/// The `/configz` key of the cloud-controller-manager.
pub const CONFIGZ_NAME: &str = "cloudcontrollermanager.config.k8s.io";

/// The JSON document served at `/configz`.
pub fn document(flags: &Flags) -> Value {
    let path = |p: &Option<std::path::PathBuf>| {
        p.as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    };
    json!({ CONFIGZ_NAME: {
        "Generic": {
            "Port": flags.secure_port,
            "Address": flags.bind_address.to_string(),
            "MinResyncPeriod": format(flags.min_resync_period),
            "ClientConnection": {
                "Kubeconfig": path(&flags.kubeconfig),
                "ContentType": flags.kube_api_content_type,
                "QPS": flags.kube_api_qps,
                "Burst": flags.kube_api_burst,
            },
            "ControllerStartInterval": format(flags.controller_start_interval),
            "LeaderElection": {
                "LeaderElect": flags.election.leader_elect,
                "LeaseDuration": format(flags.election.leader_elect_lease_duration),
                "RenewDeadline": format(flags.election.leader_elect_renew_deadline),
                "RetryPeriod": format(flags.election.leader_elect_retry_period),
                "ResourceLock": flags.election.leader_elect_resource_lock,
                "ResourceName": flags.election.resource_name(crate::run::COMPONENT),
                "ResourceNamespace": flags.election.leader_elect_resource_namespace,
            },
            "Controllers": flags.controllers,
            "Debugging": {
                "EnableProfiling": flags.profiling,
                "EnableContentionProfiling": flags.contention_profiling,
            },
            "LeaderMigrationEnabled": flags.election.enable_leader_migration,
        },
        "KubeCloudShared": {
            "CloudProvider": {
                "Name": flags.cloud_provider,
                "CloudConfigFile": path(&flags.cloud_config),
            },
            "ExternalCloudVolumePlugin": flags.external_cloud_volume_plugin,
            "UseServiceAccountCredentials": flags.use_service_account_credentials,
            "AllowUntaggedCloud": flags.allow_untagged_cloud,
            "RouteReconciliationPeriod": format(flags.shared.route_reconciliation_period),
            "NodeMonitorPeriod": format(flags.shared.node_monitor_period),
            "ClusterName": flags.shared.cluster_name,
            "ClusterCIDR": flags.shared.cluster_cidr,
            "AllocateNodeCIDRs": flags.shared.allocate_node_cidrs,
            "CIDRAllocatorType": format!("{:?}Allocator", flags.cidr_allocator_type),
            "ConfigureCloudRoutes": flags.shared.configure_cloud_routes,
        },
        "ServiceController": { "ConcurrentServiceSyncs": flags.concurrent_service_syncs },
        "NodeController": { "ConcurrentNodeSyncs": flags.concurrent_node_syncs },
        "NodeStatusUpdateFrequency": format(flags.node_status_update_frequency),
    }})
}
