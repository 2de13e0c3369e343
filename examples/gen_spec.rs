//! Writes a valid cluster spec with N nodes, for benchmarks and for trying hybridgen at scale:
//!
//!     cargo run --release --example gen_spec -- 5000 > spec-5000.yaml
//!     cargo run --release --example gen_spec -- 5000 --findings > broken-5000.yaml
//!
//! Mixed Linux and Windows workers, pinned and unpinned pod subnets, AWS instance ids; the output
//! depends only on N (3 to 65,536). `--findings` gives every eighth node an unsupported Windows
//! build, an error to report.
#![allow(
    clippy::print_stderr,
    reason = "a command-line tool: its errors go to standard error"
)]

#[path = "../benches/support/spec_gen.rs"]
mod spec_gen;

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let findings = args.get(1).map(String::as_str) == Some("--findings");
    let nodes = args.first().map(|arg| arg.parse::<usize>());
    let known = args.len() <= 1 + usize::from(findings);
    match nodes {
        Some(Ok(nodes)) if (3..=65_536).contains(&nodes) && known => {
            let text = if findings {
                spec_gen::spec_with_findings(nodes)
            } else {
                spec_gen::spec(nodes)
            };
            match std::io::stdout().lock().write_all(text.as_bytes()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("gen_spec: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => {
            eprintln!(
                "usage: gen_spec N [--findings]   (N nodes, 3 to 65536; the spec goes to standard output)"
            );
            ExitCode::from(2)
        }
    }
}
