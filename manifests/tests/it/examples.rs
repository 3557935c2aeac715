//! The checked-in examples and reference pages must equal what the generator produces now.

use std::path::{Path, PathBuf};

use ccm_manifests::{Bundle, Mode, Options, docs, generate, version};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Compares a bundle with a directory: same file set, same bytes.
fn assert_dir_matches(bundle: &Bundle, dir: &Path, regenerate: &str) {
    let mut expected: Vec<String> = bundle.files.iter().map(|f| f.name.clone()).collect();
    expected.sort();
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}; regenerate with: {regenerate}", d.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.push(
                    path.strip_prefix(dir)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/"),
                );
            }
        }
    }
    found.sort();
    assert_eq!(
        found,
        expected,
        "file set of {} differs; regenerate with: {regenerate}",
        dir.display()
    );
    for f in &bundle.files {
        let on_disk = std::fs::read_to_string(dir.join(&f.name)).unwrap();
        assert!(
            on_disk == f.contents,
            "{} is stale; regenerate with: {regenerate}",
            dir.join(&f.name).display()
        );
    }
}

#[test]
fn examples_match_the_generator() {
    for mode in [Mode::InTree, Mode::OutOfTree] {
        let bundle = generate(&Options::new(mode, version::DEFAULT)).unwrap();
        let dir = crate_dir().join("examples").join(mode.dir_name());
        let cmd = format!(
            "cargo run -p harness -- manifests generate --mode {} --kubernetes-version {} --out manifests/examples/{}",
            mode.dir_name(),
            version::DEFAULT,
            mode.dir_name()
        );
        assert_dir_matches(&bundle, &dir, &cmd);
    }
}

#[test]
fn reference_docs_match_the_names_tables() {
    assert_dir_matches(
        &docs::render(),
        &crate_dir().join("docs").join("resources"),
        "cargo run -p harness -- manifests docs --out manifests/docs/resources",
    );
}

#[test]
fn kep_layout_files_are_present() {
    let in_tree = generate(&Options::new(Mode::InTree, version::DEFAULT)).unwrap();
    for name in [
        "apiserver.manifest",
        "kube-controller-manager.manifest",
        "kubelet.manifest",
    ] {
        assert!(in_tree.file(name).is_some(), "in-tree {name}");
    }
    let out = generate(&Options::new(Mode::OutOfTree, version::DEFAULT)).unwrap();
    for name in [
        "apiserver.manifest",
        "kube-controller-manager.manifest",
        "cloud-controller-manager.manifest",
        "cloud-node-manager.manifest",
        "kubelet.manifest",
    ] {
        assert!(out.file(name).is_some(), "out-of-tree {name}");
    }
}
