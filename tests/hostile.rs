//! Hostile input: each case gives a diagnostic (or a clean pass) with exit 0 or 1, never a crash
//! (101) or a hang, within generous bounds of time and peak memory measured on the real binary.
//! Bounds are generous because tests run the debug build on a shared machine; the README gives the
//! release numbers.
#![allow(
    clippy::print_stdout,
    reason = "each case's figures, shown with `--nocapture`"
)]

#[cfg(target_os = "linux")]
#[path = "support/watched.rs"]
mod watched;

use std::io::Write;
use std::time::Duration;

const TIME_LIMIT: Duration = Duration::from_secs(10);
const MEMORY_LIMIT_KB: i64 = 100 * 1024;

/// Runs `hybridgen plan --format json FILE`, killing it after the time limit.
#[cfg(target_os = "linux")]
fn plan(file: &std::path::Path) -> watched::Watched {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hybridgen"));
    command
        .args(["plan", "--quiet", "--format", "json"])
        .arg(file);
    watched::run(command, TIME_LIMIT * 3)
}

/// Streams a case to a file, so that the test process never holds it: the child's peak memory
/// (`ru_maxrss`) includes the parent's, as the child starts in the parent's address space.
fn write(name: &str, fill: impl FnOnce(&mut dyn Write)) -> std::path::PathBuf {
    let path =
        std::env::temp_dir().join(format!("hybridgen-hostile-{}-{name}", std::process::id()));
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    fill(&mut file);
    file.flush().unwrap();
    path
}

const SPEC: &str = "apiVersion: hybridgen/v1\nkind: Cluster\nmetadata:\n  name: hostile\nkubernetes:\n  version: \"1.16.2\"\nnetwork:\n  clusterCidr: 10.244.0.0/16\n  serviceCidr: 10.96.0.0/12\nflannel:\n  backend: vxlan\nnodes:\n  - name: control-0\n    os: linux\n    roles: [controlplane, etcd, worker]\n    address: 192.168.10.10\n";

