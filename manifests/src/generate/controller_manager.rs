//! kube-controller-manager static pod. In-tree it runs the Azure service, route and
//! node-lifecycle loops and, with routes, node IPAM. Out-of-tree it runs none of the cloud loops
//! (`--cloud-provider=external`); with routes, node IPAM moves to the CCM by default (migration.md
//! 1.3 and scenario 2: exactly one of KCM and CCM allocates, here `--allocate-node-cidrs=false`),
//! or stays here with `--node-ipam kube-controller-manager` or `--leader-migration`. Either owner
//! keeps the pod CIDRs of existing nodes: the range allocator marks them occupied at start and
//! only fills empty ones.

use k8s_openapi::api::core::v1::Pod;

use super::args::Args;
use super::paths;
use super::pod::{self, host_path};
use super::static_pod::StaticPod;
use crate::cidr;
use crate::component::Component;
use crate::options::{Mode, NodeIpam, Options};

/// Secure port of kube-controller-manager.
pub const SECURE_PORT: i32 = 10257;
/// Kubeconfig of kube-controller-manager.
const KUBECONFIG: &str = "/etc/kubernetes/controller-manager.conf";

/// Builds the kube-controller-manager static pod.
pub fn build(o: &Options) -> Pod {
    let pki = |f: &str| format!("{}/{f}", paths::PKI);
    let ipam = o.allocates(NodeIpam::KubeControllerManager);
    let mut a = Args::new(Component::KubeControllerManager, o.version);
    a.flag("--allocate-node-cidrs", ipam.to_string())
        .flag("--authentication-kubeconfig", KUBECONFIG)
        .flag("--authorization-kubeconfig", KUBECONFIG)
        .flag("--bind-address", "127.0.0.1")
        .flag("--client-ca-file", pki("ca.crt"));
    match o.mode {
        Mode::InTree => {
            a.flag("--cloud-config", paths::AZURE_JSON)
                .flag("--cloud-provider", "azure");
        }
        Mode::OutOfTree => {
            a.flag("--cloud-provider", "external");
        }
    }
    a.flag_if(ipam, "--cluster-cidr", cidr::join(&o.cluster_cidrs))
        .flag("--cluster-name", &o.cluster_name)
        .flag("--cluster-signing-cert-file", pki("ca.crt"))
        .flag("--cluster-signing-key-file", pki("ca.key"));
    if o.mode == Mode::InTree {
        a.flag(
            "--configure-cloud-routes",
            o.configure_cloud_routes.to_string(),
        );
    }
    a.flag("--controllers", "*,bootstrapsigner,tokencleaner");
    let migrate = o.mode == Mode::InTree && o.leader_migration;
    a.flag_if(migrate, "--enable-leader-migration", "true");
    if o.mode == Mode::InTree {
        a.feature_gates(&super::in_tree_gates(o.version));
    }
    a.flag("--kubeconfig", KUBECONFIG)
        .flag("--leader-elect", "true")
        .flag_if(
            migrate,
            "--leader-migration-config",
            paths::LEADER_MIGRATION,
        );
    if ipam {
        for (name, value) in cidr::node_mask_flags(&o.cluster_cidrs) {
            a.flag(name, value);
        }
    }
    a.flag("--requestheader-client-ca-file", pki("front-proxy-ca.crt"))
        .flag("--root-ca-file", pki("ca.crt"))
        .flag_if(
            o.mode == Mode::InTree && o.configure_cloud_routes,
            "--route-reconciliation-period",
            "10s",
        )
        .flag("--service-account-private-key-file", pki("sa.key"))
        .flag("--service-cluster-ip-range", cidr::join(&o.service_cidrs))
        .flag("--use-service-account-credentials", "true");
    let mut mounts = vec![
        host_path("k8s-certs", paths::PKI, "DirectoryOrCreate"),
        host_path("ca-certs", paths::CA_CERTS, "DirectoryOrCreate"),
        host_path("kubeconfig", KUBECONFIG, "File"),
    ];
    if o.mode == Mode::InTree {
        mounts.push(host_path("cloud-config", paths::AZURE_JSON, "File"));
    }
    if migrate {
        mounts.push(host_path(
            "leader-migration",
            paths::LEADER_MIGRATION,
            "File",
        ));
    }
    StaticPod {
        name: Component::KubeControllerManager.name(),
        image: super::kubernetes_image(o, Component::KubeControllerManager),
        args: a.build(),
        mounts,
        liveness: pod::https_probe(Some("127.0.0.1"), "/healthz", SECURE_PORT, 10, 8),
        readiness: None,
        startup: pod::https_probe(Some("127.0.0.1"), "/healthz", SECURE_PORT, 10, 24),
        cpu: "200m",
    }
    .into_pod()
}
