//! Every URL a rendered script or Dockerfile fetches is a row of the download table
//! (`hybridgen::plan::downloads`): for every example and render fixture, and for the main example
//! on every flannel release and Kubernetes minor the tables hold. A URL that is not a row is an
//! asset nothing has shown to exist — the way the recipe once asked for
//! `windows-container-networking-cni-amd64-v0.3.1.zip`, which was never published.

use hybridgen::pipeline;
use hybridgen::plan::downloads;
use hybridgen::plan::flannel_release;
use hybridgen::plan::releases::kubernetes;
use hybridgen::render::{Input, render_all};
use std::path::{Path, PathBuf};

const MAIN_EXAMPLE: &str = "examples/kubeadm-1.36-vxlan-windows.yaml";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn specs() -> Vec<PathBuf> {
    let mut specs: Vec<PathBuf> = ["examples", "tests/fixtures/render"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(root().join(dir)).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    specs.sort();
    specs
}

/// Whether a file is one a node or a build host runs.
fn is_script(path: &str) -> bool {
    path.ends_with(".sh") || path.ends_with(".ps1") || path.ends_with("Dockerfile")
}

/// The URLs a script fetches: every `https://` outside a comment, less the cluster's own servers —
/// the API server the pod is given (`$env:KUBERNETES_SERVICE_HOST`), a node's address (the RKE2
/// supervisor), or the spec's Rancher URL. A URL built from any other variable is kept, and
/// fails: the table cannot vouch for it.
fn fetched_urls(text: &str, rancher: Option<&str>) -> Vec<String> {
    text.lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .flat_map(|line| {
            line.match_indices("https://")
                .map(move |(at, _)| &line[at..])
        })
        .map(|rest| {
            let end = rest
                .find(|c: char| c.is_whitespace() || "\"'`)".contains(c))
                .unwrap_or(rest.len());
            rest[..end].to_string()
        })
        .filter(|url| !url.starts_with("https://$($env:KUBERNETES_SERVICE_HOST"))
        .filter(|url| {
            let host = url["https://".len()..]
                .split(['/', ':'])
                .next()
                .unwrap_or("");
            host.parse::<std::net::Ipv4Addr>().is_err()
        })
        .filter(|url| rancher.is_none_or(|server| !url.starts_with(server)))
        .collect()
}

/// The URLs the spec's scripts fetch that the table does not list, as `path: url`.
fn unlisted(name: &str, text: &str) -> (Vec<String>, usize) {
    let checked = pipeline::check(name, text.as_bytes().to_vec());
    let (Some(spec), Some(plan)) = (&checked.spec, &checked.plan) else {
        panic!("{name} does not plan");
    };
    let input = Input { spec, plan };
    let artifacts = render_all(&input).unwrap_or_else(|error| panic!("{name}: {error:?}"));
    let rancher = spec.rancher.as_ref().map(|rancher| rancher.url.as_str());
    let mut seen = 0;
    let mut missing = Vec::new();
    for artifact in artifacts.iter().filter(|a| is_script(&a.path)) {
        for url in fetched_urls(&artifact.contents, rancher) {
            seen += 1;
            if !downloads::is_listed(&url) {
                missing.push(format!("{name} {}: {url}", artifact.path));
            }
        }
    }
    (missing, seen)
}

#[test]
fn every_url_every_example_fetches_is_a_row_of_the_download_table() {
    let mut missing = Vec::new();
    let mut seen = 0;
    for spec in specs() {
        let text = std::fs::read_to_string(&spec).unwrap();
        let (unlisted, count) = unlisted(&spec.display().to_string(), &text);
        missing.extend(unlisted);
        seen += count;
    }
    assert!(seen > 100, "only {seen} URLs seen");
    assert_eq!(missing, Vec::<String>::new());
}

#[test]
fn every_url_of_every_flannel_release_and_kubernetes_minor_is_a_row_of_the_download_table() {
    let example = std::fs::read_to_string(root().join(MAIN_EXAMPLE)).unwrap();
    assert!(example.contains("version: \"1.36.3\""));
    assert!(example.contains("version: v0.28.9"));
    let mut missing = Vec::new();
    let windows_flannel = flannel_release::RELEASES
        .iter()
        .filter(|row| row.version >= hybridgen::plan::version::Release::new(0, 21, 0));
    for row in windows_flannel {
        let text = example.replace("version: v0.28.9", &format!("version: {}", row.tag()));
        missing.extend(unlisted(&row.tag(), &text).0);
    }
    for minor in 24..=kubernetes::newest().minor {
        let text = example.replace("version: \"1.36.3\"", &format!("version: \"1.{minor}.0\""));
        missing.extend(unlisted(&format!("1.{minor}.0"), &text).0);
    }
    assert_eq!(missing, Vec::<String>::new());
}

#[test]
fn the_old_recipe_urls_are_not_rows() {
    assert!(!downloads::is_listed(
        "https://github.com/microsoft/windows-container-networking/releases/download/v0.3.1/windows-container-networking-cni-amd64-v0.3.1.zip"
    ));
    assert!(!downloads::is_listed(
        "https://github.com/flannel-io/cni-plugin/releases/download/v1.9.1-flannel3/cni-plugin-flannel-windows-amd64-v1.9.1-flannel3.tgz"
    ));
}
