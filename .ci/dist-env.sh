# Sourced by the CI scripts that package the release binary: where the wheels go, the pinned
# packaging tools, and a way to run a command with no Rust toolchain reachable.
# shellcheck shell=bash
source tools/release-env.sh
source .ci/venvs.sh
# The wheel of this commit (and, for the hook test, the hook repository's build backend).
wheelhouse=$PWD/target/wheelhouse
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)

# maturin packages the binary; wheel adds the musllinux tag; setuptools is the hook repository's
# build backend, served from the wheelhouse when pip may not use an index.
dist_tools() { venv .venv-dist maturin==1.16.0 wheel==0.48.0; }

# without_rust CMD...: CMD with no cargo, rustc or rustup on PATH and no Cargo or rustup home, so
# that anything that tries to compile fails instead.
without_rust() {
  local path="" dir
  local IFS=:
  for dir in $PATH; do
    if [ -e "$dir/cargo" ] || [ -e "$dir/rustc" ] || [ -e "$dir/rustup" ]; then
      # rustup keeps them apart (~/.cargo/bin); a toolchain in /usr/bin would take git along.
      if [ -e "$dir/git" ]; then echo "without_rust: cargo shares $dir with git" >&2; return 1; fi
      continue
    fi
    path=${path:+$path:}$dir
  done
  env PATH="$path" CARGO_HOME=/nonexistent RUSTUP_HOME=/nonexistent "$@"
}

# now, and seconds since: `start=$(now)` ... `$(since "$start")` -> 12.3
now() { date +%s%N; }
since() { local ms=$((($(date +%s%N) - $1) / 1000000)); printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)); }
