//! kubeadm's room: its configuration (`kubeadm/kubeadm-config.yaml`, [`config`]), the Linux
//! workers' join scripts ([`linux_join`]) and the files that join Windows nodes with `kubeadm
//! join` ([`windows`]: KubeCluster.ps1 before Kubernetes 1.24, the HostProcess path from 1.24),
//! which read the kubeadm token and CA hash.

pub mod config;
pub mod linux_join;
pub mod windows;

use super::{Artifact, ControllerManager, Input, RenderError, Room};

pub(crate) struct Kubeadm;

impl Room for Kubeadm {
    fn paths(&self, input: &Input) -> Result<Vec<String>, RenderError> {
        let mut paths = vec![config::PATH.to_string()];
        paths.extend(linux_join::paths(input.plan)?);
        paths.extend(windows::paths(input)?);
        Ok(paths)
    }

    fn render(&self, input: &Input) -> Result<Vec<Artifact>, RenderError> {
        let mut artifacts = config::render(input)?;
        artifacts.extend(linux_join::render(input)?);
        artifacts.extend(windows::render(input)?);
        Ok(artifacts)
    }

    fn controller_manager(&self) -> ControllerManager {
        ControllerManager {
            flags_in: "kubeadm/kubeadm-config.yaml",
            started_by: "`kubeadm init`",
        }
    }
}
