//! Writes a valid cluster spec with N nodes, for benchmarks and for trying hybridgen at scale:
//!
//!     cargo run --release --example gen_spec -- 5000 > spec-5000.yaml
//!
//! Mixed Linux and Windows workers, pinned and unpinned pod subnets, AWS instance ids; the output
//! depends only on N (3 to 65,536).

#[path = "../benches/support/spec_gen.rs"]
mod spec_gen;

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let nodes = std::env::args().nth(1).map(|arg| arg.parse::<usize>());
    match nodes {
        Some(Ok(nodes)) if (3..=65_536).contains(&nodes) => {
            let text = spec_gen::spec(nodes);
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
                "usage: gen_spec N   (N nodes, 3 to 65536; the spec goes to standard output)"
            );
            ExitCode::from(2)
        }
    }
}
