"""bench-merge: runs of one board (two builds, two CCCLs) into one Google Benchmark JSON;
the renamed copies keep every tool working; other boards, other timing, copies the
version cannot tell apart and files without a board id are refused."""
import gzip
import json
from pathlib import Path

import pytest
from conftest import FIXTURES

from benchtools import merge, plot, table
from benchtools.results import load_results, parse_name, read_text
from benchtools.shape import bandwidth_series, group_by_gpu, speedup_charts

ROOT = Path(__file__).resolve().parents[2]
C30, C35 = FIXTURES / "floor_cccl30.json", FIXTURES / "floor_cccl35.json"
REAL = ROOT / "results" / "checks" / "floor_cub35"
REAL30, REAL35 = REAL / "floor_sum_v1_cub30_nvidia-h200.json.gz", REAL / "floor_sum_v1_cub35_nvidia-h200.json.gz"


def doc(path):
    return json.loads(read_text(path))


def merged(tmp_path, *paths, name="merged.json"):
    out = tmp_path / name
    assert merge.main([str(p) for p in paths] + ["--out", str(out)]) == 0
    return out


def written(tmp_path, name, d):
    path = tmp_path / name
    path.write_text(json.dumps(d))
    return path


def test_renames_the_later_builds_copies_and_keeps_the_first(tmp_path, capsys):
    out = merged(tmp_path, C30, C35)
    printed = capsys.readouterr().out
    assert f"{C35}: CCCL 3.5.0; renamed reduce_sum/f32/floor_sum -> floor_sum@cccl3.5.0" in printed
    d = doc(out)
    assert len(d["benchmarks"]) == len(doc(C30)["benchmarks"]) + len(doc(C35)["benchmarks"])
    first = d["benchmarks"][: len(doc(C30)["benchmarks"])]
    assert [b["name"] for b in first] == [b["name"] for b in doc(C30)["benchmarks"]]   # never renamed
    by_name = {b["name"]: b for b in d["benchmarks"]}
    copy = by_name["reduce_sum/i32/cub_device_reduce@cccl3.5.0/N:1024/manual_time_median"]
    assert copy["run_name"] == "reduce_sum/i32/cub_device_reduce@cccl3.5.0/N:1024/manual_time"
    assert copy["declaration"] == "reduce_sum/i32/cub_device_reduce@cccl3.5.0"
    assert copy["cccl_version"] == "3.5.0" and copy["real_time"] == pytest.approx(4.3)
    # a reference of the later build names that build's copy; a new declaration keeps its name
    assert by_name["reduce_sum/i32/floor_sum@cccl3.5.0/N:1024/manual_time"]["reference"] == \
        "reduce_sum/i32/cub_device_reduce@cccl3.5.0"
    nd = by_name["reduce_sum/i32/cub_reduce_nondeterministic/N:1024/manual_time"]
    assert nd["reference"] == "reduce_sum/i32/cub_device_reduce@cccl3.5.0" and nd["cccl_version"] == "3.5.0"
    original = by_name["reduce_sum/i32/cub_device_reduce/N:1024/manual_time"]
    assert original["cccl_version"] == "3.0.1" and original["reference"] == "reduce_sum/i32/cub_device_reduce"
    # family indices stay unique, as in one run
    later = {b["family_index"] for b in d["benchmarks"][len(first):]}
    assert later.isdisjoint({b["family_index"] for b in first})


def test_context_records_the_sources(tmp_path):
    ctx = doc(merged(tmp_path, C30, C35))["context"]
    assert ctx["cccl_version"] == "3.0.1 + 3.5.0"
    assert ctx["gpu_uuid"] == doc(C30)["context"]["gpu_uuid"] and ctx["date"] == doc(C30)["context"]["date"]
    src = ctx["merged_from"]
    assert [s["path"] for s in src] == [str(C30), str(C35)]
    assert [s["cccl_version"] for s in src] == ["3.0.1", "3.5.0"]
    assert [s["executable"] for s in src] == ["./build/cuda_bench", "./build-cccl/cuda_bench"]
    assert src[0]["renamed"] == {}
    assert src[1]["renamed"]["reduce_sum/i32/cub_device_reduce"] == "reduce_sum/i32/cub_device_reduce@cccl3.5.0"
    assert len(src[1]["renamed"]) == 4   # floor_sum and cub_device_reduce, i32 and f32


