# Sourced, not run: the target and flags of the release binary, the one BENCHMARKS.md measures.
#
#   source tools/release-env.sh
#   cargo build --release --locked --target "$release_target"    # -> $release_dir/hybridgen
#   cargo install --locked --path . --target "$release_target"    # the same, into ~/.cargo/bin
#
# On Linux with glibc it is a static position-independent executable (static-pie, rustc's
# `crt-static` target feature): glibc is linked in, so starting it maps no shared library and
# binds no symbol, which shortens a small `plan` (BENCHMARKS.md, "Start-up"). It keeps the
# address-space layout randomisation and read-only relocations of the default build, and runs on
# any Linux of the same architecture, whatever its libc. hybridgen uses none of the glibc parts
# that need shared libraries at run time (name service lookups, iconv, locales); kubectl is
# started as a program. Elsewhere the release binary is the default build.
#
# `--target` is what keeps the flag to hybridgen's own code and its dependencies: without it Cargo
# applies target flags to build scripts and proc macros too, and a proc macro cannot be static.
# So once this is sourced, every cargo command in that shell needs `--target "$release_target"`.
release_target=$(rustc -vV | sed -n 's/^host: //p')
case "$release_target" in
    *-linux-gnu)
        export "CARGO_TARGET_$(echo "$release_target" | tr 'a-z-' 'A-Z_')_RUSTFLAGS=-C target-feature=+crt-static"
        ;;
esac
release_dir=target/$release_target/release
