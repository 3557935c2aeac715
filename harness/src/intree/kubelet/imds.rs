//! The instance facts an in-tree kubelet read from its VM's IMDS (`/metadata/instance`, and
//! `/metadata/loadbalancer` for Standard-SKU public IPs), as the in-tree provider parsed them
//! (anchor-ccm.md §6.2: `Metadata: True`, `format=json`, api-versions 2021-10-01 / 2020-10-01).

use std::path::Path;

use serde_json::Value;
use thiserror::Error;

const INSTANCE_API: &str = "2021-10-01";
const LOADBALANCER_API: &str = "2020-10-01";
/// The in-tree provider's IMDS User-Agent (anchor-ccm.md §6.2).
const USER_AGENT: &str = "golang/kubernetes-cloud-provider";

/// What could not be read from IMDS.
#[derive(Debug, Error)]
pub enum ImdsError {
    /// The CA file could not be read or parsed.
    #[error("IMDS CA {path}: {reason}")]
    Ca {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// Transport failure or non-2xx answer.
    #[error("IMDS {url}: {reason}")]
    Request {
        /// The URL asked.
        url: String,
        /// Why.
        reason: String,
    },
    /// The document lacks a field the kubelet needs.
    #[error("IMDS instance document: {0}")]
    Document(String),
}

/// The compute and network facts of one VM, as the in-tree provider used them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Instance {
    /// `compute.name` (VM name; `<vmss>_<instanceId>` for uniform scale-set VMs).
    pub name: String,
    /// `compute.location`.
    pub location: String,
    /// `compute.zone` ("" when not zonal).
    pub zone: String,
    /// `compute.platformFaultDomain`.
    pub fault_domain: String,
    /// `compute.vmSize`.
    pub vm_size: String,
    /// `compute.subscriptionId`.
    pub subscription: String,
    /// `compute.resourceGroupName`.
    pub resource_group: String,
    /// `compute.vmScaleSetName` ("" unless a uniform scale-set VM).
    pub scale_set: String,
    /// First NIC, first IPv4 config: (private, public or "").
    pub ipv4: Option<(String, String)>,
    /// First NIC, first IPv6 config: (private, public or "").
    pub ipv6: Option<(String, String)>,
}

impl Instance {
    /// Parses `GET /metadata/instance?format=json`.
    pub fn parse(doc: &Value) -> Result<Instance, ImdsError> {
        let compute = doc
            .get("compute")
            .ok_or_else(|| ImdsError::Document("no compute section".into()))?;
        let field = |key: &str| {
            compute
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let address = |family: &str| {
            let first = doc.pointer(&format!("/network/interface/0/{family}/ipAddress/0"))?;
            let private = first.get("privateIpAddress")?.as_str()?.to_owned();
            if private.is_empty() {
                return None;
            }
            let public = first
                .get("publicIpAddress")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            Some((private, public))
        };
        let instance = Instance {
            name: field("name"),
            location: field("location"),
            zone: field("zone"),
            fault_domain: field("platformFaultDomain"),
            vm_size: field("vmSize"),
            subscription: field("subscriptionId"),
            resource_group: field("resourceGroupName"),
            scale_set: field("vmScaleSetName"),
            ipv4: address("ipv4"),
            ipv6: address("ipv6"),
        };
        if instance.name.is_empty() || instance.location.is_empty() {
            return Err(ImdsError::Document(
                "compute.name or compute.location empty".into(),
            ));
        }
        Ok(instance)
    }

    /// Fills missing public IPs from `GET /metadata/loadbalancer` (frontends matched by private
    /// IP; IPv6 brackets stripped), as `fillNetInterfacePublicIPs` does.
    pub fn fill_public_ips(&mut self, loadbalancer: &Value) {
        let trim = |s: &str| s.trim_matches(|c| c == '[' || c == ']').to_owned();
        let pairs: Vec<(String, String)> = loadbalancer
            .pointer("/loadbalancer/publicIpAddresses")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| {
                let private = p.get("privateIpAddress")?.as_str()?;
                let frontend = p.get("frontendIpAddress")?.as_str()?;
                Some((trim(private), trim(frontend)))
            })
            .collect();
        for (private, public) in [&mut self.ipv4, &mut self.ipv6].into_iter().flatten() {
            if let Some((_, frontend)) = pairs.iter().find(|(p, _)| p == private) {
                *public = frontend.clone();
            }
        }
    }

    /// True when the instance document already named a public IP (no loadbalancer lookup).
    pub fn has_public_ip(&self) -> bool {
        [&self.ipv4, &self.ipv6]
            .into_iter()
            .flatten()
            .any(|(_, public)| !public.is_empty())
    }
}

