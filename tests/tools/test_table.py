"""bench-table over fixture JSON: the rows, the ratios to the reference, GPUs side by
side and compared, markdown and CSV, the exit codes."""
import csv
import io

import pytest
from conftest import FIXTURES

from benchtools import table
from benchtools.results import load_results
from benchtools.shape import group_by_gpu

SMALL = str(FIXTURES / "h200_small.json")
ROOF = str(FIXTURES / "h200_roofline.json")
H100 = str(FIXTURES / "h100_roofline.json")
P24, P28 = 1 << 24, 1 << 28


def test_summary_rows_best_config_fastest_first_and_ratio_to_the_reference():
    rows = table.summary_rows(load_results(SMALL).records, n=1 << 30, baseline="cub_device_reduce")
    i32 = rows[("reduce_sum", "i32")]
    assert [v for v, _, _ in i32] == ["cub_device_reduce", "batched", "tree"]  # 950, 1000, 2000 us
    by = {v: (r, ratio) for v, r, ratio in i32}
    assert by["tree"][0].block == 256                       # 2000 us beats block 512's 2500 us
    assert by["tree"][1] == pytest.approx(950 / 2000)       # baseline time / variant time
    assert by["batched"][0].batch == 16
    # without roles and without --baseline nothing is guessed
    assert {ratio for _, _, ratio in table.summary_rows(load_results(SMALL).records, 1 << 30, None)[("reduce_sum", "i32")]} == {None}
    declared = table.summary_rows(load_results(ROOF).records, P28, None, order="declared")[("reduce_sum", "i32")]
    assert [v for v, _, _ in declared] == ["cub_device_reduce", "thrust_reduce", "one_pass_atomic", "batched_vec16", "tree"]
    assert dict((v, x) for v, _, x in declared)["batched_vec16"] == pytest.approx(240 / 255)   # declared reference


def test_time_rows_pick_the_requested_sizes():
    rows = table.time_rows(load_results(SMALL).records, [1 << 20])
    assert rows[("reduce_sum", "i32")]["tree"][1 << 20].seconds == pytest.approx(8e-6)
    assert set(rows[("reduce_sum", "i32")]["tree"]) == {1 << 20}


def test_compare_rows_are_each_gpus_best_record_at_the_largest_common_n():
    gpus = group_by_gpu([load_results(ROOF), load_results(H100)])
    rows = table.compare_rows(gpus, None)
    n, i32 = rows[("reduce_sum", "i32")]
    assert n == P28
    by = {v: rs for v, rs in i32}
    assert by["batched_vec16"][1].seconds / by["batched_vec16"][0].seconds == pytest.approx(1.5)
    assert by["tree"][1].seconds / by["tree"][0].seconds == pytest.approx(1.4)
    assert table.compare_rows(gpus, P24)[("reduce_sum", "i32")][0] == P24


def test_cli_prints_markdown(capsys):
    assert table.main([SMALL, "--n", "2^30", "--filter", "i32", "--baseline", "cub_device_reduce"]) == 0
    out = capsys.readouterr().out
    assert "#### reduce_sum i32 at N = 2^30" in out
    assert "| variant | block/batch | µs | GB/s | of peak | vs cub_device_reduce |" in out
    gbps = (4 * 2**30 + 4) / 2000e-6
    assert f"| tree | block 256 | 2000.0 | {gbps / 1e9:.0f} | {gbps / 4812.3e9:.1%} | 0.47 |" in out
    assert table.main([SMALL, "--times", "2^20,2^30"]) == 0
    assert "| tree | 8.00 | 2000.00 |" in capsys.readouterr().out


