//! Nearest-rank percentile of the delay checks.

/// The nearest-rank `p`th percentile (0 < p ≤ 100) of `values`; `None` when empty.
pub(crate) fn percentile(values: &[u64], p: f64) -> Option<u64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len()) - 1).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        assert_eq!(percentile(&[], 99.0), None);
        assert_eq!(percentile(&[5], 99.0), Some(5));
        let hundred: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&hundred, 99.0), Some(99));
        assert_eq!(percentile(&[3, 1, 2], 99.0), Some(3));
    }
}
