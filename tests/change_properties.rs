//! Properties of change plans over every pair of Kubernetes minors 1.24 to 1.37, each
//! distribution, and (kubeadm with Windows) every pair of containerd lines: no step leaves a
//! kubelet or kube-proxy newer than the apiserver or past the skew policy, each step moves the
//! apiserver at most one minor, every version a step names is one the release tables hold, the
//! last step reaches the new spec's versions, and what cannot be done is an error finding with a
//! public source, never a silent plan.

use hybridgen::change::{ChangePlan, Component, Paths, VersionState};
use hybridgen::pipeline;
use hybridgen::plan::releases::{containerd, kubernetes, rke2, skew};
use hybridgen::plan::version::Release;

const KUBEADM: &str = include_str!("fixtures/change/kubeadm-patch-1.33.4-to-1.33.13/old.yaml");
const RKE2: &str = include_str!("fixtures/change/rke2-1.30-to-1.33-windows/old.yaml");
const RKE1: &str = include_str!("fixtures/change/rke1-to-rke2/old.yaml");

const MINORS: std::ops::RangeInclusive<u32> = 24..=37;

/// The release a spec of `minor` names: the newest patch the tables know, else `.0`.
fn kubernetes_release(minor: u32) -> Release {
    Release::new(1, minor, kubernetes::newest_patch(minor).unwrap_or(0))
}

fn kubeadm_spec(minor: u32, containerd: Release) -> String {
    KUBEADM
        .replacen(
            "version: \"1.33.4\"",
            &format!("version: \"{}\"", kubernetes_release(minor)),
            1,
        )
        .replacen("version: 2.0.11", &format!("version: {containerd}"), 1)
}

/// An RKE2 spec of `minor`: its newest release in the table, or (for a minor RKE2's table lacks)
/// the Kubernetes release written plainly.
fn rke2_spec(minor: u32) -> String {
    let version = rke2::newest_of_minor(minor)
        .unwrap_or_else(|| format!("v{}+rke2r1", kubernetes_release(minor)));
    RKE2.replacen("v1.30.8+rke2r1", &version, 1)
}

fn rke1_spec(minor: u32) -> String {
    RKE1.replacen(
        "version: \"1.15.4\"",
        &format!("version: \"{}\"", kubernetes_release(minor)),
        1,
    )
}

fn change(old: &str, new: &str) -> ChangePlan {
    let old = pipeline::check("old.yaml", old.as_bytes().to_vec());
    let new = pipeline::check("new.yaml", new.as_bytes().to_vec());
    let paths = Paths {
        spec: "spec.yaml".into(),
        out: "out".into(),
    };
    pipeline::change(&old, &new, &paths).expect("both sides plan")
}

/// Why a plan breaks the properties, if it does.
fn violations(plan: &ChangePlan, from: Release, to: Release) -> Vec<String> {
    let mut found = Vec::new();
    let errors: Vec<_> = plan
        .findings
        .iter()
        .filter(|finding| finding.is_error())
        .collect();
    if !errors.is_empty() {
        for error in &errors {
            let cited = error.rule.explain.contains("https://")
                && error
                    .help
                    .as_deref()
                    .is_some_and(|help| help.contains("https://"));
            if !cited {
                found.push(format!("{} has no public source", error.code()));
            }
        }
        if plan.steps.iter().any(|step| step.versions.is_some()) {
            found.push("an error finding beside version steps".into());
        }
        return found;
    }
    if to < from {
        found.push("a downgrade planned without an error".into());
    }
    let states: Vec<&VersionState> = plan
        .steps
        .iter()
        .filter_map(|step| step.versions.as_ref())
        .collect();
    let mut apiserver = from;
    for state in &states {
        let Some(now) = state.apiserver() else {
            found.push("a step without an apiserver".into());
            continue;
        };
        if now.minor > apiserver.minor + skew::MINORS_PER_UPGRADE {
            found.push(format!("the apiserver jumps from {apiserver} to {now}"));
        }
        apiserver = now;
        for component in [Component::Kubelet, Component::KubeProxy] {
            for version in state.of(component) {
                if !skew::node_within_skew(version.minor, now.minor) {
                    found.push(format!("{component:?} {version} beside apiserver {now}"));
                }
            }
        }
        for version in state
            .of(Component::ApiServer)
            .chain(state.of(Component::Kubelet))
            .chain(state.of(Component::KubeProxy))
        {
            if kubernetes::resolve(&version).known != kubernetes::Known::Yes {
                found.push(format!("{version} is not in the release table"));
            }
        }
        for version in state.of(Component::Containerd) {
            let line = containerd::resolve(&version);
            if !line.known || version > line.row.newest {
                found.push(format!("containerd {version} is not in the table"));
            }
        }
    }
    if let Some(last) = states.last()
        && last.apiserver() != Some(to)
    {
        found.push(format!(
            "the last step leaves the apiserver at {:?}, not {to}",
            last.apiserver()
        ));
    }
    if from != to && states.is_empty() {
        found.push("no version step for a version change".into());
    }
    found
}

