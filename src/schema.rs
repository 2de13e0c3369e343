//! The JSON Schema of the spec: generated from the `spec` model (draft-07, what editors' YAML
//! language servers support), and the validation of a loaded document against it (HG002).
//!
//! Checking a spec does no schema work when the spec is valid: a document that types strictly
//! (`strict`) and holds nothing that only the schema checks is one the schema accepts, so the
//! validators are compiled, from the committed schema, only for a document that fails.

mod strict;

use crate::diagnostic::{Diagnostic, Location, key, value};
use crate::load::{self, Document, LoadError, escape_pointer_token};
use crate::rules::input::SCHEMA_VIOLATION;
use crate::source::SourceFile;
use crate::spec::secret_fields::{SECRET_FIELDS, SecretField};
use crate::spec::{Node, Spec};
use crate::suggest::nearest;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::{Map, Value};
use std::sync::LazyLock;

/// The schema as committed in `schemas/hybridgen.schema.json`.
pub fn generate() -> Value {
    let generator = schemars::generate::SchemaSettings::draft07().into_generator();
    let mut schema = generator.into_root_schema_for::<Spec>().to_value();
    drop_null_alternatives(&mut schema);
    add_titles(&mut schema);
    schema
}

/// Gives every property a title from its name (`dnsServiceIp` → "DNS service IP"), which editors
/// show on hover and in completion lists.
fn add_titles(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            if let Some(Value::Object(properties)) = object.get_mut("properties") {
                for (name, property) in properties.iter_mut() {
                    if let Value::Object(property) = property {
                        property
                            .entry("title")
                            .or_insert_with(|| Value::from(title_of(name)));
                    }
                }
            }
            object.values_mut().for_each(add_titles);
        }
        Value::Array(items) => items.iter_mut().for_each(add_titles),
        _ => {}
    }
}

fn title_of(name: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    for c in name.chars() {
        match words.last_mut() {
            Some(word) if !c.is_ascii_uppercase() => word.push(c),
            _ => words.push(c.to_ascii_lowercase().to_string()),
        }
    }
    for word in &mut words {
        if [
            "cidr", "ip", "id", "dns", "vni", "mac", "api", "aws", "gce", "nic",
        ]
        .contains(&&**word)
        {
            *word = word.to_uppercase();
        }
    }
    let mut title = words.join(" ");
    if let Some(first) = title.get(..1) {
        title = first.to_uppercase() + &title[1..];
    }
    title
}

/// The schema as pretty JSON with a final newline, byte-identical on every run.
pub fn generate_text() -> String {
    serde_json::to_string_pretty(&generate()).unwrap_or_default() + "\n"
}

/// Optional fields are optional by being absent; an explicit `null` would only hide a typo such as
/// `dnsServiceIp:` with the value forgotten. Dropping the null alternatives schemars adds for
/// `Option` also keeps error messages about the real type instead of an `anyOf`.
fn drop_null_alternatives(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            if let Some(Value::Array(types)) = object.get_mut("type") {
                types.retain(|kind| kind != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    object.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(alternatives)) = object.get("anyOf") {
                let kept: Vec<Value> = alternatives
                    .iter()
                    .filter(|alternative| alternative.get("type") != Some(&Value::from("null")))
                    .cloned()
                    .collect();
                if kept.len() == 1 {
                    object.remove("anyOf");
                    if let Value::Object(inner) = &kept[0] {
                        for (name, inner_value) in inner {
                            object.insert(name.clone(), inner_value.clone());
                        }
                    }
                }
            }
            object.values_mut().for_each(drop_null_alternatives);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null_alternatives),
        _ => {}
    }
}

/// The schema as committed (a test keeps it equal to what [`generate`] makes): read when a
/// document needs validating, instead of generating it in every run.
const COMMITTED: &str = include_str!("../schemas/hybridgen.schema.json");

