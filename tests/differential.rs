//! A spec checked as `hybridgen` checks it (typed first, the JSON Schema only when typing fails)
//! against the same spec always validated against the JSON Schema, on every spec of the repository
//! (the rule and render fixtures, the examples and starters, which also seed the fuzzer), on
//! generated specs, and on hostile shapes: the same findings, spans, plan, reports in every format
//! and rendered files, byte for byte. This is what lets a valid spec skip compiling the schema.

#[path = "support/repository_yaml.rs"]
mod repository_yaml;
#[path = "../benches/support/spec_gen.rs"]
mod spec_gen;

use hybridgen::pipeline::{self, Checked};
use hybridgen::render;
use hybridgen::report::{github, human, json, sarif};

/// Generated specs, and shapes that do not type at a node, at the end, or in the middle of the
/// file.
fn generated_specs() -> Vec<(String, String)> {
    let large = spec_gen::spec(2000);
    let mut specs = vec![
        ("generated-2000".to_string(), large.clone()),
        (
            "findings-2000".to_string(),
            spec_gen::spec_with_findings(2000),
        ),
    ];
    let middle = large.len() / 2;
    let line = middle + large[middle..].find("\n  - name: ").unwrap() + 1;
    for (name, replacement) in [
        ("null-in-a-node", "  - name:\n"),
        ("list-as-a-node", "  - [a, b]\n  - name: "),
        ("empty-roles", "  - roles: []\n    name: "),
        ("unknown-field", "  - colour: blue\n    name: "),
    ] {
        let mut text = large.clone();
        text.replace_range(line..line + "  - name: ".len(), replacement);
        specs.push((name.to_string(), text));
    }
    // A small spec keeps the debug-build test quick.
    let small = spec_gen::spec(60);
    let (head, nodes) = small.split_once("nodes:\n").unwrap();
    specs.push(("nodes-first".into(), format!("nodes:\n{nodes}{head}")));
    specs.push(("empty-nodes".into(), format!("{head}nodes: []\n")));
    specs.push((
        "null-field".into(),
        small.replace("  vni: 4096\n", "  vni:\n"),
    ));
    specs.push((
        "wrong-api-version".into(),
        small.replace("hybridgen/v1", "hybridgen/v2"),
    ));
    specs.push((
        "secret-inline".into(),
        small.replace("{fromEnv: KUBEADM_TOKEN}", "abcdef.0123456789abcdef"),
    ));
    specs.push((
        "many-empty-nodes".into(),
        format!("{head}nodes:\n{}", "  - {}\n".repeat(5_000)),
    ));
    specs
}

/// The file's text with every secret masked, as a report would show any line of it.
fn masked_text(checked: &Checked) -> String {
    let whole = std::iter::once(0..checked.file.source.text().len()).collect::<Vec<_>>();
    checked.report(&[]).shown_text(&whole)
}

/// Everything a run shows or writes, as text.
fn outputs(checked: &Checked) -> Vec<String> {
    let reports = [checked.report(&checked.diagnostics)];
    let style = human::Style {
        color: false,
        width: 100,
        show_plan: true,
    };
    let mut outputs = vec![
        format!("{:?}", checked.diagnostics),
        serde_json::to_string(&checked.spec).unwrap(),
        format!("{:?}", checked.plan),
        checked.artifact_paths().join("\n"),
        masked_text(checked),
        human::render(&reports, style),
        json::render(&reports),
        sarif::render(&reports),
        github::render(&reports),
    ];
    if let (Some(spec), Some(plan)) = (&checked.spec, &checked.plan) {
        let input = render::Input { spec, plan };
        outputs.push(format!("{:?}", render::render_all(&input)));
    }
    outputs
}

/// The span of every value and key the document has.
fn every_span(checked: &Checked) -> Vec<String> {
    let Some(spans) = &checked.file.spans else {
        return Vec::new();
    };
    let Ok(document) = hybridgen::load::load(&checked.file.source) else {
        return Vec::new();
    };
    hybridgen::load::every_pointer(&document.value)
        .into_iter()
        .map(|pointer| {
            let value = spans.value_span(&pointer);
            let key = spans.key_span(&pointer);
            format!("{pointer} {value:?} {key:?}")
        })
        .collect()
}

fn assert_same(name: &str, text: &str) {
    let typed_first = pipeline::check(name, text.as_bytes().to_vec());
    let with_schema = pipeline::check_with_schema(name, text.as_bytes().to_vec());
    let (typed_outputs, schema_outputs) = (outputs(&typed_first), outputs(&with_schema));
    for (index, (ours, theirs)) in typed_outputs.iter().zip(&schema_outputs).enumerate() {
        assert!(
            ours == theirs,
            "{name}: output {index} differs\n{ours}\n----\n{theirs}"
        );
    }
    assert_eq!(typed_outputs.len(), schema_outputs.len(), "{name}");
    assert!(
        every_span(&typed_first) == every_span(&with_schema),
        "{name}: spans differ"
    );
}

#[test]
fn every_repository_spec_checks_the_same_both_ways() {
    let specs = repository_yaml::repository_yaml();
    assert!(specs.len() > 330, "{} specs", specs.len());
    for (name, text) in &specs {
        assert_same(name, text);
    }
}

#[test]
fn generated_and_hostile_specs_check_the_same_both_ways() {
    for (name, text) in generated_specs() {
        assert_same(&name, &text);
    }
}
