//! `hybridgen render` as users run it: refusing bad specs, secrets, `--check`, determinism, and
//! every rendered YAML and JSON file read back by a parser.

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const TOKEN: &str = "q1w2e3.r4t5y6u7i8o9p0a1";
const CA_HASH: &str = "sha256:0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
const RKE2_TOKEN: &str = "K10f0e1d2c3b4a5968778695a4b3c2d1e0f::server:5e3c0f1a2b";
const KUBEADM_1_15_EXAMPLE: &str = "examples/kubeadm-vxlan-windows.yaml";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hybridgen-render-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn hybridgen(args: &[&str], secrets: bool, cwd: &Path) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hybridgen"));
    command
        .args(args)
        .current_dir(cwd)
        .env_remove("KUBEADM_TOKEN")
        .env_remove("KUBEADM_CA_HASH")
        .env_remove("RKE2_TOKEN");
    if secrets {
        command
            .env("KUBEADM_TOKEN", TOKEN)
            .env("KUBEADM_CA_HASH", CA_HASH)
            .env("RKE2_TOKEN", RKE2_TOKEN);
    }
    command.output().unwrap()
}

/// Renders with the secrets set; HG206 is lowered so that the routed host-gw fixture renders.
fn render(spec: &Path, out: &Path) -> Output {
    hybridgen(
        &[
            "render",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--warn",
            "HG206",
        ],
        true,
        root(),
    )
}

/// Every file under `dir`, relative path → bytes, sorted.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                files.push((relative, std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// The examples and the render fixtures (flavours and clouds the examples do not cover).
fn examples() -> Vec<PathBuf> {
    let mut examples: Vec<PathBuf> = ["examples", "tests/fixtures/render"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(root().join(dir)).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    examples.sort();
    examples
}

#[test]
fn every_example_renders_deterministically_and_every_file_parses() {
    for example in examples() {
        let name = example.file_stem().unwrap().to_string_lossy().to_string();
        let (first, second) = (scratch(&format!("{name}-1")), scratch(&format!("{name}-2")));
        let output = render(&example, &first);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        // A second run, from another working directory, gives the same bytes.
        let relative_out = second.to_str().unwrap();
        let again = hybridgen(
            &[
                "render",
                example.to_str().unwrap(),
                "--out",
                relative_out,
                "--warn",
                "HG206",
            ],
            true,
            &std::env::temp_dir(),
        );
        assert_eq!(again.status.code(), Some(0));
        let (a, b) = (tree(&first), tree(&second));
        assert_eq!(a, b, "{name}: renders differ");
        for (path, bytes) in &a {
            let text =
                std::str::from_utf8(bytes).unwrap_or_else(|_| panic!("{name}/{path} is not UTF-8"));
            assert!(!text.contains('\r'), "{name}/{path} has CR line endings");
            if path.ends_with(".sh") {
                let syntax = Command::new("bash")
                    .arg("-n")
                    .arg(first.join(path))
                    .output()
                    .unwrap();
                assert!(
                    syntax.status.success(),
                    "{name}/{path}: {}",
                    String::from_utf8_lossy(&syntax.stderr)
                );
            } else if path.ends_with(".json") || path.ends_with(".tf.json") {
                serde_json::from_str::<serde_json::Value>(text)
                    .unwrap_or_else(|e| panic!("{name}/{path}: {e}"));
            } else if path.ends_with(".yml") || path.ends_with(".yaml") {
                for document in serde_yaml::Deserializer::from_str(text) {
                    serde_yaml::Value::deserialize(document)
                        .unwrap_or_else(|e| panic!("{name}/{path}: {e}"));
                }
            }
        }
        std::fs::remove_dir_all(&first).unwrap();
        std::fs::remove_dir_all(&second).unwrap();
    }
}

#[test]
fn a_spec_with_errors_renders_nothing() {
    let out = scratch("errors");
    let output = render(&root().join("tests/fixtures/mixed.yaml"), &out);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("nothing was rendered"));
    assert!(!out.exists());
}

