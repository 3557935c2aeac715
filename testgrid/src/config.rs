//! TestGrid configuration for one job: a test group reading our GCS prefix and a dashboard tab,
//! named the way the conformance-reporting KEP (sig-cloud-provider 2390) and test-infra's
//! `config/testgrids` conventions expect.

use serde::{Deserialize, Serialize};

use crate::grid::DAYS_OF_RESULTS;
use crate::grid::tab_status::TabSettings;

/// Dashboard name prefixes test-infra's config tests accept (org or company prefixes).
pub const DASHBOARD_PREFIXES: &[&str] = &[
    "conformance",
    "provider",
    "sig",
    "wg",
    "presubmits",
    "kops",
    "cluster-api",
    "minikube",
    "kubernetes-clients",
    "amazon",
    "google",
    "gardener",
    "ibm",
    "redhat",
    "vmware",
];

/// Errors in the configuration request.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A field failed validation.
    #[error("invalid {field} {value:?}: {expected}")]
    Invalid {
        /// The flag/field.
        field: &'static str,
        /// The rejected value.
        value: String,
        /// What is accepted.
        expected: String,
    },
    /// YAML serialization failed.
    #[error("cannot render YAML: {0}")]
    Yaml(String),
}

/// What the operator tells us about the job.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigSpec {
    /// Job name = build directories' parent directory = test group name.
    pub job: String,
    /// Bucket and path above the job, without `gs://` (e.g. `k8s-conformance-azure/logs`).
    pub bucket_prefix: String,
    /// Provider short name (e.g. `azure`).
    pub provider: String,
    /// Kubernetes minor under test (e.g. `1.34`).
    pub kubernetes_minor: String,
    /// Tab variant text after the version (e.g. `ccm parity`).
    pub variant: String,
    /// Dashboard name; `conformance-<provider>` when not given (the KEP's dashboard).
    pub dashboard: Option<String>,
    /// Tab description.
    pub description: String,
    /// Alert recipients.
    pub alert_emails: Vec<String>,
    /// Consecutive failures before alerting (KEP conformance groups use 1).
    pub num_failures_to_alert: u32,
    /// Hours without a new result before the tab is STALE (a week for release-cadence jobs).
    pub alert_stale_results_hours: u32,
    /// How many days of builds to keep.
    pub days_of_results: u32,
    /// Columns the tab summary looks at.
    pub num_columns_recent: u32,
    /// finished.json metadata keys shown as column headers (`Commit` is derived).
    pub column_headers: Vec<String>,
}

impl ConfigSpec {
    /// Defaults matching the externally-uploaded conformance groups in test-infra.
    pub fn new(job: &str, bucket_prefix: &str, provider: &str, kubernetes_minor: &str) -> Self {
        let tab = TabSettings::default();
        Self {
            job: job.to_owned(),
            bucket_prefix: bucket_prefix.to_owned(),
            provider: provider.to_owned(),
            kubernetes_minor: kubernetes_minor.to_owned(),
            variant: String::new(),
            dashboard: None,
            description: String::new(),
            alert_emails: Vec::new(),
            num_failures_to_alert: tab.alerts.num_failures_to_alert,
            alert_stale_results_hours: tab.alert_stale_results_hours,
            days_of_results: DAYS_OF_RESULTS,
            num_columns_recent: tab.num_columns_recent,
            column_headers: DEFAULT_COLUMN_HEADERS
                .iter()
                .map(|h| (*h).to_owned())
                .collect(),
        }
    }
}

/// The column headers our test groups show: the derived `Commit` and the CCM version the run
/// tested (finished.json metadata [`crate::finished::CCM_VERSION_KEY`]).
pub const DEFAULT_COLUMN_HEADERS: [&str; 2] = ["Commit", crate::finished::CCM_VERSION_KEY];

/// TestGrid's `Configuration` (only the parts we write); keys are the proto field names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Configuration {
    /// Where results come from.
    pub test_groups: Vec<TestGroup>,
    /// Where they are shown.
    pub dashboards: Vec<Dashboard>,
}

