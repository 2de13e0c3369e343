//! Generated documentation stays current: the README's rule table and `docs/rules.md` (the
//! `explain --all` text), and the fixtures README's table of where each rule points. To update
//! them: `HYBRIDGEN_UPDATE_DOCS=1 cargo test --test docs`.

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

/// Whether `text` names one of the team's research notes: a `facts-*.md` file, the shared folder
/// beside the checkout, or a copy of a source document kept there. Users cannot open those; what
/// they read cites the public source (repository and path, PR or issue, documentation page).
fn cites_private_notes(text: &str) -> Option<String> {
    let shared = ["..", "/shared"].concat();
    let copies = ["reference", "/"].concat();
    for (at, _) in text.match_indices("facts-") {
        let name: String = text[at + 6..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '-')
            .collect();
        if !name.is_empty() && text[at + 6 + name.len()..].starts_with(".md") {
            return Some(format!("facts-{name}.md"));
        }
    }
    if text.contains(shared.as_str()) {
        return Some(shared);
    }
    // `reference/x.md` standing alone names a copy kept beside the notes; a documentation path
    // such as `docs/reference/...` is public.
    text.match_indices(copies.as_str())
        .find(|(at, _)| {
            text[..*at]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || "/-_.".contains(c)))
        })
        .map(|_| copies)
}

/// Every file a user of the repository can read: everything but build output, virtual
/// environments, version control and this test itself.
fn readable_files(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            let skipped = matches!(name.as_str(), "target" | ".git" | "corpus" | "artifacts")
                || name.starts_with(".venv");
            if !skipped {
                readable_files(&path, found);
            }
        } else if path != root().join("tests/docs.rs") {
            found.push(path);
        }
    }
}

#[test]
fn no_user_facing_text_cites_a_facts_file() {
    let mut files = Vec::new();
    readable_files(root(), &mut files);
    assert!(
        files.len() > 100,
        "the walk found only {} files",
        files.len()
    );
    let offenders: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(path).ok()?;
            let cited = cites_private_notes(&text)?;
            Some(format!(
                "{}: {cited}",
                path.strip_prefix(root()).unwrap_or(path).display()
            ))
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "cite the public source instead of the team's notes:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_citation_check_finds_each_kind_of_private_note() {
    assert_eq!(
        cites_private_notes("see facts-windows.md §2").as_deref(),
        Some("facts-windows.md")
    );
    assert!(cites_private_notes(&["../", "shared/design"].concat()).is_some());
    assert!(cites_private_notes(&["Source: ", "reference/", "x.md"].concat()).is_some());
    assert!(
        cites_private_notes("kubernetes/website `content/en/docs/concepts/windows/intro.md`")
            .is_none()
    );
    assert!(cites_private_notes("facts-of-life").is_none());
    assert!(cites_private_notes("kubernetes.io/docs/reference/kubectl/").is_none());
}

const POINTERS_START: &str = "<!-- pointers:start -->";
const POINTERS_END: &str = "<!-- pointers:end -->";

/// Every code of the registry with the primary locations its invalid fixtures expect (node and
/// list indices written `N`), or where its cases are when it has no plan fixture.
fn pointer_table() -> String {
    let mut expected: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        Default::default();
    // Change rules (HG7xx) expect their places in the new spec of a transition.
    let transitions = std::fs::read_dir(root().join("tests/fixtures/change"))
        .unwrap()
        .map(|entry| entry.unwrap().path().join("new.yaml"));
    let invalid = std::fs::read_dir(root().join("tests/fixtures/invalid"))
        .unwrap()
        .map(|entry| entry.unwrap().path());
    for path in invalid.chain(transitions) {
        let text = std::fs::read_to_string(path).unwrap();
        for line in text
            .lines()
            .filter_map(|line| line.strip_prefix("# expect: "))
        {
            let (code, place) = line.split_once(' ').unwrap_or((line, ""));
            let place: Vec<&str> = place
                .split('/')
                .map(|token| match token.parse::<usize>() {
                    Ok(_) => "N",
                    Err(_) => token,
                })
                .collect();
            let place = match place.join("/") {
                place if place.starts_with("line=") => "a line (YAML syntax)".to_string(),
                place if place.is_empty() => "the document".to_string(),
                place => format!("`{place}`"),
            };
            expected.entry(code.to_string()).or_default().insert(place);
        }
    }
    let mut table = String::from("| code | primary location |\n|---|---|\n");
    for rule in hybridgen::rules::all() {
        let places = match expected.get(rule.code) {
            Some(places) => places.iter().cloned().collect::<Vec<_>>().join(", "),
            None if rule.code.starts_with("HG5") || rule.code.starts_with("HG65") => {
                "compares with a captured cluster: cases in `tests/verify.rs`".to_string()
            }
            None => "fires only when rendering: cases in `tests/render.rs`".to_string(),
        };
        table.push_str(&format!("| {} | {places} |\n", rule.code));
    }
    table
}

