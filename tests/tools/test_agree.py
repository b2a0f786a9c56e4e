"""bench-agree: two runs' agreement by N band over synthetic runs whose ratios are
known: the nearest-rank 95th percentile, the overlap share, the device-timed subset,
the targets and --check's exit code, the JSON, and every refusal's message."""
import json
import math

import pytest

from benchtools import agree
from benchtools.results import load_results

CONTEXT = {"gpu_name": "NVIDIA H100 80GB HBM3", "gpu_uuid": "GPU-aaaa", "date": "2026-11-26T12:00:00+00:00"}


def entry(variant, n, us, role="kernel", host_work=False, half_width=0.004):
    name = f"reduce_sum/i32/{variant}/N:{n}/manual_time"
    return {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1, "repetition_index": 0,
            "iterations": 100, "real_time": us, "cpu_time": us, "time_unit": "us",
            "samples": 100, "ci_low": us * (1 - half_width), "ci_high": us * (1 + half_width),
            "stop_reason": "precision", "bytes_per_second": 4 * n / (us * 1e-6), "role": role,
            "host_work": host_work}


def write(path, benchmarks, **context):
    path.write_text(json.dumps({"context": {**CONTEXT, **context}, "benchmarks": benchmarks}))
    return str(path)


def pair(tmp_path, ratios, n=1 << 20, **kw):
    """Run 1 at 10 us each, run 2 at 10 * ratio: one kernel per ratio, all at n."""
    one = [entry(f"k{i}", n, 10.0, **kw) for i in range(len(ratios))]
    two = [entry(f"k{i}", n, 10.0 * r, **kw) for i, r in enumerate(ratios)]
    return write(tmp_path / "r1.json", one), write(tmp_path / "r2.json", two)


def compare(r1, r2, roles):
    """The bands and the count left unmatched, as bench-agree computes them."""
    matched, unmatched = agree.pairs(load_results(r1), load_results(r2), roles)
    return agree.agree(matched), unmatched


def test_nearest_rank_is_the_smallest_value_with_q_at_or_below_it():
    values = [float(i) for i in range(1, 21)]           # 1..20: the 95th percentile is the 19th
    assert agree.nearest_rank(values, 0.95) == 19.0
    assert agree.nearest_rank(values[:10], 0.95) == 10.0
    assert agree.nearest_rank([3.0], 0.95) == 3.0
    assert agree.nearest_rank([], 0.95) is None


def test_bands_hold_their_ns_and_their_targets():
    assert [agree.band_label(f, l) for f, l, _ in agree.BANDS] == [
        "below 2^16", "2^16-2^21", "2^22-2^25", "2^26 and above"]
    assert [t for _, _, t in agree.BANDS] == [0.02, 0.01, 0.01, 0.01]


def test_the_95th_percentile_median_and_max_of_the_ratios(tmp_path):
    # 20 kernels at 2^20: |ratio - 1| = 0.1%, 0.2%, ..., 2.0%; half of them slower, half faster.
    ratios = [1 + (i + 1) * 0.001 * (1 if i % 2 else -1) for i in range(20)]
    r1, r2 = pair(tmp_path, ratios)
    bands, unmatched = compare(r1, r2, ("kernel", "library"))
    band = bands[1]
    assert unmatched == 0 and band.benchmarks == 20 and band.label == "2^16-2^21"
    assert band.p95 == pytest.approx(0.019) and band.median == pytest.approx(0.010)
    assert band.max == pytest.approx(0.020)
    # +-0.4% intervals overlap exactly while the ratio is within about 0.8%: 8 of 20.
    assert band.overlap == pytest.approx(8 / 20)
    assert band.met is False and band.target == 0.01
    assert [b.benchmarks for b in bands] == [0, 20, 0, 0]


def test_a_band_within_its_target_is_met_and_check_exits_0(tmp_path, capsys):
    r1, r2 = pair(tmp_path, [1.001, 0.999, 1.004, 0.996] * 5, n=1 << 28)
    assert agree.main([r1, r2, "--check"]) == 0
    out = capsys.readouterr().out
    assert "| 2^26 and above | 20 | 0.40% | 0.10% | 0.4% | 100% | 0.40% (20) | 1.0% | yes |" in out
    assert "below 2^16" not in out   # a band with no benchmarks is left out


