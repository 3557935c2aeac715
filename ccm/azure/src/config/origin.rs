//! Where a configuration document came from, so every error can name it.

use std::fmt;
use std::path::PathBuf;

/// Namespace of the Secret upstream reads the cloud config from.
pub const SECRET_NAMESPACE: &str = "kube-system";
/// Name of the Secret upstream reads the cloud config from.
pub const SECRET_NAME: &str = "azure-cloud-provider";
/// Data key inside that Secret holding the JSON/YAML document.
pub const SECRET_KEY: &str = "cloud-config";

/// The source of a configuration document (or of a merged one); printed in every error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A file, typically `--cloud-config=/etc/kubernetes/azure.json`.
    File(PathBuf),
    /// A key of a Secret.
    Secret {
        /// Secret namespace.
        namespace: String,
        /// Secret name.
        name: String,
        /// Data key.
        key: String,
    },
    /// The file overlaid with the Secret (`cloudConfigType: merge`).
    Merged(Box<Origin>, Box<Origin>),
}

impl Origin {
    /// The Secret upstream reads by default: `kube-system/azure-cloud-provider`, key `cloud-config`.
    pub fn default_secret() -> Self {
        Origin::Secret {
            namespace: SECRET_NAMESPACE.to_string(),
            name: SECRET_NAME.to_string(),
            key: SECRET_KEY.to_string(),
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File(path) => write!(f, "cloud config file {}", path.display()),
            Origin::Secret {
                namespace,
                name,
                key,
            } => write!(f, "cloud config Secret {namespace}/{name} key {key}"),
            Origin::Merged(below, above) => write!(f, "{below} merged with {above}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_the_source() {
        assert_eq!(
            Origin::File("/etc/kubernetes/azure.json".into()).to_string(),
            "cloud config file /etc/kubernetes/azure.json"
        );
        assert_eq!(
            Origin::default_secret().to_string(),
            "cloud config Secret kube-system/azure-cloud-provider key cloud-config"
        );
        let merged = Origin::Merged(
            Box::new(Origin::File("a.json".into())),
            Box::new(Origin::default_secret()),
        );
        assert_eq!(
            merged.to_string(),
            "cloud config file a.json merged with cloud config Secret kube-system/azure-cloud-provider key cloud-config"
        );
    }
}
