//! Kubernetes minor versions the generator and the lint understand (1.27 to 1.36).

use std::fmt;
use std::str::FromStr;

/// Oldest supported minor (in-tree Azure still complete; Leader Migration GA).
pub const MIN_MINOR: u32 = 27;
/// Newest supported minor (matches the newest anchor CCM release line).
pub const MAX_MINOR: u32 = 36;
/// Version of the checked-in examples: the last release that can run both in-tree and
/// out-of-tree, i.e. the version at which a migration has to happen at the latest.
pub const DEFAULT: KubeVersion = KubeVersion { minor: 29 };

/// A Kubernetes `1.<minor>` release; patch levels are accepted on input and ignored, because
/// flags and gates only change between minors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    minor: u32,
}

/// Why a version string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VersionError {
    /// Not of the form `1.N`, `v1.N` or `1.N.P`.
    #[error(
        "`{input}` is not a Kubernetes version; expected 1.N or v1.N[.P], e.g. 1.29 (accepted: 1.{MIN_MINOR} to 1.{MAX_MINOR})"
    )]
    Malformed {
        /// The text given.
        input: String,
    },
    /// Well formed but outside 1.27..=1.36.
    #[error(
        "Kubernetes {input} is not supported; accepted versions are 1.{MIN_MINOR} to 1.{MAX_MINOR}"
    )]
    OutOfRange {
        /// The text given.
        input: String,
    },
}

impl KubeVersion {
    /// Builds a version from its minor number, refusing anything outside the supported range.
    pub fn from_minor(minor: u32) -> Result<Self, VersionError> {
        if (MIN_MINOR..=MAX_MINOR).contains(&minor) {
            Ok(Self { minor })
        } else {
            Err(VersionError::OutOfRange {
                input: format!("1.{minor}"),
            })
        }
    }

    /// Minor number (`29` for 1.29).
    pub const fn minor(self) -> u32 {
        self.minor
    }

    /// True when this release is `1.<minor>` or newer.
    pub const fn at_least(self, minor: u32) -> bool {
        self.minor >= minor
    }

    /// Every supported version, oldest first.
    pub fn all() -> impl Iterator<Item = KubeVersion> {
        (MIN_MINOR..=MAX_MINOR).map(|minor| KubeVersion { minor })
    }

    /// Parses `1.N`, `v1.N`, `1.N.P` or `v1.N.P`.
    pub fn parse(input: &str) -> Result<Self, VersionError> {
        let malformed = || VersionError::Malformed {
            input: input.to_string(),
        };
        let trimmed = input.trim();
        let body = trimmed.strip_prefix('v').unwrap_or(trimmed);
        let mut parts = body.split('.');
        let major = parts.next().ok_or_else(malformed)?;
        let minor = parts.next().ok_or_else(malformed)?;
        let patch = parts.next();
        if parts.next().is_some() {
            return Err(malformed());
        }
        let numeric =
            |s: &str| !s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit());
        if major != "1" || !numeric(minor) || patch.is_some_and(|p| !numeric(p)) {
            return Err(malformed());
        }
        let minor: u32 = minor.parse().map_err(|_| malformed())?;
        Self::from_minor(minor).map_err(|_| VersionError::OutOfRange {
            input: input.to_string(),
        })
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

impl FromStr for KubeVersion {
    type Err = VersionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn accepts_common_spellings() {
        for s in ["1.29", "v1.29", "1.29.4", "v1.29.0", " 1.29 "] {
            assert_eq!(KubeVersion::parse(s).map(|v| v.minor()), Ok(29), "{s}");
        }
    }

    #[test]
    fn rejects_with_accepted_range_in_message() {
        let err = KubeVersion::parse("1.26").unwrap_err();
        assert!(matches!(err, VersionError::OutOfRange { .. }));
        assert!(err.to_string().contains("1.27 to 1.36"));
        let err = KubeVersion::parse("latest").unwrap_err();
        assert!(matches!(err, VersionError::Malformed { .. }));
        assert!(err.to_string().contains("1.27 to 1.36"));
        for s in [
            "2.29", "1.", "1.x", "1.29.", "1.29.1.2", "", "v", "1.-3", "1.+3",
        ] {
            assert!(KubeVersion::parse(s).is_err(), "{s}");
        }
    }

    proptest! {
        #[test]
        fn round_trips_every_supported_minor(minor in MIN_MINOR..=MAX_MINOR, patch in 0u32..100, v in any::<bool>()) {
            let text = format!("{}1.{minor}.{patch}", if v { "v" } else { "" });
            let parsed = KubeVersion::parse(&text).unwrap();
            prop_assert_eq!(parsed.minor(), minor);
            prop_assert_eq!(KubeVersion::parse(&parsed.to_string()).unwrap(), parsed);
        }

        #[test]
        fn out_of_range_minors_are_refused(minor in prop_oneof![0u32..MIN_MINOR, (MAX_MINOR + 1)..100_000]) {
            let out_of_range = matches!(KubeVersion::parse(&format!("1.{minor}")), Err(VersionError::OutOfRange { .. }));
            prop_assert!(out_of_range);
        }

        #[test]
        fn never_panics_and_only_accepts_the_range(s in "\\PC{0,12}") {
            if let Ok(v) = KubeVersion::parse(&s) {
                prop_assert!((MIN_MINOR..=MAX_MINOR).contains(&v.minor()));
            }
        }
    }
}
