//! `README.md` in every rendered directory: what to run where, in which order. Read as a newcomer
//! reads it (a snapshot per example), and checked for what a reader cannot see at a glance: every
//! file a step names is rendered, every copy lands in the same place when pasted twice, no step
//! shows a secret, and values from the spec cannot become Markdown.

use hybridgen::pipeline;
use hybridgen::render::{Artifact, Input, render_all};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn examples() -> Vec<PathBuf> {
    let mut specs: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    specs.sort();
    specs
}

fn render(name: &str, text: &str) -> Vec<Artifact> {
    let checked = pipeline::check(name, text.as_bytes().to_vec());
    let (Some(spec), Some(plan)) = (&checked.spec, &checked.plan) else {
        panic!("{name} does not plan");
    };
    render_all(&Input { spec, plan }).unwrap_or_else(|error| panic!("{name}: {error:?}"))
}

fn readme(artifacts: &[Artifact]) -> &str {
    &artifacts
        .iter()
        .find(|artifact| artifact.path == "README.md")
        .expect("no README.md rendered")
        .contents
}

/// The lines of the fenced code blocks.
fn commands(readme: &str) -> Vec<&str> {
    let mut inside = false;
    let mut lines = Vec::new();
    for line in readme.lines() {
        if line.starts_with("```") {
            inside = !inside;
        } else if inside {
            lines.push(line);
        }
    }
    assert!(!inside, "a code block is not closed");
    lines
}

#[test]
fn every_example_says_what_to_run_where() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for example in examples() {
            let name = example.file_stem().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(&example).unwrap();
            let artifacts = render(&name, &text);
            insta::assert_snapshot!(format!("steps@{name}"), readme(&artifacts));
        }
    });
}

