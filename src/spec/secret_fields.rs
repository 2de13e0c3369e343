//! The spec's secret fields, in one table. Every place that masks, reports, checks or renders a
//! secret reads this table: syntax-error help, schema messages, the inline-secret rules, the
//! snippets of reports, and the node-side scripts that read the secret when they run.
//!
//! No rendered file holds a secret. A field names the environment variable (`{fromEnv: NAME}`)
//! that the node-side script (`join.ps1`, RKE2's `install.sh` / `install.ps1`, KubeCluster's
//! `start.ps1`) reads on the node when it runs; `render` reads no secret at all, so a rendered
//! directory can be committed and `render --check` needs no secret in CI.

use super::{Secret, Spec};

/// One secret field of a spec.
pub struct SecretField {
    /// Where it stands, as a JSON Pointer.
    pub pointer: &'static str,
    /// Its key, as written in the spec.
    pub key: &'static str,
    /// The variable the node-side script reads when the spec names none, or writes the value
    /// inline (an inline value is never rendered).
    pub default_variable: &'static str,
    pub form: SecretForm,
    value: fn(&Spec) -> Option<&Secret>,
}

/// Every secret field of a spec.
pub static SECRET_FIELDS: [SecretField; 3] = [
    SecretField {
        pointer: "/windows/controlPlane/kubeadmToken",
        key: "kubeadmToken",
        default_variable: "KUBEADM_TOKEN",
        form: SecretForm::BootstrapToken,
        value: |spec| control_plane(spec)?.kubeadm_token.as_ref(),
    },
    SecretField {
        pointer: "/windows/controlPlane/kubeadmCaHash",
        key: "kubeadmCaHash",
        default_variable: "KUBEADM_CA_HASH",
        form: SecretForm::CaHash,
        value: |spec| control_plane(spec)?.kubeadm_ca_hash.as_ref(),
    },
    SecretField {
        pointer: "/rke2/token",
        key: "token",
        default_variable: "RKE2_TOKEN",
        form: SecretForm::Rke2Token,
        value: |spec| spec.rke2.as_ref()?.token.as_ref(),
    },
];

fn control_plane(spec: &Spec) -> Option<&super::ControlPlane> {
    spec.windows.as_ref()?.control_plane.as_ref()
}

/// The kubeadm join secrets, in the order the Windows join files use them.
pub fn kubeadm_token() -> &'static SecretField {
    &SECRET_FIELDS[0]
}

pub fn kubeadm_ca_hash() -> &'static SecretField {
    &SECRET_FIELDS[1]
}

pub fn rke2_token() -> &'static SecretField {
    &SECRET_FIELDS[2]
}

impl SecretField {
    /// The field at a JSON Pointer.
    pub fn at(pointer: &str) -> Option<&'static SecretField> {
        SECRET_FIELDS.iter().find(|field| field.pointer == pointer)
    }

    /// Whether a key, wherever it stands in a text that may not load, may hold a secret. Matched
    /// by key alone: where the text cannot be read as a tree, hiding a value that was no secret is
    /// the safe mistake.
    pub fn is_secret_key(key: &str) -> bool {
        SECRET_FIELDS.iter().any(|field| field.key == key)
    }

    /// What the spec writes in the field.
    pub fn secret<'s>(&self, spec: &'s Spec) -> Option<&'s Secret> {
        (self.value)(spec)
    }

    /// The value written inline, if it is.
    pub fn inline<'s>(&self, spec: &'s Spec) -> Option<&'s str> {
        match self.secret(spec)? {
            Secret::Inline(text) => Some(text),
            Secret::FromEnv(_) => None,
        }
    }

    /// The variable the node-side script reads: the one the reference names, else the default.
    pub fn variable<'s>(&self, spec: &'s Spec) -> &'s str {
        match self.secret(spec) {
            Some(Secret::FromEnv(reference)) => &reference.from_env,
            _ => self.default_variable,
        }
    }
}

/// The form a consumer accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretForm {
    /// A kubeadm bootstrap token, `[a-z0-9]{6}.[a-z0-9]{16}` (k8s.io/cluster-bootstrap).
    BootstrapToken,
    /// kubeadm's discovery hash, `sha256:` and 64 hexadecimal digits (kubeadm `pubkeypin`).
    CaHash,
    /// An RKE2 token: printable ASCII without white space (the short form, or the secure
    /// `K10<CA hash>::<credentials>`; docs.rke2.io "Token Management"), which a node script can
    /// check the same way in bash and PowerShell.
    Rke2Token,
}

impl SecretForm {
    /// Whether the value has the form, and the form as messages describe it.
    pub fn check(self, text: &str) -> (bool, &'static str) {
        match self {
            SecretForm::BootstrapToken => (is_bootstrap_token(text), "`[a-z0-9]{6}.[a-z0-9]{16}`"),
            SecretForm::CaHash => (
                is_ca_hash(text),
                "`sha256:` followed by 64 hexadecimal digits",
            ),
            SecretForm::Rke2Token => (
                !text.is_empty() && text.bytes().all(|b| b.is_ascii_graphic()),
                "one word of printable ASCII, without spaces or line breaks",
            ),
        }
    }

