"""A kernel against every library path, per N (bench-table --versus, bench-plot --charts
versus) over a bench-merge file of two builds, and tools/run-floor-check's plumbing with
stand-in binaries."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, build_packages_present

from benchtools import merge, plot, table, versus
from benchtools.results import load_results, read_text
from benchtools.shape import group_by_gpu

ROOT = Path(__file__).resolve().parents[2]
C30, C35 = FIXTURES / "floor_cccl30.json", FIXTURES / "floor_cccl35.json"
REAL = ROOT / "results" / "checks" / "floor_cub35"
P10, P20, P30 = 1 << 10, 1 << 20, 1 << 30
PATHS = ["cub_device_reduce", "cub_device_reduce@cccl3.5.0", "cub_reduce_nondeterministic",
         "cub_reduce_nondeterministic_allocating"]
CEILING = 4 * P30 / 917e-6   # the fixture's read_vec16 at 2^30


@pytest.fixture(scope="module")
def merged(tmp_path_factory):
    out = tmp_path_factory.mktemp("versus") / "merged.json"
    merge.main([str(C30), str(C35), "--out", str(out)])
    return out


def tables(path, kernel="floor_sum", libraries=None):
    gpu = group_by_gpu([load_results(path)])[0]
    return {t.type: t for t in versus.versus_tables(gpu, kernel, libraries)}


def call(main, argv):
    try:
        return main([str(a) for a in argv])
    except SystemExit as e:
        return e.code


def test_paths_roles_versions_and_reference_come_from_the_json(merged):
    t = tables(merged)["i32"]
    assert t.paths == PATHS                 # role "library", declaration order; the kernels left out
    assert t.versions == {"floor_sum": "3.0.1", "floor_sum@cccl3.5.0": "3.5.0", "cub_device_reduce": "3.0.1",
                          "cub_device_reduce@cccl3.5.0": "3.5.0", "cub_reduce_nondeterministic": "3.5.0",
                          "cub_reduce_nondeterministic_allocating": "3.5.0"}
    assert t.copies == ["floor_sum@cccl3.5.0"]   # the kernel as the CCCL 3.5 build's run measured it
    assert t.reference == "cub_device_reduce"   # floor_sum's declared reference, in its own build
    assert t.by_version() == {"3.0.1": ["cub_device_reduce"], "3.5.0": PATHS[1:]}
    assert t.label("cub_device_reduce@cccl3.5.0") == "cub_device_reduce (CCCL 3.5.0)"
    assert t.ceiling == pytest.approx(CEILING)
    rows = {row.n: row for row in t.rows}
    assert sorted(rows) == [P10, P20, P30]
    assert rows[P20].speedup("cub_device_reduce") == pytest.approx(8.0 / 6.0)   # the medians
    # a CCCL 3.5 path over the kernel of its own run (6.05 µs there), not the toolkit run's 6.00
    assert rows[P20].kernel_for("cub_device_reduce@cccl3.5.0").variant == "floor_sum@cccl3.5.0"
    assert rows[P20].speedup("cub_device_reduce@cccl3.5.0") == pytest.approx(8.2 / 6.05)
    assert rows[P20].lowest(PATHS) == ("cub_reduce_nondeterministic", pytest.approx(5.5 / 6.05))
    assert rows[P10].lowest(PATHS)[0] == "cub_device_reduce@cccl3.5.0"
    assert rows[P10].paths["cub_device_reduce"].seconds == pytest.approx(4.4e-6)


def test_ratio_columns(merged):
    assert tables(merged)["i32"].ratio_columns() == [
        ("cub_device_reduce (CCCL 3.0.1)", ["cub_device_reduce"]),
        ("fastest CCCL 3.5.0 path", PATHS[1:]),
        ("fastest path", PATHS)]
    # the later build's kernel: its reference is that build's copy, one of three paths of its version
    t = tables(merged, "floor_sum@cccl3.5.0")["i32"]
    assert t.reference == "cub_device_reduce@cccl3.5.0"
    assert t.ratio_columns()[-1] == ("cub_device_reduce (CCCL 3.5.0) (reference)", ["cub_device_reduce@cccl3.5.0"])
    assert t.ratio_columns(every_path=False)[-2][0] == "fastest CCCL 3.5.0 path"


def test_a_role_changed_in_the_json_changes_the_paths(merged, tmp_path):
    d = json.loads(merged.read_text())
    for b in d["benchmarks"]:
        if "cub_reduce_nondeterministic/" in b["name"]:
            b["role"] = "kernel"
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(d))
    assert "cub_reduce_nondeterministic" not in tables(edited)["i32"].paths
    assert tables(edited, libraries=["cub_reduce_nondeterministic"])["i32"].paths == ["cub_reduce_nondeterministic"]


def test_best_block_batch_per_n_for_a_swept_kernel(merged):
    t = tables(merged, "floor_sum_fixed")["i32"]
    (row,) = t.rows
    assert (row.n, row.kernel.block, row.kernel.batch) == (P20, 256, 1)   # 6.5 µs beats 7.0


def test_markdown_table(merged, capsys):
    assert call(table.main, [merged, "--versus", "floor_sum"]) == 0
    out = capsys.readouterr().out
    assert "#### reduce_sum i32: floor_sum against every library path (NVIDIA H200)" in out
    assert ("| N | floor_sum µs | floor_sum (CCCL 3.5.0) µs | cub_device_reduce (CCCL 3.0.1) µs | "
            "cub_device_reduce (CCCL 3.5.0) µs | cub_reduce_nondeterministic (CCCL 3.5.0) µs | "
            "cub_reduce_nondeterministic_allocating (CCCL 3.5.0) µs | "
            "vs cub_device_reduce (CCCL 3.0.1) | vs fastest CCCL 3.5.0 path | vs fastest path | closest path | "
            "of read ceiling |") in out
    of_ceiling = (4 * P20 + 4) / 6e-6 / CEILING
    # each CCCL 3.5 path over floor_sum as the CCCL 3.5 run measured it (6.05 and 4.05 µs)
    assert (f"| 2^20 | 6.00 | 6.05 | 8.00 | 8.20 | 5.50 | 18.00 | 1.333 | {5.5 / 6.05:.3f} | {5.5 / 6.05:.3f} | "
            f"cub_reduce_nondeterministic (CCCL 3.5.0) | {of_ceiling:.3f} |") in out
    assert f"| 2^10 | 4.00 | 4.05 | 4.40 | 4.30 | 5.00 | 17.00 | 1.100 | {4.3 / 4.05:.3f} | {4.3 / 4.05:.3f} | " in out
    assert "µs per call: the median of the repetitions" in out
    assert ("Each path is compared with floor_sum as measured in the path's own run (floor_sum (CCCL 3.5.0) for "
            "CCCL 3.5.0: the same process), so what differs between processes cancels") in out
    assert f"over cub_device_reduce (CCCL 3.0.1): lowest {925 / 920:.3f} at N = 2^30" in out
    assert f"over fastest path: lowest {5.5 / 6.05:.3f} at N = 2^20 (cub_reduce_nondeterministic (CCCL 3.5.0))" in out
    # the board that ran it, from the JSON's context (the fixtures give no driver version)
    assert "Board: GPU-fixture-0000-0000-000000000001, run 2026-11-22." in out


def _with_intervals(tmp_path, half_width=0.004, equal_at=None, drop=()):
    """The two fixture builds with a 95% interval of +-half_width on every repetition (as
    cuda_bench's precision sampling writes them), merged; equal_at: (type, N) where the
    CCCL 3.5 run's cub_reduce_nondeterministic is given its floor_sum's times; drop: names
    whose repetitions 1 and 2 the CCCL 3.5 run loses (failed), their aggregates kept."""
    files = []
    for src in (C30, C35):
        doc = json.loads(src.read_text())
        for n in (equal_at or ("", []))[1]:
            key = f"reduce_sum/{equal_at[0]}/%s/N:{n}/manual_time"
            kernel = {b.get("repetition_index"): b["real_time"] for b in doc["benchmarks"]
                      if b["name"] == key % "floor_sum" and b.get("run_type") == "iteration"}
            for b in doc["benchmarks"]:
                if b["name"] == key % "cub_reduce_nondeterministic" and b.get("run_type") == "iteration":
                    b["real_time"] = kernel[b["repetition_index"]]
                elif b["name"].startswith(key % "cub_reduce_nondeterministic") and b.get("aggregate_name") == "median":
                    b["real_time"] = sorted(kernel.values())[1]
        if src == C35:
            doc["benchmarks"] = [b for b in doc["benchmarks"] if not (
                b["name"] in drop and b.get("run_type") == "iteration" and b.get("repetition_index") in (1, 2))]
        for b in doc["benchmarks"]:
            if b.get("run_type") == "iteration":
                b["ci_low"], b["ci_high"] = b["real_time"] * (1 - half_width), b["real_time"] * (1 + half_width)
        files.append(tmp_path / src.name)
        files[-1].write_text(json.dumps(doc))
    out = tmp_path / "merged_ci.json"
    merge.main([str(files[0]), str(files[1]), "--out", str(out)])
    return out


def test_the_lowest_speedup_carries_bench_abs_interval_and_verdict(tmp_path, capsys):
    from benchtools import ab
    path = _with_intervals(tmp_path)
    assert call(table.main, [path, "--versus", "floor_sum"]) == 0
    out = capsys.readouterr().out
    gpu = group_by_gpu([load_results(path)])[0]
    # the same pair as bench-ab reads it: the CCCL 3.5 run's path against that run's kernel
    (c,) = [c for c in ab.compare(gpu.records, "floor_sum@cccl3.5.0")[("reduce_sum", "i32")]
            if c.n == P20 and c.variant == "cub_reduce_nondeterministic"]
    assert c.verdict == "faster" and c.high < 1   # CUB's nondeterministic sum: 5.5 µs against 6.05
    assert (f"over fastest path: lowest {5.5 / 6.05:.3f} at N = 2^20 (cub_reduce_nondeterministic (CCCL 3.5.0); "
            f"95% interval {c.low:.3f}-{c.high:.3f}: cub_reduce_nondeterministic (CCCL 3.5.0) faster)") in out
    # a verdict at 2^20: one process does not settle it, and the note says so
    assert "a verdict there by less than that is confirmed by runs in other processes" in out
    # the reference column alone: its lowest is at 2^30, where the note has nothing to add
    assert call(table.main, [path, "--versus", "floor_sum", "--libraries", "cub_device_reduce"]) == 0
    alone = capsys.readouterr().out
    assert f"lowest {925 / 920:.3f} at N = 2^30 (95% interval " in alone and ": floor_sum faster)" in alone
    assert "confirmed by runs in other processes" not in alone


def test_a_tie_reads_no_difference(tmp_path, capsys):
    # CUB 3.5's nondeterministic sum given the kernel's times where it was ahead (2^20, 2^30)
    path = _with_intervals(tmp_path, equal_at=("f32", [P20, P30]))
    assert call(table.main, [path, "--versus", "floor_sum", "--filter", "^reduce_sum/f32/"]) == 0
    out = capsys.readouterr().out
    assert ("over fastest CCCL 3.5.0 path: lowest 1.000 at N = 2^20 (cub_reduce_nondeterministic (CCCL 3.5.0); "
            "95% interval ") in out
    tie = re.search(r"over fastest CCCL 3\.5\.0 path: lowest 1\.000 at N = 2\^20 \([^;]*; "
                    r"95% interval ([0-9.]+)-([0-9.]+): no difference at this precision\)", out)
    assert tie and float(tie[1]) < 1 < float(tie[2])
    assert "a verdict there by less than that is confirmed by runs in other processes" in out


def test_a_path_whose_repetitions_failed_prints_without_an_interval(tmp_path, capsys):
    from benchtools import ab
    name = "reduce_sum/i32/cub_reduce_nondeterministic/N:1048576/manual_time"
    path = _with_intervals(tmp_path, drop=(name,))
    assert call(table.main, [path, "--versus", "floor_sum", "--filter", "^reduce_sum/i32/"]) == 0
    out = capsys.readouterr().out
    # its median is still in the table, with no interval to read: no verdict is made up for it
    assert f"over fastest path: lowest {5.5 / 6.05:.3f} at N = 2^20 (cub_reduce_nondeterministic (CCCL 3.5.0))" in out
    gpu = group_by_gpu([load_results(path)])[0]
    found = ab.compare(gpu.records, "floor_sum@cccl3.5.0")[("reduce_sum", "i32")]
    assert [c for c in found if c.n == P20 and c.variant == "cub_reduce_nondeterministic"] == []   # left out
    assert "no interval to compare them by" in capsys.readouterr().err


def test_the_speedup_chart_draws_each_speedups_interval(tmp_path, merged):
    from matplotlib.collections import LineCollection

    from benchtools import ab, draw
    path = _with_intervals(tmp_path)
    gpu = group_by_gpu([load_results(path)])[0]
    (chart,) = versus.versus_charts(gpu, versus.versus_tables(gpu, "floor_sum"))
    i32 = next(p for p in chart.panels if p.title == "reduce_sum i32")
    assert list(i32.speedup_intervals) == list(i32.speedups)   # a bar for every line, at every N
    assert [n for n, _, _ in i32.speedup_intervals["over fastest CCCL 3.5.0 path"]] == [P10, P20, P30]
    (c,) = [c for c in ab.compare(gpu.records, "floor_sum@cccl3.5.0")[("reduce_sum", "i32")]
            if c.n == P20 and c.variant == "cub_reduce_nondeterministic"]
    assert dict((n, (lo, hi)) for n, lo, hi in i32.speedup_intervals["over fastest CCCL 3.5.0 path"])[P20] == \
        (pytest.approx(c.low), pytest.approx(c.high))
    fig = draw.versus_chart(chart)
    bottom = fig.axes[len(chart.panels) + [p.title for p in chart.panels].index("reduce_sum i32")]
    segments = [seg for coll in bottom.collections if isinstance(coll, LineCollection) for seg in coll.get_segments()]
    assert any(seg[0][0] == P20 and seg[0][1] == pytest.approx(c.low) and seg[1][1] == pytest.approx(c.high)
               for seg in segments)
    assert draw.VERSUS_BARS_LABEL in fig.axes[-1].get_legend_handles_labels()[1]   # the last column names the bars
    legend = [t.get_text() for t in fig.axes[-1].get_legend().get_texts()]
    assert legend[-1] == draw.VERSUS_BARS_LABEL and legend.count(draw.VERSUS_BARS_LABEL) == 1   # named once, last
    low, high = bottom.get_ylim()
    assert all(low <= lo and hi <= high for bars in i32.speedup_intervals.values() for _, lo, hi in bars)
    draw.close(fig)
    # runs without intervals: no bars, no label
    gpu = group_by_gpu([load_results(merged)])[0]
    (chart,) = versus.versus_charts(gpu, versus.versus_tables(gpu, "floor_sum"))
    assert all(p.speedup_intervals == {} for p in chart.panels)
    fig = draw.versus_chart(chart)
    assert not any(draw.VERSUS_BARS_LABEL in ax.get_legend_handles_labels()[1] for ax in fig.axes)
    draw.close(fig)


def test_a_speedup_label_has_one_colour_in_every_panel(merged, tmp_path):
    from benchtools import draw
    # f32 without CUB 3.5's nondeterministic sums: its second speedup line is "over
    # cub_device_reduce (CCCL 3.5.0)", i32's "over fastest CCCL 3.5.0 path"
    doc = json.loads(read_text(merged))
    doc["benchmarks"] = [b for b in doc["benchmarks"] if not b["name"].startswith("reduce_sum/f32/cub_reduce_nondet")]
    path = tmp_path / "uneven.json"
    path.write_text(json.dumps(doc))
    gpu = group_by_gpu([load_results(path)])[0]
    (chart,) = versus.versus_charts(gpu, versus.versus_tables(gpu, "floor_sum"))
    assert {p.title: list(p.speedups) for p in chart.panels} == {
        "reduce_sum f32": ["over cub_device_reduce (CCCL 3.0.1)", "over cub_device_reduce (CCCL 3.5.0)"],
        "reduce_sum i32": ["over cub_device_reduce (CCCL 3.0.1)", "over fastest CCCL 3.5.0 path"]}
    fig = draw.versus_chart(chart)
    colours = {}
    for ax in fig.axes[len(chart.panels):]:
        for line in ax.get_lines():
            if line.get_label().startswith("over "):
                colours.setdefault(line.get_label(), set()).add(line.get_color())
    assert len(colours) == 3 and all(len(c) == 1 for c in colours.values())
    assert len(set.union(*colours.values())) == 3   # the merged legend names each colour once
    draw.close(fig)


def test_runs_without_intervals_give_the_lowest_alone(merged, capsys):
    assert call(table.main, [merged, "--versus", "floor_sum"]) == 0
    out = capsys.readouterr().out
    assert "95% interval" not in out and "confirmed by runs in other processes" not in out
    assert f"over fastest path: lowest {5.5 / 6.05:.3f} at N = 2^20 (cub_reduce_nondeterministic (CCCL 3.5.0))." in out


def test_the_versus_table_names_the_board_and_its_driver(merged, tmp_path, capsys):
    doc = json.loads(read_text(merged))
    doc["context"]["gpu_driver_version"] = "580.159.04"
    path = tmp_path / "with_driver.json"
    path.write_text(json.dumps(doc))
    assert call(table.main, [path, "--versus", "floor_sum"]) == 0
    assert "Board: GPU-fixture-0000-0000-000000000001 (driver 580.159.04), run 2026-11-22." in capsys.readouterr().out
    del doc["context"]["gpu_uuid"]
    path.write_text(json.dumps(doc))
    assert call(table.main, [path, "--versus", "floor_sum"]) == 0
    assert "Board:" not in capsys.readouterr().out


def test_without_the_kernel_in_a_paths_run_every_path_is_over_the_kernel_as_named(merged, tmp_path, capsys):
    d = json.loads(merged.read_text())
    d["benchmarks"] = [b for b in d["benchmarks"] if "/floor_sum@cccl3.5.0/" not in b["name"]]
    edited = tmp_path / "no_copy.json"
    edited.write_text(json.dumps(d))
    t = tables(edited)["i32"]
    assert t.copies == [] and {row.n: row for row in t.rows}[P20].same_run == {}
    assert call(table.main, [edited, "--versus", "floor_sum", "--filter", "i32"]) == 0
    out = capsys.readouterr().out
    assert "| vs fastest path | fastest path | of read ceiling |" in out
    assert (f"| 2^20 | 6.00 | 8.00 | 8.20 | 5.50 | 18.00 | 1.333 | {5.5 / 6:.3f} | {5.5 / 6:.3f} | "
            f"cub_reduce_nondeterministic (CCCL 3.5.0) |") in out
    assert "own run" not in out


def test_interleaved_pairs_say_so(merged, tmp_path, capsys):
    d = json.loads(merged.read_text())
    for b in d["benchmarks"]:
        parts = b["name"].split("/")
        b["interleave_group"] = f"{parts[0]}/{parts[1]}/{parts[3]}"
    edited = tmp_path / "interleaved.json"
    edited.write_text(json.dumps(d))
    assert call(table.main, [edited, "--versus", "floor_sum", "--filter", "i32"]) == 0
    assert "(CCCL 3.5.0) for CCCL 3.5.0: the same process, interleaved)" in capsys.readouterr().out


def test_share_of_the_ceiling_at_the_same_n(merged, capsys):
    # The fixture ran the read ceiling at 2^30 only: the column is that N's ratio, "-" elsewhere.
    t = tables(merged)["i32"]
    assert t.ceiling_at == {P30: pytest.approx(CEILING)}
    assert call(table.main, [merged, "--versus", "floor_sum", "--filter", "i32"]) == 0
    out = capsys.readouterr().out
    assert "| closest path | of read ceiling | of read at N |" in out
    at_30 = (4 * P30 + 4) / 920e-6 / CEILING   # floor_sum's median bytes/s over read_vec16's, both at 2^30
    assert f"| {at_30:.3f} | {at_30:.3f} |" in out
    assert f"| {(4 * P20 + 4) / 6e-6 / CEILING:.3f} | - |" in out
    assert "Of read at N: over that ceiling's GB/s at the same N" in out


def test_one_build_only_has_one_ratio_column(capsys):
    assert call(table.main, [C30, "--versus", "floor_sum", "--filter", "i32"]) == 0
    out = capsys.readouterr().out
    assert "| N | floor_sum µs | cub_device_reduce (CCCL 3.0.1) µs | vs cub_device_reduce (CCCL 3.0.1) | " \
           "of read ceiling |" in out
    assert "f32" not in out


def test_csv(merged, capsys):
    assert call(table.main, [merged, "--versus", "floor_sum", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "gpu,family,type,n,kernel,kernel_cccl,kernel_us,path,path_cccl,path_us,speedup"
    assert len(lines) == 1 + 2 * 3 * 4   # types x sizes x paths
    assert f"NVIDIA H200,reduce_sum,i32,{P20},floor_sum,3.5.0,6.05,cub_device_reduce,3.5.0,8.2,{8.2 / 6.05:.9g}" in lines
    assert f"NVIDIA H200,reduce_sum,i32,{P20},floor_sum,3.0.1,6,cub_device_reduce,3.0.1,8,{8 / 6:.9g}" in lines


@pytest.mark.parametrize("argv, message", [
    (["--versus", "nosuch"], "--versus nosuch: no such variant on NVIDIA H200 (kernels: floor_sum, "),
    (["--versus", "cub_device_reduce"], "--versus cub_device_reduce: declared role library, not 'kernel'"),
    (["--versus", "floor_sum", "--libraries", "nosuch"], "no library path (nosuch) beside it"),
    (["--versus", "floor_sum", "--times", "2^10"], "--compare-gpus, --times and --versus: choose one"),
    (["--libraries", "cub_device_reduce"], "--libraries needs --versus KERNEL"),
])
def test_table_refusals(merged, capsys, argv, message):
    assert call(table.main, [merged] + argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("bench-table: ") and message in err, err


def test_chart_data(merged):
    gpu = group_by_gpu([load_results(merged)])[0]
    (chart,) = versus.versus_charts(gpu, versus.versus_tables(gpu, "floor_sum"))
    assert chart.stem == "versus_reduce_sum_floor_sum" and chart.kernel == "floor_sum"
    i32 = next(p for p in chart.panels if p.title == "reduce_sum i32")
    assert list(i32.times) == ["floor_sum", "floor_sum (CCCL 3.5.0)", "cub_device_reduce (CCCL 3.0.1)",
                               "cub_device_reduce (CCCL 3.5.0)", "cub_reduce_nondeterministic (CCCL 3.5.0)",
                               "cub_reduce_nondeterministic_allocating (CCCL 3.5.0)"]
    assert i32.emphasis["floor_sum"].kind == "best" and i32.emphasis["floor_sum (CCCL 3.5.0)"].kind == "best"
    assert dict(i32.times["floor_sum (CCCL 3.5.0)"])[P20] == pytest.approx(6.05)
    # the copy is drawn in the kernel's colour, but dotted: the two lines stay apart where they cross
    from benchtools.draw import line_style
    kernel_line, copy_line = (line_style(i32.emphasis[k]) for k in ("floor_sum", "floor_sum (CCCL 3.5.0)"))
    assert kernel_line["color"] == copy_line["color"] and (kernel_line["linestyle"], copy_line["linestyle"]) == ("-", ":")
    assert i32.emphasis["cub_device_reduce (CCCL 3.0.1)"].rank == 0   # the reference looks the same everywhere
    assert dict(i32.times["floor_sum"])[P20] == pytest.approx(6.0)
    assert list(i32.speedups) == ["over cub_device_reduce (CCCL 3.0.1)", "over fastest CCCL 3.5.0 path"]
    assert dict(i32.speedups["over fastest CCCL 3.5.0 path"])[P20] == pytest.approx(5.5 / 6.05)


def test_plot_draws_the_versus_chart_byte_stable(merged, tmp_path, capsys):
    for d in ("a", "b"):
        assert call(plot.main, [merged, "--charts", "versus", "--versus", "floor_sum", "--out", tmp_path / d,
                          "--format", "svg,png"]) == 0
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["versus_reduce_sum_floor_sum.png",
                                                                 "versus_reduce_sum_floor_sum.svg"]
    assert (tmp_path / "a" / "versus_reduce_sum_floor_sum.svg").read_bytes() == \
        (tmp_path / "b" / "versus_reduce_sum_floor_sum.svg").read_bytes()
    capsys.readouterr()
    assert call(plot.main, [merged, "--out", tmp_path / "c", "--format", "svg"]) == 0   # not drawn unless asked for
    assert not any(p.name.startswith("versus_") for p in (tmp_path / "c").iterdir())


@pytest.mark.parametrize("argv, message", [
    (["--charts", "versus"], "--charts versus needs --versus KERNEL"),
    (["--versus", "nosuch"], "--versus nosuch: no such variant"),
])
def test_plot_refusals(merged, tmp_path, capsys, argv, message):
    assert call(plot.main, [merged, "--out", tmp_path / "out"] + argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err
    assert not (tmp_path / "out").exists()


def test_the_committed_floor_cub35_runs(tmp_path, capsys):
    """The two real same-board runs (their context predates gpu_uuid, so one is given here)
    merge, and the table gives the figures docs/timing.md quotes from them."""
    paths = []
    for name in ("floor_sum_v1_cub30_nvidia-h200.json.gz", "floor_sum_v1_cub35_nvidia-h200.json.gz"):
        d = json.loads(read_text(REAL / name))
        d["context"]["gpu_uuid"] = "GPU-given-by-the-test"
        paths.append(tmp_path / name.replace(".gz", ""))
        paths[-1].write_text(json.dumps(d))
    out = tmp_path / "merged.json"
    assert merge.main([str(p) for p in paths] + ["--out", str(out)]) == 0
    # these files declare no roles: nothing is guessed, the paths must be named
    assert call(table.main, [out, "--versus", "floor_sum"]) == 2
    assert "no library path (declared role 'library')" in capsys.readouterr().err
    assert call(table.main, [out, "--versus", "floor_sum", "--filter", "i32", "--libraries", ",".join(PATHS)]) == 0
    md = capsys.readouterr().out
    # docs/timing.md, "Before: the ticket combine": 2^10 floor 4.26 (256/1), CUB 3.0 4.70, CUB 3.5 ND 6.13
    assert "| 2^10 | 4.26 (block 256, batch 1) | 4.37 | 4.70 | 4.69 | 6.13 | " in md
    assert "| 2^30 | 923.59 (block 1024, batch 8) | 922.99 | 927.17 | " in md


# ---------------------------------------------------------------- tools/run-floor-check

SCRIPT = str(ROOT / "tools" / "run-floor-check")
FAKE = """#!/bin/sh
echo "$@" >> "{log}"
for a in "$@"; do case $a in --benchmark_out=*) cp "{fixture}" "${{a#--benchmark_out=}}" ;; esac; done
exit {rc}
"""


def fake_build(tmp_path, name, fixture, rc=0):
    d = tmp_path / name
    d.mkdir()
    exe = d / "cuda_bench"
    exe.write_text(FAKE.format(log=tmp_path / f"{name}.args", fixture=fixture, rc=rc))
    exe.chmod(0o755)
    return d


def run_script(tmp_path, *args, extra_path=(), **env):
    path = ":".join([*map(str, extra_path), str(Path(sys.executable).parent), "/usr/bin", "/bin"])
    return subprocess.run([SCRIPT, *map(str, args)], capture_output=True, text=True, timeout=120,
                          env={"HOME": os.environ.get("HOME", "/tmp"), "PATH": path, **env})


def test_run_floor_check_runs_both_builds_merges_and_writes_table_and_chart(tmp_path):
    b1, b2 = fake_build(tmp_path, "b1", C30), fake_build(tmp_path, "b2", C35)
    out = tmp_path / "out"
    r = run_script(tmp_path, out, "--no-build", BUILD_DIR=str(b1), CCCL_BUILD_DIR=str(b2))
    assert r.returncode == 0, r.stderr
    sizes = "--sizes=" + ",".join(str(1 << e) for e in range(10, 31, 2))
    first, = (tmp_path / "b1.args").read_text().splitlines()
    assert first.split() == ["--device=0", sizes, "--benchmark_repetitions=3", "--interleave",
                             "--benchmark_filter=^reduce_sum/(i32|f32)/(floor_sum|cub_[a-z_]*)/|^ceiling/f32/read_vec16/",
                             f"--benchmark_out={out}/cccl_toolkit.json"]
    second, = (tmp_path / "b2.args").read_text().splitlines()
    assert "--benchmark_filter=^reduce_sum/(i32|f32)/(floor_sum|cub_[a-z_]*)/" in second.split()   # the kernel too
    assert "--interleave" in second.split()
    assert not any("min_time" in a for a in first.split() + second.split())   # the harness's default
    names = {p.name for p in out.iterdir()}
    assert names == {"cccl_toolkit.json", "cccl_newest.json", "floor_vs_cub.json", "floor_vs_cub.md",
                     "versus_reduce_sum_floor_sum.png", "versus_reduce_sum_floor_sum.svg"}
    md = (out / "floor_vs_cub.md").read_text()
    assert "| 2^20 | 6.00 | 6.05 | 8.00 | 8.20 | 5.50 | 18.00 | 1.333 |" in md and md in r.stdout
    assert json.loads((out / "floor_vs_cub.json").read_text())["context"]["cccl_version"] == "3.0.1 + 3.5.0"


def test_run_floor_check_per_family_writes_json_table_and_chart_named_by_family(tmp_path):
    b1, b2 = fake_build(tmp_path, "b1", C30), fake_build(tmp_path, "b2", C35)
    out = tmp_path / "out"
    r = run_script(tmp_path, out, "--family", "reduce_sum", "--no-build", BUILD_DIR=str(b1), CCCL_BUILD_DIR=str(b2))
    assert r.returncode == 0, r.stderr
    first, = (tmp_path / "b1.args").read_text().splitlines()
    assert ("--benchmark_filter=^reduce_sum/[a-z0-9]+/(floor_sum|cub_[a-z_]*|thrust_[a-z_]*)/"
            "|^ceiling/f32/(read_vec16|copy_memcpy)/") in first.split()
    assert f"--benchmark_out={out}/reduce_sum_toolkit.json" in first.split()
    second, = (tmp_path / "b2.args").read_text().splitlines()
    assert "--benchmark_filter=^reduce_sum/[a-z0-9]+/(floor_sum|cub_[a-z_]*|thrust_[a-z_]*)/" in second.split()
    assert {p.name for p in out.iterdir()} == {"reduce_sum_toolkit.json", "reduce_sum_newest.json", "reduce_sum.json",
                                               "reduce_sum.md", "reduce_sum.png"}
    assert (out / "reduce_sum.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (out / "reduce_sum.md").read_text()
    assert "| 2^20 | 6.00 | 6.05 | 8.00 | 8.20 | 5.50 | 18.00 | 1.333 |" in md and md in r.stdout


@pytest.mark.parametrize("args, message", [
    (("out", "--family", "vector_add"), "--family: 'vector_add' has no launch-floor kernel"),
    (("out", "--family", "reduce_sum,dot", "--kernel", "floor_sum"), "--kernel: with one family only"),
])
def test_run_floor_check_refuses_unknown_families_and_one_kernel_for_several(tmp_path, args, message):
    r = run_script(tmp_path, *args, "--no-build")
    assert r.returncode == 2 and message in r.stderr, r.stderr


def test_run_floor_check_exits_with_the_runs_status(tmp_path):
    b1, b2 = fake_build(tmp_path, "b1", C30, rc=1), fake_build(tmp_path, "b2", C35)
    r = run_script(tmp_path, tmp_path / "out", "--no-build", BUILD_DIR=str(b1), CCCL_BUILD_DIR=str(b2))
    assert r.returncode == 1 and "some benchmarks failed" in r.stderr
    assert (tmp_path / "out" / "floor_vs_cub.md").exists()   # the rest is still written
    nogpu = fake_build(tmp_path, "nogpu", C30, rc=3)
    r = run_script(tmp_path, tmp_path / "out3", "--no-build", BUILD_DIR=str(nogpu), CCCL_BUILD_DIR=str(b2))
    assert r.returncode == 3 and not (tmp_path / "out3" / "floor_vs_cub.json").exists()


FAKE_CMAKE = """#!/bin/sh
echo "cmake $@" >> "{log}"
if [ "$1" = --build ]; then printf '#!/bin/sh\\n' > "$2/cuda_bench"; chmod +x "$2/cuda_bench"; exit 0; fi
while [ $# -gt 0 ]; do
  case $1 in -B) dir=$2; shift ;; -DCUDABENCH_CCCL_DIR=*) cccl=${{1#-DCUDABENCH_CCCL_DIR=}} ;; esac; shift
done
mkdir -p "$dir"; : > "$dir/build.ninja"
echo "CUDABENCH_CCCL_DIR:PATH=$cccl" > "$dir/CMakeCache.txt"
"""


@pytest.mark.skipif(not build_packages_present(), reason="the C++ build's Debian packages are not installed")
def test_run_floor_check_builds_cuda_bench_twice_the_second_against_the_cccl(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "cmake").write_text(FAKE_CMAKE.format(log=tmp_path / "cmake.log"))
    (bin_dir / "nvcc").write_text("#!/bin/sh\n")
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    cccl = tmp_path / "cccl"
    (cccl / "lib" / "cmake" / "cccl").mkdir(parents=True)
    (cccl / "lib" / "cmake" / "cccl" / "cccl-config.cmake").write_text("")
    b1, b2 = tmp_path / "b1", tmp_path / "b2"
    env = dict(BUILD_DIR=str(b1), CCCL_BUILD_DIR=str(b2), CUDABENCH_CCCL_DIR=str(cccl))
    r = run_script(tmp_path, "--build-only", extra_path=[bin_dir], **env)
    assert r.returncode == 0, r.stderr
    calls = (tmp_path / "cmake.log").read_text().splitlines()
    assert len(calls) == 4
    assert calls[0].startswith(f"cmake -S . -B {b1} -DCMAKE_BUILD_TYPE=Release") and "CCCL_DIR" not in calls[0]
    assert calls[1].split()[1:3] == ["--build", str(b1)] and calls[1].endswith("--target cuda_bench")
    assert calls[2].startswith(f"cmake -S . -B {b2} ") and calls[2].endswith(f"-DCUDABENCH_CCCL_DIR={cccl}")
    assert calls[3].split()[1:3] == ["--build", str(b2)] and calls[3].endswith("--target cuda_bench")
    # a build-cccl/ configured against another CCCL is not taken for this one
    (b2 / "CMakeCache.txt").write_text("CUDABENCH_CCCL_DIR:PATH=/somewhere/else\n")
    r = run_script(tmp_path, "--build-only", extra_path=[bin_dir], **env)
    assert r.returncode == 2 and "was configured with CUDABENCH_CCCL_DIR='/somewhere/else'" in r.stderr


def test_run_floor_check_without_a_gpu_builds_nothing_and_exits_3(tmp_path):
    """Seen without a GPU: it built both binaries (minutes) before cuda_bench said so."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "nvidia-smi").write_text("#!/bin/sh\nexit 9\n")     # a driver that lists no GPU
    (bin_dir / "cmake").write_text(f"#!/bin/sh\necho \"$@\" >> {tmp_path}/cmake.log\n")
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    cccl = tmp_path / "cccl"
    (cccl / "lib" / "cmake" / "cccl").mkdir(parents=True)
    (cccl / "lib" / "cmake" / "cccl" / "cccl-config.cmake").write_text("")
    r = run_script(tmp_path, tmp_path / "out", "--family", "dot", extra_path=[bin_dir], CUDABENCH_CCCL_DIR=str(cccl),
                   BUILD_DIR=str(tmp_path / "b1"), CCCL_BUILD_DIR=str(tmp_path / "b2"))
    assert r.returncode == 3, r.stderr
    assert r.stderr.splitlines()[-1] == ("==> no CUDA GPU here (nvidia-smi: lists no GPU): the check runs on one; "
                                         "nothing was built or measured (--build-only builds without one)")
    assert not (tmp_path / "cmake.log").exists() and not (tmp_path / "out").exists()


@pytest.mark.parametrize("args, message", [
    ((), "usage: tools/run-floor-check OUT_DIR"),
    (("--build-only", "--no-build"), "nothing to do"),
    (("out", "--kernel", "a/b"), "--kernel: expected a variant name"),
    (("out", "--bogus"), "unknown option '--bogus'"),
    (("out",), "no CCCL package at /nonexistent/cccl"),
])
def test_run_floor_check_usage_and_missing_cccl(tmp_path, args, message):
    r = run_script(tmp_path, *args, CUDABENCH_CCCL_DIR="/nonexistent/cccl")
    assert r.returncode == 2 and message in r.stderr, r.stderr


@pytest.mark.parametrize("tool, argv", [
    ("bench-table", lambda out: ["--versus", "floor_sum"]),
    ("bench-table", lambda out: []),
    ("bench-plot", lambda out: ["--charts", "versus", "--versus", "floor_sum", "--out", out]),
    ("bench-plot", lambda out: ["--out", out]),
])
def test_builds_timed_differently_are_refused(tmp_path, capsys, tool, argv):
    """The two builds' files, one of them graph-timed (the device's cost per launch, no
    launch floor): the versus ratios, the speedups and the side-by-side times would
    compare times that mean different things."""
    graph = tmp_path / "cccl35_graph.json"
    d = json.loads(C35.read_text())
    graph.write_text(json.dumps(dict(d, context={**d["context"], "timing_mode": "graph"})))
    main = table.main if tool == "bench-table" else plot.main
    assert call(main, [C30, graph] + argv(tmp_path / "out")) == 2
    err = capsys.readouterr().err.strip()
    prefix = f"{tool}: {graph} has timing mode 'graph', {C30} "
    assert len(err.splitlines()) == 1 and err.startswith(prefix), err
    assert f"{tool} would compare times that mean different things" in err
    assert not (tmp_path / "out").exists()
