import sys
from pathlib import Path

# The tools are importable from the source tree without installing them.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

FIXTURES = Path(__file__).resolve().parent / "fixtures"
