"""The repository as a newcomer clones it (issue 19): a lean working tree, runs
stored compressed and readable by every tool, and the A/A history rule of
results/README.md kept. These read the checkout's tracked files."""
import json
import subprocess
from pathlib import Path

import pytest

from benchtools.results import GZIP_MAGIC, load_results, read_text
from benchtools.shape import slug

ROOT = Path(__file__).resolve().parents[2]
BUDGET = 30 * 1000 * 1000   # bytes: a fresh clone's working tree (issue 19)
# JSON files under results/ that are not runs: small tool files and tool outputs, kept as their tools write them.
PLAIN_JSON = ("results/regression/noise_", "results/published/", "results/declarations/", "results/autotune/",
              "results/audit/")


def tracked():
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [p for p in out.decode().split("\0") if p and (ROOT / p).is_file()]


def test_a_fresh_clone_is_under_its_size_budget():
    sizes = {p: (ROOT / p).stat().st_size for p in tracked()}
    total = sum(sizes.values())
    largest = sorted(sizes.items(), key=lambda kv: -kv[1])[:5]
    assert total <= BUDGET, f"{total / 1e6:.1f} MB tracked (budget {BUDGET / 1e6:.0f} MB); largest: {largest}"


def test_runs_in_results_are_compressed_and_plots_have_one_format():
    files = tracked()
    plain = [p for p in files if p.startswith("results/") and p.endswith(".json") and not p.startswith(PLAIN_JSON)]
    assert plain == [], "runs under results/ are stored as .json.gz"
    for p in files:
        if p.endswith(".gz"):
            assert (ROOT / p).read_bytes()[:2] == GZIP_MAGIC, p
    assert [p for p in files if p.startswith("plots/") and not p.endswith(".png")] == []
    assert not [p for p in files if p.startswith("results/") and p.endswith((".cu", ".html", ".svg"))]


def test_every_reference_run_and_baseline_reads_like_json():
    for folder in ("reference", "baseline"):
        paths = sorted((ROOT / "results" / folder).glob("*.json.gz"))
        assert paths, folder
        for path in paths:
            run = load_results(path)
            assert run.records and not run.truncated, path
            assert path.name == slug(run.context["gpu_name"]) + ".json.gz", "named after the GPU model it holds"


def test_the_history_kept_is_what_the_noise_files_list():
    """results/README.md's rule: every A/A run a noise file lists is committed."""
    for noise in sorted((ROOT / "results" / "regression").glob("noise_*.json")):
        runs = json.loads(read_text(noise))["runs"]
        assert runs, noise
        for run in runs:
            assert (ROOT / run["path"]).is_file(), f"{noise.name} lists {run['path']}, which is not committed"


def test_read_text_is_the_same_for_json_and_json_gz(tmp_path):
    import gzip

    text = '{"context": {}, "benchmarks": []}\n'
    (tmp_path / "a.json").write_text(text)
    (tmp_path / "a.json.gz").write_bytes(gzip.compress(text.encode(), mtime=0))
    assert read_text(tmp_path / "a.json") == read_text(tmp_path / "a.json.gz") == text
