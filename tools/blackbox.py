#!/usr/bin/env python3
"""Black-box run of hybridgen against mutated captures and specs, and of render under kills and
concurrency. Not part of `cargo test`: it takes minutes. Method and figures: TESTING.md.

    cargo build --release --locked
    python3 tools/blackbox.py --bin target/release/hybridgen --runs 20000 --seed 1

Every run is a whole process with its peak memory (`wait4`'s ru_maxrss, which also counts the
pages the child shares with this small script at fork: an overestimate by some tens of MB),
killed after 10 s. Counted:
crashes (a signal, or Rust's panic exit 101), hangs (over 2 s), peak memory over 500 MB,
silent passes (exit 0 for a mutation that must be found: a required capture emptied, a compared
value changed or of the wrong type, a file truncated), secrets or control characters that reach
the output, and for render: a kill at a random write, link or rename, or concurrent renders of different specs
leaving a directory that is neither the old set nor the new one.
"""

import argparse
import concurrent.futures
import copy
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEALTHY = ROOT / "tests/fixtures/verify/healthy"
EXAMPLE = "examples/kubeadm-1.36-vxlan-windows.yaml"
HANG_S = 2.0
KILL_S = 10.0
MEMORY_KB = 500 * 1024
TOKEN = "qwerty.0123456789zxcvbn"
NASTY = ["\x1b[2J", "\x1b]0;pwned\x07", "\n::error::injected", "\r", "\u009b31m", "\u202e", "##[error]x"]


