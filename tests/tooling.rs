//! Around the tool: what the README, the docs and the help tell a user to run works as written —
//! on a fresh home, in a pre-commit hook, in CI — and what they say the tool writes is what it
//! writes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MAIN_EXAMPLE: &str = "examples/kubeadm-1.36-vxlan-windows.yaml";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

fn hybridgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .args(args)
        .current_dir(root())
        .env_remove("KUBEADM_TOKEN")
        .env_remove("KUBEADM_CA_HASH")
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A directory of its own for a test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("tooling")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The lines of the first fenced block of `language` after `heading` in a Markdown file.
fn fenced_after(text: &str, heading: &str, language: &str) -> Vec<String> {
    let from = text
        .find(heading)
        .unwrap_or_else(|| panic!("no `{heading}`"));
    let block = &text[from..];
    let start = block.find(&format!("```{language}\n")).unwrap() + language.len() + 4;
    let end = start + block[start..].find("```").unwrap();
    block[start..end].lines().map(str::to_string).collect()
}

#[test]
fn tests_that_need_kubectl_are_listed_as_ignored_and_ci_runs_them() {
    // A test that did not run must not pass: each one that needs a kubectl says so as ignored.
    let mut needing = 0;
    for entry in std::fs::read_dir(root().join("tests")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        for test in source.split("#[test]").skip(1) {
            let body = &test[..test.find("\n}\n").unwrap_or(test.len())];
            if body.contains(&["test_kubectl", "()"].concat()) {
                needing += 1;
                assert!(
                    body.trim_start()
                        .starts_with("#[ignore = \"needs HYBRIDGEN_TEST_KUBECTL"),
                    "{}: a test that needs kubectl must be ignored:\n{body}",
                    path.display()
                );
            }
        }
    }
    assert!(needing >= 2, "found {needing} tests that need kubectl");
    // So is each that reads the public captures beside the clone.
    let captures = read("tests/public_captures.rs");
    for test in captures.split("#[test]").skip(1) {
        let body = &test[..test.find("\n}\n").unwrap_or(test.len())];
        if body.contains("capture(\"") || body.contains(&["captures", "()"].concat()) {
            assert!(
                body.trim_start()
                    .starts_with("#[ignore = \"needs the public captures"),
                "a test that reads the public captures must be ignored:\n{body}"
            );
        }
    }
    // So is each that injects faults with strace.
    let hardening = read("tests/hardening.rs");
    let mut with_strace = 0;
    for test in hardening.split("#[test]").skip(1) {
        let body = &test[..test.find("\n}\n").unwrap_or(test.len())];
        if body.contains(&["strace", "();"].concat()) {
            with_strace += 1;
            assert!(
                body.trim_start().starts_with("#[ignore = \"needs strace"),
                "a test that needs strace must be ignored:\n{body}"
            );
        }
    }
    assert!(
        with_strace >= 2,
        "found {with_strace} tests that need strace"
    );
    // CI runs the README's test command, then the ignored ones with a kubectl and strace.
    let setup = fenced_after(&read("README.md"), "## Set-up on a fresh machine", "sh");
    let test_command = setup
        .iter()
        .find_map(|line| line.split('#').next().filter(|c| c.contains("cargo test")))
        .unwrap()
        .trim()
        .to_string();
    assert_eq!(test_command, "cargo test --locked");
    let ci = read(".ci/run");
    let readme_test = ci
        .lines()
        .position(|line| line == test_command)
        .expect(".ci/run runs the README's test command");
    let ignored = ci
        .lines()
        .position(|line| {
            line.contains("HYBRIDGEN_TEST_KUBECTL=")
                && line.contains(
                    "cargo test --locked --test verify --test public_captures --test hardening -- --ignored",
                )
        })
        .expect(".ci/run runs the ignored kubectl tests");
    assert!(readme_test < ignored);
    let strace_installed = ci
        .lines()
        .position(|line| line.contains("apt-get install") && line.contains("strace"))
        .expect(".ci/run installs strace");
    assert!(strace_installed < ignored);
}

