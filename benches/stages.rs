//! Each pipeline stage in memory, at 3, 100, 5,000 and 65,536 nodes: load (YAML + span index),
//! schema validation, the typed spec, plan, rules and render; then `check` (all that `plan` does
//! before printing) and `check` + render (what `render` does before writing); and the human and
//! SARIF reports of a spec with an error on every eighth node.
//!
//! Run with `cargo bench --bench stages`; BENCHMARKS.md has the method and the numbers.

#[path = "support/spec_gen.rs"]
mod spec_gen;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use hybridgen::load::{self, Document};
use hybridgen::plan::Plan;
use hybridgen::render::{self, Input};
use hybridgen::report::{self, FileReport, human};
use hybridgen::source::SourceFile;
use hybridgen::spec::Spec;
use hybridgen::{pipeline, rules, schema};
use serde::Deserialize;
use std::hint::black_box;

/// A tiny cluster, a typical one, Kubernetes' supported maximum, and every /24 of a /8.
const SIZES: [usize; 4] = [3, 100, 5_000, 65_536];

/// One generated spec, loaded up to each stage's input.
struct Prepared {
    text: String,
    source: SourceFile,
    document: Document,
    spec: Spec,
    plan: Plan,
}

fn prepare(nodes: usize) -> Prepared {
    let text = spec_gen::spec(nodes);
    let (source, decoded) = load::decode("spec.yaml", text.clone().into_bytes());
    decoded.expect("the generated spec is UTF-8");
    let document = load::load(&source).expect("the generated spec is YAML");
    assert!(schema::validate(&source, &document).is_empty());
    let spec = Spec::deserialize(&document.value).expect("the generated spec is typed");
    let plan = Plan::build(&spec);
    Prepared {
        text,
        source,
        document,
        spec,
        plan,
    }
}

fn stages(c: &mut Criterion) {
    let prepared: Vec<(usize, Prepared)> = SIZES.iter().map(|&n| (n, prepare(n))).collect();
    let mut bench = |name: &str, run: &dyn Fn(&Prepared)| {
        let mut group = c.benchmark_group(name);
        // Flat sampling: at 65,536 nodes one iteration is long enough on its own.
        group.sampling_mode(SamplingMode::Flat).sample_size(10);
        for (nodes, input) in &prepared {
            group.throughput(Throughput::Elements(*nodes as u64));
            group.bench_with_input(BenchmarkId::from_parameter(nodes), input, |b, input| {
                b.iter(|| run(black_box(input)))
            });
        }
        group.finish();
    };
    bench("load", &|p| drop(black_box(load::load(&p.source))));
    bench("schema", &|p| {
        drop(black_box(schema::validate(&p.source, &p.document)))
    });
    bench("spec", &|p| {
        drop(black_box(Spec::deserialize(&p.document.value)))
    });
    bench("plan", &|p| drop(black_box(Plan::build(&p.spec))));
    bench("rules", &|p| drop(black_box(rules::run(&p.spec, &p.plan))));
    let render = |p: &Prepared| {
        let input = Input {
            spec: &p.spec,
            plan: &p.plan,
        };
        drop(black_box(render::render_all(&input)));
    };
    bench("render", &render);
    bench("check", &|p| {
        drop(black_box(pipeline::check(
            "spec.yaml",
            p.text.clone().into_bytes(),
        )))
    });
    bench("check+render", &|p| {
        let checked = pipeline::check("spec.yaml", p.text.clone().into_bytes());
        if let (Some(spec), Some(plan)) = (&checked.spec, &checked.plan) {
            let input = Input { spec, plan };
            drop(black_box(render::render_all(&input)));
        }
    });
}

/// The human and SARIF reports of a spec with an error on every eighth node (none at 3 nodes).
fn reports(c: &mut Criterion) {
    let with_findings: Vec<(usize, pipeline::Checked)> = SIZES
        .iter()
        .map(|&n| {
            (
                n,
                pipeline::check("spec.yaml", spec_gen::spec_with_findings(n).into_bytes()),
            )
        })
        .collect();
    let mut report_bench = |name: &str, run: &dyn Fn(&[FileReport]) -> String| {
        let mut group = c.benchmark_group(name);
        group.sampling_mode(SamplingMode::Flat).sample_size(10);
        for (nodes, checked) in &with_findings {
            let reports = [checked.report(&checked.diagnostics)];
            group.throughput(Throughput::Elements(*nodes as u64));
            group.bench_function(BenchmarkId::from_parameter(nodes), |b| {
                b.iter(|| black_box(run(&reports)))
            });
        }
        group.finish();
    };
    let style = human::Style {
        color: false,
        width: 100,
        show_plan: false,
    };
    report_bench("report-human", &|reports| human::render(reports, style));
    report_bench("report-sarif", &|reports| report::sarif::render(reports));
}

criterion_group!(benches, stages, reports);
criterion_main!(benches);
