//! Making arbitrary test output safe for XML and of reasonable size.
//!
//! TestGrid does not cut long bodies itself (its 10 000-char truncation is a no-op), and XML 1.0
//! cannot carry most control characters at all, so both are handled before writing.

/// Largest `system-out`/`system-err` we write, in bytes.
pub const MAX_OUTPUT_BYTES: usize = 256 * 1024;
/// Largest failure body we write, in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Largest failure/skip message (an attribute, shown in the cell hover) in bytes.
pub const MAX_MESSAGE_BYTES: usize = 1024;

/// Removes ANSI colour sequences and replaces characters XML 1.0 cannot carry with a visible
/// `\xNN` / `\u{NNNN}` escape, so nothing is silently lost.
pub fn xml_safe(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            // CSI sequence: ESC [ parameters... final byte in 0x40..=0x7e.
            chars.next();
            for f in chars.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&f) {
                    break;
                }
            }
            continue;
        }
        if is_xml_char(c) {
            out.push(c);
        } else if (c as u32) < 0x100 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:04x}}}", c as u32));
        }
    }
    out
}

/// XML 1.0 `Char` production.
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// Keeps the head and the tail of `input` within `max_bytes`, and says in the text how much was
/// cut, so a reader never mistakes a truncated log for a complete one.
pub fn truncate_middle(input: &str, max_bytes: usize) -> String {
    if input.len() <= max_bytes {
        return input.to_owned();
    }
    let marker_budget = 96;
    let keep = max_bytes.saturating_sub(marker_budget);
    let head_end = floor_boundary(input, keep / 2);
    let tail_start = ceil_boundary(input, input.len() - (keep - keep / 2));
    let omitted = tail_start - head_end;
    format!(
        "{}\n... [truncated: {omitted} of {} bytes omitted] ...\n{}",
        &input[..head_end],
        input.len(),
        &input[tail_start..]
    )
}

/// One line, at most `MAX_MESSAGE_BYTES`, marked with `...` when cut.
pub fn one_line_message(input: &str) -> String {
    let line: String = xml_safe(input)
        .split(['\n', '\r'])
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let line = line.trim();
    if line.len() <= MAX_MESSAGE_BYTES {
        return line.to_owned();
    }
    let end = floor_boundary(line, MAX_MESSAGE_BYTES - 3);
    format!("{}...", &line[..end])
}

fn floor_boundary(s: &str, mut at: usize) -> usize {
    at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_boundary(s: &str, mut at: usize) -> usize {
    while at < s.len() && !s.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn control_characters_become_visible_escapes() {
        assert_eq!(
            xml_safe("a\u{0}b\u{7}c\td\u{fffe}"),
            "a\\x00b\\x07c\td\\u{fffe}"
        );
    }

    #[test]
    fn ansi_colours_are_removed() {
        assert_eq!(xml_safe("\u{1b}[31mred\u{1b}[0m ok"), "red ok");
    }

    #[test]
    fn truncation_says_so() {
        let long = "x".repeat(10_000);
        let cut = truncate_middle(&long, 1_000);
        assert!(cut.len() <= 1_000, "{}", cut.len());
        assert!(cut.contains("[truncated: "), "{cut}");
        assert!(cut.contains("of 10000 bytes omitted"));
        assert_eq!(truncate_middle("short", 1_000), "short");
    }

    #[test]
    fn messages_are_one_line() {
        assert_eq!(one_line_message("first\n\nsecond\r\n"), "first second");
        let long = one_line_message(&"é".repeat(2_000));
        assert!(long.len() <= MAX_MESSAGE_BYTES && long.ends_with("..."));
    }

    proptest! {
        #[test]
        fn safe_text_only_has_xml_chars(s in any::<String>()) {
            prop_assert!(xml_safe(&s).chars().all(is_xml_char));
        }

        #[test]
        fn truncation_respects_limit_and_boundaries(s in any::<String>(), max in 200usize..2_000) {
            let cut = truncate_middle(&s, max);
            prop_assert!(cut.len() <= max || cut == s);
        }
    }
}
