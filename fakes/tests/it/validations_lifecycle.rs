//! Server-side validations through the real binary over HTTPS, about resource lifecycles: deletes
//! blocked while something references the resource, references to resources not in `Succeeded`,
//! scale-set instance ids and instances being deleted, and writes racing an operation in flight.
//! These run with the default `--lro-polls 1`, so each write stays in flight until polled.

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::{Session, topology_preamble};

const PIP: &str = "Microsoft.Network/publicIPAddresses";
const LB: &str = "Microsoft.Network/loadBalancers";
const NSG: &str = "Microsoft.Network/networkSecurityGroups";
const VMSS: &str = "Microsoft.Compute/virtualMachineScaleSets/pool-vmss";
const VMSS_RG: &str = "vmss-rg";

/// A uniform scale set behind the cluster LB, with the app the tests authenticate as.
fn vmss_topology() -> String {
    format!(
        "{}network:
  vnet:
    name: vmss-vnet
    addressSpace: [10.224.0.0/12]
    subnets:
      - name: vmss-subnet
        cidr: 10.224.0.0/16
  securityGroup: vmss-nsg
  routeTable: vmss-routetable
loadBalancers:
  - name: kubernetes
    frontends:
      - name: outbound
        publicIp: {{}}
    backendPools: [kubernetes]
    outboundRules:
      - name: aksOutboundRule
        frontends: [outbound]
        backendPool: kubernetes
scaleSets:
  - name: pool-vmss
    instances: 2
    backendPools: [kubernetes/kubernetes]
",
        topology_preamble(VMSS_RG)
    )
}

async fn vmss_session() -> Session {
    Session::with_topology(&vmss_topology(), VMSS_RG, &[]).await
}

fn pip_body() -> Value {
    json!({"location": "eastus", "sku": {"name": "Standard"},
        "properties": {"publicIPAllocationMethod": "Static"}})
}

fn public_lb(pip_id: &str) -> Value {
    json!({"location": "eastus", "sku": {"name": "Standard"}, "properties": {
        "frontendIPConfigurations": [{"name": "fe", "properties": {"publicIPAddress": {"id": pip_id}}}]}})
}

#[tokio::test]
async fn deletes_are_blocked_while_referenced() {
    let s = Session::small(&[]).await;
    let lb = s.id(&format!("{LB}/kubernetes"));
    let subnet = s.id("Microsoft.Network/virtualNetworks/k8s-vnet/subnets/k8s-subnet");
    let nsg = s.id(&format!("{NSG}/k8s-nsg"));
    let vm = s.id("Microsoft.Compute/virtualMachines/k8s-master-0");
    for (rest, code, names_user) in [
        (
            format!("{PIP}/k8s-outbound-pip"),
            "PublicIPAddressCannotBeDeleted",
            format!("{lb}/frontendIPConfigurations/outbound"),
        ),
        (
            "Microsoft.Network/virtualNetworks/k8s-vnet/subnets/k8s-subnet".to_string(),
            "InUseSubnetCannotBeDeleted",
            "/ipConfigurations/ipconfig1".to_string(),
        ),
        (
            format!("{NSG}/k8s-nsg"),
            "InUseNetworkSecurityGroupCannotBeDeleted",
            subnet.clone(),
        ),
        (
            "Microsoft.Network/routeTables/k8s-routetable".to_string(),
            "InUseRouteTableCannotBeDeleted",
            "k8s-routetable".to_string(),
        ),
        (
            "Microsoft.Network/networkInterfaces/k8s-master-0-nic".to_string(),
            "NicInUse",
            vm.clone(),
        ),
    ] {
        let id = s.id(&rest);
        let before = s.get(&id).await.body;
        let error = s.refused(Method::DELETE, &id, None, 400, code).await;
        assert!(
            error["message"].as_str().unwrap().contains(&names_user),
            "{code} names {names_user}: {error}"
        );
        let after = s.get(&id).await;
        assert_eq!(
            (after.status, after.body),
            (200, before),
            "{rest} unchanged"
        );
    }
    assert_eq!(
        s.get(&nsg).await.body["properties"]["provisioningState"],
        "Succeeded",
        "no delete left running"
    );
}

#[tokio::test]
async fn load_balancer_used_by_a_scale_set_cannot_be_deleted() {
    let s = vmss_session().await;
    let lb = s.id(&format!("{LB}/kubernetes"));
    let before = s.get(&lb).await.body;
    let error = s
        .refused(
            Method::DELETE,
            &lb,
            None,
            400,
            "LoadBalancerInUseByVirtualMachineScaleSet",
        )
        .await;
    let message = error["message"].as_str().unwrap();
    // cloud-provider-azure parses the scale set id out of this message.
    assert!(
        message.ends_with(&format!(
            "are in use by virtual machine scale set {}.",
            s.id(VMSS)
        )),
        "{message}"
    );
    assert_eq!(s.get(&lb).await.body, before, "LB unchanged");
}

