//! The one writer of Terraform JSON (`routes/<cloud>.tf.json`, `rancher/cluster.tf.json`).
//! Terraform reads every JSON string value as a template, so `${…}` in a value would be evaluated
//! (`${file("~/.aws/credentials")}` reads a local file at `terraform plan`) and `%{…}` would be a
//! directive (developer.hashicorp.com/terraform/language/syntax/json, "Expression Mapping").
//! The writer escapes `${` as `$${` and `%{` as `%%{` in every string of the document, so a value
//! means exactly what it says whatever builds the document; the only interpolations are the
//! [`Expression`]s, which name an attribute of another resource and nothing else.

use super::RenderError;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

/// The key under which an [`Expression`] travels through `serde_json::Value` to the writer. It
/// holds a NUL, which no key the writer's callers build holds.
const EXPRESSION_KEY: &str = "\u{0}terraform-expression";

/// A reference to another resource's attribute, `${rancher2_cluster_v2.demo.id}`, followed by
/// literal text: the only interpolation the writer lets through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Expression {
    reference: String,
    after: String,
}

impl Expression {
    /// `${reference}`: the reference must be a traversal, names joined by `.` with `[N]`
    /// indexes (`data.aws_instance.pods_win_0.network_interface_id`), never a function call.
    pub(crate) fn reference(reference: &str) -> Result<Self, RenderError> {
        if !is_traversal(reference) {
            return Err(RenderError(format!(
                "Terraform: `{}` is not a plain attribute reference",
                crate::escape::bounded(reference, 80)
            )));
        }
        Ok(Expression {
            reference: reference.to_string(),
            after: String::new(),
        })
    }

    /// The reference, then `text` as written (escaped like any other string).
    pub(crate) fn followed_by(mut self, text: &str) -> Self {
        self.after.push_str(text);
        self
    }
}

impl Serialize for Expression {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(EXPRESSION_KEY, &[&self.reference, &self.after])?;
        map.end()
    }
}

/// `name`, `name.attribute`, `name[0].attribute`: identifiers joined by `.`, each optionally
/// indexed by a number.
fn is_traversal(reference: &str) -> bool {
    !reference.is_empty()
        && reference.split('.').all(|step| {
            let (name, index) = step.split_once('[').unwrap_or((step, ""));
            is_identifier(name)
                && (index.is_empty()
                    || index
                        .strip_suffix(']')
                        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())))
        })
}

/// A Terraform identifier: letters, digits, `_` and `-`, starting with a letter or `_`
/// (developer.hashicorp.com/terraform/language/syntax/configuration, "Identifiers").
pub(crate) fn is_identifier(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A Terraform identifier from a name: every character other than a letter, digit, `_` or `-`
/// written as `_`, and `_` in front when the name starts with anything but a letter or `_` (a
/// cluster named `1st` gives `_1st`).
pub(crate) fn identifier(name: &str) -> String {
    let mut identifier: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !identifier.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        identifier.insert(0, '_');
    }
    identifier
}

/// A string Terraform keeps as written.
fn literal(text: &str) -> String {
    text.replace("${", "$${").replace("%{", "%%{")
}

/// The document as Terraform JSON, ending in a newline: every string value escaped, every
/// [`Expression`] written as its interpolation, then [`crate::escape::json_pretty`].
pub(crate) fn document<T: Serialize>(value: &T, path: &str) -> Result<String, RenderError> {
    let failed = |error: serde_json::Error| RenderError(format!("`{path}`: {error}"));
    let value = inert(serde_json::to_value(value).map_err(failed)?);
    let mut text = crate::escape::json_pretty(&value).map_err(failed)?;
    text.push('\n');
    Ok(text)
}

fn inert(value: Value) -> Value {
    match value {
        Value::String(text) => Value::String(literal(&text)),
        Value::Array(items) => Value::Array(items.into_iter().map(inert).collect()),
        Value::Object(map) => match expression(&map) {
            Some(text) => Value::String(text),
            None => Value::Object(
                map.into_iter()
                    .map(|(key, value)| (key, inert(value)))
                    .collect::<Map<String, Value>>(),
            ),
        },
        scalar => scalar,
    }
}

/// The text of an [`Expression`] that travelled as `{EXPRESSION_KEY: [reference, after]}`.
fn expression(map: &Map<String, Value>) -> Option<String> {
    let parts = map.get(EXPRESSION_KEY)?.as_array()?;
    match (map.len(), parts.as_slice()) {
        (1, [Value::String(reference), Value::String(after)]) if is_traversal(reference) => {
            Some(format!("${{{reference}}}{}", literal(after)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_string_is_escaped_and_only_expressions_interpolate() {
        let reference = Expression::reference(
            "rancher2_cluster_v2.demo.cluster_registration_token[0].node_command",
        )
        .unwrap()
        .followed_by(" --node-name '${file(\"/etc/hostname\")}'");
        let document = json!({
            "resource": {"x": {
                "config": "kubelet-arg:\n- ${file(\"/etc/passwd\")}\n- %{ if true }x%{ endif }\n",
                "list": ["$${kept}", "a${b}"],
                "value": reference,
            }},
        });
        let text = super::document(&document, "t.tf.json").unwrap();
        let back: Value = serde_json::from_str(&text).unwrap();
        let resource = &back["resource"]["x"];
        assert_eq!(
            resource["config"],
            "kubelet-arg:\n- $${file(\"/etc/passwd\")}\n- %%{ if true }x%%{ endif }\n"
        );
        assert_eq!(resource["list"], json!(["$$${kept}", "a$${b}"]));
        assert_eq!(
            resource["value"],
            "${rancher2_cluster_v2.demo.cluster_registration_token[0].node_command} --node-name '$${file(\"/etc/hostname\")}'"
        );
    }

    #[test]
    fn an_expression_is_a_reference_and_nothing_else() {
        for reference in [
            "x.id}${file(\"/etc/hostname\")}${rancher2_cluster_v2.x",
            "file(\"/etc/passwd\")",
            "a[b]",
            "1abc.id",
            "",
        ] {
            assert!(Expression::reference(reference).is_err(), "{reference}");
        }
        assert!(Expression::reference("data.aws_instance.pods_win-0.network_interface_id").is_ok());
    }

    #[test]
    fn identifiers_start_with_a_letter_or_underscore() {
        assert_eq!(identifier("demo-1"), "demo-1");
        assert_eq!(identifier("1st"), "_1st");
        assert_eq!(identifier("x.id}${file"), "x_id___file");
        for name in ["1st", "-a", "é", "a b", ""] {
            assert!(is_identifier(&identifier(name)), "{name}");
        }
    }
}
