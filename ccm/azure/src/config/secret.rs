//! A string that never prints: secrets in the config stay out of logs, errors and `Debug` output.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Text printed in place of every secret.
pub const REDACTED: &str = "<redacted>";

/// A secret config value (client secret, certificate password); `Debug`/`Display` print
/// [`REDACTED`]. Serialising writes the real value, because writing a config back is legitimate.
#[derive(Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SecretString(String);

impl SecretString {
    /// Wraps a secret.
    pub fn new(value: impl Into<String>) -> Self {
        SecretString(value.into())
    }

    /// The secret itself, for the one place that needs it (building a credential).
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True when no secret was given.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for SecretString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl fmt::Display for SecretString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_prints_the_value() {
        let secret = SecretString::new("hunter2");
        assert_eq!(format!("{secret:?}"), REDACTED);
        assert_eq!(secret.to_string(), REDACTED);
        assert_eq!(secret.expose(), "hunter2");
        assert_eq!(
            serde_json::to_string(&secret).expect("serialises"),
            "\"hunter2\""
        );
    }
}
