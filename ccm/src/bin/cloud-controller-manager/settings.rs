//! Validation of the whole command line into what the process will do, before any network call
//! or write: every refusal names the flag, the value and what is accepted.

use std::sync::Arc;

use anyhow::bail;
use azure_ccm::cloud_config::CloudConfigSource;
use azure_ccm::kube_rate_limit::KubeRateLimit;
use azure_ccm::serving_cert::CertSource;
use ccm_controllers::leader::ElectionConfig;
use ccm_controllers::migration::LeaderMigrationConfig;
use ccm_controllers::node_ipam::IpamConfig;

use crate::controllers_flag;
use crate::flags::Flags;

/// The validated plan of the process.
pub struct Settings {
    /// Cloud config origin.
    pub cloud_config: CloudConfigSource,
    /// Canonical names of the controllers to start (route only with --configure-cloud-routes,
    /// node-ipam only with --allocate-node-cidrs).
    pub controllers: Vec<&'static str>,
    /// node-ipam ranges when node-ipam runs.
    pub ipam: Option<IpamConfig>,
    /// Main election (`None` with `--leader-elect=false`).
    pub election: Option<ElectionConfig>,
    /// Leader Migration configuration when enabled.
    pub migration: Option<LeaderMigrationConfig>,
    /// TLS of the secure port (`None` with `--secure-port=0`).
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// Where that certificate comes from (to add the client CA of delegated authentication).
    pub cert_source: Option<CertSource>,
    /// `--kube-api-qps`/`--kube-api-burst` (`None`: unlimited).
    pub rate_limit: Option<KubeRateLimit>,
}

/// The pair name of the generated serving certificate in `--cert-dir` (upstream's).
const CERT_PAIR_NAME: &str = "cloud-controller-manager";

/// Validates `flags` for a process whose election identity is `identity`.
pub fn validate(flags: &Flags, identity: &str) -> anyhow::Result<Settings> {
    if flags.cloud_provider != "azure" {
        bail!(
            "--cloud-provider={:?}: this binary only provides \"azure\"",
            flags.cloud_provider
        );
    }
    let cloud_config = cloud_config_source(flags)?;
    if flags.concurrent_service_syncs != 1 {
        bail!(
            "--concurrent-service-syncs={}: only 1 is accepted (as upstream's cloud-controller-manager)",
            flags.concurrent_service_syncs
        );
    }
    // [infer] upstream's wait loops spin on 0; a period must be positive here.
    if flags.node_status_update_frequency.is_zero() {
        bail!("--node-status-update-frequency=0: the period must be positive (e.g. 5s)");
    }
    let named = controllers_flag::enabled(&flags.controllers)?;
    let (controllers, ipam) = flags.shared.select(named, false)?;
    let election = flags
        .election
        .election(crate::run::COMPONENT)
        .election(identity)?;
    let migration = flags
        .election
        .migration()
        .resolve(flags.election.leader_elect)?;
    let cert_source = (flags.secure_port != 0).then(|| CertSource {
        cert_file: flags.tls_cert_file.clone(),
        key_file: flags.tls_private_key_file.clone(),
        cert_dir: flags.cert_dir.clone().filter(|d| !d.as_os_str().is_empty()),
        pair_name: CERT_PAIR_NAME.to_owned(),
    });
    let tls = cert_source
        .as_ref()
        .map(CertSource::server_config)
        .transpose()?;
    let rate_limit = KubeRateLimit::from_flags(flags.kube_api_qps, flags.kube_api_burst)?;
    Ok(Settings {
        rate_limit,
        cloud_config,
        controllers,
        ipam,
        election,
        migration,
        tls,
        cert_source,
    })
}

/// `--cloud-config`, or the Secret when dynamic reloading is on without a file (upstream's rule:
/// the file may be empty only with `--enable-dynamic-reloading`).
fn cloud_config_source(flags: &Flags) -> anyhow::Result<CloudConfigSource> {
    if let Some(path) = flags
        .cloud_config
        .as_ref()
        .filter(|p| !p.as_os_str().is_empty())
    {
        return Ok(CloudConfigSource::File(path.clone()));
    }
    if !flags.enable_dynamic_reloading {
        bail!(
            "--cloud-config is required (a path to azure.json) unless --enable-dynamic-reloading=true \
             with --cloud-config-secret-name"
        );
    }
    if flags.cloud_config_secret_name.is_empty() {
        bail!(
            "--enable-dynamic-reloading=true without --cloud-config needs --cloud-config-secret-name"
        );
    }
    for (flag, value) in [
        (
            "--cloud-config-secret-namespace",
            &flags.cloud_config_secret_namespace,
        ),
        ("--cloud-config-key", &flags.cloud_config_key),
    ] {
        if value.is_empty() {
            bail!("{flag} must not be empty");
        }
    }
    Ok(CloudConfigSource::Secret {
        namespace: flags.cloud_config_secret_namespace.clone(),
        name: flags.cloud_config_secret_name.clone(),
        key: flags.cloud_config_key.clone(),
    })
}

