//! The `hybridgen` binary as users run it: exit codes, inputs, formats, overrides, subcommands.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn hybridgen(args: &[&str]) -> Output {
    hybridgen_with_stdin(args, None)
}

fn hybridgen_with_stdin(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .args(args)
        .current_dir(root())
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(input) = stdin {
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

const MIXED: &str = "tests/fixtures/mixed.yaml";
const KUBEADM_1_15_EXAMPLE: &str = "examples/kubeadm-vxlan-windows.yaml";

#[test]
fn a_clean_spec_exits_zero_and_prints_its_plan() {
    let output = hybridgen(&["plan", KUBEADM_1_15_EXAMPLE]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(text.contains("10.244.0.0/24"), "{text}");
    assert!(text.contains("no problems found"), "{text}");
}

#[test]
fn every_example_plans_without_errors() {
    let mut examples: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    examples.sort();
    assert!(examples.len() >= 5, "{examples:?}");
    for example in examples {
        let output = hybridgen(&["plan", "--format", "json", example.to_str().unwrap()]);
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}: {report:#}",
            example.display()
        );
        assert_eq!(report["summary"]["errors"], 0, "{}", example.display());
    }
}

#[test]
fn errors_exit_one() {
    assert_eq!(hybridgen(&["plan", MIXED]).status.code(), Some(1));
}

#[test]
fn yaml_syntax_errors_are_findings_and_exit_one() {
    let output = hybridgen_with_stdin(&["plan", "-", "--format", "json"], Some(b"a: [1, 2\n"));
    assert_eq!(output.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["diagnostics"][0]["code"], "HG001");
}

#[test]
fn a_missing_file_exits_two_and_the_others_are_still_checked() {
    let output = hybridgen(&["plan", "no-such-spec.yaml", KUBEADM_1_15_EXAMPLE]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot read `no-such-spec.yaml`"),
        "{stderr}"
    );
    assert!(stdout(&output).contains("1 file checked"));
    assert!(
        stdout(&output).contains("not checked, since it cannot be read: `no-such-spec.yaml`"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_run_that_read_no_file_claims_no_clean_result() {
    let output = hybridgen(&["plan", "no-such-spec.yaml"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stdout(&output),
        "",
        "nothing was checked, so nothing is reported"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot read `no-such-spec.yaml`: No such file or directory"),
        "{stderr}"
    );
}

#[test]
fn usage_errors_exit_two() {
    assert_eq!(hybridgen(&["plan"]).status.code(), Some(2));
    assert_eq!(
        hybridgen(&["plan", "--format", "xml", MIXED]).status.code(),
        Some(2)
    );
    assert_eq!(
        hybridgen(&["plan", "--deny", "HG999", MIXED]).status.code(),
        Some(2)
    );
    assert_eq!(hybridgen(&["explain", "HG999"]).status.code(), Some(2));
}

#[test]
fn stdin_takes_the_name_given_for_it() {
    let spec = std::fs::read(root().join(MIXED)).unwrap();
    let output = hybridgen_with_stdin(
        &[
            "plan",
            "-",
            "--stdin-filename",
            "clusters/mixed.yaml",
            "--format",
            "github",
        ],
        Some(&spec),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("file=clusters/mixed.yaml,"));
}

#[test]
fn severity_overrides_change_the_exit_code() {
    let spec = "examples/rancher-gce-host-gw.yaml";
    assert_eq!(hybridgen(&["plan", spec]).status.code(), Some(0));
    assert_eq!(
        hybridgen(&["plan", "--deny-warnings", spec]).status.code(),
        Some(1)
    );
    assert_eq!(
        hybridgen(&["plan", "--deny", "HG207", spec]).status.code(),
        Some(1)
    );
    // HG609 too: the example is RKE1, past its end of life; and HG117: its routes are rendered
    // from predicted subnets.
    let allowed = hybridgen(&[
        "plan",
        "--allow",
        "hg207",
        "--allow",
        "HG609",
        "--allow",
        "HG117",
        "--deny-warnings",
        spec,
    ]);
    assert_eq!(allowed.status.code(), Some(0));
    let warned = hybridgen(&[
        "plan", "--warn", "HG004", "--warn", "HG101", "--warn", "HG103", "--warn", "HG113",
        "--warn", "HG201", "--warn", "HG202", "--warn", "HG302", MIXED,
    ]);
    assert_eq!(warned.status.code(), Some(0), "{}", stdout(&warned));
}

#[test]
fn human_output_is_stable() {
    let output = hybridgen(&["plan", "--color", "never", MIXED]);
    snapshot("human@mixed", &stdout(&output));
}

#[test]
fn json_output_is_stable_and_documented_fields_are_present() {
    let output = hybridgen(&["plan", "--format", "json", MIXED]);
    let text = stdout(&output);
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    for entry in report["diagnostics"].as_array().unwrap() {
        for field in [
            "code",
            "name",
            "severity",
            "message",
            "help",
            "file",
            "path",
            "line",
            "column",
            "endLine",
            "endColumn",
        ] {
            assert!(entry.get(field).is_some(), "{field} missing in {entry}");
        }
    }
    snapshot("json@mixed", &text);
}

#[test]
fn sarif_output_is_stable() {
    let text = stdout(&hybridgen(&["plan", "--format", "sarif", MIXED]));
    let sarif: serde_json::Value = serde_json::from_str(&text).unwrap();
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let ids: Vec<&str> = rules
        .iter()
        .map(|rule| rule["id"].as_str().unwrap())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(ids, sorted, "rules must be listed once, sorted");
    for result in sarif["runs"][0]["results"].as_array().unwrap() {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
    }
    snapshot("sarif@mixed", &text);
}

#[test]
fn github_output_is_stable() {
    snapshot(
        "github@mixed",
        &stdout(&hybridgen(&["plan", "--format", "github", MIXED])),
    );
}

#[test]
fn markdown_output_is_stable() {
    snapshot(
        "markdown@mixed",
        &stdout(&hybridgen(&["plan", "--format", "markdown", MIXED])),
    );
}

#[test]
fn explain_prints_the_rule_and_all_prints_every_rule() {
    let one = stdout(&hybridgen(&["explain", "hg201"]));
    assert!(one.starts_with("## HG201 vxlan-vni-windows"), "{one}");
    let all = stdout(&hybridgen(&["explain", "--all"]));
    for rule in hybridgen::rules::all() {
        assert!(all.contains(&format!("## {} {}", rule.code, rule.name)));
    }
}

#[test]
fn init_writes_a_clean_starter_and_never_overwrites() {
    let dir = std::env::temp_dir().join(format!("hybridgen-init-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Each starter, the file its render writes for the Windows node, and whether it reads a secret.
    for (flags, file, kubernetes, windows_file) in [
        (
            &[][..],
            "cluster.yaml",
            "\"1.36.3\"",
            "windows/win-worker-0/join.ps1",
        ),
        (
            &["--kubecluster"][..],
            "legacy.yaml",
            "\"1.16.2\"",
            "windows/win-worker-0/Kubeclustervxlan.json",
        ),
        (
            &["--distribution", "rke2"][..],
            "rke2.yaml",
            "\"v1.35.7+rke2r1\"",
            "rke2/win-worker-0/install.ps1",
        ),
        (
            &[
                "--distribution",
                "rke2",
                "--rancher",
                "https://rancher.example.com",
            ][..],
            "rancher.yaml",
            "\"v1.35.7+rke2r1\"",
            "rancher/win-worker-0/register.ps1",
        ),
    ] {
        let spec = dir.join(file);
        let mut args = vec!["init"];
        args.extend(flags);
        args.push(spec.to_str().unwrap());
        let first = hybridgen(&args);
        assert_eq!(first.status.code(), Some(0));
        let written = std::fs::read_to_string(&spec).unwrap();
        assert!(written.starts_with("# yaml-language-server: $schema=./hybridgen.schema.json"));
        // The comment names the file written, not the default name.
        let check = format!("Check it with `hybridgen plan {}`", spec.display());
        assert!(written.contains(&check), "{written}");
        assert!(
            !written.contains("hybridgen plan hybridgen.yaml"),
            "{written}"
        );
        assert!(
            written.contains(&format!("version: {kubernetes}")),
            "{file}"
        );
        assert!(dir.join("hybridgen.schema.json").exists());
        let planned = hybridgen(&["plan", "--deny-warnings", spec.to_str().unwrap()]);
        assert_eq!(planned.status.code(), Some(0), "{}", stdout(&planned));
        // Each starter renders, with the files of its Windows setup.
        let out = dir.join(format!("{file}.out"));
        let rendered = Command::new(env!("CARGO_BIN_EXE_hybridgen"))
            .args([
                "render",
                spec.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ])
            .env("KUBEADM_TOKEN", "abcdef.0123456789abcdef")
            .env("KUBEADM_CA_HASH", format!("sha256:{}", "0".repeat(64)))
            .env("RKE2_TOKEN", "a-shared-secret")
            .output()
            .unwrap();
        assert_eq!(
            rendered.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&rendered.stderr)
        );
        assert!(out.join(windows_file).exists(), "{file}: {windows_file}");

        std::fs::write(&spec, "mine\n").unwrap();
        let second = hybridgen(&args);
        assert_eq!(second.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&second.stderr).contains("init never overwrites a file"),
            "{}",
            String::from_utf8_lossy(&second.stderr)
        );
        assert_eq!(std::fs::read_to_string(&spec).unwrap(), "mine\n");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_closed_pipe_is_not_a_crash() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .args(["explain", "--all"])
        .current_dir(root())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    assert_ne!(status.code(), Some(101));
}

#[test]
fn schema_command_prints_the_committed_schema() {
    let printed = stdout(&hybridgen(&["schema"]));
    let committed = std::fs::read_to_string(root().join("schemas/hybridgen.schema.json")).unwrap();
    assert_eq!(printed, committed);
}

#[test]
fn completions_cover_every_command_in_every_shell() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let output = hybridgen(&["completions", shell]);
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let script = stdout(&output);
        for command in ["plan", "render", "explain", "schema", "init"] {
            assert!(
                script.contains(command),
                "{shell} completions lack {command}"
            );
        }
    }
    let bash = stdout(&hybridgen(&["completions", "bash"]));
    let path =
        std::env::temp_dir().join(format!("hybridgen-completions-{}.bash", std::process::id()));
    std::fs::write(&path, bash).unwrap();
    let syntax = Command::new("bash").arg("-n").arg(&path).status().unwrap();
    assert!(syntax.success(), "bash rejects the completion script");
    std::fs::remove_file(path).unwrap();
}

#[test]
fn the_man_page_documents_the_commands() {
    let page = stdout(&hybridgen(&["man"]));
    assert!(page.contains(".TH hybridgen 1"), "{page}");
    assert!(page.contains(".SH NAME"));
    for command in ["plan", "render", "explain"] {
        assert!(page.contains(command), "man page lacks {command}");
    }
}

/// Each subcommand's options reach clap only when that subcommand is parsed (`cli::Deferred`);
/// the help, completions and manual pages must still show every command's own description and
/// options. A flattened struct's doc comment, run late, once took over the description.
#[test]
fn deferred_options_still_reach_help_completions_and_manual_pages() {
    let help = stdout(&hybridgen(&["--help"]));
    let fish = stdout(&hybridgen(&["completions", "fish"]));
    for (command, about, option) in [
        (
            "plan",
            "Lint cluster specs and print their resolved IP plan",
            "format",
        ),
        ("render", "Render what each machine deploys", "out"),
        (
            "verify",
            "Compare the plan of a spec with what the cluster runs",
            "cluster",
        ),
        ("explain", "Explain a rule", "all"),
        ("man", "Print a manual page", "dir"),
        ("init", "Write a commented starter spec", "distribution"),
    ] {
        assert!(
            help.contains(about),
            "`--help` lacks {command}'s description:\n{help}"
        );
        assert!(
            fish.contains(&format!("needs_command\" -f -a \"{command}\" -d '{about}")),
            "fish completions describe {command} otherwise:\n{fish}"
        );
        assert!(
            fish.contains(&format!("using_subcommand {command}\" -l {option} ")),
            "fish completions lack {command} --{option}"
        );
        let page = stdout(&hybridgen(&["man", command]));
        assert!(
            page.contains(&format!("\\-\\-{option}")),
            "hybridgen-{command}(1) lacks --{option}:\n{page}"
        );
    }
}

#[test]
fn every_command_has_help_with_an_example() {
    for command in [
        "plan",
        "render",
        "explain",
        "schema",
        "init",
        "completions",
        "man",
    ] {
        let help = stdout(&hybridgen(&[command, "--help"]));
        assert!(
            help.contains("Example"),
            "`{command} --help` has no example:\n{help}"
        );
    }
}

/// Every drawn finding ends by naming the command that explains its rule.
#[test]
fn each_human_finding_points_to_its_explanation() {
    let output = hybridgen(&["plan", "--color", "never", "tests/fixtures/mixed.yaml"]);
    let text = stdout(&output);
    let drawn: Vec<&str> = text
        .lines()
        .filter(|line| line.starts_with("HG"))
        .map(|header| header.split(' ').next().unwrap())
        .collect();
    let pointed: Vec<&str> = text
        .lines()
        .filter_map(|line| line.strip_prefix("  see: hybridgen explain "))
        .collect();
    assert!(drawn.len() >= 5, "{text}");
    assert_eq!(drawn, pointed, "{text}");
    for (line, next) in text.lines().zip(text.lines().skip(1)) {
        if line.starts_with("  see: ") {
            assert_eq!(next, "", "the pointer ends its finding:\n{text}");
        }
    }
}

#[test]
fn explain_takes_a_name_and_lists_every_rule() {
    let by_name = hybridgen(&["explain", "vxlan-vni-windows"]);
    assert_eq!(by_name.status.code(), Some(0));
    assert!(stdout(&by_name).starts_with("## HG201 vxlan-vni-windows"));

    let listed = hybridgen(&["explain", "--list"]);
    assert_eq!(listed.status.code(), Some(0));
    let codes: Vec<String> = stdout(&listed)
        .lines()
        .map(|line| line.split_whitespace().next().unwrap().to_string())
        .collect();
    let all = hybridgen(&["explain", "--all"]);
    let explained: Vec<String> = stdout(&all)
        .lines()
        .filter_map(|line| line.strip_prefix("## "))
        .map(|heading| heading.split(' ').next().unwrap().to_string())
        .collect();
    assert_eq!(codes, explained);

    let unknown = hybridgen(&["explain", "HG999"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("explain --list"));
}

#[test]
fn shell_completions_offer_rule_codes() {
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout(&hybridgen(&["completions", shell]));
        assert!(script.contains("HG201"), "{shell}");
        assert!(script.contains("HG612"), "{shell}");
    }
}

#[test]
fn top_level_help_starts_where_a_newcomer_does() {
    let help = stdout(&hybridgen(&["--help"]));
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| !line.is_empty())
        .map(|line| line.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(commands[..4], ["init", "plan", "render", "verify"]);
    // One line per command in the list: the details are in each command's own --help.
    assert_eq!(
        commands.len(),
        help.lines()
            .skip_while(|l| *l != "Commands:")
            .skip(1)
            .take_while(|l| !l.is_empty())
            .count()
    );
    assert!(help.contains("hybridgen render cluster.yaml --out deploy/"));
    assert!(help.contains("hybridgen explain CODE"));
}

#[test]
fn severity_flags_complete_rule_codes() {
    let script = stdout(&hybridgen(&["completions", "zsh"]));
    let deny = script.split("'*--deny=").nth(1).unwrap();
    let values = &deny[..deny.find("))").unwrap()];
    assert!(values.contains("HG201"), "{values}");
}

/// `plan DIR` checks the specs under a directory, in path order, and nothing else there: other
/// YAML, hidden directories and symbolic links are passed over; a file with hybridgen's modeline
/// that does not load is reported.
#[test]
fn plan_searches_a_directory_for_specs() {
    let dir = std::env::temp_dir().join(format!("hybridgen-plan-dir-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let example = std::fs::read(root().join("examples/kubeadm-1.36-vxlan-windows.yaml")).unwrap();
    for sub in ["clusters/prod", "flux", ".git"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::write(dir.join("clusters/prod/cluster.yml"), &example).unwrap();
    std::fs::write(dir.join("clusters/a.yaml"), &example).unwrap();
    std::fs::write(dir.join(".git/hidden.yaml"), &example).unwrap();
    std::fs::write(dir.join("clusters/notes.txt"), &example).unwrap();
    std::fs::write(
        dir.join("flux/kustomization.yaml"),
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("flux/broken.yaml"),
        "# yaml-language-server: $schema=./hybridgen.schema.json\napiVersoin: hybridgen/v1\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(dir.join("clusters/a.yaml"), dir.join("linked.yaml")).unwrap();

    let output = hybridgen(&["plan", "-q", "--format", "json", dir.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut files: Vec<String> = report["podSubnets"]
        .as_array()
        .unwrap()
        .iter()
        .chain(report["diagnostics"].as_array().unwrap())
        .map(|file| {
            let path = file["file"].as_str().unwrap();
            path.strip_prefix(dir.to_str().unwrap())
                .unwrap()
                .to_string()
        })
        .collect();
    files.dedup();
    assert_eq!(report["summary"]["files"], 3);
    assert_eq!(
        files,
        [
            "/clusters/a.yaml",
            "/clusters/prod/cluster.yml",
            "/flux/broken.yaml"
        ]
    );
    assert_eq!(output.status.code(), Some(1), "the broken spec is an error");

    let empty = dir.join("flux-only");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::copy(dir.join("flux/kustomization.yaml"), empty.join("k.yaml")).unwrap();
    let none = hybridgen(&["plan", empty.to_str().unwrap()]);
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("no spec under"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn init_help_names_the_starters_kubernetes_minor() {
    let help = stdout(&hybridgen(&["init", "--help"]));
    let named = help
        .split("Kubernetes ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .expect("init's help names a Kubernetes version");
    let starter = std::fs::read_to_string(root().join("templates/starter.yaml")).unwrap();
    let version = starter
        .lines()
        .find_map(|line| line.trim().strip_prefix("version: \"1."))
        .expect("the starter pins a Kubernetes version");
    let minor = version.split('.').next().unwrap();
    assert_eq!(named, format!("1.{minor}"), "{help}");
}
