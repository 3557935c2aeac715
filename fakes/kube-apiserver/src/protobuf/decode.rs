//! Schema-driven decoding of one protobuf message into the JSON object the same Go value would
//! marshal to, so the request continues through the JSON path unchanged.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Map, Value};
use time::OffsetDateTime;

use super::error::ProtobufError;
use super::schema::{Cardinality, Field, Kind, Message};
use super::wire::{Reader, WireType};

/// Decodes `bytes` as `message` into a JSON object; errors carry the JSON path below `path`.
pub fn message(
    message: &'static Message,
    bytes: &[u8],
    path: &str,
) -> Result<Map<String, Value>, ProtobufError> {
    let mut out = Map::new();
    decode_into(message, bytes, path, &mut out)?;
    Ok(out)
}

/// Decodes `bytes` into `out`, merging with what is already there (protobuf merges a message
/// field that appears twice; inline-embedded structs share their parent's object).
fn decode_into(
    message: &'static Message,
    bytes: &[u8],
    path: &str,
    out: &mut Map<String, Value>,
) -> Result<(), ProtobufError> {
    let mut reader = Reader::new(bytes);
    while !reader.is_done() {
        let (number, wire) = reader.tag().map_err(|e| e.at(|| path.to_string()))?;
        let field = message.field(number).ok_or_else(|| {
            ProtobufError::UnknownField {
                message: message.name,
                number,
                wire: wire.number(),
            }
            .at(|| path.to_string())
        })?;
        decode_field(message, field, wire, &mut reader, path, out)
            .map_err(|e| e.at(|| join(path, field.json)))?;
    }
    Ok(())
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// Decodes one wire record of `field` into `out`.
fn decode_field(
    message: &'static Message,
    field: &'static Field,
    wire: WireType,
    reader: &mut Reader<'_>,
    path: &str,
    out: &mut Map<String, Value>,
) -> Result<(), ProtobufError> {
    let child = join(path, field.json);
    match field.kind {
        Kind::Map(value_kind) => {
            let bytes = expect_len(message, field, wire, reader)?;
            let (key, value) = map_entry(value_kind, bytes)?;
            let map = out
                .entry(field.json)
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(map) = map {
                map.insert(key, value);
            }
            Ok(())
        }
        Kind::Inline(inner) => {
            let bytes = expect_len(message, field, wire, reader)?;
            decode_into(inner, bytes, path, out)
        }
        Kind::Msg(inner) if field.cardinality != Cardinality::Repeated => {
            let bytes = expect_len(message, field, wire, reader)?;
            let slot = out
                .entry(field.json)
                .or_insert_with(|| Value::Object(Map::new()));
            match slot {
                Value::Object(obj) => decode_into(inner, bytes, &child, obj),
                other => {
                    *other = Value::Object(self::message(inner, bytes, &child)?);
                    Ok(())
                }
            }
        }
        kind if field.cardinality == Cardinality::Repeated => {
            let list = out
                .entry(field.json)
                .or_insert_with(|| Value::Array(Vec::new()));
            let Value::Array(list) = list else {
                return Err(ProtobufError::Invalid(format!(
                    "{} is both a list and a single value",
                    field.json
                )));
            };
            if wire == WireType::Len && expected_wire(kind) == WireType::Varint {
                // Packed encoding: one record holding consecutive varints.
                let mut packed = Reader::new(reader.len_delimited()?);
                while !packed.is_done() {
                    list.push(varint_value(kind, packed.varint()?));
                }
                return Ok(());
            }
            let index = list.len();
            let value = single(
                message,
                field,
                kind,
                wire,
                reader,
                &format!("{child}[{index}]"),
            )
            .map_err(|e| e.at(|| format!("{child}[{index}]")))?;
            list.push(value);
            Ok(())
        }
        kind => {
            let value = single(message, field, kind, wire, reader, &child)?;
            if field.cardinality == Cardinality::Value && is_zero(&value) {
                out.remove(field.json);
            } else {
                out.insert(field.json.to_string(), value);
            }
            Ok(())
        }
    }
}

/// The wire type a value of `kind` must use (repeated varints may also come packed).
fn expected_wire(kind: Kind) -> WireType {
    match kind {
        Kind::Bool | Kind::Int32 | Kind::Int64 => WireType::Varint,
        _ => WireType::Len,
    }
}

fn expect_len<'a>(
    message: &'static Message,
    field: &'static Field,
    wire: WireType,
    reader: &mut Reader<'a>,
) -> Result<&'a [u8], ProtobufError> {
    check_wire(message, field, wire, WireType::Len)?;
    reader.len_delimited()
}

