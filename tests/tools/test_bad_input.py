"""Every bad input to bench-compare, bench-table, bench-plot and bench-merge: one line on stderr
naming it, exit 2 (never 1, which bench-compare means as "regressed"), no traceback,
nothing written; and an output that cannot be written, for every tool that writes files."""
import json
import math
import os

import pytest
from conftest import FIXTURES

from benchtools import compare, merge, plot, table

BASE = str(FIXTURES / "compare_base.json")
SAME = FIXTURES / "compare_same.json"


def call(main, argv):
    try:
        return main([str(a) for a in argv])
    except SystemExit as e:   # argparse's own exits count too
        return e.code


# Each CLI's argv around one input file, and the output it must not create.
CLIS = {
    "bench-compare": (compare.main, lambda f, d: [BASE, f, "--markdown", d / "out" / "s.md"]),
    "bench-table": (table.main, lambda f, d: [f]),
    "bench-plot": (plot.main, lambda f, d: [f, "--out", d / "out"]),
    "bench-merge": (merge.main, lambda f, d: [f, "--out", d / "out" / "merged.json"]),
}


def expect_exit_2(capsys, tmp_path, tool, argv, message):
    main = CLIS[tool][0]
    assert call(main, argv) == 2
    out = capsys.readouterr()
    err = out.err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"{tool}: ") and message in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()
    return err


def doc():
    return json.loads(SAME.read_text())


def first_iteration(d):
    return next(b for b in d["benchmarks"] if b["run_type"] == "iteration")


def edited(edit):
    def make(path):
        d = doc()
        edit(d)
        path.write_text(json.dumps(d))   # Python writes NaN/Infinity literals, as a broken writer would
    return make


def set_first(key, value):
    return edited(lambda d: first_iteration(d).__setitem__(key, value))


def drop_first(key):
    return edited(lambda d: first_iteration(d).pop(key))


def set_context(key, value):
    return edited(lambda d: d["context"].__setitem__(key, value))


def _broken_halfway(text):
    half = len(text) // 2
    return text[:half] + text[half:].replace('"real_time": ', '"real_time": 1.2.', 1)


BAD_FILES = [
    ("non-UTF-8", lambda p: p.write_bytes(b'{"context": {"gpu_name": "\xff\xfe"}, "benchmarks": []}'),
     "not UTF-8 text (byte 0xff at offset 26)"),
    ("benchmarks not a list", lambda p: p.write_text('{"context": {"gpu_name": "NVIDIA H200"}, "benchmarks": {}}'),
     "'benchmarks' is dict, not a list"),
    ("entry not an object", edited(lambda d: d["benchmarks"].insert(3, [1, 2])), "benchmarks[3] is list, not an object"),
    ("NaN time", set_first("real_time", math.nan), "real_time is nan: not a measurement"),
    ("Inf time", set_first("real_time", math.inf), "real_time is inf: not a measurement"),
    ("zero time", set_first("real_time", 0), "real_time is 0: not a measurement"),
    ("negative time", set_first("real_time", -3.5), "real_time is -3.5: not a measurement"),
    ("time as text", set_first("real_time", "fast"), "real_time is 'fast', not a number"),
    # Google Benchmark writes every measurement as a JSON number: one in a string is not its file.
    ("time as a numeral in text", set_first("real_time", "12.5"), "real_time is '12.5', not a number"),
    ("rate as a numeral in text", set_first("bytes_per_second", "1e9"), "bytes_per_second is '1e9', not a number"),
    ("no time", drop_first("real_time"), "real_time is missing"),
    ("no time unit", drop_first("time_unit"), "time_unit is missing"),
    ("odd time unit", set_first("time_unit", "fortnights"), "time_unit is 'fortnights'"),
    ("NaN rate", set_first("bytes_per_second", math.nan), "bytes_per_second is nan"),
    ("negative rate", set_first("bw_util", -0.5), "bw_util is -0.5"),
    ("NaN peak", set_context("gpu_peak_bandwidth_gbps", "nan"), "context gpu_peak_bandwidth_gbps is 'nan'"),
    ("Inf peak", set_context("gpu_peak_fp32_flops", "inf"), "context gpu_peak_fp32_flops is 'inf'"),
    ("zero peak", set_context("gpu_peak_bandwidth_gbps", 0), "context gpu_peak_bandwidth_gbps is 0"),
    # Not a file cut off mid-write (once taken for one, and used in part as "truncated"):
    ("nested too deeply", lambda p: p.write_text("[" * 100000 + "]" * 100000), "not valid JSON (nested too deeply"),
    ("byte-order mark", lambda p: p.write_bytes(b"\xef\xbb\xbf" + SAME.read_bytes()), "Unexpected UTF-8 BOM"),
    ("broken mid-file", lambda p: p.write_text(_broken_halfway(SAME.read_text())),
     "not valid JSON (Expecting ',' delimiter at line"),
    ("two runs in one file", lambda p: p.write_text(SAME.read_text() * 2), "not valid JSON (Extra data at line"),
]


