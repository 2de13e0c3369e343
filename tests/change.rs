//! Change plans (`plan SPEC --from OLD`): every transition under `tests/fixtures/change/` plans to
//! its golden steps (snapshots `change-*.snap`, read them), fires the change rules its `new.yaml`
//! expects at exact places, and every change rule (HG7xx) has such a transition. Then the
//! command: `--from` a file and `--from git:REV`, the formats, and bad sources.

use hybridgen::change::{Action, ChangePlan, Paths};
use hybridgen::diagnostic::Location;
use hybridgen::pipeline::{self, Checked};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn transitions() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("tests/fixtures/change"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn name_of(dir: &Path) -> String {
    dir.file_name().unwrap().to_string_lossy().into_owned()
}

fn check(dir: &Path, side: &str) -> Checked {
    let path = format!("tests/fixtures/change/{}/{side}.yaml", name_of(dir));
    pipeline::check(&path, std::fs::read(root().join(&path)).unwrap())
}

fn change(dir: &Path) -> (Checked, ChangePlan) {
    let (old, new) = (check(dir, "old"), check(dir, "new"));
    let paths = Paths {
        spec: format!("clusters/{}.yaml", name_of(dir)),
        out: "out".into(),
    };
    let plan = pipeline::change(&old, &new, &paths)
        .unwrap_or_else(|| panic!("{}: a side did not plan", name_of(dir)));
    (new, plan)
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// The plan as the human format prints it, then its findings, one per line.
fn golden(plan: &ChangePlan, name: &str) -> String {
    let mut text = hybridgen::report::human::change_plan(
        plan,
        &format!("git:HEAD~1:clusters/{name}.yaml"),
        &format!("clusters/{name}.yaml"),
    );
    text.push_str("\nchange findings:\n");
    for finding in &plan.findings {
        text.push_str(&format!(
            "  {} {} {}: {}\n",
            finding.code(),
            finding.severity.as_str(),
            finding.primary.location.pointer(),
            finding.message
        ));
    }
    text
}

#[test]
fn each_transition_plans_its_golden_steps() {
    let dirs = transitions();
    assert!(dirs.len() >= 20, "{} transitions", dirs.len());
    for dir in dirs {
        let name = name_of(&dir);
        let (_, plan) = change(&dir);
        assert!(!plan.steps.is_empty(), "{name}");
        for step in &plan.steps {
            assert!(
                step.source.starts_with("https://"),
                "{name}: {}",
                step.title
            );
        }
        snapshot(&format!("change-{name}"), &golden(&plan, &name));
    }
}

fn expectations(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| line.strip_prefix("# expect: "))
        .map(|rest| {
            let (code, pointer) = rest.split_once(' ').unwrap_or((rest, ""));
            (code.to_string(), pointer.trim().to_string())
        })
        .collect()
}

/// The fixture contract for change rules: each expected code fires at its pointer, which is an
/// exact span of `new.yaml`; no transition without an expectation has an HG7xx error.
#[test]
fn change_rules_fire_where_their_transitions_expect() {
    let mut failures = Vec::new();
    for dir in transitions() {
        let name = name_of(&dir);
        let text = std::fs::read_to_string(dir.join("new.yaml")).unwrap();
        let (new, plan) = change(&dir);
        let spans = new.file.spans.as_ref().unwrap();
        let expected = expectations(&text);
        for (code, pointer) in &expected {
            let hit = plan.findings.iter().find(|finding| {
                finding.code() == code && finding.primary.location.pointer() == pointer
            });
            match hit.map(|finding| &finding.primary.location) {
                None => failures.push(format!("{name}: {code} did not fire at {pointer}")),
                Some(Location::Value(pointer)) if spans.value_span(pointer).is_none() => {
                    failures.push(format!("{name}: {pointer} is no value in new.yaml"))
                }
                Some(Location::Key(pointer)) if spans.key_span(pointer).is_none() => {
                    failures.push(format!("{name}: {pointer} is no key in new.yaml"))
                }
                Some(_) => {}
            }
        }
        for finding in &plan.findings {
            if !expected.iter().any(|(code, _)| code == finding.code()) {
                failures.push(format!(
                    "{name}: {} {} fired unexpected",
                    finding.code(),
                    finding.primary.location.pointer()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_change_rule_has_a_transition_that_fires_it() {
    let mut expected = std::collections::BTreeSet::new();
    for dir in transitions() {
        let text = std::fs::read_to_string(dir.join("new.yaml")).unwrap();
        expected.extend(expectations(&text).into_iter().map(|(code, _)| code));
    }
    for rule in hybridgen::rules::all() {
        if rule.code.starts_with("HG7") {
            assert!(
                expected.contains(rule.code),
                "{} has no transition",
                rule.code
            );
        }
    }
}

#[test]
fn what_cannot_change_in_place_is_classified_so() {
    let action_of = |name: &str| -> Vec<Action> {
        let (_, plan) = change(&root().join("tests/fixtures/change").join(name));
        plan.steps.iter().map(|step| step.action).collect()
    };
    for name in [
        "rke1-to-rke2",
        "cluster-cidr-widened",
        "service-cidr-changed",
        "node-mask-changed",
    ] {
        assert_eq!(action_of(name), [Action::RebuildCluster], "{name}");
    }
    assert!(action_of("ws2019-to-ws2022").contains(&Action::ReplaceNode));
    assert!(action_of("kubecluster-1.23-to-hostprocess-1.24").contains(&Action::ReplaceNode));
    assert!(action_of("node-renamed").contains(&Action::DrainRejoin));
    assert!(action_of("vni-changed").contains(&Action::InPlace));
    assert_eq!(action_of("no-change"), [Action::NoAction]);
    for name in [
        "kubernetes-downgrade",
        "containerd-downgrade",
        "kubernetes-past-the-table",
    ] {
        assert_eq!(
            action_of(name),
            [Action::NoAction],
            "{name}: no silent plan"
        );
    }
}

/// The order the issue asks for, read from the 1.33 → 1.36 golden: per minor, control plane,
/// Windows kube-proxy, Linux, Windows; containerd one line at a time, each listed by the minor
/// the Windows kubelets run when it moves.
#[test]
fn kubeadm_minors_move_one_at_a_time_in_order() {
    let (_, plan) = change(&root().join("tests/fixtures/change/kubeadm-1.33-to-1.36-windows"));
    let titles: Vec<&str> = plan.steps.iter().map(|step| step.title.as_str()).collect();
    let position = |prefix: &str| {
        titles
            .iter()
            .position(|title| title.starts_with(prefix))
            .unwrap_or_else(|| panic!("{prefix} in {titles:#?}"))
    };
    for minor in ["v1.34", "v1.35", "v1.36"] {
        let control = position(&format!("control plane to {minor}"));
        let proxy = position(&format!("Windows kube-proxy to {minor}"));
        let linux = position(&format!("Linux workers to {minor}"));
        let windows = position(&format!("Windows workers to {minor}"));
        assert!(
            control < proxy && proxy < linux && linux < windows,
            "{minor}"
        );
    }
    assert!(position("containerd 2.0.11 to 2.1.9") < position("containerd 2.1.9 to 2.2.7"));
    assert!(position("containerd 2.2.7 to 2.3.4") > position("Windows workers to v1.36"));
}

#[test]
fn change_plans_are_byte_identical_per_run() {
    let dir = root().join("tests/fixtures/change/kubeadm-1.33-to-1.36-windows");
    let first = golden(&change(&dir).1, "x");
    let second = golden(&change(&dir).1, "x");
    assert_eq!(first, second);
}

fn hybridgen(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[test]
fn markdown_for_a_pull_request_comment() {
    let dir = "tests/fixtures/change/ws2019-to-ws2022";
    let output = hybridgen(
        &root(),
        &[
            "plan",
            &format!("{dir}/new.yaml"),
            "--from",
            &format!("{dir}/old.yaml"),
            "--format",
            "markdown",
        ],
    );
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    snapshot("change-markdown-ws2019-to-ws2022", &text);
}

#[test]
fn json_carries_each_step_with_its_versions_and_the_findings() {
    let dir = "tests/fixtures/change/rke2-1.30-to-1.33-windows";
    let output = hybridgen(
        &root(),
        &[
            "plan",
            &format!("{dir}/new.yaml"),
            "--from",
            &format!("{dir}/old.yaml"),
            "--format",
            "json",
        ],
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let steps = json["steps"].as_array().unwrap();
    assert_eq!(steps[0]["action"], "in-place");
    assert_eq!(steps[0]["versionsAfter"][0]["component"], "kube-apiserver");
    assert_eq!(steps[0]["versionsAfter"][0]["version"], "1.31.14");
    assert!(json["findings"]["diagnostics"].is_array());
}

#[test]
fn a_rebuild_exits_1_and_sarif_carries_the_change_rule() {
    let dir = "tests/fixtures/change/rke1-to-rke2";
    let args = |format: &'static str| {
        vec![
            "plan".to_string(),
            format!("{dir}/new.yaml"),
            "--from".into(),
            format!("{dir}/old.yaml"),
            "--format".into(),
            format.into(),
        ]
    };
    let run = |format| {
        let args = args(format);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        hybridgen(&root(), &args)
    };
    let sarif = run("sarif");
    assert_eq!(sarif.status.code(), Some(1));
    assert!(stdout(&sarif).contains("\"HG708\""));
    let human = run("human");
    assert!(stdout(&human).contains("rebuild the cluster"));
}

#[test]
fn from_needs_exactly_one_spec_and_a_readable_source() {
    let dir = "tests/fixtures/change/no-change";
    let two = hybridgen(
        &root(),
        &[
            "plan",
            &format!("{dir}/new.yaml"),
            &format!("{dir}/old.yaml"),
            "--from",
            &format!("{dir}/old.yaml"),
        ],
    );
    assert_eq!(two.status.code(), Some(2));
    assert!(stderr(&two).contains("give one FILE"));
    let missing = hybridgen(
        &root(),
        &["plan", &format!("{dir}/new.yaml"), "--from", "nowhere.yaml"],
    );
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("cannot read `nowhere.yaml` (`--from`)"));
    let option = hybridgen(
        &root(),
        &[
            "plan",
            &format!("{dir}/new.yaml"),
            "--from",
            "git:--output=x",
        ],
    );
    assert_eq!(option.status.code(), Some(2));
    assert!(stderr(&option).contains("names no revision"));
}

/// A repository in a fresh temporary folder, with `git` run under a fixed identity.
struct Repo(PathBuf);

impl Repo {
    fn new(test: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("hybridgen-change-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(path.join("clusters")).unwrap();
        let repo = Repo(path);
        repo.git(&["init", "-q"]);
        repo
    }

    fn git(&self, args: &[&str]) {
        let status = Command::new("git")
            .current_dir(&self.0)
            .args(["-c", "user.name=test", "-c", "user.email=test@example.com"])
            .args(args)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    fn commit(&self, path: &str, text: &str) {
        std::fs::write(self.0.join(path), text).unwrap();
        self.git(&["add", path]);
        self.git(&["commit", "-q", "-m", path]);
    }
}

impl Drop for Repo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn fixture(name: &str, side: &str) -> String {
    std::fs::read_to_string(root().join(format!("tests/fixtures/change/{name}/{side}.yaml")))
        .unwrap()
}

#[test]
fn from_git_reads_the_spec_as_a_commit_holds_it() {
    let repo = Repo::new("git");
    let path = "clusters/prod.yaml";
    repo.commit(path, &fixture("node-added", "old"));
    repo.commit(path, &fixture("node-added", "new"));
    // From the repository's root, and from inside `clusters/` (PATH defaults to the spec's).
    for (cwd, spec) in [
        (repo.0.clone(), path),
        (repo.0.join("clusters"), "prod.yaml"),
    ] {
        let output = hybridgen(&cwd, &["plan", spec, "--from", "git:HEAD~1"]);
        let text = stdout(&output);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(
            text.contains("change plan: git:HEAD~1:clusters/prod.yaml ->"),
            "{text}"
        );
        assert!(text.contains("join `win-worker-2` (added)"), "{text}");
    }
    let explicit = hybridgen(
        &repo.0,
        &["plan", path, "--from", "git:HEAD:clusters/prod.yaml"],
    );
    assert!(stdout(&explicit).contains("nothing to do"));
    // As the pre-commit hook of docs/ci.md runs it: the edited file against the last commit,
    // with the index git hands its hooks.
    std::fs::write(repo.0.join(path), fixture("node-removed", "new")).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .current_dir(&repo.0)
        .args(["plan", path, "--from", "git:HEAD", "--color", "never"])
        .env("GIT_INDEX_FILE", ".git/index")
        .output()
        .unwrap();
    let text = stdout(&output);
    assert!(
        text.contains("take `win-worker-2` out of the cluster (removed) first"),
        "{text}"
    );
}

#[test]
fn from_git_without_the_revision_or_the_file_says_how_to_fix_it() {
    let repo = Repo::new("git-missing");
    repo.commit("clusters/prod.yaml", &fixture("no-change", "new"));
    let output = hybridgen(
        &repo.0,
        &["plan", "clusters/prod.yaml", "--from", "git:HEAD~5"],
    );
    assert_eq!(output.status.code(), Some(2));
    let said = stderr(&output);
    assert!(
        said.contains("cannot read `git:HEAD~5:clusters/prod.yaml`"),
        "{said}"
    );
    assert!(said.contains("fetch-depth"), "{said}");
    // What git holds is input: a file that is no spec is reported, never obeyed.
    repo.commit("clusters/other.yaml", "\u{1b}]0;title\u{7}: [\n");
    let output = hybridgen(
        &repo.0,
        &[
            "plan",
            "clusters/prod.yaml",
            "--from",
            "git:HEAD:clusters/other.yaml",
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(!stderr(&output).contains('\u{1b}'));
}

/// As the `hybridgen-change-plan` hook runs it: every staged YAML file against its own version
/// at HEAD. Other YAML is passed over, a spec added since is said to be new, and a change that
/// needs a new cluster fails the run.
#[test]
fn from_git_head_takes_each_file_as_a_hook_hands_them_over() {
    let repo = Repo::new("git-hook");
    // The first commit of a repository: no HEAD yet, so every spec is new.
    std::fs::write(
        repo.0.join("clusters/prod.yaml"),
        fixture("node-added", "old"),
    )
    .unwrap();
    let first = hybridgen(
        &repo.0,
        &[
            "plan",
            "--skip-non-specs",
            "--from",
            "git:HEAD",
            "clusters/prod.yaml",
        ],
    );
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert!(stderr(&first).contains("clusters/prod.yaml: new since HEAD"));
    repo.commit("clusters/prod.yaml", &fixture("node-added", "old"));
    repo.commit(
        "clusters/kustomization.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n",
    );
    std::fs::write(
        repo.0.join("clusters/prod.yaml"),
        fixture("node-added", "new"),
    )
    .unwrap();
    std::fs::write(
        repo.0.join("clusters/staging.yaml"),
        fixture("node-added", "new"),
    )
    .unwrap();
    let hook = [
        "plan",
        "--color",
        "never",
        "--skip-non-specs",
        "--from",
        "git:HEAD",
        "clusters/kustomization.yaml",
        "clusters/prod.yaml",
        "clusters/staging.yaml",
    ];
    let output = hybridgen(&repo.0, &hook);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert_eq!(text.matches("change plan: ").count(), 1, "{text}");
    assert!(
        text.contains("change plan: git:HEAD:clusters/prod.yaml ->"),
        "{text}"
    );
    assert!(!text.contains("kustomization"), "{text}");
    assert!(
        stderr(&output).contains("clusters/staging.yaml: new since HEAD, so no change plan"),
        "{}",
        stderr(&output)
    );

    repo.commit(
        "clusters/prod.yaml",
        &fixture("cluster-cidr-widened", "old"),
    );
    std::fs::write(
        repo.0.join("clusters/prod.yaml"),
        fixture("cluster-cidr-widened", "new"),
    )
    .unwrap();
    let blocked = hybridgen(&repo.0, &hook);
    assert_eq!(blocked.status.code(), Some(1), "{}", stdout(&blocked));
    assert!(stdout(&blocked).contains("HG701"));

    // A path in `--from` names one file: several files are refused, saying what works.
    let several = hybridgen(
        &repo.0,
        &[
            "plan",
            "--from",
            "git:HEAD:clusters/prod.yaml",
            "clusters/prod.yaml",
            "clusters/staging.yaml",
        ],
    );
    assert_eq!(several.status.code(), Some(2));
    assert!(stderr(&several).contains("`--from git:REV`"));
}

/// The spec the verify captures run: the main example as it was on Kubernetes 1.33.
const CAPTURED_SPEC: &str = "tests/fixtures/change/no-change/new.yaml";

/// `--from cluster:PATH`: the cluster as kubectl captured it is the old side. The healthy capture
/// runs what its spec says (nothing to do); the capture whose Windows node runs Windows
/// Server 2019 needs that node replaced.
#[test]
fn from_a_captured_cluster() {
    let example = CAPTURED_SPEC;
    let healthy = hybridgen(
        &root(),
        &[
            "plan",
            example,
            "--from",
            "cluster:tests/fixtures/verify/healthy",
        ],
    );
    let text = stdout(&healthy);
    assert_eq!(healthy.status.code(), Some(0), "{}", stderr(&healthy));
    assert!(text.contains("nothing to do"), "{text}");
    assert!(text.contains("note: containerd on the nodes"), "{text}");
    let older = hybridgen(
        &root(),
        &[
            "plan",
            example,
            "--from",
            "cluster:tests/fixtures/verify/HG504-windows-build-differs",
            "--format",
            "json",
        ],
    );
    let json: serde_json::Value = serde_json::from_slice(&older.stdout).unwrap();
    let steps = json["steps"].as_array().unwrap();
    assert_eq!(steps[0]["action"], "replace-node");
    assert_eq!(steps[0]["rule"], "HG709");
    let missing = hybridgen(&root(), &["plan", example, "--from", "cluster:no-such-dir"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("no change was planned"));
}

/// A kubectl for `--from kubectl`: the test kubectl of `tests/fixtures/hardening` (it prints the
/// capture files of `FAKE_KUBECTL_DIR`), behind a script that logs each command's arguments.
fn logging_kubectl(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let kubectl = bin.join("kubectl");
    let fake = root().join("tests/fixtures/hardening/fake-kubectl");
    std::fs::write(
        &kubectl,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            dir.join("kubectl.log").display(),
            fake.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&kubectl, std::fs::Permissions::from_mode(0o755)).unwrap();
    kubectl
}

/// `--from kubectl` (the kubectl on `PATH`) and `--from kubectl=PATH`: the running cluster is
/// the old side, read with `kubectl get` only. Its Windows node runs Windows Server 2019, so the
/// plan replaces it; the capture the kubectl prints is the HG504 case over the healthy one.
#[test]
fn from_the_cluster_through_kubectl() {
    let example = CAPTURED_SPEC;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("change-from-kubectl");
    let _ = std::fs::remove_dir_all(&dir);
    let capture = dir.join("capture");
    std::fs::create_dir_all(&capture).unwrap();
    for case in ["healthy", "HG504-windows-build-differs"] {
        for entry in std::fs::read_dir(root().join("tests/fixtures/verify").join(case)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|ext| ext == "json") {
                std::fs::copy(&path, capture.join(path.file_name().unwrap())).unwrap();
            }
        }
    }
    let kubectl = logging_kubectl(&dir);
    let log = dir.join("kubectl.log");
    let run = |from: &str, path: &str| {
        let _ = std::fs::remove_file(&log);
        let output = Command::new(env!("CARGO_BIN_EXE_hybridgen"))
            .current_dir(root())
            .env_clear()
            .env("PATH", path)
            .env("FAKE_KUBECTL_DIR", &capture)
            .args(["plan", example, "--from", from, "--format", "json"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let steps = json["steps"].as_array().unwrap();
        assert_eq!(steps[0]["action"], "replace-node", "{json:#}");
        assert_eq!(steps[0]["rule"], "HG709", "{json:#}");
        let commands = std::fs::read_to_string(&log).unwrap();
        let commands: Vec<&str> = commands.lines().collect();
        for expected in [
            "get nodes -o json",
            "get daemonsets -A -o json",
            "get pods -A -o json",
            "-n kube-system get configmap kubeadm-config --ignore-not-found -o json",
        ] {
            assert!(
                commands.iter().any(|command| command.contains(expected)),
                "{expected}: {commands:#?}"
            );
        }
        // Read-only: every command is a `kubectl get`, after its namespace.
        for command in &commands {
            let verb = command
                .split(' ')
                .filter(|word| !word.starts_with('-'))
                .find(|word| *word != "kube-system" && *word != "kube-flannel");
            assert_eq!(verb, Some("get"), "{command}");
        }
        commands.len()
    };
    let on_path = format!("{}:/usr/bin:/bin", kubectl.parent().unwrap().display());
    let from_path = run("kubectl", &on_path);
    let named = run(&format!("kubectl={}", kubectl.display()), "/usr/bin:/bin");
    assert_eq!(from_path, named);
    assert_eq!(named, 7);
}

/// docs/upgrades.md shows the plans of two transitions as `plan` prints them: every line of each
/// block marked `<!-- change-plan: NAME -->` (but `...`) is a line of the real plan.
#[test]
fn the_upgrade_guide_shows_real_plans() {
    let guide = std::fs::read_to_string(root().join("docs/upgrades.md")).unwrap();
    let mut blocks = 0;
    for (_, rest) in guide.split("<!-- change-plan: ").enumerate().skip(1) {
        let (name, rest) = rest.split_once(" -->").unwrap();
        let block = rest
            .split_once("```text\n")
            .and_then(|(_, block)| block.split_once("\n```"))
            .map(|(block, _)| block)
            .unwrap();
        let dir = root().join("tests/fixtures/change").join(name);
        let (old, new) = (check(&dir, "old"), check(&dir, "new"));
        let paths = Paths {
            spec: "clusters/prod.yaml".into(),
            out: "out".into(),
        };
        let plan = pipeline::change(&old, &new, &paths).unwrap();
        let printed = hybridgen::report::human::change_plan(
            &plan,
            "git:HEAD~1:clusters/prod.yaml",
            "clusters/prod.yaml",
        );
        let lines: Vec<&str> = printed.lines().collect();
        for line in block.lines().filter(|line| *line != "...") {
            assert!(
                lines.contains(&line),
                "{name}: `{line}` is not in the plan:\n{printed}"
            );
        }
        blocks += 1;
    }
    assert_eq!(blocks, 2);
}

fn change_of(old: &str, new: &str) -> ChangePlan {
    let old = pipeline::check("old.yaml", old.as_bytes().to_vec());
    let new = pipeline::check("new.yaml", new.as_bytes().to_vec());
    let paths = Paths {
        spec: "spec.yaml".into(),
        out: "out".into(),
    };
    pipeline::change(&old, &new, &paths).unwrap()
}

/// What a spec holds is written into printed commands only where it cannot act: a node name that
/// is no DNS label leaves no plan, and an HNS network name is quoted as PowerShell reads it.
#[test]
fn hostile_names_never_reach_a_command() {
    let spec = fixture("node-added", "old");
    let hostile = spec.replacen("name: win-worker-1", "name: \"w$(reboot)\"", 1);
    let plan = change_of(&hostile, &spec);
    assert_eq!(plan.steps.len(), 1);
    assert_eq!(plan.steps[0].action, Action::NoAction);
    assert!(plan.steps[0].title.contains("DNS-1123"));
    assert!(plan.steps.iter().all(|step| step.commands.is_empty()));
    let named = spec.replacen(
        "  port: 4789",
        "  port: 4789\n  networkName: \"x'; Remove-Item C:/ -Recurse; '\"",
        1,
    );
    let renumbered = named.replacen("vni: 4096", "vni: 4097", 1);
    let plan = change_of(&named, &renumbered);
    let commands: Vec<&String> = plan.steps.iter().flat_map(|step| &step.commands).collect();
    let outage = commands
        .iter()
        .find(|command| command.contains("Remove-HnsNetwork"))
        .unwrap();
    assert!(
        outage.contains("-eq 'x''; Remove-Item C:/ -Recurse; '''"),
        "{outage}"
    );
}
