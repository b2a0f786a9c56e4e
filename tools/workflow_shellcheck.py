"""shellcheck over the `run:` scripts of GitHub workflow files, the way
actionlint does it: each `${{ ... }}` expression becomes a placeholder word,
and every step that runs in bash (the Linux runners' default) is checked.

    python3 tools/workflow_shellcheck.py .github/workflows/*.yml

Exit 0 when every script is clean, 1 on findings, 2 on an unreadable file.
Needs shellcheck on PATH and ruamel.yaml (installed with check-jsonschema).
"""

import argparse
import re
import subprocess
import sys

from ruamel.yaml import YAML, YAMLError

EXPRESSION = re.compile(r"\$\{\{.*?\}\}", re.S)
# As actionlint: checks that misfire on expression placeholders and on
# variables the runner defines.
EXCLUDED = "SC1091,SC2050,SC2154,SC2157,SC2194"


def bash_steps(workflow):
    """(where, script) of every bash `run:` step."""
    default = ((workflow.get("defaults") or {}).get("run") or {}).get("shell")
    for job_id, job in (workflow.get("jobs") or {}).items():
        job_default = ((job.get("defaults") or {}).get("run") or {}).get("shell", default)
        for i, step in enumerate(job.get("steps") or [], start=1):
            if "run" not in step:
                continue
            shell = step.get("shell", job_default) or "bash"
            if shell.split()[0] == "bash":
                yield f"job {job_id}, step {i} ({step.get('name', 'unnamed')})", str(step["run"])


def check(script):
    body = EXPRESSION.sub("EXPR", script)
    proc = subprocess.run(
        ["shellcheck", "--shell=bash", f"--exclude={EXCLUDED}", "-"],
        input=body, capture_output=True, text=True, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workflows", nargs="+")
    args = parser.parse_args(argv)
    status, checked = 0, 0
    for path in args.workflows:
        try:
            with open(path, encoding="utf-8") as f:
                workflow = YAML(typ="safe").load(f)
        except (OSError, YAMLError) as e:
            print(f"{path}: {e}", file=sys.stderr)
            return 2
        for where, script in bash_steps(workflow or {}):
            checked += 1
            rc, out = check(script)
            if rc != 0:
                print(f"{path}: {where}:\n{out}")
                status = 1
    if status == 0:
        print(f"shellcheck: {checked} run: scripts clean in {len(args.workflows)} workflow(s)")
    return status


if __name__ == "__main__":
    sys.exit(main())
