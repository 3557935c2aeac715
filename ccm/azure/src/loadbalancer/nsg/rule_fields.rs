//! Reading and writing the single/plural field pairs of a security rule (`sourceAddressPrefix` /
//! `sourceAddressPrefixes`, ...) so that a value already written the way upstream writes it is
//! left byte-for-byte alone: NRP returns unused plural fields as `[]`, which counts as absent.

/// All values of a single/plural pair: the non-empty single value, then the plural ones.
pub fn values(single: &Option<String>, plural: &Option<Vec<String>>) -> Vec<String> {
    single
        .iter()
        .filter(|s| !s.is_empty())
        .cloned()
        .chain(plural.iter().flatten().cloned())
        .collect()
}

/// `None` and `Some("")` mean the same.
fn same_single(current: &Option<String>, wanted: &Option<String>) -> bool {
    current.as_deref().filter(|s| !s.is_empty()) == wanted.as_deref()
}

/// `None` and `Some([])` mean the same.
fn same_plural(current: &Option<Vec<String>>, wanted: &Option<Vec<String>>) -> bool {
    current.as_deref().filter(|v| !v.is_empty()) == wanted.as_deref().filter(|v| !v.is_empty())
}

/// Writes `(single, plural)` unless the pair already says the same.
fn write_pair(
    single: &mut Option<String>,
    plural: &mut Option<Vec<String>>,
    wanted_single: Option<String>,
    wanted_plural: Option<Vec<String>>,
) {
    if !same_single(single, &wanted_single) {
        *single = wanted_single;
    }
    if !same_plural(plural, &wanted_plural) {
        *plural = wanted_plural;
    }
}

/// One value goes to the single field, several (or none) to the plural field: how upstream writes
/// sources and destinations (`SetDestinationPrefixes`). `values` must already be sorted.
pub fn set_one_or_many(
    single: &mut Option<String>,
    plural: &mut Option<Vec<String>>,
    values: Vec<String>,
) {
    if let [one] = values.as_slice() {
        write_pair(single, plural, Some(one.clone()), None);
    } else {
        write_pair(single, plural, None, Some(values));
    }
}

/// Always the plural field, even for one value: how upstream writes allow-rule destination ports.
pub fn set_many(
    single: &mut Option<String>,
    plural: &mut Option<Vec<String>>,
    values: Vec<String>,
) {
    write_pair(single, plural, None, Some(values));
}

/// Always the single field: how upstream writes `*` ports and sources of the deny-all rule.
pub fn set_single(single: &mut Option<String>, plural: &mut Option<Vec<String>>, value: &str) {
    write_pair(single, plural, Some(value.to_string()), None);
}

/// Sets a plain string field unless it already holds `value`.
pub fn set_str(field: &mut Option<String>, value: &str) {
    if field.as_deref() != Some(value) {
        *field = Some(value.to_string());
    }
}

/// Sorted, deduplicated union of two lists (upstream's `NormalizeSecurityRuleAddressPrefixes`).
pub fn sorted_union(a: Vec<String>, b: &[String]) -> Vec<String> {
    let mut out = a;
    out.extend(b.iter().cloned());
    out.sort_unstable();
    out.dedup();
    out
}
