//! Seeding: turns a validated [`Plan`] into ARM resources through [`ArmState`] (so every fake-ARM
//! validation applies), sets instance views (fault/update domains, power states) as platform events, and
//! reads the result back into a [`SeededCloud`].

use super::documents::{self as doc, ScaleSetBody, VmBody};
use super::error::TopologyError;
use super::lookup::{nic_addresses, public_ip_address};
use super::naming::{
    provider_id, resource_id, rg_id, system_identity_client_id, system_identity_principal_id,
};
use super::plan::*;
use super::seeded::{NodeKind, SeededCloud, SeededIdentity, SeededNode};
use super::spec::OrchestrationMode;
use crate::entra::{self, ClientSecret, Registry};
use fake_arm::ArmState;
use serde_json::{Value, json};
use std::net::IpAddr;

/// Creates every resource of `plan` in `arm` and reports the nodes and identities it made.
pub fn seed(plan: &Plan, arm: &ArmState) -> Result<SeededCloud, TopologyError> {
    let s = Seeder {
        plan,
        arm,
        sub: &plan.subscription_id,
        loc: &plan.location,
    };
    let registry = registry(plan)?;
    s.groups()?;
    let (nsg_id, rt_id) = s.network_guards()?;
    s.vnet(nsg_id.as_deref(), rt_id.as_deref())?;
    s.load_balancers()?;
    for pip in &plan.public_ips {
        s.public_ip(pip)?;
    }
    for a in &plan.availability_sets {
        let id = s.id("Microsoft.Compute/availabilitySets", &a.name);
        s.put(
            &id,
            doc::availability_set(s.loc, a.fault_domains, a.update_domains, &a.tags),
        )?;
    }
    let mut identities = Vec::new();
    // Flexible scale sets must exist before their member VMs; uniform ones come after every VM so the
    // addresses NRP allocates dynamically to their instances never take an address the plan pinned.
    for set in plan
        .scale_sets
        .iter()
        .filter(|x| x.mode == OrchestrationMode::Flexible)
    {
        s.scale_set(set, &mut identities)?;
    }
    let mut nodes = Vec::new();
    for vm in &plan.vms {
        nodes.push(s.vm(vm, &mut identities)?);
    }
    for set in plan
        .scale_sets
        .iter()
        .filter(|x| x.mode == OrchestrationMode::Uniform)
    {
        s.scale_set(set, &mut identities)?;
        nodes.extend(s.uniform_instances(set)?);
    }
    Ok(SeededCloud {
        subscription_id: plan.subscription_id.clone(),
        tenant_id: plan.tenant_id.clone(),
        location: plan.location.clone(),
        resource_group: plan.node_rg.name.clone(),
        vnet_resource_group: plan.vnet_rg_name().to_string(),
        vnet_name: plan.vnet.name.clone(),
        subnet_name: plan
            .vnet
            .subnets
            .first()
            .map(|x| x.name.clone())
            .unwrap_or_default(),
        security_group_name: plan.nsg.clone(),
        route_table_name: plan.route_table.clone(),
        nodes,
        registry,
        managed_identities: identities,
    })
}

/// App registrations of the plan as the fake Entra ID stores them (secrets hashed, certificates read).
fn registry(plan: &Plan) -> Result<Registry, TopologyError> {
    let mut registry = Registry::default();
    let tenant = registry.tenant_mut(&plan.tenant_id);
    for app in &plan.apps {
        let mut certificates = Vec::new();
        if let Some(path) = &app.certificate_path {
            let pem = std::fs::read_to_string(path).map_err(|source| TopologyError::Read {
                file: path.display().to_string(),
                source,
            })?;
            certificates.push(pem);
        }
        tenant.apps.push(entra::AppRegistration {
            client_id: app.client_id.clone(),
            object_id: None,
            display_name: Some(app.name.clone()),
            secrets: app
                .secret
                .iter()
                .map(|x| ClientSecret::from_plain(x))
                .collect(),
            certificates,
            federated_credentials: app
                .federated_credentials
                .iter()
                .enumerate()
                .map(|(i, f)| entra::FederatedCredential {
                    name: format!("{}-federated-{i}", app.name),
                    issuer: f.issuer.clone(),
                    subject: f.subject.clone(),
                    audiences: f.audiences.clone(),
                    issuer_keys: Vec::new(),
                })
                .collect(),
        });
    }
    Ok(registry)
}

struct Seeder<'a> {
    plan: &'a Plan,
    arm: &'a ArmState,
    sub: &'a str,
    loc: &'a str,
}

