//! The protobuf wire format at its lowest level: varints, tags and length-delimited records.

use super::error::ProtobufError;

/// The six protobuf wire types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireType {
    /// Variable-length integer (int32, int64, bool).
    Varint,
    /// Eight little-endian bytes.
    Fixed64,
    /// Length prefix then that many bytes (strings, bytes, messages, packed repeats).
    Len,
    /// Deprecated group start.
    StartGroup,
    /// Deprecated group end.
    EndGroup,
    /// Four little-endian bytes.
    Fixed32,
}

impl WireType {
    fn from_bits(bits: u64) -> Option<Self> {
        Some(match bits {
            0 => Self::Varint,
            1 => Self::Fixed64,
            2 => Self::Len,
            3 => Self::StartGroup,
            4 => Self::EndGroup,
            5 => Self::Fixed32,
            _ => return None,
        })
    }

    /// The number protobuf uses for this wire type, for error messages.
    pub fn number(self) -> u8 {
        match self {
            Self::Varint => 0,
            Self::Fixed64 => 1,
            Self::Len => 2,
            Self::StartGroup => 3,
            Self::EndGroup => 4,
            Self::Fixed32 => 5,
        }
    }
}

/// A cursor over one message's bytes.
#[derive(Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// Starts at the first byte of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, pos: 0 }
    }

    /// Whether every byte has been consumed.
    pub fn is_done(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// Reads a varint (at most ten bytes).
    pub fn varint(&mut self) -> Result<u64, ProtobufError> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = *self.bytes.get(self.pos).ok_or(ProtobufError::Truncated)?;
            self.pos += 1;
            if shift == 63 && byte > 1 {
                return Err(ProtobufError::VarintOverflow);
            }
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(ProtobufError::VarintOverflow)
    }

    /// Reads a field key: the field number and wire type.
    pub fn tag(&mut self) -> Result<(u32, WireType), ProtobufError> {
        let key = self.varint()?;
        let wire = WireType::from_bits(key & 7).ok_or(ProtobufError::WireTypeInvalid(key & 7))?;
        let number = u32::try_from(key >> 3)
            .ok()
            .filter(|n| *n != 0)
            .ok_or(ProtobufError::FieldNumberInvalid(key >> 3))?;
        Ok((number, wire))
    }

    /// Reads a length prefix and returns that many bytes.
    pub fn len_delimited(&mut self) -> Result<&'a [u8], ProtobufError> {
        let len = usize::try_from(self.varint()?).map_err(|_| ProtobufError::Truncated)?;
        let end = self
            .pos
            .checked_add(len)
            .filter(|end| *end <= self.bytes.len())
            .ok_or(ProtobufError::Truncated)?;
        let slice = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints() {
        assert_eq!(Reader::new(&[0x96, 0x01]).varint().unwrap(), 150);
        let minus_one = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(Reader::new(&minus_one).varint().unwrap(), u64::MAX);
        assert!(matches!(
            Reader::new(&[0x80]).varint(),
            Err(ProtobufError::Truncated)
        ));
        let too_long = [0xff; 11];
        assert!(matches!(
            Reader::new(&too_long).varint(),
            Err(ProtobufError::VarintOverflow)
        ));
    }

    #[test]
    fn tags_and_lengths() {
        let mut r = Reader::new(&[0x12, 0x02, b'h', b'i', 0x08]);
        assert_eq!(r.tag().unwrap(), (2, WireType::Len));
        assert_eq!(r.len_delimited().unwrap(), b"hi");
        assert_eq!(r.tag().unwrap(), (1, WireType::Varint));
        assert!(r.is_done());
        assert!(matches!(
            Reader::new(&[0x0a, 0x05, b'x']).len_delimited(),
            Err(ProtobufError::Truncated)
        ));
        assert!(matches!(
            Reader::new(&[0x07]).tag(),
            Err(ProtobufError::WireTypeInvalid(7))
        ));
        assert!(matches!(
            Reader::new(&[0x02]).tag(),
            Err(ProtobufError::FieldNumberInvalid(0))
        ));
    }
}
