//! Secret references resolved from the environment at render time: HG006 for the unset ones,
//! HG010 for values the consumer would reject, and the placeholders `--allow-missing-secrets`
//! writes, which `render --check` refuses to call up to date. Which secrets a spec needs is its
//! distribution's room's answer ([`super::Room::secret_variables`]). Values are read here and go
//! only into the files that need them.

use super::{Artifact, Secrets};
use crate::diagnostic::{Diagnostic, Location};
use crate::plan::Plan;
pub use crate::rules::input::SecretForm;
use crate::rules::input::{SECRET_FORMAT, SECRET_UNSET};
use crate::spec::Spec;
use std::collections::BTreeMap;
use std::path::Path;

/// A secret the rendered files read from an environment variable.
#[derive(Debug, Clone)]
pub struct SecretVariable {
    pub variable: String,
    /// The spec field that names it (`kubeadmToken`), for messages.
    pub field: &'static str,
    /// Where findings about it point: the field, or its section when the field is absent and the
    /// default variable is read.
    pub location: Location,
    pub form: SecretForm,
    /// What reads it, for messages: `the Windows node configuration`.
    pub needed_by: &'static str,
}

/// What a file holds in place of an unset secret (`render --allow-missing-secrets`).
pub fn placeholder(variable: &str) -> String {
    format!("{PLACEHOLDER_START}{variable}>")
}

const PLACEHOLDER_START: &str = "<unset: ";

/// The secret variables this spec's artifacts read, one entry per variable.
fn needed(spec: &Spec, plan: &Plan) -> Vec<SecretVariable> {
    let mut seen = std::collections::BTreeSet::new();
    super::room(spec, plan)
        .secret_variables(spec, plan)
        .into_iter()
        .filter(|secret| seen.insert(secret.variable.clone()))
        .collect()
}

/// The secrets this spec's artifacts need, and the names of the variables that are not set
/// (sorted, each once).
pub fn from_environment(spec: &Spec, plan: &Plan) -> (Secrets, Vec<String>) {
    let mut values = BTreeMap::new();
    let mut unset = Vec::new();
    for secret in needed(spec, plan) {
        match std::env::var(&secret.variable) {
            Ok(found) if !found.is_empty() => {
                values.insert(secret.variable, found);
            }
            _ => unset.push(secret.variable),
        }
    }
    unset.sort();
    (Secrets::from_values(values), unset)
}

/// HG006 for each unset variable, at the field that names it (never its value). With
/// `allowed`, a warning: placeholders are written instead.
pub fn unset_findings(
    spec: &Spec,
    plan: &Plan,
    unset: &[String],
    allowed: bool,
) -> Vec<Diagnostic> {
    needed(spec, plan)
        .into_iter()
        .filter(|secret| unset.contains(&secret.variable))
        .map(|secret| {
            let variable = &secret.variable;
            let diagnostic = Diagnostic::new(
                &SECRET_UNSET,
                secret.location.clone(),
                format!(
                    "the environment variable `{variable}` is not set, and {} needs it",
                    secret.needed_by
                ),
            )
            .label(format!("reads `{variable}`"))
            .help(format!(
                "export `{variable}` before rendering ({})",
                secret.form.origin()
            ));
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

/// HG010 for each secret read from the environment that its consumer would reject: the same forms
/// as for a value written inline, and no white space around it (a shell capture's line break).
/// The value is never shown.
pub fn format_findings(spec: &Spec, plan: &Plan, secrets: &Secrets) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for secret in needed(spec, plan) {
        let Some(text) = secrets.get(&secret.variable) else {
            continue;
        };
        let (valid, form) = secret.form.check(text);
        let problem = if valid {
            continue;
        } else if text.trim() != text {
            "has white space around it".to_string()
        } else {
            format!(
                "is not in the form {} accepts, {form}",
                secret.form.consumer()
            )
        };
        let variable = &secret.variable;
        found.push(
            Diagnostic::new(
                &SECRET_FORMAT,
                secret.location.clone(),
                format!(
                    "the environment variable `{variable}` (`{}`) {problem} (its value is not shown)",
                    secret.field
                ),
            )
            .label(format!("reads `{variable}`"))
            .help(format!(
                "set `{variable}` to {}, without spaces or line breaks",
                secret.form.expected()
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
        // Read as `--check` reads: a regular file beneath `out`, never through a link.
        let Some(bytes) = super::write::read_regular_beneath(out, &artifact.path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
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