impl Seeder<'_> {
    fn id(&self, provider_type: &str, name: &str) -> String {
        resource_id(self.sub, &self.plan.node_rg.name, provider_type, name)
    }

    fn put(&self, id: &str, body: Value) -> Result<Value, TopologyError> {
        self.arm
            .put(id, body)
            .map_err(|e| TopologyError::seed(id, e))
    }

    fn get(&self, id: &str) -> Result<Value, TopologyError> {
        self.arm.get(id).map_err(|e| TopologyError::seed(id, e))
    }

    fn subnet_id(&self, index: usize) -> String {
        let vnet = resource_id(
            self.sub,
            self.plan.vnet_rg_name(),
            "Microsoft.Network/virtualNetworks",
            &self.plan.vnet.name,
        );
        format!("{vnet}/subnets/{}", self.plan.vnet.subnets[index].name)
    }

    fn pool_ids(&self, pools: &[PoolRef]) -> Vec<String> {
        pools
            .iter()
            .map(|p| {
                format!(
                    "{}/backendAddressPools/{}",
                    self.id("Microsoft.Network/loadBalancers", &p.lb),
                    p.pool
                )
            })
            .collect()
    }

    fn groups(&self) -> Result<(), TopologyError> {
        for g in std::iter::once(&self.plan.node_rg).chain(self.plan.vnet_rg.as_ref()) {
            self.put(
                &rg_id(self.sub, &g.name),
                doc::resource_group(self.loc, &g.tags),
            )?;
        }
        Ok(())
    }

    fn network_guards(&self) -> Result<(Option<String>, Option<String>), TopologyError> {
        let nsg = self.put_optional(
            "Microsoft.Network/networkSecurityGroups",
            self.plan.nsg.as_deref(),
            doc::security_group,
        )?;
        let rt = self.put_optional(
            "Microsoft.Network/routeTables",
            self.plan.route_table.as_deref(),
            doc::route_table,
        )?;
        Ok((nsg, rt))
    }

    /// Creates the node-group resource `name` of `provider_type` when the plan names one; its id.
    fn put_optional(
        &self,
        provider_type: &str,
        name: Option<&str>,
        body: fn(&str) -> Value,
    ) -> Result<Option<String>, TopologyError> {
        let Some(name) = name else {
            return Ok(None);
        };
        let id = self.id(provider_type, name);
        self.put(&id, body(self.loc))?;
        Ok(Some(id))
    }

    fn vnet(&self, nsg: Option<&str>, rt: Option<&str>) -> Result<(), TopologyError> {
        let v = &self.plan.vnet;
        let subnets = v
            .subnets
            .iter()
            .map(|s| {
                let mut prefixes = vec![s.v4.to_string()];
                prefixes.extend(s.v6.map(|p| p.to_string()));
                doc::subnet(&s.name, &prefixes, nsg, rt)
            })
            .collect();
        let space: Vec<String> = v.address_space.iter().map(ToString::to_string).collect();
        let id = resource_id(
            self.sub,
            self.plan.vnet_rg_name(),
            "Microsoft.Network/virtualNetworks",
            &v.name,
        );
        self.put(&id, doc::vnet(self.loc, &space, subnets))
            .map(|_| ())
    }

    fn public_ip(&self, p: &PublicIpPlan) -> Result<String, TopologyError> {
        let id = self.id("Microsoft.Network/publicIPAddresses", &p.name);
        self.put(&id, doc::public_ip(self.loc, p.sku, p.address))?;
        Ok(id)
    }

    fn load_balancers(&self) -> Result<(), TopologyError> {
        for lb in &self.plan.load_balancers {
            let lb_id = self.id("Microsoft.Network/loadBalancers", &lb.name);
            let mut frontends = Vec::new();
            for fe in &lb.frontends {
                let props = match (&fe.public_ip, fe.subnet) {
                    (Some(p), _) => json!({ "publicIPAddress": doc::sub(&self.public_ip(p)?) }),
                    (None, Some(subnet)) => json!({
                        "subnet": doc::sub(&self.subnet_id(subnet)),
                        "privateIPAllocationMethod": if fe.private_ip.is_some() { "Static" } else { "Dynamic" },
                        "privateIPAddress": fe.private_ip.map(|ip| ip.to_string()),
                        "privateIPAddressVersion": "IPv4"
                    }),
                    (None, None) => json!({}),
                };
                frontends.push(json!({ "name": fe.name, "properties": props }));
            }
            let outbound: Vec<Value> = lb
                .outbound_rules
                .iter()
                .map(|o| {
                    json!({ "name": o.name, "properties": {
                        "frontendIPConfigurations": o.frontends.iter().map(|f| doc::sub(&format!("{lb_id}/frontendIPConfigurations/{f}"))).collect::<Vec<_>>(),
                        "backendAddressPool": doc::sub(&format!("{lb_id}/backendAddressPools/{}", o.pool)),
                        "protocol": o.protocol.as_str(),
                        "allocatedOutboundPorts": o.allocated_outbound_ports,
                        "idleTimeoutInMinutes": 30,
                        "enableTcpReset": true
                    } })
                })
                .collect();
            let body = json!({
                "location": self.loc,
                "sku": { "name": lb.sku.as_str(), "tier": "Regional" },
                "properties": {
                    "frontendIPConfigurations": frontends,
                    "backendAddressPools": lb.pools.iter().map(|p| json!({ "name": p })).collect::<Vec<_>>(),
                    "loadBalancingRules": [], "probes": [], "inboundNatRules": [],
                    "outboundRules": outbound
                }
            });
            self.put(&lb_id, body)?;
        }
        Ok(())
    }

    /// The `identity` block for `owner_id` and records the identities it grants.
    fn identity(
        &self,
        owner_id: &str,
        ip: &IdentityPlan,
        out: &mut Vec<SeededIdentity>,
    ) -> Option<Value> {
        let system = ip.system_assigned.then(|| {
            let seeded = SeededIdentity {
                resource_id: owner_id.to_string(),
                client_id: system_identity_client_id(owner_id),
                principal_id: system_identity_principal_id(owner_id),
                system_assigned: true,
            };
            let principal = seeded.principal_id.clone();
            out.push(seeded);
            principal
        });
        let users: Vec<(String, String, String)> = ip
            .user_assigned
            .iter()
            .filter_map(|i| self.plan.identities.get(*i))
            .map(|m| {
                if !out
                    .iter()
                    .any(|x| x.resource_id.eq_ignore_ascii_case(&m.resource_id))
                {
                    out.push(SeededIdentity {
                        resource_id: m.resource_id.clone(),
                        client_id: m.client_id.clone(),
                        principal_id: m.principal_id.clone(),
                        system_assigned: false,
                    });
                }
                (
                    m.resource_id.clone(),
                    m.client_id.clone(),
                    m.principal_id.clone(),
                )
            })
            .collect();
        doc::identity(&self.plan.tenant_id, system.as_deref(), &users)
    }

    fn scale_set(
        &self,
        set: &ScaleSetPlan,
        identities: &mut Vec<SeededIdentity>,
    ) -> Result<(), TopologyError> {
        let id = self.id("Microsoft.Compute/virtualMachineScaleSets", &set.name);
        let body = ScaleSetBody {
            location: self.loc,
            name: &set.name,
            mode: set.mode.as_str(),
            size: &set.size,
            capacity: (set.mode == OrchestrationMode::Uniform).then_some(set.instances),
            computer_name_prefix: &set.computer_name_prefix,
            os_type: set.os_type,
            zones: &set.zones,
            fault_domain_count: set.fault_domain_count,
            subnet_id: &self.subnet_id(set.subnet),
            pool_ids: &self.pool_ids(&set.pools),
            dual_stack: self
                .plan
                .vnet
                .subnets
                .get(set.subnet)
                .is_some_and(|s| s.v6.is_some()),
            tags: &set.tags,
            identity: self.identity(&id, &set.identity, identities),
        };
        self.put(&id, doc::scale_set(&body)).map(|_| ())
    }

    fn vm(
        &self,
        vm: &VmPlan,
        identities: &mut Vec<SeededIdentity>,
    ) -> Result<SeededNode, TopologyError> {
        let vm_id = self.id("Microsoft.Compute/virtualMachines", &vm.name);
        let pip_id = vm
            .public_ip
            .as_ref()
            .map(|p| self.public_ip(p))
            .transpose()?;
        let nic_id = self.id(
            "Microsoft.Network/networkInterfaces",
            &format!("{}-nic", vm.name),
        );
        let subnet_id = self.subnet_id(vm.subnet);
        let mut nic = doc::nic(
            self.loc,
            &subnet_id,
            Some(vm.ipv4),
            pip_id.as_deref(),
            &self.pool_ids(&vm.pools),
        );
        if let Some(ipv6) = vm.ipv6 {
            nic = doc::with_ipv6(nic, &subnet_id, ipv6);
        }
        self.put(&nic_id, nic)?;
        let avset_id = vm
            .availability_set
            .as_ref()
            .map(|a| self.id("Microsoft.Compute/availabilitySets", a));
        let vmss_id = vm
            .scale_set
            .as_ref()
            .map(|s| self.id("Microsoft.Compute/virtualMachineScaleSets", s));
        let body = VmBody {
            location: self.loc,
            name: &vm.name,
            size: &vm.size,
            computer_name: &vm.computer_name,
            os_type: vm.os_type,
            nic_id: &nic_id,
            zone: vm.zone,
            fault_domain: vm.scale_set.as_ref().map(|_| vm.fault_domain),
            availability_set_id: avset_id.as_deref(),
            scale_set_id: vmss_id.as_deref(),
            tags: &vm.tags,
            identity: self.identity(&vm_id, &vm.identity, identities),
        };
        self.put(&vm_id, doc::vm(&body))?;
        self.platform_view(&vm_id, vm.fault_domain, vm.update_domain, vm.power_state)?;
        let (private_ips, public_ip) = self.addresses(&nic_id)?;
        Ok(SeededNode {
            node_name: vm.computer_name.to_ascii_lowercase(),
            computer_name: vm.computer_name.clone(),
            vm_name: vm.name.clone(),
            provider_id: provider_id(&vm_id),
            resource_id: vm_id,
            kind: if vm.scale_set.is_some() {
                NodeKind::VmssFlex
            } else {
                NodeKind::Standalone
            },
            scale_set: vm.scale_set.clone(),
            availability_set: vm.availability_set.clone(),
            zone: vm.zone,
            fault_domain: vm.fault_domain,
            vm_size: vm.size.clone(),
            private_ips,
            public_ip,
            power_state: doc::power_state_name(vm.power_state).to_string(),
        })
    }

    /// Instance-view facts CRP decides (fault/update domain) and the requested power state.
    fn platform_view(
        &self,
        vm_id: &str,
        fault_domain: u32,
        update_domain: u32,
        power: super::spec::PowerStateSpec,
    ) -> Result<(), TopologyError> {
        self.arm
            .modify_instance_view(vm_id, |iv| {
                iv["platformFaultDomain"] = json!(fault_domain);
                iv["platformUpdateDomain"] = json!(update_domain);
            })
            .map_err(|e| TopologyError::seed(vm_id, e))?;
        self.arm
            .set_power_state(vm_id, doc::power_state(power))
            .map_err(|e| TopologyError::seed(vm_id, e))
    }

    /// Private addresses (primary ipconfig first) and public address of a NIC, as ARM stored them.
    fn addresses(&self, nic_id: &str) -> Result<(Vec<IpAddr>, Option<IpAddr>), TopologyError> {
        let nic = self.get(nic_id)?;
        let (private, public_ids) = nic_addresses(&nic);
        let mut public = None;
        for pip in public_ids {
            public = public.or(public_ip_address(&self.get(pip)?));
        }
        Ok((private, public))
    }

    fn uniform_instances(&self, set: &ScaleSetPlan) -> Result<Vec<SeededNode>, TopologyError> {
        let vmss_id = self.id("Microsoft.Compute/virtualMachineScaleSets", &set.name);
        let collection = format!("{vmss_id}/virtualMachines");
        let instances = self
            .arm
            .list(&collection)
            .map_err(|e| TopologyError::seed(&collection, e))?;
        let mut nodes = Vec::new();
        for inst in instances {
            let id = inst["id"].as_str().unwrap_or_default().to_string();
            let index: u64 = inst["instanceId"]
                .as_str()
                .and_then(|s| s.parse().ok())
                .unwrap_or_default();
            let fault_domain = set.fault_domain_of(index);
            self.platform_view(&id, fault_domain, (index % 5) as u32, set.power_state)?;
            let computer_name = inst
                .pointer("/properties/osProfile/computerName")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let mut private_ips = Vec::new();
            let mut public_ip = None;
            if let Some(nic) = inst
                .pointer("/properties/networkProfile/networkInterfaces/0/id")
                .and_then(Value::as_str)
            {
                (private_ips, public_ip) = self.addresses(nic)?;
            }
            nodes.push(SeededNode {
                node_name: computer_name.to_ascii_lowercase(),
                computer_name,
                vm_name: inst["name"].as_str().unwrap_or_default().to_string(),
                provider_id: provider_id(&id),
                resource_id: id,
                kind: NodeKind::VmssUniform,
                scale_set: Some(set.name.clone()),
                availability_set: None,
                zone: inst
                    .pointer("/zones/0")
                    .and_then(Value::as_str)
                    .and_then(|z| z.parse().ok()),
                fault_domain,
                vm_size: set.size.clone(),
                private_ips,
                public_ip,
                power_state: doc::power_state_name(set.power_state).to_string(),
            });
        }
        Ok(nodes)
    }
}