#[test]
fn check_reports_stale_and_missing_files_and_writes_nothing() {
    let out = scratch("check");
    let spec = root().join(KUBEADM_1_15_EXAMPLE);
    render(&spec, &out);
    let check_args = [
        "render",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--check",
    ];
    // No file holds a secret: the check needs none.
    let clean = hybridgen(&check_args, false, root());
    assert_eq!(
        clean.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&clean.stdout)
    );

    let manifest = out.join("kubeadm/kubeadm-config.yaml");
    let edited = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("10.96.0.10", "10.96.0.11");
    std::fs::write(&manifest, &edited).unwrap();
    std::fs::remove_file(out.join("plan.json")).unwrap();
    let before = tree(&out);
    let stale = hybridgen(&check_args, false, root());
    assert_eq!(stale.status.code(), Some(1));
    let text = String::from_utf8_lossy(&stale.stdout);
    assert!(text.contains("missing: plan.json"), "{text}");
    // The manifest lists other bytes for it: an edit by hand, told apart from staleness.
    assert!(
        text.contains("edited by hand: kubeadm/kubeadm-config.yaml"),
        "{text}"
    );
    assert!(text.contains("--force"), "{text}");
    assert!(text.contains("-  - \"10.96.0.11\""), "{text}");
    assert_eq!(tree(&out), before, "--check wrote something");
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_file_hybridgen_did_not_write_is_kept() {
    let out = scratch("foreign");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("plan.json"), "mine\n").unwrap();
    let refused = render(&root().join(KUBEADM_1_15_EXAMPLE), &out);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(out.join("plan.json")).unwrap(),
        "mine\n"
    );
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn main_example_artifacts_are_stable() {
    let out = scratch("golden");
    render(&root().join(KUBEADM_1_15_EXAMPLE), &out);
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for (path, bytes) in tree(&out) {
            // README.md is snapshotted for every example by tests/steps.rs.
            if path.starts_with('.') || path == "README.md" {
                continue;
            }
            let name = format!("render@kubeadm-vxlan-windows@{}", path.replace('/', "__"));
            insta::assert_snapshot!(name, String::from_utf8(bytes).unwrap());
        }
    });
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn an_inline_token_is_warned_about_but_never_echoed() {
    let spec = std::fs::read_to_string(root().join(KUBEADM_1_15_EXAMPLE))
        .unwrap()
        .replace(
            "    kubeadmToken:\n      fromEnv: KUBEADM_TOKEN",
            &format!("    kubeadmToken: {TOKEN}\n     "),
        );
    assert!(
        spec.contains(&format!("kubeadmToken: {TOKEN}")),
        "the spec edit did not apply"
    );
    let path = scratch("inline").with_extension("yaml");
    std::fs::write(&path, spec).unwrap();
    for format in ["human", "json", "sarif", "github"] {
        let output = hybridgen(
            &["plan", "--format", format, path.to_str().unwrap()],
            false,
            root(),
        );
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(text.contains("HG005"), "{format}: no HG005\n{text}");
        assert!(!text.contains(TOKEN), "{format} echoes the inline token");
    }
    std::fs::remove_file(path).unwrap();
}

