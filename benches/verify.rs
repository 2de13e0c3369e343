//! `hybridgen verify` at 3, 100 and 5,000 nodes (Kubernetes' largest supported cluster): reading
//! the captures (JSON → objects), reading the objects into the live cluster and comparing it with
//! the plan, the two together, and the whole process on the files. The captures are generated
//! from the plan as a healthy cluster shows it, and the setup asserts that verify finds nothing
//! in them, so the benchmark measures the work of a clean run.
//!
//! Run with `cargo bench --bench verify`; BENCHMARKS.md has the numbers.

#[path = "support/capture_gen.rs"]
mod capture_gen;
// Shared with the stage benchmarks, whose generator of specs with findings this one does not use.
#[allow(dead_code)]
#[path = "support/spec_gen.rs"]
mod spec_gen;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use hybridgen::pipeline::{self, Checked};
use hybridgen::verify::{self, capture};
use std::hint::black_box;
use std::path::PathBuf;
use std::process::Command;

const SIZES: [usize; 3] = [3, 100, 5_000];

struct Prepared {
    nodes: usize,
    checked: Checked,
    files: Vec<(String, Vec<u8>)>,
    /// The spec and the capture directory, for the process.
    spec_path: PathBuf,
    capture_dir: PathBuf,
}

fn prepare(nodes: usize) -> Prepared {
    let text = spec_gen::spec(nodes);
    let checked = pipeline::check("spec.yaml", text.clone().into_bytes());
    let plan = checked.plan.as_ref().expect("the generated spec plans");
    let files = capture_gen::capture(plan);
    let dir = std::env::temp_dir().join(format!(
        "hybridgen-verify-bench-{}-{nodes}",
        std::process::id()
    ));
    let capture_dir = dir.join("capture");
    std::fs::create_dir_all(&capture_dir).unwrap();
    let spec_path = dir.join("spec.yaml");
    std::fs::write(&spec_path, &text).unwrap();
    for (name, bytes) in &files {
        std::fs::write(capture_dir.join(name), bytes).unwrap();
    }
    let prepared = Prepared {
        nodes,
        checked,
        files,
        spec_path,
        capture_dir,
    };
    let (captured, comparison) = verify_in_memory(&prepared);
    assert!(
        captured
            .files
            .iter()
            .all(|file| file.diagnostics.is_empty())
    );
    assert_eq!(
        captured.objects.iter().filter(|o| o.kind == "Node").count(),
        nodes
    );
    let found: Vec<&str> = comparison.diagnostics.iter().map(|d| d.code()).collect();
    assert!(
        found.is_empty(),
        "a healthy capture of {nodes} nodes gives {found:?}"
    );
    prepared
}

fn read_captures(p: &Prepared) -> capture::Captured {
    let plan = p.checked.plan.as_ref().unwrap();
    let inputs = p
        .files
        .iter()
        .map(|(name, bytes)| capture::Input {
            name: name.clone(),
            bytes: bytes.clone(),
        })
        .collect();
    capture::read(inputs, &verify::kubectl::captures(plan))
}

fn compare(p: &Prepared, captured: &capture::Captured) -> verify::Comparison {
    let (spec, plan) = (
        p.checked.spec.as_ref().unwrap(),
        p.checked.plan.as_ref().unwrap(),
    );
    // The stage after reading the captures: the live model, the matching and the comparison.
    let cluster = hybridgen::live::cluster::read(&captured.objects, plan, None);
    let matching = hybridgen::live::match_nodes(plan, &cluster);
    let observed = verify::Observed {
        captured: capture::Captured::default(),
        cluster,
        matching,
    };
    verify::compare(spec, plan, &observed)
}

fn verify_in_memory(p: &Prepared) -> (capture::Captured, verify::Comparison) {
    let captured = read_captures(p);
    let comparison = compare(p, &captured);
    (captured, comparison)
}

fn benches(c: &mut Criterion) {
    let prepared: Vec<Prepared> = SIZES.iter().map(|&n| prepare(n)).collect();
    let mut bench = |name: &str, run: &dyn Fn(&Prepared)| {
        let mut group = c.benchmark_group(name);
        group.sampling_mode(SamplingMode::Flat).sample_size(10);
        for p in &prepared {
            group.throughput(Throughput::Elements(p.nodes as u64));
            group.bench_with_input(BenchmarkId::from_parameter(p.nodes), p, |b, p| {
                b.iter(|| run(black_box(p)))
            });
        }
        group.finish();
    };
    bench("verify-read-captures", &|p| {
        drop(black_box(read_captures(p)))
    });
    let captured: Vec<capture::Captured> = prepared.iter().map(read_captures).collect();
    bench("verify-compare", &|p| {
        let index = prepared.iter().position(|q| q.nodes == p.nodes).unwrap();
        drop(black_box(compare(p, &captured[index])))
    });
    bench("verify", &|p| drop(black_box(verify_in_memory(p))));
    bench("verify-process", &|p| {
        let status = Command::new(env!("CARGO_BIN_EXE_hybridgen"))
            .args(["verify", "--quiet"])
            .arg(&p.spec_path)
            .arg("--cluster")
            .arg(&p.capture_dir)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(0));
    });
    for p in &prepared {
        let _ = std::fs::remove_dir_all(p.spec_path.parent().unwrap());
    }
}

criterion_group!(verify_benches, benches);
criterion_main!(verify_benches);