/// A spec's document loaded with the items of its `nodes` list typed one by one as they are read,
/// so that a large spec's nodes are never all held as JSON values; `None` for the nodes once one
/// does not type. The list left in the document holds only placeholders.
pub(crate) fn load_typing_nodes(
    source: &SourceFile,
) -> (Result<Document, LoadError>, Option<Vec<Node>>) {
    let mut nodes = Some(Vec::new());
    let document = load::load_taking_nodes(
        source,
        &mut |item| {
            if let Some(typed) = &mut nodes {
                let node = match item {
                    load::NodeItem::Members(members) => strict::type_members::<Node>(members),
                    load::NodeItem::Value(value) => strict::type_strictly::<Node>(value),
                };
                match node {
                    Some(node) => typed.push(node),
                    None => nodes = None,
                }
            }
            Value::Null
        },
        &types_as_spec,
    );
    (document, nodes)
}

/// The document typed as the schema accepts it (consumed), with the `nodes` that
/// [`load_typing_nodes`] typed, or `None` when only the schema can say what is wrong: [`strict`]
/// types as strictly as the schema reads, and the two `minItems` the types cannot say (a spec has
/// nodes, a node has roles) are checked here.
pub(crate) fn typed(mut document: Value, nodes: Vec<Node>) -> Option<Spec> {
    if let Some(list @ Value::Array(_)) = document.get_mut("nodes") {
        *list = Value::Array(Vec::new());
    }
    let mut spec = strict::type_strictly::<Spec>(document)?;
    spec.nodes = nodes;
    has_items(&spec).then_some(spec)
}

/// Whether a whole document (its nodes in it) types as a spec: what a fix offered for a syntax
/// error is checked with.
pub(crate) fn types_as_spec(document: Value) -> bool {
    strict::type_strictly::<Spec>(document).is_some_and(|spec| has_items(&spec))
}

fn has_items(spec: &Spec) -> bool {
    !spec.nodes.is_empty() && spec.nodes.iter().all(|node| !node.roles.is_empty())
}

struct CompiledSchema {
    schema: Value,
    /// The whole document, with the node list cut to its first entry.
    document: Option<jsonschema::Validator>,
    /// One node: the node list is checked entry by entry so that a hostile list of a million
    /// broken nodes stops at the findings cap instead of collecting every error first.
    node: Option<jsonschema::Validator>,
}

/// Compiled once per process, however many files one run checks.
static COMPILED: LazyLock<CompiledSchema> = LazyLock::new(|| {
    let schema: Value = serde_json::from_str(COMMITTED).unwrap_or_default();
    let document = jsonschema::draft7::new(&schema).ok();
    let node_schema = serde_json::json!({
        "$ref": "#/definitions/Node",
        "definitions": schema.get("definitions").cloned().unwrap_or_default(),
    });
    let node = jsonschema::draft7::new(&node_schema).ok();
    CompiledSchema {
        schema,
        document,
        node,
    }
});

/// Every place the document breaks the schema, as HG002 findings (at most `MAX_SCHEMA_FINDINGS`).
pub fn validate(source: &SourceFile, document: &Document) -> Vec<Diagnostic> {
    let compiled = &*COMPILED;
    let (Some(document_validator), Some(node_validator)) = (&compiled.document, &compiled.node)
    else {
        return Vec::new();
    };
    let data = &document.value;
    let nodes = data.get("nodes").and_then(Value::as_array);
    let top = match (data.as_object(), nodes) {
        (Some(members), Some(nodes)) if nodes.len() > 1 => {
            let mut top: Map<String, Value> = members
                .iter()
                .filter(|(name, _)| name.as_str() != "nodes")
                .map(|(name, member)| (name.clone(), member.clone()))
                .collect();
            top.insert("nodes".into(), Value::Array(nodes[..1].to_vec()));
            std::borrow::Cow::Owned(Value::Object(top))
        }
        _ => std::borrow::Cow::Borrowed(data),
    };
    let mut errors = 0;
    let mut found = Vec::new();
    let mut report = |pointer: String, error: &jsonschema::ValidationError| {
        let instance = data.pointer(&pointer).unwrap_or(&Value::Null);
        found.extend(describe(
            &compiled.schema,
            source,
            document,
            &pointer,
            instance,
            error.kind(),
            &error.to_string(),
        ));
    };
    for error in document_validator
        .iter_errors(&top)
        .take(MAX_SCHEMA_FINDINGS + 1)
    {
        report(error.instance_path().as_str().to_string(), &error);
        errors += 1;
    }
    for (index, node) in nodes.into_iter().flatten().enumerate().skip(1) {
        if errors > MAX_SCHEMA_FINDINGS {
            break;
        }
        for error in node_validator
            .iter_errors(node)
            .take(MAX_SCHEMA_FINDINGS + 1 - errors)
        {
            report(
                format!("/nodes/{index}{}", error.instance_path().as_str()),
                &error,
            );
            errors += 1;
        }
    }
    if found.len() > MAX_SCHEMA_FINDINGS {
        found.truncate(MAX_SCHEMA_FINDINGS);
        found.push(
            Diagnostic::new(
                &SCHEMA_VIOLATION,
                value(""),
                format!(
                    "more than {MAX_SCHEMA_FINDINGS} schema violations; the rest are not shown"
                ),
            )
            .label("stopped here")
            .help("fix these first and run again"),
        );
    }
    without_placement_echoes(without_typo_echoes(found))
}

