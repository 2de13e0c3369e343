"""Markdown tables for BENCHMARKS.md from the benchmark runs.

  report.py stages [CRITERION_DIR]      criterion's per-stage results (cargo bench --bench stages)
  report.py verify [CRITERION_DIR]      the same for `cargo bench --bench verify`
  report.py peak OUT.json LABEL CMD...  peak RSS of each command (max of 3 runs), saved as JSON
  report.py instructions OUT.json LABEL CMD...  instructions of each command (callgrind), as JSON
  report.py process JSON_DIR SPEC...    benches/process.sh's hyperfine results and peak RSS
"""

import json
import os
import shlex
import statistics
import subprocess
import sys

STAGES = ["load", "schema", "spec", "plan", "rules", "render", "check", "check+render"]
SIZES = [3, 100, 5000, 65536]
VERIFY_STAGES = ["verify-read-captures", "verify-compare", "verify", "verify-process"]
VERIFY_SIZES = [3, 100, 5000]


def duration(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms" if seconds < 0.1 else f"{seconds * 1e3:.0f} ms"
    return f"{seconds:.2f} s"


def stages(root, names=STAGES, sizes=SIZES):
    """Median time per iteration with the min–max of the samples' per-iteration times."""
    print("| stage | " + " | ".join(f"{n:,} nodes" for n in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    medians = {}
    for stage in names:
        cells = []
        for n in sizes:
            folder = os.path.join(root, stage, str(n), "new")
            try:
                sample = json.load(open(os.path.join(folder, "sample.json")))
            except FileNotFoundError:
                cells.append("–")
                continue
            per_iteration = [t / i / 1e9 for t, i in zip(sample["times"], sample["iters"])]
            median = statistics.median(per_iteration)
            medians[(stage, n)] = median
            cells.append(
                f"{duration(median)} ({duration(min(per_iteration))}–{duration(max(per_iteration))})"
            )
        print(f"| {stage} | " + " | ".join(cells) + " |")
    print()
    for stage in ["check", "check+render"]:
        small, large = medians.get((stage, 5000)), medians.get((stage, 65536))
        if small and large:
            print(f"- {stage}: time(65,536) / time(5,000) = {large / small:.1f}")


def peak(out, pairs):
    """Runs each command three times and keeps its largest resident set, in kilobytes."""
    result = {}
    for label, command in zip(pairs[::2], pairs[1::2]):
        largest = 0
        for _ in range(3):
            child = subprocess.Popen(shlex.split(command), stdout=subprocess.DEVNULL)
            _, status, usage = os.wait4(child.pid, 0)
            child.returncode = os.waitstatus_to_exitcode(status)
            if child.returncode not in (0, 1):
                sys.exit(f"{command}: exit {child.returncode}")
            largest = max(largest, usage.ru_maxrss)
        result[label] = largest
    json.dump(result, open(out, "w"))


def instructions(out, pairs):
    """Counts each command's instructions under callgrind (both threads, when there are two)."""
    result = {}
    for label, command in zip(pairs[::2], pairs[1::2]):
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *shlex.split(command)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        collected = [line for line in run.stderr.splitlines() if "Collected" in line]
        result[label] = int(collected[-1].split()[-1]) if collected else None
    json.dump(result, open(out, "w"))


def count(instructions):
    if instructions is None:
        return "–"
    return f"{instructions / 1e6:.2f}M" if instructions < 1e8 else f"{instructions / 1e6:,.0f}M"


def nodes_in(spec):
    with open(spec) as text:
        return sum(1 for line in text if line.startswith("  - name:"))


def written(results):
    """The file-writing floor under `render ÷ plan`: what examples/write_floor.rs adds to its own
    start making the render's directories and files, over the main example's `plan`."""
    start, write = results.get("floor-start"), results.get("floor-write")
    if not (start and write):
        return None
    kernel = write["median"] - start["median"]
    plan = results["plan"]["median"]
    return (
        f"- making the render's directories and files alone (examples/write_floor.rs): "
        f"{duration(write['median'])} against {duration(start['median'])} for its start, "
        f"{duration(kernel)} more; `render ÷ plan` cannot be below {(plan + kernel) / plan:.2f} here"
    )


def process(folder, specs):
    print(
        "| spec | nodes | size | `plan` | instructions | `render` | instructions | render ÷ plan "
        "| yamllint | yamllint ÷ plan | peak RSS plan / render / yamllint |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    # The main example's call also timed the floors and a render over its own output.
    plans, counts, main = {}, {}, None
    cell = lambda r: f"{duration(r['median'])} ({duration(r['min'])}–{duration(r['max'])})"
    for spec in specs:
        name = os.path.basename(spec).removesuffix(".yaml")
        ours = {r["command"]: r for r in json.load(open(f"{folder}/{name}.hybridgen.json"))["results"]}
        theirs = json.load(open(f"{folder}/{name}.yamllint.json"))["results"][0]
        rss = json.load(open(f"{folder}/{name}.peak.json"))
        try:
            counted = json.load(open(f"{folder}/{name}.instructions.json"))
        except FileNotFoundError:
            counted = {}
        nodes = nodes_in(spec)
        plans[nodes] = ours["plan"]["median"]
        counts[nodes] = counted.get("plan")
        main = main or (ours if "version" in ours else None)
        size = os.path.getsize(spec)
        size = f"{size / 1024:.0f} KiB" if size < 1 << 20 else f"{size / (1 << 20):.1f} MiB"
        print(
            f"| {name} | {nodes:,} | {size} | {cell(ours['plan'])} | {count(counted.get('plan'))} "
            f"| {cell(ours['render'])} | {count(counted.get('render'))} "
            f"| {ours['render']['median'] / ours['plan']['median']:.2f} "
            f"| {cell(theirs)} | {theirs['median'] / ours['plan']['median']:.0f}× "
            f"| {rss['plan'] / 1024:.0f} / {rss['render'] / 1024:.0f} / {rss['yamllint'] / 1024:.0f} MB |"
        )
    if main:
        print(f"\n- process floor, `hybridgen --version`: {cell(main['version'])}")
        if writes := written(main):
            print(writes)
        if unchanged := main.get("render-unchanged"):
            print(
                f"- `render` over its own earlier output (every file compared, none written): "
                f"{cell(unchanged)}, {unchanged['median'] / main['plan']['median']:.2f}× `plan`"
            )
    if 5000 in plans and 65536 in plans:
        print(f"- `plan`: time(65,536) / time(5,000) = {plans[65536] / plans[5000]:.1f}")
        if counts.get(5000) and counts.get(65536):
            growth = counts[65536] / counts[5000]
            print(f"- `plan`: instructions(65,536) / instructions(5,000) = {growth:.1f}")


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "stages":
        stages(arguments[0] if arguments else "target/criterion")
    elif command == "verify":
        stages(arguments[0] if arguments else "target/criterion", VERIFY_STAGES, VERIFY_SIZES)
    elif command == "peak":
        peak(arguments[0], arguments[1:])
    elif command == "instructions":
        instructions(arguments[0], arguments[1:])
    elif command == "process":
        process(arguments[0], arguments[1:])
    else:
        sys.exit(__doc__)
