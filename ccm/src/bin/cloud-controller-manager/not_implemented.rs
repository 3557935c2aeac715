//! Flags that are accepted for compatibility but not honoured yet: each is logged at start
//! (a warning when given on the command line, an info line when its default is what we cannot
//! honour), so nothing is silently ignored. `ccm/README.md` lists the same set.

use clap::ArgMatches;
use clap::parser::ValueSource;

use crate::flags::{CidrAllocatorType, Flags};

/// One flag we do not honour with its current value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unhonoured {
    /// The flag, e.g. `--kube-api-qps`.
    pub flag: &'static str,
    /// What happens instead.
    pub instead: &'static str,
}

/// Every flag whose current value we cannot honour (default values included).
pub fn unhonoured(flags: &Flags) -> Vec<Unhonoured> {
    let mut out = Vec::new();
    let mut add = |applies: bool, flag, instead| {
        if applies {
            out.push(Unhonoured { flag, instead });
        }
    };
    add(
        flags.kube_api_content_type != "application/json",
        "--kube-api-content-type",
        "requests are always JSON",
    );
    add(
        true,
        "--min-resync-period",
        "not applied: the watches relist only when they break",
    );
    add(
        flags.use_service_account_credentials,
        "--use-service-account-credentials",
        "every controller uses the --kubeconfig credentials",
    );
    add(flags.profiling, "--profiling", "/debug/pprof is not served");
    add(
        flags.contention_profiling,
        "--contention-profiling",
        "/debug/pprof is not served",
    );
    add(
        !flags.node_filter_requirements.is_empty(),
        "--node-filter-requirements",
        "every Node is managed",
    );
    add(
        !flags.feature_gates.is_empty(),
        "--feature-gates",
        "no feature gate exists in this binary",
    );
    add(
        flags.cidr_allocator_type == CidrAllocatorType::Cloud,
        "--cidr-allocator-type",
        "CloudAllocator is not implemented: RangeAllocator is used",
    );
    add(
        flags.node_cidr_mask_size != 24,
        "--node-cidr-mask-size",
        "ignored as upstream does: use --node-cidr-mask-size-ipv4/-ipv6",
    );
    add(
        !flags.external_cloud_volume_plugin.is_empty(),
        "--external-cloud-volume-plugin",
        "no volume controller runs in this binary",
    );
    out
}

/// Logs [`unhonoured`]: `warn` for flags given on the command line, `info` for defaults.
pub fn log(flags: &Flags, matches: &ArgMatches) {
    for item in unhonoured(flags) {
        let id = item.flag.trim_start_matches("--").replace('-', "_");
        let given = matches.value_source(&id) == Some(ValueSource::CommandLine);
        if given {
            tracing::warn!(
                flag = item.flag,
                "accepted but not implemented: {}",
                item.instead
            );
        } else {
            tracing::info!(
                flag = item.flag,
                "default not implemented: {}",
                item.instead
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn defaults_and_given_values() {
        let flags = Flags::parse_from(["cloud-controller-manager"]);
        let names: Vec<_> = unhonoured(&flags).iter().map(|u| u.flag).collect();
        assert!(names.contains(&"--profiling"), "{names:?}");
        assert!(!names.contains(&"--cidr-allocator-type"), "{names:?}");
        let flags = Flags::parse_from([
            "cloud-controller-manager",
            "--cidr-allocator-type=CloudAllocator",
            "--profiling=false",
        ]);
        let names: Vec<_> = unhonoured(&flags).iter().map(|u| u.flag).collect();
        assert!(names.contains(&"--cidr-allocator-type"), "{names:?}");
        assert!(!names.contains(&"--profiling"), "{names:?}");
    }
}
