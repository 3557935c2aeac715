//! Settings checked against the reference: images, ports and probes, node IPAM ownership,
//! leader migration limits and warnings.

use ccm_manifests::cidr::Cidr;
use ccm_manifests::options::NodeIpam;
use ccm_manifests::{Bundle, KubeVersion, Mode, Options, generate};
use serde_json::Value;

fn v(minor: u32) -> KubeVersion {
    KubeVersion::from_minor(minor).expect("supported minor")
}

/// Every YAML document of a generated file.
fn docs(b: &Bundle, name: &str) -> Vec<Value> {
    let text = &b.file(name).expect("file generated").contents;
    serde_saphyr::from_multiple(text).expect("valid YAML")
}

/// Every container (kind, container) of every generated object.
fn containers(b: &Bundle) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for f in b.files.iter().filter(|f| f.name.ends_with(".manifest")) {
        let Ok(all) = serde_saphyr::from_multiple::<Value>(&f.contents) else {
            continue;
        };
        for d in all {
            let spec = match d["kind"].as_str() {
                Some("Pod") => d["spec"].clone(),
                Some("Deployment" | "DaemonSet") => d["spec"]["template"]["spec"].clone(),
                _ => continue,
            };
            for c in spec["containers"].as_array().cloned().unwrap_or_default() {
                out.push((f.name.clone(), c));
            }
        }
    }
    out
}

/// Value of `--flag=` in a container command, if present.
fn flag(container: &Value, name: &str) -> Option<String> {
    let prefix = format!("{name}=");
    container["command"]
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .find_map(|a| a.strip_prefix(&prefix).map(str::to_string))
}

#[test]
fn custom_registries_and_tags_reach_every_image() {
    let mut o = Options::new(Mode::OutOfTree, v(33));
    o.images.kubernetes_registry = "k8s.example.io/mirror".into();
    o.images.kubernetes_tag = Some("v1.33.7".into());
    o.images.cloud_provider_registry = Some("myacr.azurecr.io/azure".into());
    o.images.cloud_provider_tag = Some("v1.33.9".into());
    let b = generate(&o).expect("valid options");
    let mut images: Vec<String> = containers(&b)
        .iter()
        .map(|(_, c)| c["image"].as_str().unwrap_or_default().to_string())
        .collect();
    images.sort();
    assert_eq!(
        images,
        [
            "k8s.example.io/mirror/kube-apiserver:v1.33.7",
            "k8s.example.io/mirror/kube-controller-manager:v1.33.7",
            "k8s.example.io/mirror/kube-scheduler:v1.33.7",
            "myacr.azurecr.io/azure/azure-cloud-controller-manager:v1.33.9",
            "myacr.azurecr.io/azure/azure-cloud-node-manager:v1.33.9",
        ]
    );
    // Nothing else in the bundle names an image.
    let all: String = b.files.iter().map(|f| f.contents.clone()).collect();
    assert_eq!(all.matches("image: ").count(), 5);
    assert!(!all.contains("registry.k8s.io/") && !all.contains("mcr.microsoft.com/"));
    assert!(all.contains("--cloud-provider-registry myacr.azurecr.io/azure"));
}

#[test]
fn default_cloud_provider_registry_follows_upstream_by_version() {
    for (minor, registry) in [
        (27, "mcr.microsoft.com/oss/kubernetes/"),
        (31, "mcr.microsoft.com/oss/kubernetes/"),
        (32, "mcr.microsoft.com/oss/v2/kubernetes/"),
        (36, "mcr.microsoft.com/oss/v2/kubernetes/"),
    ] {
        let b = generate(&Options::new(Mode::OutOfTree, v(minor))).expect("valid options");
        for (file, c) in containers(&b) {
            let image = c["image"].as_str().unwrap_or_default();
            if image.contains("azure-cloud-") {
                assert!(image.starts_with(registry), "1.{minor} {file}: {image}");
                assert!(image.ends_with(&format!(":v1.{minor}.0")), "{image}");
            }
        }
    }
}

