#!/usr/bin/env bash
# Whole-process benchmark: `hybridgen plan` and `hybridgen render`, a new process per run, side by
# side with yamllint on the same files. Installs what it needs (hyperfine from Debian's packages,
# yamllint from PyPI into target/bench/venv), then prints Markdown tables for BENCHMARKS.md. Where
# valgrind is installed, each command's instruction count (callgrind) is printed beside its times:
# unlike the times, it does not depend on what else the machine runs (see BENCH_INSTRUCTIONS).
#
#   bash benches/process.sh                    # N = 3, 100, 5000, 65536 and the main example
#   BENCH_SIZES="3 100" BENCH_RUNS=5 bash benches/process.sh   # a quick run
#   BENCH_BINARY=target/release/hybridgen bash benches/process.sh   # the default build instead
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/target/bench"
sizes=${BENCH_SIZES:-"3 100 5000 65536"}
runs=${BENCH_RUNS:-30}
# yamllint takes about a second per 1,000 nodes; fewer runs keep the big sizes in minutes.
slow_runs=${BENCH_SLOW_RUNS:-3}
yamllint_version=1.38.0

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

if ! command -v hyperfine >/dev/null; then
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hyperfine >/dev/null
fi
if [ ! -x "$out/venv/bin/yamllint" ]; then
    python3 -m venv "$out/venv"
    "$out/venv/bin/pip" install -q "yamllint==$yamllint_version"
fi

cd "$root"
# The release binary (tools/release-env.sh); BENCH_BINARY measures another build of hybridgen.
source tools/release-env.sh
cargo build --release --quiet --locked --target "$release_target" --bin hybridgen --example gen_spec \
    --example write_floor
hybridgen=${BENCH_BINARY:-"$root/$release_dir/hybridgen"}
write_floor="$root/$release_dir/examples/write_floor"
yamllint="$out/venv/bin/yamllint"
rm -rf "$out/specs" "$out/json" "$out/render"
mkdir -p "$out/specs" "$out/json"

# The README's main example first: the pre-commit case, and the floor beside it.
specs=("$root/examples/kubeadm-1.36-vxlan-windows.yaml")
for n in $sizes; do
    "$root/$release_dir/examples/gen_spec" "$n" >"$out/specs/nodes-$n.yaml"
    specs+=("$out/specs/nodes-$n.yaml")
done

# Instructions are counted where valgrind is installed, except in CI, which only checks that the
# script runs (BENCH_INSTRUCTIONS=1 or 0 decides either way).
count_instructions=${BENCH_INSTRUCTIONS:-}
if [ -z "$count_instructions" ]; then
    count_instructions=0
    command -v valgrind >/dev/null && [ -z "${CI:-}" ] && count_instructions=1
fi

# The generated specs read their kubeadm secrets from the environment; these are placeholders.
export KUBEADM_TOKEN=abcdef.0123456789abcdef
export KUBEADM_CA_HASH=sha256:0000000000000000000000000000000000000000000000000000000000000000

# What the kernel takes to make the main example's artifacts, alone: its directories and files,
# listed parents first, for examples/write_floor.rs to make again.
"$hybridgen" render "${specs[0]}" --out "$out/render" >/dev/null
(cd "$out/render" && find . -mindepth 1 \( -type d -printf 'd %P\n' \) -o \( -type f -printf 'f %s %P\n' \)) \
    >"$out/render.list"
: >"$out/empty.list"
rm -rf "$out/render" "$out/render-kept"
# A render over its own earlier output, as in a pre-commit hook: every file compared, none written.
"$hybridgen" render "${specs[0]}" --out "$out/render-kept" >/dev/null

for spec in "${specs[@]}"; do
    name=$(basename "$spec" .yaml)
    bytes=$(stat -c %s "$spec")
    n=$runs
    [ "$bytes" -gt 100000 ] && n=$slow_runs
    echo "== $name ($bytes bytes)" >&2
    # Each render run starts from an empty directory, so every file is written.
    # -N: no shell between hyperfine and the command, so milliseconds are the command's own.
    # The floors, beside the main example: what starting hybridgen costs, and what making the
    # render's directories and files costs on top of starting a program.
    floor_prepare=()
    floor=()
    if [ "$spec" = "${specs[0]}" ]; then
        floor_prepare=(--prepare true --prepare "rm -rf $out/render" --prepare "rm -rf $out/render"
            --prepare true)
        floor=(-n version "$hybridgen --version"
            -n floor-start "$write_floor $out/render $out/empty.list"
            -n floor-write "$write_floor $out/render $out/render.list"
            -n render-unchanged "$hybridgen render $spec --out $out/render-kept")
    fi
    hyperfine -N --style basic --warmup 3 --runs "$runs" --export-json "$out/json/$name.hybridgen.json" \
        "${floor_prepare[@]}" --prepare true --prepare "rm -rf $out/render" "${floor[@]}" \
        -n plan "$hybridgen plan --quiet --color never $spec" \
        -n render "$hybridgen render $spec --out $out/render" >&2
    hyperfine -N --style basic --warmup 1 --runs "$n" --export-json "$out/json/$name.yamllint.json" \
        -n yamllint "$yamllint -d relaxed $spec" >&2
    rm -rf "$out/render"
    python3 "$root/benches/report.py" peak "$out/json/$name.peak.json" \
        plan "$hybridgen plan --quiet --color never $spec" \
        render "$hybridgen render $spec --out $out/render" \
        yamllint "$yamllint -d relaxed $spec"
    if [ "$count_instructions" = 1 ]; then
        rm -rf "$out/render"
        python3 "$root/benches/report.py" instructions "$out/json/$name.instructions.json" \
            plan "$hybridgen plan --quiet --color never $spec" \
            render "$hybridgen render $spec --out $out/render"
    fi
done

python3 "$root/benches/report.py" process "$out/json" "${specs[@]}"