def test_the_reader_and_the_tools_keep_the_copies_apart(tmp_path, capsys):
    out = merged(tmp_path, C30, C35)
    run = load_results(out)
    series = {r.series for r in run.records}
    assert ("reduce_sum", "i32", "cub_device_reduce") in series
    assert ("reduce_sum", "i32", "cub_device_reduce@cccl3.5.0") in series
    assert {r.cccl_version for r in run.records if r.variant == "cub_device_reduce@cccl3.5.0"} == {"3.5.0"}
    assert {r.cccl_version for r in run.records if r.variant == "cub_device_reduce"} == {"3.0.1"}
    assert {r.cccl_version for r in load_results(C35).records} == {"3.5.0"}   # unmerged: the context's
    # 3 repetitions + mean + median per benchmark (stddev, cv are no times): nothing lost to the names
    assert len(run.records) == 5 * len({(r.series, r.n, r.block, r.batch) for r in run.records})
    bw = bandwidth_series(group_by_gpu([run])[0].records)[("reduce_sum", "i32")]
    assert [n for n, _, _ in bw["cub_device_reduce@cccl3.5.0"]] == [1 << 10, 1 << 20, 1 << 30]
    rows = table.time_rows(run.records, [1 << 20])[("reduce_sum", "i32")]
    assert rows["cub_device_reduce@cccl3.5.0"][1 << 20].seconds == pytest.approx(8.2e-6)
    assert rows["cub_device_reduce"][1 << 20].seconds == pytest.approx(8.0e-6)
    # the speedup chart divides the later build's copy by the first build's reference, like any variant
    speedup = {c.stem: c for c in speedup_charts(group_by_gpu([run]))}["speedup_reduce_sum_i32"]
    assert dict(speedup.panels[0].lines["cub_device_reduce@cccl3.5.0"])[1 << 20] == pytest.approx(8.0 / 8.2)
    capsys.readouterr()
    assert plot.main([str(out), "--out", str(tmp_path / "plots"), "--format", "svg", "--charts", "speedup,time"]) == 0
    assert {p.name for p in (tmp_path / "plots").iterdir()} >= {"speedup_reduce_sum_i32.svg", "time_reduce_sum_f32.svg"}


@pytest.mark.parametrize("name, ok", [
    ("reduce_sum/i32/cub_device_reduce@cccl3.5.0/N:1024/manual_time", True),
    ("reduce_sum/i32/cub_device_reduce@cccl13.3.5.0_rc1/N:1024", True),
    ("reduce_sum/i32/cub_device_reduce@/N:1024", False),
    ("reduce_sum/i32/cub@CCCL3/N:1024", False),
    ("reduce_sum@x/i32/cub/N:1024", False),
    ("reduce_sum/i32/a@b@c/N:1024", False),
])
def test_parse_name_takes_one_lowercase_tag_on_the_variant_only(name, ok):
    parsed = parse_name(name)
    assert (parsed is not None) == ok
    if ok:
        assert parsed["variant"] == name.split("/")[2] and parsed["n"] == 1024


def test_split_variant():
    assert merge.split_variant("cub_device_reduce@cccl3.5.0") == ("cub_device_reduce", "3.5.0")
    assert merge.split_variant("floor_sum") == ("floor_sum", None)


def test_merging_the_merge_again_keeps_its_sources(tmp_path):
    first = merged(tmp_path, C30, C35)
    d = doc(C35)
    d["context"].update(cccl_version="3.6.0", date="2026-11-22T10:00:00+00:00")
    third = written(tmp_path, "c36.json", d)
    again = doc(merged(tmp_path, first, third, name="again.json"))
    src = again["context"]["merged_from"]
    assert [s["cccl_version"] for s in src] == ["3.0.1", "3.5.0", "3.6.0"]
    assert src[1]["renamed"]["reduce_sum/f32/floor_sum"] == "reduce_sum/f32/floor_sum@cccl3.5.0"
    assert src[2]["renamed"]["reduce_sum/i32/cub_reduce_nondeterministic"] == \
        "reduce_sum/i32/cub_reduce_nondeterministic@cccl3.6.0"
    assert again["context"]["cccl_version"] == "3.0.1 + 3.5.0 + 3.6.0"
    names = {b["name"] for b in again["benchmarks"]}
    assert "reduce_sum/i32/floor_sum@cccl3.6.0/N:1024/manual_time" in names
    assert "reduce_sum/i32/floor_sum@cccl3.5.0/N:1024/manual_time" in names   # not renamed twice


