"""tools/workflow_shellcheck.py: shellcheck over the workflows' run: scripts
(tools/lint runs it in CI, where .ci/run installs shellcheck)."""
import shutil
from pathlib import Path

import pytest

pytest.importorskip("ruamel.yaml", reason="ruamel.yaml not installed (tools/pyproject.toml [lint])")
if not shutil.which("shellcheck"):
    pytest.skip("shellcheck not installed (Debian package shellcheck)", allow_module_level=True)

import workflow_shellcheck  # noqa: E402

WORKFLOWS = sorted(str(p) for p in (Path(__file__).resolve().parents[2] / ".github/workflows").glob("*.yml"))

BAD = """on: push
defaults:
  run:
    shell: bash
jobs:
  a:
    runs-on: x
    steps:
      - name: fine
        run: echo "${{ github.sha }}"
      - name: broken
        run: |
          if [ "$x" = 1 ] then echo; fi
      - name: not bash
        shell: python
        run: print(1 +)
"""


def test_the_projects_workflows_are_clean(capsys):
    assert workflow_shellcheck.main(WORKFLOWS) == 0
    assert "run: scripts clean" in capsys.readouterr().out


def test_a_broken_bash_step_is_reported_with_where(tmp_path, capsys):
    path = tmp_path / "bad.yml"
    path.write_text(BAD)
    assert workflow_shellcheck.main([str(path)]) == 1
    out = capsys.readouterr().out
    assert "job a, step 2 (broken)" in out and "SC1010" in out
    assert "step 1" not in out and "step 3" not in out  # expressions are placeholders; python is not bash


def test_unreadable_yaml_exits_2(tmp_path):
    path = tmp_path / "bad.yml"
    path.write_text("jobs: [\n")
    assert workflow_shellcheck.main([str(path)]) == 2
