//! Secret references resolved from the environment at render time, and HG006 for the unset ones.
//! Values are read here and go only into the files that need them.

use super::Secrets;
use crate::diagnostic::{Diagnostic, key, value};
use crate::plan::Plan;
use crate::rules::input::SECRET_UNSET;
use crate::spec::{Secret, Spec};
use std::collections::BTreeMap;

/// The secrets this spec's artifacts need, and the names of the variables that are not set.
pub fn from_environment(spec: &Spec, plan: &Plan) -> (Secrets, Vec<String>) {
    let mut values = BTreeMap::new();
    let mut unset = Vec::new();
    for variable in super::windows::secret_variables(spec, plan) {
        match std::env::var(&variable) {
            Ok(found) if !found.is_empty() => {
                values.insert(variable, found);
            }
            _ => unset.push(variable),
        }
    }
    (Secrets::from_values(values), unset)
}

/// HG006 for each unset variable, at the field that names it (never its value). With
/// `allowed`, a warning: placeholders are written instead.
pub fn unset_findings(spec: &Spec, unset: &[String], allowed: bool) -> Vec<Diagnostic> {
    let control_plane = spec
        .windows
        .as_ref()
        .and_then(|windows| windows.control_plane.as_ref());
    unset
        .iter()
        .map(|variable| {
            let field = control_plane.and_then(|cp| {
                [("kubeadmToken", &cp.kubeadm_token), ("kubeadmCaHash", &cp.kubeadm_ca_hash)]
                    .into_iter()
                    .find(|(_, secret)| matches!(secret, Some(Secret::FromEnv(reference)) if &reference.from_env == variable))
                    .map(|(field, _)| field)
            });
            let location = match field {
                Some(field) => value(format!("/windows/controlPlane/{field}")),
                None => key("/windows"),
            };
            let diagnostic = Diagnostic::new(
                &SECRET_UNSET,
                location,
                format!("the environment variable `{variable}` is not set, and the Windows node configuration needs it"),
            )
            .label(format!("reads `{variable}`"))
            .help(format!("export `{variable}` before rendering (e.g. from `kubeadm token create --print-join-command`)"));
            if allowed {
                diagnostic
                    .help(format!("`{variable}` is unset: the files hold the placeholder `<unset: {variable}>`; replace it before use"))
                    .warning()
            } else {
                diagnostic
            }
        })
        .collect()
}
