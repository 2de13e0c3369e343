//! Where text holds secrets, and the same text with them masked: what reports show of a spec or a
//! capture, and what `render --check` compares, never holds a join token or a CA hash.

use crate::spec::secret_fields::SECRET_FIELDS;
use std::ops::Range;

/// The text with each span, and anything shaped like a bootstrap token or a CA hash, masked with
/// `*` byte for byte, so that positions stay put.
pub fn masked(text: &str, spans: &[Range<usize>]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for span in spans.iter().cloned().chain(secret_shapes(text)) {
        if let Some(secret) = bytes.get_mut(span) {
            secret.fill(b'*');
        }
    }
    String::from_utf8(bytes).unwrap_or_default()
}

/// Where the text holds `[a-z0-9]{6}.[a-z0-9]{16}` (a kubeadm bootstrap token, standing alone) or
/// `sha256:` and 64 hex digits (a CA hash). Candidates are found by searching for `.` and
/// `sha256:`, not by testing every byte: a 65,536-node spec is 8.5 MiB of text.
pub(crate) fn secret_shapes(text: &str) -> Vec<Range<usize>> {
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

/// Where a text that may not load as YAML (an unclosed quote, a duplicate key, a value that is a
/// mapping) holds a secret key's value: the value's characters after the key's `:`, and those of
/// the lines below it that are indented deeper (a block scalar, a quoted value running on). Line
/// breaks, indentation and comments stay as they are, so the masked text keeps its lines; a
/// `{fromEnv: NAME}` reference, inline or on the line below, is no secret and is left as it is.
pub fn secret_values_by_place(text: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    // The indent of the secret key whose value may run on below it.
    let mut open: Option<usize> = None;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let at = start;
        start += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let body = content.trim_start_matches([' ', '-']);
        let indent = content.len() - body.len();
        if body.trim().is_empty() {
            continue;
        }
        if let Some(key_indent) = open {
            if indent > key_indent && secret_key_colon(body).is_none() {
                match body.strip_prefix("fromEnv:") {
                    _ if is_reference(body) => {}
                    Some(value) => {
                        spans.extend(value_characters(at + indent + "fromEnv:".len(), value));
                    }
                    None => spans.extend(value_characters(at + indent, body)),
                }
                continue;
            }
            open = None;
        }
        let Some(colon) = secret_key_colon(body) else {
            continue;
        };
        let value = &body[colon + 1..];
        if value.trim_start().starts_with('{') && value.contains("fromEnv") {
            continue;
        }
        spans.extend(value_characters(at + indent + colon + 1, value));
        open = Some(indent);
    }
    spans
}

/// `fromEnv: NAME` on a line of its own: the block form of a reference.
fn is_reference(body: &str) -> bool {
    body.strip_prefix("fromEnv:").is_some_and(|rest| {
        let name = rest.split(" #").next().unwrap_or_default().trim();
        crate::spec::secret_fields::is_variable_name(name)
    })
}

/// The bytes of a value (`text` standing at byte `at`): from its first character to its last,
/// without a comment after it, which a value that is not quoted ends at.
fn value_characters(at: usize, text: &str) -> Option<Range<usize>> {
    let trimmed = text.trim_start();
    let from = at + text.len() - trimmed.len();
    let comment = trimmed.find(" #").or_else(|| trimmed.find("\t#"));
    let value = match comment {
        Some(comment) if !trimmed.starts_with(['"', '\'']) => &trimmed[..comment],
        _ => trimmed,
    };
    let value = value.trim_end();
    (!value.is_empty()).then(|| from..from + value.len())
}

/// The position of the `:` after a secret key at the start of `line` (bare or quoted).
fn secret_key_colon(line: &str) -> Option<usize> {
    SECRET_FIELDS.iter().map(|field| field.key).find_map(|key| {
        let unquoted = line.trim_start_matches(['"', '\'']);
        let rest = unquoted.strip_prefix(key)?;
        let rest_trimmed = rest.trim_start_matches(['"', '\'', ' ', '\t']);
        rest_trimmed
            .starts_with(':')
            .then(|| line.len() - rest_trimmed.len())
    })
}

#[cfg(test)]
mod tests {
    use super::{masked, secret_values_by_place};

    #[test]
    fn secrets_in_text_that_does_not_load_are_masked_by_place() {
        let token = "abcdef.0123456789zzzzzz";
        for text in [
            format!("windows:\n  controlPlane:\n    kubeadmToken: \"{token}\n    other: 1\n"),
            format!("kubeadmToken: x-{token}\nkubeadmToken: again-{token}\n"),
            format!("kubeadmToken: a: {token}\n"),
            format!("\"kubeadmCaHash\": |\n  {token}\n  more-{token}\nnext: 1\n"),
        ] {
            let shown = masked(&text, &secret_values_by_place(&text));
            assert!(!shown.contains(token), "{shown}");
            assert_eq!(shown.len(), text.len());
        }
        let reference = "kubeadmToken: {fromEnv: KUBEADM_TOKEN}\n";
        assert!(secret_values_by_place(reference).is_empty());
    }

    /// A reference on the line below its key, and the comments around it, are shown as they are;
    /// a value is masked character for character, its line break kept.
    #[test]
    fn only_the_characters_of_a_secret_value_are_masked() {
        let text = "  kubeadmToken:\n    fromEnv: KUBEADM_TOKEN   # the join token\n  kubeadmCaHash: sha-x  # pasted\n  bad: [\n";
        let shown = masked(text, &secret_values_by_place(text));
        assert_eq!(
            shown,
            "  kubeadmToken:\n    fromEnv: KUBEADM_TOKEN   # the join token\n  kubeadmCaHash: *****  # pasted\n  bad: [\n"
        );
        let pasted = "kubeadmToken:\n  abcdef-not-a-token\n  fromEnv: $KUBEADM_TOKEN\nnext: 1\n";
        assert_eq!(
            masked(pasted, &secret_values_by_place(pasted)),
            "kubeadmToken:\n  ******************\n  fromEnv: **************\nnext: 1\n"
        );
    }

    #[test]
    fn token_and_hash_shapes_are_masked_in_place() {
        let original = "t: abcdef.0123456789abcdef\nh: sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\nv: 1.16.2\nx: abcdefg.0123456789abcdef\n";
        let text = masked(original, &[]);
        assert_eq!(text.len(), original.len());
        assert!(
            !text.contains("abcdef.") && !text.contains("sha256:0"),
            "{text}"
        );
        assert!(text.contains("v: 1.16.2"));
        // Seven characters before the dot: not a token, left as it is.
        assert!(text.contains("abcdefg.0123456789abcdef"), "{text}");
    }

    #[test]
    fn given_spans_are_masked_whatever_their_shape() {
        let original = "kubeadmToken: not-a-token-shape\nother: kept\n";
        let start = original.find("not-").unwrap();
        let inline = std::iter::once(start..start + "not-a-token-shape".len()).collect::<Vec<_>>();
        let text = masked(original, &inline);
        assert_eq!(text, "kubeadmToken: *****************\nother: kept\n");
    }
}
