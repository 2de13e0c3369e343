#!/usr/bin/env bash
# Whole-process differential check of two hybridgen binaries: every spec of the repository (rule
# fixtures, render fixtures, examples, starters: also the fuzz corpus seeds), generated specs up to
# 65,536 nodes, hostile inputs and every verify case, through `plan` in each format, `render` and
# `verify`. Every byte printed, every exit code and every rendered file must be the same.
#
#   bash benches/differential.sh OLD_BINARY NEW_BINARY
#   GEN_SPEC=path/to/gen_spec bash benches/differential.sh OLD NEW   # a gen_spec already built
#
# Used to show that a change kept the output (see BENCHMARKS.md); `cargo test` holds the typed
# path to the schema path inside one build (tests/differential.rs).
set -euo pipefail

old=$(realpath "$1")
new=$(realpath "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"

gen_spec=${GEN_SPEC:-}
if [ -z "$gen_spec" ]; then
    cargo build --release --quiet --locked --example gen_spec
    gen_spec=target/release/examples/gen_spec
fi
gen_spec=$(realpath "$gen_spec")
mkdir -p "$work/specs"
for n in 3 100 5000 65536; do
    "$gen_spec" "$n" >"$work/specs/gen-$n.yaml"
done
for n in 100 5000; do
    "$gen_spec" "$n" --findings >"$work/specs/gen-$n-findings.yaml"
done
# Hostile shapes: a node list of empty entries (schema findings past the cap), one of nulls, deep
# nesting, and a spec whose node list is not the last key.
{
    head -n 29 "$work/specs/gen-3.yaml"
    for _ in $(seq 60000); do echo "  - {}"; done
} >"$work/specs/empty-nodes.yaml"
{
    head -n 29 "$work/specs/gen-3.yaml"
    for _ in $(seq 2000); do echo "  -"; done
} >"$work/specs/null-nodes.yaml"
printf '%0.s[' $(seq 1000) >"$work/specs/deep.yaml"
python3 - "$work/specs/gen-5000.yaml" >"$work/specs/nodes-first.yaml" <<'EOF'
import sys
text = open(sys.argv[1]).read()
head, nodes = text.split("nodes:\n", 1)
sys.stdout.write("nodes:\n" + nodes + head)
EOF

specs=()
while IFS= read -r spec; do specs+=("$spec"); done < <(
    find tests/fixtures examples templates "$work/specs" -name '*.yaml' | sort
)

export KUBEADM_TOKEN=abcdef.0123456789abcdef
export KUBEADM_CA_HASH=sha256:0000000000000000000000000000000000000000000000000000000000000000

# run LABEL NAME COMMAND...: the command's stdout, stderr and exit code, under the label.
run() {
    local label=$1 name=$2
    shift 2
    local dir="$work/$label/$name"
    mkdir -p "$(dirname "$dir")"
    local status=0
    "$@" >"$dir.out" 2>"$dir.err" || status=$?
    echo "$status" >"$dir.status"
}

# The healthy capture as kubectl writes `-o yaml`, and with its node list grown past a megabyte.
mkdir -p "$work/yaml-capture" "$work/yaml-capture-large"
python3 - tests/fixtures/verify/healthy "$work/yaml-capture" "$work/yaml-capture-large" <<'EOF'
import copy, json, os, sys, yaml
source, small, large = sys.argv[1:]
for name in os.listdir(source):
    data = json.load(open(os.path.join(source, name)))
    stem = os.path.splitext(name)[0]
    for target in (small, large):
        if target == large and stem == "nodes":
            items = []
            for i in range(3000):
                node = copy.deepcopy(data["items"][i % len(data["items"])])
                node["metadata"]["name"] = "node-%d" % i
                items.append(node)
            data = dict(data, items=items)
        with open(os.path.join(target, stem + ".yaml"), "w") as out:
            yaml.safe_dump(data, out, default_flow_style=False, sort_keys=False)
EOF

for label in old new; do
    bin=$old
    [ "$label" = new ] && bin=$new
    for spec in "${specs[@]}"; do
        name=$(echo "${spec#"$work/"}" | tr '/' '_')
        for format in human json sarif github; do
            run "$label" "plan-$format/$name" "$bin" plan --color never --format "$format" "$spec"
        done
        out="$work/$label/render/$name.tree"
        run "$label" "render/$name" "$bin" render "$spec" --out "$out"
        # The manifest lists what was written; file modes are part of the output too.
        if [ -d "$out" ]; then
            (cd "$out" && find . -type f -printf '%p %m\n' | sort) >"$out.modes"
        fi
    done
    run "$label" "plan-all/valid" "$bin" plan --color never tests/fixtures/valid/*.yaml
    run "$label" "plan-all/invalid-json" "$bin" plan --format json tests/fixtures/invalid/*.yaml
    for case_dir in tests/fixtures/verify/*/; do
        case=$(basename "$case_dir")
        cluster="$work/$label/cluster-$case"
        mkdir -p "$cluster"
        cp tests/fixtures/verify/healthy/* "$cluster/"
        spec=examples/kubeadm-1.36-vxlan-windows.yaml
        if [ "$case" != healthy ]; then
            for file in "$case_dir"*; do
                base=$(basename "$file")
                case $base in
                    expect) spec=$(sed -n 's/^spec: //p' "$file" | head -n 1)
                        [ -n "$spec" ] || spec=examples/kubeadm-1.36-vxlan-windows.yaml ;;
                    *.absent) rm -f "$cluster/${base%.absent}" ;;
                    *) cp "$file" "$cluster/" ;;
                esac
            done
        fi
        for format in human json sarif; do
            run "$label" "verify-$format/$case" "$bin" verify --color never --format "$format" \
                "$spec" --cluster "$cluster"
        done
    done
    for capture in yaml-capture yaml-capture-large; do
        for format in human json; do
            run "$label" "verify-$format/$capture" "$bin" verify --color never --format "$format" \
                examples/kubeadm-1.36-vxlan-windows.yaml --cluster "$work/$capture"
        done
    done
done

# The clusters were copied per label; only what the commands printed and wrote is compared.
rm -rf "$work"/old/cluster-* "$work"/new/cluster-*
# Paths in messages name the label's own directory; compare them with the label taken out.
grep -rl "$work/new" "$work/new" | xargs -r sed -i "s|$work/new|$work/old|g"
outputs=$(find "$work/old" -type f | wc -l)
if diff -r "$work/old" "$work/new" >"$work/diff.txt"; then
    echo "identical: ${#specs[@]} specs, $outputs outputs compared byte for byte"
else
    head -n 200 "$work/diff.txt"
    echo "the outputs differ" >&2
    exit 1
fi
