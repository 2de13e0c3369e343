"""Run the composite action of action.yml the way the GitHub runner does, step by step, here.

    python run-action.py ACTION_YML [NAME=VALUE...]     (in the repository to check)

Each `run` step is written to a file and run by `bash --noprofile --norc -eo pipefail`, GitHub's
`shell: bash` (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idstepsshell),
with its `env`, `GITHUB_OUTPUT`, `GITHUB_PATH`, `GITHUB_ACTION_PATH` and `RUNNER_TEMP`; the
`${{ }}` expressions the action uses (inputs, step outputs, `github.action_ref`, `==`, `!=`, `&&`)
are evaluated; a `uses` step is not run, but its `with` is printed and `sarif_file` must exist.
Prints the outputs as JSON on the last line and exits with the status of the first failing step.
Needs ruamel.yaml (check-jsonschema's YAML reader).
"""

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from ruamel.yaml import YAML

EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)
REFERENCE = re.compile(r"\b(inputs|github|runner)\.([\w-]+)|\bsteps\.([\w-]+)\.outputs\.([\w-]+)")


def evaluate(expression: str, context: dict) -> object:
    def value(match: re.Match) -> str:
        if match.group(1):
            return repr(context[match.group(1)].get(match.group(2), ""))
        step = context["steps"].get(match.group(3), {})
        return repr(step.get(match.group(4), ""))

    python = REFERENCE.sub(value, expression).replace("&&", " and ").replace("||", " or ")
    python = re.sub(r"!(?!=)", " not ", python)
    return eval(python, {"__builtins__": {}}, {})  # noqa: S307 - this repository's own action.yml


def substitute(text: str, context: dict) -> str:
    return EXPRESSION.sub(lambda match: str(evaluate(match.group(1), context)), text)


def condition(text: str, context: dict) -> bool:
    text = text.strip()
    inner = EXPRESSION.fullmatch(text)
    return bool(evaluate(inner.group(1) if inner else text, context))


def main() -> int:
    action_file = Path(sys.argv[1]).resolve()
    action = YAML(typ="safe").load(action_file.read_text())
    given = dict(argument.split("=", 1) for argument in sys.argv[2:])
    unknown = set(given) - set(action["inputs"])
    if unknown:
        raise SystemExit(f"the action has no input {sorted(unknown)}")
    inputs = {name: given.get(name, spec.get("default", "")) for name, spec in action["inputs"].items()}
    temp = Path(tempfile.mkdtemp(prefix="runner-temp-"))
    context = {
        "inputs": inputs,
        "github": {"action_ref": os.environ.get("ACTION_REF", ""), "action_path": str(action_file.parent)},
        "runner": {"temp": str(temp)},
        "steps": {},
    }
    path = os.environ["PATH"]
    status = 0
    for number, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", f"step {number}")
        if "if" in step and not condition(str(step["if"]), context):
            print(f"== {name}: skipped", flush=True)
            continue
        print(f"== {name}", flush=True)
        if "uses" in step:
            with_ = {key: substitute(str(value), context) for key, value in step.get("with", {}).items()}
            print(f"   (not run here) uses {step['uses']} with {with_}", flush=True)
            sarif = with_.get("sarif_file")
            if sarif is not None and not Path(sarif).is_file():
                print(f"   `{sarif}` does not exist", flush=True)
                status = 1
                break
            continue
        output, github_path = temp / f"output-{number}", temp / f"path-{number}"
        output.touch()
        github_path.touch()
        script = temp / f"step-{number}.sh"
        script.write_text(step["run"])
        env = dict(os.environ)
        env.update({key: substitute(str(value), context) for key, value in step.get("env", {}).items()})
        env.update(
            PATH=path,
            GITHUB_OUTPUT=str(output),
            GITHUB_PATH=str(github_path),
            GITHUB_ACTION_PATH=str(action_file.parent),
            RUNNER_TEMP=str(temp),
        )
        status = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], env=env).returncode
        outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
        if "id" in step:
            context["steps"][step["id"]] = outputs
        for entry in github_path.read_text().splitlines():
            path = f"{entry}{os.pathsep}{path}"
        if status != 0:
            print(f"   exit {status}", flush=True)
            break
    print(json.dumps({name: substitute(str(spec["value"]), context) for name, spec in action.get("outputs", {}).items()}))
    return status


if __name__ == "__main__":
    sys.exit(main())
