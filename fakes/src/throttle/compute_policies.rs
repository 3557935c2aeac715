//! The Compute resource provider's throttling policies (`x-ms-ratelimit-remaining-resource:
//! Microsoft.Compute/<Policy>;<remaining>`): which policies a request counts against, and how many
//! requests each allows per window. CRP enforces them after the ARM front door admitted the call.
//!
//! Names and sizes come from recorded real responses and public reports; the default sizes are the
//! remaining counts seen on a first call plus one:
//! - `LowCostGet3Min` 4000 / `LowCostGet30Min` 32000 (VM GET; recorded 3999 / 31999);
//! - `HighCostGet3Min` 140 / `HighCostGet30Min` 700 (VM list; recorded 139 / 699);
//! - `GetVMScaleSet3Min` 200 / `GetVMScaleSet30Min` 1300 (VMSS GET; recorded 197 / 1297);
//! - `HighCostGetVMScaleSet3Min` 180 / `...30Min` 900 (VMSS list and VMSS VM list; a real 429 body
//!   reports `allowedRequestCount` 180 and 900);
//! - `PutVM3Min` 240 / `PutVM30Min` 1200 (VM create/update; recorded 239 / 1199);
//! - `DeleteVMScaleSet3Min` / `DeleteVMScaleSet30Min` / `VMScaleSetBatchedVMRequests5Min` (VMSS
//!   delete, from the Compute throttling troubleshooting page; sizes inferred from its sample 107 /
//!   587 / 3704 remaining: 120 / 600 / 4000).
//!
//! Inferred, not verified (no recorded header seen): `DeleteVM3Min` / `DeleteVM30Min` for VM delete
//! and deallocate (named like `PutVM*`, same sizes), `VMScaleSetVMViews3Min` 5000 for one VMSS VM
//! GET (named in a Kubernetes proposal listing VMSS limits), and `VMScaleSetBatchedVMRequests5Min`
//! for VMSS and VMSS VM writes. Every size is configurable.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One policy's window: at most `allowed` requests per `window_secs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PolicySpec {
    /// Requests allowed in one window.
    pub allowed: u32,
    /// Window length, seconds.
    pub window_secs: u64,
}

/// Default policy table: (name, allowed, window seconds).
const DEFAULT_POLICIES: [(&str, u32, u64); 16] = [
    ("LowCostGet3Min", 4000, 180),
    ("LowCostGet30Min", 32000, 1800),
    ("HighCostGet3Min", 140, 180),
    ("HighCostGet30Min", 700, 1800),
    ("GetVMScaleSet3Min", 200, 180),
    ("GetVMScaleSet30Min", 1300, 1800),
    ("HighCostGetVMScaleSet3Min", 180, 180),
    ("HighCostGetVMScaleSet30Min", 900, 1800),
    ("VMScaleSetVMViews3Min", 5000, 180),
    ("PutVM3Min", 240, 180),
    ("PutVM30Min", 1200, 1800),
    ("DeleteVM3Min", 240, 180),
    ("DeleteVM30Min", 1200, 1800),
    ("DeleteVMScaleSet3Min", 120, 180),
    ("DeleteVMScaleSet30Min", 600, 1800),
    ("VMScaleSetBatchedVMRequests5Min", 4000, 300),
];

/// Names of every policy the fake knows (accepted keys of [`ComputeLimits::policies`]).
pub fn policy_names() -> impl Iterator<Item = &'static str> {
    DEFAULT_POLICIES.iter().map(|(name, _, _)| *name)
}

/// The Compute RP's limits; configurable because tests need tiny windows and subscriptions differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ComputeLimits {
    /// `false` sends no `x-ms-ratelimit-remaining-resource` headers and never answers 429.
    #[serde(default = "enabled_default")]
    pub enabled: bool,
    /// Policy name (without `Microsoft.Compute/`) -> window; policies left out keep their default.
    #[serde(default)]
    pub policies: BTreeMap<String, PolicySpec>,
}

fn enabled_default() -> bool {
    true
}

impl Default for ComputeLimits {
    fn default() -> Self {
        Self {
            enabled: true,
            policies: DEFAULT_POLICIES
                .iter()
                .map(|(name, allowed, window_secs)| {
                    (
                        (*name).to_string(),
                        PolicySpec {
                            allowed: *allowed,
                            window_secs: *window_secs,
                        },
                    )
                })
                .collect(),
        }
    }
}

