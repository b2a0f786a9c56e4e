"""The one JSON reader: names, records, best-config selection, aggregates, bad input."""
import json

import pytest
from conftest import FIXTURES

from benchtools.results import ResultsError, best_per_n, load_results, parse_name, representative


def test_parse_name_reads_axes_and_ignores_benchmark_suffixes():
    assert parse_name("reduce_sum/i32/tree/N:1024/block:256/manual_time") == {
        "family": "reduce_sum", "type": "i32", "variant": "tree", "n": 1024, "block": 256, "batch": None}
    assert parse_name("reduce_sum/f32/cub_device_reduce/N:7/repeats:5/manual_time")["n"] == 7
    assert parse_name("reduce_sum/i32/b/N:5/block:64/batch:16")["batch"] == 16
    assert parse_name("BM_memcpy/8") is None
    assert parse_name("reduce_sum/i32/tree/block:256") is None      # no N
    assert parse_name("reduce_sum/i32/tree/N:abc") is None


def test_load_keeps_our_runs_lists_errors_and_skips_foreign_benchmarks():
    res = load_results(FIXTURES / "h200_small.json")
    assert res.gpu == "NVIDIA H200"
    assert res.date == "2026-11-21"
    assert res.peak_bandwidth == pytest.approx(4812.3e9)
    assert len(res.records) == 12
    assert res.errors == [("reduce_sum/f32/tree/N:1048576/block:256/manual_time",
                           "verification failed: expected 1, got 2")]
    r = next(r for r in res.records if r.variant == "cub_device_reduce" and r.type == "i32" and r.n == 1 << 30)
    assert r.seconds == pytest.approx(950e-6)
    assert r.bytes_per_second == pytest.approx((4 * 2**30 + 4) / 950e-6)
    assert r.role == "unknown" and not r.is_library and r.block is None   # no role fields: never guessed


def test_best_per_n_picks_the_fastest_block_and_batch_at_each_n():
    series = best_per_n(load_results(FIXTURES / "h200_small.json").records)
    tree = series[("reduce_sum", "i32", "tree")]
    assert [(r.n, r.block) for r in tree] == [(1 << 20, 512), (1 << 30, 256)]
    batched = series[("reduce_sum", "i32", "batched")]
    assert [(r.n, r.batch) for r in batched] == [(1 << 20, 16), (1 << 30, 16)]


def test_repetitions_use_the_median_aggregate():
    res = load_results(FIXTURES / "h200_repetitions.json")
    assert {r.aggregate for r in res.records} == {None, "mean", "median"}   # stddev/cv are not times
    rep = representative(res.records)
    assert len(rep) == 1 and rep[0].aggregate == "median"
    assert rep[0].seconds == pytest.approx(1000e-6)


def test_the_median_of_interleaved_repetitions_is_interleaved(tmp_path):
    d = json.loads((FIXTURES / "h200_repetitions.json").read_text())
    plain = [b for b in d["benchmarks"] if b.get("run_type") != "aggregate"]
    for b in plain:
        b["interleave_group"] = "reduce_sum/i32/N:1073741824"
    path = tmp_path / "interleaved.json"
    path.write_text(json.dumps(d))
    (rep,) = representative(load_results(path).records)
    assert rep.aggregate == "median" and rep.interleave_group == "reduce_sum/i32/N:1073741824"
    plain[0]["interleave_group"] = "reduce_sum/i32/N:1024"   # repetitions in different groups: none claimed
    path.write_text(json.dumps(d))
    (rep,) = representative(load_results(path).records)
    assert rep.interleave_group is None
    (rep,) = representative(load_results(FIXTURES / "h200_repetitions.json").records)
    assert rep.interleave_group is None


def test_truncated_file_yields_its_complete_entries(tmp_path):
    text = (FIXTURES / "h200_small.json").read_text()
    cut = text[: text.index('"reduce_sum/i32/batched/N:1073741824/block:256/batch:8') - 40]
    p = tmp_path / "cut.json"
    p.write_text(cut)
    res = load_results(p)
    assert res.truncated
    assert 0 < len(res.records) < 12
    assert res.gpu == "NVIDIA H200"


