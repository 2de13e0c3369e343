#!/usr/bin/env python3
"""Write the pre-commit hook repository that installs hybridgen from its wheel, not from source.

    python3 tools/pre-commit-mirror.py VERSION DIR [URL]

URL is the hook repository's own address, for its README (the release workflow passes it).

pre-commit installs a `language: python` hook by `pip install .` of the hook's repository, so
hybridgen's own repository (whose pyproject.toml compiles it) cannot be that repository. The hook
repository is instead a package with no code whose only dependency is `hybridgen==VERSION`, the
pattern of ruff-pre-commit (https://github.com/astral-sh/ruff-pre-commit): pip takes the wheel
that carries the binary, and nothing is compiled. Its hooks are this repository's
`.pre-commit-hooks.yaml` with `language: python` and without the `-src` of their ids, so the two
sets cannot drift apart. The release workflow commits the result, tagged `vVERSION`, to the
`hybridgen-pre-commit` repository; CI builds it for the wheel of the commit under test.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PYPROJECT = """\
# Written by hybridgen's tools/pre-commit-mirror.py: pre-commit installs this package, and with it
# the hybridgen wheel, which carries the binary.
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "hybridgen-pre-commit"
version = "{version}"
description = "pre-commit hooks for hybridgen, installed from its wheel"
requires-python = ">=3.8"
dependencies = ["hybridgen=={version}"]

[tool.setuptools]
py-modules = []
"""

README = """\
# hybridgen-pre-commit

pre-commit hooks for [hybridgen](https://pypi.org/project/hybridgen/) {version}, installed from
its wheel: no Rust toolchain, a few seconds. Written by hybridgen's `tools/pre-commit-mirror.py`;
the hooks are documented in hybridgen's `docs/ci.md`.

```yaml
repos:
  - repo: {url}
    rev: v{version}
    hooks:
      - id: hybridgen-plan
      - id: hybridgen-check
        args: [clusters/prod.yaml, --out, deploy/prod]
```
"""


def hooks(source: str) -> str:
    body = source[source.index("- id:") :]
    if "language: rust" not in body:
        raise SystemExit(".pre-commit-hooks.yaml has no `language: rust` hook to mirror")
    body = re.sub(r"^(- id: [\w-]+)-src$", r"\1", body, flags=re.MULTILINE)
    body = body.replace("language: rust", "language: python")
    header = (
        "# pre-commit hooks for hybridgen, installed from its wheel (language: python).\n"
        "# Written by hybridgen's tools/pre-commit-mirror.py from its .pre-commit-hooks.yaml.\n"
    )
    return header + body


def main() -> None:
    if len(sys.argv) not in (3, 4) or not re.fullmatch(r"\d+\.\d+\.\d+\S*", sys.argv[1]):
        raise SystemExit(__doc__)
    version, out = sys.argv[1], Path(sys.argv[2])
    url = sys.argv[3] if len(sys.argv) == 4 else "https://github.com/OWNER/hybridgen-pre-commit"
    out.mkdir(parents=True, exist_ok=True)
    source = (ROOT / ".pre-commit-hooks.yaml").read_text()
    (out / ".pre-commit-hooks.yaml").write_text(hooks(source))
    (out / "pyproject.toml").write_text(PYPROJECT.format(version=version))
    (out / "README.md").write_text(README.format(version=version, url=url))


if __name__ == "__main__":
    main()
