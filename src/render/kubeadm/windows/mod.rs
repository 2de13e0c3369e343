//! The Windows node files, by the setup the plan chose ([`WindowsSetup`]):
//! - Kubernetes before 1.24: [`kubecluster`], one `Kubecluster*.json` per node for
//!   sig-windows-tools' KubeCluster.ps1;
//! - the HostProcess path (1.24 and later): [`hostprocess`] (the flanneld and kube-proxy
//!   DaemonSets), [`images`] (the recipe that builds their images) and [`join`] (per node: the
//!   kubeadm JoinConfiguration and the script that prepares the node and joins it).
//!
//! The kubeadm token and CA hash reach only the files that need them, which name their secret
//! keys so that they are written 0600 and compared masked.

pub mod hostprocess;
pub mod images;
pub mod join;
pub mod kubecluster;

use crate::diagnostic::{key, value};
use crate::plan::{NodePlan, Plan, WindowsSetup};
use crate::render::secrets::{SecretForm, SecretVariable};
use crate::render::{Artifact, Input, RenderError};
use crate::spec::{Secret, Spec};
use std::net::Ipv4Addr;

/// The environment variable read for the bootstrap token when `windows.controlPlane.kubeadmToken`
/// is absent.
pub const DEFAULT_TOKEN_VARIABLE: &str = "KUBEADM_TOKEN";

/// The environment variable read for the CA certificate hash when
/// `windows.controlPlane.kubeadmCaHash` is absent.
pub const DEFAULT_CA_HASH_VARIABLE: &str = "KUBEADM_CA_HASH";

/// The files `render` writes here, without rendering them.
pub fn paths(input: &Input) -> Result<Vec<String>, RenderError> {
    match input.plan.windows_setup {
        None => Ok(Vec::new()),
        Some(WindowsSetup::KubeCluster) => kubecluster::paths(input),
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
        Some(WindowsSetup::HostProcess) => {
            let mut artifacts = hostprocess::render(input)?;
            artifacts.extend(images::render(input)?);
            artifacts.extend(join::render(input)?);
            Ok(artifacts)
        }
    }
}

/// Where a secret's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SecretSource<'a> {
    /// An environment variable: the one `{fromEnv: NAME}` names, or the default name when the
    /// field is absent.
    Env(&'a str),
    /// A value written into the spec (allowed, with warning HG005).
    Literal(&'a str),
}

fn secret_source<'a>(
    secret: Option<&'a Secret>,
    default_variable: &'static str,
) -> SecretSource<'a> {
    match secret {
        Some(Secret::FromEnv(reference)) => SecretSource::Env(&reference.from_env),
        Some(Secret::Inline(text)) => SecretSource::Literal(text),
        None => SecretSource::Env(default_variable),
    }
}

/// The spec fields that hold the join secrets, in the order [`secret_sources`] gives them.
pub const SECRET_FIELDS: [&str; 2] = ["kubeadmToken", "kubeadmCaHash"];

/// The token and CA hash sources: `windows.controlPlane.kubeadmToken` / `kubeadmCaHash` when
/// written, else the variables [`DEFAULT_TOKEN_VARIABLE`] and [`DEFAULT_CA_HASH_VARIABLE`].
fn secret_sources(spec: &Spec) -> [SecretSource<'_>; 2] {
    let control_plane = spec
        .windows
        .as_ref()
        .and_then(|windows| windows.control_plane.as_ref());
    [
        secret_source(
            control_plane.and_then(|cp| cp.kubeadm_token.as_ref()),
            DEFAULT_TOKEN_VARIABLE,
        ),
        secret_source(
            control_plane.and_then(|cp| cp.kubeadm_ca_hash.as_ref()),
            DEFAULT_CA_HASH_VARIABLE,
        ),
    ]
}

/// The variables the join secrets are read from, each with its field ([`SECRET_FIELDS`]); none
/// for values written inline.
fn secret_variable_fields(spec: &Spec) -> Vec<(&'static str, &str)> {
    SECRET_FIELDS
        .into_iter()
        .zip(secret_sources(spec))
        .filter_map(|(field, source)| match source {
            SecretSource::Env(name) => Some((field, name)),
            SecretSource::Literal(_) => None,
        })
        .collect()
}

/// The token and the CA hash: from the environment, the literal written inline, or the obvious
/// placeholder of [`super::Secrets::value`] for an unset variable.
fn secret_values(input: &Input) -> [String; 2] {
    secret_sources(input.spec).map(|source| match source {
        SecretSource::Env(name) => input.secrets.value(name),
        SecretSource::Literal(text) => text.to_string(),
    })
}

/// The secrets the Windows node files read from the environment: the `fromEnv` names of the
/// kubeadm token and CA hash, or the default names ([`DEFAULT_TOKEN_VARIABLE`],
/// [`DEFAULT_CA_HASH_VARIABLE`]) when the fields are absent; none for values written inline.
/// Empty when no Windows file is rendered (no Windows nodes, or a Kubernetes version that does not
/// parse, which fails the render anyway). Both setups need them: KubeCluster.ps1's config and the
/// kubeadm JoinConfiguration.
pub fn join_secrets(spec: &Spec, plan: &Plan) -> Vec<SecretVariable> {
    if plan.windows_setup.is_none() {
        return Vec::new();
    }
    let written = |field: &str, variable: &str| {
        spec.windows
            .as_ref()
            .and_then(|windows| windows.control_plane.as_ref())
            .is_some_and(|cp| {
                let secret = if field == SECRET_FIELDS[0] {
                    &cp.kubeadm_token
                } else {
                    &cp.kubeadm_ca_hash
                };
                matches!(secret, Some(Secret::FromEnv(reference)) if reference.from_env == variable)
            })
    };
    secret_variable_fields(spec)
        .into_iter()
        .map(|(field, variable)| SecretVariable {
            variable: variable.to_string(),
            field,
            location: if written(field, variable) {
                value(format!("/windows/controlPlane/{field}"))
            } else {
                key("/windows")
            },
            form: if field == SECRET_FIELDS[0] {
                SecretForm::BootstrapToken
            } else {
                SecretForm::CaHash
            },
            needed_by: "the Windows node configuration",
        })
        .collect()
}

/// Node names become directory names: refuse anything that could leave `windows/`.
fn checked_node_name(name: &str) -> Result<&str, RenderError> {
    let unsafe_name = name.is_empty()
        || name.contains(['/', '\\'])
        || name.contains("..")
        || name.starts_with('.')
        || name.chars().any(char::is_control);
    if unsafe_name {
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
