//! Every rule fixture: each invalid one fires its expected codes at the expected places (exact
//! spans, no fallback), and each valid neighbour has no error.

use hybridgen::diagnostic::Location;
use hybridgen::pipeline::{self, Checked};
use std::path::{Path, PathBuf};

struct Expectation {
    code: String,
    pointer: Option<String>,
    line: Option<usize>,
}

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    files.sort();
    files
}

fn expectations(text: &str) -> Vec<Expectation> {
    text.lines()
        .filter_map(|line| line.strip_prefix("# expect: "))
        .map(|rest| {
            let (code, target) = rest.trim().split_once(' ').unwrap_or((rest.trim(), ""));
            let target = target.trim();
            Expectation {
                code: code.to_string(),
                line: target.strip_prefix("line=").map(|n| n.parse().unwrap()),
                pointer: (!target.starts_with("line=")).then(|| target.to_string()),
            }
        })
        .collect()
}

fn has_marker(text: &str, marker: &str) -> bool {
    text.lines().any(|line| line.trim() == marker)
}

fn check(path: &Path) -> (String, Checked) {
    let bytes = std::fs::read(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    (
        String::from_utf8_lossy(&bytes).into_owned(),
        pipeline::check(&name, bytes),
    )
}

fn found(checked: &Checked) -> Vec<String> {
    checked
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{} {} {:?}",
                d.code(),
                d.primary.location.pointer(),
                d.severity
            )
        })
        .collect()
}

/// Whether the finding's location is an exact span of the file (never a fallback to a parent).
fn resolves_exactly(checked: &Checked, location: &Location) -> bool {
    let Some(spans) = &checked.file.spans else {
        return matches!(location, Location::Bytes(_));
    };
    match location {
        Location::Value(pointer) => spans.value_span(pointer).is_some(),
        Location::Key(pointer) => spans.key_span(pointer).is_some(),
        Location::Bytes(_) => true,
    }
}

fn assert_no_failures(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn invalid_fixtures_fire_their_codes_at_their_places() {
    let mut failures = Vec::new();
    let files = fixtures("invalid");
    assert!(
        files.len() > 40,
        "too few invalid fixtures: {}",
        files.len()
    );
    for path in files {
        let (text, checked) = check(&path);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let expected = expectations(&text);
        if expected.is_empty() {
            failures.push(format!("{name}: no `# expect:` line"));
        }
        let code_of_name = name.split('-').next().unwrap_or_default();
        if !expected.iter().any(|e| e.code == code_of_name) {
            failures.push(format!(
                "{name}: does not expect the code it is named after"
            ));
        }
        for expectation in &expected {
            let hit = checked.diagnostics.iter().find(|d| {
                d.code() == expectation.code
                    && match (&expectation.pointer, expectation.line) {
                        (_, Some(line)) => match &d.primary.location {
                            Location::Bytes(span) => {
                                checked.file.source.position(span.start).line == line
                            }
                            _ => false,
                        },
                        (Some(pointer), None) => d.primary.location.pointer() == pointer,
                        (None, None) => true,
                    }
            });
            match hit {
                None => failures.push(format!(
                    "{name}: expected {} {}{} but found {:?}",
                    expectation.code,
                    expectation.pointer.clone().unwrap_or_default(),
                    expectation
                        .line
                        .map(|l| format!("line={l}"))
                        .unwrap_or_default(),
                    found(&checked)
                )),
                Some(d) if !resolves_exactly(&checked, &d.primary.location) => {
                    failures.push(format!(
                        "{name}: {} at {:?} does not resolve to an exact span",
                        d.code(),
                        d.primary.location
                    ))
                }
                Some(_) => {}
            }
        }
        if has_marker(&text, "# only") {
            let unexpected: Vec<String> = checked
                .diagnostics
                .iter()
                .filter(|d| !expected.iter().any(|e| e.code == d.code()))
                .map(|d| format!("{} {}", d.code(), d.primary.location.pointer()))
                .collect();
            if !unexpected.is_empty() {
                failures.push(format!("{name}: `# only`, but also found {unexpected:?}"));
            }
        }
    }
    assert_no_failures(&failures);
}

#[test]
fn valid_fixtures_have_no_errors() {
    let mut failures = Vec::new();
    let files = fixtures("valid");
    // A floor, as for the invalid ones: a glob that matched nothing would pass vacuously.
    assert!(files.len() > 150, "too few valid fixtures: {}", files.len());
    for path in files {
        let (text, checked) = check(&path);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let clean = has_marker(&text, "# clean");
        let bad: Vec<String> = checked
            .diagnostics
            .iter()
            .filter(|d| clean || d.is_error())
            .map(|d| {
                format!(
                    "{} {} {:?}: {}",
                    d.code(),
                    d.primary.location.pointer(),
                    d.severity,
                    d.message
                )
            })
            .collect();
        if !bad.is_empty() {
            failures.push(format!("{name}: {bad:?}"));
        }
    }
    assert_no_failures(&failures);
}

#[test]
fn every_rule_has_a_failing_fixture_and_a_passing_neighbour() {
    let names = |kind: &str| -> Vec<String> {
        fixtures(kind)
            .iter()
            .map(|path| path.file_name().unwrap().to_string_lossy().to_string())
            .collect()
    };
    let (invalid, valid) = (names("invalid"), names("valid"));
    for rule in hybridgen::rules::all() {
        // HG5xx and HG65x compare a plan with a captured cluster: their cases are in
        // tests/verify.rs.
        if rule.code.starts_with("HG5") || rule.code.starts_with("HG65") {
            continue;
        }
        // HG7xx compare two specs: their transitions are `tests/fixtures/change/NAME/{old,new}.yaml`,
        // where tests/change.rs checks that each fires where `new.yaml` expects and nowhere else.
        if rule.code.starts_with("HG7") {
            continue;
        }
        let prefix = format!("{}-", rule.code);
        assert!(
            invalid.iter().any(|n| n.starts_with(&prefix)),
            "no invalid fixture for {}",
            rule.code
        );
        assert!(
            valid.iter().any(|n| n.starts_with(&prefix)),
            "no valid fixture for {}",
            rule.code
        );
    }
}

/// What users see for each invalid fixture, reviewed as snapshots in `snapshots/`.
#[test]
fn human_diagnostics_of_each_invalid_fixture() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        insta::glob!("fixtures/invalid/*.yaml", |path| {
            let (_, checked) = check(path);
            let report = checked.report(&checked.diagnostics);
            let style = hybridgen::report::human::Style {
                color: false,
                width: 100,
                show_plan: false,
            };
            insta::assert_snapshot!(hybridgen::report::human::render(&[report], style));
        });
    });
}