#[test]
fn error_messages_never_hold_secrets() {
    let out = scratch("error-secrets");
    std::fs::create_dir_all(out.join("windows")).unwrap();
    // A file in the way of a secret-bearing artifact makes the render fail after the secrets
    // were read.
    std::fs::write(out.join("windows/win-worker-0"), "in the way\n").unwrap();
    let output = render(&root().join(KUBEADM_1_15_EXAMPLE), &out);
    assert_eq!(output.status.code(), Some(2));
    for stream in [&output.stdout, &output.stderr] {
        let text = String::from_utf8_lossy(stream);
        assert!(
            !text.contains(TOKEN) && !text.contains(CA_HASH),
            "a secret reached an error message"
        );
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn node_order_changes_only_the_order_dependent_files() {
    let original = std::fs::read_to_string(root().join(KUBEADM_1_15_EXAMPLE)).unwrap();
    // Move the last node to the front of the node list.
    let (head, list) = original.split_once("nodes:\n").unwrap();
    let mut blocks: Vec<&str> = list.trim_end().split("\n  - ").collect();
    blocks[0] = blocks[0].trim_start_matches("  - ");
    blocks.rotate_right(1);
    let moved = format!("{head}nodes:\n  - {}\n", blocks.join("\n  - "));
    let path = scratch("reordered").with_extension("yaml");
    std::fs::write(&path, &moved).unwrap();
    let (a, b) = (scratch("order-a"), scratch("order-b"));
    render(&root().join(KUBEADM_1_15_EXAMPLE), &a);
    assert_eq!(render(&path, &b).status.code(), Some(0));
    let (before, after) = (tree(&a), tree(&b));
    let differing: Vec<&str> = before
        .iter()
        .zip(&after)
        .filter(|((_, x), (_, y))| x != y)
        .map(|((path, _), _)| path.as_str())
        .collect();
    assert_eq!(before.len(), after.len());
    assert_eq!(
        differing,
        // The manifest records each file's hash, so it changes with them.
        [
            ".hybridgen-manifest",
            "README.md",
            "plan.json",
            "pod-cidrs/assign.sh",
            "routes/routes.json"
        ],
        "node order changed more than the node lists"
    );
    // A pinned node keeps its subnet wherever it stands.
    let plan: serde_json::Value =
        serde_json::from_slice(&std::fs::read(b.join("plan.json")).unwrap()).unwrap();
    let pinned = plan["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|node| node["pinned"] == true)
        .unwrap();
    assert_eq!(pinned["podCidr"], "10.244.10.0/24");
    for dir in [a, b] {
        std::fs::remove_dir_all(dir).unwrap();
    }
    std::fs::remove_file(path).unwrap();
}

/// `plan` lists what `render` writes without rendering it; the two must name the same files for
/// every spec that renders at all (examples, render fixtures and the valid lint fixtures).
#[test]
fn listed_paths_are_exactly_the_rendered_ones() {
    use hybridgen::render::{Input, artifact_paths, render_all};
    let valid = std::fs::read_dir(root().join("tests/fixtures/valid"))
        .unwrap()
        .map(|entry| entry.unwrap().path());
    let mut compared = 0;
    for spec in examples().into_iter().chain(valid) {
        let bytes = std::fs::read(&spec).unwrap();
        let checked = hybridgen::pipeline::check("spec.yaml", bytes);
        let (Some(spec_model), Some(plan)) = (&checked.spec, &checked.plan) else {
            continue;
        };
        let input = Input {
            spec: spec_model,
            plan,
        };
        let Ok(rendered) = render_all(&input) else {
            continue;
        };
        let rendered: Vec<String> = rendered.into_iter().map(|a| a.path).collect();
        assert_eq!(
            artifact_paths(&input).unwrap(),
            rendered,
            "{}",
            spec.display()
        );
        compared += 1;
    }
    assert!(compared > 100, "only {compared} specs compared");
}

/// Two renders of one spec into one new directory at once (two CI jobs, a script run twice): both
/// succeed and the result is whole, round after round.
#[test]
fn concurrent_renders_into_one_new_directory_both_succeed() {
    let spec = root().join("tests/fixtures/render/aws-host-gw.yaml");
    let reference = scratch("concurrent-reference");
    assert!(render(&spec, &reference).status.success());
    let expected = tree(&reference);
    for round in 0..20 {
        let out = scratch(&format!("concurrent-{round}"));
        let start = |_| {
            let mut command = Command::new(env!("CARGO_BIN_EXE_hybridgen"));
            command
                .args([
                    "render",
                    spec.to_str().unwrap(),
                    "--out",
                    out.to_str().unwrap(),
                ])
                .env("KUBEADM_TOKEN", TOKEN)
                .env("KUBEADM_CA_HASH", CA_HASH)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped());
            command.spawn().unwrap()
        };
        let children: Vec<_> = (0..2).map(start).collect();
        for child in children {
            let output = child.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        assert_eq!(tree(&out), expected, "round {round}");
        std::fs::remove_dir_all(&out).unwrap();
    }
    std::fs::remove_dir_all(&reference).unwrap();
}

/// Renaming a Windows node leaves no stale copy of its old files (they hold the join secrets):
/// `--check` names them, and `render` removes them.
#[test]
fn files_of_a_renamed_node_are_reported_then_removed() {
    let out = scratch("renamed-node");
    let spec_dir = scratch("renamed-node-spec");
    std::fs::create_dir_all(&spec_dir).unwrap();
    let original = std::fs::read_to_string(root().join(KUBEADM_1_15_EXAMPLE)).unwrap();
    assert!(
        render(&root().join(KUBEADM_1_15_EXAMPLE), &out)
            .status
            .success()
    );
    let old_dir = out.join("windows/win-worker-0");
    assert!(old_dir.is_dir(), "the example has a node win-worker-0");
    let renamed = spec_dir.join("renamed.yaml");
    std::fs::write(
        &renamed,
        original.replace("name: win-worker-0", "name: win-worker-9"),
    )
    .unwrap();
    let renamed_arg = renamed.to_str().unwrap();
    let out_arg = out.to_str().unwrap();
    let check = hybridgen(
        &["render", renamed_arg, "--out", out_arg, "--check"],
        false,
        root(),
    );
    assert_eq!(check.status.code(), Some(1));
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(
        report.contains("no longer rendered: windows/win-worker-0/"),
        "{report}"
    );
    let output = hybridgen(&["render", renamed_arg, "--out", out_arg], true, root());
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("removed "));
    assert!(!old_dir.exists(), "the old node's directory stays");
    assert!(out.join("windows/win-worker-9").is_dir());
    let check = hybridgen(
        &["render", renamed_arg, "--out", out_arg, "--check"],
        false,
        root(),
    );
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    std::fs::remove_dir_all(&out).unwrap();
    std::fs::remove_dir_all(&spec_dir).unwrap();
}
