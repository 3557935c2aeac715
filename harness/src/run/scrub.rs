//! Credentials out of a scenario's artifacts once its processes are gone: the azure.json files,
//! the topology given to the fake and the kubeconfig hold the Entra app secrets and the API
//! server's token the components used, and the fake and the API server left their private keys.
//! Those are throwaway credentials of an embedded cluster, but artifacts get uploaded and
//! published: nothing credential-shaped leaves the run. Key and token files are removed; every
//! other file has each secret value replaced by `<redacted>`.

use std::path::{Path, PathBuf};

/// What replaces a secret.
pub const REDACTED: &str = "<redacted>";

/// Keys whose values are secrets in the JSON and YAML files the harness writes.
const SECRET_KEYS: [&str; 6] = [
    "aadClientSecret",
    "aadClientCertPassword",
    "secret",
    "clientSecret",
    "token",
    "client-key-data",
];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Values of `key: value` / `"key": "value"` pairs for the secret keys in `text`.
fn secret_values(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim().trim_start_matches("- ");
        for key in SECRET_KEYS {
            for prefix in [format!("\"{key}\":"), format!("{key}:")] {
                if let Some(rest) = trimmed.strip_prefix(&prefix) {
                    let value = rest.trim().trim_end_matches(',').trim_matches('"').trim();
                    // A URL (the token endpoint printed as `token: https://...`) is no secret.
                    if value.len() >= 8
                        && value != ">-"
                        && value != REDACTED
                        && !value.contains("://")
                    {
                        out.push(value.to_owned());
                    }
                }
            }
        }
    }
    out
}

/// Removes key and token files under `dir` and redacts every secret value found in the others.
/// Best effort: a file that cannot be read or written is left as it is and named in the result.
pub fn scrub(dir: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    files(dir, &mut all);
    let mut failed = Vec::new();
    let mut secrets = Vec::new();
    let mut texts = Vec::new();
    for path in all {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.ends_with(".key") || name == "token" || name == "kubeconfig" {
            if std::fs::remove_file(&path).is_err() {
                failed.push(path);
            }
            continue;
        }
        if let Ok(text) = std::fs::read_to_string(&path) {
            secrets.extend(secret_values(&text));
            texts.push((path, text));
        }
    }
    secrets.sort();
    secrets.dedup();
    for (path, text) in texts {
        let mut next = text.clone();
        for secret in &secrets {
            next = next.replace(secret.as_str(), REDACTED);
        }
        if next != text && std::fs::write(&path, next).is_err() {
            failed.push(path);
        }
    }
    failed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_go_and_secret_values_are_redacted_everywhere() {
        let dir = std::env::temp_dir().join(format!("harness-scrub-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("azure-json")).unwrap();
        std::fs::create_dir_all(dir.join("fake-tls")).unwrap();
        std::fs::create_dir_all(dir.join("logs")).unwrap();
        std::fs::write(
            dir.join("azure-json/ccm.json"),
            "{\n  \"aadClientId\": \"id-1\",\n  \"aadClientSecret\": \"s3cr3t-value-1\"\n}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("topology.yaml"),
            "apps:\n  - name: x\n    secret: s3cr3t-value-2\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("logs/x.log"),
            "used s3cr3t-value-1 and s3cr3t-value-2 (a leak)\n",
        )
        .unwrap();
        std::fs::write(dir.join("fake-tls/ca.key"), "PRIVATE").unwrap();
        std::fs::write(dir.join("fake-tls/ca.crt"), "PUBLIC").unwrap();
        assert!(scrub(&dir).is_empty());
        assert!(!dir.join("fake-tls/ca.key").exists());
        assert!(dir.join("fake-tls/ca.crt").exists());
        let mut everything = String::new();
        let mut all = Vec::new();
        files(&dir, &mut all);
        for path in all {
            everything += &std::fs::read_to_string(path).unwrap();
        }
        assert!(!everything.contains("s3cr3t"), "{everything}");
        assert!(everything.contains("\"aadClientSecret\": \"<redacted>\""));
        assert!(everything.contains("id-1"), "non-secrets stay");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
