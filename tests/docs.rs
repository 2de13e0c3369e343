//! Generated documentation stays current: the README's rule table and `docs/rules.md` (the
//! `explain --all` text). To update both: `HYBRIDGEN_UPDATE_DOCS=1 cargo test --test docs`.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn updating() -> bool {
    std::env::var_os("HYBRIDGEN_UPDATE_DOCS").is_some()
}

const TABLE_START: &str = "<!-- rules:start -->";
const TABLE_END: &str = "<!-- rules:end -->";

fn rule_table() -> String {
    let mut table = String::from("| code | name | default |\n|---|---|---|\n");
    for rule in hybridgen::rules::all() {
        table.push_str(&format!(
            "| [{}]({}) | `{}` | {} |\n",
            rule.code,
            hybridgen::report::rule_url(rule),
            rule.name,
            rule.severity.as_str()
        ));
    }
    table
}

#[test]
fn readme_rule_table_is_current() {
    let path = root().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let (before, rest) = readme
        .split_once(TABLE_START)
        .expect("README lacks the rules:start marker");
    let (_, after) = rest
        .split_once(TABLE_END)
        .expect("README lacks the rules:end marker");
    let expected = format!("{before}{TABLE_START}\n{}{TABLE_END}{after}", rule_table());
    if updating() {
        std::fs::write(&path, &expected).unwrap();
    }
    assert!(
        readme == expected,
        "README rule table is stale; run `HYBRIDGEN_UPDATE_DOCS=1 cargo test --test docs`"
    );
}

#[test]
fn rules_reference_is_current() {
    let path = root().join("docs/rules.md");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .args(["explain", "--all"])
        .output()
        .unwrap();
    let generated = String::from_utf8(output.stdout).unwrap();
    if updating() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/rules.md is stale; run `HYBRIDGEN_UPDATE_DOCS=1 cargo test --test docs`"
    );
}
