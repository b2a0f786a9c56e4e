"""bench-plot over fixture JSON: the numbers it draws, the files it writes, its exit codes."""
import math

import pytest
from conftest import FIXTURES

from benchtools import plot
from benchtools.results import load_results

SMALL = str(FIXTURES / "h200_small.json")
ROOF = str(FIXTURES / "h200_roofline.json")  # made by fixtures/make_h200_roofline.py
P20, P22, P24, P28 = 1 << 20, 1 << 22, 1 << 24, 1 << 28


def reduce_bps(n, us):
    return (4 * n + 4) / (us * 1e-6)


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
    assert plot.main([SMALL, "--out", str(tmp_path), "--charts", "bandwidth"]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["bandwidth_reduce_sum_f32.png", "bandwidth_reduce_sum_f32.svg",
                     "bandwidth_reduce_sum_i32.png", "bandwidth_reduce_sum_i32.svg"]
    assert all((tmp_path / n).stat().st_size > 1000 for n in names)
    assert (tmp_path / "bandwidth_reduce_sum_i32.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_filter_and_format(tmp_path):
    assert plot.main([SMALL, "--out", str(tmp_path), "--filter", "i32/", "--format", "png", "--charts", "bandwidth"]) == 0
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
    expect_one_line_exit_2(tmp_path, capsys, setup, args, message)


def expect_one_line_exit_2(tmp_path, capsys, setup, args, message):
    """bench-plot on bad input: exit 2, `message` on one stderr line, nothing written."""
    setup(tmp_path)
    argv = [a.format(d=tmp_path) for a in args] + ["--out", str(tmp_path / "out")]
    assert plot.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "out").exists()


# --- h200_roofline.json: ceilings, context peaks, reduce_sum i32/f32, vector_add f16/bf16 ---

def roof_input():
    run = load_results(ROOF)
    return [run], run.records


def test_speedup_is_baseline_time_over_best_config_time_at_the_same_n():
    charts = plot.speedup_series(roof_input()[1])
    # vector_add bf16 has no CUB baseline; the ceilings are not kernels: no chart for either
    assert set(charts) == {("reduce_sum", "i32"), ("reduce_sum", "f32"), ("vector_add", "f16")}
    i32 = charts[("reduce_sum", "i32")]
    assert "cub_device_reduce" not in i32                      # the baseline is the line at 1
    assert [(n, x) for n, x, _ in i32["batched_vec16"]] == [
        (P20, pytest.approx(8 / 10)), (P24, pytest.approx(40 / 42)), (P28, pytest.approx(240 / 255))]
    assert [r.batch for _, _, r in i32["batched_vec16"]] == [8, 16, 8]   # best config per N
    # tree was also run at 2^22, where CUB was not: no ratio there
    assert [(n, x) for n, x, _ in i32["tree"]] == [(P24, pytest.approx(40 / 110)), (P28, pytest.approx(240 / 1900))]
    f16 = charts[("vector_add", "f16")]                        # baseline: cub_device_transform
    assert [x for _, x, _ in f16["f16x8"]] == pytest.approx([5 / 5.5, 25 / 24, 380 / 372])
    assert [n for n, _, _ in f16["cpu_threads"]] == [P20, P24]


def test_baseline_choice_and_override():
    assert plot.choose_baseline(["tree", "cub_device_reduce", "thrust_reduce"]) == "cub_device_reduce"
    assert plot.choose_baseline(["f16x8", "cub_device_transform"]) == "cub_device_transform"
    assert plot.choose_baseline(["cub_device_transform", "cub_device_reduce"]) == "cub_device_reduce"
    assert plot.choose_baseline(["argmax_tree", "cub_device_arg_max"]) == "cub_device_arg_max"
    assert plot.choose_baseline(["bf16x8"]) is None
    assert plot.choose_baseline(["tree", "cub_device_reduce"], "tree") == "tree"
    assert plot.choose_baseline(["tree", "cub_device_reduce"], "thrust_reduce") is None
    charts = plot.speedup_series(roof_input()[1], baseline="thrust_reduce")
    assert set(charts) == {("reduce_sum", "i32")}
    assert [x for _, x, _ in charts[("reduce_sum", "i32")]["cub_device_reduce"]] == pytest.approx(
        [20 / 8, 48 / 40, 260 / 240])


def test_roofs_measured_and_theoretical_by_type():
    runs, records = roof_input()
    read = 4 * P24 / 15e-6                      # best read_vec16 is at 2^24, not the largest N
    f32 = plot.roofs(runs, records, "f32")
    assert f32.bandwidth == pytest.approx(read)
    assert f32.compute == pytest.approx(2048 * P24 / 560e-6)          # ceiling/f32/fma, best over N
    assert f32.peak_bandwidth == pytest.approx(4812.3e9)
    assert f32.peak_compute == pytest.approx(66908160000000)
    assert f32.ridge == pytest.approx(2048 * P24 / 560e-6 / read)     # ~13.7 op/byte
    assert f32.peak_ridge == pytest.approx(66908160000000 / 4812.3e9)
    assert f32.missing == ()
    f16, bf16 = plot.roofs(runs, records, "f16"), plot.roofs(runs, records, "bf16")
    assert f16 == bf16                                                 # both under the half2 roof
    assert f16.compute == pytest.approx(4096 * P24 / 580e-6)
    assert f16.peak_compute == pytest.approx(133816320000000)
    i32 = plot.roofs(runs, records, "i32")
    assert i32.compute == pytest.approx(1024 * P24 / 1100e-6)
    assert i32.peak_compute == pytest.approx(16727040000000)
    f64 = plot.roofs(runs, records, "f64")
    assert f64.compute is None and f64.bandwidth == pytest.approx(read)
    assert any("f64" in m for m in f64.missing)


def test_roofs_missing_from_an_old_file_are_named():
    run = load_results(SMALL)
    r = plot.roofs([run], run.records, "i32")
    assert (r.bandwidth, r.compute, r.peak_compute, r.ridge) == (None, None, None, None)
    assert r.peak_bandwidth == pytest.approx(4812.3e9)
    assert len(r.missing) == 3


def test_roofline_points_are_each_variants_best_config_at_n():
    records = [r for r in roof_input()[1] if (r.family, r.type) == ("reduce_sum", "i32")]
    points = plot.roofline_points(records)                  # default: the largest N, 2^28
    assert [v for v, _, _, _ in points] == ["batched_vec16", "cub_device_reduce", "one_pass_atomic",
                                            "thrust_reduce", "tree"]
    variant, x, y, r = points[0]
    assert (r.n, r.block, r.batch) == (P28, 256, 8)
    assert x == pytest.approx((P28 - 1) / (4 * P28 + 4))    # declared ops / declared bytes
    assert y == pytest.approx((P28 - 1) / 255e-6)
    at24 = dict((v, r) for v, _, _, r in plot.roofline_points(records, P24))
    assert at24["batched_vec16"].batch == 16 and at24["tree"].block == 512
    f16 = [r for r in roof_input()[1] if (r.family, r.type) == ("vector_add", "f16")]
    assert {v: x for v, x, _, _ in plot.roofline_points(f16)} == {
        "cub_device_transform": pytest.approx(1 / 6), "f16x8": pytest.approx(1 / 6),
        "scalar": pytest.approx(1 / 6), "thrust_transform": pytest.approx(1 / 6)}   # cpu_threads: no 2^28


def test_roof_fraction_uses_the_attainable_roof():
    runs, records = roof_input()
    f32 = plot.roofs(runs, records, "f32")
    assert plot.roof_fraction(f32, 0.25, 1e12) == pytest.approx(1e12 / (0.25 * f32.bandwidth))
    assert plot.roof_fraction(f32, 1000.0, 3e13) == pytest.approx(3e13 / f32.compute)


def test_heatmap_grid_and_best_cell():
    records = roof_input()[1]
    blocks, batches, m, best = plot.heatmap_grid(records, ("reduce_sum", "i32", "batched_vec16"), P28)
    assert (blocks, batches, best) == ([128, 256, 512], [4, 8, 16], (1, 1))
    assert m[0][2] == pytest.approx(reduce_bps(P28, 276.0) / 1e9)      # row block 128, column batch 16
    assert m[1][1] == pytest.approx(reduce_bps(P28, 255.0) / 1e9)
    blocks, batches, m, best = plot.heatmap_grid(records, ("reduce_sum", "f32", "batched_vec16"), P28)
    assert (blocks, batches, best) == ([256, 512], [8, 16], (0, 0))
    assert math.isnan(m[1][1])                                          # (512, 16) was not measured
    blocks, batches, m, best = plot.heatmap_grid(records, ("reduce_sum", "i32", "tree"), P28)
    assert (blocks, batches, best, m.shape) == ([256, 512], [None], (0, 0), (2, 1))
    assert plot.heatmap_grid(records, ("reduce_sum", "i32", "tree"), P20) is None


def test_heatmap_targets():
    records = roof_input()[1]
    assert plot.heatmap_targets(records) == [
        (("reduce_sum", "f32", "batched_vec16"), P28), (("reduce_sum", "i32", "batched_vec16"), P28),
        (("reduce_sum", "i32", "tree"), P28), (("vector_add", "f16", "f16x8"), P28)]
    assert plot.heatmap_targets(records, n=P24) == [
        (("reduce_sum", "i32", "batched_vec16"), P24), (("reduce_sum", "i32", "tree"), P24)]
    # an explicit regex takes a variant even with one config; N defaults per variant
    assert plot.heatmap_targets(records, "f16/(scalar|cpu)") == [
        (("vector_add", "f16", "cpu_threads"), P24), (("vector_add", "f16", "scalar"), P28)]


def test_cli_writes_every_chart_for_the_fixture(tmp_path, capsys):
    assert plot.main([ROOF, "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().err == ""                    # every roof present: no warning
    stems = ["bandwidth_ceiling_f32", "bandwidth_reduce_sum_i32", "bandwidth_reduce_sum_f32",
             "bandwidth_vector_add_f16", "bandwidth_vector_add_bf16",
             "speedup_reduce_sum_i32", "speedup_reduce_sum_f32", "speedup_vector_add_f16",
             "roofline_reduce_sum_i32", "roofline_reduce_sum_f32", "roofline_vector_add_f16",
             "roofline_vector_add_bf16",
             "heatmap_reduce_sum_i32_batched_vec16", "heatmap_reduce_sum_i32_tree",
             "heatmap_reduce_sum_f32_batched_vec16", "heatmap_vector_add_f16_f16x8"]
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(f"{s}.{ext}" for s in stems for ext in ("png", "svg"))
    assert all((tmp_path / n).stat().st_size > 1000 for n in names)


def test_cli_chart_selection_n_and_heatmap(tmp_path):
    args = [ROOF, "--out", str(tmp_path), "--format", "png", "--charts", "roofline,heatmap", "--n", "2^24",
            "--heatmap", "i32/tree"]
    assert plot.main(args) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "heatmap_reduce_sum_i32_tree.png", "roofline_reduce_sum_f32.png", "roofline_reduce_sum_i32.png",
        "roofline_vector_add_bf16.png", "roofline_vector_add_f16.png"]


def test_cli_filter_keeps_the_ceilings_for_the_roofs(tmp_path, capsys):
    assert plot.main([ROOF, "--out", str(tmp_path), "--format", "png", "--filter", "reduce_sum/i32",
                      "--charts", "roofline,speedup"]) == 0
    assert capsys.readouterr().err == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["roofline_reduce_sum_i32.png", "speedup_reduce_sum_i32.png"]


def test_cli_missing_roofs_warn_once(tmp_path, capsys):
    assert plot.main([SMALL, "--out", str(tmp_path), "--format", "png", "--charts", "roofline"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "warning: roofline drawn without" in err[0]
    assert "ceiling/*/read_vec16" in err[0] and "gpu_peak_int32_ops" in err[0] and "gpu_peak_fp32_flops" in err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["roofline_reduce_sum_f32.png", "roofline_reduce_sum_i32.png"]


def test_cli_truncated_roofline_input_warns_and_plots(tmp_path, capsys):
    text = open(ROOF).read()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: text.index('"name": "vector_add/f16/scalar')])
    assert plot.main([str(cut), "--out", str(tmp_path / "out"), "--format", "png"]) == 0
    assert "truncated" in capsys.readouterr().err
    assert (tmp_path / "out" / "roofline_vector_add_f16.png").exists()


@pytest.mark.parametrize("setup, args, message", [
    (lambda d: (d / "x.json").write_text(open(ROOF).read()[:300]), ["{d}/x.json"], "not valid JSON"),
    (lambda d: (d / "x.json").write_text('{"baseline": "a.json", "rows": []}'), ["{d}/x.json"],
     "not Google Benchmark JSON"),
    (lambda d: None, [ROOF, "--n", "12345"], "--n 12345: no benchmark at N = 12345"),
    (lambda d: None, [ROOF, "--n", "2^40"], "no benchmark at N = 1099511627776"),
    (lambda d: None, [ROOF, "--n", "big"], "--n: expected a positive integer or 2^k"),
    (lambda d: None, [ROOF, "--heatmap", "("], "--heatmap '(': not a valid regex"),
    (lambda d: None, [ROOF, "--heatmap", "no_such"], "--heatmap 'no_such': matches no variant"),
    (lambda d: None, [ROOF, "--baseline", "no_such"], "--baseline no_such: no such variant"),
    (lambda d: None, [ROOF, "--charts", "pie"], "--charts: expected a comma list"),
    (lambda d: None, [ROOF, "--filter", "ceiling", "--n", "2^20"], "--n 2^20: no benchmark"),
    (lambda d: None, [ROOF, "--no-such-option"], "unrecognized arguments"),
])
def test_cli_new_bad_input_exits_2_with_one_line(tmp_path, capsys, setup, args, message):
    expect_one_line_exit_2(tmp_path, capsys, setup, args, message)