#[test]
fn every_page_the_manual_names_is_written() {
    let dir = scratch("man");
    let written = hybridgen(&["man", "--dir", dir.to_str().unwrap()]);
    assert_eq!(written.status.code(), Some(0), "{}", stdout(&written));
    let top = std::fs::read_to_string(dir.join("hybridgen.1")).unwrap();
    let named: Vec<String> = top
        .split("hybridgen\\-")
        .skip(1)
        .filter_map(|rest| {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase())
                .collect();
            rest[name.len()..].starts_with("(1)").then_some(name)
        })
        .collect();
    for command in ["plan", "render", "verify", "explain", "init", "man"] {
        assert!(named.contains(&command.to_string()), "{named:?}");
    }
    assert!(!named.contains(&"help".to_string()), "{named:?}");
    for name in &named {
        let page =
            std::fs::read_to_string(dir.join(format!("hybridgen-{name}.1"))).unwrap_or_else(|_| {
                panic!("hybridgen(1) names hybridgen-{name}(1), which is not written")
            });
        assert!(page.contains(&format!(".TH hybridgen-{name} 1")), "{page}");
        // `hybridgen man NAME` prints the same page.
        assert_eq!(stdout(&hybridgen(&["man", name])), page);
    }
    let plan = std::fs::read_to_string(dir.join("hybridgen-plan.1")).unwrap();
    assert!(plan.contains("skip\\-non\\-specs"), "{plan}");
    assert_eq!(hybridgen(&["man", "nope"]).status.code(), Some(2));
}

/// The install commands a user is told to run, by where they are written: in `completions --help`,
/// `man --help` and the docs, in order. PowerShell's need PowerShell.
fn install_commands() -> Vec<(String, Vec<String>)> {
    let shell = |line: &str| {
        (line.starts_with("mkdir -p ~/") || line.starts_with("hybridgen "))
            && !line.contains("$PROFILE")
    };
    let mut sources = Vec::new();
    for command in ["completions", "man"] {
        let help = stdout(&hybridgen(&[command, "--help"]));
        let examples = &help[help.find("Example").unwrap()..];
        let lines = examples.lines().skip(1).map(str::trim).filter(|l| shell(l));
        sources.push((
            format!("`{command} --help`"),
            lines.map(str::to_string).collect(),
        ));
    }
    let docs = fenced_after(&read("docs/ci.md"), "## Shells and manuals", "sh");
    sources.push((
        "docs/ci.md".to_string(),
        docs.into_iter().filter(|l| shell(l)).collect(),
    ));
    sources
}

#[test]
fn completion_and_manual_install_commands_work_on_a_fresh_home() {
    let bin = Path::new(env!("CARGO_BIN_EXE_hybridgen")).parent().unwrap();
    for (index, (from, commands)) in install_commands().iter().enumerate() {
        assert!(commands.len() >= 2, "{from}: {commands:#?}");
        let home = scratch(&format!("home-{index}"));
        let script = format!("set -e\n{}\n", commands.join("\n"));
        let ran = Command::new("bash")
            .arg("-c")
            .arg(&script)
            .current_dir(&home)
            .env("HOME", &home)
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .output()
            .unwrap();
        assert!(
            ran.status.success(),
            "{from}: fails on a fresh home:\n{script}\n{}",
            String::from_utf8_lossy(&ran.stderr)
        );
        // What each wrote: the file after `>`, or the pages under `--dir`.
        for command in commands.iter().filter(|c| c.starts_with("hybridgen ")) {
            let command = command.split('#').next().unwrap();
            let target = command.rsplit(['>', ' ']).find(|w| !w.is_empty()).unwrap();
            let target = home.join(target.trim_start_matches("~/"));
            let written = if command.contains("--dir") {
                target.join("hybridgen-plan.1")
            } else {
                target
            };
            let size = std::fs::metadata(&written).map_or(0, |m| m.len());
            assert!(
                size > 0,
                "{from}: `{command}` wrote nothing at {}",
                written.display()
            );
        }
    }
}

