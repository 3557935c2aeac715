//! Cross-resource references: extraction of the `{id}` references a document holds, the incoming-reference
//! index, the read-only back-reference fields NRP/CRP derive from it (pool `backendIPConfigurations`, PIP
//! `ipConfiguration`, subnet `ipConfigurations`, ...), and the in-use errors that block deletes.

use crate::error::ArmError;
use crate::error_codes;
use crate::id::{key_of, last_name, parent_of};
use crate::kinds::KindId;
use serde_json::{Value, json};
use std::collections::BTreeMap;

pub(crate) use crate::ref_index::RefIndex;

/// What a reference means; decides the back-reference field and the in-use error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum RefKind {
    /// NIC ipconfig → LB backend pool.
    PoolMember,
    /// NIC ipconfig → LB inbound NAT rule.
    NatRuleMember,
    /// NIC ipconfig / LB frontend / PLS ipconfig / VMSS model → subnet.
    SubnetUser,
    /// NIC ipconfig / LB frontend → public IP.
    PipUser,
    /// Public IP → public IP prefix it takes its address from.
    PipOfPrefix,
    /// NIC → NSG.
    NsgOfNic,
    /// Subnet → NSG.
    NsgOfSubnet,
    /// Subnet → route table.
    RouteTableOfSubnet,
    /// VM → NIC.
    VmOfNic,
    /// VM → availability set.
    VmOfAvailabilitySet,
    /// Flexible VM → scale set.
    VmOfScaleSet,
    /// VMSS model ipconfig → LB pool (or NAT pool / probe).
    ScaleSetModel,
    /// PLS → LB frontend.
    PlsFrontend,
    /// PLS → the NIC NRP created for it.
    PlsNic,
    /// LB rule → frontend / pool / probe (same LB).
    LbRule,
    /// LB outbound rule → frontend / pool (same LB).
    LbOutboundRule,
    /// LB inbound NAT rule → frontend (same LB).
    LbNatRule,
}

/// One reference held by a document.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Ref {
    /// Display id of the referencing object (the NIC ipconfig, the subnet, the rule...).
    pub from: String,
    /// Referenced id as written by the client.
    pub to: String,
    /// Meaning.
    pub kind: RefKind,
}

fn ref_id(v: Option<&Value>) -> Option<String> {
    v?.get("id")?.as_str().map(String::from)
}