#[test]
fn probes_target_the_configured_secure_ports() {
    let mut o = Options::new(Mode::OutOfTree, v(34));
    o.configure_cloud_routes = true;
    let b = generate(&o).expect("valid options");
    let mut seen = Vec::new();
    for (file, c) in containers(&b) {
        let Some(port) = flag(&c, "--secure-port") else {
            continue;
        };
        let port: u64 = port.parse().expect("numeric port");
        for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
            let p = &c[probe];
            if p.is_null() {
                continue;
            }
            assert_eq!(p["httpGet"]["port"].as_u64(), Some(port), "{file} {probe}");
            assert_eq!(
                p["httpGet"]["scheme"].as_str(),
                Some("HTTPS"),
                "{file} {probe}"
            );
        }
        seen.push((c["name"].as_str().unwrap_or_default().to_string(), port));
    }
    seen.sort();
    assert!(
        seen.contains(&("cloud-controller-manager".to_string(), 10258)),
        "{seen:?}"
    );
    assert!(
        seen.contains(&("cloud-node-manager".to_string(), 10263)),
        "{seen:?}"
    );
}

#[test]
fn ccm_pod_matches_upstream_priority_and_tolerations() {
    let b = generate(&Options::new(Mode::OutOfTree, v(33))).expect("valid options");
    let deployment = docs(&b, "cloud-controller-manager.manifest")
        .into_iter()
        .find(|d| d["kind"] == "Deployment")
        .expect("Deployment");
    let spec = &deployment["spec"]["template"]["spec"];
    assert_eq!(spec["priorityClassName"], "system-node-critical");
    let etcd = spec["tolerations"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|t| t["key"] == "node-role.kubernetes.io/etcd" && t["effect"] == "NoExecute");
    assert!(etcd, "{spec}");
}

/// `--allocate-node-cidrs` of (kube-controller-manager, cloud-controller-manager).
fn allocators(o: &Options) -> (Option<String>, Option<String>) {
    let b = generate(o).expect("valid options");
    let mut kcm = None;
    let mut ccm = None;
    for (_, c) in containers(&b) {
        match c["name"].as_str() {
            Some("kube-controller-manager") => kcm = flag(&c, "--allocate-node-cidrs"),
            Some("cloud-controller-manager") => ccm = flag(&c, "--allocate-node-cidrs"),
            _ => {}
        }
    }
    (kcm, ccm)
}

#[test]
fn exactly_one_controller_manager_allocates_node_cidrs() {
    let t = |s: &str| Some(s.to_string());
    let mut o = Options::new(Mode::OutOfTree, v(33)).with_default_dual_stack();
    assert_eq!(
        allocators(&o),
        (t("false"), t("false")),
        "Azure CNI: nobody"
    );
    o.configure_cloud_routes = true;
    assert_eq!(allocators(&o), (t("false"), t("true")), "default: the CCM");
    let b = generate(&o).expect("valid options");
    let ccm = containers(&b)
        .into_iter()
        .find(|(_, c)| c["name"] == "cloud-controller-manager")
        .map(|(_, c)| c)
        .expect("CCM container");
    assert_eq!(
        flag(&ccm, "--node-cidr-mask-size-ipv4").as_deref(),
        Some("24")
    );
    assert_eq!(
        flag(&ccm, "--node-cidr-mask-size-ipv6").as_deref(),
        Some("64")
    );
    assert_eq!(
        flag(&ccm, "--cluster-cidr").as_deref(),
        Some("10.244.0.0/16,fd00:10:244::/56")
    );
    o.node_ipam = Some(NodeIpam::KubeControllerManager);
    assert_eq!(
        allocators(&o),
        (t("true"), t("false")),
        "opt-in: KCM keeps it"
    );
    let mut i = Options::new(Mode::InTree, v(29));
    i.configure_cloud_routes = true;
    assert_eq!(allocators(&i), (t("true"), None), "in-tree: KCM");
    // Leader migration: the in-tree KCM N keeps allocating, so KCM N+1 (same lease) must too.
    let mut m = Options::new(Mode::OutOfTree, v(30));
    m.configure_cloud_routes = true;
    m.leader_migration = true;
    assert_eq!(
        allocators(&m),
        (t("true"), t("false")),
        "leader migration: KCM"
    );
    i.leader_migration = true;
    assert_eq!(allocators(&i), (t("true"), None), "leader migration: KCM N");
}

