//! Every generated file that holds Kubernetes API objects is sent through the real kubectl with
//! `apply --dry-run=server` to the embedded API server (schema, defaulting and admission of a
//! real request path); files that are not API objects get the typed round trip instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ccm_manifests::generate::FileKind;
use ccm_manifests::roundtrip::check_bundle;
use ccm_manifests::{AuthMode, KubeVersion, Mode, Options, generate, write_all};
use fake_kube_apiserver::{ApiServerConfig, start};

const KUBECTL: &str = "/usr/bin/kubectl";

/// The option sets of the snapshots (three versions per mode, see `snapshots.rs`) plus the HA
/// variants, which add leader-migration RBAC, KCM node IPAM and workload identity.
fn variants() -> Vec<Options> {
    let v = |minor| KubeVersion::from_minor(minor).expect("supported minor");
    let mut out: Vec<Options> = crate::snapshots::cases()
        .into_iter()
        .map(|(_, o)| o)
        .collect();
    let mut ha_in = Options::new(Mode::InTree, v(29)).with_default_dual_stack();
    ha_in.leader_migration = true;
    ha_in.auth = AuthMode::ServicePrincipal;
    out.push(ha_in);
    let mut ha_out = Options::new(Mode::OutOfTree, v(36)).with_default_dual_stack();
    ha_out.configure_cloud_routes = true;
    ha_out.node_ipam = Some(ccm_manifests::options::NodeIpam::KubeControllerManager);
    ha_out.replicas = 3;
    ha_out.auth = AuthMode::WorkloadIdentity;
    out.push(ha_out);
    out
}

fn kubectl(kubeconfig: &Path, cache: &Path, args: &[&str]) -> Output {
    Command::new(KUBECTL)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .arg("--cache-dir")
        .arg(cache)
        .args(args)
        .output()
        .expect("kubectl is installed at /usr/bin/kubectl")
}

fn holds_api_objects(kind: FileKind) -> bool {
    match kind {
        FileKind::StaticPod | FileKind::Objects => true,
        FileKind::KubeletFlags
        | FileKind::KubeletConfiguration
        | FileKind::CredentialProviderConfig
        | FileKind::LeaderMigrationConfiguration
        | FileKind::CloudConfig
        | FileKind::Markdown => false,
    }
}

/// The embedded API server with a kubeconfig in a temp dir; kubectl runs from the test thread
/// while the server's tasks run on the runtime's workers.
struct Cluster {
    runtime: tokio::runtime::Runtime,
    server: fake_kube_apiserver::RunningApiServer,
    dir: tempfile::TempDir,
}

impl Cluster {
    fn start() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("tokio runtime");
        let dir = tempfile::tempdir().expect("temp dir");
        let server = runtime
            .block_on(start(ApiServerConfig {
                tls_dir: Some(dir.path().join("tls")),
                kubeconfig_out: Some(dir.path().join("kubeconfig")),
                ..ApiServerConfig::default()
            }))
            .expect("embedded API server starts");
        Self {
            runtime,
            server,
            dir,
        }
    }

    fn kubectl(&self, args: &[&str]) -> Output {
        kubectl(
            &self.dir.path().join("kubeconfig"),
            &self.dir.path().join("kube-cache"),
            args,
        )
    }

    fn stop(self) {
        self.runtime
            .block_on(self.server.shutdown())
            .expect("server shuts down");
    }
}