#[cfg(test)]
mod tests {
    use ccm_names::controllers::{NODE_IPAM, NODE_ROUTE};
    use clap::Parser;

    use super::*;

    fn settings(args: &[&str]) -> anyhow::Result<Settings> {
        let mut argv = vec![
            "cloud-controller-manager",
            "--cloud-config=/etc/kubernetes/azure.json",
            "--secure-port=0",
        ];
        argv.extend_from_slice(args);
        validate(&Flags::parse_from(argv), "host_1")
    }

    #[test]
    fn routes_need_a_cluster_cidr_unless_disabled() {
        let error = settings(&[]).err().expect("routes without --cluster-cidr");
        assert!(error.to_string().contains("--cluster-cidr"), "{error}");
        for ok in [
            &["--configure-cloud-routes=false"][..],
            &["--controllers=*,-route"],
            &["--cluster-cidr=10.244.0.0/16"],
        ] {
            assert!(settings(ok).is_ok(), "{ok:?}");
        }
        let with_routes = settings(&["--cluster-cidr=10.244.0.0/16"]).unwrap();
        assert!(with_routes.controllers.contains(&NODE_ROUTE));
        let without = settings(&["--configure-cloud-routes=false"]).unwrap();
        assert!(!without.controllers.contains(&NODE_ROUTE));
    }

    #[test]
    fn node_ipam_only_with_allocate_node_cidrs() {
        let off = settings(&["--configure-cloud-routes=false"]).unwrap();
        assert!(off.ipam.is_none() && !off.controllers.contains(&NODE_IPAM));
        let on = settings(&[
            "--configure-cloud-routes=false",
            "--allocate-node-cidrs",
            "--cluster-cidr=10.244.0.0/16,fd00::/56",
            "--node-cidr-mask-size-ipv6=64",
        ])
        .unwrap();
        assert!(on.controllers.contains(&NODE_IPAM));
        let ipam = on.ipam.expect("ipam");
        assert_eq!(ipam.families.len(), 2);
        assert_eq!(ipam.families[0].node_mask, 24);
        let disabled = settings(&[
            "--configure-cloud-routes=false",
            "--allocate-node-cidrs",
            "--cluster-cidr=10.244.0.0/16",
            "--controllers=*,-node-ipam",
        ])
        .unwrap();
        assert!(disabled.ipam.is_none());
    }

    #[test]
    fn election_defaults_and_migration_lease() {
        let s = settings(&["--configure-cloud-routes=false"]).unwrap();
        let election = s.election.expect("election on by default");
        assert_eq!(
            (election.namespace.as_str(), election.name.as_str()),
            ("kube-system", "cloud-controller-manager")
        );
        assert!(s.migration.is_none());
        let s = settings(&[
            "--configure-cloud-routes=false",
            "--enable-leader-migration",
        ])
        .unwrap();
        assert_eq!(
            s.migration.map(|m| m.leader_name),
            Some("cloud-provider-extraction-migration".to_owned())
        );
        let s = settings(&["--configure-cloud-routes=false", "--leader-elect=false"]).unwrap();
        assert!(s.election.is_none());
    }

    #[test]
    fn cloud_config_from_a_secret_needs_dynamic_reloading_and_a_name() {
        let flags = |args: &[&str]| {
            let mut argv = vec!["cloud-controller-manager"];
            argv.extend_from_slice(args);
            Flags::parse_from(argv)
        };
        assert!(cloud_config_source(&flags(&[])).is_err());
        assert!(cloud_config_source(&flags(&["--enable-dynamic-reloading"])).is_err());
        assert_eq!(
            cloud_config_source(&flags(&[
                "--enable-dynamic-reloading",
                "--cloud-config-secret-name=azure-cloud-provider"
            ]))
            .unwrap(),
            CloudConfigSource::Secret {
                namespace: "kube-system".into(),
                name: "azure-cloud-provider".into(),
                key: "cloud-config".into(),
            }
        );
    }
}
