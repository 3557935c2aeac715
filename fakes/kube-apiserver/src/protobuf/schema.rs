//! The schema the decoder walks: for each message, the field numbers it has, the JSON name of
//! each, how its value is encoded, and whether Go holds it by value (the zero value means unset
//! and is left out of the JSON, as `omitempty` would) or by pointer (presence is explicit).

use std::fmt;

/// How one field's value is encoded on the wire and rendered as JSON.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// `string` (UTF-8).
    Str,
    /// `bytes`, rendered base64 as Go's `encoding/json` does for `[]byte`.
    Bytes,
    /// `bool` (varint).
    Bool,
    /// `int32` (varint, sign-extended when negative).
    Int32,
    /// `int64` (varint).
    Int64,
    /// A nested message rendered as a JSON object.
    Msg(&'static Message),
    /// A nested message whose Go struct is embedded with `json:",inline"`: its fields go into
    /// the parent object.
    Inline(&'static Message),
    /// `map<string, V>` (repeated key=1/value=2 entries) rendered as a JSON object.
    Map(&'static Kind),
    /// `resource.Quantity` (`{string = 1}`), rendered as its string.
    Quantity,
    /// `intstr.IntOrString` (`{type = 1, intVal = 2, strVal = 3}`), rendered as a number or string.
    IntOrString,
    /// `metav1.Time` (`{seconds = 1, nanos = 2}`), rendered RFC 3339 at whole seconds.
    Time,
    /// `metav1.MicroTime`, rendered RFC 3339 with six fractional digits.
    MicroTime,
    /// `metav1.FieldsV1` (`{Raw = 1}`), whose bytes are the JSON field set itself.
    FieldsV1,
}

/// Whether a field's Go type has presence, which decides what a zero value means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cardinality {
    /// A Go value field: the zero value is indistinguishable from unset and is left out.
    Value,
    /// A Go pointer field: present on the wire means set, even to the zero value.
    Pointer,
    /// A slice or map: one wire record per element.
    Repeated,
}

/// One field of a message.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// Protobuf field number.
    pub number: u32,
    /// JSON property name (the Go `json` tag).
    pub json: &'static str,
    /// Encoding of the value.
    pub kind: Kind,
    /// Presence semantics.
    pub cardinality: Cardinality,
}

/// One protobuf message of the Kubernetes API.
pub struct Message {
    /// Fully qualified proto name, named in decode errors.
    pub name: &'static str,
    /// Every field the message has; any other field number is rejected.
    pub fields: &'static [Field],
}

impl Message {
    /// The field with `number`, if the message has one.
    pub fn field(&self, number: u32) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.number == number)
    }
}

impl fmt::Debug for Message {
    // Messages reference each other; printing the name keeps Debug finite.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// A Go value field (zero means unset).
pub const fn val(number: u32, json: &'static str, kind: Kind) -> Field {
    Field {
        number,
        json,
        kind,
        cardinality: Cardinality::Value,
    }
}

/// A Go pointer field (presence is explicit).
pub const fn opt(number: u32, json: &'static str, kind: Kind) -> Field {
    Field {
        number,
        json,
        kind,
        cardinality: Cardinality::Pointer,
    }
}

/// A Go slice or map field.
pub const fn rep(number: u32, json: &'static str, kind: Kind) -> Field {
    Field {
        number,
        json,
        kind,
        cardinality: Cardinality::Repeated,
    }
}
