//! ARM resource ids (`/subscriptions/{sub}/resourceGroups/{rg}/providers/{ns}/{type}/{name}...`)
//! and node providerIDs (`azure://` + a Compute VM or scale-set VM id), parsed and printed
//! byte-for-byte.
//!
//! # Verified behaviour (sources)
//! - Keywords `subscriptions`, `resourceGroups`, `providers` match case-insensitively; ARM and
//!   upstream keep every other segment's casing (arm-imds-aad.md §1.2, anchor-ccm.md §3.1).
//! - providerID forms: `azure:///subscriptions/<sub>/resourceGroups/<rg>/providers/
//!   Microsoft.Compute/virtualMachines/<name>` (availability-set, standalone and flexible
//!   scale-set VMs) and `.../virtualMachineScaleSets/<ss>/virtualMachines/<instanceId>` (uniform
//!   scale sets); the resource-group segment is lower-cased and nothing else is touched
//!   (upstream `ConvertResourceGroupNameToLower`, anchor-ccm.md §3.1). Parsing also accepts the
//!   `<ss>_<instanceId>` last segment (anchor-ccm.md §3.1).
//!
//! # Inferred
//! - [infer] Empty segments, a trailing `/` and an odd type/name tail are rejected rather than
//!   tolerated; upstream's regexes are looser but such ids never come from ARM.

use std::fmt;
use std::str::FromStr;

/// The Compute namespace every node id lives in.
pub const COMPUTE_NAMESPACE: &str = "Microsoft.Compute";
/// providerID scheme prefix (followed by the id's leading `/`, hence three slashes).
pub const PROVIDER_ID_PREFIX: &str = "azure://";

const SUBSCRIPTIONS: &str = "subscriptions";
const RESOURCE_GROUPS: &str = "resourceGroups";
const PROVIDERS: &str = "providers";
const VIRTUAL_MACHINES: &str = "virtualMachines";
const SCALE_SETS: &str = "virtualMachineScaleSets";

/// Why a string is not a resource id or providerID; names the input (ids hold no secrets).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResourceIdError {
    /// Not shaped like an ARM id.
    #[error("invalid ARM resource id {id:?}: {reason}")]
    Malformed {
        /// The input.
        id: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// An ARM id, but not a Compute VM / scale-set VM one, or without the `azure://` prefix.
    #[error("invalid providerID {provider_id:?}: {reason}")]
    NotANodeId {
        /// The input.
        provider_id: String,
        /// What is wrong.
        reason: &'static str,
    },
}

/// A parsed ARM resource id. Segments keep their original spelling, so printing gives back the
/// parsed text exactly; accessors compare keywords case-insensitively.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResourceId {
    /// Every `/`-separated segment, without the leading empty one.
    segments: Vec<String>,
    /// Index of the `providers` keyword.
    providers_at: usize,
}

fn malformed(id: &str, reason: &'static str) -> ResourceIdError {
    ResourceIdError::Malformed {
        id: id.to_string(),
        reason,
    }
}

impl ResourceId {
    /// Builds an id with ARM's canonical keyword spelling; `types` are `(type, name)` pairs from
    /// the top-level type down (e.g. `[("virtualMachineScaleSets", "ss"), ("virtualMachines", "3")]`).
    pub fn new(
        subscription: &str,
        resource_group: Option<&str>,
        namespace: &str,
        types: &[(&str, &str)],
    ) -> Result<ResourceId, ResourceIdError> {
        let mut text = format!("/{SUBSCRIPTIONS}/{subscription}");
        if let Some(rg) = resource_group {
            text.push_str(&format!("/{RESOURCE_GROUPS}/{rg}"));
        }
        text.push_str(&format!("/{PROVIDERS}/{namespace}"));
        for (kind, name) in types {
            text.push_str(&format!("/{kind}/{name}"));
        }
        let parts = [subscription, namespace]
            .into_iter()
            .chain(resource_group)
            .chain(types.iter().flat_map(|(kind, name)| [*kind, *name]));
        if parts.clone().any(|p| p.contains('/')) {
            return Err(malformed(&text, "a segment contains '/'"));
        }
        text.parse()
    }

    /// Subscription id segment.
    pub fn subscription(&self) -> &str {
        &self.segments[1]
    }

    /// Resource-group segment, absent for subscription-level resources.
    pub fn resource_group(&self) -> Option<&str> {
        (self.providers_at == 4).then(|| self.segments[3].as_str())
    }

    /// Provider namespace, e.g. `Microsoft.Network`.
    pub fn namespace(&self) -> &str {
        &self.segments[self.providers_at + 1]
    }