#[test]
fn every_generated_object_applies_with_kubectl_server_dry_run() {
    let cluster = Cluster::start();

    let mut failures = Vec::new();
    let mut applied = 0usize;
    for o in variants() {
        let label = format!("{} {}", o.mode.dir_name(), o.version);
        let bundle = generate(&o).expect("options are valid");
        // Files that are not API objects: the typed round trip is their schema check.
        check_bundle(&bundle).unwrap_or_else(|e| panic!("{label}: {e}"));

        let out: PathBuf = cluster.dir.path().join(format!(
            "{}-{}-{}",
            o.mode.dir_name(),
            o.version,
            o.replicas
        ));
        write_all(&o, &out).expect("bundle written");
        for f in bundle.files.iter().filter(|f| holds_api_objects(f.kind)) {
            let path = out.join(&f.name);
            let path_text = path.to_string_lossy();
            let run = cluster.kubectl(&["apply", "--dry-run=server", "-f", &path_text]);
            applied += 1;
            let stdout = String::from_utf8_lossy(&run.stdout);
            let stderr = String::from_utf8_lossy(&run.stderr);
            if !run.status.success() || !stderr.trim().is_empty() {
                failures.push(format!("{label} {}:\n{stderr}{stdout}", f.name));
                continue;
            }
            // kubectl prints one "<kind>/<name> created (server dry run)" line per object.
            let objects = f.contents.matches("\napiVersion: ").count();
            let reported = stdout.matches("(server dry run)").count();
            if reported != objects {
                failures.push(format!(
                    "{label} {}: {objects} objects in the file, kubectl reported {reported}:\n{stdout}",
                    f.name
                ));
            }
        }
    }

    // A dry run must not have stored anything: the objects are still absent.
    let listed = cluster.kubectl(&[
        "get",
        "deployments,daemonsets,poddisruptionbudgets,pods",
        "-n",
        "kube-system",
        "-o",
        "name",
    ]);
    let leftovers = String::from_utf8_lossy(&listed.stdout).into_owned();
    cluster.stop();
    assert!(applied >= 30, "only {applied} files were applied");
    assert!(
        failures.is_empty(),
        "kubectl refused:\n{}",
        failures.join("\n")
    );
    assert!(
        listed.status.success() && leftovers.trim().is_empty(),
        "dry run stored objects: {leftovers}{}",
        String::from_utf8_lossy(&listed.stderr)
    );
}

/// Applies each (file name, text) with a server dry run and returns (name, accepted, stderr).
fn dry_run_all(cases: &[(&'static str, String)]) -> Vec<(&'static str, bool, String)> {
    let cluster = Cluster::start();
    let mut results = Vec::new();
    for (name, text) in cases {
        let path = cluster.dir.path().join(name);
        std::fs::write(&path, text).expect("write manifest");
        let run = cluster.kubectl(&["apply", "--dry-run=server", "-f", &path.to_string_lossy()]);
        results.push((
            *name,
            run.status.success(),
            String::from_utf8_lossy(&run.stderr).into_owned(),
        ));
    }
    cluster.stop();
    results
}

fn generated(name: &str) -> String {
    let bundle = generate(&Options::new(
        Mode::OutOfTree,
        KubeVersion::from_minor(33).expect("supported minor"),
    ))
    .expect("options are valid");
    bundle.file(name).expect("file generated").contents.clone()
}

fn assert_all_refused(results: Vec<(&'static str, bool, String)>) {
    for (name, accepted, stderr) in results {
        assert!(!accepted, "{name} was accepted");
        assert!(!stderr.trim().is_empty(), "{name}: no error text");
    }
}

/// The dry run is a real check: objects the server must refuse are refused.
#[test]
fn server_dry_run_refuses_an_invalid_object() {
    let ccm = generated("cloud-controller-manager.manifest");
    let bad_name = ccm.replace(
        "  name: cloud-controller-manager\n  namespace: kube-system\nspec:\n  replicas",
        "  name: Cloud_Controller_Manager\n  namespace: kube-system\nspec:\n  replicas",
    );
    assert_ne!(bad_name, ccm, "the edit changed nothing");
    assert_all_refused(dry_run_all(&[("bad-name.yaml", bad_name)]));
}

/// Spec-level refusals a real API server makes (strict field validation, Pod validation).
#[test]
fn server_dry_run_refuses_spec_errors() {
    let ccm = generated("cloud-controller-manager.manifest");
    let apiserver = generated("apiserver.manifest");
    let misspelled = ccm.replace("  replicas: 1\n", "  replicaz: 1\n");
    assert_ne!(misspelled, ccm, "the edit changed nothing");
    let no_containers = apiserver
        .split("\n  containers:\n")
        .next()
        .map(|head| format!("{head}\n  containers: []\n"))
        .unwrap_or_default();
    assert_all_refused(dry_run_all(&[
        ("misspelled-field.yaml", misspelled),
        ("no-containers.yaml", no_containers),
    ]));
}
