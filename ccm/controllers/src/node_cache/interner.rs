//! The process-wide interner of the Node cache: label and annotation keys and values, address
//! types and condition statuses are mostly the same text on every Node of a pool, so each
//! distinct text is kept once and shared (`Arc<str>`) by every cached Node, and so is each
//! distinct key-value [`Pair`]: a Node holds one thin pointer per label (8 bytes, not the 32 of
//! two `Arc<str>`), and 16 of a kubelet's 17 labels are the same pair on every Node of its pool.
//!
//! Pairs and texts no cached Node holds any more (the hostname label of a deleted Node) are
//! dropped by a sweep that runs when a set has doubled since its last one, so the interner holds
//! at most about twice the live distinct entries and each insertion stays amortised O(1).
//! Measured (`cargo bench -p ccm-controllers --bench slim_nodes`): the Nodes of a pool share all
//! but their per-Node values (hostname label, CSI node-id annotation).

use std::fmt;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, PoisonError};

use ccm_cloud::shared_set::SharedSet;
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};

/// A label or annotation (or a condition's type and status), shared by every Node that has it.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Pair {
    key: Arc<str>,
    value: Arc<str>,
}

impl Pair {
    /// The key (label name, condition type).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The value (label value, condition status).
    pub fn value(&self) -> &str {
        &self.value
    }
}

struct Interner {
    texts: SharedSet<str>,
    pairs: SharedSet<Pair>,
}

static INTERNER: LazyLock<Mutex<Interner>> = LazyLock::new(|| {
    Mutex::new(Interner {
        texts: SharedSet::default(),
        pairs: SharedSet::default(),
    })
});

fn interner() -> MutexGuard<'static, Interner> {
    INTERNER.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The shared copy of `text` (created on first use).
pub fn intern(text: &str) -> Arc<str> {
    interner().texts.get(text, || Arc::from(text))
}

/// The shared pair of two interned texts (created on first use).
pub fn intern_pair(key: Arc<str>, value: Arc<str>) -> Arc<Pair> {
    let probe = Pair { key, value };
    let make = || {
        Arc::new(Pair {
            key: Arc::clone(&probe.key),
            value: Arc::clone(&probe.value),
        })
    };
    interner().pairs.get(&probe, make)
}

/// How many distinct texts and pairs the interner holds (tests and benches).
pub fn interned_count() -> (usize, usize) {
    let interner = interner();
    (interner.texts.len(), interner.pairs.len())
}

/// A decoded JSON string, interned without an intermediate `String` when the text needs no
/// unescaping.
pub struct Interned(pub Arc<str>);

impl<'de> Deserialize<'de> for Interned {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = Interned;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Interned, E> {
                Ok(Interned(intern(text)))
            }
        }
        deserializer.deserialize_str(Text)
    }
}

/// A string map (labels, annotations) as interned pairs sorted by key, each key once; or the
/// kept conditions (type and status), in input order.
pub type Pairs = Box<[Arc<Pair>]>;

/// `pairs` sorted by key, the last of equal keys kept (as a map decode keeps it).
pub fn sorted_pairs(mut pairs: Vec<Arc<Pair>>) -> Pairs {
    // Stable: equal keys stay in input order, so the last of each run is the last given.
    pairs.sort_by(|a, b| a.key.cmp(&b.key));
    let mut kept: Vec<Arc<Pair>> = Vec::with_capacity(pairs.len());
    for pair in pairs {
        match kept.last_mut() {
            Some(last) if last.key == pair.key => *last = pair,
            _ => kept.push(pair),
        }
    }
    kept.into_boxed_slice()
}

/// The value of `key` in sorted `pairs`.
pub fn lookup<'a>(pairs: &'a [Arc<Pair>], key: &str) -> Option<&'a str> {
    pairs
        .binary_search_by(|p| p.key().cmp(key))
        .ok()
        .map(|index| pairs[index].value())
}

/// Pairs of a whole Node's map.
pub fn pairs_of<'a>(map: impl IntoIterator<Item = (&'a String, &'a String)>) -> Pairs {
    sorted_pairs(
        map.into_iter()
            .map(|(k, v)| intern_pair(intern(k), intern(v)))
            .collect(),
    )
}

/// A JSON object of strings decoded straight into interned [`Pairs`].
pub struct InternedPairs(pub Pairs);

impl<'de> Deserialize<'de> for InternedPairs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Map;
        impl<'de> Visitor<'de> for Map {
            type Value = InternedPairs;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of strings")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<InternedPairs, A::Error> {
                let mut pairs = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some((Interned(k), Interned(v))) = map.next_entry()? {
                    pairs.push(intern_pair(k, v));
                }
                Ok(InternedPairs(sorted_pairs(pairs)))
            }
        }
        deserializer.deserialize_map(Map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_and_pairs_share_one_allocation() {
        let a = intern("kubernetes.io/os-interner-test");
        let b = intern(&String::from("kubernetes.io/os-interner-test"));
        assert!(Arc::ptr_eq(&a, &b));
        let p = intern_pair(a, intern("linux"));
        let q = intern_pair(b, intern("linux"));
        assert!(Arc::ptr_eq(&p, &q));
        assert_eq!(
            (q.key(), q.value()),
            ("kubernetes.io/os-interner-test", "linux")
        );
    }

    #[test]
    fn pairs_are_sorted_the_last_duplicate_wins_and_decode_from_json() {
        let decoded: InternedPairs =
            serde_json::from_str(r#"{"b": "1", "a": "2", "b": "3", "c\"": "\u0041"}"#)
                .expect("a map");
        let pairs: Vec<(&str, &str)> = decoded.0.iter().map(|p| (p.key(), p.value())).collect();
        assert_eq!(pairs, [("a", "2"), ("b", "3"), ("c\"", "A")]);
        assert_eq!(lookup(&decoded.0, "b"), Some("3"));
        assert_eq!(lookup(&decoded.0, "d"), None);
    }

    #[test]
    fn entries_no_node_holds_are_swept() {
        use ccm_cloud::shared_set::MIN_SWEEP;
        let kept = intern_pair(intern("held-interner-test"), intern("by-a-node"));
        for i in 0..(3 * MIN_SWEEP) {
            let text = format!("transient-interner-test-{i}");
            drop(intern_pair(intern(&text), intern("v")));
        }
        // A sweep of each set ran after the transient entries: fewer than all remain.
        let (texts, pairs) = interned_count();
        assert!(
            texts < 3 * MIN_SWEEP && pairs < 3 * MIN_SWEEP,
            "{texts} {pairs}"
        );
        let again = intern_pair(intern("held-interner-test"), intern("by-a-node"));
        assert!(Arc::ptr_eq(&kept, &again));
    }
}
