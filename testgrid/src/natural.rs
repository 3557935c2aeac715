//! Natural (numeric-aware) string order, the order TestGrid lists build directories and rows in.
//!
//! TestGrid sorts with `fvbommel/sortorder`'s `NaturalLess`: digit runs compare by numeric
//! value (leading zeros only break ties, fewer zeros first), other bytes compare bytewise, and
//! where one side has a digit and the other a non-digit the digit side is smaller.

use std::cmp::Ordering;

/// Compares two strings in TestGrid's natural order; a total order (ties broken bytewise).
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    match sortorder_cmp(a.as_bytes(), b.as_bytes()) {
        Ordering::Equal => a.cmp(b),
        other => other,
    }
}

/// `true` when `a` sorts strictly before `b` in natural order.
pub fn natural_less(a: &str, b: &str) -> bool {
    natural_cmp(a, b) == Ordering::Less
}

fn sortorder_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (da, db) = (a[i].is_ascii_digit(), b[j].is_ascii_digit());
        if da != db {
            // One non-digit run ended first; the side already at a digit sorts first.
            return if da {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        if !da {
            match a[i].cmp(&b[j]) {
                Ordering::Equal => {
                    i += 1;
                    j += 1;
                    continue;
                }
                other => return other,
            }
        }
        let zeros_end_a = skip_while(a, i, |c| c == b'0');
        let zeros_end_b = skip_while(b, j, |c| c == b'0');
        let end_a = skip_while(a, zeros_end_a, |c| c.is_ascii_digit());
        let end_b = skip_while(b, zeros_end_b, |c| c.is_ascii_digit());
        let (num_a, num_b) = (&a[zeros_end_a..end_a], &b[zeros_end_b..end_b]);
        let by_value = num_a.len().cmp(&num_b.len()).then_with(|| num_a.cmp(num_b));
        if by_value != Ordering::Equal {
            return by_value;
        }
        // Same value: the one with fewer leading zeros first.
        let by_zeros = (zeros_end_a - i).cmp(&(zeros_end_b - j));
        if by_zeros != Ordering::Equal {
            return by_zeros;
        }
        i = end_a;
        j = end_b;
    }
    (a.len() - i).cmp(&(b.len() - j))
}

fn skip_while(s: &[u8], mut at: usize, keep: impl Fn(u8) -> bool) -> usize {
    while at < s.len() && keep(s[at]) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn numbers_compare_by_value() {
        assert!(natural_less("abc2", "abc12"));
        assert!(natural_less("9", "10"));
        assert!(natural_less("999999999", "1767225600"));
        assert!(natural_less("1767225600", "1767225601"));
    }

    #[test]
    fn leading_zeros_break_ties() {
        assert!(natural_less("2", "02"));
        assert!(natural_less("02", "3"));
        assert!(natural_less("0", "00"));
    }

    #[test]
    fn digit_sorts_before_other_bytes() {
        assert!(natural_less("ab1", "abc1"));
        assert!(natural_less("a1", "aa"));
    }

    #[test]
    fn prefix_sorts_first() {
        assert!(natural_less("build", "build1"));
        assert_eq!(natural_cmp("x", "x"), Ordering::Equal);
    }

    proptest! {
        #[test]
        fn numeric_strings_follow_integer_order(a in 0u64..u64::MAX, b in 0u64..u64::MAX) {
            prop_assert_eq!(natural_cmp(&a.to_string(), &b.to_string()), a.cmp(&b));
        }

        #[test]
        fn order_is_antisymmetric_and_total(a in "[a-c0-2]{0,6}", b in "[a-c0-2]{0,6}") {
            let ab = natural_cmp(&a, &b);
            prop_assert_eq!(ab, natural_cmp(&b, &a).reverse());
            prop_assert_eq!(ab == Ordering::Equal, a == b);
        }

        #[test]
        fn order_is_transitive(a in "[a-b0-2]{0,5}", b in "[a-b0-2]{0,5}", c in "[a-b0-2]{0,5}") {
            if natural_cmp(&a, &b) != Ordering::Greater && natural_cmp(&b, &c) != Ordering::Greater {
                prop_assert_ne!(natural_cmp(&a, &c), Ordering::Greater);
            }
        }
    }
}
