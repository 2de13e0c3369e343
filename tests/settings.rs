//! The project's settings file as a team keeps it: `.hybridgen.yaml` found from the spec upward,
//! no further than the repository's root; severities per rule and per path; the command line
//! over the file; a file that does not read is an error naming it; `--show-settings` says what
//! applies.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A spec with one error, HG201 (VNI 1 with Windows nodes).
const SPEC: &str = "tests/fixtures/invalid/HG201-vni-1-windows.yaml";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A repository: `.git`, the settings file (when given), and the spec at each of `specs`.
fn repository(name: &str, settings: Option<&str>, specs: &[&str]) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("hybridgen-settings-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("repo/.git")).unwrap();
    if let Some(text) = settings {
        std::fs::write(dir.join("repo/.hybridgen.yaml"), text).unwrap();
    }
    let spec = std::fs::read_to_string(root().join(SPEC)).unwrap();
    for path in specs {
        let path = dir.join("repo").join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, &spec).unwrap();
    }
    dir
}

fn hybridgen(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn said(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn the_settings_file_sets_severities_for_every_command_and_format() {
    let dir = repository(
        "global",
        Some("severity:\n  HG201: allow\n"),
        &["clusters/a.yaml"],
    );
    let repo = dir.join("repo");
    let control = hybridgen(root(), &["plan", "-q", SPEC]);
    assert_ne!(control.status.code(), Some(0));
    for format in ["human", "json", "sarif", "github"] {
        let output = hybridgen(
            &repo,
            &["plan", "-q", "--format", format, "clusters/a.yaml"],
        );
        assert_eq!(output.status.code(), Some(0), "{format}: {}", said(&output));
        let stdout = String::from_utf8_lossy(&output.stdout);
        let parsed = || serde_json::from_str::<serde_json::Value>(&stdout).unwrap();
        let reported = match format {
            "json" => parsed()["diagnostics"] != serde_json::json!([]),
            "sarif" => parsed()["runs"][0]["results"] != serde_json::json!([]),
            _ => stdout.contains("HG201"),
        };
        assert!(!reported, "{format}: {stdout}");
    }
    // From another directory too: the file is found from the spec, not the working directory.
    let elsewhere = hybridgen(&dir, &["plan", "-q", "repo/clusters/a.yaml"]);
    assert_eq!(elsewhere.status.code(), Some(0), "{}", said(&elsewhere));
    let out = dir.join("out");
    let rendered = hybridgen(
        &repo,
        &["render", "clusters/a.yaml", "--out", out.to_str().unwrap()],
    );
    assert_eq!(rendered.status.code(), Some(0), "{}", said(&rendered));
    // The command line keeps its own level.
    let warned = hybridgen(&repo, &["plan", "-q", "--warn", "HG201", "clusters/a.yaml"]);
    assert_eq!(warned.status.code(), Some(0));
    assert!(said(&warned).contains("HG201"), "{}", said(&warned));
    let denied = hybridgen(
        &repo,
        &[
            "plan",
            "-q",
            "--deny",
            "vxlan-vni-windows",
            "clusters/a.yaml",
        ],
    );
    assert_eq!(denied.status.code(), Some(1), "{}", said(&denied));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn per_file_levels_apply_only_to_matching_paths() {
    let settings = "perFile:\n  - files: [\"lab/*.yaml\", \"**/dev-*.yaml\"]\n    severity:\n      HG201: warn\n";
    let dir = repository(
        "per-file",
        Some(settings),
        &["lab/a.yaml", "prod/a.yaml", "x/y/dev-1.yaml"],
    );
    let repo = dir.join("repo");
    for (path, code) in [
        ("lab/a.yaml", Some(0)),
        ("x/y/dev-1.yaml", Some(0)),
        ("prod/a.yaml", Some(1)),
    ] {
        let output = hybridgen(&repo, &["plan", "-q", path]);
        assert_eq!(output.status.code(), code, "{path}: {}", said(&output));
        assert!(said(&output).contains("HG201"), "{path}");
    }
    let shown = hybridgen(
        &repo,
        &["plan", "--show-settings", "lab/a.yaml", "prod/a.yaml"],
    );
    let text = said(&shown);
    assert_eq!(shown.status.code(), Some(0), "{text}");
    assert!(text.contains(".hybridgen.yaml"), "{text}");
    assert!(
        text.contains("HG201 warn (perFile[0] (lab/*.yaml, **/dev-*.yaml))"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_search_stops_at_the_repository_root() {
    let dir = repository("root", None, &["a.yaml"]);
    // A settings file above the repository is not the repository's.
    std::fs::write(dir.join(".hybridgen.yaml"), "severity:\n  HG201: allow\n").unwrap();
    let output = hybridgen(&dir.join("repo"), &["plan", "-q", "a.yaml"]);
    assert_eq!(output.status.code(), Some(1), "{}", said(&output));
    let shown = said(&hybridgen(
        &dir.join("repo"),
        &["plan", "--show-settings", "a.yaml"],
    ));
    assert!(shown.contains("no `.hybridgen.yaml` found"), "{shown}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_settings_file_that_does_not_read_is_an_error_naming_it() {
    for (name, text, expected) in [
        (
            "unknown-rule",
            "severity:\n  HG999: allow\n",
            "`severity` names `HG999`, which is no rule",
        ),
        (
            "unknown-level",
            "severity:\n  HG201: off\n",
            "unknown variant `off`",
        ),
        (
            "unknown-key",
            "rules:\n  HG201: allow\n",
            "unknown field `rules`",
        ),
        ("not-yaml", "severity: [\n", ".hybridgen.yaml`:"),
    ] {
        let dir = repository(name, Some(text), &["a.yaml"]);
        let output = hybridgen(&dir.join("repo"), &["plan", "-q", "a.yaml"]);
        assert_eq!(output.status.code(), Some(2), "{name}: {}", said(&output));
        assert!(
            said(&output).contains(expected),
            "{name}: {}",
            said(&output)
        );
        assert!(
            said(&output).contains(".hybridgen.yaml"),
            "{name}: {}",
            said(&output)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// A pull request can commit `.hybridgen.yaml` as a link to a file of the machine that runs the
/// check (`/proc/self/environ`, credentials): it is refused unread, and nothing of it is printed.
#[test]
fn a_linked_settings_file_is_refused_and_never_quoted() {
    let dir = repository("linked", None, &["a.yaml"]);
    let secret = "CI_SECRET_TOKEN=ghp_settingsleak0123456789";
    std::fs::write(dir.join("credentials"), format!("{secret}\n")).unwrap();
    std::os::unix::fs::symlink(dir.join("credentials"), dir.join("repo/.hybridgen.yaml")).unwrap();
    for args in [
        &["plan", "-q", "a.yaml"][..],
        &["plan", "--show-settings", "a.yaml"][..],
    ] {
        let output = hybridgen(&dir.join("repo"), args);
        let text = said(&output);
        assert_eq!(output.status.code(), Some(2), "{text}");
        assert!(text.contains("is not a plain file"), "{text}");
        assert!(!text.contains("ghp_settingsleak"), "{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
