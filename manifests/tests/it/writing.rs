//! Writing: all files land on success, nothing lands on a bad option.

use ccm_manifests::{KubeVersion, Mode, Options, write_all};

#[test]
fn writes_every_file_and_no_temporaries() {
    let dir = tempfile::tempdir().unwrap();
    let o = Options::new(Mode::OutOfTree, KubeVersion::from_minor(33).unwrap());
    let written = write_all(&o, dir.path()).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), written.len());
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
}

#[test]
fn bad_options_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let err = write_all(
        &Options::new(Mode::InTree, KubeVersion::from_minor(31).unwrap()),
        &out,
    )
    .unwrap_err();
    assert!(err.to_string().contains("1.27 to 1.29"), "{err}");
    assert!(!out.exists());
}
