//! Throughput of the fake cloud's ARM surface over real HTTPS: starts `FakeCloud` in-process on
//! loopback with the 1000-node topology and throttling off, then drives concurrent GETs (VMs and
//! scale-set VMs by id) and PUTs (new public IPs) with keep-alive HTTP/1.1 connections.
//! Prints GET/s, PUT/s, p50/p99 latency and the process RSS after seeding.
//!
//! Knobs (environment): `BENCH_SECS` (per phase, default 5), `BENCH_CONCURRENCY` (default 32).
//! Client and server share the machine's cores, so the figures are a lower bound for the server.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use azure_fakes::cloud::{CloudConfig, FakeCloud};
use azure_fakes::throttle::ThrottleConfig;
use serde_json::json;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

struct Phase {
    requests: u64,
    errors: u64,
    elapsed: Duration,
    latencies_us: Vec<u32>,
}

impl Phase {
    fn report(&mut self, name: &str) {
        self.latencies_us.sort_unstable();
        let pct = |p: f64| {
            if self.latencies_us.is_empty() {
                return 0.0;
            }
            let i = ((self.latencies_us.len() as f64 * p).ceil() as usize)
                .clamp(1, self.latencies_us.len())
                - 1;
            f64::from(self.latencies_us[i]) / 1000.0
        };
        println!(
            "{name}: {:.0} req/s ({} requests, {} errors, {:.1}s) p50 {:.2} ms p99 {:.2} ms",
            self.requests as f64 / self.elapsed.as_secs_f64(),
            self.requests,
            self.errors,
            self.elapsed.as_secs_f64(),
            pct(0.50),
            pct(0.99)
        );
    }
}

async fn drive<F, Fut>(concurrency: u64, duration: Duration, make: F) -> Phase
where
    F: Fn(u64) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = bool> + Send,
{
    let make = Arc::new(make);
    let counter = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let deadline = started + duration;
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let make = make.clone();
        let counter = counter.clone();
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut errors = 0u64;
            while Instant::now() < deadline {
                let n = counter.fetch_add(1, Ordering::Relaxed);
                let t = Instant::now();
                if !make(n).await {
                    errors += 1;
                }
                latencies.push(u32::try_from(t.elapsed().as_micros()).unwrap_or(u32::MAX));
            }
            (latencies, errors)
        }));
    }
    let mut phase = Phase {
        requests: 0,
        errors: 0,
        elapsed: Duration::ZERO,
        latencies_us: Vec::new(),
    };
    for task in tasks {
        let (latencies, errors) = task.await.expect("bench task");
        phase.requests += latencies.len() as u64;
        phase.errors += errors;
        phase.latencies_us.extend(latencies);
    }
    phase.elapsed = started.elapsed();
    phase
}

/// Sends, reads the whole body, and reports whether the status was `expected`.
async fn ok(request: reqwest::RequestBuilder, expected: u16) -> bool {
    match request.send().await {
        Ok(response) => response.status() == expected && response.bytes().await.is_ok(),
        Err(_) => false,
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(run());
}

async fn run() {
    let secs = env_or("BENCH_SECS", 5);
    let concurrency = env_or("BENCH_CONCURRENCY", 32);
    let topology =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/1000-nodes.yaml");
    let dir = tempfile::tempdir().expect("tempdir");
    let rss_before = rss_kib();
    let seeding = Instant::now();
    let cloud = FakeCloud::start(CloudConfig {
        tls_dir: dir.path().to_path_buf(),
        topology: Some(topology),
        throttle: ThrottleConfig::disabled(),
        imds_rate_limits: false,
        ..CloudConfig::default()
    })
    .await
    .expect("start fake cloud");
    println!(
        "seeded {} nodes, {} ARM resources in {:.2}s; RSS {} MiB (before start {} MiB)",
        cloud.nodes().len(),
        cloud.arm().resource_count(),
        seeding.elapsed().as_secs_f64(),
        rss_kib().unwrap_or(0) / 1024,
        rss_before.unwrap_or(0) / 1024
    );

    let seeded = cloud.seeded().expect("topology seeded");
    let app = seeded
        .registry
        .tenants
        .first()
        .and_then(|t| t.apps.first())
        .map(|a| a.client_id.clone())
        .unwrap_or_else(|| "bench".into());
    let token = cloud
        .entra()
        .issuer
        .issue(
            &seeded.tenant_id,
            &app,
            "https://management.azure.com/.default",
        )
        .access_token;
    fake_tls::install_crypto_provider();
    let ca = std::fs::read(cloud.ca_path()).expect("CA");
    let http = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(&ca).expect("CA PEM"))
        .http1_only()
        .pool_max_idle_per_host(usize::try_from(concurrency).unwrap_or(64))
        .build()
        .expect("client");
    let base = cloud.base_url().to_string();
    let ids: Arc<Vec<String>> = Arc::new(
        cloud
            .nodes()
            .iter()
            .map(|n| n.resource_id.clone())
            .collect(),
    );
    let bearer = Arc::new(format!("Bearer {token}"));

    let (h, b, i, a) = (http.clone(), base.clone(), ids.clone(), bearer.clone());
    let mut gets = drive(concurrency, Duration::from_secs(secs), move |n| {
        let url = format!("{b}{}?api-version=2025-04-01", i[(n as usize) % i.len()]);
        let request = h.get(url).header("authorization", a.as_str());
        async move { ok(request, 200).await }
    })
    .await;
    gets.report("GET VM");

    let pip_base = format!(
        "{base}/subscriptions/{}/resourceGroups/{}/providers/Microsoft.Network/publicIPAddresses",
        seeded.subscription_id, seeded.resource_group
    );
    let body = Arc::new(
        json!({"location": seeded.location, "sku": {"name": "Standard"}, "properties": {"publicIPAllocationMethod": "Static"}}),
    );
    let (h, a) = (http.clone(), bearer.clone());
    let mut puts = drive(concurrency, Duration::from_secs(secs), move |n| {
        let request = h
            .put(format!("{pip_base}/bench-pip-{n}?api-version=2025-05-01"))
            .header("authorization", a.as_str())
            .json(&*body);
        async move { ok(request, 201).await }
    })
    .await;
    puts.report("PUT public IP");

    println!(
        "journal: {} requests recorded; RSS at end {} MiB",
        cloud.journal().export(u64::MAX).next_seq,
        rss_kib().unwrap_or(0) / 1024
    );
    cloud.shutdown().await.expect("shutdown");
}
