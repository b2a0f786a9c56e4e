"""bench-plot over fixture JSON: the files it writes, byte-identical when redrawn,
one panel per GPU, its warnings and exit codes. The numbers are tested in test_shape.py."""
import json
import re

import pytest
from conftest import FIXTURES

from benchtools import draw, plot, shape
from benchtools.results import load_results

SMALL = str(FIXTURES / "h200_small.json")
ROOF = str(FIXTURES / "h200_roofline.json")   # made by fixtures/make_h200_roofline.py
H100 = str(FIXTURES / "h100_roofline.json")

ONE_GPU = ["bandwidth_ceiling_f32", "bandwidth_reduce_sum_i32", "bandwidth_reduce_sum_f32",
           "bandwidth_vector_add_f16", "bandwidth_vector_add_bf16",
           "speedup_reduce_sum_i32", "speedup_reduce_sum_f32", "speedup_vector_add_f16",
           "time_reduce_sum_i32", "time_vector_add_f16", "roofline_families",
           "heatmap_reduce_sum_i32_batched_vec16", "heatmap_reduce_sum_i32_tree",
           "heatmap_reduce_sum_f32_batched_vec16", "heatmap_vector_add_f16_f16x8"]
GPU_COMPARE = ["gpucompare_reduce_sum_i32", "gpucompare_reduce_sum_f32", "gpucompare_vector_add_f16",
               "gpucompare_vector_add_bf16"]


def names(d):
    return sorted(p.name for p in d.iterdir())