    /// The same check as a regular expression that both bash's `=~` and PowerShell's `-cmatch`
    /// read alike, for the node-side scripts.
    pub fn pattern(self) -> &'static str {
        match self {
            SecretForm::BootstrapToken => "^[a-z0-9]{6}[.][a-z0-9]{16}$",
            SecretForm::CaHash => "^sha256:[0-9a-fA-F]{64}$",
            SecretForm::Rke2Token => "^[!-~]+$",
        }
    }

    /// Who reads the value.
    pub fn consumer(self) -> &'static str {
        match self {
            SecretForm::BootstrapToken | SecretForm::CaHash => "kubeadm",
            SecretForm::Rke2Token => "RKE2",
        }
    }

    /// Where a user gets a value: what the node-side scripts say when the variable is unset.
    pub fn origin(self) -> &'static str {
        match self {
            SecretForm::BootstrapToken | SecretForm::CaHash => {
                "on the control plane, `kubeadm token create --print-join-command` prints both"
            }
            SecretForm::Rke2Token => {
                "on the first server, /var/lib/rancher/rke2/server/token holds it (or choose one before that server starts)"
            }
        }
    }

    /// The value to set, for the help of a malformed one.
    pub fn expected(self) -> &'static str {
        match self {
            SecretForm::BootstrapToken | SecretForm::CaHash => {
                "the value printed by `kubeadm token create --print-join-command`"
            }
            SecretForm::Rke2Token => "the cluster's token",
        }
    }
}

/// A kubeadm bootstrap token: `[a-z0-9]{6}.[a-z0-9]{16}` (k8s.io/cluster-bootstrap).
pub fn is_bootstrap_token(text: &str) -> bool {
    let lower_alnum = |part: &str| {
        part.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    };
    match text.split_once('.') {
        Some((id, secret)) => {
            id.len() == 6 && secret.len() == 16 && lower_alnum(id) && lower_alnum(secret)
        }
        None => false,
    }
}

/// A kubeadm discovery CA hash: `sha256:` and 64 hexadecimal digits (kubeadm `pubkeypin`).
pub fn is_ca_hash(text: &str) -> bool {
    text.strip_prefix("sha256:")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The prefixes of the variables a secret reference may name: a cluster's join secrets, never
/// another system's credentials (`AWS_SECRET_ACCESS_KEY`, `GITHUB_TOKEN`), which a node script
/// would otherwise turn into the cluster's join token.
pub const VARIABLE_PREFIXES: [&str; 3] = ["HYBRIDGEN_", "KUBEADM_", "RKE2_"];

/// The longest variable name accepted.
const VARIABLE_NAME_MAX: usize = 64;

/// Why a secret reference may not name this variable, or `None` when it may: an environment
/// variable name (`[A-Z][A-Z0-9_]*`, at most 64) that starts with one of [`VARIABLE_PREFIXES`].
pub fn variable_problem(name: &str) -> Option<String> {
    if !is_variable_name(name) {
        return Some(format!(
            "is not an environment variable name: upper-case letters, digits and `_`, starting with a letter, at most {VARIABLE_NAME_MAX}"
        ));
    }
    let prefixed = VARIABLE_PREFIXES
        .iter()
        .any(|prefix| name.len() > prefix.len() && name.starts_with(prefix));
    (!prefixed).then(|| {
        format!(
            "does not start with {}: a join secret's variable must, so that no spec can make a node read another system's credentials",
            prefixes_text()
        )
    })
}

/// Whether the text has the shape of an environment variable name. What has not may be the secret
/// itself, pasted where its name belongs: no message quotes it, and reports mask it.
pub fn is_variable_name(name: &str) -> bool {
    name.len() <= VARIABLE_NAME_MAX
        && name.starts_with(|c: char| c.is_ascii_uppercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// `` `HYBRIDGEN_`, `KUBEADM_` or `RKE2_` `` for messages.
pub fn prefixes_text() -> String {
    let quoted: Vec<String> = VARIABLE_PREFIXES.iter().map(|p| format!("`{p}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.join(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_is_found_by_its_pointer_and_key() {
        for field in &SECRET_FIELDS {
            assert_eq!(
                SecretField::at(field.pointer).map(|f| f.key),
                Some(field.key)
            );
            assert!(SecretField::is_secret_key(field.key));
            assert!(field.pointer.ends_with(&format!("/{}", field.key)));
            assert_eq!(variable_problem(field.default_variable), None);
        }
        assert!(SecretField::at("/rke2/server").is_none());
        assert!(!SecretField::is_secret_key("server"));
    }

    #[test]
    fn variables_of_other_systems_and_malformed_names_are_refused() {
        for name in [
            "AWS_SECRET_ACCESS_KEY",
            "GITHUB_TOKEN",
            "PATH",
            "RKE2_",
            "kubeadm_token",
            "KUBEADM-TOKEN",
            "$KUBEADM_TOKEN",
            "",
            "1KUBEADM",
        ] {
            assert!(variable_problem(name).is_some(), "{name}");
        }
        let long = format!("HYBRIDGEN_{}", "A".repeat(60));
        assert!(variable_problem(&long).is_some());
        for name in ["KUBEADM_TOKEN", "RKE2_TOKEN_PROD", "HYBRIDGEN_JOIN_CA_HASH"] {
            assert_eq!(variable_problem(name), None, "{name}");
        }
    }

    #[test]
    fn forms_match_what_kubeadm_and_rke2_accept() {
        let (token, hash) = (
            "abcdef.0123456789abcdef",
            format!("sha256:{}", "a".repeat(64)),
        );
        assert!(SecretForm::BootstrapToken.check(token).0);
        assert!(
            !SecretForm::BootstrapToken
                .check("ABCDEF.0123456789abcdef")
                .0
        );
        assert!(SecretForm::CaHash.check(&hash).0);
        assert!(!SecretForm::CaHash.check(&hash[..70]).0);
        assert!(SecretForm::Rke2Token.check("K10abc::server:xyz").0);
        assert!(!SecretForm::Rke2Token.check("two words").0);
        assert_eq!(prefixes_text(), "`HYBRIDGEN_`, `KUBEADM_` or `RKE2_`");
    }
}