#[tokio::test]
async fn references_to_resources_not_succeeded_are_retryable() {
    let s = Session::small(&[]).await;
    // Still being created: the PIP's operation has not been polled yet.
    let pip = s.id(&format!("{PIP}/new-pip"));
    let creating = s.send(Method::PUT, &pip, Some(pip_body())).await;
    assert_eq!(creating.status, 201);
    assert_eq!(creating.body["properties"]["provisioningState"], "Updating");
    let lb = s.id(&format!("{LB}/svc-lb"));
    let error = s
        .refused(
            Method::PUT,
            &lb,
            Some(public_lb(&pip)),
            429,
            "RetryableError",
        )
        .await;
    assert_eq!(
        error["details"][0]["code"], "ReferencedResourceNotProvisioned",
        "{error}"
    );
    assert!(
        error["details"][0]["message"]
            .as_str()
            .unwrap()
            .contains(&format!(
                "resource {pip} used by resource {lb} is not in Succeeded state"
            )),
        "{error}"
    );
    assert_eq!(s.get(&lb).await.status, 404, "nothing created");
    assert_eq!(s.settle(&creating).await["status"], "Succeeded");
    s.put_ok(&lb, public_lb(&pip)).await;

    // Being deleted.
    let doomed = s.id(&format!("{PIP}/doomed-pip"));
    s.put_ok(&doomed, pip_body()).await;
    let deleting = s.send(Method::DELETE, &doomed, None).await;
    assert_eq!(deleting.status, 202);
    let other = s.id(&format!("{LB}/other-lb"));
    let error = s
        .refused(
            Method::PUT,
            &other,
            Some(public_lb(&doomed)),
            429,
            "RetryableError",
        )
        .await;
    assert_eq!(
        error["details"][0]["code"],
        "ReferencedResourceNotProvisioned"
    );
    assert!(
        error["details"][0]["message"]
            .as_str()
            .unwrap()
            .contains("Resource is in Deleting state and the last operation that updated/is updating the resource is DeletePublicIpAddressOperation."),
        "{error}"
    );
    assert_eq!(s.get(&other).await.status, 404, "nothing created");
    assert_eq!(s.settle(&deleting).await["status"], "Succeeded");
    assert_eq!(s.get(&doomed).await.status, 404);
}

#[tokio::test]
async fn scale_set_instance_ids_are_numeric() {
    let s = vmss_session().await;
    let instances = s.get(&format!("{}/virtualMachines", s.id(VMSS))).await;
    assert_eq!(instances.status, 200);
    let count = instances.body["value"].as_array().unwrap().len();
    for (method, body) in [
        (Method::GET, None),
        (Method::PUT, Some(json!({"tags": {"x": "y"}}))),
        (Method::DELETE, None),
    ] {
        let error = s
            .refused(
                method,
                &format!("{}/virtualMachines/node-a", s.id(VMSS)),
                body,
                400,
                "InvalidParameter",
            )
            .await;
        assert_eq!(error["target"], "instanceId", "{error}");
    }
    let after = s.get(&format!("{}/virtualMachines", s.id(VMSS))).await.body;
    assert_eq!(after["value"].as_array().unwrap().len(), count);
}

#[tokio::test]
async fn scale_set_instance_being_deleted_cannot_be_updated() {
    let s = vmss_session().await;
    let vm = format!("{}/virtualMachines/0", s.id(VMSS));
    let deleting = s.send(Method::DELETE, &vm, None).await;
    assert_eq!(deleting.status, 202, "{}", deleting.body);
    let error = s
        .refused(
            Method::PUT,
            &vm,
            Some(json!({"tags": {"touched": "yes"}})),
            409,
            "OperationNotAllowed",
        )
        .await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("since it is marked for deletion"),
        "{error}"
    );
    let during = s.get(&vm).await.body;
    assert_eq!(during["properties"]["provisioningState"], "Deleting");
    assert!(
        during
            .get("tags")
            .is_none_or(|t| t.get("touched").is_none()),
        "{during}"
    );
    assert_eq!(s.settle(&deleting).await["status"], "Succeeded");
    assert_eq!(s.get(&vm).await.status, 404);
}

