//! Deterministic YAML rendering of typed objects.

use serde::Serialize;

/// Rendering failed (a bug in the generator, reported rather than panicking).
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// serde_json could not represent the object.
    #[error("cannot convert {what} to JSON: {source}")]
    Json {
        /// Object being rendered.
        what: String,
        /// Cause.
        source: serde_json::Error,
    },
    /// serde-saphyr could not write it.
    #[error("cannot render {what} as YAML: {source}")]
    Yaml {
        /// Object being rendered.
        what: String,
        /// Cause.
        source: serde_saphyr::SerializeError,
    },
}

/// Renders one object. Going through `serde_json::Value` (insertion-ordered) keeps key order
/// exactly as the type declares it, so output is byte-stable.
pub fn to_yaml<T: Serialize>(what: &str, value: &T) -> Result<String, RenderError> {
    // Plain scalars only: folded `>-` blocks for long flags are valid but hard to read and grep.
    render(what, value, false)
}

/// Renders one object whose multi-line strings (an embedded azure.json) must stay editable as
/// YAML block scalars instead of one escaped line.
pub fn to_yaml_with_block_strings<T: Serialize>(
    what: &str,
    value: &T,
) -> Result<String, RenderError> {
    render(what, value, true)
}

fn render<T: Serialize>(what: &str, value: &T, block_scalars: bool) -> Result<String, RenderError> {
    let json = serde_json::to_value(value).map_err(|source| RenderError::Json {
        what: what.to_string(),
        source,
    })?;
    let mut options = serde_saphyr::SerializerOptions::default();
    options.prefer_block_scalars = block_scalars;
    serde_saphyr::to_string_with_options(&json, options).map_err(|source| RenderError::Yaml {
        what: what.to_string(),
        source,
    })
}

/// `header` as `#` comment lines (`# text`, a bare `#` for an empty line), each ending in `\n`.
pub fn comment_block(header: &str) -> String {
    let mut out = String::new();
    for line in header.lines() {
        out.push('#');
        if !line.is_empty() {
            out.push(' ');
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// Joins rendered documents into one multi-document stream under a comment header.
pub fn documents(header: &str, docs: &[String]) -> String {
    let mut out = comment_block(header);
    for doc in docs {
        out.push_str("---\n");
        out.push_str(doc);
        if !doc.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_block_prefixes_every_line_and_keeps_blank_ones_bare() {
        assert_eq!(comment_block("a\n\nb c"), "# a\n#\n# b c\n");
        assert_eq!(comment_block(""), "");
        assert_eq!(documents("h", &["x: 1".to_string()]), "# h\n---\nx: 1\n");
    }
}
