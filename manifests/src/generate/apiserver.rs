//! kube-apiserver static pod. In-tree it carries `--cloud-provider=azure`; out-of-tree it carries
//! no cloud flag at all (the documented advice, and the only legal form from 1.33).

use k8s_openapi::api::core::v1::Pod;

use super::args::Args;
use super::paths;
use super::pod::{self, host_path};
use super::static_pod::StaticPod;
use crate::cidr;
use crate::component::Component;
use crate::options::{Mode, Options};

/// Secure port of the apiserver.
pub const SECURE_PORT: i32 = 6443;

/// Builds the kube-apiserver static pod.
pub fn build(o: &Options) -> Pod {
    let pki = |f: &str| format!("{}/{f}", paths::PKI);
    let mut a = Args::new(Component::KubeApiserver, o.version);
    a.flag("--allow-privileged", "true")
        .flag("--authorization-mode", "Node,RBAC")
        .flag("--client-ca-file", pki("ca.crt"))
        .flag("--enable-admission-plugins", "NodeRestriction")
        .flag("--enable-bootstrap-token-auth", "true")
        .flag("--etcd-cafile", pki("etcd/ca.crt"))
        .flag("--etcd-certfile", pki("apiserver-etcd-client.crt"))
        .flag("--etcd-keyfile", pki("apiserver-etcd-client.key"))
        .flag("--etcd-servers", "https://127.0.0.1:2379")
        .flag(
            "--kubelet-client-certificate",
            pki("apiserver-kubelet-client.crt"),
        )
        .flag("--kubelet-client-key", pki("apiserver-kubelet-client.key"))
        .flag(
            "--kubelet-preferred-address-types",
            "InternalIP,ExternalIP,Hostname",
        )
        .flag("--proxy-client-cert-file", pki("front-proxy-client.crt"))
        .flag("--proxy-client-key-file", pki("front-proxy-client.key"))
        .flag("--requestheader-allowed-names", "front-proxy-client")
        .flag("--requestheader-client-ca-file", pki("front-proxy-ca.crt"))
        .flag("--requestheader-extra-headers-prefix", "X-Remote-Extra-")
        .flag("--requestheader-group-headers", "X-Remote-Group")
        .flag("--requestheader-username-headers", "X-Remote-User")
        .flag("--secure-port", SECURE_PORT.to_string())
        .flag(
            "--service-account-issuer",
            "https://kubernetes.default.svc.cluster.local",
        )
        .flag("--service-account-key-file", pki("sa.pub"))
        .flag("--service-account-signing-key-file", pki("sa.key"))
        .flag("--service-cluster-ip-range", cidr::join(&o.service_cidrs))
        .flag("--tls-cert-file", pki("apiserver.crt"))
        .flag("--tls-private-key-file", pki("apiserver.key"));
    let mut mounts = vec![
        host_path("k8s-certs", paths::PKI, "DirectoryOrCreate"),
        host_path("ca-certs", paths::CA_CERTS, "DirectoryOrCreate"),
    ];
    if o.mode == Mode::InTree {
        a.flag("--cloud-provider", "azure")
            .flag("--cloud-config", paths::AZURE_JSON);
        a.feature_gates(&super::in_tree_gates(o.version));
        mounts.push(host_path("cloud-config", paths::AZURE_JSON, "File"));
    }
    StaticPod {
        name: Component::KubeApiserver.name(),
        image: super::kubernetes_image(o, Component::KubeApiserver),
        args: a.build(),
        mounts,
        liveness: pod::https_probe(Some("127.0.0.1"), "/livez", SECURE_PORT, 10, 8),
        readiness: Some(pod::https_probe(
            Some("127.0.0.1"),
            "/readyz",
            SECURE_PORT,
            0,
            3,
        )),
        startup: pod::https_probe(Some("127.0.0.1"), "/livez", SECURE_PORT, 10, 24),
        cpu: "250m",
    }
    .into_pod()
}