def test_a_band_over_its_target_fails_check(tmp_path, capsys):
    r1, r2 = pair(tmp_path, [1.03] * 10, n=1 << 12)
    assert agree.main([r1, r2]) == 0
    assert agree.main([r1, r2, "--check"]) == 1
    assert "| below 2^16 | 10 | 3.00% |" in capsys.readouterr().out


def test_host_work_is_left_out_of_the_device_timed_column_and_roles_select(tmp_path):
    one = [entry("k", 1 << 24, 10.0), entry("thrust", 1 << 24, 10.0, role="library", host_work=True),
           entry("cpu", 1 << 24, 10.0, role="cpu")]
    two = [entry("k", 1 << 24, 10.05), entry("thrust", 1 << 24, 12.0, role="library", host_work=True),
           entry("cpu", 1 << 24, 20.0, role="cpu")]
    r1, r2 = write(tmp_path / "a.json", one), write(tmp_path / "b.json", two)
    band = compare(r1, r2, ("kernel", "library"))[0][2]
    assert band.benchmarks == 2 and band.p95 == pytest.approx(0.2) and band.device_benchmarks == 1
    assert band.device_p95 == pytest.approx(0.005)
    band = compare(r1, r2, ("cpu",))[0][2]
    assert band.benchmarks == 1 and band.p95 == pytest.approx(1.0)


def test_benchmarks_in_one_run_only_are_counted_and_left_out(tmp_path, capsys):
    one = [entry("k", 1 << 20, 10.0), entry("gone", 1 << 20, 10.0)]
    two = [entry("k", 1 << 20, 10.0), entry("new", 1 << 20, 10.0)]
    r1, r2 = write(tmp_path / "a.json", one), write(tmp_path / "b.json", two)
    assert agree.main([r1, r2]) == 0
    assert "2 benchmarks of these roles are in one run only (left out)." in capsys.readouterr().out


def test_repetitions_compare_by_their_median_aggregate(tmp_path):
    def reps(times):
        out = [entry("k", 1 << 20, t) for t in times]
        med = dict(out[0], run_type="aggregate", aggregate_name="median", real_time=sorted(times)[1])
        for key in ("ci_low", "ci_high", "samples", "stop_reason"):
            med.pop(key)
        return out + [med]
    r1 = write(tmp_path / "a.json", reps([10.0, 10.0, 30.0]))
    r2 = write(tmp_path / "b.json", reps([10.1, 50.0, 10.1]))
    band = compare(r1, r2, ("kernel",))[0][1]
    assert band.benchmarks == 1 and band.p95 == pytest.approx(0.01)