/// A policy setting that cannot be used; names the field and what is accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// The name is not one of the known policies.
    #[error("compute.policies.{name}: unknown Compute throttling policy (accepted: {accepted})")]
    Unknown {
        /// Given name.
        name: String,
        /// Known names, comma-separated.
        accepted: String,
    },
    /// `allowed` or `windowSecs` is zero.
    #[error("compute.policies.{name}: allowed and windowSecs must both be >= 1")]
    Zero {
        /// Policy name.
        name: String,
    },
}

impl ComputeLimits {
    /// Window of `name`: the configured one, else the default.
    pub fn spec(&self, name: &str) -> Option<PolicySpec> {
        self.policies.get(name).copied().or_else(|| {
            DEFAULT_POLICIES
                .iter()
                .find(|(n, _, _)| *n == name)
                .map(|(_, allowed, window_secs)| PolicySpec {
                    allowed: *allowed,
                    window_secs: *window_secs,
                })
        })
    }

    /// Checks every configured policy name and size.
    pub fn validate(&self) -> Result<(), PolicyError> {
        for (name, spec) in &self.policies {
            if !policy_names().any(|known| known == name) {
                return Err(PolicyError::Unknown {
                    name: name.clone(),
                    accepted: policy_names().collect::<Vec<_>>().join(", "),
                });
            }
            if spec.allowed == 0 || spec.window_secs == 0 {
                return Err(PolicyError::Zero { name: name.clone() });
            }
        }
        Ok(())
    }
}