@pytest.mark.parametrize("content, message", [
    ("this is not json", "not valid JSON"),
    ('{"benchmarks": [', "not valid JSON"),
    ('[1, 2, 3]', "not Google Benchmark JSON"),
    ('{"context": {"date": "x"}, "benchmarks": []}', "not a cuda_bench results file"),
])
def test_bad_input_raises_a_named_error(tmp_path, content, message):
    p = tmp_path / "bad.json"
    p.write_text(content)
    with pytest.raises(ResultsError, match=message) as e:
        load_results(p)
    assert str(p) in str(e.value)


def test_missing_time_field_is_named(tmp_path):
    doc = json.loads((FIXTURES / "h200_small.json").read_text())
    del doc["benchmarks"][0]["real_time"]
    p = tmp_path / "x.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ResultsError, match="real_time"):
        load_results(p)


def test_precision_sampling_fields_are_read_in_seconds():
    records = {r.name: r for r in load_results(FIXTURES / "sampled_interleaved.json").records}
    r = records["reduce_sum/i32/slow_kernel/N:1048576/block:256"]
    assert r.samples == 150 and r.stop_reason == "time" and r.precision_reached is False
    assert r.ci_low_seconds < r.seconds < r.ci_high_seconds and r.ci_high_seconds < 1e-3   # µs in the file
    assert r.relative_half_width == pytest.approx(
        max(r.seconds - r.ci_low_seconds, r.ci_high_seconds - r.seconds) / r.seconds)
    assert r.interleave_group == "reduce_sum/i32/N:1048576" and len(r.sample_seconds) == 150
    done = records["reduce_sum/i32/cub_device_reduce/N:268435456"]
    assert done.precision_reached is True and done.relative_half_width <= 0.005
    old = load_results(FIXTURES / "h200_small.json").records[0]   # a file from before: intervals unknown
    assert (old.samples, old.ci_low_seconds, old.relative_half_width, old.precision_reached) == (None,) * 4


DROP = object()   # the field left out


@pytest.mark.parametrize("change, message", [
    ({"ci_high": DROP}, "ci_high is missing"),
    ({"ci_low": 11.0}, "ci_low is 11.0, above real_time"),
    ({"ci_high": 1.0}, "ci_high is 1.0, below real_time"),
    ({"ci_low": float("nan")}, "ci_low is nan: not a measurement"),
    ({"ci_low": 0}, "ci_low is 0: not a measurement"),
    ({"ci_high": None}, "ci_high is None, not a number"),
    ({"samples": 0}, "samples is 0, not a positive integer"),
    ({"samples": 12.5}, "samples is 12.5, not a positive integer"),
    ({"samples": True}, "samples is True, not a positive integer"),
    ({"stop_reason": "budget"}, "stop_reason is 'budget', not one of precision, time, samples"),
    ({"interleave_group": 3}, "interleave_group is 3, not a name"),
    ({"sample_times": [1.0, -2.0]}, r"sample_times\[1\] is -2.0: not a measurement"),
])
def test_broken_intervals_are_named_errors(tmp_path, change, message):
    doc = json.loads((FIXTURES / "sampled_separate.json").read_text())
    b = doc["benchmarks"][0]
    b.update(real_time=10.0, ci_low=9.9, ci_high=10.1)
    b.update(change)
    for key in [k for k, v in change.items() if v is DROP]:
        del b[key]
    p = tmp_path / "x.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ResultsError, match=message) as e:
        load_results(p)
    assert str(e.value).startswith(f"{p}: benchmark '{b['run_name']}': ")



def test_one_label_names_an_n_everywhere():
    from benchtools import noise, shape
    from benchtools.results import pow2_label
    assert [pow2_label(n) for n in (1, 1024, 1 << 30, 1000, 0)] == ["2^0", "2^10", "2^30", "1000", "0"]
    assert pow2_label(1000, thousands=True) == "1,000" and pow2_label(4096, thousands=True) == "2^12"
    assert shape.n_label(3000) == "3,000" and noise.n_label(3000) == "3000" and shape.n_label(0) == "0"
