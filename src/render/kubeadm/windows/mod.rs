//! The Windows node files, by the setup the plan chose ([`WindowsSetup`]):
//! - Kubernetes before 1.24: [`kubecluster`], one `Kubecluster*.json` per node for
//!   sig-windows-tools' KubeCluster.ps1;
//! - Kubernetes 1.18 to 1.23 with `windows.setup: wins-daemonsets`: [`wins`], the flanneld and
//!   kube-proxy DaemonSets that run them on the host through rancher/wins;
//! - the HostProcess path (1.24 and later): [`hostprocess`] (the flanneld and kube-proxy
//!   DaemonSets), [`images`] (the recipe that builds their images) and [`join`] (per node: the
//!   kubeadm JoinConfiguration and the script that prepares the node and joins it).
//!
//! No file here holds the kubeadm token or CA hash: each node's script reads them from the
//! environment when it runs ([`crate::render::node_secret`]).

pub mod hostprocess;
pub mod images;
pub mod join;
pub mod kubecluster;
pub mod wins;

use crate::plan::{NodePlan, Plan, WindowsSetup};
use crate::render::{Artifact, Input, RenderError};
use std::net::Ipv4Addr;

/// The files `render` writes here, without rendering them.
pub fn paths(input: &Input) -> Result<Vec<String>, RenderError> {
    match input.plan.windows_setup {
        None => Ok(Vec::new()),
        Some(WindowsSetup::KubeCluster) => kubecluster::paths(input),
        Some(WindowsSetup::WinsDaemonSets) => {
            Ok(wins::PATHS.into_iter().map(String::from).collect())
        }
        Some(WindowsSetup::HostProcess) => {
            let mut paths: Vec<String> = hostprocess::PATHS
                .into_iter()
                .chain(images::PATHS)
                .map(String::from)
                .collect();
            paths.extend(join::paths(input.plan)?);
            Ok(paths)
        }
    }
}

pub fn render(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    match input.plan.windows_setup {
        None => Ok(Vec::new()),
        Some(WindowsSetup::KubeCluster) => kubecluster::render(input),
        Some(WindowsSetup::WinsDaemonSets) => wins::render(input),
        Some(WindowsSetup::HostProcess) => {
            let mut artifacts = hostprocess::render(input)?;
            artifacts.extend(images::render(input)?);
            artifacts.extend(join::render(input)?);
            Ok(artifacts)
        }
    }
}

/// Node names become directory names: refuse anything that could leave `windows/`.
fn checked_node_name(name: &str) -> Result<&str, RenderError> {
    let leaves_its_directory = name.is_empty()
        || name.contains(['/', '\\'])
        || name.contains("..")
        || name.starts_with('.')
        || name.chars().any(char::is_control);
    if leaves_its_directory {
        Err(RenderError(format!(
            "node name {name:?} cannot be used as a directory name under `windows/`"
        )))
    } else {
        Ok(name)
    }
}

fn windows_of(node: &NodePlan) -> Result<&crate::plan::NodeWindows, RenderError> {
    node.windows.as_deref().ok_or_else(|| {
        RenderError(format!(
            "Windows node {:?} has no Windows settings in the plan",
            node.name
        ))
    })
}

/// The settings every Windows node file reads, KubeCluster.ps1's and the HostProcess path's,
/// known valid (rendering runs only on specs without errors, and this is the one place that says
/// so for the Windows side).
struct NodeSettings<'a> {
    windows: &'a crate::plan::WindowsPlan,
    control_plane: Ipv4Addr,
}

fn node_settings<'a>(plan: &'a Plan) -> Result<NodeSettings<'a>, RenderError> {
    let windows = plan
        .windows
        .as_ref()
        .ok_or_else(|| RenderError("the spec has Windows nodes but no `windows` section".into()))?;
    let control_plane = match &windows.control_plane_address {
        Some(Ok(address)) => *address,
        Some(Err(error)) => {
            return Err(RenderError(format!(
                "cannot render the Windows node files: {}",
                error.problem
            )));
        }
        None => {
            return Err(RenderError(
                "cannot render the Windows node files: no control-plane address (set \
                 `windows.controlPlane.address` or give a node the `controlplane` role)"
                    .into(),
            ));
        }
    };
    Ok(NodeSettings {
        windows,
        control_plane,
    })
}