/// Schema findings reported per file: enough to fix a file in one pass, bounded for hostile ones.
const MAX_SCHEMA_FINDINGS: usize = 100;

/// A misspelt required field shows up twice: as an unknown key and as a missing field. The unknown
/// key, with its "did you mean", is the one worth reading.
fn without_typo_echoes(found: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let suggested: Vec<(String, String)> = found
        .iter()
        .filter_map(|diagnostic| {
            let suggestion = diagnostic
                .help
                .as_deref()?
                .strip_prefix("did you mean `")?
                .strip_suffix("`?")?;
            let pointer = diagnostic.primary.location.pointer();
            let parent = &pointer[..pointer.rfind('/')?];
            Some((parent.to_string(), suggestion.to_string()))
        })
        .collect();
    found
        .into_iter()
        .filter(|diagnostic| {
            !suggested.iter().any(|(parent, name)| {
                diagnostic.primary.location.pointer() == parent
                    && diagnostic
                        .message
                        .starts_with(&format!("missing required field `{name}`"))
            })
        })
        .collect()
}

/// A key out of place shows up more than once: as an unknown field (whose help moves it), and as
/// the block it left empty (`must be an object, found nothing`) or the field now missing where it
/// belongs. The unknown field, with the move, is the one worth reading.
fn without_placement_echoes(found: Vec<Diagnostic>) -> Vec<Diagnostic> {
    // A key moved out of the block it was indented into takes the fields after it along: they
    // are unknown there only because it was.
    let beside: Vec<String> = found
        .iter()
        .filter(|diagnostic| {
            diagnostic.help.as_deref().is_some_and(|help| {
                help.contains("to line up with `")
                    || help.contains("at the beginning of its line, like `")
            })
        })
        .filter_map(|diagnostic| {
            let pointer = diagnostic.primary.location.pointer();
            pointer
                .rsplit_once('/')
                .map(|(parent, _)| parent.to_string())
        })
        .collect();
    let found: Vec<Diagnostic> = found
        .into_iter()
        .filter(|diagnostic| {
            let unknown = diagnostic.message.starts_with("unknown field `")
                && diagnostic.help.as_deref().is_some_and(|help| {
                    help.starts_with("remove it") || help.starts_with("move it under")
                });
            let parent = diagnostic.primary.location.pointer().rsplit_once('/');
            !(unknown && parent.is_some_and(|(parent, _)| beside.iter().any(|b| b == parent)))
        })
        .collect();
    let moved: Vec<(String, String)> = found
        .iter()
        .filter_map(|diagnostic| {
            let help = diagnostic.help.as_deref()?;
            let name = help
                .strip_prefix("indent `")
                .or_else(|| help.strip_prefix("start `"))?
                .split(':')
                .next()?;
            let into = help
                .split("to put it inside `")
                .nth(1)
                .and_then(|rest| rest.split(':').next());
            Some((name.to_string(), into.unwrap_or_default().to_string()))
        })
        .collect();
    if moved.is_empty() {
        return found;
    }
    found
        .into_iter()
        .filter(|diagnostic| {
            !moved.iter().any(|(name, into)| {
                let message = &diagnostic.message;
                message.starts_with(&format!("missing required field `{name}`"))
                    || (!into.is_empty()
                        && (message
                            .starts_with(&format!("`{into}` must be an object, found nothing"))
                            || message.starts_with(&format!("`{into}` must be a reference"))))
            })
        })
        .collect()
}

