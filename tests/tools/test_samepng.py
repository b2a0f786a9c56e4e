"""benchtools.samepng: which redrawn charts CI takes for the committed ones."""
from __future__ import annotations

import io
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from benchtools import samepng


def png(pixels: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(pixels.astype(np.uint8), "RGB").save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def chart() -> np.ndarray:
    rng = np.random.default_rng(7)
    return rng.integers(0, 256, size=(200, 300, 3))   # 60,000 pixels: 6 may move


def test_identical_and_rounding_level_changes_are_the_same_chart(chart):
    assert samepng.compare(png(chart), png(chart)) == (True, "0 of 60000 pixels moved, by at most 0 of 255")
    moved = chart.copy()
    for y, x in [(10, 10), (10, 11), (11, 10), (50, 200), (199, 299)]:   # the H200 roofline's case: 5 pixels, 2 levels
        moved[y, x] = np.clip(moved[y, x] + 2, 0, 255) if moved[y, x, 0] < 250 else moved[y, x] - 2
    same, what = samepng.compare(png(chart), png(moved))
    assert same, what
    assert what == "5 of 60000 pixels moved, by at most 2 of 255"


def test_one_pixel_moved_by_more_than_the_level_is_a_change(chart):
    moved = chart.copy()
    moved[100, 100] = (moved[100, 100] + 128) % 256
    same, what = samepng.compare(png(chart), png(moved))
    assert not same
    assert what.startswith("1 of 60000 pixels moved, by at most ")


def test_many_pixels_moved_a_little_is_a_change(chart):
    moved = chart.copy()
    moved[:, :1, 0] = np.where(moved[:, :1, 0] < 255, moved[:, :1, 0] + 1, 254)   # 200 pixels, 1 level
    same, what = samepng.compare(png(chart), png(moved))
    assert not same
    assert what == "200 of 60000 pixels moved, by at most 1 of 255"


def test_a_new_size_is_a_change(chart):
    same, what = samepng.compare(png(chart), png(chart[:100]))
    assert (same, what) == (False, "size 300x200 became 300x100")


def test_restores_only_what_is_the_committed_chart(tmp_path: Path, chart):
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "plots").mkdir()
    for name in ("rounded.png", "moved.png", "kept.png"):
        (tmp_path / "plots" / name).write_bytes(png(chart))
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "charts")
    rounded, moved = chart.copy(), chart.copy()
    rounded[0, 0] = np.where(rounded[0, 0] < 255, rounded[0, 0] + 1, 254)
    moved[0:20, 0:20] = 255 - moved[0:20, 0:20]
    (tmp_path / "plots" / "rounded.png").write_bytes(png(rounded))
    (tmp_path / "plots" / "moved.png").write_bytes(png(moved))

    lines = samepng.restore_rounding(tmp_path)

    assert lines == ["plots/moved.png: changed (400 of 60000 pixels moved, by at most 255 of 255)",
                     "plots/rounded.png: the committed chart (1 of 60000 pixels moved, by at most 1 of 255); restored"]
    status = subprocess.run(["git", "status", "--porcelain"], cwd=tmp_path, capture_output=True, text=True).stdout
    assert status.splitlines() == [" M plots/moved.png"]


def test_help_prints_the_usage(capsys):
    """--help used to be taken for a folder's name (nothing printed, exit 0)."""
    with pytest.raises(SystemExit) as e:
        samepng.main(["--help"])
    assert e.value.code == 0
    assert capsys.readouterr().out.startswith("usage: samepng [-h] [DIR]\n")


@pytest.mark.parametrize("argv, message", [
    (["--bogus"], "samepng: unrecognized arguments: --bogus"),
    (["plots", "more"], "samepng: unrecognized arguments: more"),
    (["missing"], "samepng: missing: not a folder"),
])
def test_bad_usage_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plots").mkdir()
    assert samepng.main(argv) == 2
    assert capsys.readouterr().err.splitlines() == [message]


def test_outside_a_git_checkout_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    """It used to end in git's CalledProcessError traceback."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))   # wherever the temporary folder is
    plots = tmp_path / "plots"
    plots.mkdir()
    assert samepng.main([str(plots)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"samepng: {plots} is not in a git checkout (nothing to compare against)"]


def test_the_folder_is_found_from_any_working_folder(tmp_path: Path, monkeypatch, capsys, chart):
    """DIR is a path from where it runs (git status and git show take it from the checkout's top)."""
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "plots").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "plots" / "rounded.png").write_bytes(png(chart))
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-qm", "charts")
    rounded = chart.copy()
    rounded[0, 0] = np.where(rounded[0, 0] < 255, rounded[0, 0] + 1, 254)
    (tmp_path / "plots" / "rounded.png").write_bytes(png(rounded))
    monkeypatch.chdir(tmp_path / "tools")

    assert samepng.main(["../plots"]) == 0

    assert capsys.readouterr().err.startswith("plots/rounded.png: the committed chart (")
    assert (tmp_path / "plots" / "rounded.png").read_bytes() == png(chart)
