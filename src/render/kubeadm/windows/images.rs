//! The recipe for the two HostProcess images the Windows DaemonSets run (no maintained public
//! images exist: sig-windows-tools removed its flannel ones in 2025, PR #385):
//! `windows/images/flannel/` and `windows/images/kube-proxy/` (a Dockerfile and the start script
//! each) and `windows/images/build.sh`, which builds both for `windows/amd64` with buildx and
//! pushes them under exactly the references the DaemonSets name.
//!
//! The images depend on versions only — flanneld.exe and the flannel CNI plugin follow
//! `flannel.version`, kube-proxy.exe is `kubernetes.version`, host-local and sdnoverlay/sdnbridge
//! are [`crate::plan::pins`]; every URL comes from [`crate::plan::downloads`] — and their start
//! scripts read
//! every cluster value from the DaemonSets, so one image serves every cluster on those versions.

use super::node_settings;
use crate::plan::downloads::{Asset, Download};
use crate::plan::pins;
use crate::plan::release_tag;
use crate::render::script::{Script, script_value, shell_quote};
use crate::render::{Artifact, Input, RenderError};
use minijinja::context;
use minijinja::value::Serde;
use serde::Serialize;

pub const BUILD_PATH: &str = "windows/images/build.sh";
pub const FLANNEL_DOCKERFILE_PATH: &str = "windows/images/flannel/Dockerfile";
pub const FLANNEL_START_PATH: &str = "windows/images/flannel/start.ps1";
pub const KUBE_PROXY_DOCKERFILE_PATH: &str = "windows/images/kube-proxy/Dockerfile";
pub const KUBE_PROXY_START_PATH: &str = "windows/images/kube-proxy/start.ps1";

/// The files `render` writes here.
pub const PATHS: [&str; 5] = [
    BUILD_PATH,
    FLANNEL_DOCKERFILE_PATH,
    FLANNEL_START_PATH,
    KUBE_PROXY_DOCKERFILE_PATH,
    KUBE_PROXY_START_PATH,
];

/// The start scripts: the same for every cluster, so they are files, not templates.
const FLANNEL_START: &str = include_str!("../../../../templates/windows/flannel-start.ps1");
const KUBE_PROXY_START: &str = include_str!("../../../../templates/windows/kube-proxy-start.ps1");

/// What a Dockerfile template formats: the versions its header names, the names the files are
/// saved under, and its downloads, each from [`downloads`].
#[derive(Serialize)]
struct Recipe {
    flannel: String,
    kubernetes: String,
    flannel_cni_plugin: &'static str,
    cni_plugins: &'static str,
    windows_cni: &'static str,
    cni_plugins_file: String,
    flannel_cni_plugin_file: String,
    windows_cni_file: String,
    base_image: &'static str,
    download_image: &'static str,
    downloads: Vec<Download>,
}

pub fn render(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    let settings = node_settings(input.plan)?;
    let spec = input.spec;
    // flanneld.exe is downloaded by the release's own tag, as written (a pre-release kept), with
    // the flannel CNI plugin that release pins.
    let release = crate::render::flannel::planned_release(input)?;
    let flannel = release.tag.clone();
    let kubernetes = release_tag(&spec.kubernetes.version).ok_or_else(|| {
        RenderError("`kubernetes.version` cannot be used as a download tag".into())
    })?;
    let flannel_cni_plugin = release.row.windows_cni_plugin();
    let cni_plugins = Asset::CniPluginsWindows.download(pins::CNI_PLUGINS);
    let flannel_plugin = Asset::FlannelCniPluginWindows.download(flannel_cni_plugin);
    let windows_cni = Asset::WindowsCni.download(pins::WINDOWS_CNI);
    let recipe = |downloads: Vec<Download>| Recipe {
        flannel: flannel.clone(),
        kubernetes: kubernetes.clone(),
        flannel_cni_plugin,
        cni_plugins: pins::CNI_PLUGINS,
        windows_cni: pins::WINDOWS_CNI,
        cni_plugins_file: cni_plugins.file.clone(),
        flannel_cni_plugin_file: flannel_plugin.file.clone(),
        windows_cni_file: windows_cni.file.clone(),
        base_image: pins::HOST_PROCESS_BASE_IMAGE,
        download_image: pins::DOWNLOAD_IMAGE,
        downloads,
    };
    let flannel_recipe = recipe(vec![
        cni_plugins.clone(),
        flannel_plugin.clone(),
        windows_cni.clone(),
        Asset::Flanneld.download(&flannel),
    ]);
    let kube_proxy_recipe = recipe(vec![
        Asset::KubeProxy.download(&kubernetes),
        cni_plugins.clone(),
    ]);
    let flannel_dockerfile = crate::render::template("windows/flannel.Dockerfile.j2")?
        .render(context! { d => Serde(&flannel_recipe) })?;
    let kube_proxy_dockerfile = crate::render::template("windows/kube-proxy.Dockerfile.j2")?
        .render(context! { d => Serde(&kube_proxy_recipe) })?;
    let flannel_image = settings
        .windows
        .flannel_image
        .as_deref()
        .ok_or_else(|| RenderError("no Windows flannel image (HG312)".into()))?;
    let kube_proxy_image = settings
        .windows
        .kube_proxy_image
        .as_deref()
        .ok_or_else(|| RenderError("no Windows kube-proxy image (HG312)".into()))?;
    let build = build_script(
        &input.spec.metadata.name,
        [
            ("flannel", flannel_image, &format!("flanneld {flannel}")),
            (
                "kube-proxy",
                kube_proxy_image,
                &format!("kube-proxy {kubernetes}"),
            ),
        ],
    )?;
    Ok(vec![
        Artifact::new(BUILD_PATH, build),
        Artifact::new(FLANNEL_DOCKERFILE_PATH, flannel_dockerfile),
        Artifact::new(FLANNEL_START_PATH, FLANNEL_START),
        Artifact::new(KUBE_PROXY_DOCKERFILE_PATH, kube_proxy_dockerfile),
        Artifact::new(KUBE_PROXY_START_PATH, KUBE_PROXY_START),
    ])
}

