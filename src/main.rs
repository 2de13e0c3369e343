//! The `hybridgen` command: parse the arguments, run, and map the outcome to an exit code.

use clap::Parser;
use std::process::ExitCode;

// A spec becomes hundreds of thousands of small values; mimalloc allocates and frees them about
// twice as fast as the system allocator (BENCHMARKS.md, 65,536 nodes: 0.83 s -> 0.41 s).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// The allocator's options, numbered as in mimalloc 3's `mi_option_e` (include/mimalloc.h of
// microsoft/mimalloc, the version libmimalloc-sys 0.1.49 builds; Cargo.lock pins it).
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    /// The option's value as it stands, without looking at the environment (src/options.c).
    fn _mi_option_get_fast(option: std::ffi::c_int) -> std::ffi::c_long;
}
/// How many options there are: `_mi_option_last`.
#[cfg(target_os = "linux")]
const MI_OPTIONS: std::ffi::c_int = 47;
#[cfg(target_os = "linux")]
const MI_OPTION_ARENA_EAGER_COMMIT: std::ffi::c_int = 4;
#[cfg(target_os = "linux")]
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
#[cfg(target_os = "linux")]
const MI_OPTION_ARENA_RESERVE: std::ffi::c_int = 23;

/// A run is shorter than mimalloc's default purge delay (1 s), so memory freed between stages
/// (the parser's buffers, each node's JSON value, the second thread's pages) stayed resident to
/// the end and added to the next stage's: it is returned at once instead, and the arena is
/// committed as it is used rather than up front. Peak RSS at 65,536 nodes: 150 -> 113 MB
/// (BENCHMARKS.md).
///
/// Arenas are reserved 64 MiB at a time instead of 1 GiB: a new arena's bitmaps are written when
/// it is reserved, and those of 1 GiB were 42 pages, an eighth of the page faults of a small
/// `plan`. A 65,536-node spec takes a second arena and the same peak.
///
/// Every other option keeps its built-in default, set explicitly so that mimalloc does not look
/// for `MIMALLOC_<OPTION>` among the environment variables: it compared each of its 47 options
/// with every variable, 146,000 instructions of a small `plan`'s 1.23 million (BENCHMARKS.md).
///
/// The arena is reserved by the first allocation, before `main`, so the options are set from
/// `.preinit_array`, which the dynamic loader runs before any constructor (System V gABI,
/// "Initialization and Termination Functions"); an option set there is one mimalloc's own
/// initialisation keeps.
#[cfg(target_os = "linux")]
extern "C" fn set_allocator_options() {
    // SAFETY: `mi_option_set` writes one entry of mimalloc's option table; nothing else runs yet.
    unsafe {
        for option in 0..MI_OPTIONS {
            mi_option_set(option, _mi_option_get_fast(option));
        }
        mi_option_set(MI_OPTION_PURGE_DELAY, 0);
        mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0);
        // In KiB.
        mi_option_set(MI_OPTION_ARENA_RESERVE, 64 * 1024);
    }
}

#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".preinit_array")]
static ALLOCATOR_OPTIONS: extern "C" fn() = set_allocator_options;

fn main() -> ExitCode {
    let cli = hybridgen::cli::Cli::parse();
    match hybridgen::cli::run(cli) {
        hybridgen::cli::Outcome::Clean => ExitCode::SUCCESS,
        hybridgen::cli::Outcome::Errors => ExitCode::from(1),
        hybridgen::cli::Outcome::Unusable => ExitCode::from(2),
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    unsafe extern "C" {
        fn mi_option_get(option: std::ffi::c_int) -> std::ffi::c_long;
    }

    /// `MI_OPTIONS` is mimalloc's option count: the last option below it takes a value, the
    /// number itself is out of range (mimalloc ignores it and reads 0). One too many would have
    /// the start-up read past the option table.
    #[test]
    fn the_option_count_is_mimallocs() {
        // SAFETY: reads and writes of mimalloc's option table, with indices checked by it; the
        // last option is put back as it was.
        unsafe {
            let last = MI_OPTIONS - 1;
            let kept = _mi_option_get_fast(last);
            mi_option_set(last, kept + 7);
            assert_eq!(mi_option_get(last), kept + 7);
            mi_option_set(last, kept);
            mi_option_set(MI_OPTIONS, 12_345);
            assert_eq!(mi_option_get(MI_OPTIONS), 0);
        }
    }
}