def run(argv, cwd=ROOT, env=None):
    """Runs one process; returns (exit code or -signal, seconds, peak KiB, stdout, stderr)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        deadline = started + KILL_S
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                process.kill()
            time.sleep(0.002)
        elapsed = time.monotonic() - started
        process.returncode = 0  # reaped by wait4
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return code, elapsed, usage.ru_maxrss, out.read(), err.read()


def healthy():
    return {path.name: json.loads(path.read_text()) for path in HEALTHY.iterdir()}


def items(files, name):
    return files[name]["items"]


# Mutations of a capture. Each returns True when the cluster it leaves must not pass clean.
def empty_required(files, rng):
    name = rng.choice(["nodes.json", "daemonsets.json", "pods.json"])
    files[name] = ""
    return True


def wrong_type(files, rng):
    value = rng.choice([12, None, True, [1], {"a": 1}, "", "garbage\x1b[2J"])
    node = rng.choice(items(files, "nodes.json"))
    target = rng.choice(["podCIDR", "kernelVersion", "addresses", "backend-type", "Network", "VNI"])
    if target == "podCIDR":
        node["spec"]["podCIDR"] = value if value is not None else 7
    elif target == "kernelVersion":
        windows = [n for n in items(files, "nodes.json") if n["metadata"]["labels"].get("kubernetes.io/os") == "windows"]
        rng.choice(windows)["status"]["nodeInfo"]["kernelVersion"] = value if isinstance(value, str) and value else 10
    elif target == "addresses":
        node["status"]["addresses"] = value if not isinstance(value, list) else {"x": 1}
    elif target == "backend-type":
        node["metadata"]["annotations"]["flannel.alpha.coreos.com/backend-type"] = value if not isinstance(value, str) else 5
    else:
        conf = json.loads(files["kube-flannel-cfg.json"]["data"]["net-conf.json"])
        if target == "Network":
            conf["Network"] = value if not isinstance(value, str) else 10
        else:
            conf["Backend"]["VNI"] = "4096" if value is None else value if not isinstance(value, int) or isinstance(value, bool) else "x"
        files["kube-flannel-cfg.json"]["data"]["net-conf.json"] = json.dumps(conf)
    return True


def changed_value(files, rng):
    node = rng.choice(items(files, "nodes.json"))
    target = rng.choice(["podCIDR", "vni", "network", "backend", "address", "build", "os"])
    if target == "podCIDR":
        node["spec"]["podCIDR"] = "10.99.%d.0/24" % rng.randrange(256)
    elif target == "vni":
        node["metadata"]["annotations"]["flannel.alpha.coreos.com/backend-data"] = '{"VNI":%d}' % rng.choice([1, 2, 4097])
    elif target == "network":
        conf = json.loads(files["kube-flannel-cfg.json"]["data"]["net-conf.json"])
        conf["Network"] = "10.%d.0.0/16" % rng.randrange(1, 240)
        files["kube-flannel-cfg.json"]["data"]["net-conf.json"] = json.dumps(conf)
    elif target == "backend":
        node["metadata"]["annotations"]["flannel.alpha.coreos.com/backend-type"] = "host-gw"
    elif target == "address":
        for address in node["status"]["addresses"]:
            if address["type"] == "InternalIP":
                address["address"] = "172.31.%d.%d" % (rng.randrange(256), rng.randrange(1, 255))
    elif target == "build":
        windows = [n for n in items(files, "nodes.json") if n["metadata"]["labels"].get("kubernetes.io/os") == "windows"]
        rng.choice(windows)["status"]["nodeInfo"]["kernelVersion"] = "10.0.17763.%d" % rng.randrange(1, 3000)
    else:
        node["metadata"]["labels"]["kubernetes.io/os"] = "plan9"
    return True


def truncated(files, rng):
    name = rng.choice(sorted(files))
    text = json.dumps(files[name])
    files[name] = text[: rng.randrange(1, len(text) - 1)]
    return True


def benign(files, rng):
    node = rng.choice(items(files, "nodes.json"))
    node["metadata"].setdefault("labels", {})["extra/" + rng.choice(NASTY).strip()] = rng.choice(NASTY) * rng.randrange(1, 50)
    node["status"]["extra"] = {"nested": [rng.random() for _ in range(rng.randrange(100))]}
    return False


def hostile_bytes(files, rng):
    name = rng.choice(sorted(files))
    text = bytearray(json.dumps(files[name]).encode())
    for _ in range(rng.randrange(1, 20)):
        text[rng.randrange(len(text))] = rng.randrange(256)
    files[name] = bytes(text)
    return None  # may or may not still be a valid capture


def amplified(files, rng):
    count = rng.choice([1000, 20000, 200000])
    files["broken.json"] = '{"apiVersion":"v1","kind":"List","items":[%s]}' % ",".join(["{}"] * count)
    return True


def secret(files, rng):
    files["secret.json"] = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"token": TOKEN}}
    if rng.random() < 0.5:
        files["secret.json"] = json.dumps(files["secret.json"])[:-3]
    return None


CAPTURE_MUTATIONS = [empty_required, wrong_type, changed_value, truncated, benign, hostile_bytes, amplified, secret]


def write_files(directory, files):
    for name, value in files.items():
        data = value if isinstance(value, (str, bytes)) else json.dumps(value, indent=1)
        (directory / name).write_bytes(data.encode() if isinstance(data, str) else data)


SPEC_TEXT = (ROOT / EXAMPLE).read_text()


def mutated_spec(rng):
    lines = SPEC_TEXT.splitlines(keepends=True)
    kind = rng.choice(["delete", "duplicate", "bytes", "nasty", "secret", "huge"])
    must_fail = None
    if kind == "delete":
        del lines[rng.randrange(len(lines))]
    elif kind == "duplicate":
        at = rng.randrange(len(lines))
        lines.insert(at, lines[at])
    elif kind == "bytes":
        text = bytearray("".join(lines).encode())
        for _ in range(rng.randrange(1, 10)):
            text[rng.randrange(len(text))] = rng.randrange(256)
        return bytes(text), kind, None
    elif kind == "nasty":
        at = rng.randrange(len(lines))
        lines[at] = lines[at].rstrip("\n") + rng.choice(NASTY) + "\n"
    elif kind == "secret":
        broken = rng.choice(['"x%s', "x%s\n    kubeadmToken: y%s", "a: x%s"]).replace("%s", TOKEN)
        text = "".join(lines).replace("fromEnv: KUBEADM_TOKEN", "fromEnv: KUBEADM_TOKEN\n    kubeadmToken: " + broken, 1)
        return text.encode(), kind, True
    else:
        at = rng.randrange(len(lines))
        lines.insert(at, "x%d: %s\n" % (at, "y" * rng.choice([10_000, 1_000_000])))
    return "".join(lines).encode(), kind, must_fail


class Tally:
    def __init__(self):
        self.counts = {}
        self.examples = {}
        self.slowest = (0.0, "")
        self.largest = (0, "")

    def add(self, key, example=None, n=1):
        self.counts[key] = self.counts.get(key, 0) + n
        if example is not None and key not in self.examples:
            self.examples[key] = example


def judge(tally, label, result, must_fail, formats_checked):
    code, elapsed, peak, out, err = result
    tally.add("runs")
    tally.add("runs: " + ":".join(label.split(":")[:2]))
    tally.add("exit %d" % code)
    if elapsed > tally.slowest[0]:
        tally.slowest = (elapsed, label)
    if peak > tally.largest[0]:
        tally.largest = (peak, label)
    if code < 0 or code == 101:
        tally.add("crashes", label)
    if elapsed > HANG_S:
        tally.add("hangs over 2 s", "%s (%.1f s)" % (label, elapsed))
    if peak > MEMORY_KB:
        tally.add("peak memory over 500 MB", "%s (%d MB)" % (label, peak // 1024))
    if must_fail and code == 0:
        tally.add("silent passes", label)
    text = (out + err).decode("utf-8", "replace")
    if TOKEN in text:
        tally.add("secrets printed", label)
    if formats_checked:
        for line in text.splitlines():
            ours = line.lstrip().startswith(("::error title=HG", "::warning title=HG", "::notice title=HG"))
            if any(c in line for c in "\x1b\x07\x9b\u202e\r") or (line.lstrip().startswith("::") and not ours):
                tally.add("control characters or workflow commands printed", label)
                break


def capture_case(binary, seed):
    rng = random.Random(seed)
    files = healthy()
    mutation = rng.choice(CAPTURE_MUTATIONS)
    must_fail = mutation(files, rng)
    fmt = rng.choice(["human", "github", "json", "sarif"])
    with tempfile.TemporaryDirectory() as directory:
        directory = Path(directory)
        write_files(directory, files)
        result = run([binary, "verify", EXAMPLE, "--cluster", str(directory), "--format", fmt])
    return "capture:%s:%s seed %d" % (mutation.__name__, fmt, seed), result, must_fail, fmt in ("human", "github")


def spec_case(binary, seed):
    rng = random.Random(seed)
    text, kind, must_fail = mutated_spec(rng)
    fmt = rng.choice(["human", "github", "json", "sarif"])
    with tempfile.TemporaryDirectory() as directory:
        spec = Path(directory) / "spec.yaml"
        spec.write_bytes(text)
        if rng.random() < 0.2:
            argv = [binary, "render", str(spec), "--out", str(Path(directory) / "out")]
            fmt = "human"
        else:
            argv = [binary, "plan", str(spec), "--format", fmt]
        result = run(argv)
    return "spec:%s:%s seed %d" % (kind, fmt, seed), result, must_fail, fmt in ("human", "github")


def tree(directory):
    files = {}
    for path in sorted(directory.rglob("*")):
        relative = path.relative_to(directory)
        if path.is_file() and not any(part.startswith(".") for part in relative.parts):
            files[str(relative)] = path.read_bytes()
    manifest = directory / ".hybridgen-manifest"
    return files, manifest.read_text() if manifest.exists() else ""


def render_to(binary, spec, out):
    return run([binary, "render", spec, "--out", str(out)])


def render_kills(binary, runs, rng, tally):
    if not shutil.which("strace"):
        print("strace is not installed: render kill runs skipped", file=sys.stderr)
        return
    specs = sorted("examples/" + p.name for p in (ROOT / "examples").glob("*.yaml"))
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        sets = {}
        for spec in specs:
            out = scratch / ("alone-" + Path(spec).stem)
            render_to(binary, spec, out)
            sets[spec] = tree(out)
        for index in range(runs):
            old, new = rng.sample(specs, 2)
            out = scratch / ("kill-%d" % index)
            render_to(binary, old, out)
            # The swap is one renameat2; the files are written and linked before it.
            syscall = rng.choice(["renameat2", "write", "linkat"])
            when = rng.randrange(1, 40)
            argv = ["strace", "-f", "-o", "/dev/null", "-e", "trace=" + syscall, "-e",
                    "inject=%s:signal=SIGKILL:when=%d" % (syscall, when), binary, "render", new, "--out", str(out)]
            code = run(argv)[0]
            # What plain reads see right after the kill, with no hybridgen command run since.
            seen = tree(out)
            tally.add("render kill runs")
            tally.add("render kill runs: %s" % ("completed" if code == 0 else "killed"))
            state = "old" if seen == sets[old] else "new" if seen == sets[new] else "mix"
            tally.add("render kills leaving the " + state + " set")
            if state == "mix":
                tally.add("render kills leaving a mix", "%s -> %s at %s %d" % (old, new, syscall, when))
            shutil.rmtree(out)


def render_concurrency(binary, rounds, rng, tally):
    specs = sorted("examples/" + p.name for p in (ROOT / "examples").glob("*.yaml"))
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        sets = []
        for spec in specs:
            out = scratch / ("alone-" + Path(spec).stem)
            render_to(binary, spec, out)
            sets.append(tree(out))
        out = scratch / "shared"
        for _ in range(rounds):
            chosen = rng.sample(specs, rng.randrange(2, len(specs) + 1))
            processes = [subprocess.Popen([binary, "render", spec, "--out", str(out)],
                                          cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                         for spec in chosen]
            codes = [process.wait(timeout=60) for process in processes]
            tally.add("concurrent render rounds")
            tally.add("concurrent renders", n=len(chosen))
            if any(codes):
                tally.add("concurrent renders failing", str(codes))
            state = tree(out)
            listed = state[1].splitlines()
            if state not in sets or listed != sorted(state[0]):
                tally.add("concurrent rounds leaving a mix", ", ".join(chosen))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=str(ROOT / "target/release/hybridgen"))
    parser.add_argument("--runs", type=int, default=20000, help="mutated captures and specs")
    parser.add_argument("--kills", type=int, default=200, help="renders killed at a random write, link or rename")
    parser.add_argument("--rounds", type=int, default=100, help="rounds of concurrent renders")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    binary = str(Path(args.bin).resolve())
    tally = Tally()
    started = time.monotonic()
    # A few cases in flight at a time, each judged and dropped as it ends: a child's ru_maxrss
    # counts the pages it shares with this process at fork, so this process must stay small.
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        pending = set()
        for seed in range(args.runs):
            case = capture_case if seed % 2 == 0 else spec_case
            pending.add(pool.submit(case, binary, args.seed * 1_000_003 + seed))
            if len(pending) >= 2 * args.jobs:
                done, pending = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
                for finished in done:
                    judge(tally, *finished.result())
        for finished in concurrent.futures.as_completed(pending):
            judge(tally, *finished.result())
    rng = random.Random(args.seed)
    render_kills(binary, args.kills, rng, tally)
    render_concurrency(binary, args.rounds, rng, tally)
    tally.add("seconds", n=int(time.monotonic() - started))
    for key in sorted(tally.counts):
        print("%-55s %d" % (key, tally.counts[key]))
    print("slowest run: %.2f s (%s)" % tally.slowest)
    print("largest peak memory: %d MB (%s)" % (tally.largest[0] // 1024, tally.largest[1]))
    for key, example in sorted(tally.examples.items()):
        print("first of %s: %s" % (key, example))
    bad = [key for key in tally.counts if key in (
        "crashes", "hangs over 2 s", "peak memory over 500 MB", "silent passes", "secrets printed",
        "control characters or workflow commands printed", "render kills leaving a mix",
        "concurrent rounds leaving a mix", "concurrent renders failing")]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
