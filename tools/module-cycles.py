#!/usr/bin/env python3
"""Prints the cycles between hybridgen's modules, and every import that points up a layer; exits 1
when there is one.

A module is a file under src/ (`src/plan/version.rs` is `plan::version`, a `mod.rs` names its
folder). An edge A -> B is a `crate::B…` or `super::…` path in A's non-test code (the text before
its first `#[cfg(test)]`, comments left out), B being the longest module that path names. Edges between a module
and its own parent or children are not counted: a parent that declares and re-exports its
children is not a cycle a reader has to untangle. Cycles are looked for twice: between files, and
between the top-level modules (`rules`, `schema`, `report`, …) that the files make up.

The top-level modules also stand in LAYERS, from the commands down to the shared types: a module
imports only modules of lower layers, never one of its own layer or above, nor a module its row
of APART names. Every top-level module must be in a layer, so a new one is placed before it is
imported.

    python3 tools/module-cycles.py            # the cycles, or nothing; exit 1 when there is one
    python3 tools/module-cycles.py --graph    # every edge between files
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")


def modules():
    found = {}
    for folder, _, files in os.walk(ROOT):
        for name in files:
            if not name.endswith(".rs") or name in ("main.rs", "lib.rs"):
                continue
            path = os.path.join(folder, name)
            parts = os.path.relpath(path, ROOT)[:-3].split(os.sep)
            if parts[-1] == "mod":
                parts = parts[:-1]
            if parts[-1] == "tests":
                continue
            found["::".join(parts)] = path
    return found


def code_of(path):
    """The file's non-test code without its comments, whose links (`[`super::x`]`) import nothing."""
    text = open(path, encoding="utf-8").read()
    code = text.split("#[cfg(test)]", 1)[0]
    return re.sub(r"//.*", "", code)


def absolute(module, path):
    """`path` (starting `crate::` or a run of `super::`) as a path from the crate root."""
    if path.startswith("crate::"):
        return path[len("crate::"):]
    here = module.split("::")
    while path.startswith("super::"):
        here = here[:-1]
        path = path[len("super::"):]
    return "::".join(here + [path])


def referenced(module, code, names):
    """The modules `crate::` and `super::` paths in `code` name, braces expanded one level."""
    targets = set()
    pattern = r"\b(crate|super)((?:::(?:super|[A-Za-z_]\w*))*)(?:::\{([^}]*)\})?"
    for match in re.finditer(pattern, code):
        base = match.group(1) + match.group(2)
        paths = [base]
        if match.group(3):
            paths = [base + "::" + item.strip().split(" ")[0] for item in match.group(3).split(",")]
        for written in paths:
            parts = absolute(module, written + "::").strip(":").split("::")
            for length in range(len(parts), 0, -1):
                candidate = "::".join(parts[:length])
                if candidate in names:
                    targets.add(candidate)
                    break
    return targets


def related(a, b):
    return a.startswith(b + "::") or b.startswith(a + "::")


def graph():
    names = modules()
    edges = {}
    for name, path in names.items():
        edges[name] = sorted(
            target for target in referenced(name, code_of(path), names)
            if target != name and not related(name, target)
        )
    return edges


def cycles(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, []):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found)


def top_level(edges):
    collapsed = {}
    for name, targets in edges.items():
        top = name.split("::")[0]
        collapsed.setdefault(top, set()).update(
            target.split("::")[0] for target in targets if target.split("::")[0] != top
        )
    return {name: sorted(targets) for name, targets in collapsed.items()}


# Top to bottom. `commands` wire the pipeline to the report; the pipeline runs the stages below
# it and knows no output format; the report formats findings and renders nothing.
LAYERS = [
    ["cli"],
    ["commands"],
    ["pipeline", "report", "verify"],
    ["schema", "suppressions", "change"],
    ["rules", "render"],
    ["live"],
    ["load", "plan"],
    ["redact"],
    ["diagnostic", "escape", "input_file", "source", "spec", "suggest"],
]

# What the layers alone would let a module import, but it must not: the report formats findings
# and computes neither them nor the artifacts.
APART = {
    "report": ["render", "schema", "suppressions"],
}


def upward(edges):
    """Imports from a top-level module to one of its own layer or above, and unplaced modules."""
    layer = {name: depth for depth, names in enumerate(LAYERS) for name in names}
    found = []
    for name, targets in sorted(top_level(edges).items()):
        if name not in layer:
            found.append(f"not in a layer: {name} (add it to LAYERS in tools/module-cycles.py)")
            continue
        for target in targets:
            if target not in layer:
                continue
            if layer[target] <= layer[name]:
                found.append(f"upward import: {name} -> {target}")
            elif target in APART.get(name, []):
                found.append(f"import across: {name} -> {target}")
    return found


def main():
    edges = graph()
    if "--graph" in sys.argv:
        for name in sorted(edges):
            print(f"{name} -> {', '.join(edges[name])}")
        return 0
    found = cycles(edges) + [c for c in cycles(top_level(edges)) if c not in cycles(edges)]
    for component in found:
        print("cycle: " + " <-> ".join(component))
    arrows = upward(edges)
    for arrow in arrows:
        print(arrow)
    return 1 if found or arrows else 0


if __name__ == "__main__":
    sys.exit(main())
