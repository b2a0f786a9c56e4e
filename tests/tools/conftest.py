import sys
from pathlib import Path

# The tools are importable from the source tree without installing them.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def build_packages_present():
    """What tools/common.sh's ensure_system_packages checks (else a script under test would install them)."""
    def header(h):
        return any(Path(root, h).exists() for root in ("/usr/include", "/usr/local/include"))
    return (Path("/usr/bin/g++").exists() and header("benchmark/benchmark.h") and header("gtest/gtest.h")
            and header("nlohmann/json.hpp"))


def pytest_terminal_summary(terminalreporter):
    """How many generated cases the property tests ran (issue 19 asks for at least 5,000 per run)."""
    props = sys.modules.get("test_properties")
    if props is not None and props.CASES["run"]:
        terminalreporter.write_line(f"test_properties.py: {props.CASES['run']} generated cases")
