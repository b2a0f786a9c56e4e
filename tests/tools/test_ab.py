"""bench-ab: the order-statistic rank rule, the coverage of the ratio interval on
synthetic samples, and the CLI over fixture JSON (made by
fixtures/make_sampled_fixtures.py): verdicts, refusals, markdown/CSV/JSON, the chart."""
import csv
import io
import json
import math

import numpy as np
import pytest
from conftest import FIXTURES
from scipy.stats import binom, gamma

from benchtools import ab, draw, stats
from benchtools.results import load_results
from benchtools.shape import group_by_gpu

INTERLEAVED = str(FIXTURES / "sampled_interleaved.json")
SEPARATE = str(FIXTURES / "sampled_separate.json")
OLD = str(FIXTURES / "h200_small.json")          # from before precision sampling: no intervals
P20, P28 = 1 << 20, 1 << 28


# ---------------------------------------------------------------- the statistics

@pytest.mark.parametrize("n", [6, 7, 10, 20, 21, 50, 100, 267, 1000, 4000])
def test_median_ranks_are_the_widest_tails_at_most_2_5_percent(n):
    j, k = stats.median_ranks(n)
    assert k == n + 1 - j
    assert binom.cdf(j - 1, n, 0.5) <= 0.025 < binom.cdf(j, n, 0.5)          # P(B < j) <= 2.5% < P(B < j + 1)
    assert binom.sf(k - 1, n, 0.5) <= 0.025 < binom.sf(k - 2, n, 0.5)         # P(B >= k) <= 2.5% < P(B >= k - 1)


def test_too_few_samples_give_no_interval():
    assert stats.median_ranks(5) is None and stats.median_interval([1.0, 2.0, 3.0]) is None
    assert stats.median_interval([float(x) for x in range(1, 11)]) == (5.5, 2.0, 9.0)   # ranks 2 and 9 of 10


def _skewed(rng, kind, n, scale, spread):
    """GPU-like timings: a hard floor plus a right-skewed excess; returns (samples, true median)."""
    floor, excess = scale, 0.1 * scale * spread
    if kind == "lognormal":
        return floor + excess * np.exp(rng.normal(0.0, 0.8, n)), floor + excess
    if kind == "exponential":
        return floor + rng.exponential(excess, n), floor + excess * np.log(2)
    return floor + rng.gamma(2.0, excess, n), floor + excess * gamma.ppf(0.5, 2.0)


def test_the_ratio_interval_covers_the_true_ratio_about_95_percent_of_the_time():
    """2000 trials, each two independent sets of 20-400 samples (cuda_bench's minimum
    up to a typical count) from one of three skewed families, with known medians and
    different scales and spreads on the two sides. Bounds: each median's interval
    covers with the exact probability P(j <= B < k), which for n in 20..400 lies in
    [0.950, 0.983] (mean 0.959: conservative, as B is discrete); two such intervals
    combined in quadrature cover about as often as their parts (near 0.96), so the
    upper bound is that most conservative part plus a little, and the lower bound
    0.93 leaves room for the 2000 trials' spread (sd 0.005) and the normal
    approximation of the combination, while still failing an interval that is
    too narrow by a quarter (about 0.89 coverage)."""
    rng = np.random.default_rng(20260)
    kinds = ("lognormal", "exponential", "gamma")
    trials, hits = 2000, 0
    for t in range(trials):
        kind = kinds[t % 3]
        xv, mv = _skewed(rng, kind, int(rng.integers(20, 401)), 1.05, 1.0)
        xc, mc = _skewed(rng, kind, int(rng.integers(20, 401)), 1.0, 2.0)
        _, low, high = stats.ratio_interval(stats.median_interval(xv.tolist()), stats.median_interval(xc.tolist()))
        hits += low <= mv / mc <= high
    coverage = hits / trials
    print(f"coverage of the ratio interval over {trials} trials: {coverage:.4f}")
    assert 0.93 <= coverage <= 0.985, coverage


def test_verdicts():
    assert stats.verdict(0.95, 0.99) == "faster"
    assert stats.verdict(1.01, 1.2) == "slower"
    assert stats.verdict(0.99, 1.01) == "no difference at this precision"


