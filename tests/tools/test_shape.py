"""What the charts draw, as numbers: GPU grouping, declaration order, roles from the
JSON fields, series, roofs and the roofline across families (benchtools/shape.py); the
newest run of each GPU model (bench-newest)."""
import json
import math

import pytest
from conftest import FIXTURES

from benchtools import newest, shape
from benchtools.results import load_results

SMALL = str(FIXTURES / "h200_small.json")          # no role fields: a file older than them
H200 = str(FIXTURES / "h200_roofline.json")        # made by fixtures/make_h200_roofline.py
H100 = str(FIXTURES / "h100_roofline.json")        # the same benchmarks on a made-up H100 (x1.4, batched_vec16 x1.5)
P20, P22, P24, P28 = 1 << 20, 1 << 22, 1 << 24, 1 << 28
H200_PEAK, H100_PEAK = 4812.3e9, 3352.3e9


def gpus(*paths, pattern=None):
    return shape.group_by_gpu([load_results(p) for p in paths], pattern)


def records(path=H200):
    return load_results(path).records


def write_json(tmp_path, name, doc):
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return str(p)


# ---------------------------------------------------------------- GPUs kept apart

def test_runs_of_two_gpus_are_two_groups_each_with_its_own_peak():
    h200, h100 = gpus(H200, H100)
    assert (h200.label, h100.label) == ("NVIDIA H200", "NVIDIA H100 80GB HBM3")
    assert h100.key == ("NVIDIA H100 80GB HBM3", "GPU-0000aaaa-1111-2222-3333-444455556666")
    assert (h200.peak_bandwidth, h100.peak_bandwidth) == (pytest.approx(H200_PEAK), pytest.approx(H100_PEAK))
    assert len(h200.records) == len(h100.records) == len(records())
    chart = next(c for c in shape.bandwidth_charts([h200, h100]) if c.stem == "bandwidth_reduce_sum_i32")
    assert [p.label for p in chart.panels] == ["NVIDIA H200, run 2026-11-22", "NVIDIA H100 80GB HBM3, run 2026-11-22"]
    cub = [dict(p.lines["cub_device_reduce"])[P28] for p in chart.panels]
    assert cub == [pytest.approx((4 * P28 + 4) / 240e-6 / 1e9), pytest.approx((4 * P28 + 4) / (240e-6 * 1.4) / 1e9)]
    # each GPU against its own theoretical peak and its own measured read ceiling
    assert [[h.value for h in p.hlines] for p in chart.panels] == [
        [pytest.approx(H200_PEAK / 1e9), pytest.approx(4 * P24 / 15e-6 / 1e9)],
        [pytest.approx(H100_PEAK / 1e9), pytest.approx(4 * P24 / (15e-6 * 1.4) / 1e9)]]


def test_one_gpu_in_several_files_is_one_group_and_two_devices_of_one_model_are_two(tmp_path):
    assert len(gpus(H200, H200)) == 1
    doc = json.loads(open(H200).read())
    a = write_json(tmp_path, "a.json", {**doc, "context": {**doc["context"], "gpu_uuid": "GPU-aaaaaaaa-0000"}})
    b = write_json(tmp_path, "b.json", {**doc, "context": {**doc["context"], "gpu_uuid": "GPU-bbbbbbbb-0000"}})
    assert [g.label for g in gpus(a, b)] == ["NVIDIA H200 (GPU-aaaaaaaa)", "NVIDIA H200 (GPU-bbbbbbbb)"]
    assert [g.label for g in gpus(H200, a)] == ["NVIDIA H200 (no UUID)", "NVIDIA H200 (GPU-aaaaaaaa)"]


def test_newest_run_per_gpu_is_chosen_by_the_context_date_not_the_file_name(tmp_path):
    doc = json.loads(open(H200).read())
    older = write_json(tmp_path, "nvidia-h200_z.json", {**doc, "context": {**doc["context"], "date": "2026-11-01T00:00:00+00:00"}})
    newer = write_json(tmp_path, "nvidia-h200_a.json", {**doc, "context": {**doc["context"], "date": "2026-11-21T00:00:00Z"}})
    runs = [load_results(p) for p in (older, newer, H100)]
    newest = shape.newest_per_gpu(runs)
    assert list(newest) == ["nvidia-h100-80gb-hbm3", "nvidia-h200"]
    assert newest["nvidia-h200"].path == newer and newest["nvidia-h100-80gb-hbm3"].path == H100
    assert shape.slug("NVIDIA GeForce RTX 4090") == "nvidia-geforce-rtx-4090"


