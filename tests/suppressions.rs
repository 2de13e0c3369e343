//! Inline suppressions as a team uses them: a comment silences exactly its finding on its line,
//! in every output format, with its reason; JSON and SARIF keep the finding marked suppressed; an
//! error suppressed no longer fails `plan` or stops `render`; a comment that names another rule,
//! names no rule, gives no reason or suppresses nothing is reported (HG012).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FIXTURE: &str = "tests/fixtures/invalid/HG201-vni-1-windows.yaml";
const REASON: &str = "the Windows nodes join next quarter";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The HG201 fixture with `vni: 1` followed by `comment`, as a file of its own.
fn spec_with(name: &str, comment: &str) -> PathBuf {
    let text = std::fs::read_to_string(root().join(FIXTURE)).unwrap();
    let text = text.replace("  vni: 1\n", &format!("  vni: 1{comment}\n"));
    assert!(text.contains(comment));
    let path = std::env::temp_dir().join(format!(
        "hybridgen-suppress-{name}-{}.yaml",
        std::process::id()
    ));
    std::fs::write(&path, text).unwrap();
    path
}

fn hybridgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap()
}

fn plan(spec: &Path, format: &str) -> (Option<i32>, String) {
    let output = hybridgen(&["plan", "-q", "--format", format, spec.to_str().unwrap()]);
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn an_inline_suppression_silences_exactly_its_finding_in_every_format() {
    let bare = spec_with("bare", "");
    let (code, text) = plan(&bare, "human");
    assert_eq!(code, Some(1), "the control: HG201 is an error\n{text}");
    assert!(text.contains("HG201"));

    let suppressed = spec_with(
        "trailing",
        &format!("  # hybridgen: allow HG201 -- {REASON}"),
    );
    let (code, human) = plan(&suppressed, "human");
    assert_eq!(code, Some(0), "{human}");
    assert!(!human.contains("HG201"), "{human}");
    assert!(
        human.contains("no problems found (1 suppressed)"),
        "{human}"
    );

    let (code, github) = plan(&suppressed, "github");
    assert_eq!(code, Some(0));
    assert!(!github.contains("HG201"), "{github}");

    let (code, json) = plan(&suppressed, "json");
    assert_eq!(code, Some(0));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let finding = &json["diagnostics"][0];
    assert_eq!(finding["code"], "HG201");
    assert_eq!(finding["suppressed"]["kind"], "inSource");
    assert_eq!(finding["suppressed"]["justification"], REASON);
    assert_eq!(json["summary"]["errors"], 0);
    assert_eq!(json["summary"]["suppressed"], 1);

    let (code, sarif) = plan(&suppressed, "sarif");
    assert_eq!(code, Some(0));
    let sarif: serde_json::Value = serde_json::from_str(&sarif).unwrap();
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "HG201");
    assert_eq!(result["suppressions"][0]["kind"], "inSource");
    assert_eq!(result["suppressions"][0]["justification"], REASON);

    // A comment on the line above covers the next line; a rule's name does as well as its code.
    let above = spec_with("above", "");
    let text = std::fs::read_to_string(&above).unwrap().replace(
        "  vni: 1\n",
        &format!("  # hybridgen: allow vxlan-vni-windows -- {REASON}\n  vni: 1\n"),
    );
    std::fs::write(&above, text).unwrap();
    let (code, human) = plan(&above, "human");
    assert_eq!(code, Some(0), "{human}");
    for path in [bare, suppressed, above] {
        std::fs::remove_file(path).unwrap();
    }
}

#[test]
fn an_error_suppressed_no_longer_stops_render() {
    let suppressed = spec_with("render", &format!("  # hybridgen: allow HG201 -- {REASON}"));
    let out = std::env::temp_dir().join(format!("hybridgen-suppress-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let rendered = hybridgen(&[
        "render",
        suppressed.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        rendered.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&rendered.stderr)
    );
    assert!(out.join("plan.json").exists());
    std::fs::remove_dir_all(&out).unwrap();
    std::fs::remove_file(suppressed).unwrap();
}

#[test]
fn a_suppression_that_does_not_apply_is_reported_and_suppresses_nothing() {
    for (name, comment, problem) in [
        (
            "other-rule",
            format!("  # hybridgen: allow HG202 -- {REASON}"),
            "suppresses no finding",
        ),
        (
            "no-reason",
            "  # hybridgen: allow HG201".to_string(),
            "gives no reason",
        ),
        (
            "no-rule",
            format!("  # hybridgen: allow HG999 -- {REASON}"),
            "which is no rule",
        ),
    ] {
        let spec = spec_with(name, &comment);
        for format in ["human", "json", "sarif", "github"] {
            let (code, text) = plan(&spec, format);
            assert_eq!(code, Some(1), "{name} {format}: HG201 still fails\n{text}");
            assert!(
                text.contains("HG201") && text.contains("HG012"),
                "{name} {format}\n{text}"
            );
            assert!(text.contains(problem), "{name} {format}\n{text}");
        }
        std::fs::remove_file(spec).unwrap();
    }
}