def test_ratio_interval_adds_log_half_widths_in_quadrature():
    r, low, high = stats.ratio_interval((2.0, 1.9, 2.2), (1.0, 0.98, 1.01))
    assert r == 2.0
    assert np.log(r / low) == pytest.approx(np.hypot(np.log(2.0 / 1.9), np.log(1.01 / 1.0)))
    assert np.log(high / r) == pytest.approx(np.hypot(np.log(2.2 / 2.0), np.log(1.0 / 0.98)))


# ---------------------------------------------------------------- the comparisons

def _found(path):
    gpu = group_by_gpu([load_results(path)])[0]
    return {(c.n, c.variant): c for rows in ab.compare(gpu.records, "cub_device_reduce").values() for c in rows}


@pytest.mark.parametrize("path", [INTERLEAVED, SEPARATE])
def test_verdicts_of_the_fixtures(path):
    found = _found(path)
    for n in (P20, P28):
        assert found[(n, "fast_kernel")].verdict == "faster"
        assert found[(n, "twin_kernel")].verdict == "no difference at this precision"
        assert found[(n, "slow_kernel")].verdict == "slower"
    assert found[(P28, "fast_kernel")].ratio == pytest.approx(0.95, abs=0.003)
    assert all(c.interleaved == (path == INTERLEAVED) for c in found.values())
    assert all(c.from_samples == (path == INTERLEAVED) for c in found.values())


def test_intervals_from_the_raw_samples_are_the_files_intervals():
    """The Python rank rule on sample_times gives the JSON's ci_low/ci_high (same rule as the C++)."""
    for r in load_results(INTERLEAVED).records:
        assert stats.median_interval(r.sample_seconds) == pytest.approx(
            (r.seconds, r.ci_low_seconds, r.ci_high_seconds), rel=1e-12)


def test_markdown_names_interleaving_and_the_precision_mark(capsys):
    assert ab.main([INTERLEAVED, "--versus", "cub_device_reduce"]) == 0
    out = capsys.readouterr().out
    assert "#### reduce_sum i32: each variant against cub_device_reduce (NVIDIA H200)" in out
    row = next(line for line in out.splitlines() if line.startswith("| 2^28 | fast_kernel"))
    assert "| faster | interleaved, same process |" in row
    assert "| 2^20 | slow_kernel (block 256) † |" in out and "† precision not reached" in out
    assert "±0.5% per median" in out and "recomputed from the raw samples" in out
    assert ab.main([SEPARATE, "--versus", "cub_device_reduce", "--filter", "twin|cub"]) == 0
    out = capsys.readouterr().out
    assert "across time (sampled separately: weaker)" in out and "fast_kernel" not in out


