"""bench-audit and the ncu CSV reader: over fixtures written from ncu's documented
raw-page layout (tests/tools/fixtures/make_audit_fixtures.py; the parser's
cases), and over benchmarks of a real H200 audit
(tests/tools/fixtures/make_audit_h200_fixtures.py; the verdict rules)."""
import json

import pytest
from conftest import FIXTURES

from benchtools import audit, ncu
from benchtools.results import ResultsError, load_results

PROFILE = str(FIXTURES / "audit_profile.json")
NVTX = str(FIXTURES / "audit_ncu_nvtx.csv")
ORDER = str(FIXTURES / "audit_ncu_order.csv")
H200 = str(FIXTURES / "audit_h200.json")
H200_NCU = str(FIXTURES / "audit_h200_ncu.csv")
TWO_PASS = "reduce_sum/i32/two_pass_tree/N:67108864/block:512"
KIB, MIB = 1024.0, 1024.0 ** 2


def _rows(csv_path, profile=PROFILE, **limits):
    results = load_results(profile)
    calls = ncu.group_calls(ncu.parse_ncu_csv(open(csv_path).read()), audit.profiled_order(results))
    return {r.name: r for r in audit.audit(results, calls, **limits)}


def _h200(**limits):
    return {r.name.replace("/N:67108864", ""): r for r in _rows(H200_NCU, H200, **limits).values()}


def test_range_name_round_trip():
    assert ncu.range_to_name('4242  "<default domain>:reduce_sum.i32.x.N=1024.block=256.batch=16:none:none"') \
        == "reduce_sum/i32/x/N:1024/block:256/batch:16"
    assert ncu.range_to_name("dot.f32.cub_device_reduce.N=67108864") == "dot/f32/cub_device_reduce/N:67108864"
    assert ncu.range_to_name("") is None


def test_parser_reads_units_separators_and_skips_prof_lines():
    rows = ncu.parse_ncu_csv(open(ORDER).read())
    assert [r.index for r in rows] == list(range(len(rows)))
    assert rows[0].is_flush and rows[0].bytes_written == pytest.approx(41_943_040)   # "41943.04" Kbyte
    assert rows[1].bytes_read == 268_436_992                                          # "268,436,992" byte
    assert all(r.benchmark is None for r in rows)
    named = ncu.parse_ncu_csv(open(NVTX).read())
    assert named[1].benchmark == "reduce_max/i32/thrust_reduce/N:67108864"


def test_call_sums_kernels_and_counts_only_the_flush_writes():
    call = ncu.Call("x", kernels=[ncu.KernelRow(0, "k1", 100.0, 10.0, "x", None),
                                  ncu.KernelRow(1, "k2", 50.0, 0.0, "x", None)],
                    flushes=[ncu.KernelRow(2, ncu.FLUSH_KERNEL, 1e9, 7.0, "x", None)])
    assert call.bytes_read == 150.0            # the flush's reads (its own buffer) are left out
    assert call.bytes_written == 17.0          # its writes are the call's write-backs
    assert call.flush_bytes_read == 1e9


@pytest.mark.parametrize("csv_path", [NVTX, ORDER])
def test_verdicts_by_nvtx_and_by_order_agree(csv_path):
    rows = _rows(csv_path, tolerance=0.0, floor=64 * KIB)   # these partials (512 KiB) are past 64 KiB
    assert rows[TWO_PASS].status == "mismatch"
    assert rows[TWO_PASS].written.measured == pytest.approx(524_320)
    assert "writes" in rows[TWO_PASS].reasons[0] and len(rows[TWO_PASS].reasons) == 1
    assert rows["reduce_sum/i32/batched_vec16/N:67108864/block:1024/batch:16"].status == "ok"
    assert rows["reduce_sum/i32/cub_device_reduce/N:67108864"].kernels == 2
    elem = rows["vector_add/f32/elem/N:67108864/block:256"]
    assert elem.status == "ok" and elem.written.ratio == pytest.approx(1.0, abs=1e-4)
    assert rows["vector_add/f32/cpu_threads/N:67108864"].status == "not measured"
    assert rows["ceiling/f32/copy_memcpy/N:67108864"].status == "not measured"
    total_only = rows["reduce_max/i32/thrust_reduce/N:67108864"]
    assert total_only.status == "total only" and total_only.total_declared == pytest.approx(4 * (1 << 26))
    assert "reduce_sum/i32/batched_vec16/N:67108864/block:1024/batch:64" not in rows   # errored: not profiled


