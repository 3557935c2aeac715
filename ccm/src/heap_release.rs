//! Hands the heap pages glibc's malloc keeps after frees back to the kernel, periodically.
//!
//! glibc returns freed memory to the kernel only from the top of each arena, so the pages of the
//! short-lived documents of a reconcile (list pages, load balancer documents, PUT bodies) stay
//! resident once a longer-lived allocation lands above them: measured at 5000 nodes and 1000
//! Services, the process's RSS grew about 45 MiB over the Services phase while its live heap did
//! not (ccm/README.md, "Scale and memory"). `malloc_trim(0)` releases every whole free page of
//! every arena (glibc >= 2.8); it costs a walk of the free lists, a few milliseconds here.
//! Other C libraries (musl) return memory on their own: there it does nothing.
//!
//! [`limit_arenas`] also keeps glibc to one malloc arena (unless `MALLOC_ARENA_MAX` says
//! otherwise): with an arena per runtime thread, the free space of one arena cannot serve
//! another thread's allocations. Measured at 5000 Nodes and 300 Services: steady-state peak
//! 87.1 -> 81.4 MiB, peak over the run 90.6 -> 83.6 MiB (ccm/README.md, "Scale and memory").
//! glibc's per-thread caches keep the shared arena's lock off most allocations.

use std::ffi::OsStr;
use std::time::Duration;

/// The malloc arenas the binaries run with, unless `MALLOC_ARENA_MAX` is set.
pub const ARENAS: i32 = 1;

/// The arena limit to set at start: [`ARENAS`], or none when the environment chose one (glibc
/// reads `MALLOC_ARENA_MAX` itself).
pub fn arena_limit(environment: Option<&OsStr>) -> Option<i32> {
    environment.is_none().then_some(ARENAS)
}

/// Limits glibc to [`arena_limit`] arenas; call before the runtime starts its threads. True when
/// a limit was set.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn limit_arenas() -> bool {
    let Some(limit) = arena_limit(std::env::var_os("MALLOC_ARENA_MAX").as_deref()) else {
        return false;
    };
    // SAFETY: mallopt takes no pointer; it only sets a parameter of glibc's allocator under its
    // lock, and M_ARENA_MAX only bounds arenas created later.
    unsafe { libc::mallopt(libc::M_ARENA_MAX, limit) == 1 }
}

/// Limits the malloc arenas; other C libraries have no such setting.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn limit_arenas() -> bool {
    false
}

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

    #[test]
    fn one_arena_unless_the_environment_chose() {
        assert_eq!(arena_limit(None), Some(1));
        assert_eq!(arena_limit(Some(OsStr::new("4"))), None);
    }

    #[test]
    fn glibc_takes_the_arena_limit() {
        assert!(
            limit_arenas() || std::env::var_os("MALLOC_ARENA_MAX").is_some(),
            "mallopt(M_ARENA_MAX) refused"
        );
    }

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