def test_csv_and_json_outputs(capsys, tmp_path):
    assert ab.main([SEPARATE, "--versus", "cub_device_reduce", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 6 and {r["verdict"] for r in rows} == {"faster", "slower", "no difference at this precision"}
    out = tmp_path / "ab.json"
    assert ab.main([INTERLEAVED, "--versus", "cub_device_reduce", "--format", "json", "--out", str(out)]) == 0
    assert capsys.readouterr().out == ""
    doc = json.loads(out.read_text())
    assert doc["precision_percent"] == 0.5 and len(doc["comparisons"]) == 6
    c = next(c for c in doc["comparisons"] if (c["variant"], c["n"]) == ("slow_kernel", P28))
    assert c["verdict"] == "slower" and c["low"] > 1 and c["measured"] == "interleaved, same process"
    assert c["precision_reached"] is True


def test_refusals_are_one_line_and_exit_2(capsys, tmp_path):
    cases = [
        ([INTERLEAVED, "--versus", "nope"], "--versus nope: no such variant in the input (present: "
                                            "cub_device_reduce, fast_kernel, twin_kernel, slow_kernel)"),
        ([OLD, "--versus", "cub_device_reduce"], f"{OLD}: benchmarks without confidence intervals "
                                                 "(the file predates precision sampling)"),
        ([INTERLEAVED, "--versus", "cub_device_reduce", "--format", "xml"], "--format: expected one of"),
        ([INTERLEAVED, "--versus", "cub_device_reduce", "--chart", str(tmp_path / "a.svg")], "expected a .png path"),
        ([INTERLEAVED, "--versus", "cub_device_reduce", "--filter", "cub"], "no other variant measured"),
        ([INTERLEAVED], "the following arguments are required: --versus"),
    ]
    for argv, message in cases:
        assert ab.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("bench-ab: ") and message in err and err.count("\n") == 1, err


def test_chart_draws_each_ratio_with_its_interval_and_the_precision_band(tmp_path):
    gpu = group_by_gpu([load_results(INTERLEAVED)])[0]
    found = ab.compare(gpu.records, "cub_device_reduce")
    chart = ab.chart_data(found, gpu)
    assert chart.precision == pytest.approx(0.005) and chart.chosen == "cub_device_reduce"
    (panel,) = chart.panels
    assert list(panel.lines) == ["fast_kernel", "twin_kernel", "slow_kernel"]
    c = found[("reduce_sum", "i32")][0]
    assert panel.lines["fast_kernel"][0] == (P20, c.ratio, c.low, c.high)
    fig = draw.ab_chart(chart)
    ax = fig.axes[0]
    bars = next(c for c in ax.containers if c.get_label() == "fast_kernel")   # the ErrorbarContainer
    data_line, _, (segments,) = bars.lines
    assert list(data_line.get_xdata()) == [P20, P28] and list(data_line.get_ydata()) == [x[1] for x in panel.lines["fast_kernel"]]
    assert [tuple(map(tuple, seg)) for seg in segments.get_segments()] == [
        ((n, pytest.approx(low)), (n, pytest.approx(high))) for n, _, low, high in panel.lines["fast_kernel"]]
    band = next(p for p in ax.patches if p.get_label().startswith("±0.5%"))
    assert band.get_y() == pytest.approx(0.995) and band.get_height() == pytest.approx(0.01)
    draw.close(fig)
    out = tmp_path / "ab.png"
    assert ab.main([INTERLEAVED, "--versus", "cub_device_reduce", "--chart", str(out)]) == 0
    first = out.read_bytes()
    assert first[:8] == b"\x89PNG\r\n\x1a\n"
    assert ab.main([INTERLEAVED, "--versus", "cub_device_reduce", "--chart", str(out)]) == 0
    assert out.read_bytes() == first                                       # byte-stable


def test_an_interval_collapsed_onto_one_reading_is_widened_to_the_reading_step():
    """Readings in 32 ns steps: a median whose interval is that one reading is known to
    one step, so two such medians 0.5 step apart give no verdict, not an exact ratio."""
    import dataclasses

    base = load_results(INTERLEAVED).records[0]
    step = 32e-9
    a = dataclasses.replace(base, seconds=4.384e-6, ci_low_seconds=4.384e-6, ci_high_seconds=4.384e-6,
                            sample_seconds=None)
    b = dataclasses.replace(base, seconds=4.416e-6, ci_low_seconds=4.384e-6, ci_high_seconds=4.448e-6,
                            sample_seconds=None)
    assert ab.reading_step([a, b]) == pytest.approx(step)
    assert ab._interval(a, False, step) == pytest.approx((4.384e-6, 4.352e-6, 4.416e-6))
    ratio, low, high = stats.ratio_interval(ab._interval(b, False, step), ab._interval(a, False, step))
    assert low < 1 < high and stats.verdict(low, high) == stats.VERDICTS[2]
    # Without the step the collapsed side adds nothing: a narrower, overconfident interval.
    _, low0, _ = stats.ratio_interval(ab._interval(b, False), ab._interval(a, False))
    assert low < low0


def test_the_reading_step_of_raw_samples_and_the_widening_run_ab_shares():
    xs = [3.84e-6] * 30 + [3.872e-6] * 4 + [3.808e-6] * 3
    assert stats.reading_step(xs) == pytest.approx(32e-9)
    assert stats.reading_step([1.0] * 8) == 0.0
    m, low, high = stats.median_interval(xs)
    assert low == high == m                                   # collapsed onto one reading
    assert stats.at_least_one_step((m, low, high), 32e-9) == pytest.approx((m, m - 32e-9, m + 32e-9))
    assert stats.at_least_one_step((1.0, 0.5, 2.0), 0.1) == (1.0, 0.5, 2.0)   # wider already: unchanged


def test_rounds_interval_is_the_t_interval_of_the_log_ratios():
    from benchtools import stats
    r, low, high = stats.rounds_interval([1.02, 0.98, 1.01, 0.99])
    logs = [math.log(x) for x in (1.02, 0.98, 1.01, 0.99)]
    mean = sum(logs) / 4
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / 3)
    assert r == pytest.approx(math.exp(mean))
    assert high == pytest.approx(math.exp(mean + 3.182446305284263 * sd / 2))   # t(0.975, 3) = 3.1824
    assert low == pytest.approx(math.exp(mean - 3.182446305284263 * sd / 2))
    assert stats.rounds_interval([1.0, 1.0]) == (1.0, 1.0, 1.0)
    for bad in ([], [1.01], [1.0, 0.0], [1.0, float("nan")], [1.0, -1.0], [1.0, float("inf")]):
        assert stats.rounds_interval(bad) is None, bad


# ---------------------------------------------------------------- runs with --benchmark_repetitions

def test_repetitions_combine_by_inverse_variance_and_widen_to_their_own_spread():
    one = (1.02, 1.02 * math.exp(-0.01), 1.02 * math.exp(0.01))
    r, low, high = stats.repetitions_interval([one, one, one])   # agreeing repetitions: sqrt(3) narrower
    assert r == pytest.approx(1.02)
    assert math.log(high / r) == pytest.approx(0.01 / math.sqrt(3)) and math.log(r / low) == pytest.approx(0.01 / math.sqrt(3))
    spread = [(x, x * 0.999, x * 1.001) for x in (0.98, 1.00, 1.02)]   # tight each, apart from one another
    r, low, high = stats.repetitions_interval(spread)
    rounds = stats.rounds_interval([0.98, 1.00, 1.02])
    assert (low, high) == (pytest.approx(rounds[1]), pytest.approx(rounds[2])) and low < 0.98 and high > 1.02
    assert stats.repetitions_interval([one]) is None and stats.repetitions_interval([one, (1.0, 0.0, 1.1)]) is None


def _with_repetitions(tmp_path, scales, scaled="fast_kernel"):
    """The interleaved fixture as a run with len(scales) repetitions: in repetition k,
    the `scaled` variant's times (median and interval) multiplied by scales[k], the
    others as they are; then Google Benchmark's aggregates (no interval of their own)."""
    d = json.loads(open(INTERLEAVED).read())
    out = []
    for b in d["benchmarks"]:
        b.pop("sample_times", None)
        reps = []
        for k, s in enumerate(scales):
            r = dict(b, repetitions=len(scales), repetition_index=k)
            for key in ("real_time", "ci_low", "ci_high"):
                r[key] = b[key] * (s if f"/{scaled}/" in b["name"] else 1.0)
            reps.append(r)
        times = sorted(r["real_time"] for r in reps)
        for name in ("mean", "median"):
            agg = {k: v for k, v in b.items() if k not in ("ci_low", "ci_high", "samples", "stop_reason")}
            agg.update(run_type="aggregate", aggregate_name=name, name=b["name"] + "_" + name,
                       real_time=times[len(times) // 2] if name == "median" else sum(times) / len(times))
            reps.append(agg)
        out += reps
    d["benchmarks"] = out
    path = tmp_path / f"repetitions_{len(scales)}_{scales[0]}.json"
    path.write_text(json.dumps(d))
    return str(path)


def _json_comparisons(capsys, argv):
    assert ab.main(argv + ["--versus", "cub_device_reduce", "--format", "json"]) == 0
    return {(c["n"], c["variant"]): c for c in json.loads(capsys.readouterr().out)["comparisons"]}


def test_a_run_with_repetitions_is_compared_per_repetition(tmp_path, capsys):
    d = json.loads(open(INTERLEAVED).read())
    t = {b["name"].split("/")[2]: b["real_time"] for b in d["benchmarks"] if f"N:{P28}/" in b["name"]}
    single = _json_comparisons(capsys, [INTERLEAVED])[(P28, "fast_kernel")]
    # three agreeing repetitions: the JSON's medians' ratio, an interval sqrt(3) narrower in log space
    fast = _json_comparisons(capsys, [_with_repetitions(tmp_path, [1.0, 1.0, 1.0])])[(P28, "fast_kernel")]
    assert fast["interleaved"] and fast["verdict"] == "faster" == single["verdict"]
    assert fast["ratio"] == pytest.approx(t["fast_kernel"] / t["cub_device_reduce"])
    assert fast["high"] - fast["low"] < single["high"] - single["low"]
    # repetitions whose ratios disagree (±8% in turn) by far more than their intervals: the
    # interval covers their spread, so no verdict
    spread = _json_comparisons(capsys, [_with_repetitions(tmp_path, [0.92, 1.0, 1.08])])[(P28, "fast_kernel")]
    assert spread["low"] < 0.92 * t["fast_kernel"] / t["cub_device_reduce"]
    assert spread["high"] > 1.0 and spread["verdict"] == "no difference at this precision"


def test_two_runs_interleaved_apart_are_not_interleaved_together(tmp_path, capsys):
    """A group's name repeats in every run: the same group in two files is two processes."""
    d = json.loads(open(INTERLEAVED).read())
    kernel = dict(d, benchmarks=[b for b in d["benchmarks"] if "/cub_device_reduce/" not in b["name"]])
    library = dict(d, benchmarks=[b for b in d["benchmarks"] if "/cub_device_reduce/" in b["name"]])
    paths = [tmp_path / "kernels.json", tmp_path / "library.json"]
    for p, doc in zip(paths, (kernel, library)):
        p.write_text(json.dumps(doc))
    got = _json_comparisons(capsys, [str(p) for p in paths])
    assert got and not any(c["interleaved"] for c in got.values())
    assert all(c["interleaved"] for c in _json_comparisons(capsys, [INTERLEAVED]).values())


def test_two_runs_naming_one_benchmark_are_refused(tmp_path, capsys):
    """Two runs that both measured a benchmark: no file's copy is chosen silently (one
    line, exit 2); files of different benchmarks (a split run) are still read together."""
    agree = _with_repetitions(tmp_path, [1.0, 1.0, 1.0])
    other = _with_repetitions(tmp_path, [0.5, 1.5, 1.0])
    assert ab.main([str(agree), str(other), "--versus", "cub_device_reduce"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"is in {agree} and in {other}: bench-ab divides variants measured in one run" in err


@pytest.mark.parametrize("key, value, said", [("timing_mode", "graph", "timing mode 'graph'"),
                                              ("cache_mode", "hot", "cache mode 'hot'"),
                                              ("launch_mode", "graph", "launch 'graph'")])
def test_files_timed_differently_are_refused(tmp_path, capsys, key, value, said):
    """The kernel from one file, the library from another timed otherwise (a graph replay's
    device cost per launch, a hot cache, each call a captured graph where the other file
    launched on the stream): no ratio, one line, exit 2."""
    d = json.loads(open(INTERLEAVED).read())
    kernel = dict(d, benchmarks=[b for b in d["benchmarks"] if "/cub_device_reduce/" not in b["name"]])
    library = dict(d, benchmarks=[b for b in d["benchmarks"] if "/cub_device_reduce/" in b["name"]],
                   context={**d["context"], key: value})
    paths = [tmp_path / "kernels.json", tmp_path / "library.json"]
    for p, doc in zip(paths, (kernel, library)):
        p.write_text(json.dumps(doc))
    assert ab.main([str(p) for p in paths] + ["--versus", "fast_kernel"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith(f"bench-ab: {paths[1]} has {said}, {paths[0]} "), err
    assert "times that mean different things" in err


def test_the_process_offset_is_named_below_2p26_once(tmp_path, capsys):
    """Rows below 2^26 carry offsets that no interval from one process includes: the output
    says so once (markdown and JSON), by how much for the smallest N compared, and not at all
    where every N is 2^26 or more."""
    assert ab.process_offset_note([1 << 26, 1 << 30]) is None and ab.process_offset_note([]) is None
    assert "about 1%" in ab.process_offset_note([1 << 22, 1 << 28])
    assert "a few percent" in ab.process_offset_note([(1 << 22) - 1])
    assert "a few percent" in ab.process_offset_note([1 << 10, 1 << 22])
    assert ab.main([INTERLEAVED, "--versus", "cub_device_reduce"]) == 0   # 2^20 and 2^28
    out = capsys.readouterr().out
    assert out.count("Below 2^26 two things move a ratio") == 1 and "Offsets, re-read" in out
    assert "a few percent" in out and "tools/run-ab" in out
    assert ab.main([INTERLEAVED, "--versus", "cub_device_reduce", "--format", "json"]) == 0
    assert "a few percent" in json.loads(capsys.readouterr().out)["process_offset_note"]
    d = json.loads(open(INTERLEAVED).read())
    large = dict(d, benchmarks=[b for b in d["benchmarks"] if f"N:{P28}/" in b["name"]])
    path = tmp_path / "large.json"
    path.write_text(json.dumps(large))
    assert ab.main([str(path), "--versus", "cub_device_reduce"]) == 0
    out = capsys.readouterr().out
    assert "| 2^28 | fast_kernel" in out and "Below 2^26" not in out
    assert ab.main([str(path), "--versus", "cub_device_reduce", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["process_offset_note"] is None