fn each_child<'a>(doc: &'a Value, coll: &str) -> impl Iterator<Item = &'a Value> {
    doc.pointer(&format!("/properties/{coll}"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn child_id(c: &Value) -> String {
    c.get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn push(out: &mut Vec<Ref>, from: &str, to: Option<String>, kind: RefKind) {
    if let Some(to) = to.filter(|t| !t.is_empty()) {
        out.push(Ref {
            from: from.to_string(),
            to,
            kind,
        });
    }
}

fn nic_ipconfig_refs(out: &mut Vec<Ref>, ipc: &Value) {
    let from = child_id(ipc);
    let p = ipc.get("properties");
    push(
        out,
        &from,
        ref_id(p.and_then(|p| p.get("subnet"))),
        RefKind::SubnetUser,
    );
    push(
        out,
        &from,
        ref_id(p.and_then(|p| p.get("publicIPAddress"))),
        RefKind::PipUser,
    );
    for pool in p
        .and_then(|p| p.get("loadBalancerBackendAddressPools"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        push(out, &from, ref_id(Some(pool)), RefKind::PoolMember);
    }
    for rule in p
        .and_then(|p| p.get("loadBalancerInboundNatRules"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        push(out, &from, ref_id(Some(rule)), RefKind::NatRuleMember);
    }
}

/// Extracts every reference a stored document holds.
pub(crate) fn extract(kind: KindId, doc: &Value) -> Vec<Ref> {
    let mut out = Vec::new();
    let id = doc
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let props = doc.get("properties");
    match kind {
        KindId::Nic | KindId::VmssNic => {
            push(
                &mut out,
                &id,
                ref_id(props.and_then(|p| p.get("networkSecurityGroup"))),
                RefKind::NsgOfNic,
            );
            for ipc in each_child(doc, "ipConfigurations") {
                nic_ipconfig_refs(&mut out, ipc);
            }
        }
        KindId::PublicIp => push(
            &mut out,
            &id,
            ref_id(props.and_then(|p| p.get("publicIPPrefix"))),
            RefKind::PipOfPrefix,
        ),
        KindId::Vnet => {
            for s in each_child(doc, "subnets") {
                let from = child_id(s);
                let p = s.get("properties");
                push(
                    &mut out,
                    &from,
                    ref_id(p.and_then(|p| p.get("networkSecurityGroup"))),
                    RefKind::NsgOfSubnet,
                );
                push(
                    &mut out,
                    &from,
                    ref_id(p.and_then(|p| p.get("routeTable"))),
                    RefKind::RouteTableOfSubnet,
                );
            }
        }
        KindId::LoadBalancer => {
            for fe in each_child(doc, "frontendIPConfigurations") {
                let from = child_id(fe);
                let p = fe.get("properties");
                push(
                    &mut out,
                    &from,
                    ref_id(p.and_then(|p| p.get("publicIPAddress"))),
                    RefKind::PipUser,
                );
                push(
                    &mut out,
                    &from,
                    ref_id(p.and_then(|p| p.get("subnet"))),
                    RefKind::SubnetUser,
                );
            }
            for r in each_child(doc, "loadBalancingRules") {
                let from = child_id(r);
                let p = r.get("properties");
                push(
                    &mut out,
                    &from,
                    ref_id(p.and_then(|p| p.get("frontendIPConfiguration"))),
                    RefKind::LbRule,
                );
                push(
                    &mut out,
                    &from,
                    ref_id(p.and_then(|p| p.get("backendAddressPool"))),
                    RefKind::LbRule,
                );
                push(
                    &mut out,
                    &from,
                    ref_id(p.and_then(|p| p.get("probe"))),
                    RefKind::LbRule,
                );
                for pool in p
                    .and_then(|p| p.get("backendAddressPools"))
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let to = ref_id(Some(pool));
                    if to.as_deref().map(key_of)
                        != ref_id(p.and_then(|p| p.get("backendAddressPool")))
                            .as_deref()
                            .map(key_of)
                    {
                        push(&mut out, &from, to, RefKind::LbRule);
                    }
                }
            }
            for r in each_child(doc, "outboundRules") {
                let from = child_id(r);
                let p = r.get("properties");
                push(
                    &mut out,
                    &from,
                    ref_id(p.and_then(|p| p.get("backendAddressPool"))),
                    RefKind::LbOutboundRule,
                );
                for fe in p
                    .and_then(|p| p.get("frontendIPConfigurations"))
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    push(&mut out, &from, ref_id(Some(fe)), RefKind::LbOutboundRule);
                }
            }
            for r in each_child(doc, "inboundNatRules") {
                let from = child_id(r);
                push(
                    &mut out,
                    &from,
                    ref_id(r.pointer("/properties/frontendIPConfiguration")),
                    RefKind::LbNatRule,
                );
                push(
                    &mut out,
                    &from,
                    ref_id(r.pointer("/properties/backendAddressPool")),
                    RefKind::LbNatRule,
                );
            }
        }
        KindId::PrivateLinkService => {
            for fe in props
                .and_then(|p| p.get("loadBalancerFrontendIpConfigurations"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                push(&mut out, &id, ref_id(Some(fe)), RefKind::PlsFrontend);
            }
            for nic in props
                .and_then(|p| p.get("networkInterfaces"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                push(&mut out, &id, ref_id(Some(nic)), RefKind::PlsNic);
            }
            for ipc in props
                .and_then(|p| p.get("ipConfigurations"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                push(
                    &mut out,
                    &id,
                    ref_id(ipc.pointer("/properties/subnet")),
                    RefKind::SubnetUser,
                );
            }
        }
        KindId::Vm => {
            for nic in props
                .and_then(|p| p.pointer("/networkProfile/networkInterfaces"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                push(&mut out, &id, ref_id(Some(nic)), RefKind::VmOfNic);
            }
            push(
                &mut out,
                &id,
                ref_id(props.and_then(|p| p.get("availabilitySet"))),
                RefKind::VmOfAvailabilitySet,
            );
            push(
                &mut out,
                &id,
                ref_id(props.and_then(|p| p.get("virtualMachineScaleSet"))),
                RefKind::VmOfScaleSet,
            );
        }
        KindId::Vmss => {
            let nics = props.and_then(|p| {
                p.pointer("/virtualMachineProfile/networkProfile/networkInterfaceConfigurations")
            });
            for nic in nics.and_then(Value::as_array).into_iter().flatten() {
                push(
                    &mut out,
                    &id,
                    ref_id(nic.pointer("/properties/networkSecurityGroup")),
                    RefKind::ScaleSetModel,
                );
                for ipc in nic
                    .pointer("/properties/ipConfigurations")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let p = ipc.get("properties");
                    push(
                        &mut out,
                        &id,
                        ref_id(p.and_then(|p| p.get("subnet"))),
                        RefKind::SubnetUser,
                    );
                    for field in [
                        "loadBalancerBackendAddressPools",
                        "loadBalancerInboundNatPools",
                    ] {
                        for pool in p
                            .and_then(|p| p.get(field))
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                        {
                            push(&mut out, &id, ref_id(Some(pool)), RefKind::ScaleSetModel);
                        }
                    }
                }
            }
            push(
                &mut out,
                &id,
                ref_id(
                    props.and_then(|p| {
                        p.pointer("/virtualMachineProfile/networkProfile/healthProbe")
                    }),
                ),
                RefKind::ScaleSetModel,
            );
        }
        _ => {}
    }
    out
}

/// The read-only back-reference fields a target of the given collection type carries, with the reference
/// kinds that feed each and whether the field is a single `{id}` rather than an array.
pub(crate) fn backref_fields(target_type: &str) -> &'static [BackrefField] {
    match target_type {
        "backendaddresspools" => &[
            ("backendIPConfigurations", &[RefKind::PoolMember], false),
            ("loadBalancingRules", &[RefKind::LbRule], false),
            ("outboundRules", &[RefKind::LbOutboundRule], false),
        ],
        "frontendipconfigurations" => &[
            ("loadBalancingRules", &[RefKind::LbRule], false),
            ("outboundRules", &[RefKind::LbOutboundRule], false),
            ("inboundNatRules", &[RefKind::LbNatRule], false),
        ],
        "probes" => &[("loadBalancingRules", &[RefKind::LbRule], false)],
        "inboundnatrules" => &[("backendIPConfiguration", &[RefKind::NatRuleMember], true)],
        "subnets" => &[("ipConfigurations", &[RefKind::SubnetUser], false)],
        "publicipaddresses" => &[("ipConfiguration", &[RefKind::PipUser], true)],
        "publicipprefixes" => &[("publicIPAddresses", &[RefKind::PipOfPrefix], false)],
        "networksecuritygroups" => &[
            ("networkInterfaces", &[RefKind::NsgOfNic], false),
            ("subnets", &[RefKind::NsgOfSubnet], false),
        ],
        "routetables" => &[("subnets", &[RefKind::RouteTableOfSubnet], false)],
        "networkinterfaces" => &[
            ("virtualMachine", &[RefKind::VmOfNic], true),
            ("privateLinkService", &[RefKind::PlsNic], true),
        ],
        "availabilitysets" => &[("virtualMachines", &[RefKind::VmOfAvailabilitySet], false)],
        _ => &[],
    }
}

/// Back-reference fields shown as `[]` when nothing references the target: an availability set's
/// `virtualMachines` (issue 9's comparison with CRP; no public empty-set answer shows it, so [infer]).
fn listed_when_empty(field: &str) -> bool {
    field == "virtualMachines"
}

/// Type segment preceding the last name of an id, lower-cased.
pub(crate) fn collection_of(key: &str) -> String {
    let trimmed = key.trim_end_matches('/');
    let mut it = trimmed.rsplit('/');
    it.next();
    it.next().unwrap_or("").to_ascii_lowercase()
}

/// One read-only back-reference field: its name, the reference kinds that feed it, and whether it is a single
/// `{id}` rather than an array.
pub(crate) type BackrefField = (&'static str, &'static [RefKind], bool);

/// `true` when a reference is listed in the back-reference field fed by `kinds`. Subnet `ipConfigurations`
/// lists only NIC ipconfigs and LB frontends, like NRP (private link services and scale-set models are not listed).
fn listed(r: &Ref, kinds: &[RefKind]) -> bool {
    if !kinds.contains(&r.kind) {
        return false;
    }
    if r.kind != RefKind::SubnetUser {
        return true;
    }
    let from = r.from.to_ascii_lowercase();
    from.contains("/ipconfigurations/") || from.contains("/frontendipconfigurations/")
}

/// Writes the back-reference fields of `obj` (the object named `target_key`) from the index.
pub(crate) fn apply_backrefs(obj: &mut Value, target_key: &str, index: &RefIndex) {
    for field in backref_fields(&collection_of(target_key)) {
        apply_backref_field(obj, target_key, field, index);
    }
}

/// Rebuilds one back-reference field of `obj` from every reference to `target_key`; `true` if it changed.
pub(crate) fn apply_backref_field(
    obj: &mut Value,
    target_key: &str,
    (field, kinds, single): &BackrefField,
    index: &RefIndex,
) -> bool {
    let Some(props) = obj.get_mut("properties").and_then(Value::as_object_mut) else {
        return false;
    };
    // Keyed by lower-cased id: case-insensitive dedup (first spelling wins) and the stored order in one pass,
    // so a frontend that 1500 rules use costs n log n, not n².
    let mut by_key: BTreeMap<String, &str> = BTreeMap::new();
    for (_, r) in index.incoming(target_key) {
        if listed(r, kinds) {
            by_key.entry(r.from.to_ascii_lowercase()).or_insert(&r.from);
        }
    }
    let ids: Vec<&str> = by_key.into_values().collect();
    let new = if ids.is_empty() {
        listed_when_empty(field).then(|| json!([]))
    } else if *single {
        Some(json!({ "id": ids[0] }))
    } else {
        Some(Value::Array(
            ids.iter().map(|i| json!({ "id": i })).collect(),
        ))
    };
    if props.get(*field) == new.as_ref() {
        return false;
    }
    match new {
        Some(v) => props.insert((*field).to_string(), v),
        None => props.remove(*field),
    };
    true
}

/// Brings the entry for `from` in one back-reference field of `obj` in line with the index after references
/// held by `from` were added or removed; `true` if the field changed. Array fields are kept sorted by
/// lower-cased id, so this costs a binary search instead of a rebuild of every member.
pub(crate) fn sync_backref_member(
    obj: &mut Value,
    target_key: &str,
    spec: &BackrefField,
    from: &str,
    index: &RefIndex,
) -> bool {
    let (field, kinds, single) = spec;
    if *single {
        return apply_backref_field(obj, target_key, spec, index);
    }
    let Some(props) = obj.get_mut("properties").and_then(Value::as_object_mut) else {
        return false;
    };
    let listed_ref = index
        .incoming_from(target_key, from)
        .map(|(_, r)| r)
        .find(|r| listed(r, kinds));
    let want = from.to_ascii_lowercase();
    let position = |arr: &[Value]| {
        arr.binary_search_by(|m| {
            m.get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_ascii_lowercase()
                .cmp(&want)
        })
    };
    match (
        listed_ref,
        props.get_mut(*field).and_then(Value::as_array_mut),
    ) {
        (Some(r), Some(arr)) => match position(arr) {
            Ok(_) => false,
            Err(i) => {
                arr.insert(i, json!({ "id": r.from }));
                true
            }
        },
        (Some(r), None) => {
            props.insert((*field).to_string(), json!([{ "id": r.from }]));
            true
        }
        (None, Some(arr)) => match position(arr) {
            Ok(i) => {
                arr.remove(i);
                if arr.is_empty() && !listed_when_empty(field) {
                    props.remove(*field);
                }
                true
            }
            Err(_) => false,
        },
        (None, None) => false,
    }
}

/// Removes the back-reference fields a client may have echoed back in a PUT body (they are read-only).
pub(crate) fn strip_backrefs(obj: &mut Value, target_type: &str) {
    if let Some(props) = obj.get_mut("properties").and_then(Value::as_object_mut) {
        for (field, _, _) in backref_fields(target_type) {
            props.remove(*field);
        }
    }
}

/// The error a delete (or a removal inside a parent PUT) gets when `target` is still referenced by `users`.
pub(crate) fn in_use_error(target: &str, users: &[&Ref]) -> ArmError {
    let first = users[0];
    let user = first.from.as_str();
    let scale_set = users.iter().find(|u| u.kind == RefKind::ScaleSetModel);
    match (collection_of(&key_of(target)).as_str(), first.kind) {
        // Verified: code and wording from the AKS troubleshooting article for this code (the article shows the
        // AKS-wrapped 409; NRP answers 400 like LoadBalancerInUseByVirtualMachineScaleSet [infer]).
        ("networksecuritygroups", _) if scale_set.is_some() => ArmError::nrp(
            error_codes::NETWORK_SECURITY_GROUP_IN_USE_BY_VMSS,
            format!(
                "Cannot delete network security group {target} since it is in use by virtual machine scale set {}.",
                scale_set.map(|u| u.from.as_str()).unwrap_or_default()
            ),
        ),
        // Verified: 400 with this wording (packer and terraform logs of NRP answers).
        ("publicipaddresses", _) => ArmError::nrp(
            error_codes::PUBLIC_IP_ADDRESS_CANNOT_BE_DELETED,
            format!(
                "Public IP address {target} can not be deleted since it is still allocated to resource {user}. In order to delete the public IP, disassociate/detach the Public IP address from the resource.  To learn how to do this, see aka.ms/deletepublicip."
            ),
        ),
        // Code verified (Azure/kube-egress-gateway PR #1223 quotes it for a prefix whose public IPs remain); status
        // 400 and wording [infer].
        ("publicipprefixes", _) => {
            let list: Vec<&str> = users.iter().map(|u| u.from.as_str()).collect();
            ArmError::nrp(
                error_codes::IN_USE_PUBLIC_IP_PREFIX_CANNOT_BE_DELETED,
                format!(
                    "Public IP prefix {target} cannot be deleted because it is in use by the following public IP addresses: {}. Delete the public IP addresses first.",
                    list.join(", ")
                ),
            )
        }
        // Verified: 400 with this wording (terraform logs; an azure-sdk-for-net test fixture).
        ("networksecuritygroups", _) => {
            let list: Vec<&str> = users.iter().map(|u| u.from.as_str()).collect();
            ArmError::nrp(
                error_codes::IN_USE_NETWORK_SECURITY_GROUP_CANNOT_BE_DELETED,
                format!(
                    "Network security group {target} cannot be deleted because it is in use by the following resources: {}. In order to delete the Network security group, remove the association with the resource(s). To learn how to do this, see https://aka.ms/deletensg.",
                    list.join(", ")
                ),
            )
        }
        // Verified: 400 with this wording (packer/terraform logs of NRP answers).
        ("subnets", _) => ArmError::nrp(
            error_codes::IN_USE_SUBNET_CANNOT_BE_DELETED,
            format!(
                "Subnet {} is in use by {user} and cannot be deleted. In order to delete the subnet, delete all the resources within the subnet. See aka.ms/deletesubnet.",
                last_name(target)
            ),
        ),
        // Verified: 400 with this wording (terraform log of the NRP answer; the message names only the table).
        ("routetables", _) => ArmError::nrp(
            error_codes::IN_USE_ROUTE_TABLE_CANNOT_BE_DELETED,
            format!(
                "Route table {} is in use and cannot be deleted.",
                last_name(target)
            ),
        ),
        // Verified: 400 with this wording (packer and terraform logs of NRP answers).
        ("networkinterfaces", _) => ArmError::nrp(
            error_codes::NIC_IN_USE,
            format!(
                "Network Interface {target} is used by existing resource {user}. In order to delete the network interface, it must be dissociated from the resource. To learn more, see aka.ms/deletenic."
            ),
        ),
        // [unverified] code, status and wording (availability set and scale set still holding VMs).
        ("availabilitysets", _) => ArmError::new(
            error_codes::OPERATION_NOT_ALLOWED,
            format!(
                "Availability Set '{}' cannot be deleted. Before deleting an Availability Set please ensure that it does not contain any VM.",
                last_name(target)
            ),
        ),
        ("virtualmachinescalesets", _) => ArmError::new(
            error_codes::OPERATION_NOT_ALLOWED,
            format!(
                "Virtual Machine Scale Set '{}' cannot be deleted because it still contains virtual machine {user}.",
                last_name(target)
            ),
        ),
        // [unverified] code and wording for the pool-removal cases below.
        (_, RefKind::ScaleSetModel) => ArmError::nrp(
            error_codes::LOAD_BALANCER_POOL_IN_USE_BY_VMSS,
            format!(
                "Cannot remove backend address pool {} from load balancer since it is in use by virtual machine scale set {user}.",
                last_name(target)
            ),
        ),
        (_, RefKind::PlsFrontend) => ArmError::nrp(
            error_codes::LOAD_BALANCER_FRONTEND_IN_USE_BY_PLS,
            format!(
                "Frontend IP configuration {target} cannot be deleted because it is in use by private link service {user}."
            ),
        ),
        (_, RefKind::PoolMember) | (_, RefKind::NatRuleMember) => ArmError::nrp(
            error_codes::LOAD_BALANCER_IN_USE_BY_NETWORK_INTERFACE,
            format!(
                "Load balancer child resource {target} cannot be deleted because it is referenced by network interface IP configuration {user}. Remove the reference from the network interface first."
            ),
        ),
        _ => ArmError::nrp(
            error_codes::RESOURCE_IN_USE,
            format!("Resource {target} cannot be deleted because it is referenced by {user}."),
        ),
    }
}

/// The error a whole-LB delete gets when a private link service uses one of its frontends. Verified: 400
/// CannotDeleteLoadBalancerWithPrivateLinkService with this wording (AKS troubleshooting article).
pub(crate) fn lb_in_use_by_pls(lb_id: &str, pls: &str) -> ArmError {
    ArmError::nrp(
        error_codes::CANNOT_DELETE_LOAD_BALANCER_WITH_PLS,
        format!(
            "Cannot delete load balancer {lb_id} since it is referenced by private link service {pls}. Please delete private link service prior to deleting load balancer."
        ),
    )
}

/// The error a whole-LB delete gets when a scale set model still references its children. Verified: 400 with
/// this wording (AzLoadBalancerMigration troubleshooting guide quoting the PowerShell error; the CCM's
/// `LBInUseRawError` fixture); cloud-provider-azure parses the scale-set id out of it.
pub(crate) fn lb_in_use_by_vmss(lb_id: &str, children: &[String], vmss: &str) -> ArmError {
    ArmError::nrp(
        error_codes::LOAD_BALANCER_IN_USE_BY_VMSS,
        format!(
            "Cannot delete load balancer {lb_id} since its child resources {} are in use by virtual machine scale set {vmss}.",
            children.join(", ")
        ),
    )
}

/// `true` when `from` (an id) is owned by the entry `owner_key` or its children.
pub(crate) fn owned_by(from: &str, owner_key: &str) -> bool {
    let k = key_of(from);
    k == owner_key || k.starts_with(&format!("{owner_key}/"))
}

/// The parent id of a child id, used to find the owning LB of a pool.
pub(crate) fn parent_key(id: &str) -> String {
    key_of(parent_of(id).unwrap_or(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nic_refs_feed_pool_backrefs() {
        let nic = json!({"id":"/s/n","properties":{"ipConfigurations":[{"id":"/s/n/ipConfigurations/ip","properties":{
            "loadBalancerBackendAddressPools":[{"id":"/x/lb/backendAddressPools/p"}],"subnet":{"id":"/x/v/subnets/s"}}}]}});
        let refs = extract(KindId::Nic, &nic);
        assert_eq!(refs.len(), 2);
        let mut idx = RefIndex::default();
        idx.add("/s/n", &refs);
        let mut pool = json!({"properties":{}});
        apply_backrefs(&mut pool, "/x/lb/backendaddresspools/p", &idx);
        assert_eq!(
            pool["properties"]["backendIPConfigurations"],
            json!([{"id":"/s/n/ipConfigurations/ip"}])
        );
        idx.remove_owner("/s/n");
        apply_backrefs(&mut pool, "/x/lb/backendaddresspools/p", &idx);
        assert!(pool["properties"].get("backendIPConfigurations").is_none());
    }
}