fn check_wire(
    message: &'static Message,
    field: &'static Field,
    got: WireType,
    expected: WireType,
) -> Result<(), ProtobufError> {
    if got == expected {
        Ok(())
    } else {
        Err(ProtobufError::WireTypeMismatch {
            message: message.name,
            number: field.number,
            json: field.json,
            got: got.number(),
            expected: expected.number(),
        })
    }
}

/// One value of a scalar or well-known kind (or one element of a repeated message).
fn single(
    message: &'static Message,
    field: &'static Field,
    kind: Kind,
    wire: WireType,
    reader: &mut Reader<'_>,
    path: &str,
) -> Result<Value, ProtobufError> {
    check_wire(message, field, wire, expected_wire(kind))?;
    if expected_wire(kind) == WireType::Varint {
        return Ok(varint_value(kind, reader.varint()?));
    }
    let bytes = reader.len_delimited()?;
    match kind {
        Kind::Msg(inner) => Ok(Value::Object(self::message(inner, bytes, path)?)),
        other => len_value(other, bytes),
    }
}

/// A varint as the JSON value of `kind` (int32 truncates as protobuf specifies).
fn varint_value(kind: Kind, raw: u64) -> Value {
    match kind {
        Kind::Bool => Value::Bool(raw != 0),
        Kind::Int32 => Value::from(raw as i32),
        _ => Value::from(raw as i64),
    }
}

/// A length-delimited value of a scalar or well-known kind.
fn len_value(kind: Kind, bytes: &[u8]) -> Result<Value, ProtobufError> {
    Ok(match kind {
        Kind::Str => Value::String(utf8(bytes)?),
        Kind::Bytes => Value::String(BASE64.encode(bytes)),
        Kind::Quantity => Value::String(quantity(bytes)?),
        Kind::IntOrString => int_or_string(bytes)?,
        Kind::Time => timestamp(bytes, false)?,
        Kind::MicroTime => timestamp(bytes, true)?,
        Kind::FieldsV1 => fields_v1(bytes)?,
        Kind::Msg(inner) | Kind::Inline(inner) => Value::Object(message(inner, bytes, "")?),
        Kind::Bool | Kind::Int32 | Kind::Int64 | Kind::Map(_) => {
            return Err(ProtobufError::Invalid(format!(
                "{kind:?} is not a length-delimited value"
            )));
        }
    })
}

/// Whether a Go value field holds its zero value (which `omitempty` leaves out).
fn is_zero(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_i64() == Some(0),
        Value::String(s) => s.is_empty(),
        Value::Array(_) | Value::Object(_) => false,
    }
}

fn utf8(bytes: &[u8]) -> Result<String, ProtobufError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| ProtobufError::Utf8)
}

/// Iterates the records of a small well-known message, rejecting numbers it does not have.
fn records<'a>(
    name: &'static str,
    bytes: &'a [u8],
    known: &[(u32, WireType)],
    mut each: impl FnMut(u32, &mut Reader<'a>) -> Result<(), ProtobufError>,
) -> Result<(), ProtobufError> {
    let mut reader = Reader::new(bytes);
    while !reader.is_done() {
        let (number, wire) = reader.tag()?;
        match known.iter().find(|(n, _)| *n == number) {
            Some((_, expected)) if *expected == wire => each(number, &mut reader)?,
            Some((_, expected)) => {
                return Err(ProtobufError::Invalid(format!(
                    "{name} field {number} has wire type {}, expected {}",
                    wire.number(),
                    expected.number()
                )));
            }
            None => {
                return Err(ProtobufError::UnknownField {
                    message: name,
                    number,
                    wire: wire.number(),
                });
            }
        }
    }
    Ok(())
}

/// `resource.Quantity{string = 1}`.
fn quantity(bytes: &[u8]) -> Result<String, ProtobufError> {
    let mut text = String::new();
    records(
        "k8s.io.apimachinery.pkg.api.resource.Quantity",
        bytes,
        &[(1, WireType::Len)],
        |_, r| {
            text = utf8(r.len_delimited()?)?;
            Ok(())
        },
    )?;
    // Go's zero Quantity marshals to "0".
    if text.is_empty() {
        text.push('0');
    }
    Ok(text)
}

