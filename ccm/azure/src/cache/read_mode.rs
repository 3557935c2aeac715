//! How a cached read treats an entry's age: upstream's three read types
//! (`CacheReadTypeDefault`, `CacheReadTypeUnsafe`, `CacheReadTypeForceRefresh`).

/// How a read treats a cached entry's age.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReadMode {
    /// Serve the entry while it is younger than the TTL; load it again once expired.
    #[default]
    Default,
    /// Serve any stored entry, however old; load only when nothing is stored.
    Unsafe,
    /// Load again even when a fresh entry is stored.
    ForceRefresh,
}
