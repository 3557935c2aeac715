//! The field path (`switch.kcmReplicas`, `workload.services[1].ports[0].protocol`) at a line and column
//! of a YAML text, so parser errors that only carry a position ("invalid u32") also name the field.
//! Handles block mappings and sequences, and flow collections on one line; anything else yields the
//! part of the path it could follow.

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// One significant line.
struct Line<'a> {
    /// Leading spaces.
    indent: usize,
    /// Content starts with `- `.
    dash: bool,
    /// Column (0-based) where the mapping key (or scalar) of the content starts.
    key_indent: usize,
    /// Content after the indentation and the dash.
    body: &'a str,
}

fn parse_line(text: &str) -> Option<Line<'_>> {
    let trimmed = text.trim_start_matches(' ');
    if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with("---") {
        return None;
    }
    let indent = text.len() - trimmed.len();
    let (dash, body) = match trimmed.strip_prefix('-') {
        Some(rest) if rest.is_empty() || rest.starts_with(' ') => {
            (true, rest.trim_start_matches(' '))
        }
        _ => (false, trimmed),
    };
    let key_indent = text.len() - body.len();
    Some(Line {
        indent,
        dash,
        key_indent,
        body,
    })
}

/// The block key a line's body starts with (`key: ...` or `key:`), unless the body is a flow
/// collection or a quoted scalar.
fn block_key(body: &str) -> Option<&str> {
    if body.starts_with(['{', '[', '"', '\'']) {
        return None;
    }
    let end = body
        .find(": ")
        .or_else(|| body.strip_suffix(':').map(str::len))?;
    Some(body[..end].trim())
}

/// The path at 1-based `line` and `column` of `text`, or `None` when nothing could be followed.
pub(crate) fn path_at(text: &str, line: u64, column: u64) -> Option<String> {
    let raw: Vec<&str> = text.lines().collect();
    let target = usize::try_from(line).ok()?.checked_sub(1)?;
    let lines: Vec<Option<Line>> = raw.iter().map(|l| parse_line(l)).collect();
    let here = lines.get(target)?.as_ref()?;
    let mut segs = block_segments(&lines, target);
    if let Some(key) = block_key(here.body) {
        segs.push(Seg::Key(key.to_string()));
        let col = usize::try_from(column).ok()?.saturating_sub(1);
        let start = here.key_indent + key.len() + 1;
        if let Some(rest) = raw[target].get(start..col.max(start)) {
            segs.extend(flow_segments(rest));
        }
    }
    let mut out = String::new();
    for seg in segs {
        match seg {
            Seg::Key(k) if out.is_empty() => out.push_str(&k),
            Seg::Key(k) => {
                out.push('.');
                out.push_str(&k);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Keys and indexes of the block collections enclosing line `at`, outermost first.
fn block_segments(lines: &[Option<Line>], at: usize) -> Vec<Seg> {
    let mut segs = Vec::new();
    let mut idx = at;
    let Some(first) = &lines[at] else {
        return segs;
    };
    let mut map_indent = first.key_indent;
    while let Some(current) = &lines[idx] {
        if current.dash && current.key_indent == map_indent {
            // The mapping is an item of a sequence: count the items before it.
            let seq_indent = current.indent;
            let mut index = 0;
            let mut parent = None;
            for k in (0..idx).rev() {
                let Some(l) = &lines[k] else { continue };
                if l.indent < seq_indent || (l.indent == seq_indent && !l.dash) {
                    parent = Some(k);
                    break;
                }
                if l.dash && l.indent == seq_indent {
                    index += 1;
                }
            }
            segs.push(Seg::Index(index));
            let Some(p) = parent else { break };
            match &lines[p] {
                Some(l) => {
                    if let Some(key) = block_key(l.body) {
                        segs.push(Seg::Key(key.to_string()));
                    }
                    map_indent = l.key_indent;
                    idx = p;
                }
                None => break,
            }
            continue;
        }
        let parent = (0..idx).rev().find(|&k| {
            lines[k].as_ref().is_some_and(|l| {
                l.key_indent < map_indent || (l.dash && l.key_indent == map_indent)
            })
        });
        let Some(p) = parent else { break };
        let Some(l) = &lines[p] else { break };
        if l.key_indent < map_indent {
            if let Some(key) = block_key(l.body) {
                segs.push(Seg::Key(key.to_string()));
            }
            map_indent = l.key_indent;
        }
        idx = p;
    }
    segs.reverse();
    segs
}

/// Open flow collection while scanning a line.
enum Flow {
    Map(Option<String>),
    Seq(usize),
}

/// Keys and indexes of the flow collections open at the end of `text` (the part of a line between
/// the block key and the error column).
fn flow_segments(text: &str) -> Vec<Seg> {
    let mut stack: Vec<Flow> = Vec::new();
    let mut token = String::new();
    let mut quote: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '{' => {
                stack.push(Flow::Map(None));
                token.clear();
            }
            '[' => {
                stack.push(Flow::Seq(0));
                token.clear();
            }
            '}' | ']' => {
                stack.pop();
                token.clear();
            }
            ',' => {
                match stack.last_mut() {
                    Some(Flow::Map(key)) => *key = None,
                    Some(Flow::Seq(i)) => *i += 1,
                    None => {}
                }
                token.clear();
            }
            ':' if chars.peek().is_none_or(|n| *n == ' ') => {
                if let Some(Flow::Map(key)) = stack.last_mut() {
                    *key = Some(token.trim().to_string());
                }
                token.clear();
            }
            _ => token.push(c),
        }
    }
    stack
        .into_iter()
        .filter_map(|f| match f {
            Flow::Map(key) => key.map(Seg::Key),
            Flow::Seq(i) => Some(Seg::Index(i)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::path_at;

    const TEXT: &str = "name: x
switch:
  procedure: quiesce
  kcmReplicas: two
workload:
  services:
    - name: a
      ports:
        - port: 80
          protocol: SCTP
    - name: b
      ports: [{port: 80}, {port: 81, protocol: SCTP}]
  nodeChurn:
  - phase: during
    scaleSet: {name: p, instances: many}
";

    #[test]
    fn block_paths() {
        assert_eq!(path_at(TEXT, 1, 7).as_deref(), Some("name"));
        assert_eq!(path_at(TEXT, 4, 16).as_deref(), Some("switch.kcmReplicas"));
        assert_eq!(
            path_at(TEXT, 10, 21).as_deref(),
            Some("workload.services[0].ports[0].protocol")
        );
        assert_eq!(
            path_at(TEXT, 11, 13).as_deref(),
            Some("workload.services[1].name")
        );
    }

    #[test]
    fn flow_paths_and_compact_sequences() {
        assert_eq!(
            path_at(TEXT, 12, 48).as_deref(),
            Some("workload.services[1].ports[1].protocol")
        );
        assert_eq!(
            path_at(TEXT, 15, 36).as_deref(),
            Some("workload.nodeChurn[0].scaleSet.instances")
        );
        assert_eq!(
            path_at("switch: {procedure: quiesce, kcmReplicas: two}\n", 1, 43).as_deref(),
            Some("switch.kcmReplicas")
        );
    }

    #[test]
    fn nothing_to_follow() {
        assert_eq!(path_at(TEXT, 99, 1), None);
        assert_eq!(path_at("", 1, 1), None);
        assert_eq!(path_at("# comment\n", 1, 1), None);
    }
}
