"""bench-published over fixture JSON: the committed published file, the rows and their
numbers, the choice of our block/batch, the GPU check, and one-line exit-2 errors."""
import csv
import io
import json
from pathlib import Path

import pytest
from conftest import FIXTURES

from benchtools import published
from benchtools.results import load_results

REPO = Path(__file__).resolve().parents[2]
DEFAULT_IN_REPO = "results/published/vector_sum_writeup_h100.json"
PUBLISHED = str(REPO / DEFAULT_IN_REPO)
H100 = str(FIXTURES / "h100_vector_sum.json")
H200 = str(FIXTURES / "h200_small.json")
N30 = 1 << 30
BYTES = 4 * N30 + 4  # the fixture's declared bytes for i32 at 2^30


def rows_by_kernel(published_in="blog"):
    pub = published.load_published(PUBLISHED)
    run = load_results(H100)
    return {row.figure.kernel: row for row in published.compare(run.records, run.errors, pub, published_in)}


def test_committed_file_holds_the_published_figures_and_maps_to_our_variants():
    pub = published.load_published(PUBLISHED)
    assert pub.gpu == "H100" and pub.n == N30 and pub.peak_gbps == 3300
    blog = {f.kernel: f.gbps for f in pub.figures if f.published_in == "blog"}
    assert blog == {"kernel_0": 639.103, "kernel_1": 661.203, "kernel_2": 882.823,
                    "kernel_3": 3226.86, "kernel_4": 3229.98, "kernel_5": 3191.42}
    series = {f.kernel: "/".join(f.series) for f in pub.figures}
    assert series["kernel_4"] == "reduce_sum/i32/batched_vec16"
    assert series["kernel_5"] == "reduce_sum/i32/cub_device_reduce"
    assert series["kernel_9"] == "reduce_sum/i32/batched_vec16_reduce_add_sync"
    # every mapped variant is one our sources declare (the sum write-up's file or the CUB baseline)
    sources = (REPO / "src/kernels/reduce/vector_sum.cu").read_text() + \
        (REPO / "src/baselines/reduce/cub_device_reduce.cu").read_text()
    for name in set(series.values()):
        assert f'"{name.split("/")[2]}"' in sources, name


def test_percentages_are_of_the_stated_peak():
    # a check that the figures were copied consistently: published % = GB/s / 3300
    for f in published.load_published(PUBLISHED).figures:
        assert f.percent_of_peak == pytest.approx(f.gbps / 3300 * 100, abs=0.006), (f.kernel, f.published_in)


def test_ours_at_the_write_ups_block_even_when_another_is_faster():
    row = rows_by_kernel()["kernel_0"]
    assert (row.ours.block, row.ours.seconds) == (512, pytest.approx(6400e-6))
    assert row.how == "block 512 (the write-up's)"
    assert row.ratio == pytest.approx(BYTES / 6400e-6 / 1e9 / 639.103)


def test_ours_at_our_best_when_the_write_ups_config_was_not_measured():
    rows = rows_by_kernel()
    assert rows["kernel_1"].how == "best of 1: block 256 (write-up: block 512)"
    k3 = rows["kernel_3"]
    assert (k3.ours.block, k3.ours.batch) == (512, 8)          # 1600 us beats block 256's 2000 us
    assert k3.how == "best of 2: block 512, batch 8 (write-up: block 512, batch 12)"
    assert k3.ratio == pytest.approx(BYTES / 1600e-6 / 1e9 / 3226.86)


def test_median_aggregate_library_and_missing_rows():
    rows = rows_by_kernel()
    assert rows["kernel_4"].ours.seconds == pytest.approx(1330e-6)  # the median aggregate
    assert rows["kernel_5"].how == "no block/batch (the write-up's)"
    assert rows["kernel_5"].ratio == pytest.approx(BYTES / 1350e-6 / 1e9 / 3191.42)
    assert rows["kernel_2"].ours is None and rows["kernel_2"].how == "failed in our run"
    repo = rows_by_kernel("repo")
    assert repo["kernel_9"].ours is None and repo["kernel_9"].how == "not in our files"
    assert repo["kernel_5"].figure.gbps == 3190.53


def test_cli_markdown(capsys):
    assert published.main([H100, "--published", PUBLISHED]) == 0
    out = capsys.readouterr().out
    assert '"Making vector sum really fast" (Simon Veitner, https://veitner.bearblog.dev/' in out
    assert ("| kernel_0 | blog | reduce_sum/i32/two_pass_tree | 2^30 | 639.103 | 19.3668 | 6400.0 | 671.1 | "
            "block 512 (the write-up's) | 1.050 | H100 | NVIDIA H100 80GB HBM3 |") in out
    assert "| kernel_9 | repo | reduce_sum/i32/batched_vec16_reduce_add_sync | 2^30 | 3231.54 | 97.93 | - | - |" in out
    assert out.count("| kernel_") == 16   # 6 blog figures + 10 repository figures


