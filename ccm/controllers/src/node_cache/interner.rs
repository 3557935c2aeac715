//! The process-wide string interner of the Node cache: label and annotation keys and values,
//! address types and condition statuses are mostly the same text on every Node of a pool, so
//! each distinct text is kept once and shared (`Arc<str>`) by every cached Node.
//!
//! Texts no cached Node holds any more (the hostname label of a deleted Node) are dropped by a
//! sweep that runs when the set has doubled since the last one, so the interner holds at most
//! about twice the live distinct texts and each insertion stays amortised O(1).

use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};

/// The fewest entries at which a sweep runs.
const MIN_SWEEP: usize = 1024;

struct Interner {
    texts: HashSet<Arc<str>>,
    /// Size of the set at which the next sweep runs.
    sweep_at: usize,
}

static INTERNER: LazyLock<Mutex<Interner>> = LazyLock::new(|| {
    Mutex::new(Interner {
        texts: HashSet::new(),
        sweep_at: MIN_SWEEP,
    })
});

/// The shared copy of `text` (created on first use).
pub fn intern(text: &str) -> Arc<str> {
    let mut interner = INTERNER.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(shared) = interner.texts.get(text) {
        return Arc::clone(shared);
    }
    if interner.texts.len() >= interner.sweep_at {
        interner.texts.retain(|t| Arc::strong_count(t) > 1);
        interner.sweep_at = (interner.texts.len() * 2).max(MIN_SWEEP);
    }
    let shared: Arc<str> = Arc::from(text);
    interner.texts.insert(Arc::clone(&shared));
    shared
}

/// How many distinct texts the interner holds (tests and benches).
pub fn interned_count() -> usize {
    INTERNER
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .texts
        .len()
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

/// A string map (labels, annotations) as interned pairs sorted by key, each key once.
pub type Pairs = Box<[(Arc<str>, Arc<str>)]>;

/// `pairs` sorted by key, the last of equal keys kept (as a map decode keeps it).
pub fn sorted_pairs(mut pairs: Vec<(Arc<str>, Arc<str>)>) -> Pairs {
    // Stable: equal keys stay in input order, so the last of each run is the last given.
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    let mut kept: Vec<(Arc<str>, Arc<str>)> = Vec::with_capacity(pairs.len());
    for pair in pairs {
        match kept.last_mut() {
            Some(last) if last.0 == pair.0 => *last = pair,
            _ => kept.push(pair),
        }
    }
    kept.into_boxed_slice()
}

/// The value of `key` in sorted `pairs`.
pub fn lookup<'a>(pairs: &'a [(Arc<str>, Arc<str>)], key: &str) -> Option<&'a str> {
    pairs
        .binary_search_by(|(k, _)| (**k).cmp(key))
        .ok()
        .map(|index| &*pairs[index].1)
}

/// Pairs of an iterator of owned strings (a whole Node's map).
pub fn pairs_of<'a>(map: impl IntoIterator<Item = (&'a String, &'a String)>) -> Pairs {
    sorted_pairs(
        map.into_iter()
            .map(|(k, v)| (intern(k), intern(v)))
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
                    pairs.push((k, v));
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
    fn equal_texts_share_one_allocation() {
        let a = intern("kubernetes.io/os-interner-test");
        let b = intern(&String::from("kubernetes.io/os-interner-test"));
        assert!(Arc::ptr_eq(&a, &b));
    }

    #[test]
    fn pairs_are_sorted_the_last_duplicate_wins_and_decode_from_json() {
        let decoded: InternedPairs =
            serde_json::from_str(r#"{"b": "1", "a": "2", "b": "3", "c\"": "\u0041"}"#)
                .expect("a map");
        let pairs: Vec<(&str, &str)> = decoded.0.iter().map(|(k, v)| (&**k, &**v)).collect();
        assert_eq!(pairs, [("a", "2"), ("b", "3"), ("c\"", "A")]);
        assert_eq!(lookup(&decoded.0, "b"), Some("3"));
        assert_eq!(lookup(&decoded.0, "d"), None);
    }

    #[test]
    fn texts_no_node_holds_are_swept() {
        let kept = intern("held-by-a-node-interner-test");
        for i in 0..(3 * MIN_SWEEP) {
            drop(intern(&format!("transient-interner-test-{i}")));
        }
        // A sweep ran at least once after the transient texts: fewer than all remain.
        assert!(interned_count() < 3 * MIN_SWEEP);
        assert!(Arc::ptr_eq(&kept, &intern("held-by-a-node-interner-test")));
    }
}
