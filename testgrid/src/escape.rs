//! Escaping text for the HTML and SVG pages the project writes, so a scenario name, a check
//! reason or a TestGrid message shows as text and never as markup.

/// Escapes `&`, `<`, `>`, `"` and `'` for XML/HTML content and quoted attribute values.
pub fn markup(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::markup;

    #[test]
    fn markup_characters_become_entities_and_the_rest_is_kept() {
        assert_eq!(
            markup(r#"<a href="x">Tom & 'Jerry'</a> é"#),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt; é"
        );
    }
}
