//! Why a protobuf request body could not be turned into JSON.

/// A protobuf decode failure; `At` says where in the object it happened.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ProtobufError {
    /// The body ends inside a varint or length-delimited record.
    #[error("truncated record")]
    Truncated,
    /// A varint longer than ten bytes or above 2^64.
    #[error("varint overflows 64 bits")]
    VarintOverflow,
    /// Wire type 6 or 7.
    #[error("invalid wire type {0}")]
    WireTypeInvalid(u64),
    /// Field number 0 or above 2^32.
    #[error("invalid field number {0}")]
    FieldNumberInvalid(u64),
    /// The body does not start with the 4-byte `k8s\0` prefix of Kubernetes protobuf.
    #[error("missing the \"k8s\\x00\" prefix of a Kubernetes protobuf body")]
    NoMagic,
    /// The envelope names a kind this server has no protobuf schema for.
    #[error("no protobuf schema for apiVersion {api_version:?}, kind {kind:?}")]
    UnknownKind {
        /// `runtime.Unknown.typeMeta.apiVersion`.
        api_version: String,
        /// `runtime.Unknown.typeMeta.kind`.
        kind: String,
    },
    /// The envelope says the raw bytes are compressed or not protobuf.
    #[error("unsupported {field} {value:?} in the runtime.Unknown envelope")]
    Envelope {
        /// `contentEncoding` or `contentType`.
        field: &'static str,
        /// What the client sent.
        value: String,
    },
    /// A field number the message does not have (a newer client, or a corrupt body).
    #[error("{message} has no field number {number} (wire type {wire})")]
    UnknownField {
        /// Proto message name.
        message: &'static str,
        /// Field number found on the wire.
        number: u32,
        /// Its wire type.
        wire: u8,
    },
    /// A known field carrying the wrong wire type.
    #[error("{message} field {number} ({json}) has wire type {got}, expected {expected}")]
    WireTypeMismatch {
        /// Proto message name.
        message: &'static str,
        /// Field number.
        number: u32,
        /// JSON name of the field.
        json: &'static str,
        /// Wire type found.
        got: u8,
        /// Wire type the schema requires.
        expected: u8,
    },
    /// A string field that is not UTF-8.
    #[error("string is not valid UTF-8")]
    Utf8,
    /// A well-known type with an impossible value (time out of range, bad IntOrString type,
    /// FieldsV1 that is not JSON).
    #[error("{0}")]
    Invalid(String),
    /// Where an error happened: the JSON path of the field being decoded.
    #[error("{path}: {source}")]
    At {
        /// JSON path, e.g. `spec.template.spec.containers[0].ports[1]`.
        path: String,
        /// The underlying failure.
        source: Box<ProtobufError>,
    },
}

impl ProtobufError {
    /// Attaches `path` unless a deeper path is already attached (or it is the object root).
    pub fn at(self, path: impl FnOnce() -> String) -> Self {
        if matches!(self, Self::At { .. }) {
            return self;
        }
        let path = path();
        if path.is_empty() {
            return self;
        }
        Self::At {
            path,
            source: Box::new(self),
        }
    }
}
