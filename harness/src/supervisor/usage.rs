//! What a child costs, read from `/proc/<pid>` while it runs: its peak resident set (`VmHWM` of
//! `status`, the kernel's own high-water mark, so a reading just before it ends is its peak over
//! its whole life) and the CPU time it used (`utime` + `stime` of `stat`, in clock ticks). Two
//! builds of a manager are compared on these beside their ARM calls.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// One reading of a process's resources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Peak resident set size so far, KiB.
    pub peak_rss_kib: u64,
    /// User + system CPU time so far, milliseconds.
    pub cpu_ms: u64,
}

/// The resources of process `pid` now; `None` once it is gone (or `/proc` is not readable).
pub fn read(pid: u32) -> Option<Usage> {
    let dir = Path::new("/proc").join(pid.to_string());
    let status = std::fs::read_to_string(dir.join("status")).ok()?;
    let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
    Some(Usage {
        peak_rss_kib: peak_rss_kib(&status)?,
        cpu_ms: cpu_ticks(&stat)?.saturating_mul(1000) / clock_ticks_per_second(),
    })
}

/// `VmHWM:   12345 kB` of a `status` file.
fn peak_rss_kib(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// `utime` + `stime` (fields 14 and 15) of a `stat` line; the command name (field 2) is in
/// parentheses and may hold spaces, so fields are counted after its closing one.
fn cpu_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

fn clock_ticks_per_second() -> u64 {
    // SAFETY: sysconf(3) only reads a configuration value.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).ok().filter(|t| *t > 0).unwrap_or(100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_status_and_stat() {
        let status = "Name:\tccm\nVmPeak:\t  900 kB\nVmHWM:\t   20480 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(peak_rss_kib(status), Some(20480));
        let stat = "4242 (cloud controller) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0";
        assert_eq!(cpu_ticks(stat), Some(300));
        assert_eq!(peak_rss_kib("Name: x\n"), None);
        assert_eq!(cpu_ticks("garbage"), None);
    }

    #[test]
    fn reads_this_process() {
        let usage = read(std::process::id()).expect("our own /proc entry");
        assert!(usage.peak_rss_kib > 0);
    }
}
