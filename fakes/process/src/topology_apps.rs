//! Topologies with one more Entra app (client secret) a test or bench signs in as: the example
//! files carry their own apps, and each caller adds one it knows the credentials of.

use std::path::{Path, PathBuf};

/// Writes `topology` into `dir` (same file name) with the app `name`/`client_id`/`secret` added
/// to its `apps:` list (created when the file has none); returns the new file.
pub fn with_app(topology: &Path, dir: &Path, name: &str, client_id: &str, secret: &str) -> PathBuf {
    let text = std::fs::read_to_string(topology).expect("topology");
    let app = format!("  - name: {name}\n    clientId: {client_id}\n    secret: {secret}\n");
    let text = if text.lines().any(|l| l == "apps:") {
        text.replacen("apps:\n", &format!("apps:\n{app}"), 1)
    } else {
        format!("{text}\napps:\n{app}")
    };
    let path = dir.join(topology.file_name().expect("topology file name"));
    std::fs::write(&path, text).expect("write topology");
    path
}