#[tokio::test]
async fn writes_during_an_operation_get_another_operation_in_progress() {
    let s = Session::small(&[]).await;
    let nsg = s.id(&format!("{NSG}/busy-nsg"));
    let creating = s
        .send(
            Method::PUT,
            &nsg,
            Some(json!({"location": "eastus", "properties": {"securityRules": []}})),
        )
        .await;
    assert_eq!(creating.status, 201);
    let rule = json!({"properties": {"priority": 100, "direction": "Inbound", "access": "Allow",
        "protocol": "Tcp", "sourceAddressPrefix": "*", "sourcePortRange": "*",
        "destinationAddressPrefix": "*", "destinationPortRange": "80"}});
    for (method, target, body) in [
        (
            Method::PUT,
            format!("{nsg}/securityRules/r"),
            Some(rule.clone()),
        ),
        (Method::DELETE, nsg.clone(), None),
    ] {
        let error = s
            .refused(method, &target, body, 409, "AnotherOperationInProgress")
            .await;
        let message = error["message"].as_str().unwrap();
        assert!(
            message.ends_with(&format!("use uri: {}.", creating.operation)),
            "points at the running operation: {message}"
        );
    }
    let during = s.get(&nsg).await.body;
    assert_eq!(during["properties"]["provisioningState"], "Updating");
    assert_eq!(during["properties"]["securityRules"], json!([]));

    assert_eq!(s.settle(&creating).await["status"], "Succeeded");
    s.put_ok(&format!("{nsg}/securityRules/r"), rule).await;
}

#[tokio::test]
async fn put_on_put_supersedes_the_running_operation() {
    let s = Session::small(&[]).await;
    let pip = s.id(&format!("{PIP}/svc-pip"));
    let tagged = |v: &str| {
        let mut body = pip_body();
        body["tags"] = json!({"version": v});
        body
    };
    let first = s.send(Method::PUT, &pip, Some(tagged("1"))).await;
    assert_eq!(first.status, 201);
    let second = s.send(Method::PUT, &pip, Some(tagged("2"))).await;
    assert_eq!(second.status, 200, "{}", second.body);
    assert_ne!(first.operation, second.operation);

    let canceled = s.settle(&first).await;
    assert_eq!(canceled["status"], "Canceled");
    assert_eq!(
        canceled["error"]["code"],
        "CanceledAndSupersededDueToAnotherOperation"
    );
    assert_eq!(s.settle(&second).await["status"], "Succeeded");
    let now = s.get(&pip).await.body;
    assert_eq!(now["tags"], json!({"version": "2"}));
    assert_eq!(now["properties"]["provisioningState"], "Succeeded");
}

#[tokio::test]
async fn scale_set_instance_put_on_put_preempts_the_running_update() {
    let s = vmss_session().await;
    let vm = format!("{}/virtualMachines/1", s.id(VMSS));
    // Instances take no tags of their own, so the two updates differ in an instance property.
    let protect =
        |on: bool| json!({"properties": {"protectionPolicy": {"protectFromScaleIn": on}}});
    let first = s.send(Method::PUT, &vm, Some(protect(false))).await;
    assert_eq!(first.status, 200, "{}", first.body);
    let second = s.send(Method::PUT, &vm, Some(protect(true))).await;
    assert_eq!(second.status, 200, "{}", second.body);
    let preempted = s.settle(&first).await;
    assert_eq!(preempted["status"], "Canceled");
    assert_eq!(preempted["error"]["code"], "OperationPreempted");
    assert_eq!(s.settle(&second).await["status"], "Succeeded");
    assert_eq!(
        s.get(&vm).await.body["properties"]["protectionPolicy"]["protectFromScaleIn"],
        true
    );
}

/// A tags PATCH is no PUT: it must not supersede the create still running (fact sheet 2.11 item 10).
#[tokio::test]
async fn patch_during_an_operation_gets_another_operation_in_progress() {
    let s = Session::small(&[]).await;
    let pip = s.id(&format!("{PIP}/busy-pip"));
    let creating = s.send(Method::PUT, &pip, Some(pip_body())).await;
    assert_eq!(creating.status, 201);
    s.refused(
        Method::PATCH,
        &pip,
        Some(json!({"tags": {"a": "b"}})),
        409,
        "AnotherOperationInProgress",
    )
    .await;
    let during = s.get(&pip).await.body;
    assert_eq!(during["properties"]["provisioningState"], "Updating");
    assert!(
        during.get("tags").is_none_or(|t| t.get("a").is_none()),
        "{during}"
    );
    assert_eq!(s.settle(&creating).await["status"], "Succeeded");
}
