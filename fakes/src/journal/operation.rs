//! Names an ARM request by method + resource type (`PUT Microsoft.Network/loadBalancers`), the unit
//! the per-operation counters and the harness's ARM call budget count in.

/// Resource type of an ARM path: the last `providers/{namespace}` followed by the type segments
/// (`Microsoft.Network/loadBalancers/backendAddressPools`); resource groups are
/// `Microsoft.Resources/resourceGroups`; anything else is `tenant`.
pub fn resource_type(path: &str) -> String {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let providers = segments
        .iter()
        .rposition(|s| s.eq_ignore_ascii_case("providers"));
    if let Some(p) = providers
        && let Some(namespace) = segments.get(p + 1)
    {
        let mut kind = canonical_namespace(namespace);
        for t in segments[p + 2..].iter().step_by(2) {
            kind.push('/');
            kind.push_str(t);
        }
        return kind;
    }
    let is_rg = |s: &&str| s.eq_ignore_ascii_case("resourceGroups");
    if segments
        .first()
        .is_some_and(|s| s.eq_ignore_ascii_case("subscriptions"))
    {
        if segments.get(2).is_some_and(is_rg) {
            return "Microsoft.Resources/resourceGroups".into();
        }
        if segments.len() <= 2 {
            return "Microsoft.Resources/subscriptions".into();
        }
        return format!("Microsoft.Resources/subscriptions/{}", segments[2]);
    }
    "tenant".into()
}

/// Operation label of a request.
pub fn arm_operation(method: &http::Method, path: &str) -> String {
    format!("{method} {}", resource_type(path))
}

/// Clients send `microsoft.Compute` too; counters should not split on casing.
fn canonical_namespace(namespace: &str) -> String {
    const KNOWN: [&str; 4] = [
        "Microsoft.Network",
        "Microsoft.Compute",
        "Microsoft.Resources",
        "Microsoft.ManagedIdentity",
    ];
    KNOWN
        .iter()
        .find(|k| k.eq_ignore_ascii_case(namespace))
        .map_or_else(|| namespace.to_string(), |k| (*k).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_of_arm_paths() {
        let sub = "/subscriptions/s/resourceGroups/rg/providers";
        assert_eq!(
            resource_type(&format!("{sub}/Microsoft.Network/loadBalancers/lb")),
            "Microsoft.Network/loadBalancers"
        );
        assert_eq!(
            resource_type(&format!("{sub}/Microsoft.Network/loadBalancers")),
            "Microsoft.Network/loadBalancers"
        );
        assert_eq!(
            resource_type(&format!(
                "{sub}/Microsoft.Network/loadBalancers/lb/backendAddressPools/p"
            )),
            "Microsoft.Network/loadBalancers/backendAddressPools"
        );
        assert_eq!(
            resource_type(&format!(
                "{sub}/microsoft.compute/virtualMachineScaleSets/ss/virtualMachines/0/networkInterfaces/nic"
            )),
            "Microsoft.Compute/virtualMachineScaleSets/virtualMachines/networkInterfaces"
        );
        assert_eq!(
            resource_type(&format!(
                "{sub}/Microsoft.Compute/virtualMachines/vm/instanceView"
            )),
            "Microsoft.Compute/virtualMachines/instanceView"
        );
        assert_eq!(
            resource_type(
                "/subscriptions/s/providers/Microsoft.Network/locations/eastus/operations/abc"
            ),
            "Microsoft.Network/locations/operations"
        );
        assert_eq!(
            resource_type("/subscriptions/s/resourcegroups/rg"),
            "Microsoft.Resources/resourceGroups"
        );
        assert_eq!(
            resource_type("/subscriptions/s/resourcegroups"),
            "Microsoft.Resources/resourceGroups"
        );
        assert_eq!(
            resource_type("/subscriptions/s/operationresults/xyz"),
            "Microsoft.Resources/subscriptions/operationresults"
        );
        assert_eq!(resource_type("/metadata/endpoints"), "tenant");
        assert_eq!(
            arm_operation(&http::Method::GET, "/subscriptions/s"),
            "GET Microsoft.Resources/subscriptions"
        );
    }
}