/// An HTTPS client for the fake's per-node IMDS URLs, trusting the fake's CA.
#[derive(Clone)]
pub struct ImdsClient {
    http: reqwest::Client,
}

impl ImdsClient {
    /// A client trusting the PEM CA at `ca_file`.
    pub fn new(ca_file: &Path) -> Result<ImdsClient, ImdsError> {
        let ca_error = |reason: String| ImdsError::Ca {
            path: ca_file.display().to_string(),
            reason,
        };
        let _ = rustls::crypto::ring::default_provider().install_default();
        let pem = std::fs::read(ca_file).map_err(|e| ca_error(e.to_string()))?;
        let cert = reqwest::Certificate::from_pem(&pem).map_err(|e| ca_error(e.to_string()))?;
        let http = reqwest::Client::builder()
            .add_root_certificate(cert)
            .user_agent(USER_AGENT)
            .build()
            .map_err(|e| ca_error(e.to_string()))?;
        Ok(ImdsClient { http })
    }

    /// Reads the instance facts from the IMDS at `base` (`https://…/imds/<node>`), with the
    /// loadbalancer lookup when `lookup_lb_public_ip` and the instance has no public IP.
    pub async fn instance(
        &self,
        base: &str,
        lookup_lb_public_ip: bool,
    ) -> Result<Instance, ImdsError> {
        let doc = self.get(base, "instance", INSTANCE_API).await?;
        let mut instance = Instance::parse(&doc)?;
        if lookup_lb_public_ip && !instance.has_public_ip() {
            // The provider ignores a failed lookup (the VM may be in no Standard LB pool).
            if let Ok(lb) = self.get(base, "loadbalancer", LOADBALANCER_API).await {
                instance.fill_public_ips(&lb);
            }
        }
        Ok(instance)
    }

    async fn get(&self, base: &str, what: &str, version: &str) -> Result<Value, ImdsError> {
        let url = format!(
            "{}/metadata/{what}?api-version={version}&format=json",
            base.trim_end_matches('/')
        );
        let error = |reason: String| ImdsError::Request {
            url: url.clone(),
            reason,
        };
        let response = self
            .http
            .get(&url)
            .header("Metadata", "True")
            .send()
            .await
            .map_err(|e| error(e.to_string()))?;
        let status = response.status();
        let text = response.text().await.map_err(|e| error(e.to_string()))?;
        if !status.is_success() {
            return Err(error(format!("{status}: {text}")));
        }
        serde_json::from_str(&text).map_err(|e| error(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(public: &str) -> Value {
        json!({
            "compute": {
                "name": "aks-np-vmss_3", "location": "westeurope", "zone": "2",
                "platformFaultDomain": "0", "vmSize": "Standard_D4ds_v5",
                "subscriptionId": "SUB", "resourceGroupName": "MC_RG", "vmScaleSetName": "aks-np-vmss"
            },
            "network": {"interface": [{
                "ipv4": {"ipAddress": [{"privateIpAddress": "10.0.0.4", "publicIpAddress": public}]},
                "ipv6": {"ipAddress": []}
            }]}
        })
    }

    #[test]
    fn parses_the_fields_the_provider_used() {
        let instance = Instance::parse(&doc("")).expect("parse");
        assert_eq!(instance.name, "aks-np-vmss_3");
        assert_eq!(instance.zone, "2");
        assert_eq!(instance.scale_set, "aks-np-vmss");
        assert_eq!(instance.ipv4, Some(("10.0.0.4".into(), String::new())));
        assert_eq!(instance.ipv6, None);
        assert!(!instance.has_public_ip());
        assert!(Instance::parse(&json!({"network": {}})).is_err());
    }

    #[test]
    fn loadbalancer_frontends_fill_missing_public_ips() {
        let mut instance = Instance::parse(&doc("")).expect("parse");
        instance.ipv6 = Some(("fd00::4".into(), String::new()));
        instance.fill_public_ips(&json!({"loadbalancer": {"publicIpAddresses": [
            {"frontendIpAddress": "20.1.2.3", "privateIpAddress": "10.0.0.9"},
            {"frontendIpAddress": "20.1.2.4", "privateIpAddress": "10.0.0.4"},
            {"frontendIpAddress": "[2603::1]", "privateIpAddress": "[fd00::4]"}
        ]}}));
        assert_eq!(instance.ipv4, Some(("10.0.0.4".into(), "20.1.2.4".into())));
        assert_eq!(instance.ipv6, Some(("fd00::4".into(), "2603::1".into())));
    }
}