def test_json_holds_every_band(tmp_path, capsys):
    r1, r2 = pair(tmp_path, [1.01])
    assert agree.main([r1, r2, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["board1"] == doc["board2"] == "GPU-aaaa" and doc["roles"] == ["kernel", "library"]
    assert [b["label"] for b in doc["bands"]] == ["below 2^16", "2^16-2^21", "2^22-2^25", "2^26 and above"]
    assert doc["bands"][1]["p95"] == pytest.approx(0.01) and doc["bands"][1]["met"] is False
    assert doc["bands"][0]["met"] is None


def test_two_boards_are_compared_with_a_warning(tmp_path, capsys):
    r1 = write(tmp_path / "a.json", [entry("k", 1 << 20, 10.0)])
    r2 = write(tmp_path / "b.json", [entry("k", 1 << 20, 10.0)], gpu_uuid="GPU-bbbb")
    assert agree.main([r1, r2]) == 0
    assert "the runs are from two boards (GPU-aaaa, GPU-bbbb)" in capsys.readouterr().err


def test_runs_that_name_no_board_are_compared_with_a_warning(tmp_path, capsys):
    r1 = write(tmp_path / "a.json", [entry("k", 1 << 20, 10.0)])
    r2 = write(tmp_path / "b.json", [entry("k", 1 << 20, 10.1)], gpu_uuid="")
    assert agree.main([r1, r2]) == 0
    assert f"warning: {r2} names no board (no gpu_uuid): whether both runs are of one board" in capsys.readouterr().err
    r3 = write(tmp_path / "c.json", [entry("k", 1 << 20, 10.2)])
    assert agree.main([r1, r3]) == 0
    assert "warning" not in capsys.readouterr().err


def test_runs_sampled_differently_are_compared_with_a_warning(tmp_path, capsys):
    # A file without samples_per_gate predates the gate (none); launch_mode absent: the stream.
    r1 = write(tmp_path / "a.json", [entry("k", 1 << 20, 10.0)], launch_mode="graph")
    r2 = write(tmp_path / "b.json", [entry("k", 1 << 20, 10.0)], launch_mode="graph", samples_per_gate="32")
    assert agree.main([r1, r2]) == 0
    assert ("the runs were sampled differently (samples per gate '0' vs '32'): their differences include that"
            in capsys.readouterr().err)
    r3 = write(tmp_path / "c.json", [entry("k", 1 << 20, 10.0)], samples_per_gate="32")
    assert agree.main([r2, r3]) == 0
    assert "(launch 'graph' vs 'stream')" in capsys.readouterr().err
    assert agree.main([r2, write(tmp_path / "d.json", [entry("k", 1 << 20, 10.1)], launch_mode="graph",
                                 samples_per_gate="32")]) == 0
    assert "sampled differently" not in capsys.readouterr().err
    # --min-time: a minimum against none (absent, or 0) is another sampling.
    sampled = dict(launch_mode="graph", samples_per_gate="32", precision_percent="0.5", max_time_seconds="0.03")
    r4 = write(tmp_path / "e.json", [entry("k", 1 << 20, 10.0)], **sampled, min_time_seconds="0")
    r5 = write(tmp_path / "f.json", [entry("k", 1 << 20, 10.0)], **sampled, min_time_seconds="0.005")
    assert agree.main([r4, r5]) == 0
    assert "(sampling '±0.5%, max 0.03 s' vs '±0.5%, max 0.03 s, min 0.005 s')" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["SAME", "SAME"], "is given twice: compare two runs"),
    (["R1", "R2", "--roles", "kernel,gpu"], "--roles: expected one of kernel, library, cpu, unknown, got 'gpu'"),
    (["R1", "R2", "--roles", ","], "--roles: name at least one role"),
    (["R1", "R2", "--format", "csv"], "--format: expected one of markdown, json, got 'csv'"),
    (["R1", "MISSING"], "MISSING"),
    (["R1", "CPUONLY"], "no benchmark of the roles kernel, library is in both"),
    (["R1", "R2", "--out", "DIR"], "is a folder, not a file"),
])
def test_bad_input_is_one_line_naming_it(tmp_path, capsys, args, message):
    r1, r2 = pair(tmp_path, [1.0])
    cpu_only = write(tmp_path / "cpu.json", [entry("k", 1 << 20, 10.0, role="cpu")])
    names = {"SAME": r1, "R1": r1, "R2": r2, "MISSING": str(tmp_path / "missing.json"), "CPUONLY": cpu_only,
             "DIR": str(tmp_path)}
    assert agree.main([names.get(a, a) for a in args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bench-agree: ") and err.count("\n") == 1
    assert message.replace("MISSING", str(tmp_path / "missing.json")) in err


def test_an_offset_a_dataset_shares_is_told_apart_from_the_spread_within_it(tmp_path, capsys):
    # i32 at 2^20: six kernels all 3% slower in run 2 (+-0.1%); f32 at 2^20: six unchanged (+-0.2%);
    # i32 at 2^22: four kernels (too few for a group); one host-work call (left out).
    one, two = [], []
    for i, wiggle in enumerate([-0.001, 0.0, 0.001, 0.0005, -0.0005, 0.0]):
        one.append(entry(f"a{i}", 1 << 20, 10.0)); two.append(entry(f"a{i}", 1 << 20, 10.0 * (1.03 + wiggle)))
    for i, wiggle in enumerate([-0.002, 0.0, 0.002, 0.001, -0.001, 0.0]):
        one.append(dict(entry(f"b{i}", 1 << 20, 10.0), name=f"reduce_sum/f32/b{i}/N:{1 << 20}/manual_time",
                        run_name=f"reduce_sum/f32/b{i}/N:{1 << 20}/manual_time"))
        two.append(dict(entry(f"b{i}", 1 << 20, 10.0 * (1 + wiggle)), name=f"reduce_sum/f32/b{i}/N:{1 << 20}/manual_time",
                        run_name=f"reduce_sum/f32/b{i}/N:{1 << 20}/manual_time"))
    for i in range(4):
        one.append(entry(f"c{i}", 1 << 22, 10.0)); two.append(entry(f"c{i}", 1 << 22, 15.0))
    one.append(entry("t", 1 << 20, 10.0, role="library", host_work=True))
    two.append(entry("t", 1 << 20, 20.0, role="library", host_work=True))
    r1, r2 = write(tmp_path / "a.json", one), write(tmp_path / "b.json", two)
    off = agree.shared_offsets(agree.pairs(load_results(r1), load_results(r2), ("kernel", "library"))[0])
    assert [(g.type, g.n, g.benchmarks) for g in off.groups] == [("i32", 1 << 20, 6), ("f32", 1 << 20, 6)]
    assert off.groups[0].median_ratio == pytest.approx(1.03) and off.groups[1].median_ratio == pytest.approx(1.0)
    assert off.benchmarks == 12 and off.within_p95 == pytest.approx(0.002, abs=1e-6)
    assert agree.main([r1, r2]) == 0
    out = capsys.readouterr().out
    assert "2 groups of 5 or more, 12 benchmarks" in out and "i32 2^20 1.030 (6), f32 2^20 1.000 (6)" in out
    assert agree.main([r1, r2, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["offsets"]["groups"][0] == {"type": "i32", "n": 1 << 20, "benchmarks": 6,
                                           "median_ratio": pytest.approx(1.03)}


def grid(tmp_path, ratio_of, variants=6, logs=range(10, 16)):
    """Run 1 at 10 us each, run 2 at 10 * ratio_of(v, log2 N), for variants k0.. at each N."""
    one = [entry(f"k{v}", 1 << e, 10.0) for v in range(variants) for e in logs]
    two = [entry(f"k{v}", 1 << e, 10.0 * ratio_of(v, e)) for v in range(variants) for e in logs]
    r1, r2 = write(tmp_path / "g1.json", one), write(tmp_path / "g2.json", two)
    return agree.process_offsets(agree.pairs(load_results(r1), load_results(r2), ("kernel", "library"))[0]), r1, r2


def test_offsets_a_process_keeps_per_variant_and_per_dataset_are_taken_out(tmp_path, capsys):
    # Each variant a whole-run offset (-4% .. +6%), each N one (-3% .. +2%), times a wiggle of at most 0.05%.
    variant = [0.96, 0.98, 1.0, 1.02, 1.04, 1.06]
    dataset = {10: 0.97, 11: 1.02, 12: 0.99, 13: 1.01, 14: 0.98, 15: 1.0}
    wiggle = lambda v, e: 1 + 0.0005 * (1 if (v + e) % 2 else -1) * ((v * 7 + e) % 3) / 2
    fitted, r1, r2 = grid(tmp_path, lambda v, e: variant[v] * dataset[e] * wiggle(v, e))
    assert [f.band for f in fitted] == ["below 2^16"] and fitted[0].benchmarks == 36
    f = fitted[0]
    assert f.raw_p95 > 0.05                        # 0.96 * 0.97 and 1.06 * 1.02 are in it
    assert f.without_both_p95 < 0.0006             # only the wiggle is left
    assert f.without_variant_p95 > 0.015 and f.without_dataset_p95 > 0.03   # one offset alone is not enough
    assert agree.main([r1, r2]) == 0
    out = capsys.readouterr().out
    assert "**Offsets shared by a variant or a dataset.**" in out and "| below 2^16 | 36 | " in out
    assert agree.main([r1, r2, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["process_offsets"][0]["band"] == "below 2^16"
    assert doc["process_offsets"][0]["without_both_p95"] == pytest.approx(f.without_both_p95)


def test_ratios_without_such_offsets_keep_their_spread(tmp_path):
    # A Latin square of -3% .. +3%: every variant and every N has the same spread around 1,
    # so there is nothing to fit and the p95 stays where it is.
    step = [-0.03, -0.02, -0.01, 0.01, 0.02, 0.03]
    fitted, _, _ = grid(tmp_path, lambda v, e: 1 + step[(v + e) % 6])
    f = fitted[0]
    assert f.raw_p95 == pytest.approx(0.03)
    for left in (f.without_variant_p95, f.without_dataset_p95, f.without_both_p95):
        assert left >= 0.029


def test_too_few_benchmarks_get_no_offset_of_their_own(tmp_path):
    # Two variants at two N: each variant has 2 benchmarks (< 3), each dataset 2 (< 5):
    # nothing is fitted, though an offset per benchmark would "explain" everything.
    fitted, _, _ = grid(tmp_path, lambda v, e: 1.05 if v else 0.96, variants=2, logs=(10, 11))
    f = fitted[0]
    assert f.raw_p95 == pytest.approx(0.05)
    assert f.without_variant_p95 == f.without_dataset_p95 == f.without_both_p95 == pytest.approx(0.05)


def test_bands_split_at_2p16_and_three_benchmarks_a_variant_are_enough(tmp_path):
    # Six variants at 2^13 .. 2^18: three N in each band, so each variant has exactly 3
    # benchmarks (MIN_FITTED) in each; every ratio is its variant's offset (-5% .. +7.5%),
    # different in each band. A host-work call, 2x slower in run 2, is left out.
    offset = {"below 2^16": [0.95, 0.97, 1.0, 1.02, 1.05, 1.075], "2^16-2^21": [1.06, 0.96, 1.03, 0.94, 1.0, 1.01]}
    logs = range(13, 19)
    ratio = lambda v, e: offset["below 2^16" if e < 16 else "2^16-2^21"][v]
    one = [entry(f"k{v}", 1 << e, 10.0) for v in range(6) for e in logs]
    two = [entry(f"k{v}", 1 << e, 10.0 * ratio(v, e)) for v in range(6) for e in logs]
    one.append(entry("t", 1 << 13, 10.0, role="library", host_work=True))
    two.append(entry("t", 1 << 13, 20.0, role="library", host_work=True))
    r1, r2 = write(tmp_path / "b1.json", one), write(tmp_path / "b2.json", two)
    fitted = agree.process_offsets(agree.pairs(load_results(r1), load_results(r2), ("kernel", "library"))[0])
    assert [(f.band, f.benchmarks) for f in fitted] == [("below 2^16", 18), ("2^16-2^21", 18)]
    assert fitted[0].raw_p95 == pytest.approx(0.075) and fitted[1].raw_p95 == pytest.approx(0.06)
    for f in fitted:
        assert f.without_variant_p95 < 1e-9 and f.without_both_p95 < 1e-9


def test_a_truncated_run_warns_only_once_the_input_is_known_good(tmp_path, capsys):
    r1, r2 = pair(tmp_path, [1.0, 1.0])
    text = open(r2).read()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: text.index("/k1/") + 4])   # k0 complete, k1 cut off
    # bad input (another GPU model): its one line only, no warning before it
    other = write(tmp_path / "other.json", [entry("k0", 1 << 20, 10.0)], gpu_name="NVIDIA H200", gpu_uuid="GPU-bbbb")
    assert agree.main([str(cut), other]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"bench-agree: {other} is of NVIDIA H200, {cut} of NVIDIA H100 80GB HBM3: "
        "bench-agree compares two runs of one GPU model"]
    # good input: the warning every tool gives
    assert agree.main([r1, str(cut)]) == 0
    assert f"bench-agree: warning: {cut} is truncated (interrupted run?); using its 1 complete entries" in \
        capsys.readouterr().err