def newest_cli(capsys, *paths):
    rc = newest.main([str(p) for p in paths])
    out = capsys.readouterr()
    return rc, out.out, out.err


def later(doc, **changes):
    """The run, dated after every fixture, with changes to its document."""
    return {**doc, "context": {**doc["context"], "date": "2030-01-01T00:00:00Z"}, **changes}


def test_newest_skips_a_newer_file_without_a_successful_benchmark(tmp_path, capsys):
    """bench-newest used to pick such a file (and regenerate-plots drew from it)."""
    doc = json.loads(open(H200).read())
    empty = write_json(tmp_path, "empty.json", later(doc, benchmarks=[]))
    failed = [{**b, "error_occurred": True, "error_message": "verification failed"} for b in doc["benchmarks"]]
    errored = write_json(tmp_path, "errored.json", later(doc, benchmarks=failed))
    count = len(load_results(errored).errors)
    assert count > 0
    rc, out, err = newest_cli(capsys, empty, H200, errored)
    assert (rc, out) == (0, f"nvidia-h200 {H200}\n")
    assert err.splitlines() == [f"bench-newest: skipping {empty}: no benchmark",
                                f"bench-newest: skipping {errored}: no successful benchmark (all {count} errored)"]


def test_newest_warns_when_the_file_it_chooses_is_truncated(tmp_path, capsys):
    text = json.dumps(later(json.loads(open(H200).read())))
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 2])
    complete = len(load_results(cut).records)
    rc, out, err = newest_cli(capsys, H200, cut)
    assert (rc, out) == (0, f"nvidia-h200 {cut}\n")
    assert err.splitlines() == [f"bench-newest: warning: {cut} is truncated (interrupted run?); "
                                f"using its {complete} complete entries"]


def test_newest_exits_2_when_a_gpu_model_has_no_usable_file(tmp_path, capsys):
    empty = write_json(tmp_path, "empty.json", later(json.loads(open(H200).read()), benchmarks=[]))
    rc, out, err = newest_cli(capsys, H100, empty)
    assert (rc, out) == (2, "")
    assert err.splitlines() == [f"bench-newest: no usable run of nvidia-h200: {empty} has no benchmark"]


# ---------------------------------------------------------------- order and roles

def test_variants_keep_the_order_of_first_appearance_not_alphabetical(tmp_path):
    series = shape.bandwidth_series(records())[("reduce_sum", "i32")]
    assert list(series) == ["cub_device_reduce", "thrust_reduce", "one_pass_atomic", "batched_vec16", "tree"]
    doc = json.loads(open(H200).read())
    doc["benchmarks"].reverse()
    flipped = shape.bandwidth_series(load_results(write_json(tmp_path, "r.json", doc)).records)
    assert list(flipped[("reduce_sum", "i32")]) == ["tree", "batched_vec16", "one_pass_atomic", "thrust_reduce",
                                                    "cub_device_reduce"]
    assert list(flipped)[0] == ("vector_add", "bf16")
    assert [s for s, _ in shape.heatmap_targets(load_results(write_json(tmp_path, "r.json", doc)).records)] == [
        ("vector_add", "f16", "f16x8"), ("reduce_sum", "f32", "batched_vec16"), ("reduce_sum", "i32", "tree"),
        ("reduce_sum", "i32", "batched_vec16")]


def test_roles_come_from_the_json_fields():
    by = {r.variant: r for r in records() if (r.family, r.type) == ("vector_add", "f16")}
    assert {v: r.role for v, r in by.items()} == {"cub_device_transform": "library", "thrust_transform": "library",
                                                  "cpu_threads": "cpu", "scalar": "kernel", "f16x8": "kernel"}
    assert by["cpu_threads"].host_work is True and by["f16x8"].host_work is False
    assert by["scalar"].reference == "vector_add/f16/cub_device_transform"


def test_roles_are_never_guessed_from_names(tmp_path):
    doc = json.loads(open(H200).read())
    for b in doc["benchmarks"]:
        if "/cub_device_reduce/" in b["name"]:
            b["role"] = "kernel"                 # a library by name, declared a kernel
        if "/one_pass_atomic/" in b["name"]:
            b["role"] = "library"
    rs = load_results(write_json(tmp_path, "x.json", doc)).records
    emph = shape.emphasis([r for r in rs if (r.family, r.type) == ("reduce_sum", "i32")])
    assert emph["cub_device_reduce"].kind == "best"       # the fastest declared kernel at 2^28
    assert emph["one_pass_atomic"].kind == "library"


