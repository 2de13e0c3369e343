//! The kernel's part of a render, alone: makes the directories and files a render made, and
//! nothing else, for `benches/process.sh` to time beside `hybridgen render`.
//!
//!     write_floor OUT LIST    # LIST: one "d PATH" or "f BYTES PATH" per line, parents first
//!
//! Each file is written under a temporary name beside its destination and renamed, as a writer
//! that leaves no half file must. What this takes beyond starting the same program with an empty
//! LIST is time `render` spends on top of `plan` however fast hybridgen's own code becomes.
#![allow(
    clippy::print_stderr,
    reason = "a command-line tool: its errors go to standard error"
)]

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out, list] = args.as_slice() else {
        eprintln!("usage: write_floor OUT LIST");
        return ExitCode::from(2);
    };
    match write_tree(Path::new(out), list) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("write_floor: {error}");
            ExitCode::FAILURE
        }
    }
}

fn write_tree(out: &Path, list: &str) -> std::io::Result<()> {
    let list = fs::read_to_string(list)?;
    let content = vec![b'x'; 1 << 16];
    fs::create_dir(out)?;
    for line in list.lines() {
        let not_a_line = || std::io::Error::other(format!("not a list line: {line:?}"));
        match line.split_once(' ').ok_or_else(not_a_line)? {
            ("d", path) => fs::create_dir(out.join(path))?,
            ("f", rest) => {
                let (bytes, path) = rest.split_once(' ').ok_or_else(not_a_line)?;
                let mut left: usize = bytes.parse().map_err(std::io::Error::other)?;
                let destination = out.join(path);
                let temporary = destination.with_file_name(".write_floor.tmp");
                let mut file = fs::File::create_new(&temporary)?;
                while left > 0 {
                    let chunk = left.min(content.len());
                    file.write_all(&content[..chunk])?;
                    left -= chunk;
                }
                fs::rename(&temporary, &destination)?;
            }
            _ => return Err(not_a_line()),
        }
    }
    Ok(())
}
