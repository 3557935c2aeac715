//! The row type of the label and annotation tables: a metadata key and how the provider uses it.

use super::access::Access;

/// A label or annotation key with who writes and reads it; one type for both tables so their
/// reference pages are rendered by the same code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetadataKey {
    /// Label or annotation key.
    pub key: &'static str,
    /// Who writes and who reads it.
    pub access: Access,
    /// Value format.
    pub value: &'static str,
    /// Effect and conditions.
    pub description: &'static str,
}
