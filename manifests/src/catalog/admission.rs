//! Admission plugins that were removed.

/// One admission plugin fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdmissionPluginRule {
    /// Plugin name as given to `--enable-admission-plugins`.
    pub name: &'static str,
    /// First minor without it.
    pub removed: u32,
    /// Replacement advice.
    pub reason: &'static str,
}

/// Every admission plugin fact the lint knows.
pub static ADMISSION_PLUGINS: &[AdmissionPluginRule] = &[
    AdmissionPluginRule {
        name: "PersistentVolumeLabel",
        removed: 31,
        reason: "removed in 1.31 (kubernetes#124505); the CSI drivers label volumes, or use cloud-pv-admission-labeler",
    },
    AdmissionPluginRule {
        name: "PodSecurityPolicy",
        removed: 25,
        reason: "removed in 1.25; use Pod Security Admission",
    },
];