#[test]
fn the_capture_script_is_a_shell_script() {
    let script = stdout(&hybridgen(&["verify", MAIN_EXAMPLE, "--print-capture"]));
    assert!(script.starts_with("#!/bin/sh\n"), "{script}");
    let path = scratch("capture").join("capture.sh");
    std::fs::write(&path, &script).unwrap();
    let syntax = Command::new("sh").arg("-n").arg(&path).status().unwrap();
    assert!(syntax.success());
}

#[test]
fn the_hook_checks_specs_and_passes_over_other_yaml() {
    let hooks = read(".pre-commit-hooks.yaml");
    let entry = hooks
        .lines()
        .find(|line| line.trim_start().starts_with("entry: hybridgen plan"))
        .unwrap();
    let args: Vec<&str> = entry
        .split_once("hybridgen ")
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let dir = scratch("hook");
    let flux = dir.join("gotk-sync.yaml");
    std::fs::write(
        &flux,
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n",
    )
    .unwrap();
    let mut with = args.clone();
    with.push(flux.to_str().unwrap());
    let skipped = hybridgen(&with);
    assert_eq!(skipped.status.code(), Some(0), "{}", stdout(&skipped));
    assert_eq!(stdout(&skipped), "");
    // A spec beside it is still checked.
    with.push("tests/fixtures/mixed.yaml");
    let checked = hybridgen(&with);
    assert_eq!(checked.status.code(), Some(1));
    assert!(stdout(&checked).contains("HG101"), "{}", stdout(&checked));
    assert!(
        !stdout(&checked).contains("gotk-sync"),
        "{}",
        stdout(&checked)
    );
}

/// `render` reads no secret: with no variable set, every file renders and none holds a
/// placeholder or an escaped `<` where one used to stand.
#[test]
fn rendering_needs_no_secret_and_writes_no_placeholder() {
    let out = scratch("no-secrets");
    let rendered = hybridgen(&["render", MAIN_EXAMPLE, "--out", out.to_str().unwrap()]);
    assert_eq!(rendered.status.code(), Some(0), "{}", stdout(&rendered));
    let join = std::fs::read_to_string(out.join("windows/win-worker-0/kubeadm-join.yaml")).unwrap();
    assert!(!join.contains("token:"), "{join}");
    for entry in walk(&out) {
        let text = std::fs::read_to_string(&entry).unwrap_or_default();
        assert!(
            !text.contains("\\u003c") && !text.contains("<unset"),
            "{}: {text}",
            entry.display()
        );
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flat_map(|entry| {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path)
            } else {
                vec![path]
            }
        })
        .collect()
}

#[test]
fn per_host_routes_are_written_only_as_the_docs_say() {
    const ROUTED: &str = "tests/fixtures/render/routed-host-gw.yaml";
    let out = scratch("routes");
    let out_arg = out.to_str().unwrap();
    let refused = hybridgen(&["render", ROUTED, "--out", out_arg]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(!out.join("routes/hosts").exists());
    let taken_on = hybridgen(&[
        "render",
        ROUTED,
        "--out",
        out.to_str().unwrap(),
        "--warn",
        "HG206",
    ]);
    assert_eq!(
        taken_on.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&taken_on.stderr)
    );
    assert!(out.join("routes/hosts").is_dir());
    let readme = read("README.md");
    let row = readme
        .lines()
        .find(|line| line.starts_with("| `routes/hosts/<node>.sh`"))
        .unwrap();
    assert!(row.contains("`--warn HG206`"), "{row}");
    assert!(read("docs/routes.md").contains("only\nwith `--warn HG206`"));
}

