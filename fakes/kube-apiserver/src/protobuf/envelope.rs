//! The Kubernetes protobuf envelope: the 4-byte `k8s\0` prefix, then a `runtime.Unknown`
//! message (`typeMeta = 1 {apiVersion = 1, kind = 2}`, `raw = 2`, `contentEncoding = 3`,
//! `contentType = 4`) whose `raw` bytes are the typed object.

use super::error::ProtobufError;
use super::wire::{Reader, WireType};

/// The prefix every Kubernetes protobuf body starts with.
pub const MAGIC: &[u8] = b"k8s\x00";

/// A parsed envelope: which kind the raw bytes are, and the bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope<'a> {
    /// `typeMeta.apiVersion`, e.g. `apps/v1`.
    pub api_version: String,
    /// `typeMeta.kind`, e.g. `Deployment`.
    pub kind: String,
    /// The typed message.
    pub raw: &'a [u8],
}

/// Splits a request body into its type and the typed message bytes.
pub fn parse(body: &[u8]) -> Result<Envelope<'_>, ProtobufError> {
    let unknown = body.strip_prefix(MAGIC).ok_or(ProtobufError::NoMagic)?;
    let mut envelope = Envelope {
        api_version: String::new(),
        kind: String::new(),
        raw: &[],
    };
    let mut reader = Reader::new(unknown);
    while !reader.is_done() {
        let (number, wire) = reader.tag()?;
        if wire != WireType::Len || !(1..=4).contains(&number) {
            return Err(ProtobufError::UnknownField {
                message: "k8s.io.apimachinery.pkg.runtime.Unknown",
                number,
                wire: wire.number(),
            });
        }
        let bytes = reader.len_delimited()?;
        match number {
            1 => type_meta(bytes, &mut envelope)?,
            2 => envelope.raw = bytes,
            3 => reject_non_empty("contentEncoding", bytes, "")?,
            _ => reject_non_empty("contentType", bytes, super::MEDIA_TYPE)?,
        }
    }
    Ok(envelope)
}

/// `runtime.TypeMeta{apiVersion = 1, kind = 2}`.
fn type_meta(bytes: &[u8], envelope: &mut Envelope<'_>) -> Result<(), ProtobufError> {
    let mut reader = Reader::new(bytes);
    while !reader.is_done() {
        let (number, wire) = reader.tag()?;
        if wire != WireType::Len || !(1..=2).contains(&number) {
            return Err(ProtobufError::UnknownField {
                message: "k8s.io.apimachinery.pkg.runtime.TypeMeta",
                number,
                wire: wire.number(),
            });
        }
        let text =
            String::from_utf8(reader.len_delimited()?.to_vec()).map_err(|_| ProtobufError::Utf8)?;
        if number == 1 {
            envelope.api_version = text;
        } else {
            envelope.kind = text;
        }
    }
    Ok(())
}

/// Only uncompressed protobuf raw bytes are understood (client-go never sets either field).
fn reject_non_empty(field: &'static str, bytes: &[u8], allowed: &str) -> Result<(), ProtobufError> {
    if bytes.is_empty() || bytes == allowed.as_bytes() {
        Ok(())
    } else {
        Err(ProtobufError::Envelope {
            field,
            value: String::from_utf8_lossy(bytes).into_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body kubectl 1.33 sends for `kubectl create namespace foo`, captured with `-v=9`.
    const CREATE_NAMESPACE: &[u8] = b"k8s\x00\x0a\x0f\x0a\x02v1\x12\x09Namespace\x12\x1b\x0a\x13\x0a\x03foo\x12\x00\x1a\x00\x22\x00\x2a\x00\x32\x00\x38\x00\x42\x00\x12\x00\x1a\x02\x0a\x00\x1a\x00\x22\x00";

    #[test]
    fn kubectl_create_namespace() {
        let e = parse(CREATE_NAMESPACE).unwrap();
        assert_eq!(
            (e.api_version.as_str(), e.kind.as_str()),
            ("v1", "Namespace")
        );
        assert_eq!(e.raw.len(), 0x1b);
    }

    #[test]
    fn rejects() {
        assert_eq!(parse(b"{\"kind\":1}"), Err(ProtobufError::NoMagic));
        let gzip = b"k8s\x00\x1a\x04gzip";
        assert_eq!(
            parse(gzip),
            Err(ProtobufError::Envelope {
                field: "contentEncoding",
                value: "gzip".into()
            })
        );
        assert!(matches!(
            parse(b"k8s\x00\x28\x01"),
            Err(ProtobufError::UnknownField { number: 5, .. })
        ));
    }
}