def test_a_direction_is_within_compulsory_minus_tol_to_compulsory_plus_stated_plus_tol():
    d = audit.Direction(declared=1000.0, measured=1100.0)
    assert d.off(50) and not d.off(100)
    assert audit.Direction(1000.0, 899.0).off(100) and not audit.Direction(1000.0, 900.0).off(100)
    assert not audit.Direction(1000.0, 1600.0, extra=500.0).off(100)   # stated extra: up to it
    assert audit.Direction(1000.0, 1601.0, extra=500.0).off(100)
    assert not audit.Direction(1000.0, 1000.0, extra=500.0).off(0)     # L2 kept it all: still right
    assert not audit.Direction(None, 5.0).off(0.0)     # nothing declared: nothing to compare


def test_tolerance_is_the_larger_of_the_floor_and_a_share_of_the_compulsory_traffic():
    call = ncu.Call("r", kernels=[ncu.KernelRow(0, "k", 2000.0, 0.0, "r", None)])
    a = audit.audit_call("r", call, {"bytes_read": 1000, "bytes_written": 0}, 1000.0, 0.05, 0.0)
    assert a.tolerance_bytes == 50.0 and a.status == "mismatch"
    assert any(r.startswith("reads 1.953 KiB against 1000 B compulsory") for r in a.reasons)
    assert a.notes == ["no closing flush profiled: write-backs after the call are missing"]
    assert audit.audit_call("r", call, {"bytes_read": 1000, "bytes_written": 0}, 1000.0, 0.05, 1000.0).status == "ok"
    # Read and written bytes both count: 1 % of 100 MiB + 100 MiB.
    big = audit.audit_call("r", call, {"bytes_read": 100 * MIB, "bytes_written": 100 * MIB}, 0.0)
    assert big.tolerance_bytes == pytest.approx(2 * MIB)
    assert audit.audit_call("r", call, {"bytes_read": 4, "bytes_written": 4}, 0.0).tolerance_bytes == MIB
    replayed = ncu.Call("r", kernels=[ncu.KernelRow(0, "k", 1000.0, 0.0, "r", 3)],
                        flushes=[ncu.KernelRow(1, ncu.FLUSH_KERNEL, 9.0, 0.0, "r", 1)])
    b = audit.audit_call("r", replayed, {"bytes_read": 1000, "bytes_written": 0}, 1000.0, 0.05, 0.0)
    assert b.status == "ok" and "replayed a kernel 3 times" in b.notes[0]


# ---- the rules over a real H200 audit (N = 2^26) --------------------------------

def test_h200_background_write_backs_of_read_only_calls_are_within_the_floor():
    rows = _h200()
    for name in ("ceiling/f32/read_vec16", "reduce_argmax/i32/cub_device_reduce",
                 "reduce_sum/i32/batched_vec16_reduce_add_sync/block:256/batch:16"):
        r = rows[name]
        assert r.status == "ok" and r.written.declared <= 12, name
        assert 90 * KIB < r.written.measured < 0.5 * MIB, name   # write-backs that are not the call's stores
        assert not r.moves_more, name
    # Held to the floor alone (no share of the traffic), a 64 KiB floor calls them mismatches.
    strict = _h200(tolerance=0.0, floor=64 * KIB)
    assert strict["ceiling/f32/read_vec16"].status == "mismatch"
    assert strict["reduce_sum/i32/batched_vec16_reduce_add_sync/block:256/batch:16"].status == "mismatch"


def test_h200_fewer_writes_than_compulsory_within_one_percent_of_the_traffic():
    w = _h200()["ceiling/f32/write_vec16"]
    assert w.status == "ok" and w.written.beyond == pytest.approx(-970.75 * KIB)
    assert w.tolerance_bytes == pytest.approx(0.01 * 256 * MIB)
    assert _h200(tolerance=0.001, floor=0.0)["ceiling/f32/write_vec16"].status == "mismatch"


def test_h200_first_benchmark_write_backs_are_a_mismatch():
    h = _h200()["ceiling/f16/hfma2"]
    assert h.status == "mismatch" and h.written.declared == 32 * KIB
    assert h.reasons == ["writes 13.082 MiB against 32 KiB compulsory (+13.051 MiB past the compulsory; "
                         "tolerance 1 MiB)"]