fn describe(
    schema: &Value,
    source: &SourceFile,
    document: &Document,
    pointer: &str,
    instance: &Value,
    kind: &ValidationErrorKind,
    fallback: &str,
) -> Vec<Diagnostic> {
    if let Some(secret) = secret_field_around(pointer) {
        return vec![not_a_secret_reference(secret)];
    }
    let field = field_name(pointer);
    match kind {
        ValidationErrorKind::AdditionalProperties { unexpected } => unexpected
            .iter()
            .map(|name| {
                let member = member(pointer, name);
                let known = known_properties(schema, pointer);
                let diagnostic = Diagnostic::new(
                    &SCHEMA_VIOLATION,
                    key(member),
                    format!("unknown field `{name}`{}", within(pointer)),
                )
                .label("not a field of the spec");
                if let Some((message, help)) = misplaced(schema, source, document, pointer, name) {
                    let mut diagnostic = diagnostic.help(help);
                    diagnostic.message = format!("{}: {message}", diagnostic.message);
                    return diagnostic;
                }
                match (
                    nearest(name, &known),
                    section_holding(schema, pointer, name),
                ) {
                    (Some(suggestion), _) => {
                        diagnostic.help(format!("did you mean `{suggestion}`?"))
                    }
                    (None, Some(section)) => diagnostic.help(format!(
                        "move it under `{section}:`, whose field it is (`{section}.{name}`)"
                    )),
                    (None, None) => diagnostic.help(format!(
                        "remove it; the fields allowed here are {}",
                        quoted_list(&known)
                    )),
                }
            })
            .collect(),
        ValidationErrorKind::Required { property } => {
            let property = property.as_str().unwrap_or_default();
            // At the top level: the document's first key, not every line of it.
            let first_key = pointer
                .is_empty()
                .then(|| document.value.as_object())
                .flatten()
                .and_then(|members| {
                    members
                        .keys()
                        .filter_map(|name| document.spans.key_span(&member("", name)))
                        .min_by_key(|span| span.start)
                });
            let location = if let Some(span) = first_key {
                Location::Bytes(span)
            } else if document.spans.key_span(pointer).is_some() {
                key(pointer)
            } else {
                value(pointer)
            };
            vec![
                Diagnostic::new(
                    &SCHEMA_VIOLATION,
                    location,
                    format!("missing required field `{property}`{}", within(pointer)),
                )
                .label(if pointer.is_empty() {
                    format!("the spec starts here, without `{property}`")
                } else {
                    format!("`{property}` is missing here")
                })
                .help(format!(
                    "add `{property}`{}",
                    match free_node_address(&document.value, pointer, property) {
                        Some(address) => format!(", e.g. `address: {address}`"),
                        None => example_hint(schema, pointer, property),
                    }
                )),
            ]
        }
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(kind) => kind.to_string(),
                TypeKind::Multiple(kinds) => format!("{kinds:?}"),
            };
            if pointer.is_empty() && instance.is_null() {
                return vec![empty_document(source)];
            }
            let written = written_text(source, document, pointer);
            let label = field_label(pointer);
            let found = json_type(instance, &written);
            let diagnostic = Diagnostic::new(
                &SCHEMA_VIOLATION,
                value(pointer),
                format!("`{label}` must be {}, found {found}", article(&expected)),
            )
            .label(format!("expected {expected}"));
            let help = if let Some(release) = instance
                .is_number()
                .then(|| first_release_of_minor(schema, pointer, &written))
                .flatten()
            {
                format!("quote it and name a patch release: `{field}: \"{release}\"`")
            } else if expected == "string" && (instance.is_number() || instance.is_boolean()) {
                format!("quote it so YAML keeps it as written: `{field}: \"{written}\"`")
            } else if expected == "integer" && instance.is_string() {
                format!("remove the quotes: `{field}: {}`", unquote(&written))
            } else if expected == "array" && !(instance.is_array() || instance.is_object()) {
                format!("write it as a list: `{field}: [{written}]`")
            } else if expected == "object" && instance.is_string() {
                mapping_help(schema, pointer, &label, &written)
            } else {
                format!("give `{label}` {} value", article(&expected))
            };
            vec![diagnostic.help(help)]
        }
        ValidationErrorKind::Enum { options } => {
            vec![not_one_of(pointer, instance, &strings(Some(options)))]
        }
        ValidationErrorKind::MinItems { limit } => vec![
            Diagnostic::new(
                &SCHEMA_VIOLATION,
                value(pointer),
                format!(
                    "`{field}` needs at least {limit} entr{}",
                    if *limit == 1 { "y" } else { "ies" }
                ),
            )
            .label("empty")
            .help(format!("add an entry to `{field}`")),
        ],
        ValidationErrorKind::Minimum { limit } | ValidationErrorKind::Maximum { limit } => {
            let bound = if matches!(kind, ValidationErrorKind::Minimum { .. }) {
                "at least"
            } else {
                "at most"
            };
            vec![
                Diagnostic::new(
                    &SCHEMA_VIOLATION,
                    value(pointer),
                    format!("`{field}` is {instance}, but it must be {bound} {limit}"),
                )
                .label("out of range")
                .help(format!("set `{field}` to a value {bound} {limit}")),
            ]
        }
        _ if !documented_values(schema, pointer).is_empty() => {
            vec![not_one_of(
                pointer,
                instance,
                &documented_values(schema, pointer),
            )]
        }
        _ => vec![
            Diagnostic::new(&SCHEMA_VIOLATION, value(pointer), fallback.to_string())
                .label("does not match the schema")
                .help("see `hybridgen schema` for the allowed form of this field"),
        ],
    }
}