def test_a_file_without_roles_is_drawn_neutrally_and_named_in_a_warning():
    rs = records(SMALL)
    assert {r.role for r in rs} == {"unknown"} and not any(r.is_library for r in rs)
    emph = shape.emphasis([r for r in rs if (r.family, r.type) == ("reduce_sum", "i32")])
    assert {e.kind for e in emph.values()} == {"unknown"}
    assert shape.speedup_series(rs) == {}                # no declared reference: no guessed baseline
    assert shape.speedup_series(rs, "cub_device_reduce")[("reduce_sum", "i32")]["tree"][1][1] == pytest.approx(950 / 2000)
    warning = shape.roles_warning("bench-plot", [load_results(SMALL), load_results(H200)])
    assert warning.count("\n") == 0 and SMALL in warning and H200 not in warning
    assert "python3 -m benchtools.annotate" in warning
    assert shape.roles_warning("bench-plot", [load_results(H200)]) is None


def test_emphasis_best_kernel_libraries_cpu_and_faded_kernels():
    i32 = shape.emphasis([r for r in records() if (r.family, r.type) == ("reduce_sum", "i32")])
    assert {v: (e.kind, e.rank, e.count) for v, e in i32.items()} == {
        "cub_device_reduce": ("library", 0, 2), "thrust_reduce": ("library", 1, 2),
        "one_pass_atomic": ("kernel", 0, 2), "batched_vec16": ("best", 0, 1), "tree": ("kernel", 1, 2)}
    f16 = shape.emphasis([r for r in records() if (r.family, r.type) == ("vector_add", "f16")])
    # the reference takes the first library color even where it is declared second
    assert {v: (e.kind, e.rank) for v, e in f16.items()} == {
        "cub_device_transform": ("library", 0), "thrust_transform": ("library", 1), "cpu_threads": ("cpu", 0),
        "scalar": ("kernel", 0), "f16x8": ("best", 0)}


# ---------------------------------------------------------------- series

def test_bandwidth_series_numbers():
    charts = shape.bandwidth_series(records(SMALL))
    assert list(charts) == [("reduce_sum", "i32"), ("reduce_sum", "f32")]
    tree = charts[("reduce_sum", "i32")]["tree"]
    # best block per N: 512 at 2^20 (8 us), 256 at 2^30 (2000 us); GB/s = bytes / time / 1e9
    assert [n for n, _, _ in tree] == [1 << 20, 1 << 30]
    assert tree[0][1] == pytest.approx((4 * 2**20 + 4) / 8e-6 / 1e9)
    assert tree[1][1] == pytest.approx((4 * 2**30 + 4) / 2000e-6 / 1e9)
    assert tree[0][2].block == 512


def test_speedup_is_reference_time_over_best_config_time_at_the_same_n():
    charts = shape.speedup_series(records())
    # vector_add bf16's reference was not measured; the ceilings are not kernels: no chart for either
    assert list(charts) == [("reduce_sum", "i32"), ("reduce_sum", "f32"), ("vector_add", "f16")]
    i32 = charts[("reduce_sum", "i32")]
    assert "cub_device_reduce" not in i32                      # the baseline is the line at 1
    assert [(n, x) for n, x, _ in i32["batched_vec16"]] == [
        (P20, pytest.approx(8 / 10)), (P24, pytest.approx(40 / 42)), (P28, pytest.approx(240 / 255))]
    assert [r.batch for _, _, r in i32["batched_vec16"]] == [8, 16, 8]   # best config per N
    assert [(n, x) for n, x, _ in i32["tree"]] == [(P24, pytest.approx(40 / 110)), (P28, pytest.approx(240 / 1900))]
    f16 = charts[("vector_add", "f16")]                        # reference: cub_device_transform
    assert [x for _, x, _ in f16["f16x8"]] == pytest.approx([5 / 5.5, 25 / 24, 380 / 372])
    assert [n for n, _, _ in f16["cpu_threads"]] == [P20, P24]
    over_thrust = shape.speedup_series(records(), baseline="thrust_reduce")
    assert list(over_thrust) == [("reduce_sum", "i32")]
    assert [x for _, x, _ in over_thrust[("reduce_sum", "i32")]["cub_device_reduce"]] == pytest.approx(
        [20 / 8, 48 / 40, 260 / 240])


