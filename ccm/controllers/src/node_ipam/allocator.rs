//! The pure range allocator: per family, the cluster CIDR cut into node blocks, with the blocks held
//! by nodes and by the service range; allocation takes the next free block after the last one given.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;

use ipnet::{IpNet, Ipv4Net, Ipv6Net};

use super::config::{Family, FamilyRange, IpamConfig};

/// Who holds a run of blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    /// A node's `spec.podCIDRs` entry.
    Node(String),
    /// The `--service-cluster-ip-range`, never given to a node.
    ServiceRange,
}

/// Why an existing podCIDR was not recorded; the node is left untouched and this is reported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OccupyError {
    /// The podCIDR does not parse.
    #[error("podCIDR {0:?} is not a valid CIDR")]
    Invalid(String),
    /// The podCIDR's family has no `--cluster-cidr` entry, or lies outside it.
    #[error("podCIDR {cidr} is outside --cluster-cidr")]
    OutsideCluster {
        /// The node's podCIDR.
        cidr: IpNet,
    },
    /// The podCIDR overlaps blocks held by another node or the service range.
    #[error("podCIDR {cidr} overlaps {holder}")]
    Overlap {
        /// The node's podCIDR.
        cidr: IpNet,
        /// Who holds the overlapping block.
        holder: String,
    },
}

/// Why no podCIDRs could be allocated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AllocateError {
    /// Every block of a family's cluster CIDR is in use.
    #[error("no free /{mask} left in --cluster-cidr {cluster}")]
    Exhausted {
        /// The exhausted cluster CIDR.
        cluster: IpNet,
        /// The node mask of that family.
        mask: u8,
    },
    /// The node already holds blocks; the allocator never gives a node a second set.
    #[error("node {0} already holds podCIDRs")]
    AlreadyAllocated(String),
}

/// One family's blocks: runs `[start, end]` of block indices, keyed by start, never overlapping.
#[derive(Debug, Clone)]
struct FamilyBlocks {
    range: FamilyRange,
    held: BTreeMap<u128, (u128, Holder)>,
    next: u128,
}

impl FamilyBlocks {
    fn new(range: FamilyRange) -> Self {
        Self {
            range,
            held: BTreeMap::new(),
            next: 0,
        }
    }

    fn host_bits(&self) -> u32 {
        u32::from(max_prefix(self.range.cluster)) - u32::from(self.range.node_mask)
    }

    fn block_count(&self) -> u128 {
        1u128 << (self.range.node_mask - self.range.cluster.prefix_len())
    }

    /// Indices of the blocks `net` touches, clipped to the cluster range; `None` if disjoint.
    fn blocks_of(&self, net: &IpNet) -> Option<(u128, u128)> {
        let cluster = self.range.cluster;
        if Family::of(net) != Family::of(&cluster) {
            return None;
        }
        let base = addr_value(cluster.network());
        let lo = addr_value(net.network()).max(base);
        let hi = addr_value(net.broadcast()).min(addr_value(cluster.broadcast()));
        if lo > hi {
            return None;
        }
        let shift = self.host_bits();
        Some(((lo - base) >> shift, (hi - base) >> shift))
    }

    /// The run holding a block in `[lo, hi]`, if any.
    fn overlapping(&self, lo: u128, hi: u128) -> Option<(u128, u128, &Holder)> {
        let (start, (end, holder)) = self.held.range(..=hi).next_back()?;
        (*end >= lo).then_some((*start, *end, holder))
    }

    fn block(&self, index: u128) -> IpNet {
        let base = addr_value(self.range.cluster.network());
        let value = base + (index << self.host_bits());
        net_of(self.range.cluster, value, self.range.node_mask)
    }

    /// The first free block at or after `next`, wrapping once.
    fn first_free(&self) -> Option<u128> {
        let start = self.next % self.block_count();
        self.free_in(start, self.block_count())
            .or_else(|| self.free_in(0, start))
    }

    /// The first free block in `[lo, hi)`, jumping over held runs.
    fn free_in(&self, lo: u128, hi: u128) -> Option<u128> {
        let mut candidate = lo;
        while candidate < hi {
            match self.overlapping(candidate, candidate) {
                None => return Some(candidate),
                Some((_, end, _)) => candidate = end + 1,
            }
        }
        None
    }
}

/// The range allocator over all families of `--cluster-cidr`.
#[derive(Debug, Clone)]
pub struct RangeAllocator {
    families: Vec<FamilyBlocks>,
    nodes: HashMap<String, Vec<IpNet>>,
}