/// Policies a Compute request counts against (empty for other providers and for calls CRP does
/// not meter here: operation polls, availability sets, the NRP-served VMSS NIC/PIP reads).
pub fn policies_for(method: &http::Method, path: &str) -> &'static [&'static str] {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let Some(p) = segments
        .iter()
        .rposition(|s| s.eq_ignore_ascii_case("providers"))
    else {
        return &[];
    };
    if !segments
        .get(p + 1)
        .is_some_and(|ns| ns.eq_ignore_ascii_case("Microsoft.Compute"))
    {
        return &[];
    }
    let rest: Vec<String> = segments[p + 2..]
        .iter()
        .map(|s| s.to_ascii_lowercase())
        .collect();
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    let read = matches!(*method, http::Method::GET | http::Method::HEAD);
    let delete = *method == http::Method::DELETE;
    const LOW_COST_GET: &[&str] = &["LowCostGet3Min", "LowCostGet30Min"];
    const HIGH_COST_GET: &[&str] = &["HighCostGet3Min", "HighCostGet30Min"];
    const GET_VMSS: &[&str] = &["GetVMScaleSet3Min", "GetVMScaleSet30Min"];
    const HIGH_COST_GET_VMSS: &[&str] =
        &["HighCostGetVMScaleSet3Min", "HighCostGetVMScaleSet30Min"];
    const VMSS_VM_VIEWS: &[&str] = &["VMScaleSetVMViews3Min"];
    const PUT_VM: &[&str] = &["PutVM3Min", "PutVM30Min"];
    const DELETE_VM: &[&str] = &["DeleteVM3Min", "DeleteVM30Min"];
    const DELETE_VMSS: &[&str] = &[
        "DeleteVMScaleSet3Min",
        "DeleteVMScaleSet30Min",
        "VMScaleSetBatchedVMRequests5Min",
    ];
    const VMSS_BATCH: &[&str] = &["VMScaleSetBatchedVMRequests5Min"];
    match rest.as_slice() {
        ["virtualmachines"] if read => HIGH_COST_GET,
        ["locations", _, "virtualmachines"] if read => HIGH_COST_GET,
        ["virtualmachines", _] | ["virtualmachines", _, "instanceview"] if read => LOW_COST_GET,
        ["virtualmachines", _] if delete => DELETE_VM,
        ["virtualmachines", _] => PUT_VM,
        ["virtualmachines", _, "deallocate" | "simulateeviction"] => DELETE_VM,
        ["virtualmachines", _, _] if !read => PUT_VM,
        ["virtualmachinescalesets"] if read => HIGH_COST_GET_VMSS,
        ["virtualmachinescalesets", _] if read => GET_VMSS,
        [
            "virtualmachinescalesets",
            _,
            "virtualmachines" | "instanceview",
        ] if read => HIGH_COST_GET_VMSS,
        ["virtualmachinescalesets", _, "virtualmachines", _]
        | [
            "virtualmachinescalesets",
            _,
            "virtualmachines",
            _,
            "instanceview",
        ] if read => VMSS_VM_VIEWS,
        ["virtualmachinescalesets", _] if delete => DELETE_VMSS,
        ["virtualmachinescalesets", _]
        | ["virtualmachinescalesets", _, _]
        | ["virtualmachinescalesets", _, "virtualmachines", _]
        | ["virtualmachinescalesets", _, "virtualmachines", _, _] => VMSS_BATCH,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::Method;

    const RG: &str = "/subscriptions/s/resourceGroups/rg/providers";

    fn of(method: Method, rest: &str) -> Vec<&'static str> {
        policies_for(&method, &format!("{RG}/{rest}")).to_vec()
    }

    #[test]
    fn operations_map_to_their_policies() {
        assert_eq!(
            of(Method::GET, "Microsoft.Compute/virtualMachines"),
            ["HighCostGet3Min", "HighCostGet30Min"]
        );
        assert_eq!(
            of(Method::GET, "microsoft.compute/virtualMachines/vm-0"),
            ["LowCostGet3Min", "LowCostGet30Min"]
        );
        assert_eq!(
            of(Method::PUT, "Microsoft.Compute/virtualMachines/vm-0"),
            ["PutVM3Min", "PutVM30Min"]
        );
        assert_eq!(
            of(
                Method::POST,
                "Microsoft.Compute/virtualMachines/vm-0/deallocate"
            ),
            ["DeleteVM3Min", "DeleteVM30Min"]
        );
        assert_eq!(
            of(Method::GET, "Microsoft.Compute/virtualMachineScaleSets/ss"),
            ["GetVMScaleSet3Min", "GetVMScaleSet30Min"]
        );
        for list in [
            "Microsoft.Compute/virtualMachineScaleSets",
            "Microsoft.Compute/virtualMachineScaleSets/ss/virtualMachines",
        ] {
            assert_eq!(
                of(Method::GET, list),
                ["HighCostGetVMScaleSet3Min", "HighCostGetVMScaleSet30Min"],
                "{list}"
            );
        }
        assert_eq!(
            of(
                Method::GET,
                "Microsoft.Compute/virtualMachineScaleSets/ss/virtualMachines/3"
            ),
            ["VMScaleSetVMViews3Min"]
        );
        assert_eq!(
            of(
                Method::PUT,
                "Microsoft.Compute/virtualMachineScaleSets/ss/virtualMachines/3"
            ),
            ["VMScaleSetBatchedVMRequests5Min"]
        );
        assert_eq!(
            of(
                Method::DELETE,
                "Microsoft.Compute/virtualMachineScaleSets/ss"
            )
            .len(),
            3
        );
    }

    #[test]
    fn other_calls_are_not_metered() {
        for (method, rest) in [
            (Method::GET, "Microsoft.Network/loadBalancers/lb"),
            (Method::GET, "Microsoft.Compute/availabilitySets"),
            (
                Method::GET,
                "microsoft.Compute/virtualMachineScaleSets/ss/virtualMachines/0/networkInterfaces/nic",
            ),
        ] {
            assert!(of(method, rest).is_empty(), "{rest}");
        }
        assert!(policies_for(&Method::GET, "/subscriptions/s/resourcegroups/rg").is_empty());
        assert!(
            policies_for(
                &Method::GET,
                "/subscriptions/s/providers/Microsoft.Compute/locations/eastus/operations/x"
            )
            .is_empty()
        );
    }

    #[test]
    fn every_mapped_policy_has_a_default_and_overrides_are_checked() {
        let limits = ComputeLimits::default();
        for name in policy_names() {
            assert!(limits.spec(name).is_some());
        }
        let mut custom = ComputeLimits {
            enabled: true,
            policies: BTreeMap::from([(
                "HighCostGet3Min".to_string(),
                PolicySpec {
                    allowed: 2,
                    window_secs: 5,
                },
            )]),
        };
        assert_eq!(custom.spec("HighCostGet3Min").unwrap().allowed, 2);
        assert_eq!(custom.spec("HighCostGet30Min").unwrap().allowed, 700);
        assert!(custom.validate().is_ok());
        custom.policies.insert(
            "HighCostGet5Min".into(),
            PolicySpec {
                allowed: 1,
                window_secs: 1,
            },
        );
        let message = custom.validate().unwrap_err().to_string();
        assert!(
            message.starts_with("compute.policies.HighCostGet5Min: unknown"),
            "{message}"
        );
        assert!(message.contains("PutVM3Min"), "{message}");
    }
}
