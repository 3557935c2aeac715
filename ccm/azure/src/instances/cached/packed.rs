//! [`Packed`]: a member cached as its compact JSON text, for the members a PUT sends back whole
//! but no reader looks into between writes: a few hundred bytes of text instead of a tree of
//! structs and `extra` maps several times that size. The text is canonical, so equal members
//! share one copy: every instance of a scale set has the same network profile, which was 5000
//! copies of ~1 KiB at 5000 instances and is now one per distinct profile ([`SharedSet`]).

use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use ccm_cloud::shared_set::SharedSet;
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize};

/// A `T` kept as the text `serde_json` writes for it. Decoding checks the member's shape as the
/// typed member would (a malformed one fails the list as before) and re-encodes it, so the text
/// is canonical: [`Packed::unpack`] gives back the value decoded from the document, and equal
/// values have equal texts.
pub struct Packed<T> {
    text: Arc<str>,
    kind: PhantomData<fn() -> T>,
}

/// The distinct texts packed by the process.
static TEXTS: LazyLock<Mutex<SharedSet<str>>> = LazyLock::new(Mutex::default);

/// The shared copy of `text`.
fn shared(text: &str) -> Arc<str> {
    TEXTS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(text, || Arc::from(text))
}

impl<T: Serialize + DeserializeOwned> Packed<T> {
    /// Packs `value`.
    pub fn pack(value: &T) -> Result<Packed<T>, serde_json::Error> {
        Ok(Packed {
            text: shared(&serde_json::to_string(value)?),
            kind: PhantomData,
        })
    }

    /// The value again (a fresh copy to edit).
    pub fn unpack(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(&self.text)
    }
}

impl<T> Packed<T> {
    /// The JSON text.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl<T> Clone for Packed<T> {
    fn clone(&self) -> Packed<T> {
        Packed {
            text: Arc::clone(&self.text),
            kind: PhantomData,
        }
    }
}

impl<T> PartialEq for Packed<T> {
    fn eq(&self, other: &Packed<T>) -> bool {
        self.text == other.text
    }
}

impl<T> fmt::Debug for Packed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl<'de, T: Serialize + DeserializeOwned> Deserialize<'de> for Packed<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Packed<T>, D::Error> {
        let value = T::deserialize(deserializer)?;
        Packed::pack(&value).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arm::resources::scale_set_network::ScaleSetNetworkProfile;
    use serde_json::json;

    #[test]
    fn a_packed_member_is_canonical_text_and_unpacks_to_the_decoded_value() {
        let member = json!({ "networkInterfaceConfigurations": [
            { "name": "nic", "properties": { "primary": true, "enableIPForwarding": null,
              "ipConfigurations": [{ "name": "ipconfig1", "properties": { "primary": true } }] } }
        ], "networkApiVersion": "2020-11-01" });
        let spaced = serde_json::to_string_pretty(&member).expect("text");
        let packed: Packed<ScaleSetNetworkProfile> = serde_json::from_str(&spaced).expect("packs");
        let typed: ScaleSetNetworkProfile = serde_json::from_value(member).expect("typed");
        assert_eq!(packed.unpack().expect("unpacks"), typed);
        assert_eq!(packed.text(), serde_json::to_string(&typed).expect("text"));
        assert_eq!(packed, Packed::pack(&typed).expect("packs"));
        assert!(!packed.text().contains('\n'));
    }

    #[test]
    fn equal_members_share_one_text() {
        let member = json!({ "networkInterfaceConfigurations": [{ "name": "shared-nic" }] });
        let a: Packed<ScaleSetNetworkProfile> = serde_json::from_value(member.clone()).expect("a");
        let b: Packed<ScaleSetNetworkProfile> = serde_json::from_value(member).expect("b");
        assert!(Arc::ptr_eq(&a.text, &b.text));
    }

    #[test]
    fn a_malformed_member_fails_like_the_typed_member() {
        let bad = r#"{ "networkInterfaceConfigurations": "not a list" }"#;
        assert!(serde_json::from_str::<Packed<ScaleSetNetworkProfile>>(bad).is_err());
        assert!(serde_json::from_str::<ScaleSetNetworkProfile>(bad).is_err());
    }
}