/// Every rendered file a command reads from this directory (`bash X`, `kubectl apply -f X`, the
/// sources of `scp`) exists, and every script a node runs is copied there by the same step.
#[test]
fn every_file_a_step_names_is_rendered() {
    let mut named = 0;
    for example in examples() {
        let name = example.display().to_string();
        let artifacts = render(&name, &std::fs::read_to_string(&example).unwrap());
        let rendered: BTreeSet<&str> = artifacts.iter().map(|a| a.path.as_str()).collect();
        let exists = |path: &str| {
            rendered.contains(path)
                || rendered
                    .iter()
                    .any(|file| file.starts_with(&format!("{path}/")))
        };
        for line in commands(readme(&artifacts)) {
            let words: Vec<&str> = line.split_whitespace().collect();
            let local: Vec<&str> = match words.as_slice() {
                ["bash", path, ..] if !path.starts_with("hybridgen/") => vec![*path],
                ["kubectl", "apply", rest @ ..] => rest
                    .iter()
                    .zip(rest.iter().skip(1))
                    .filter(|(flag, _)| **flag == "-f")
                    .map(|(_, path)| *path)
                    .collect(),
                ["scp", "-r", rest @ ..] => rest[..rest.len() - 1].to_vec(),
                _ => Vec::new(),
            };
            for path in local {
                named += 1;
                assert!(
                    exists(path),
                    "{name}: `{line}` names {path}, which is not rendered"
                );
            }
            // What a node runs from its copy was copied: `hybridgen/X` on Linux, C:\hybridgen\X.
            let copied = words.iter().find_map(|word| {
                word.strip_prefix("hybridgen/")
                    .map(String::from)
                    .or_else(|| {
                        word.strip_prefix(r"C:\hybridgen\")
                            .map(|p| p.replace('\\', "/"))
                    })
            });
            if let Some(path) =
                copied.filter(|p| p.ends_with(".sh") || p.ends_with(".ps1") || p.ends_with(".yaml"))
            {
                assert!(
                    rendered.contains(path.as_str()),
                    "{name}: `{line}` runs {path}, which is not rendered"
                );
            }
        }
    }
    assert!(named > 30, "only {named} files named");
}

/// `scp -r DIR HOST:DEST` nests DIR inside DEST on the second run when DEST did not exist on the
/// first. Every copy goes into a parent that the line before creates, and the copy keeps the
/// rendered layout: `scp -r windows/win-0 HOST:C:/hybridgen/windows/`.
#[test]
fn copies_land_in_the_same_place_when_pasted_twice() {
    let mut copies = 0;
    for example in examples() {
        let name = example.display().to_string();
        let artifacts = render(&name, &std::fs::read_to_string(&example).unwrap());
        let lines = commands(readme(&artifacts));
        let mut created: BTreeSet<String> = BTreeSet::new();
        for line in &lines {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["ssh", _, "mkdir", "-p", dir] => {
                    created.insert(format!("{dir}/"));
                }
                ["ssh", _, "powershell", .., "-Path", dir] => {
                    created.insert(format!("{dir}/"));
                }
                ["scp", rest @ ..] => {
                    copies += 1;
                    let (sources, target) = rest.split_at(rest.len() - 1);
                    let dest = target[0].split_once(':').unwrap().1;
                    assert!(
                        dest.ends_with('/'),
                        "{name}: `{line}` copies to a path, not into a directory"
                    );
                    assert!(
                        created.contains(dest),
                        "{name}: `{line}`: nothing creates {dest} first"
                    );
                    for source in sources.iter().filter(|s| !s.starts_with('-')) {
                        let parent = source.rsplit_once('/').map_or("", |(parent, _)| parent);
                        let base = dest.trim_end_matches('/');
                        let kept = base == format!("hybridgen/{parent}").trim_end_matches('/')
                            || base == format!("C:/hybridgen/{parent}").trim_end_matches('/');
                        assert!(
                            kept,
                            "{name}: `{line}` does not keep the layout of {source}"
                        );
                    }
                }
                _ => {}
            }
        }
    }
    assert!(copies > 20, "only {copies} copies seen");
    // And scp itself, run twice into a directory that exists, leaves one copy.
    let scratch = std::env::temp_dir().join(format!("hybridgen-steps-scp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(scratch.join("src/windows/win-0")).unwrap();
    std::fs::write(scratch.join("src/windows/win-0/join.ps1"), "x").unwrap();
    std::fs::create_dir_all(scratch.join("dst/windows")).unwrap();
    for _ in 0..2 {
        // `cp -r` copies as scp does: into DEST when DEST is a directory.
        let status = Command::new("cp")
            .args(["-r", "windows/win-0", "../dst/windows/"])
            .current_dir(scratch.join("src"))
            .status()
            .unwrap();
        assert!(status.success());
    }
    assert!(scratch.join("dst/windows/win-0/join.ps1").is_file());
    assert!(!scratch.join("dst/windows/win-0/win-0").exists());
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// A step names the variable a script reads and asks for its value without echo; no command
/// assigns a value to it.
#[test]
fn steps_ask_for_secrets_and_never_hold_one() {
    for example in examples() {
        let name = example.display().to_string();
        let artifacts = render(&name, &std::fs::read_to_string(&example).unwrap());
        for line in commands(readme(&artifacts)) {
            for variable in [
                "KUBEADM_TOKEN",
                "KUBEADM_CA_HASH",
                "RKE2_TOKEN",
                "CATTLE_TOKEN",
                "RANCHER_TOKEN_KEY",
            ] {
                if line.contains(&format!("{variable}="))
                    || line.contains(&format!("${{env:{variable}}} ="))
                {
                    panic!("{name}: `{line}` sets {variable}");
                }
                if line.starts_with(&format!("$env:{variable} =")) {
                    assert!(
                        line.contains("Read-Host -AsSecureString"),
                        "{name}: `{line}`"
                    );
                }
            }
            if line.starts_with("read ") {
                assert!(
                    line.starts_with("read -rsp "),
                    "{name}: `{line}` echoes what is typed"
                );
            }
        }
    }
}

/// Node and cluster names reach the README as text, never as Markdown: a name that looks like a
/// link, emphasis or HTML is escaped in prose and quoted in commands.
#[test]
fn names_from_the_spec_are_shown_not_obeyed() {
    let example =
        std::fs::read_to_string(root().join("examples/kubeadm-1.36-vxlan-windows.yaml")).unwrap();
    let hostile = "w*<b>[x](e)|`1";
    let spec = format!(
        "# hybridgen: allow-file HG007 -- the name is the test\n{}",
        example.replace("name: win-worker-1", &format!("name: '{hostile}'"))
    );
    let artifacts = render("hostile.yaml", &spec);
    let text = readme(&artifacts);
    // In the table: escaped text. In headings and prose: a code span. In commands: quoted.
    assert!(
        text.contains(r"| 7 | w\*\<b\>\[x\](e)\|\`1 (192.168.10.31) |"),
        "{text}"
    );
    assert!(
        text.contains(r"## 7. ``w*<b>[x](e)\|`1`` (192.168.10.31)"),
        "{text}"
    );
    assert!(text.contains(r"scp -r 'windows/w*<b>[x](e)|`1' "), "{text}");
    assert!(
        text.contains(r"-File 'C:\hybridgen\windows\w*<b>[x](e)|`1\join.ps1'"),
        "{text}"
    );
    // Outside code blocks and those code spans, the name never appears as it is.
    let prose: String = text
        .split("```")
        .step_by(2)
        .collect::<Vec<_>>()
        .join("")
        .replace(r"``w*<b>[x](e)\|`1``", "");
    assert!(!prose.contains("<b>"), "{prose}");
}

/// A minor past its upstream end of life is said in the summary, with the date and the oldest
/// minor still maintained; a maintained one is not.
#[test]
fn the_summary_says_when_the_kubernetes_minor_has_ended() {
    let example =
        std::fs::read_to_string(root().join("examples/kubeadm-1.36-vxlan-windows.yaml")).unwrap();
    let at = |version: &str| {
        let text: String = example
            .lines()
            .map(|line| match line.starts_with("  version: \"1.") {
                true => format!("  version: \"{version}\"\n"),
                false => format!("{line}\n"),
            })
            .collect();
        readme(&render("eol.yaml", &text)).to_string()
    };
    let ended = "Kubernetes 1.33 reached its end of life on 2026-06-28 \
                 (https://kubernetes.io/releases/): the oldest maintained minor is 1.35.";
    assert!(at("1.33.4").contains(ended), "{}", at("1.33.4"));
    assert!(!at("1.36.4").contains("end of life"), "{}", at("1.36.4"));
}

/// `render` ends with the way forward on standard error, as cargo and terraform print theirs:
/// where the README is and its first steps; `--check` writes nothing and says none of it.
#[test]
fn render_prints_where_the_steps_are_and_the_first_ones() {
    let out = std::env::temp_dir().join(format!("hybridgen-steps-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_hybridgen"))
            .args([
                "render",
                "examples/kubeadm-1.36-vxlan-windows.yaml",
                "--out",
            ])
            .arg(&out)
            .args(extra)
            .current_dir(root())
            .output()
            .unwrap()
    };
    let output = run(&[]);
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        format!(
            "next: {} says what to run where, in order; first:\n  1. control-0 (192.168.10.10): control plane, kubeadm init\n  2. workstation: flannel, and the Linux DaemonSets kept on Linux\n  3. linux-worker-0 (192.168.10.20): Linux worker, kubeadm join\n",
            out.join("README.md").display()
        )
    );
    assert!(!String::from_utf8(output.stdout).unwrap().contains("next:"));
    let check = run(&["--check"]);
    assert_eq!(check.status.code(), Some(0));
    assert!(check.stderr.is_empty());
    std::fs::remove_dir_all(&out).unwrap();
    let quiet = run(&["-q"]);
    assert_eq!(quiet.status.code(), Some(0));
    assert!(quiet.stderr.is_empty(), "-q keeps the hint to itself");
    std::fs::remove_dir_all(&out).unwrap();
    let json = run(&["--format", "json"]);
    let document: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let notes = document["notes"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|note| note.as_str().unwrap().starts_with("next: "))
    );
    assert!(json.stderr.is_empty());
    std::fs::remove_dir_all(&out).unwrap();
}

/// Every `bash` block is one bash reads (`bash -n`), for every example.
#[test]
fn every_bash_block_parses() {
    let mut blocks = 0;
    for example in examples() {
        let name = example.display().to_string();
        let artifacts = render(&name, &std::fs::read_to_string(&example).unwrap());
        for block in readme(&artifacts).split("```bash\n").skip(1) {
            let body = &block[..block.find("```").unwrap()];
            blocks += 1;
            let checked = Command::new("bash")
                .args(["-n", "-c", body])
                .output()
                .unwrap();
            assert!(
                checked.status.success(),
                "{name}: {body}\n{}",
                String::from_utf8_lossy(&checked.stderr)
            );
        }
    }
    assert!(blocks > 40, "only {blocks} blocks");
}
