//! Every ARM error code the fakes emit comes from `fake_arm::error_codes`: the sources of `fake-arm` and
//! `azure-fakes` pass no string-literal code to an error constructor and build no `"code":` JSON by hand.

use std::path::{Path, PathBuf};

/// Files that may write `"code":` from a value, and why.
const RENDERERS: &[(&str, &str)] = &[
    ("arm/src/error.rs", "renders the envelope of table entries"),
    (
        "src/admin/error.rs",
        "the admin API's own envelope, not ARM's",
    ),
    (
        "arm/src/resources/compute.rs",
        "instance-view statuses (`PowerState/running`), not errors",
    ),
];

/// Files whose `code:` fields hold another API's codes, and why.
const OTHER_APIS: &[(&str, &str)] = &[("src/admin/access.rs", "the admin API's own `AdminError`")];

/// The table itself, the one place where code literals live.
const TABLE: &str = "arm/src/error_codes.rs";

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The file without its trailing `#[cfg(test)] mod ...` (unit tests inject codes of their own).
fn without_tests(text: &str) -> &str {
    text.find("\n#[cfg(test)]\nmod ")
        .map_or(text, |at| &text[..at])
}

fn is_code_literal(arg: &str) -> bool {
    let arg = arg.trim();
    let Some(inner) = arg.strip_prefix('"').and_then(|a| a.strip_suffix('"')) else {
        return false;
    };
    inner.starts_with(|c: char| c.is_ascii_uppercase())
        && inner.chars().all(|c| c.is_ascii_alphanumeric())
}

/// Top-level comma-separated arguments of the call whose `(` ends at `open`.
fn call_args(text: &str, open: usize) -> Vec<&str> {
    let bytes = text.as_bytes();
    let (mut depth, mut in_str, mut start, mut i) = (1usize, false, open, open);
    let mut args = Vec::new();
    while i < bytes.len() && depth > 0 {
        match bytes[i] {
            b'\\' if in_str => i += 1,
            b'"' => in_str = !in_str,
            b'(' | b'[' | b'{' if !in_str => depth += 1,
            b')' | b']' | b'}' if !in_str => {
                depth -= 1;
                if depth == 0 {
                    args.push(&text[start..i]);
                }
            }
            b',' if !in_str && depth == 1 => {
                args.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    args
}

/// Hand-written codes in one file's non-test source, as `file:line: what`.
fn offences(name: &str, text: &str) -> Vec<String> {
    let text = without_tests(text);
    let line = |at: usize| text[..at].matches('\n').count() + 1;
    let mut found = Vec::new();
    // A code literal among the first two arguments of any `ArmError::...(` call (code, or status then code).
    let mut from = 0;
    while let Some(at) = text[from..].find("ArmError::") {
        let at = from + at;
        from = at + 1;
        let rest = &text[at..];
        let Some(paren) = rest.find('(') else { break };
        if !rest[10..paren]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            continue;
        }
        let args = call_args(text, at + paren + 1);
        if args.iter().take(2).any(|a| is_code_literal(a)) {
            found.push(format!(
                "{name}:{}: literal code in {}",
                line(at),
                &rest[..paren]
            ));
        }
    }
    // `code: "Literal"` in a struct literal (ErrorDetail, ForceLroFailure, ...), and `"code": ...` built by hand.
    for (i, l) in text.lines().enumerate() {
        let t = l.trim_start();
        if t.starts_with("//") {
            continue;
        }
        if let Some(v) = l.split("code: ").nth(1)
            && !OTHER_APIS.iter().any(|(f, _)| *f == name)
            && is_code_literal(v.split(['.', ',', ')']).next().unwrap_or(""))
        {
            found.push(format!("{name}:{}: literal code field", i + 1));
        }
        if let Some(v) = l.split("\"code\":").nth(1) {
            let renderer = RENDERERS.iter().any(|(f, _)| *f == name);
            let literal = is_code_literal(v.split([',', '}']).next().unwrap_or(""));
            if literal || !renderer {
                found.push(format!("{name}:{}: `\"code\":` built by hand", i + 1));
            }
        }
    }
    found
}

#[test]
fn no_error_code_is_written_outside_the_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("arm/src"), &mut files);
    assert!(files.len() > 50, "scanned only {} files", files.len());
    let mut found = Vec::new();
    for path in files {
        let name = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if name == TABLE {
            continue;
        }
        found.extend(offences(&name, &std::fs::read_to_string(&path).unwrap()));
    }
    assert!(
        found.is_empty(),
        "codes outside fake_arm::error_codes:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_flags_the_shapes_the_code_used_to_have() {
    let old = r#"
fn a() -> ArmError {
    ArmError::bad_request("SubnetIsFull", "m")
}
fn b() -> ArmError {
    ArmError::new(
        StatusCode::CONFLICT,
        "OperationNotAllowed",
        msg,
    )
}
fn c() -> Vec<ErrorDetail> {
    vec![ErrorDetail { code: "TooManyRequests".into(), message: m, target: None }]
}
fn d() -> Value {
    json!({ "error": { "code": "NotFound", "message": m } })
}
fn e() -> Value {
    json!({ "error": { "code": code, "message": m } })
}
fn fine() -> ArmError {
    ArmError::nrp(error_codes::SUBNET_IS_FULL, format!("Subnet {s} is full."))
}
"#;
    let found = offences("src/old.rs", old);
    assert_eq!(found.len(), 5, "{found:#?}");
    assert!(found.iter().all(|f| !f.contains(":22:")), "{found:#?}");
}