#[test]
fn the_docs_name_one_sarif_upload_action_and_who_writes_the_cni_config() {
    let mut versions = std::collections::BTreeSet::new();
    for path in ["README.md", "docs/ci.md", "docs/verify.md"] {
        for (at, _) in read(path).match_indices("upload-sarif@") {
            let text = read(path);
            let version: String = text[at + 13..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            versions.insert(version);
        }
    }
    assert_eq!(versions.into_iter().collect::<Vec<_>>(), ["v4"]);
    // On Linux flannel's `install-cni` init container copies it; the docs say so.
    let out = scratch("conflist");
    let rendered = Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .args(["render", MAIN_EXAMPLE, "--out", out.to_str().unwrap()])
        .current_dir(root())
        .env("KUBEADM_TOKEN", "abcdef.0123456789abcdef")
        .env("KUBEADM_CA_HASH", format!("sha256:{}", "0".repeat(64)))
        .output()
        .unwrap();
    assert!(rendered.status.success());
    let manifest = std::fs::read_to_string(out.join("kube-flannel.yml")).unwrap();
    let install = &manifest[manifest.find("- name: install-cni\n").unwrap()..];
    let install = &install[..install
        .find("- name: kube-flannel")
        .unwrap_or(install.len())];
    assert!(
        install.contains("/etc/cni/net.d/10-flannel.conflist"),
        "{install}"
    );
    let windows = read("docs/windows.md");
    assert!(windows.contains("`install-cni`"), "docs/windows.md");
    assert!(windows.contains("/etc/cni/net.d/10-flannel.conflist"));
}

/// Imports between modules point one way: `tools/module-cycles.py` finds no cycle between files
/// or between top-level modules, and no import up its table of layers (its `--graph` lists every
/// edge).
#[test]
fn modules_import_without_cycles() {
    let output = Command::new("python3")
        .arg(root().join("tools/module-cycles.py"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), "");
    assert_eq!(output.status.code(), Some(0));
}

/// `unsafe` is forbidden for every target of the package by Cargo.toml's `[lints.rust]`, so no
/// module can allow it again, and no Rust file of the repository (src/, tests/, benches/,
/// examples/, fuzz/) holds the word.
#[test]
fn no_code_is_unsafe() {
    let manifest = read("Cargo.toml");
    let lints = manifest
        .split_once("\n[lints.rust]\n")
        .map(|(_, rest)| rest.split("\n[").next().unwrap_or(rest))
        .expect("Cargo.toml has no [lints.rust] table");
    assert!(
        lints
            .lines()
            .any(|line| line == r#"unsafe_code = "forbid""#),
        "Cargo.toml's [lints.rust] does not forbid unsafe code"
    );
    let mut found = Vec::new();
    let mut read_files = 0;
    for folder in ["src", "tests", "benches", "examples", "fuzz"] {
        for path in walk(&root().join(folder)) {
            if path.extension().is_some_and(|ext| ext == "rs") {
                read_files += 1;
                let text = std::fs::read_to_string(&path).unwrap();
                if text.contains("unsafe") && !path.ends_with("tests/tooling.rs") {
                    found.push(path.display().to_string());
                }
            }
        }
    }
    assert!(read_files > 100, "only {read_files} Rust files read");
    assert_eq!(found, Vec::<String>::new());
}

/// `MAIN_EXAMPLE`, which the tests plan, render and verify as a user's first spec, is the one the
/// README calls the main example.
#[test]
fn main_example_is_the_readmes() {
    let readme = read("README.md");
    let line = readme
        .lines()
        .find(|line| line.contains("the main example:"))
        .unwrap();
    assert!(line.contains(&format!("]({MAIN_EXAMPLE})")), "{line}");
    assert!(readme.contains(&format!(
        "plan {MAIN_EXAMPLE}   # build, then plan the main example"
    )));
}

/// The commands of a page's EXAMPLES section, as roff holds them between `.nf` and `.fi`, with
/// roff's escapes read back.
fn roff_examples(page: &str) -> Vec<String> {
    let Some(start) = page.find(".SH EXAMPLES\n") else {
        return Vec::new();
    };
    let section = &page[start..];
    let body = &section[section.find(".nf\n").unwrap() + 4..section.find(".fi\n").unwrap()];
    body.lines()
        .map(|line| {
            line.replace("\\-", "-")
                .replace("\\e", "\\")
                .replace("\\&", "")
        })
        .collect()
}

/// Every page has EXAMPLES (kept line for line: no-fill mode), EXIT STATUS as `main.rs` maps
/// outcomes, ENVIRONMENT and FILES where the command reads any, and SEE ALSO naming the other
/// pages; the examples are exactly the ones `--help` prints.
#[test]
fn every_manual_page_has_examples_exit_status_environment_files_and_see_also() {
    let dir = scratch("man-sections");
    let written = hybridgen(&["man", "--dir", dir.to_str().unwrap()]);
    assert_eq!(written.status.code(), Some(0));
    let pages = [
        "",
        "plan",
        "render",
        "verify",
        "explain",
        "schema",
        "completions",
        "man",
        "init",
    ];
    for name in pages {
        let file = if name.is_empty() {
            "hybridgen.1".to_string()
        } else {
            format!("hybridgen-{name}.1")
        };
        let page = std::fs::read_to_string(dir.join(&file)).unwrap();
        for section in [
            ".SH EXAMPLES\n",
            ".SH \"EXIT STATUS\"\n",
            ".SH \"SEE ALSO\"\n",
        ] {
            assert!(page.contains(section), "{file} lacks {section}");
        }
        assert!(
            !page.contains(".SH EXTRA"),
            "{file} still reflows its examples"
        );
        assert!(
            page.contains(".TP\n\\fB0\\fR\n") && page.contains(".TP\n\\fB2\\fR\n"),
            "{file}"
        );
        if ["", "plan", "render", "verify"].contains(&name) {
            assert!(page.contains(".SH ENVIRONMENT\n"), "{file}");
            assert!(page.contains(".SH FILES\n"), "{file}");
            assert!(page.contains("\\fB1\\fR"), "{file}: exit status 1");
            assert!(page.contains("hybridgen.yaml"), "{file}: the settings file");
        }
        let examples = roff_examples(&page);
        assert!(!examples.is_empty(), "{file}");
        if name.is_empty() {
            assert!(
                examples[0].starts_with("hybridgen init cluster.yaml"),
                "{examples:?}"
            );
            continue;
        }
        let help = stdout(&hybridgen(&[name, "--help"]));
        let listed: Vec<&str> = help[help.rfind("Example").unwrap()..]
            .lines()
            .skip(1)
            .map(|line| line.strip_prefix("  ").unwrap_or(line))
            .filter(|line| !line.is_empty())
            .collect();
        assert_eq!(examples, listed, "{file}");
    }
    let render = std::fs::read_to_string(dir.join("hybridgen-render.1")).unwrap();
    for variable in ["NO_COLOR", "KUBEADM_TOKEN", "RKE2_TOKEN", "CATTLE_TOKEN"] {
        assert!(
            render.contains(variable),
            "hybridgen-render(1) lacks {variable}"
        );
    }
    assert!(render.contains("DIR/.hybridgen\\-manifest"), "{render}");
    assert!(render.contains("DIR/README.md"), "{render}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What `man` shows: groff keeps each example on its own line, as typed.
#[test]
#[ignore = "needs groff"]
fn manual_examples_are_shown_as_typed() {
    let page = stdout(&hybridgen(&["man", "completions"]));
    let mut groff = Command::new("groff")
        .args(["-man", "-Tutf8", "-P-c", "-P-b", "-P-u"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("groff");
    use std::io::Write as _;
    groff
        .stdin
        .take()
        .unwrap()
        .write_all(page.as_bytes())
        .unwrap();
    let shown = String::from_utf8(groff.wait_with_output().unwrap().stdout).unwrap();
    let lines: Vec<&str> = shown.lines().map(str::trim).collect();
    for example in roff_examples(&page) {
        assert!(
            lines.contains(&example.as_str()),
            "not shown as typed: {example}\n{shown}"
        );
    }
}