def test_same_input_same_bytes(tmp_path):
    a, b = merged(tmp_path, C30, C35, name="a.json"), merged(tmp_path, C30, C35, name="b.json")
    assert a.read_bytes() == b.read_bytes()


def test_an_out_ending_in_gz_is_gzip(tmp_path):
    plain, packed = merged(tmp_path, C30, C35), merged(tmp_path, C30, C35, name="m.json.gz")
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    assert packed.read_bytes() == merged(tmp_path, C30, C35, name="again.json.gz").read_bytes()   # mtime 0
    assert len(load_results(packed).records) == len(load_results(plain).records)


@pytest.mark.parametrize("name", ["a.json", "./sub/../a.json", "link.json"])
def test_an_out_that_is_an_input_is_refused_and_the_input_kept(tmp_path, capsys, name):
    a = written(tmp_path, "a.json", doc(C30))
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.json").symlink_to(a)
    before = a.read_bytes()
    out = tmp_path / name
    assert merge.main([str(a), str(C35), "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"bench-merge: --out {out}: is an input file; it would be overwritten " \
                                      "(write the output elsewhere)\n"
    assert a.read_bytes() == before


def expect_refusal(tmp_path, capsys, argv, message):
    out = tmp_path / "out" / "merged.json"
    assert merge.main([str(a) for a in argv] + ["--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("bench-merge: ") and message in err, err
    assert not out.parent.exists()
    return err


def test_the_committed_floor_cub35_runs_name_no_board_and_are_refused(tmp_path, capsys):
    assert "gpu_uuid" not in doc(REAL30)["context"]   # written before the context had it
    err = expect_refusal(tmp_path, capsys, [REAL30, REAL35], "its context names no gpu_uuid")
    assert str(REAL30) in err


def test_another_board_is_refused(tmp_path, capsys):
    d = doc(C35)
    d["context"]["gpu_uuid"] = "GPU-another-board"
    other = written(tmp_path, "other.json", d)
    err = expect_refusal(tmp_path, capsys, [C30, other], "bench-merge joins files of one board")
    assert "GPU-another-board" in err and str(other) in err


@pytest.mark.parametrize("key, value, label", [("timing_mode", "graph", "timing mode 'graph'"),
                                               ("cache_mode", "hot", "cache mode 'hot'"),
                                               ("launch_mode", "graph", "launch 'graph'")])
def test_another_way_of_timing_is_refused(tmp_path, capsys, key, value, label):
    d = doc(C35)
    d["context"][key] = value
    expect_refusal(tmp_path, capsys, [C30, written(tmp_path, "t.json", d)], f"has {label}")


def test_a_file_without_launch_mode_launched_on_the_stream(tmp_path):
    d = doc(C35)
    d["context"]["launch_mode"] = "stream"
    assert merge.main([str(C30), str(written(tmp_path, "s.json", d)), "--out", str(tmp_path / "m.json")]) == 0


def test_copies_of_one_build_are_refused(tmp_path, capsys):
    expect_refusal(tmp_path, capsys, [C30, C30], "its CCCL version (3.0.1) does not tell the copies apart")
    d = doc(C35)
    del d["context"]["cccl_version"]
    expect_refusal(tmp_path, capsys, [C30, written(tmp_path, "nov.json", d)], "no CCCL version does not tell")


def test_a_truncated_file_is_refused(tmp_path, capsys):
    cut = tmp_path / "cut.json"
    text = C35.read_text()
    cut.write_text(text[: len(text) // 2])
    expect_refusal(tmp_path, capsys, [C30, cut], "truncated (interrupted run?)")


def test_out_is_required(tmp_path, capsys):
    assert merge.main([str(C30)]) == 2
    assert "--out" in capsys.readouterr().err
