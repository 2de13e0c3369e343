//! The repository's own YAML (examples, templates, fixtures), which the loader's unit tests and
//! `tests/differential.rs` both read: one list, so that both read the same files.

/// Every `.yaml` file of those folders, with its path, in path order.
pub fn repository_yaml() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts = Vec::new();
    for folder in [
        "examples",
        "templates",
        "tests/fixtures",
        "tests/fixtures/valid",
        "tests/fixtures/invalid",
        "tests/fixtures/render",
    ] {
        for entry in std::fs::read_dir(root.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "yaml") {
                let text = std::fs::read_to_string(&path).unwrap();
                texts.push((path.display().to_string(), text));
            }
        }
    }
    texts.sort();
    texts
}
