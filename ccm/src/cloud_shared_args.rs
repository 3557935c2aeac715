//! The flags upstream's `KubeCloudSharedConfiguration` gives both the in-tree
//! kube-controller-manager and the cloud-controller-manager (cluster name, pod and Service
//! ranges, routes, periods), with their names and defaults, and the controller settings and
//! node-ipam ranges they make.

use std::time::Duration;

use anyhow::{Context, bail};
use ccm_controllers::host::ControllerSettings;
use ccm_controllers::node_ipam::IpamConfig;
use ccm_controllers::node_ipam::config::{ConfigError, parse_cidr_list};
use ccm_names::controllers::{NODE_IPAM, NODE_ROUTE};
use clap::{ArgAction, Args};

use crate::go_duration;

fn duration(text: &str) -> Result<Duration, String> {
    go_duration::parse(text).map_err(|e| e.to_string())
}

/// Cluster-wide flags shared by both controller managers (flattened into each command line).
#[derive(Debug, Clone, Args)]
pub struct KubeCloudSharedArgs {
    /// Cluster name: prefix of load balancer, backend pool and public IP names.
    #[arg(long, default_value = "kubernetes", value_name = "NAME")]
    pub cluster_name: String,

    /// Pod CIDRs of the cluster, comma separated, at most one per IP family.
    #[arg(long, default_value = "", value_name = "CIDRS")]
    pub cluster_cidr: String,

    /// Allocate pod CIDRs to Nodes (starts node-ipam).
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "false", default_missing_value = "true", value_name = "BOOL")]
    pub allocate_node_cidrs: bool,

    /// Node pod CIDR mask size for IPv4 (0 means 24).
    #[arg(long, default_value_t = 0, value_name = "BITS")]
    pub node_cidr_mask_size_ipv4: u8,

    /// Node pod CIDR mask size for IPv6 (0 means 64).
    #[arg(long, default_value_t = 0, value_name = "BITS")]
    pub node_cidr_mask_size_ipv6: u8,

    /// Service CIDRs, comma separated (at most two), never handed to Nodes.
    #[arg(long, default_value = "", value_name = "CIDRS")]
    pub service_cluster_ip_range: String,

    /// Create routes for the Nodes' pod CIDRs in the cluster route table (route controller).
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "true", default_missing_value = "true", value_name = "BOOL")]
    pub configure_cloud_routes: bool,

    /// Period of the route reconciliation.
    #[arg(long, value_parser = duration, default_value = "10s", value_name = "DURATION")]
    pub route_reconciliation_period: Duration,

    /// Period of the node lifecycle pass.
    #[arg(long, value_parser = duration, default_value = "5s", value_name = "DURATION")]
    pub node_monitor_period: Duration,
}

impl KubeCloudSharedArgs {
    /// The enabled controllers (`named`, in order) that these flags let run, and node-ipam's
    /// ranges: node-ipam only with `--allocate-node-cidrs`; the route controller with
    /// `--configure-cloud-routes` (and, `in_tree`, also `--allocate-node-cidrs`, as the in-tree
    /// KCM; the CCM does not need it, anchor-ccm.md §1.2) and then a `--cluster-cidr`. Refuses a
    /// zero period and malformed ranges, naming the flag.
    pub fn select(
        &self,
        named: Vec<&'static str>,
        in_tree: bool,
    ) -> anyhow::Result<(Vec<&'static str>, Option<IpamConfig>)> {
        for (flag, period) in [
            ("--node-monitor-period", self.node_monitor_period),
            (
                "--route-reconciliation-period",
                self.route_reconciliation_period,
            ),
        ] {
            // [infer] upstream's wait loops spin on 0; a period must be positive here.
            if period.is_zero() {
                bail!("{flag}=0: the period must be positive (e.g. 5s)");
            }
        }
        let clusters = parse_cidr_list("--cluster-cidr", &self.cluster_cidr)?;
        parse_cidr_list("--service-cluster-ip-range", &self.service_cluster_ip_range)?;
        let routes = named.contains(&NODE_ROUTE)
            && self.configure_cloud_routes
            && (!in_tree || self.allocate_node_cidrs);
        if routes && clusters.is_empty() {
            bail!(
                "--cluster-cidr is empty but the route controller is enabled (--configure-cloud-routes=true): \
                 give the pod CIDR(s), or pass --configure-cloud-routes=false (Azure CNI) or --controllers=*,-route"
            );
        }
        let ipam = if named.contains(&NODE_IPAM) && self.allocate_node_cidrs {
            Some(self.ipam().context("--allocate-node-cidrs=true")?)
        } else {
            None
        };
        let controllers = named
            .into_iter()
            .filter(|name| match *name {
                NODE_ROUTE => routes,
                NODE_IPAM => ipam.is_some(),
                _ => true,
            })
            .collect();
        Ok((controllers, ipam))
    }

    /// node-ipam's ranges from `--cluster-cidr`, the per-family masks (0: the default) and
    /// `--service-cluster-ip-range`.
    pub fn ipam(&self) -> Result<IpamConfig, ConfigError> {
        let mask = |m: u8| (m != 0).then_some(m);
        IpamConfig::from_flags(
            &self.cluster_cidr,
            mask(self.node_cidr_mask_size_ipv4),
            mask(self.node_cidr_mask_size_ipv6),
            &self.service_cluster_ip_range,
        )
    }

    /// The hosted controllers' settings; the rest comes from each binary's own flags
    /// (`concurrent_node_syncs` is cloud-node's default, which the CCM's flag replaces).
    pub fn controller_settings(
        &self,
        concurrent_service_syncs: u16,
        node_status_update_frequency: Duration,
        ipam: Option<IpamConfig>,
        start_interval: Duration,
    ) -> ControllerSettings {
        ControllerSettings {
            cluster_name: self.cluster_name.clone(),
            cluster_cidr: self.cluster_cidr.clone(),
            concurrent_service_syncs: concurrent_service_syncs.max(1),
            node_monitor_period: self.node_monitor_period,
            node_status_update_frequency,
            concurrent_node_syncs: ccm_controllers::node::DEFAULT_CONCURRENT_NODE_SYNCS,
            route_reconciliation_period: self.route_reconciliation_period,
            ipam,
            start_interval,
        }
    }
}