/// The tag buildx pushes for a reference: the reference itself, less a `@sha256:` digest (a digest
/// names what a build produced; it cannot be given to one).
fn push_tag(reference: &str) -> &str {
    reference.split_once('@').map_or(reference, |(tag, _)| tag)
}

/// `build.sh`: each image built for windows/amd64 and pushed under the reference its DaemonSet
/// names. buildx cannot load a Windows image into a Linux daemon, so it pushes straight to the
/// registry (`--output=type=registry`); provenance and SBOM attestations are left out because
/// containerd on Windows does not read attestation manifests.
fn build_script(cluster: &str, images: [(&str, &str, &str); 2]) -> Result<String, RenderError> {
    let cluster = script_value(cluster, "metadata.name")?;
    let mut script = Script::bash();
    script.comment(&format!(
        "Builds and pushes the Windows HostProcess images of cluster {cluster}: generated by hybridgen."
    ));
    script
        .comment("Run it on a Linux or macOS host with Docker buildx, logged in to the registry:");
    script.comment("  docker login <registry> && bash windows/images/build.sh");
    script.comment("Each image is tagged exactly as windows/kube-flannel-windows.yml and");
    script.comment("windows/kube-proxy-windows.yml reference it.");
    script.line("set -euo pipefail");
    script.line("cd \"$(dirname \"$0\")\"");
    for (directory, reference, what) in images {
        let reference = script_value(reference, "image reference")?;
        let tag = push_tag(reference);
        script.blank();
        script.echo(&format!(
            "Building {tag} ({what}) for windows/amd64 and pushing it"
        ));
        if tag != reference {
            script.comment(&format!(
                "The DaemonSet pins the digest of {reference}: update it after this push."
            ));
        }
        script.line(&format!(
            "docker buildx build --platform windows/amd64 --provenance=false --sbom=false --output=type=registry --tag {} {directory}",
            shell_quote(tag)
        ));
    }
    Ok(script.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_gw_reserves_the_host_endpoint_address_before_pods_can_start() {
        let (overlay, bridge) = FLANNEL_START
            .rsplit_once("if ($delegate.type -eq 'sdnoverlay') {")
            .unwrap();
        assert!(
            !overlay.contains("\nWrite-CniConfig"),
            "no config before the backend is known"
        );
        let (overlay, bridge) = bridge.split_once("\n}\n").unwrap();
        assert!(overlay.contains("Write-CniConfig"), "{overlay}");
        let reserve = bridge
            .find("Set-Content -Encoding ASCII -NoNewline -Path $reservation")
            .unwrap();
        let config = bridge.find("\nWrite-CniConfig").unwrap();
        assert!(
            reserve < config,
            "the reservation comes before the CNI configuration"
        );
        assert!(bridge.contains("$octets[3] = $octets[3] + 2"));
        assert!(bridge.contains("$store = \"C:\\var\\lib\\cni\\networks\\$($conf.name)\""));
        assert!(bridge.contains("exit $flanneld.ExitCode"));
    }

    #[test]
    fn an_older_flannel_cni_configuration_is_set_aside() {
        // 10-flannel.conf (sig-windows-tools' recipe) sorts before 10-flannel.conflist.
        assert!(FLANNEL_START.contains("if ($other.Name -like '*flannel*' -and $other.Extension -in '.conf', '.conflist', '.json') {"));
        assert!(FLANNEL_START.contains(
            "Rename-Item -Path $other.FullName -NewName \"$($other.Name).replaced-by-hybridgen\""
        ));
    }

    #[test]
    fn a_digest_is_not_a_push_tag() {
        assert_eq!(push_tag("r.example/a:v1@sha256:00"), "r.example/a:v1");
        assert_eq!(push_tag("r.example/a:v1"), "r.example/a:v1");
    }

    #[test]
    fn every_image_is_built_for_windows_and_tagged_as_referenced() {
        let script = build_script(
            "demo",
            [
                (
                    "flannel",
                    "r.example/k8s/flannel-windows:v0.28.9-hostprocess",
                    "flanneld v0.28.9",
                ),
                (
                    "kube-proxy",
                    "r.example/k8s/kube-proxy-windows:v1.33.4-flannel-hostprocess",
                    "kube-proxy v1.33.4",
                ),
            ],
        )
        .unwrap();
        let builds: Vec<&str> = script
            .lines()
            .filter(|line| line.starts_with("docker buildx build"))
            .collect();
        assert_eq!(builds.len(), 2);
        assert!(
            builds[0]
                .ends_with("--tag 'r.example/k8s/flannel-windows:v0.28.9-hostprocess' flannel")
        );
        assert!(builds[1].ends_with(
            "--tag 'r.example/k8s/kube-proxy-windows:v1.33.4-flannel-hostprocess' kube-proxy"
        ));
        assert!(
            builds
                .iter()
                .all(|line| line.contains("--platform windows/amd64"))
        );
    }
}
