"""bench-table over fixture JSON: the rows, the ratios to the library, the exit codes."""
import pytest
from conftest import FIXTURES

from benchtools import table
from benchtools.results import load_results

SMALL = str(FIXTURES / "h200_small.json")


def test_summary_rows_best_config_fastest_first_and_ratio_to_cub():
    rows = table.summary_rows(load_results(SMALL).records, n=1 << 30, baseline=None)
    i32 = rows[("reduce_sum", "i32")]
    assert [v for v, _, _ in i32] == ["cub_device_reduce", "batched", "tree"]  # 950, 1000, 2000 us
    by = {v: (r, ratio) for v, r, ratio in i32}
    assert by["tree"][0].block == 256                       # 2000 us beats block 512's 2500 us
    assert by["tree"][1] == pytest.approx(950 / 2000)       # baseline time / variant time
    assert by["batched"][0].batch == 16
    assert by["cub_device_reduce"][1] == pytest.approx(1.0)


def test_time_rows_pick_the_requested_sizes():
    rows = table.time_rows(load_results(SMALL).records, [1 << 20])
    assert rows[("reduce_sum", "i32")]["tree"][1 << 20].seconds == pytest.approx(8e-6)
    assert set(rows[("reduce_sum", "i32")]["tree"]) == {1 << 20}


def test_cli_prints_markdown(capsys):
    assert table.main([SMALL, "--n", "2^30", "--filter", "i32"]) == 0
    out = capsys.readouterr().out
    assert "#### reduce_sum i32 at N = 2^30" in out
    assert "| tree | block 256 | 2000.0 |" in out
    assert table.main([SMALL, "--times", "2^20,2^30"]) == 0
    assert "| tree | 8.00 | 2000.00 |" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["--n", "2^12"], "no benchmark at N"),
    (["--times", "2^12,2^14"], "no benchmark at N"),
    (["--n", "abc"], "--n"),
    (["--filter", "("], "not a valid regex"),
    (["--filter", "nothing_matches"], "no successful cuda_bench benchmarks"),
])
def test_cli_bad_input_exits_2(capsys, args, message):
    assert table.main([SMALL] + args) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