def test_the_default_published_file_is_the_repositorys_from_any_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert published.main([H100, "--format", "csv"]) == 0
    assert len(list(csv.reader(io.StringIO(capsys.readouterr().out)))) == 17   # the header + 16 figures
    # an explicit --published stays relative to the caller's folder
    (tmp_path / "mine.json").write_text(Path(PUBLISHED).read_text())
    assert published.main([H100, "--published", "mine.json", "--format", "csv"]) == 0
    capsys.readouterr()
    assert published.main([H100, "--published", DEFAULT_IN_REPO]) == 2
    assert capsys.readouterr().err.startswith(f"bench-published: {DEFAULT_IN_REPO}: cannot read")


def test_cli_csv(capsys):
    assert published.main([H100, "--published", PUBLISHED, "--format", "csv", "--published-in", "blog"]) == 0
    table = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert table[0] == published.HEADER and len(table) == 7
    k3 = dict(zip(table[0], table[4]))
    assert k3["write-up kernel"] == "kernel_3" and k3["N"] == str(N30)
    assert float(k3["ours / published"]) == pytest.approx(BYTES / 1600e-6 / 1e9 / 3226.86, abs=5e-4)
    assert k3["our GPU"] == "NVIDIA H100 80GB HBM3" and k3["published GPU"] == "H100"


@pytest.mark.parametrize("name, model, match", [
    ("NVIDIA H100 80GB HBM3", "H100", True), ("NVIDIA H100 PCIe", "H100", True),
    ("NVIDIA H100 NVL", "h100", True), ("NVIDIA H200", "H100", False), ("NVIDIA H1000", "H100", False),
])
def test_gpu_model_match(name, model, match):
    assert published.gpu_matches(name, model) is match


def test_another_gpu_is_refused_unless_any_gpu(capsys):
    assert published.main([H200, "--published", PUBLISHED]) == 2
    err = capsys.readouterr().err.strip()
    assert "measured on NVIDIA H200" in err and "--any-gpu" in err and len(err.splitlines()) == 1
    assert published.main([H200, "--published", PUBLISHED, "--any-gpu", "--published-in", "blog"]) == 0
    out = capsys.readouterr().out
    assert "| kernel_5 | blog | reduce_sum/i32/cub_device_reduce | 2^30 | 3191.42 |" in out
    assert "| H100 | NVIDIA H200 |" in out


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _published_with(tmp_path, **changes):
    doc = json.loads(Path(PUBLISHED).read_text())
    for key, value in changes.items():
        if key == "n":
            doc["conditions"]["n"] = value
        elif key == "first_kernel":
            doc["kernels"][0].update(value)
        else:
            doc[key] = value
    return _write(tmp_path, "pub.json", json.dumps(doc))


@pytest.mark.parametrize("make_args, message", [
    (lambda t: [H100, H200, "--any-gpu"], "several GPUs"),
    (lambda t: [H100, "--format", "html"], "invalid choice"),
    (lambda t: [H100, "--published-in", "paper"], "no figures published in 'paper'"),
    (lambda t: [_write(t, "bad.json", "{")], "not valid JSON"),
    (lambda t: [H100, "--published", str(t / "missing.json")], "cannot read"),
    (lambda t: [H100, "--published", _write(t, "x.json", "[1, 2")], "not valid JSON"),
    (lambda t: [H100, "--published", H100], "not a published-figures file"),
    (lambda t: [H100, "--published", _published_with(t, n=4096)], "no benchmark of the published kernels at N = 2^12"),
    (lambda t: [H100, "--published", _published_with(t, first_kernel={"ours": "two_pass_tree"})],
     "'ours' must be family/type/variant"),
    (lambda t: [H100, "--published", _published_with(t, first_kernel={"block": "512"})], "'block' must be"),
    (lambda t: [H100, "--published", _published_with(t, first_kernel={"figures": [{"in": "blog", "gbps": -1}]})],
     "'gbps' must be positive"),
    (lambda t: [H100, "--published", _published_with(t, kernels=[])], "no published figures"),
])
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, make_args, message):
    argv = make_args(tmp_path)
    if "--published" not in argv:
        argv += ["--published", PUBLISHED]
    assert published.main(argv) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert message in err and len(err.splitlines()) == 1 and err.startswith("bench-published: ")
    assert captured.out == ""
