//! Parsing and validation of the node-ipam flags (`--cluster-cidr`, `--node-cidr-mask-size-ipv4/ipv6`,
//! `--service-cluster-ip-range`), with errors naming the flag so a bad command line fails at start.

use ipnet::IpNet;

/// Default `--node-cidr-mask-size-ipv4` (anchor-ccm.md 1.3).
pub const DEFAULT_MASK_IPV4: u8 = 24;
/// Default `--node-cidr-mask-size-ipv6` (anchor-ccm.md 1.3).
pub const DEFAULT_MASK_IPV6: u8 = 64;
/// Largest difference between node mask and cluster prefix, bounding a family to 65536 blocks
/// (kubernetes `nodeipam/ipam/cidrset/cidr_set.go`, `clusterSubnetMaxDiff`).
pub const MAX_MASK_DIFF: u8 = 16;

/// Address family of a CIDR; the order of families follows the `--cluster-cidr` flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// IPv4.
    V4,
    /// IPv6.
    V6,
}

impl Family {
    /// The family of a CIDR.
    pub fn of(net: &IpNet) -> Self {
        match net {
            IpNet::V4(_) => Self::V4,
            IpNet::V6(_) => Self::V6,
        }
    }

    /// The flag that sets this family's node mask.
    pub fn mask_flag(self) -> &'static str {
        match self {
            Self::V4 => "--node-cidr-mask-size-ipv4",
            Self::V6 => "--node-cidr-mask-size-ipv6",
        }
    }

    fn max_prefix(self) -> u8 {
        match self {
            Self::V4 => 32,
            Self::V6 => 128,
        }
    }
}

/// Why the node-ipam flags were refused; every message names the flag.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// `--allocate-node-cidrs` without any cluster CIDR.
    #[error("--cluster-cidr: required when --allocate-node-cidrs=true")]
    MissingClusterCidr,
    /// An entry of a CIDR flag does not parse.
    #[error("{flag}: invalid CIDR {value:?}: {reason}")]
    InvalidCidr {
        /// The flag holding the entry.
        flag: &'static str,
        /// The entry as given.
        value: String,
        /// The parser's reason.
        reason: String,
    },
    /// A CIDR with host bits set (`10.244.1.0/16`), which upstream's parser also refuses.
    #[error("{flag}: {value} has host bits set (network is {network})")]
    HostBitsSet {
        /// The flag holding the entry.
        flag: &'static str,
        /// The entry as given.
        value: String,
        /// The network the entry should have been.
        network: IpNet,
    },
    /// More than two CIDRs in a list flag.
    #[error("{flag}: at most 2 CIDRs (one per family) are allowed, got {count}")]
    TooMany {
        /// The flag.
        flag: &'static str,
        /// How many entries were given.
        count: usize,
    },
    /// Two CIDRs of one family (dual-stack needs one IPv4 and one IPv6).
    #[error(
        "{flag}: two CIDRs of the same family ({first}, {second}); dual-stack needs one per family"
    )]
    SameFamily {
        /// The flag.
        flag: &'static str,
        /// The first entry.
        first: IpNet,
        /// The second entry.
        second: IpNet,
    },
    /// A node mask larger than the family's address length.
    #[error("{flag}: mask size {mask} is larger than {max}")]
    MaskTooLarge {
        /// The mask flag.
        flag: &'static str,
        /// The mask given.
        mask: u8,
        /// The family's address length.
        max: u8,
    },
    /// A node mask smaller than the cluster CIDR's prefix: a node block cannot be wider than the range.
    #[error("{flag}: mask size {mask} is smaller than the --cluster-cidr prefix of {cluster}")]
    MaskSmallerThanCluster {
        /// The mask flag.
        flag: &'static str,
        /// The mask given.
        mask: u8,
        /// The cluster CIDR of that family.
        cluster: IpNet,
    },
    /// Too many node blocks in one cluster CIDR.
    #[error(
        "{flag}: mask size {mask} is more than {MAX_MASK_DIFF} bits longer than the --cluster-cidr prefix of {cluster}"
    )]
    MaskTooFarFromCluster {
        /// The mask flag.
        flag: &'static str,
        /// The mask given.
        mask: u8,
        /// The cluster CIDR of that family.
        cluster: IpNet,
    },
}

/// One family's cluster range and node mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FamilyRange {
    /// The `--cluster-cidr` entry of this family.
    pub cluster: IpNet,
    /// The prefix length of each node's block.
    pub node_mask: u8,
}

/// Validated node-ipam settings: one or two families in the `--cluster-cidr` order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IpamConfig {
    /// Cluster ranges in flag order (the order of a node's `spec.podCIDRs`).
    pub families: Vec<FamilyRange>,
    /// `--service-cluster-ip-range` entries, never handed to a node.
    pub service_ranges: Vec<IpNet>,
    /// Whether podCIDRs another writer gives a Node after the start are recorded as used (ours:
    /// true); false is upstream's range allocator, see [`IpamConfig::upstream_range_allocator`].
    pub learns_foreign_cidrs: bool,
}

