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

# pre-commit, and the hook repository's build backend in the wheelhouse (pip may not use an index
# where the hooks install): sets $pre_commit.
pre_commit_tools() {
  venv .venv-pre-commit pre-commit==4.7.0
  pre_commit=$PWD/.venv-pre-commit/bin/pre-commit
  ls "$wheelhouse"/setuptools-*.whl > /dev/null 2>&1 ||
    .venv-pre-commit/bin/pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: --dest "$wheelhouse" setuptools==84.2.1
}

# hook_repository DIR: the hook repository tools/pre-commit-mirror.py writes for the wheel of this
# commit (built by .ci/build-wheel), committed in DIR; sets $hook_rev to its commit.
hook_repository() {
  python3 tools/pre-commit-mirror.py "$version" "$1"
  "$pre_commit" validate-manifest "$1/.pre-commit-hooks.yaml"
  git -C "$1" init -q
  git -C "$1" add -A
  git -C "$1" -c user.email=ci@localhost -c user.name=ci commit -qm "hybridgen $version"
  hook_rev=$(git -C "$1" rev-parse HEAD)
}
