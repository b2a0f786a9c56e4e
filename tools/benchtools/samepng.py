"""Charts redrawn on another machine can differ from the committed bytes by a
rounding step in an antialiased edge: a few pixels, a few levels of 255 (the
H200 roofline's inset connector moved 5 pixels by at most 2 levels between two
x86 machines with the same locked packages). tools/regenerate-plots (and so
CI's clean-tree check, .ci/run) asks this module which of the redrawn PNGs under
plots/ are the committed chart in that sense, and restores those; any other
change still shows (and fails CI).

Same chart: same size, no pixel of any channel moved by more than MAX_LEVEL
levels, and at most MAX_FRACTION of the pixels moved at all. A moved line,
marker, label or colour moves pixels by far more than MAX_LEVEL.

  python3 -m benchtools.samepng [DIR]   restore each modified PNG under DIR
                                        (default plots) that is the committed
                                        chart; print what it did; exit 0

DIR outside a git checkout (no committed chart to compare against), or not a
folder: one line on stderr, exit code 2.
"""
from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

from benchtools.cli import entry, Parser
from benchtools.results import ResultsError

MAX_LEVEL = 16           # of 255, per channel
MAX_FRACTION = 1e-4      # of the pixels


def compare(committed: bytes, redrawn: bytes) -> Tuple[bool, str]:
    """(same chart, what differs) for two PNG files' bytes."""
    import numpy as np
    from PIL import Image

    def pixels(data: bytes):
        return np.asarray(Image.open(io.BytesIO(data)).convert("RGBA"), dtype=np.int16)

    a, b = pixels(committed), pixels(redrawn)
    if a.shape != b.shape:
        return False, f"size {a.shape[1]}x{a.shape[0]} became {b.shape[1]}x{b.shape[0]}"
    moved = np.abs(a - b).max(axis=2)
    count, level = int((moved > 0).sum()), int(moved.max())
    total = moved.size
    what = f"{count} of {total} pixels moved, by at most {level} of 255"
    return count <= MAX_FRACTION * total and level <= MAX_LEVEL, what


def _git(*args: str, cwd: Path) -> bytes:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True).stdout


def restore_rounding(root: Path, folder: str = "plots") -> List[str]:
    """Restores every modified PNG under folder that compare() calls the same
    chart as HEAD's; returns one line per PNG looked at."""
    lines = []
    status = _git("status", "--porcelain", "--", folder, cwd=root).decode()
    for entry in status.splitlines():
        code, path = entry[:2], entry[3:]
        if code.strip() != "M" or not path.endswith(".png"):
            continue
        same, what = compare(_git("show", f"HEAD:{path}", cwd=root), (root / path).read_bytes())
        if same:
            _git("checkout", "--", path, cwd=root)
            lines.append(f"{path}: the committed chart ({what}); restored")
        else:
            lines.append(f"{path}: changed ({what})")
    return lines


@entry
def main(argv: List[str] | None = None) -> int:
    parser = Parser(prog="samepng", description="Restores each modified PNG under DIR that is the committed "
                    "chart but for rounding (same size, a few pixels moved by a few levels); prints what it did.")
    parser.add_argument("dir", nargs="?", default="plots", metavar="DIR",
                        help="folder of redrawn charts in a git checkout (default: plots)")
    try:
        args = parser.parse_args(argv)
        folder = Path(args.dir)
        if not folder.is_dir():
            raise ResultsError(f"{args.dir}: not a folder")
        try:
            root = Path(_git("rev-parse", "--show-toplevel", cwd=folder).decode().strip())
        except (OSError, subprocess.CalledProcessError):   # no git, or not a checkout
            raise ResultsError(f"{args.dir} is not in a git checkout (nothing to compare against)") from None
    except ResultsError as e:
        print(f"samepng: {e}", file=sys.stderr)
        return 2
    # git status and git show take paths from the checkout's top.
    for line in restore_rounding(root, folder.resolve().relative_to(root.resolve()).as_posix()):
        print(line, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