/// A value that is not one of those allowed, with the nearest as a suggestion.
fn not_one_of(pointer: &str, instance: &Value, allowed: &[String]) -> Diagnostic {
    let shown = instance
        .as_str()
        .map_or_else(|| instance.to_string(), String::from);
    let help = match nearest(&shown, allowed) {
        Some(suggestion) => format!("did you mean `{suggestion}`?"),
        None => format!("use one of {}", quoted_list(allowed)),
    };
    let what = match pointer.rsplit_once('/') {
        Some((parent, last)) if last.parse::<usize>().is_ok() => {
            format!("entry of `{}`", field_name(parent))
        }
        _ => format!("`{}`", field_name(pointer)),
    };
    Diagnostic::new(
        &SCHEMA_VIOLATION,
        value(pointer),
        format!("`{shown}` is not a valid {what}"),
    )
    .label(format!("expected one of {}", quoted_list(allowed)))
    .help(help)
}

/// The values of a documented enum (a `oneOf` of string constants, one description each).
fn documented_values(schema: &Value, pointer: &str) -> Vec<String> {
    let members = subschema_at(schema, pointer)
        .and_then(|object| object.get("oneOf"))
        .and_then(Value::as_array);
    // Any member without a string constant makes it no such enum.
    members
        .into_iter()
        .flatten()
        .map(|member| member.get("const")?.as_str().map(String::from))
        .collect::<Option<Vec<String>>>()
        .unwrap_or_default()
}

/// An empty file (or one of comments only): nothing to check, and the way to a starter.
fn empty_document(source: &SourceFile) -> Diagnostic {
    let name = source.name();
    Diagnostic::new(
        &SCHEMA_VIOLATION,
        value(""),
        "the file holds no spec: it is empty, or comments only",
    )
    .label("empty")
    .help(format!(
        "write the spec here, starting with `apiVersion: hybridgen/v1` and `kind: Cluster`; for a commented starter, remove the file and run `hybridgen init {name}`"
    ))
}

