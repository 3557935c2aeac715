//! Uniform scale-set computer names: `<computerNamePrefix>` + the instance id in base 36, padded
//! to 6 characters (`aks-nodepool1-12345678-vmss00000a` is instance 10).

/// Length of the base-36 instance-id suffix.
pub const SUFFIX_LEN: usize = 6;

/// Largest instance id a 6-character base-36 suffix holds (36^6 - 1).
pub const MAX_INSTANCE_ID: u64 = 2_176_782_335;

/// A uniform scale-set instance's computer name split into the scale set's prefix and the id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaleSetComputerName<'a> {
    /// Everything before the suffix: compared with the scale set's `computerNamePrefix`.
    pub prefix: &'a str,
    /// The numeric instance id the suffix encodes.
    pub instance_id: u64,
}

/// Splits `name` like upstream's `getScaleSetVMInstanceID`: the last 6 characters parsed as base
/// 36 (either case); `None` when the name is too short or the suffix is not base 36.
pub fn parse(name: &str) -> Option<ScaleSetComputerName<'_>> {
    let split = name.len().checked_sub(SUFFIX_LEN)?;
    if split == 0 || !name.is_char_boundary(split) {
        return None;
    }
    let (prefix, suffix) = name.split_at(split);
    if !suffix.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let instance_id = u64::from_str_radix(suffix, 36).ok()?;
    Some(ScaleSetComputerName {
        prefix,
        instance_id,
    })
}

/// The computer name of instance `instance_id` of a scale set with `prefix` (lower-case digits,
/// zero-padded); `None` when the id does not fit 6 base-36 digits.
pub fn format(prefix: &str, instance_id: u64) -> Option<String> {
    if instance_id > MAX_INSTANCE_ID {
        return None;
    }
    let mut digits = [b'0'; SUFFIX_LEN];
    let mut rest = instance_id;
    for slot in digits.iter_mut().rev() {
        let d = (rest % 36) as u8;
        *slot = if d < 10 { b'0' + d } else { b'a' + d - 10 };
        rest /= 36;
    }
    Some(format!("{prefix}{}", String::from_utf8_lossy(&digits)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_names() {
        let n = parse("aks-nodepool1-12345678-vmss00000a").unwrap();
        assert_eq!(n.prefix, "aks-nodepool1-12345678-vmss");
        assert_eq!(n.instance_id, 10);
        assert_eq!(parse("vmss00001Z").unwrap().instance_id, 36 + 35);
        assert_eq!(format("vmss", 71).unwrap(), "vmss00001z");
        assert_eq!(format("p", MAX_INSTANCE_ID).unwrap(), "pzzzzzz");
        assert_eq!(format("p", MAX_INSTANCE_ID + 1), None);
        assert_eq!(parse("000001"), None, "a bare suffix has no prefix");
        assert_eq!(parse("vm-0"), None);
        assert_eq!(parse("node-00-0_1"), None);
        assert_eq!(parse("k8s-agentpool-0"), None, "'pool-0' is not base 36");
    }

    proptest! {
        #[test]
        fn format_then_parse_round_trips(prefix in "[a-z][a-z0-9-]{0,20}", id in 0..=MAX_INSTANCE_ID) {
            let name = format(&prefix, id).unwrap();
            let parsed = parse(&name).unwrap();
            prop_assert_eq!(parsed.prefix, prefix.as_str());
            prop_assert_eq!(parsed.instance_id, id);
        }

        #[test]
        fn random_names_never_panic_and_lowercase_ones_print_back(name in "\\PC{0,16}") {
            if let Some(parsed) = parse(&name) {
                let lower = name.to_ascii_lowercase();
                if lower == name {
                    prop_assert_eq!(format(parsed.prefix, parsed.instance_id), Some(name.clone()));
                }
            }
        }
    }
}