impl RangeAllocator {
    /// An allocator with the service ranges already held.
    pub fn new(config: &IpamConfig) -> Self {
        let mut families: Vec<FamilyBlocks> = config
            .families
            .iter()
            .copied()
            .map(FamilyBlocks::new)
            .collect();
        for service in &config.service_ranges {
            for family in &mut families {
                if let Some((lo, hi)) = family.blocks_of(service)
                    && family.overlapping(lo, hi).is_none()
                {
                    family.held.insert(lo, (hi, Holder::ServiceRange));
                }
            }
        }
        Self {
            families,
            nodes: HashMap::new(),
        }
    }

    /// Records a node's existing podCIDRs as used. Entries that are invalid, outside the cluster
    /// range or overlapping another holder are returned and not recorded; the others are.
    pub fn occupy(&mut self, node: &str, pod_cidrs: &[String]) -> Vec<OccupyError> {
        let mut problems = Vec::new();
        for raw in pod_cidrs {
            let cidr: IpNet = match raw.parse() {
                Ok(net) => net,
                Err(_) => {
                    problems.push(OccupyError::Invalid(raw.clone()));
                    continue;
                }
            };
            let cidr = cidr.trunc();
            let Some(family) = self
                .families
                .iter_mut()
                .find(|f| f.range.cluster.contains(&cidr))
            else {
                problems.push(OccupyError::OutsideCluster { cidr });
                continue;
            };
            let Some((lo, hi)) = family.blocks_of(&cidr) else {
                problems.push(OccupyError::OutsideCluster { cidr });
                continue;
            };
            if let Some((_, _, holder)) = family.overlapping(lo, hi) {
                if *holder != Holder::Node(node.to_owned()) {
                    problems.push(OccupyError::Overlap {
                        cidr,
                        holder: describe(holder),
                    });
                }
                continue;
            }
            family.held.insert(lo, (hi, Holder::Node(node.to_owned())));
            self.nodes.entry(node.to_owned()).or_default().push(cidr);
        }
        problems
    }

    /// Allocates one block per family, in `--cluster-cidr` order; nothing is held on error.
    pub fn allocate(&mut self, node: &str) -> Result<Vec<IpNet>, AllocateError> {
        if self.nodes.contains_key(node) {
            return Err(AllocateError::AlreadyAllocated(node.to_owned()));
        }
        let mut picks = Vec::with_capacity(self.families.len());
        for family in &self.families {
            let index = family.first_free().ok_or(AllocateError::Exhausted {
                cluster: family.range.cluster,
                mask: family.range.node_mask,
            })?;
            picks.push(index);
        }
        let mut cidrs = Vec::with_capacity(picks.len());
        for (family, index) in self.families.iter_mut().zip(picks) {
            family
                .held
                .insert(index, (index, Holder::Node(node.to_owned())));
            family.next = (index + 1) % family.block_count();
            cidrs.push(family.block(index));
        }
        self.nodes.insert(node.to_owned(), cidrs.clone());
        Ok(cidrs)
    }

    /// Frees every block the node holds (node deleted); returns what was freed.
    pub fn release(&mut self, node: &str) -> Vec<IpNet> {
        let freed = self.nodes.remove(node).unwrap_or_default();
        let holder = Holder::Node(node.to_owned());
        for family in &mut self.families {
            family.held.retain(|_, (_, h)| *h != holder);
        }
        freed
    }

    /// Names of the nodes holding blocks.
    pub fn holders(&self) -> impl Iterator<Item = &str> {
        self.nodes.keys().map(String::as_str)
    }

    /// The podCIDRs recorded for a node.
    pub fn cidrs_of(&self, node: &str) -> Option<&[IpNet]> {
        self.nodes.get(node).map(Vec::as_slice)
    }
}

fn describe(holder: &Holder) -> String {
    match holder {
        Holder::Node(name) => format!("node {name}"),
        Holder::ServiceRange => "--service-cluster-ip-range".to_owned(),
    }
}

fn max_prefix(net: IpNet) -> u8 {
    match net {
        IpNet::V4(_) => 32,
        IpNet::V6(_) => 128,
    }
}

fn addr_value(addr: IpAddr) -> u128 {
    match addr {
        IpAddr::V4(a) => u128::from(u32::from(a)),
        IpAddr::V6(a) => u128::from(a),
    }
}

fn net_of(like: IpNet, value: u128, prefix: u8) -> IpNet {
    match like {
        // The value derives from an IPv4 cluster range, so it fits in 32 bits.
        IpNet::V4(_) => IpNet::V4(Ipv4Net::new((value as u32).into(), prefix).unwrap_or_default()),
        IpNet::V6(_) => IpNet::V6(Ipv6Net::new(value.into(), prefix).unwrap_or_default()),
    }
}

#[cfg(test)]
#[path = "allocator_tests.rs"]
mod tests;