/// The container of the named component.
fn container(b: &Bundle, name: &str) -> Value {
    containers(b)
        .into_iter()
        .find(|(_, c)| c["name"] == name)
        .map(|(_, c)| c)
        .expect("container generated")
}

/// `--node-cidr-mask-size*` flags of a container, sorted.
fn mask_flags(c: &Value) -> Vec<String> {
    let mut out: Vec<String> = c["command"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|a| a.starts_with("--node-cidr-mask-size"))
        .map(str::to_string)
        .collect();
    out.sort();
    out
}

#[test]
fn both_allocators_get_one_mask_flag_per_family() {
    let cases: [(&[&str], &[&str]); 3] = [
        (&["10.244.0.0/16"], &["--node-cidr-mask-size-ipv4=24"]),
        (&["fd00:10:244::/56"], &["--node-cidr-mask-size-ipv6=64"]),
        (
            &["10.244.0.0/16", "fd00:10:244::/56"],
            &[
                "--node-cidr-mask-size-ipv4=24",
                "--node-cidr-mask-size-ipv6=64",
            ],
        ),
    ];
    let services = |c: &str| {
        if c.contains(':') {
            "fd00:10:96::/108"
        } else {
            "10.0.0.0/16"
        }
    };
    for (cluster, expected) in cases {
        for (owner, name) in [
            (NodeIpam::CloudControllerManager, "cloud-controller-manager"),
            (NodeIpam::KubeControllerManager, "kube-controller-manager"),
        ] {
            let mut o = Options::new(Mode::OutOfTree, v(33));
            o.configure_cloud_routes = true;
            o.node_ipam = Some(owner);
            o.cluster_cidrs = cluster
                .iter()
                .map(|c| Cidr::parse(c).expect("cidr"))
                .collect();
            o.service_cidrs = cluster
                .iter()
                .map(|c| Cidr::parse(services(c)).expect("cidr"))
                .collect();
            let b = generate(&o).expect("valid options");
            assert_eq!(
                mask_flags(&container(&b, name)),
                expected,
                "{name} {cluster:?}"
            );
            let other = if owner == NodeIpam::KubeControllerManager {
                "cloud-controller-manager"
            } else {
                "kube-controller-manager"
            };
            assert!(
                mask_flags(&container(&b, other)).is_empty(),
                "{other} {cluster:?}"
            );
        }
    }
}

#[test]
fn leader_migration_files_warn_that_the_upstream_ccm_ignores_it() {
    let mut o = Options::new(Mode::OutOfTree, v(30));
    o.leader_migration = true;
    let b = generate(&o).expect("1.30 is the last out-of-tree version with a partner");
    for name in ["cloud-controller-manager.manifest", "leader-migration.yaml"] {
        let text = &b.file(name).expect("file generated").contents;
        let header: String = text.lines().take_while(|l| l.starts_with('#')).collect();
        assert!(
            header.contains("ignores it") && header.contains("quiesce then"),
            "{name}: {header}"
        );
    }
    assert!(
        !b.file("apiserver.manifest")
            .expect("file")
            .contents
            .contains("Leader migration")
    );
    o.version = v(31);
    let err = generate(&o).expect_err("no in-tree KCM from 1.30");
    assert!(err.to_string().contains("--leader-migration"), "{err}");
    let mut i = Options::new(Mode::InTree, v(29));
    i.leader_migration = true;
    let b = generate(&i).expect("valid options");
    for name in [
        "kube-controller-manager.manifest",
        "leader-migration.yaml",
        "leader-migration-rbac.yaml",
    ] {
        let text = &b.file(name).expect("file generated").contents;
        assert!(text.contains("# Leader migration (KEP-2436)"), "{name}");
    }
}