/// How to write a list entry given as a word where a mapping belongs (`- win-0` for a node).
fn mapping_help(schema: &Value, pointer: &str, label: &str, written: &str) -> String {
    let required = strings(subschema_at(schema, pointer).and_then(|object| object.get("required")));
    // A word that is the value of one of its fields (`cloud: aws` for `cloud: {provider: aws}`).
    let word = unquote(written);
    let holder = known_properties(schema, pointer).into_iter().find(|field| {
        subschema_at(schema, &format!("{pointer}/{field}"))
            .and_then(|object| object.get("enum"))
            .and_then(Value::as_array)
            .is_some_and(|values| values.iter().any(|value| value.as_str() == Some(word)))
    });
    if let Some(field) = holder {
        return format!("write `{label}: {{{field}: {word}}}`");
    }
    match required.split_first() {
        Some((first, rest)) if !rest.is_empty() => format!(
            "write `{label}` as a mapping with {}: `{first}: {}` and the others on the lines below it",
            quoted_list(&required),
            unquote(written)
        ),
        _ => format!("give `{label}` an object value"),
    }
}

/// A field as messages name it: `version`, or `nodes[1]` for an entry of a list.
fn field_label(pointer: &str) -> String {
    match pointer.rsplit_once('/') {
        Some((parent, last)) if last.parse::<usize>().is_ok() => {
            format!("{}[{last}]", field_name(parent))
        }
        _ => field_name(pointer).to_string(),
    }
}