def test_time_per_call_keeps_the_launch_bound_sizes_in_microseconds():
    charts = shape.time_series(records())
    assert list(charts) == [("reduce_sum", "i32"), ("vector_add", "f16")]   # the others start at 2^24
    assert {v: pts[0][:2] for v, pts in charts[("reduce_sum", "i32")].items()} == {
        "cub_device_reduce": (P20, pytest.approx(8.0)), "thrust_reduce": (P20, pytest.approx(20.0)),
        "one_pass_atomic": (P20, pytest.approx(30.0)), "batched_vec16": (P20, pytest.approx(10.0))}
    assert all(len(pts) == 1 for pts in charts[("reduce_sum", "i32")].values())
    tree = shape.time_series(records(), max_n=P24)[("reduce_sum", "i32")]["tree"]
    assert [(n, t, r.block) for n, t, r in tree] == [(P22, pytest.approx(60.0), 256), (P24, pytest.approx(110.0), 512)]
    chart = next(c for c in shape.time_charts(gpus(H200)) if c.stem == "time_vector_add_f16")
    assert chart.clip_kinds == ("cpu",) and chart.unit == " µs"     # the CPU does not set the scale


def test_bandwidth_chart_bars_are_the_ladder_at_the_largest_n_against_the_fitting_ceiling():
    charts = {c.stem: c for c in shape.bandwidth_charts(gpus(H200))}
    panel = charts["bandwidth_reduce_sum_i32"].panels[0]
    assert [(v, n) for v, _, n in panel.bars] == [(v, P28) for v in
                                                  ("cub_device_reduce", "thrust_reduce", "one_pass_atomic",
                                                   "batched_vec16", "tree")]
    assert panel.bar_roof.value == pytest.approx(4 * P24 / 15e-6 / 1e9)          # read ceiling
    assert "read ceiling" in panel.bar_label
    f16 = charts["bandwidth_vector_add_f16"].panels[0]
    assert f16.bar_roof.value == pytest.approx(8 * P24 / 32e-6 / 1e9)            # copy: best of copy_vec16, memcpy
    assert "copy (read + write) ceiling" in f16.bar_roof.label
    ceiling = charts["bandwidth_ceiling_f32"]
    assert "best block/batch" not in ceiling.title and "ceilings" in ceiling.title
    assert set(ceiling.panels[0].lines) == {"read_vec16", "write_vec16", "copy_vec16", "copy_memcpy"}  # no compute
    assert dict((v, n) for v, _, n in ceiling.panels[0].bars)["read_vec16"] == P24   # each at its best N
    assert "best block/batch" in charts["bandwidth_reduce_sum_i32"].title    # several configs were measured


# ---------------------------------------------------------------- roofs and the roofline across families

def test_each_family_gets_the_bandwidth_roof_that_fits_it():
    (g,) = gpus(H200)
    assert shape.bandwidth_roof_kind("reduce_sum") == "read" and shape.bandwidth_roof_kind("vector_add") == "copy"
    red, vec = shape.roofs(g, "reduce_sum", "f32"), shape.roofs(g, "vector_add", "f16")
    assert red.bandwidth == pytest.approx(4 * P24 / 15e-6)
    assert vec.bandwidth == pytest.approx(8 * P24 / 32e-6)
    assert (red.bandwidth_label, vec.bandwidth_label) == ("read ceiling", "copy ceiling")
    assert red.compute == pytest.approx(2048 * P24 / 560e-6) and red.peak_compute == pytest.approx(66908160000000)
    assert vec.compute == pytest.approx(4096 * P24 / 580e-6)
    assert shape.roofs(g, "reduce_sum", "i32").compute == pytest.approx(1024 * P24 / 1100e-6)
    assert red.missing == () and any("f64" in m for m in shape.roofs(g, "reduce_sum", "f64").missing)
    (old,) = gpus(SMALL)
    assert len(shape.roofs(old, "reduce_sum", "i32").missing) == 3


