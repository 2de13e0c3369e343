//! YAML written from JSON values, in block style: mappings in key order, strings double-quoted
//! the JSON way (a YAML 1.2 double-quoted scalar, so nothing in a value can change the
//! document's structure), multi-line strings as literal blocks. Used for the files that are data
//! rather than templates (RKE2 `config.yaml`, the HelmChartConfig, the Rancher `Cluster`).

use crate::escape;
use serde_json::Value;

/// The document, ending in a newline.
pub(crate) fn document(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(map) if !map.is_empty() => mapping(map, 0, &mut out),
        Value::Array(items) if !items.is_empty() => sequence(items, 0, &mut out),
        scalar => {
            out.push_str(&inline(scalar));
            out.push('\n');
        }
    }
    out
}

/// JSON indented four spaces, for a block scalar under `data:` in a template.
pub(crate) fn indented(json: &str) -> String {
    json.lines()
        .map(|line| format!("    {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn mapping(map: &serde_json::Map<String, Value>, indent: usize, out: &mut String) {
    for (key, value) in map {
        out.push_str(&" ".repeat(indent));
        out.push_str(&key_text(key));
        out.push(':');
        nested(value, indent, out);
    }
}

fn sequence(items: &[Value], indent: usize, out: &mut String) {
    for item in items {
        out.push_str(&" ".repeat(indent));
        out.push('-');
        match item {
            Value::Object(map) if !map.is_empty() => {
                // The first key on the dash's line, the others under it.
                let mut text = String::new();
                mapping(map, indent + 2, &mut text);
                out.push(' ');
                out.push_str(text.trim_start());
            }
            other => nested(other, indent, out),
        }
    }
}

/// What follows `key:` or `-`: a scalar on the same line, or a block below.
fn nested(value: &Value, indent: usize, out: &mut String) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            mapping(map, indent + 2, out);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            sequence(items, indent + 2, out);
        }
        Value::String(text) if is_literal_block(text) => {
            let chomp = if text.ends_with('\n') { "|" } else { "|-" };
            out.push(' ');
            out.push_str(chomp);
            out.push('\n');
            for line in text.trim_end_matches('\n').split('\n') {
                if !line.is_empty() {
                    out.push_str(&" ".repeat(indent + 2));
                    out.push_str(line);
                }
                out.push('\n');
            }
        }
        scalar => {
            out.push(' ');
            out.push_str(&inline(scalar));
            out.push('\n');
        }
    }
}

/// A multi-line string a literal block keeps exactly, for every reader: printable, no tab or
/// carriage return, a first line that does not start with a space, one trailing newline at most,
/// and no character a YAML 1.1 reader (libyaml, go-yaml, which RKE2 and Rancher use) takes for a
/// line break while a YAML 1.2 reader does not (U+0085, U+2028, U+2029): in a block, such a
/// break would end the block and start keys of its own. Nor a bidi control, so that no line of
/// the file shows in another order than it is read.
fn is_literal_block(text: &str) -> bool {
    text.contains('\n')
        && !text.starts_with([' ', '\n'])
        && !text.ends_with("\n\n")
        && !text
            .chars()
            .any(|c| (c.is_control() && c != '\n') || escape::breaks_or_reorders(c))
}

/// A scalar on one line: JSON's double-quoted string, which YAML reads the same, with U+0085,
/// U+2028, U+2029 and the bidi controls as `\uXXXX` escapes.
fn inline(value: &Value) -> String {
    match value {
        Value::Object(map) if map.is_empty() => "{}".into(),
        Value::Array(items) if items.is_empty() => "[]".into(),
        other => escape::json_text(other.to_string()),
    }
}

/// A key as written: plain when it is a simple name, quoted otherwise.
fn key_text(key: &str) -> String {
    let plain = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    if plain {
        key.to_string()
    } else {
        escape::json_text(Value::String(key.to_string()).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    fn round_trip(value: &Value) -> Value {
        let text = document(value);
        let read = serde_yaml::Value::deserialize(serde_yaml::Deserializer::from_str(&text))
            .unwrap_or_else(|error| panic!("{error}\n{text}"));
        serde_json::to_value(read).unwrap()
    }

    #[test]
    fn nested_values_read_back_the_same() {
        let value = json!({
            "apiVersion": "v1",
            "cni": ["flannel"],
            "tls-san": ["a.example", "10.0.0.1"],
            "empty": [],
            "none": {},
            "number": 4096,
            "flag": true,
            "odd key: yes": "value # not a comment",
            "list of maps": [{"matchLabels": {"cattle.io/os": "windows"}, "b": 1}, "x"],
            "valuesContent": "flannel:\n  vni: 4096\n",
            "no newline": "a\nb",
            "tricky": "- looks: like yaml\n",
        });
        assert_eq!(round_trip(&value), value);
    }

    #[test]
    fn blocks_are_literal_and_values_quoted() {
        let text = document(
            &json!({"spec": {"valuesContent": "flannel:\n  vni: 4096\n"}, "cni": "flannel"}),
        );
        assert_eq!(
            text,
            "cni: \"flannel\"\nspec:\n  valuesContent: |\n    flannel:\n      vni: 4096\n"
        );
    }

    #[test]
    fn strings_a_literal_block_would_change_are_quoted() {
        for text in [" leading", "tab\there\n", "two\n\n", "\nfirst"] {
            let value = json!({ "k": format!("{text}\nmore") });
            assert_eq!(round_trip(&value), value, "{text:?}");
        }
    }

    #[test]
    fn line_separators_never_reach_the_file_raw() {
        let hostile = "v=2\n\u{2028}server: https://203.0.113.66:9345\n\u{2029}token-file: /dev/null\u{85}x: \u{202e}";
        let value = json!({"kubelet-arg": [hostile], "k\u{2028}ey": hostile});
        let text = document(&value);
        for c in ['\u{2028}', '\u{2029}', '\u{85}', '\u{202e}'] {
            assert!(!text.contains(c), "{c:?} raw in\n{text}");
        }
        assert!(text.contains("\"v=2\\n\\u2028server: https://203.0.113.66:9345\\n\\u2029token-file: /dev/null\\u0085x: \\u202e\""), "{text}");
        assert_eq!(round_trip(&value), value);
    }
}
