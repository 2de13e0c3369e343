//! Secrets in front of a hostile pull request: for every secret field of the one table
//! (`spec::secret_fields`), every way a spec can hold a value (an unclosed quote, a wrong type,
//! an inline value, a hostile value) in every output format, the value is never printed; `render`
//! reads no environment, so every example renders with none and no file holds a secret or a
//! placeholder; and the node scripts refuse to run without their variable.

use hybridgen::spec::secret_fields::SECRET_FIELDS;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FORMATS: [&str; 4] = ["human", "json", "sarif", "github"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hybridgen-secrets-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// hybridgen with no environment but `PATH` and what is given.
fn hybridgen(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .args(args)
        .current_dir(root())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn printed(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The spec that holds each field, and the text of its reference there.
fn base_of(pointer: &str) -> (&'static str, &'static str) {
    match pointer {
        "/rke2/token" => (
            "examples/rke2-1.35-flannel-windows.yaml",
            "token: {fromEnv: RKE2_TOKEN}",
        ),
        "/windows/controlPlane/kubeadmToken" => (
            "examples/kubeadm-1.36-vxlan-windows.yaml",
            "kubeadmToken: {fromEnv: KUBEADM_TOKEN}",
        ),
        "/windows/controlPlane/kubeadmCaHash" => (
            "examples/kubeadm-1.36-vxlan-windows.yaml",
            "kubeadmCaHash: {fromEnv: KUBEADM_CA_HASH}",
        ),
        other => panic!("no base spec for {other}: add one"),
    }
}

/// A value shaped like each field's secret, unique enough to be searched for.
const SECRET: &str = "zq81xk.zq81xkzq81xkzq81";

/// The ways a spec holds a secret value where a reference belongs: (what, replacement of the
/// reference's text, the value that must never be printed).
fn cases(key: &str) -> Vec<(&'static str, String, String)> {
    let hostile = "K10zq81\u{1b}]52;c;cHduZWQ=\u{7}${file(\"/etc/passwd\")}";
    vec![
        ("inline", format!("{key}: {SECRET}"), SECRET.into()),
        (
            "pasted as the variable",
            format!("{key}: {{fromEnv: {SECRET}}}"),
            SECRET.into(),
        ),
        (
            "inline quoted",
            format!("{key}: \"{SECRET}\""),
            SECRET.into(),
        ),
        (
            "unclosed quote",
            format!("{key}: \"{SECRET}"),
            SECRET.into(),
        ),
        (
            "number",
            format!("{key}: 918273645546372819"),
            "918273645546372819".into(),
        ),
        ("list", format!("{key}: [{SECRET}]"), SECRET.into()),
        (
            "mapping",
            format!("{key}: {{value: {SECRET}}}"),
            SECRET.into(),
        ),
        (
            "reference with a number",
            format!("{key}: {{fromEnv: 918273645546372819}}"),
            "918273645546372819".into(),
        ),
        (
            "reference with another key",
            format!("{key}: {{fromEnv: KUBEADM_X, value: {SECRET}}}"),
            SECRET.into(),
        ),
        (
            "hostile",
            format!(
                "{key}: \"{}\"",
                hostile
                    .replace('\u{1b}', "\\e")
                    .replace('\u{7}', "\\a")
                    .replace('"', "\\\"")
            ),
            "cHduZWQ".into(),
        ),
    ]
}

#[test]
fn no_format_prints_a_secret_whatever_the_spec_holds() {
    let dir = scratch("fields");
    let mut checked = 0;
    for field in &SECRET_FIELDS {
        let (base, reference) = base_of(field.pointer);
        let text = std::fs::read_to_string(root().join(base)).unwrap();
        let text = normalise_reference(&text, field.key);
        assert!(text.contains(reference), "{base} has no `{reference}`");
        for (what, replacement, value) in cases(field.key) {
            let spec = dir.join(format!("{}-{}.yaml", field.key, what.replace(' ', "-")));
            std::fs::write(&spec, text.replace(reference, &replacement)).unwrap();
            for format in FORMATS {
                let output = hybridgen(&["plan", "--format", format, spec.to_str().unwrap()], &[]);
                let shown = printed(&output);
                assert!(
                    !shown.contains(&value),
                    "{} {what} {format}: the value is printed\n{shown}",
                    field.pointer
                );
                assert!(
                    !shown.contains('\u{1b}'),
                    "{} {what} {format}: a raw escape",
                    field.pointer
                );
                checked += 1;
            }
            let out = dir.join("out");
            let rendered = hybridgen(
                &[
                    "render",
                    spec.to_str().unwrap(),
                    "--out",
                    out.to_str().unwrap(),
                ],
                &[],
            );
            assert!(
                !printed(&rendered).contains(&value),
                "{} {what}: render prints it",
                field.pointer
            );
            if out.exists() {
                for (path, text) in files(&out) {
                    assert!(
                        !text.contains(&value),
                        "{} {what}: {path} holds it",
                        field.pointer
                    );
                }
                std::fs::remove_dir_all(&out).unwrap();
            }
        }
    }
    assert_eq!(
        checked,
        SECRET_FIELDS.len() * cases("k").len() * FORMATS.len()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The examples write references on two lines (`kubeadmToken:` then `fromEnv: …`): one line,
/// so that a case can replace it.
fn normalise_reference(text: &str, key: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut iter = text.lines().peekable();
    while let Some(line) = iter.next() {
        let trimmed = line.trim_start();
        if trimmed == format!("{key}:") {
            if let Some(next) = iter.peek() {
                if let Some(variable) = next
                    .trim_start()
                    .strip_prefix("fromEnv: ")
                    .and_then(|rest| rest.split_whitespace().next())
                {
                    let indent = &line[..line.len() - trimmed.len()];
                    lines.push(format!("{indent}{key}: {{fromEnv: {variable}}}"));
                    iter.next();
                    continue;
                }
            }
        }
        lines.push(line.to_string());
    }
    lines.join("\n") + "\n"
}

/// Every file under `dir`, as text, by relative path.
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(dir).unwrap().display().to_string();
                found.push((
                    relative,
                    String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned(),
                ));
            }
        }
    }
    found.sort();
    found
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

const KUBEADM_TOKEN: &str = "q9w8e7.r6t5y4u3i2o1p0a9";
const KUBEADM_CA_HASH: &str =
    "sha256:9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0";
const RKE2_TOKEN: &str = "K10fedcba::server:9a8b7c6d5e";

/// With no environment at all, every example renders, `--check` passes, and no file holds a
/// placeholder; with the secrets set, no file holds them either: `render` reads none.
#[test]
fn every_example_renders_with_no_environment_and_no_file_holds_a_secret() {
    let secrets = [
        ("KUBEADM_TOKEN", KUBEADM_TOKEN),
        ("KUBEADM_CA_HASH", KUBEADM_CA_HASH),
        ("RKE2_TOKEN", RKE2_TOKEN),
    ];
    for spec in examples() {
        let name = spec.file_stem().unwrap().to_string_lossy().to_string();
        let bare = scratch(&format!("bare-{name}"));
        let with = scratch(&format!("with-{name}"));
        let spec_arg = spec.to_str().unwrap();
        for (out, env) in [(&bare, &[][..]), (&with, &secrets[..])] {
            let output = hybridgen(
                &[
                    "render",
                    spec_arg,
                    "--out",
                    out.to_str().unwrap(),
                    "--warn",
                    "HG206",
                ],
                env,
            );
            assert_eq!(
                output.status.code(),
                Some(0),
                "{name}: {}",
                printed(&output)
            );
        }
        assert_eq!(
            files(&bare),
            files(&with),
            "{name}: the environment changed a file"
        );
        for (path, text) in files(&with) {
            for (variable, value) in secrets {
                assert!(
                    !text.contains(value),
                    "{name}: {path} holds {variable}'s value"
                );
            }
            assert!(
                !text.contains("<unset"),
                "{name}: {path} holds a placeholder"
            );
        }
        let check = hybridgen(
            &[
                "render",
                spec_arg,
                "--out",
                bare.to_str().unwrap(),
                "--warn",
                "HG206",
                "--check",
            ],
            &[],
        );
        assert_eq!(check.status.code(), Some(0), "{name}: {}", printed(&check));
        std::fs::remove_dir_all(&bare).unwrap();
        std::fs::remove_dir_all(&with).unwrap();
    }
}

#[test]
fn the_removed_flag_is_refused_with_a_reason() {
    let out = scratch("old-flag");
    let output = hybridgen(
        &[
            "render",
            "examples/kubeadm-1.36-vxlan-windows.yaml",
            "--out",
            out.join("x").to_str().unwrap(),
            "--allow-missing-secrets",
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        printed(&output).contains("`--allow-missing-secrets` was removed"),
        "{}",
        printed(&output)
    );
    assert!(!out.join("x").exists());
}

/// A directory whose commands, first on `PATH`, log their arguments and fail: the script runs
/// for real in bash but stops at the first command it would run on the node.
fn stub_path(dir: &Path) -> String {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for command in [
        "install",
        "curl",
        "sh",
        "systemctl",
        "sudo",
        "chmod",
        "cp",
        "mkdir",
    ] {
        let stub = bin.join(command);
        std::fs::write(
            &stub,
            format!(
                "#!/bin/bash\necho \"{command} $*\" >> \"{}/log\"\nexit 97\n",
                dir.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    format!("{}:/usr/bin:/bin", bin.display())
}

/// Runs a rendered bash script in the sandbox of [`stub_path`]: its output and exit code, and
/// the commands it reached.
fn run_sandboxed(
    script: &Path,
    sandbox: &Path,
    env: &[(&str, &str)],
) -> (Option<i32>, String, String) {
    let _ = std::fs::remove_file(sandbox.join("log"));
    let output = Command::new("/bin/bash")
        .arg(script)
        .env_clear()
        .env("PATH", stub_path(sandbox))
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let log = std::fs::read_to_string(sandbox.join("log")).unwrap_or_default();
    (output.status.code(), printed(&output), log)
}

#[test]
fn rke2_install_scripts_refuse_to_run_without_a_well_formed_token() {
    let out = scratch("rke2-scripts");
    let rendered = hybridgen(
        &[
            "render",
            "examples/rke2-1.35-flannel-windows.yaml",
            "--out",
            out.join("r").to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(rendered.status.code(), Some(0), "{}", printed(&rendered));
    let scripts: Vec<PathBuf> = files(&out.join("r"))
        .into_iter()
        .filter(|(path, _)| path.ends_with("install.sh"))
        .map(|(path, _)| out.join("r").join(path))
        .collect();
    assert!(scripts.len() >= 2, "{scripts:?}");
    for script in &scripts {
        let (code, said, log) = run_sandboxed(script, &out, &[]);
        assert_eq!(code, Some(1), "{}: {said}", script.display());
        assert!(
            said.contains("set the environment variable RKE2_TOKEN"),
            "{said}"
        );
        assert!(
            log.is_empty(),
            "{} ran {log} before refusing",
            script.display()
        );
        for bad in ["two words", "line\nbreak", "caf\u{e9}", "tab\there"] {
            let (code, said, log) = run_sandboxed(script, &out, &[("RKE2_TOKEN", bad)]);
            assert_eq!(code, Some(1), "{bad:?}");
            assert!(said.contains("is not in the form RKE2 accepts"), "{said}");
            assert!(!said.contains(bad), "the value is printed: {said}");
            assert!(log.is_empty(), "{log}");
        }
        // A well-formed token goes on to the first command on the node (a stub here), and is
        // never printed.
        let (code, said, log) = run_sandboxed(script, &out, &[("RKE2_TOKEN", RKE2_TOKEN)]);
        assert_eq!(code, Some(97), "{said}");
        assert!(
            log.starts_with("install -d -m 0755 /etc/rancher/rke2"),
            "{log}"
        );
        assert!(!said.contains(RKE2_TOKEN) && !log.contains(RKE2_TOKEN));
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn windows_scripts_read_every_secret_they_need_from_the_environment() {
    let out = scratch("windows-scripts");
    for (spec, expected) in [
        (
            "examples/kubeadm-1.36-vxlan-windows.yaml",
            ["KUBEADM_TOKEN", "KUBEADM_CA_HASH"].as_slice(),
        ),
        (
            "examples/kubeadm-vxlan-windows.yaml",
            ["KUBEADM_TOKEN", "KUBEADM_CA_HASH"].as_slice(),
        ),
        (
            "examples/rke2-1.35-flannel-windows.yaml",
            ["RKE2_TOKEN"].as_slice(),
        ),
    ] {
        let dir = out.join(Path::new(spec).file_stem().unwrap());
        let rendered = hybridgen(&["render", spec, "--out", dir.to_str().unwrap()], &[]);
        assert_eq!(rendered.status.code(), Some(0), "{}", printed(&rendered));
        let scripts: Vec<(String, String)> = files(&dir)
            .into_iter()
            .filter(|(path, _)| path.ends_with("join.ps1") || path.ends_with("install.ps1"))
            .collect();
        assert!(!scripts.is_empty(), "{spec}");
        for (path, text) in scripts {
            for variable in expected {
                let read = format!("[Environment]::GetEnvironmentVariable('{variable}')");
                let at = text
                    .find(&read)
                    .unwrap_or_else(|| panic!("{spec}: {path} does not read {variable}"));
                // Checked case-sensitively, before the script changes anything on the node.
                let after = &text[at..];
                assert!(after.contains("-cnotmatch '^"), "{path}");
                for change in [
                    "Enable-WindowsOptionalFeature",
                    "Copy-Item",
                    "New-Item",
                    "Install-File ",
                ] {
                    if let Some(first) = text.find(change) {
                        assert!(
                            at < first || text[..first].contains("function "),
                            "{path}: {change} before {variable} is read"
                        );
                    }
                }
            }
        }
    }
    std::fs::remove_dir_all(&out).unwrap();
}