/// A `test_groups[]` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestGroup {
    /// Unique name.
    pub name: String,
    /// `bucket/path/job`, no `gs://`.
    pub gcs_prefix: String,
    /// Days of builds kept.
    pub days_of_results: u32,
    /// Recent columns for summaries.
    pub num_columns_recent: u32,
    /// Column headers from finished.json metadata.
    pub column_header: Vec<ColumnHeader>,
    /// No Prow pod: no `<job>.Pod` row.
    pub disable_prowjob_analysis: bool,
    /// Alerting (read by the updater from the group).
    pub num_failures_to_alert: u32,
    /// Passes that clear an alert.
    pub num_passes_to_disable_alert: u32,
    /// Stale threshold.
    pub alert_stale_results_hours: u32,
}

/// A `column_header[]` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnHeader {
    /// finished.json metadata key (or `Commit`).
    pub configuration_value: String,
}

/// A `dashboards[]` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dashboard {
    /// Dashboard name, with an accepted prefix.
    pub name: String,
    /// Tabs.
    pub dashboard_tab: Vec<DashboardTab>,
}

/// A `dashboard_tab[]` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DashboardTab {
    /// `<Provider>, v<minor> <variant>`.
    pub name: String,
    /// The test group shown.
    pub test_group_name: String,
    /// Shown under the tab name.
    pub description: String,
    /// Recent columns for the tab summary.
    pub num_columns_recent: u32,
    /// E-mail alerting.
    pub alert_options: AlertOptions,
}

/// `alert_options`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlertOptions {
    /// Stale threshold.
    pub alert_stale_results_hours: u32,
    /// Consecutive failures before alerting.
    pub num_failures_to_alert: u32,
    /// Passes that clear an alert.
    pub num_passes_to_disable_alert: u32,
    /// Comma-separated recipients.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub alert_mail_to_addresses: String,
}

