//! CRP fidelity over HTTPS: sparse PUTs update the stored model, computed defaults, write-only secrets.

use crate::{CMP, Fake, NET};
use serde_json::{Value, json};

fn subnet() -> String {
    Fake::net("rg", "virtualNetworks/vnet/subnets/nodes")
}

fn nic_configs(pools: Value) -> Value {
    json!([{"name": "nic", "properties": {"primary": true, "ipConfigurations": [{"name": "ipc",
        "properties": {"subnet": {"id": subnet()}, "loadBalancerBackendAddressPools": pools}}]}}])
}

/// A uniform scale set as a deployment creates it: capacity, zones, tags, identity and a full model.
fn full_scale_set() -> Value {
    json!({"location": "eastus", "tags": {"team": "blue"}, "zones": ["1", "2"],
        "sku": {"name": "Standard_D2s_v3", "tier": "Standard", "capacity": 3},
        "identity": {"type": "UserAssigned", "userAssignedIdentities": {"/subscriptions/s/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1": {}}},
        "properties": {"orchestrationMode": "Uniform", "upgradePolicy": {"mode": "Manual"}, "overprovision": false,
            "virtualMachineProfile": {
                "osProfile": {"computerNamePrefix": "ss", "adminUsername": "azureuser", "adminPassword": "S3cret!pass", "customData": "I2Nsb3VkLWNvbmZpZw=="},
                "storageProfile": {"imageReference": {"publisher": "Canonical", "offer": "ubuntu", "sku": "22_04", "version": "latest"},
                    "osDisk": {"createOption": "FromImage", "osType": "Linux", "managedDisk": {"storageAccountType": "Premium_LRS"}}},
                "extensionProfile": {"extensions": [{"name": "cse", "properties": {"publisher": "Microsoft.Azure.Extensions", "type": "CustomScript",
                    "typeHandlerVersion": "2.0", "settings": {"x": 1}, "protectedSettings": {"commandToExecute": "echo secret"}}}]},
                "networkProfile": {"networkInterfaceConfigurations": nic_configs(json!([]))}}}})
}

async fn instances(f: &Fake, vmss: &str) -> Vec<Value> {
    let (s, list) = f.get(&format!("{vmss}/virtualMachines"), CMP).await;
    assert_eq!(s, 200, "{list}");
    list["value"].as_array().unwrap().clone()
}

fn secret_free(v: &Value) {
    let text = v.to_string();
    for secret in [
        "adminPassword",
        "S3cret!pass",
        "customData",
        "protectedSettings",
        "echo secret",
    ] {
        assert!(!text.contains(secret), "{secret} leaked in {text}");
    }
}

/// The CCM's backend-pool update: `PUT` with `If-Match` whose body holds only location, etag and the network
/// profile. CRP keeps sku (and capacity), zones, tags, identity, the rest of the model and every instance.
#[tokio::test]
async fn sparse_scale_set_put_keeps_the_model_and_every_instance() {
    let f = Fake::seeded(0).await;
    let lb = Fake::net("rg", "loadBalancers/lb");
    f.state.put(&lb, json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"frontendIPConfigurations":[{"name":"fe","properties":{"subnet":{"id":subnet()}}}],"backendAddressPools":[{"name":"pool"}]}})).unwrap();
    let vmss = Fake::cmp("rg", "virtualMachineScaleSets/ss");
    let (s, _, _) = f.put(&vmss, CMP, full_scale_set()).await;
    assert_eq!(s, 201);
    let (_, before) = f.get(&vmss, CMP).await;
    let instances_before = instances(&f, &vmss).await;
    assert_eq!(instances_before.len(), 3);
    let etag = before["etag"].as_str().unwrap().to_string();
    let pool = format!("{lb}/backendAddressPools/pool");
    let sparse = json!({"location": "eastus", "etag": etag,
        "properties": {"virtualMachineProfile": {"networkProfile": {"networkInterfaceConfigurations": nic_configs(json!([{"id": pool}]))}}}});
    let (s, h, v) = f
        .send(
            reqwest::Method::PUT,
            &format!("{vmss}?{CMP}"),
            Some(sparse),
            &[("If-Match", &etag)],
        )
        .await;
    assert_eq!(s, 200, "{v}");
    f.poll(h["azure-asyncoperation"].to_str().unwrap()).await;
    let (_, after) = f.get(&vmss, CMP).await;
    for field in ["sku", "zones", "tags", "identity"] {
        assert_eq!(after[field], before[field], "{field}");
    }
    assert_eq!(after["sku"]["capacity"], 3);
    let (model_before, model_after) = (
        &before["properties"]["virtualMachineProfile"],
        &after["properties"]["virtualMachineProfile"],
    );
    for part in ["osProfile", "storageProfile", "extensionProfile"] {
        assert_eq!(model_after[part], model_before[part], "{part}");
    }
    assert_eq!(
        model_after["networkProfile"]["networkInterfaceConfigurations"][0]["properties"]["ipConfigurations"]
            [0]["properties"]["loadBalancerBackendAddressPools"],
        json!([{"id": pool}])
    );
    assert_eq!(after["properties"]["upgradePolicy"]["mode"], "Manual");
    assert_eq!(after["etag"], "\"2\"");
    // Every instance survives, with its identity and its NIC; a manual upgrade policy leaves them behind the model.
    let instances_after = instances(&f, &vmss).await;
    assert_eq!(instances_after.len(), 3);
    for (b, a) in instances_before.iter().zip(&instances_after) {
        assert_eq!(a["name"], b["name"]);
        assert_eq!(a["properties"]["vmId"], b["properties"]["vmId"]);
        assert_eq!(a["properties"]["latestModelApplied"], false);
        let nic = format!("{}/networkInterfaces/nic", a["id"].as_str().unwrap());
        assert_eq!(f.get(&nic, "api-version=2018-10-01").await.0, 200);
    }
}