/// Parses a comma list of at most two CIDRs, one per family, naming `flag` in errors.
pub fn parse_cidr_list(flag: &'static str, value: &str) -> Result<Vec<IpNet>, ConfigError> {
    let entries: Vec<&str> = value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if entries.len() > 2 {
        return Err(ConfigError::TooMany {
            flag,
            count: entries.len(),
        });
    }
    let mut nets = Vec::with_capacity(entries.len());
    for entry in entries {
        let net: IpNet =
            entry
                .parse()
                .map_err(|e: ipnet::AddrParseError| ConfigError::InvalidCidr {
                    flag,
                    value: entry.to_owned(),
                    reason: e.to_string(),
                })?;
        if net.trunc() != net {
            return Err(ConfigError::HostBitsSet {
                flag,
                value: entry.to_owned(),
                network: net.trunc(),
            });
        }
        nets.push(net);
    }
    if let [first, second] = nets[..]
        && Family::of(&first) == Family::of(&second)
    {
        return Err(ConfigError::SameFamily {
            flag,
            first,
            second,
        });
    }
    Ok(nets)
}

impl IpamConfig {
    /// Validates the flags as given: `mask_ipv4`/`mask_ipv6` of 0 or `None` take the defaults.
    pub fn from_flags(
        cluster_cidr: &str,
        mask_ipv4: Option<u8>,
        mask_ipv6: Option<u8>,
        service_cluster_ip_range: &str,
    ) -> Result<Self, ConfigError> {
        let clusters = parse_cidr_list("--cluster-cidr", cluster_cidr)?;
        if clusters.is_empty() {
            return Err(ConfigError::MissingClusterCidr);
        }
        let service_ranges =
            parse_cidr_list("--service-cluster-ip-range", service_cluster_ip_range)?;
        let mut families = Vec::with_capacity(clusters.len());
        for cluster in clusters {
            let family = Family::of(&cluster);
            let (given, default) = match family {
                Family::V4 => (mask_ipv4, DEFAULT_MASK_IPV4),
                Family::V6 => (mask_ipv6, DEFAULT_MASK_IPV6),
            };
            let node_mask = given.filter(|m| *m != 0).unwrap_or(default);
            let flag = family.mask_flag();
            if node_mask > family.max_prefix() {
                return Err(ConfigError::MaskTooLarge {
                    flag,
                    mask: node_mask,
                    max: family.max_prefix(),
                });
            }
            if node_mask < cluster.prefix_len() {
                return Err(ConfigError::MaskSmallerThanCluster {
                    flag,
                    mask: node_mask,
                    cluster,
                });
            }
            if node_mask - cluster.prefix_len() > MAX_MASK_DIFF {
                return Err(ConfigError::MaskTooFarFromCluster {
                    flag,
                    mask: node_mask,
                    cluster,
                });
            }
            families.push(FamilyRange { cluster, node_mask });
        }
        Ok(Self {
            families,
            service_ranges,
            learns_foreign_cidrs: true,
        })
    }

    /// As kubernetes' range allocator (`pkg/controller/nodeipam/ipam/range_allocator.go`):
    /// podCIDRs are recorded as used only from the Node list read at start and from its own
    /// allocations; its update handler allocates for a Node without podCIDRs and ignores the
    /// others, and a Node that got another writer's value first keeps it while the block taken
    /// for it is released and the other value is not recorded. Two such allocators (or one and
    /// another writer) therefore hand out each other's blocks: migration.md P12. The harness's
    /// stand-in kube-controller-manager runs this. [infer] Our controller sees a Node's latest
    /// state, not each add and update, so a Node another writer served before its first look is
    /// skipped without taking a block.
    pub fn upstream_range_allocator(mut self) -> Self {
        self.learns_foreign_cidrs = false;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(cluster: &str, v4: Option<u8>, v6: Option<u8>, svc: &str) -> String {
        IpamConfig::from_flags(cluster, v4, v6, svc)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn defaults_are_24_and_64_in_flag_order() {
        let c = IpamConfig::from_flags("fd00::/48,10.244.0.0/16", None, Some(0), "").unwrap();
        assert_eq!(c.families[0].node_mask, 64);
        assert_eq!(c.families[1].node_mask, 24);
        assert_eq!(c.families[0].cluster.to_string(), "fd00::/48");
    }

    #[test]
    fn errors_name_the_flag() {
        assert!(err("", None, None, "").starts_with("--cluster-cidr: required"));
        assert!(
            err("10.0.0.0/8,fd00::/48,10.1.0.0/16", None, None, "")
                .starts_with("--cluster-cidr: at most 2")
        );
        assert!(err("10.0.0.0/8,10.1.0.0/16", None, None, "").contains("same family"));
        assert!(
            err("10.244.0.0/16", Some(8), None, "")
                .starts_with("--node-cidr-mask-size-ipv4: mask size 8 is smaller")
        );
        assert!(
            err("fd00::/48", None, Some(33), "")
                .starts_with("--node-cidr-mask-size-ipv6: mask size 33 is smaller")
        );
        assert!(
            err("10.244.0.0/16", Some(33), None, "")
                .starts_with("--node-cidr-mask-size-ipv4: mask size 33 is larger")
        );
        assert!(err("10.0.0.0/8", Some(28), None, "").contains("more than 16 bits"));
        assert!(err("10.244.1.0/16", None, None, "").contains("host bits"));
        assert!(err("10.244.0.0/33", None, None, "").starts_with("--cluster-cidr: invalid CIDR"));
        assert!(
            err("10.244.0.0/16", None, None, "x")
                .starts_with("--service-cluster-ip-range: invalid")
        );
    }
}