#[test]
fn kubeadm_with_windows_every_minor_pair_and_containerd_line() {
    let lines: Vec<Release> = containerd::LINES.iter().map(|line| line.newest).collect();
    let mut failures = Vec::new();
    let mut plans = 0;
    for from in MINORS {
        for to in MINORS {
            for (old_line, new_line) in [(0, 0), (1, 1), (1, 2), (2, 5), (3, 4), (5, 5), (4, 1)] {
                let (old_containerd, new_containerd) = (lines[old_line], lines[new_line]);
                let plan = change(
                    &kubeadm_spec(from, old_containerd),
                    &kubeadm_spec(to, new_containerd),
                );
                plans += 1;
                for violation in violations(&plan, kubernetes_release(from), kubernetes_release(to))
                {
                    failures.push(format!("1.{from} → 1.{to}, containerd {old_containerd} → {new_containerd}: {violation}"));
                }
            }
        }
    }
    assert_eq!(plans, 14 * 14 * 7);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rke2_and_rke1_every_minor_pair() {
    let mut failures = Vec::new();
    let mut planned = std::collections::BTreeMap::<&str, usize>::new();
    for (name, spec) in [
        ("RKE2", rke2_spec as fn(u32) -> String),
        ("RKE1", rke1_spec),
    ] {
        for from in MINORS {
            for to in MINORS {
                let plan = change(&spec(from), &spec(to));
                let (old, new) = (kubernetes_release(from), kubernetes_release(to));
                // RKE2's releases name their own patch; the skew properties read minors.
                let (old, new) = if name == "RKE2" {
                    (
                        rke2_release(from).unwrap_or(old),
                        rke2_release(to).unwrap_or(new),
                    )
                } else {
                    (old, new)
                };
                for violation in violations(&plan, old, new) {
                    failures.push(format!("{name} 1.{from} → 1.{to}: {violation}"));
                }
                if from < to && !plan.has_errors() {
                    *planned.entry(name).or_default() += 1;
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Upgrades are planned, not refused: RKE1 over every pair, RKE2 between the minors its
    // table holds releases of.
    assert_eq!(planned["RKE1"], 14 * 13 / 2);
    assert!(planned["RKE2"] >= 70, "{planned:?}");
}

fn rke2_release(minor: u32) -> Option<Release> {
    let tag = rke2::newest_of_minor(minor)?;
    Release::parse(tag.split_once('+')?.0)
}

/// A minor past the release table, on either side, is an error that cites where releases are
/// listed: no step is planned through a release nothing describes.
#[test]
fn minors_past_the_table_are_errors_with_a_source() {
    let newest = kubernetes::newest().minor;
    let containerd = containerd::newest().newest;
    let spec = |minor: u32| {
        KUBEADM
            .replacen(
                "version: \"1.33.4\"",
                &format!("version: \"1.{minor}.0\""),
                1,
            )
            .replacen("version: 2.0.11", &format!("version: {containerd}"), 1)
    };
    for (from, to) in [
        (newest, newest + 1),
        (newest + 1, newest + 1),
        (newest - 1, newest + 2),
    ] {
        let plan = change(&spec(from), &spec(to));
        let error = plan
            .findings
            .iter()
            .find(|finding| finding.is_error())
            .unwrap_or_else(|| panic!("1.{from} → 1.{to} planned silently"));
        assert_eq!(error.code(), "HG713", "1.{from} → 1.{to}");
        assert!(
            error
                .help
                .as_deref()
                .unwrap()
                .contains("https://kubernetes.io/releases/")
        );
        assert!(plan.steps.iter().all(|step| step.versions.is_none()));
    }
}

/// The rule that makes every other hold: moving one minor, each group of nodes is at most one
/// minor behind the apiserver at every step.
#[test]
fn no_group_falls_more_than_one_minor_behind() {
    let lines = containerd::LINES
        .iter()
        .map(|line| line.newest)
        .collect::<Vec<_>>();
    let plan = change(&kubeadm_spec(24, lines[1]), &kubeadm_spec(37, lines[5]));
    let mut steps = 0;
    for state in plan.steps.iter().filter_map(|step| step.versions.as_ref()) {
        let apiserver = state.apiserver().unwrap();
        for kubelet in state.of(Component::Kubelet) {
            assert!(
                apiserver.minor - kubelet.minor <= 1,
                "{kubelet} beside {apiserver}"
            );
        }
        steps += 1;
    }
    // 13 minors × (control plane, Windows kube-proxy, Linux workers, Windows workers), and
    // containerd 1.7 → 2.0 → 2.1 → 2.2 → 2.3.
    assert_eq!(steps, 13 * 4 + 4);
}