    /// `(type, name)` pairs from the top-level resource down to this one.
    pub fn types(&self) -> impl Iterator<Item = (&str, &str)> {
        self.segments[self.providers_at + 2..]
            .chunks_exact(2)
            .map(|pair| (pair[0].as_str(), pair[1].as_str()))
    }

    /// Full type, e.g. `Microsoft.Compute/virtualMachineScaleSets/virtualMachines`.
    pub fn resource_type(&self) -> String {
        let mut out = self.namespace().to_string();
        for (kind, _) in self.types() {
            out.push('/');
            out.push_str(kind);
        }
        out
    }

    /// Name of the resource itself (the last segment).
    pub fn name(&self) -> &str {
        self.segments.last().map(String::as_str).unwrap_or_default()
    }

    /// The parent resource's id (`None` for a top-level resource).
    pub fn parent(&self) -> Option<ResourceId> {
        if self.segments.len() - self.providers_at <= 4 {
            return None;
        }
        Some(ResourceId {
            segments: self.segments[..self.segments.len() - 2].to_vec(),
            providers_at: self.providers_at,
        })
    }

    /// The id of a child (`kind`, `name`) of this resource, e.g. an LB's backend pool.
    pub fn child(&self, kind: &str, name: &str) -> Result<ResourceId, ResourceIdError> {
        format!("{self}/{kind}/{name}").parse()
    }

    /// True when the full type equals `resource_type` ignoring case.
    pub fn is_type(&self, resource_type: &str) -> bool {
        self.resource_type().eq_ignore_ascii_case(resource_type)
    }

    /// Equality as ARM sees it: every segment compared ignoring ASCII case.
    pub fn eq_ignore_case(&self, other: &ResourceId) -> bool {
        self.segments.len() == other.segments.len()
            && self
                .segments
                .iter()
                .zip(&other.segments)
                .all(|(a, b)| a.eq_ignore_ascii_case(b))
    }

    /// The same id with its resource-group segment lower-cased (upstream
    /// `ConvertResourceGroupNameToLower`).
    pub fn with_lowercase_resource_group(&self) -> ResourceId {
        let mut out = self.clone();
        if out.providers_at == 4 {
            out.segments[3] = out.segments[3].to_lowercase();
        }
        out
    }
}

impl FromStr for ResourceId {
    type Err = ResourceIdError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let rest = text
            .strip_prefix('/')
            .ok_or_else(|| malformed(text, "must start with '/'"))?;
        let segments: Vec<String> = rest.split('/').map(str::to_string).collect();
        if segments.iter().any(String::is_empty) {
            return Err(malformed(text, "empty segment"));
        }
        let keyword = |i: usize, word: &str| {
            segments
                .get(i)
                .is_some_and(|s| s.eq_ignore_ascii_case(word))
        };
        if !keyword(0, SUBSCRIPTIONS) || segments.len() < 2 {
            return Err(malformed(text, "must start with /subscriptions/<id>"));
        }
        let providers_at = if keyword(2, RESOURCE_GROUPS) {
            if segments.len() < 4 {
                return Err(malformed(text, "missing resource group name"));
            }
            4
        } else {
            2
        };
        if !keyword(providers_at, PROVIDERS) || segments.len() < providers_at + 2 {
            return Err(malformed(text, "missing /providers/<namespace>"));
        }
        let tail = segments.len() - providers_at - 2;
        if tail == 0 || !tail.is_multiple_of(2) {
            return Err(malformed(
                text,
                "expected /<type>/<name> pairs after the namespace",
            ));
        }
        Ok(ResourceId {
            segments,
            providers_at,
        })
    }
}

impl fmt::Display for ResourceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for segment in &self.segments {
            write!(f, "/{segment}")?;
        }
        Ok(())
    }
}

/// What a providerID names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeIdKind {
    /// `.../virtualMachines/<name>`: availability-set, standalone or flexible scale-set VM.
    VirtualMachine,
    /// `.../virtualMachineScaleSets/<ss>/virtualMachines/<instanceId>`: uniform instance.
    ScaleSetVm,
}

/// A node's `spec.providerID`: `azure://` + a Compute VM or scale-set VM id, printed exactly as
/// parsed or as built.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ProviderId {
    id: ResourceId,
}

fn not_a_node(provider_id: &str, reason: &'static str) -> ResourceIdError {
    ResourceIdError::NotANodeId {
        provider_id: provider_id.to_string(),
        reason,
    }
}