def test_cli_writes_every_chart_kind_for_the_fixture(tmp_path, capsys):
    assert plot.main([ROOF, "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().err == ""                    # roles and every roof present: no warning
    assert names(tmp_path) == sorted(f"{s}.{ext}" for s in ONE_GPU for ext in ("png", "svg"))
    assert all((tmp_path / n).stat().st_size > 1000 for n in names(tmp_path))
    assert (tmp_path / "bandwidth_reduce_sum_i32.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_files_of_two_gpus_add_the_gpu_comparison_and_draw_a_panel_per_gpu(tmp_path):
    assert plot.main([ROOF, H100, "--out", str(tmp_path), "--format", "svg", "--charts", "bandwidth,gpucompare"]) == 0
    assert names(tmp_path) == sorted(f"{s}.svg" for s in ONE_GPU + GPU_COMPARE if s.startswith(("band", "gpuc")))
    svg = (tmp_path / "bandwidth_reduce_sum_i32.svg").read_text()
    # both GPUs named, each with its own peak line label: never merged into one
    assert "NVIDIA H200, run 2026-11-22" in svg and "NVIDIA H100 80GB HBM3, run 2026-11-22" in svg
    assert "theoretical peak 4812 GB/s" in svg and "theoretical peak 3352 GB/s" in svg


def test_two_gpu_figures_have_a_row_or_column_of_axes_per_gpu():
    gpus = shape.group_by_gpu([load_results(ROOF), load_results(H100)])
    chart = next(c for c in shape.bandwidth_charts(gpus) if c.stem == "bandwidth_reduce_sum_i32")
    fig = draw.line_chart(chart)
    assert len(fig.axes) == 4                                   # lines and ladder bars, per GPU
    line_axes = [fig.axes[0], fig.axes[2]]
    assert [ax.get_title() for ax in line_axes] == [p.label for p in chart.panels]
    draw.close(fig)
    speed = draw.line_chart(next(c for c in shape.speedup_charts(gpus) if c.stem == "speedup_reduce_sum_i32"))
    assert len(speed.axes) == 2
    draw.close(speed)


def test_redrawing_the_same_json_gives_the_same_bytes(tmp_path):
    args = ["--format", "png,svg,pdf", "--charts", "bandwidth,roofline", "--filter", "reduce_sum/i32"]
    assert plot.main([ROOF, "--out", str(tmp_path / "a")] + args) == 0
    assert plot.main([ROOF, "--out", str(tmp_path / "b")] + args) == 0
    files = names(tmp_path / "a")
    assert files == names(tmp_path / "b") and {f.rsplit(".", 1)[1] for f in files} == {"png", "svg", "pdf"}
    for f in files:
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    svg = (tmp_path / "a" / "roofline_families.svg").read_text()
    assert "<dc:date>" not in svg and "Matplotlib v" not in svg       # no date, no tool version
    assert (tmp_path / "a" / "roofline_families.pdf").read_bytes()[:5] == b"%PDF-"
    assert b"CreationDate" not in (tmp_path / "a" / "roofline_families.pdf").read_bytes()


def test_charts_drawn_by_several_processes_are_the_same_files_in_the_same_order(tmp_path, capsys):
    args = ["--format", "png,svg,pdf"]
    assert plot.main([ROOF, "--out", str(tmp_path / "one"), "--jobs", "1"] + args) == 0
    serial = capsys.readouterr().out.splitlines()
    assert plot.main([ROOF, "--out", str(tmp_path / "four"), "--jobs", "4"] + args) == 0
    parallel = capsys.readouterr().out.splitlines()
    assert [p.replace("/four/", "/one/") for p in parallel] == serial and len(serial) == 3 * len(ONE_GPU)
    for f in names(tmp_path / "one"):
        assert (tmp_path / "one" / f).read_bytes() == (tmp_path / "four" / f).read_bytes(), f
    assert plot.default_jobs() >= 1


def test_cli_filter_and_format(tmp_path):
    assert plot.main([SMALL, "--out", str(tmp_path), "--filter", "i32/", "--format", "png", "--charts", "bandwidth"]) == 0
    assert names(tmp_path) == ["bandwidth_reduce_sum_i32.png"]


def test_cli_chart_selection_n_and_heatmap(tmp_path):
    args = [ROOF, "--out", str(tmp_path), "--format", "pdf", "--charts", "roofline,heatmap", "--n", "2^24",
            "--heatmap", "i32/tree"]
    assert plot.main(args) == 0
    assert names(tmp_path) == ["heatmap_reduce_sum_i32_tree.pdf", "roofline_families.pdf"]


def test_cli_filter_keeps_the_ceilings_for_the_roofs(tmp_path, capsys):
    assert plot.main([ROOF, "--out", str(tmp_path), "--format", "png", "--filter", "reduce_sum/i32",
                      "--charts", "roofline,speedup,time"]) == 0
    assert capsys.readouterr().err == ""
    assert names(tmp_path) == ["roofline_families.png", "speedup_reduce_sum_i32.png", "time_reduce_sum_i32.png"]


def test_a_file_without_roles_warns_once_naming_the_annotate_command(tmp_path, capsys):
    assert plot.main([SMALL, "--out", str(tmp_path), "--format", "png", "--charts", "bandwidth,speedup"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "role" in err[0] and "python3 -m benchtools.annotate" in err[0] and SMALL in err[0]
    # no declared reference and no --baseline: no speedup chart is guessed
    assert names(tmp_path) == ["bandwidth_reduce_sum_f32.png", "bandwidth_reduce_sum_i32.png"]
    assert plot.main([SMALL, "--out", str(tmp_path), "--format", "png", "--charts", "speedup",
                      "--baseline", "cub_device_reduce"]) == 0
    assert "speedup_reduce_sum_i32.png" in names(tmp_path)


def test_cli_missing_roofs_warn_once(tmp_path, capsys):
    assert plot.main([SMALL, "--out", str(tmp_path), "--format", "png", "--charts", "roofline"]) == 0
    err = [line for line in capsys.readouterr().err.strip().splitlines() if "roofline" in line]
    assert len(err) == 1 and "warning: roofline drawn without" in err[0]
    assert "ceiling/*/read_vec16" in err[0] and "gpu_peak_int32_ops" in err[0] and "gpu_peak_fp32_flops" in err[0]
    assert names(tmp_path) == ["roofline_families.png"]


@pytest.mark.parametrize("path", [SMALL, ROOF])
def test_cli_truncated_input_warns_and_plots(tmp_path, capsys, path):
    text = open(path).read()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: text.index('"name": "vector_add/f16/scalar')] if path == ROOF else text[: len(text) // 2])
    assert plot.main([str(cut), "--out", str(tmp_path / "out"), "--format", "png", "--charts", "roofline"]) == 0
    assert "truncated" in capsys.readouterr().err
    assert (tmp_path / "out" / "roofline_families.png").exists()


@pytest.mark.parametrize("setup, args, message", [
    (lambda d: (d / "x.json").write_text("garbage"), ["{d}/x.json"], "not valid JSON"),
    (lambda d: (d / "x.json").write_text('{"context": {}, "benchmarks": []}'), ["{d}/x.json"],
     "not a cuda_bench results file"),
    (lambda d: None, ["{d}/missing.json"], "cannot read"),
    (lambda d: None, [SMALL, "--filter", "no_such_family"], "no successful cuda_bench benchmarks"),
    (lambda d: None, [SMALL, "--filter", "("], "not a valid regex"),
    (lambda d: None, [SMALL, "--format", "gif"], "--format: expected a comma list of png, svg, pdf"),
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
    (lambda d: None, [ROOF, "--charts", "bandwidth,gpucompare"],
     "--charts gpucompare needs files of two or more GPUs; the input holds one (NVIDIA H200)"),
    (lambda d: None, [ROOF, "--filter", "reduce_sum", "--charts", "gpucompare"],
     "the input holds one matching --filter (NVIDIA H200)"),
    (lambda d: None, [ROOF, "--filter", "ceiling", "--n", "2^20"], "--n 2^20: no benchmark"),
    (lambda d: None, [ROOF, "--no-such-option"], "unrecognized arguments"),
    (lambda d: None, [ROOF, "--jobs", "0"], "--jobs: expected a positive whole number of processes, got '0'"),
    (lambda d: None, [ROOF, "--jobs", "many"], "--jobs: expected a positive whole number of processes, got 'many'"),
    (lambda d: None, [ROOF, "--jobs", "\u00b2"], "--jobs: expected a positive whole number of processes, got '\u00b2'"),
])
def test_cli_bad_input_exits_2_with_one_line(tmp_path, capsys, setup, args, message):
    """bench-plot on bad input: exit 2, `message` on one stderr line, nothing written."""
    setup(tmp_path)
    argv = [a.format(d=tmp_path) for a in args] + ["--out", str(tmp_path / "out")]
    assert plot.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err
    assert len(err.splitlines()) == 1 and re.match(r"^bench-plot: ", err)
    assert not (tmp_path / "out").exists()


def test_a_chart_name_too_long_for_the_file_system_is_named_before_any_chart_is_drawn(tmp_path, capsys):
    doc = json.loads(open(SMALL).read())
    long = "t" * 300
    for b in doc["benchmarks"]:
        for key in ("name", "run_name", "declaration", "reference"):
            if isinstance(b.get(key), str):
                b[key] = b[key].replace("/tree", f"/{long}")
    path = tmp_path / "long.json"
    path.write_text(json.dumps(doc))
    out = tmp_path / "out"
    assert plot.main([str(path), "--out", str(out), "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert err == (f"bench-plot: --out {out}/heatmap_reduce_sum_i32_{long}.png: cannot write: file name too long "
                   "(327 bytes, at most 255 here)\n")
    assert not out.exists()


SAMPLED = str(FIXTURES / "sampled_interleaved.json")   # made by fixtures/make_sampled_fixtures.py


def to_hex(color):
    from matplotlib.colors import to_hex as hex_
    return hex_(color)


def _bars(ax, color):
    """{N: (low, high)} of the interval bars drawn in a color (errorbar's LineCollection)."""
    out = {}
    for c in ax.containers:
        segments = c.lines[2][0]
        if to_hex(segments.get_color()[0]) == color:
            out.update({seg[0][0]: (seg[0][1], seg[1][1]) for seg in segments.get_segments()})
    return out


def test_time_and_bandwidth_charts_draw_each_median_interval_and_mark_capped_points():
    gpus = shape.group_by_gpu([load_results(SAMPLED)])
    records = {r.name: r for r in gpus[0].records}
    slow = records["reduce_sum/i32/slow_kernel/N:1048576/block:256"]
    time_chart = next(c for c in shape.time_charts(gpus) if c.stem == "time_reduce_sum_i32")
    panel = time_chart.panels[0]
    assert panel.intervals["slow_kernel"] == [(1 << 20, pytest.approx(slow.ci_low_seconds * 1e6),
                                               pytest.approx(slow.ci_high_seconds * 1e6))]
    assert panel.capped == {"slow_kernel": [1 << 20]}
    bw = next(c for c in shape.bandwidth_charts(gpus) if c.stem == "bandwidth_reduce_sum_i32").panels[0]
    nbytes = 4 * (1 << 20) + 4
    # GB/s interval: declared bytes / ci_high .. declared bytes / ci_low
    assert bw.intervals["slow_kernel"][0] == (1 << 20, pytest.approx(nbytes / slow.ci_high_seconds / 1e9),
                                              pytest.approx(nbytes / slow.ci_low_seconds / 1e9))
    assert [n for n, _, _ in bw.intervals["cub_device_reduce"]] == [1 << 20, 1 << 28]

    fig = draw.line_chart(time_chart)
    ax = fig.axes[0]
    color = to_hex(draw.line_style(time_chart.emphasis["slow_kernel"])["color"])
    assert _bars(ax, color) == {1 << 20: (pytest.approx(slow.ci_low_seconds * 1e6),
                                                  pytest.approx(slow.ci_high_seconds * 1e6))}
    hollow = [line for line in ax.get_lines() if line.get_label() == draw.NOT_REACHED_LABEL]
    assert len(hollow) == 1 and list(hollow[0].get_xdata()) == [1 << 20]
    assert hollow[0].get_markerfacecolor() == "white"
    assert draw.NOT_REACHED_LABEL in [t.get_text() for t in ax.get_legend().get_texts()]   # named once
    draw.close(fig)


def test_files_without_intervals_draw_no_interval_bars():
    gpus = shape.group_by_gpu([load_results(ROOF)])
    chart = next(c for c in shape.bandwidth_charts(gpus) if c.stem == "bandwidth_reduce_sum_i32")
    assert chart.panels[0].intervals == {} and chart.panels[0].capped == {}


def test_charts_with_intervals_redraw_to_the_same_bytes(tmp_path):
    for d in ("a", "b"):
        assert plot.main([SAMPLED, "--out", str(tmp_path / d), "--format", "png,svg", "--charts", "bandwidth,time"]) == 0
    for f in names(tmp_path / "a"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


@pytest.mark.parametrize("count", [1, 5, 7, 8, 9, 17, 40])
def test_no_two_library_lines_of_a_chart_look_alike(count):
    # A versus chart draws up to 7 library paths (three a CCCL and the reference): with a
    # palette of 5 the sixth and seventh took the first two colours and the same marker.
    emphasis = shape.ranked({f"path{i}": "library" for i in range(count)})
    looks = [(draw.line_style(e)["color"], draw.line_style(e)["marker"], draw.line_style(e)["linestyle"])
             for e in emphasis.values()]
    assert len(set(looks)) == count
    # the first five keep the colours the committed charts were drawn with
    assert [c for c, _, _ in looks[:5]] == ["#111111", "#e6550d", "#3182bd", "#31a354", "#756bb1"][:count]
    assert all(m == "s" for _, m, _ in looks[:len(draw.LIBRARY_COLORS)])
