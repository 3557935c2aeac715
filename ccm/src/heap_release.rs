//! Hands the heap pages glibc's malloc keeps after frees back to the kernel, periodically.
//!
//! glibc returns freed memory to the kernel only from the top of each arena, so the pages of the
//! short-lived documents of a reconcile (list pages, load balancer documents, PUT bodies) stay
//! resident once a longer-lived allocation lands above them: measured at 5000 nodes and 1000
//! Services, the process's RSS grew about 45 MiB over the Services phase while its live heap did
//! not (ccm/README.md, "Scale and memory"). `malloc_trim(0)` releases every whole free page of
//! every arena (glibc >= 2.8); it costs a walk of the free lists, a few milliseconds here.
//! Other C libraries (musl) return memory on their own: there it does nothing.

use std::time::Duration;

/// How often free pages are handed back: short against a reconcile burst, long against the walk.
pub const PERIOD: Duration = Duration::from_secs(5);

/// Releases free heap pages every [`PERIOD`], forever (spawn it; it ends with the runtime).
pub async fn release_periodically() {
    let mut ticker = tokio::time::interval(PERIOD);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticker.tick().await;
        release();
    }
}

/// Releases the free pages now; true when some memory went back to the kernel.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn release() -> bool {
    // SAFETY: malloc_trim takes no pointer and only walks glibc's own arenas under their locks;
    // it is safe to call from any thread at any time.
    unsafe { libc::malloc_trim(0) == 1 }
}

/// Releases the free pages now; the C library returns memory itself here.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn release() -> bool {
    false
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;

    fn rss_kib() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .expect("VmRSS")
    }

    #[test]
    fn freed_pages_below_a_live_allocation_go_back_to_the_kernel() {
        // 64 MiB in 4 KiB blocks, with every 64th kept: the heap cannot shrink from the top, so
        // without a trim the freed 63 of every 64 blocks stay resident.
        let mut blocks: Vec<Vec<u8>> = (0..16_384).map(|_| vec![1u8; 4096]).collect();
        let kept: Vec<Vec<u8>> = blocks
            .iter_mut()
            .enumerate()
            .filter(|(i, _)| i % 64 == 0)
            .map(|(_, b)| std::mem::take(b))
            .collect();
        drop(blocks);
        let before = rss_kib();
        assert!(release(), "glibc had free pages to return");
        let after = rss_kib();
        assert!(
            after + 16 * 1024 < before,
            "RSS {before} KiB -> {after} KiB: less than 16 MiB of the ~62 MiB freed went back"
        );
        assert_eq!(kept.len(), 256);
    }
}
