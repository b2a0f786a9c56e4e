"""Tools over cuda_bench result JSON: one loader (results.py), small CLIs on top.

Importing the package checks that this Python has the tools' requirements
(tools/pyproject.toml, read by tools/requirements.py, by installed metadata: no
import): without them every CLI stops here with one line that names what is
missing and how to get it, exit 2, instead of a traceback from deep inside.
"""
import sys
from pathlib import Path


def _requirements_problem():
    """One line saying what this interpreter lacks, or None (also when the package is
    installed without tools/requirements.py beside it: pip saw to its requirements)."""
    tools = Path(__file__).resolve().parent.parent
    if not (tools / "requirements.py").is_file():
        return None
    sys.path.insert(0, str(tools))
    try:
        import requirements
    finally:
        sys.path.remove(str(tools))
    gaps = requirements.missing(requirements.requirements([]))
    if not gaps:
        return None
    return (f"benchtools: {sys.executable} lacks the tools' requirements: {', '.join(gaps)}; use the project's "
            f".venv (tools/run-tests makes it; then export PATH=$PWD/.venv/bin:$PATH) or install "
            f"tools/requirements.lock into this Python (docs/setup.md)")


_problem = _requirements_problem()
if _problem:
    sys.stderr.write(_problem + "\n")
    raise SystemExit(2)
