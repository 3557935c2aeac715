use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;

fn config(cluster: &str, v4: u8, v6: u8, svc: &str) -> IpamConfig {
    IpamConfig::from_flags(cluster, Some(v4), Some(v6), svc).unwrap()
}

fn strings(nets: &[IpNet]) -> Vec<String> {
    nets.iter().map(ToString::to_string).collect()
}

#[test]
fn allocates_in_order_and_dual_stack_in_flag_order() {
    let mut a = RangeAllocator::new(&config("fd00::/48,10.244.0.0/16", 24, 64, ""));
    assert_eq!(
        strings(&a.allocate("n0").unwrap()),
        ["fd00::/64", "10.244.0.0/24"]
    );
    assert_eq!(
        strings(&a.allocate("n1").unwrap()),
        ["fd00:0:0:1::/64", "10.244.1.0/24"]
    );
}

#[test]
fn existing_pod_cidrs_are_skipped() {
    let mut a = RangeAllocator::new(&config("10.244.0.0/16", 24, 64, ""));
    assert!(a.occupy("old", &["10.244.0.0/24".into()]).is_empty());
    assert_eq!(strings(&a.allocate("new").unwrap()), ["10.244.1.0/24"]);
}

#[test]
fn service_range_is_never_allocated() {
    let mut a = RangeAllocator::new(&config("10.0.0.0/22", 24, 64, "10.0.0.0/23"));
    assert_eq!(strings(&a.allocate("n0").unwrap()), ["10.0.2.0/24"]);
    assert_eq!(strings(&a.allocate("n1").unwrap()), ["10.0.3.0/24"]);
    assert!(matches!(
        a.allocate("n2"),
        Err(AllocateError::Exhausted { .. })
    ));
}

#[test]
fn outside_and_overlapping_are_reported_not_recorded() {
    let mut a = RangeAllocator::new(&config("10.244.0.0/16", 24, 64, ""));
    assert!(a.occupy("a", &["10.244.5.0/24".into()]).is_empty());
    let overlap = a.occupy("b", &["10.244.5.0/25".into()]);
    assert_eq!(
        overlap[0].to_string(),
        "podCIDR 10.244.5.0/25 overlaps node a"
    );
    let outside = a.occupy("c", &["10.9.0.0/24".into()]);
    assert_eq!(
        outside[0].to_string(),
        "podCIDR 10.9.0.0/24 is outside --cluster-cidr"
    );
    assert_eq!(
        a.occupy("d", &["bad".into()])[0],
        OccupyError::Invalid("bad".into())
    );
    assert!(a.cidrs_of("b").is_none());
    assert!(a.cidrs_of("c").is_none());
    // a's block stays a's after b is released
    a.release("b");
    assert_eq!(strings(a.cidrs_of("a").unwrap()), ["10.244.5.0/24"]);
}

#[test]
fn partial_dual_stack_node_holds_only_what_it_has() {
    let mut a = RangeAllocator::new(&config("10.0.0.0/16,fd00::/48", 24, 64, ""));
    assert!(a.occupy("v4only", &["10.0.0.0/24".into()]).is_empty());
    assert_eq!(
        strings(&a.allocate("n").unwrap()),
        ["10.0.1.0/24", "fd00::/64"]
    );
}

#[test]
fn service_range_overlap_is_reported() {
    let mut a = RangeAllocator::new(&config("10.0.0.0/16", 24, 64, "10.0.8.0/22"));
    let problems = a.occupy("n", &["10.0.9.0/24".into()]);
    assert_eq!(
        problems[0].to_string(),
        "podCIDR 10.0.9.0/24 overlaps --service-cluster-ip-range"
    );
}

#[test]
fn exhaustion_of_one_family_holds_nothing() {
    let mut a = RangeAllocator::new(&config("10.0.0.0/24,fd00::/64", 24, 64, ""));
    a.allocate("n0").unwrap();
    assert_eq!(
        a.allocate("n1").unwrap_err().to_string(),
        "no free /24 left in --cluster-cidr 10.0.0.0/24"
    );
    assert!(a.cidrs_of("n1").is_none());
}

#[test]
fn released_block_is_reused_after_wrapping() {
    let mut a = RangeAllocator::new(&config("10.0.0.0/23", 24, 64, ""));
    a.allocate("n0").unwrap();
    a.allocate("n1").unwrap();
    assert_eq!(strings(&a.release("n0")), ["10.0.0.0/24"]);
    assert_eq!(strings(&a.allocate("n2").unwrap()), ["10.0.0.0/24"]);
}

#[test]
fn a_node_is_never_given_a_second_set() {
    let mut a = RangeAllocator::new(&config("10.0.0.0/16", 24, 64, ""));
    a.allocate("n0").unwrap();
    assert_eq!(
        a.allocate("n0"),
        Err(AllocateError::AlreadyAllocated("n0".into()))
    );
}

#[derive(Debug, Clone)]
enum Op {
    Add(u8),
    Delete(u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![(0u8..40).prop_map(Op::Add), (0u8..40).prop_map(Op::Delete)]
}

proptest! {
    /// Random node churn on a small dual-stack range (16 IPv4 blocks): allocations never overlap,
    /// never leave the cluster CIDR or touch the service range, a node's value never changes while
    /// it lives, and a release makes room again.
    #[test]
    fn churn_never_overlaps(ops in proptest::collection::vec(op(), 1..200)) {
        let cfg = config("10.1.0.0/20,fd00::/60", 24, 64, "10.1.0.0/24");
        let v4: IpNet = "10.1.0.0/20".parse().unwrap();
        let v6: IpNet = "fd00::/60".parse().unwrap();
        let svc: IpNet = "10.1.0.0/24".parse().unwrap();
        let mut a = RangeAllocator::new(&cfg);
        let mut live: BTreeMap<u8, Vec<IpNet>> = BTreeMap::new();
        for op in ops {
            match op {
                Op::Add(n) => {
                    let name = format!("n{n}");
                    match a.allocate(&name) {
                        Ok(cidrs) => {
                            prop_assert!(!live.contains_key(&n));
                            prop_assert!(v4.contains(&cidrs[0]) && v6.contains(&cidrs[1]));
                            prop_assert!(!svc.contains(&cidrs[0]));
                            for other in live.values() {
                                prop_assert!(other[0] != cidrs[0] && other[1] != cidrs[1]);
                            }
                            live.insert(n, cidrs);
                        }
                        Err(AllocateError::AlreadyAllocated(_)) => prop_assert!(live.contains_key(&n)),
                        Err(AllocateError::Exhausted { .. }) => {
                            prop_assert!(!live.contains_key(&n));
                            prop_assert_eq!(live.len(), 15);
                        }
                    }
                }
                Op::Delete(n) => {
                    let freed = a.release(&format!("n{n}"));
                    prop_assert_eq!(freed, live.remove(&n).unwrap_or_default());
                }
            }
            for (n, cidrs) in &live {
                prop_assert_eq!(a.cidrs_of(&format!("n{n}")), Some(cidrs.as_slice()));
            }
        }
    }
}
