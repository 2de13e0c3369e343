//! How a node-side script takes a join secret: from the environment variable the spec names
//! ([`crate::spec::secret_fields`]), when the script runs on the node, checked against the form
//! its consumer accepts before the script changes anything. `render` never reads a secret, so no
//! rendered file holds one: a rendered directory is safe to commit, and `render --check` needs no
//! secret. Messages name the variable and where its value comes from, never the value.

use super::RenderError;
use super::script::{powershell_quote, script_value, shell_quote};
use crate::spec::Spec;
use crate::spec::secret_fields::{SecretField, SecretForm};

/// A secret a node-side script reads from its environment.
pub(crate) struct NodeSecret<'s> {
    /// The spec key, for messages: `kubeadmToken`.
    key: &'static str,
    /// The environment variable: checked by HG011 in `plan`, and again here.
    variable: &'s str,
    form: SecretForm,
}

impl<'s> NodeSecret<'s> {
    pub(crate) fn of(field: &'static SecretField, spec: &'s Spec) -> Result<Self, RenderError> {
        let variable = field.variable(spec);
        if crate::spec::secret_fields::variable_problem(variable).is_some() {
            return Err(RenderError(format!(
                "`{}` names a variable no node script may read (HG011)",
                field.key
            )));
        }
        Ok(NodeSecret {
            key: field.key,
            variable: script_value(variable, "fromEnv")?,
            form: field.form,
        })
    }

    pub(crate) fn variable(&self) -> &'s str {
        self.variable
    }

    fn unset(&self, script: &str) -> String {
        format!(
            "{script}: set the environment variable {} ({}) before running it: {}",
            self.variable,
            self.key,
            self.form.origin()
        )
    }

    fn malformed(&self, script: &str) -> String {
        let (_, form) = self.form.check("");
        format!(
            "{script}: the environment variable {} ({}) is not in the form {} accepts, {form} (its value is not shown)",
            self.variable,
            self.key,
            self.form.consumer()
        )
    }

    /// bash lines that set the shell variable `into` from the environment, or stop the script
    /// with a message on standard error. The match runs in the C locale, as the rules check it.
    pub(crate) fn bash_lines(&self, script: &str, into: &str) -> Vec<String> {
        vec![
            format!("{into}=${{{}-}}", self.variable),
            format!("{into}_form={}", shell_quote(self.form.pattern())),
            format!("if [ -z \"${into}\" ]; then"),
            format!("  echo {} >&2", shell_quote(&self.unset(script))),
            "  exit 1".into(),
            "fi".into(),
            format!("if ! (LC_ALL=C; [[ ${into} =~ ${into}_form ]]); then"),
            format!("  echo {} >&2", shell_quote(&self.malformed(script))),
            "  exit 1".into(),
            "fi".into(),
        ]
    }

    /// PowerShell lines that set `$into` from the environment, or throw. `-cmatch`: PowerShell's
    /// `-match` ignores case, which a bootstrap token does not.
    pub(crate) fn powershell_lines(&self, script: &str, into: &str) -> Vec<String> {
        vec![
            format!(
                "${into} = [Environment]::GetEnvironmentVariable({})",
                powershell_quote(self.variable)
            ),
            format!(
                "if ([string]::IsNullOrEmpty(${into})) {{ throw {} }}",
                powershell_quote(&self.unset(script))
            ),
            format!(
                "if (${into} -cnotmatch {}) {{ throw {} }}",
                powershell_quote(self.form.pattern()),
                powershell_quote(&self.malformed(script))
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::secret_fields::{kubeadm_token, rke2_token};
    use std::process::Command;

    fn spec(rke2_token: &str) -> Spec {
        let text = format!(
            "apiVersion: hybridgen/v1\nkind: Cluster\nmetadata: {{name: c}}\nkubernetes: {{version: \"1.31.4\", distribution: rke2}}\nrke2: {{token: {rke2_token}}}\nnetwork: {{clusterCidr: 10.244.0.0/16, serviceCidr: 10.96.0.0/12}}\nflannel: {{backend: vxlan}}\nnodes: []\n"
        );
        serde_yaml::from_str(&text).expect("a spec")
    }

    /// Runs the bash lines with `env` as the only environment, and says what they printed and
    /// whether they went on.
    fn run_bash(lines: &[String], env: &[(&str, &str)]) -> (bool, String) {
        let script = format!("{}\necho \"went on\"\n", lines.join("\n"));
        let output = Command::new("bash")
            .arg("-c")
            .arg(script)
            .env_clear()
            .envs(env.iter().copied())
            .output()
            .expect("bash runs");
        let stderr = String::from_utf8_lossy(&output.stderr).to_string();
        let went_on = String::from_utf8_lossy(&output.stdout).contains("went on");
        (went_on && output.status.success(), stderr)
    }

    #[test]
    fn bash_refuses_an_unset_or_malformed_secret_and_never_prints_it() {
        let spec = spec("{fromEnv: RKE2_TOKEN_PROD}");
        let secret = NodeSecret::of(rke2_token(), &spec).unwrap();
        assert_eq!(secret.variable(), "RKE2_TOKEN_PROD");
        let lines = secret.bash_lines("install.sh", "join_token");
        let (went_on, stderr) = run_bash(&lines, &[]);
        assert!(!went_on);
        assert!(
            stderr.contains("set the environment variable RKE2_TOKEN_PROD"),
            "{stderr}"
        );
        for bad in ["two words", "tab\there", "nl\nx", "caf\u{e9}"] {
            let (went_on, stderr) = run_bash(&lines, &[("RKE2_TOKEN_PROD", bad)]);
            assert!(!went_on, "{bad:?}");
            assert!(
                stderr.contains("is not in the form RKE2 accepts"),
                "{stderr}"
            );
            assert!(!stderr.contains(bad), "{stderr}");
        }
        let (went_on, stderr) = run_bash(&lines, &[("RKE2_TOKEN_PROD", "K10abc::server:s3cr3t")]);
        assert!(went_on, "{stderr}");
        // Another variable of the same prefix is not read.
        let (went_on, _) = run_bash(&lines, &[("RKE2_TOKEN", "K10abc::server:s3cr3t")]);
        assert!(!went_on);
    }

    #[test]
    fn inline_values_are_never_used_the_default_variable_is() {
        let spec = spec("\"an-inline-secret\"");
        let secret = NodeSecret::of(rke2_token(), &spec).unwrap();
        assert_eq!(secret.variable(), "RKE2_TOKEN");
        let text = secret.bash_lines("install.sh", "t").join("\n")
            + &secret.powershell_lines("install.ps1", "T").join("\n");
        assert!(!text.contains("an-inline-secret"));
    }

    #[test]
    fn a_variable_of_another_system_is_refused_at_render_too() {
        let spec = spec("{fromEnv: AWS_SECRET_ACCESS_KEY}");
        assert!(NodeSecret::of(rke2_token(), &spec).is_err());
    }

    #[test]
    fn powershell_matches_case_sensitively_and_quotes_every_message() {
        let spec = spec("{fromEnv: RKE2_TOKEN}");
        let secret = NodeSecret::of(kubeadm_token(), &spec).unwrap();
        let lines = secret.powershell_lines("join.ps1", "JoinToken");
        assert_eq!(
            lines[0],
            "$JoinToken = [Environment]::GetEnvironmentVariable('KUBEADM_TOKEN')"
        );
        assert!(
            lines[2].contains("-cnotmatch '^[a-z0-9]{6}[.][a-z0-9]{16}$'"),
            "{}",
            lines[2]
        );
        assert!(lines[1].contains("kubeadm token create --print-join-command"));
    }
}