/// The secret field at or above a pointer: whatever is wrong there, no message may quote the
/// value, so every schema violation inside one gets the same words.
fn secret_field_around(pointer: &str) -> Option<&'static SecretField> {
    SECRET_FIELDS.iter().find(|field| {
        pointer
            .strip_prefix(field.pointer)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

fn not_a_secret_reference(secret: &SecretField) -> Diagnostic {
    let (key, variable) = (secret.key, secret.default_variable);
    Diagnostic::new(
        &SCHEMA_VIOLATION,
        value(secret.pointer),
        format!("`{key}` must be a reference `{{fromEnv: NAME}}` (the value written is not shown)"),
    )
    .label("not a secret reference")
    .help(format!("write `{key}: {{fromEnv: {variable}}}`"))
}

/// The last reference token of a pointer, or `spec` for the document itself.
fn field_name(pointer: &str) -> &str {
    match pointer.rsplit('/').next() {
        Some(last) if !pointer.is_empty() => last,
        _ => "spec",
    }
}

fn within(pointer: &str) -> String {
    if pointer.is_empty() {
        String::new()
    } else {
        format!(" in `{pointer}`")
    }
}

fn article(kind: &str) -> String {
    match kind {
        "integer" | "object" | "array" => format!("an {kind}"),
        "null" => kind.to_string(),
        _ => format!("a {kind}"),
    }
}

/// The value's type and the value as written (`1.30`, not the parsed `1.3`).
fn json_type(instance: &Value, written: &str) -> String {
    match instance {
        Value::Null => "nothing (null)".into(),
        Value::Bool(flag) => format!("the boolean `{flag}`"),
        Value::Number(number) if written.is_empty() => format!("the number `{number}`"),
        Value::Number(_) => format!("the number `{written}`"),
        Value::String(text) => format!("the string `{text}`"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "a mapping".into(),
    }
}

/// The value exactly as written in the file (`1.20`, not the parsed `1.2`).
fn written_text(source: &SourceFile, document: &Document, pointer: &str) -> String {
    document
        .spans
        .value_span(pointer)
        .and_then(|span| source.text().get(span))
        .unwrap_or_default()
        .to_string()
}

/// `MAJOR.MINOR` written as a number where the schema's example is a `MAJOR.MINOR.PATCH` release
/// (`version: 1.30`): quoted alone it is still no release (HG009), so the help names the minor's
/// first release, `1.30.0`, which every released minor has (with a `v` where the example has one).
fn first_release_of_minor(schema: &Value, pointer: &str, written: &str) -> Option<String> {
    let numbers = |text: &str, parts: usize| {
        let numbers: Vec<&str> = text.split('.').collect();
        numbers.len() == parts
            && numbers
                .iter()
                .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
    };
    let example = subschema_at(schema, pointer)?
        .get("examples")?
        .get(0)?
        .as_str()?;
    let prefix = if example.starts_with('v') { "v" } else { "" };
    (numbers(example.trim_start_matches('v'), 3) && numbers(written, 2))
        .then(|| format!("{prefix}{written}.0"))
}

/// The strings of a JSON array (none for anything else).
fn strings(array: Option<&Value>) -> Vec<String> {
    array
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|item| item.as_str().map(String::from))
        .collect()
}

fn unquote(text: &str) -> &str {
    text.trim_matches(|c| c == '"' || c == '\'')
}

fn quoted_list(names: &[String]) -> String {
    names
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn example_hint(schema: &Value, pointer: &str, property: &str) -> String {
    subschema_at(schema, pointer)
        .and_then(|object| object.get("properties"))
        .and_then(|properties| properties.get(property))
        .map(|property_schema| resolve(schema, property_schema))
        .and_then(|property_schema| property_schema.get("examples"))
        .and_then(|examples| examples.get(0))
        .map(|example| match example {
            Value::String(text) => format!(", e.g. `{property}: {text}`"),
            other => format!(", e.g. `{property}: {other}`"),
        })
        .unwrap_or_default()
}

/// For a node without `address`: the first address after the other nodes' that no node holds and
/// that is a host of a written `hostSubnets` range (or of the other nodes' /24), so that the help,
/// applied as written, never gives two nodes one address (HG008).
fn free_node_address(root: &Value, pointer: &str, property: &str) -> Option<std::net::Ipv4Addr> {
    let is_node = pointer
        .strip_prefix("/nodes/")
        .is_some_and(|index| index.bytes().all(|b| b.is_ascii_digit()));
    if property != "address" || !is_node {
        return None;
    }
    let used: Vec<std::net::Ipv4Addr> = root
        .get("nodes")?
        .as_array()?
        .iter()
        .filter_map(|node| node.get("address")?.as_str()?.parse().ok())
        .collect();
    let highest = *used.iter().max()?;
    let written: Vec<ipnet::Ipv4Net> = root
        .pointer("/network/hostSubnets")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|subnet| subnet.as_str()?.parse().ok())
        .collect();
    let ranges = if written.is_empty() {
        vec![ipnet::Ipv4Net::new(highest, 24).ok()?.trunc()]
    } else {
        written
    };
    let is_host = |address: &std::net::Ipv4Addr| {
        ranges.iter().any(|range| {
            range.contains(address)
                && (range.prefix_len() >= 31
                    || (*address != range.network() && *address != range.broadcast()))
        })
    };
    (u32::from(highest)..u32::MAX)
        .skip(1)
        .take(1 << 16)
        .map(std::net::Ipv4Addr::from)
        .find(|address| !used.contains(address) && is_host(address))
        .or_else(|| {
            ranges
                .iter()
                .flat_map(ipnet::Ipv4Net::hosts)
                .take(1 << 16)
                .find(|address| !used.contains(address))
        })
}

/// The property names the schema allows at an object location.
/// The one top-level section other than the one at `pointer` that has a field `name` (`vni`
/// written under `network` is `flannel`'s).
fn section_holding(schema: &Value, pointer: &str, name: &str) -> Option<String> {
    let own = pointer.split('/').nth(1).unwrap_or_default();
    let mut sections = known_properties(schema, "").into_iter().filter(|section| {
        section != own
            && known_properties(schema, &format!("/{section}"))
                .iter()
                .any(|field| field == name)
    });
    match (sections.next(), sections.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

/// The help for a field that is unknown where it stands but known one block in or out: a key
/// indented as far as the block above it (which it belongs inside), or as far as the fields of
/// the block it follows (which it belongs beside). The help moves its line to the column of that
/// block's fields, where it loads as the field it is.
fn misplaced(
    schema: &Value,
    source: &SourceFile,
    document: &Document,
    pointer: &str,
    name: &str,
) -> Option<(String, String)> {
    let spans = &document.spans;
    let at = spans.key_span(&member(pointer, name))?;
    let column = |span: &std::ops::Range<usize>| source.position(span.start).column - 1;
    let line_of = |span: &std::ops::Range<usize>| source.position(span.start).line;
    // The field before it in the file, at the same level: the block it may belong inside.
    let members = document.value.pointer(pointer)?.as_object()?;
    let before = members
        .keys()
        .filter_map(|other| {
            let path = member(pointer, other);
            spans
                .key_span(&path)
                .filter(|span| span.start < at.start)
                .map(|span| (span, path, other))
        })
        .max_by_key(|(span, ..)| span.start);
    if let Some((span, path, other)) = before {
        let inside = document.value.pointer(&path)?;
        // A secret's `{fromEnv: NAME}` is a field of the secret's key too.
        let reference = name == "fromEnv" && inside.is_null() && SecretField::is_secret_key(other);
        if (inside.is_object() || inside.is_null())
            && (reference
                || known_properties(schema, &path)
                    .iter()
                    .any(|known| known == name))
        {
            // The column of its fields, or two spaces in from it.
            let spaces = inside
                .as_object()
                .and_then(|fields| {
                    fields
                        .keys()
                        .filter_map(|field| spans.key_span(&member(&path, field)))
                        .map(|span| column(&span))
                        .min()
                })
                .unwrap_or(column(&span) + 2);
            return Some((
                format!("it is indented as far as `{other}`, whose field it is"),
                format!(
                    "indent `{name}:` by {spaces} spaces, to put it inside `{other}:` on line {}",
                    line_of(&span)
                ),
            ));
        }
    }
    // Indented into the block of a field it belongs beside.
    let (parent, _) = pointer.rsplit_once('/')?;
    let holder = spans.key_span(pointer)?;
    let parent_value = document.value.pointer(parent)?.as_object()?;
    (known_properties(schema, parent).iter().any(|known| known == name)
        && !parent_value.contains_key(name))
    .then(|| {
        let holder_name = field_name(pointer);
        let (spaces, line) = (column(&holder), line_of(&holder));
        (
            format!("it is indented as far as the fields of `{holder_name}`, but it is a field beside it"),
            load::line_up(name, spaces, holder_name, Some(line)),
        )
    })
}

/// The pointer to the member `name` of the object at `pointer`.
fn member(pointer: &str, name: &str) -> String {
    format!("{pointer}/{}", escape_pointer_token(name))
}

fn known_properties(schema: &Value, pointer: &str) -> Vec<String> {
    subschema_at(schema, pointer)
        .and_then(|object| object.get("properties"))
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// Follows an instance pointer through the schema's `properties`, `items` and `$ref`s.
fn subschema_at<'a>(schema: &'a Value, pointer: &str) -> Option<&'a Map<String, Value>> {
    let mut current = resolve(schema, schema);
    for token in pointer.split('/').skip(1) {
        current = if let Some(items) = current.get("items") {
            resolve(schema, items)
        } else {
            let property = current.get("properties")?.get(token)?;
            resolve(schema, property)
        };
    }
    current.as_object()
}

fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => reference
            .strip_prefix('#')
            .and_then(|path| root.pointer(path))
            .unwrap_or(schema),
        None => schema,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_read_like_words() {
        assert_eq!(title_of("dnsServiceIp"), "DNS service IP");
        assert_eq!(title_of("clusterCidr"), "Cluster CIDR");
        assert_eq!(title_of("nodes"), "Nodes");
    }

    #[test]
    fn optional_fields_do_not_accept_null() {
        let schema = generate();
        let text = serde_json::to_string(&schema).unwrap();
        assert!(
            !text.contains("\"null\""),
            "the schema still allows null somewhere"
        );
    }
}
