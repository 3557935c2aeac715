//! The one table of error codes the fake can emit: code, HTTP status, how far it is verified, and the source.
//!
//! Every [`crate::ArmError`] and [`crate::ErrorDetail`] is built from an entry here ([`ErrorCode`] cannot be
//! constructed elsewhere), so the crate docs, the emitting sites and this table cannot drift. A code that exists
//! with two statuses has two entries (`OperationNotAllowed`: 409 for CRP conflicts, 429 for CRP throttling). Codes
//! a test injects (fault rules, [`crate::ForceLroFailure`]) are the test's and go through
//! [`crate::ArmError::injected`]. Status 200 marks a code that only appears in an operation-status body (the
//! operation's `Location` poll answers it with 500).
//!
//! Source keys: REC = sanitized real ARM traffic in cloud-provider-azure `pkg/azclient/*/testdata/AZURECLOUD.yaml`;
//! NRP-LOGS = NRP answers quoted in public issue logs, transcripts and Microsoft troubleshooting articles;
//! ARM-REF = the ARM/RPC error table in the project's ARM reference (`azure-resource-manager-rpc`, azure-docs);
//! THR = azure-docs `request-limits-and-throttling.md`; CTL = azure-docs `compute-throttling-limits.md` and
//! `troubleshooting-throttling-errors.md`; issue 9 = the fakes-fidelity issue (observed with a production CCM).

// `[infer]` / `[unverified]` in the sources are the crate's markers, not links.
#![allow(rustdoc::broken_intra_doc_links)]

use http::StatusCode;

/// How far an entry is backed by a public source (the `[infer]` convention of the crate docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verification {
    /// Code, status and wording seen in a public source.
    Verified,
    /// Code and wording verified; the status is [infer].
    StatusInferred,
    /// Code verified; the wording (and, where the source says so, the status) is [infer].
    WordingUnverified,
    /// [unverified]: the code itself is [infer] (a plausible NRP/CRP code, no public answer seen).
    Unverified,
    /// The fake's own code for a condition real ARM has no public answer for (injected faults, snapshots).
    FakeOnly,
}

/// One (code, status) fact; only this module can make one, so every emitted code is in [`ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrorCode {
    code: &'static str,
    status: StatusCode,
    verification: Verification,
    source: &'static str,
}

impl ErrorCode {
    /// PascalCase code as sent in `error.code` and `x-ms-error-code`.
    pub const fn code(&self) -> &'static str {
        self.code
    }

    /// HTTP status the code travels with (200: only in an operation-status body).
    pub const fn status(&self) -> StatusCode {
        self.status
    }

    /// How far the entry is verified.
    pub const fn verification(&self) -> Verification {
        self.verification
    }

    /// Where the code (and status/wording, per [`Self::verification`]) comes from.
    pub const fn source(&self) -> &'static str {
        self.source
    }
}

macro_rules! table {
    ($($name:ident = $code:literal, $status:ident, $ver:ident, $source:literal;)*) => {
        $(
            #[doc = concat!("`", $code, "`, ", stringify!($status), ", ", stringify!($ver), ": ", $source, ".")]
            pub const $name: ErrorCode = ErrorCode {
                code: $code,
                status: StatusCode::$status,
                verification: Verification::$ver,
                source: $source,
            };
        )*

        /// Every entry, in table order.
        pub const ALL: &[ErrorCode] = &[$($name),*];
    };
}

