//! Secret references resolved from the environment at render time: HG006 for the unset ones,
//! HG010 for values kubeadm would reject, and the placeholders `--allow-missing-secrets` writes,
//! which `render --check` refuses to call up to date. Values are read here and go only into the
//! files that need them.

use super::{Artifact, Secrets};
use crate::diagnostic::{Diagnostic, Location, key, value};
use crate::plan::Plan;
use crate::rules::input::{SECRET_FORMAT, SECRET_UNSET, is_bootstrap_token, is_ca_hash};
use crate::spec::{Secret, Spec};
use std::collections::BTreeMap;
use std::path::Path;

/// What a file holds in place of an unset secret (`render --allow-missing-secrets`).
pub fn placeholder(variable: &str) -> String {
    format!("{PLACEHOLDER_START}{variable}>")
}

const PLACEHOLDER_START: &str = "<unset: ";

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

/// Where a finding about a variable points: the field that names it, or `/windows` when the
/// default variable is read because the field is absent.
fn variable_location(spec: &Spec, variable: &str) -> Location {
    let control_plane = spec
        .windows
        .as_ref()
        .and_then(|windows| windows.control_plane.as_ref());
    let field = control_plane.and_then(|cp| {
        [("kubeadmToken", &cp.kubeadm_token), ("kubeadmCaHash", &cp.kubeadm_ca_hash)]
            .into_iter()
            .find(|(_, secret)| matches!(secret, Some(Secret::FromEnv(reference)) if reference.from_env == variable))
            .map(|(field, _)| field)
    });
    match field {
        Some(field) => value(format!("/windows/controlPlane/{field}")),
        None => key("/windows"),
    }
}

/// HG006 for each unset variable, at the field that names it (never its value). With
/// `allowed`, a warning: placeholders are written instead.
pub fn unset_findings(spec: &Spec, unset: &[String], allowed: bool) -> Vec<Diagnostic> {
    unset
        .iter()
        .map(|variable| {
            let location = variable_location(spec, variable);
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

/// HG010 for each secret read from the environment that kubeadm would reject: the same forms as
/// for a value written inline, and no white space around it (a shell capture's line break). The
/// value is never shown.
pub fn format_findings(spec: &Spec, secrets: &Secrets) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for (field, variable) in super::windows::secret_variable_fields(spec) {
        let Some(text) = secrets.get(variable) else {
            continue;
        };
        let (valid, form) = if field == "kubeadmToken" {
            (is_bootstrap_token(text), "`[a-z0-9]{6}.[a-z0-9]{16}`")
        } else {
            (
                is_ca_hash(text),
                "`sha256:` followed by 64 hexadecimal digits",
            )
        };
        let problem = if valid {
            continue;
        } else if text.trim() != text {
            "has white space around it".to_string()
        } else {
            format!("is not in the form kubeadm accepts, {form}")
        };
        found.push(
            Diagnostic::new(
                &SECRET_FORMAT,
                variable_location(spec, variable),
                format!("the environment variable `{variable}` (`{field}`) {problem} (its value is not shown)"),
            )
            .label(format!("reads `{variable}`"))
            .help(format!(
                "set `{variable}` to the value `kubeadm token create --print-join-command` prints, without spaces or line breaks"
            )),
        );
    }
    found
}

/// The rendered files that hold secrets and, in `out`, still hold a placeholder, each with the
/// variable it stands for: they are not up to date, whatever else they match.
pub fn placeholders_on_disk(out: &Path, artifacts: &[Artifact]) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for artifact in artifacts.iter().filter(|artifact| artifact.holds_secrets()) {
        let Ok(text) = std::fs::read_to_string(out.join(&artifact.path)) else {
            continue;
        };
        // The templates write values with `tojson`, which spells `<` and `>` as escapes.
        let text = text.replace("\\u003c", "<").replace("\\u003e", ">");
        for (at, _) in text.match_indices(PLACEHOLDER_START) {
            let rest = &text[at + PLACEHOLDER_START.len()..];
            let variable: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .take(100)
                .collect();
            if !variable.is_empty() && rest[variable.len()..].starts_with('>') {
                found.push((artifact.path.clone(), variable));
            }
        }
    }
    found.dedup();
    found
}