/// `intstr.IntOrString{type = 1, intVal = 2, strVal = 3}`: type 0 is an int, 1 a string.
fn int_or_string(bytes: &[u8]) -> Result<Value, ProtobufError> {
    let (mut ty, mut int_val, mut str_val) = (0u64, 0i32, String::new());
    records(
        "k8s.io.apimachinery.pkg.util.intstr.IntOrString",
        bytes,
        &[
            (1, WireType::Varint),
            (2, WireType::Varint),
            (3, WireType::Len),
        ],
        |number, r| {
            match number {
                1 => ty = r.varint()?,
                2 => int_val = r.varint()? as i32,
                _ => str_val = utf8(r.len_delimited()?)?,
            }
            Ok(())
        },
    )?;
    match ty {
        0 => Ok(Value::from(int_val)),
        1 => Ok(Value::String(str_val)),
        other => Err(ProtobufError::Invalid(format!(
            "IntOrString type {other} is neither 0 (int) nor 1 (string)"
        ))),
    }
}

/// `metav1.Time`/`MicroTime` (`{seconds = 1, nanos = 2}`); an empty message is Go's zero time,
/// which marshals to JSON `null`.
fn timestamp(bytes: &[u8], micro: bool) -> Result<Value, ProtobufError> {
    if bytes.is_empty() {
        return Ok(Value::Null);
    }
    let (mut seconds, mut nanos) = (0i64, 0i64);
    records(
        "k8s.io.apimachinery.pkg.apis.meta.v1.Timestamp",
        bytes,
        &[(1, WireType::Varint), (2, WireType::Varint)],
        |number, r| {
            let raw = r.varint()?;
            if number == 1 {
                seconds = raw as i64;
            } else {
                nanos = i64::from(raw as i32);
            }
            Ok(())
        },
    )?;
    let out_of_range =
        || ProtobufError::Invalid(format!("time {seconds}s {nanos}ns is out of range"));
    let t = OffsetDateTime::from_unix_timestamp(seconds)
        .ok()
        .filter(|t| (0..=9999).contains(&t.year()) && (0..1_000_000_000).contains(&nanos))
        .ok_or_else(out_of_range)?;
    let base = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    );
    Ok(Value::String(if micro {
        format!("{base}.{:06}Z", nanos / 1000)
    } else {
        format!("{base}Z")
    }))
}

/// `metav1.FieldsV1{Raw = 1}`: the raw bytes are the JSON field set.
fn fields_v1(bytes: &[u8]) -> Result<Value, ProtobufError> {
    let mut raw: &[u8] = &[];
    records(
        "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1",
        bytes,
        &[(1, WireType::Len)],
        |_, r| {
            raw = r.len_delimited()?;
            Ok(())
        },
    )?;
    if raw.is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_slice(raw)
        .map_err(|e| ProtobufError::Invalid(format!("FieldsV1 is not JSON: {e}")))
}

