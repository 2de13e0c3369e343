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

/// Where the text holds `[a-z0-9]{6}.[a-z0-9]{16}` (a kubeadm bootstrap token, standing alone) or
/// `sha256:` and 64 hex digits (a CA hash). Candidates are found by searching for `.` and
/// `sha256:`, not by testing every byte: a 65,536-node spec is 8.5 MiB of text.
pub(crate) fn secret_shapes(text: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let token_char = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let tokens = text.match_indices('.').filter_map(|(dot, _)| {
        let (start, end) = (dot.checked_sub(6)?, dot + 17);
        let standalone = (start == 0 || !token_char(&bytes[start - 1]))
            && bytes.get(end).is_none_or(|b| !token_char(b));
        let shaped = bytes[start..dot].iter().all(token_char)
            && bytes.get(dot + 1..end)?.iter().all(token_char);
        (standalone && shaped).then_some(start..end)
    });
    let hashes = text.match_indices("sha256:").filter_map(|(at, _)| {
        let digits = bytes.get(at + 7..at + 71)?;
        digits
            .iter()
            .all(u8::is_ascii_hexdigit)
            .then_some(at..at + 71)
    });
    tokens.chain(hashes).collect()
}

#[cfg(test)]
mod tests {
    use super::secret_shapes;

    #[test]
    fn token_and_hash_shapes_are_masked_in_place() {
        let original = "t: abcdef.0123456789abcdef\nh: sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\nv: 1.16.2\nx: abcdefg.0123456789abcdef\n";
        let mut text = original.as_bytes().to_vec();
        let length = text.len();
        for shape in secret_shapes(original) {
            text[shape].fill(b'*');
        }
        let text = String::from_utf8(text).unwrap();
        assert_eq!(text.len(), length);
        assert!(
            !text.contains("abcdef.") && !text.contains("sha256:0"),
            "{text}"
        );
        assert!(text.contains("v: 1.16.2"));
        // Seven characters before the dot: not a token, left as it is.
        assert!(text.contains("abcdefg.0123456789abcdef"), "{text}");
    }
}