def test_roofline_across_families_has_each_best_kernel_and_its_library_at_its_own_intensity():
    h200, h100 = gpus(H200, H100)
    points = shape.family_roofline(h200)
    assert [(p.family, p.type, p.variant, p.kind) for p in points] == [
        ("reduce_sum", "i32", "batched_vec16", "kernel"), ("reduce_sum", "i32", "cub_device_reduce", "library"),
        ("reduce_sum", "f32", "batched_vec16", "kernel"), ("reduce_sum", "f32", "cub_device_reduce", "library"),
        ("vector_add", "f16", "f16x8", "kernel"), ("vector_add", "f16", "cub_device_transform", "library"),
        ("vector_add", "bf16", "bf16x8", "kernel")]
    i32 = points[0]
    assert (i32.record.n, i32.record.block, i32.record.batch) == (P28, 256, 8)
    assert i32.intensity == pytest.approx((P28 - 1) / (4 * P28 + 4))
    assert i32.fraction == pytest.approx(((P28 - 1) / 255e-6) / (i32.intensity * 4 * P24 / 15e-6))
    f16 = points[4]
    assert f16.intensity == pytest.approx(1 / 6)
    assert f16.fraction == pytest.approx((P28 / 372e-6) / (f16.intensity * 8 * P24 / 32e-6))   # the copy roof
    # on the other GPU: its own ceilings
    other = shape.family_roofline(h100)[0]
    assert other.fraction == pytest.approx(((P28 - 1) / (255e-6 * 1.5)) / (other.intensity * 4 * P24 / (15e-6 * 1.4)))
    at24 = {(p.family, p.type, p.kind): p.record for p in shape.family_roofline(h200, P24)}
    assert at24[("reduce_sum", "i32", "kernel")].batch == 16


def test_roof_fraction_uses_the_attainable_roof():
    f32 = shape.roofs(gpus(H200)[0], "reduce_sum", "f32")
    assert shape.roof_fraction(f32, 0.25, 1e12) == pytest.approx(1e12 / (0.25 * f32.bandwidth))
    assert shape.roof_fraction(f32, 1000.0, 3e13) == pytest.approx(3e13 / f32.compute)


# ---------------------------------------------------------------- GPU against GPU

def test_gpu_ratio_is_the_other_gpus_time_over_the_first_gpus_per_variant_and_n():
    h200, h100 = gpus(H200, H100)
    ratios = shape.gpu_ratio_series(h200, h100)
    assert [x.ratio for x in ratios[("reduce_sum", "i32")]["cub_device_reduce"]] == pytest.approx([1.4, 1.4, 1.4])
    assert [x.ratio for x in ratios[("reduce_sum", "i32")]["batched_vec16"]] == pytest.approx([1.5, 1.5, 1.5])
    assert list(ratios[("reduce_sum", "i32")]) == ["cub_device_reduce", "thrust_reduce", "one_pass_atomic",
                                                   "batched_vec16", "tree"]
    charts = shape.gpucompare_charts([h200, h100])
    assert [c.stem for c in charts] == ["gpucompare_reduce_sum_i32", "gpucompare_reduce_sum_f32",
                                        "gpucompare_vector_add_f16", "gpucompare_vector_add_bf16"]
    assert charts[0].panels[0].label == "NVIDIA H100 80GB HBM3 / NVIDIA H200"
    assert shape.gpucompare_charts([h200]) == []


# ---------------------------------------------------------------- heat maps

def test_heatmap_grid_and_best_cell():
    rs = records()
    blocks, batches, m, best = shape.heatmap_grid(rs, ("reduce_sum", "i32", "batched_vec16"), P28)
    assert (blocks, batches, best) == ([128, 256, 512], [4, 8, 16], (1, 1))
    assert m[0][2] == pytest.approx((4 * P28 + 4) / 276e-6 / 1e9)      # row block 128, column batch 16
    blocks, batches, m, best = shape.heatmap_grid(rs, ("reduce_sum", "f32", "batched_vec16"), P28)
    assert (blocks, batches, best) == ([256, 512], [8, 16], (0, 0))
    assert math.isnan(m[1][1])                                          # (512, 16) was not measured
    blocks, batches, m, best = shape.heatmap_grid(rs, ("reduce_sum", "i32", "tree"), P28)
    assert (blocks, batches, best, m.shape) == ([256, 512], [None], (0, 0), (2, 1))
    assert shape.heatmap_grid(rs, ("reduce_sum", "i32", "tree"), P20) is None


def test_heatmap_targets():
    rs = records()
    assert shape.heatmap_targets(rs) == [
        (("reduce_sum", "i32", "batched_vec16"), P28), (("reduce_sum", "i32", "tree"), P28),
        (("reduce_sum", "f32", "batched_vec16"), P28), (("vector_add", "f16", "f16x8"), P28)]
    assert shape.heatmap_targets(rs, n=P24) == [
        (("reduce_sum", "i32", "batched_vec16"), P24), (("reduce_sum", "i32", "tree"), P24)]
    assert shape.heatmap_targets(rs, "f16/(scalar|cpu)") == [
        (("vector_add", "f16", "cpu_threads"), P24), (("vector_add", "f16", "scalar"), P28)]