@pytest.mark.parametrize("tool", CLIS)
@pytest.mark.parametrize("make, message", [f[1:] for f in BAD_FILES], ids=[f[0] for f in BAD_FILES])
def test_broken_file_exits_2_with_one_line(tmp_path, capsys, tool, make, message):
    bad = tmp_path / "bad.json"
    make(bad)
    err = expect_exit_2(capsys, tmp_path, tool, CLIS[tool][1](bad, tmp_path), message)
    assert str(bad) in err


def test_broken_baseline_is_named_too(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    set_first("real_time", math.nan)(bad)
    err = expect_exit_2(capsys, tmp_path, "bench-compare", [bad, BASE], "real_time is nan")
    assert str(bad) in err


def test_broken_numbers_are_refused_even_with_force(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    set_first("real_time", -1.0)(bad)
    expect_exit_2(capsys, tmp_path, "bench-compare", [BASE, bad, "--force"], "not a measurement")


def _truncated(path):
    text = SAME.read_text()
    path.write_text(text[: len(text) // 2])


@pytest.mark.parametrize("tool", ["bench-table", "bench-plot"])
def test_truncated_file_is_used_with_a_warning(tmp_path, capsys, tool):
    cut = tmp_path / "cut.json"
    _truncated(cut)
    main, argv = CLIS[tool]
    assert call(main, argv(cut, tmp_path)) == 0
    warnings = [l for l in capsys.readouterr().err.splitlines() if "is truncated" in l]
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{tool}: warning: {cut} is truncated (interrupted run?); using its ")


def test_truncated_file_is_refused_by_the_gate(tmp_path, capsys):
    cut = tmp_path / "cut.json"
    _truncated(cut)
    expect_exit_2(capsys, tmp_path, "bench-compare", [BASE, cut], "truncated (interrupted run?); a partial run")


def _file(d):
    (d / "file").write_text("x")
    return d / "file"


@pytest.mark.parametrize("option", ["--markdown", "--verdict", "--medians"])
@pytest.mark.parametrize("where, message", [
    (lambda d: _file(d) / "x.md", "cannot be created ({d}/file is not a folder)"),
    (lambda d: d, "is a folder, not a file"),
])
def test_unwritable_compare_output_is_refused_before_any_work(tmp_path, capsys, option, where, message):
    # The input is garbage: the output path is checked first, so it is what the line names.
    (tmp_path / "garbage.json").write_text("garbage")
    target = where(tmp_path)
    err = expect_exit_2(capsys, tmp_path, "bench-compare", [BASE, tmp_path / "garbage.json", option, target],
                        f"{option} {target}: " + message.format(d=tmp_path))
    assert "garbage" not in err


def test_unwritable_calibrate_out_is_refused(tmp_path, capsys):
    target = _file(tmp_path) / "noise.json"
    expect_exit_2(capsys, tmp_path, "bench-compare", ["--calibrate", BASE, SAME, "--out", target],
                  f"--out {target}: cannot be created")


@pytest.mark.parametrize("where, message", [
    (lambda d: _file(d), "exists and is not a folder"),
    (lambda d: _file(d) / "plots", "cannot be created ({d}/file is not a folder)"),
])
def test_unwritable_plot_folder_is_refused_before_any_work(tmp_path, capsys, where, message):
    target = where(tmp_path)
    assert call(plot.main, ["garbage-that-is-not-read.json", "--out", target]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"bench-plot: --out {target}: " + message.format(d=tmp_path)


def test_a_write_error_after_the_check_is_one_line_too(tmp_path, capsys, monkeypatch):
    from benchtools import cli

    def full(self, text, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(cli.Path, "write_text", full)
    assert call(compare.main, [BASE, SAME, "--verdict", tmp_path / "v.json"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"bench-compare: --verdict {tmp_path}/v.json: cannot write: No space left on device"


# The same for the tools whose outputs were written outside cli.write_text, each
# checked with a disk that fills after the check (and bench-report's --out on a
# folder, which it used to take and crash on): one line naming the option, exit 2.
def _disk_full(*args, **kwargs):
    raise OSError(28, "No space left on device")


def _writers(d):
    from benchtools import ab, audit, autotune, report

    sampled = FIXTURES / "sampled_interleaved.json"
    return {
        "bench-report": (report.main, [sampled, "--no-charts", "--out", d / "r.html"], f"--out {d}/r.html"),
        "bench-report --compare": (report.main, ["--compare", sampled, sampled, "--out", d / "c.html"],
                                   f"--out {d}/c.html"),
        "bench-audit": (audit.main, [FIXTURES / "audit_profile.json", FIXTURES / "audit_ncu_nvtx.csv",
                                     "--out", d / "audit"], f"--out {d}/audit/audit.md"),
        "bench-autotune": (autotune.main, [FIXTURES / "h200_small.json", "--out", d / "tune"],
                           f"--out {d}/tune/autotune.md"),
        "bench-plot": (plot.main, [sampled, "--out", d / "plots", "--jobs", "1"], f"--out {d}/plots"),
        "bench-ab": (ab.main, [sampled, "--versus", "cub_device_reduce", "--chart", d / "ab.png"], f"--chart {d}/ab.png"),
    }


@pytest.mark.parametrize("tool", ["bench-report", "bench-report --compare", "bench-audit", "bench-autotune",
                                  "bench-plot", "bench-ab"])
def test_a_full_disk_while_writing_is_one_line_for_every_writer(tmp_path, capsys, monkeypatch, tool):
    from benchtools import cli, draw

    monkeypatch.setattr(cli.Path, "write_text", _disk_full)
    monkeypatch.setattr(draw, "save", _disk_full)
    main, argv, named = _writers(tmp_path)[tool]
    assert call(main, argv) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    assert err.splitlines()[-1] == f"{tool.split()[0]}: {named}: cannot write: No space left on device", err


def test_a_report_onto_a_folder_is_refused_before_any_work(tmp_path, capsys):
    from benchtools import report

    assert call(report.main, ["garbage-that-is-not-read.json", "--out", tmp_path]) == 2
    assert capsys.readouterr().err.strip() == f"bench-report: --out {tmp_path}: is a folder, not a file"


def test_a_file_cut_off_with_a_zero_filled_tail_is_still_truncated(tmp_path, capsys):
    cut = tmp_path / "cut.json"
    text = SAME.read_text()
    cut.write_text(text[: len(text) // 2] + "\0" * 4096)   # what a crash can leave
    assert call(table.main, [cut]) == 0
    assert f"{cut} is truncated (interrupted run?)" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--filter", "--heatmap"])
def test_a_regex_repeat_count_too_large_is_one_line(tmp_path, capsys, option):
    main = table.main if option == "--filter" else plot.main
    argv = [SAME, option, "x{99999999999}"] + (["--out", tmp_path / "out"] if option == "--heatmap" else [])
    assert call(main, argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"{option} 'x{{99999999999}}': not a valid regex (the repetition number is too large)"), err


@pytest.mark.parametrize("main, argv, option", [
    (table.main, ["--n", ""], "--n"),
    (table.main, ["--times", " "], "--times"),
    (table.main, ["--versus="], "--versus"),
    (plot.main, ["--out", ""], "--out"),
    (compare.main, [BASE, "--noise", ""], "--noise"),
])
def test_an_empty_option_value_is_refused_not_taken_as_the_default(tmp_path, capsys, monkeypatch, main, argv, option):
    # --n "$N" with N unset: not the largest N, every chart in the current folder, or no noise file
    monkeypatch.chdir(tmp_path)
    assert call(main, [SAME] + argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"argument {option}: expected a value, got '" in err, err
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_leaves_no_half_file_and_the_earlier_result_as_it_was(tmp_path, capsys, monkeypatch):
    from benchtools import cli

    out = tmp_path / "merged.json"
    out.write_text("an earlier result\n")
    write = cli.Path.write_text

    def half_then_full(self, text, **kwargs):   # the disk fills halfway through
        write(self, text[: len(text) // 2], **kwargs)
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(cli.Path, "write_text", half_then_full)
    assert call(merge.main, [FIXTURES / "floor_cccl30.json", FIXTURES / "floor_cccl35.json", "--out", out]) == 2
    assert capsys.readouterr().err.strip() == f"bench-merge: --out {out}: cannot write: No space left on device"
    assert out.read_text() == "an earlier result\n"
    assert [p.name for p in tmp_path.iterdir()] == ["merged.json"]


def test_a_written_file_gets_the_usual_permissions(tmp_path):
    from benchtools import cli

    old = tmp_path / "old.json"
    old.write_text("x")
    old.chmod(0o640)
    cli.write_text("--out", str(old), "y")
    cli.write_text("--out", str(tmp_path / "new.json"), "z")
    assert (old.stat().st_mode & 0o777, old.read_text()) == (0o640, "y")
    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o666 & ~mask


def _all_errored(path):
    d = doc()
    for b in d["benchmarks"]:
        b.update(error_occurred=True, error_message="verification failed")
    path.write_text(json.dumps(d))
    return path


def test_an_all_errored_run_is_no_a_a_run_for_calibrate(tmp_path, capsys):
    bad = _all_errored(tmp_path / "errored.json")
    assert call(compare.main, ["--calibrate", bad, SAME]) == 2
    assert capsys.readouterr().err.strip() == (f"bench-compare: {bad}: no successful benchmark (all 54 errored); "
                                                "no A/A run")


def test_an_all_errored_run_is_no_a_a_run_for_replay(tmp_path, capsys):
    from benchtools import replay

    bad = _all_errored(tmp_path / "errored.json")
    aa = [FIXTURES / f"gate_aa{i}.json" for i in (1, 2, 3)]
    assert call(replay.main, [bad, *aa]) == 2   # not judged by the fixed threshold for want of a model
    assert capsys.readouterr().err.strip() == (f"bench-replay: {bad}: no successful benchmark (all 54 errored); "
                                                "no A/A run")


@pytest.mark.parametrize("tool", ["annotate --declarations", "compare --noise", "published --published"])
def test_deeply_nested_side_files_are_one_line(tmp_path, capsys, tool):
    from benchtools import annotate, published

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000 + "]" * 100000)
    main, argv = {
        "annotate --declarations": (annotate.main, [tmp_path / "x.json", "--declarations", deep]),
        "compare --noise": (compare.main, [BASE, SAME, "--noise", deep]),
        "published --published": (published.main, [FIXTURES / "h100_vector_sum.json", "--published", deep]),
    }[tool]
    assert call(main, argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{deep}: not" in err and "nested too deeply" in err, err
