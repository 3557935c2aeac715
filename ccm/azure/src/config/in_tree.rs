//! [`InTreeCompat`]: the places where the in-tree Azure provider of Kubernetes ≤ 1.29
//! (`k8s.io/legacy-cloud-providers/azure`) wrote load-balancer resources differently from today's
//! CCM. Not an azure.json key: only the stand-in in-tree kube-controller-manager of the parity
//! harness turns these on (`harness kube-controller-manager --in-tree-profile`), so the harness
//! compares the CCM with what users' in-tree clusters really left in Azure. The default (all off)
//! is today's CCM behaviour, which the CCM binary always uses.

/// Which in-tree behaviours the load-balancer plans reproduce; all off = today's CCM.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InTreeCompat {
    /// Public IP ownership tags under the legacy keys `service`, `kubernetes-cluster-name` and
    /// `kubernetes-dns-label-service` instead of the `k8s-azure-*` keys.
    pub legacy_tag_keys: bool,
    /// One NSG rule per Service, port and source, named `<a+uid>-<PROTO>-<port>-<source>`, with
    /// single-valued prefix and port fields, instead of the consolidated
    /// `k8s-azure-lb_allow_<family>_<md5>` rules.
    pub per_service_nsg_rules: bool,
    /// `Cluster` Services get a TCP probe on a port whose `appProtocol` is `http`/`https` (the
    /// in-tree code never read `appProtocol`), instead of an HTTP(S) probe on `/`.
    pub tcp_probe_for_app_protocol: bool,
    /// Probes written with `numberOfProbes` (the field of the older network API the in-tree
    /// provider used) instead of `probeThreshold`.
    pub number_of_probes_field: bool,
    /// `externalTrafficPolicy: Local`: one HTTP probe per LB rule, named after the rule, instead
    /// of one probe named after the health-check NodePort that every rule shares.
    pub local_probe_per_rule: bool,
    /// An HTTP(S) probe asked for by the `azure-load-balancer-health-probe-protocol` annotation
    /// without a path probes `/healthz` (today: `/`).
    pub healthz_probe_path: bool,
}

impl InTreeCompat {
    /// Every in-tree behaviour on (what the in-tree provider of 1.27–1.29 did).
    pub const ALL: InTreeCompat = InTreeCompat {
        legacy_tag_keys: true,
        per_service_nsg_rules: true,
        tcp_probe_for_app_protocol: true,
        number_of_probes_field: true,
        local_probe_per_rule: true,
        healthz_probe_path: true,
    };

    /// Names of the behaviours turned on, for start-up logs and reports.
    pub fn active(&self) -> Vec<&'static str> {
        [
            (self.legacy_tag_keys, "legacy-tag-keys"),
            (self.per_service_nsg_rules, "per-service-nsg-rules"),
            (
                self.tcp_probe_for_app_protocol,
                "tcp-probe-for-app-protocol",
            ),
            (self.number_of_probes_field, "number-of-probes-field"),
            (self.local_probe_per_rule, "local-probe-per-rule"),
            (self.healthz_probe_path, "healthz-probe-path"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_todays_ccm_and_all_names_every_knob() {
        assert!(InTreeCompat::default().active().is_empty());
        assert_eq!(
            InTreeCompat::ALL.active(),
            [
                "legacy-tag-keys",
                "per-service-nsg-rules",
                "tcp-probe-for-app-protocol",
                "number-of-probes-field",
                "local-probe-per-rule",
                "healthz-probe-path"
            ]
        );
    }
}