def test_h200_stated_extra_traffic_explains_multi_pass_and_second_reads():
    rows = _h200()
    scan = rows["scan/i32/reduce_then_scan/block:256/batch:8"]
    assert scan.status == "ok" and scan.read.extra == 4 * (1 << 26)
    assert scan.moved_ratio == pytest.approx(1.5, abs=0.002) and scan.model_ratio == pytest.approx(1.0, abs=0.002)
    argmax = rows["reduce_argmax/i32/sequential_addressing/block:256"]
    assert argmax.status == "ok" and argmax.moves_more and argmax.written.extra == 16 * 263172
    assert argmax.written.beyond > 4 * MIB and argmax.read.beyond > 3 * MIB
    assert rows["reduce_sum/i32/sequential_addressing/block:256"].status == "ok"
    # Stated traffic L2 kept on chip is no mismatch: the look-back's status words.
    look = rows["scan/i32/decoupled_lookback/block:256/batch:8"]
    assert look.status == "ok" and look.written.beyond < look.written.extra


def test_h200_without_the_stated_fields_nothing_extra_is_expected():
    results = load_results(H200)
    calls = ncu.group_calls(ncu.parse_ncu_csv(open(H200_NCU).read()), audit.profiled_order(results))
    fields = audit.benchmark_fields(H200, audit.FIELDS)
    for name, want in (("scan/i32/reduce_then_scan/N:67108864/block:256/batch:8", "reads 512.017 MiB"),
                       ("reduce_argmax/i32/sequential_addressing/N:67108864/block:256", "writes 4.401 MiB")):
        bare = {k: v for k, v in fields[name].items() if not k.startswith("extra_")}
        a = audit.audit_call(name, calls[name], bare, 0.0)
        assert a.status == "mismatch" and any(r.startswith(want) for r in a.reasons), a.reasons
        assert a.read.extra == 0 and a.written.extra == 0 and a.extra_traffic == ""
    # A file from before the fields: two_pass_tree's partials, within the tolerance, listed as unstated.
    two = _h200()["reduce_sum/i32/two_pass_tree/block:256"]
    assert two.status == "ok" and two.moves_more and two.read.extra == 0 and two.extra_traffic == ""


def test_h200_calls_ncu_cannot_see_are_not_measured_never_mismatches():
    rows = _h200()
    memcpy, cpu = rows["ceiling/f32/copy_memcpy"], rows["vector_add/f32/cpu_threads"]
    assert memcpy.status == cpu.status == "not measured"
    assert memcpy.kernels == 0 and memcpy.written.measured > 20 * MIB   # the flush saw its write-backs: not used
    assert memcpy.why_not_measured == audit.NOT_MEASURED_NO_KERNEL and "copy-engine" in memcpy.why_not_measured
    assert cpu.why_not_measured == audit.NOT_MEASURED_CPU
    assert memcpy.moved_ratio is None and not memcpy.moves_more and not cpu.reasons
    # Role cpu is not measured even where a kernel ran in its window.
    call = ncu.Call("c", kernels=[ncu.KernelRow(0, "k", 1.0, 1.0, "c", None)])
    assert audit.audit_call("c", call, {"role": "cpu", "bytes_read": 8, "bytes_written": 4}, 0.0).status \
        == "not measured"