/// The fixtures README's table of where each rule points is made from the fixtures' `# expect:`
/// lines and the registry, so that it covers every code and says what the tests check.
#[test]
fn fixtures_pointer_table_is_current() {
    let path = root().join("tests/fixtures/README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let (before, rest) = readme
        .split_once(POINTERS_START)
        .expect("tests/fixtures/README.md lacks the pointers:start marker");
    let (_, after) = rest
        .split_once(POINTERS_END)
        .expect("tests/fixtures/README.md lacks the pointers:end marker");
    let expected = format!(
        "{before}{POINTERS_START}\n{}{POINTERS_END}{after}",
        pointer_table()
    );
    if updating() {
        std::fs::write(&path, &expected).unwrap();
    }
    assert!(
        readme == expected,
        "the fixtures' pointer table is stale; run `HYBRIDGEN_UPDATE_DOCS=1 cargo test --test docs`"
    );
}

/// A heading's anchor as GitHub writes it: lower case, spaces as `-`, punctuation other than `-`
/// and `_` dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings, outside code blocks.
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            found.push(anchor(line.trim_start_matches('#')));
        }
    }
    found
}

/// Every relative link of the README and the docs (`](path)`, `](path#anchor)`, `](#anchor)`)
/// names a file of the repository and, with an anchor, a heading of that file: moving a section
/// (the README's internals went to docs/internals.md) must not leave a link behind.
#[test]
fn every_relative_link_of_the_docs_resolves() {
    let mut files = vec![
        root().join("README.md"),
        root().join("CONTRIBUTING.md"),
        root().join("TESTING.md"),
        root().join("BENCHMARKS.md"),
    ];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "md") {
            files.push(path);
        }
    }
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let dir = file.parent().unwrap();
        for (at, _) in text.match_indices("](") {
            let rest = &text[at + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            if target.contains("://") || target.starts_with("mailto:") || target.contains(' ') {
                continue;
            }
            checked += 1;
            let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
            let linked = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path)
            };
            if !linked.exists() {
                broken.push(format!("{}: {target} (no such file)", file.display()));
                continue;
            }
            if !fragment.is_empty() && linked.extension().is_some_and(|ext| ext == "md") {
                let headings = anchors(&std::fs::read_to_string(&linked).unwrap());
                if !headings.iter().any(|heading| heading == fragment) {
                    broken.push(format!("{}: {target} (no such heading)", file.display()));
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} links checked");
    assert_eq!(broken, Vec::<String>::new());
}

/// The README's first screen is for a newcomer: what hybridgen is, how to install it, and
/// `init`, `plan`, `render` and `verify` with an example each; figures and internals live in
/// docs/internals.md, TESTING.md and BENCHMARKS.md.
#[test]
fn the_readme_opens_with_install_and_the_four_commands() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let first_screen: String = readme.lines().take(50).collect::<Vec<_>>().join("\n");
    for needed in [
        "## Install",
        "pipx install hybridgen",
        "#set-up-on-a-fresh-machine",
        "hybridgen init cluster.yaml",
        "hybridgen plan cluster.yaml",
        "hybridgen render cluster.yaml --out deploy",
        "hybridgen verify cluster.yaml --kubectl",
    ] {
        assert!(
            first_screen.contains(needed),
            "the first screen lacks {needed}"
        );
    }
    for internal in [
        "instructions",
        "CPU-minutes",
        "renameat2",
        "journal",
        "yamllint",
    ] {
        assert!(
            !readme.contains(internal),
            "the README still explains internals: {internal}"
        );
    }
}
