//! TTL, read modes, single-flight and invalidation of [`TtlCache`], on tokio's paused clock.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use tokio::sync::Notify;

use super::{CacheKind, CachePolicy, ReadMode, TtlCache};
use crate::config::CacheSettings;

/// A loader that counts its calls and returns the call number.
#[derive(Clone, Default)]
struct Counting(Arc<AtomicU32>);

impl Counting {
    async fn load(&self) -> Result<u32, String> {
        Ok(self.0.fetch_add(1, Ordering::SeqCst) + 1)
    }

    fn calls(&self) -> u32 {
        self.0.load(Ordering::SeqCst)
    }
}

fn cache(ttl_secs: u64) -> TtlCache<String, u32> {
    TtlCache::new(CachePolicy::with_ttl(Duration::from_secs(ttl_secs)))
}

async fn read(c: &TtlCache<String, u32>, mode: ReadMode, loader: &Counting) -> u32 {
    c.get(&"k".to_string(), mode, || loader.load())
        .await
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn default_reads_serve_until_the_ttl_then_load_again() {
    let c = cache(60);
    let loader = Counting::default();
    assert_eq!(read(&c, ReadMode::Default, &loader).await, 1);
    tokio::time::advance(Duration::from_secs(59)).await;
    assert_eq!(read(&c, ReadMode::Default, &loader).await, 1);
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(read(&c, ReadMode::Default, &loader).await, 2);
    assert_eq!(loader.calls(), 2);
}

#[tokio::test(start_paused = true)]
async fn unsafe_reads_serve_stale_entries_and_load_only_when_empty() {
    let c = cache(60);
    let loader = Counting::default();
    assert_eq!(read(&c, ReadMode::Unsafe, &loader).await, 1);
    tokio::time::advance(Duration::from_secs(3600)).await;
    assert_eq!(read(&c, ReadMode::Unsafe, &loader).await, 1);
    assert_eq!(loader.calls(), 1);
}

#[tokio::test(start_paused = true)]
async fn force_refresh_loads_even_when_fresh() {
    let c = cache(60);
    let loader = Counting::default();
    assert_eq!(read(&c, ReadMode::Default, &loader).await, 1);
    assert_eq!(read(&c, ReadMode::ForceRefresh, &loader).await, 2);
    assert_eq!(read(&c, ReadMode::Default, &loader).await, 2);
    assert_eq!(loader.calls(), 2);
}

/// A loader that blocks until released, so many readers pile up on one load.
async fn gated_load(loader: Counting, release: Arc<Notify>) -> Result<u32, String> {
    release.notified().await;
    loader.load().await
}

/// A loader that takes ten (paused) seconds, so concurrent readers overlap with it.
async fn slow_load(loader: Counting) -> Result<u32, String> {
    tokio::time::sleep(Duration::from_secs(10)).await;
    loader.load().await
}

async fn pile_up(mode: ReadMode, readers: usize) -> (Vec<u32>, u32) {
    let c = Arc::new(cache(600));
    let loader = Counting::default();
    let mut tasks = Vec::new();
    for _ in 0..readers {
        let (c, loader) = (c.clone(), loader.clone());
        tasks.push(tokio::spawn(async move {
            c.get(&"rg/vmss".to_string(), mode, || slow_load(loader))
                .await
                .unwrap()
        }));
    }
    let mut values = Vec::new();
    for t in tasks {
        values.push(t.await.unwrap());
    }
    (values, loader.calls())
}

#[tokio::test(start_paused = true)]
async fn concurrent_readers_of_one_key_share_one_load() {
    let (values, calls) = pile_up(ReadMode::Default, 50).await;
    assert_eq!(calls, 1, "one VMSS VM list serves every node of the set");
    assert!(values.iter().all(|v| *v == 1), "{values:?}");
}

#[tokio::test(start_paused = true)]
async fn concurrent_force_refreshes_share_the_load_that_started_after_them() {
    let (values, calls) = pile_up(ReadMode::ForceRefresh, 20).await;
    assert_eq!(calls, 1);
    assert!(values.iter().all(|v| *v == 1), "{values:?}");
}

#[tokio::test(start_paused = true)]
async fn different_keys_load_independently() {
    let c = cache(60);
    let loader = Counting::default();
    let (ka, kb) = ("a".to_string(), "b".to_string());
    let a = c.get(&ka, ReadMode::Default, || loader.load());
    let b = c.get(&kb, ReadMode::Default, || loader.load());
    let (a, b) = tokio::join!(a, b);
    assert_ne!(a.unwrap(), b.unwrap());
    assert_eq!(loader.calls(), 2);
}

#[tokio::test(start_paused = true)]
async fn invalidation_forces_the_next_read_to_load() {
    let c = cache(600);
    let loader = Counting::default();
    assert_eq!(read(&c, ReadMode::Unsafe, &loader).await, 1);
    c.invalidate(&"k".to_string());
    assert_eq!(c.peek(&"k".to_string()), None);
    assert_eq!(read(&c, ReadMode::Unsafe, &loader).await, 2);
    c.invalidate_all();
    assert_eq!(read(&c, ReadMode::Unsafe, &loader).await, 3);
}

#[tokio::test(start_paused = true)]
async fn a_load_in_flight_during_invalidation_is_not_cached() {
    let c = Arc::new(cache(600));
    let loader = Counting::default();
    let release = Arc::new(Notify::new());
    let reader = {
        let (c, loader, release) = (c.clone(), loader.clone(), release.clone());
        tokio::spawn(async move {
            c.get(&"k".to_string(), ReadMode::Default, || {
                gated_load(loader, release)
            })
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(1)).await;
    c.invalidate(&"k".to_string()); // a write happened while the read was in flight
    release.notify_one();
    assert_eq!(reader.await.unwrap(), Ok(1));
    assert_eq!(
        c.peek(&"k".to_string()),
        None,
        "pre-write state must not be cached"
    );
    assert_eq!(read(&c, ReadMode::Default, &loader).await, 2);
}

#[tokio::test(start_paused = true)]
async fn a_failed_load_stores_nothing_and_keeps_the_previous_value() {
    let c = cache(60);
    let loader = Counting::default();
    assert_eq!(read(&c, ReadMode::Default, &loader).await, 1);
    tokio::time::advance(Duration::from_secs(61)).await;
    let failed: Result<u32, String> = c
        .get(&"k".to_string(), ReadMode::Default, || async {
            Err("ARM said 500".to_string())
        })
        .await;
    assert_eq!(failed, Err("ARM said 500".to_string()));
    assert_eq!(read(&c, ReadMode::Unsafe, &loader).await, 1);
    assert_eq!(read(&c, ReadMode::Default, &loader).await, 2);
}

#[tokio::test(start_paused = true)]
async fn insert_serves_a_written_value_as_fresh() {
    let c = cache(60);
    let loader = Counting::default();
    c.insert("k".to_string(), 42);
    assert_eq!(c.peek(&"k".to_string()), Some(42));
    assert_eq!(read(&c, ReadMode::Default, &loader).await, 42);
    assert_eq!(loader.calls(), 0);
}

#[tokio::test(start_paused = true)]
async fn pass_through_always_loads_and_stores_nothing() {
    let c: TtlCache<String, u32> = TtlCache::new(CachePolicy::pass_through());
    let loader = Counting::default();
    assert_eq!(read(&c, ReadMode::Default, &loader).await, 1);
    assert_eq!(read(&c, ReadMode::Unsafe, &loader).await, 2);
    c.insert("k".to_string(), 7);
    assert_eq!(c.peek(&"k".to_string()), None);
    assert_eq!(loader.calls(), 2);
}

fn settings(disable: bool) -> CacheSettings {
    let s = |n| Duration::from_secs(n);
    CacheSettings {
        vm: s(1),
        load_balancer: s(2),
        public_ip: s(3),
        nsg: s(4),
        route_table: s(5),
        private_link_service: s(6),
        availability_sets: s(7),
        vmss: s(8),
        vmss_virtual_machines: s(9),
        vmss_flex: s(10),
        vmss_flex_vm: s(11),
        non_vmss_uniform_nodes: s(12),
        disable_api_call_cache: disable,
        list_vmss_virtual_machines_without_instance_view: false,
        vmss_virtual_machine_cache_instance_view: false,
    }
}

#[test]
fn policies_follow_the_config_and_disable_api_call_cache() {
    let on = settings(false);
    let secs = |k| CachePolicy::for_kind(k, &on).ttl.as_secs();
    assert_eq!(secs(CacheKind::Vm), 1);
    assert_eq!(secs(CacheKind::LoadBalancer), 2);
    assert_eq!(secs(CacheKind::PublicIp), 3);
    assert_eq!(secs(CacheKind::SecurityGroup), 4);
    assert_eq!(secs(CacheKind::RouteTable), 5);
    assert_eq!(secs(CacheKind::PrivateLinkService), 6);
    assert_eq!(secs(CacheKind::AvailabilitySets), 7);
    assert_eq!(secs(CacheKind::Vmss), 8);
    assert_eq!(secs(CacheKind::VmssVirtualMachines), 9);
    assert_eq!(secs(CacheKind::VmssFlex), 10);
    assert_eq!(secs(CacheKind::VmssFlexVm), 11);
    assert_eq!(secs(CacheKind::NonVmssUniformNodes), 12);
    assert_eq!(secs(CacheKind::InstanceMetadata), 60);
    let off = settings(true);
    assert!(CachePolicy::for_kind(CacheKind::VmssVirtualMachines, &off).disabled);
    assert!(!CachePolicy::for_kind(CacheKind::InstanceMetadata, &off).disabled);
}
