//! GUIDs derived from a seed string: the fakes give objects ids (principal and object ids, placement
//! groups) that stay the same across runs for the same input, as a real tenant's do for one object.

use sha2::{Digest, Sha256};

/// A GUID-shaped id (8-4-4-4-12 hex digits) from the SHA-256 of `seed`: stable across runs.
pub fn stable_guid(seed: &str) -> String {
    let h = hex::encode(&Sha256::digest(seed.as_bytes())[..16]);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guid_shaped_stable_and_seed_specific() {
        let g = stable_guid("principal/app-1");
        let groups: Vec<usize> = g.split('-').map(str::len).collect();
        assert_eq!(groups, [8, 4, 4, 4, 12]);
        assert!(g.chars().all(|ch| ch == '-' || ch.is_ascii_hexdigit()));
        assert_eq!(g, stable_guid("principal/app-1"));
        assert_ne!(g, stable_guid("principal/app-2"));
    }
}
