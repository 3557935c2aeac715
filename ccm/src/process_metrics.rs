//! Prometheus `process_*` families (the Go client's process collector names): CPU seconds, open
//! and maximum file descriptors, virtual and resident memory, start time; read from `/proc/self`
//! at each scrape. Off Linux nothing is exported.
//!
//! **[infer]** CPU ticks are converted with `USER_HZ` = 100 (the Linux ABI value on the
//! architectures we ship); resident memory comes from `VmRSS` in `/proc/self/status`.

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

/// Clock ticks per second of `/proc/<pid>/stat` times.
const USER_HZ: f64 = 100.0;

/// The collector to register with `Registry::register_collector`.
#[derive(Debug, Default)]
pub struct ProcessCollector;

/// One scrape's values.
#[derive(Debug, Clone, PartialEq, Default)]
struct Sample {
    cpu_seconds: f64,
    open_fds: Option<f64>,
    max_fds: Option<f64>,
    virtual_bytes: f64,
    resident_bytes: Option<f64>,
    start_time_seconds: Option<f64>,
}

/// The fields of `/proc/self/stat` after the command name (which may hold spaces).
fn stat_fields(stat: &str) -> Option<Vec<&str>> {
    let after = stat.rsplit_once(')')?.1;
    Some(after.split_whitespace().collect())
}

fn sample() -> Option<Sample> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // After the name: field 3 (state) is index 0, so field N is index N - 3.
    let fields = stat_fields(&stat)?;
    let field = |n: usize| fields.get(n - 3)?.parse::<f64>().ok();
    let cpu_seconds = (field(14)? + field(15)?) / USER_HZ;
    let virtual_bytes = field(23)?;
    let boot_time = std::fs::read_to_string("/proc/stat").ok().and_then(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("btime "))
            .and_then(|v| v.trim().parse::<f64>().ok())
    });
    let start_time_seconds = boot_time.zip(field(22)).map(|(b, t)| b + t / USER_HZ);
    let resident_bytes = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map(|kb| kb * 1024.0);
    let open_fds = std::fs::read_dir("/proc/self/fd")
        .ok()
        .map(|d| d.count() as f64);
    let max_fds = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Max open files"))
                .and_then(|l| l.split_whitespace().nth(3))
                .and_then(|v| v.parse::<f64>().ok())
        });
    Some(Sample {
        cpu_seconds,
        open_fds,
        max_fds,
        virtual_bytes,
        resident_bytes,
        start_time_seconds,
    })
}

fn gauge(encoder: &mut DescriptorEncoder, name: &str, help: &str, value: f64) -> std::fmt::Result {
    let metric = ConstGauge::new(value);
    let metric_encoder = encoder.encode_descriptor(name, help, None, metric.metric_type())?;
    metric.encode(metric_encoder)
}

impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> std::fmt::Result {
        let Some(sample) = sample() else {
            return Ok(());
        };
        let cpu = ConstCounter::new(sample.cpu_seconds);
        let metric_encoder = encoder.encode_descriptor(
            "process_cpu_seconds",
            "Total user and system CPU time spent in seconds.",
            None,
            cpu.metric_type(),
        )?;
        cpu.encode(metric_encoder)?;
        let optional = [
            (
                "process_open_fds",
                "Number of open file descriptors.",
                sample.open_fds,
            ),
            (
                "process_max_fds",
                "Maximum number of open file descriptors.",
                sample.max_fds,
            ),
            (
                "process_virtual_memory_bytes",
                "Virtual memory size in bytes.",
                Some(sample.virtual_bytes),
            ),
            (
                "process_resident_memory_bytes",
                "Resident memory size in bytes.",
                sample.resident_bytes,
            ),
            (
                "process_start_time_seconds",
                "Start time of the process since unix epoch in seconds.",
                sample.start_time_seconds,
            ),
        ];
        for (name, help, value) in optional {
            if let Some(value) = value {
                gauge(&mut encoder, name, help, value)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_spaces_and_parentheses_do_not_shift_fields() {
        let stat = "42 (a (b) c) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 1 0 1000 8192 300";
        let fields = stat_fields(stat).unwrap();
        assert_eq!(fields[14 - 3], "250");
        assert_eq!(fields[23 - 3], "8192");
    }

    #[test]
    fn encodes_the_process_families_on_linux() {
        let mut registry = prometheus_client::registry::Registry::default();
        registry.register_collector(Box::new(ProcessCollector));
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        if cfg!(target_os = "linux") {
            for name in [
                "process_cpu_seconds_total",
                "process_resident_memory_bytes",
                "process_start_time_seconds",
                "process_open_fds",
            ] {
                assert!(text.contains(name), "{name} missing:\n{text}");
            }
        }
    }
}