/// Pseudo-random bytes from a fixed seed, so the case is the same on every run.
fn garbage(out: &mut dyn Write, len: usize) {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let bytes: Vec<u8> = (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    out.write_all(&bytes).unwrap();
}

fn repeat(out: &mut dyn Write, head: &str, item: &str, times: usize, tail: &str) {
    out.write_all(head.as_bytes()).unwrap();
    for _ in 0..times {
        out.write_all(item.as_bytes()).unwrap();
    }
    out.write_all(tail.as_bytes()).unwrap();
}

type Fill = Box<dyn FnOnce(&mut dyn Write)>;

fn text(content: String) -> Fill {
    Box::new(move |out| out.write_all(content.as_bytes()).unwrap())
}

fn cases() -> Vec<(&'static str, Fill, i32, &'static str)> {
    let laughs = "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n";
    vec![
        ("billion-laughs", text(laughs.to_string()), 1, "HG001"),
        (
            "deep-nesting",
            Box::new(|out| repeat(out, "", "[", 100_000, "")),
            1,
            "HG001",
        ),
        (
            "100-mib",
            Box::new(|out| repeat(out, "", &"#".repeat(1 << 20), 100, "\na: 1\n")),
            1,
            "HG001",
        ),
        (
            "binary-garbage",
            Box::new(|out| garbage(out, 1 << 20)),
            1,
            "HG001",
        ),
        (
            "non-utf8",
            Box::new(|out| {
                out.write_all(SPEC.as_bytes()).unwrap();
                out.write_all(b"# \xff\xfe\n").unwrap();
            }),
            1,
            "HG001",
        ),
        ("utf8-bom", text(format!("\u{feff}{SPEC}")), 0, ""),
        ("crlf", text(SPEC.replace('\n', "\r\n")), 0, ""),
        (
            "nul-bytes",
            text(SPEC.replace("hostile", "host\0ile")),
            1,
            "HG001",
        ),
        (
            "duplicate-keys",
            text(SPEC.replace("kind: Cluster\n", "kind: Cluster\nkind: Cluster\n")),
            1,
            "HG001",
        ),
        (
            "huge-integers",
            text(SPEC.replace(
                "  backend: vxlan\n",
                "  backend: vxlan\n  vni: 123456789012345678901234567890\n",
            )),
            1,
            "",
        ),
        (
            "cidr-slash-0",
            text(SPEC.replace("10.244.0.0/16", "0.0.0.0/0")),
            1,
            "HG114",
        ),
        (
            "cidr-slash-32",
            text(SPEC.replace("10.96.0.0/12", "10.96.0.1/32")),
            1,
            "HG102",
        ),
        (
            "million-list-items",
            Box::new(|out| repeat(out, SPEC, "  - {}\n", 1_000_000, "")),
            1,
            "HG001",
        ),
        (
            "many-nodes-missing-fields",
            Box::new(|out| repeat(out, SPEC, "  - {}\n", 60_000, "")),
            1,
            "HG002",
        ),
    ]
}

#[cfg(target_os = "linux")]
#[test]
fn hostile_input_gets_a_diagnostic_fast_and_small() {
    let mut failures = Vec::new();
    for (name, fill, expected_exit, expected_code) in cases() {
        let path = write(name, fill);
        let run = plan(&path);
        std::fs::remove_file(&path).unwrap();
        let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_default();
        let codes: Vec<&str> = report["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d["code"].as_str())
            .collect();
        println!(
            "{name}: exit {:?} in {:?}, peak {} KiB, codes {:?}",
            run.code,
            run.elapsed,
            run.peak_kb,
            &codes[..codes.len().min(3)]
        );
        if run.code != Some(expected_exit) {
            failures.push(format!(
                "{name}: exit {:?} (expected {expected_exit}): {}",
                run.code, run.stderr
            ));
        }
        if !expected_code.is_empty() && !codes.contains(&expected_code) {
            failures.push(format!("{name}: {expected_code} not reported ({codes:?})"));
        }
        if run.elapsed > TIME_LIMIT {
            failures.push(format!("{name}: took {:?}", run.elapsed));
        }
        if run.peak_kb > MEMORY_LIMIT_KB {
            failures.push(format!("{name}: peak memory {} KiB", run.peak_kb));
        }
        if report["diagnostics"]
            .as_array()
            .is_some_and(|d| d.len() > 200)
        {
            failures.push(format!(
                "{name}: {} diagnostics, unbounded",
                report["diagnostics"].as_array().unwrap().len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[path = "../benches/support/spec_gen.rs"]
#[expect(dead_code, reason = "only the valid spec is planned here")]
mod spec_gen;

/// The largest spec hybridgen plans (65,536 nodes, as many node subnets as HG106 allows) stays
/// within its memory in every format. SARIF once took 173 MiB here, when its pod subnets became a
/// JSON value of their own before being written. BENCHMARKS.md's target, 120 MB, is the release
/// binary's; the debug build these tests run maps more code and peaks about 11 MiB higher, hence
/// the limit.
#[cfg(target_os = "linux")]
#[test]
fn the_largest_spec_plans_within_its_memory_in_every_format() {
    const LARGEST_SPEC_LIMIT_KB: i64 = 126 * 1024;
    let path = write("largest.yaml", |out| {
        out.write_all(spec_gen::spec(65_536).as_bytes()).unwrap();
    });
    let mut failures = Vec::new();
    for format in ["human", "json", "sarif", "github"] {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hybridgen"));
        command.args(["plan", "--format", format]).arg(&path);
        let run = watched::run(command, TIME_LIMIT * 6);
        println!(
            "{format}: exit {:?} in {:?}, peak {} KiB",
            run.code, run.elapsed, run.peak_kb
        );
        if run.code != Some(0) {
            failures.push(format!("{format}: exit {:?}: {}", run.code, run.stderr));
        }
        if run.peak_kb > LARGEST_SPEC_LIMIT_KB {
            failures.push(format!("{format}: peak memory {} KiB", run.peak_kb));
        }
    }
    std::fs::remove_file(&path).unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
