//! The keys with a closed set of values. Upstream compares them case-insensitively
//! (`strings.EqualFold`); an empty string means "use the default", as in Go.

use serde_json::Value;

use super::decode::{Decode, DecodeError, Unknown, render};

/// Declares a closed set of values: canonical spelling, accepted spellings (case-insensitive),
/// `Decode` that lists the accepted values on error, and `Serialize` as the canonical spelling.
macro_rules! config_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident => [$canonical:literal $(, $alias:literal)*], )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )*
        }

        impl $name {
            /// Upstream's spelling of this value.
            pub fn as_str(self) -> &'static str {
                match self { $( Self::$variant => $canonical, )* }
            }

            /// Every accepted spelling, for error messages.
            pub const ACCEPTED: &[&str] = &[$( $canonical $(, $alias)* ),*];

            /// Parses any accepted spelling, ignoring ASCII case.
            pub fn parse(text: &str) -> Option<Self> {
                $(
                    if text.eq_ignore_ascii_case($canonical)
                        $(|| text.eq_ignore_ascii_case($alias))*
                    {
                        return Some(Self::$variant);
                    }
                )*
                None
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl Decode for $name {
            fn decode(value: Value, key: &str, _: &mut Unknown) -> Result<Self, DecodeError> {
                value.as_str().and_then(Self::parse).ok_or_else(|| DecodeError {
                    key: key.to_string(),
                    value: render(&value),
                    accepted: format!("one of {} (any case)", Self::ACCEPTED.join(", ")),
                })
            }

            fn is_unset(value: &Value) -> bool {
                value.is_null() || value.as_str() == Some("")
            }
        }
    };
}

config_enum! {
    /// `cloud`: which Azure environment's endpoints to use (Go autorest names).
    pub enum Cloud {
        /// Azure public cloud (the default).
        Public => ["AzurePublicCloud", "AzureCloud"],
        /// Azure China (21Vianet).
        China => ["AzureChinaCloud"],
        /// Azure US Government.
        UsGovernment => ["AzureUSGovernmentCloud", "AzureUSGovernment"],
        /// Azure Stack / custom endpoints (`AZURE_ENVIRONMENT_FILEPATH` or `resourceManagerEndpoint`).
        Stack => ["AzureStackCloud"],
    }
}

config_enum! {
    /// `vmType`: how node names map to VMs.
    pub enum VmType {
        /// VMSS uniform, auto-detecting availability-set and flex nodes (the default).
        Vmss => ["vmss"],
        /// Availability sets / standalone VMs.
        Standard => ["standard"],
        /// VMSS flexible orchestration.
        VmssFlex => ["vmssflex"],
    }
}

config_enum! {
    /// `loadBalancerSku`.
    pub enum LoadBalancerSku {
        /// Basic SKU (retired by Azure, still accepted).
        Basic => ["basic"],
        /// Standard SKU (the code default).
        Standard => ["standard"],
        /// ServiceGateway mode.
        Service => ["service"],
    }
}

config_enum! {
    /// `loadBalancerBackendPoolConfigurationType`.
    pub enum BackendPoolType {
        /// Backend pools reference NIC IP configurations (the default).
        NodeIpConfiguration => ["nodeIPConfiguration"],
        /// Backend pools list node IP addresses plus the VNet.
        NodeIp => ["nodeIP"],
        /// Pod IPs (ServiceGateway).
        PodIp => ["podIP"],
    }
}

config_enum! {
    /// `preConfiguredBackendPoolLoadBalancerTypes`: which LBs' backend pools someone else manages.
    pub enum PreconfiguredPools {
        /// The internal LB's pools.
        Internal => ["internal"],
        /// The public LB's pools.
        External => ["external"],
        /// Both.
        All => ["all"],
    }
}

config_enum! {
    /// `clusterServiceLoadBalancerHealthProbeMode`.
    pub enum ProbeMode {
        /// One probe per Service on its node port (the default).
        ServiceNodePort => ["servicenodeport"],
        /// One shared probe on kube-proxy's health port.
        Shared => ["shared"],
    }
}

config_enum! {
    /// `cloudConfigType`: which source wins when both a file and the Secret exist.
    pub enum CloudConfigType {
        /// The file only.
        File => ["file"],
        /// The Secret replaces the file.
        Secret => ["secret"],
        /// The Secret's keys overlay the file's (the default).
        Merge => ["merge"],
    }
}

config_enum! {
    /// `identitySystem`.
    pub enum IdentitySystem {
        /// Entra ID (the default).
        AzureAd => ["azure_ad"],
        /// ADFS (Azure Stack Hub disconnected).
        Adfs => ["adfs"],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn any_case_and_aliases_parse_to_one_canonical_spelling() {
        assert_eq!(Cloud::parse("AZURECLOUD"), Some(Cloud::Public));
        assert_eq!(Cloud::parse("azureusgovernment"), Some(Cloud::UsGovernment));
        assert_eq!(Cloud::parse("AZURESTACKCLOUD"), Some(Cloud::Stack));
        assert_eq!(VmType::parse("VMSSFLEX"), Some(VmType::VmssFlex));
        assert_eq!(
            BackendPoolType::parse("nodeipconfiguration").map(BackendPoolType::as_str),
            Some("nodeIPConfiguration")
        );
        assert_eq!(Cloud::parse("Mars"), None);
    }

    #[test]
    fn an_unknown_value_lists_the_accepted_ones() {
        let err = VmType::decode(json!("vmas"), "vmType", &mut Unknown::default())
            .expect_err("vmas is not a vmType");
        assert_eq!(err.accepted, "one of vmss, standard, vmssflex (any case)");
        assert!(VmType::is_unset(&json!("")));
        assert!(!VmType::is_unset(&json!("vmss")));
    }
}
