"""bench-audit and the ncu CSV reader over fixtures written from ncu's documented
raw-page layout (tests/tools/fixtures/make_audit_fixtures.py; not captured from ncu)."""
import json

import pytest
from conftest import FIXTURES

from benchtools import audit, ncu
from benchtools.results import ResultsError, load_results

PROFILE = str(FIXTURES / "audit_profile.json")
NVTX = str(FIXTURES / "audit_ncu_nvtx.csv")
ORDER = str(FIXTURES / "audit_ncu_order.csv")
TWO_PASS = "reduce_sum/i32/two_pass_tree/N:67108864/block:512"


def _rows(csv_path):
    results = load_results(PROFILE)
    calls = ncu.group_calls(ncu.parse_ncu_csv(open(csv_path).read()), audit.profiled_order(results))
    return {r.name: r for r in audit.audit(results, calls)}


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
    rows = _rows(csv_path)
    assert rows[TWO_PASS].status == "mismatch"
    assert rows[TWO_PASS].written.measured == pytest.approx(524_320)
    assert "writes" in rows[TWO_PASS].reasons[0] and len(rows[TWO_PASS].reasons) == 1
    assert rows["reduce_sum/i32/batched_vec16/N:67108864/block:1024/batch:16"].status == "ok"
    assert rows["reduce_sum/i32/cub_device_reduce/N:67108864"].kernels == 2
    elem = rows["vector_add/f32/elem/N:67108864/block:256"]
    assert elem.status == "ok" and elem.written.ratio == pytest.approx(1.0, abs=1e-4)
    assert rows["vector_add/f32/cpu_threads/N:67108864"].status == "no kernel"
    assert rows["ceiling/f32/copy_memcpy/N:67108864"].status == "no kernel"
    total_only = rows["reduce_max/i32/thrust_reduce/N:67108864"]
    assert total_only.status == "total only" and total_only.total_declared == pytest.approx(4 * (1 << 26))
    assert "reduce_sum/i32/batched_vec16/N:67108864/block:1024/batch:64" not in rows   # errored: not profiled


def test_tolerance_and_slack_decide_a_mismatch():
    d = audit.Direction(declared=1000.0, measured=1100.0)
    assert d.off(0.05, 0) and not d.off(0.2, 0) and not d.off(0.05, 100)
    assert not audit.Direction(None, 5.0).off(0.0, 0.0)     # nothing declared: nothing to compare
    call = ncu.Call("r", kernels=[ncu.KernelRow(0, "k", 2000.0, 0.0, "r", None)])
    a = audit.audit_call("r", call, {"bytes_read": 1000, "bytes_written": 0}, 1000.0, 0.05, 0.0)
    assert a.status == "mismatch" and any(r.startswith("reads 1.953 KiB against") for r in a.reasons)
    assert a.notes == ["no closing flush profiled: write-backs after the call are missing"]
    replayed = ncu.Call("r", kernels=[ncu.KernelRow(0, "k", 1000.0, 0.0, "r", 3)],
                        flushes=[ncu.KernelRow(1, ncu.FLUSH_KERNEL, 9.0, 0.0, "r", 1)])
    b = audit.audit_call("r", replayed, {"bytes_read": 1000, "bytes_written": 0}, 1000.0, 0.05, 0.0)
    assert b.status == "ok" and "replayed a kernel 3 times" in b.notes[0]


def test_cli_writes_markdown_and_json_and_exits_1_on_mismatch(tmp_path, capsys):
    assert audit.main([PROFILE, NVTX, "--out", str(tmp_path)]) == 1
    md = (tmp_path / "audit.md").read_text()
    assert "## Mismatches (1)" in md and f"`{TWO_PASS}`" in md
    assert "| `vector_add/f32/elem/N:67108864/block:256` | kernel | 1 |" in md
    doc = json.loads((tmp_path / "audit.json").read_text())
    assert doc["mismatches"] == [TWO_PASS]
    assert doc["tolerance"] == {"relative": 0.05, "slack_bytes": 65536}
    by = {b["name"]: b for b in doc["benchmarks"]}
    assert by[TWO_PASS]["declared_written"] == 4 and by[TWO_PASS]["measured_written"] == 524_320
    # A slack wider than the partials accepts it.
    assert audit.main([PROFILE, NVTX, "--slack", str(1 << 20)]) == 0
    assert "## Mismatches (0)" in capsys.readouterr().out


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