impl ProviderId {
    /// The providerID upstream gives a VM: its ARM id with the resource group lower-cased.
    pub fn for_vm(
        subscription: &str,
        resource_group: &str,
        vm_name: &str,
    ) -> Result<Self, ResourceIdError> {
        let id = ResourceId::new(
            subscription,
            Some(resource_group),
            COMPUTE_NAMESPACE,
            &[(VIRTUAL_MACHINES, vm_name)],
        )?;
        Self::from_resource_id(&id)
    }

    /// The providerID upstream gives a uniform scale-set instance (resource group lower-cased).
    pub fn for_scale_set_vm(
        subscription: &str,
        resource_group: &str,
        scale_set: &str,
        instance_id: &str,
    ) -> Result<Self, ResourceIdError> {
        let id = ResourceId::new(
            subscription,
            Some(resource_group),
            COMPUTE_NAMESPACE,
            &[(SCALE_SETS, scale_set), (VIRTUAL_MACHINES, instance_id)],
        )?;
        Self::from_resource_id(&id)
    }

    /// From a VM / scale-set VM id as ARM returned it: resource group lower-cased, every other
    /// segment untouched.
    pub fn from_resource_id(id: &ResourceId) -> Result<Self, ResourceIdError> {
        let provider_id = ProviderId {
            id: id.with_lowercase_resource_group(),
        };
        provider_id.check()?;
        Ok(provider_id)
    }

    fn check(&self) -> Result<(), ResourceIdError> {
        let text = self.to_string();
        if self.id.resource_group().is_none() {
            return Err(not_a_node(&text, "no resource group"));
        }
        if !self.id.namespace().eq_ignore_ascii_case(COMPUTE_NAMESPACE) {
            return Err(not_a_node(&text, "not a Microsoft.Compute id"));
        }
        let types: Vec<_> = self.id.types().collect();
        match types.as_slice() {
            [(vm, _)] if vm.eq_ignore_ascii_case(VIRTUAL_MACHINES) => Ok(()),
            [(ss, ss_name), (vm, instance)]
                if ss.eq_ignore_ascii_case(SCALE_SETS)
                    && vm.eq_ignore_ascii_case(VIRTUAL_MACHINES) =>
            {
                if parse_instance_id(ss_name, instance).is_some() {
                    Ok(())
                } else {
                    Err(not_a_node(&text, "scale-set instance id is not numeric"))
                }
            }
            _ => Err(not_a_node(
                &text,
                "expected .../virtualMachines/<name> or .../virtualMachineScaleSets/<ss>/virtualMachines/<id>",
            )),
        }
    }

    /// Which form this is.
    pub fn kind(&self) -> NodeIdKind {
        if self.id.types().count() == 2 {
            NodeIdKind::ScaleSetVm
        } else {
            NodeIdKind::VirtualMachine
        }
    }

    /// The ARM id behind it.
    pub fn resource_id(&self) -> &ResourceId {
        &self.id
    }

    /// Subscription segment.
    pub fn subscription(&self) -> &str {
        self.id.subscription()
    }

    /// Resource-group segment (as printed).
    pub fn resource_group(&self) -> &str {
        self.id.resource_group().unwrap_or_default()
    }

    /// VM name (VM form) or `None` (scale-set form).
    pub fn vm_name(&self) -> Option<&str> {
        (self.kind() == NodeIdKind::VirtualMachine).then(|| self.id.name())
    }

    /// Scale-set name and numeric instance id (scale-set form; the `<ss>_<id>` last segment
    /// yields its numeric part).
    pub fn scale_set_instance(&self) -> Option<(&str, &str)> {
        let mut types = self.id.types();
        let (_, ss) = types.next()?;
        let (_, instance) = types.next()?;
        Some((ss, parse_instance_id(ss, instance)?))
    }
}

/// `3` or `<ss>_3` → `3`; anything else → `None`.
fn parse_instance_id<'a>(scale_set: &str, segment: &'a str) -> Option<&'a str> {
    let digits = match segment.rsplit_once('_') {
        Some((prefix, digits)) if prefix.eq_ignore_ascii_case(scale_set) => digits,
        _ => segment,
    };
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(digits)
}

impl FromStr for ProviderId {
    type Err = ResourceIdError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let rest = text
            .strip_prefix(PROVIDER_ID_PREFIX)
            .ok_or_else(|| not_a_node(text, "missing the azure:// prefix"))?;
        let id: ResourceId = rest
            .parse()
            .map_err(|_| not_a_node(text, "not an ARM id"))?;
        let provider_id = ProviderId { id };
        provider_id.check()?;
        Ok(provider_id)
    }
}

impl fmt::Display for ProviderId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{PROVIDER_ID_PREFIX}{}", self.id)
    }
}

#[cfg(test)]
#[path = "resource_id_tests.rs"]
mod tests;
