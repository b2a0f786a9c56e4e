"""bench-plot over fixture JSON: the numbers it draws, the files it writes, its exit codes."""
import pytest
from conftest import FIXTURES

from benchtools import plot
from benchtools.results import load_results

SMALL = str(FIXTURES / "h200_small.json")


def test_bandwidth_series_numbers():
    charts = plot.bandwidth_series(load_results(SMALL).records)
    assert set(charts) == {("reduce_sum", "i32"), ("reduce_sum", "f32")}
    tree = charts[("reduce_sum", "i32")]["tree"]
    # best block per N: 512 at 2^20 (8 us), 256 at 2^30 (2000 us); GB/s = bytes / time / 1e9
    assert [n for n, _, _ in tree] == [1 << 20, 1 << 30]
    assert tree[0][1] == pytest.approx((4 * 2**20 + 4) / 8e-6 / 1e9)
    assert tree[1][1] == pytest.approx((4 * 2**30 + 4) / 2000e-6 / 1e9)
    assert tree[0][2].block == 512


def test_colors_are_fixed_per_variant():
    a = plot.variant_colors(["tree", "cub_device_reduce", "batched"])
    b = plot.variant_colors(["batched", "tree", "cub_device_reduce", "tree"])
    assert a == b
    assert len(set(a.values())) == 3


def test_cli_writes_a_chart_per_family_and_type(tmp_path, capsys):
    assert plot.main([SMALL, "--out", str(tmp_path)]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["bandwidth_reduce_sum_f32.png", "bandwidth_reduce_sum_f32.svg",
                     "bandwidth_reduce_sum_i32.png", "bandwidth_reduce_sum_i32.svg"]
    assert all((tmp_path / n).stat().st_size > 1000 for n in names)
    assert (tmp_path / "bandwidth_reduce_sum_i32.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_filter_and_format(tmp_path):
    assert plot.main([SMALL, "--out", str(tmp_path), "--filter", "i32/", "--format", "png"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bandwidth_reduce_sum_i32.png"]


def test_cli_truncated_input_warns_and_plots(tmp_path, capsys):
    text = open(SMALL).read()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 2])
    assert plot.main([str(cut), "--out", str(tmp_path / "out"), "--format", "png"]) == 0
    assert "truncated" in capsys.readouterr().err


@pytest.mark.parametrize("setup, args, message", [
    (lambda d: (d / "x.json").write_text("garbage"), ["{d}/x.json"], "not valid JSON"),
    (lambda d: (d / "x.json").write_text('{"context": {}, "benchmarks": []}'), ["{d}/x.json"],
     "not a cuda_bench results file"),
    (lambda d: None, ["{d}/missing.json"], "cannot read"),
    (lambda d: None, [SMALL, "--filter", "no_such_family"], "no successful cuda_bench benchmarks"),
    (lambda d: None, [SMALL, "--filter", "("], "not a valid regex"),
    (lambda d: None, [SMALL, "--format", "gif"], "--format"),
])
def test_cli_bad_input_exits_2_with_one_line(tmp_path, capsys, setup, args, message):
    setup(tmp_path)
    argv = [a.format(d=tmp_path) for a in args] + ["--out", str(tmp_path / "out")]
    assert plot.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err
    assert len(err.splitlines()) == 1