table! {
    // ARM front door: routing, api-version, request parsing.
    INVALID_REQUEST_CONTENT = "InvalidRequestContent", BAD_REQUEST, WordingUnverified, "code listed as verified before this table, source not recorded; wording [infer]";
    INVALID_REQUEST_FORMAT = "InvalidRequestFormat", BAD_REQUEST, WordingUnverified, "code listed as verified before this table, source not recorded; wording [infer]";
    MISSING_API_VERSION_PARAMETER = "MissingApiVersionParameter", BAD_REQUEST, WordingUnverified, "ARM-REF; wording [infer]";
    INVALID_API_VERSION_PARAMETER = "InvalidApiVersionParameter", BAD_REQUEST, WordingUnverified, "ARM-REF; wording [infer]";
    NO_REGISTERED_PROVIDER_FOUND = "NoRegisteredProviderFound", BAD_REQUEST, WordingUnverified, "ARM-REF; wording [infer]";
    INVALID_RESOURCE_TYPE = "InvalidResourceType", BAD_REQUEST, WordingUnverified, "code listed as verified before this table, source not recorded; wording [infer]";
    INVALID_RESOURCE_NAMESPACE = "InvalidResourceNamespace", NOT_FOUND, Unverified, "[infer]: ARM's code for an unknown namespace";
    INVALID_RESOURCE_ID = "InvalidResourceId", BAD_REQUEST, Unverified, "[infer]: a path that is no ARM resource id";
    INVALID_RESOURCE_NAME = "InvalidResourceName", BAD_REQUEST, Unverified, "[infer]";
    INVALID_RESOURCE_LOCATION = "InvalidResourceLocation", BAD_REQUEST, Unverified, "[infer]";
    LOCATION_REQUIRED = "LocationRequired", BAD_REQUEST, WordingUnverified, "code listed as verified before this table, source not recorded; wording [infer]";
    METHOD_NOT_ALLOWED = "MethodNotAllowed", METHOD_NOT_ALLOWED, Unverified, "[infer]";
    REQUEST_TOO_LARGE = "RequestTooLarge", PAYLOAD_TOO_LARGE, Unverified, "[infer]: body over the fake's 8 MiB limit";
    INVALID_SKIP_TOKEN = "InvalidSkipToken", BAD_REQUEST, Unverified, "[infer]";
    OPERATION_NOT_FOUND = "OperationNotFound", NOT_FOUND, Unverified, "[infer]";
    INVALID_PARAMETER = "InvalidParameter", BAD_REQUEST, Verified, "REC (instanceId target); also the generic envelope for a VM whose NICs join two public LBs, whose real code is unknown [infer]";
    PROPERTY_CHANGE_NOT_ALLOWED = "PropertyChangeNotAllowed", CONFLICT, WordingUnverified, "code listed as verified before this table, source not recorded; wording [infer]";
    INVALID_SNAPSHOT = "InvalidSnapshot", BAD_REQUEST, FakeOnly, "the fake's snapshot import (no ARM call)";

    // Authentication (azure-fakes arm_auth).
    AUTHENTICATION_FAILED = "AuthenticationFailed", UNAUTHORIZED, WordingUnverified, "ARM-REF (401 table); wording [infer]";
    INVALID_AUTHENTICATION_TOKEN = "InvalidAuthenticationToken", UNAUTHORIZED, WordingUnverified, "ARM-REF (401 table); wording [infer]";
    EXPIRED_AUTHENTICATION_TOKEN = "ExpiredAuthenticationToken", UNAUTHORIZED, WordingUnverified, "ARM-REF (401 table); wording [infer]";
    INVALID_AUTHENTICATION_TOKEN_AUDIENCE = "InvalidAuthenticationTokenAudience", UNAUTHORIZED, Unverified, "[infer]: named as ARM's wrong-audience 401 by the arm_auth docs, no public source recorded";

    // Throttling (azure-fakes throttle).
    SUBSCRIPTION_REQUESTS_THROTTLED = "SubscriptionRequestsThrottled", TOO_MANY_REQUESTS, Verified, "THR, ARM-REF";
    TENANT_REQUESTS_THROTTLED = "TenantRequestsThrottled", TOO_MANY_REQUESTS, Unverified, "[infer]: the tenant-scope sibling of SubscriptionRequestsThrottled, wording copied from it";
    OPERATION_NOT_ALLOWED_THROTTLED = "OperationNotAllowed", TOO_MANY_REQUESTS, Verified, "CTL: CRP throttling, one TooManyRequests detail per policy";
    TOO_MANY_REQUESTS = "TooManyRequests", TOO_MANY_REQUESTS, Verified, "CTL: detail of CRP's 429 OperationNotAllowed, target = policy";

    // Transient answers of injected faults (azure-fakes faults).
    INTERNAL_SERVER_ERROR = "InternalServerError", INTERNAL_SERVER_ERROR, WordingUnverified, "ARM-REF (transient 5xx); wording [infer]";
    BAD_GATEWAY = "BadGateway", BAD_GATEWAY, Unverified, "[infer]; ARM-REF lists GatewayError with this wording for 502";
    SERVICE_UNAVAILABLE = "ServiceUnavailable", SERVICE_UNAVAILABLE, Unverified, "[infer]";
    GATEWAY_TIMEOUT = "GatewayTimeout", GATEWAY_TIMEOUT, WordingUnverified, "ARM-REF (transient 5xx); wording [infer]";
    INJECTED_FAULT = "InjectedFault", INTERNAL_SERVER_ERROR, FakeOnly, "a status fault rule without a code whose status has no transient code (sent with the rule's status)";

    // Lookups.
    RESOURCE_NOT_FOUND = "ResourceNotFound", NOT_FOUND, Verified, "REC";
    RESOURCE_GROUP_NOT_FOUND = "ResourceGroupNotFound", NOT_FOUND, Verified, "REC";
    NOT_FOUND = "NotFound", NOT_FOUND, Verified, "REC";
    PARENT_RESOURCE_NOT_FOUND = "ParentResourceNotFound", NOT_FOUND, Verified, "REC";

    // Concurrency, etags and operations.
    PRECONDITION_FAILED = "PreconditionFailed", PRECONDITION_FAILED, Verified, "REC";
    PRECONDITION_FAILED_ETAG_MISMATCH = "PreconditionFailedEtagMismatch", PRECONDITION_FAILED, Verified, "REC: NRP's detail of PreconditionFailed";
    ANOTHER_OPERATION_IN_PROGRESS = "AnotherOperationInProgress", CONFLICT, Verified, "NRP-LOGS";
    OPERATION_NOT_ALLOWED = "OperationNotAllowed", CONFLICT, WordingUnverified, "ARM-REF (CCM consts for VMSS VMs marked for deletion); wording [infer]";
    OPERATION_PREEMPTED = "OperationPreempted", CONFLICT, WordingUnverified, "ARM-REF quotes the wording under CRP conflicts; code listed as verified before this table, source not recorded";
    CANCELED_AND_SUPERSEDED = "CanceledAndSupersededDueToAnotherOperation", OK, WordingUnverified, "ARM-REF (NRP LRO Canceled; CCM matches it); wording [infer]";
    RETRYABLE_ERROR = "RetryableError", TOO_MANY_REQUESTS, Verified, "NRP-LOGS (hashicorp/terraform #7986, coreos/tectonic-installer #1459: a dependency Updating or Deleting); ARM-REF, THR";
    REFERENCED_RESOURCE_NOT_PROVISIONED = "ReferencedResourceNotProvisioned", TOO_MANY_REQUESTS, Verified, "NRP-LOGS (same logs): the detail of RetryableError";
    REFERENCED_RESOURCE_FAILED = "ReferencedResourceNotProvisioned", BAD_REQUEST, Verified, "NRP-LOGS (Azure/aks-engine #336, gardener/gardener-extension-provider-azure #2): a dependency in Failed state; cloud-provider-azure TestCreateOrUpdateLB fixture";

    // References and deletes.
    INVALID_RESOURCE_REFERENCE = "InvalidResourceReference", BAD_REQUEST, Verified, "cloud-provider-azure pkg/retry comments, terraform-provider-azurerm issue logs, AKS InvalidResourceReference troubleshooting article";
    PUBLIC_IP_ADDRESS_CANNOT_BE_DELETED = "PublicIPAddressCannotBeDeleted", BAD_REQUEST, Verified, "NRP-LOGS; CCM const CannotDeletePublicIPErrorMessageCode";
    PUBLIC_IP_ADDRESS_IN_USE = "PublicIPAddressInUse", BAD_REQUEST, WordingUnverified, "code listed as verified before this table, source not recorded; wording [infer]";
    IN_USE_NETWORK_SECURITY_GROUP_CANNOT_BE_DELETED = "InUseNetworkSecurityGroupCannotBeDeleted", BAD_REQUEST, Verified, "NRP-LOGS";
    IN_USE_SUBNET_CANNOT_BE_DELETED = "InUseSubnetCannotBeDeleted", BAD_REQUEST, Verified, "NRP-LOGS";
    IN_USE_ROUTE_TABLE_CANNOT_BE_DELETED = "InUseRouteTableCannotBeDeleted", BAD_REQUEST, Verified, "NRP-LOGS";
    IN_USE_PUBLIC_IP_PREFIX_CANNOT_BE_DELETED = "InUsePublicIpPrefixCannotBeDeleted", BAD_REQUEST, WordingUnverified, "Azure/kube-egress-gateway PR #1223; wording and status [infer]";
    NIC_IN_USE = "NicInUse", BAD_REQUEST, Verified, "NRP-LOGS (for a PLS NIC: [infer])";
    NETWORK_SECURITY_GROUP_IN_USE_BY_VMSS = "NetworkSecurityGroupInUseByVirtualMachineScaleSet", BAD_REQUEST, StatusInferred, "NRP-LOGS";
    LOAD_BALANCER_IN_USE_BY_VMSS = "LoadBalancerInUseByVirtualMachineScaleSet", BAD_REQUEST, Verified, "NRP-LOGS; issue 9 item 4";
    LOAD_BALANCER_IN_USE_BY_NETWORK_INTERFACE = "LoadBalancerInUseByNetworkInterface", BAD_REQUEST, Unverified, "[infer]: an LB PUT or child DELETE removing a pool or NAT rule NIC ipconfigs use; never a whole-LB DELETE (issue 9 item 4)";
    LOAD_BALANCER_POOL_IN_USE_BY_VMSS = "LoadBalancerBackendAddressPoolInUseByVirtualMachineScaleSet", BAD_REQUEST, Unverified, "[infer]";
    LOAD_BALANCER_FRONTEND_IN_USE_BY_PLS = "LoadBalancerFrontendIPConfigurationInUseByPrivateLinkService", BAD_REQUEST, Unverified, "[infer]";
    CANNOT_DELETE_LOAD_BALANCER_WITH_PLS = "CannotDeleteLoadBalancerWithPrivateLinkService", BAD_REQUEST, Verified, "NRP-LOGS";
    RESOURCE_IN_USE = "ResourceInUse", BAD_REQUEST, Unverified, "[infer]: generic delete of a still-referenced child";

    // Load balancers.
    PUBLIC_IP_AND_LB_SKU_DO_NOT_MATCH = "PublicIPAndLBSkuDoNotMatch", BAD_REQUEST, StatusInferred, "NRP-LOGS";
    FRONTEND_HAS_BOTH_SUBNET_AND_PUBLIC_IP = "FrontendIPConfigHasBothSubnetAndPublicIP", BAD_REQUEST, Verified, "NRP-LOGS";
    FRONTEND_HAS_NO_SUBNET_OR_PUBLIC_IP = "FrontendIPConfigHasNoSubnetOrPublicIP", BAD_REQUEST, Verified, "NRP-LOGS";
    LB_WITHOUT_FRONTEND_CANT_HAVE_CHILDREN = "LoadBalancerWithoutFrontendIPCantHaveChildResources", BAD_REQUEST, Verified, "NRP-LOGS";
    ANOTHER_INTERNAL_LOAD_BALANCER_EXISTS = "AnotherInternalLoadBalancerExists", BAD_REQUEST, WordingUnverified, "code listed as verified before this table, source not recorded; wording [infer]";
    RULES_USE_SAME_BACKEND_PORT_PROTOCOL_AND_POOL = "RulesUseSameBackendPortProtocolAndPool", BAD_REQUEST, Verified, "NRP-LOGS";
    RULES_USE_SAME_BACKEND_PORT_PROTOCOL_AND_IP_CONFIG = "RulesUseSameBackendPortProtocolAndIPConfig", BAD_REQUEST, Verified, "NRP-LOGS";
    RULES_OF_SAME_LB_TYPE_USE_SAME_BACKEND_PORT = "RulesOfSameLoadBalancerTypeUseSameBackendPortProtocolAndIPConfig", BAD_REQUEST, Verified, "NRP-LOGS (wording up to the rule ids, completed from the same-LB sibling; checked before the one-LB-per-type rule: [infer])";
    RULES_USE_SAME_FRONTEND_AND_PORT = "RulesUseSameFrontendIpConfigurationAndPort", BAD_REQUEST, Unverified, "[infer]";
    MULTIPLE_OUTBOUND_RULES_SAME_FRONTEND_AND_PROTOCOL = "MoreThanOneOutboundRuleUsingSameFrontendIPConfigurationAndProtocolIsNotSupported", BAD_REQUEST, Verified, "NRP-LOGS";
    RULE_MUST_DISABLE_SNAT = "LoadBalancingRuleMustDisableSNATSinceSameFrontendIPConfigurationIsReferencedByOutboundRule", BAD_REQUEST, WordingUnverified, "code listed as verified before this table, source not recorded; wording [infer]";
    NIC_USES_MULTIPLE_LBS_OF_SAME_TYPE = "NetworkInterfaceUsesMultipleLoadBalancersOfSameType", BAD_REQUEST, Verified, "NRP-LOGS";
    HA_PORTS_RULE_NOT_SUPPORTED = "HaPortsRuleNotSupportedOnLoadBalancer", BAD_REQUEST, Unverified, "[infer]";
    INVALID_PROBE_REQUEST_PATH = "InvalidProbeRequestPath", BAD_REQUEST, Unverified, "[infer]";
    LB_FRONTENDS_LIMIT_REACHED = "LoadBalancerFrontendIPConfigurationsLimitReached", BAD_REQUEST, Unverified, "[infer]";
    LB_RULES_LIMIT_REACHED = "LoadBalancerRulesLimitReached", BAD_REQUEST, Unverified, "[infer]";

    // Public IPs and prefixes.
    PUBLIC_IP_REFERENCED_BY_MULTIPLE_IP_CONFIGS = "PublicIPReferencedByMultipleIPConfigs", BAD_REQUEST, StatusInferred, "NRP-LOGS";
    STANDARD_PUBLIC_IP_MUST_BE_STATIC = "StandardAndStandardV2SkuPublicIPAddressesMustBeStatic", BAD_REQUEST, StatusInferred, "az CLI transcript of the NRP answer, Bicep comments of public templates";
    PUBLIC_IP_IDLE_TIMEOUT_OUT_OF_RANGE = "PublicIPIdleTimeoutIsOutOfRange", BAD_REQUEST, Unverified, "[infer]";
    INVALID_PUBLIC_IP_PREFIX_LENGTH = "InvalidPublicIpPrefixLength", BAD_REQUEST, Unverified, "[infer]";
    PUBLIC_IP_PREFIX_OUT_OF_ADDRESSES = "PublicIpPrefixOutOfIpAddressesForPublicIp", BAD_REQUEST, Unverified, "[infer]";

    // Private addresses, subnets and VNets.
    PRIVATE_IP_ADDRESS_NOT_IN_SUBNET = "PrivateIPAddressNotInSubnet", BAD_REQUEST, Verified, "NRP-LOGS";
    PRIVATE_IP_ADDRESS_IN_RESERVED_RANGE = "PrivateIPAddressInReservedRange", BAD_REQUEST, Verified, "NRP-LOGS";
    PRIVATE_IP_ADDRESS_IS_ALLOCATED = "PrivateIPAddressIsAllocated", BAD_REQUEST, Verified, "NRP-LOGS";
    INVALID_PRIVATE_IP_ADDRESS = "InvalidPrivateIPAddress", BAD_REQUEST, Unverified, "[infer]";
    SUBNET_IS_FULL = "SubnetIsFull", BAD_REQUEST, Verified, "NRP-LOGS";
    SUBNET_MISSING_IPV6_PREFIX = "SubnetMissingIPv6AddressPrefix", BAD_REQUEST, Unverified, "[infer]";
    NETCFG_SUBNET_RANGES_OVERLAP = "NetcfgSubnetRangesOverlap", BAD_REQUEST, Verified, "NRP-LOGS";
    NETCFG_SUBNET_RANGE_OUTSIDE_VNET = "NetcfgSubnetRangeOutsideVnet", BAD_REQUEST, Verified, "NRP-LOGS";
    INVALID_CIDR_NOTATION = "InvalidCIDRNotation", BAD_REQUEST, WordingUnverified, "ARM deployment error transcript; full wording [infer]";
    DUPLICATE_RESOURCE_NAME = "DuplicateResourceName", BAD_REQUEST, Unverified, "[infer]";

    // NICs.
    NIC_MUST_HAVE_IP_CONFIGURATION = "NetworkInterfaceMustHaveAtLeastOneIpConfiguration", BAD_REQUEST, Unverified, "[infer]";
    IP_CONFIGURATION_SUBNET_MISSING = "IpConfigurationSubnetMissing", BAD_REQUEST, Unverified, "[infer]";
    CANNOT_MODIFY_NIC_ATTACHED_TO_PLS = "CannotModifyNicAttachedToPrivateLinkService", BAD_REQUEST, Unverified, "[infer]: modelled on the verified private-endpoint sibling";

    // NSGs.
    SECURITY_RULE_CONFLICT = "SecurityRuleConflict", BAD_REQUEST, Verified, "NRP-LOGS";
    SECURITY_RULE_INVALID_PRIORITY = "SecurityRuleInvalidPriority", BAD_REQUEST, Verified, "NRP-LOGS";
    SECURITY_RULE_INVALID_PORT_RANGE = "SecurityRuleInvalidPortRange", BAD_REQUEST, Verified, "NRP-LOGS";
    SECURITY_RULE_UNSUPPORTED_VALUE = "SecurityRuleParameterContainsUnsupportedValue", BAD_REQUEST, Verified, "NRP-LOGS (service tag in a plural prefix)";
    SECURITY_RULE_INVALID_PORT_RANGES = "SecurityRuleParameterContainsInvalidPortRanges", BAD_REQUEST, WordingUnverified, "public terraform module notes on NRP behaviour; wording [infer]";
    SECURITY_RULES_LIMIT_REACHED = "SecurityRulesLimitReached", BAD_REQUEST, Unverified, "[infer]";

    // Route tables.
    ROUTE_TABLE_ROUTES_LIMIT_REACHED = "RouteTableRoutesLimitReached", BAD_REQUEST, Unverified, "[infer]";
    ROUTE_ADDRESS_PREFIX_MISSING = "RouteAddressPrefixMissing", BAD_REQUEST, Unverified, "[infer]";
    INVALID_ROUTE_NEXT_HOP_TYPE = "InvalidRouteNextHopType", BAD_REQUEST, Unverified, "[infer]";
    INVALID_ROUTE_NEXT_HOP_IP_ADDRESS = "InvalidRouteNextHopIpAddress", BAD_REQUEST, Unverified, "[infer]";

    // Private link services.
    PLS_IN_SUBNET_WITH_NETWORK_POLICIES = "PrivateLinkServiceCannotBeCreatedInSubnetThatHasNetworkPoliciesEnabled", BAD_REQUEST, Verified, "NRP-LOGS";
    PLS_NETWORK_POLICIES_ON_PLS_SUBNET = "PrivateLinkServiceNetworkPoliciesCannotBeEnabledOnPrivateLinkServiceSubnet", BAD_REQUEST, WordingUnverified, "code listed as verified before this table, source not recorded; wording [infer]";
    PLS_MUST_HAVE_IP_CONFIGURATIONS = "PrivateLinkServiceMustHaveIpConfigurations", BAD_REQUEST, Unverified, "[infer]";
    PLS_MUST_HAVE_FRONTENDS = "PrivateLinkServiceMustHaveLoadBalancerFrontendIpConfigurations", BAD_REQUEST, Unverified, "[infer]";
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn no_code_appears_twice_with_the_same_status() {
        let mut seen = HashSet::new();
        for e in ALL {
            assert!(
                seen.insert((e.code(), e.status())),
                "{} {} is in the table twice",
                e.code(),
                e.status()
            );
        }
    }

    #[test]
    fn every_entry_names_a_source_and_a_pascal_case_code() {
        for e in ALL {
            assert!(!e.source().trim().is_empty(), "{} has no source", e.code());
            assert!(
                e.code().starts_with(|c: char| c.is_ascii_uppercase())
                    && e.code().chars().all(|c| c.is_ascii_alphanumeric()),
                "{:?} is no PascalCase code",
                e.code()
            );
        }
    }

    #[test]
    fn unverified_entries_say_infer_in_their_source() {
        for e in ALL {
            if e.verification() == Verification::Unverified {
                assert!(
                    e.source().contains("[infer]"),
                    "{}: {}",
                    e.code(),
                    e.source()
                );
            }
        }
    }
}
