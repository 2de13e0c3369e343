//! The rule registry: any change to codes, names or severities is a reviewed snapshot diff.

#[test]
fn registry_is_stable() {
    let listing: String = hybridgen::rules::all()
        .iter()
        .map(|rule| format!("{} {} {}\n", rule.code, rule.name, rule.severity.as_str()))
        .collect();
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!("rule-registry", listing));
}
