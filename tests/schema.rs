//! The committed schema is what the spec model generates. To update it after changing `src/spec`:
//! `HYBRIDGEN_UPDATE_SCHEMA=1 cargo test --test schema`.

use serde_json::Value;
use std::path::Path;

#[test]
fn committed_schema_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/hybridgen.schema.json");
    let generated = hybridgen::schema::generate_text();
    if std::env::var_os("HYBRIDGEN_UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "schemas/hybridgen.schema.json is stale; run `HYBRIDGEN_UPDATE_SCHEMA=1 cargo test --test schema` and review the diff"
    );
}

/// Every field of the schema: its name, its own schema, and what that refers to (`$ref` resolved).
fn fields(schema: &Value) -> Vec<(String, Value, Value)> {
    let definitions = schema["definitions"].as_object().unwrap();
    std::iter::once(schema)
        .chain(definitions.values())
        .flat_map(|object| object["properties"].as_object().into_iter().flatten())
        .map(|(name, property)| {
            let target = match property.get("$ref").and_then(Value::as_str) {
                Some(reference) => definitions[reference.rsplit('/').next().unwrap()].clone(),
                None => property.clone(),
            };
            (name.clone(), property.clone(), target)
        })
        .collect()
}

#[test]
fn every_schema_field_has_a_title_and_a_description() {
    for (name, property, target) in fields(&hybridgen::schema::generate()) {
        let described =
            property.get("description").is_some() || target.get("description").is_some();
        assert!(described, "field `{name}` has no description");
        assert!(
            property.get("title").is_some(),
            "field `{name}` has no title"
        );
    }
}

#[test]
fn every_leaf_field_has_an_example() {
    for (name, property, target) in fields(&hybridgen::schema::generate()) {
        let is_section = target.get("properties").is_some()
            || target["items"]
                .get("$ref")
                .is_some_and(|r| r.as_str().unwrap().ends_with("/Node"));
        if !is_section {
            assert!(
                property.get("examples").is_some(),
                "field `{name}` has no example"
            );
        }
    }
}

/// `oneOf` whose every member is one string constant (schemars' form of a documented enum).
fn is_enum_of_consts(members: &Value) -> bool {
    members.as_array().is_some_and(|members| {
        members.iter().all(|member| {
            member.get("const").is_some_and(Value::is_string)
                && member.as_object().is_some_and(|keys| {
                    keys.keys()
                        .all(|key| ["const", "description", "type"].contains(&key.as_str()))
                })
        })
    })
}

/// Every validating keyword of the schema, with where it stands.
fn keywords(schema: &Value, at: &str, found: &mut Vec<String>) {
    match schema {
        Value::Object(members) => {
            for (name, member) in members {
                match name.as_str() {
                    "$schema" | "title" | "description" | "examples" | "default" => {}
                    // A unit enum with a description per value: exactly what serde's typing of
                    // the enum accepts, so an `enum` in all but name.
                    "oneOf" if is_enum_of_consts(member) => found.push(format!("{at} enum")),
                    // Maps of names to schemas.
                    "definitions" | "properties" => {
                        for (child, schema) in member.as_object().into_iter().flatten() {
                            keywords(schema, &format!("{at}/{name}/{child}"), found);
                        }
                    }
                    _ => {
                        found.push(format!("{at} {name}"));
                        keywords(member, &format!("{at}/{name}"), found);
                    }
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                keywords(item, &format!("{at}/{index}"), found);
            }
        }
        _ => {}
    }
}

/// A valid spec is checked without the schema (`src/schema/strict.rs`): strict typing enforces
/// `type`, `required`, `additionalProperties: false`, `enum`, `anyOf` (the secret reference), `allOf`
/// (a `$ref`), the integer ranges (`minimum`, `maximum`, `format`), and the caller checks the two `minItems`. A
/// keyword the schema gains beyond these must be enforced there too before this list grows.
#[test]
fn the_schema_checks_nothing_strict_typing_misses() {
    let mut found = Vec::new();
    keywords(&hybridgen::schema::generate(), "", &mut found);
    let typed = [
        "type",
        "required",
        "additionalProperties",
        "enum",
        "anyOf",
        "allOf",
        "$ref",
        "items",
        "format",
        "minimum",
        "maximum",
    ];
    let rest: Vec<&String> = found
        .iter()
        .filter(|entry| {
            !typed
                .iter()
                .any(|keyword| entry.ends_with(&format!(" {keyword}")))
        })
        .collect();
    assert_eq!(
        rest,
        [
            "/definitions/Node/properties/roles minItems",
            "/properties/nodes minItems",
        ]
    );
    // The ranges are those of the fields' integer types.
    let ranges: Vec<&String> = found
        .iter()
        .filter(|entry| entry.ends_with(" maximum") || entry.ends_with(" minimum"))
        .collect();
    assert!(ranges.len() >= 6, "{ranges:?}");
}
