//! `harness run --shard I/N`: a stable part of the suite for one job of a CI matrix. A scenario
//! belongs to shard `FNV-1a-64(name) mod N + 1`, a fixed function of its name alone, so adding or
//! removing a scenario moves no other between shards, and any machine or Rust version agrees
//! (std's `DefaultHasher` promises neither). Each shard writes `artifacts/shard.json` (its place
//! and the whole suite's order) so `harness report OUT --merge DIR...` can check that the shards
//! are complete and put the scenarios back in the unsharded order.

use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One shard of N, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// This shard, 1..=count.
    pub index: u32,
    /// How many shards.
    pub count: u32,
}

/// `--shard` was not `I/N` with `1 <= I <= N`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--shard {given}: expected I/N with whole numbers 1 <= I <= N (e.g. --shard 2/4)")]
pub struct ShardError {
    /// What was given.
    pub given: String,
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let error = || ShardError {
            given: s.to_owned(),
        };
        let (i, n) = s.split_once('/').ok_or_else(error)?;
        let index: u32 = i.trim().parse().map_err(|_| error())?;
        let count: u32 = n.trim().parse().map_err(|_| error())?;
        if index == 0 || count == 0 || index > count {
            return Err(error());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// FNV-1a, 64 bit (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl Shard {
    /// The shard (1-based) of the scenario called `name` among `count`.
    pub fn of(name: &str, count: u32) -> u32 {
        (fnv1a64(name.as_bytes()) % u64::from(count.max(1))) as u32 + 1
    }

    /// True when the scenario called `name` runs in this shard.
    pub fn contains(&self, name: &str) -> bool {
        Shard::of(name, self.count) == self.index
    }
}

/// `artifacts/shard.json`: which shard a build directory holds, and the whole suite's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShardRecord {
    /// This shard.
    pub shard: Shard,
    /// Every scenario of the suite (all shards), in the order an unsharded run reports them.
    pub suite: Vec<String>,
}

/// Where a build directory keeps its [`ShardRecord`].
pub const SHARD_FILE: &str = "artifacts/shard.json";

impl ShardRecord {
    /// Writes the record into the build directory `dir`.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        let path = dir.join(SHARD_FILE);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(path, text + "\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_one_based_shards_and_names_the_flag_when_wrong() {
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!("1/1".parse(), Ok(Shard { index: 1, count: 1 }));
        for bad in ["0/4", "5/4", "1/0", "4", "a/b", "-1/4", "1/4/2", ""] {
            let err = bad.parse::<Shard>().expect_err(bad);
            assert!(
                err.to_string()
                    .starts_with(&format!("--shard {bad}: expected I/N")),
                "{err}"
            );
        }
    }

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        // Fowler/Noll/Vo test vectors for FNV-1a 64.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    proptest! {
        #[test]
        fn every_name_is_in_exactly_one_shard_and_a_new_name_moves_no_other(
            names in proptest::collection::btree_set("[a-z0-9-]{1,24}", 1..40),
            extra in "[a-z0-9-]{1,24}",
            count in 1u32..9,
        ) {
            prop_assume!(!names.contains(&extra));
            let shards: Vec<Shard> = (1..=count).map(|index| Shard { index, count }).collect();
            for name in &names {
                prop_assert_eq!(shards.iter().filter(|s| s.contains(name)).count(), 1);
            }
            let before: Vec<Vec<&String>> = shards
                .iter()
                .map(|s| names.iter().filter(|n| s.contains(n)).collect())
                .collect();
            let mut grown = names.clone();
            grown.insert(extra.clone());
            for (shard, old) in shards.iter().zip(&before) {
                let now: Vec<&String> = grown.iter().filter(|n| shard.contains(n) && **n != extra).collect();
                prop_assert_eq!(&now, old);
            }
        }
    }
}