/// One `map<string, V>` entry (`key = 1`, `value = 2`); a missing value is V's zero value.
fn map_entry(value_kind: &'static Kind, bytes: &[u8]) -> Result<(String, Value), ProtobufError> {
    let mut key = String::new();
    let mut value = None;
    let value_wire = expected_wire(*value_kind);
    records(
        "map entry",
        bytes,
        &[(1, WireType::Len), (2, value_wire)],
        |number, r| {
            if number == 1 {
                key = utf8(r.len_delimited()?)?;
            } else if value_wire == WireType::Varint {
                value = Some(varint_value(*value_kind, r.varint()?));
            } else {
                value = Some(len_value(*value_kind, r.len_delimited()?)?);
            }
            Ok(())
        },
    )?;
    let value = match value {
        Some(v) => v,
        None => len_value(*value_kind, &[])?,
    };
    Ok((key, value))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::protobuf::tables::root;

    // A tiny encoder, written from the wire-format rules, to build bodies field by field.
    fn varint(mut n: u64, out: &mut Vec<u8>) {
        while n >= 0x80 {
            out.push((n as u8) | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
    }
    fn num(field: u32, n: i64) -> Vec<u8> {
        let mut out = Vec::new();
        varint(u64::from(field) << 3, &mut out);
        varint(n as u64, &mut out);
        out
    }
    fn bytes(field: u32, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        varint((u64::from(field) << 3) | 2, &mut out);
        varint(payload.len() as u64, &mut out);
        out.extend_from_slice(payload);
        out
    }
    fn text(field: u32, s: &str) -> Vec<u8> {
        bytes(field, s.as_bytes())
    }
    fn msg(field: u32, parts: &[Vec<u8>]) -> Vec<u8> {
        bytes(field, &parts.concat())
    }
    fn entry(field: u32, key: &str, value: Vec<u8>) -> Vec<u8> {
        msg(field, &[text(1, key), value])
    }
    fn decode(api_version: &str, kind: &str, parts: &[Vec<u8>]) -> Result<Value, ProtobufError> {
        message(root(api_version, kind).unwrap(), &parts.concat(), "").map(Value::Object)
    }

    #[test]
    fn config_map_maps_bytes_and_pointer_bool() {
        let got = decode(
            "v1",
            "ConfigMap",
            &[
                msg(
                    1,
                    &[
                        text(1, "cm"),
                        text(3, "default"),
                        entry(11, "app", text(2, "web")),
                    ],
                ),
                entry(2, "a", text(2, "b")),
                entry(2, "empty", Vec::new()),
                entry(3, "bin", bytes(2, &[0, 1, 2, 255])),
                num(4, 0),
            ],
        )
        .unwrap();
        assert_eq!(
            got,
            json!({
                "metadata": {"name": "cm", "namespace": "default", "labels": {"app": "web"}},
                "data": {"a": "b", "empty": ""},
                "binaryData": {"bin": "AAEC/w=="},
                "immutable": false,
            })
        );
    }

    #[test]
    fn value_zeros_are_unset_pointer_zeros_are_kept() {
        // What gogo marshals for an empty ObjectMeta: every value field, zero.
        let meta = msg(
            1,
            &[
                text(1, ""),
                text(2, ""),
                text(3, ""),
                num(7, 0),
                msg(8, &[]),
            ],
        );
        let spec = msg(
            2,
            &[num(1, 0), msg(4, &[]), num(5, 0), num(7, 0), num(9, 600)],
        );
        let got = decode("apps/v1", "Deployment", &[meta, spec]).unwrap();
        assert_eq!(
            got,
            json!({
                "metadata": {},
                "spec": {"replicas": 0, "strategy": {}, "progressDeadlineSeconds": 600},
            })
        );
    }

    #[test]
    fn inline_embeddings_and_well_known_types() {
        let probe = msg(
            10,
            &[msg(
                1,
                &[
                    msg(2, &[msg(2, &[num(2, 8080)])]),
                    entry(7, "x", Vec::new()),
                ],
            )],
        );
        let container = msg(2, &[text(1, "app"), probe]);
        let spec = msg(2, &[container]);
        let err = decode("v1", "Pod", std::slice::from_ref(&spec)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "spec.containers[0].livenessProbe: k8s.io.api.core.v1.ProbeHandler has no field number 7 (wire type 2)"
        );
        let container_ok = msg(
            2,
            &[
                text(1, "app"),
                msg(
                    10,
                    &[
                        msg(1, &[msg(2, &[msg(2, &[num(1, 1), text(3, "http")])])]),
                        num(2, 5),
                    ],
                ),
                msg(
                    8,
                    &[
                        entry(1, "cpu", msg(2, &[text(1, "500m")])),
                        entry(2, "memory", msg(2, &[text(1, "64Mi")])),
                        entry(2, "zero", Vec::new()),
                    ],
                ),
            ],
        );
        let volume = msg(
            1,
            &[
                text(1, "conf"),
                msg(2, &[msg(19, &[msg(1, &[text(1, "settings")]), num(4, 1)])]),
            ],
        );
        let packed = {
            let mut groups = Vec::new();
            varint(3000, &mut groups);
            varint(4000, &mut groups);
            bytes(4, &groups)
        };
        let security = msg(14, &[num(4, 1000), num(4, 2000), packed]);
        let status = msg(3, &[msg(7, &[num(1, 1_700_000_000), num(2, 5)])]);
        let got = decode(
            "v1",
            "Pod",
            &[msg(2, &[volume, container_ok, security]), status],
        )
        .unwrap();
        assert_eq!(
            got,
            json!({
                "spec": {
                    "volumes": [{"name": "conf", "configMap": {"name": "settings", "optional": true}}],
                    "containers": [{
                        "name": "app",
                        "livenessProbe": {"httpGet": {"port": "http"}, "initialDelaySeconds": 5},
                        "resources": {"limits": {"cpu": "500m"}, "requests": {"memory": "64Mi", "zero": "0"}},
                    }],
                    "securityContext": {"supplementalGroups": [1000, 2000, 3000, 4000]},
                },
                "status": {"startTime": "2023-11-14T22:13:20Z"},
            })
        );
    }

    #[test]
    fn micro_time_int_or_string_and_negative_ints() {
        let lease = decode(
            "coordination.k8s.io/v1",
            "Lease",
            &[msg(
                2,
                &[
                    text(1, "node-1"),
                    msg(4, &[num(1, 1_700_000_000), num(2, 123_456_789)]),
                    num(5, -1),
                ],
            )],
        )
        .unwrap();
        assert_eq!(
            lease,
            json!({"spec": {
                "holderIdentity": "node-1",
                "renewTime": "2023-11-14T22:13:20.123456Z",
                "leaseTransitions": -1,
            }})
        );
        let pdb = decode(
            "policy/v1",
            "PodDisruptionBudget",
            &[msg(
                2,
                &[
                    msg(1, &[num(1, 0), num(2, 0)]),
                    msg(3, &[num(1, 1), text(3, "50%")]),
                ],
            )],
        )
        .unwrap();
        assert_eq!(
            pdb,
            json!({"spec": {"minAvailable": 0, "maxUnavailable": "50%"}})
        );
    }

    #[test]
    fn malformed_bodies_name_the_field() {
        let wrong_wire = decode("v1", "Service", &[msg(2, &[msg(1, &[num(1, 5)])])]).unwrap_err();
        assert_eq!(
            wrong_wire.to_string(),
            "spec.ports[0].name: k8s.io.api.core.v1.ServicePort field 1 (name) has wire type 0, expected 2"
        );
        let bad_int_or_string = decode(
            "v1",
            "Service",
            &[msg(2, &[msg(1, &[msg(4, &[num(1, 7)])])])],
        )
        .unwrap_err();
        assert_eq!(
            bad_int_or_string.to_string(),
            "spec.ports[0].targetPort: IntOrString type 7 is neither 0 (int) nor 1 (string)"
        );
        let bad_utf8 = decode("v1", "Namespace", &[msg(1, &[bytes(1, &[0xff])])]).unwrap_err();
        assert_eq!(
            bad_utf8.to_string(),
            "metadata.name: string is not valid UTF-8"
        );
        let truncated = decode("v1", "Namespace", &[vec![0x0a, 0x05, 0x0a]]).unwrap_err();
        assert_eq!(truncated.to_string(), "metadata: truncated record");
        let top = decode("v1", "Namespace", &[num(9, 1)]).unwrap_err();
        assert_eq!(
            top.to_string(),
            "k8s.io.api.core.v1.Namespace has no field number 9 (wire type 0)"
        );
    }

    fn label() -> impl Strategy<Value = String> {
        "[a-z0-9]([-a-z0-9.]{0,20}[a-z0-9])?"
    }

    proptest! {
        /// Whatever names, labels and data a ConfigMap carries, decoding gives them back.
        #[test]
        fn config_map_round_trip(
            name in label(),
            labels in proptest::collection::btree_map(label(), ".{0,12}", 0..4),
            data in proptest::collection::btree_map(label(), ".{0,40}", 0..4),
            binary in proptest::collection::btree_map(label(), proptest::collection::vec(any::<u8>(), 0..16), 0..3),
        ) {
            let mut meta = vec![text(1, &name)];
            meta.extend(labels.iter().map(|(k, v)| entry(11, k, text(2, v))));
            let mut parts = vec![msg(1, &meta)];
            parts.extend(data.iter().map(|(k, v)| entry(2, k, text(2, v))));
            parts.extend(binary.iter().map(|(k, v)| entry(3, k, bytes(2, v))));
            let got = decode("v1", "ConfigMap", &parts).unwrap();
            let mut expected = json!({"metadata": {"name": name}});
            if !labels.is_empty() {
                expected["metadata"]["labels"] = json!(labels);
            }
            if !data.is_empty() {
                expected["data"] = json!(data);
            }
            if !binary.is_empty() {
                let encoded: std::collections::BTreeMap<_, _> =
                    binary.iter().map(|(k, v)| (k.clone(), BASE64.encode(v))).collect();
                expected["binaryData"] = json!(encoded);
            }
            prop_assert_eq!(got, expected);
        }

        /// Arbitrary bytes never panic the decoder, whatever kind they claim to be.
        #[test]
        fn arbitrary_bytes_do_not_panic(body in proptest::collection::vec(any::<u8>(), 0..256)) {
            for (v, k) in [("v1", "Pod"), ("apps/v1", "Deployment"), ("v1", "Secret")] {
                let _ = message(root(v, k).unwrap(), &body, "");
            }
        }
    }
}