def test_h200_cli_summary_tables_and_json(tmp_path, capsys):
    assert audit.main([H200, H200_NCU, "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "13 benchmarks: 10 ok, 1 mismatch, 2 not measured, 0 total only; 6 move more" in err
    md = (tmp_path / "audit.md").read_text()
    assert "**10 within their model, 1 mismatch, 2 not measured.** 6 move more than the compulsory bytes " \
           "(2 without stating why)." in md
    assert "## Mismatches (1)" in md and "## Not measured (2)" in md and "### scan" in md
    assert "| `i32/reduce_then_scan/block:256/batch:8` | 3 | 256 MiB | 512.017 MiB | 2.000 | 256 MiB |" in md
    assert "| `reduce_sum/i32/two_pass_tree/N:67108864/block:256` | 1.008 | 1.008 |" in md
    assert "none stated |" in md
    doc = json.loads((tmp_path / "audit.json").read_text())
    assert doc["summary"] == {"benchmarks": 13, "ok": 10, "mismatch": 1, "not_measured": 2, "total_only": 0,
                              "move_more_than_compulsory": 6, "move_more_unstated": 2}
    assert doc["mismatches"] == ["ceiling/f16/hfma2/N:67108864"]
    assert set(doc["not_measured"]) == {"ceiling/f32/copy_memcpy/N:67108864", "vector_add/f32/cpu_threads/N:67108864"}
    assert doc["tolerance"] == {"relative": 0.01, "of": "compulsory bytes read + written", "floor_bytes": MIB}
    by = {b["name"]: b for b in doc["benchmarks"]}
    rts = by["scan/i32/reduce_then_scan/N:67108864/block:256/batch:8"]
    assert rts["extra_read"] == 4 * (1 << 26) and rts["extra_written"] == 0 and rts["extra_traffic"]


def test_cli_writes_markdown_and_json_and_exits_1_on_mismatch(tmp_path, capsys):
    assert audit.main([PROFILE, NVTX, "--out", str(tmp_path), "--tolerance", "0", "--floor", "65536"]) == 1
    md = (tmp_path / "audit.md").read_text()
    assert "## Mismatches (1)" in md and f"`{TWO_PASS}`" in md
    assert "| `f32/elem/block:256` | 1 | 512 MiB |" in md
    doc = json.loads((tmp_path / "audit.json").read_text())
    assert doc["mismatches"] == [TWO_PASS]
    assert doc["tolerance"]["floor_bytes"] == 65536
    by = {b["name"]: b for b in doc["benchmarks"]}
    assert by[TWO_PASS]["declared_written"] == 4 and by[TWO_PASS]["measured_written"] == 524_320
    # The default floor (1 MiB) is wider than these partials; --slack is its old name.
    assert audit.main([PROFILE, NVTX]) == 0
    assert "## Mismatches (0)" in capsys.readouterr().out
    assert audit.main([PROFILE, NVTX, "--tolerance", "0", "--slack", "65536"]) == 1


def _bad_csv(tmp_path, text):
    p = tmp_path / "bad.csv"
    p.write_text(text)
    return str(p)


@pytest.mark.parametrize("make, message", [
    (lambda t: _bad_csv(t, "hello\n"), "no ncu raw-page header"),
    (lambda t: _bad_csv(t, '"ID","Kernel Name","dram__bytes_read.sum"\n"0","k","1"\n'), "dram__bytes_write.sum"),
    (lambda t: _bad_csv(t, '"ID","Kernel Name","dram__bytes_read.sum","dram__bytes_write.sum"\n'), "no kernel rows"),
    (lambda t: _bad_csv(t, '"ID","Kernel Name","dram__bytes_read.sum","dram__bytes_write.sum"\n'
                           '"0","k","n/a","1"\n'), "is not a number"),
    (lambda t: _bad_csv(t, '"ID","Kernel Name","dram__bytes_read.sum","dram__bytes_write.sum"\n'
                           '"0","l2_flush_kernel","1","1"\n'), "form 1 profiled calls"),
    (lambda t: str(t / "missing.csv"), "cannot read"),
])
def test_cli_bad_input_exits_2_with_one_line(tmp_path, capsys, make, message):
    assert audit.main([PROFILE, make(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_cli_bad_options_exit_2(capsys):
    assert audit.main([PROFILE, NVTX, "--tolerance", "2"]) == 2
    assert "--tolerance" in capsys.readouterr().err
    assert audit.main([str(FIXTURES / "h200_small.json"), "x.csv", "--bogus"]) == 2


def test_unknown_nvtx_names_fall_back_to_order():
    rows = [ncu.KernelRow(0, "k", 10.0, 0.0, "other/i32/x/N:1", None),
            ncu.KernelRow(1, ncu.FLUSH_KERNEL, 5.0, 3.0, "other/i32/x/N:1", None)]
    calls = ncu.group_calls(rows, ["reduce_sum/i32/y/N:1"])
    assert list(calls) == ["reduce_sum/i32/y/N:1"] and calls["reduce_sum/i32/y/N:1"].bytes_written == 3.0


# The profiler start-up window (cuda_bench opens it once, before the first
# benchmark's window: src/harness/profile.hpp) holds one flush; its writes are
# charged to no benchmark, by its NVTX range or, without NVTX columns, by order
# when the results' context says cuda_bench opened it.
def _with_start_row(csv_text, nvtx):
    lines = csv_text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith('"0"'))
    row = lines[first].replace('"0"', '"-1"', 1)
    range_cell = '"4242  ""<default domain>:cuda_bench.profiler_start:none:none:none:none:none:none"""'
    if nvtx:
        row = row.replace(row[row.index('"4242  ""'):row.index('""","') + 3], range_cell)
    row = row.replace('"41943040"', '"13631488"')   # 13 MiB of start-up write-backs (NVTX fixture: bytes)
    return "\n".join(lines[:first] + [row] + lines[first:]) + "\n"


def test_start_window_rows_are_set_aside_by_nvtx_range():
    rows = ncu.parse_ncu_csv(_with_start_row(open(NVTX).read(), nvtx=True))
    assert rows[0].start_window and rows[0].benchmark is None and rows[0].bytes_written == 13_631_488
    start, rest = ncu.split_profiler_start(rows, 0)     # the range alone decides
    assert [r.index for r in start] == [-1] and len(rest) == len(rows) - 1
    results = load_results(PROFILE)
    calls = ncu.group_calls(rest, audit.profiled_order(results))
    assert calls["ceiling/f32/copy_memcpy/N:67108864"].bytes_written == 41_943_040   # not 13 MiB more


def test_start_window_by_order_only_when_the_results_say_it_was_opened():
    rows = [ncu.KernelRow(0, ncu.FLUSH_KERNEL, 1e8, 13 * MIB, None, None),
            ncu.KernelRow(1, "k", 10.0, 0.0, None, None),
            ncu.KernelRow(2, ncu.FLUSH_KERNEL, 1e8, 3.0, None, None)]
    start, rest = ncu.split_profiler_start(rows, 1)
    assert [r.index for r in start] == [0] and [r.index for r in rest] == [1, 2]
    calls = ncu.group_calls(rest, ["reduce_sum/i32/y/N:1"])
    assert calls["reduce_sum/i32/y/N:1"].bytes_written == 3.0
    assert ncu.split_profiler_start(rows, 0) == ([], rows)   # not opened: nothing set aside
    with pytest.raises(ResultsError, match="2 profiled calls"):
        ncu.group_calls(rows, ["reduce_sum/i32/y/N:1"])       # and counting it as a call is refused


def test_cli_reports_the_start_window_and_charges_it_to_no_benchmark(tmp_path, capsys):
    profile = json.loads(open(PROFILE).read())
    profile["context"]["profile_start_range"] = "cuda_bench.profiler_start"
    (tmp_path / "run.json").write_text(json.dumps(profile))
    for nvtx, source in ((True, NVTX), (False, ORDER)):
        text = _with_start_row(open(source).read(), nvtx)
        (tmp_path / "ncu.csv").write_text(text)
        wrote = ncu.parse_ncu_csv(text)[0].bytes_written      # the start-up flush's writes
        assert wrote > 12 * MIB
        out = tmp_path / ("nvtx" if nvtx else "order")
        # charged to a benchmark, the rows would form one call too many (exit 2, as below)
        assert audit.main([str(tmp_path / "run.json"), str(tmp_path / "ncu.csv"), "--out", str(out)]) == 0
        md = (out / "audit.md").read_text()
        assert "Profiler start-up window (`cuda_bench.profiler_start`" in md
        assert f"wrote {audit.fmt_bytes(wrote)}," in md
        data = json.loads((out / "audit.json").read_text())
        assert data["profiler_start"] == {"range": "cuda_bench.profiler_start", "kernels": 1,
                                          "bytes_written": wrote}
        assert data["summary"]["ok"] == 4 and data["mismatches"] == []
    (tmp_path / "ncu.csv").write_text(_with_start_row(open(ORDER).read(), nvtx=False))
    assert audit.main([PROFILE, str(tmp_path / "ncu.csv")]) == 2   # a run that did not open the window
    assert "profiled calls" in capsys.readouterr().err


@pytest.mark.parametrize("option, value", [("--floor", "nan"), ("--floor", "inf"), ("--slack", "-1"),
                                           ("--tolerance", "nan"), ("--tolerance", "1")])
def test_cli_a_floor_or_tolerance_out_of_range_is_refused(capsys, option, value):
    # --floor nan passed the range check and failed every benchmark; inf passed every one
    assert audit.main([PROFILE, NVTX, option, value]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bench-audit: argument ") and f"got '{value}'" in err and len(err.splitlines()) == 1


def test_cli_a_csv_cell_past_the_csv_field_limit_is_one_line(tmp_path, capsys):
    big = tmp_path / "big.csv"
    big.write_text('"ID","' + "x" * 200000 + '"\n')
    assert audit.main([PROFILE, str(big)]) == 2
    assert capsys.readouterr().err.strip() == (f"bench-audit: {big}: not readable as CSV "
                                               "(field larger than field limit (131072))")
