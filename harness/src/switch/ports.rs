//! Secure ports for the managers: every manager serves `/healthz` on a port of its own on
//! 127.0.0.1 (several replicas and scenarios share the machine). Ports are drawn below Linux's
//! ephemeral range (32768-60999), where no outgoing connection of the harness or the managers
//! can take one between the check and the manager's own bind; the draw is spread by process id
//! and time so concurrent harnesses rarely try the same one, and each is checked free by binding.
//! Within one harness, a port handed out is not handed out again (managers start concurrently,
//! and one drawn a moment ago may not be bound yet) until most of the range has gone.

use std::collections::BTreeSet;
use std::net::{Ipv4Addr, TcpListener};
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

/// First port drawn from.
const LOW: u16 = 20000;
/// One past the last port drawn from (the ephemeral range starts here).
const HIGH: u16 = 32768;
/// Draws before falling back to a port the kernel picks.
const TRIES: u32 = 64;
/// Ports handed out by this process, forgotten once they fill half the range.
static HANDED: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());

/// A port on 127.0.0.1 that was free a moment ago.
pub fn free_port() -> std::io::Result<u16> {
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos())
        ^ std::process::id().rotate_left(16);
    let mut handed = HANDED.lock().unwrap_or_else(PoisonError::into_inner);
    if handed.len() >= usize::from(HIGH - LOW) / 2 {
        handed.clear();
    }
    for i in 0..TRIES {
        let port = draw(seed, i);
        if !handed.contains(&port) && TcpListener::bind((Ipv4Addr::LOCALHOST, port)).is_ok() {
            handed.insert(port);
            return Ok(port);
        }
    }
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?
        .local_addr()?
        .port())
}

/// The `i`-th port of the draw from `seed` (a multiplicative hash, so successive draws scatter).
fn draw(seed: u32, i: u32) -> u16 {
    let mixed = seed.wrapping_add(i).wrapping_mul(0x9E37_79B1);
    let span = u32::from(HIGH - LOW);
    LOW + u16::try_from((mixed >> 8) % span).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_stay_below_the_ephemeral_range_and_scatter() {
        let ports: std::collections::BTreeSet<u16> = (0..64).map(|i| draw(12345, i)).collect();
        assert!(ports.iter().all(|p| (LOW..HIGH).contains(p)));
        assert!(ports.len() > 60, "{ports:?}");
    }

    #[test]
    fn a_port_is_not_handed_out_twice() {
        let ports: BTreeSet<u16> = (0..200).map(|_| free_port().unwrap()).collect();
        assert_eq!(ports.len(), 200);
    }

    #[test]
    fn a_free_port_can_be_bound() {
        let port = free_port().unwrap();
        TcpListener::bind((Ipv4Addr::LOCALHOST, port)).unwrap();
    }
}