/// The disk-attach PUT of an availability-set VM carries only location, hardwareProfile and the data disks;
/// CRP keeps the NICs, the OS profile, the OS disk and the tags.
#[tokio::test]
async fn sparse_vm_put_keeps_the_rest_of_the_vm() {
    let f = Fake::seeded(0).await;
    let nic = Fake::net("rg", "networkInterfaces/nic");
    f.state.put(&nic, json!({"location":"eastus","properties":{"ipConfigurations":[{"name":"ipc","properties":{"subnet":{"id":subnet()}}}]}})).unwrap();
    let vm = Fake::cmp("rg", "virtualMachines/vm");
    let (s, _, _) = f.put(&vm, CMP, json!({"location": "eastus", "tags": {"k": "v"}, "zones": ["1"],
        "properties": {"hardwareProfile": {"vmSize": "Standard_D2s_v3"},
            "osProfile": {"computerName": "vm", "adminUsername": "azureuser"},
            "storageProfile": {"osDisk": {"name": "vm_os", "createOption": "FromImage"}, "dataDisks": []},
            "networkProfile": {"networkInterfaces": [{"id": nic}]}}})).await;
    assert_eq!(s, 201);
    let disk = json!([{"lun": 0, "name": "pvc-1", "createOption": "Attach", "managedDisk": {"id": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/disks/pvc-1"}}]);
    let (s, _, _) = f
        .put(
            &vm,
            CMP,
            json!({"location": "eastus", "properties": {"hardwareProfile": {"vmSize": "Standard_D2s_v3"},
            "storageProfile": {"dataDisks": disk}}}),
        )
        .await;
    assert_eq!(s, 200);
    let (_, v) = f.get(&vm, CMP).await;
    assert_eq!(v["tags"], json!({"k": "v"}));
    assert_eq!(v["zones"], json!(["1"]));
    assert_eq!(
        v["properties"]["networkProfile"]["networkInterfaces"][0]["id"],
        nic
    );
    assert_eq!(v["properties"]["osProfile"]["computerName"], "vm");
    assert_eq!(v["properties"]["storageProfile"]["osDisk"]["name"], "vm_os");
    assert_eq!(v["properties"]["storageProfile"]["dataDisks"], disk);
    let (_, n) = f.get(&nic, NET).await;
    assert_eq!(n["properties"]["virtualMachine"]["id"], vm);
}

/// Scale sets created through the API show what CRP computes; instances carry a storage profile and take no
/// tags of their own from a PUT.
#[tokio::test]
async fn scale_set_and_instances_show_computed_defaults() {
    let f = Fake::seeded(0).await;
    let vmss = Fake::cmp("rg", "virtualMachineScaleSets/ss");
    let mut body = full_scale_set();
    body["sku"] = json!({"name": "Standard_D2s_v3", "capacity": 1});
    body.as_object_mut().unwrap().remove("zones");
    f.put(&vmss, CMP, body).await;
    let (_, v) = f.get(&vmss, CMP).await;
    assert_eq!(v["sku"]["tier"], "Standard");
    assert_eq!(v["properties"]["singlePlacementGroup"], true);
    assert_eq!(v["properties"]["platformFaultDomainCount"], 5);
    let model = &v["properties"]["virtualMachineProfile"];
    assert_eq!(
        model["networkProfile"]["networkInterfaceConfigurations"][0]["properties"]["ipConfigurations"]
            [0]["properties"]["privateIPAddressVersion"],
        "IPv4"
    );
    assert_eq!(model["osProfile"]["secrets"], json!([]));
    assert_eq!(model["storageProfile"]["osDisk"]["caching"], "ReadOnly");
    let vm0 = format!("{vmss}/virtualMachines/0");
    let (_, inst) = f.get(&vm0, CMP).await;
    let sp = &inst["properties"]["storageProfile"];
    assert_eq!(sp["imageReference"]["offer"], "ubuntu");
    assert_eq!(sp["osDisk"]["osType"], "Linux");
    assert!(
        sp["osDisk"]["name"]
            .as_str()
            .unwrap()
            .starts_with("ss_0_OsDisk_1_")
    );
    assert_eq!(sp["dataDisks"], json!([]));
    let tags_before = inst["tags"].clone();
    let (s, h, _) = f
        .put_raw(
            &vm0,
            CMP,
            json!({"location": "eastus", "tags": {"sent": "on-instance"}, "properties": {}}),
        )
        .await;
    assert_eq!(s, 200);
    f.poll(h["azure-asyncoperation"].to_str().unwrap()).await;
    let (_, inst) = f.get(&vm0, CMP).await;
    assert_eq!(inst["tags"], tags_before);
}

/// Availability sets list `virtualMachines` (empty when no VM uses them) and carry no provisioningState.
#[tokio::test]
async fn availability_set_lists_its_vms_and_has_no_provisioning_state() {
    let f = Fake::seeded(0).await;
    let avset = Fake::cmp("rg", "availabilitySets/as");
    let (s, _, v) = f.put(&avset, CMP, json!({"location": "eastus"})).await;
    assert_eq!(s, 200);
    for doc in [v, f.get(&avset, CMP).await.1] {
        assert_eq!(doc["properties"]["virtualMachines"], json!([]), "{doc}");
        assert!(
            doc["properties"].get("provisioningState").is_none(),
            "{doc}"
        );
    }
    let vm = Fake::cmp("rg", "virtualMachines/vm");
    f.state
        .put(
            &vm,
            json!({"location": "eastus", "properties": {"hardwareProfile": {"vmSize": "Standard_D2s_v3"},
                "availabilitySet": {"id": avset}}}),
        )
        .unwrap();
    let (_, v) = f.get(&avset, CMP).await;
    assert_eq!(
        v["properties"]["virtualMachines"][0]["id"]
            .as_str()
            .unwrap()
            .to_ascii_lowercase(),
        vm.to_ascii_lowercase()
    );
    f.state.delete(&vm).unwrap();
    let (_, v) = f.get(&avset, CMP).await;
    assert_eq!(v["properties"]["virtualMachines"], json!([]));
}

/// `adminPassword`, `customData` and extension `protectedSettings` are write-only: no answer returns them
/// (PUT, operation status, GET, lists, instances) and the exported state does not hold them; `identity: None`
/// is omitted.
#[tokio::test]
async fn write_only_secrets_are_never_returned() {
    let f = Fake::seeded(0).await;
    let vmss = Fake::cmp("rg", "virtualMachineScaleSets/ss");
    let mut body = full_scale_set();
    body["identity"] = json!({"type": "None"});
    let (s, h, put) = f.put_raw(&vmss, CMP, body).await;
    assert_eq!(s, 201);
    secret_free(&put);
    assert!(put.get("identity").is_none(), "{put}");
    let (done, _) = f.poll(h["azure-asyncoperation"].to_str().unwrap()).await;
    secret_free(&done);
    let (_, got) = f.get(&vmss, CMP).await;
    secret_free(&got);
    assert_eq!(
        got["properties"]["virtualMachineProfile"]["osProfile"]["adminUsername"],
        "azureuser"
    );
    assert_eq!(
        got["properties"]["virtualMachineProfile"]["extensionProfile"]["extensions"][0]["properties"]
            ["settings"],
        json!({"x": 1})
    );
    let (_, list) = f
        .get(&Fake::cmp("rg", "virtualMachineScaleSets"), CMP)
        .await;
    secret_free(&list);
    for inst in instances(&f, &vmss).await {
        secret_free(&inst);
    }
    let vm = Fake::cmp("rg", "virtualMachines/vm");
    let (s, _, put) = f.put(&vm, CMP, json!({"location": "eastus", "identity": {"type": "None"},
        "properties": {"hardwareProfile": {"vmSize": "Standard_D2s_v3"},
            "osProfile": {"computerName": "vm", "adminUsername": "azureuser", "adminPassword": "S3cret!pass", "customData": "I2Nsb3VkLWNvbmZpZw=="}}})).await;
    assert_eq!(s, 201);
    secret_free(&put);
    let (_, got) = f.get(&vm, CMP).await;
    secret_free(&got);
    assert!(got.get("identity").is_none(), "{got}");
    let (_, list) = f.get(&Fake::cmp("rg", "virtualMachines"), CMP).await;
    secret_free(&list);
    secret_free(&f.state.export());
}