/// Builds the configuration for one job.
pub fn build(spec: &ConfigSpec) -> Result<Configuration, ConfigError> {
    let segment = |field: &'static str, value: &str| {
        let ok = !value.is_empty()
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if ok {
            Ok(())
        } else {
            Err(ConfigError::Invalid {
                field,
                value: value.to_owned(),
                expected: "letters, digits, '-', '_' or '.'".into(),
            })
        }
    };
    segment("job", &spec.job)?;
    segment("provider", &spec.provider)?;
    let prefix = spec.bucket_prefix.trim_end_matches('/');
    if prefix.is_empty() || prefix.contains("://") || prefix.starts_with('/') {
        return Err(ConfigError::Invalid {
            field: "bucket-prefix",
            value: spec.bucket_prefix.clone(),
            expected:
                "bucket[/path] without gs:// (TestGrid adds it), e.g. k8s-conformance-azure/logs"
                    .into(),
        });
    }
    let minor = spec.kubernetes_minor.trim_start_matches('v');
    let mut parts = minor.split('.');
    let is_minor = matches!((parts.next(), parts.next(), parts.next()), (Some(a), Some(b), None)
        if !a.is_empty() && !b.is_empty() && a.bytes().chain(b.bytes()).all(|c| c.is_ascii_digit()));
    if !is_minor {
        return Err(ConfigError::Invalid {
            field: "kubernetes-minor",
            value: spec.kubernetes_minor.clone(),
            expected: "MAJOR.MINOR such as 1.34".into(),
        });
    }
    let dashboard = spec
        .dashboard
        .clone()
        .unwrap_or_else(|| format!("conformance-{}", spec.provider));
    if !DASHBOARD_PREFIXES
        .iter()
        .any(|p| dashboard.starts_with(&format!("{p}-")))
    {
        return Err(ConfigError::Invalid {
            field: "dashboard",
            value: dashboard,
            expected: format!(
                "a name starting with one of {}, followed by '-'",
                DASHBOARD_PREFIXES.join(", ")
            ),
        });
    }
    if let Some(bad) = spec
        .alert_emails
        .iter()
        .find(|e| !e.contains('@') || e.contains(',') || e.contains(char::is_whitespace))
    {
        return Err(ConfigError::Invalid {
            field: "alert-email",
            value: bad.clone(),
            expected: "an e-mail address".into(),
        });
    }
    let provider_title = title_case(&spec.provider);
    let tab_name = if spec.variant.trim().is_empty() {
        format!("{provider_title}, v{minor}")
    } else {
        format!("{provider_title}, v{minor} {}", spec.variant.trim())
    };
    let description = if spec.description.trim().is_empty() {
        format!(
            "{provider_title} results for Kubernetes v{minor}, uploaded from {prefix}/{}",
            spec.job
        )
    } else {
        spec.description.trim().to_owned()
    };
    let group = TestGroup {
        name: spec.job.clone(),
        gcs_prefix: format!("{prefix}/{}", spec.job),
        days_of_results: spec.days_of_results,
        num_columns_recent: spec.num_columns_recent,
        column_header: spec
            .column_headers
            .iter()
            .map(|h| ColumnHeader {
                configuration_value: h.clone(),
            })
            .collect(),
        disable_prowjob_analysis: true,
        num_failures_to_alert: spec.num_failures_to_alert,
        num_passes_to_disable_alert: TabSettings::default().alerts.num_passes_to_disable_alert,
        alert_stale_results_hours: spec.alert_stale_results_hours,
    };
    let tab = DashboardTab {
        name: tab_name,
        test_group_name: spec.job.clone(),
        description,
        num_columns_recent: spec.num_columns_recent,
        alert_options: AlertOptions {
            alert_stale_results_hours: spec.alert_stale_results_hours,
            num_failures_to_alert: spec.num_failures_to_alert,
            num_passes_to_disable_alert: TabSettings::default().alerts.num_passes_to_disable_alert,
            alert_mail_to_addresses: spec.alert_emails.join(","),
        },
    };
    Ok(Configuration {
        test_groups: vec![group],
        dashboards: vec![Dashboard {
            name: dashboard,
            dashboard_tab: vec![tab],
        }],
    })
}

/// Renders the configuration as YAML for test-infra's `config/testgrids/`.
pub fn to_yaml(config: &Configuration) -> Result<String, ConfigError> {
    serde_saphyr::to_string(config).map_err(|e| ConfigError::Yaml(e.to_string()))
}

fn title_case(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ConfigSpec {
        let mut s = ConfigSpec::new(
            "ci-azure-ccm-parity-v1.34",
            "k8s-conformance-azure/logs",
            "azure",
            "1.34",
        );
        s.variant = "ccm parity".into();
        s.alert_emails = vec!["oncall@example.com".into()];
        s
    }

    #[test]
    fn yaml_round_trips_and_matches_snapshot() {
        let config = build(&spec()).unwrap();
        let yaml = to_yaml(&config).unwrap();
        let back: Configuration = serde_saphyr::from_str(&yaml).unwrap();
        assert_eq!(back, config);
        insta::assert_snapshot!(yaml);
    }

    #[test]
    fn rejects_bad_input_naming_the_field() {
        let mut s = spec();
        s.bucket_prefix = "gs://bucket".into();
        let e = build(&s).unwrap_err().to_string();
        assert!(
            e.contains("bucket-prefix") && e.contains("without gs://"),
            "{e}"
        );
        let mut s = spec();
        s.dashboard = Some("my-dashboard".into());
        assert!(
            build(&s)
                .unwrap_err()
                .to_string()
                .contains("conformance, provider")
        );
        let mut s = spec();
        s.kubernetes_minor = "1.34.2".into();
        assert!(build(&s).unwrap_err().to_string().contains("MAJOR.MINOR"));
        let mut s = spec();
        s.dashboard = Some("provider-azure-cloud-provider-azure".into());
        assert!(build(&s).is_ok());
    }
}
