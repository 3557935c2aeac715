//! Heap held by the node-metadata caches for N uniform scale-set instances (the VMSS VM list with
//! instance view and the scale set's NIC list), whole documents against the compact projections
//! the caches keep (`ccm_azure::instances::cached`). The documents are the ones `azure-fakes`
//! serves (`src/arm/resources/testdata/`), one per instance with its own ids, names and address.
//! A counting global allocator measures the live bytes after decoding and the peak while decoding.
//! Prints figures only; run with `cargo bench -p ccm-azure --bench cached_documents`
//! (`CACHED_DOCUMENTS_INSTANCES`, default 1000).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use ccm_azure::arm::resources::scale_set_network::ScaleSetNetworkProfile;
use ccm_azure::arm::resources::scale_set_vm::ScaleSetVmProperties;
use ccm_azure::arm::resources::{NetworkInterface, Page, ScaleSetVm};
use ccm_azure::instances::cached::{CachedNic, CachedScaleSetVm, Packed};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: same layout the caller gave.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: allocated by `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const VM: &str = include_str!("../src/arm/resources/testdata/scale_set_vm.json");
const NIC: &str = include_str!("../src/arm/resources/testdata/network_interface.json");

/// One page body per list: `n` instances and their NICs, as the fake lists them.
fn pages(n: usize) -> (String, String) {
    let vm: Value = serde_json::from_str(VM).expect("vm");
    let nic: Value = serde_json::from_str(NIC).expect("nic");
    let ss = "/subscriptions/0b1f6471-1bf0-4dda-aec3-111122223333/resourceGroups/mixed-nodes-rg/providers/Microsoft.Compute/virtualMachineScaleSets/uniformpool";
    let mut vms = Vec::with_capacity(n);
    let mut nics = Vec::with_capacity(n);
    for i in 0..n {
        let id = format!("{ss}/virtualMachines/{i}");
        let nic_id = format!("{id}/networkInterfaces/uniformpool-nic");
        let mut v = vm.clone();
        v["id"] = json!(id);
        v["name"] = json!(format!("uniformpool_{i}"));
        v["instanceId"] = json!(i.to_string());
        v["properties"]["osProfile"]["computerName"] = json!(format!("uniformpool{i:06}"));
        v["properties"]["instanceView"]["computerName"] = json!(format!("uniformpool{i:06}"));
        v["properties"]["vmId"] = json!(format!("1f4fa379-c98e-4ebd-8f85-{i:012}"));
        v["properties"]["networkProfile"]["networkInterfaces"][0]["id"] = json!(nic_id);
        vms.push(v);
        let mut c = nic.clone();
        c["id"] = json!(nic_id);
        c["name"] = json!("uniformpool-nic");
        c["properties"]["virtualMachine"]["id"] = json!(id);
        c["properties"]["macAddress"] = json!(format!("00-0D-3A-{i:06X}"));
        let ipc = &mut c["properties"]["ipConfigurations"][0];
        ipc["id"] = json!(format!("{nic_id}/ipConfigurations/ipconfig1"));
        ipc["properties"]["privateIPAddress"] = json!(format!(
            "10.{}.{}.{}",
            240 + i / 65536,
            (i / 256) % 256,
            i % 256
        ));
        nics.push(c);
    }
    let page = |value: Vec<Value>| serde_json::to_string(&json!({ "value": value })).expect("page");
    (page(vms), page(nics))
}

/// Live bytes after decoding `body` into a list of `T` (kept), and the peak while decoding.
fn held<T: DeserializeOwned>(body: &str) -> (Vec<T>, usize, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let page: Page<T> = serde_json::from_str(body).expect("decodes");
    let mut items = page.value;
    items.shrink_to_fit();
    let live = LIVE.load(Ordering::Relaxed) - before;
    let peak = PEAK.load(Ordering::Relaxed) - before;
    (items, live, peak)
}

/// The sparse instance PUT body (`location`, `hardwareProfile`, `networkProfileConfiguration`).
fn body(vm: &CachedScaleSetVm, profile: ScaleSetNetworkProfile) -> ScaleSetVm {
    ScaleSetVm {
        location: vm.location.clone(),
        properties: Some(ScaleSetVmProperties {
            hardware_profile: vm.hardware_profile.clone(),
            network_profile_configuration: Some(profile),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Live bytes of what a first sync queues, one PUT per instance: before, the decoded body and
/// the listed instance plus the edited profile as context; now, the body's JSON text and the
/// instance's index plus the edited profile packed.
fn queued_puts(vms: &[CachedScaleSetVm]) -> (usize, usize) {
    let profile = |vm: &CachedScaleSetVm| {
        vm.network_profile_configuration
            .as_ref()
            .map(Packed::unpack)
            .transpose()
            .expect("unpacks")
            .unwrap_or_default()
    };
    let before = LIVE.load(Ordering::Relaxed);
    let decoded: Vec<_> = vms
        .iter()
        .map(|vm| (body(vm, profile(vm)), (vm.clone(), profile(vm))))
        .collect();
    let decoded_bytes = LIVE.load(Ordering::Relaxed) - before;
    drop(decoded);
    let before = LIVE.load(Ordering::Relaxed);
    let text: Vec<_> = vms
        .iter()
        .enumerate()
        .map(|(i, vm)| {
            let edited = profile(vm);
            let raw = serde_json::value::to_raw_value(&body(vm, edited.clone())).expect("body");
            (raw, (i, Packed::pack(&edited).expect("packs")))
        })
        .collect();
    let text_bytes = LIVE.load(Ordering::Relaxed) - before;
    drop(text);
    (decoded_bytes, text_bytes)
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn main() {
    let n: usize = std::env::var("CACHED_DOCUMENTS_INSTANCES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let (vm_page, nic_page) = pages(n);
    println!(
        "{n} uniform instances: VM list page {:.2} MiB, NIC list page {:.2} MiB of JSON",
        mib(vm_page.len()),
        mib(nic_page.len())
    );
    let (whole_vms, vm_live, vm_peak) = held::<ScaleSetVm>(&vm_page);
    let (whole_nics, nic_live, nic_peak) = held::<NetworkInterface>(&nic_page);
    let whole = vm_live + nic_live;
    println!(
        "whole documents:    VMs {:.2} MiB + NICs {:.2} MiB = {:.2} MiB held ({} B per instance); decode peaks {:.2} / {:.2} MiB",
        mib(vm_live),
        mib(nic_live),
        mib(whole),
        whole / n.max(1),
        mib(vm_peak),
        mib(nic_peak)
    );
    drop((whole_vms, whole_nics));
    let (compact_vms, vm_live, vm_peak) = held::<CachedScaleSetVm>(&vm_page);
    let (compact_nics, nic_live, nic_peak) = held::<CachedNic>(&nic_page);
    let compact = vm_live + nic_live;
    println!(
        "compact projection: VMs {:.2} MiB + NICs {:.2} MiB = {:.2} MiB held ({} B per instance); decode peaks {:.2} / {:.2} MiB",
        mib(vm_live),
        mib(nic_live),
        mib(compact),
        compact / n.max(1),
        mib(vm_peak),
        mib(nic_peak)
    );
    println!(
        "saving: {:.2} MiB ({:.0}%), {:.1} MiB at 5000 instances",
        mib(whole - compact),
        100.0 * (whole - compact) as f64 / whole.max(1) as f64,
        mib((whole - compact) * 5000 / n.max(1))
    );
    let (decoded, text) = queued_puts(&compact_vms);
    println!(
        "first sync, one queued instance PUT each: decoded bodies and contexts {:.2} MiB, serialized {:.2} MiB",
        mib(decoded),
        mib(text)
    );
    assert_eq!(compact_vms.len() + compact_nics.len(), 2 * n);
}
