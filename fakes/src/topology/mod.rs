//! Topology seed files: the YAML a scenario uses to describe the fake cloud (subscription, tenant,
//! location, resource groups, VNet/subnets, NSG, route table, load balancers, availability sets,
//! standalone VMs, uniform and flexible scale sets, standalone public IPs, zones, fault domains, sizes,
//! power states, IPs, app registrations and managed identities), its validation into a [`Plan`], and
//! seeding of a [`fake_arm::ArmState`] from that plan.
//!
//! Loading never touches ARM: a file with any problem yields [`TopologyError`] naming the file, line,
//! field and accepted values, and nothing is created.

mod addressing;
mod checks;
mod cidr;
pub(crate) mod documents;
mod error;
pub mod lookup;
mod naming;
mod plan;
mod seed;
mod seeded;
mod spec;
mod validate;
mod validate_compute;

#[cfg(test)]
mod error_snapshots;
#[cfg(test)]
mod proptests;

pub use cidr::Cidr;
pub use error::{Problem, TopologyError};
pub use naming::{
    flex_vm_name, instance_computer_name, provider_id, resource_id, rg_id,
    system_identity_client_id, system_identity_principal_id,
};
pub use plan::*;
pub use seed::seed;
pub use seeded::{NodeKind, SeededCloud, SeededIdentity, SeededNode};
pub use spec::{CloudName, LbSku, OrchestrationMode, OsType, OutboundProtocol, PowerStateSpec};
pub use validate_compute::{DEFAULT_VM_SIZE, MAX_INSTANCES};

use std::path::Path;

/// Reads, parses and validates a topology file (relative certificate paths resolve against its directory).
pub fn load(path: &Path) -> Result<Plan, TopologyError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| TopologyError::Read {
        file: file.clone(),
        source,
    })?;
    let base = path.parent().map(|p| {
        if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        }
    });
    parse_and_validate(&text, &file, base)
}

/// Parses and validates topology text; `file_name` only labels errors (certificate files are not checked).
pub fn load_str(text: &str, file_name: &str) -> Result<Plan, TopologyError> {
    parse_and_validate(text, file_name, None)
}

fn parse_and_validate(text: &str, file: &str, base: Option<&Path>) -> Result<Plan, TopologyError> {
    let spec: spec::TopologySpec = serde_saphyr::from_str(text).map_err(|e| syntax(file, &e))?;
    validate::validate(&spec, base).map_err(|problems| TopologyError::Invalid {
        file: file.to_string(),
        problems,
    })
}

fn syntax(file: &str, e: &serde_saphyr::Error) -> TopologyError {
    let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
    let full = e.without_snippet().to_string();
    // The parser appends the position the error already carries; keep it once, as `file:line:column`.
    let suffix = format!(" at line {line}, column {column}");
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
    TopologyError::Syntax {
        file: file.to_string(),
        line,
        column,
        message,
    }
}
