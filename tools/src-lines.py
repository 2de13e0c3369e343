#!/usr/bin/env python3
"""Counts the non-test lines of src/: every line of every .rs file, less the items under a
`#[cfg(test)]` attribute (a `mod tests { … }`, a test-only function or import) and the files that
only a `#[cfg(test)] mod name;` declares. Comments and blank lines count as lines.

    python3 tools/src-lines.py            # the working tree
    python3 tools/src-lines.py REV        # a commit, read through git (e.g. the base of a change)
    python3 tools/src-lines.py --files    # the count of each file, largest first
"""
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def sources(rev):
    """{path: text} of every .rs file under src/, from the working tree or from `rev`."""
    if rev is None:
        found = {}
        for folder, _, files in os.walk(os.path.join(ROOT, "src")):
            for name in files:
                if name.endswith(".rs"):
                    path = os.path.join(folder, name)
                    found[os.path.relpath(path, ROOT)] = open(path, encoding="utf-8").read()
        return found
    git = ["git", "-C", ROOT]
    names = subprocess.run(git + ["ls-tree", "-r", "--name-only", rev, "src"],
                           capture_output=True, text=True, check=True).stdout.split()
    return {
        name: subprocess.run(git + ["show", f"{rev}:{name}"], capture_output=True, text=True,
                             check=True).stdout
        for name in names if name.endswith(".rs")
    }


def code_mask(text):
    """For each character, whether it is code (not inside a string, char literal or comment), so
    that braces in `"{}"` or `'{'` are not counted."""
    mask = [True] * len(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
        elif text.startswith("/*", i):
            depth, end = 1, i + 2
            while end < n and depth:
                if text.startswith("/*", end):
                    depth, end = depth + 1, end + 2
                elif text.startswith("*/", end):
                    depth, end = depth - 1, end + 2
                else:
                    end += 1
        elif (raw := re.match(r'b?r(#*)"', text[i:i + 260])) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = '"' + raw.group(1)
            end = text.find(close, i + raw.end())
            end = n if end < 0 else end + len(close)
        elif c == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            end += 1
        elif c == "'" and (char := re.match(r"'(\\.[^']*|[^\\'])'", text[i:i + 12])):
            end = i + char.end()
        else:
            i += 1
            continue
        for k in range(i, min(end, n)):
            mask[k] = text[k] == "\n"
        i = end
    return mask


def test_lines(text):
    """The line numbers (0-based) of the items under `#[cfg(test)]`, their attributes included."""
    mask = code_mask(text)
    starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(offset):
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo

    skipped = set()
    for match in re.finditer(r"#\[cfg\(test\)\]", text):
        if not mask[match.start()]:
            continue
        depth, i = 0, match.end()
        while i < len(text):
            if mask[i]:
                if text[i] == "{":
                    depth += 1
                elif text[i] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                elif text[i] == ";" and depth == 0:
                    break
            i += 1
        skipped.update(range(line_of(match.start()), line_of(i) + 1))
    return skipped


def test_only_files(files):
    """Files declared by `#[cfg(test)] mod name;`: `a/mod.rs` or `a.rs` declaring `tests` means
    `a/tests.rs` (or `a/tests/mod.rs`)."""
    found = set()
    for path, text in files.items():
        folder = os.path.dirname(path)
        if not path.endswith(("mod.rs", "lib.rs", "main.rs")):
            folder = path[:-3]
        for name in re.findall(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text):
            for candidate in (f"{folder}/{name}.rs", f"{folder}/{name}/mod.rs"):
                if candidate in files:
                    found.add(candidate)
    return found


def counts(files):
    skip = test_only_files(files)
    return {
        path: len(text.splitlines()) - len(test_lines(text))
        for path, text in files.items() if path not in skip
    }


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    per_file = counts(sources(args[0] if args else None))
    if "--files" in sys.argv:
        for path, lines in sorted(per_file.items(), key=lambda item: -item[1]):
            print(f"{lines:7} {path}")
    print(sum(per_file.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