def test_two_gpus_side_by_side_each_against_its_own_peak(capsys):
    assert table.main([ROOF, H100, "--filter", "reduce_sum/i32", "--n", "2^28"]) == 0
    out = capsys.readouterr().out
    assert "µs (NVIDIA H200)" in out and "µs (NVIDIA H100 80GB HBM3)" in out
    row = next(line for line in out.splitlines() if line.startswith("| cub_device_reduce |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    bytes_ = 4 * P28 + 4
    # the same variant: 240 us on the H200 against 4812.3 GB/s, 336 us on the H100 against 3352.3 GB/s
    assert cells[2] == "240.0" and cells[4] == f"{bytes_ / 240e-6 / 4812.3e9:.1%}"
    assert cells[7] == "336.0" and cells[9] == f"{bytes_ / 336e-6 / 3352.3e9:.1%}"
    assert all(float(c.rstrip("%")) < 100 for c in (cells[4], cells[9]))


def test_compare_gpus_markdown_and_csv(capsys):
    assert table.main([ROOF, H100, "--compare-gpus", "--filter", "reduce_sum/i32"]) == 0
    out = capsys.readouterr().out
    assert "| variant | µs (NVIDIA H200) | µs (NVIDIA H100 80GB HBM3) | NVIDIA H100 80GB HBM3 / NVIDIA H200 time |" in out
    assert "| batched_vec16 | 255.0 | 382.5 | 1.50 |" in out
    assert table.main([ROOF, H100, "--compare-gpus", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    vec = next(r for r in rows if (r["type"], r["variant"]) == ("i32", "batched_vec16"))
    assert (vec["n"], vec["reference_gpu"], vec["gpu"]) == (str(P28), "NVIDIA H200", "NVIDIA H100 80GB HBM3")
    assert float(vec["time_ratio"]) == pytest.approx(1.5) and float(vec["reference_us"]) == pytest.approx(255.0)


def test_csv_summary_and_times(capsys):
    assert table.main([ROOF, H100, "--filter", "vector_add/f16", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {r["gpu"] for r in rows} == {"NVIDIA H200", "NVIDIA H100 80GB HBM3"}
    f16x8 = next(r for r in rows if r["variant"] == "f16x8" and r["gpu"] == "NVIDIA H200")
    assert (f16x8["role"], f16x8["block"], f16x8["batch"], f16x8["baseline"]) == ("kernel", "256", "2",
                                                                                  "cub_device_transform")
    assert float(f16x8["us"]) == pytest.approx(372.0) and float(f16x8["vs_baseline"]) == pytest.approx(380 / 372)
    assert float(f16x8["gbps"]) == pytest.approx(6 * P28 / 372e-6 / 1e9, rel=1e-5)
    assert table.main([ROOF, "--times", "2^24", "--filter", "reduce_sum/i32/tree", "--format", "csv"]) == 0
    assert capsys.readouterr().out == ("gpu,family,type,variant,n,us,us_ci_low,us_ci_high,samples,stop_reason\n"
                                       "NVIDIA H200,reduce_sum,i32,tree,16777216,110,,,,\n")   # no intervals: empty


@pytest.mark.parametrize("args, message", [
    (["--n", "2^12"], "no benchmark at N"),
    (["--times", "2^12,2^14"], "no benchmark at N"),
    (["--n", "abc"], "--n"),
    (["--filter", "("], "not a valid regex"),
    (["--filter", "nothing_matches"], "no successful cuda_bench benchmarks"),
    (["--format", "xml"], "--format: expected one of markdown, csv"),
    (["--order", "random"], "--order: expected one of fastest, declared"),
    (["--compare-gpus"], "--compare-gpus: the input holds runs of one GPU only"),
    (["--compare-gpus", "--times", "2^20"], "choose one"),
])
def test_cli_bad_input_exits_2(capsys, args, message):
    assert table.main([SMALL] + args) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and captured.out == ""


SAMPLED = str(FIXTURES / "sampled_interleaved.json")   # made by fixtures/make_sampled_fixtures.py


def test_times_print_median_plus_minus_half_width_and_mark_precision_not_reached(capsys):
    assert table.main([SAMPLED, "--times", "2^20,2^28"]) == 0
    out = capsys.readouterr().out
    r = {x.name: x for x in load_results(SAMPLED).records}["reduce_sum/i32/slow_kernel/N:1048576/block:256"]
    assert f"| slow_kernel | {r.seconds * 1e6:.2f} ± {100 * r.relative_half_width:.2f}% † |" in out
    assert "| cub_device_reduce | 10.01 ± 0.12% | 270.18 ± 0.07% |" in out
    assert out.count("† precision not reached: sampling stopped on its time or sample cap") == 1
    assert "± the half-width of its 95% interval" in out
    assert table.main([SAMPLED, "--n", "2^28"]) == 0          # the summary: intervals, nothing capped at 2^28
    out = capsys.readouterr().out
    assert "| cub_device_reduce | - | 270.2 ± 0.07% |" in out and "†" not in out


def test_csv_carries_the_interval_samples_and_stop_reason(capsys):
    assert table.main([SAMPLED, "--times", "2^20", "--format", "csv"]) == 0
    rows = {r["variant"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert (rows["slow_kernel"]["samples"], rows["slow_kernel"]["stop_reason"]) == ("150", "time")
    assert float(rows["cub_device_reduce"]["us_ci_low"]) < float(rows["cub_device_reduce"]["us"]) \
        < float(rows["cub_device_reduce"]["us_ci_high"])
    assert table.main([SMALL, "--format", "csv"]) == 0        # a file from before: the columns stay empty
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {(r["us_ci_low"], r["samples"], r["stop_reason"]) for r in rows} == {("", "", "")}


def test_files_without_intervals_print_as_before(capsys):
    assert table.main([SMALL, "--times", "2^20"]) == 0
    out = capsys.readouterr().out
    assert "±" not in out and "†" not in out
